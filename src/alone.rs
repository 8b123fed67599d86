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
    let out = std::process::Command::new(exe)
        .args([test, "--exact", "--test-threads=1", "--include-ignored"])
        .env(ALONE, test)
        .output();
    let Ok(out) = out else {
        return false;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !stdout.contains("running 1 test") {
        // The binary did not run again as a test binary: under a user-mode emulator (the
        // aarch64 leg's qemu-user) it cannot be started directly, and its runner is not known
        // here. The body runs in this process, as it did before this helper.
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

/// A test's forked child that ends in the safe state, and what its parent sees of it: pipes,
/// a pipe made full, the child's wait status within a liveness bound.
pub(crate) mod forked {
    use std::time::{Duration, Instant};

    /// How long a child may live before the test fails: a liveness bound, far above
    /// anything a loaded machine adds (the safe state's own bound is about a second).
    pub(crate) const ALIVE: Duration = Duration::from_secs(60);

    /// A pipe: (read end, write end).
    pub(crate) fn pipe() -> (i32, i32) {
        let mut fds = [0; 2];
        // SAFETY: `fds` is a valid array of two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        (fds[0], fds[1])
    }

    /// Fills the pipe whose write end is `fd` until it takes no more (its reader stalled).
    pub(crate) fn fill(fd: i32) {
        // SAFETY: `fcntl` on a descriptor of this process.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        // SAFETY: as above.
        let nonblocking = unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) };
        assert_eq!(nonblocking, 0);
        let chunk = [b'.'; 4096];
        // SAFETY: writes from `chunk`, of that length.
        while unsafe { libc::write(fd, chunk.as_ptr().cast(), chunk.len()) } > 0 {}
        // SAFETY: as above.
        assert_eq!(unsafe { libc::fcntl(fd, libc::F_SETFL, flags) }, 0);
    }

    /// Forks a child that runs `child`, which must end in the safe state (97 if it returns); its stderr goes to
    /// `stderr` and its stdout to `stdout` where given. Returns the child's pid.
    pub(crate) fn fork_into(stdout: Option<i32>, stderr: i32, child: impl FnOnce()) -> i32 {
        // SAFETY: the child only redirects descriptors, starts threads and calls the safe
        // state (it never returns into the test harness).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: descriptors of this process.
            unsafe {
                libc::dup2(stderr, 2);
            }
            if let Some(fd) = stdout {
                // SAFETY: as above.
                unsafe {
                    libc::dup2(fd, 1);
                }
            }
            child();
            // The safe state returned: a status the parent reports.
            // SAFETY: ends the child at once.
            unsafe { libc::_exit(97) }
        }
        pid
    }

    /// The child's wait status, once it ended: fails (after killing it) if it is still
    /// alive after [`ALIVE`].
    pub(crate) fn ended(pid: i32) -> i32 {
        let start = Instant::now();
        loop {
            let mut status = 0;
            // SAFETY: waits for this test's own child; `status` is a valid out-pointer.
            let got = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
            if got == pid {
                return status;
            }
            assert_eq!(got, 0, "waitpid failed");
            if start.elapsed() > ALIVE {
                // SAFETY: this test's own child, not reaped yet.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                // SAFETY: as above; `status` is a valid out-pointer.
                unsafe { libc::waitpid(pid, &raw mut status, 0) };
                panic!("the child was still alive after {ALIVE:?} (killed): it never ended");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Reads `fd` to its end and closes it.
    pub(crate) fn drain(fd: i32) -> String {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            // SAFETY: reads into `buf`, of that length.
            let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
            let Ok(n @ 1..) = usize::try_from(n) else {
                break;
            };
            out.extend_from_slice(&buf[..n]);
        }
        // SAFETY: closed once.
        unsafe { libc::close(fd) };
        String::from_utf8_lossy(&out).into_owned()
    }

    pub(crate) fn close(fd: i32) {
        // SAFETY: a descriptor of this process, closed once.
        unsafe { libc::close(fd) };
    }

    /// Runs `child` in a forked child whose stderr is a pipe read here (and whose stdout is
    /// `stdout`, where given); its wait status, once it ended, and what it wrote on stderr.
    pub(crate) fn run(stdout: Option<i32>, child: impl FnOnce()) -> (i32, String) {
        let (err_r, err_w) = pipe();
        let pid = fork_into(stdout, err_w, child);
        close(err_w);
        let status = ended(pid);
        (status, drain(err_r))
    }
}
