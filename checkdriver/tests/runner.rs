//! `custack-check`'s own tests, on the programs of `examples/runner_fixture.rs`: as many fault
//! schedules as the clean run makes driver calls (twice: failed once, and sticky), its exit
//! status, and one report of each kind of problem (leak, double free, wrong context, context
//! left on a stack, panic, abort, a program that never loaded the checking driver, one that
//! crashed after it loaded it).

use std::path::PathBuf;
use std::process::{Command, Output};

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

fn check(args: &[&str]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_custack-check"))
        .args(args)
        .output()
        .expect("custack-check runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

fn check_fixture(mode: &str) -> (Option<i32>, String) {
    let f = fixture();
    let (out, text) = check(&["--jobs", "2", f.to_str().expect("a UTF-8 path"), mode]);
    (out.status.code(), text)
}

/// The number on the table's row `name`.
fn row(text: &str, name: &str) -> usize {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no row {name:?} in:\n{text}"));
    line[line.find(name).map_or(0, |i| i + name.len())..]
        .split_whitespace()
        .find_map(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number in {line:?}"))
}

/// The driver calls of one clean run of `mode`, from the driver's own report.
fn clean_calls(mode: &str) -> usize {
    let report = std::env::temp_dir().join(format!("runner-test-{}-{mode}", std::process::id()));
    let status = Command::new(fixture())
        .arg(mode)
        .env("NULLDRIVER_CHECK", "1")
        .env("NULLDRIVER_REPORT", &report)
        .status()
        .expect("the fixture runs");
    assert!(status.success());
    let text = std::fs::read_to_string(&report).expect("a report");
    let _ = std::fs::remove_file(&report);
    text.lines()
        .find_map(|l| l.strip_prefix("calls "))
        .and_then(|n| n.parse().ok())
        .expect("a call count")
}

#[test]
fn a_correct_program_passes_every_schedule() {
    let calls = clean_calls("good");
    assert_eq!(
        calls, 7,
        "cuInit, cuCtxCreate, 2 allocations, 2 frees, cuCtxDestroy"
    );
    let (code, text) = check_fixture("good");
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(row(&text, "driver calls in the clean run"), calls, "{text}");
    assert_eq!(row(&text, "schedules run"), 1 + 2 * calls, "{text}");
    // Every call's failure reaches the program (it returns every error), once and sticky,
    // except a sticky fault from the last call on: cuCtxDestroy still works after a fault.
    assert_eq!(
        row(&text, "failure reached the program as error"),
        13,
        "{text}"
    );
    assert_eq!(row(&text, "failure absorbed"), 1, "{text}");
    for r in [
        "panics",
        "aborts",
        "schedules with violations",
        "schedules with leaks",
    ] {
        assert_eq!(row(&text, r), 0, "{r}: {text}");
    }
    assert!(text.contains("custack-check: passed"), "{text}");
}

#[test]
fn a_leak_on_an_error_path_is_reported_with_the_call_number_and_function() {
    let (code, text) = check_fixture("leaky");
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(row(&text, "schedules with leaks"), 1, "{text}");
    // Call 4 is the second allocation.
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("fail-at 4 "))
        .unwrap_or_else(|| panic!("no failing schedule fail-at 4:\n{text}"));
    assert!(line.contains("cuMemAlloc_v2"), "{line}");
    // The context's destruction found the first allocation still alive, and names the call
    // that made it (call 3, the first allocation).
    assert!(
        text.contains("orphan: DeviceMemory 0x7f0000000000 from call 3 cuMemAlloc_v2 still alive"),
        "{text}"
    );
    assert!(
        text.contains("custack-check: FAILED (1 of 15 schedules failing)"),
        "{text}"
    );
}

#[test]
fn one_schedule_can_be_reproduced_by_hand() {
    let f = fixture();
    let (out, text) = check(&["--fail-at", "4", f.to_str().expect("UTF-8"), "leaky"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("failed cuMemAlloc_v2"), "{text}");
    assert!(text.contains("Error: cuMemAlloc failed with 2"), "{text}");
    let (out, text) = check(&["--fail-at", "4", f.to_str().expect("UTF-8"), "good"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
}

#[test]
fn a_double_free_is_reported() {
    let (code, text) = check_fixture("double-free");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("already destroyed or freed"), "{text}");
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("clean ")),
        "{text}"
    );
}

#[test]
fn a_handle_used_in_the_wrong_context_is_reported() {
    let (code, text) = check_fixture("wrong-context");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("used while"), "{text}");
}

#[test]
fn a_context_left_on_a_stack_is_reported() {
    let (code, text) = check_fixture("stack");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("ended with a context on their stack"),
        "{text}"
    );
}

#[test]
fn panics_and_aborts_are_reported() {
    let (code, text) = check_fixture("panics");
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(row(&text, "panics"), 13, "{text}");
    assert!(text.contains("PANIC"), "{text}");
    let (code, text) = check_fixture("aborts");
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(row(&text, "aborts"), 13, "{text}");
    assert!(text.contains("ABORT"), "{text}");
}

#[test]
fn a_program_without_the_checking_driver_cannot_be_checked() {
    let (out, text) = check(&["true"]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("did not load the checking driver"), "{text}");
    assert!(text.contains("CUDA_DRIVER_LIB_DIR="), "{text}");
}

#[test]
fn a_crash_under_the_checking_driver_is_not_taken_for_a_build_without_it() {
    // The program loaded the double (its mark at load), then died of SIGSEGV: a crash, not a
    // build that linked another libcuda.
    let (code, text) = check_fixture("segfaults");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(
            "the program crashed (signal 11, SIGSEGV) while it ran under the checking driver"
        ),
        "{text}"
    );
    assert!(!text.contains("did not load"), "{text}");
    assert!(!text.contains("CUDA_DRIVER_LIB_DIR"), "{text}");
    // A program that dies of a signal without ever loading it.
    let (out, text) = check(&["sh", "-c", "kill -SEGV $$"]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains(
            "the program crashed (signal 11, SIGSEGV) before it loaded the checking driver"
        ),
        "{text}"
    );
}

#[test]
fn the_lib_dir_holds_the_checking_libcuda_under_both_names() {
    let (out, text) = check(&["--lib-dir"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let dir = PathBuf::from(text.trim());
    assert!(dir.join("libcuda.so").is_file(), "{text}");
    assert!(dir.join("libcuda.so.1").is_file(), "{text}");
}

/// `tests/c/keeps_context.c`, built with the system C compiler (`CC`, or `cc`) against the
/// checking libcuda: a program that is not custack's and not Rust.
fn c_program() -> PathBuf {
    let (out, text) = check(&["--lib-dir"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let lib = PathBuf::from(text.trim());
    let exe = std::env::temp_dir().join(format!("keeps-context-{}", std::process::id()));
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let built = Command::new(&cc)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/c/keeps_context.c"
        ))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lcuda")
        .output()
        .unwrap_or_else(|e| panic!("the C compiler {} does not run: {e}", cc.display()));
    assert!(
        built.status.success(),
        "{} failed: {}",
        cc.display(),
        String::from_utf8_lossy(&built.stderr)
    );
    exe
}

#[test]
fn a_c_program_that_keeps_its_context_current_is_checked() {
    let exe = c_program();
    let exe = exe.to_str().expect("a UTF-8 path");
    // It leaves its context current on purpose: without the option every schedule says so...
    let (out, text) = check(&["--jobs", "2", exe, "good"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("ended with a context on their stack"),
        "{text}"
    );
    // ...with it, the correct program passes every schedule,
    let (out, text) = check(&["--jobs", "2", "--context-stays-current", exe, "good"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("custack-check: passed"), "{text}");
    // and its leaky twin's lost allocation is still found, with the call that made it.
    let (out, text) = check(&["--jobs", "2", "--context-stays-current", exe, "leaky"]);
    let _ = std::fs::remove_file(exe);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("fail-at "))
        .unwrap_or_else(|| panic!("no failing schedule:\n{text}"));
    assert!(line.contains("cuEventCreate"), "{line}");
    assert!(
        text.contains("leak: DeviceMemory 0x7f0000000000 from call 5 cuMemAlloc_v2"),
        "{text}"
    );
}

#[test]
fn hangs_hang_each_enqueue_and_a_wait_with_no_deadline_fails_only_when_strict() {
    let f = fixture();
    let f = f.to_str().expect("a UTF-8 path");
    // `waits` synchronizes with no deadline: both of its enqueues' hangs block it.
    let (out, text) = check(&["--jobs", "2", "--hangs", f, "waits"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(row(&text, "enqueues in the clean run"), 2, "{text}");
    assert_eq!(row(&text, "schedules run"), 3, "{text}");
    assert_eq!(
        row(&text, "blocked in a wait with no deadline"),
        2,
        "{text}"
    );
    assert_eq!(row(&text, "ended by a deadline or normally"), 0, "{text}");
    assert!(text.contains("custack-check: passed"), "{text}");
    // ...which a program whose every wait has a deadline must never do.
    let (out, text) = check(&["--jobs", "2", "--strict-hangs", f, "waits"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("hang-at 5") && text.contains("cuMemsetD8Async -> cuStreamSynchronize"),
        "{text}"
    );
    assert!(
        text.contains("custack-check: FAILED (2 of 3 schedules failing)"),
        "{text}"
    );
    // `deadline` ends each wait by its deadline and leaves the memory behind: it passes, strict.
    let (out, text) = check(&["--jobs", "2", "--strict-hangs", f, "deadline"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(row(&text, "ended by a deadline or normally"), 2, "{text}");
    assert_eq!(
        row(&text, "blocked in a wait with no deadline"),
        0,
        "{text}"
    );
    // `deadline-frees` frees memory the hung work still uses: a violation in each schedule.
    let (out, text) = check(&["--jobs", "2", "--hangs", f, "deadline-frees"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(row(&text, "schedules with violations"), 2, "{text}");
    assert!(text.contains("freed while hung work"), "{text}");
    // One schedule by hand: the report shows the enqueue that hung and the wait it blocked.
    let (out, text) = check(&["--hang-at", "6", f, "waits"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("hang-at 6 cuMemsetD8Async"), "{text}");
    assert!(text.contains("hung cuStreamSynchronize"), "{text}");
}
