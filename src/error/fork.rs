//! Whether this process is a child forked after `Profile::init` (R22): one flag, set in the
//! child by a `pthread_atfork` handler before any of its code runs. A leaf of `error/`: the
//! poison's check refuses on it, and an error's `Display` asks it before reaching the driver
//! for its strings.

use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Set in the child of a `fork` once [`watch`] ran: the parent's CUDA state (contexts, memory,
/// pending work) is not the child's.
static FORKED: AtomicBool = AtomicBool::new(false);

/// Whether this process is a child forked after the watch began: it makes no driver call, not
/// even a pop (`poison::not_forked`). A pop frees nothing, so a poisoned process still pops (the
/// checking driver demands that every thread's stack end as it began); only a forked child does
/// not.
#[inline]
pub(crate) fn forked() -> bool {
    // A relaxed load: the flag is set in a forked child before any of its code runs.
    FORKED.load(Ordering::Relaxed)
}

/// Registers, once per process, the handler that sets the flag in the child of every later
/// `fork` (`pthread_atfork`); its status (0 on success). Under Miri, and on Windows, which have
/// no `fork`, nothing is registered and the status is 0.
pub(crate) fn watch() -> i32 {
    static WATCHING: OnceLock<i32> = OnceLock::new();
    #[cfg(all(unix, not(miri)))]
    let status = *WATCHING.get_or_init(|| {
        // SAFETY: `in_forked_child` is an `extern "C"` function that only stores to an atomic,
        // which is async-signal-safe, as a handler that runs in the child of `fork` must be.
        unsafe { libc::pthread_atfork(None, None, Some(in_forked_child)) }
    });
    #[cfg(not(all(unix, not(miri))))]
    let status = *WATCHING.get_or_init(|| 0);
    status
}

#[cfg(all(unix, not(miri)))]
extern "C" fn in_forked_child() {
    FORKED.store(true, Ordering::Relaxed);
}
