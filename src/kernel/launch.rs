//! Kernel functions, launch configurations and kernel arguments.

use crate::asynchronous::payload::{Payload, copied_forms, sealed as payload_sealed};
use crate::error::Result;
use crate::ffi;
use crate::vocabulary::argument::{KernelArg, KernelParam, sealed};
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

/// A kernel in a loaded [`Module`](crate::Module); borrows it, so it cannot outlive it (C9).
#[derive(Debug, Clone, Copy)]
#[doc(alias = "CUfunction")]
pub struct Function<'m> {
    raw: ffi::CUfunction,
    _marker: PhantomData<(&'m (), *const ())>,
}

static_assertions::assert_eq_size!(Function<'static>, ffi::CUfunction);

/// More parameters than any kernel has: a kernel's parameters take at most 32,764 bytes (CUDA
/// 12.1 on Volta and later), at least one byte each. A driver that counts or lists more is not
/// answering about a kernel, and is not asked on for ever.
const MAX_PARAMS: usize = 32_764;
static_assertions::assert_not_impl_any!(Function<'static>: Send, Sync);

impl Function<'_> {
    /// # Safety
    ///
    /// `raw` must be a function of a module that lives for the returned lifetime.
    pub(crate) unsafe fn from_raw(raw: ffi::CUfunction) -> Self {
        Self {
            raw,
            _marker: PhantomData,
        }
    }

    /// The raw `CUfunction`.
    pub fn as_raw(&self) -> ffi::CUfunction {
        self.raw
    }

    /// `cuFuncGetAttribute`—An attribute of the function, e.g.
    /// `ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetAttribute")]
    pub fn attribute(&self, attribute: ffi::CUfunction_attribute) -> Result<i32> {
        crate::error::poison::check()?;
        let mut v: c_int = 0;
        // SAFETY: valid out-pointer; live function.
        unsafe { ffi::cuFuncGetAttribute(&raw mut v, attribute, self.raw) }.result()?;
        Ok(v)
    }

    /// `cuFuncGetParamInfo`—The kernel's parameters as `(offset, size)` in bytes, in order
    /// (CUDA 12.4; looked up, not linked): what its argument tuple must match.
    ///
    /// The driver is asked for each parameter in turn. Where it can count them
    /// (`cuFuncGetParamCount`, CUDA 13.2; looked up), it is asked for exactly that many, and no
    /// call fails. On older drivers the list ends where `cuFuncGetParamInfo` refuses an index
    /// (`CUDA_ERROR_INVALID_VALUE` one past the last parameter), a refusal that tools reporting
    /// API errors (compute-sanitizer by default) show; [`Module::declared`](crate::Module::declared)
    /// and [`Module::kernel`](crate::Module::kernel) avoid it for a module custack loaded from
    /// PTX, whose `.entry` says how many parameters there are.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) on a driver older than 12.4;
    /// driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetParamInfo")]
    #[doc(alias = "cuFuncGetParamCount")]
    pub fn param_layout(&self) -> Result<Vec<(usize, usize)>> {
        self.param_layout_of(None)
    }

    /// [`param_layout`](Self::param_layout), `known` the number of parameters where the caller
    /// knows it for certain (the `.entry` of the PTX the module was loaded from): on a driver
    /// that cannot count them, exactly that many are asked for, so no call fails.
    pub(crate) fn param_layout_of(&self, known: Option<usize>) -> Result<Vec<(usize, usize)>> {
        crate::error::poison::check()?;
        let info = crate::driver::lookup::FUNC_GET_PARAM_INFO.get()?;
        let count = match crate::driver::lookup::FUNC_GET_PARAM_COUNT.get() {
            Ok(count) => {
                let mut n = 0usize;
                // SAFETY: a live function; a valid out-pointer.
                unsafe { count(self.raw, &raw mut n) }.result()?;
                Some(n)
            }
            Err(e) if e.kind() == crate::error::ErrorKind::DriverTooOld => known,
            Err(e) => return Err(e),
        };
        let param = |i: usize| {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: a live function; valid out-pointers.
            let r = unsafe { info(self.raw, i, &raw mut offset, &raw mut size) };
            (r, (offset, size))
        };
        if let Some(n) = count {
            if n > MAX_PARAMS {
                return Err(crate::error::Error::custack(
                    crate::error::ErrorKind::InvalidValue,
                    format!("cuFuncGetParamCount answered {n} parameters: no kernel has that many"),
                ));
            }
            return (0..n)
                .map(|i| {
                    let (r, p) = param(i);
                    r.result().map(|()| p)
                })
                .collect();
        }
        let mut layout = Vec::new();
        loop {
            if layout.len() > MAX_PARAMS {
                return Err(crate::error::Error::custack(
                    crate::error::ErrorKind::InvalidValue,
                    format!(
                        "cuFuncGetParamInfo answered parameter {MAX_PARAMS} and more: no kernel \
                         has that many"
                    ),
                ));
            }
            match param(layout.len()) {
                (ffi::CUresult::CUDA_SUCCESS, p) => layout.push(p),
                // One past the last parameter: how the driver says where the list ends when it
                // cannot count them. Tools that report API errors show this refusal; the
                // driver's log line for it is dropped here, so that no later error takes it
                // for its own.
                (ffi::CUresult::CUDA_ERROR_INVALID_VALUE, _) => {
                    drop(crate::error::driver_log::take());
                    return Ok(layout);
                }
                (r, _) => return r.result().map(|()| layout),
            }
        }
    }

    /// `cuFuncGetAttribute`—The most threads a block of this function may have on this device.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetAttribute")]
    pub fn max_threads_per_block(&self) -> Result<u32> {
        self.attribute(ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .map(|v| v as u32)
    }

    /// `cuFuncGetAttribute`—Every attribute of the function that describes its code.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetAttribute")]
    pub fn attributes(&self) -> Result<FunctionAttributes> {
        use ffi::CUfunction_attribute as A;
        let get = |a| self.attribute(a);
        Ok(FunctionAttributes {
            max_threads_per_block: get(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32,
            static_shared_bytes: get(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)? as usize,
            const_bytes: get(A::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)? as usize,
            local_bytes_per_thread: get(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)? as usize,
            registers_per_thread: get(A::CU_FUNC_ATTRIBUTE_NUM_REGS)? as u32,
            ptx_version: get(A::CU_FUNC_ATTRIBUTE_PTX_VERSION)? as u32,
            binary_version: get(A::CU_FUNC_ATTRIBUTE_BINARY_VERSION)? as u32,
            max_dynamic_shared_bytes: get(A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?
                as usize,
            preferred_shared_carveout: get(A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)?,
        })
    }

    /// `cuFuncSetAttribute`—Sets an attribute (those the driver lets be set: maximum dynamic
    /// shared memory, preferred carveout, non-portable cluster sizes, cluster scheduling).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncSetAttribute")]
    pub fn set_attribute(&self, attribute: ffi::CUfunction_attribute, value: i32) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live function; the driver checks the attribute and the value.
        unsafe { ffi::cuFuncSetAttribute(self.raw, attribute, value) }.result()
    }

    /// `cuFuncSetAttribute`—Lets launches of this function use up to `bytes` of dynamic shared
    /// memory (above 48 KiB, launches need this first).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncSetAttribute")]
    pub fn set_max_dynamic_shared_mem(&self, bytes: u32) -> Result<()> {
        self.set_attribute(
            ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }

    /// `cuFuncSetAttribute`—The preferred share of the unified L1/shared memory to use as shared
    /// memory, in percent (a hint).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncSetAttribute")]
    pub fn set_preferred_shared_carveout(&self, percent: i32) -> Result<()> {
        self.set_attribute(
            ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            percent,
        )
    }

    /// `cuFuncSetCacheConfig`—The preferred L1/shared memory split for this function.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncSetCacheConfig")]
    pub fn set_cache_config(&self, config: crate::context::current::CacheConfig) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live function; the driver checks the value.
        unsafe { ffi::cuFuncSetCacheConfig(self.raw, config.raw()) }.result()
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`—How many blocks of `block_size` threads,
    /// each with `dynamic_shared_bytes`, can be resident on one SM at once.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html>
    #[doc(alias = "cuOccupancyMaxActiveBlocksPerMultiprocessor")]
    pub fn max_active_blocks_per_sm(
        &self,
        block_size: u32,
        dynamic_shared_bytes: usize,
    ) -> Result<u32> {
        crate::error::poison::check()?;
        let mut n: c_int = 0;
        // SAFETY: valid out-pointer; a live function.
        unsafe {
            ffi::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &raw mut n,
                self.raw,
                block_size as c_int,
                dynamic_shared_bytes,
            )
        }
        .result()?;
        Ok(n as u32)
    }

    /// `cuOccupancyMaxPotentialBlockSize`—A block size that maximizes occupancy, and the
    /// smallest grid that fills the device with it: `(min_grid_size, block_size)`, with
    /// `dynamic_shared_bytes` per block whatever its size.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html>
    #[doc(alias = "cuOccupancyMaxPotentialBlockSize")]
    pub fn suggested_block_size(&self, dynamic_shared_bytes: usize) -> Result<(u32, u32)> {
        crate::error::poison::check()?;
        let (mut grid, mut block): (c_int, c_int) = (0, 0);
        // SAFETY: valid out-pointers; a live function; no callback.
        unsafe {
            ffi::cuOccupancyMaxPotentialBlockSize(
                &raw mut grid,
                &raw mut block,
                self.raw,
                None,
                dynamic_shared_bytes,
                0,
            )
        }
        .result()?;
        Ok((grid as u32, block as u32))
    }

    /// `cuOccupancyMaxPotentialBlockSize`—As [`suggested_block_size`](Self::suggested_block_size),
    /// with the dynamic shared memory a block needs given by `shared_bytes_for(block_size)`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html>
    #[doc(alias = "cuOccupancyMaxPotentialBlockSize")]
    pub fn suggested_block_size_with(
        &self,
        shared_bytes_for: &dyn Fn(u32) -> usize,
    ) -> Result<(u32, u32)> {
        crate::error::poison::check()?;
        crate::error::left_behind::prime();
        let (mut grid, mut block): (c_int, c_int) = (0, 0);
        let r = with_occupancy_callback(shared_bytes_for, || {
            // SAFETY: valid out-pointers; a live function; `occupancy_trampoline` reads the
            // callback this thread stashed for the duration of this call (the driver calls it
            // synchronously, on this thread).
            unsafe {
                ffi::cuOccupancyMaxPotentialBlockSize(
                    &raw mut grid,
                    &raw mut block,
                    self.raw,
                    Some(occupancy_trampoline),
                    0,
                    0,
                )
            }
        });
        r.result()?;
        Ok((grid as u32, block as u32))
    }
}

/// Attributes of a [`StreamScope::launch_with`](crate::StreamScope::launch_with) launch
/// (`cuLaunchKernelEx`). `Default` is a plain launch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "CUlaunchAttribute")]
pub struct LaunchAttributes {
    /// Thread-block cluster dimensions, in blocks (compute capability 9.0); must divide the
    /// grid.
    pub cluster: Option<(u32, u32, u32)>,
    /// The launch's priority (lower is higher, as for streams).
    pub priority: Option<i32>,
    /// Lets the next kernel on the stream start before this one finishes, where it waits for it
    /// with `griddepcontrol.wait` (programmatic dependent launch).
    pub programmatic_serialization: bool,
    /// A cooperative launch (prefer [`StreamScope::launch_cooperative`](crate::StreamScope::launch_cooperative),
    /// which checks the grid first).
    pub cooperative: bool,
}

// `LaunchAttributes::raw` writes the C union's fields as the low bytes of its words.
const _: () = assert!(cfg!(target_endian = "little"));

impl LaunchAttributes {
    /// The driver's attribute array.
    pub(crate) fn raw(&self) -> Vec<ffi::CUlaunchAttribute> {
        use ffi::CUlaunchAttributeID as Id;
        let attribute = |id, words: [u64; 2]| {
            let mut value = [0u64; 8];
            value[0] = words[0];
            value[1] = words[1];
            ffi::CUlaunchAttribute {
                id,
                pad: [0; 4],
                value,
            }
        };
        let mut attrs = Vec::new();
        if let Some((x, y, z)) = self.cluster {
            // `clusterDim`: three `unsigned int`s, x and y in the first word.
            let xy = u64::from(x) | (u64::from(y) << 32);
            attrs.push(attribute(
                Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                [xy, u64::from(z)],
            ));
        }
        if let Some(priority) = self.priority {
            attrs.push(attribute(
                Id::CU_LAUNCH_ATTRIBUTE_PRIORITY,
                [u64::from(priority as u32), 0],
            ));
        }
        if self.programmatic_serialization {
            attrs.push(attribute(
                Id::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                [1, 0],
            ));
        }
        if self.cooperative {
            attrs.push(attribute(Id::CU_LAUNCH_ATTRIBUTE_COOPERATIVE, [1, 0]));
        }
        attrs
    }
}

/// Checks a cooperative launch's grid against the current context's device: cooperative
/// launches supported, and every block resident at once on the SMs the context may use.
pub(crate) fn check_cooperative(function: &Function<'_>, config: LaunchConfig) -> Result<()> {
    let mut device: ffi::CUdevice = 0;
    // SAFETY: valid out-pointer; the function's context is current (lent by the current guard).
    unsafe { ffi::cuCtxGetDevice(&raw mut device) }.result()?;
    let attribute = |a| {
        let mut v: c_int = 0;
        // SAFETY: valid out-pointer; a device of the current context.
        unsafe { ffi::cuDeviceGetAttribute(&raw mut v, a, device) }
            .result()
            .map(|()| v)
    };
    if attribute(ffi::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? == 0 {
        return Err(
            crate::error::Error::from_kind(crate::error::ErrorKind::NotSupported)
                .with_detail("this device has no cooperative launch"),
        );
    }
    let device_sms =
        attribute(ffi::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u64;
    let sms = context_sms(device_sms)?;
    // Checked: the dimensions are the caller's, and a product that wraps would under-count.
    let Some(block) = config
        .block
        .0
        .checked_mul(config.block.1)
        .and_then(|b| b.checked_mul(config.block.2))
    else {
        return Err(
            crate::error::Error::from_kind(crate::error::ErrorKind::InvalidValue)
                .with_detail(format!("a block of {:?} threads overflows", config.block)),
        );
    };
    let per_sm =
        u64::from(function.max_active_blocks_per_sm(block, config.shared_mem_bytes as usize)?);
    let (g0, g1, g2) = config.grid;
    let blocks = u128::from(g0) * u128::from(g1) * u128::from(g2);
    if blocks > u128::from(per_sm * sms) {
        return Err(
            crate::error::Error::from_kind(crate::error::ErrorKind::CooperativeLaunchTooLarge).with_detail(
                format!(
                    "{blocks} blocks of {block} threads cannot all be resident: at most {per_sm} per SM x {sms} SMs of this context = {}",
                    per_sm * sms
                ),
            ),
        );
    }
    Ok(())
}

/// The SMs the current context may run a grid on: a green context's partition
/// (`cuCtxGetDevResource`, CUDA 12.4; found by review: a cooperative grid checked against the
/// whole device's SMs was captured into a graph on a green context of 8 and never finished), an
/// SM-count execution affinity (`cuCtxGetExecAffinity`), at most `device_sms`. A driver without
/// `cuCtxGetDevResource` has no green contexts; one that supports no execution affinity
/// (`CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY`) has none to count; a green context has none either
/// (the driver refuses the query for it with `CUDA_ERROR_INVALID_CONTEXT`).
fn context_sms(device_sms: u64) -> Result<u64> {
    let mut sms = device_sms;
    let lookup = match crate::driver::lookup::CTX_GET_DEV_RESOURCE.get() {
        Ok(get) => Some(get),
        Err(e) if e.kind() == crate::error::ErrorKind::DriverTooOld => None,
        Err(e) => return Err(e),
    };
    let from_resource = lookup.is_some();
    if let Some(get) = lookup {
        let mut ctx = core::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { ffi::cuCtxGetCurrent(&raw mut ctx) }.result()?;
        let mut resource = ffi::CUdevResource::ZEROED;
        // SAFETY: the current context (live: lent by the current guard); `resource` is a
        // writable `CUdevResource`.
        unsafe {
            get(
                ctx,
                &raw mut resource,
                ffi::CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM,
            )
        }
        .result()?;
        sms = sms.min(u64::from(resource.sm.smCount));
    }
    match crate::context::current::current_sm_count_affinity() {
        (ffi::CUresult::CUDA_SUCCESS, affinity) if affinity > 0 => {
            sms = sms.min(u64::from(affinity));
        }
        (ffi::CUresult::CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, _) => {}
        // Driver 580 answers this for a green context's `CUcontext` (an H100, 2026-11-28),
        // whose SMs `cuCtxGetDevResource` gave above.
        (ffi::CUresult::CUDA_ERROR_INVALID_CONTEXT, _) if from_resource => {}
        (other, _) => other.result()?,
    }
    Ok(sms)
}

/// What [`Function::attributes`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUfunction_attribute")]
pub struct FunctionAttributes {
    /// The most threads a block may have (the kernel's resources and the device's limit).
    pub max_threads_per_block: u32,
    /// Statically allocated shared memory per block, in bytes.
    pub static_shared_bytes: usize,
    /// Constant memory the kernel uses, in bytes.
    pub const_bytes: usize,
    /// Local memory per thread, in bytes.
    pub local_bytes_per_thread: usize,
    /// Registers per thread.
    pub registers_per_thread: u32,
    /// The virtual architecture the kernel was compiled for (`major * 10 + minor`, e.g. 50 for
    /// PTX targeting `sm_50`).
    pub ptx_version: u32,
    /// The binary architecture it runs as (`major * 10 + minor`, e.g. 90 on an H100).
    pub binary_version: u32,
    /// The most dynamic shared memory a launch may ask for, in bytes.
    pub max_dynamic_shared_bytes: usize,
    /// The preferred shared memory carveout, in percent (-1: no preference).
    pub preferred_shared_carveout: i32,
}

thread_local! {
    /// The block-size-to-shared-memory function of the `cuOccupancyMaxPotentialBlockSize` call
    /// running on this thread (the C callback has no user data).
    static OCCUPANCY_CALLBACK: core::cell::Cell<Option<*const (dyn Fn(u32) -> usize + 'static)>> =
        const { core::cell::Cell::new(None) };
    /// A panic of that function, caught before it could reach the driver.
    static OCCUPANCY_PANIC: core::cell::RefCell<Option<Box<dyn core::any::Any + Send>>> =
        const { core::cell::RefCell::new(None) };
}

/// Runs `call` with `f` stashed for `occupancy_trampoline`, and clears it afterwards.
fn with_occupancy_callback(
    f: &dyn Fn(u32) -> usize,
    call: impl FnOnce() -> ffi::CUresult,
) -> ffi::CUresult {
    // SAFETY: only the lifetime is erased; the pointer is cleared below, before `f`'s borrow
    // ends, and read only during `call`, on this thread.
    let erased: *const (dyn Fn(u32) -> usize + 'static) = unsafe { core::mem::transmute(f) };
    OCCUPANCY_CALLBACK.with(|c| c.set(Some(erased)));
    let r = call();
    OCCUPANCY_CALLBACK.with(|c| c.set(None));
    // The caller's function panicked inside the driver's call: carry its panic on, now that
    // the driver is out of the way (as a panic in `f` outside a callback would).
    if let Some(payload) = OCCUPANCY_PANIC.with(|p| p.borrow_mut().take()) {
        std::panic::resume_unwind(payload);
    }
    r
}

/// The C callback: the stashed function of this thread's call (0 bytes if there is none, or
/// if it panicked: the panic is kept and re-raised once the driver returns). Never unwinds.
unsafe extern "C" fn occupancy_trampoline(block_size: c_int) -> usize {
    let Some(f) = OCCUPANCY_CALLBACK.with(core::cell::Cell::get) else {
        return 0;
    };
    // SAFETY: set by `with_occupancy_callback` for the call that is running now, on this
    // thread; it points to a live `&dyn Fn`.
    let f = unsafe { &*f };
    // Marked as the driver's callback: custack makes no CUDA call from it.
    let asked = crate::error::callback::run(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(block_size as u32)))
    });
    match asked {
        Ok(bytes) => bytes,
        Err(payload) => {
            let _ = OCCUPANCY_PANIC.try_with(|p| *p.borrow_mut() = Some(payload));
            0
        }
    }
}

/// Grid and block dimensions and dynamic shared memory of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "CUlaunchConfig")]
pub struct LaunchConfig {
    /// Blocks in the grid (x, y, z).
    pub grid: (u32, u32, u32),
    /// Threads in a block (x, y, z).
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// One thread per element for `n` elements, in blocks of 256 threads along x (the kernel
    /// must check its index against `n`: the last block may run past it).
    ///
    /// ```
    /// let cfg = custack::LaunchConfig::for_elements(1000);
    /// assert_eq!((cfg.grid.0, cfg.block.0), (4, 256));
    /// ```
    pub const fn for_elements(n: u32) -> Self {
        Self::for_elements_with_block(n, 256)
    }

    /// One thread per element for `n` elements, in blocks of `block` threads along x.
    pub const fn for_elements_with_block(n: u32, block: u32) -> Self {
        let block = if block == 0 { 1 } else { block };
        Self {
            grid: (n.div_ceil(block), 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The same configuration with `bytes` of dynamic shared memory per block.
    #[must_use]
    pub const fn with_shared_mem(self, bytes: u32) -> Self {
        Self {
            shared_mem_bytes: bytes,
            ..self
        }
    }
}

/// The arguments of a launch in the scope `'scope`: a tuple of [`KernelArg`]s (`()` for none,
/// `(x,)` for one). Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list of kernel arguments",
    label = "expected a tuple of kernel arguments",
    note = "kernel arguments are a tuple: `()` for none, `(x,)` for one (with the comma), `(a, &mut b, n)` for several, up to 12"
)]
pub trait KernelArgs<'scope>: sealed::SealedArgs {
    /// The kernel signature these arguments pass: the tuple of their
    /// [`Param`](KernelArg::Param)s.
    type Params: KernelSignature;
    /// Calls `f` with the `void**` array `cuLaunchKernel` takes, built on the stack.
    #[doc(hidden)]
    fn with_params<R>(&self, f: impl FnOnce(*mut *mut c_void) -> R) -> R;
}

impl sealed::SealedArgs for () {}
impl KernelArgs<'_> for () {
    type Params = ();
    #[inline]
    fn with_params<R>(&self, f: impl FnOnce(*mut *mut c_void) -> R) -> R {
        f(core::ptr::null_mut())
    }
}

macro_rules! kernel_args {
    ($($name:ident $idx:tt),+) => {
        impl<$($name),+> sealed::SealedArgs for ($($name,)+) {}
        impl<$($name: KernelParam),+> sealed::SealedSignature for ($($name,)+) {}
        impl<$($name: KernelParam),+> KernelSignature for ($($name,)+) {
            // Evaluated at compile time: an index out of range would fail the build, never
            // panic at run time (and `i` stays below the arrays' common length).
            #[allow(clippy::indexing_slicing)]
            const LAYOUT: &'static [(usize, usize)] = &{
                let sizes = [$(size_of::<$name>()),+];
                let aligns = [$(align_of::<$name>()),+];
                let mut layout = [(0usize, 0usize); [$(stringify!($name)),+].len()];
                let mut end: usize = 0;
                let mut i = 0;
                while i < layout.len() {
                    let offset = end.next_multiple_of(aligns[i]);
                    layout[i] = (offset, sizes[i]);
                    end = offset + sizes[i];
                    i += 1;
                }
                layout
            };
            fn names() -> Vec<&'static str> {
                vec![$(core::any::type_name::<$name>()),+]
            }
        }
        impl<'scope, $($name: KernelArg<'scope>),+> KernelArgs<'scope> for ($($name,)+) {
            type Params = ($($name::Param,)+);
            #[inline]
            fn with_params<R>(&self, f: impl FnOnce(*mut *mut c_void) -> R) -> R {
                let raw = ($(self.$idx.to_raw(),)+);
                let mut params = [$(core::ptr::from_ref(&raw.$idx).cast_mut().cast::<c_void>()),+];
                f(params.as_mut_ptr())
            }
        }
    };
}
kernel_args!(A 0);
kernel_args!(A 0, B 1);
kernel_args!(A 0, B 1, C 2);
kernel_args!(A 0, B 1, C 2, D 3);
kernel_args!(A 0, B 1, C 2, D 3, E 4);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// A kernel's parameter list as a Rust type: `()` or a tuple of [`KernelParam`]s, with the
/// `(offset, size)` in bytes of each parameter as C lays them out. Sealed.
pub trait KernelSignature: sealed::SealedSignature + 'static {
    /// Each parameter's `(offset, size)` in bytes.
    const LAYOUT: &'static [(usize, usize)];
    /// Each parameter's Rust type, for error messages.
    #[doc(hidden)]
    fn names() -> Vec<&'static str>;
}
impl sealed::SealedSignature for () {}
impl KernelSignature for () {
    const LAYOUT: &'static [(usize, usize)] = &[];
    fn names() -> Vec<&'static str> {
        Vec::new()
    }
}

/// A kernel function with a Rust signature `S`, checked against the kernel once, when it is
/// looked up ([`Module::kernel`](crate::Module::kernel)): its launches
/// ([`StreamScope::launch_kernel`](crate::StreamScope::launch_kernel)) accept only arguments
/// of that signature, and cost nothing more than an unchecked launch.
///
/// `Copy`, the size of a `CUfunction`; borrows its module like [`Function`].
#[derive(Debug)]
pub struct Kernel<'m, S: KernelSignature> {
    function: Function<'m>,
    _signature: PhantomData<fn() -> S>,
}

impl<S: KernelSignature> Clone for Kernel<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: KernelSignature> Copy for Kernel<'_, S> {}

static_assertions::assert_eq_size!(Kernel<'static, (u32,)>, ffi::CUfunction);

impl<'m, S: KernelSignature> Kernel<'m, S> {
    /// Checks `function` against `S` with `cuFuncGetParamInfo` (CUDA 12.4; looked up): the same
    /// number of parameters, each at the same offset with the same size. On a driver without
    /// `cuFuncGetParamInfo` the check is skipped (the driver cannot tell).
    pub(crate) fn check(function: Function<'m>, name: &str, ptx: Option<&[u8]>) -> Result<Self> {
        let known = ptx.and_then(|ptx| crate::kernel::ptx::entry_params(ptx, name));
        match function.param_layout_of(known.as_ref().map(Vec::len)) {
            Ok(layout) => check_layout::<S>(name, &layout)?,
            Err(e) if e.kind() == crate::error::ErrorKind::DriverTooOld => {}
            Err(e) => return Err(e),
        }
        Ok(Self {
            function,
            _signature: PhantomData,
        })
    }

    /// The raw `CUfunction`.
    pub fn as_raw(&self) -> ffi::CUfunction {
        self.function.as_raw()
    }

    /// The unchecked function.
    pub fn function(&self) -> Function<'m> {
        self.function
    }

    /// The same kernel with another module lifetime.
    ///
    /// # Safety
    ///
    /// The module must outlive `'n`.
    pub(crate) unsafe fn rebrand<'n>(self) -> Kernel<'n, S> {
        Kernel {
            // SAFETY: the caller's promise.
            function: unsafe { Function::from_raw(self.function.as_raw()) },
            _signature: PhantomData,
        }
    }
}

/// Compares the kernel's `layout` with `S`'s, naming the first parameter that differs.
fn check_layout<S: KernelSignature>(name: &str, layout: &[(usize, usize)]) -> Result<()> {
    let rust = S::LAYOUT;
    let mismatch = |detail: String| {
        Err(crate::error::Error::custack(
            crate::error::ErrorKind::KernelSignatureMismatch,
            format!("kernel {name:?}: {detail}"),
        ))
    };
    if layout.len() != rust.len() {
        return mismatch(format!(
            "the kernel takes {} parameters, the Rust signature {}",
            layout.len(),
            rust.len()
        ));
    }
    for (i, ((kernel, ours), ty)) in layout.iter().zip(rust).zip(S::names()).enumerate() {
        if kernel != ours {
            return mismatch(format!(
                "parameter {i} is {} bytes at offset {} in the kernel, but `{ty}` is {} bytes at offset {}",
                kernel.1, kernel.0, ours.1, ours.0
            ));
        }
    }
    Ok(())
}

// A function is a payload: a submission or graph that owns it keeps its module loaded (C16).
impl payload_sealed::Sealed for Function<'_> {}
impl<'f> Payload for Function<'f> {
    type Bound<'scope> = Function<'scope>;
    copied_forms!(Function<'f>);
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> Function<'scope> {
        // SAFETY: the submission holds the function, and so the borrow of its module, until
        // its work is complete; a leaked submission leaves the module to `Module`'s drop, which
        // synchronizes the context before unloading.
        unsafe { Function::from_raw(held.as_raw()) }
    }
}

// A typed kernel is a payload as its function is.
impl<S: KernelSignature> payload_sealed::Sealed for Kernel<'_, S> {}
impl<'f, S: KernelSignature> Payload for Kernel<'f, S> {
    type Bound<'scope> = Kernel<'scope, S>;
    copied_forms!(Kernel<'f, S>);
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> Kernel<'scope, S> {
        // SAFETY: as for `Function`: the submission holds the kernel, and so its module.
        unsafe { Kernel::rebrand(*held) }
    }
}

#[cfg(test)]
mod tests {
    use super::{KernelSignature, check_layout, occupancy_trampoline, with_occupancy_callback};
    use crate::error::ErrorKind;
    use crate::ffi;
    use crate::vocabulary::argument::DevicePtr;
    use core::cell::Cell;

    /// The occupancy callback, with this test in the driver's place: during the call, the C
    /// trampoline reaches the stashed Rust function; outside it, nothing (0 bytes).
    #[test]
    fn the_occupancy_trampoline_calls_the_stashed_function_during_the_call_only() {
        let seen = Cell::new(None);
        let r = with_occupancy_callback(&|block| block as usize * 4, || {
            // SAFETY: `occupancy_trampoline` has no precondition beyond the C signature.
            seen.set(Some(unsafe { occupancy_trampoline(32) }));
            ffi::CUresult::CUDA_SUCCESS
        });
        assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
        assert_eq!(seen.get(), Some(128));
        // SAFETY: as above.
        let after = unsafe { occupancy_trampoline(32) };
        assert_eq!(after, 0, "cleared after the call");
    }

    /// A panic of the function does not unwind into the driver: the trampoline returns 0, and
    /// the panic resumes once the driver's call has returned.
    #[test]
    fn a_panicking_occupancy_function_resumes_after_the_driver_returns() {
        let returned = Cell::new(false);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            with_occupancy_callback(&|_| panic!("occupancy callback"), || {
                // SAFETY: as above.
                assert_eq!(unsafe { occupancy_trampoline(64) }, 0);
                returned.set(true);
                ffi::CUresult::CUDA_SUCCESS
            })
        }));
        assert!(returned.get(), "the trampoline returned to its caller");
        let payload = caught.expect_err("the panic resumed");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"occupancy callback"));
        // SAFETY: as above.
        let after = unsafe { occupancy_trampoline(64) };
        assert_eq!(after, 0, "cleared after the panic");
    }

    #[test]
    fn signatures_lay_out_as_c_does() {
        assert_eq!(
            <(DevicePtr<u32>, u32, u32)>::LAYOUT,
            [(0, 8), (8, 4), (12, 4)]
        );
        assert_eq!(
            <(u8, u64, u16, f32)>::LAYOUT,
            [(0, 1), (8, 8), (16, 2), (20, 4)]
        );
        assert_eq!(
            <(u32, [f32; 3], DevicePtr<f64>)>::LAYOUT,
            [(0, 4), (4, 12), (16, 8)]
        );
        assert_eq!(<()>::LAYOUT, []);
    }

    #[test]
    fn a_mismatch_names_the_parameter() {
        let add_u32 = [(0, 8), (8, 4), (12, 4)];
        assert!(check_layout::<(DevicePtr<u32>, u32, u32)>("add_u32", &add_u32).is_ok());
        let e = check_layout::<(DevicePtr<u32>, u32)>("add_u32", &add_u32).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
        assert!(
            e.to_string()
                .contains("takes 3 parameters, the Rust signature 2"),
            "{e}"
        );
        let e = check_layout::<(DevicePtr<u32>, u64, u32)>("add_u32", &add_u32).unwrap_err();
        assert!(
            e.to_string().contains(
                "parameter 1 is 4 bytes at offset 8 in the kernel, but `u64` is 8 bytes at offset 8"
            ),
            "{e}"
        );
    }
}
