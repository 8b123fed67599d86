//! What the nodes a builder makes and the updates of an executable graph's nodes share: the
//! record of a memset or memcpy node ([`DataNode`]: its kind, which an update must keep), the
//! driver's parameters of a copy, a memset and a kernel node, and the contract's checks that a
//! kernel node and its update run before the driver sees them.

use crate::error::Result;
use crate::ffi;
use crate::kernel::contract::{ContractArgs, PlainLaunch};
use crate::kernel::launch::LaunchConfig;

/// A memset or memcpy node a builder made, with what an update of it must keep: its kind (a
/// memset's unit, a copy's memory types and element type) and its context.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DataNode {
    pub(crate) raw: ffi::CUgraphNode,
    pub(crate) kind: DataNodeKind,
    pub(crate) ctx: ffi::CUcontext,
}

/// What a [`DataNode`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataNodeKind {
    /// A memset of `unit`-byte units.
    Fill { unit: u32 },
    /// A 1D copy between these memory types (`CU_MEMORYTYPE_*`) of elements of this type.
    Copy {
        dst: core::ffi::c_uint,
        src: core::ffi::c_uint,
        elem: &'static str,
    },
}

/// One side of a contiguous copy: its memory type, host pointer and device pointer.
pub(crate) type CopySide<Ptr> = (core::ffi::c_uint, Ptr, ffi::CUdeviceptr);

/// A contiguous 1D copy of `bytes` between the sides given, as a `CUDA_MEMCPY3D`: what copy
/// nodes and their updates share.
pub(crate) fn copy_params(
    dst: CopySide<*mut core::ffi::c_void>,
    src: CopySide<*const core::ffi::c_void>,
    bytes: usize,
) -> ffi::CUDA_MEMCPY3D {
    ffi::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: src.0,
        srcHost: src.1,
        srcDevice: src.2,
        srcArray: core::ptr::null_mut(),
        reserved0: core::ptr::null_mut(),
        srcPitch: bytes,
        srcHeight: 1,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: dst.0,
        dstHost: dst.1,
        dstDevice: dst.2,
        dstArray: core::ptr::null_mut(),
        reserved1: core::ptr::null_mut(),
        dstPitch: bytes,
        dstHeight: 1,
        WidthInBytes: bytes,
        Height: 1,
        Depth: 1,
    }
}

/// A 1D memset of `count` units of `unit` bytes at `ptr`: what memset nodes and their updates
/// share.
pub(crate) fn memset_params(
    ptr: ffi::CUdeviceptr,
    value: u32,
    unit: u32,
    count: usize,
) -> ffi::CUDA_MEMSET_NODE_PARAMS {
    ffi::CUDA_MEMSET_NODE_PARAMS {
        dst: ptr,
        pitch: 0,
        value,
        elementSize: unit,
        width: count,
        height: 1,
    }
}

/// Runs the contract's checks of `args` for a launch of `function` with shape `config` (every
/// buffer's length against its extent, as [`StreamScope::run`](crate::StreamScope::run) does),
/// then calls `f` with the kernel node parameters naming them, valid for the call: the one
/// checking that kernel nodes and their updates share.
pub(crate) fn with_kernel_params<'s, C: PlainLaunch, A: ContractArgs<'s, C>, R>(
    function: ffi::CUfunction,
    config: &LaunchConfig,
    args: &A,
    f: impl FnOnce(*const ffi::CUDA_KERNEL_NODE_PARAMS_v2) -> Result<R>,
) -> Result<R> {
    args.check(config)?;
    args.with_params(|params| {
        let node = ffi::CUDA_KERNEL_NODE_PARAMS_v2 {
            func: function,
            gridDimX: config.grid.0,
            gridDimY: config.grid.1,
            gridDimZ: config.grid.2,
            blockDimX: config.block.0,
            blockDimY: config.block.1,
            blockDimZ: config.block.2,
            sharedMemBytes: config.shared_mem_bytes,
            // One pointer per argument of the contract, live for this call (the driver copies
            // them when it takes the parameters).
            kernelParams: params,
            extra: core::ptr::null_mut(),
            kern: core::ptr::null_mut(),
            ctx: core::ptr::null_mut(),
        };
        f(&raw const node)
    })
}
