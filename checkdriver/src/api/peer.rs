//! Models `cuda.h` "Peer Context Memory Access" (`group__CUDA__PEER__ACCESS`), and the peer copies
//! of "Memory Management": access enabled and disabled per pair of contexts (the driver's own
//! errors for enabling twice or disabling what was not enabled), and copies between contexts.

use super::common::{checking, data_result, out};
use super::ctx::device_of;
use super::device::device_exists;
use super::types::{
    CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, CUDA_SUCCESS, CUdevice,
    CUdeviceptr, Handle,
};
use crate::check::{self, Kind};
use crate::stack::with_stack;
use crate::{data, work};
use core::ffi::{c_int, c_uint};

entry_points! {
    // A device is not its own peer; two distinct devices are (in the double's own tests only).
    fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) {
        if !device_exists(dev) || !device_exists(peer) {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        out(can, c_int::from(dev != peer));
        CUDA_SUCCESS
    }
    // Between two contexts of one device, refused as the driver does (the H200 run:
    // `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED`, as `cuDeviceCanAccessPeer` of a device with itself
    // answers 0). Between devices, enabling twice and disabling what was not enabled are the
    // driver's errors, as on a GPU.
    fn cuCtxEnablePeerAccess(peer: Handle, flags: c_uint) {
        if device_of(peer) == device_of(with_stack(|s| s.top())) {
            check::context_named(peer as usize, "cuCtxEnablePeerAccess");
            return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
        }
        if check::peer_enabled(peer as usize) { CUDA_SUCCESS } else { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED }
    }
    fn cuCtxDisablePeerAccess(peer: Handle) {
        if check::peer_disabled(peer as usize) { CUDA_SUCCESS } else { CUDA_ERROR_PEER_ACCESS_NOT_ENABLED }
    }
    // The bytes move, as any copy's do (the H200 run: a peer copy's result read back as
    // zeroes on the double).
    fn cuMemcpyPeer(dst: CUdeviceptr, dst_ctx: Handle, src: CUdeviceptr, src_ctx: Handle, bytes: usize) {
        peer_copy_used(dst, dst_ctx, src, src_ctx, bytes, None, "cuMemcpyPeer");
        if checking() {
            data_result(data::copy(dst, src, bytes), "cuMemcpyPeer");
        }
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
        let op = work::DataOp::Copy { dst, src, bytes };
        check::data_op(stream as usize, &op, "cuMemcpyPeerAsync");
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
