//! R2: custack's error table against the real driver's own names and descriptions.
//!
//! `cuGetErrorName` and `cuGetErrorString` need neither a GPU nor `cuInit`, so this runs on any
//! machine that can load libcuda (it is not `#[ignore]`d). In a build that linked no libcuda
//! (plain `cargo test` where no driver library is installed) the tests that compare with the
//! driver's strings check, and say, what such a build promises instead.

mod common;
use common::built_without_libcuda;
use core::ffi::{CStr, c_char};
use custack::{Error, ErrorKind, ffi};

/// What every error of a build without libcuda says after its name and code.
const NOT_LINKED: &str = "no CUDA driver: custack was built where no libcuda was found";

/// The driver's string for `code` from `query`, or `None` when the driver does not know it.
fn driver_string(
    code: i32,
    query: unsafe extern "C" fn(ffi::CUresult, *mut *const c_char) -> ffi::CUresult,
) -> Option<String> {
    let mut text: *const c_char = core::ptr::null();
    // SAFETY: both queries accept any code and write one pointer to a live local.
    let status = unsafe { query(ffi::CUresult(code), &raw mut text) };
    if status != ffi::CUresult::CUDA_SUCCESS || text.is_null() {
        return None;
    }
    // SAFETY: on success the driver stored a non-null pointer to a static NUL-terminated string.
    let text = unsafe { CStr::from_ptr(text) };
    Some(text.to_string_lossy().into_owned())
}

#[test]
fn every_code_the_driver_names_matches_the_table() {
    if built_without_libcuda("every_code_the_driver_names_matches_the_table") {
        // Every code still shows the table's name and its number, and says why there is no
        // description.
        for v in 1..=1000 {
            let kind = ErrorKind::from_code(ffi::CUresult(v));
            let shown = Error::from_raw(ffi::CUresult(v)).to_string();
            assert!(
                shown.starts_with(&format!("{} ({v}): {NOT_LINKED}", kind.name())),
                "{v}: {shown:?}"
            );
        }
        return;
    }
    let mut named = 0;
    for v in 0..=1000 {
        let Some(name) = driver_string(v, ffi::cuGetErrorName) else {
            continue;
        };
        named += 1;
        let description = driver_string(v, ffi::cuGetErrorString)
            .unwrap_or_else(|| panic!("the driver names {v} ({name}) but does not describe it"));
        let kind = ErrorKind::from_code(ffi::CUresult(v));
        if v == 0 {
            assert_eq!(name, "CUDA_SUCCESS");
            assert_eq!(kind, ErrorKind::Unlisted(0));
        } else {
            assert_eq!(kind.name(), name, "code {v}");
            assert_eq!(kind.code(), Some(ffi::CUresult(v)));
        }
        let shown = Error::from_raw(ffi::CUresult(v)).to_string();
        assert!(shown.contains(&name), "{v}: {shown:?} lacks {name}");
        assert!(
            shown.contains(&description),
            "{v}: {shown:?} lacks {description:?}"
        );
        assert!(
            shown.starts_with(&format!("{name} ({v}): {description}")),
            "{shown:?}"
        );
    }
    // Driver 535 (CUDA 12.2) names 93 codes, CUDA_SUCCESS included.
    assert!(named > 90, "the driver named only {named} codes");
}

#[test]
fn an_unknown_code_keeps_its_value_and_shows_it() {
    let v = 1234;
    assert_eq!(
        driver_string(v, ffi::cuGetErrorName),
        None,
        "the driver knows {v}"
    );
    let e = Error::from_raw(ffi::CUresult(v));
    assert_eq!(e.kind(), ErrorKind::Unlisted(v));
    assert_eq!(e.code(), Some(ffi::CUresult(v)));
    assert!(!e.is_sticky());
    let shown = e.to_string();
    if built_without_libcuda("an_unknown_code_keeps_its_value_and_shows_it") {
        assert_eq!(shown, format!("CUDA_ERROR_UNLISTED (1234): {NOT_LINKED}"));
        return;
    }
    assert_eq!(
        shown,
        "CUDA_ERROR_UNLISTED (1234): no description from the driver"
    );
}

#[test]
fn success_is_accepted_by_from_raw() {
    let e = Error::from_raw(ffi::CUresult::CUDA_SUCCESS);
    assert_eq!(e.kind(), ErrorKind::Unlisted(0));
    assert!(e.to_string().starts_with("CUDA_SUCCESS (0): "));
}

#[test]
fn sticky_errors_say_so() {
    let e = Error::from_raw(ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
    assert!(e.is_sticky());
    assert!(e.kind().is_sticky());
    let shown = e.to_string();
    assert!(
        shown.starts_with("CUDA_ERROR_ILLEGAL_ADDRESS (700): "),
        "{shown}"
    );
    assert!(
        shown.ends_with(
            " (sticky: CUDA is unusable in this process; a new process can use it again)"
        ),
        "{shown}"
    );
    let e = Error::from_raw(ffi::CUresult::CUDA_ERROR_CONTEXT_IS_DESTROYED);
    assert!(!e.is_sticky());
    assert!(!e.to_string().contains("sticky"));
}

#[test]
fn setup_errors_carry_a_hint() {
    // Without libcuda, "no device" is what every call returns: its hint says how to link one.
    let no_device = if built_without_libcuda("setup_errors_carry_a_hint") {
        "CUSTACK_REQUIRE_LIBCUDA"
    } else {
        "CUDA_VISIBLE_DEVICES"
    };
    for (code, needle) in [
        (ffi::CUresult::CUDA_ERROR_STUB_LIBRARY, "LD_LIBRARY_PATH"),
        (ffi::CUresult::CUDA_ERROR_NO_DEVICE, no_device),
        (ffi::CUresult::CUDA_ERROR_NOT_INITIALIZED, "Driver::init()"),
        (
            ffi::CUresult::CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
            "update the driver",
        ),
        (
            ffi::CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
            "kernel module",
        ),
        (
            ffi::CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
            "forward-compatibility",
        ),
    ] {
        let shown = Error::from_raw(code).to_string();
        let (_, hint) = shown
            .split_once("\n  hint: ")
            .unwrap_or_else(|| panic!("no hint line in {shown:?}"));
        assert!(hint.contains(needle), "{shown}");
    }
    let shown = Error::from_raw(ffi::CUresult::CUDA_ERROR_INVALID_VALUE).to_string();
    assert!(!shown.contains("hint"), "{shown}");
}

#[test]
fn display_never_shows_a_bare_number() {
    // Every listed kind has a name, whether the running driver knows it or not.
    for v in (0..=1000).chain([-1, i32::MAX]) {
        let shown = Error::from_raw(ffi::CUresult(v)).to_string();
        assert!(shown.starts_with("CUDA_"), "{v}: {shown:?}");
    }
}

#[test]
fn error_is_a_std_error_that_can_cross_threads() {
    fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}
    assert_error::<Error>();
    let boxed: Box<dyn std::error::Error + Send + Sync> =
        Box::new(Error::from_raw(ffi::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
    let shown = std::thread::spawn(move || boxed.to_string())
        .join()
        .unwrap();
    assert!(
        shown.starts_with("CUDA_ERROR_OUT_OF_MEMORY (2): "),
        "{shown}"
    );
}
