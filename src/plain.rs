//! Plain data: the types that may cross between host and device memory bit for bit.

/// Types whose values are valid bit for bit on both host and device: every bit pattern of
/// their size is a valid value, they own no host resource, and they hold no host pointer.
///
/// Implemented for the primitive integers and floats, and arrays and tuples of them. `bool`,
/// `char`, references, `Box`, `String`, `Vec` and anything with `Drop` are not plain data (the
/// `Copy + 'static` bound rejects the owning types outright, C12).
///
/// # Safety
///
/// Implement it only for `#[repr(C)]` or `#[repr(transparent)]` types made of plain data,
/// for which every bit pattern is a valid value (copies from the device write whatever bytes
/// the GPU holds), and which hold no pointer into host memory.
pub unsafe trait DeviceCopy: Copy + 'static {}

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

macro_rules! impl_device_copy_tuple {
    ($($name:ident),+) => {
        // SAFETY: a tuple of plain data holds only plain data; padding bytes are not read as
        // values on the host (the copy is byte-wise and every field accepts any bit pattern).
        unsafe impl<$($name: DeviceCopy),+> DeviceCopy for ($($name,)+) {}
    };
}
impl_device_copy_tuple!(A);
impl_device_copy_tuple!(A, B);
impl_device_copy_tuple!(A, B, C);
impl_device_copy_tuple!(A, B, C, D);
impl_device_copy_tuple!(A, B, C, D, E);
impl_device_copy_tuple!(A, B, C, D, E, F);
