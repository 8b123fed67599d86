//! The cuBLAS stand-in exports every entry point custack declares for cuBLAS (`ffi/cublas.rs`) and,
//! without the checking driver, answers `NOT_INITIALIZED` (1) and makes no handle
//! (`../../common/exports.rs`).

#[path = "../../common/exports.rs"]
mod exports;

use core::ffi::{c_int, c_void};

#[test]
fn every_declared_entry_point_is_exported_and_answers_without_the_double() {
    let find = exports::check(&exports::StandIn {
        file: "libcublas.so",
        ffi: "cublas.rs",
        at_least: 20,
        lifecycle: ["cublasCreate_v2", "cublasSetStream_v2", "cublasDestroy_v2"],
        not_initialized: 1,
    });
    // An entry point defined by hand (not by `../common/build.rs`) too.
    let mode = find("cublasSetPointerMode_v2");
    // SAFETY: the stand-in's `cublasSetPointerMode_v2`, whose signature this is (cuBLAS's).
    let mode: unsafe extern "C" fn(*mut c_void, c_int) -> c_int =
        unsafe { core::mem::transmute(mode) };
    // SAFETY: the handle is never dereferenced.
    assert_eq!(unsafe { mode(core::ptr::null_mut(), 0) }, 1);
}
