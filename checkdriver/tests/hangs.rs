//! The double's hangs (`NULLDRIVER_HANG_AT=k`), seen from a process: the programs of
//! `examples/runner_fixture.rs` (`waits`, `deadline`, `deadline-frees`) run with the checking
//! driver linked in, and their exit status and report are read. A blocking wait on hung work
//! ends the process, so these run as children (the in-process behaviour is tested in
//! `src/tests/hang.rs`).

use std::path::PathBuf;
use std::process::Command;

/// The exit status of a process that blocked on hung work (`cuda::HUNG_EXIT`).
const HUNG_EXIT: i32 = 86;

fn fixture() -> PathBuf {
    // Examples are built by `cargo test`, into `<target>/<profile>/examples/`; this test runs
    // from `<target>/<profile>/deps/`.
    let exe = std::env::current_exe().expect("the test's own path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("<target>/<profile>");
    let path = profile.join("examples").join("runner_fixture");
    assert!(path.is_file(), "{} is not built", path.display());
    path
}

/// Runs the fixture's `mode` in checking mode, hanging at call `hang_at` (0: none); returns
/// its exit status, its report and its output.
fn run(mode: &str, hang_at: u64) -> (Option<i32>, String, String) {
    run_with(mode, hang_at, &[])
}

/// As `run`, with the extra environment `env`.
fn run_with(mode: &str, hang_at: u64, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let report = std::env::temp_dir().join(format!(
        "hangs-test-{}-{mode}-{hang_at}",
        std::process::id()
    ));
    let mut cmd = Command::new(fixture());
    cmd.arg(mode)
        .env("NULLDRIVER_CHECK", "1")
        .env("NULLDRIVER_REPORT", &report)
        .env_remove("NULLDRIVER_HANG_AT");
    if hang_at != 0 {
        cmd.env("NULLDRIVER_HANG_AT", hang_at.to_string());
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("the fixture runs");
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text, output)
}

/// The value of the report's line `key` (what follows the key).
fn line<'a>(report: &'a str, key: &str) -> Option<&'a str> {
    report.lines().find_map(|l| {
        let (k, v) = l.split_once(' ').unwrap_or((l, ""));
        (k == key).then_some(v)
    })
}

#[test]
fn a_clean_run_lists_its_enqueues() {
    let (code, report, out) = run("waits", 0);
    assert_eq!(code, Some(0), "{out}{report}");
    // cuInit, cuCtxCreate, cuStreamCreate, cuMemAlloc, then the two memsets: calls 5 and 6.
    assert_eq!(line(&report, "enqueues"), Some("5 6"), "{report}");
    assert_eq!(
        line(&report, "hang-at"),
        None,
        "no hang asked for: {report}"
    );
    assert_eq!(line(&report, "hung"), None, "{report}");
}

#[test]
fn a_blocking_synchronize_on_hung_work_ends_the_process_with_the_hung_exit() {
    for k in [1, 5] {
        // Call 1 is no enqueue: the first enqueue at or after it, call 5, hangs.
        let (code, report, out) = run("waits", k);
        assert_eq!(code, Some(HUNG_EXIT), "hang at {k}: {out}{report}");
        assert_eq!(
            line(&report, "hang-at"),
            Some("5 cuMemsetD8Async"),
            "{report}"
        );
        assert_eq!(
            line(&report, "hung"),
            Some("cuStreamSynchronize"),
            "{report}"
        );
        assert_eq!(line(&report, "violations"), Some("0"), "{report}");
    }
    let (code, report, _) = run("waits", 6);
    assert_eq!(code, Some(HUNG_EXIT), "{report}");
    assert_eq!(
        line(&report, "hang-at"),
        Some("6 cuMemsetD8Async"),
        "{report}"
    );
    // Past the last enqueue nothing hangs: the program runs as in the clean run.
    let (code, report, out) = run("waits", 7);
    assert_eq!(code, Some(0), "{out}{report}");
    assert_eq!(line(&report, "hang-at"), Some("-"), "{report}");
    assert_eq!(line(&report, "hung"), None, "{report}");
}

/// A stream destroyed with hung work (`cuStreamDestroy` returns at once; the driver releases
/// the stream once its work is done) still holds up its context's synchronize.
#[test]
fn a_context_synchronize_waits_for_a_destroyed_stream_s_hung_work() {
    let (code, report, out) = run("destroys-then-waits", 0);
    assert_eq!(code, Some(0), "{out}{report}");
    let (code, report, out) = run("destroys-then-waits", 5);
    assert_eq!(code, Some(HUNG_EXIT), "{out}{report}");
    assert_eq!(line(&report, "hung"), Some("cuCtxSynchronize"), "{report}");
    assert_eq!(line(&report, "violations"), Some("0"), "{report}");
}

#[test]
fn a_deadline_ends_the_wait_and_what_it_leaves_on_purpose_is_no_leak() {
    let (code, report, out) = run("deadline", 6);
    assert_eq!(code, Some(1), "{out}{report}");
    assert!(out.contains("did not finish within 20 ms"), "{out}");
    assert_eq!(line(&report, "hung"), None, "{report}");
    for (key, n) in [
        ("violations", "0"),
        ("leaks", "0"),
        ("orphans", "0"),
        ("left", "1"),
    ] {
        assert_eq!(line(&report, key), Some(n), "{key}: {report}");
    }
}

#[test]
fn memory_freed_under_hung_work_is_a_violation() {
    let (code, report, out) = run("deadline-frees", 5);
    assert_eq!(code, Some(1), "{out}{report}");
    assert_eq!(line(&report, "violations"), Some("1"), "{report}");
    assert!(
        report.contains("cuMemFree: DeviceMemory 0x7f0000000000 freed while hung work on stream"),
        "{report}"
    );
}

#[test]
fn polling_hung_work_past_the_idle_limit_is_a_wait_with_no_deadline() {
    let started = std::time::Instant::now();
    let (code, report, out) = run_with("polls", 5, &[("NULLDRIVER_HANG_IDLE_SECS", "1")]);
    assert_eq!(code, Some(HUNG_EXIT), "{out}{report}");
    // The last progress: the second memset (call 6); then only queries of hung work.
    let hung = line(&report, "hung").unwrap_or_default();
    assert!(
        hung.starts_with("idle: no progress for 1 s after call 6 "),
        "{report}"
    );
    // The idle limit ended it (the report's line above): not before the limit, however loaded
    // the machine is. No upper bound: how long the child takes to start is the host's.
    assert!(started.elapsed().as_secs() >= 1, "{:?}", started.elapsed());
    // A deadline (50 ms) shorter than the limit ends the wait first; a limit far above it, so
    // that a loaded machine cannot reach the limit before the deadline's check.
    let (code, report, out) = run_with("deadline", 5, &[("NULLDRIVER_HANG_IDLE_SECS", "30")]);
    assert_eq!(code, Some(1), "{out}{report}");
    assert_eq!(line(&report, "hung"), None, "{report}");
}
