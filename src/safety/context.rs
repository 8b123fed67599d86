//! A context made for the profile ([`RestrictedContext`]) and its guard ([`RestrictedGuard`]),
//! whose only ways in are one init phase and the shutdown.
//!
//! One init phase per context (C27) is held in two parts. At compile time, [`push`] borrows the
//! context exclusively for as long as its guard lives, so no second thread (and no second guard
//! on this thread) can push it, and open an init phase, while an init or run phase of it is
//! open. At run time, the context remembers that its init phase was opened ([`InitOnce`]): a
//! later one, after the run phase ended, from the same guard (a frame loop) or from a guard of a
//! later push (on any thread), is refused with `ErrorKind::OutsideProfile`. The run-time part
//! cannot be a compile-time one without the guard being borrowed for the rest of its life by
//! its first `init`, which would leave no way to [`shutdown`](RestrictedGuard::shutdown) it.
//!
//! [`push`]: RestrictedContext::push

use crate::context::current::idle_by_event;
use crate::context::stack::{PushedGuard, Stack};
use crate::context::{Context, ContextFlags};
use crate::deadline::passed;
use crate::driver::Device;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::safety::idle::IdleEvent;
use crate::safety::phase::InitPhase;
use crate::safety::profile::{Budget, BudgetUse, Profile, Resource};
use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// A context made for the restricted profile: floating, owned, `Send + Sync`, like a
/// [`Context`], but its only guard is a [`RestrictedGuard`], whose API is NVIDIA's safety
/// subset. The full context inside is never handed out, so nothing outside the subset can
/// reach it.
///
/// It has one init phase in its life (C27): [`push`](Self::push) borrows it exclusively, so
/// one thread at a time holds its guard (a second thread's push while the first's phases are
/// open does not compile), and a second [`init`](RestrictedGuard::init), by any guard of it,
/// is refused at run time.
///
/// # Examples
///
/// ```no_run
/// use custack::Stack;
/// use custack::safety::{Budget, Profile, RestrictedContext};
/// let profile = Profile::init(1)?;
/// // Every resource the program will make, stated up front: here one stream.
/// let budget = Budget::new().streams(1);
/// let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
/// let mut stack = Stack::new()?;
/// let mut guard = ctx.push(&mut stack)?;
/// let init = guard.init()?;
/// let stream = init.stream()?;
/// let run = init.seal();
/// run.synchronize()?;
/// drop((stream, run));
/// guard.shutdown()?;
/// // The init phase was the context's one: pushed again, it opens no other.
/// let mut guard = ctx.push(&mut stack)?;
/// assert_eq!(guard.init().unwrap_err().kind(), custack::ErrorKind::OutsideProfile);
/// guard.shutdown()?;
/// ctx.destroy()?;
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
pub struct RestrictedContext {
    /// The event of the context-wide waits (`crate::safety::idle`), made when the init phase
    /// first opens (`None` inside on drivers before 12.5), kept for the context's life so that
    /// every guard's shutdown, a later push's included, waits by it (R25). Declared before
    /// `context`, so that a drop destroys it before the context.
    idle: OnceLock<Option<IdleEvent>>,
    context: Context,
    device: Device,
    budget: BudgetUse,
    init: InitOnce,
    /// Whether this is the device's primary context, whose memory and modules the device's
    /// green contexts share (the partitions of a redundant kernel need it).
    primary: bool,
}

static_assertions::assert_impl_all!(RestrictedContext: Send, Sync);

impl RestrictedContext {
    /// `cuCtxCreate`—A new context on `device` for the profile, with the scheduling the
    /// driver chooses; only this value holds it. It takes one of the contexts
    /// [`Profile::init`] stated for the process's life, before the driver is asked (given
    /// back if the driver fails the creation, not when the context is destroyed).
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the count `Profile::init` stated (nothing created);
    /// `ErrorKind::InvalidValue` for a budget whose wait bound the clock cannot represent (every
    /// wait would be unbounded; nothing created); as [`Context::new`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxCreate")]
    pub fn new(profile: &Profile, device: Device, budget: Budget) -> Result<Self> {
        let _ = profile;
        // Poisoned or forked: refused as every creation is, nothing taken from the count.
        crate::error::poison::check()?;
        check_bound(&budget)?;
        let counted = crate::safety::profile::take_context()?;
        let context = Context::create(device, ContextFlags::empty())?;
        counted.keep();
        Ok(Self::of(context, budget, false))
    }

    /// `cuDevicePrimaryCtxRetain`—The device's primary context, for the profile. Code
    /// outside this value may retain the same primary context through the full API; prefer
    /// [`new`](Self::new) where the context must be the profile's alone.
    ///
    /// Once per device in the process: a second `RestrictedContext` of the same primary
    /// context would bring a second init phase of that CUDA context (C27), which another
    /// thread could keep open beside the first one's run phase. It takes one of the contexts
    /// [`Profile::init`] stated, as [`new`](Self::new) does.
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the count `Profile::init` stated, or if this process
    /// made a restricted primary context of `device` before (nothing retained);
    /// `ErrorKind::InvalidValue` for a wait bound the clock cannot represent, as
    /// [`new`](Self::new); as [`Context::primary`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    #[doc(alias = "cuDevicePrimaryCtxRetain")]
    pub fn primary(profile: &Profile, device: Device, budget: Budget) -> Result<Self> {
        let _ = profile;
        crate::error::poison::check()?;
        check_bound(&budget)?;
        // Refused (here or at the claim) or failed below, the count's one goes back on drop.
        let counted = crate::safety::profile::take_context()?;
        PRIMARY_CLAIMS.claim(device.ordinal())?;
        match Context::retain_primary(device) {
            Ok(context) => {
                counted.keep();
                Ok(Self::of(context, budget, true))
            }
            Err(e) => {
                // Nothing was retained: a later call may try again.
                PRIMARY_CLAIMS.release(device.ordinal());
                Err(e)
            }
        }
    }

    fn of(context: Context, budget: Budget, primary: bool) -> Self {
        Self {
            idle: OnceLock::new(),
            device: context.device(),
            context,
            budget: BudgetUse::new(budget),
            init: InitOnce::new(),
            primary,
        }
    }

    /// `cuCtxPushCurrent`—Pushes the context on this thread's stack: the guard pops it on drop
    /// or at [`shutdown`](RestrictedGuard::shutdown).
    ///
    /// The guard borrows the context exclusively (`&mut self`), unlike
    /// [`Stack::push`]: while it lives, no other thread can push the context and open an init
    /// phase of its own beside this one's phases (C27). A program that would use one
    /// restricted context from several threads at once therefore cannot; its threads take
    /// turns (the context is `Send`), and only the first init phase opens.
    ///
    /// # Errors
    ///
    /// As [`Stack::push`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxPushCurrent")]
    pub fn push<'ctx, 'stack>(
        &'ctx mut self,
        stack: &'stack mut Stack,
    ) -> Result<RestrictedGuard<'ctx, 'stack>> {
        // The exclusive borrow is the guard's lifetime `'ctx`; inside, shared is enough.
        let this: &'ctx Self = self;
        Ok(RestrictedGuard {
            guard: stack.push_any(&this.context)?,
            context: this,
        })
    }

    /// The device.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The budget stated when the context was made.
    pub fn budget(&self) -> Budget {
        self.budget.budget()
    }

    /// What the init phase has taken so far of `resource`, against the budget's
    /// [`stated`](Budget::stated) figure: bytes allocated, or streams, events, modules, kernels,
    /// graphs and graph nodes made. Counted over the context's life: what was freed since
    /// stays counted.
    pub fn used(&self, resource: Resource) -> usize {
        self.budget.used(resource)
    }

    /// The page-locked bytes the init phase has allocated so far, against the budget
    /// ([`used`](Self::used)`(Resource::PageLockedBytes)`).
    pub fn page_locked_used(&self) -> usize {
        self.budget.used(Resource::PageLockedBytes)
    }

    /// `cuEventDestroy`, `cuCtxDestroy`—Destroys the event of the context-wide waits (made by
    /// the first [`init`](RestrictedGuard::init)), then a context made by [`new`](Self::new)
    /// (releases a primary one), returning the driver's errors, which a drop could only record.
    ///
    /// # Errors
    ///
    /// As [`Context::destroy`]; the event's destroy error (named in the context's error's
    /// detail where both failed).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxDestroy")]
    #[doc(alias = "cuEventDestroy")]
    pub fn destroy(self) -> Result<()> {
        let Self { idle, context, .. } = self;
        let event = idle
            .into_inner()
            .flatten()
            .map_or(Ok(()), IdleEvent::destroy);
        match (context.destroy(), event) {
            (r, Ok(())) => r,
            (Ok(()), Err(e)) => Err(e),
            // Both refused before the driver (the poison, a fork): said once.
            (Err(c), Err(e)) if refused_alike(&c, &e) => Err(c),
            (Err(c), Err(e)) => Err(c.and_failed_too("destroying its idle event", &e)),
        }
    }

    /// The event of the context-wide waits, made on the first call (by the first init phase;
    /// `None` before driver 12.5) and the same one after, for every guard of the context.
    fn idle_event(&self, current: &PushedGuard<'_, '_>) -> Result<Option<ffi::CUevent>> {
        if self.idle.get().is_none() {
            let made = IdleEvent::new(current)?;
            // Only a guard holding the context's exclusive borrow reaches here, so the cell is
            // still empty; were it not, the first event stays and `made` is destroyed at once.
            if let Err(extra) = self.idle.set(made) {
                drop(extra);
            }
        }
        Ok(self.idle_raw())
    }

    /// The event of the context-wide waits, if the init phase made it.
    fn idle_raw(&self) -> Option<ffi::CUevent> {
        self.idle
            .get()
            .and_then(Option::as_ref)
            .map(IdleEvent::as_raw)
    }
}

/// Whether `a` and `b` are one refusal before the driver: the process's poison (the same
/// sticky error) or a forked child's, so that an error naming both would say it twice.
fn refused_alike(a: &Error, b: &Error) -> bool {
    let same = a.kind() == b.kind() && a.code() == b.code();
    same && (a.kind() == ErrorKind::ForkedProcess
        || crate::error::poisoned().is_some_and(|p| p.kind() == a.kind() && p.code() == a.code()))
}

/// Refuses a budget whose [`WaitBound`](crate::safety::WaitBound) the clock cannot represent
/// (`Duration::MAX`, say): every wait under it would be unbounded (R23, R25), where the profile
/// promises each one ends by its bound.
fn check_bound(budget: &Budget) -> Result<()> {
    let limit = budget.wait_bound().limit();
    if std::time::Instant::now().checked_add(limit).is_none() {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "a wait bound of {limit:?} is past what the clock can represent: every wait of \
                 the context would be unbounded; state a bound the program can wait out"
            ),
        ));
    }
    Ok(())
}

/// The guard of a [`RestrictedContext`]: `!Send`, pops on drop, and lends nothing itself. Its
/// [`init`](Self::init) opens the context's one init phase, which makes everything and is then
/// sealed into the run phase; [`shutdown`](Self::shutdown) ends the run phase.
///
/// The guard borrows its context exclusively, so no other guard of it exists meanwhile, and
/// `init` borrows the guard exclusively for as long as anything init made lives, so a second
/// init phase cannot begin while the run phase or any of its values is alive: both compile
/// errors (C27). After that, a second `init` is refused at run time. It has no nested push:
/// one restricted context is current on its thread.
#[must_use = "dropping the guard pops the context straight away"]
#[derive(Debug)]
pub struct RestrictedGuard<'ctx, 'stack> {
    guard: PushedGuard<'ctx, 'stack>,
    context: &'ctx RestrictedContext,
}

static_assertions::assert_not_impl_any!(RestrictedGuard<'static, 'static>: Send, Sync);

impl RestrictedGuard<'_, '_> {
    /// Opens the context's init phase: the only place where anything is created under the
    /// profile, once in the context's life (C27).
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` if an init phase of this context was opened before, by this
    /// guard or by an earlier guard of the context, sealed or not: a restricted context stays
    /// sealed, so a frame loop cannot allocate each frame through a fresh init phase. Nothing
    /// is created; make everything in the first init phase. The driver's error where the
    /// phase's event or its stack-size limit is refused: then no phase was opened, and a later
    /// `init` may open it.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventCreate")]
    pub fn init(&mut self) -> Result<InitPhase<'_>> {
        self.context.init.open()?;
        // The one event of the context-wide waits (the run phase's, a module's unload, every
        // guard's shutdown), made now so that none of them creates one after the seal, and
        // kept by the context. Not counted against the budget's events, which are the
        // program's.
        let idle = match self.context.idle_event(&self.guard) {
            Ok(idle) => idle,
            Err(e) => {
                // No init phase was handed out: the next `init` may open it (C27 counts the
                // phases a program received, and it received none).
                self.context.init.undo_open();
                return Err(e);
            }
        };
        let primary = self.context.primary.then_some(self.context.device);
        let init = &self.context.init;
        // As above: a phase that failed to open (the stack-size limit refused) was not handed
        // out; the event made stays the context's, and the next `init` uses it.
        InitPhase::new(&self.guard, &self.context.budget, primary, idle)
            .inspect_err(|_| init.undo_open())
    }

    /// Ends the run phase before `main` returns (CUDA-1.1, CUDA-1.2): synchronizes the
    /// context, at most the context's [`WaitBound`](crate::safety::WaitBound) (past it, the
    /// safe state: the pop and the context's destruction follow; bounded too where an earlier
    /// guard of the context was dropped or forgotten without its shutdown), pops it, and surfaces every error a drop recorded ([`take_drop_errors`]) and
    /// the process's poison ([`poisoned`]). Every value init made is gone by now (they borrow
    /// the guard), so nothing of CUDA is left to a static or thread-local destructor but the
    /// [`RestrictedContext`], which [`destroy`](RestrictedContext::destroy) ends.
    ///
    /// Every step runs even when an earlier one failed; the first error is returned and the
    /// others are named in its detail.
    ///
    /// [`take_drop_errors`]: crate::take_drop_errors
    /// [`poisoned`]: crate::poisoned
    ///
    /// # Errors
    ///
    /// The synchronize's or the pop's error (a sticky one: the poison), or the first error a
    /// drop recorded.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxSynchronize")]
    #[track_caller]
    pub fn shutdown(self) -> Result<()> {
        let Self { guard, context } = self;
        let synchronized = synchronize_within_bound(&guard, context, context.idle_raw());
        let popped = guard.pop();
        let mut errors: Vec<Error> = synchronized.err().into_iter().chain(popped.err()).collect();
        errors.extend(crate::error::take_drop_errors());
        if let Some(poison) = crate::error::poisoned() {
            if !errors.iter().any(|e| e.kind() == poison.kind()) {
                errors.push(poison);
            }
        }
        let mut errors = errors.into_iter();
        match errors.next() {
            None => Ok(()),
            Some(first) => {
                let rest: Vec<String> = errors.map(|e| e.to_string()).collect();
                if rest.is_empty() {
                    Err(first)
                } else {
                    let detail = format!("at shutdown, also: {}", rest.join("; "));
                    let detail = match first.detail() {
                        Some(d) => format!("{d}; {detail}"),
                        None => detail,
                    };
                    Err(first.with_detail(detail))
                }
            }
        }
    }
}

/// The shutdown's context-wide wait, at most the context's [`WaitBound`]: the context's event
/// `idle`, made by its first init phase, recorded after all of the context's work and polled
/// (`cuCtxRecordEvent` and `cuEventQuery`, driver 12.5+), so that the wait creates nothing after
/// the seal (C27), whichever guard of the context shuts down. Before 12.5, or where no init
/// phase was opened (nothing of the profile was made, so nothing was enqueued),
/// `cuCtxSynchronize`, which finds the context idle by construction (R23). Past the
/// bound, the safe state whatever the bound's policy: the pop and the context's destruction
/// follow, and nothing may be freed under work still running.
///
/// [`WaitBound`]: crate::safety::WaitBound
#[track_caller]
fn synchronize_within_bound(
    guard: &PushedGuard<'_, '_>,
    context: &RestrictedContext,
    idle: Option<ffi::CUevent>,
) -> Result<()> {
    let Some(idle) = idle else {
        return guard.synchronize();
    };
    crate::error::poison::check()?;
    let site = core::panic::Location::caller();
    let deadline = context.budget.budget().wait_bound().deadline();
    // SAFETY: the guard's context is current (the guard is on this thread's stack), and `idle`
    // a live event of it, made by its first `init` and kept by the context, which outlives the
    // guard.
    match unsafe { idle_by_event(guard.as_raw(), idle, deadline, site) }? {
        Ok(()) => Ok(()),
        Err(waited) => crate::error::fail_stop(&passed(
            format_args!("the restricted context's shutdown synchronized at {site}"),
            waited,
        )),
    }
}

/// Whether a restricted context's one init phase has been opened: the run-time part of C27 (the
/// compile-time part is [`RestrictedContext::push`]'s exclusive borrow). Atomic, so that it
/// would hold even if the context were ever lent shared; today every `open` holds the
/// context's exclusive borrow.
#[derive(Debug)]
struct InitOnce(AtomicBool);

impl InitOnce {
    const fn new() -> Self {
        Self(AtomicBool::new(false))
    }

    /// Marks the init phase closed again, after an `init` that failed before it handed the
    /// phase out (nothing of the phase exists, so C27's one phase is still to come).
    fn undo_open(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Marks the init phase opened, or refuses a second one.
    fn open(&self) -> Result<()> {
        if self.0.swap(true, Ordering::Relaxed) {
            Err(Error::custack(
                ErrorKind::OutsideProfile,
                "a second init phase of a restricted context (C27): a restricted context has \
                 one init phase in its life, and it was opened already; once sealed, the \
                 context stays sealed, and its run phase allocates, loads and creates nothing. \
                 Make everything in the first init phase",
            ))
        } else {
            Ok(())
        }
    }
}

/// The devices whose primary context a [`RestrictedContext::primary`] of this process holds or
/// held: one restricted value per primary context, so one init phase per CUDA context (C27).
static PRIMARY_CLAIMS: PrimaryClaims = PrimaryClaims(Mutex::new(Vec::new()));

/// Device ordinals claimed once each.
#[derive(Debug)]
struct PrimaryClaims(Mutex<Vec<usize>>);

impl PrimaryClaims {
    /// Claims `ordinal`, or refuses a second claim.
    fn claim(&self, ordinal: usize) -> Result<()> {
        // A panic while the lock was held cannot leave the list half-written: push is the only
        // change, so a poisoned list is still the truth.
        let mut claimed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if claimed.contains(&ordinal) {
            return Err(Error::custack(
                ErrorKind::OutsideProfile,
                format!(
                    "a second restricted context of device {ordinal}'s primary context (C27): \
                     it would open a second init phase of one CUDA context; a process makes \
                     one RestrictedContext::primary per device (or uses RestrictedContext::new)"
                ),
            ));
        }
        claimed.push(ordinal);
        Ok(())
    }

    /// Gives back a claim whose retain failed.
    fn release(&self, ordinal: usize) {
        let mut claimed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        claimed.retain(|&o| o != ordinal);
    }
}

#[cfg(test)]
mod tests {

    /// Two errors are said once only where both are one refusal before the driver: a forked
    /// child's (or the poison, which needs a poisoned process: `restricted_end`'s
    /// checked destroy). Two driver answers of one code are two errors, both named: before,
    /// any equal kind and code were merged, and a failed event destroy was lost behind a failed
    /// context destroy of the same code.
    #[test]
    fn only_a_refusal_before_the_driver_is_said_once() {
        use crate::error::Error;
        use crate::ffi::CUresult;
        // Not sticky: the conversion poisons nothing.
        let driver = || CUresult::CUDA_ERROR_INVALID_CONTEXT.result().unwrap_err();
        assert!(!super::refused_alike(&driver(), &driver()));
        let forked = || Error::custack(ErrorKind::ForkedProcess, "a forked child");
        assert!(super::refused_alike(&forked(), &forked()));
        assert!(!super::refused_alike(&forked(), &driver()));
    }

    /// A wait bound the clock cannot represent is refused before anything is made: under it
    /// every wait of the context would be unbounded (`Deadline::NEVER`); a bound of hours is
    /// taken.
    #[test]
    fn a_wait_bound_the_clock_cannot_represent_is_refused() {
        use crate::safety::WaitBound;
        use core::time::Duration;
        for bound in [
            WaitBound::fail_stop(Duration::MAX),
            WaitBound::return_error(Duration::MAX),
        ] {
            let refused = super::check_bound(&super::Budget::new().waits(bound));
            assert_eq!(
                refused.map_err(|e| e.kind()),
                Err(super::ErrorKind::InvalidValue),
                "{bound:?}"
            );
        }
        let hours = WaitBound::fail_stop(Duration::from_secs(3 * 3600));
        assert!(super::check_bound(&super::Budget::new().waits(hours)).is_ok());
    }
    use super::{InitOnce, PrimaryClaims};
    use crate::error::ErrorKind;
    use std::sync::Mutex;

    /// An `init` that failed before it handed its phase out closes the mark again: the next
    /// `init` opens the phase, and a phase after that is refused.
    #[test]
    fn a_phase_not_handed_out_leaves_the_init_to_come() {
        let once = InitOnce::new();
        assert!(once.open().is_ok());
        once.undo_open();
        assert!(once.open().is_ok());
        assert_eq!(
            once.open().map_err(|e| e.kind()),
            Err(ErrorKind::OutsideProfile)
        );
    }

    #[test]
    fn the_init_phase_opens_once() {
        let once = InitOnce::new();
        assert!(once.open().is_ok());
        for _ in 0..2 {
            let e = once.open().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile);
            let text = e.to_string();
            assert!(text.contains("second init phase"), "{text}");
            assert!(text.contains("C27"), "{text}");
        }
    }

    #[test]
    fn one_thread_of_many_opens_it() {
        let once = InitOnce::new();
        let opened = std::thread::scope(|t| {
            let handles: Vec<_> = (0..4).map(|_| t.spawn(|| once.open().is_ok())).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .filter(|&ok| ok)
                .count()
        });
        assert_eq!(opened, 1);
    }

    #[test]
    fn a_primary_context_is_claimed_once_per_device() {
        let claims = PrimaryClaims(Mutex::new(Vec::new()));
        assert!(claims.claim(0).is_ok());
        assert!(claims.claim(1).is_ok());
        let e = claims.claim(0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        assert!(e.to_string().contains("device 0's primary context"), "{e}");
        // A claim whose retain failed is given back.
        claims.release(1);
        assert!(claims.claim(1).is_ok());
    }
}
