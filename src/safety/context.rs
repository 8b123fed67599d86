//! A context made for the profile ([`RestrictedContext`]) and its guard ([`RestrictedGuard`]),
//! whose only ways in are one init phase and the shutdown.

use crate::context::stack::{PushedGuard, Stack};
use crate::context::{Context, ContextFlags};
use crate::driver::Device;
use crate::error::{Error, Result};
use crate::safety::phase::InitPhase;
use crate::safety::profile::{Budget, BudgetUse, Profile};

/// A context made for the restricted profile: floating, owned, `Send + Sync`, like a
/// [`Context`], but its only guard is a [`RestrictedGuard`], whose API is NVIDIA's safety
/// subset. The full context inside is never handed out, so nothing outside the subset can
/// reach it.
///
/// # Examples
///
/// ```no_run
/// use custack::{Budget, Profile, RestrictedContext, Stack};
/// let profile = Profile::init()?;
/// let ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
/// let mut stack = Stack::new()?;
/// let mut guard = ctx.push(&mut stack)?;
/// let init = guard.init();
/// let stream = init.stream()?;
/// let run = init.seal();
/// run.synchronize()?;
/// drop((stream, run));
/// guard.shutdown()?;
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
pub struct RestrictedContext {
    context: Context,
    device: Device,
    budget: BudgetUse,
}

static_assertions::assert_impl_all!(RestrictedContext: Send, Sync);

impl RestrictedContext {
    /// `cuCtxCreate`—A new context on `device` for the profile, with the scheduling the
    /// driver chooses; only this value holds it.
    ///
    /// # Errors
    ///
    /// As [`Context::new`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxCreate")]
    pub fn new(profile: &Profile, device: Device, budget: Budget) -> Result<Self> {
        let _ = profile;
        Ok(Self::of(
            Context::new(device, ContextFlags::empty())?,
            budget,
        ))
    }

    /// `cuDevicePrimaryCtxRetain`—The device's primary context, for the profile. Code
    /// outside this value may retain the same primary context through the full API; prefer
    /// [`new`](Self::new) where the context must be the profile's alone.
    ///
    /// # Errors
    ///
    /// As [`Context::primary`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    #[doc(alias = "cuDevicePrimaryCtxRetain")]
    pub fn primary(profile: &Profile, device: Device, budget: Budget) -> Result<Self> {
        let _ = profile;
        Ok(Self::of(Context::primary(device)?, budget))
    }

    fn of(context: Context, budget: Budget) -> Self {
        Self {
            device: context.device(),
            context,
            budget: BudgetUse::new(budget),
        }
    }

    /// `cuCtxPushCurrent`—Pushes the context on this thread's stack: the guard pops it on drop
    /// or at [`shutdown`](RestrictedGuard::shutdown).
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
        &'ctx self,
        stack: &'stack mut Stack,
    ) -> Result<RestrictedGuard<'ctx, 'stack>> {
        Ok(RestrictedGuard {
            guard: stack.push(&self.context)?,
            context: self,
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

    /// The page-locked bytes init phases have allocated so far, against the budget.
    pub fn page_locked_used(&self) -> usize {
        self.budget.page_locked_used()
    }

    /// `cuCtxDestroy`—Destroys a context made by [`new`](Self::new) (releases a primary one),
    /// returning the driver's error, which a drop could only record.
    ///
    /// # Errors
    ///
    /// As [`Context::destroy`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxDestroy")]
    pub fn destroy(self) -> Result<()> {
        self.context.destroy()
    }
}

/// The guard of a [`RestrictedContext`]: `!Send`, pops on drop, and lends nothing itself. Its
/// [`init`](Self::init) opens the one init phase, which makes everything and is then sealed
/// into the run phase; [`shutdown`](Self::shutdown) ends the run phase.
///
/// `init` borrows the guard exclusively for as long as anything init made lives, so a second
/// init phase cannot begin while the run phase or any of its values is alive (C27). It has no
/// nested push: one restricted context is current on its thread.
#[must_use = "dropping the guard pops the context straight away"]
#[derive(Debug)]
pub struct RestrictedGuard<'ctx, 'stack> {
    guard: PushedGuard<'ctx, 'stack>,
    context: &'ctx RestrictedContext,
}

static_assertions::assert_not_impl_any!(RestrictedGuard<'static, 'static>: Send, Sync);

impl RestrictedGuard<'_, '_> {
    /// Opens the init phase: the only place where anything is created under the profile.
    pub fn init(&mut self) -> InitPhase<'_> {
        InitPhase::new(&self.guard, &self.context.budget)
    }

    /// Ends the run phase before `main` returns (CUDA-1.1, CUDA-1.2): synchronizes the
    /// context, pops it, and surfaces every error a drop recorded ([`take_drop_errors`]) and
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
    pub fn shutdown(self) -> Result<()> {
        let synchronized = self.guard.synchronize();
        let popped = self.guard.pop();
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
