//! The one safe state (R20): how a process ends when custack cannot show that the GPU is done
//! with memory it is about to hand back, and how a program ends itself after a GPU fault.
//!
//! Why a process must end rather than return, measured on an H100 (driver 580,
//! `scripts/fault-facts/`, docs/reliability.md "What a sticky fault does"): a sticky fault in
//! one context makes *every* context of the process answer the sticky error at the same
//! instant, while another context's kernels and copies keep running: a download into
//! page-locked memory landed 360 ms after its stream first answered the error. After the fault
//! no enqueue succeeds and host functions never run, so no marker enqueued then can say when
//! the work ends; the driver's own answers say nothing about it. A scope whose wait sees a
//! sticky error therefore cannot end its borrows: it ends the process here instead, and ending
//! the process is what ends the device's work on that memory. Owned pending work (submissions)
//! has a way out that a borrow lacks: it is leaked (R11), never handed back.
//!
//! Every path that ends a process for the GPU comes here: [`fail_stop`] (a program's own call
//! after a fault), a scope whose wait saw a sticky error or cannot be confirmed, and a bounded
//! scope past its deadline with [`Overrun::Exit`](crate::Overrun::Exit). Each prints one line
//! on stderr, starting `custack: fail-stop (exit status 75): `, with the error and its
//! [`Origin`](crate::Origin) on that line, and exits with [`FAIL_STOP_STATUS`].

use crate::error::failure::Error;
use crate::ffi;
use core::panic::Location;
use std::io::Write;

/// `Result` with custack's [`Error`].
type Result<T, E = Error> = core::result::Result<T, E>;

/// The exit status of the safe state: 75, `EX_TEMPFAIL` of `sysexits.h` ("a temporary failure,
/// the user is invited to retry"). A supervisor that sees it starts a new process for the work:
/// the GPU is usable again there. custack never ends a process for the GPU with another status.
pub const FAIL_STOP_STATUS: i32 = 75;

/// The start of the one line the safe state prints on stderr.
pub(crate) const REPORT_PREFIX: &str = "custack: fail-stop (exit status 75): ";

const _: () = assert!(FAIL_STOP_STATUS == 75, "REPORT_PREFIX names the status");

/// Ends the process after a GPU fault: the one safe state. Prints one line on stderr, starting
/// `custack: fail-stop (exit status 75): `, with `error` and its [`Origin`](crate::Origin), and
/// exits with [`FAIL_STOP_STATUS`], which a supervisor acts on by starting a new process.
///
/// Ending the process is what ends the device's work and frees its memory: after a sticky error
/// no call in this process can, and the driver releases the process's contexts when it exits.
/// Standard output is flushed first; then the process ends at once (`_exit`): no destructor and
/// no exit handler runs, nothing unwinds through CUDA state, and no memory the GPU may still
/// write is freed or reused before the process is gone. Write what your program must keep (its
/// results so far) before calling it.
///
/// custack takes the same state itself where it cannot return soundly: a stream scope whose
/// wait answers a sticky error (another context's fault does not stop this context's work, so
/// the scope's borrows cannot end), and a bounded scope past its deadline with
/// [`Overrun::Exit`](crate::Overrun::Exit).
///
/// Any error may be passed, sticky or not: the status says only "retry in a new process".
///
/// # Examples
///
/// ```no_run
/// # fn run_job() -> custack::Result<u32> { Ok(1) }
/// match run_job() {
///     Ok(result) => println!("{result}"),
///     Err(e) if e.is_sticky() => custack::fail_stop(&e), // exit status 75: relaunch me
///     Err(e) => {
///         eprintln!("{e}");
///         std::process::exit(1)
///     }
/// }
/// ```
#[cold]
#[inline(never)]
pub fn fail_stop(error: &Error) -> ! {
    // One line: the error's own text puts its origin and hint on lines of their own.
    let line = error.to_string().replace("\n  ", "; ");
    let _ = std::io::stdout().lock().flush();
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(
        stderr,
        "{REPORT_PREFIX}{line}; the GPU is unusable in this process, a new process can use it again"
    );
    let _ = stderr.flush();
    // Miri has no `_exit`; under it there is no device either, and `exit` ends the interpreted
    // program the same way for what is checked there (nothing freed after it).
    #[cfg(miri)]
    std::process::exit(FAIL_STOP_STATUS);
    // SAFETY: `_exit` ends the process at once; nothing runs after it, so no memory the GPU
    // may still write is ever freed or reused.
    #[cfg(not(miri))]
    unsafe {
        libc::_exit(FAIL_STOP_STATUS)
    }
}

impl ffi::CUresult {
    /// As [`result_by`](Self::result_by), for a call whose return hands memory back to safe
    /// code that the work it waited for may touch (a scope's end, a synchronous copy with host
    /// memory): a sticky answer is no evidence that the work is over (another context's fault
    /// does not stop it), so it takes the [safe state](fail_stop) instead of returning. Other
    /// errors are returned, recorded as `result_by` records them.
    #[inline]
    #[track_caller]
    pub(crate) fn result_releasing(self, observer: crate::error::Observer) -> Result<()> {
        let call_site = Location::caller();
        self.result_at(observer, call_site).map_err(unless_sticky)
    }
}

/// `error`, unless it is sticky: then the safe state (see [`ffi::CUresult::result_releasing`]).
#[inline]
pub(crate) fn unless_sticky(error: Error) -> Error {
    if error.is_sticky() {
        fail_stop(&error)
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::kind::ErrorKind;

    #[test]
    fn the_report_prefix_names_the_status() {
        assert!(REPORT_PREFIX.contains(&format!("exit status {FAIL_STOP_STATUS})")));
    }

    #[test]
    fn a_non_sticky_error_at_a_releasing_call_is_returned() {
        let e = ffi::CUresult::CUDA_ERROR_INVALID_VALUE
            .result_releasing(crate::error::Observer::ScopeEnd)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            ffi::CUresult::CUDA_SUCCESS
                .result_releasing(crate::error::Observer::ScopeEnd)
                .is_ok()
        );
        let plain = Error::from_kind(ErrorKind::NotReady);
        assert_eq!(unless_sticky(plain.clone()), plain);
    }

    /// The safe state ends a forked child with status 75 and one line on stderr.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn the_safe_state_exits_75_with_one_line() {
        crate::alone::rerun_alone!(the_safe_state_exits_75_with_one_line);
        let mut fds = [0; 2];
        // SAFETY: `fds` is a valid array of two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child only redirects stderr, formats and writes an error and `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: descriptors just made; the child's stderr becomes the pipe.
            unsafe { libc::dup2(fds[1], 2) };
            let e = Error::from_kind(ErrorKind::LaunchFailed).with_detail("in a test");
            fail_stop(&e);
        }
        // SAFETY: the parent's copy of the write end is closed once.
        unsafe { libc::close(fds[1]) };
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        let mut out = Vec::new();
        let mut buf = [0u8; 512];
        loop {
            // SAFETY: reads into `buf`, of that length, from the pipe's read end.
            let n = unsafe { libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len()) };
            let Ok(n @ 1..) = usize::try_from(n) else {
                break;
            };
            out.extend_from_slice(&buf[..n]);
        }
        // SAFETY: closed once.
        unsafe { libc::close(fds[0]) };
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        assert_eq!(libc::WEXITSTATUS(status), FAIL_STOP_STATUS);
        let text = String::from_utf8_lossy(&out);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with(REPORT_PREFIX), "{text}");
        assert!(text.contains("in a test"), "{text}");
    }
}
