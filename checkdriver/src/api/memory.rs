//! Models `cuda.h` "Memory Management" (`group__CUDA__MEM`), the stream-ordered allocator
//! (`group__CUDA__MALLOC__ASYNC`) and "Unified Addressing" (`group__CUDA__UNIFIED`): device,
//! page-locked and managed allocations, 1D, 2D and 3D copies and memsets (which move real bytes in
//! checking mode, `data.rs`), host registration, pointer attributes and memory pools. The
//! interprocess calls of the same section are `ipc.rs`, its peer copies `peer.rs`.

use super::common::{checking, data_result, out, read_field};
use super::types::{
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_OUT_OF_MEMORY, CUDA_SUCCESS,
    CUdevice, CUdeviceptr, CUresult, Handle,
};
use crate::check::{self, Kind};
use crate::handles::{device_address, handle};
use crate::load::hang_exit;
use crate::{data, mode, work};
use core::ffi::{c_int, c_uchar, c_uint, c_ushort, c_void};
use core::ptr::null_mut;

entry_points! {
    // --- Allocations, page-locked memory and their frees ---
    fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) {
        out(free, 79 << 30);
        out(total, 80 << 30);
        CUDA_SUCCESS
    }
    fn cuMemAlloc_v2(ptr: *mut CUdeviceptr, bytes: usize) { new_address(ptr, bytes) }
    fn cuMemFree_v2(ptr: CUdeviceptr) releases(Kind::DeviceMemory, ptr as usize) {
        check::freeing(Kind::DeviceMemory, ptr as usize, None, "cuMemFree");
        // In one process this breaks `open_ipc`'s contract (across two, it is the other
        // process's); reported as what the program left behind, so a failed close excuses it.
        if check::ipc_open_on(ptr) {
            check::report_orphan(&format!("{ptr:#x} freed while opened through IPC"));
        }
        if check::destroyed(Kind::DeviceMemory, ptr as usize, "cuMemFree") {
            data::freed(ptr);
            let mut managed = MANAGED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(i) = managed.iter().position(|m| m.0.addr() as CUdeviceptr == ptr) {
                free(managed.swap_remove(i).0);
            }
        }
        CUDA_SUCCESS
    }
    fn cuMemAllocAsync(ptr: *mut CUdeviceptr, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemAllocAsync");
        stream_address(ptr, bytes, stream)
    }
    fn cuMemAllocFromPoolAsync(ptr: *mut CUdeviceptr, bytes: usize, pool: Handle, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemAllocFromPoolAsync");
        stream_address(ptr, bytes, stream)
    }
    fn cuMemFreeAsync(ptr: CUdeviceptr, stream: Handle) releases(Kind::DeviceMemory, ptr as usize, stream as usize) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemFreeAsync");
        check::freeing(Kind::DeviceMemory, ptr as usize, Some(stream as usize), "cuMemFreeAsync");
        // Captured, it is a free node: the graph's allocation keeps its data for the launches of
        // the nodes before it, as `cuGraphAddMemFreeNode`'s does (the H200 run: a captured
        // kernel's result on a graph allocation was lost on the double).
        let captured = check::is_capturing(stream as usize);
        if captured {
            check::free_captured(stream as usize);
        }
        if check::destroyed(Kind::DeviceMemory, ptr as usize, "cuMemFreeAsync") && !captured {
            data::freed(ptr);
            // Memory a graph keeps: its relaunch must come after this free.
            check::kept_freed_async(ptr as usize, stream as usize);
        }
        CUDA_SUCCESS
    }
    // Managed memory is host memory the host reads and writes at the device address: real
    // memory here, its address exposed (so not under Miri's strict provenance).
    fn cuMemAllocManaged(ptr: *mut CUdeviceptr, bytes: usize, flags: c_uint) {
        let mut mem = null_mut();
        if posix_memalign(&raw mut mem, 4096, bytes.max(1)) != 0 {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        let address = mem.expose_provenance() as CUdeviceptr;
        MANAGED.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(Managed(mem));
        check::created_sized(Kind::DeviceMemory, address as usize, 0, bytes as u64);
        data::managed(address, mem.cast(), bytes);
        out(ptr, address);
        CUDA_SUCCESS
    }
    fn cuMemHostAlloc(p: *mut *mut c_void, bytes: usize, flags: c_uint) {
        let mut mem = null_mut();
        if posix_memalign(&raw mut mem, 4096, bytes.max(1)) != 0 {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        check::created(Kind::HostMemory, mem as usize, 0);
        out(p, mem);
        CUDA_SUCCESS
    }
    fn cuMemFreeHost(p: *mut c_void) releases(Kind::HostMemory, p as usize) {
        check::freeing(Kind::HostMemory, p as usize, None, "cuMemFreeHost");
        if check::destroyed(Kind::HostMemory, p as usize, "cuMemFreeHost") {
            free(p);
        }
        CUDA_SUCCESS
    }

    // --- 1D copies and memsets ---
    fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) {
        if check::synchronous_copy_hung() {
            hang_exit("cuMemcpyHtoD_v2".to_owned());
        }
        check::used_address(dst, "cuMemcpyHtoD_v2");
        check::host_now(src.cast_mut().cast(), bytes, false);
        if checking() {
            data_result(data::from_host(dst, src.cast(), bytes), "cuMemcpyHtoD_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) {
        if check::synchronous_copy_hung() {
            hang_exit("cuMemcpyDtoH_v2".to_owned());
        }
        check::used_address(src, "cuMemcpyDtoH_v2");
        // The device's bytes where the double holds them, zeroes otherwise.
        let moved = checking() && data::to_host(dst.cast(), src, bytes).unwrap_or_else(|e| {
            mode::data_violation("cuMemcpyDtoH_v2", &e);
            false
        });
        if !moved {
            check::host_now(dst.cast(), bytes, true);
        }
        CUDA_SUCCESS
    }
    fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) {
        check::used_address(dst, "cuMemcpyDtoD_v2");
        check::used_address(src, "cuMemcpyDtoD_v2");
        if checking() {
            data_result(data::copy(dst, src, bytes), "cuMemcpyDtoD_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemcpyHtoDAsync_v2");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::enqueued(stream as usize, Kind::HostMemory, src as usize);
        check::host_enqueued(stream as usize, src.cast_mut().cast(), bytes, false, 0);
        check::used(Kind::Stream, stream as usize, "cuMemcpyHtoDAsync_v2");
        let op = work::DataOp::FromHost { dst, src: src.cast(), bytes };
        check::data_op(stream as usize, &op, "cuMemcpyHtoDAsync_v2");
        CUDA_SUCCESS
    }
    // CUDA 12.8's form (with `failIdx`), found through `cuGetProcAddress` from 12.8 on and only
    // at an ABI before 13.0 (`entry_point.rs`); each copy is modelled as the single copy of its
    // direction is.
    fn cuMemcpyBatchAsync(
        dsts: *mut CUdeviceptr,
        srcs: *mut CUdeviceptr,
        sizes: *mut usize,
        count: usize,
        attrs: *mut c_void,
        attr_idxs: *mut usize,
        num_attrs: usize,
        fail_idx: *mut usize,
        stream: Handle,
    ) {
        memcpy_batch(dsts, srcs, sizes, count, attrs.cast(), attr_idxs, num_attrs, fail_idx, stream)
    }
    // CUDA 12.8's form (with `failIdx`), as `cuMemcpyBatchAsync`: each copy modelled as a
    // `cuMemcpy3DAsync` of the same sides is.
    fn cuMemcpy3DBatchAsync(num_ops: usize, ops: *mut c_void, fail_idx: *mut usize, flags: u64, stream: Handle) {
        memcpy_3d_batch(num_ops, ops.cast_const().cast(), fail_idx, flags, stream)
    }
    // CUDA 13.0: managed ranges, each used (live, of the current context) and pending on the
    // stream; a discard leaves its bytes unspecified (`managed_batch`).
    fn cuMemPrefetchBatchAsync(
        dptrs: *mut CUdeviceptr,
        sizes: *mut usize,
        count: usize,
        locs: *mut c_void,
        loc_idxs: *mut usize,
        num_locs: usize,
        flags: u64,
        stream: Handle,
    ) {
        managed_batch(dptrs, sizes, count, Some((loc_idxs, num_locs)), false, flags, stream, "cuMemPrefetchBatchAsync")
    }
    fn cuMemDiscardBatchAsync(dptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, flags: u64, stream: Handle) {
        managed_batch(dptrs, sizes, count, None, true, flags, stream, "cuMemDiscardBatchAsync")
    }
    fn cuMemDiscardAndPrefetchBatchAsync(
        dptrs: *mut CUdeviceptr,
        sizes: *mut usize,
        count: usize,
        locs: *mut c_void,
        loc_idxs: *mut usize,
        num_locs: usize,
        flags: u64,
        stream: Handle,
    ) {
        managed_batch(dptrs, sizes, count, Some((loc_idxs, num_locs)), true, flags, stream, "cuMemDiscardAndPrefetchBatchAsync")
    }
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(src, "cuMemcpyDtoHAsync_v2");
        check::enqueued(stream as usize, Kind::DeviceMemory, src as usize);
        check::enqueued(stream as usize, Kind::HostMemory, dst as usize);
        // A copy the injection drops is accepted and never runs: the host keeps what it held.
        if !crate::inject::drops_copy_to_host(stream as usize, bytes) {
            check::host_enqueued(stream as usize, dst.cast(), bytes, true, src);
        }
        check::used(Kind::Stream, stream as usize, "cuMemcpyDtoHAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemcpyDtoDAsync_v2");
        check::used_address(src, "cuMemcpyDtoDAsync_v2");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::enqueued(stream as usize, Kind::DeviceMemory, src as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpyDtoDAsync_v2");
        check::data_op(stream as usize, &work::DataOp::Copy { dst, src, bytes }, "cuMemcpyDtoDAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemsetD8_v2(dst: CUdeviceptr, v: c_uchar, n: usize) {
        check::used_address(dst, "cuMemsetD8_v2");
        if checking() {
            data_result(data::fill(dst, &[v], n), "cuMemsetD8_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemsetD16_v2(dst: CUdeviceptr, v: c_ushort, n: usize) {
        check::used_address(dst, "cuMemsetD16_v2");
        if checking() {
            data_result(data::fill(dst, &v.to_ne_bytes(), n), "cuMemsetD16_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemsetD32_v2(dst: CUdeviceptr, v: c_uint, n: usize) {
        check::used_address(dst, "cuMemsetD32_v2");
        if checking() {
            data_result(data::fill(dst, &v.to_ne_bytes(), n), "cuMemsetD32_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemsetD8Async(dst: CUdeviceptr, v: c_uchar, n: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemsetD8Async");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::used(Kind::Stream, stream as usize, "cuMemsetD8Async");
        let op = work::DataOp::Fill { dst, pattern: [v].to_vec(), count: n };
        check::data_op(stream as usize, &op, "cuMemsetD8Async");
        CUDA_SUCCESS
    }
    fn cuMemsetD16Async(dst: CUdeviceptr, v: c_ushort, n: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemsetD16Async");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::used(Kind::Stream, stream as usize, "cuMemsetD16Async");
        let op = work::DataOp::Fill { dst, pattern: v.to_ne_bytes().to_vec(), count: n };
        check::data_op(stream as usize, &op, "cuMemsetD16Async");
        CUDA_SUCCESS
    }
    fn cuMemsetD32Async(dst: CUdeviceptr, v: c_uint, n: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemsetD32Async");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::used(Kind::Stream, stream as usize, "cuMemsetD32Async");
        let op = work::DataOp::Fill { dst, pattern: v.to_ne_bytes().to_vec(), count: n };
        check::data_op(stream as usize, &op, "cuMemsetD32Async");
        CUDA_SUCCESS
    }

    // --- Pitched memory, 2D and 3D copies ---
    fn cuMemAllocPitch_v2(ptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, elem: c_uint) {
        let pitch_bytes = width.div_ceil(512) * 512;
        out(pitch, pitch_bytes);
        new_address(ptr, pitch_bytes * height)
    }
    fn cuMemcpy2D_v2(copy: *const c_void) {
        if copy_touches_host(copy, Shape::TwoD) && check::synchronous_copy_hung() {
            hang_exit("cuMemcpy2D_v2".to_owned());
        }
        copy_used(copy, Shape::TwoD, None, "cuMemcpy2D_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpy2DAsync_v2(copy: *const c_void, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpy2DAsync_v2");
        copy_used(copy, Shape::TwoD, Some(stream as usize), "cuMemcpy2DAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpy3D_v2(copy: *const c_void) {
        if copy_touches_host(copy, Shape::ThreeD) && check::synchronous_copy_hung() {
            hang_exit("cuMemcpy3D_v2".to_owned());
        }
        copy_used(copy, Shape::ThreeD, None, "cuMemcpy3D_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpy3DAsync_v2(copy: *const c_void, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpy3DAsync_v2");
        copy_used(copy, Shape::ThreeD, Some(stream as usize), "cuMemcpy3DAsync_v2");
        CUDA_SUCCESS
    }

    // --- Address ranges, host registration, unified addressing ---
    fn cuMemGetAddressRange_v2(base: *mut CUdeviceptr, size: *mut usize, ptr: CUdeviceptr) {
        out(base, ptr);
        out(size, 1);
        CUDA_SUCCESS
    }
    fn cuMemHostRegister_v2(p: *mut c_void, bytes: usize, flags: c_uint) { CUDA_SUCCESS }
    fn cuMemHostUnregister(p: *mut c_void) { CUDA_SUCCESS }
    fn cuMemHostGetDevicePointer_v2(ptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) {
        out(ptr, p as CUdeviceptr);
        CUDA_SUCCESS
    }
    fn cuPointerGetAttributes(n: c_uint, attributes: *mut c_int, data: *mut *mut c_void, ptr: CUdeviceptr) {
        CUDA_SUCCESS
    }
    fn cuMemPrefetchAsync(ptr: CUdeviceptr, bytes: usize, device: CUdevice, stream: Handle) {
        check::enqueue(stream as usize);
        CUDA_SUCCESS
    }
    fn cuMemAdvise(ptr: CUdeviceptr, bytes: usize, advice: c_int, device: CUdevice) { CUDA_SUCCESS }
    fn cuMemRangeGetAttribute(data: *mut c_void, size: usize, attribute: c_int, ptr: CUdeviceptr, bytes: usize) {
        CUDA_SUCCESS
    }

    // --- Memory pools (the stream-ordered allocator) ---
    fn cuMemPoolCreate(pool: *mut Handle, props: *const c_void) { out(pool, handle()); CUDA_SUCCESS }
    fn cuMemPoolDestroy(pool: Handle) { CUDA_SUCCESS }
    fn cuMemPoolTrimTo(pool: Handle, keep: usize) { CUDA_SUCCESS }
    fn cuMemPoolSetAttribute(pool: Handle, attribute: c_int, value: *mut c_void) { CUDA_SUCCESS }
    fn cuMemPoolGetAttribute(pool: Handle, attribute: c_int, value: *mut c_void) {
        out(value.cast::<u64>(), 0);
        CUDA_SUCCESS
    }
}

/// Managed allocations: the memory, to free.
struct Managed(*mut c_void);

// SAFETY: only freed, under the lock.
unsafe impl Send for Managed {}

static MANAGED: std::sync::Mutex<Vec<Managed>> = std::sync::Mutex::new(Vec::new());

/// Which copy descriptor: `CUDA_MEMCPY2D` or `CUDA_MEMCPY3D`.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    TwoD,
    ThreeD,
}

/// One side of a copy descriptor.
pub(crate) struct Side {
    /// The first byte of a row (`srcXInBytes`, `dstXInBytes`).
    pub(crate) x: usize,
    /// The first row.
    pub(crate) y: usize,
    /// The first slice (3D).
    pub(crate) z: usize,
    /// `CUmemorytype`: 1 host, 2 device, 3 array, 4 unified.
    pub(crate) memory_type: c_uint,
    /// The host memory, for a host side.
    pub(crate) host: *mut u8,
    /// The device memory, for a device side.
    pub(crate) device: u64,
    /// The array, for an array side.
    pub(crate) array: usize,
    /// Bytes per row.
    pub(crate) pitch: usize,
    /// Rows per slice (3D).
    pub(crate) rows: usize,
}

/// Reads the sides and the extent (bytes per row, rows, slices) of a copy descriptor.
///
/// # Safety
///
/// `copy` points to a `CUDA_MEMCPY2D` (`Shape::TwoD`) or a `CUDA_MEMCPY3D` (`Shape::ThreeD`).
pub(crate) unsafe fn copy_desc(copy: *const c_void, shape: Shape) -> (Side, Side, [usize; 3]) {
    // SAFETY: `copy` is the descriptor `shape` names (this function's contract): every offset
    // below is one of its fields, of the type read.
    let word = |offset: usize| unsafe { read_field::<usize>(copy, offset) };
    let side = |o: [usize; 9]| Side {
        x: word(o[0]),
        y: o[1].checked_sub(1).map_or(0, |_| word(o[1])),
        z: o[2].checked_sub(1).map_or(0, |_| word(o[2])),
        // SAFETY: as above.
        memory_type: unsafe { read_field::<c_uint>(copy, o[3]) },
        // A pointer, read as one: the copy's host side keeps the program's provenance.
        // SAFETY: as above.
        host: unsafe { read_field::<*mut u8>(copy, o[4]) },
        // SAFETY: as above.
        device: unsafe { read_field::<u64>(copy, o[5]) },
        array: word(o[6]),
        pitch: word(o[7]),
        rows: o[8].checked_sub(1).map_or(0, |_| word(o[8])),
    };
    match shape {
        // srcXInBytes, srcY, -, srcMemoryType, srcHost, srcDevice, srcArray, srcPitch, -
        Shape::TwoD => (
            side([0, 8, 0, 16, 24, 32, 40, 48, 0]),
            side([56, 64, 0, 72, 80, 88, 96, 104, 0]),
            [word(112), word(120), 1],
        ),
        // ..., srcZ, (srcLOD), ..., reserved, srcPitch, srcHeight
        Shape::ThreeD => (
            side([0, 8, 16, 32, 40, 48, 56, 72, 80]),
            side([88, 96, 104, 120, 128, 136, 144, 160, 168]),
            [word(176), word(184), word(192)],
        ),
    }
}

/// A 2D or 3D copy (`copy` a `CUDA_MEMCPY2D` or `CUDA_MEMCPY3D`): each side is checked as its
/// memory type says. Device memory: the first and last byte the copy touches lie in one live
/// allocation of the current context. Arrays: live, of the current context. Host memory: each
/// row the copy reads or writes is accessed for real, now (synchronous) or when the copy on
/// `stream` completes, as a 1D copy's host side is. On `stream`, what it uses is pending there.
/// Then its rows move (`copy_rows`: the H200 run read back a pitched copy's and an array's rows
/// as zeroes on the double).
///
/// # Safety
///
/// `copy` is null or points to the descriptor `shape` names, whose host sides are valid for
/// the copy (the copy's contract).
pub(crate) unsafe fn copy_used(
    copy: *const c_void,
    shape: Shape,
    stream: Option<usize>,
    what: &str,
) {
    if copy.is_null() {
        return;
    }
    // SAFETY: a non-null `copy` is the descriptor `shape` names (this function's contract).
    let (src, dst, [width, height, depth]) = unsafe { copy_desc(copy, shape) };
    if width == 0 || height == 0 || depth == 0 {
        return;
    }
    for (side, write) in [(&src, false), (&dst, true)] {
        let rows = side.rows.max(height);
        // The byte offset of row `y`, slice `z` of the copy.
        let row = |y: usize, z: usize| ((side.z + z) * rows + side.y + y) * side.pitch + side.x;
        match side.memory_type {
            1 => {
                // Host: row by row (one access when the rows are contiguous).
                let contiguous = side.pitch == width && (depth == 1 || rows == height);
                let runs: Vec<(usize, usize)> = if contiguous {
                    vec![(row(0, 0), width * height * depth)]
                } else {
                    (0..depth)
                        .flat_map(|z| (0..height).map(move |y| (z, y)))
                        .map(|(z, y)| (row(y, z), width))
                        .collect()
                };
                for (offset, bytes) in runs {
                    let p = side.host.wrapping_add(offset);
                    match stream {
                        Some(st) => check::host_enqueued(st, p, bytes, write, 0),
                        // SAFETY: the copy's host side is valid for the rows it reads or
                        // writes (this function's contract).
                        None => unsafe { check::host_now(p, bytes, write) },
                    }
                }
            }
            2 | 4 => {
                let first = side.device + row(0, 0) as u64;
                let end = side.device + (row(height - 1, depth - 1) + width) as u64;
                check::used_span(first, end, None, what);
                if let Some(st) = stream {
                    check::enqueued(st, Kind::DeviceMemory, first as usize);
                }
            }
            3 => {
                let key = check::used_array(side.array, what);
                if let Some(st) = stream {
                    // A level is pending as its mipmapped array, which is what gets destroyed.
                    let key = check::owner_of(key);
                    check::enqueued(st, key.0, key.1);
                }
            }
            _ => {}
        }
    }
    if checking() {
        // SAFETY: as above: each side's memory holds the rows the copy names.
        unsafe { copy_rows(&src, &dst, [width, height, depth], stream, what) };
    }
}

/// Where one row of a 2D or 3D copy's side lies: host memory, or a device address the double
/// keeps bytes at (device memory, or an array's bytes, `data::array_bytes`).
enum Place {
    Host(*mut u8),
    Device(u64),
}

/// Row `y` of slice `z` of `side`, for a copy `height` rows high; `None` for a memory type
/// the double keeps no bytes for (an array whose format it does not size).
fn place(side: &Side, y: usize, z: usize, height: usize) -> Option<Place> {
    let offset = |rows: usize, pitch: usize| ((side.z + z) * rows + side.y + y) * pitch + side.x;
    match side.memory_type {
        1 => Some(Place::Host(
            side.host
                .wrapping_add(offset(side.rows.max(height), side.pitch)),
        )),
        2 | 4 => Some(Place::Device(
            side.device + offset(side.rows.max(height), side.pitch) as u64,
        )),
        3 => {
            let a = data::array_bytes(side.array)?;
            Some(Place::Device(a.at + offset(a.rows, a.row) as u64))
        }
        _ => None,
    }
}

/// The bytes of a 2D or 3D copy move row by row (in checking mode), as a 1D copy's do: now, or
/// on `stream` (a copy to the host written when the copy completes). A copy captured in a graph
/// moves none (the graph keeps its checks, not its rows).
///
/// # Safety
///
/// Each host side is valid for the rows the copy reads or writes (`copy_used`'s contract).
unsafe fn copy_rows(
    src: &Side,
    dst: &Side,
    [width, height, depth]: [usize; 3],
    stream: Option<usize>,
    what: &str,
) {
    if stream.is_some_and(check::is_capturing) {
        return;
    }
    for z in 0..depth {
        for y in 0..height {
            let (Some(from), Some(to)) = (place(src, y, z, height), place(dst, y, z, height))
            else {
                continue;
            };
            match (from, to, stream) {
                (Place::Host(h), Place::Device(d), None) => {
                    // SAFETY: `h` holds the row's `width` bytes (this function's contract).
                    data_result(unsafe { data::from_host(d, h, width) }, what);
                }
                (Place::Host(h), Place::Device(d), Some(st)) => {
                    let op = work::DataOp::FromHost {
                        dst: d,
                        src: h,
                        bytes: width,
                    };
                    check::data_op(st, &op, what);
                }
                (Place::Device(d), Place::Host(h), None) => {
                    // SAFETY: as above.
                    data_result(unsafe { data::to_host(h, d, width) }, what);
                }
                (Place::Device(d), Place::Host(h), Some(st)) => match data::snapshot(d, width) {
                    Ok(Some(bytes)) => check::host_enqueued_bytes(st, h, bytes),
                    Ok(None) => {}
                    Err(e) => mode::data_violation(what, &e),
                },
                (Place::Device(s), Place::Device(d), None) => {
                    data_result(data::copy(d, s, width), what);
                }
                (Place::Device(s), Place::Device(d), Some(st)) => {
                    check::data_op(
                        st,
                        &work::DataOp::Copy {
                            dst: d,
                            src: s,
                            bytes: width,
                        },
                        what,
                    );
                }
                (Place::Host(_), Place::Host(_), _) => {}
            }
        }
    }
}

/// Whether the 2D/3D copy at `copy` reads or writes host memory (a synchronous one then waits
/// for the copy, and so for the work before it on the legacy default stream).
///
/// # Safety
///
/// `copy` is null or points to the descriptor `shape` names.
pub(crate) unsafe fn copy_touches_host(copy: *const c_void, shape: Shape) -> bool {
    if copy.is_null() {
        return false;
    }
    // SAFETY: a non-null `copy` is the descriptor `shape` names (this function's contract).
    let (src, dst, _) = unsafe { copy_desc(copy, shape) };
    src.memory_type == 1 || dst.memory_type == 1
}

/// A new device allocation of `bytes` (backed by host memory in checking mode, `data.rs`),
/// recorded and written to `p`.
///
/// # Safety
///
/// `p` is null or valid for a write of a device address.
pub(crate) unsafe fn new_address(p: *mut CUdeviceptr, bytes: usize) -> CUresult {
    let new = device_address(bytes);
    check::created_sized(Kind::DeviceMemory, new as usize, 0, bytes as u64);
    data::allocated(new, bytes);
    // SAFETY: `p` is null or valid for the write (this function's contract).
    unsafe { out(p, new) };
    CUDA_SUCCESS
}

/// A stream-ordered allocation (one of a graph's own allocation nodes, when capturing).
///
/// # Safety
///
/// `p` is null or valid for a write and a read of a device address.
pub(crate) unsafe fn stream_address(p: *mut CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    // SAFETY: `p` is null or valid for the write (this function's contract).
    let r = unsafe { new_address(p, bytes) };
    if !p.is_null() {
        // SAFETY: `new_address` wrote the address to `p`, valid for the read.
        check::allocated_on(stream as usize, unsafe { p.read() });
    }
    r
}

unsafe extern "C" {
    fn posix_memalign(p: *mut *mut c_void, align: usize, size: usize) -> c_int;
    fn free(p: *mut c_void);
}

/// `CUmemcpyAttributes` (CUDA 12.8): a source access order, two location hints, flags.
#[repr(C)]
#[derive(Clone, Copy)]
struct CUmemcpyAttributes {
    src_access_order: c_int,
    src_loc_hint: [c_int; 2],
    dst_loc_hint: [c_int; 2],
    flags: c_uint,
}
const _: () = assert!(size_of::<CUmemcpyAttributes>() == 24);

/// `cuMemcpyBatchAsync` (12.8): the arguments checked as the documentation states (a stream
/// other than the legacy NULL stream, `count` copies, `numAttrs` attributes from 1 to `count`
/// whose first index is 0 and whose indices increase and stay below `count`, a valid source
/// order, flags 0 or 1), then each copy enqueued as the single copy of its direction is: its
/// device sides used (live, of the current context), pending on the stream, its bytes moved in
/// stream order (a copy past the end of its allocation reported then, as a single copy's is). A side is device memory if the double handed it out,
/// host memory otherwise; a host-to-host copy is not modelled (`CUDA_ERROR_NOT_SUPPORTED`).
/// `failIdx` is `SIZE_MAX` unless one copy is to blame.
///
/// # Safety
///
/// The call's contract: each array holds `count` (or `numAttrs`) elements; `failIdx` is null or
/// valid for a write.
#[allow(
    clippy::too_many_arguments,
    reason = "the entry point's nine arguments"
)]
unsafe fn memcpy_batch(
    dsts: *mut CUdeviceptr,
    srcs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    attrs: *mut CUmemcpyAttributes,
    attr_idxs: *mut usize,
    num_attrs: usize,
    fail_idx: *mut usize,
    stream: Handle,
) -> CUresult {
    const WHAT: &str = "cuMemcpyBatchAsync";
    // SAFETY: null or valid for a write (this function's contract).
    unsafe { out(fail_idx, usize::MAX) };
    if stream.is_null()
        || count == 0
        || num_attrs == 0
        || num_attrs > count
        || [dsts.is_null(), srcs.is_null(), sizes.is_null()].contains(&true)
        || attrs.is_null()
        || attr_idxs.is_null()
    {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: non-null, of `count` or `num_attrs` elements (the contract), as are the four below.
    let dsts = unsafe { core::slice::from_raw_parts(dsts, count) };
    // SAFETY: as above.
    let srcs = unsafe { core::slice::from_raw_parts(srcs, count) };
    // SAFETY: as above.
    let sizes = unsafe { core::slice::from_raw_parts(sizes, count) };
    // SAFETY: as above.
    let attrs = unsafe { core::slice::from_raw_parts(attrs, num_attrs) };
    // SAFETY: as above.
    let idxs = unsafe { core::slice::from_raw_parts(attr_idxs, num_attrs) };
    let increasing = idxs.windows(2).all(|w| w[0] < w[1]);
    let valid = |a: &CUmemcpyAttributes| (1..=3).contains(&a.src_access_order) && a.flags <= 1;
    if idxs.first() != Some(&0)
        || !increasing
        || idxs.last().is_some_and(|&i| i >= count)
        || !attrs.iter().all(valid)
    {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (i, ((&dst, &src), &bytes)) in dsts.iter().zip(srcs).zip(sizes).enumerate() {
        let (dev_dst, dev_src) = (check::is_device_address(dst), check::is_device_address(src));
        if !dev_dst && !dev_src {
            // SAFETY: as above.
            unsafe { out(fail_idx, i) };
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        check::enqueue(stream as usize);
        for (side, device) in [(dst, dev_dst), (src, dev_src)] {
            if device {
                check::used_address(side, WHAT);
                check::enqueued(stream as usize, Kind::DeviceMemory, side as usize);
            } else {
                check::enqueued(stream as usize, Kind::HostMemory, side as usize);
            }
        }
        check::used(Kind::Stream, stream as usize, WHAT);
        match (dev_dst, dev_src) {
            (true, false) => {
                // The program passed a host pointer as an integer (its provenance exposed).
                let host: *mut u8 = core::ptr::with_exposed_provenance_mut(src as usize);
                check::host_enqueued(stream as usize, host, bytes, false, 0);
                let op = work::DataOp::FromHost {
                    dst,
                    src: host.cast_const(),
                    bytes,
                };
                check::data_op(stream as usize, &op, WHAT);
            }
            (false, true) => {
                let host: *mut u8 = core::ptr::with_exposed_provenance_mut(dst as usize);
                check::host_enqueued(stream as usize, host, bytes, true, src);
            }
            _ => {
                check::data_op(
                    stream as usize,
                    &work::DataOp::Copy { dst, src, bytes },
                    WHAT,
                );
            }
        }
    }
    CUDA_SUCCESS
}

/// What a discarded byte reads as on the double: unspecified on a GPU, a fixed odd pattern here,
/// so that a program reading discarded memory before writing it sees values it did not write.
pub(crate) const DISCARDED: u8 = 0xdb;

/// `cuMemPrefetchBatchAsync`, `cuMemDiscardBatchAsync`, `cuMemDiscardAndPrefetchBatchAsync`
/// (13.0): the arguments checked as the documentation states (a stream other than the legacy
/// NULL stream, `count` ranges, flags 0; with locations, `numPrefetchLocs` from 1 to `count`
/// whose first index is 0 and whose indices increase and stay below `count`), then each range
/// used as a copy's device side is (live, of the current context, within its allocation) and
/// pending on the stream. A discard writes [`DISCARDED`] over its range in stream order. Two
/// ranges of one batch that overlap are a violation (the driver runs them in no order, and a
/// discard concurrent with another access of its bytes is undefined).
///
/// # Safety
///
/// The call's contract: `dptrs` and `sizes` hold `count` elements, `locIdxs` (when given)
/// `numPrefetchLocs`.
#[allow(
    clippy::too_many_arguments,
    clippy::fn_params_excessive_bools,
    reason = "the entry points' arguments, and which of the three calls this is"
)]
unsafe fn managed_batch(
    dptrs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    locs: Option<(*mut usize, usize)>,
    discard: bool,
    flags: u64,
    stream: Handle,
    what: &str,
) -> CUresult {
    if stream.is_null() || count == 0 || flags != 0 || dptrs.is_null() || sizes.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if let Some((idxs, n)) = locs {
        if idxs.is_null() || n == 0 || n > count {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // SAFETY: non-null, of `n` elements (the contract).
        let idxs = unsafe { core::slice::from_raw_parts(idxs, n) };
        if idxs.first() != Some(&0)
            || !idxs.windows(2).all(|w| w[0] < w[1])
            || idxs.last().is_some_and(|&i| i >= count)
        {
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    // SAFETY: non-null, of `count` elements (the contract).
    let ptrs = unsafe { core::slice::from_raw_parts(dptrs, count) };
    // SAFETY: as above.
    let sizes = unsafe { core::slice::from_raw_parts(sizes, count) };
    let mut spans: Vec<(u64, u64)> = ptrs
        .iter()
        .zip(sizes)
        .map(|(&p, &n)| (p, p.saturating_add(n as u64)))
        .filter(|(a, b)| a < b)
        .collect();
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        mode::violation(&format!(
            "{what}: ranges {:#x}..{:#x} and {:#x}..{:#x} of one batch overlap",
            w[0].0, w[0].1, w[1].0, w[1].1
        ));
    }
    check::enqueue(stream as usize);
    check::used(Kind::Stream, stream as usize, what);
    for (&p, &n) in ptrs.iter().zip(sizes).filter(|(_, n)| **n > 0) {
        check::used_span(p, p.saturating_add(n as u64), None, what);
        check::enqueued(stream as usize, Kind::DeviceMemory, p as usize);
        if discard {
            let op = work::DataOp::Fill {
                dst: p,
                pattern: vec![DISCARDED],
                count: n,
            };
            check::data_op(stream as usize, &op, what);
        }
    }
    CUDA_SUCCESS
}

/// One operand of a `CUDA_MEMCPY3D_BATCH_OP` (`CUmemcpy3DOperand`, 40 bytes): its type (1 a
/// pointer, 2 an array) and the union's four words (pointer, row length, layer height, location
/// hint; or array, offset x, y, z).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Operand3d {
    pub(crate) type_: c_uint,
    pub(crate) words: [u64; 4],
}

/// `CUDA_MEMCPY3D_BATCH_OP` (112 bytes), as cuda.h 13.0 lays it out.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct BatchOp3d {
    pub(crate) src: Operand3d,
    pub(crate) dst: Operand3d,
    pub(crate) extent: [usize; 3],
    pub(crate) src_access_order: c_int,
    pub(crate) flags: c_uint,
}
const _: () = assert!(size_of::<Operand3d>() == 40 && size_of::<BatchOp3d>() == 112);
const _: () = assert!(core::mem::offset_of!(BatchOp3d, extent) == 80);

/// A `CUDA_MEMCPY3D` (200 bytes) as 25 pointer-sized words, at the offsets `copy_desc` reads:
/// the double's model of one copy of a 3D batch. Host sides keep the program's exposed
/// provenance.
#[repr(C, align(8))]
struct Memcpy3d([*mut u8; 25]);

impl Memcpy3d {
    fn set(&mut self, offset: usize, v: usize) {
        if let Some(w) = self.0.get_mut(offset / 8) {
            *w = core::ptr::without_provenance_mut(v);
        }
    }

    /// One side at `base` (0 the source, 88 the destination): memory type, and its fields.
    fn side(&mut self, base: usize, op: &Operand3d, element: usize) -> Option<()> {
        match op.type_ {
            1 => {
                let [ptr, row, layer, _] = op.words;
                let device = check::is_device_address(ptr);
                self.set(base + 32, if device { 2 } else { 1 });
                if device {
                    self.set(base + 48, usize::try_from(ptr).ok()?);
                } else {
                    let host = core::ptr::with_exposed_provenance_mut(usize::try_from(ptr).ok()?);
                    *self.0.get_mut((base + 40) / 8)? = host;
                }
                self.set(base + 72, usize::try_from(row).ok()?.checked_mul(element)?);
                self.set(base + 80, usize::try_from(layer).ok()?);
            }
            2 => {
                let [array, x, y, z] = op.words;
                self.set(base + 32, 3);
                self.set(base + 56, usize::try_from(array).ok()?);
                self.set(base, usize::try_from(x).ok()?.checked_mul(element)?);
                self.set(base + 8, usize::try_from(y).ok()?);
                self.set(base + 16, usize::try_from(z).ok()?);
            }
            _ => return None,
        }
        Some(())
    }
}

/// An array operand's element size, where the double sized the array (1 otherwise).
fn element_of(op: &Operand3d) -> Option<usize> {
    (op.type_ == 2).then(|| {
        usize::try_from(op.words[0])
            .ok()
            .and_then(data::array_bytes)
            .map_or(1, |b| b.element.max(1))
    })
}

/// `cuMemcpy3DBatchAsync` (12.8): the arguments checked as the documentation states (a stream
/// other than the legacy NULL stream, `numOps` copies, flags 0, each operand a pointer or an
/// array, no extent 0, a valid source order, copy flags 0 or 1), then each copy modelled as a
/// `cuMemcpy3DAsync` of the same sides (`copy_used`): an extent in elements, 1 byte for a copy
/// between two pointers, the array's element otherwise; a pointer is device memory if the
/// double handed it out, host memory otherwise; a host-to-host copy is not modelled
/// (`CUDA_ERROR_NOT_SUPPORTED`). `failIdx` is `SIZE_MAX` unless one copy is to blame.
///
/// # Safety
///
/// The call's contract: `opList` holds `numOps` descriptors whose host sides are valid for
/// their copies; `failIdx` is null or valid for a write.
unsafe fn memcpy_3d_batch(
    num_ops: usize,
    ops: *const BatchOp3d,
    fail_idx: *mut usize,
    flags: u64,
    stream: Handle,
) -> CUresult {
    const WHAT: &str = "cuMemcpy3DBatchAsync";
    // SAFETY: null or valid for a write (this function's contract).
    unsafe { out(fail_idx, usize::MAX) };
    if stream.is_null() || num_ops == 0 || ops.is_null() || flags != 0 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: non-null, of `num_ops` descriptors (the contract).
    let ops = unsafe { core::slice::from_raw_parts(ops, num_ops) };
    for (i, op) in ops.iter().enumerate() {
        let fail = |e: CUresult| {
            // SAFETY: as above.
            unsafe { out(fail_idx, i) };
            e
        };
        let host_only = [op.src, op.dst]
            .iter()
            .all(|o| o.type_ == 1 && !check::is_device_address(o.words[0]));
        if host_only {
            return fail(CUDA_ERROR_NOT_SUPPORTED);
        }
        let element = element_of(&op.src)
            .or_else(|| element_of(&op.dst))
            .unwrap_or(1);
        let mut copy = Memcpy3d([null_mut(); 25]);
        let [w, h, d] = op.extent;
        let valid = w != 0
            && h != 0
            && d != 0
            && (1..=3).contains(&op.src_access_order)
            && op.flags <= 1
            && copy.side(0, &op.src, element).is_some()
            && copy.side(88, &op.dst, element).is_some();
        let Some(width) = w.checked_mul(element).filter(|_| valid) else {
            return fail(CUDA_ERROR_INVALID_VALUE);
        };
        copy.set(176, width);
        copy.set(184, h);
        copy.set(192, d);
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, WHAT);
        // SAFETY: `copy` is a `CUDA_MEMCPY3D` of this op's sides (the offsets `copy_desc`
        // reads), whose host sides the program promised valid for the copy.
        unsafe {
            copy_used(
                (&raw const copy).cast(),
                Shape::ThreeD,
                Some(stream as usize),
                WHAT,
            );
        }
    }
    CUDA_SUCCESS
}
