//! The double's fake handles and device addresses: distinct, non-null, never dereferenced by a
//! wrapper (handles are pointers without provenance, so that Miri's strict provenance accepts
//! them and reports any dereference).

use super::api::types::{CUdeviceptr, Handle};
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Fake handles: distinct, non-null, never dereferenced by a wrapper. They are pointers without
/// provenance (`ptr::without_provenance_mut`), not integers cast to pointers, so that Miri's
/// `-Zmiri-strict-provenance` accepts them: a program may hold, copy and compare them, and any
/// dereference is reported as the error it would be.
static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(1);

/// Fake device addresses, 2 MiB apart at least (wrappers compare ranges, never dereference).
static NEXT_DEVICE_ADDRESS: AtomicU64 = AtomicU64::new(0x7f00_0000_0000);

pub(crate) fn handle() -> Handle {
    core::ptr::without_provenance_mut(0x1000_0000 + NEXT_HANDLE.fetch_add(1, Relaxed) * 0x40)
}

pub(crate) fn device_address(bytes: usize) -> CUdeviceptr {
    let step = (bytes as u64).div_ceil(1 << 21).max(1) << 21;
    NEXT_DEVICE_ADDRESS.fetch_add(step, Relaxed)
}
