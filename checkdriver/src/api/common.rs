//! What the entry points of every group share: writes through the caller's out-parameters, C
//! string arguments, new handles recorded, and the checking mode's switch.

use super::types::{CUDA_SUCCESS, CUresult, Handle};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::mode;
use core::ffi::{CStr, c_char, c_int};
use core::sync::atomic::Ordering::Relaxed;

pub(crate) unsafe fn out<T>(p: *mut T, v: T) {
    if !p.is_null() {
        p.write(v);
    }
}

/// Copies `text` (NUL-terminated, truncated to `len`) into a caller's buffer.
pub(crate) unsafe fn out_str(buf: *mut c_char, len: c_int, text: &CStr) {
    let Ok(len) = usize::try_from(len) else {
        return;
    };
    if buf.is_null() || len == 0 {
        return;
    }
    let bytes = text.to_bytes();
    let n = bytes.len().min(len - 1);
    core::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), buf, n);
    buf.add(n).write(0);
}

pub(crate) unsafe fn new_handle(h: *mut Handle, kind: Kind) -> CUresult {
    let new = handle();
    check::created(kind, new as usize, 0);
    out(h, new);
    CUDA_SUCCESS
}

pub(crate) fn checking() -> bool {
    mode::CHECK.load(Relaxed)
}

/// Records a data fault (running past the end of an allocation) as a violation of `what`.
pub(crate) fn data_result<T>(r: Result<T, String>, what: &str) {
    if let Err(e) = r {
        mode::data_violation(what, e);
    }
}

/// A C string argument, for lookups (empty when null).
pub(crate) unsafe fn name_of(name: *const c_char) -> String {
    if name.is_null() {
        String::new()
    } else {
        CStr::from_ptr(name).to_string_lossy().into_owned()
    }
}
