//! A process that entered the restricted profile cannot leave it: once `Profile::init` has run,
//! every entry to the full API refuses with `ErrorKind::OutsideProfile`, before it reaches the
//! driver or a library, whoever calls it. The profile's own types still work. And a process
//! that used the full API cannot enter the profile: `Profile::init` refuses, naming the first
//! full entry, whatever the driver exports.
//!
//! Every test of this binary calls `Profile::init` first, and the confinement lasts the
//! process, so the harness's order does not matter; those that use the full API before it run
//! alone in a child process (`common::alone_in_a_process`). Without a device `Profile::init`
//! fails, but the process is confined all the same (the entries that need no device are
//! checked here on every machine); the tests that need a `Device` are `#[ignore]`d and fail
//! without one.

mod common;

use custack::safety::{Budget, Profile, RestrictedContext};
use custack::{Context, ContextFlags, Driver, ErrorKind, Library, Stack};

/// The restricted contexts this binary's process makes over its life (the tests that run
/// alone state their own): `the_profile_s_own_types_still_work` makes one.
const CONTEXTS: usize = 1;

/// Enters the profile: `Some` with a device, `None` without one (confined either way).
fn enter() -> Option<Profile> {
    Profile::init(CONTEXTS).ok()
}

/// Asserts that `result` is `Profile::init`'s refusal after the full API's `first` entry.
#[track_caller]
fn profile_refused_after<T: core::fmt::Debug>(result: custack::Result<T>, first: &str) {
    let e = result.expect_err(first);
    assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{first}: {e}");
    let detail = e.detail().unwrap_or_default();
    assert!(
        detail.starts_with(&format!("{first} was used before Profile::init")),
        "{first}: {detail}"
    );
    assert!(detail.contains("Call Profile::init first"), "{detail}");
}

/// Asserts that `result` is the refusal of `entry`.
#[track_caller]
fn refused<T: core::fmt::Debug>(result: custack::Result<T>, entry: &str) {
    let e = result.expect_err(entry);
    assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{entry}: {e}");
    let detail = e.detail().unwrap_or_default();
    assert!(
        detail.starts_with(&format!("{entry} is outside the restricted profile")),
        "{entry}: {detail}"
    );
}

#[test]
fn driver_init_is_refused() {
    let _ = enter();
    // Without the confinement this is `cuInit`'s answer: success with a device,
    // CUDA_ERROR_NO_DEVICE (or the like) without one, never OutsideProfile.
    refused(Driver::init(), "Driver::init");
}

#[test]
fn naming_launches_is_refused_and_stays_off() {
    let _ = enter();
    refused(custack::name_launches(true), "name_launches(true)");
    assert!(!custack::launches_named());
    custack::name_launches(false).unwrap();
    assert!(!custack::launches_named());
}

#[cfg(feature = "nvrtc")]
#[test]
fn compiling_with_nvrtc_is_refused() {
    let _ = enter();
    let program = custack::nvrtc::Program::new("k.cu", "__global__ void k() {}").unwrap();
    refused(
        program.compile(&custack::nvrtc::Options::new()),
        "nvrtc::Program::compile",
    );
    refused(custack::nvrtc::version(), "nvrtc::version");
    refused(custack::nvrtc::supported_archs(), "nvrtc::supported_archs");
}

#[cfg(feature = "curand")]
#[test]
fn a_host_generator_is_refused() {
    let _ = enter();
    refused(
        custack::rand::HostRng::pseudo(custack::rand::Pseudo::Xorwow, 7),
        "rand::HostRng",
    );
    refused(custack::rand::version(), "rand::version");
}

#[cfg(feature = "nccl")]
#[test]
fn an_nccl_id_is_refused() {
    let _ = enter();
    refused(custack::nccl::unique_id(), "nccl::unique_id");
    refused(custack::nccl::version(), "nccl::version");
}

#[cfg(feature = "cublas")]
#[test]
fn cublas_s_version_is_refused() {
    let _ = enter();
    refused(custack::blas::version(), "blas::version");
}

#[cfg(feature = "cublaslt")]
#[test]
fn cublaslt_s_version_is_refused() {
    let _ = enter();
    refused(custack::blaslt::version(), "blaslt::version");
}

#[cfg(feature = "cufft")]
#[test]
fn cufft_s_version_is_refused() {
    let _ = enter();
    refused(custack::fft::version(), "fft::version");
}

#[cfg(feature = "cusparse")]
#[test]
fn cusparse_s_version_is_refused() {
    let _ = enter();
    refused(custack::sparse::version(), "sparse::version");
}

#[cfg(feature = "cusolver")]
#[test]
fn cusolver_s_version_is_refused() {
    let _ = enter();
    refused(custack::solver::version(), "solver::version");
}

#[test]
#[ignore = "needs a CUDA device"]
fn contexts_of_the_full_api_are_refused() {
    let profile = enter().expect("Profile::init: a CUDA device");
    let device = profile.device(0).unwrap();
    refused(Context::new(device, ContextFlags::empty()), "Context::new");
    refused(Context::primary(device), "Context::primary");
    refused(
        Context::with_sm_count(device, ContextFlags::empty(), 8),
        "Context::with_sm_count",
    );
    // SAFETY: refused before the handle is used (a null one would be the driver's error).
    refused(
        unsafe { Context::from_raw(core::ptr::null_mut()) },
        "Context::from_raw",
    );
    refused(
        device.set_primary_context_flags(ContextFlags::empty()),
        "Device::set_primary_context_flags",
    );
    refused(device.sm_resource(), "Device::sm_resource");
    refused(device.graph_mem_trim(), "Device::graph_mem_trim");
    refused(
        device.reset_graph_mem_high(custack::GraphMem::UsedHigh),
        "Device::reset_graph_mem_high",
    );
    refused(
        Library::load_ptx(profile.driver(), include_str!("fixtures/kernels.ptx")),
        "Library::load_ptx",
    );
}

/// The positive twin: the profile's own context, push, init phase and page-locked memory reach
/// the same driver calls the refused entries would, through paths that do not ask.
#[test]
#[ignore = "needs a CUDA device"]
fn the_profile_s_own_types_still_work() {
    let profile = enter().expect("Profile::init: a CUDA device");
    let mut ctx = RestrictedContext::new(
        &profile,
        profile.device(0).unwrap(),
        Budget::page_locked(4096).device_bytes(64),
    )
    .unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        let host = init.alloc_pinned::<u32>(16).unwrap();
        let device = init.alloc::<u32>(16).unwrap();
        assert_eq!((host.len(), device.len()), (16, 16));
        init.seal().synchronize().unwrap();
    }
    guard.shutdown().unwrap();
    drop(stack);
    ctx.destroy().unwrap();
}

/// AOU-8 checked, on every driver version: a `Driver::init` before `Profile::init` (whatever it
/// returned: without a GPU it fails, `CUDA_ERROR_NO_DEVICE`, and was still the full API's
/// entry) makes `Profile::init` refuse, naming it, before the driver is asked; the process is
/// not confined then (the full API goes on as before). Until this check, a driver without the
/// log API (12.2 to 12.8) let `Profile::init` succeed here.
#[test]
fn profile_init_after_driver_init_is_refused_naming_it() {
    if !common::alone_in_a_process("profile_init_after_driver_init_is_refused_naming_it") {
        return;
    }
    let first = Driver::init();
    for _ in 0..2 {
        profile_refused_after(Profile::init(1), "Driver::init");
    }
    // Refused, `Profile::init` confined nothing: `Driver::init` answers as it did.
    let again = Driver::init();
    assert_eq!(
        first.as_ref().map(drop).map_err(custack::Error::kind),
        again.as_ref().map(drop).map_err(custack::Error::kind),
        "{first:?} then {again:?}"
    );
}

/// A full entry that succeeds without a GPU: `name_launches(true)`, then `Profile::init` is
/// refused naming it (and the process's first entry stays the one named after later ones).
#[test]
fn profile_init_after_naming_launches_is_refused_naming_it() {
    if !common::alone_in_a_process("profile_init_after_naming_launches_is_refused_naming_it") {
        return;
    }
    custack::name_launches(true).unwrap();
    let _ = Driver::init();
    profile_refused_after(Profile::init(1), "name_launches(true)");
    assert!(custack::launches_named());
}

/// `Profile::init(0)` states no context: refused (the process is confined all the same).
#[test]
fn profile_init_of_no_contexts_is_refused() {
    let e = Profile::init(0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
    assert!(
        e.to_string()
            .contains("Profile::init(0) states no restricted context"),
        "{e}"
    );
    refused(Driver::init(), "Driver::init");
}

/// A full context made and pushed before `Profile::init`: `Profile::init` is refused, naming
/// the process's first full entry (`Driver::init`), so no restricted value can exist beside
/// the full guard. (Before this check the guard kept reaching the driver after `Profile::init`
/// returned: a PTX load, a host function, managed memory, synchronous copies.) Alone in a
/// process: the full API comes first.
#[test]
#[ignore = "needs a CUDA device"]
fn a_full_guard_pushed_before_refuses_profile_init() {
    if !common::alone_in_a_process("a_full_guard_pushed_before_refuses_profile_init") {
        return;
    }
    let ctx = Context::new(
        Driver::init().unwrap().device(0).unwrap(),
        ContextFlags::empty(),
    )
    .unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    profile_refused_after(Profile::init(1), "Driver::init");
    // The process is a full-API one, as it was: its guard works, and the profile stays shut.
    guard.synchronize().unwrap();
    let managed = guard.alloc_managed::<u32>(16).unwrap();
    drop(managed);
    profile_refused_after(Profile::init(1), "Driver::init");
    drop(guard);
    ctx.destroy().unwrap();
}

/// The contexts `Profile::init` states are the process's, over its life: `Profile::init(1)`,
/// restated alike, then one restricted context; a second (new or primary, and after the first
/// was destroyed) is refused before the driver is asked, and another count is refused. Alone
/// in a process: it states its own count.
#[test]
#[ignore = "needs a CUDA device"]
fn the_process_makes_the_contexts_it_stated_and_no_more() {
    if !common::alone_in_a_process("the_process_makes_the_contexts_it_stated_and_no_more") {
        return;
    }
    let past = |r: custack::Result<RestrictedContext>| {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(
            e.to_string()
                .contains("a restricted context past the process's count: Profile::init(1)"),
            "{e}"
        );
    };
    let profile = Profile::init(1).unwrap();
    let again = Profile::init(1).unwrap();
    let e = Profile::init(2).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
    assert!(
        e.to_string()
            .contains("Profile::init(2) after Profile::init(1)"),
        "{e}"
    );
    let device = profile.device(0).unwrap();
    let ctx = RestrictedContext::new(&again, device, Budget::new()).unwrap();
    past(RestrictedContext::new(&profile, device, Budget::new()));
    past(RestrictedContext::primary(&profile, device, Budget::new()));
    ctx.destroy().unwrap();
    // Destroying gives nothing back: the count is over the process's life.
    past(RestrictedContext::new(&profile, device, Budget::new()));
}
