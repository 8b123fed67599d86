//! The libraries' handles (`library_handles.rs`), as a stand-in (`checkdriver/standins/`) asks
//! the double about them: a correct create, set-stream, use and destroy records nothing; a handle
//! destroyed twice or used after its destruction, a stream of another context or one destroyed,
//! a handle handed to another library, and a handle destroyed while its stream has work that may
//! still run are each reported; a handle left alive when its context is destroyed is an orphan. A
//! descriptor is of no context, and destroyed once.

use super::*;

#[test]
fn library_handle_misuse_is_reported() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    let (create, set, use_, destroy) = (
        c"cusolverDnCreate".as_ptr(),
        c"cusolverDnSetStream".as_ptr(),
        c"cusolverDnSgetrf_bufferSize".as_ptr(),
        c"cusolverDnDestroy".as_ptr(),
    );
    // SAFETY: the double's entry points and extensions, called with valid out-pointers (this
    // test's locals), NUL-terminated names (literals) and handles the double made: the wrong
    // sequences under test misuse the libraries' contracts, which the double records, not Rust's.
    unsafe {
        let new = || {
            let mut h = 0u64;
            assert_eq!(
                custackCheckdriverLibraryCreate(create, &raw mut h),
                CUDA_SUCCESS
            );
            assert_ne!(h, 0);
            h
        };
        let a = ctx();
        let mut s = null_mut();
        let _ = cuStreamCreate(&raw mut s, 0);
        // A correct sequence records nothing.
        assert_eq!(
            violations_of(|| {
                let h = new();
                let _ = custackCheckdriverLibrarySetStream(set, h, s as u64);
                let _ = custackCheckdriverLibraryUse(use_, h);
                let _ = custackCheckdriverLibrarySetStream(set, h, 0);
                let _ = custackCheckdriverLibraryDestroy(destroy, h);
            }),
            0,
            "{:?}",
            mode::violations().last()
        );
        // Destroyed twice, and used or given a stream after its destruction.
        let h = new();
        let _ = custackCheckdriverLibraryDestroy(destroy, h);
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryDestroy(destroy, h);
            }),
            1,
            "destroyed twice"
        );
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryUse(use_, h);
                let _ = custackCheckdriverLibrarySetStream(set, h, s as u64);
            }),
            2,
            "used after destroy"
        );
        // A stream of another context: a foreign stream.
        let h = new();
        let b = ctx(); // pushed on top of a
        let mut foreign = null_mut();
        let _ = cuStreamCreate(&raw mut foreign, 0);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p); // a is current again
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibrarySetStream(set, h, foreign as u64);
            }),
            1,
            "a stream of another context"
        );
        // A destroyed stream.
        let mut gone = null_mut();
        let _ = cuStreamCreate(&raw mut gone, 0);
        let _ = cuStreamDestroy_v2(gone);
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibrarySetStream(set, h, gone as u64);
            }),
            1,
            "a destroyed stream"
        );
        // The handle under another context, and handed to another library.
        let _ = cuCtxPushCurrent_v2(b);
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryUse(use_, h);
            }),
            1,
            "a handle of another context"
        );
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryUse(c"cusparseSpMV".as_ptr(), h);
            }),
            1,
            "another library's handle"
        );
        // Destroyed while its stream has work that may still run; not once the stream is
        // synchronized.
        let _ = custackCheckdriverLibrarySetStream(set, h, s as u64);
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemsetD8Async(d, 0, 64, s);
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryDestroy(destroy, h);
            }),
            1,
            "destroyed with work pending on its stream"
        );
        let h = new();
        let _ = custackCheckdriverLibrarySetStream(set, h, s as u64);
        let _ = cuMemsetD8Async(d, 0, 64, s);
        let _ = cuStreamSynchronize(s);
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryDestroy(destroy, h);
            }),
            0,
            "destroyed after its stream's work"
        );
        let _ = cuMemFree_v2(d);
        let _ = cuStreamDestroy_v2(s);
        // A descriptor is of no context (made with none current, destroyed under another),
        // destroyed once.
        let mut q = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut q); // none current
        let mut desc = 0u64;
        assert_eq!(
            violations_of(|| {
                let _ =
                    custackCheckdriverLibraryCreate(c"cusparseCreateDnVec".as_ptr(), &raw mut desc);
            }),
            0,
            "a descriptor made with no context current"
        );
        let _ = cuCtxPushCurrent_v2(b);
        let destroy_vec = c"cusparseDestroyDnVec".as_ptr();
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryDestroy(destroy_vec, desc);
            }),
            0,
            "a descriptor destroyed under another context"
        );
        assert_eq!(
            violations_of(|| {
                let _ = custackCheckdriverLibraryDestroy(destroy_vec, desc);
            }),
            1,
            "a descriptor destroyed twice"
        );
        let _ = cuCtxPopCurrent_v2(&raw mut q);
        let _ = cuCtxPushCurrent_v2(a);
        // A handle alive when its context is destroyed is an orphan.
        let _left = new();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        assert_eq!(
            orphans_of(|| {
                let _ = cuCtxDestroy_v2(a);
            }),
            1,
            "a handle alive at its context's destruction"
        );
        let _ = cuCtxPushCurrent_v2(b);
        let _ = cuStreamDestroy_v2(foreign);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(b);
    }
}

/// cuDNN's handle and descriptors, as its stand-in (`checkdriver/standins/cudnn`) asks about
/// them: the sequence of a convolution plan records nothing; a descriptor set or queried after
/// its destruction, a descriptor destroyed twice, a handle (or another library's descriptor)
/// given where a descriptor is taken, and a handle of another context given with descriptors
/// are each reported.
#[test]
fn cudnn_handle_and_descriptor_misuse_is_reported() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    let made = |call: &CStr| {
        let mut h = 0u64;
        // SAFETY: a NUL-terminated name and a valid out-pointer (a local).
        let r = unsafe { custackCheckdriverLibraryCreate(call.as_ptr(), &raw mut h) };
        assert_eq!(r, CUDA_SUCCESS);
        assert_ne!(h, 0);
        h
    };
    let uses = |call: &CStr, h: u64, descriptors: &[u64]| {
        // SAFETY: a NUL-terminated name and `descriptors.len()` values at its pointer.
        let r = unsafe {
            custackCheckdriverLibraryDescriptorUse(
                call.as_ptr(),
                h,
                descriptors.as_ptr(),
                descriptors.len(),
            )
        };
        assert_eq!(r, CUDA_SUCCESS);
    };
    let destroyed = |call: &CStr, h: u64| {
        // SAFETY: a NUL-terminated name; the handle is passed by value.
        let r = unsafe { custackCheckdriverLibraryDestroy(call.as_ptr(), h) };
        assert_eq!(r, CUDA_SUCCESS);
    };
    let (set_x, dims, algo) = (
        c"cudnnSetTensor4dDescriptorEx",
        c"cudnnGetConvolution2dForwardOutputDim",
        c"cudnnGetConvolutionForwardAlgorithm_v7",
    );
    let destroy_tensor = c"cudnnDestroyTensorDescriptor";
    let a = ctx();
    let mut s = null_mut();
    // SAFETY: a valid out-pointer.
    let _ = unsafe { cuStreamCreate(&raw mut s, 0) };
    // A convolution plan's sequence records nothing.
    let (mut x, mut w, mut conv, mut h) = (0, 0, 0, 0);
    assert_eq!(
        violations_of(|| {
            x = made(c"cudnnCreateTensorDescriptor");
            w = made(c"cudnnCreateFilterDescriptor");
            conv = made(c"cudnnCreateConvolutionDescriptor");
            uses(set_x, 0, &[x]);
            uses(c"cudnnSetFilter4dDescriptor", 0, &[w]);
            uses(c"cudnnSetConvolution2dDescriptor", 0, &[conv]);
            uses(dims, 0, &[conv, x, w]);
            h = made(c"cudnnCreate");
            uses(algo, h, &[x, w, conv, x]);
            // SAFETY: a NUL-terminated name; handles passed by value.
            let r = unsafe {
                custackCheckdriverLibrarySetStream(c"cudnnSetStream".as_ptr(), h, s as u64)
            };
            assert_eq!(r, CUDA_SUCCESS);
            destroyed(c"cudnnDestroy", h);
            destroyed(c"cudnnDestroyFilterDescriptor", w);
            destroyed(c"cudnnDestroyConvolutionDescriptor", conv);
        }),
        0,
        "{:?}",
        mode::violations().last()
    );
    // A destroyed descriptor set or queried, and destroyed again.
    assert_eq!(
        violations_of(|| uses(set_x, 0, &[w])),
        1,
        "a destroyed filter descriptor set"
    );
    assert_eq!(
        violations_of(|| uses(dims, 0, &[conv, x, w])),
        2,
        "a query given two destroyed descriptors"
    );
    destroyed(destroy_tensor, x);
    assert_eq!(
        violations_of(|| destroyed(destroy_tensor, x)),
        1,
        "a tensor descriptor destroyed twice"
    );
    // A handle where a descriptor is taken, another library's descriptor, and a handle of
    // another context with live descriptors.
    let h = made(c"cudnnCreate");
    let y = made(c"cudnnCreateTensorDescriptor");
    assert_eq!(
        violations_of(|| uses(set_x, 0, &[h])),
        1,
        "a handle given as a descriptor"
    );
    let vec = made(c"cusparseCreateDnVec");
    assert_eq!(
        violations_of(|| uses(set_x, 0, &[vec])),
        1,
        "cuSPARSE's descriptor given to cuDNN"
    );
    let b = ctx(); // pushed on top of a
    assert_eq!(
        violations_of(|| uses(algo, h, &[y, y, y, y])),
        1,
        "a handle of another context"
    );
    // A descriptor is of no context: set under another one, it records nothing.
    assert_eq!(
        violations_of(|| uses(set_x, 0, &[y])),
        0,
        "{:?}",
        mode::violations().last()
    );
    let mut p = null_mut();
    // SAFETY: valid out-pointers; the contexts and stream this test made.
    unsafe {
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(b);
    }
    destroyed(destroy_tensor, y);
    destroyed(c"cusparseDestroyDnVec", vec);
    destroyed(c"cudnnDestroy", h);
    // SAFETY: as above.
    unsafe {
        let _ = cuStreamDestroy_v2(s);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

/// cuBLASLt's handle and descriptors, as its stand-in (`checkdriver/standins/cublaslt`) asks
/// about them: `cublasLt` is a library of its own (its create makes a handle, not a descriptor
/// of cuBLAS's), so the sequence of a matmul plan and a run records nothing; a layout left alive
/// is a leak, one destroyed twice is reported, and a cuBLAS handle given to cuBLASLt (or a
/// cuBLASLt handle to cuBLAS) is another library's.
#[test]
fn cublaslt_descriptor_leak_and_double_destroy_are_reported() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    let made = |call: &CStr| {
        let mut h = 0u64;
        // SAFETY: a NUL-terminated name and a valid out-pointer (a local).
        let r = unsafe { custackCheckdriverLibraryCreate(call.as_ptr(), &raw mut h) };
        assert_eq!(r, CUDA_SUCCESS);
        assert_ne!(h, 0);
        h
    };
    let uses = |call: &CStr, h: u64, descriptors: &[u64]| {
        // SAFETY: a NUL-terminated name and `descriptors.len()` values at its pointer.
        let r = unsafe {
            custackCheckdriverLibraryDescriptorUse(
                call.as_ptr(),
                h,
                descriptors.as_ptr(),
                descriptors.len(),
            )
        };
        assert_eq!(r, CUDA_SUCCESS);
    };
    let streamed = |call: &CStr, h: u64, s: u64| {
        // SAFETY: a NUL-terminated name; handles passed by value.
        let r = unsafe { custackCheckdriverLibrarySetStream(call.as_ptr(), h, s) };
        assert_eq!(r, CUDA_SUCCESS);
    };
    let destroyed = |call: &CStr, h: u64| {
        // SAFETY: a NUL-terminated name; the handle is passed by value.
        let r = unsafe { custackCheckdriverLibraryDestroy(call.as_ptr(), h) };
        assert_eq!(r, CUDA_SUCCESS);
    };
    let (create_layout, destroy_layout) = (
        c"cublasLtMatrixLayoutCreate",
        c"cublasLtMatrixLayoutDestroy",
    );
    let (heuristic, matmul) = (c"cublasLtMatmulAlgoGetHeuristic", c"cublasLtMatmul");
    let a = ctx();
    let mut stream = null_mut();
    // SAFETY: a valid out-pointer.
    let _ = unsafe { cuStreamCreate(&raw mut stream, 0) };
    // The stream's address, as the stand-ins pass it (the handle itself is kept to destroy it:
    // an integer made back into a pointer would have no provenance under Miri).
    let s = stream as u64;
    // A plan's sequence and a run record nothing.
    let (mut lt, mut desc, mut layouts, mut pref) = (0, 0, [0; 3], 0);
    assert_eq!(
        violations_of(|| {
            lt = made(c"cublasLtCreate");
            desc = made(c"cublasLtMatmulDescCreate");
            uses(c"cublasLtMatmulDescSetAttribute", 0, &[desc]);
            for l in &mut layouts {
                *l = made(create_layout);
                uses(c"cublasLtMatrixLayoutSetAttribute", 0, &[*l]);
            }
            pref = made(c"cublasLtMatmulPreferenceCreate");
            uses(c"cublasLtMatmulPreferenceSetAttribute", 0, &[pref]);
            let [la, lb, lcd] = layouts;
            uses(heuristic, lt, &[desc, la, lb, lcd, lcd, pref]);
            destroyed(c"cublasLtMatmulPreferenceDestroy", pref);
            streamed(matmul, lt, s);
            uses(matmul, 0, &[desc, la, lb, lcd, lcd]);
            for l in layouts {
                destroyed(destroy_layout, l);
            }
            destroyed(c"cublasLtMatmulDescDestroy", desc);
            destroyed(c"cublasLtDestroy", lt);
        }),
        0,
        "{:?}",
        mode::violations().last()
    );
    // A layout destroyed twice; one used after its destruction.
    assert_eq!(
        violations_of(|| destroyed(destroy_layout, layouts[0])),
        1,
        "a layout destroyed twice"
    );
    assert_eq!(
        violations_of(|| uses(c"cublasLtMatrixLayoutSetAttribute", 0, &[layouts[1]])),
        1,
        "a destroyed layout set"
    );
    // A layout left alive is a leak (of no context), until it is destroyed.
    let left = made(create_layout);
    let leak = format!("leak: LibraryDescriptor {left:#x} ");
    assert!(check::report().contains(&leak), "{}", check::report());
    destroyed(destroy_layout, left);
    assert!(!check::report().contains(&leak));
    // cuBLAS's handle is not cuBLASLt's, nor the other way round.
    let (blas, lt) = (made(c"cublasCreate_v2"), made(c"cublasLtCreate"));
    assert_eq!(
        violations_of(|| uses(heuristic, blas, &[])),
        1,
        "cuBLAS's handle given to cuBLASLt"
    );
    assert_eq!(
        violations_of(|| streamed(c"cublasSetStream_v2", lt, s)),
        1,
        "cuBLASLt's handle given to cuBLAS"
    );
    destroyed(c"cublasDestroy_v2", blas);
    destroyed(c"cublasLtDestroy", lt);
    let mut p = null_mut();
    // SAFETY: a valid out-pointer; the context and stream this test made.
    unsafe {
        let _ = cuStreamDestroy_v2(stream);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn nccl_work_is_pending_held_back_until_released_and_an_abort_ends_the_handle() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    let all_reduce = c"ncclAllReduce";
    let _a = ctx();
    let mut stream = null_mut();
    let (mut d, mut e) = (0, 0);
    // SAFETY: valid out-pointers (locals).
    unsafe {
        let _ = cuStreamCreate(&raw mut stream, 0);
        let _ = cuMemAlloc_v2(&raw mut d, 64);
        let _ = cuMemAlloc_v2(&raw mut e, 64);
    }
    let s = stream as u64;
    let mut comm = 0u64;
    // SAFETY: a NUL-terminated name and a valid out-pointer (a local).
    let made = unsafe {
        custackCheckdriverLibraryCreate(c"ncclCommInitRankConfig".as_ptr(), &raw mut comm)
    };
    assert_eq!(made, CUDA_SUCCESS);
    let enqueue = |buffer: u64, block: c_int| {
        // SAFETY: a NUL-terminated name and one address at its pointer; handles by value.
        let r = unsafe {
            custackCheckdriverLibraryEnqueue(
                all_reduce.as_ptr(),
                comm,
                s,
                &raw const buffer,
                1,
                block,
            )
        };
        assert_eq!(r, CUDA_SUCCESS);
    };
    // Held back: a query answers NOT_READY until the release; then the work completes at the
    // next query, and the buffer may be freed.
    assert_eq!(
        violations_of(|| {
            enqueue(d, 1);
            // SAFETY: a live stream of the current context.
            assert_eq!(unsafe { cuStreamQuery(stream) }, CUDA_ERROR_NOT_READY);
            assert!(check::has_pending(stream as usize));
            let _ = custackCheckdriverLibraryRelease(s);
            // SAFETY: as above.
            assert_eq!(unsafe { cuStreamQuery(stream) }, CUDA_SUCCESS);
            // SAFETY: device memory the double made, no work pending on it.
            let _ = unsafe { cuMemFree_v2(d) };
        }),
        0,
        "{:?}",
        mode::violations().last()
    );
    // Freed while the collective may still use it: reported.
    enqueue(e, 0);
    assert_eq!(
        violations_of(|| {
            // SAFETY: device memory the double made, work pending on it (the misuse under
            // test, which the double records).
            let _ = unsafe { cuMemFree_v2(e) };
        }),
        1
    );
    // SAFETY: a live stream of the current context.
    assert_eq!(unsafe { cuStreamQuery(stream) }, CUDA_SUCCESS);
    // An abort ends the communicator whatever may run (no report); after it, a collective or a
    // destroy is a use after its end.
    let ended = |call: &CStr| {
        // SAFETY: a NUL-terminated name; the handle is passed by value.
        unsafe { custackCheckdriverLibraryAbort(call.as_ptr(), comm) }
    };
    assert_eq!(
        violations_of(|| {
            let _ = ended(c"ncclCommAbort");
        }),
        0
    );
    let destroyed = || {
        // SAFETY: a NUL-terminated name; the handle is passed by value.
        let _ = unsafe { custackCheckdriverLibraryDestroy(c"ncclCommDestroy".as_ptr(), comm) };
    };
    assert_eq!(violations_of(destroyed), 1, "destroyed after its abort");
    let queried = || {
        // SAFETY: a NUL-terminated name; the handle is passed by value.
        let _ = unsafe { custackCheckdriverLibraryCall(c"ncclCommGetAsyncError".as_ptr(), comm) };
    };
    assert_eq!(violations_of(queried), 1, "queried after its abort");
    // SAFETY: the stream made above.
    let _ = unsafe { cuStreamDestroy_v2(stream) };
}
