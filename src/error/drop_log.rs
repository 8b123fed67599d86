//! Errors that a `Drop` could not return, kept per thread until [`take_drop_errors`] hands them
//! over.

use crate::error::failure::Error;
use std::cell::RefCell;
use std::collections::VecDeque;

/// How many drop errors a thread keeps before it discards the oldest.
const DROP_LOG_CAPACITY: usize = 64;

/// A thread's record of errors that `Drop` impls could not return.
struct DropLog {
    errors: VecDeque<Error>,
    discarded: u64,
}

thread_local! {
    static DROP_LOG: RefCell<DropLog> = const {
        RefCell::new(DropLog { errors: VecDeque::new(), discarded: 0 })
    };
}

/// Records an error that a `Drop` could not return, in this thread's log (see
/// [`take_drop_errors`]). When the log holds [`DROP_LOG_CAPACITY`] errors the oldest is
/// discarded and counted. Never panics: during thread teardown, after the log itself is gone,
/// the error is lost.
pub(crate) fn record_drop_error(e: Error) {
    // `try_with`/`try_borrow_mut`: a drop may run while thread-locals are being destroyed;
    // losing the error is better than a panic inside `Drop`.
    let _ = DROP_LOG.try_with(|log| {
        if let Ok(mut log) = log.try_borrow_mut() {
            if log.errors.len() >= DROP_LOG_CAPACITY {
                log.errors.pop_front();
                log.discarded = log.discarded.saturating_add(1);
            }
            log.errors.push_back(e);
        }
    });
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
            log.try_borrow_mut()
                .map(|mut log| Vec::from(core::mem::take(&mut log.errors)))
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// How many drop errors this thread's log has discarded, since the thread started, because
/// 64 newer ones were waiting to be taken (see [`take_drop_errors`]). It only grows.
pub fn dropped_error_count() -> u64 {
    DROP_LOG
        .try_with(|log| log.try_borrow().map_or(0, |log| log.discarded))
        .unwrap_or(0)
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
