//! The stand-in exports every entry point custack declares for cuDNN (`ffi/cudnn.rs`,
//! read here on its own), so that a program linked against it loads; and, in a process without
//! the checking driver (this test's), it answers `CUDNN_STATUS_NOT_INITIALIZED` and makes no
//! handle.

use core::ffi::{c_char, c_int, c_void};
use std::ffi::CString;
use std::path::PathBuf;

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

/// `RTLD_NOW | RTLD_LOCAL`.
const RTLD_NOW: c_int = 0x2;

/// The stand-in cargo built for this test: `<target>/<profile>/deps/libcudnn.so` (where
/// `cargo test` leaves it), or `<target>/<profile>/libcudnn.so` (`cargo build`'s).
fn library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("<target>/<profile>");
    let deps = profile.join("deps").join("libcudnn.so");
    let path = if deps.is_file() {
        deps
    } else {
        profile.join("libcudnn.so")
    };
    assert!(path.is_file(), "{} is not built", path.display());
    path
}

/// The names `ffi/cudnn.rs` declares in its `link_or_stub!` block.
fn declared() -> Vec<String> {
    let ffi = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../ffi/cudnn.rs");
    let text = std::fs::read_to_string(&ffi).expect("custack's ffi/cudnn.rs");
    let block = text
        .split_once("link_or_stub!")
        .expect("a link_or_stub! block")
        .1;
    block
        .split("pub fn ")
        .skip(1)
        .map(|d| d.split('(').next().unwrap_or_default().trim().to_owned())
        .collect()
}

#[test]
fn every_declared_entry_point_is_exported_and_answers_without_the_double() {
    let names = declared();
    assert!(names.len() >= 20, "{} names", names.len());
    for lifecycle in ["cudnnCreate", "cudnnSetStream", "cudnnDestroy"] {
        assert!(names.iter().any(|n| n == lifecycle), "{lifecycle}");
    }
    let path = CString::new(library().to_string_lossy().into_owned()).expect("no NUL");
    // SAFETY: a NUL-terminated path; loading the stand-in runs no initializer of its own.
    let lib = unsafe { dlopen(path.as_ptr(), RTLD_NOW) };
    assert!(!lib.is_null(), "dlopen of the stand-in");
    let find = |name: &str| {
        let c = CString::new(name).expect("no NUL");
        // SAFETY: a loaded library and a NUL-terminated name.
        unsafe { dlsym(lib, c.as_ptr()) }
    };
    let missing: Vec<&String> = names.iter().filter(|n| find(n).is_null()).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    // No checking driver in this process: no handle, NOT_INITIALIZED (1001).
    let create = find("cudnnCreate");
    // SAFETY: the stand-in's `cudnnCreate`, whose signature this is (cuDNN's).
    let create: unsafe extern "C" fn(*mut *mut c_void) -> c_int =
        unsafe { core::mem::transmute(create) };
    let mut h = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { create(&raw mut h) }, 1001);
    assert!(h.is_null());
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
}
