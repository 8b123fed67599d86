//! The double's fault schedules that answer for ever, seen from a process: `NULLDRIVER_REPEAT_AT`
//! (the same error that is not sticky, from call k on), `NULLDRIVER_LOST_AT` (a lost device)
//! and what a sticky error leaves pending
//! (`NULLDRIVER_STICKY_AT`, or one call failed with a sticky code): the programs `queries` and
//! `sticky-frees` of `examples/runner_fixture.rs`, their output and report read.

use std::path::PathBuf;
use std::process::Command;

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

/// Runs the fixture's `mode` in checking mode with the schedule `env`; its exit status, its
/// report and its output.
fn run(mode: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let tag: String = env.iter().fold(String::new(), |mut tag, (k, v)| {
        use std::fmt::Write as _;
        let _ = write!(tag, "-{k}{v}");
        tag
    });
    let report =
        std::env::temp_dir().join(format!("faults-test-{}-{mode}{tag}", std::process::id()));
    let mut cmd = Command::new(fixture());
    cmd.arg(mode)
        .env("NULLDRIVER_CHECK", "1")
        .env("NULLDRIVER_REPORT", &report);
    for var in [
        "NULLDRIVER_FAIL_AT",
        "NULLDRIVER_STICKY_AT",
        "NULLDRIVER_REPEAT_AT",
        "NULLDRIVER_LOST_AT",
        "NULLDRIVER_FAIL_CODE",
        "NULLDRIVER_HANG_AT",
    ] {
        cmd.env_remove(var);
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

/// What `queries` printed its three queries and two synchronizes (calls 6 to 10) answered.
fn answers(env: &[(&str, &str)]) -> String {
    let (code, report, out) = run("queries", env);
    assert_eq!(code, Some(0), "{out}{report}");
    assert_eq!(line(&report, "violations"), Some("0"), "{report}");
    out.lines()
        .find_map(|l| l.strip_prefix("answers: "))
        .unwrap_or_else(|| panic!("no answers: {out}"))
        .to_owned()
}

/// From call k on, every call (but the context's stack and destruction, as after a sticky
/// fault) answers the same error that is not sticky, for ever: the entry point's typical code
/// (a query's `CUDA_ERROR_INVALID_VALUE`), `CUDA_ERROR_UNKNOWN` where that is sticky (a
/// synchronize's `CUDA_ERROR_LAUNCH_FAILED`), or `NULLDRIVER_FAIL_CODE`.
#[test]
fn the_repeat_schedule_answers_one_error_that_is_not_sticky_for_ever() {
    assert_eq!(answers(&[]), "0 0 0 0 0");
    assert_eq!(answers(&[("NULLDRIVER_REPEAT_AT", "6")]), "1 1 1 999 999");
    assert_eq!(answers(&[("NULLDRIVER_REPEAT_AT", "8")]), "0 0 1 999 999");
    assert_eq!(
        answers(&[
            ("NULLDRIVER_REPEAT_AT", "6"),
            ("NULLDRIVER_FAIL_CODE", "46")
        ]),
        "46 46 46 46 46"
    );
    // Not the sticky schedule, which answers its sticky error.
    assert_eq!(
        answers(&[("NULLDRIVER_STICKY_AT", "6")]),
        "700 700 700 700 700"
    );
    // And not one failed call: the rest succeed.
    assert_eq!(answers(&[("NULLDRIVER_FAIL_AT", "6")]), "1 0 0 0 0");
    let (_, report, _) = run("queries", &[("NULLDRIVER_REPEAT_AT", "6")]);
    assert_eq!(line(&report, "failed"), Some("cuStreamQuery"), "{report}");
}

/// `sticky-frees` frees the memory a memset uses after its stream's synchronize (call 6),
/// whatever the synchronize answered (the free is call 7). After a sticky answer the memset
/// may still run (a fault elsewhere does not stop it, R20): the free is a violation, whether
/// the double then answers it with the sticky error (sticky schedule) or not (one call failed
/// with a sticky code). A failed synchronize that is not sticky leaves the work pending too
/// (the double's rule before any of this); after a successful one nothing is pending.
#[test]
fn a_release_under_pending_work_in_a_poisoned_process_is_a_violation() {
    let violations = |env: &[(&str, &str)]| {
        let (_, report, out) = run("sticky-frees", env);
        let n: usize = line(&report, "violations")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no report: {out}"));
        (n, report)
    };
    assert_eq!(violations(&[]).0, 0, "a clean run");
    let (n, report) = violations(&[("NULLDRIVER_STICKY_AT", "6")]);
    assert_eq!(n, 1, "{report}");
    assert!(
        report.contains("cuMemFree_v2: DeviceMemory") && report.contains("poisoned process"),
        "{report}"
    );
    assert_eq!(
        violations(&[("NULLDRIVER_FAIL_AT", "6"), ("NULLDRIVER_FAIL_CODE", "700")]).0,
        1,
        "a sticky answer to one call, then a free the double honours"
    );
    assert_eq!(
        violations(&[("NULLDRIVER_FAIL_AT", "6")]).0,
        1,
        "the synchronize's typical code, CUDA_ERROR_LAUNCH_FAILED, is sticky"
    );
    assert_eq!(
        violations(&[("NULLDRIVER_FAIL_AT", "6"), ("NULLDRIVER_FAIL_CODE", "1")]).0,
        1,
        "a failed synchronize says nothing about the work"
    );
    // The synchronize succeeded: nothing pending, the free (answered with the sticky error,
    // or failed) releases nothing the device uses.
    assert_eq!(violations(&[("NULLDRIVER_STICKY_AT", "7")]).0, 0);
    // Not poisoned: a free answered with an error released nothing.
    assert_eq!(violations(&[("NULLDRIVER_REPEAT_AT", "6")]).0, 0);
    // A device lost at the synchronize: not poisoned either (its code is not sticky), but its
    // work never ends, so the free is a violation however it is answered.
    let (n, report) = violations(&[("NULLDRIVER_LOST_AT", "6")]);
    assert_eq!(n, 1, "{report}");
    assert!(report.contains("the device is lost"), "{report}");
    // Lost after the synchronize succeeded: nothing pending.
    assert_eq!(violations(&[("NULLDRIVER_LOST_AT", "7")]).0, 0);
}

/// A device lost at call k answers `CUDA_ERROR_DEVICE_UNAVAILABLE` to every call from k on,
/// queries and synchronizes alike, for ever (`queries`: calls 6 to 10).
#[test]
fn a_lost_device_answers_unavailable_to_every_call_from_k_on() {
    assert_eq!(answers(&[("NULLDRIVER_LOST_AT", "6")]), "46 46 46 46 46");
    assert_eq!(answers(&[("NULLDRIVER_LOST_AT", "8")]), "0 0 46 46 46");
    let (_, report, _) = run("queries", &[("NULLDRIVER_LOST_AT", "7")]);
    assert_eq!(line(&report, "failed"), Some("cuStreamQuery"), "{report}");
}
