//! The cuDNN stand-in exports every entry point custack declares for cuDNN (`ffi/cudnn.rs`) and,
//! without the checking driver, answers `NOT_INITIALIZED` (1001) and makes no handle
//! (`../../common/exports.rs`).

#[path = "../../common/exports.rs"]
mod exports;

use core::ffi::{c_int, c_void};

#[test]
fn every_declared_entry_point_is_exported_and_answers_without_the_double() {
    let find = exports::check(&exports::StandIn {
        file: "libcudnn.so",
        ffi: "cudnn.rs",
        at_least: 20,
        lifecycle: ["cudnnCreate", "cudnnSetStream", "cudnnDestroy"],
        not_initialized: 1001,
    });
    // The entry points defined by hand (not by `../common/build.rs`) too: the shape query
    // writes nothing.
    let dims = find("cudnnGetConvolution2dForwardOutputDim");
    // SAFETY: the stand-in's `cudnnGetConvolution2dForwardOutputDim`, whose signature this is
    // (cuDNN's).
    let dims: unsafe extern "C" fn(
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_int,
        *mut c_int,
        *mut c_int,
        *mut c_int,
    ) -> c_int = unsafe { core::mem::transmute(dims) };
    let mut out = [-1; 4];
    let [n, c, hh, w] = &mut out;
    let null = core::ptr::null_mut();
    // SAFETY: valid out-pointers; the descriptors are never dereferenced.
    assert_eq!(unsafe { dims(null, null, null, n, c, hh, w) }, 1001);
    assert_eq!(out, [-1; 4]);
    // The graph API's create, by hand too: no descriptor without the double.
    let create = find("cudnnBackendCreateDescriptor");
    // SAFETY: the stand-in's `cudnnBackendCreateDescriptor`, whose signature this is
    // (cuDNN's: the type, a `cudnnBackendDescriptorType_t`, and an out-pointer).
    let create: unsafe extern "C" fn(c_int, *mut *mut c_void) -> c_int =
        unsafe { core::mem::transmute(create) };
    let mut d = null;
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { create(17, &raw mut d) }, 1001);
    assert!(d.is_null());
}
