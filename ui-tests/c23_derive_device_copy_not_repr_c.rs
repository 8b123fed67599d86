//! C23 kernel contracts (their parameter structs): `#[derive(DeviceCopy)]` refuses a struct
//! without `#[repr(C)]` or `#[repr(transparent)]`, whose layout the device cannot rely on.
//! Positive twin: `derived_plain_data` in `tests/patterns.rs`.
use custack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
struct Params { //~ ERROR needs `#[repr(C)]`
    scale: f32,
    count: u32,
}

fn main() {
    let _ = Params { scale: 1.0, count: 2 };
}
