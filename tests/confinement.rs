//! A process that entered the restricted profile cannot leave it: once `Profile::init` has run,
//! every entry to the full API refuses with `ErrorKind::OutsideProfile`, before it reaches the
//! driver or a library, whoever calls it. The profile's own types still work.
//!
//! Every test of this binary calls `Profile::init` first, and the confinement lasts the
//! process, so the harness's order does not matter. Without a device `Profile::init` fails, but
//! the process is confined all the same (the entries that need no device are checked here on
//! every machine); the tests that need a `Device` are `#[ignore]`d and fail without one.

mod common;

use custack::safety::{Budget, Profile, RestrictedContext};
use custack::{Context, ContextFlags, Driver, ErrorKind, Library, Stack};

/// Enters the profile: `Some` with a device, `None` without one (confined either way).
fn enter() -> Option<Profile> {
    Profile::init().ok()
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
}

#[cfg(feature = "curand")]
#[test]
fn a_host_generator_is_refused() {
    let _ = enter();
    refused(
        custack::rand::HostRng::pseudo(custack::rand::Pseudo::Xorwow, 7),
        "rand::HostRng",
    );
}

#[cfg(feature = "nccl")]
#[test]
fn an_nccl_id_is_refused() {
    let _ = enter();
    refused(custack::nccl::unique_id(), "nccl::unique_id");
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

/// A full context made before `Profile::init` cannot be pushed after it. Alone in a process:
/// its `Driver::init` comes before `Profile::init`, which then fails (the driver's log callback
/// is registered, driver 12.9+) and confines the process all the same.
#[test]
#[ignore = "needs a CUDA device"]
fn a_full_context_made_before_is_not_pushed_after() {
    if !common::alone_in_a_process("a_full_context_made_before_is_not_pushed_after") {
        return;
    }
    let ctx = Context::new(
        Driver::init().unwrap().device(0).unwrap(),
        ContextFlags::empty(),
    )
    .unwrap();
    let mut stack = Stack::new().unwrap();
    drop(stack.push(&ctx).unwrap());
    let _ = Profile::init();
    refused(stack.push(&ctx), "Stack::push");
    refused(Driver::init(), "Driver::init");
    // What was made before is still released (a drop is not an entry).
    ctx.destroy().unwrap();
}
