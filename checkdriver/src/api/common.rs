//! What the entry points of every group share: writes through the caller's out-parameters, C
//! string arguments, new handles recorded, and the checking mode's switch.

use super::types::{CUDA_SUCCESS, CUresult, Handle};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::mode;
use core::ffi::{CStr, c_char, c_int, c_void};
use core::sync::atomic::Ordering::Relaxed;

/// Writes `v` through the out-parameter `p`, unless `p` is null (a real driver answers
/// `CUDA_ERROR_INVALID_VALUE` there; the double writes nothing).
///
/// # Safety
///
/// `p` is null or valid for a write of a `T` (the caller's out-parameter, as the entry point's
/// contract requires).
pub(crate) unsafe fn out<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: `p` is non-null, so valid for a write of a `T` (this function's contract).
        unsafe { p.write(v) };
    }
}

/// Copies `text` (NUL-terminated, truncated to `len`) into a caller's buffer.
///
/// # Safety
///
/// `buf` is null or valid for writes of `len` bytes (a non-positive `len` writes nothing).
pub(crate) unsafe fn out_str(buf: *mut c_char, len: c_int, text: &CStr) {
    let Ok(len) = usize::try_from(len) else {
        return;
    };
    if buf.is_null() || len == 0 {
        return;
    }
    let bytes = text.to_bytes();
    let n = bytes.len().min(len - 1);
    // SAFETY: `buf` holds `len > n` bytes (this function's contract), `bytes` holds `n` or
    // more, and the caller's buffer cannot overlap the double's string.
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), buf, n) };
    // SAFETY: `n < len`: the last byte written is inside the buffer.
    unsafe { buf.wrapping_add(n).write(0) };
}

/// A new handle of `kind`, recorded and written to the out-parameter `h`.
///
/// # Safety
///
/// `h` is null or valid for a write of a handle.
pub(crate) unsafe fn new_handle(h: *mut Handle, kind: Kind) -> CUresult {
    let new = handle();
    check::created(kind, new as usize, 0);
    // SAFETY: `h` is null or valid for the write (this function's contract).
    unsafe { out(h, new) };
    CUDA_SUCCESS
}

/// Whether the checking mode is on.
pub(crate) fn checking() -> bool {
    mode::CHECK.load(Relaxed)
}

/// Records a data fault (running past the end of an allocation) as a violation of `what`.
pub(crate) fn data_result<T>(r: Result<T, String>, what: &str) {
    if let Err(e) = r {
        mode::data_violation(what, &e);
    }
}

/// The `T` at byte `offset` of the C struct at `base`, read unaligned: the double reads the
/// fields of the structs a caller passes at their offsets in `cuda.h`'s layout.
///
/// # Safety
///
/// `base` points to a struct that holds an initialized `T` at byte `offset`.
pub(crate) unsafe fn read_field<T>(base: *const c_void, offset: usize) -> T {
    // SAFETY: the caller's struct holds a `T` at `offset` (this function's contract).
    unsafe {
        base.cast::<u8>()
            .wrapping_add(offset)
            .cast::<T>()
            .read_unaligned()
    }
}

/// A C string argument, for lookups (empty when null).
///
/// # Safety
///
/// `name` is null or a NUL-terminated string.
pub(crate) unsafe fn name_of(name: *const c_char) -> String {
    if name.is_null() {
        String::new()
    } else {
        // SAFETY: a non-null `name` is NUL-terminated (this function's contract).
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    }
}
