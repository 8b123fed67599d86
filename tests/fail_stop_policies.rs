//! The fail-stop policy of the redundancy checks, without a GPU: a difference found under
//! `OnMismatch::FailStop` ends the process in the safe state (status 75, one line naming the
//! fault), never returns. Each case runs in a child process: this test binary run again.

use custack::safety::{KnownAnswer, OnMismatch, Replicas};
use std::num::NonZeroU64;
use std::process::Command;

custack::kernel_contract! {
    /// `frame_kernel(unsigned* out, unsigned n, unsigned frame)`.
    unsafe kernel FrameKernel = "frame_kernel"(out: &mut [u32; n], n: u32, frame: u32);
}

/// Set in the child: which check to fail.
const CHILD: &str = "CUSTACK_FAIL_STOP_POLICY";

/// Runs `test` of this binary again with `CHILD=case`; its exit status and stderr.
fn child(test: &str, case: &str) -> (Option<i32>, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, case)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn differing_replicas_under_fail_stop_end_the_process_in_the_safe_state() {
    if std::env::var_os(CHILD).is_some() {
        let r = Replicas::of::<FrameKernel>(OnMismatch::FailStop);
        let _ = r.compare(3, "out", &[1u32, 2, 3], &[1, 9, 3]);
        // The comparison returned: the policy was not applied.
        std::process::exit(0);
    }
    let (status, stderr) = child(
        "differing_replicas_under_fail_stop_end_the_process_in_the_safe_state",
        "replicas",
    );
    assert_eq!(status, Some(custack::FAIL_STOP_STATUS), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("custack: fail-stop"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("frame_kernel") && lines[0].contains("frame 3"),
        "{stderr}"
    );
}

#[test]
fn a_wrong_known_answer_under_fail_stop_ends_the_process_in_the_safe_state() {
    if std::env::var_os(CHILD).is_some() {
        let every = NonZeroU64::MIN;
        let test = KnownAnswer::of::<FrameKernel>(every, OnMismatch::FailStop);
        let _ = test.check(0, &[1u32, 2], &[1, 3]);
        std::process::exit(0);
    }
    let (status, stderr) = child(
        "a_wrong_known_answer_under_fail_stop_ends_the_process_in_the_safe_state",
        "known-answer",
    );
    assert_eq!(status, Some(custack::FAIL_STOP_STATUS), "{stderr}");
    assert!(
        stderr.contains("custack: fail-stop") && stderr.contains("known-answer self-test"),
        "{stderr}"
    );
}
