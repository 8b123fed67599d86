//! `custack::health` on a real device: the pre-flight's answers (each a value or a typed
//! `NotSupported`, never an error, on an H100), the restricted run phase's poll finding
//! nothing on a healthy GPU, allocating nothing, and the event wait's answer there
//! (`NVML_ERROR_TIMEOUT`, the one answer that poll takes as healthy). Each event and each pre-flight refusal is
//! simulated on the CPU by the unit tests of `src/health/tests.rs` (NVML has no way to inject a
//! double-bit error or an Xid on a production GPU).
//!
//! Every test runs under the restricted profile (`Profile::init` confines the whole process,
//! and this binary's tests share it): the full-profile `Health` is opened from the profile's
//! device.
#![cfg(feature = "nvml")]

use custack::ErrorKind;
use custack::Stack;
use custack::health::{Answer, EventKind, Health};
use custack::safety::{Budget, Profile, RestrictedContext};
use std::time::Instant;

/// The restricted contexts this binary's tests make, together, in their one process:
/// `the_run_phase_poll_finds_nothing_on_a_healthy_gpu` and
/// `a_run_phase_that_watched_nothing_says_so`, one each.
const CONTEXTS: usize = 2;

/// The profile and device 0. Fails (so these tests fail, never pass) without a device.
fn profile_device() -> (Profile, custack::Device) {
    let profile = Profile::init(CONTEXTS).expect("needs a CUDA device: Profile::init failed");
    let device = profile.device(0).expect("needs a CUDA device: no device 0");
    (profile, device)
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_preflight_answers_every_query_on_the_real_gpu() {
    let (_profile, device) = profile_device();
    let health = Health::open(device).unwrap();
    let preflight = health.preflight().unwrap();
    eprintln!(
        "{} at PCI {:?}: {preflight:?}; ECC errors since load: {:?}; findings: {:?}",
        device.name().unwrap(),
        health.pci_bus_id(),
        health.ecc_errors().unwrap(),
        preflight.findings()
    );
    // NVML found the CUDA device by the bus id CUDA gave.
    assert_eq!(
        health.pci_bus_id().to_str().unwrap(),
        device.pci_bus_id().unwrap()
    );
    // The same answers read one by one.
    assert_eq!(preflight.ecc_enabled, health.ecc_enabled().unwrap());
    assert_eq!(preflight.remapped_rows, health.remapped_rows().unwrap());
    assert_eq!(
        preflight.retired_pages_pending,
        health.retired_pages_pending().unwrap()
    );
    // A data-center GPU (the H100 this runs on) has ECC, and from Ampere on it remaps rows.
    assert!(
        matches!(preflight.ecc_enabled, Answer::Known(_)),
        "{preflight:?}"
    );
    if device.compute_capability().unwrap().major >= 8 {
        assert!(
            matches!(preflight.remapped_rows, Answer::Known(_)),
            "{preflight:?}"
        );
    }
    assert!(health.watches(EventKind::CriticalXid));
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_run_phase_poll_finds_nothing_on_a_healthy_gpu() {
    let (profile, device) = profile_device();
    let mut ctx = RestrictedContext::new(&profile, device, Budget::page_locked(0)).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    let mut init = guard.init().unwrap();
    let preflight = init.watch_health().unwrap();
    // A GPU with a finding would be refused at seal; this test needs a healthy one.
    assert_eq!(preflight.findings(), [], "{preflight:?}");
    let run = init.seal();
    assert!(
        custack::poisoned().is_none(),
        "the pre-flight refused a healthy GPU"
    );
    let polls: u32 = 10_000;
    let start = Instant::now();
    for _ in 0..polls {
        run.poll_health().unwrap();
    }
    let per_call = start.elapsed() / polls;
    eprintln!("RunPhase::poll_health: {per_call:?} per call over {polls} calls (nothing found)");
    run.synchronize().unwrap();
    // A `RunPhase` has drop glue only with the feature `nvml` (its health watch).
    #[allow(clippy::drop_non_drop)]
    drop(run);
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
    assert!(custack::poisoned().is_none());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_run_phase_that_watched_nothing_says_so() {
    let (profile, device) = profile_device();
    let mut ctx = RestrictedContext::new(&profile, device, Budget::page_locked(0)).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    let run = guard.init().unwrap().seal();
    let e = run.poll_health().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvmlFailed, "{e}");
    assert!(e.to_string().contains("watch_health"), "{e}");
    // A `RunPhase` has drop glue only with the feature `nvml` (its health watch).
    #[allow(clippy::drop_non_drop)]
    drop(run);
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
}

/// What `nvmlEventSetWait_v2` answers with a zero timeout on a healthy GPU with nothing pending,
/// read through the full API's `Health::poll`, which returns `None` for `NVML_ERROR_TIMEOUT`
/// only (any other answer is an event, or `NvmlFailed` naming NVML's status): the one answer the
/// run phase's fail-closed poll takes as healthy (the NVML documentation's "no event arrived").
#[test]
#[ignore = "needs a CUDA device"]
fn a_healthy_gpu_answers_the_wait_with_its_timeout() {
    let (_profile, device) = profile_device();
    let health = Health::open(device).unwrap();
    for k in 0..1000 {
        match health.poll() {
            Ok(None) => {}
            other => panic!(
                "poll {k}: nvmlEventSetWait_v2 answered {other:?}, not NVML_ERROR_TIMEOUT (no \
                 event)"
            ),
        }
    }
    eprintln!("nvmlEventSetWait_v2, zero timeout, nothing pending: NVML_ERROR_TIMEOUT 1000 times");
}
