//! R20: recovery from a GPU fault is a new process. The supervisor of
//! `examples/21_supervisor.rs` (the same code, included below) runs the job in worker processes,
//! which are this test binary started again: on the GPU, the first worker faults on purpose
//! and fail-stops, and a second one finishes the job with correct results (needs a device);
//! without a GPU, workers that compute on the CPU check the supervisor itself: a fail-stopped
//! worker is replaced and loses nothing it finished, one that fails otherwise is not, and one
//! past its deadline is killed.
#![allow(clippy::items_after_statements)]

#[path = "../examples/21_supervisor.rs"]
#[allow(dead_code, unreachable_pub)]
mod supervisor;

use custack::{Error, ErrorKind, FAIL_STOP_STATUS};
use std::io::{Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};
use supervisor::{Gave, job, supervise, wrong};

/// Set in a worker: `gpu`, `cpu` (results computed on the host, then `fail_stop` at the fault),
/// `fail` (exits 1 at once) or `hang` (never ends).
const WORKER_ENV: &str = "CUSTACK_SUPERVISOR_WORKER";
/// Set in a worker told to fault: the chunk it faults at.
const FAULT_ENV: &str = "CUSTACK_SUPERVISOR_FAULT_AT";

/// In a worker: does the worker's part and ends the process; in the supervisor, returns.
fn worker_if_child() {
    let Some(kind) = std::env::var_os(WORKER_ENV) else {
        return;
    };
    let fault_at = std::env::var(FAULT_ENV).ok().and_then(|v| v.parse().ok());
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut out = std::io::stdout().lock();
    // The test harness may have begun a line ("test NAME ... "): results start on a line of
    // their own.
    writeln!(out).unwrap();
    let r = match kind.to_str() {
        Some("gpu") => supervisor::worker(&input, fault_at, &mut out),
        Some("cpu") => cpu_worker(&input, fault_at, &mut out),
        Some("fail") => std::process::exit(1),
        Some("hang") => loop {
            std::thread::sleep(Duration::from_secs(1));
        },
        other => panic!("unknown worker {other:?}"),
    };
    match r {
        Ok(()) => std::process::exit(0),
        Err(e) if e.is_sticky() => custack::fail_stop(&e),
        Err(e) => {
            eprintln!("worker: {e}");
            std::process::exit(1)
        }
    }
}

/// The worker's protocol with the GPU left out: the results computed here, and a sticky error
/// (no GPU involved) at chunk `fault_at`.
fn cpu_worker(input: &str, fault_at: Option<u32>, out: &mut impl Write) -> custack::Result<()> {
    for chunk in supervisor::decode(input)? {
        if fault_at == Some(chunk.id) {
            return Err(Error::new(ErrorKind::IllegalAddress, "a fault, on purpose"));
        }
        let sums: Vec<u32> = chunk
            .values
            .iter()
            .map(|v| v.wrapping_add(chunk.k))
            .collect();
        let line = format!(
            "{}{} {}",
            supervisor::DONE,
            chunk.id,
            supervisor::join(&sums)
        );
        writeln!(out, "{line}").unwrap();
        out.flush().unwrap();
    }
    Ok(())
}

/// Workers that are this test binary running `test` again, as worker `kind`; each one's stderr
/// goes to `<dir>/worker-<n>.err`.
fn workers(
    test: &'static str,
    kind: &'static str,
    dir: &std::path::Path,
) -> impl Fn(Option<u32>) -> Command + use<> {
    let me = std::env::current_exe().unwrap();
    let dir = dir.to_path_buf();
    let started = std::cell::Cell::new(0);
    move |fault_at| {
        let mut command = Command::new(&me);
        command
            .args([
                "--exact",
                test,
                "--include-ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(WORKER_ENV, kind);
        if let Some(n) = fault_at {
            command.env(FAULT_ENV, n.to_string());
        }
        let n = started.get();
        started.set(n + 1);
        let err = std::fs::File::create(dir.join(format!("worker-{n}.err"))).unwrap();
        command.stderr(err);
        command
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("custack-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_fail_stopped_worker_is_replaced_and_loses_nothing() {
    worker_if_child();
    let dir = scratch("supervisor-cpu");
    let chunks = job(6, 100);
    let spawn = workers(
        "a_fail_stopped_worker_is_replaced_and_loses_nothing",
        "cpu",
        &dir,
    );
    let (results, started) = supervise(&chunks, &spawn, Some(2), Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(started, 2, "one worker faulted, one finished");
    assert_eq!(results.len(), 6);
    assert_eq!(wrong(&chunks, &results), 0);
    // The first worker fail-stopped: its error on stderr, with the status a supervisor acts on.
    let err = std::fs::read_to_string(dir.join("worker-0.err")).unwrap();
    assert!(
        err.contains(&format!("fail-stop (exit status {FAIL_STOP_STATUS})"))
            && err.contains("CUDA_ERROR_ILLEGAL_ADDRESS")
            && err.contains("a fault, on purpose"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_worker_that_fails_without_a_fault_is_not_replaced() {
    worker_if_child();
    let dir = scratch("supervisor-fail");
    let spawn = workers(
        "a_worker_that_fails_without_a_fault_is_not_replaced",
        "fail",
        &dir,
    );
    match supervise(&job(2, 10), &spawn, None, Duration::from_secs(60)) {
        Err(Gave::Up(status)) => assert_eq!(status.code(), Some(1)),
        other => panic!("{other:?}"),
    }
    assert!(
        !dir.join("worker-1.err").exists(),
        "a second worker was started"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_worker_past_its_deadline_is_killed() {
    worker_if_child();
    let dir = scratch("supervisor-hang");
    let spawn = workers("a_worker_past_its_deadline_is_killed", "hang", &dir);
    let started = Instant::now();
    let deadline = Duration::from_secs(2);
    match supervise(&job(2, 10), &spawn, None, deadline) {
        Err(Gave::Because(why)) => assert!(why.contains("killed"), "{why}"),
        other => panic!("{other:?}"),
    }
    // The worker never ends: only the kill at the deadline ends the wait, and not before it.
    // No upper bound, which a loaded machine could miss (a worker is this binary started
    // again).
    assert!(started.elapsed() >= deadline, "{:?}", started.elapsed());
    let _ = std::fs::remove_dir_all(dir);
}

/// The example's job on the GPU: the first worker faults at chunk 3 (a declared kernel that
/// writes through a bad address) and fail-stops with the error's origin; the second finishes.
#[test]
#[ignore = "needs a CUDA device"]
fn r20_a_supervisor_restarts_a_faulted_gpu_worker_and_finishes_the_job() {
    worker_if_child();
    let dir = scratch("supervisor-gpu");
    let chunks = job(8, 1 << 16);
    let spawn = workers(
        "r20_a_supervisor_restarts_a_faulted_gpu_worker_and_finishes_the_job",
        "gpu",
        &dir,
    );
    let outcome = supervise(&chunks, &spawn, Some(3), supervisor::WORKER_DEADLINE);
    let err0 = std::fs::read_to_string(dir.join("worker-0.err")).unwrap_or_default();
    let err1 = std::fs::read_to_string(dir.join("worker-1.err")).unwrap_or_default();
    println!("--- worker 0 stderr\n{err0}\n--- worker 1 stderr\n{err1}");
    let (results, started) = outcome.unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(started, 2, "one worker faulted, one finished");
    assert_eq!(wrong(&chunks, &results), 0, "results differ from the CPU's");
    // The faulted worker said what observed the fault, where, and the kernel, in the safe
    // state's one report line.
    let report: Vec<&str> = err0
        .lines()
        .filter(|l| l.starts_with("custack: "))
        .collect();
    assert_eq!(report.len(), 1, "one report line: {err0}");
    assert!(
        report[0].starts_with("custack: fail-stop (exit status 75): "),
        "{err0}"
    );
    for part in [
        "fail-stop (exit status 75)",
        "first observed by the end of a stream scope at ",
        "21_supervisor.rs:",
        "kernel `illegal_write`",
    ] {
        assert!(report[0].contains(part), "{part:?} not in {err0}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
