//! The process's entry into the profile ([`Profile`]) and the fixed resources a context states
//! up front ([`Budget`]).

use crate::driver::{Device, Driver};
use crate::error::atomics::{Atomic, subtract};
use crate::error::{Error, ErrorKind, Result};
use crate::safety::bound::WaitBound;
use core::sync::atomic::{AtomicUsize, Ordering};

/// The proof that this process initialized CUDA for the restricted profile: the driver without
/// its log callback (NVIDIA's safety subset has no callbacks, CUDA SAFETY 1.1), the child of a
/// later `fork` refusing every call (`ErrorKind::ForkedProcess`: a forked child must `exec`
/// before any CUDA call, CUDA-1.6), and the number of restricted contexts the process makes
/// over its life. Every [`RestrictedContext`] is made from one.
///
/// [`RestrictedContext`]: crate::safety::RestrictedContext
///
/// # Examples
///
/// ```no_run
/// use custack::safety::{Budget, Profile, RestrictedContext};
/// // The process makes one restricted context in its life.
/// let profile = Profile::init(1)?;
/// let ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
/// # let _ = ctx;
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    driver: Driver,
}

impl Profile {
    /// `cuInit`, without the driver-log callback that [`Driver::init`] registers, for a process
    /// that makes `contexts` restricted contexts over its life. Registers (once) the fork
    /// handler that makes a forked child refuse every call.
    ///
    /// **Call it first**, before any entry to the full API in any thread or dependency: a
    /// process that used the full API ([`Driver::init`], [`Context::new`](crate::Context::new),
    /// a full [`Stack::push`](crate::Stack::push), [`name_launches(true)`](crate::name_launches),
    /// ...), even where that entry failed, is refused, the refusal naming its first entry:
    /// what the full API made would keep reaching the driver outside the subset beside the
    /// profile's values. That holds on every driver version, whatever it exports.
    ///
    /// From its first step, before the driver is asked, the process is then confined to the
    /// profile for good, whatever this returns: every entry to the full API (those above,
    /// [`Context::new`](crate::Context::new) and `primary`, green contexts,
    /// `Library::load_ptx`, NVRTC, cuRAND's host generators, NCCL's ids, the CUDA libraries'
    /// versions) returns `ErrorKind::OutsideProfile`, whoever calls it: the application, a
    /// dependency, another thread. A program that starts in the subset cannot leave it.
    ///
    /// `contexts` is how many restricted contexts ([`RestrictedContext::new`] and
    /// [`primary`] together) the process makes over its life, as
    /// a [`Budget`] states a context's resources: each one made takes one, one past the count
    /// is refused before the driver is asked, a creation the driver fails gives its one back,
    /// and destroying a context gives nothing back. The count is the process's: the first
    /// `Profile::init` that succeeds states it; a later one stating the same count returns
    /// the same profile (threads or tests of one process may each call it), and one stating
    /// another count is refused.
    ///
    /// [`RestrictedContext::new`]: crate::safety::RestrictedContext::new
    /// [`primary`]: crate::safety::RestrictedContext::primary
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` if the process entered the full API before (naming the first
    /// entry), if `contexts` is 0, if an earlier `Profile::init` stated another count, or if the
    /// fork handler could not be registered; `ErrorKind::ForkedProcess` in a forked child;
    /// `cuInit`'s errors (`CUDA_ERROR_NO_DEVICE`, …).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::safety::Profile;
    /// // Two restricted contexts over the process's life: one per device, say.
    /// let profile = Profile::init(2)?;
    /// // Stating the same count again (another thread, a test) is the same profile.
    /// let again = Profile::init(2)?;
    /// # let _ = (profile, again);
    /// // Another count is refused: the first one stated it.
    /// assert!(Profile::init(3).is_err());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html>
    #[doc(alias = "cuInit")]
    pub fn init(contexts: usize) -> Result<Self> {
        // First, whatever follows: refused where the full API was used before (AOU-8 checked);
        // otherwise the process is confined to the profile from here (every entry to the full
        // API refuses), even where the init below fails.
        crate::error::confinement::confine()?;
        // A forked child is refused here too (it must exec first); the fork handler is
        // registered before `cuInit`, so a child forked after a failed init is refused as well.
        crate::error::poison::check()?;
        crate::error::poison::watch_forks()?;
        // A count that cannot be the process's is refused before the driver is asked.
        CONTEXTS.check(contexts)?;
        let driver = crate::driver::init_without_callbacks()?;
        CONTEXTS.state(contexts)?;
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

/// A resource a [`Budget`] states: what a [`RestrictedContext`]'s init phase may create, in
/// bytes or in count, over the context's life.
///
/// [`RestrictedContext`]: crate::safety::RestrictedContext
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Resource {
    /// Bytes of device memory ([`InitPhase::alloc`](crate::safety::InitPhase::alloc)):
    /// [`Budget::device_bytes`].
    DeviceBytes,
    /// Bytes of page-locked host memory
    /// ([`InitPhase::alloc_pinned`](crate::safety::InitPhase::alloc_pinned)):
    /// [`Budget::page_locked`].
    PageLockedBytes,
    /// Streams ([`InitPhase::stream`](crate::safety::InitPhase::stream)): [`Budget::streams`].
    Streams,
    /// Events ([`InitPhase::event`](crate::safety::InitPhase::event)): [`Budget::events`].
    Events,
    /// Modules loaded from cubins
    /// ([`InitPhase::load_cubin`](crate::safety::InitPhase::load_cubin)): [`Budget::modules`].
    Modules,
    /// Kernels looked up ([`InitPhase::kernel`](crate::safety::InitPhase::kernel)), one per
    /// lookup: [`Budget::kernels`].
    Kernels,
    /// Graphs captured or built, and instantiated
    /// ([`InitPhase::capture`](crate::safety::InitPhase::capture),
    /// [`InitPhase::build_graph`](crate::safety::InitPhase::build_graph)): [`Budget::graphs`].
    Graphs,
    /// The nodes of those graphs, as the captured graph reports them (`cuGraphGetNodes`), or
    /// as the builder made them (a conditional node's bodies' nodes included):
    /// [`Budget::graph_nodes`].
    GraphNodes,
    /// Partitions of the device's SMs, each a green context with one stream
    /// ([`InitPhase::redundant`](crate::safety::InitPhase::redundant) makes two):
    /// [`Budget::partitions`]. Each partition's stream also counts one of
    /// [`Budget::streams`].
    Partitions,
}

impl Resource {
    /// Every resource, in the order a [`Budget`] lists them.
    pub const ALL: [Self; 9] = [
        Self::DeviceBytes,
        Self::PageLockedBytes,
        Self::Streams,
        Self::Events,
        Self::Modules,
        Self::Kernels,
        Self::Graphs,
        Self::GraphNodes,
        Self::Partitions,
    ];

    /// What the resource is, in a refusal's message, and the verb for what was taken of it.
    const fn words(self) -> (&'static str, &'static str) {
        match self {
            Self::DeviceBytes => ("device memory", "allocated"),
            Self::PageLockedBytes => ("page-locked memory", "allocated"),
            Self::Streams => ("streams", "created"),
            Self::Events => ("events", "created"),
            Self::Modules => ("modules", "loaded"),
            Self::Kernels => ("kernels", "looked up"),
            Self::Graphs => ("graphs", "captured"),
            Self::GraphNodes => ("graph nodes", "captured"),
            Self::Partitions => ("SM partitions", "made"),
        }
    }

    /// The [`Budget`] method that states it.
    const fn stated_by(self) -> &'static str {
        match self {
            Self::DeviceBytes => "Budget::device_bytes",
            Self::PageLockedBytes => "Budget::page_locked",
            Self::Streams => "Budget::streams",
            Self::Events => "Budget::events",
            Self::Modules => "Budget::modules",
            Self::Kernels => "Budget::kernels",
            Self::Graphs => "Budget::graphs",
            Self::GraphNodes => "Budget::graph_nodes",
            Self::Partitions => "Budget::partitions",
        }
    }

    /// Whether it counts bytes (else objects).
    const fn is_bytes(self) -> bool {
        matches!(self, Self::DeviceBytes | Self::PageLockedBytes)
    }
}

/// The fixed resources a [`RestrictedContext`](crate::safety::RestrictedContext) states when it is
/// made, as Vulkan SC states a device's objects up front: the most device memory and
/// page-locked host memory its init phase may allocate, in bytes, and the most streams, events,
/// modules, kernels, graphs, graph nodes and SM partitions it may create. Every creation of the
/// init phase is counted against it; one past it is refused with `ErrorKind::OutsideProfile`,
/// before the driver is asked.
///
/// What a budget does not state is zero: refused. [`Budget::new`] states nothing, and
/// [`Budget::page_locked`] only page-locked memory; the other methods open one resource each.
/// The figures count over the context's life: freeing a buffer or dropping a stream does not
/// return budget (the run phase creates nothing, so the figures are what the program holds at
/// most). A creation the driver fails gives back what it took.
///
/// Counted is what custack asks the driver for with a known size: device bytes are
/// [`InitPhase::alloc`](crate::safety::InitPhase::alloc)'s (each allocation's `len * size_of::<T>()`,
/// before the driver's rounding); the memory the driver takes for itself (a module's code and
/// globals, a stream's or a graph's own state) is not seen and not counted.
///
/// # Examples
///
/// ```
/// use custack::safety::{Budget, Resource};
/// let budget = Budget::page_locked(4 << 20)
///     .device_bytes(16 << 20)
///     .streams(2)
///     .events(4)
///     .modules(1)
///     .kernels(2)
///     .graphs(1)
///     .graph_nodes(8);
/// assert_eq!(budget.page_locked_bytes(), 4 << 20);
/// assert_eq!(budget.stated(Resource::Streams), 2);
/// // What is not stated is refused.
/// assert_eq!(Budget::page_locked(4096).stated(Resource::Streams), 0);
/// assert_eq!(Budget::new(), Budget::page_locked(0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Budget {
    device_bytes: usize,
    page_locked_bytes: usize,
    streams: usize,
    events: usize,
    modules: usize,
    kernels: usize,
    graphs: usize,
    graph_nodes: usize,
    partitions: usize,
    local_bytes_per_thread: usize,
    waits: WaitBound,
}

impl Budget {
    /// A budget that states nothing: every creation is refused until a method below opens it.
    pub const fn new() -> Self {
        Self {
            device_bytes: 0,
            page_locked_bytes: 0,
            streams: 0,
            events: 0,
            modules: 0,
            kernels: 0,
            graphs: 0,
            graph_nodes: 0,
            partitions: 0,
            local_bytes_per_thread: 0,
            waits: WaitBound::DEFAULT,
        }
    }

    /// At most `bytes` of page-locked host memory, and nothing else (the other methods open
    /// the rest).
    pub const fn page_locked(bytes: usize) -> Self {
        Self {
            page_locked_bytes: bytes,
            ..Self::new()
        }
    }

    /// At most `bytes` of device memory.
    #[must_use]
    pub const fn device_bytes(self, bytes: usize) -> Self {
        Self {
            device_bytes: bytes,
            ..self
        }
    }

    /// At most `n` streams.
    #[must_use]
    pub const fn streams(self, n: usize) -> Self {
        Self { streams: n, ..self }
    }

    /// At most `n` events.
    #[must_use]
    pub const fn events(self, n: usize) -> Self {
        Self { events: n, ..self }
    }

    /// At most `n` modules loaded.
    #[must_use]
    pub const fn modules(self, n: usize) -> Self {
        Self { modules: n, ..self }
    }

    /// At most `n` kernel lookups (the same kernel looked up twice counts twice).
    #[must_use]
    pub const fn kernels(self, n: usize) -> Self {
        Self { kernels: n, ..self }
    }

    /// At most `n` graphs captured or built, and instantiated.
    #[must_use]
    pub const fn graphs(self, n: usize) -> Self {
        Self { graphs: n, ..self }
    }

    /// At most `n` nodes in all the graphs captured or built: as each captured graph reports
    /// them, or as the builder made them, conditional nodes' bodies included.
    #[must_use]
    pub const fn graph_nodes(self, n: usize) -> Self {
        Self {
            graph_nodes: n,
            ..self
        }
    }

    /// At most `n` partitions of the device's SMs (green contexts, each with one stream that
    /// counts against [`streams`](Self::streams)): a redundant kernel takes two.
    #[must_use]
    pub const fn partitions(self, n: usize) -> Self {
        Self {
            partitions: n,
            ..self
        }
    }

    /// Local memory of `bytes` per thread reserved in the init phase: the context's stack
    /// limit (`CU_LIMIT_STACK_SIZE`) is raised to it when the init phase opens, if it is below,
    /// and a kernel that uses more (`CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`) is refused when it is
    /// looked up. Without it the context keeps the limit it was made with (the driver's
    /// default, 1 KiB on the H100). Either way no launch of the run phase grows the
    /// reservation: the driver would allocate device memory at that launch, and keep it.
    ///
    /// The reservation is the driver's: on an H100 a limit of 9 KiB holds about 2.1 GiB of
    /// device memory (`scripts/limit-facts/`), outside [`device_bytes`](Self::device_bytes),
    /// which counts the program's buffers.
    #[must_use]
    pub const fn local_memory(self, bytes_per_thread: usize) -> Self {
        Self {
            local_bytes_per_thread: bytes_per_thread,
            ..self
        }
    }

    /// The local memory per thread stated ([`local_memory`](Self::local_memory); 0: the
    /// context's limit as it was made).
    pub const fn local_bytes_per_thread(self) -> usize {
        self.local_bytes_per_thread
    }

    /// The bound of every wait of the context: a scope's end, a stream's and an event's
    /// `synchronize` (without this, [`WaitBound::DEFAULT`]: ten seconds, then the safe state).
    #[must_use]
    pub const fn waits(self, bound: WaitBound) -> Self {
        Self {
            waits: bound,
            ..self
        }
    }

    /// The bound of every wait of the context.
    pub const fn wait_bound(self) -> WaitBound {
        self.waits
    }

    /// The page-locked bytes stated.
    pub const fn page_locked_bytes(self) -> usize {
        self.page_locked_bytes
    }

    /// The figure stated for `resource` (0: none allowed).
    pub const fn stated(self, resource: Resource) -> usize {
        match resource {
            Resource::DeviceBytes => self.device_bytes,
            Resource::PageLockedBytes => self.page_locked_bytes,
            Resource::Streams => self.streams,
            Resource::Events => self.events,
            Resource::Modules => self.modules,
            Resource::Kernels => self.kernels,
            Resource::Graphs => self.graphs,
            Resource::GraphNodes => self.graph_nodes,
            Resource::Partitions => self.partitions,
        }
    }
}

/// A [`Budget`] and what the init phase has taken of it, per resource.
#[derive(Debug, Default)]
pub(crate) struct BudgetUse {
    budget: Budget,
    device_bytes: AtomicUsize,
    page_locked_bytes: AtomicUsize,
    streams: AtomicUsize,
    events: AtomicUsize,
    modules: AtomicUsize,
    kernels: AtomicUsize,
    graphs: AtomicUsize,
    graph_nodes: AtomicUsize,
    partitions: AtomicUsize,
}

impl BudgetUse {
    pub(crate) fn new(budget: Budget) -> Self {
        Self {
            budget,
            ..Self::default()
        }
    }

    /// The count of `resource`.
    fn counter(&self, resource: Resource) -> &AtomicUsize {
        match resource {
            Resource::DeviceBytes => &self.device_bytes,
            Resource::PageLockedBytes => &self.page_locked_bytes,
            Resource::Streams => &self.streams,
            Resource::Events => &self.events,
            Resource::Modules => &self.modules,
            Resource::Kernels => &self.kernels,
            Resource::Graphs => &self.graphs,
            Resource::GraphNodes => &self.graph_nodes,
            Resource::Partitions => &self.partitions,
        }
    }

    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    /// What has been taken of `resource` so far.
    pub(crate) fn used(&self, resource: Resource) -> usize {
        self.counter(resource).load(Ordering::Relaxed)
    }

    /// Counts `n` of `resource` against the budget, or refuses them (nothing counted). The
    /// returned [`Taken`] gives them back when dropped, unless [`kept`](Taken::keep): a
    /// creation keeps it once the driver made the value, and a failed one (an error, a panic)
    /// returns it.
    pub(crate) fn take(&self, resource: Resource, n: usize) -> Result<Taken<'_>> {
        let limit = self.budget.stated(resource);
        let used = self.counter(resource);
        add_within(used, n, limit)
            .map(|()| Taken { used, n })
            .map_err(|already| refusal(resource, n, already, limit))
    }
}

/// Adds `n` to `counter` if the sum stays within `limit`, atomically (racing threads cannot
/// pass `limit` together); else `Err` with what the counter held, unchanged.
fn add_within<A: Atomic<Value = usize>>(
    counter: &A,
    n: usize,
    limit: usize,
) -> core::result::Result<(), usize> {
    let mut current = counter.load(Ordering::Relaxed);
    loop {
        let Some(total) = current.checked_add(n).filter(|&total| total <= limit) else {
            return Err(current);
        };
        match counter.compare_exchange_weak(current, total, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Ok(()),
            Err(now) => current = now,
        }
    }
}

/// The process's count of restricted contexts, stated by [`Profile::init`].
static CONTEXTS: ContextCount = ContextCount::new();

/// How many restricted contexts the process may make over its life (stated once by
/// [`Profile::init`]; 0 until then) and how many it made. Counted like a [`Budget`]'s
/// resources: taking one past the count is refused, a creation the driver failed gives its one
/// back ([`Taken`]), and nothing made is given back.
///
/// Generic over its atomic for the model tests (`error/atomics.rs`); the crate's is `core`'s.
#[derive(Debug)]
pub(crate) struct ContextCount<A = AtomicUsize> {
    stated: A,
    made: A,
}

impl ContextCount {
    pub(crate) const fn new() -> Self {
        Self {
            stated: AtomicUsize::new(0),
            made: AtomicUsize::new(0),
        }
    }
}

impl<A: Atomic<Value = usize>> ContextCount<A> {
    /// A count over the atomic `A` with nothing stated (the model tests').
    #[cfg(all(test, loom))]
    fn unstated() -> Self {
        Self {
            stated: A::make(0),
            made: A::make(0),
        }
    }

    /// Whether `contexts` could be stated: not 0, and the count stated before if there was one
    /// (no change).
    fn check(&self, contexts: usize) -> Result<()> {
        let stated = self.stated.load(Ordering::Acquire);
        if contexts == 0 || (stated != 0 && stated != contexts) {
            return Err(count_refused(contexts, stated));
        }
        Ok(())
    }

    /// States `contexts` for the process, or finds it stated already; refuses 0 and another
    /// count than the one stated first.
    fn state(&self, contexts: usize) -> Result<()> {
        self.check(contexts)?;
        match self
            .stated
            .compare_exchange(0, contexts, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(()),
            Err(stated) if stated == contexts => Ok(()),
            Err(stated) => Err(count_refused(contexts, stated)),
        }
    }

    /// Takes one restricted context from the count, or refuses it (nothing taken). The
    /// returned [`Taken`] gives it back when dropped, unless [`kept`](Taken::keep) once the
    /// driver made the context.
    pub(crate) fn take(&self) -> Result<Taken<'_, A>> {
        let stated = self.stated.load(Ordering::Acquire);
        add_within(&self.made, 1, stated)
            .map(|()| Taken {
                used: &self.made,
                n: 1,
            })
            .map_err(|made| past_the_count(made, stated))
    }

    /// How many restricted contexts were made (taken and kept, or taken and not yet given back).
    #[cfg(test)]
    fn made(&self) -> usize {
        self.made.load(Ordering::Relaxed)
    }
}

/// Takes one restricted context from the process's count (see [`ContextCount::take`]).
pub(crate) fn take_context() -> Result<Taken<'static>> {
    CONTEXTS.take()
}

/// The refusal of `Profile::init(contexts)` where `stated` was stated before (0: none).
#[cold]
fn count_refused(contexts: usize, stated: usize) -> Error {
    let detail = if contexts == 0 {
        "Profile::init(0) states no restricted context: the count is how many the process \
         makes over its life, at least 1"
            .to_owned()
    } else {
        format!(
            "Profile::init({contexts}) after Profile::init({stated}): the first Profile::init \
             of the process stated how many restricted contexts it makes over its life, and \
             every later one must state the same count"
        )
    };
    Error::custack(ErrorKind::OutsideProfile, detail)
}

/// The refusal of one more restricted context, `made` of `stated` made already.
#[cold]
fn past_the_count(made: usize, stated: usize) -> Error {
    Error::custack(
        ErrorKind::OutsideProfile,
        format!(
            "a restricted context past the process's count: Profile::init({stated}) stated \
             {stated} for the process's life, and {made} of {stated} were made already \
             (destroying one gives nothing back; state every context the program makes in \
             Profile::init)"
        ),
    )
}

/// The refusal of `n` more of `resource`, `already` of `limit` taken.
fn refusal(resource: Resource, n: usize, already: usize, limit: usize) -> Error {
    let (what, verb) = resource.words();
    let unit = if resource.is_bytes() { " bytes" } else { "" };
    let stated_by = resource.stated_by();
    let hint = if limit == 0 {
        format!("the budget states none; {stated_by}(n) opens them")
    } else {
        format!("stated by {stated_by}")
    };
    Error::custack(
        ErrorKind::OutsideProfile,
        format!(
            "{what} past the context's budget: {n}{unit} asked, {already} of {limit} already \
             {verb} ({hint}; freeing gives nothing back)"
        ),
    )
}

/// What [`BudgetUse::take`] counted: given back on drop, unless [`keep`](Self::keep) was called.
#[must_use = "dropped, it gives the budget back"]
#[derive(Debug)]
pub(crate) struct Taken<'b, A: Atomic<Value = usize> = AtomicUsize> {
    used: &'b A,
    n: usize,
}

impl<A: Atomic<Value = usize>> Taken<'_, A> {
    /// Keeps the count: the driver made what it was taken for.
    pub(crate) fn keep(self) {
        core::mem::forget(self);
    }
}

impl<A: Atomic<Value = usize>> Drop for Taken<'_, A> {
    fn drop(&mut self) {
        // Taken by `take`, so `used >= n`: no wrap (and `subtract` saturates). Another
        // creation may have taken more since; subtracting only this one's share leaves theirs
        // counted.
        subtract(self.used, self.n, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::{Budget, BudgetUse, ContextCount, Resource, WaitBound};
    use crate::error::ErrorKind;

    #[track_caller]
    fn refused_with<T: core::fmt::Debug>(r: crate::error::Result<T>, words: &str) {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(e.to_string().contains(words), "{e}");
    }

    #[test]
    fn the_count_is_stated_once_and_restated_only_alike() {
        let count = ContextCount::new();
        refused_with(
            count.check(0),
            "Profile::init(0) states no restricted context",
        );
        refused_with(
            count.state(0),
            "Profile::init(0) states no restricted context",
        );
        count.check(2).unwrap();
        count.state(2).unwrap();
        // The same count again (another thread, another test): the same profile.
        count.check(2).unwrap();
        count.state(2).unwrap();
        // Another one is refused, before the driver (`check`) and after it (`state`).
        for other in [1, 3] {
            let words = format!("Profile::init({other}) after Profile::init(2)");
            refused_with(count.check(other), &words);
            refused_with(count.state(other), &words);
        }
        refused_with(count.state(0), "Profile::init(0)");
        count.state(2).unwrap();
    }

    #[test]
    fn threads_stating_different_counts_leave_one_stated() {
        for _ in 0..if cfg!(miri) { 4 } else { 200 } {
            let count = ContextCount::new();
            let start = std::sync::Barrier::new(4);
            let stated: Vec<usize> = std::thread::scope(|t| {
                let handles: Vec<_> = (1..=4)
                    .map(|n| {
                        let (count, start) = (&count, &start);
                        t.spawn(move || {
                            start.wait();
                            count.state(n).map(|()| n)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .filter_map(|h| h.join().unwrap().ok())
                    .collect()
            });
            assert_eq!(stated.len(), 1, "{stated:?}");
            count.state(stated[0]).unwrap();
        }
    }

    #[test]
    fn contexts_are_taken_up_to_the_count_and_refused_one_past_it() {
        let count = ContextCount::new();
        // Nothing stated (no profile): none.
        refused_with(count.take(), "0 of 0 were made already");
        count.state(2).unwrap();
        count.take().unwrap().keep();
        count.take().unwrap().keep();
        assert_eq!(count.made(), 2);
        for _ in 0..2 {
            let e = count.take().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile);
            let text = e.to_string();
            assert!(
                text.contains(
                    "a restricted context past the process's count: Profile::init(2) stated 2"
                ),
                "{text}"
            );
            assert!(text.contains("2 of 2 were made already"), "{text}");
            assert!(text.contains("destroying one gives nothing back"), "{text}");
            // Refused: nothing counted.
            assert_eq!(count.made(), 2);
        }
    }

    #[test]
    fn a_context_the_driver_failed_gives_its_one_back() {
        let count = ContextCount::new();
        count.state(1).unwrap();
        // The creation failed at the driver: its one comes back, and a later one is made.
        drop(count.take().unwrap());
        assert_eq!(count.made(), 0);
        count.take().unwrap().keep();
        assert_eq!(count.made(), 1);
        assert!(count.take().is_err());
    }

    #[test]
    fn four_threads_racing_for_the_last_context_take_it_once() {
        for _ in 0..if cfg!(miri) { 4 } else { 200 } {
            let count = ContextCount::new();
            count.state(3).unwrap();
            count.take().unwrap().keep();
            count.take().unwrap().keep();
            let start = std::sync::Barrier::new(4);
            let made = std::thread::scope(|t| {
                let handles: Vec<_> = (0..4)
                    .map(|_| {
                        t.spawn(|| {
                            start.wait();
                            count.take().map(super::Taken::keep).is_ok()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap())
                    .filter(|&ok| ok)
                    .count()
            });
            assert_eq!(made, 1);
            assert_eq!(count.made(), 3);
        }
    }

    /// A budget stating `n` of every resource.
    fn every(n: usize) -> Budget {
        Budget::page_locked(n)
            .device_bytes(n)
            .streams(n)
            .events(n)
            .modules(n)
            .kernels(n)
            .graphs(n)
            .graph_nodes(n)
            .partitions(n)
    }

    #[test]
    fn a_budget_that_states_no_bound_waits_the_default_one() {
        assert_eq!(Budget::new().wait_bound(), WaitBound::DEFAULT);
        assert_eq!(Budget::default().wait_bound(), WaitBound::DEFAULT);
        let bound = WaitBound::return_error(std::time::Duration::from_millis(5));
        assert_eq!(Budget::page_locked(1).waits(bound).wait_bound(), bound);
    }

    #[test]
    fn each_builder_states_its_resource_and_leaves_the_rest_unstated() {
        type Open = fn(Budget, usize) -> Budget;
        let opened: [(Resource, Open); 9] = [
            (Resource::DeviceBytes, Budget::device_bytes),
            (Resource::PageLockedBytes, |_, n| Budget::page_locked(n)),
            (Resource::Streams, Budget::streams),
            (Resource::Events, Budget::events),
            (Resource::Modules, Budget::modules),
            (Resource::Kernels, Budget::kernels),
            (Resource::Graphs, Budget::graphs),
            (Resource::GraphNodes, Budget::graph_nodes),
            (Resource::Partitions, Budget::partitions),
        ];
        for (k, (resource, open)) in opened.into_iter().enumerate() {
            assert_eq!(resource, Resource::ALL[k]);
            let budget = open(Budget::new(), 7 + k);
            for other in Resource::ALL {
                let want = if other == resource { 7 + k } else { 0 };
                assert_eq!(
                    budget.stated(other),
                    want,
                    "{resource:?} opened, {other:?} read"
                );
            }
        }
        assert_eq!(Budget::default(), Budget::new());
        assert_eq!(Budget::page_locked(9).page_locked_bytes(), 9);
        // Local memory and the wait bound are statements beside the counted resources: each
        // is what was stated, unstated the context's own, and it changes nothing else.
        assert_eq!(Budget::new().local_bytes_per_thread(), 0);
        let local = Budget::new().streams(2).local_memory(9 * 1024);
        assert_eq!(local.local_bytes_per_thread(), 9 * 1024);
        assert_eq!(local.stated(Resource::Streams), 2);
        assert_eq!(local, Budget::new().local_memory(9 * 1024).streams(2));
    }

    #[test]
    fn what_is_taken_is_counted_against_the_budget_it_was_made_with() {
        let stated = Budget::page_locked(64)
            .local_memory(4096)
            .waits(WaitBound::return_error(core::time::Duration::from_millis(
                3,
            )));
        let used = BudgetUse::new(stated);
        assert_eq!(used.budget(), stated);
        assert_eq!(used.budget().local_bytes_per_thread(), 4096);
        assert_eq!(used.budget().wait_bound(), stated.wait_bound());
    }

    #[test]
    fn each_resource_is_taken_up_to_its_limit_and_refused_one_past_it() {
        let use_ = BudgetUse::new(every(3));
        for resource in Resource::ALL {
            use_.take(resource, 2).unwrap().keep();
            use_.take(resource, 1).unwrap().keep();
            assert_eq!(use_.used(resource), 3, "{resource:?}");
            let e = use_.take(resource, 1).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{resource:?}: {e}");
            assert!(e.to_string().contains("1 asked") || e.to_string().contains("1 bytes asked"));
            assert!(e.to_string().contains("3 of 3 already"), "{e}");
            // Refused: nothing counted.
            assert_eq!(use_.used(resource), 3, "{resource:?}");
        }
        // One past the limit at once, from nothing, is refused too, and counts nothing.
        let use_ = BudgetUse::new(every(3));
        for resource in Resource::ALL {
            assert!(use_.take(resource, 4).is_err(), "{resource:?}");
            assert_eq!(use_.used(resource), 0, "{resource:?}");
            use_.take(resource, 0).unwrap().keep();
        }
    }

    #[test]
    fn an_unstated_resource_is_refused_naming_the_method_that_states_it() {
        let use_ = BudgetUse::new(Budget::page_locked(4096));
        use_.take(Resource::PageLockedBytes, 4096).unwrap().keep();
        for (resource, method) in [
            (Resource::DeviceBytes, "Budget::device_bytes(n)"),
            (Resource::Streams, "Budget::streams(n)"),
            (Resource::Events, "Budget::events(n)"),
            (Resource::Modules, "Budget::modules(n)"),
            (Resource::Kernels, "Budget::kernels(n)"),
            (Resource::Graphs, "Budget::graphs(n)"),
            (Resource::GraphNodes, "Budget::graph_nodes(n)"),
            (Resource::Partitions, "Budget::partitions(n)"),
        ] {
            let text = use_.take(resource, 1).unwrap_err().to_string();
            assert!(text.contains("the budget states none"), "{text}");
            assert!(text.contains(method), "{text}");
        }
    }

    #[test]
    fn a_refusal_names_the_resource_the_request_and_what_is_used() {
        let use_ = BudgetUse::new(every(100));
        for (resource, words) in [
            (
                Resource::DeviceBytes,
                "device memory past the context's budget: 61 bytes asked, 40 of 100 already \
                 allocated (stated by Budget::device_bytes",
            ),
            (
                Resource::PageLockedBytes,
                "page-locked memory past the context's budget: 61 bytes asked, 40 of 100 \
                 already allocated (stated by Budget::page_locked",
            ),
            (
                Resource::Streams,
                "streams past the context's budget: 61 asked, 40 of 100 already created \
                 (stated by Budget::streams",
            ),
            (
                Resource::Events,
                "events past the context's budget: 61 asked, 40 of 100 already created",
            ),
            (
                Resource::Modules,
                "modules past the context's budget: 61 asked, 40 of 100 already loaded",
            ),
            (
                Resource::Kernels,
                "kernels past the context's budget: 61 asked, 40 of 100 already looked up",
            ),
            (
                Resource::Graphs,
                "graphs past the context's budget: 61 asked, 40 of 100 already captured",
            ),
            (
                Resource::GraphNodes,
                "graph nodes past the context's budget: 61 asked, 40 of 100 already captured \
                 (stated by Budget::graph_nodes",
            ),
            (
                Resource::Partitions,
                "SM partitions past the context's budget: 61 asked, 40 of 100 already made \
                 (stated by Budget::partitions",
            ),
        ] {
            use_.take(resource, 40).unwrap().keep();
            let text = use_.take(resource, 61).unwrap_err().to_string();
            assert!(text.contains(words), "{text}");
            assert!(text.contains("freeing gives nothing back"), "{text}");
            // Exactly up to the limit still fits.
            use_.take(resource, 60).unwrap().keep();
            assert_eq!(use_.used(resource), 100);
        }
    }

    #[test]
    fn a_request_that_overflows_is_refused_not_wrapped() {
        let use_ = BudgetUse::new(every(usize::MAX));
        for resource in Resource::ALL {
            use_.take(resource, 1).unwrap().keep();
            let e = use_.take(resource, usize::MAX).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile);
            let text = e.to_string();
            let max = usize::MAX;
            assert!(text.contains(&format!(": {max}")), "{text}");
            assert!(text.contains(&format!("1 of {max} already")), "{text}");
            assert_eq!(use_.used(resource), 1, "{resource:?}");
            // What is left still fits, to the last unit.
            use_.take(resource, usize::MAX - 1).unwrap().keep();
            assert_eq!(use_.used(resource), usize::MAX);
            assert!(use_.take(resource, 1).is_err());
        }
    }

    #[test]
    fn a_failed_creation_gives_its_share_back_and_only_its_share() {
        let use_ = BudgetUse::new(every(10));
        for resource in Resource::ALL {
            let failed = use_.take(resource, 6).unwrap();
            use_.take(resource, 4).unwrap().keep();
            assert!(use_.take(resource, 1).is_err());
            // The driver failed the first creation: its 6 come back, the other's 4 stay.
            drop(failed);
            assert_eq!(use_.used(resource), 4, "{resource:?}");
            use_.take(resource, 6).unwrap().keep();
            assert_eq!(use_.used(resource), 10, "{resource:?}");
        }
        // One resource's refusal or return leaves the others alone.
        let use_ = BudgetUse::new(every(1));
        use_.take(Resource::Streams, 1).unwrap().keep();
        drop(use_.take(Resource::Events, 1).unwrap());
        assert_eq!(use_.used(Resource::Streams), 1);
        assert_eq!(use_.used(Resource::Events), 0);
        assert_eq!(use_.used(Resource::Modules), 0);
    }

    #[test]
    fn threads_racing_for_a_budget_take_exactly_its_limit() {
        // Under Miri (`scripts/miri.sh`, which explores the threads' interleavings and checks
        // the atomics for races) a sixth of the takes, the budget still short of them: the
        // property is the same, and the interleavings of 4 threads over 100 takes are plenty.
        let (limit, each) = if cfg!(miri) { (250, 100) } else { (1000, 600) };
        let use_ = BudgetUse::new(every(limit));
        let kept = std::thread::scope(|t| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    t.spawn(|| {
                        (0..each)
                            .filter_map(|_| use_.take(Resource::Streams, 1).ok())
                            .map(super::Taken::keep)
                            .count()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .sum::<usize>()
        });
        // 4 × `each` asked, one at a time: exactly `limit` fit, none lost, none past.
        assert_eq!(kept, limit);
        assert_eq!(use_.used(Resource::Streams), limit);
    }

    #[test]
    fn threads_racing_failed_creations_give_everything_back() {
        let use_ = BudgetUse::new(every(3));
        std::thread::scope(|t| {
            for _ in 0..4 {
                t.spawn(|| {
                    // Under Miri a seventh of them, as above.
                    for _ in 0..if cfg!(miri) { 300 } else { 2000 } {
                        // Each creation fails at the driver: its share comes back.
                        drop(use_.take(Resource::Events, 1));
                    }
                });
            }
        });
        assert_eq!(use_.used(Resource::Events), 0);
        use_.take(Resource::Events, 3).unwrap().keep();
    }
}

/// The count of restricted contexts under every interleaving (`loom`; `scripts/loom.sh`): the
/// real `state`, `take` and `Taken`'s give-back over `loom`'s atomics.
#[cfg(all(test, loom))]
mod model {
    use super::ContextCount;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicUsize;

    /// Two threads race for the one context stated: exactly one gets it.
    #[test]
    fn two_threads_racing_for_the_last_context_take_it_once() {
        loom::model(|| {
            let count = Arc::new(ContextCount::<AtomicUsize>::unstated());
            count.state(1).unwrap();
            let other = Arc::clone(&count);
            let t = loom::thread::spawn(move || other.take().map(super::Taken::keep).is_ok());
            let mine = count.take().map(super::Taken::keep).is_ok();
            let theirs = t.join().unwrap();
            assert_ne!(mine, theirs);
            assert_eq!(count.made(), 1);
        });
    }

    /// Three threads, two contexts stated, one creation failing in the driver (its one given
    /// back): never more than two kept, and the count ends at what was kept.
    #[test]
    fn a_failed_creation_gives_back_and_the_count_is_never_passed() {
        loom::model(|| {
            let count = Arc::new(ContextCount::<AtomicUsize>::unstated());
            count.state(2).unwrap();
            let keeper = |count: Arc<ContextCount<AtomicUsize>>| {
                loom::thread::spawn(move || {
                    usize::from(count.take().map(super::Taken::keep).is_ok())
                })
            };
            let a = keeper(Arc::clone(&count));
            let failing = {
                let count = Arc::clone(&count);
                // Taken, then dropped: the driver failed the creation.
                loom::thread::spawn(move || drop(count.take()))
            };
            let mine = usize::from(count.take().map(super::Taken::keep).is_ok());
            failing.join().unwrap();
            let kept = mine + a.join().unwrap();
            assert!(kept <= 2, "{kept} kept");
            assert_eq!(count.made(), kept);
        });
    }

    /// Two threads state different counts: one is stated, the other refused; the same count
    /// twice: both accepted.
    #[test]
    fn racing_statements_leave_one_count() {
        loom::model(|| {
            let count = Arc::new(ContextCount::<AtomicUsize>::unstated());
            let other = Arc::clone(&count);
            let t = loom::thread::spawn(move || other.state(2).is_ok());
            let mine = count.state(3).is_ok();
            let theirs = t.join().unwrap();
            assert_ne!(mine, theirs);
            let stated = if mine { 3 } else { 2 };
            assert!(count.state(stated).is_ok());
        });
        loom::model(|| {
            let count = Arc::new(ContextCount::<AtomicUsize>::unstated());
            let other = Arc::clone(&count);
            let t = loom::thread::spawn(move || other.state(2).is_ok());
            assert!(count.state(2).is_ok());
            assert!(t.join().unwrap());
        });
    }
}
