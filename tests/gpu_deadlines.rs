//! R19 on a real device: every bounded wait against a kernel that runs far longer than its
//! deadline (`spin` in `tests/fixtures/spin.ptx`, 400 ms of SM clock cycles). Each shows its
//! documented outcome: owned work handed back with its memory out of reach, then completed;
//! a scope that keeps waiting and reports the overrun, or ends the process; events, streams and
//! the context that report `DeadlinePassed` and complete later; a module handed back loaded.
mod common;
use common::{context, device};
use custack::prelude::*;
use custack::{
    Abandon, Deadline, DeviceAttribute, ErrorKind, EventFlags, LaunchConfig, Overrun, Stack,
    take_drop_errors,
};
use std::process::Command;
use std::time::{Duration, Instant};

const SPIN: &str = include_str!("fixtures/spin.ptx");
/// How long the spinning kernel runs.
const LONG: Duration = Duration::from_millis(400);
/// The deadline that passes while it runs.
const SHORT: Duration = Duration::from_millis(20);
/// A deadline that only a hang would pass.
const AMPLE: Duration = Duration::from_secs(30);

/// SM clock cycles in `time` at the device's clock rate (its peak: the kernel runs at least
/// that long, longer if the clock is lower).
fn cycles(time: Duration) -> u64 {
    let khz = device()
        .attribute(DeviceAttribute::ClockRate)
        .expect("the device's clock rate");
    u64::try_from(khz).expect("a positive clock rate") * u64::try_from(time.as_millis()).unwrap()
}

fn one_thread() -> LaunchConfig {
    LaunchConfig::for_elements(1)
}

/// Asserts a wait that reported `DeadlinePassed` after `waited` did not return before its
/// deadline. That it ended by the deadline, not the work, is what `DeadlinePassed` says: the
/// poll reports it only after a query that found the work still running (the unit tests of
/// `src/deadline` check on a fake clock that it does so at the first look at the clock past
/// the deadline). No upper bound on `waited`: a loaded host may be slow to come back, and
/// the test must not fail for that.
fn ended_by_the_deadline(waited: Duration) {
    assert!(
        waited >= SHORT,
        "returned after {waited:?}, before its deadline {SHORT:?}"
    );
}

fn assert_deadline_passed(e: &custack::Error) {
    assert_eq!(e.kind(), ErrorKind::DeadlinePassed, "{e}");
    assert!(
        e.to_string().contains("gpu_deadlines.rs"),
        "the error names the call site: {e}"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_submission_past_its_deadline_comes_back_then_completes() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(SPIN).unwrap();
    let spin = module.function("spin").unwrap();
    let stream = guard.stream().unwrap();
    let dev = guard.alloc_from(&[0u32]).unwrap();
    let start = Instant::now();
    let pending = stream
        .submit((dev, spin), |s, (mut dev, spin)| {
            // SAFETY: spin(unsigned long long cycles, unsigned* out) writes out[0] only.
            unsafe { s.launch(&spin, one_thread(), (cycles(LONG), &mut dev)) }
        })
        .unwrap();
    let Err(late) = pending.wait_by(Deadline::after(SHORT)).unwrap() else {
        panic!("a {LONG:?} kernel was complete after {SHORT:?}")
    };
    ended_by_the_deadline(start.elapsed());
    assert_deadline_passed(late.error());
    assert!(
        late.error()
            .to_string()
            .contains("the submission waited for at")
    );
    // Handed back, still pending: its payload is out of reach until the work is done.
    let pending = late.into_pending();
    assert!(!pending.is_complete().unwrap());
    let (dev, _spin) = match pending.wait_by(Deadline::after(AMPLE)).unwrap() {
        Ok(payload) => payload,
        Err(late) => panic!("{}", late.error()),
    };
    assert!(
        start.elapsed() >= LONG / 2,
        "complete after {:?}",
        start.elapsed()
    );
    assert_eq!(dev.to_vec().unwrap(), [1]);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn complete_work_is_handed_back_even_past_its_deadline() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let pending = stream
        .submit(guard.alloc::<u32>(256).unwrap(), |s, mut d| {
            s.fill_u32(&mut d, 7)
        })
        .unwrap();
    stream.synchronize().unwrap();
    let passed = Deadline::at(Instant::now());
    assert!(passed.has_passed());
    // The first query answers "complete": the deadline is not even looked at.
    let dev = pending.wait_by(passed).unwrap().expect("complete work");
    assert_eq!(dev.to_vec().unwrap(), vec![7; 256]);
    stream.synchronize_by(passed).unwrap();
    guard.synchronize_by(passed).unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_parked_submission_past_its_deadline_comes_back_then_completes() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(SPIN).unwrap();
    let spin = module.function("spin").unwrap();
    let stream = guard.stream().unwrap();
    let dev = guard.alloc_from(&[0u32]).unwrap();
    let start = Instant::now();
    let pending = stream
        .submit((dev, spin), |s, (mut dev, spin)| {
            // SAFETY: as above.
            unsafe { s.launch(&spin, one_thread(), (cycles(LONG), &mut dev)) }
        })
        .unwrap();
    let parked = guard.park_submission(pending);
    let Err(late) = parked.wait_by(Deadline::after(SHORT)).unwrap() else {
        panic!("a {LONG:?} kernel was complete after {SHORT:?}")
    };
    ended_by_the_deadline(start.elapsed());
    assert_deadline_passed(late.error());
    assert!(late.error().to_string().contains("the parked submission"));
    let (dev, ()) = match late.into_pending().wait_by(Deadline::after(AMPLE)).unwrap() {
        Ok(payload) => payload,
        Err(late) => panic!("{}", late.error()),
    };
    let dev = guard.attach(dev).unwrap();
    assert_eq!(dev.to_vec().unwrap(), [1]);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_scope_that_keeps_waiting_reports_its_overrun_once_the_work_is_over() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(SPIN).unwrap();
    let spin = module.function("spin").unwrap();
    let stream = guard.stream().unwrap();
    let mut dev = guard.alloc_from(&[0u32]).unwrap();
    let start = Instant::now();
    let ended = stream.scope_by(Deadline::after(SHORT), Overrun::KeepWaiting, |s| {
        // SAFETY: as above.
        unsafe { s.launch(&spin, one_thread(), (cycles(LONG), s.bind_mut(&mut dev))) }
    });
    let e = ended.expect_err("the scope overran its deadline");
    // It returned only once the work was over: the borrow of `dev` ends here.
    assert!(
        start.elapsed() >= LONG / 2,
        "returned after {:?}",
        start.elapsed()
    );
    assert_deadline_passed(&e);
    assert!(e.to_string().contains("completed"), "{e}");
    assert!(e.to_string().contains("Overrun::KeepWaiting"), "{e}");
    assert_eq!(dev.to_vec().unwrap(), [1]);
    // In time, the same scope returns the closure's value.
    let value = stream
        .scope_by(Deadline::after(AMPLE), Overrun::KeepWaiting, |s| {
            s.fill_u32(s.bind_mut(&mut dev), 5).map(|()| 42)
        })
        .unwrap()
        .unwrap();
    assert_eq!(value, 42);
    assert_eq!(dev.to_vec().unwrap(), [5]);
    assert!(take_drop_errors().is_empty());
}

const EXIT_CHILD: &str = "CUSTACK_DEADLINE_EXIT_CHILD";

#[test]
#[ignore = "needs a CUDA device"]
fn a_scope_that_exits_ends_the_process_at_its_deadline() {
    if std::env::var_os(EXIT_CHILD).is_some() {
        let ctx = context();
        let mut stack = Stack::new().unwrap();
        let guard = stack.push(&ctx).unwrap();
        let module = guard.load_ptx(SPIN).unwrap();
        let spin = module.function("spin").unwrap();
        let stream = guard.stream().unwrap();
        let mut dev = guard.alloc_from(&[0u32]).unwrap();
        let _ = stream.scope_by(Deadline::after(SHORT), Overrun::Exit, |s| {
            // SAFETY: as above.
            unsafe {
                s.launch(
                    &spin,
                    one_thread(),
                    (cycles(LONG * 10), s.bind_mut(&mut dev)),
                )
            }
        });
        unreachable!("the scope returned past its deadline with Overrun::Exit");
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_scope_that_exits_ends_the_process_at_its_deadline",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(EXIT_CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(custack::FAIL_STOP_STATUS),
        "{:?}\n{stderr}",
        out.status
    );
    assert!(stderr.contains("passed its deadline"), "{stderr}");
    // The one safe state: one line, with the one prefix a supervisor reads.
    let report: Vec<_> = stderr
        .lines()
        .filter(|l| l.starts_with("custack: "))
        .collect();
    assert_eq!(report.len(), 1, "{stderr}");
    assert!(
        report[0].starts_with("custack: fail-stop (exit status 75): "),
        "{stderr}"
    );
    assert!(stderr.contains("gpu_deadlines.rs"), "{stderr}");
    // Ended at the deadline, not after the 4 s kernel: status 75 is the overrun's exit, which
    // follows only a query that found the kernel running (a kernel over first makes the scope
    // return, and the child panic). Not timed: the child's start-up is the host's.
}

#[test]
#[ignore = "needs a CUDA device"]
fn events_streams_and_the_context_report_the_deadline_then_complete() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(SPIN).unwrap();
    let spin = module.function("spin").unwrap();
    let stream = guard.stream().unwrap();
    let event = guard.event(EventFlags::DISABLE_TIMING).unwrap();
    let pending = stream
        .submit(spin, |s, spin| {
            // SAFETY: a null `out`: the kernel writes nothing.
            unsafe { s.launch(&spin, one_thread(), (cycles(LONG), 0u64)) }
        })
        .unwrap();
    // SAFETY: a live event and stream of the current context.
    let recorded = unsafe { custack::ffi::cuEventRecord(event.as_raw(), stream.as_raw()) };
    assert_eq!(recorded, custack::ffi::CUresult::CUDA_SUCCESS);
    let start = Instant::now();
    assert_deadline_passed(&event.synchronize_by(Deadline::after(SHORT)).unwrap_err());
    ended_by_the_deadline(start.elapsed());
    let start = Instant::now();
    assert_deadline_passed(&stream.synchronize_by(Deadline::after(SHORT)).unwrap_err());
    ended_by_the_deadline(start.elapsed());
    let start = Instant::now();
    let e = guard.synchronize_by(Deadline::after(SHORT)).unwrap_err();
    assert_deadline_passed(&e);
    assert!(e.to_string().contains("the context synchronized at"), "{e}");
    ended_by_the_deadline(start.elapsed());
    event.synchronize_by(Deadline::after(AMPLE)).unwrap();
    stream.synchronize_by(Deadline::after(AMPLE)).unwrap();
    guard.synchronize_by(Deadline::after(AMPLE)).unwrap();
    assert!(pending.is_complete().unwrap());
    let _spin = pending.wait().unwrap();
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_module_whose_kernel_still_runs_comes_back_loaded() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(SPIN).unwrap();
    let stream = guard.stream().unwrap();
    {
        let spin = module.function("spin").unwrap();
        let pending = stream
            .submit(spin, |s, spin| {
                // SAFETY: a null `out`: the kernel writes nothing.
                unsafe { s.launch(&spin, one_thread(), (cycles(LONG), 0u64)) }
            })
            .unwrap();
        // Given up on: it no longer borrows the module, but its kernel still runs.
        pending.abandon();
    }
    let start = Instant::now();
    let late = match module.unload_by(Deadline::after(SHORT)).unwrap() {
        Ok(()) => panic!("unloaded while its kernel ran"),
        Err(late) => late,
    };
    ended_by_the_deadline(start.elapsed());
    assert_deadline_passed(late.error());
    // Still loaded: its kernels can still be looked up and launched.
    let module = late.into_pending();
    let spin = module.function("spin").unwrap();
    stream
        .scope(|s| {
            // SAFETY: as above.
            unsafe { s.launch(&spin, one_thread(), (0u64, 0u64)) }
        })
        .unwrap()
        .unwrap();
    match module.unload_by(Deadline::after(AMPLE)).unwrap() {
        Ok(()) => {}
        Err(late) => panic!("{}", late.error()),
    }
    assert!(take_drop_errors().is_empty());
}
