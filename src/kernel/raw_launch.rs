//! Launches one cannot describe with a contract (`unsafe`): a [`StreamScope`]'s `launch`,
//! `launch_kernel`, `launch_with` and `launch_cooperative`. The safe launches of declared
//! kernels are in `contract/`; the scope itself in `asynchronous/scope.rs`.

use crate::asynchronous::scope::StreamScope;
use crate::error::poison;
use crate::error::{Observer, Result};
use crate::ffi;
use crate::kernel::launch::{Function, KernelArgs, LaunchConfig, check_cooperative};
use crate::kernel::naming;
use core::panic::Location;

impl<'scope> StreamScope<'scope, '_> {
    /// `cuLaunchKernelEx`—Enqueues a kernel launch with launch attributes: thread-block
    /// clusters (compute capability 9.0), priority, programmatic stream serialization,
    /// cooperative.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # Errors
    ///
    /// As [`launch`](Self::launch); `CUDA_ERROR_INVALID_CLUSTER_SIZE` for a cluster that does
    /// not divide the grid or is too large.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernelEx")]
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub unsafe fn launch_with<A: KernelArgs<'scope>>(
        &self,
        function: &Function<'scope>,
        config: LaunchConfig,
        attributes: &crate::kernel::launch::LaunchAttributes,
        args: A,
    ) -> Result<()> {
        poison::check()?;
        let at = Location::caller();
        let mut attrs = attributes.raw();
        let raw_config = ffi::CUlaunchConfig {
            gridDimX: config.grid.0,
            gridDimY: config.grid.1,
            gridDimZ: config.grid.2,
            blockDimX: config.block.0,
            blockDimY: config.block.1,
            blockDimZ: config.block.2,
            sharedMemBytes: config.shared_mem_bytes,
            hStream: self.as_raw(),
            attrs: attrs.as_mut_ptr(),
            numAttrs: attrs.len() as core::ffi::c_uint,
        };
        let launched = args.with_params(|params| {
            // SAFETY: as in `launch`; `raw_config` and the attributes it points to live for the
            // call.
            unsafe {
                ffi::cuLaunchKernelEx(
                    &raw const raw_config,
                    function.as_raw(),
                    params,
                    core::ptr::null_mut(),
                )
            }
            .result_at(Observer::Launch, at)
        });
        poison::launched(None);
        let named = naming::launched(self.as_raw(), at, launched.is_ok());
        launched.and(named)
    }

    /// `cuLaunchCooperativeKernel`—Enqueues a launch whose blocks may synchronize with each
    /// other as they run (a grid-wide barrier): every block is resident at once. The grid is
    /// checked first against the device: cooperative launches supported, and no more blocks
    /// than `max_active_blocks_per_sm × SMs`, the SMs the current context may use (a green
    /// context's partition, an SM-count execution affinity), so that a launch captured into a
    /// graph, which the driver does not check again, is refused too.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE` (before any launch) for a grid that cannot be
    /// resident at once, with the limit in the detail; `CUDA_ERROR_NOT_SUPPORTED` where the
    /// device has no cooperative launch; as [`launch`](Self::launch).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchCooperativeKernel")]
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub unsafe fn launch_cooperative<A: KernelArgs<'scope>>(
        &self,
        function: &Function<'scope>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        poison::check()?;
        let at = Location::caller();
        check_cooperative(function, config)?;
        let launched = args.with_params(|params| {
            // SAFETY: as in `launch`.
            unsafe {
                ffi::cuLaunchCooperativeKernel(
                    function.as_raw(),
                    config.grid.0,
                    config.grid.1,
                    config.grid.2,
                    config.block.0,
                    config.block.1,
                    config.block.2,
                    config.shared_mem_bytes,
                    self.as_raw(),
                    params,
                )
            }
            .result_at(Observer::Launch, at)
        });
        poison::launched(None);
        let named = naming::launched(self.as_raw(), at, launched.is_ok());
        launched.and(named)
    }

    /// `cuLaunchKernel`—Enqueues a launch of a [`Kernel`](crate::Kernel) whose signature was
    /// checked when it was looked up ([`Module::kernel`](crate::Module::kernel)): `args` must
    /// have exactly that signature, which the compiler checks; nothing is checked at run time.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch), but the kernel's parameter list is known to match `args` in
    /// number, offsets and sizes (where the driver could tell, CUDA 12.4+): what is left to the
    /// caller is that the kernel touches only the memory it is passed, within its length, and
    /// writes only through arguments passed mutably.
    ///
    /// # Errors
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::{DevicePtr, LaunchConfig};
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// // add_u32(unsigned* x, unsigned k, unsigned n), checked once against the kernel (CUDA 12.4+)
    /// let add = module.kernel::<(DevicePtr<u32>, u32, u32)>("add_u32")?;
    /// let mut x = guard.alloc_zeroed::<u32>(1024)?;
    /// guard.stream()?.scope(|s| {
    ///     let mut dx = s.bind_mut(&mut x);
    ///     // SAFETY: add_u32 touches x[0..n), and x holds n elements.
    ///     unsafe { s.launch_kernel(&add, LaunchConfig::for_elements(1024), (&mut dx, 1u32, 1024u32)) }
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[inline]
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub unsafe fn launch_kernel<A: KernelArgs<'scope>>(
        &self,
        kernel: &crate::kernel::launch::Kernel<'scope, A::Params>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        // SAFETY: the caller's promise, as for `launch`.
        unsafe { self.launch(&kernel.function(), config, args) }
    }

    /// `cuLaunchKernel`—Enqueues a kernel launch.
    ///
    /// For a kernel whose parameters and buffer extents you can state, declare it once with
    /// [`kernel_contract!`](crate::kernel_contract) and launch it with the safe
    /// [`run`](Self::run) instead; this `unsafe` launch is for kernels one cannot describe.
    ///
    /// `args` is a tuple of plain data (passed by value) and device memory of this scope
    /// ([`ScopedSlice`](crate::ScopedSlice), [`ScopedSliceMut`](crate::ScopedSliceMut), `&`/`&mut` [`ScopedAlloc`](crate::ScopedAlloc); passed as device
    /// pointers). `function`'s module must outlive the scope (`Function<'scope>`), so it cannot
    /// be unloaded while the kernel may run (C9).
    ///
    /// # Safety
    ///
    /// The kernel is unchecked code:
    /// - its parameter list must match `args` in number, order and type;
    /// - every address it dereferences must come from a device-memory argument of this launch
    ///   ([`ScopedSlice`](crate::ScopedSlice), [`ScopedSliceMut`](crate::ScopedSliceMut), `&`/`&mut` [`ScopedAlloc`](crate::ScopedAlloc)), within that
    ///   argument's length; it writes only through arguments passed mutably;
    /// - plain-data arguments are values, never addresses: an integer holding a device address
    ///   (from `device_ptr()`, say) must not be dereferenced, because nothing keeps the memory
    ///   it names alive, bound or unaliased while the kernel runs.
    ///
    /// # Errors
    ///
    /// Launch errors (`CUDA_ERROR_INVALID_VALUE` for a block larger than the device allows,
    /// too much shared memory, ...). Faults inside the kernel surface at the scope's end.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::LaunchConfig;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let add = module.function("add_u32")?;
    /// let mut x = guard.alloc_from(&[1u32; 1024])?;
    /// guard.stream()?.scope(|s| {
    ///     let mut dx = s.bind_mut(&mut x);
    ///     // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n), and x holds n
    ///     // elements.
    ///     unsafe { s.launch(&add, LaunchConfig::for_elements(1024), (&mut dx, 41u32, 1024u32)) }
    /// })??; // launch errors (inner), faults while running (outer)
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[inline]
    // Taking the tuple by value lets callers write `(&da, &mut db, n)` in place.
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub unsafe fn launch<A: KernelArgs<'scope>>(
        &self,
        function: &Function<'scope>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        poison::check()?;
        let at = Location::caller();
        let launched = args.with_params(|params| {
            // SAFETY: `function` is a live function of a module of the current context that
            // outlives the scope;
            // `params` points to one pointer per argument, each to a live value of the type the
            // caller promised the kernel takes; device memory arguments stay borrowed until the
            // scope has synchronized the stream.
            unsafe {
                ffi::cuLaunchKernel(
                    function.as_raw(),
                    config.grid.0,
                    config.grid.1,
                    config.grid.2,
                    config.block.0,
                    config.block.1,
                    config.block.2,
                    config.shared_mem_bytes,
                    self.as_raw(),
                    params,
                    core::ptr::null_mut(),
                )
            }
            .result_at(Observer::Launch, at)
        });
        poison::launched(None);
        let named = naming::launched(self.as_raw(), at, launched.is_ok());
        launched.and(named)
    }
}
