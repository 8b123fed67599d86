//! The process's entry into the profile ([`Profile`]) and the fixed resources a context states
//! up front ([`Budget`]).

use crate::driver::{Device, Driver};
use crate::error::{Error, ErrorKind, Result};
use core::sync::atomic::{AtomicUsize, Ordering};

/// The proof that this process initialized CUDA for the restricted profile: the driver without
/// its log callback (NVIDIA's safety subset has no callbacks, CUDA SAFETY 1.1), and the child
/// of a later `fork` refusing every call (`ErrorKind::ForkedProcess`: a forked child must
/// `exec` before any CUDA call, CUDA-1.6). Every [`RestrictedContext`] is made from one.
///
/// [`RestrictedContext`]: crate::safety::RestrictedContext
///
/// # Examples
///
/// ```no_run
/// use custack::safety::{Budget, Profile, RestrictedContext};
/// let profile = Profile::init()?;
/// let ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
/// # let _ = ctx;
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    driver: Driver,
}

impl Profile {
    /// `cuInit`, without the driver-log callback that [`Driver::init`] registers. Registers
    /// (once) the fork handler that makes a forked child refuse every call.
    ///
    /// From its first step, before the driver is asked, the process is confined to the profile
    /// for good, whatever this returns: every entry to the full API ([`Driver::init`],
    /// [`Context::new`](crate::Context::new) and `primary`, a full
    /// [`Stack::push`](crate::Stack::push), green contexts, `Library::load_ptx`,
    /// [`name_launches(true)`](crate::name_launches), NVRTC, cuRAND's host generators, NCCL's
    /// ids) returns `ErrorKind::OutsideProfile`, whoever calls it: the application, a
    /// dependency, another thread. A program that starts in the subset cannot leave it.
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` if a [`Driver::init`] already registered the callback (the
    /// driver keeps it for the whole process: call `Profile::init` first), or if the fork
    /// handler could not be registered; `cuInit`'s errors (`CUDA_ERROR_NO_DEVICE`, …).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html>
    #[doc(alias = "cuInit")]
    pub fn init() -> Result<Self> {
        // First, whatever follows: once this has run, the process is confined to the profile
        // (every entry to the full API refuses), even where the init below fails.
        crate::error::confinement::confine();
        // A forked child is refused here too (it must exec first); the fork handler is
        // registered before `cuInit`, so a child forked after a failed init is refused as well.
        crate::error::poison::check()?;
        crate::error::poison::watch_forks()?;
        let driver = crate::driver::init_without_callbacks()?;
        Ok(Self { driver })
    }

    /// The device with this ordinal ([`Driver::device`]).
    ///
    /// # Errors
    ///
    /// As [`Driver::device`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGet")]
    pub fn device(self, ordinal: usize) -> Result<Device> {
        self.driver.device(ordinal)
    }

    /// The initialized driver, for its queries (version, devices); a profile process never
    /// registers callbacks, so this is the only way to it that a profile needs. What would
    /// leave the profile through it (`Library::load_ptx`) is refused.
    pub fn driver(self) -> Driver {
        self.driver
    }
}

/// The fixed resources a [`RestrictedContext`](crate::safety::RestrictedContext) states when it is
/// made: the most page-locked host memory its init phase may allocate, in bytes, over the
/// context's life (freeing does not return budget: the run phase allocates nothing, so the
/// figure is what the program holds).
///
/// # Examples
///
/// ```
/// let budget = custack::safety::Budget::page_locked(4 << 20);
/// assert_eq!(budget.page_locked_bytes(), 4 << 20);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    page_locked_bytes: usize,
}

impl Budget {
    /// At most `bytes` of page-locked host memory.
    pub const fn page_locked(bytes: usize) -> Self {
        Self {
            page_locked_bytes: bytes,
        }
    }

    /// The page-locked bytes stated.
    pub const fn page_locked_bytes(self) -> usize {
        self.page_locked_bytes
    }
}

/// A [`Budget`] and what the init phase has taken of it.
#[derive(Debug)]
pub(crate) struct BudgetUse {
    budget: Budget,
    page_locked: AtomicUsize,
}

impl BudgetUse {
    pub(crate) fn new(budget: Budget) -> Self {
        Self {
            budget,
            page_locked: AtomicUsize::new(0),
        }
    }

    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    pub(crate) fn page_locked_used(&self) -> usize {
        self.page_locked.load(Ordering::Relaxed)
    }

    /// Counts `bytes` of page-locked memory against the budget, or refuses them.
    pub(crate) fn take_page_locked(&self, bytes: usize) -> Result<()> {
        let limit = self.budget.page_locked_bytes();
        self.page_locked
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&total| total <= limit)
            })
            .map(drop)
            .map_err(|used| {
                Error::custack(
                    ErrorKind::OutsideProfile,
                    format!(
                        "page-locked memory past the context's budget: {bytes} bytes asked, \
                         {used} of {limit} already allocated"
                    ),
                )
            })
    }

    /// Gives back `bytes` counted by [`take_page_locked`](Self::take_page_locked) for an
    /// allocation that failed.
    pub(crate) fn return_page_locked(&self, bytes: usize) {
        self.page_locked.fetch_sub(bytes, Ordering::Relaxed);
    }
}
