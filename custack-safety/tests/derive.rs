//! `#[derive(DeviceCopy)]` through the facade names the facade's path: in a program that
//! depends on custack-safety alone, `::custack` does not resolve, and custack's own derive
//! (whose impl names `::custack::DeviceCopy`) would not compile there.

// `custack` is `core` in this test crate, which has no `DeviceCopy`: this `extern crate` at the
// crate root shadows the `custack` cargo passes (a dependency of this package), so an impl that
// named `::custack::DeviceCopy` would be an unresolved path, as where custack is no dependency.
extern crate core as custack;

use custack_safety::DeviceCopy;

/// A pixel of four 8-bit channels: plain data, no padding.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
struct Pixel {
    r: u8,
    g: u8,
    b: u8,
    a: u8,
}

/// A tuple struct of a derived struct and a scalar: the derive's field checks name the facade's
/// trait too.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Tagged(Pixel, u32);

/// The size of a `T` that the facade's `DeviceCopy` bound accepts.
fn plain_size<T: custack_safety::DeviceCopy>() -> usize {
    size_of::<T>()
}

#[test]
fn the_facade_s_derive_implements_custack_s_trait() {
    assert_eq!(plain_size::<Pixel>(), 4);
    assert_eq!(plain_size::<Tagged>(), 8);
}
