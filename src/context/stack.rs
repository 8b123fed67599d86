//! The per-thread context stack in types: [`Stack`] is the thread's token, [`PushedGuard`] a
//! context pushed on it, and [`StackTop`] whatever is on top now.
//!
//! ```text
//!   Stack (one per thread, !Send)
//!     └─ push(&ctx_a) ──> PushedGuard<'a, '_>      lends streams, buffers, modules, events of A
//!          └─ with_pushed(&ctx_b, |guard_b| …)      A's guard and its handles are frozen here
//!                                                   (`&mut` borrow), guard_b lends B's handles
//! ```

use crate::context::Context;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use core::cell::Cell;
use core::marker::PhantomData;
use core::ptr;

thread_local! {
    static STACK_TAKEN: Cell<bool> = const { Cell::new(false) };
}

/// The calling thread's context stack: one per thread, `!Send` and `!Sync`.
///
/// Pushing borrows the stack mutably, so two top-level guards can never be alive on one thread,
/// and the innermost guard is always the only one usable.
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, Stack};
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// {
///     let guard = stack.push(&ctx)?;
///     guard.synchronize()?;
/// } // popped here
/// let again = stack.push(&ctx)?; // P2: push, pop, push again
/// # drop(again);
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
pub struct Stack {
    // The CUDA context stack is per OS thread: the token must stay on its thread.
    _thread: PhantomData<*const ()>,
}

impl Stack {
    /// Takes this thread's stack token.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::StackAlreadyTaken`] if a `Stack` already exists on this thread (R1). Drop
    /// it first, or pass it (or the guard on top of it) down as `&mut impl StackTop`.
    pub fn new() -> Result<Self> {
        // `try_with` fails only while this thread's locals are being torn down; then no stack
        // can be handed out either.
        let taken = STACK_TAKEN.try_with(|t| t.replace(true)).unwrap_or(true);
        if taken {
            return Err(Error::custack(
                ErrorKind::StackAlreadyTaken,
                "this thread already has a custack::Stack; pass it (or the guard on top) as &mut impl StackTop",
            ));
        }
        Ok(Self {
            _thread: PhantomData,
        })
    }

    /// `cuCtxPushCurrent`—Pushes `ctx` on this thread and returns the guard that pops it.
    ///
    /// The guard mutably borrows the stack: until it is dropped (or popped with
    /// [`PushedGuard::pop`]), nothing else can be pushed on this thread except through the
    /// guard's own [`with_pushed`](StackTop::with_pushed).
    ///
    /// # Errors
    ///
    /// The driver's error, e.g. `CUDA_ERROR_CONTEXT_IS_DESTROYED` if foreign code destroyed it.
    /// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
    /// ([`Profile::init`](crate::safety::Profile::init)).
    ///
    /// # References
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxPushCurrent")]
    #[inline]
    pub fn push<'ctx>(&mut self, ctx: &'ctx Context) -> Result<PushedGuard<'ctx, '_>> {
        crate::error::confinement::full_api("Stack::push")?;
        self.push_any(ctx)
    }

    /// `cuCtxPushCurrent`, for [`push`](Self::push) and the restricted profile's guard, which
    /// reaches it without asking the process's confinement. `&mut self` is the proof that
    /// this thread's stack is borrowed for the guard's life, as in `push`.
    #[inline]
    #[allow(clippy::unused_self)]
    pub(crate) fn push_any<'ctx>(&mut self, ctx: &'ctx Context) -> Result<PushedGuard<'ctx, '_>> {
        // SAFETY: `ctx.as_raw()` is a live context: `ctx` is borrowed for the guard's lifetime,
        // so it cannot be destroyed while pushed through this guard. A context may be current
        // on several threads at once (Context Management).
        unsafe { PushedGuard::push_raw(ctx.as_raw()) }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // Thread teardown may have destroyed the slot already; then there is nothing to reset.
        let _ = STACK_TAKEN.try_with(|t| t.set(false));
    }
}

/// A context pushed on the calling thread's stack; popped when dropped.
///
/// `'ctx` is the borrow of the [`Context`]; `'stack` the borrow of the thread's [`Stack`] (for
/// a top-level guard; a guard of [`StackTop::with_pushed`] lives inside its closure instead).
/// Parked resources carry only `'ctx`, so they outlive the guard and free the stack.
///
/// Everything that needs a current context is lent by the guard with the lifetime of a borrow
/// of the guard: streams, events, modules and their functions, device and page-locked memory,
/// and the context queries. So none of them can be used after the pop, while another context is
/// pushed on top (that needs `&mut` of this guard), or on another thread (the guard and its
/// handles are `!Send` and `!Sync`).
///
/// The guard is the size of a `CUcontext` and its operations make exactly the driver call they
/// name: the types prove the context is current, so nothing is checked at run time.
///
/// Leaking a guard with `mem::forget` is sound: a leaked guard lent nothing that is still
/// alive (lent handles borrow it), and its context stays on the thread's stack underneath
/// whatever is pushed later. Nested pushes exist only in closure form
/// ([`StackTop::with_pushed`]), which cannot be leaked, so an outer guard can never be used
/// while a leaked inner context sits on top of it.
///
/// `K` is the kind of context pushed: [`Floating`] (a [`Context`], the default) or
/// [`Green`] (a [`GreenContext`](crate::GreenContext)). Both lend the same handles and park
/// them; the parked forms carry the kind, and only a floating context's are `Send`, because a
/// parked resource may be dropped on another thread, which pushes its context there, and a
/// green context may be current on one thread at a time.
#[must_use = "dropping the guard pops the context straight away"]
#[derive(Debug)]
#[doc(alias = "cuCtxPushCurrent")]
#[doc(alias = "cuCtxPopCurrent")]
pub struct PushedGuard<'ctx, 'stack, K: ContextKind = Floating> {
    raw: ffi::CUcontext,
    _ctx: PhantomData<&'ctx Context>,
    _kind: PhantomData<K>,
    // Top-level guards borrow the thread's `Stack` mutably: no second push beside them.
    _stack: PhantomData<&'stack mut Stack>,
    // The stack is per OS thread: `!Send`, `!Sync`.
    _thread: PhantomData<*const ()>,
}

static_assertions::assert_eq_size!(PushedGuard<'static, 'static>, ffi::CUcontext);

mod kind_sealed {
    pub trait Sealed {}
    impl Sealed for super::Floating {}
    impl Sealed for super::Green {}
}

/// The kind of context a [`PushedGuard`] pushed: [`Floating`] or [`Green`]. Sealed.
pub trait ContextKind: kind_sealed::Sealed + core::fmt::Debug {}

/// A [`Context`]: may be current on any number of threads; its parked resources are `Send`.
#[derive(Debug)]
pub enum Floating {}
impl ContextKind for Floating {}

/// A [`GreenContext`](crate::GreenContext): current on one thread at a time; its parked
/// resources ([`ParkedBuffer`](crate::ParkedBuffer), [`ParkedModule`](crate::ParkedModule),
/// [`ParkedStream`](crate::ParkedStream), a
/// [`ParkedSubmission`](crate::ParkedSubmission)'s payload) are `!Send` and stay on its thread.
#[derive(Debug)]
pub enum Green {}
impl ContextKind for Green {}
static_assertions::assert_not_impl_any!(PushedGuard<'static, 'static>: Send, Sync);
static_assertions::assert_not_impl_any!(Stack: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// # Safety
    ///
    /// `raw` must be a live context that stays alive for `'ctx`; for [`Green`], one current on
    /// no other thread while the guard lives.
    #[inline]
    pub(crate) unsafe fn push_raw(raw: ffi::CUcontext) -> Result<Self> {
        // Poisoned (R20): nothing is pushed, so nothing is reached through this guard.
        crate::error::poison::check()?;
        // SAFETY: the caller guarantees `raw` is live.
        unsafe { ffi::cuCtxPushCurrent_v2(raw) }.result()?;
        Ok(Self {
            raw,
            _ctx: PhantomData,
            _kind: PhantomData,
            _stack: PhantomData,
            _thread: PhantomData,
        })
    }

    /// The raw `CUcontext` this guard pushed.
    pub fn as_raw(&self) -> ffi::CUcontext {
        self.raw
    }

    /// `cuCtxPopCurrent`—Pops the context, returning the error instead of recording it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ForeignContextOnTop`] if foreign code left another context on top of this
    /// thread's stack: custack puts that context back rather than pop someone else's, and this
    /// guard's context stays on the stack beneath it (as after a leak). Driver errors otherwise.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// guard.pop()?; // the pop's error, if any, instead of a record for take_drop_errors
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxPopCurrent")]
    pub fn pop(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        pop_raw(this.raw)
    }
}

#[inline]
fn pop_raw(expected: ffi::CUcontext) -> Result<()> {
    // A pop frees nothing, so a poisoned process still pops; a forked child does not (R22).
    crate::error::poison::not_forked()?;
    let mut popped = ptr::null_mut();
    // SAFETY: `popped` is a valid out-pointer. This guard pushed `expected` on this thread.
    unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) }.result()?;
    if popped == expected {
        return Ok(());
    }
    foreign_on_top(expected, popped)
}

/// The pop found someone else's context on top: puts it back and reports. Out of line and cold,
/// so that `pop_raw`, and with it every guard's drop, stays small enough to inline.
#[cold]
#[inline(never)]
fn foreign_on_top(expected: ffi::CUcontext, popped: ffi::CUcontext) -> Result<()> {
    // SAFETY: `popped` was on top of this thread's stack a moment ago, so it is a live context
    // someone else pushed; we restore their stack as it was.
    let restored = unsafe { ffi::cuCtxPushCurrent_v2(popped) }.result();
    let detail = format!(
        "expected to pop context {expected:p} but {popped:p} was on top; it was left in place{}",
        match restored {
            Ok(()) => String::new(),
            Err(e) => format!(" (re-pushing it failed: {e})"),
        }
    );
    Err(Error::custack(ErrorKind::ForeignContextOnTop, detail))
}

impl<K: ContextKind> Drop for PushedGuard<'_, '_, K> {
    #[inline]
    fn drop(&mut self) {
        if let Err(e) = pop_raw(self.raw) {
            record_drop_error(e);
        }
    }
}

mod sealed {
    use crate::ffi;

    pub trait Sealed {
        /// The context this top holds current: what must be on top again once a context
        /// pushed over it is popped (`None` for the stack itself, which holds none).
        fn held(&self) -> Option<ffi::CUcontext>;
    }
    impl Sealed for super::Stack {
        fn held(&self) -> Option<ffi::CUcontext> {
            None
        }
    }
    impl<K: super::ContextKind> Sealed for super::PushedGuard<'_, '_, K> {
        fn held(&self) -> Option<ffi::CUcontext> {
            Some(self.raw)
        }
    }
}

/// The top of this thread's context stack: the [`Stack`] itself or the innermost
/// [`PushedGuard`]. A library that pushes its own context "whatever the caller has current"
/// takes `&mut impl StackTop` (P6).
pub trait StackTop: sealed::Sealed {
    /// Pushes `ctx` on top, runs `f` with its guard, and pops it, also when `f` panics.
    ///
    /// While `f` runs, `self` and everything it lent are frozen by the `&mut` borrow, so the
    /// outer context's handles cannot be used while `ctx` is on top (C3, C4). The closure form
    /// is the only way to nest: it cannot be leaked, so the outer guard never comes back while
    /// the inner context is still current.
    ///
    /// # Errors
    ///
    /// The push's error (then `f` does not run), or the pop's error (then `f`'s result is
    /// dropped; see [`PushedGuard::pop`]). After a failed pop, `ctx` is popped once more if it is
    /// still on top; where `self` is a guard whose context the driver then cannot confirm on
    /// top, the process takes the safe state ([`fail_stop`](crate::fail_stop), status 75)
    /// instead of returning: `self`'s handles would reach another context. Where `ctx` is
    /// current already (`self`'s own context), nothing is pushed or popped. On the
    /// [`Stack`] itself, what is current is read first (`cuCtxGetCurrent`).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack, StackTop};
    /// let dev = Driver::init()?.device(0)?;
    /// let (a, b) = (Context::new(dev, ContextFlags::empty())?, Context::new(dev, ContextFlags::empty())?);
    /// let mut stack = Stack::new()?;
    /// let mut guard_a = stack.push(&a)?;
    /// let bytes = guard_a.with_pushed(&b, |guard_b| guard_b.memory_info())??;
    /// guard_a.synchronize()?; // A is on top again
    /// # let _ = bytes;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxPushCurrent")]
    #[doc(alias = "cuCtxPopCurrent")]
    #[inline]
    fn with_pushed<'c, R>(
        &mut self,
        ctx: &'c Context,
        f: impl FnOnce(&mut PushedGuard<'c, '_>) -> R,
    ) -> Result<R> {
        // What must be on top again once `ctx` is popped: `self`'s context (a guard's, which its
        // handles reach), or for the stack itself what was current before (nothing custack
        // holds: restored where the driver allows, never a safe state).
        // Poisoned or forked (R20, R22): refused before any driver call, the read below included.
        crate::error::poison::check()?;
        let held = sealed::Sealed::held(self);
        let below = match held {
            Some(raw) => raw,
            None => crate::context::raw::current()?,
        };
        if below == ctx.as_raw() {
            // `ctx` is current already: nothing to push or pop, so no pop that could fail with
            // a second entry of it on top.
            let mut guard = core::mem::ManuallyDrop::new(PushedGuard {
                raw: below,
                _ctx: PhantomData,
                _kind: PhantomData,
                _stack: PhantomData,
                _thread: PhantomData,
            });
            return Ok(f(&mut guard));
        }
        let claimed = held.is_some();
        // SAFETY: `ctx` is borrowed for `'c`, longer than the guard, which cannot escape `f`.
        let guard = unsafe { PushedGuard::push_raw(ctx.as_raw()) }?;
        let inner = guard.raw;
        // The pop is this function's (below, or `on_unwind`'s), not the guard's drop.
        let mut guard = core::mem::ManuallyDrop::new(guard);
        // If `f` panics, this pops during unwinding (recording any error), as below.
        let on_unwind = PopOnUnwind {
            inner,
            below,
            claimed,
        };
        let value = f(&mut guard);
        core::mem::forget(on_unwind);
        if let Err(e) = pop_raw(inner) {
            crate::context::raw::after_failed_pop(inner, below, claimed, &e);
            return Err(e);
        }
        Ok(value)
    }
}

/// The pop of a nested push whose closure panicked: made while unwinding, its error recorded
/// (`take_drop_errors`), the stack put back as after any failed pop of a nested push.
struct PopOnUnwind {
    inner: ffi::CUcontext,
    below: ffi::CUcontext,
    claimed: bool,
}

impl Drop for PopOnUnwind {
    fn drop(&mut self) {
        if let Err(e) = pop_raw(self.inner) {
            crate::context::raw::after_failed_pop(self.inner, self.below, self.claimed, &e);
            record_drop_error(e);
        }
    }
}

impl StackTop for Stack {}

impl<K: ContextKind> StackTop for PushedGuard<'_, '_, K> {}
