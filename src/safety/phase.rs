//! The two phases of a restricted context: [`InitPhase`] makes everything, [`RunPhase`] (after
//! [`InitPhase::seal`]) only uses it.

use crate::asynchronous::event::EventFlags;
use crate::asynchronous::payload::Payload;
use crate::context::current::{Limit, idle_by_event};
use crate::context::green::{SmPartition, create_green, green_stream};
use crate::context::stack::PushedGuard;
use crate::deadline::passed;
use crate::driver::Device;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::kernel::contract::{Contract, PlainLaunch};
use crate::memory::{DeviceBuffer, DeviceMemory, PinnedBuffer};
use crate::safety::bound::WaitBound;
use crate::safety::graph::{self, RestrictedGraphBuilder};
use crate::safety::image;
use crate::safety::partitioned::{Check, OnDevice, OwnedGreen, Partition, RedundantKernel};
use crate::safety::profile::{BudgetUse, Resource};
use crate::safety::redundant::{CompareContract, CompareOn, OnMismatch, Replicas};
use crate::safety::scope::RestrictedScope;
use crate::safety::stream::RestrictedStream;
use crate::safety::values::{
    RestrictedBuffer, RestrictedEvent, RestrictedGraph, RestrictedKernel, RestrictedModule,
};
use crate::vocabulary::plain::DeviceCopy;

/// The init phase of a [`RestrictedGuard`](crate::safety::RestrictedGuard): everything the program
/// will use is made here, and nowhere else — streams, events, device memory, page-locked
/// memory, modules from cubins, the declared kernels in them (looked up now, so that a driver
/// loading lazily has loaded them before the run phase), graphs captured or built node by node
/// ([`build_graph`](Self::build_graph)), instantiated and uploaded — each
/// counted against the context's [`Budget`](crate::safety::Budget), which refuses one past its
/// figure before the driver is asked. [`seal`](Self::seal) ends it.
///
/// Every value it makes borrows the guard (`'g`), so none outlives the guard's pop, and no
/// second init phase opens while one lives; none opens later either (the context's one init
/// phase, C27: [`RestrictedGuard::init`](crate::safety::RestrictedGuard::init)).
#[derive(Debug)]
pub struct InitPhase<'g> {
    guard: &'g PushedGuard<'g, 'g>,
    budget: &'g BudgetUse,
    /// The event the context-wide waits record and poll (driver 12.5+, which has
    /// `cuCtxRecordEvent`; `None` before): the guard's, made when the init phase opened, live
    /// for `'g` (`crate::safety::idle`), so that no wait creates one after the seal.
    idle: Option<ffi::CUevent>,
    /// NVML and its event set, when [`watch_health`](Self::watch_health) asked for them: the
    /// pre-flight runs at the seal, or at the phase's drop where it never sealed.
    #[cfg(feature = "nvml")]
    health: Option<crate::health::Watched>,
    /// The device, where the context is its primary context (whose memory and modules its
    /// green contexts share): `None` for a context of
    /// [`RestrictedContext::new`](crate::safety::RestrictedContext::new).
    primary: Option<Device>,
}

impl<'g> InitPhase<'g> {
    pub(crate) fn new(
        guard: &'g PushedGuard<'g, 'g>,
        budget: &'g BudgetUse,
        primary: Option<Device>,
        idle: Option<ffi::CUevent>,
    ) -> Result<Self> {
        // The local memory the budget states, reserved now: no launch of the run phase grows
        // it (a launch that needs more than the limit makes the driver allocate, and keep, a
        // larger reservation; `scripts/limit-facts/`).
        let local = budget.budget().local_bytes_per_thread();
        if local > guard.limit(Limit::StackSize)? {
            guard.set_limit(Limit::StackSize, local)?;
        }
        Ok(Self {
            guard,
            budget,
            idle,
            #[cfg(feature = "nvml")]
            health: None,
            primary,
        })
    }

    /// `nvmlInit_v2`, `nvmlDeviceGetHandleByPciBusId_v2`, `nvmlEventSetCreate`,
    /// `nvmlDeviceRegisterEvents`—Watches the GPU's health (feature `nvml`): opens NVML for
    /// this context's device and makes the event set for its double-bit ECC and critical Xid
    /// events now, in the init phase ([`Health::open`](crate::health::Health::open)). From then
    /// on [`seal`](Self::seal) runs the pre-flight (or, for a phase dropped without sealing,
    /// its drop: its values still run work), and [`RunPhase::poll_health`] polls the events. Returns what the pre-flight reads now, so
    /// that a program can report it before sealing. A second call opens NVML again and replaces
    /// the first.
    ///
    /// # Errors
    ///
    /// As [`Health::open`](crate::health::Health::open) and
    /// [`Health::preflight`](crate::health::Health::preflight).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    #[cfg(feature = "nvml")]
    #[doc(alias = "nvmlEventSetCreate")]
    pub fn watch_health(&mut self) -> Result<crate::health::Preflight> {
        let health = crate::health::Health::open(self.guard.device()?)?;
        let preflight = health.preflight()?;
        // The one it replaces runs no pre-flight: this one will.
        if let Some(replaced) = self.health.replace(crate::health::Watched::new(health)) {
            drop(replaced.replaced());
        }
        Ok(preflight)
    }

    /// `cuStreamCreate`—A stream (default flags: ordered after the legacy default stream),
    /// counted against the budget's [`streams`](crate::safety::Budget::streams).
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the budget (nothing created); the driver's error; the
    /// process's poison (R20) or a forked child's refusal.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamCreate")]
    pub fn stream(&self) -> Result<RestrictedStream<'g>> {
        crate::error::poison::check()?;
        let taken = self.budget.take(Resource::Streams, 1)?;
        let stream = self.guard.stream()?;
        taken.keep();
        Ok(RestrictedStream::of(
            stream,
            self.budget.budget().wait_bound(),
        ))
    }

    /// `cuEventCreate`—An event with timing, never shared with another process, counted
    /// against the budget's [`events`](crate::safety::Budget::events).
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
        let taken = self.budget.take(Resource::Events, 1)?;
        let event = self.guard.event(EventFlags::empty())?;
        taken.keep();
        Ok(RestrictedEvent::of(
            event,
            self.budget.budget().wait_bound(),
        ))
    }

    /// `cuMemAlloc`, `cuMemsetD8`—`len` elements of device memory, zeroed, counted against the
    /// budget's [`device_bytes`](crate::safety::Budget::device_bytes) (`len * size_of::<T>()`).
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the budget (nothing allocated);
    /// `CUDA_ERROR_OUT_OF_MEMORY` (R4), a size that overflows; as [`stream`](Self::stream).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAlloc")]
    #[track_caller]
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<RestrictedBuffer<'g, T>> {
        crate::error::poison::check()?;
        let bytes = crate::memory::check_alloc_len::<T>(len)?;
        let taken = self.budget.take(Resource::DeviceBytes, bytes)?;
        let mut buffer = self.guard.alloc::<T>(len)?;
        zero_within(&mut buffer, self.budget.budget().wait_bound())?;
        taken.keep();
        Ok(RestrictedBuffer::of(buffer))
    }

    /// `cuMemHostAlloc`—`len` elements of page-locked host memory (portable to every context),
    /// counted against the budget's [`page_locked`](crate::safety::Budget::page_locked) bytes.
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the budget (nothing allocated); as
    /// [`alloc`](Self::alloc).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostAlloc")]
    pub fn alloc_pinned<T: DeviceCopy>(&self, len: usize) -> Result<PinnedBuffer<'g, T>> {
        crate::error::poison::check()?;
        let bytes = crate::memory::check_alloc_len::<T>(len)?;
        let taken = self.budget.take(Resource::PageLockedBytes, bytes)?;
        let buffer = self.guard.alloc_pinned(len)?;
        taken.keep();
        Ok(buffer)
    }

    /// `cuModuleLoadData`—Loads a cubin built ahead of time for this device: the profile's one
    /// loading path, counted against the budget's [`modules`](crate::safety::Budget::modules).
    /// No JIT options, no error-log buffer: nothing is compiled.
    ///
    /// Before the driver sees it, the image is checked: an ELF image for the CUDA machine
    /// (`EM_CUDA`), every section within `image` (as [`load_cubin`](crate::PushedGuard::load_cubin)
    /// checks), and no symbol of the device runtime (`cudaLaunchDevice…`,
    /// `cudaGetParameterBuffer…`, `cudaGraphLaunch`, …): a kernel that launches from the device
    /// is outside the subset (CUDA SAFETY 3.2). A cubin that calls device-side `malloc`, `free`
    /// or `printf` (`vprintf`) is refused too: the driver allocates their heap and FIFO at the
    /// first launch that uses them, which would be in the run phase. PTX and fatbins (which may carry PTX that the
    /// driver compiles when no cubin matches, or compressed code that cannot be checked) are
    /// refused. The check reads the image whole and fails closed: a cubin it cannot read (no
    /// symbol table, a name or a table past its end, an index or link out of range, tables
    /// that overlap or are misaligned, extended numbering, …) is refused naming what it could
    /// not read, never loaded as one without symbols; so is a relocatable cubin (`ET_REL`,
    /// `nvcc -rdc`), which the driver would link at load.
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
    /// is, what of it could not be read, or which device-runtime symbol it references), or past
    /// the budget (nothing loaded;
    /// the image is checked first); `CUDA_ERROR_INVALID_IMAGE` for a
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
        let taken = self.budget.take(Resource::Modules, 1)?;
        // SAFETY: the caller guarantees a well-formed cubin within `image`; this guard's
        // context is current.
        let module = unsafe { image::load_module(self.guard, image) }?;
        taken.keep();
        Ok(RestrictedModule::of(
            module,
            self.budget.budget().wait_bound(),
            self.idle,
        ))
    }

    /// `cuModuleGetFunction`—The kernel of `module` that contract `C` declares
    /// ([`kernel_contract!`](crate::kernel_contract)), its parameter list checked against the
    /// contract where the driver can list it (`cuFuncGetParamInfo`, driver 12.4+). Then
    /// `cuFuncLoad` (driver 12.4+) loads it now where the driver loads lazily
    /// (`CUDA_MODULE_LOADING=LAZY`, the default since CUDA 12.2), so the run phase loads
    /// nothing; on older drivers the lookup is where the function is loaded. Each lookup counts
    /// one against the budget's [`kernels`](crate::safety::Budget::kernels).
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the budget (nothing looked up); `CUDA_ERROR_NOT_FOUND`
    /// naming the kernel; `ErrorKind::KernelSignatureMismatch` (R13).
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
        let taken = self.budget.take(Resource::Kernels, 1)?;
        let kernel = module.module().declared::<C>()?;
        // Loaded now, also where the driver loads lazily: `cuFuncLoad` (12.4+); before it, the
        // lookup is where a lazily loading driver loads the function.
        match crate::driver::lookup::FUNC_LOAD.get() {
            // SAFETY: a live function of a module of the current context (looked up above).
            Ok(load) => unsafe { load(kernel.as_raw()) }.result()?,
            Err(e) if e.kind() == ErrorKind::DriverTooOld => {}
            Err(e) => return Err(e),
        }
        // A kernel whose local memory is past the context's reservation would make its first
        // launch allocate a larger one: refused here, in the init phase.
        let local = usize::try_from(
            kernel
                .function()
                .attribute(ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
        )
        .unwrap_or(usize::MAX);
        let reserved = self.guard.limit(Limit::StackSize)?;
        if local > reserved {
            return Err(Error::custack(
                ErrorKind::OutsideProfile,
                format!(
                    "kernel `{}` uses {local} bytes of local memory per thread, past the \
                     {reserved} the context reserves: its first launch would allocate device \
                     memory in the run phase. State Budget::local_memory({local}) or more",
                    C::KERNEL
                ),
            ));
        }
        taken.keep();
        Ok(RestrictedKernel::of(kernel))
    }

    /// `cuStreamBeginCapture`, `cuStreamEndCapture`, `cuGraphInstantiate`, `cuGraphUpload`—
    /// Captures the work `f` enqueues on `stream` into a graph that owns `payload`, instantiates
    /// it and uploads it to the device on `stream` (so that no launch of the run phase
    /// allocates or uploads it; its launches are ordered after the upload), as
    /// [`Stream::capture`](crate::Stream::capture) and
    /// [`Graph::instantiate`](crate::graph::Graph::instantiate) do. `f` enqueues through a
    /// [`RestrictedScope`], so the graph holds only what the subset allows.
    ///
    /// Counted against the budget: one of its [`graphs`](crate::safety::Budget::graphs), before
    /// the capture begins, and the captured graph's nodes (`cuGraphGetNodes`, one call at the
    /// capture's end) against its [`graph_nodes`](crate::safety::Budget::graph_nodes), before
    /// the graph is instantiated. The restricted scope has no stream-ordered allocation, so the
    /// graph allocates no device memory of its own that custack could count.
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the budget: no graph left (the graph past the
    /// graphs' figure is refused before the capture; one whose nodes are past theirs is
    /// destroyed, its payload dropped, before instantiation); as
    /// [`Stream::capture`](crate::Stream::capture),
    /// [`Graph::node_count`](crate::graph::Graph::node_count) and
    /// [`Graph::instantiate`](crate::graph::Graph::instantiate); the upload's driver error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamBeginCapture")]
    #[doc(alias = "cuGraphUpload")]
    #[doc(alias = "cuGraphGetNodes")]
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
        let graphs = self.budget.take(Resource::Graphs, 1)?;
        let graph = stream
            .stream()
            .capture(payload, move |s, bound| f(RestrictedScope::of(s), bound))?;
        let nodes = self
            .budget
            .take(Resource::GraphNodes, graph.node_count()?)?;
        let graph = graph.instantiate()?;
        // Uploaded now, on the capture's stream, so that the run phase's first launch of it
        // allocates nothing; the launches that follow are ordered after the upload.
        graph.upload_raw(stream.stream().as_raw())?;
        graphs.keep();
        nodes.keep();
        Ok(RestrictedGraph::of(graph))
    }

    /// `cuGraphCreate`, `cuGraphInstantiate`, `cuGraphUpload`—Builds a graph node by node in
    /// `f`, which receives a [`RestrictedGraphBuilder`] and `payload` bound to it, as
    /// [`PushedGuard::build_graph`](crate::PushedGuard::build_graph) does (C28), then
    /// instantiates it and uploads it to the device on `stream`, as [`capture`](Self::capture)
    /// does: the run phase launches it in its scopes and allocates nothing for it. The
    /// restricted builder adds only the subset's nodes: declared kernels, device memsets and
    /// copies, records of and waits for the init phase's events, and conditional nodes (IF,
    /// IF/ELSE, WHILE, SWITCH, whose condition a kernel of the graph sets with
    /// `cudaGraphSetConditional`), no host node. Its kernel nodes' parameters can be updated in
    /// the run phase ([`RestrictedGraph::update_kernels`]).
    ///
    /// Counted against the budget: one of its [`graphs`](crate::safety::Budget::graphs),
    /// before the build begins, and the nodes the builder made, bodies of conditional nodes
    /// included, against its [`graph_nodes`](crate::safety::Budget::graph_nodes), before the
    /// graph is instantiated.
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` past the budget (the graph past the graphs' figure is
    /// refused before the build; one whose nodes are past theirs is destroyed, its payload
    /// dropped, before instantiation); as
    /// [`PushedGuard::build_graph`](crate::PushedGuard::build_graph) (`ErrorKind::DriverTooOld`
    /// for a conditional node the driver lacks) and
    /// [`Graph::instantiate`](crate::graph::Graph::instantiate); the upload's driver error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphCreate")]
    #[doc(alias = "cuGraphUpload")]
    #[doc(alias = "cuGraphInstantiate")]
    pub fn build_graph<P: Payload>(
        &self,
        stream: &RestrictedStream<'g>,
        payload: P,
        f: impl for<'a, 'b> FnOnce(&'a RestrictedGraphBuilder<'a, 'b>, P::Bound<'b>) -> Result<()>
        + 'static,
    ) -> Result<RestrictedGraph<'g, P>> {
        crate::error::poison::check()?;
        let graphs = self.budget.take(Resource::Graphs, 1)?;
        let (graph, made) = graph::build(self.guard, payload, f)?;
        let nodes = self.budget.take(Resource::GraphNodes, made)?;
        let graph = graph.instantiate()?;
        // Uploaded now, as a captured graph is: the run phase's first launch allocates nothing.
        graph.upload_raw(stream.stream().as_raw())?;
        graphs.keep();
        nodes.keep();
        Ok(RestrictedGraph::of(graph))
    }

    /// `cuDevSmResourceSplitByCount`, `cuGreenCtxCreate`, `cuGreenCtxStreamCreate`—The kernel
    /// of `module` that contract `C` declares, set up to run twice per frame on two partitions
    /// of the device's SMs that share no SM, its output parameter `output` (of `len` elements)
    /// compared between the two runs after each frame ([`RedundantKernel::run`]), a difference
    /// handled as `on_mismatch` says. Where the comparison runs is chosen by the output's size
    /// ([`CompareOn::for_bytes`]): on the host below [`CompareOn::DEVICE_FROM_BYTES`] (256 KiB),
    /// on the device from it, by the kernel [`ReplicasCompare`](crate::safety::ReplicasCompare) that `module` must then hold
    /// (the program builds [`ReplicasCompare::SOURCE`](crate::safety::ReplicasCompare::SOURCE) into its cubin);
    /// [`redundant_compared`](Self::redundant_compared) chooses explicitly.
    ///
    /// The device's SMs are split into two groups of at least `sms_each` SMs each (the driver
    /// rounds up to its partition granularity; half the device's SMs, rounded down to that
    /// granularity, fills it), each group a green context with one stream. Counted against the
    /// budget: two [`partitions`](crate::safety::Budget::partitions), two
    /// [`streams`](crate::safety::Budget::streams), one kernel lookup (as
    /// [`kernel`](Self::kernel), with its checks), `2 * len` elements of device memory (each
    /// replica's output); compared on the host, `2 * len` elements of page-locked memory (each
    /// replica's copy); compared on the device, `len` elements of page-locked memory (replica
    /// 0's copy), and for the comparison one more kernel lookup, one
    /// [`event`](crate::safety::Budget::events), 16 bytes of device memory and 16 of
    /// page-locked memory (the verdict).
    ///
    /// Only on the device's primary context ([`RestrictedContext::primary`]): green contexts
    /// share its memory and modules, so both partitions launch the function `module` holds
    /// and read the buffers this init phase allocated.
    ///
    /// [`RestrictedContext::primary`]: crate::safety::RestrictedContext::primary
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` on a context of
    /// [`RestrictedContext::new`](crate::safety::RestrictedContext::new), or past the budget
    /// (what was made before the refusal is dropped, and stays counted);
    /// `ErrorKind::InvalidValue` if `C` declares no parameter `output`, or if the device's SMs
    /// do not make two groups of `sms_each`; `ErrorKind::DriverTooOld` before driver 12.5;
    /// `CUDA_ERROR_NOT_FOUND` naming `custack_replicas_compare` where the comparison is on the
    /// device and `module` lacks it; as [`kernel`](Self::kernel), [`alloc`](Self::alloc) and
    /// [`alloc_pinned`](Self::alloc_pinned); the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuGreenCtxCreate")]
    #[doc(alias = "cuGreenCtxStreamCreate")]
    #[doc(alias = "cuDevSmResourceSplitByCount")]
    pub fn redundant<'m, C: PlainLaunch, T: DeviceCopy>(
        &self,
        module: &'m RestrictedModule<'g>,
        output: &'static str,
        len: usize,
        sms_each: u32,
        on_mismatch: OnMismatch,
    ) -> Result<RedundantKernel<'g, 'm, C, T>> {
        let compare_on = CompareOn::for_bytes(len.saturating_mul(size_of::<T>()));
        self.redundant_compared(module, output, len, sms_each, on_mismatch, compare_on)
    }

    /// As [`redundant`](Self::redundant), the replicas compared where `compare_on` says,
    /// whatever the output's size: [`CompareOn::Host`] needs no kernel of `module`;
    /// [`CompareOn::Device`] looks [`ReplicasCompare`](crate::safety::ReplicasCompare) up in `module`.
    ///
    /// On the device, the comparison is ordered after both replicas on partition 0's stream:
    /// after replica 0 by the stream's order, after replica 1 by an event recorded on partition
    /// 1's stream that partition 0's waits for (`cuEventRecord`, `cuStreamWaitEvent`). The init
    /// phase records and waits for it once; a driver that refuses an event of the primary
    /// context on a partition's stream (`CUDA_ERROR_INVALID_HANDLE`) gets the host's wait for
    /// replica 1 instead ([`RedundantKernel::ordered_by_event`]).
    ///
    /// # Errors
    ///
    /// As [`redundant`](Self::redundant).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuEventRecord")]
    #[doc(alias = "cuStreamWaitEvent")]
    pub fn redundant_compared<'m, C: PlainLaunch, T: DeviceCopy>(
        &self,
        module: &'m RestrictedModule<'g>,
        output: &'static str,
        len: usize,
        sms_each: u32,
        on_mismatch: OnMismatch,
        compare_on: CompareOn,
    ) -> Result<RedundantKernel<'g, 'm, C, T>> {
        crate::error::poison::check()?;
        let Some(device) = self.primary else {
            return Err(Error::custack(
                ErrorKind::OutsideProfile,
                format!(
                    "kernel `{}`: a redundant kernel runs on green contexts of the device, \
                     which share memory and modules with its primary context only: make the \
                     context with RestrictedContext::primary",
                    C::KERNEL
                ),
            ));
        };
        if !C::PARAMS.contains(&output) {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "kernel `{}` declares no parameter `{output}` (it declares {:?})",
                    C::KERNEL,
                    C::PARAMS
                ),
            ));
        }
        let partitions = self.budget.take(Resource::Partitions, 2)?;
        let streams = self.budget.take(Resource::Streams, 2)?;
        let kernel = self.kernel::<C>(module)?;
        let outputs = [self.alloc::<T>(len)?, self.alloc::<T>(len)?];
        let staging = self.alloc_pinned::<T>(len)?;
        // What the comparison needs, but the probe of the event's recording (below, once the
        // partitions' streams exist).
        let compare = match compare_on {
            CompareOn::Host => Err(self.alloc_pinned::<T>(len)?),
            CompareOn::Device => {
                let compare = self.compare_kernel::<C>(module)?;
                let verdict = self.alloc::<u64>(2)?;
                let verdict_host = self.alloc_pinned::<u64>(2)?;
                let taken = self.budget.take(Resource::Events, 1)?;
                let done = self.guard.event(EventFlags::DISABLE_TIMING)?;
                taken.keep();
                let done = RestrictedEvent::of(done, self.budget.budget().wait_bound());
                Ok((compare, verdict, verdict_host, done))
            }
        };
        let sms = device.sm_resource_unconfined()?;
        let split = sms.split(2, sms_each)?;
        let [a, b] = split.groups.as_slice() else {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "kernel `{}`: the device's {} SMs make {} groups of at least {sms_each}, \
                     not two",
                    C::KERNEL,
                    sms.sm_count(),
                    split.groups.len()
                ),
            ));
        };
        let partition = |group: &SmPartition<'_>| -> Result<Partition<'g>> {
            let (green, _ctx) = create_green(group)?;
            let green = OwnedGreen(green);
            // SAFETY: `green.0` was just created and lives until `green` drops, after the stream
            // (`Partition`'s field order).
            let raw = unsafe { green_stream(green.0) }?;
            // SAFETY: a stream just created, owned by nobody else, of a green context of the
            // device whose primary context is current: the primary context's guard enqueues on
            // it (green contexts share the primary context's memory and modules); nothing but
            // this `Stream` destroys it.
            let stream = unsafe { self.guard.stream_from_raw(raw) };
            Ok(Partition {
                stream: RestrictedStream::of(stream, self.budget.budget().wait_bound()),
                _green: green,
                sm_count: group.sm_count(),
            })
        };
        let partitions_made = [partition(a)?, partition(b)?];
        partitions.keep();
        streams.keep();
        let check = match compare {
            Err(second) => Check::Host(second),
            Ok((compare, verdict, verdict_host, done)) => Check::Device(OnDevice::new(
                compare,
                verdict,
                verdict_host,
                done,
                &partitions_made,
                len,
            )?),
        };
        Ok(RedundantKernel {
            kernel,
            partitions: partitions_made,
            outputs,
            staging,
            check,
            output,
            replicas: Replicas::of::<C>(on_mismatch),
            frames: 0,
        })
    }

    /// [`ReplicasCompare`](crate::safety::ReplicasCompare) looked up in `module` for the redundant kernel of contract `C`
    /// ([`kernel`](Self::kernel)); where `module` lacks it, the error says how to build it in.
    fn compare_kernel<'m, C: Contract>(
        &self,
        module: &'m RestrictedModule<'g>,
    ) -> Result<RestrictedKernel<'m, CompareContract>> {
        self.kernel::<CompareContract>(module).map_err(|e| {
            if e.kind() == ErrorKind::NotFound {
                e.with_detail(format!(
                    "kernel `{}`: its outputs are compared on the device, by the kernel \
                     `custack_replicas_compare`, which the module lacks: build \
                     ReplicasCompare::SOURCE (src/safety/replicas_compare.cu) into the cubin, \
                     or compare on the host (redundant_compared, CompareOn::Host)",
                    C::KERNEL
                ))
            } else {
                e
            }
        })
    }

    /// Ends the init phase: nothing can be created from here on (C27). The context stays
    /// sealed: a later [`RestrictedGuard::init`](crate::safety::RestrictedGuard::init) is refused.
    ///
    /// With the feature `nvml`, where `InitPhase::watch_health` was called, the
    /// health pre-flight runs first: ECC off (or absent), a row remap pending or failed, pages
    /// waiting to be retired, or an event kind NVML cannot watch
    /// (`custack::health::Finding`) refuses the run phase: the process is poisoned
    /// with [`ErrorKind::HardwareFault`] naming each finding (observed by
    /// `Observer::HealthPreflight` here), so every call of the run phase returns that error.
    #[track_caller]
    pub fn seal(self) -> RunPhase<'g> {
        #[cfg(feature = "nvml")]
        let health = self
            .health
            .and_then(|w| w.seal(core::panic::Location::caller()));
        RunPhase {
            guard: self.guard,
            idle: self.idle,
            bound: self.budget.budget().wait_bound(),
            #[cfg(feature = "nvml")]
            health,
        }
    }
}

/// The run phase: what [`InitPhase::seal`] returns. The values init made launch, copy, record
/// and wait on events, launch graphs and update their kernel nodes' parameters
/// ([`RestrictedGraph::update_kernels`]); nothing can be created, loaded, allocated, built or
/// instantiated (C27). It holds the context-wide wait and the memory query.
#[derive(Debug)]
pub struct RunPhase<'g> {
    guard: &'g PushedGuard<'g, 'g>,
    /// The context's event for the context-wide wait (`None` before driver 12.5), live for `'g`.
    idle: Option<ffi::CUevent>,
    bound: WaitBound,
    /// The init phase's NVML and event set ([`InitPhase::watch_health`]).
    #[cfg(feature = "nvml")]
    health: Option<crate::health::Health>,
}

impl RunPhase<'_> {
    /// `cuCtxRecordEvent`, `cuEventQuery`—Waits for all of the context's work, at most the
    /// context's [`WaitBound`]: records an event the init phase made after everything enqueued
    /// so far and polls it, so the wait creates nothing. Past the bound, the bound's
    /// [`OnOverrun`](crate::safety::OnOverrun) decides: the safe state, or
    /// [`ErrorKind::DeadlinePassed`] (the wait borrows nothing).
    ///
    /// A driver older than 12.5 has no `cuCtxRecordEvent`: there this is `cuCtxSynchronize`,
    /// unbounded, which finds the context idle by construction (every enqueue of the run phase
    /// is in a scope, which ended within the bound or ended the process; R23).
    ///
    /// # Errors
    ///
    /// The driver's error (a sticky one poisons the process, R20); `DeadlinePassed` as above.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__CTX.html>
    #[doc(alias = "cuCtxRecordEvent")]
    #[doc(alias = "cuCtxSynchronize")]
    #[track_caller]
    pub fn synchronize(&self) -> Result<()> {
        let Some(idle) = self.idle else {
            return self.guard.synchronize();
        };
        crate::error::poison::check()?;
        let site = core::panic::Location::caller();
        // SAFETY: the guard's context is current (the run phase borrows the guard), and
        // `idle` is a live event of it, the restricted context's, which outlives `'g`.
        let waited =
            match unsafe { idle_by_event(self.guard.as_raw(), idle, self.bound.deadline(), site) }?
            {
                Ok(()) => Ok(()),
                Err(waited) => Err(passed(
                    format_args!("the run phase's context synchronized at {site}"),
                    waited,
                )),
            };
        self.bound.settle(waited)
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

    /// `nvmlEventSetWait_v2` with a zero timeout—Polls the GPU's health events (feature
    /// `nvml`): call it once in each frame. A double-bit ECC error, a critical Xid (its number
    /// in the error) or a lost GPU poisons the process ([`ErrorKind::HardwareFault`], observed
    /// by `Observer::HealthPoll` here): this call and every later one return that error, as
    /// after a sticky driver error (R20). So does a wait NVML fails (any answer but
    /// `NVML_ERROR_TIMEOUT`, which says no event is pending): a poll that cannot read the
    /// events cannot say the GPU is healthy (`custack::health::Health::poll` lists each
    /// answer). Waits not at all, creates nothing and allocates nothing while there is no event.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::HardwareFault`] as above (a failed wait's names NVML's status); the
    /// process's poison (also from the pre-flight at [`InitPhase::seal`]) or a forked child's
    /// refusal; `ErrorKind::NvmlFailed` where [`InitPhase::watch_health`] was not called
    /// (nothing to poll).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html>
    #[cfg(feature = "nvml")]
    #[doc(alias = "nvmlEventSetWait_v2")]
    #[track_caller]
    pub fn poll_health(&self) -> Result<()> {
        crate::error::poison::check()?;
        match &self.health {
            Some(health) => health.poll_or_poison(core::panic::Location::caller()),
            None => Err(crate::error::Error::custack(
                ErrorKind::NvmlFailed,
                "RunPhase::poll_health: the init phase watched no health (call \
                 InitPhase::watch_health before seal)",
            )),
        }
    }
}

/// `cuMemsetD8` of every byte of a new allocation to zero, on the NULL stream, and the wait for
/// it within the context's bound (`bound.limit()`): `cuStreamQuery` until it answers. The
/// memset writes the buffer, which is freed if this returns an error, so no error returns
/// before the memset is known to be over:
/// - an error that is not sticky says nothing about the memset: the stream is polled on until
///   it is idle (then the first error returns) or the bound passes;
/// - past the bound, whatever [`OnOverrun`](crate::safety::OnOverrun) says, the safe state,
///   naming the allocation and the bound (a scope's end does the same: it borrows too);
/// - a sticky answer takes the safe state at once (R20).
///
/// A plain `cuStreamSynchronize` here had no bound at all in the init phase (R19).
#[track_caller]
fn zero_within<T: DeviceCopy>(buffer: &mut DeviceBuffer<'_, T>, bound: WaitBound) -> Result<()> {
    use crate::deadline::{BoundedWait, Overrun};
    if buffer.is_empty() {
        return Ok(());
    }
    // SAFETY: the device range is live memory of the current context (the guard's, which
    // lent the buffer), `byte_len` bytes.
    unsafe { ffi::cuMemsetD8_v2(buffer.device_ptr(), 0, buffer.byte_len()) }.result()?;
    let zeroing = BoundedWait::Zeroing {
        limit: bound.limit(),
    };
    let site = core::panic::Location::caller();
    // The NULL stream of the current context always exists.
    crate::asynchronous::wait_stream_by(
        core::ptr::null_mut(),
        bound.deadline(),
        Overrun::Exit,
        zeroing,
        site,
    )
}
