//! The cuBLASLt stand-in exports every entry point custack declares for cuBLASLt
//! (`ffi/cublaslt.rs`) and, without the checking driver, answers `NOT_INITIALIZED` (1) and makes
//! no handle (`../../common/exports.rs`).

#[path = "../../common/exports.rs"]
mod exports;

use core::ffi::{c_int, c_void};

#[test]
fn every_declared_entry_point_is_exported_and_answers_without_the_double() {
    let find = exports::check(&exports::StandIn {
        file: "libcublasLt.so",
        ffi: "cublaslt.rs",
        at_least: 13,
        // No set-stream (the stream is `cublasLtMatmul`'s argument): the destroy in its place.
        lifecycle: ["cublasLtCreate", "cublasLtDestroy", "cublasLtDestroy"],
        not_initialized: 1,
    });
    // The entry points defined by hand (not by `../common/build.rs`) too: the heuristic writes
    // nothing, and the version is 0.
    let heuristic = find("cublasLtMatmulAlgoGetHeuristic");
    // SAFETY: the stand-in's `cublasLtMatmulAlgoGetHeuristic`, whose signature this is
    // (cuBLASLt's, descriptors and results untyped).
    let heuristic: unsafe extern "C" fn(
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        c_int,
        *mut c_void,
        *mut c_int,
    ) -> c_int = unsafe { core::mem::transmute(heuristic) };
    let mut results = [0u8; 96];
    let mut count = -1;
    let null = core::ptr::null_mut();
    // SAFETY: valid out-pointers (one result's 96 bytes); the descriptors are never
    // dereferenced.
    let r = unsafe {
        heuristic(
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            1,
            results.as_mut_ptr().cast(),
            &raw mut count,
        )
    };
    assert_eq!(r, 1);
    assert_eq!((results, count), ([0; 96], -1));
    let version = find("cublasLtGetVersion");
    // SAFETY: the stand-in's `cublasLtGetVersion`, whose signature this is (cuBLASLt's).
    let version: unsafe extern "C" fn() -> usize = unsafe { core::mem::transmute(version) };
    // SAFETY: takes nothing.
    assert_eq!(unsafe { version() }, 0);
}
