//! Queries and settings of the current context, lent by its [`PushedGuard`].

use crate::context::ContextFlags;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::deadline::{Deadline, Polled, passed, poll};
use crate::driver::{Device, Version};
use crate::error::Result;
use crate::error::left_behind::{Object, left_behind};
use crate::ffi;
use core::ffi::{c_int, c_uint, c_ulonglong};
use core::time::Duration;

/// A per-context limit (`CUlimit`).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "CUlimit")]
pub enum Limit {
    /// `CU_LIMIT_STACK_SIZE`: stack size in bytes of each GPU thread.
    StackSize,
    /// `CU_LIMIT_PRINTF_FIFO_SIZE`: size in bytes of the FIFO used by device `printf`.
    PrintfFifoSize,
    /// `CU_LIMIT_MALLOC_HEAP_SIZE`: size in bytes of the heap used by device `malloc`.
    MallocHeapSize,
    /// `CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH`: device runtime synchronize depth.
    DevRuntimeSyncDepth,
    /// `CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT`: device runtime pending launches.
    DevRuntimePendingLaunchCount,
    /// `CU_LIMIT_MAX_L2_FETCH_GRANULARITY`: L2 fetch granularity in bytes (a hint).
    MaxL2FetchGranularity,
    /// `CU_LIMIT_PERSISTING_L2_CACHE_SIZE`: persisting L2 cache size in bytes.
    PersistingL2CacheSize,
}

impl Limit {
    fn raw(self) -> ffi::CUlimit {
        match self {
            Self::StackSize => ffi::CUlimit::CU_LIMIT_STACK_SIZE,
            Self::PrintfFifoSize => ffi::CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE,
            Self::MallocHeapSize => ffi::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE,
            Self::DevRuntimeSyncDepth => ffi::CUlimit::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH,
            Self::DevRuntimePendingLaunchCount => {
                ffi::CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
            }
            Self::MaxL2FetchGranularity => ffi::CUlimit::CU_LIMIT_MAX_L2_FETCH_GRANULARITY,
            Self::PersistingL2CacheSize => ffi::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
        }
    }
}

/// Preferred split between L1 cache and shared memory (`CUfunc_cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "CUfunc_cache")]
pub enum CacheConfig {
    /// No preference.
    PreferNone,
    /// Prefer more shared memory.
    PreferShared,
    /// Prefer more L1 cache.
    PreferL1,
    /// Prefer equal L1 and shared memory.
    PreferEqual,
    /// A value this version of custack does not name, kept as the driver returned it.
    Other(i32),
}

impl CacheConfig {
    pub(crate) fn raw(self) -> ffi::CUfunc_cache {
        match self {
            Self::PreferNone => ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE,
            Self::PreferShared => ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED,
            Self::PreferL1 => ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_L1,
            Self::PreferEqual => ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL,
            Self::Other(v) => ffi::CUfunc_cache(v),
        }
    }
    fn from_raw(raw: ffi::CUfunc_cache) -> Self {
        match raw {
            ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE => Self::PreferNone,
            ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED => Self::PreferShared,
            ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_L1 => Self::PreferL1,
            ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL => Self::PreferEqual,
            ffi::CUfunc_cache(v) => Self::Other(v),
        }
    }
}

/// `cuCtxGetExecAffinity` of the SM count for the current context: the driver's answer and, where
/// it is `CUDA_SUCCESS`, the count. The caller reads the answer (a guard's query returns it, the
/// cooperative launch's check tolerates the codes that mean "no affinity to count").
pub(crate) fn current_sm_count_affinity() -> (ffi::CUresult, u32) {
    let mut param = ffi::CUexecAffinityParam {
        type_: ffi::CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_SM_COUNT,
        param: 0,
    };
    let kind = ffi::CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_SM_COUNT;
    // SAFETY: valid out-pointer; the query reads the current context only.
    let answer = unsafe { ffi::cuCtxGetExecAffinity(&raw mut param, kind) };
    (answer, param.param)
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuCtxGetExecAffinity`—The number of SMs the context may use (its SM-count execution
    /// affinity; all of the device's for a context made without one).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetExecAffinity")]
    pub fn sm_count_affinity(&self) -> Result<u32> {
        crate::error::poison::check()?;
        let (answer, sms) = current_sm_count_affinity();
        answer.result()?;
        Ok(sms)
    }

    /// `cuCtxGetSharedMemConfig`—The shared memory bank size configuration (devices of compute
    /// capability 5.0 and later have fixed 4-byte banks and report the default).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetSharedMemConfig")]
    pub fn shared_mem_config(&self) -> Result<ffi::CUsharedconfig> {
        crate::error::poison::check()?;
        let mut config = ffi::CUsharedconfig::CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
        // SAFETY: valid out-pointer; this guard's context is current.
        unsafe { ffi::cuCtxGetSharedMemConfig(&raw mut config) }.result()?;
        Ok(config)
    }

    /// `cuCtxSetSharedMemConfig`—Sets the shared memory bank size configuration (a no-op on
    /// devices with fixed bank sizes).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxSetSharedMemConfig")]
    pub fn set_shared_mem_config(&self, config: ffi::CUsharedconfig) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: this guard's context is current; the driver checks the value.
        unsafe { ffi::cuCtxSetSharedMemConfig(config) }.result()
    }

    /// `cuCtxResetPersistingL2Cache`—Returns every persisting L2 cache line of the context to
    /// normal.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxResetPersistingL2Cache")]
    pub fn reset_persisting_l2_cache(&self) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: no arguments; this guard's context is current.
        unsafe { ffi::cuCtxResetPersistingL2Cache() }.result()
    }

    /// `cuCtxSynchronize`—Waits for all work of the context, from every thread.
    ///
    /// # Errors
    ///
    /// The first error of the context's earlier asynchronous work, or a sticky error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxSynchronize")]
    #[track_caller]
    pub fn synchronize(&self) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: no arguments; this guard's context is current.
        unsafe { ffi::cuCtxSynchronize() }.result_by(crate::error::Observer::ContextSynchronize)
    }

    /// `cuCtxRecordEvent`, then `cuEventQuery` until all work of the context (from every
    /// thread, on every stream) is complete or `deadline` passes ([R19](crate::Deadline);
    /// CUDA 12.5, looked up, not linked).
    ///
    /// # Errors
    ///
    /// As [`synchronize`](Self::synchronize);
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) (naming this call site)
    /// if the work was not complete by then: nothing is released either way.
    /// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) on a driver older than
    /// 12.5, which has no way to ask whether a whole context is idle without blocking.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::{Deadline, ErrorKind};
    /// use std::time::Duration;
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// match guard.synchronize_by(Deadline::after(Duration::from_secs(1))) {
    ///     Err(e) if e.kind() == ErrorKind::DeadlinePassed => eprintln!("still busy: {e}"),
    ///     other => other?,
    /// }
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxRecordEvent")]
    #[track_caller]
    pub fn synchronize_by(&self, deadline: Deadline) -> Result<()> {
        crate::error::poison::check()?;
        let site = core::panic::Location::caller();
        // SAFETY: this guard's context is current.
        match unsafe { idle_by(self.as_raw(), deadline, site) }? {
            Ok(()) => Ok(()),
            Err(waited) => Err(passed(
                format_args!("the context synchronized at {site}"),
                waited,
            )),
        }
    }

    /// `cuCtxGetDevice`—The device of the context.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetDevice")]
    pub fn device(&self) -> Result<Device> {
        crate::error::poison::check()?;
        let mut raw: ffi::CUdevice = 0;
        // SAFETY: valid out-pointer; this guard's context is current.
        unsafe { ffi::cuCtxGetDevice(&raw mut raw) }.result()?;
        Ok(Device::from_raw(raw))
    }

    /// `cuCtxGetApiVersion`—The API version the context was created with (e.g. 12.2).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetApiVersion")]
    pub fn api_version(&self) -> Result<Version> {
        crate::error::poison::check()?;
        let mut v: c_uint = 0;
        // SAFETY: valid out-pointer; the context is live.
        unsafe { ffi::cuCtxGetApiVersion(self.as_raw(), &raw mut v) }.result()?;
        Ok(Version::from_raw(v))
    }

    /// `cuCtxGetFlags`—The context's flags.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetFlags")]
    pub fn flags(&self) -> Result<ContextFlags> {
        crate::error::poison::check()?;
        let mut f: c_uint = 0;
        // SAFETY: valid out-pointer; this guard's context is current.
        unsafe { ffi::cuCtxGetFlags(&raw mut f) }.result()?;
        Ok(ContextFlags::from_bits_retain(f))
    }

    /// `cuCtxGetId`—The context's unique id within the process.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetId")]
    pub fn unique_id(&self) -> Result<u64> {
        crate::error::poison::check()?;
        let mut id: c_ulonglong = 0;
        // SAFETY: valid out-pointer; the context is live.
        unsafe { ffi::cuCtxGetId(self.as_raw(), &raw mut id) }.result()?;
        Ok(id)
    }

    /// `cuCtxGetLimit`—A limit's current value.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetLimit")]
    pub fn limit(&self, limit: Limit) -> Result<usize> {
        crate::error::poison::check()?;
        let mut v = 0usize;
        // SAFETY: valid out-pointer; this guard's context is current.
        unsafe { ffi::cuCtxGetLimit(&raw mut v, limit.raw()) }.result()?;
        Ok(v)
    }

    /// `cuCtxSetLimit`—Sets a limit (the driver may round it).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxSetLimit")]
    pub fn set_limit(&self, limit: Limit, value: usize) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: plain values; this guard's context is current.
        unsafe { ffi::cuCtxSetLimit(limit.raw(), value) }.result()
    }

    /// `cuCtxGetCacheConfig`—The preferred cache configuration.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetCacheConfig")]
    pub fn cache_config(&self) -> Result<CacheConfig> {
        crate::error::poison::check()?;
        let mut c = ffi::CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE;
        // SAFETY: valid out-pointer; this guard's context is current.
        unsafe { ffi::cuCtxGetCacheConfig(&raw mut c) }.result()?;
        Ok(CacheConfig::from_raw(c))
    }

    /// `cuCtxSetCacheConfig`—Sets the preferred cache configuration.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxSetCacheConfig")]
    pub fn set_cache_config(&self, config: CacheConfig) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: plain value; this guard's context is current.
        unsafe { ffi::cuCtxSetCacheConfig(config.raw()) }.result()
    }

    /// `cuCtxGetStreamPriorityRange`—`(least, greatest)` stream priorities; greatest is the
    /// numerically lowest.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetStreamPriorityRange")]
    pub fn stream_priority_range(&self) -> Result<(i32, i32)> {
        crate::error::poison::check()?;
        let (mut least, mut greatest): (c_int, c_int) = (0, 0);
        // SAFETY: valid out-pointers; this guard's context is current.
        unsafe { ffi::cuCtxGetStreamPriorityRange(&raw mut least, &raw mut greatest) }.result()?;
        Ok((least, greatest))
    }
}

/// Records an event after all work of `ctx` (`cuCtxRecordEvent`) and asks it until it completes
/// or `deadline` passes: `Ok(Ok(()))` once the context is idle, `Ok(Err(waited))` past the
/// deadline; the event is destroyed either way. A sticky error the query answers is recorded as
/// observed by a context's synchronize at `site` (R20).
///
/// # Errors
///
/// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) before driver 12.5; the event's
/// creation, record, destruction, or the error the query answers (the work's, a sticky one).
///
/// # Safety
///
/// `ctx` is a live context, current on this thread.
pub(crate) unsafe fn idle_by(
    ctx: ffi::CUcontext,
    deadline: Deadline,
    site: &'static core::panic::Location<'static>,
) -> Result<core::result::Result<(), Duration>> {
    let record = crate::driver::lookup::CTX_RECORD_EVENT.get()?;
    let mut event = core::ptr::null_mut();
    let flags = ffi::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 as c_uint;
    // SAFETY: valid out-pointer; `ctx` is current (the caller's promise).
    unsafe { ffi::cuEventCreate(&raw mut event, flags) }.result()?;
    // SAFETY: `ctx` is live and current (the caller's promise), `event` a live event of it.
    let polled = unsafe { record_and_poll(record, ctx, event, deadline, site) };
    // Poisoned or forked (R20, R22): the event is left, not destroyed (`release` names it).
    let destroyed =
        crate::error::left_behind::release(Object::Event, event as u64).and_then(|()| {
            // SAFETY: a live event of the current context, destroyed once; a pending record does
            // not stop that (Event Management).
            let destroyed = unsafe { ffi::cuEventDestroy_v2(event) }.result();
            if destroyed.is_err() {
                left_behind(Object::Event, event as u64);
            }
            destroyed
        });
    match polled {
        // Both failed: the wait's error, naming the destroy's (neither is lost).
        Polled::Done(Err(e)) => Err(match destroyed {
            Err(d) => e.and_failed_too("destroying its event", &d),
            Ok(()) => e,
        }),
        Polled::Done(Ok(())) => destroyed.map(Ok),
        Polled::Overdue(waited) => destroyed.map(|()| Err(waited)),
    }
}

/// [`idle_by`] with an event made before (the restricted run phase's, made in its init phase,
/// so that its context-wide wait creates nothing): records `event` after everything enqueued so
/// far in the context (`cuCtxRecordEvent`) and polls it until `deadline`.
///
/// # Errors
///
/// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) before driver 12.5; the
/// record's error, or the error the query answers.
///
/// # Safety
///
/// `ctx` is a live context, current on this thread, and `event` a live event of it.
pub(crate) unsafe fn idle_by_event(
    ctx: ffi::CUcontext,
    event: ffi::CUevent,
    deadline: Deadline,
    site: &'static core::panic::Location<'static>,
) -> Result<core::result::Result<(), Duration>> {
    let record = crate::driver::lookup::CTX_RECORD_EVENT.get()?;
    // SAFETY: the caller's promise.
    match unsafe { record_and_poll(record, ctx, event, deadline, site) } {
        Polled::Done(r) => r.map(Ok),
        Polled::Overdue(waited) => Ok(Err(waited)),
    }
}

/// `record` (`cuCtxRecordEvent`, looked up by the caller) of `event` in `ctx`, then
/// `cuEventQuery` until it answers or `deadline` passes.
///
/// # Safety
///
/// `ctx` is a live context, current on this thread, and `event` a live event of it.
unsafe fn record_and_poll(
    record: ffi::PFN_cuCtxRecordEvent,
    ctx: ffi::CUcontext,
    event: ffi::CUevent,
    deadline: Deadline,
    site: &'static core::panic::Location<'static>,
) -> Polled {
    // SAFETY: `ctx` is live and current, `event` a live event of it (the caller's promise).
    match unsafe { record(ctx, event) }.result() {
        // SAFETY: a live event of the current context.
        Ok(()) => poll(
            deadline,
            crate::error::Observer::ContextSynchronize,
            site,
            || unsafe { ffi::cuEventQuery(event) },
        ),
        Err(e) => Polled::Done(Err(e)),
    }
}
