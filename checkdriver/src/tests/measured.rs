//! The double's own tests. What the first differential run on a GPU (an H200, driver 580,
//! `docs/validation.md`) showed the driver answering where the double answered otherwise: each
//! test holds the double to the driver's answer.

use super::*;

/// The value `cuDeviceGetAttribute` answers for `attribute` of device `dev`, or its error.
unsafe fn attribute(attribute: c_int, dev: c_int) -> Result<c_int, CUresult> {
    let mut v = -7;
    // SAFETY: a valid out-pointer (the caller's contract covers the rest: none).
    match unsafe { cuDeviceGetAttribute(&raw mut v, attribute, dev) } {
        CUDA_SUCCESS => Ok(v),
        e => Err(e),
    }
}

#[test]
fn a_sticky_error_spares_the_queries_the_driver_answers_after_it() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals)
    // and handles the double made.
    unsafe {
        let a = ctx();
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        check::fail_next(719, true);
        assert_eq!(cuCtxSynchronize(), 719, "the fault");
        let mut dev = -1;
        assert_eq!(cuCtxGetDevice(&raw mut dev), CUDA_SUCCESS);
        assert_eq!(dev, 0);
        assert_eq!(attribute(16, 0), Ok(132), "MULTIPROCESSOR_COUNT");
        let mut v = 0;
        assert_eq!(cuDriverGetVersion(&raw mut v), CUDA_SUCCESS);
        assert_eq!(cuDeviceGet(&raw mut dev, 0), CUDA_SUCCESS);
        let mut api = 0;
        assert_eq!(cuCtxGetApiVersion(a, &raw mut api), CUDA_SUCCESS);
        // What the driver failed with the sticky error after the fault, the double does too.
        let (mut free, mut total) = (0, 0);
        assert_eq!(cuMemGetInfo_v2(&raw mut free, &raw mut total), 719);
        let mut p = 0;
        assert_eq!(cuMemAlloc_v2(&raw mut p, 64), 719);
        let mut primary = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&raw mut primary, 0), 719);
        let mut fresh = null_mut();
        assert_eq!(cuCtxCreate_v2(&raw mut fresh, 0, 0), 719);
        let mut s = null_mut();
        assert_eq!(cuStreamCreate(&raw mut s, 0), 719);
        check::faults_off();
        let _ = cuMemFree_v2(d);
        let mut top = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut top);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn device_attributes_are_the_h100_s() {
    // The double's calls count and trace globally: one test at a time, as every other.
    let _serial = serial();
    // SAFETY: `attribute` calls the entry point with a valid out-pointer.
    unsafe {
        for (a, want) in [
            (1, 1024),       // MAX_THREADS_PER_BLOCK
            (4, 64),         // MAX_BLOCK_DIM_Z
            (10, 32),        // WARP_SIZE: the H200 run's 32, where the double said 1
            (16, 132),       // MULTIPROCESSOR_COUNT
            (18, 0),         // INTEGRATED
            (31, 1),         // CONCURRENT_KERNELS
            (41, 1),         // UNIFIED_ADDRESSING
            (75, 9),         // COMPUTE_CAPABILITY_MAJOR
            (76, 0),         // COMPUTE_CAPABILITY_MINOR
            (78, 1),         // STREAM_PRIORITIES_SUPPORTED
            (83, 1),         // MANAGED_MEMORY
            (89, 1),         // CONCURRENT_MANAGED_ACCESS
            (95, 1),         // COOPERATIVE_LAUNCH
            (97, 227 << 10), // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
            (102, 1),        // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
            (115, 1),        // MEMORY_POOLS_SUPPORTED
            (120, 1),        // CLUSTER_LAUNCH
            (128, 0),        // HANDLE_TYPE_FABRIC_SUPPORTED
            (133, 0),        // MPS_ENABLED
        ] {
            assert_eq!(attribute(a, 0), Ok(want), "attribute {a}");
        }
        // An attribute this driver does not know, and a device it does not have, are refused.
        assert_eq!(attribute(0, 0), Err(CUDA_ERROR_INVALID_VALUE));
        assert_eq!(attribute(145, 0), Err(CUDA_ERROR_INVALID_VALUE));
        assert_eq!(attribute(10, 1), Err(CUDA_ERROR_INVALID_DEVICE));
    }
}

#[test]
fn context_queries_answer_as_the_driver_does() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers and handles it made.
    unsafe {
        // The primary context: inactive until retained, active while retained, with the flags
        // last set; inactive again once released, and after a reset.
        let state = || {
            let (mut flags, mut active) = (7, 7);
            assert_eq!(
                cuDevicePrimaryCtxGetState(0, &raw mut flags, &raw mut active),
                CUDA_SUCCESS
            );
            (flags, active)
        };
        assert_eq!(state(), (0, 0), "not retained");
        assert_eq!(cuDevicePrimaryCtxSetFlags_v2(0, 4), CUDA_SUCCESS);
        let mut primary = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&raw mut primary, 0), CUDA_SUCCESS);
        assert_eq!(state(), (4, 1), "retained, with the flags set");
        assert_eq!(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
        assert_eq!(state(), (4, 0), "reset");
        assert_eq!(cuDevicePrimaryCtxRetain(&raw mut primary, 0), CUDA_SUCCESS);
        assert_eq!(state().1, 1, "retained again");
        assert_eq!(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
        assert_eq!(state().1, 1, "one retain left");
        assert_eq!(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
        assert_eq!(state().1, 0, "released");
        assert_eq!(cuDevicePrimaryCtxSetFlags_v2(0, 0), CUDA_SUCCESS);
        // A context's API version is the `_v2` calls' (3020), not the driver's; its shared
        // memory has four-byte banks, fixed.
        let a = ctx();
        let mut api = 0;
        assert_eq!(cuCtxGetApiVersion(a, &raw mut api), CUDA_SUCCESS);
        assert_eq!(api, 3020);
        let mut config = 7;
        assert_eq!(cuCtxSetSharedMemConfig(0), CUDA_SUCCESS);
        assert_eq!(cuCtxGetSharedMemConfig(&raw mut config), CUDA_SUCCESS);
        assert_eq!(config, 1, "CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE");
        let mut top = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut top);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn an_execution_affinity_is_refused_without_mps() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers, a `CUctxCreateParams`
    // (24 bytes: the affinities' array, their count, the CIG parameters) and handles it made.
    unsafe {
        let mut supported = 7;
        assert_eq!(
            cuDeviceGetExecAffinitySupport(&raw mut supported, 0, 0),
            CUDA_SUCCESS
        );
        assert_eq!(supported, 0, "no SM-count affinity on this device");
        let mut affinity: [c_int; 2] = [0, 66]; // CU_EXEC_AFFINITY_TYPE_SM_COUNT, 66 SMs
        let mut params = [0u64; 3];
        params[1] = 1;
        // The array's pointer, stored as a pointer (it keeps its provenance).
        params
            .as_mut_ptr()
            .cast::<*mut c_int>()
            .write(affinity.as_mut_ptr());
        let mut c = null_mut();
        assert_eq!(
            cuCtxCreate_v4(&raw mut c, params.as_mut_ptr().cast(), 0, 0),
            CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY
        );
        assert!(c.is_null(), "no context made");
        let mut top = null_mut();
        assert_eq!(cuCtxGetCurrent(&raw mut top), CUDA_SUCCESS);
        assert!(top.is_null(), "nothing pushed");
        assert_eq!(
            cuCtxCreate_v3(&raw mut c, affinity.as_mut_ptr().cast(), 1, 0, 0),
            CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY
        );
        // Without an affinity, a context is made as by `cuCtxCreate_v2`.
        let none = [0u64; 3];
        assert_eq!(
            cuCtxCreate_v4(&raw mut c, none.as_ptr().cast_mut().cast(), 0, 0),
            CUDA_SUCCESS
        );
        let _ = cuCtxPopCurrent_v2(&raw mut top);
        let _ = cuCtxDestroy_v2(c);
    }
}

#[test]
fn peer_access_between_contexts_of_one_device_is_unsupported_and_peer_copies_move_bytes() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers, host buffers that
    // outlive the calls, and handles it made.
    unsafe {
        let a = ctx();
        let mut da = 0;
        let _ = cuMemAlloc_v2(&raw mut da, 64);
        let b = ctx();
        let mut db = 0;
        let _ = cuMemAlloc_v2(&raw mut db, 64);
        let _ = cuMemsetD8_v2(db, 5, 64);
        let mut top = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut top); // a is current
        let mut can = 7;
        assert_eq!(cuDeviceCanAccessPeer(&raw mut can, 0, 0), CUDA_SUCCESS);
        assert_eq!(can, 0, "a device is not its own peer");
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuCtxEnablePeerAccess(b, 0),
                    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
                );
                assert_eq!(
                    cuCtxDisablePeerAccess(b),
                    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
                );
            }),
            1,
            "refused; disabling what was never enabled is reported, as before"
        );
        // A peer copy moves the bytes, synchronous or on a stream.
        let mut back = [0u8; 64];
        assert_eq!(cuMemcpyPeer(da, a, db, b, 64), CUDA_SUCCESS);
        let _ = cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), da, 64);
        assert_eq!(back, [5; 64], "cuMemcpyPeer");
        let _ = cuMemsetD8_v2(da, 6, 64);
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        assert_eq!(cuMemcpyPeerAsync(db, b, da, a, 64, s), CUDA_SUCCESS);
        let _ = cuStreamSynchronize(s);
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxPushCurrent_v2(b);
        let _ = cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), db, 64);
        assert_eq!(back, [6; 64], "cuMemcpyPeerAsync");
        let _ = cuMemFree_v2(db);
        let _ = cuCtxPopCurrent_v2(&raw mut top);
        let _ = cuCtxDestroy_v2(b);
        let _ = cuMemFree_v2(da);
        let _ = cuCtxPopCurrent_v2(&raw mut top);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn a_capture_names_its_last_node_and_a_captured_free_keeps_the_graph_s_data() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers, host buffers that
    // outlive the work that writes them, and handles it made.
    unsafe {
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        let deps = |stream: Handle| {
            let (mut status, mut deps, mut n) = (0, core::ptr::null(), 7usize);
            let r = cuStreamGetCaptureInfo_v2(
                stream,
                &raw mut status,
                null_mut(),
                null_mut(),
                &raw mut deps,
                &raw mut n,
            );
            assert_eq!(r, CUDA_SUCCESS);
            if n == 0 {
                Vec::new()
            } else {
                core::slice::from_raw_parts(deps, n)
                    .iter()
                    .map(|h: &Handle| h.addr())
                    .collect()
            }
        };
        assert_eq!(cuStreamBeginCapture_v2(s, 1), CUDA_SUCCESS);
        assert!(deps(s).is_empty(), "nothing captured yet");
        // A graph allocation, two memsets, a copy back to the host, the allocation's free.
        let mut d = 0;
        assert_eq!(cuMemAllocAsync(&raw mut d, 64, s), CUDA_SUCCESS);
        let after_alloc = deps(s);
        assert_eq!(after_alloc.len(), 1, "the allocation node");
        let _ = cuMemsetD32Async(d, 3, 16, s);
        let _ = cuMemsetD8Async(d, 4, 8, s);
        let after_memsets = deps(s);
        assert_eq!(after_memsets.len(), 1, "the second memset's node only");
        assert_ne!(after_memsets, after_alloc);
        let mut host = vec![0u8; 64];
        let _ = cuMemcpyDtoHAsync_v2(host.as_mut_ptr().cast(), d, 64, s);
        let _ = cuMemFreeAsync(d, s);
        assert_eq!(deps(s).len(), 1, "the free node");
        // Dependencies set and added, as custack's conditional nodes do.
        let (x, y) = (after_alloc[0], after_memsets[0]);
        let mut set: [Handle; 1] = [core::ptr::without_provenance_mut(x)];
        let _ = cuStreamUpdateCaptureDependencies(s, set.as_mut_ptr(), 1, 1);
        assert_eq!(deps(s), [x], "set");
        let mut add: [Handle; 1] = [core::ptr::without_provenance_mut(y)];
        let _ = cuStreamUpdateCaptureDependencies(s, add.as_mut_ptr(), 1, 0);
        assert_eq!(deps(s), [x, y], "added");
        let mut graph = null_mut();
        assert_eq!(cuStreamEndCapture(s, &raw mut graph), CUDA_SUCCESS);
        assert!(deps(s).is_empty(), "the capture ended");
        let mut exec = null_mut();
        let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuGraphLaunch(exec, s);
                let _ = cuStreamSynchronize(s);
            }),
            0
        );
        let mut want = [3u8, 0, 0, 0].repeat(16);
        want[..8].fill(4);
        assert_eq!(
            host, want,
            "the graph's memsets, read back from its allocation"
        );
        // A capture into a graph begins with the dependencies it was given.
        let mut built = null_mut();
        let _ = cuGraphCreate(&raw mut built, 0);
        let mut root = null_mut();
        let _ = cuGraphAddEmptyNode(&raw mut root, built, core::ptr::null(), 0);
        assert_eq!(
            cuStreamBeginCaptureToGraph(s, built, &raw const root, core::ptr::null(), 1, 1),
            CUDA_SUCCESS
        );
        assert_eq!(deps(s), [root.addr()]);
        let mut ended = null_mut();
        let _ = cuStreamEndCapture(s, &raw mut ended);
        let _ = cuGraphDestroy(built);
        let _ = cuGraphExecDestroy(exec);
        let _ = cuGraphDestroy(graph);
        let _ = cuStreamDestroy_v2(s);
        let mut top = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut top);
        let _ = cuCtxDestroy_v2(a);
    }
}

/// The result of `cuModuleLoadData` of `image` (a module it made is unloaded).
fn load(image: &[u8]) -> CUresult {
    let mut m = null_mut();
    // SAFETY: a valid out-pointer; `image` is a whole image of the kind its magic says (an ELF
    // header and its section table, or a fatbin header), in a context made by the caller.
    let r = unsafe { cuModuleLoadData(&raw mut m, image.as_ptr().cast()) };
    if r == CUDA_SUCCESS {
        // SAFETY: the module just loaded.
        let _ = unsafe { cuModuleUnload(m) };
    }
    r
}

#[test]
fn images_the_driver_refuses_are_refused() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers and handles it made.
    unsafe {
        let a = ctx();
        // A bare ELF64 header (no machine, no sections): no image (the H200 run's 200).
        let mut bare = [0u8; 64];
        bare[..5].copy_from_slice(b"\x7fELF\x02");
        assert_eq!(load(&bare), CUDA_ERROR_INVALID_IMAGE);
        // A fatbin whose header says nothing follows it: no image either (the H100 run's 200).
        let mut fatbin = [0u8; 16];
        fatbin[..4].copy_from_slice(&0xBA55_ED50u32.to_le_bytes());
        fatbin[6..8].copy_from_slice(&16u16.to_le_bytes());
        assert_eq!(load(&fatbin), CUDA_ERROR_INVALID_IMAGE);
        // The double's cubin (ABI version 7: the SM in `e_flags`' low byte) loads; set to
        // sm_80 there, it has no code for the device.
        let image = crate::cubin::cubin(&["k"], &[]);
        assert_eq!(load(&image), CUDA_SUCCESS);
        let mut sm80 = image.clone();
        sm80[0x30] = 80;
        assert_eq!(load(&sm80), CUDA_ERROR_NO_BINARY_FOR_GPU);
        // CUDA 13's nvcc writes ABI version 8 for every target, the SM in bits 8 to 15: an
        // sm_90 cubin of that ABI loads whatever its low byte holds (the H200 run loaded one
        // whose low byte said 80); sm_80 there has no code for the device.
        let mut v8 = image.clone();
        v8[8] = 8;
        v8[0x30..0x34].copy_from_slice(&0x0600_5a04_u32.to_le_bytes());
        assert_eq!(load(&v8), CUDA_SUCCESS, "sm_90, ABI 8");
        v8[0x30] = 80;
        assert_eq!(load(&v8), CUDA_SUCCESS, "sm_90, ABI 8, another low byte");
        v8[0x31] = 80;
        assert_eq!(load(&v8), CUDA_ERROR_NO_BINARY_FOR_GPU, "sm_80, ABI 8");
        // The linker's output loads: the double's own image.
        let (mut state, mut linked, mut size) = (null_mut(), null_mut(), 0);
        let _ = cuLinkCreate_v2(0, null_mut(), null_mut(), &raw mut state);
        let _ = cuLinkComplete(state, &raw mut linked, &raw mut size);
        let linked = core::slice::from_raw_parts(linked.cast::<u8>(), size).to_vec();
        let _ = cuLinkDestroy(state);
        assert_eq!(load(&linked), CUDA_SUCCESS, "the linker's image");
        let mut top = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut top);
        let _ = cuCtxDestroy_v2(a);
    }
}

/// A `CUDA_MEMCPY2D` as 16 words: `src` and `dst` each (memory type, x in bytes, y, device
/// address or array, pitch), then the width in bytes and the rows; a host side's pointer is
/// written in place by [`copy_2d`].
fn memcpy_2d(src: [u64; 5], dst: [u64; 5], width: u64, height: u64) -> [u64; 16] {
    let mut c = [0u64; 16];
    for (side, base) in [(src, 0), (dst, 7)] {
        let [memory_type, x, y, at, pitch] = side;
        c[base] = x;
        c[base + 1] = y;
        c[base + 2] = memory_type;
        c[base + if memory_type == 3 { 5 } else { 4 }] = at;
        c[base + 6] = pitch;
    }
    c[14] = width;
    c[15] = height;
    c
}

/// Runs the 2D copy `c`, with `host` as its host side's pointer (`srcHost` or `dstHost`, the
/// side whose memory type is 1), stored as a pointer so that it keeps its provenance.
///
/// # Safety
///
/// `host` holds the rows the copy reads or writes.
unsafe fn copy_2d(mut c: [u64; 16], host: *mut u8) -> CUresult {
    let word = if c[2] == 1 { 3 } else { 10 };
    // SAFETY: `word` is within `c`, a slot of pointer size and alignment.
    unsafe { c.as_mut_ptr().add(word).cast::<*mut u8>().write(host) };
    // SAFETY: `c` is a `CUDA_MEMCPY2D`; its host side is valid (this function's contract).
    unsafe { cuMemcpy2D_v2(c.as_ptr().cast()) }
}

#[test]
fn copies_2d_move_the_rows_of_arrays_and_pitched_memory() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the copies that use it, and handles the double made.
    unsafe {
        let a = ctx();
        // A 4 x 3 array of floats: 16 bytes a row (`CUDA_ARRAY3D_DESCRIPTOR`: Width, Height,
        // Depth, then Format FLOAT and NumChannels 1 as two `unsigned`s).
        let desc: [u64; 5] = [4, 3, 0, 0x20 | (1 << 32), 0];
        let mut arr = null_mut();
        assert_eq!(
            cuArray3DCreate_v2(&raw mut arr, desc.as_ptr().cast()),
            CUDA_SUCCESS
        );
        let mut src: Vec<u8> = (0..48).collect();
        let into_array = memcpy_2d([1, 0, 0, 0, 16], [3, 0, 0, arr as u64, 0], 16, 3);
        assert_eq!(copy_2d(into_array, src.as_mut_ptr()), CUDA_SUCCESS);
        // Rows 1 and 2, from byte 4, 8 bytes each, into rows of 8.
        let mut out = [0u8; 16];
        let from_array = memcpy_2d([3, 4, 1, arr as u64, 0], [1, 0, 0, 0, 8], 8, 2);
        assert_eq!(copy_2d(from_array, out.as_mut_ptr()), CUDA_SUCCESS);
        let mut want = src[20..28].to_vec();
        want.extend_from_slice(&src[36..44]);
        assert_eq!(out.to_vec(), want, "the array's rows, read back");
        // The array's rows into pitched device memory (rows of 32), then read back whole.
        let (mut d, mut pitch) = (0, 0);
        let _ = cuMemAllocPitch_v2(&raw mut d, &raw mut pitch, 16, 3, 4);
        let mut c = memcpy_2d([3, 0, 0, arr as u64, 0], [2, 0, 0, d, pitch as u64], 16, 3);
        assert_eq!(cuMemcpy2D_v2(c.as_mut_ptr().cast()), CUDA_SUCCESS);
        let mut back = vec![0u8; pitch * 3];
        assert_eq!(
            cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), d, pitch * 3),
            CUDA_SUCCESS
        );
        for y in 0..3 {
            assert_eq!(
                back[y * pitch..y * pitch + 16],
                src[y * 16..y * 16 + 16],
                "row {y}"
            );
        }
        let _ = cuMemFree_v2(d);
        let _ = cuArrayDestroy(arr);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn mapped_virtual_memory_keeps_its_physical_memory_s_bytes() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the copies that use it, and handles the double made.
    unsafe {
        let a = ctx();
        let g = 2 << 20;
        let (mut base, mut h) = (0, 0);
        let _ = cuMemAddressReserve(&raw mut base, 2 * g, 0, 0, 0);
        let _ = cuMemCreate(&raw mut h, g, null_mut(), 0);
        // The same physical memory mapped twice, one range after the other.
        assert_eq!(cuMemMap(base, g, 0, h, 0), CUDA_SUCCESS);
        assert_eq!(cuMemMap(base + g as u64, g, 0, h, 0), CUDA_SUCCESS);
        let _ = cuMemSetAccess(base, 2 * g, null_mut(), 1);
        let data: Vec<u8> = (1..=16).collect();
        let _ = cuMemcpyHtoD_v2(base + 64, data.as_ptr().cast(), 16);
        let mut out = [0u8; 16];
        let _ = cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), base + g as u64 + 64, 16);
        assert_eq!(out.to_vec(), data, "read through the other mapping");
        // A write across the two ranges: its end lands at the physical memory's start.
        let _ = cuMemcpyHtoD_v2(base + g as u64 - 8, data.as_ptr().cast(), 16);
        let mut start = [0u8; 8];
        let _ = cuMemcpyDtoH_v2(start.as_mut_ptr().cast(), base, 8);
        assert_eq!(start, data[8..], "the write's second half, at the start");
        let _ = cuMemUnmap(base, 2 * g);
        let _ = cuMemRelease(h);
        let _ = cuMemAddressFree(base, 2 * g);
        let _ = cuCtxDestroy_v2(a);
    }
}

// Native only: memfd_create is a system call Miri does not model.
#[test]
#[cfg(not(miri))]
fn an_import_of_this_process_s_export_is_the_same_memory() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as above; the descriptor is the one the export wrote.
    unsafe {
        let a = ctx();
        let g = 2 << 20;
        // `CUmemAllocationProp` asking for POSIX descriptors (its second `int`).
        let mut prop = [0 as c_int; 8];
        prop[0] = 1;
        prop[1] = 1;
        let (mut base, mut h, mut imported) = (0, 0, 0);
        let _ = cuMemAddressReserve(&raw mut base, 2 * g, 0, 0, 0);
        let _ = cuMemCreate(&raw mut h, g, prop.as_ptr().cast(), 0);
        let mut fd: c_int = -1;
        assert_eq!(
            cuMemExportToShareableHandle((&raw mut fd).cast(), h, 1, 0),
            CUDA_SUCCESS
        );
        assert_eq!(
            cuMemImportFromShareableHandle(
                &raw mut imported,
                core::ptr::without_provenance_mut(fd as usize),
                1
            ),
            CUDA_SUCCESS
        );
        share::close_fd(fd);
        let _ = cuMemMap(base, g, 0, h, 0);
        let _ = cuMemMap(base + g as u64, g, 0, imported, 0);
        let _ = cuMemSetAccess(base, 2 * g, null_mut(), 1);
        let data: Vec<u8> = (1..=16).collect();
        let _ = cuMemcpyHtoD_v2(base, data.as_ptr().cast(), 16);
        let mut out = [0u8; 16];
        let _ = cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), base + g as u64, 16);
        assert_eq!(
            out.to_vec(),
            data,
            "written through the export, read through the import"
        );
        let _ = cuMemUnmap(base, 2 * g);
        let _ = cuMemRelease(h);
        let _ = cuMemRelease(imported);
        let _ = cuMemAddressFree(base, 2 * g);
        let _ = cuCtxDestroy_v2(a);
    }
}
