//! Unit tests that `fork` run alone, in a process of their own.
//!
//! `cargo test` runs unit tests on several threads, and libtest's main thread writes each
//! result to stdout under stdout's lock. A child forked by one test while another thread holds
//! such a lock (stdout's, stderr's, any mutex) has that lock held forever: its first
//! `stdout().lock()` (the safe state takes it) never returns, and the parent's `waitpid` waits
//! for ever. Whether that happens depends on timing, so such a test would hang now and then.
//! [`rerun_alone!`] runs the test's body instead in a new process of the same test binary,
//! filtered to that one test with one test thread, where no other thread can hold a lock when
//! the body forks.

#![cfg(all(unix, not(miri)))]

/// The variable that names the one test a rerun runs alone.
const ALONE: &str = "CUSTACK_TEST_ALONE";

/// `true` in the test's own process, after running it alone in another one (which passed),
/// `false` in that other process, which then runs the test's body. `test` is the test's path
/// as libtest names it (its module path without the crate, then its name).
pub(crate) fn run_alone(test: &str) -> bool {
    let test = test.strip_prefix("custack::").unwrap_or(test);
    if std::env::var(ALONE).is_ok_and(|v| v == test) {
        return false;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    // Under a user-mode emulator (the aarch64 leg's qemu-user, which sets
    // `CUSTACK_TEST_RUNNER` to its command line) the binary runs again through that emulator.
    let runner = std::env::var("CUSTACK_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    let mut command = match words.next() {
        Some(program) => {
            let mut command = std::process::Command::new(program);
            command.args(words).arg(exe);
            command
        }
        None => std::process::Command::new(exe),
    };
    let out = command
        .args([test, "--exact", "--test-threads=1", "--include-ignored"])
        .env(ALONE, test)
        .output();
    let Ok(out) = out else {
        return false;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !stdout.contains("running 1 test") {
        // The binary did not run again as a test binary: under a user-mode emulator whose
        // command line `CUSTACK_TEST_RUNNER` does not name, it cannot be started directly. The
        // body runs in this process, as it did before this helper (and may hang, as the module
        // says: name the emulator).
        return false;
    }
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test}, run alone, failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

/// Runs the calling test alone in a process of its own (see the module), then returns from it;
/// in that process, goes on with the test's body. `$name` is the test function's name.
macro_rules! rerun_alone {
    ($name:ident) => {
        if $crate::alone::run_alone(concat!(module_path!(), "::", stringify!($name))) {
            return;
        }
    };
}
pub(crate) use rerun_alone;
