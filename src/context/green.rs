//! Green contexts (CUDA 12.4; looked up, not linked): contexts over a partition of a device's
//! SMs, pushed with the same [`Stack`] and lending the same handles as any context.
//!
//! ```text
//!   device.sm_resource()          -> SmResource           cuDeviceGetDevResource
//!   resource.split(groups, min)   -> SmSplit<'r>          cuDevSmResourceSplitByCount
//!   GreenContext::new(&partition) -> GreenContext<'r>     cuDevResourceGenerateDesc, cuGreenCtxCreate
//!   stack.push_green(&green)      -> PushedGuard<'_, '_, Green>   lends streams, memory, modules …
//! ```
//!
//! Partitions and green contexts borrow the resource they were split from, so neither outlives
//! it (C20). A green context may be current on one thread at a time (the driver does not
//! synchronize concurrent use), so [`GreenContext`] is `!Send` and `!Sync`: only the thread that
//! made it can push it. Its buffers, modules and pending submissions park as for any context
//! ([`PushedGuard::park`], [`PushedGuard::park_submission`]), but their parked forms are of
//! kind [`Green`] and `!Send` (a parked resource pushes its context when dropped), so they stay
//! on this thread too. That is how one thread keeps work pending on two green contexts of one
//! GPU (P9; `examples/17_green_partitions.rs`).

use crate::context::primary::live_green;
use crate::context::stack::{Green, PushedGuard, Stack};
use crate::driver::Device;
use crate::driver::lookup;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use core::ffi::c_uint;
use core::marker::PhantomData;

/// A device's streaming multiprocessors as a resource that can be split
/// ([`Device::sm_resource`]). Plain data describing the SMs, not a handle; not `Copy`, so that
/// dropping it ends what was split from it.
#[derive(Clone, Debug)]
#[doc(alias = "CUdevResource")]
pub struct SmResource {
    raw: ffi::CUdevResource,
    device: Device,
}

/// A group of SMs split from an [`SmResource`]; borrows it.
#[derive(Clone, Copy, Debug)]
pub struct SmPartition<'r> {
    raw: ffi::CUdevResource,
    device: Device,
    _resource: PhantomData<&'r SmResource>,
}

/// The result of [`SmResource::split`]: the groups, and what was left over (possibly no SMs).
#[derive(Debug)]
pub struct SmSplit<'r> {
    /// Disjoint groups, each of at least the requested number of SMs.
    pub groups: Vec<SmPartition<'r>>,
    /// The SMs in no group.
    pub remaining: SmPartition<'r>,
}

impl Device {
    /// `cuDeviceGetDevResource`—The device's SMs, as a resource to split into green contexts
    /// (CUDA 12.4; looked up).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) before driver 12.4; driver
    /// errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuDeviceGetDevResource")]
    pub fn sm_resource(self) -> Result<SmResource> {
        crate::error::confinement::full_api("Device::sm_resource")?;
        self.sm_resource_unconfined()
    }

    /// [`sm_resource`](Self::sm_resource) without the confinement check: the restricted
    /// profile's own path (its init phase's partitions), which counts what it makes.
    pub(crate) fn sm_resource_unconfined(self) -> Result<SmResource> {
        let get = lookup::DEVICE_GET_DEV_RESOURCE.get()?;
        let mut raw = ffi::CUdevResource::ZEROED;
        // SAFETY: `raw` is a writable `CUdevResource`; the device is valid (a `Device` exists
        // only after `cuInit`).
        unsafe {
            get(
                self.as_raw(),
                &raw mut raw,
                ffi::CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM,
            )
        }
        .result()?;
        Ok(SmResource { raw, device: self })
    }
}

impl SmResource {
    /// The number of SMs.
    pub fn sm_count(&self) -> u32 {
        self.raw.sm.smCount
    }

    /// The device whose SMs these are.
    pub fn device(&self) -> Device {
        self.device
    }

    /// `cuDevSmResourceSplitByCount`—Splits the SMs into up to `groups` disjoint groups of at
    /// least `min_sm_count` SMs each (the driver may round up to its partition granularity, and
    /// make fewer groups if there are not enough SMs), and what remains.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for 0 groups or more groups than SMs, before the driver;
    /// as [`Device::sm_resource`]; `CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION` and the like.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuDevSmResourceSplitByCount")]
    pub fn split(&self, groups: u32, min_sm_count: u32) -> Result<SmSplit<'_>> {
        // A group holds at least one SM: more groups than SMs can never be made, and the array
        // the driver fills is allocated before the call (a `u32::MAX` would abort on the
        // allocation instead of returning an error).
        if groups == 0 || groups > self.sm_count() {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "cuDevSmResourceSplitByCount: {groups} groups asked of {} SMs (1 to the SM \
                     count)",
                    self.sm_count()
                ),
            ));
        }
        let split = lookup::DEV_SM_RESOURCE_SPLIT_BY_COUNT.get()?;
        let mut result = vec![ffi::CUdevResource::ZEROED; groups as usize];
        let mut made: c_uint = groups;
        let mut remaining = ffi::CUdevResource::ZEROED;
        // SAFETY: `result` holds `groups` writable resources and `made` says so; `input` is a
        // resource the driver filled; `remaining` is writable.
        unsafe {
            split(
                result.as_mut_ptr(),
                &raw mut made,
                &raw const self.raw,
                &raw mut remaining,
                0,
                min_sm_count,
            )
        }
        .result()?;
        result.truncate(made as usize);
        let partition = |raw| SmPartition {
            raw,
            device: self.device,
            _resource: PhantomData,
        };
        Ok(SmSplit {
            groups: result.into_iter().map(partition).collect(),
            remaining: partition(remaining),
        })
    }
}

impl SmPartition<'_> {
    /// The number of SMs in the group.
    pub fn sm_count(&self) -> u32 {
        self.raw.sm.smCount
    }
}

/// A green context: a context over a partition of a device's SMs (CUDA 12.4; looked up).
/// Push it with [`Stack::push_green`]; its guard lends the same handles as any guard.
///
/// Borrows the [`SmResource`] its partition came from. `!Send` and `!Sync`: a green context may
/// be current on one thread at a time, so it stays on the thread that made it. Destroyed on drop
/// (`cuGreenCtxDestroy`).
///
/// # Examples
///
/// ```no_run
/// use custack::{Driver, GreenContext, Stack};
/// let device = Driver::init()?.device(0)?;
/// let sms = device.sm_resource()?;
/// let split = sms.split(2, 16)?; // two groups of at least 16 SMs
/// let green = GreenContext::new(&split.groups[0])?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push_green(&green)?;
/// let buf = guard.alloc_zeroed::<u32>(1024)?; // kernels launched here run on that group's SMs
/// # drop(buf);
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
#[doc(alias = "CUgreenCtx")]
pub struct GreenContext<'r> {
    green: ffi::CUgreenCtx,
    ctx: ffi::CUcontext,
    sm_count: u32,
    // Borrows the resource; one thread only (`!Send`, `!Sync`).
    _marker: PhantomData<(&'r SmResource, *const ())>,
}

static_assertions::assert_not_impl_any!(GreenContext<'static>: Send, Sync);

impl<'r> GreenContext<'r> {
    /// `cuDevResourceGenerateDesc`, `cuGreenCtxCreate`, `cuCtxFromGreenCtx`—Creates a green
    /// context over `partition`'s SMs, with a default stream.
    ///
    /// # Errors
    ///
    /// As [`Device::sm_resource`]; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuGreenCtxCreate")]
    pub fn new(partition: &SmPartition<'r>) -> Result<Self> {
        crate::error::confinement::full_api("GreenContext::new")?;
        let (green, ctx) = create_green(partition)?;
        Ok(Self {
            green,
            ctx,
            sm_count: partition.sm_count(),
            _marker: PhantomData,
        })
    }

    /// The `CUcontext` that stands for this green context (`cuCtxFromGreenCtx`).
    pub fn as_raw(&self) -> ffi::CUcontext {
        self.ctx
    }

    /// The raw `CUgreenCtx`.
    pub fn as_raw_green(&self) -> ffi::CUgreenCtx {
        self.green
    }

    /// The number of SMs of the partition it was made from.
    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    /// `cuGreenCtxDestroy`—Destroys the green context, returning the driver's error.
    ///
    /// # Errors
    ///
    /// The driver's error; after a sticky error (or in a forked child) that error, without
    /// calling the driver (R20). [`ErrorKind::HostFunctionPanicked`] where a
    /// host function of the green context panicked and no wait reported it: it is destroyed all
    /// the same.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuGreenCtxDestroy")]
    pub fn destroy(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        this.end()
    }

    /// Destroys the green context; then its handle has ended, and its host functions'
    /// unreported panics go with it (returned), never to a context made later at the address.
    fn end(&self) -> Result<()> {
        destroy_green(self.green)?;
        crate::error::host_panic::take_all_of(self.ctx as usize)
    }
}

/// `cuDevResourceGenerateDesc`, `cuGreenCtxCreate`, `cuCtxFromGreenCtx`: a green context over
/// `partition`'s SMs, with its default stream, and the `CUcontext` that stands for it. No
/// confinement check: [`GreenContext::new`] asks first; the restricted profile's partitions
/// come here from its init phase, which counts them. The caller destroys the green context
/// ([`destroy_green`]).
pub(crate) fn create_green(
    partition: &SmPartition<'_>,
) -> Result<(ffi::CUgreenCtx, ffi::CUcontext)> {
    let generate = lookup::DEV_RESOURCE_GENERATE_DESC.get()?;
    let create = lookup::GREEN_CTX_CREATE.get()?;
    let from_green = lookup::CTX_FROM_GREEN_CTX.get()?;
    // Looked up before any green context is made, so that no destroy of one meets a failed
    // lookup ([`destroy_green`]'s is then cached).
    lookup::GREEN_CTX_DESTROY.get()?;
    // Before the lock: a forked child may have inherited it held, and it makes no call (R22).
    crate::error::poison::check()?;
    let mut live = live_green();
    let mut resource = partition.raw;
    let mut desc = core::ptr::null_mut();
    // SAFETY: one resource the driver filled (a copy: the driver only reads it); valid
    // out-pointer.
    unsafe { generate(&raw mut desc, &raw mut resource, 1) }.result()?;
    let mut green = core::ptr::null_mut();
    let flags = ffi::CU_GREEN_CTX_DEFAULT_STREAM;
    // SAFETY: a descriptor just generated; the partition's device; valid out-pointer.
    unsafe { create(&raw mut green, desc, partition.device.as_raw(), flags) }.result()?;
    let mut ctx = core::ptr::null_mut();
    // SAFETY: a live green context; valid out-pointer.
    if let Err(e) = unsafe { from_green(&raw mut ctx, green) }.result() {
        // Counted, and released as every green context is ([`destroy_green`]): through the one
        // gate, so a sticky answer here, now the process's poison, destroys nothing (R20) and
        // the green context stays counted, the primary context's reset refused; a destroy that
        // fails keeps it counted too. Its error goes to the drop log, the call's is returned.
        live.push((green.addr(), partition.device.as_raw()));
        drop(live);
        if let Err(d) = destroy_green(green) {
            record_drop_error(d);
        }
        return Err(e);
    }
    live.push((green.addr(), partition.device.as_raw()));
    Ok((green, ctx))
}

/// `cuGreenCtxStreamCreate`—A stream of `green` (non-blocking, default priority): work on it
/// runs on the green context's SMs, whichever context is current when it is enqueued. The
/// caller owns the stream.
///
/// # Safety
///
/// `green` is a live green context.
pub(crate) unsafe fn green_stream(green: ffi::CUgreenCtx) -> Result<ffi::CUstream> {
    let create = lookup::GREEN_CTX_STREAM_CREATE.get()?;
    let mut stream = core::ptr::null_mut();
    let flags = ffi::CUstream_flags::CU_STREAM_NON_BLOCKING.0 as c_uint;
    // SAFETY: `green` is live (the caller's promise); valid out-pointer; the flag the entry
    // point requires.
    unsafe { create(&raw mut stream, green, flags, 0) }.result()?;
    Ok(stream)
}

pub(crate) fn destroy_green(green: ffi::CUgreenCtx) -> Result<()> {
    // Poisoned or forked (R20, R22): left to the process's end.
    crate::error::left_behind::release(
        crate::error::left_behind::Object::GreenContext,
        green as u64,
    )?;
    // A green context exists only after its entry points were found, so this lookup is cached.
    let destroy = lookup::GREEN_CTX_DESTROY.get()?;
    // Held across the destroy and the entry's removal, as a creation holds it across the
    // creation and the entry's addition: no green context made meanwhile (the driver may give it
    // this one's address, on another device) can have its entry taken for this one's, which
    // would let its device's primary context be reset under it (C5).
    let mut live = live_green();
    // SAFETY: a live green context, destroyed once; no guard of it is alive (guards borrow it).
    unsafe { destroy(green) }.result()?;
    if let Some(at) = live.iter().position(|(g, _)| *g == green.addr()) {
        live.swap_remove(at);
    }
    Ok(())
}

impl Drop for GreenContext<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.end() {
            record_drop_error(e);
        }
    }
}

impl Stack {
    /// `cuCtxPushCurrent`—Pushes a green context on this thread and returns the guard that pops
    /// it; the guard lends the same handles as [`push`](Self::push)'s, and parks them as `!Send`
    /// parked forms of kind [`Green`].
    ///
    /// # Errors
    ///
    /// The driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxPushCurrent")]
    pub fn push_green<'c>(
        &mut self,
        ctx: &'c GreenContext<'_>,
    ) -> Result<PushedGuard<'c, '_, Green>> {
        // SAFETY: `ctx.as_raw()` is live for `'c` (borrowed); a green context is current on no
        // other thread: it never leaves the thread that made it (`!Send`, `!Sync`).
        unsafe { PushedGuard::push_raw(ctx.as_raw()) }
    }
}
