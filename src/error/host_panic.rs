//! The panics of host functions not yet reported, each with the context its function was
//! enqueued in: kept here, below the contexts and the streams, so that the waits that report a
//! panic (`asynchronous::host`) and the end of a context's handle (`context`: a destroy, a
//! release, a reset, a green context's destroy) reach the same record. A context's handle that
//! ends takes its records with it ([`take_all_of`]): a context made later at the same address
//! never sees them.

use super::{Error, ErrorKind};
use core::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Panics of host functions not yet reported: `(context, message)`.
static PANICS: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
/// `PANICS.len()`, readable without the lock.
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// Keeps the message of a panic of a host function enqueued in context `ctx`.
pub(crate) fn record(ctx: usize, message: String) {
    let mut panics = PANICS.lock().unwrap_or_else(PoisonError::into_inner);
    panics.push((ctx, message));
    PENDING.store(panics.len(), Ordering::Release);
}

/// Whether any panic is kept, of any context: one relaxed load, `false` in the usual case.
#[inline]
pub(crate) fn any() -> bool {
    PENDING.load(Ordering::Relaxed) != 0
}

/// Removes and returns the first kept panic of context `ctx`.
pub(crate) fn take(ctx: usize) -> Option<String> {
    let mut panics = PANICS.lock().unwrap_or_else(PoisonError::into_inner);
    let at = panics.iter().position(|(c, _)| *c == ctx)?;
    let (_, message) = panics.remove(at);
    PENDING.store(panics.len(), Ordering::Release);
    Some(message)
}

/// Removes every kept panic of context `ctx`, whose handle has ended, as one error
/// ([`ErrorKind::HostFunctionPanicked`]) naming them, or `Ok` where none was kept: the caller
/// returns it (an explicit destroy, release or reset) or records it in the drop log (a drop),
/// so that no panic a wait would have reported is lost silently.
pub(crate) fn take_all_of(ctx: usize) -> Result<(), Error> {
    if !any() {
        return Ok(());
    }
    let mut panics = PANICS.lock().unwrap_or_else(PoisonError::into_inner);
    let mut messages = Vec::new();
    panics.retain(|(c, m)| {
        if *c == ctx {
            messages.push(m.clone());
        }
        *c != ctx
    });
    PENDING.store(panics.len(), Ordering::Release);
    drop(panics);
    if messages.is_empty() {
        return Ok(());
    }
    Err(Error::custack(
        ErrorKind::HostFunctionPanicked,
        format!(
            "{} host function(s) of the context panicked and no wait of it reported them before \
             its handle ended (the context was destroyed, released or reset all the same): {}",
            messages.len(),
            messages.join("; ")
        ),
    ))
}

/// Removes the kept panics of context `ctx`, returning how many there were (tests only).
#[cfg(test)]
pub(crate) fn take_panics_of(ctx: usize) -> usize {
    let mut panics = PANICS.lock().unwrap_or_else(PoisonError::into_inner);
    let before = panics.len();
    panics.retain(|(c, _)| *c != ctx);
    PENDING.store(panics.len(), Ordering::Release);
    before - panics.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context's handle that ends takes its panics, every one, and only its own: another
    /// context's stays for that context's wait, and the next handle at the same address starts
    /// with none.
    #[test]
    fn an_ended_context_takes_its_panics_and_only_its_own() {
        // Addresses no other test uses (the record is process-wide and tests run in parallel).
        let (a, b) = (0x7e57_a000_usize, 0x7e57_b000_usize);
        record(a, "first".to_owned());
        record(b, "other".to_owned());
        record(a, "second".to_owned());
        let e = take_all_of(a).err();
        assert_eq!(
            e.as_ref().map(Error::kind),
            Some(ErrorKind::HostFunctionPanicked)
        );
        let text = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.contains("2 host function(s)") && text.contains("first; second"),
            "{text}"
        );
        assert!(take_all_of(a).is_ok());
        assert_eq!(take(a), None);
        assert_eq!(take(b).as_deref(), Some("other"));
    }
}
