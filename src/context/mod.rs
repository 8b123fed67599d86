//! Contexts as owned, floating values: created or primary, current on no thread until a
//! [`Stack`](crate::Stack) pushes them.

pub(crate) mod current;
pub(crate) mod green;
pub(crate) mod primary;
pub(crate) mod raw;
pub(crate) mod stack;

use crate::driver::Device;
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use core::ffi::{c_int, c_uint};
use core::ptr;
use std::sync::{Mutex, PoisonError};

bitflags::bitflags! {
    /// Context creation flags (`CUctx_flags`).
    ///
    /// At most one scheduling flag may be set; the driver rejects combinations with
    /// `CUDA_ERROR_INVALID_VALUE`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    #[doc(alias = "CUctx_flags")]
    pub struct ContextFlags: u32 {
        /// `CU_CTX_SCHED_SPIN`: spin while waiting for the GPU (lowest latency, busy CPU).
        const SCHED_SPIN = ffi::CUctx_flags::CU_CTX_SCHED_SPIN.0 as u32;
        /// `CU_CTX_SCHED_YIELD`: yield the thread while waiting for the GPU.
        const SCHED_YIELD = ffi::CUctx_flags::CU_CTX_SCHED_YIELD.0 as u32;
        /// `CU_CTX_SCHED_BLOCKING_SYNC`: block on a synchronization primitive while waiting.
        const SCHED_BLOCKING_SYNC = ffi::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC.0 as u32;
        /// `CU_CTX_MAP_HOST`: support mapped pinned allocations (always on in current drivers).
        const MAP_HOST = ffi::CUctx_flags::CU_CTX_MAP_HOST.0 as u32;
        /// `CU_CTX_LMEM_RESIZE_TO_MAX`: keep local memory allocations after a launch.
        const LMEM_RESIZE_TO_MAX = ffi::CUctx_flags::CU_CTX_LMEM_RESIZE_TO_MAX.0 as u32;
        /// `CU_CTX_COREDUMP_ENABLE`: GPU exceptions in this context trigger a coredump.
        const COREDUMP_ENABLE = ffi::CUctx_flags::CU_CTX_COREDUMP_ENABLE.0 as u32;
        /// `CU_CTX_USER_COREDUMP_ENABLE`: a user pipe can trigger a coredump of this context.
        const USER_COREDUMP_ENABLE = ffi::CUctx_flags::CU_CTX_USER_COREDUMP_ENABLE.0 as u32;
        /// `CU_CTX_SYNC_MEMOPS`: synchronous memory operations on this context always synchronize.
        const SYNC_MEMOPS = ffi::CUctx_flags::CU_CTX_SYNC_MEMOPS.0 as u32;
        // Bits a newer driver reports that this list does not name are kept, not dropped.
        const _ = !0;
    }
}

/// The devices whose primary context a custack [`Context`] holds.
///
/// Holding a primary context through one value only is what makes [`Context::reset`] sound:
/// with `&mut self`, no guard, buffer or page-locked allocation of that context can be alive.
static PRIMARY_HELD: Mutex<Vec<ffi::CUdevice>> = Mutex::new(Vec::new());

/// An owned CUDA context, current on no thread until pushed.
///
/// Either created by [`Context::new`] (destroyed on drop) or the device's primary context
/// retained by [`Context::primary`] (released on drop). Push it on a thread's
/// [`Stack`](crate::Stack) to get a [`PushedGuard`](crate::PushedGuard) that lends everything
/// that needs the context current.
///
/// A `Context` cannot be dropped or moved while any guard of it is alive, on any thread: the
/// guards borrow it.
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, Stack};
/// let device = Driver::init()?.device(0)?;
/// let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// println!("API version {}", guard.api_version()?);
/// drop(guard); // pops
/// ctx.destroy()?; // or let it drop
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
#[doc(alias = "CUcontext")]
pub struct Context {
    raw: ffi::CUcontext,
    device: Device,
    primary: bool,
}

// SAFETY: the driver API is thread-safe, and a context is not tied to the thread that created
// it: "a CUDA context may be current to multiple host threads at once" and any thread may push
// it (Driver API, Context Management: cuCtxPushCurrent, cuCtxSetCurrent). `Context` exposes no
// operation that assumes the context is current on the calling thread: everything that does is
// lent by a `PushedGuard`, which is `!Send` and `!Sync`. Destruction takes `self`, so no other
// thread holds a reference then.
unsafe impl Send for Context {}
// SAFETY: `&Context` only allows pushing the context (a thread-safe driver call) and reading
// immutable fields; see `Send` above.
unsafe impl Sync for Context {}

static_assertions::assert_impl_all!(Context: Send, Sync);

impl Context {
    /// `cuCtxCreate`—Creates a context on `device`, then pops it so that it floats.
    ///
    /// The driver pushes a new context on the calling thread; custack pops it straight away,
    /// so no thread has it current until a [`Stack`](crate::Stack) pushes it.
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. `CUDA_ERROR_INVALID_VALUE` for two scheduling flags, out of
    /// memory). If the pop after creation fails, the new context is destroyed and that error
    /// is returned.
    /// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
    /// ([`Profile::init`](crate::safety::Profile::init)).
    ///
    /// # References
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxCreate")]
    pub fn new(device: Device, flags: ContextFlags) -> Result<Self> {
        crate::error::confinement::full_api("Context::new")?;
        Self::create(device, flags)
    }

    /// `cuCtxCreate`, for [`new`](Self::new) and the restricted profile's context, which
    /// reaches it without asking the process's confinement.
    pub(crate) fn create(device: Device, flags: ContextFlags) -> Result<Self> {
        crate::error::poison::check()?;
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; `device` names a device of an initialized driver.
        unsafe { ffi::cuCtxCreate_v2(&raw mut raw, flags.bits(), device.as_raw()) }.result()?;
        Self::float_created(raw, device)
    }

    /// `cuCtxCreate_v4`—Creates a context on `device` whose work may use at most `sm_count`
    /// SMs (execution affinity), then pops it so that it floats (CUDA 12.5; looked up).
    ///
    /// Whether the device honours SM-count affinity is
    /// [`Device::supports_sm_count_affinity`]; NVIDIA documents it for MPS clients, and the driver
    /// may round the count up. [`PushedGuard::sm_count_affinity`](crate::PushedGuard::sm_count_affinity)
    /// reads back what the context got.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.5; `CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY`
    /// where the device does not support it; as [`new`](Self::new) otherwise.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxCreate_v4")]
    #[doc(alias = "cuCtxCreate")]
    pub fn with_sm_count(device: Device, flags: ContextFlags, sm_count: u32) -> Result<Self> {
        crate::error::confinement::full_api("Context::with_sm_count")?;
        let create = crate::driver::lookup::CTX_CREATE_V4.get()?;
        let mut affinity = ffi::CUexecAffinityParam {
            type_: ffi::CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_SM_COUNT,
            param: sm_count,
        };
        let mut params = ffi::CUctxCreateParams {
            execAffinityParams: &raw mut affinity,
            numExecAffinityParams: 1,
            cigParams: ptr::null_mut(),
        };
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer; `params` points to one affinity parameter, both live for the
        // call; `device` names a device of an initialized driver.
        unsafe { create(&raw mut raw, &raw mut params, flags.bits(), device.as_raw()) }.result()?;
        Self::float_created(raw, device)
    }

    /// Takes ownership of a context `cuCtxCreate*` just made and pushed, and pops it.
    fn float_created(raw: ffi::CUcontext, device: Device) -> Result<Self> {
        let ctx = Self {
            raw,
            device,
            primary: false,
        };
        let mut popped = ptr::null_mut();
        // SAFETY: `cuCtxCreate` pushed `raw` on this thread; popping it is balanced.
        let popped_result = unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) }.result();
        match popped_result {
            Ok(()) if popped == raw => Ok(ctx),
            Ok(()) => {
                // Someone else's context was on top: give it back and report.
                // SAFETY: `popped` is the live context we just popped from this thread.
                let _ = unsafe { ffi::cuCtxPushCurrent_v2(popped) };
                Err(Error::custack(
                    ErrorKind::ForeignContextOnTop,
                    "the context created by cuCtxCreate was not on top of the thread's stack",
                ))
            }
            Err(e) => {
                // Popped once more while still on top (`raw` is new, so it is no entry beneath;
                // what was beneath is not known, so nothing is claimed). Otherwise the drop of
                // `ctx` destroys it, which pops it too.
                crate::context::raw::after_failed_pop(raw, ptr::null_mut(), false, &e);
                Err(e)
            }
        }
    }

    /// `cuDevicePrimaryCtxRetain`—Retains the primary context of `device`.
    ///
    /// Released on drop. custack lets one value hold a device's primary context at a time
    /// (share it with `&` or `Arc`), which is what makes [`reset`](Self::reset) sound.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PrimaryContextInUse`] if another `Context` value holds it; driver errors.
    /// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
    /// ([`Profile::init`](crate::safety::Profile::init)).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, Driver, Stack};
    /// // The context the CUDA runtime API (cuBLAS, cuDNN, ...) uses on device 0.
    /// let ctx = Context::primary(Driver::init()?.device(0)?)?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// # drop(guard);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    #[doc(alias = "cuDevicePrimaryCtxRetain")]
    pub fn primary(device: Device) -> Result<Self> {
        crate::error::confinement::full_api("Context::primary")?;
        Self::retain_primary(device)
    }

    /// `cuDevicePrimaryCtxRetain`, for [`primary`](Self::primary) and the restricted
    /// profile's primary context, which reaches it without asking the process's confinement.
    pub(crate) fn retain_primary(device: Device) -> Result<Self> {
        crate::error::poison::check()?;
        let mut held = PRIMARY_HELD.lock().unwrap_or_else(PoisonError::into_inner);
        if held.contains(&device.as_raw()) {
            return Err(Error::custack(
                ErrorKind::PrimaryContextInUse,
                format!(
                    "device {} already has its primary context held by a custack Context",
                    device.ordinal()
                ),
            ));
        }
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; `device` names a device of an initialized driver.
        unsafe { ffi::cuDevicePrimaryCtxRetain(&raw mut raw, device.as_raw()) }.result()?;
        held.push(device.as_raw());
        Ok(Self {
            raw,
            device,
            primary: true,
        })
    }

    /// The device this context runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Whether this is the device's primary context.
    pub fn is_primary(&self) -> bool {
        self.primary
    }

    /// The raw `CUcontext`, for calling the raw layer. custack keeps ownership.
    pub fn as_raw(&self) -> ffi::CUcontext {
        self.raw
    }

    /// `cuCtxGetDevice`—Adopts a context created elsewhere (`cuCtxCreate` by another library
    /// or raw code) as a floating custack context: it is destroyed when dropped
    /// (`cuCtxDestroy`). Its device is read by pushing it briefly on this thread.
    ///
    /// To *borrow* a context custack must not destroy, wrap the result in
    /// [`ManuallyDrop`](core::mem::ManuallyDrop), push `&*ctx`, and never take it out
    /// (`ManuallyDrop::into_inner` or `drop` would destroy a context custack does not own).
    /// For a borrow the ownership bullet below reads instead: the owner keeps the context alive
    /// and off every other thread's use that would conflict, and destroys it only after that
    /// value, every guard of it, and every parked buffer or module of it (parked handles push
    /// the context on whichever thread drops them) are gone.
    ///
    /// # Safety
    ///
    /// - `raw` is a live context made by `cuCtxCreate` (any version): not a device's primary
    ///   context (use [`Context::primary`], which retains it) and not a green context's
    ///   (`cuCtxFromGreenCtx`: current on one thread at a time, which a `Context` does not
    ///   promise);
    /// - ownership passes to custack: nothing else destroys it, and when the returned value
    ///   is dropped the context is on no thread's stack and no foreign code uses it any more.
    ///
    /// # Errors
    ///
    /// The driver's error from the push, `cuCtxGetDevice` or the pop (for instance
    /// `CUDA_ERROR_INVALID_CONTEXT` for a destroyed handle). The context is not adopted then.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxGetDevice")]
    pub unsafe fn from_raw(raw: ffi::CUcontext) -> Result<Self> {
        crate::error::confinement::full_api("Context::from_raw")?;
        let mut device: ffi::CUdevice = 0;
        let query = || {
            // SAFETY: valid out-pointer; `raw` is current while this runs.
            unsafe { ffi::cuCtxGetDevice(&raw mut device) }.result()
        };
        // SAFETY: the caller guarantees `raw` is live; `query` leaves the stack as it was.
        unsafe { crate::context::raw::with_raw_current(raw, query) }?;
        Ok(Self {
            raw,
            device: Device::from_raw(device),
            primary: false,
        })
    }

    /// `cuDevicePrimaryCtxReset`—Destroys all allocations and state of the primary context
    /// and resets it; it is usable again afterwards.
    ///
    /// This is how a primary context recovers from a sticky error. `&mut self` proves that no
    /// guard, and so no buffer, module or page-locked allocation of it, is alive in custack.
    /// A green context's memory is the primary context's too, and its guard does not borrow
    /// this value: the reset is refused while a [`GreenContext`](crate::GreenContext) (or a
    /// restricted partition's) of the device lives.
    /// A reset does not release the primary context ("Resetting the primary context does not
    /// release it", Primary Context Management), but the old handle is dead: custack retains
    /// the fresh context, releases the extra count, and keeps the new handle.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for a created (non-primary) context: destroy it instead.
    /// [`ErrorKind::PrimaryContextInUse`] while a green context of the device lives (no driver
    /// call). Driver errors from the reset or the retain. [`ErrorKind::HostFunctionPanicked`]
    /// where a host function of the context before the reset panicked and no wait reported it:
    /// the reset is done all the same (the context is usable).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    #[doc(alias = "cuDevicePrimaryCtxReset")]
    pub fn reset(&mut self) -> Result<()> {
        crate::error::poison::check()?;
        if !self.primary {
            return Err(Error::from_kind(ErrorKind::InvalidValue)
                .with_detail("only a primary context can be reset; destroy a created context"));
        }
        let dev = self.device.as_raw();
        // A green context's memory is the primary context's, and a green guard's handles do
        // not borrow `self`: the reset is refused while one of this device lives (C5).
        let reset = crate::context::primary::unless_green_lives(dev, || {
            // SAFETY: `dev` is the device whose primary context we hold; `&mut self` means no
            // custack handle of the context is alive (all are lent by guards that borrow
            // `self`), and no green context of the device lives (checked under the lock that
            // every green context's creation takes).
            unsafe { ffi::cuDevicePrimaryCtxReset_v2(dev) }.result()
        });
        match reset {
            Ok(reset) => reset?,
            Err(live) => {
                return Err(Error::custack(
                    ErrorKind::PrimaryContextInUse,
                    format!(
                        "device {} has {live} green context(s) alive: their memory is the \
                         primary context's, which a reset destroys; destroy them first",
                        self.device.ordinal()
                    ),
                ));
            }
        }
        // The old handle is dead: its host functions' unreported panics are returned below, once
        // the context is usable again, and not kept for the fresh handle.
        let lost = crate::error::host_panic::take_all_of(self.raw as usize);
        // A retain or release that fails returns its error naming those panics, so that neither
        // is lost.
        let with_lost = |e: Error| match &lost {
            Ok(()) => e,
            Err(p) => e.and_failed_too("a host function of the reset context", p),
        };
        let mut fresh = ptr::null_mut();
        // SAFETY: valid out-pointer; `dev` is a device of an initialized driver.
        unsafe { ffi::cuDevicePrimaryCtxRetain(&raw mut fresh, dev) }
            .result()
            .map_err(with_lost)?;
        self.raw = fresh;
        // SAFETY: balances the retain just above; our original retain still holds the context.
        unsafe { ffi::cuDevicePrimaryCtxRelease_v2(dev) }
            .result()
            .map_err(with_lost)?;
        lost
    }

    /// Destroys a created context or releases a primary one, returning the driver's error
    /// instead of recording it as `Drop` does.
    ///
    /// # Errors
    ///
    /// The driver's error from `cuCtxDestroy` (created) or `cuDevicePrimaryCtxRelease` (primary).
    /// After a sticky error (or in a forked child) that error, without calling the driver: the
    /// context is left to the process's end, as GPU work may still use it (R20). The value is
    /// consumed either way. [`ErrorKind::HostFunctionPanicked`] where a host function of the
    /// context panicked and no wait reported it: the context is destroyed (or released) all the
    /// same, and the panic is not kept for a context made later at the same address.
    ///
    /// # References
    ///
    /// - <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    /// - <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    #[doc(alias = "cuCtxDestroy")]
    #[doc(alias = "cuDevicePrimaryCtxRelease")]
    pub fn destroy(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        this.release()
    }

    fn release(&self) -> Result<()> {
        // Poisoned or forked (R20, R22): neither destroyed nor released; with the context,
        // everything of it stays allocated until the process ends.
        crate::error::left_behind::release(Object::Context, self.raw as u64)?;
        if self.primary {
            let mut held = PRIMARY_HELD.lock().unwrap_or_else(PoisonError::into_inner);
            held.retain(|d| *d != self.device.as_raw());
            // SAFETY: we retained this device's primary context once and release it once.
            unsafe { ffi::cuDevicePrimaryCtxRelease_v2(self.device.as_raw()) }.result()?;
        } else {
            // SAFETY: `raw` was created by `cuCtxCreate` and is destroyed once (by `destroy`,
            // which forgets `self`, or by `drop`). No guard borrows `self` now.
            unsafe { ffi::cuCtxDestroy_v2(self.raw) }.result()?;
        }
        // The handle has ended: its host functions' unreported panics go with it (returned, or
        // recorded by `drop`), never to a context made later at the same address.
        crate::error::host_panic::take_all_of(self.raw as usize)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}

impl Device {
    /// `cuDevicePrimaryCtxGetState`—The primary context's flags and whether it is active.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    #[doc(alias = "cuDevicePrimaryCtxGetState")]
    pub fn primary_context_state(self) -> Result<(ContextFlags, bool)> {
        crate::error::poison::check()?;
        let mut flags: c_uint = 0;
        let mut active: c_int = 0;
        // SAFETY: both out-pointers are valid and writable.
        unsafe { ffi::cuDevicePrimaryCtxGetState(self.as_raw(), &raw mut flags, &raw mut active) }
            .result()?;
        Ok((ContextFlags::from_bits_retain(flags), active != 0))
    }

    /// `cuDevicePrimaryCtxSetFlags`—Sets the flags the primary context is (re)created with.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__PRIMARY__CTX.html>
    #[doc(alias = "cuDevicePrimaryCtxSetFlags")]
    pub fn set_primary_context_flags(self, flags: ContextFlags) -> Result<()> {
        crate::error::confinement::full_api("Device::set_primary_context_flags")?;
        crate::error::poison::check()?;
        // SAFETY: plain values only.
        unsafe { ffi::cuDevicePrimaryCtxSetFlags_v2(self.as_raw(), flags.bits()) }.result()
    }
}
