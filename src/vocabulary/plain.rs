//! Plain data: the types that may cross between host and device memory bit for bit.

/// Types whose values are valid bit for bit on both host and device: every bit pattern of
/// their size is a valid value, they own no host resource, and they hold no host pointer.
///
/// Implemented for the primitive integers and floats, arrays of them, and tuples of one of them
/// (`(f32, f32, f32)`; tuples mixing types may hold padding, see below). `bool`,
/// `char`, references, `Box`, `String`, `Vec` and anything with `Drop` are not plain data (the
/// `Copy + 'static` bound rejects the owning types outright, C12).
///
/// # Safety
///
/// Implement it only for `#[repr(C)]` or `#[repr(transparent)]` types made of plain data that
/// have **no padding bytes** (padding is uninitialized on the host, and copies move it to the
/// device and back as bytes), for which every bit pattern is a valid value (copies from the
/// device write whatever bytes the GPU holds), which hold no pointer into host memory, and
/// whose **alignment is at most 256 bytes** (the most the driver's allocations promise:
/// page-locked and managed memory is read on the host as `&[T]`, which an address aligned less
/// than `T` would make undefined behaviour). `#[derive(DeviceCopy)]` checks each; every
/// allocation checks the alignment once more when it is compiled (found by review: a
/// `#[repr(C, align(1048576))]` struct's page-locked buffer was a misaligned `&[T]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not plain data (`DeviceCopy`)",
    note = "plain data is the primitive integers and floats, arrays of them, tuples of one of them, and `#[repr(C)]` structs without padding marked `unsafe impl DeviceCopy`; `bool`, `char`, references and owning types are not (store a `bool` as `u8`)",
    note = "as a kernel argument, device memory is passed bound to the launching scope: a read-only binding `let a = s.bind(&x);` by value (`a`, not `&a`), a writable binding `let b = s.bind_mut(&mut y);` by reference (`&b` to read, `&mut b` to write); a `DeviceBuffer` or view must be bound first"
)]
pub unsafe trait DeviceCopy: Copy + 'static {}

/// The largest alignment plain data may have, in bytes: what `cuMemAlloc` promises (256), less
/// than what `cuMemHostAlloc` does (a page). See [`DeviceCopy`]'s safety section.
pub(crate) const MAX_ALIGN: usize = 256;

macro_rules! impl_device_copy {
    ($($t:ty),*) => {$(
        // SAFETY: every bit pattern of a primitive integer or float is a valid value.
        unsafe impl DeviceCopy for $t {}
    )*};
}
impl_device_copy!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64
);

// SAFETY: an array of plain data is plain data: its bytes are its elements' bytes.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

// Tuples of one type only: a tuple mixing types may hold padding bytes (`(u8, u64)` has seven),
// which are uninitialized on the host; copying them to the device and back as bytes would read
// uninitialized memory. Elements of one type are laid out without padding (a type's size is a
// multiple of its alignment). Mixed records are `#[repr(C)]` structs without padding, marked by
// their author.
macro_rules! impl_device_copy_tuple {
    ($($t:ident),+) => {
        // SAFETY: every element has type `T`, so the tuple has no padding and its bytes are
        // its elements' bytes, each valid for any bit pattern.
        unsafe impl<T: DeviceCopy> DeviceCopy for ($($t,)+) {}
    };
}
impl_device_copy_tuple!(T);
impl_device_copy_tuple!(T, T);
impl_device_copy_tuple!(T, T, T);
impl_device_copy_tuple!(T, T, T, T);
