//! Errors that a `Drop` could not return, kept per thread until [`take_drop_errors`] hands them
//! over; those of a thread no program thread can ask (the driver's, running a host function or
//! a host node's closure's drop) or that ended with its log untaken, kept for the process until
//! [`take_orphaned_drop_errors`] hands them over.

use crate::error::failure::Error;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// How many drop errors a thread, or the orphaned log, keeps before it discards the oldest.
const DROP_LOG_CAPACITY: usize = 64;

/// A record of errors that `Drop` impls could not return.
struct DropLog {
    errors: VecDeque<Error>,
    discarded: u64,
}

impl DropLog {
    const fn new() -> Self {
        Self {
            errors: VecDeque::new(),
            discarded: 0,
        }
    }

    /// Keeps `e`, discarding (and counting) the oldest past the capacity.
    fn push(&mut self, e: Error) {
        if self.errors.len() >= DROP_LOG_CAPACITY {
            self.errors.pop_front();
            self.discarded = self.discarded.saturating_add(1);
        }
        self.errors.push_back(e);
    }
}

/// A thread's log, which hands what is still in it to the orphaned log when the thread ends.
struct ThreadLog(RefCell<DropLog>);

impl Drop for ThreadLog {
    fn drop(&mut self) {
        let log = self.0.get_mut();
        if log.errors.is_empty() {
            return;
        }
        let errors = core::mem::take(&mut log.errors);
        with_orphaned(|orphaned| {
            for e in errors {
                orphaned.push(e);
            }
        });
    }
}

thread_local! {
    static DROP_LOG: ThreadLog = const { ThreadLog(RefCell::new(DropLog::new())) };
}

/// Errors recorded inside driver callbacks, and those left in a thread's log when it ended.
static ORPHANED: Mutex<DropLog> = Mutex::new(DropLog::new());

/// Records an error that a `Drop` could not return, in this thread's log (see
/// [`take_drop_errors`]), or, inside code the driver called (a host function, a host node's
/// closure's drop: a thread no program thread can ask), in the orphaned log (see
/// [`take_orphaned_drop_errors`]). When a log holds [`DROP_LOG_CAPACITY`] errors the oldest is
/// discarded and counted. Never panics: during thread teardown, after the log itself is gone,
/// the error goes to the orphaned log.
pub(crate) fn record_drop_error(e: Error) {
    if crate::error::callback::inside() {
        return orphan(e);
    }
    // `try_with`/`try_borrow_mut`: a drop may run while thread-locals are being destroyed.
    let mut e = Some(e);
    let _ = DROP_LOG.try_with(|log| {
        if let Ok(mut log) = log.0.try_borrow_mut() {
            if let Some(e) = e.take() {
                log.push(e);
            }
        }
    });
    if let Some(e) = e {
        orphan(e);
    }
}

#[cfg(test)]
thread_local! {
    /// The kinds of the errors this thread put in the orphaned log: what a unit test checks of
    /// its own thread's records without taking the process's log, which other tests share.
    static ORPHANED_HERE: RefCell<Vec<crate::error::ErrorKind>> = const { RefCell::new(Vec::new()) };
}

/// The kinds of the errors this thread put in the orphaned log since the last call.
#[cfg(test)]
pub(crate) fn orphaned_here() -> Vec<crate::error::ErrorKind> {
    ORPHANED_HERE
        .try_with(|h| core::mem::take(&mut *h.borrow_mut()))
        .unwrap_or_default()
}

/// Keeps `e` in the orphaned log.
fn orphan(e: Error) {
    #[cfg(test)]
    let _ = ORPHANED_HERE.try_with(|h| h.borrow_mut().push(e.kind()));
    with_orphaned(|log| log.push(e));
}

/// Runs `f` on the orphaned log, under its lock. In a child forked after the watch began
/// (R22), where a parent's thread may have held the lock at the `fork` and no thread will
/// release it, only if the lock is free: the record is lost rather than the child hung.
fn with_orphaned<R>(f: impl FnOnce(&mut DropLog) -> R) -> Option<R> {
    if crate::error::fork::forked() {
        return match ORPHANED.try_lock() {
            Ok(mut log) => Some(f(&mut log)),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(f(&mut p.into_inner())),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
    }
    Some(f(&mut ORPHANED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)))
}

/// Takes the errors that drops on this thread recorded since the last call, oldest first.
///
/// `Drop` impls in custack never panic: when releasing a handle fails (after a sticky error,
/// every destroy call fails), the error is recorded here, in a log that belongs to the thread
/// the drop ran on. The log keeps the latest 64 errors; [`dropped_error_count`] says how many
/// older ones were discarded. To receive such an error directly instead, call the explicit,
/// fallible method that the handle offers (`destroy`, `pop`, `free`, …) rather than letting it
/// drop.
///
/// # Examples
///
/// ```no_run
/// # use custack::{Context, ContextFlags, Driver, Stack};
/// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// # let mut stack = Stack::new()?;
/// # let guard = stack.push(&ctx)?;
/// {
///     let buf = guard.alloc::<u8>(16)?;
///     drop(buf); // cuMemFree; a failure would be recorded, not panicked on
/// }
/// for e in custack::take_drop_errors() {
///     eprintln!("a drop failed: {e}");
/// }
/// # Ok::<(), custack::Error>(())
/// ```
pub fn take_drop_errors() -> Vec<Error> {
    DROP_LOG
        .try_with(|log| {
            log.0
                .try_borrow_mut()
                .map(|mut log| Vec::from(core::mem::take(&mut log.errors)))
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// How many drop errors this thread's log has discarded, since the thread started, because
/// 64 newer ones were waiting to be taken (see [`take_drop_errors`]). It only grows.
pub fn dropped_error_count() -> u64 {
    DROP_LOG
        .try_with(|log| log.0.try_borrow().map_or(0, |log| log.discarded))
        .unwrap_or(0)
}

/// Takes the drop errors no thread's [`take_drop_errors`] can reach, oldest first: those
/// recorded inside code the driver called (a host function, a stream callback, the drop of a
/// graph host node's closure, which run on the driver's threads and where custack refuses every
/// CUDA call, so a value dropped there is left behind and its refusal recorded here), and those
/// still in a thread's log when the thread ended.
///
/// The log is the process's: it keeps the latest 64; [`orphaned_dropped_error_count`] says how
/// many older ones were discarded.
///
/// # Examples
///
/// ```no_run
/// # use custack::{Context, ContextFlags, Driver, Stack};
/// # let device = Driver::init()?.device(0)?;
/// # let ctx = Context::new(device, ContextFlags::empty())?;
/// # let mut stack = Stack::new()?;
/// # let guard = stack.push(&ctx)?;
/// let extra = Context::new(device, ContextFlags::empty())?;
/// // Dropped inside a host function: no CUDA call is allowed there, so the context is left
/// // behind (never destroyed) and the refusal recorded for the process.
/// guard.stream()?.scope(|s| s.host_fn(move || drop(extra)))??;
/// for e in custack::take_orphaned_drop_errors() {
///     eprintln!("a drop on another thread failed: {e}");
/// }
/// # Ok::<(), custack::Error>(())
/// ```
pub fn take_orphaned_drop_errors() -> Vec<Error> {
    with_orphaned(|log| Vec::from(core::mem::take(&mut log.errors))).unwrap_or_default()
}

/// How many errors the orphaned log (see [`take_orphaned_drop_errors`]) has discarded, since
/// the process started, because 64 newer ones were waiting to be taken. It only grows.
pub fn orphaned_dropped_error_count() -> u64 {
    with_orphaned(|log| log.discarded).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::kind::ErrorKind;

    #[test]
    fn drop_log_keeps_the_latest_64_and_counts_the_rest() {
        // Each test runs on its own thread unless the harness is told otherwise; a fresh
        // thread makes the thread-local log certainly empty.
        std::thread::spawn(|| {
            assert!(take_drop_errors().is_empty());
            assert_eq!(dropped_error_count(), 0);
            for i in 0..70 {
                record_drop_error(Error::custack(ErrorKind::SizeOverflow, i.to_string()));
            }
            let errors = take_drop_errors();
            assert_eq!(errors.len(), 64);
            assert_eq!(errors[0].detail(), Some("6"));
            assert_eq!(errors[63].detail(), Some("69"));
            assert_eq!(dropped_error_count(), 6);
            assert!(take_drop_errors().is_empty());
            assert_eq!(dropped_error_count(), 6);
        })
        .join()
        .unwrap();
    }

    /// An error recorded inside a driver callback, and one left in the log of a thread that
    /// ended, reach the orphaned log (other tests' may be there too: each is found by its
    /// detail).
    #[test]
    fn errors_no_thread_can_take_are_orphaned_not_lost() {
        let detail = |e: &Error| e.detail().map(str::to_owned);
        std::thread::spawn(|| {
            crate::error::callback::run(|| {
                record_drop_error(Error::custack(ErrorKind::SizeOverflow, "in a callback"));
            });
            assert!(take_drop_errors().is_empty(), "not in the thread's own log");
            assert_eq!(
                orphaned_here(),
                [ErrorKind::SizeOverflow],
                "orphaned from here"
            );
            record_drop_error(Error::custack(
                ErrorKind::SizeOverflow,
                "at the thread's end",
            ));
        })
        .join()
        .unwrap();
        let orphaned: Vec<_> = take_orphaned_drop_errors()
            .iter()
            .filter_map(detail)
            .collect();
        for expected in ["in a callback", "at the thread's end"] {
            assert!(
                orphaned.iter().any(|d| d == expected),
                "{expected:?} in {orphaned:?}"
            );
        }
    }

    /// A child forked while a parent's thread held the orphaned log's lock (which no thread of
    /// the child will release) records, takes and ends without waiting for it: the record is
    /// lost, not the child hung. Run alone: it forks.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_forked_child_never_waits_for_the_orphaned_log_s_lock() {
        crate::alone::rerun_alone!(a_forked_child_never_waits_for_the_orphaned_log_s_lock);
        assert_eq!(crate::error::fork::watch(), 0);
        let held = ORPHANED.lock().unwrap_or_else(PoisonError::into_inner);
        let e = Error::custack(ErrorKind::SizeOverflow, "in the child");
        // SAFETY: the child records and takes (no allocation that could need a lock held at the
        // fork but the error's, made before), then `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            crate::error::callback::run(|| record_drop_error(e));
            let taken =
                !take_orphaned_drop_errors().is_empty() || orphaned_dropped_error_count() != 0;
            // SAFETY: ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(i32::from(taken)) };
        }
        drop(held);
        let mut status = 0;
        // Not a timing assertion: a child that waited for the lock would never end; after a
        // minute it is killed and the test fails, instead of hanging the suite.
        let mut waited = 0;
        loop {
            // SAFETY: polls the child just forked; `status` is a valid out-pointer.
            let r = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
            if r == pid {
                break;
            }
            assert_eq!(r, 0, "waitpid failed");
            waited += 1;
            if waited > 6000 {
                // SAFETY: the child of this test, still running.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                panic!("the forked child waited for the orphaned log's lock");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        assert_eq!(libc::WEXITSTATUS(status), 0, "the child took a record");
    }

    #[test]
    fn drop_log_is_per_thread() {
        std::thread::spawn(|| {
            record_drop_error(Error::custack(ErrorKind::SizeOverflow, "here"));
            let other = std::thread::spawn(take_drop_errors).join().unwrap();
            assert!(other.is_empty());
            assert_eq!(take_drop_errors().len(), 1);
        })
        .join()
        .unwrap();
    }
}
