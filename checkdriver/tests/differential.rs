//! The double's part in the differential run (`docs/validation.md`, `src/trace.rs`): its version
//! ceiling, `custackCheckdriverFailNext`, and the trace of driver calls. One test, in order: the
//! first part sets an environment variable, which no other thread of this process may read at
//! the same time.

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "raw call sequences, C programs in Rust syntax: each block is one sequence of the \
              double's entry points under the contract its SAFETY comment states"
)]

use core::ffi::c_void;
use core::ptr::null_mut;
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

/// Runs the fixture's `good` program in checking mode with its trace, and `env`; returns the
/// trace's lines split at tabs, and the report.
fn traced(env: &[(&str, &str)]) -> (Vec<Vec<String>>, String) {
    let dir = std::env::temp_dir();
    let tag = format!("{}-{}", std::process::id(), env.len());
    let (trace, report) = (
        dir.join(format!("differential-trace-{tag}")),
        dir.join(format!("differential-report-{tag}")),
    );
    let _ = std::fs::remove_file(&trace);
    let mut fixture = Command::new(fixture());
    // Only the schedule asked for here: a `NULLDRIVER_*` setting this test inherits (the test
    // command runs the double's tests again under `NULLDRIVER_FAIL_CODE=1`) would change what
    // the fixture's calls answer.
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("NULLDRIVER_") {
            fixture.env_remove(key);
        }
    }
    let out = fixture
        .arg("good")
        .env("NULLDRIVER_CHECK", "1")
        .env("NULLDRIVER_TRACE", &trace)
        .env("NULLDRIVER_REPORT", &report)
        .envs(env.iter().copied())
        .output()
        .expect("the fixture runs");
    assert!(
        out.status.code().is_some(),
        "the fixture ended by a signal: {out:?}"
    );
    let lines = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect();
    let report_text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = (std::fs::remove_file(&trace), std::fs::remove_file(&report));
    (lines, report_text)
}

#[test]
fn version_ceiling_fail_next_and_the_trace() {
    // The version ceiling (read at the first request): 13.2 asked, 13.0 reported.
    // SAFETY: no other thread of this test process runs yet (one test, before any child).
    unsafe { std::env::set_var("NULLDRIVER_DRIVER_VERSION_MAX", "13000") };
    assert_eq!(cuda::custackCheckdriverSetDriverVersion(13020), 0);
    let mut v = 0;
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { cuda::cuDriverGetVersion(&raw mut v) }, 0);
    assert_eq!(v, 13000, "the ceiling holds");

    // `custackCheckdriverFailNext`: the next call fails with the code, once; sticky, every
    // call from it on but the context stack's and the destroy.
    cuda::start_checking(0, 0);
    // SAFETY: the double's entry points, with valid out-pointers and its own handles.
    unsafe {
        let mut ctx: *mut c_void = null_mut();
        assert_eq!(cuda::cuCtxCreate_v2(&raw mut ctx, 0, 0), 0);
        let mut p = 0u64;
        assert_eq!(cuda::custackCheckdriverFailNext(2, 0), 0);
        assert_eq!(
            cuda::cuMemAlloc_v2(&raw mut p, 64),
            2,
            "the next call fails"
        );
        assert_eq!(cuda::cuMemAlloc_v2(&raw mut p, 64), 0, "once");
        assert_eq!(cuda::cuMemFree_v2(p), 0);
        assert_eq!(
            cuda::custackCheckdriverFailNext(0, 0),
            1,
            "no code: refused"
        );
        assert_eq!(cuda::custackCheckdriverFailNext(719, 1), 0);
        assert_eq!(cuda::cuCtxSynchronize(), 719, "sticky from the next call");
        assert_eq!(cuda::cuMemAlloc_v2(&raw mut p, 64), 719, "and after it");
        let mut popped: *mut c_void = null_mut();
        assert_eq!(
            cuda::cuCtxPopCurrent_v2(&raw mut popped),
            0,
            "the stack is spared"
        );
        assert_eq!(cuda::cuCtxPushCurrent_v2(ctx), 0);
        assert_eq!(cuda::cuCtxDestroy_v2(ctx), 0, "the destroy is spared");
    }

    // The trace: one line per call, numbered from 1, thread 0, each call's result.
    let (clean, report) = traced(&[]);
    let calls: usize = report
        .lines()
        .find_map(|l| l.strip_prefix("calls "))
        .and_then(|n| n.parse().ok())
        .expect("the report's calls");
    assert!(calls >= 4, "the fixture's calls: {report}");
    assert_eq!(clean.len(), calls, "one line per counted call: {clean:?}");
    for (n, line) in clean.iter().enumerate() {
        assert_eq!(line.len(), 4, "SEQ THREAD NAME RESULT: {line:?}");
        assert_eq!(line[0], (n + 1).to_string());
        assert_eq!(line[1], "0");
        assert_eq!(line[3], "0", "a clean run: {line:?}");
    }
    let names: Vec<&str> = clean.iter().map(|l| l[2].as_str()).collect();
    let alloc = names
        .iter()
        .position(|n| *n == "cuMemAlloc_v2")
        .expect("the fixture allocates");
    assert!(names[..alloc].contains(&"cuCtxCreate_v2"), "{names:?}");
    // A failure injected at the allocation (its early return) is traced with its code (the
    // fixture makes no uncounted call: its trace's numbers are the double's call numbers).
    let k = (alloc + 1).to_string();
    let (failed, _) = traced(&[("NULLDRIVER_FAIL_AT", k.as_str())]);
    assert_eq!(failed[alloc][2], "cuMemAlloc_v2");
    assert_eq!(
        failed[alloc][3], "2",
        "the injected out-of-memory: {failed:?}"
    );
}
