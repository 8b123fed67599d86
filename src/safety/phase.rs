//! The two phases of a restricted context: [`InitPhase`] makes everything, [`RunPhase`] (after
//! [`InitPhase::seal`]) only uses it.

use crate::asynchronous::event::EventFlags;
use crate::asynchronous::payload::Payload;
use crate::context::stack::PushedGuard;
use crate::error::{ErrorKind, Result};
use crate::kernel::contract::Contract;
use crate::memory::PinnedBuffer;
use crate::safety::image;
use crate::safety::profile::BudgetUse;
use crate::safety::scope::RestrictedScope;
use crate::safety::stream::RestrictedStream;
use crate::safety::values::{
    RestrictedBuffer, RestrictedEvent, RestrictedGraph, RestrictedKernel, RestrictedModule,
};
use crate::vocabulary::plain::DeviceCopy;

/// The init phase of a [`RestrictedGuard`](crate::safety::RestrictedGuard): everything the program
/// will use is made here, and nowhere else — streams, events, device memory, page-locked
/// memory within the context's [`Budget`](crate::safety::Budget), modules from cubins, the declared
/// kernels in them (looked up now, so that a driver loading lazily has loaded them before the
/// run phase), captured and instantiated graphs. [`seal`](Self::seal) ends it.
///
/// Every value it makes borrows the guard (`'g`), so none outlives the guard's pop, and no
/// second init phase opens while one lives; none opens later either (the context's one init
/// phase, C27: [`RestrictedGuard::init`](crate::safety::RestrictedGuard::init)).
#[derive(Debug)]
pub struct InitPhase<'g> {
    guard: &'g PushedGuard<'g, 'g>,
    budget: &'g BudgetUse,
}

impl<'g> InitPhase<'g> {
    pub(crate) fn new(guard: &'g PushedGuard<'g, 'g>, budget: &'g BudgetUse) -> Self {
        Self { guard, budget }
    }

    /// `cuStreamCreate`—A stream (default flags: ordered after the legacy default stream).
    ///
    /// # Errors
    ///
    /// The driver's error; the process's poison (R20) or a forked child's refusal.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamCreate")]
    pub fn stream(&self) -> Result<RestrictedStream<'g>> {
        crate::error::poison::check()?;
        Ok(RestrictedStream::of(self.guard.stream()?))
    }

    /// `cuEventCreate`—An event with timing, never shared with another process.
    ///
    /// # Errors
    ///
    /// As [`stream`](Self::stream).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventCreate")]
    pub fn event(&self) -> Result<RestrictedEvent<'g>> {
        crate::error::poison::check()?;
        Ok(RestrictedEvent::of(self.guard.event(EventFlags::empty())?))
    }

    /// `cuMemAlloc`, `cuMemsetD8`—`len` elements of device memory, zeroed.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_OUT_OF_MEMORY` (R4), a size that overflows; as [`stream`](Self::stream).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAlloc")]
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<RestrictedBuffer<'g, T>> {
        crate::error::poison::check()?;
        Ok(RestrictedBuffer::of(self.guard.alloc_zeroed(len)?))
    }

    /// `cuMemAllocHost`—`len` elements of page-locked host memory, counted against the
    /// context's [`Budget`](crate::safety::Budget).
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the budget (nothing allocated); as
    /// [`alloc`](Self::alloc).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAllocHost")]
    pub fn alloc_pinned<T: DeviceCopy>(&self, len: usize) -> Result<PinnedBuffer<'g, T>> {
        crate::error::poison::check()?;
        let bytes = crate::memory::check_alloc_len::<T>(len)?;
        self.budget.take_page_locked(bytes)?;
        self.guard.alloc_pinned(len).inspect_err(|_| {
            self.budget.return_page_locked(bytes);
        })
    }

    /// `cuModuleLoadData`—Loads a cubin built ahead of time for this device: the profile's one
    /// loading path. No JIT options, no error-log buffer: nothing is compiled.
    ///
    /// Before the driver sees it, the image is checked: an ELF image for the CUDA machine
    /// (`EM_CUDA`), every section within `image` (as [`load_cubin`](crate::PushedGuard::load_cubin)
    /// checks), and no symbol of the device runtime (`cudaLaunchDevice…`,
    /// `cudaGetParameterBuffer…`, `cudaGraphLaunch`, …): a kernel that launches from the device
    /// is outside the subset (CUDA SAFETY 3.2). PTX and fatbins (which may carry PTX that the
    /// driver compiles when no cubin matches, or compressed code that cannot be checked) are
    /// refused.
    ///
    /// # Safety
    ///
    /// As [`load_cubin`](crate::PushedGuard::load_cubin): `image` must be a complete,
    /// well-formed cubin, because the driver trusts the counts inside its sections that custack
    /// cannot check.
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` for an image outside the subset (the detail says what it
    /// is, or which device-runtime symbol it references); `CUDA_ERROR_INVALID_IMAGE` for a
    /// malformed one; `CUDA_ERROR_NO_BINARY_FOR_GPU` for a cubin of another architecture (the
    /// detail names the device's); as [`stream`](Self::stream).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadData")]
    pub unsafe fn load_cubin(&self, image: &[u8]) -> Result<RestrictedModule<'g>> {
        crate::error::poison::check()?;
        image::check_restricted(image)?;
        // SAFETY: the caller guarantees a well-formed cubin within `image`; this guard's
        // context is current.
        let module = unsafe { image::load_module(self.guard, image) }?;
        Ok(RestrictedModule::of(module))
    }

    /// `cuModuleGetFunction`—The kernel of `module` that contract `C` declares
    /// ([`kernel_contract!`](crate::kernel_contract)), its parameter list checked against the
    /// contract where the driver can list it (`cuFuncGetParamInfo`, driver 12.4+). Then
    /// `cuFuncLoad` (driver 12.4+) loads it now where the driver loads lazily
    /// (`CUDA_MODULE_LOADING=LAZY`, the default since CUDA 12.2), so the run phase loads
    /// nothing; on older drivers the lookup is where the function is loaded.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_FOUND` naming the kernel; `ErrorKind::KernelSignatureMismatch` (R13).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleGetFunction")]
    #[doc(alias = "cuFuncLoad")]
    pub fn kernel<'m, C: Contract>(
        &self,
        module: &'m RestrictedModule<'g>,
    ) -> Result<RestrictedKernel<'m, C>> {
        crate::error::poison::check()?;
        let kernel = module.module().declared::<C>()?;
        // Loaded now, also where the driver loads lazily: `cuFuncLoad` (12.4+); before it, the
        // lookup is where a lazily loading driver loads the function.
        match crate::driver::lookup::FUNC_LOAD.get() {
            // SAFETY: a live function of a module of the current context (looked up above).
            Ok(load) => unsafe { load(kernel.as_raw()) }.result()?,
            Err(e) if e.kind() == ErrorKind::DriverTooOld => {}
            Err(e) => return Err(e),
        }
        Ok(RestrictedKernel::of(kernel))
    }

    /// `cuStreamBeginCapture`, `cuStreamEndCapture`, `cuGraphInstantiate`—Captures the work
    /// `f` enqueues on `stream` into a graph that owns `payload`, and instantiates it, as
    /// [`Stream::capture`](crate::Stream::capture) and
    /// [`Graph::instantiate`](crate::Graph::instantiate) do. `f` enqueues through a
    /// [`RestrictedScope`], so the graph holds only what the subset allows.
    ///
    /// # Errors
    ///
    /// As [`Stream::capture`](crate::Stream::capture) and
    /// [`Graph::instantiate`](crate::Graph::instantiate).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamBeginCapture")]
    #[doc(alias = "cuGraphInstantiate")]
    pub fn capture<P: Payload>(
        &self,
        stream: &RestrictedStream<'g>,
        payload: P,
        f: impl for<'scope> FnOnce(
            &'scope RestrictedScope<'scope, 'static>,
            P::Bound<'scope>,
        ) -> Result<()>
        + 'static,
    ) -> Result<RestrictedGraph<'g, P>> {
        crate::error::poison::check()?;
        let graph = stream
            .stream()
            .capture(payload, move |s, bound| f(RestrictedScope::of(s), bound))?;
        Ok(RestrictedGraph::of(graph.instantiate()?))
    }

    /// Ends the init phase: nothing can be created from here on (C27). The context stays
    /// sealed: a later [`RestrictedGuard::init`](crate::safety::RestrictedGuard::init) is refused.
    pub fn seal(self) -> RunPhase<'g> {
        RunPhase { guard: self.guard }
    }
}

/// The run phase: what [`InitPhase::seal`] returns. The values init made launch, copy, record
/// and wait on events, and launch graphs; nothing can be created, loaded, allocated or
/// instantiated (C27). It holds the context-wide wait and the memory query.
///
/// No bounded form of the context-wide wait: [`PushedGuard::synchronize_by`] records a new
/// event each time, which the run phase does not create; bound the waits of the streams and
/// events init made instead ([`RestrictedStream::synchronize_by`]).
#[derive(Debug)]
pub struct RunPhase<'g> {
    guard: &'g PushedGuard<'g, 'g>,
}

impl RunPhase<'_> {
    /// `cuCtxSynchronize`—Waits for all of the context's work.
    ///
    /// # Errors
    ///
    /// The driver's error (a sticky one poisons the process, R20).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxSynchronize")]
    pub fn synchronize(&self) -> Result<()> {
        self.guard.synchronize()
    }

    /// `cuMemGetInfo`—The device's free and total memory, in bytes: a query, which lets a run
    /// phase show that it allocates nothing on the device.
    ///
    /// # Errors
    ///
    /// The driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemGetInfo")]
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.guard.memory_info()
    }
}
