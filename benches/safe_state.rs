//! How long the safe state takes to end a process, measured: from a thread's entry into
//! `custack::fail_stop` to the process's end as its parent's `waitpid` sees it (contract row
//! R25; docs/reliability.md, "The safe state's bound"). No GPU, no driver call: `fail_stop`
//! makes none.
//!
//! Each run forks a child that sets up its case, writes the instant it enters the safe state
//! (`CLOCK_MONOTONIC`) into memory shared with the parent, and calls `fail_stop`; the parent
//! reads the clock when `waitpid` returns, and checks the status is 75. The cases:
//!
//! - `plain`: nothing in the way (stderr a pipe the parent reads after the child's end);
//! - `stdout-locked`: another thread holds stdout's lock for ever;
//! - `stdout-stalled`: stdout is a full pipe nobody reads, and another thread is blocked
//!   writing to it, holding stdout's lock;
//! - `stderr-stalled`: stderr is a full pipe nobody reads: the line cannot be written, the safe
//!   state waits for room (100 ms at most) and ends without it.
//!
//! `cargo bench -p custack-benches --bench safe_state` (1,000 runs of each case), or
//! `safe_state RUNS`. One line per case: `safe_state CASE runs=… min_us=… median_us=…
//! max_us=…`, microseconds from entry to the parent's `waitpid`.

#[cfg(unix)]
fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let runs: Option<usize> = std::env::args().skip(1).find_map(|a| a.parse().ok());
    let runs = match (bench, runs) {
        (_, Some(runs)) => runs,
        (true, None) => 1000,
        (false, None) => {
            println!("safe_state: a benchmark; run it with --bench (1,000 runs a case) or RUNS");
            return;
        }
    };
    for case in Case::ALL {
        let mut us: Vec<f64> = (0..runs).map(|_| unix::one(case)).collect();
        us.sort_by(f64::total_cmp);
        let median = us.get(us.len() / 2).copied().unwrap_or(0.0);
        println!(
            "safe_state {:<15} runs={runs} min_us={:.0} median_us={median:.0} max_us={:.0}",
            case.name(),
            us.first().copied().unwrap_or(0.0),
            us.last().copied().unwrap_or(0.0),
        );
    }
}

#[cfg(not(unix))]
fn main() {
    println!("safe_state: measured on Unix only (fork, pipes, waitpid)");
}

/// What stands in the safe state's way.
#[derive(Clone, Copy)]
#[cfg_attr(not(unix), allow(dead_code))]
enum Case {
    Plain,
    StdoutLocked,
    StdoutStalled,
    StderrStalled,
}

impl Case {
    #[cfg_attr(not(unix), allow(dead_code))]
    const ALL: [Self; 4] = [
        Self::Plain,
        Self::StdoutLocked,
        Self::StdoutStalled,
        Self::StderrStalled,
    ];

    #[cfg_attr(not(unix), allow(dead_code))]
    fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::StdoutLocked => "stdout-locked",
            Self::StdoutStalled => "stdout-stalled",
            Self::StderrStalled => "stderr-stalled",
        }
    }
}

#[cfg(unix)]
mod unix {
    use super::Case;
    use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use custack::{Error, ErrorKind};
    use std::io::Write as _;
    use std::sync::OnceLock;

    /// `CLOCK_MONOTONIC`, in nanoseconds (the same clock in parent and child).
    fn now_ns() -> u64 {
        // SAFETY: `timespec` is plain C data, valid all zeroes.
        let mut t: libc::timespec = unsafe { core::mem::zeroed() };
        // SAFETY: a valid out-pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &raw mut t) };
        u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
    }

    /// The instant of the child's entry, in memory the parent and its children share.
    fn entry() -> &'static AtomicU64 {
        static SHARED: OnceLock<usize> = OnceLock::new();
        let at = *SHARED.get_or_init(|| {
            // SAFETY: a new anonymous shared mapping, zero-filled: a valid `AtomicU64`.
            let p = unsafe {
                libc::mmap(
                    core::ptr::null_mut(),
                    size_of::<AtomicU64>(),
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            assert_ne!(p, libc::MAP_FAILED, "mmap");
            p as usize
        });
        // SAFETY: mapped above for the process's life, never unmapped; atomics only.
        unsafe { &*(at as *const AtomicU64) }
    }

    /// A pipe: (read end, write end).
    fn pipe() -> (i32, i32) {
        let mut fds = [0; 2];
        // SAFETY: a valid array of two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
        (fds[0], fds[1])
    }

    /// Fills the pipe whose write end is `fd` until it takes no more.
    fn fill(fd: i32) {
        // SAFETY: a descriptor of this process.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        // SAFETY: as above.
        unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) };
        let chunk = [b'.'; 4096];
        // SAFETY: writes from `chunk`, of its length.
        while unsafe { libc::write(fd, chunk.as_ptr().cast(), chunk.len()) } > 0 {}
        // SAFETY: as above.
        unsafe { libc::fcntl(fd, libc::F_SETFL, flags) };
    }

    fn close(fd: i32) {
        // SAFETY: a descriptor of this process, closed once.
        unsafe { libc::close(fd) };
    }

    /// Reads `fd` to its end (the child is gone) and closes it.
    fn drain(fd: i32) {
        let mut buf = [0u8; 4096];
        // SAFETY: reads into `buf`, of its length.
        while unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
        close(fd);
    }

    /// In the child: sets up `case`, notes the instant and enters the safe state.
    fn child(case: Case) -> ! {
        static READY: AtomicBool = AtomicBool::new(false);
        match case {
            Case::Plain | Case::StderrStalled => {}
            Case::StdoutLocked => {
                std::thread::spawn(|| {
                    let held = std::io::stdout().lock();
                    READY.store(true, Ordering::Release);
                    loop {
                        std::thread::park();
                        let _ = &held;
                    }
                });
            }
            Case::StdoutStalled => {
                std::thread::spawn(|| {
                    let mut out = std::io::stdout().lock();
                    READY.store(true, Ordering::Release);
                    let _ = out.write_all(&vec![b'x'; 1 << 20]);
                });
            }
        }
        if !matches!(case, Case::Plain | Case::StderrStalled) {
            while !READY.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
            // Time for the writer to block in `write` (not measured).
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let e = Error::new(ErrorKind::LaunchFailed, "the safe_state benchmark");
        entry().store(now_ns(), Ordering::Release);
        custack::fail_stop(&e)
    }

    /// One run of `case`: microseconds from the child's entry to `waitpid`'s return.
    pub(super) fn one(case: Case) -> f64 {
        let (err_r, err_w) = pipe();
        let stdout = matches!(case, Case::StdoutStalled).then(|| {
            let (r, w) = pipe();
            fill(w);
            (r, w)
        });
        if matches!(case, Case::StderrStalled) {
            fill(err_w);
        }
        entry().store(0, Ordering::Release);
        // SAFETY: the child only redirects descriptors, starts a thread and calls the safe
        // state, which ends it.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            // SAFETY: descriptors of this process.
            unsafe { libc::dup2(err_w, 2) };
            if let Some((_, w)) = stdout {
                // SAFETY: as above.
                unsafe { libc::dup2(w, 1) };
            }
            child(case);
        }
        close(err_w);
        let mut status = 0;
        // SAFETY: this process's own child; a valid out-pointer.
        let waited = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        let end = now_ns();
        assert_eq!(waited, pid, "waitpid");
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == custack::FAIL_STOP_STATUS,
            "{}: the child ended with {status:#x}, not the safe state",
            case.name()
        );
        if matches!(case, Case::StderrStalled) {
            close(err_r);
        } else {
            drain(err_r);
        }
        if let Some((r, w)) = stdout {
            close(w);
            close(r);
        }
        let entered = entry().load(Ordering::Acquire);
        assert_ne!(entered, 0, "the child never entered the safe state");
        #[allow(clippy::cast_precision_loss)] // nanoseconds far below 2^52
        let us = end.saturating_sub(entered) as f64 / 1000.0;
        us
    }
}
