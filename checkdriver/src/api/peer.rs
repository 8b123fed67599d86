//! Models `cuda.h` "Peer Context Memory Access" (`group__CUDA__PEER__ACCESS`), and the peer copies
//! of "Memory Management": access enabled and disabled per pair of contexts (the driver's own
//! errors for enabling twice or disabling what was not enabled), and copies between contexts.

use super::common::out;
use super::types::{
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, CUDA_SUCCESS,
    CUdevice, CUdeviceptr, Handle,
};
use crate::check::{self, Kind};
use core::ffi::{c_int, c_uint};

entry_points! {
    fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) { out(can, 0); CUDA_SUCCESS }
    // Enabling twice and disabling what was not enabled are the driver's errors, as on a GPU.
    fn cuCtxEnablePeerAccess(peer: Handle, flags: c_uint) {
        if check::peer_enabled(peer as usize) { CUDA_SUCCESS } else { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED }
    }
    fn cuCtxDisablePeerAccess(peer: Handle) {
        if check::peer_disabled(peer as usize) { CUDA_SUCCESS } else { CUDA_ERROR_PEER_ACCESS_NOT_ENABLED }
    }
    fn cuMemcpyPeer(dst: CUdeviceptr, dst_ctx: Handle, src: CUdeviceptr, src_ctx: Handle, bytes: usize) {
        peer_copy_used(dst, dst_ctx, src, src_ctx, bytes, None, "cuMemcpyPeer");
        CUDA_SUCCESS
    }
    fn cuMemcpyPeerAsync(
        dst: CUdeviceptr,
        dst_ctx: Handle,
        src: CUdeviceptr,
        src_ctx: Handle,
        bytes: usize,
        stream: Handle,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpyPeerAsync");
        peer_copy_used(dst, dst_ctx, src, src_ctx, bytes, Some(stream as usize), "cuMemcpyPeerAsync");
        CUDA_SUCCESS
    }
}

/// A peer copy of `bytes` from `src` (memory of `src_ctx`) to `dst` (of `dst_ctx`): both
/// contexts live, each range inside one live allocation of its context; on `stream` (of the
/// current context) both are pending there.
fn peer_copy_used(
    dst: CUdeviceptr,
    dst_ctx: Handle,
    src: CUdeviceptr,
    src_ctx: Handle,
    bytes: usize,
    stream: Option<usize>,
    what: &str,
) {
    for (p, ctx) in [(dst, dst_ctx), (src, src_ctx)] {
        check::context_named(ctx as usize, what);
        check::used_span(p, p + bytes as u64, Some(ctx as usize), what);
        if let Some(st) = stream {
            check::enqueued(st, Kind::DeviceMemory, p as usize);
        }
    }
}
