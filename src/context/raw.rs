//! A context pushed briefly by a value that borrows only its [`Context`](crate::Context) (a
//! parked value's drop, a parked submission's clean-up): the raw form of a push, which leaves the
//! thread's stack as it found it.

use crate::error::Result;
use crate::error::left_behind::{Object, left_behind};
use crate::ffi;

/// Pushes `ctx`, runs `f`, pops it.
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
    // SAFETY: the caller guarantees `ctx` is live.
    unsafe { ffi::cuCtxPushCurrent_v2(ctx) }.result()?;
    let r = f();
    let mut popped = core::ptr::null_mut();
    // SAFETY: balanced with the push above.
    let p = unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) }.result();
    if p.is_err() {
        repop(ctx);
    }
    both(r, p)
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

/// A pop of `ctx` failed: if `ctx` is still on top, tries once more, so that the caller's
/// guard is on top again (the stack as it was found, R10); the first error is reported either
/// way. Cold: a pop fails only when the driver is in trouble.
#[cold]
#[inline(never)]
fn repop(ctx: ffi::CUcontext) {
    let mut current = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let on_top = unsafe { ffi::cuCtxGetCurrent(&raw mut current) }
        .result()
        .is_ok()
        && current == ctx;
    if on_top {
        let mut popped = core::ptr::null_mut();
        // SAFETY: `ctx` is on top, pushed by `with_raw_current` on this thread.
        let _ = unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) };
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
    use crate::{Error, ErrorKind};

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
