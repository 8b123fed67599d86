//! How many managed buffers of the process are alive ([`ManagedBuffer`]s made and not yet
//! dropped or freed; a leaked one stays counted). While any is, a synchronous copy from the host
//! into device memory waits for the copy before it returns
//! ([`DeviceMemoryMut::copy_from_host`]): from pageable memory `cuMemcpyHtoD` may return once
//! the bytes are staged, before they land, and managed memory is the one kind of device memory
//! the host then reads and writes directly (C21). A leaf of `memory/`, so that the copy (in
//! `memory/mod.rs`) and the managed buffer (`memory/managed.rs`, which builds on it) both reach
//! the count without a circle.
//!
//! [`ManagedBuffer`]: crate::ManagedBuffer
//! [`DeviceMemoryMut::copy_from_host`]: crate::DeviceMemoryMut::copy_from_host

use core::sync::atomic::{AtomicUsize, Ordering};

/// The managed buffers alive.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Whether a managed buffer may be alive, so that a synchronous copy into device memory must
/// wait for its bytes to land before the host may touch them (one atomic load).
#[inline]
pub(crate) fn any_alive() -> bool {
    LIVE.load(Ordering::Acquire) != 0
}

/// A managed buffer made: counted before the value exists, whose drop or free counts it out.
pub(crate) fn made() {
    LIVE.fetch_add(1, Ordering::AcqRel);
}

/// A managed buffer ended (freed, or left behind with no handle to it): one fewer alive.
pub(crate) fn ended() {
    LIVE.fetch_sub(1, Ordering::AcqRel);
}
