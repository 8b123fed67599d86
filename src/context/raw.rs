//! A context pushed briefly by a value that borrows only its [`Context`](crate::Context) (a
//! parked value's drop, a parked submission's clean-up): the raw form of a push, which leaves the
//! thread's stack as it found it.

use crate::error::left_behind::{Object, left_behind};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;

/// Pushes `ctx`, runs `f`, pops it; runs `f` alone where `ctx` is already current.
///
/// What was current before is read first (`cuCtxGetCurrent`, a thread-local read): where it is
/// `ctx` itself (a parked value released under its own context's guard), nothing is pushed or
/// popped; otherwise a failed pop is answered by [`after_failed_pop`], which puts the stack
/// back or takes the safe state.
///
/// # Safety
///
/// `ctx` must be a live context, and `f` must leave the thread's stack as it found it.
pub(crate) unsafe fn with_raw_current(
    ctx: ffi::CUcontext,
    f: impl FnOnce() -> Result<()>,
) -> Result<()> {
    // Poisoned or forked (R20, R22): the clean-up is not run; what it would release is left to
    // the process's end (callers name it to the checking driver as left behind).
    crate::error::poison::may_release()?;
    let below = current()?;
    if below == ctx {
        return f();
    }
    // SAFETY: the caller guarantees `ctx` is live.
    unsafe { ffi::cuCtxPushCurrent_v2(ctx) }.result()?;
    let r = f();
    let mut popped = core::ptr::null_mut();
    // SAFETY: balanced with the push above.
    let p = unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) }.result();
    if let Err(e) = &p {
        // Whatever was current may be a guard's (or foreign code's): it must be on top again.
        after_failed_pop(ctx, below, !below.is_null(), e);
    }
    both(r, p)
}

/// The context current on this thread (null: none).
pub(crate) fn current() -> Result<ffi::CUcontext> {
    let mut current = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    unsafe { ffi::cuCtxGetCurrent(&raw mut current) }
        .result()
        .map(|()| current)
}

/// The pop of `inner`, which custack pushed over `below` (null: nothing was current), failed
/// with `e`: puts the thread's stack back as it was, and where `claimed` (a guard's handles, or
/// foreign code, rely on `below` being current) takes the safe state if the driver cannot
/// confirm that it did. Returns only with `below` on top, or with nothing claimed.
///
/// - `inner` on top: the failed pop had no effect (one that took effect leaves `below`, which
///   is not `inner`, on top), so it is popped once more.
/// - Then, where `claimed`, `below` must be on top: a guard's handles reach whatever context
///   is current, so with another on top they would reach it (C3, C4, R10). If another context
///   is on top, or the query fails, there is no sound way back: [`fail_stop`](crate::fail_stop)
///   (status 75, one line naming `e` and the top).
/// - `inner == below`: whether the failed pop took effect cannot be told from the top. Callers
///   never push a context over itself (they run without a push where it is current already);
///   where `claimed`, the safe state.
/// - A forked child makes no driver call (R22): custack refuses everything there.
/// - [`ErrorKind::ForeignContextOnTop`]: the pop found a context foreign code pushed and left (a
///   raw call that broke its contract, R3) and put it back; that is reported, not repaired.
#[cold]
#[inline(never)]
pub(crate) fn after_failed_pop(
    inner: ffi::CUcontext,
    below: ffi::CUcontext,
    claimed: bool,
    e: &Error,
) {
    if e.kind() == ErrorKind::ForeignContextOnTop || crate::error::poison::not_forked().is_err() {
        return;
    }
    if inner == below {
        if claimed {
            crate::error::safe_state::fail_stop_with(
                e,
                format_args!("; popping context {inner:p}, pushed over itself, failed"),
            );
        }
        return;
    }
    if current().is_ok_and(|c| c == inner) {
        let mut popped = core::ptr::null_mut();
        // SAFETY: `inner` is on top, pushed by custack on this thread over `below`; whatever
        // pushed it is gone (a closure's guard, a release's push).
        let _ = unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) };
    }
    if !claimed {
        return;
    }
    match current() {
        Ok(c) if c == below => {}
        Ok(c) => crate::error::safe_state::fail_stop_with(
            e,
            format_args!(
                "; popping context {inner:p} failed, and {c:p} is on top where {below:p} must be"
            ),
        ),
        Err(q) => crate::error::safe_state::fail_stop_with(
            e,
            format_args!(
                "; popping context {inner:p} failed, and the context on top cannot be read: {q}"
            ),
        ),
    }
}

/// The answer of `f` and of the pop after it: the first error, and where both failed, the
/// closure's error naming the pop's in its detail, so that neither is lost (the pop's says the
/// thread's stack may not be as it was found; the closure's, what was not released).
fn both(r: Result<()>, p: Result<()>) -> Result<()> {
    match (r, p) {
        (Err(e), Err(pop)) => Err(e.and_failed_too("popping its context", &pop)),
        (r, p) => r.and(p),
    }
}

/// Pushes `ctx`, runs `release`, pops it (as [`with_raw_current`]); unless `release` ran and
/// succeeded (the push failed, or the release itself did), names `object` `handle` to the
/// checking driver as left behind on purpose: it stays allocated until its context goes.
///
/// # Safety
///
/// As [`with_raw_current`].
pub(crate) unsafe fn release_in(
    ctx: ffi::CUcontext,
    object: Object,
    handle: u64,
    release: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let mut released = false;
    // SAFETY: the caller's.
    let r = unsafe {
        with_raw_current(ctx, || {
            let r = release();
            released = r.is_ok();
            r
        })
    };
    if !released {
        left_behind(object, handle);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::both;
    use crate::error::{Error, ErrorKind};

    #[test]
    fn a_failed_pop_after_a_failed_closure_is_named_in_the_closures_error() {
        let closure = || Error::new(ErrorKind::InvalidValue, "cuStreamDestroy_v2 of 0x10");
        let pop = || Error::from_kind(ErrorKind::InvalidContext);

        // Both failed: the closure's kind, and the pop's error in its detail.
        let e = both(Err(closure()), Err(pop())).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        let detail = e.detail().unwrap();
        assert!(
            detail.starts_with("cuStreamDestroy_v2 of 0x10; and popping its context failed too: "),
            "{detail}"
        );
        assert!(detail.ends_with(&pop().to_string()), "{detail}");
        // A closure's error without a detail gets one.
        let e = both(Err(Error::from_kind(ErrorKind::InvalidValue)), Err(pop())).unwrap_err();
        assert_eq!(
            e.detail(),
            Some(format!("popping its context failed too: {}", pop()).as_str())
        );

        // One failed: that error, unchanged.
        assert_eq!(both(Err(closure()), Ok(())), Err(closure()));
        assert_eq!(both(Ok(()), Err(pop())), Err(pop()));
        assert_eq!(both(Ok(()), Ok(())), Ok(()));
    }
}
