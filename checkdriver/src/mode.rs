//! What every part of the checking mode shares, at the bottom of its modules: whether the mode
//! is on (`CHECK`), the number the report gives the calling thread, and the violations recorded
//! so far. `check.rs`, `data.rs`, `standin.rs` and `work.rs` use it; it uses none of them.

use core::cell::Cell;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Whether the checking mode is on (`NULLDRIVER_CHECK=1` at load, or `check::start`).
pub(crate) static CHECK: AtomicBool = AtomicBool::new(false);

static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static THREAD: Cell<u64> = const { Cell::new(0) };
}

/// The calling thread's number: 1 for the first thread that asks, and so on.
pub(crate) fn thread_id() -> u64 {
    THREAD.with(|t| {
        if t.get() == 0 {
            t.set(NEXT_THREAD.fetch_add(1, Relaxed));
        }
        t.get()
    })
}

/// Every violation so far, in the order recorded, each as `thread N: text`.
static VIOLATIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The violations recorded so far, locked.
pub(crate) fn violations() -> MutexGuard<'static, Vec<String>> {
    VIOLATIONS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records the violation `text` of the calling thread (in checking mode; nothing otherwise).
pub(crate) fn violation(text: &str) {
    if CHECK.load(Relaxed) {
        let line = format!("thread {}: {text}", thread_id());
        violations().push(line);
    }
}

/// Records the violation `what: text` (in checking mode): a fault in the device's data (an
/// access past the end of an allocation) or a stand-in's report.
pub(crate) fn data_violation(what: &str, text: &str) {
    violation(&format!("{what}: {text}"));
}

/// The number of violations so far (0 outside checking mode).
pub(crate) fn violation_count() -> usize {
    if CHECK.load(Relaxed) {
        violations().len()
    } else {
        0
    }
}
