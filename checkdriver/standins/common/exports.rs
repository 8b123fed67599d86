//! What every stand-in's `tests/exports.rs` checks, written once (each includes this file by
//! `#[path]`): the stand-in cargo built exports every entry point custack declares for its
//! library (`ffi/<library>.rs`, read here on its own, so that a program linked against the
//! stand-in loads), and in a process without the checking driver (a test's) its create answers
//! the library's `NOT_INITIALIZED` and makes no handle.

use core::ffi::{c_char, c_int, c_void};
use std::ffi::CString;
use std::path::PathBuf;

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

/// `RTLD_NOW | RTLD_LOCAL`.
const RTLD_NOW: c_int = 0x2;

/// One stand-in: its file name, its ffi file, how many names it declares at least, its
/// lifecycle's three entry points (create, set-stream, destroy) and `NOT_INITIALIZED`'s value.
pub(crate) struct StandIn {
    pub(crate) file: &'static str,
    pub(crate) ffi: &'static str,
    pub(crate) at_least: usize,
    pub(crate) lifecycle: [&'static str; 3],
    pub(crate) not_initialized: c_int,
}

/// The stand-in cargo built for this test: `<target>/<profile>/deps/<file>` (where `cargo
/// test` leaves it), or `<target>/<profile>/<file>` (`cargo build`'s).
fn library(file: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("<target>/<profile>");
    let deps = profile.join("deps").join(file);
    let path = if deps.is_file() {
        deps
    } else {
        profile.join(file)
    };
    assert!(path.is_file(), "{} is not built", path.display());
    path
}

/// The names `ffi/<library>.rs` declares in its `link_or_stub!` block.
fn declared(ffi: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../ffi")
        .join(ffi);
    let text = std::fs::read_to_string(&path).expect("custack's ffi file");
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

/// Checks the stand-in as this module's docs say, and returns a lookup of its entry points for
/// the test's own further checks.
pub(crate) fn check(s: &StandIn) -> impl Fn(&str) -> *mut c_void {
    let names = declared(s.ffi);
    assert!(names.len() >= s.at_least, "{} names", names.len());
    for lifecycle in s.lifecycle {
        assert!(names.iter().any(|n| n == lifecycle), "{lifecycle}");
    }
    let path = CString::new(library(s.file).to_string_lossy().into_owned()).expect("no NUL");
    // SAFETY: a NUL-terminated path; loading the stand-in runs no initializer of its own.
    let lib = unsafe { dlopen(path.as_ptr(), RTLD_NOW) };
    assert!(!lib.is_null(), "dlopen of the stand-in");
    let find = move |name: &str| {
        let c = CString::new(name).expect("no NUL");
        // SAFETY: a loaded library (never closed) and a NUL-terminated name.
        unsafe { dlsym(lib, c.as_ptr()) }
    };
    let missing: Vec<&String> = names.iter().filter(|n| find(n).is_null()).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    // No checking driver in this process: no handle, NOT_INITIALIZED.
    let create = find(s.lifecycle[0]);
    assert!(!create.is_null());
    // SAFETY: the stand-in's create, whose signature is every one of these libraries' create:
    // `(handle *out) -> status`.
    let create: unsafe extern "C" fn(*mut *mut c_void) -> c_int =
        unsafe { core::mem::transmute(create) };
    let mut h = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { create(&raw mut h) }, s.not_initialized);
    assert!(h.is_null());
    find
}
