//! What an init phase makes: the full API's values, each inside a wrapper that lends only the
//! safety subset's methods. Each borrows the guard exactly as the value inside does.

use crate::asynchronous::event::Event;
use crate::asynchronous::payload::{
    Payload, copied_forms, held_as_itself, sealed as payload_sealed,
};
use crate::deadline::Deadline;
use crate::error::Result;
use crate::ffi;
use crate::graph::GraphExec;
use crate::kernel::contract::{CheckedBy, Contract, Declared};
use crate::kernel::module::Module;
use crate::memory::{DeviceBuffer, DeviceMemory};
use crate::safety::bound::WaitBound;
use crate::vocabulary::binding::ScopedSliceMut;
use crate::vocabulary::plain::DeviceCopy;
use core::mem::ManuallyDrop;

/// An event made in an init phase: recorded and waited on in scopes; never shared with another
/// process (no IPC handle). Its host waits are bounded by its context's [`WaitBound`].
#[derive(Debug)]
pub struct RestrictedEvent<'g> {
    event: Event<'g>,
    bound: WaitBound,
}

impl<'g> RestrictedEvent<'g> {
    pub(crate) fn of(event: Event<'g>, bound: WaitBound) -> Self {
        Self { event, bound }
    }

    pub(crate) fn event(&self) -> &Event<'g> {
        &self.event
    }

    /// Waits for the event, at most the context's [`WaitBound`] ([`Event::synchronize_by`]);
    /// past it, the bound's [`OnOverrun`](crate::safety::OnOverrun) decides: the safe state,
    /// or [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) (the wait borrows
    /// nothing).
    ///
    /// # Errors
    ///
    /// As [`Event::synchronize_by`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    pub fn synchronize(&self) -> Result<()> {
        self.synchronize_by(self.bound.deadline())
    }

    /// As [`synchronize`](Self::synchronize), bounded by `deadline` or by the context's
    /// [`WaitBound`], whichever comes first (R19).
    ///
    /// # Errors
    ///
    /// As [`Event::synchronize_by`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    pub fn synchronize_by(&self, deadline: Deadline) -> Result<()> {
        self.bound
            .settle(self.event.synchronize_by(self.bound.nearer(deadline)))
    }

    /// `cuEventQuery`, as [`Event::is_complete`].
    ///
    /// # Errors
    ///
    /// As [`Event::is_complete`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    pub fn is_complete(&self) -> Result<bool> {
        self.event.is_complete()
    }

    /// `cuEventElapsedTime`, as [`Event::elapsed_ms`].
    ///
    /// # Errors
    ///
    /// As [`Event::elapsed_ms`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventElapsedTime")]
    pub fn elapsed_ms(&self, end: &RestrictedEvent<'_>) -> Result<f32> {
        self.event.elapsed_ms(&end.event)
    }
}

/// Device memory made in an init phase: bound to scopes, moved into graphs; never exported to
/// another process (no IPC handle), never freed before its guard's values are done with it.
#[derive(Debug)]
pub struct RestrictedBuffer<'g, T: DeviceCopy> {
    buffer: DeviceBuffer<'g, T>,
}

impl<'g, T: DeviceCopy> RestrictedBuffer<'g, T> {
    pub(crate) fn of(buffer: DeviceBuffer<'g, T>) -> Self {
        Self { buffer }
    }

    pub(crate) fn buffer(&self) -> &DeviceBuffer<'g, T> {
        &self.buffer
    }

    pub(crate) fn buffer_mut(&mut self) -> &mut DeviceBuffer<'g, T> {
        &mut self.buffer
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    /// Whether it holds no elements.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }
}

impl<T: DeviceCopy> payload_sealed::Sealed for RestrictedBuffer<'_, T> {}
/// Moved into a graph ([`InitPhase::capture`](crate::safety::InitPhase::capture)): bound as the device
/// buffer inside it is. Its `Access` and `Read` forms are both a shared reference to the
/// restricted buffer, which only a [`RestrictedScope`](crate::safety::RestrictedScope) can read
/// (not the full API's views, whose `to_vec` and synchronous copies would allocate on the host
/// and wait without a bound in the run phase). Not `&mut`: a program could swap another buffer
/// into the graph's payload through it and free the one the graph's nodes name (found by a
/// review: `mem::swap(graph.payload_mut(), &mut other)`, then a launch on freed memory). A
/// launch writes it through the bound payload ([`RestrictedScope::bind_graph`](crate::safety::RestrictedScope::bind_graph)).
impl<'g, T: DeviceCopy> Payload for RestrictedBuffer<'g, T> {
    type Bound<'scope> = ScopedSliceMut<'scope, T>;
    type Access<'a>
        = &'a RestrictedBuffer<'g, T>
    where
        Self: 'a;
    type Read<'a>
        = &'a RestrictedBuffer<'g, T>
    where
        Self: 'a;
    #[inline]
    fn access<'a>(held: &'a mut Self) -> &'a RestrictedBuffer<'g, T>
    where
        Self: 'a,
    {
        held
    }
    #[inline]
    fn read<'a>(held: &'a Self) -> &'a RestrictedBuffer<'g, T>
    where
        Self: 'a,
    {
        held
    }
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> ScopedSliceMut<'scope, T> {
        // SAFETY: the caller's promise for the held payload covers the buffer inside it.
        unsafe { <DeviceBuffer<'_, T> as Payload>::bind(&mut held.buffer) }
    }
    unsafe fn left_behind(held: &Self) {
        // SAFETY: the caller leaks `held`, and so the buffer inside it.
        unsafe { <DeviceBuffer<'_, T> as Payload>::left_behind(&held.buffer) };
    }
}

/// A module loaded from a cubin in an init phase ([`InitPhase::load_cubin`]); its kernels are
/// looked up there too ([`InitPhase::kernel`]). Unloaded on drop, once its context is idle
/// (C9), and that wait is bounded by the context's [`WaitBound`] like every other (R23):
/// `cuCtxRecordEvent` and `cuEventQuery` (driver 12.5+; before, `cuCtxSynchronize`, which
/// finds the context idle by construction). Past the bound the module stays loaded, never
/// unloaded under work that may run it, and the context's [`OnOverrun`] decides: the safe
/// state, or the overrun recorded as a drop error ([`take_drop_errors`], which
/// [`RestrictedGuard::shutdown`] surfaces).
///
/// [`InitPhase::load_cubin`]: crate::safety::InitPhase::load_cubin
/// [`InitPhase::kernel`]: crate::safety::InitPhase::kernel
/// [`OnOverrun`]: crate::safety::OnOverrun
/// [`take_drop_errors`]: crate::take_drop_errors
/// [`RestrictedGuard::shutdown`]: crate::safety::RestrictedGuard::shutdown
#[derive(Debug)]
pub struct RestrictedModule<'g> {
    module: ManuallyDrop<Module<'g>>,
    bound: WaitBound,
    /// The restricted context's event for context-wide waits (`crate::safety::idle`), live for
    /// `'g`: the unload at the drop records and polls it, creating nothing after the seal
    /// (`None` before driver 12.5).
    idle: Option<ffi::CUevent>,
}

impl<'g> RestrictedModule<'g> {
    pub(crate) fn of(module: Module<'g>, bound: WaitBound, idle: Option<ffi::CUevent>) -> Self {
        Self {
            module: ManuallyDrop::new(module),
            bound,
            idle,
        }
    }

    pub(crate) fn module(&self) -> &Module<'g> {
        &self.module
    }
}

impl Drop for RestrictedModule<'_> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; `self.module` is not used again.
        let module = unsafe { ManuallyDrop::take(&mut self.module) };
        let unloaded = match self.idle {
            // Before 12.5 no wait can ask without blocking: the context is idle by construction
            // (every enqueue of the run phase is in a scope that ended within the bound or
            // ended the process, R23), so `cuCtxSynchronize` returns at once.
            None => module.unload(),
            // SAFETY: `idle` is a live event of the module's context (the restricted context's,
            // which outlives `'g`).
            Some(idle) => match unsafe { module.unload_by_event(idle, self.bound.deadline()) } {
                Ok(Ok(())) => Ok(()),
                Ok(Err(late)) => {
                    // Left loaded: its kernels may still run. Past the bound, the context's
                    // choice: the safe state, or the overrun as the drop's error.
                    let error = late.abandon();
                    self.bound.settle(Err(error))
                }
                Err(e) => Err(e),
            },
        };
        if let Err(e) = unloaded {
            crate::error::record_drop_error(e);
        }
    }
}

/// A declared kernel ([`kernel_contract!`](crate::kernel_contract)) looked up in an init
/// phase: launched by [`RestrictedScope::run`](crate::safety::RestrictedScope::run) with its contract checked, and nothing else (no
/// raw function, no occupancy callback).
pub struct RestrictedKernel<'m, C: Contract> {
    kernel: Declared<'m, C>,
}

impl<C: Contract> core::fmt::Debug for RestrictedKernel<'_, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RestrictedKernel")
            .field("kernel", &self.kernel)
            .finish()
    }
}

impl<C: Contract> Clone for RestrictedKernel<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: Contract> Copy for RestrictedKernel<'_, C> {}

impl<'m, C: Contract> RestrictedKernel<'m, C> {
    pub(crate) fn of(kernel: Declared<'m, C>) -> Self {
        Self { kernel }
    }

    pub(crate) fn declared(&self) -> &Declared<'m, C> {
        &self.kernel
    }

    /// What checked the contract against the kernel when it was looked up.
    pub fn checked_by(&self) -> CheckedBy {
        self.kernel.checked_by()
    }
}

impl<C: Contract> payload_sealed::Sealed for RestrictedKernel<'_, C> {}
/// Moved into a graph, as a [`Declared`] is: the graph holds the borrow of its module.
impl<'m, C: Contract> Payload for RestrictedKernel<'m, C> {
    type Bound<'scope> = RestrictedKernel<'scope, C>;
    copied_forms!(RestrictedKernel<'m, C>);
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> RestrictedKernel<'scope, C> {
        RestrictedKernel {
            // SAFETY: the caller's promise for the held payload covers the kernel inside it.
            kernel: unsafe { <Declared<'m, C> as Payload>::bind(&mut held.kernel) },
        }
    }
}

/// An executable graph captured or built and instantiated in an init phase
/// ([`InitPhase::capture`](crate::safety::InitPhase::capture),
/// [`InitPhase::build_graph`](crate::safety::InitPhase::build_graph)), owning its payload:
/// launched in scopes ([`RestrictedScope::bind_graph`](crate::safety::RestrictedScope::bind_graph));
/// never updated as a whole, only a built graph's kernel nodes' parameters, within their
/// contracts ([`update_kernels`](Self::update_kernels)).
pub struct RestrictedGraph<'g, P: Payload> {
    graph: GraphExec<'g, P>,
}

impl<P: Payload> core::fmt::Debug for RestrictedGraph<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RestrictedGraph")
            .field("graph", &self.graph)
            .finish()
    }
}

impl<'g, P: Payload> RestrictedGraph<'g, P> {
    pub(crate) fn of(graph: GraphExec<'g, P>) -> Self {
        Self { graph }
    }

    pub(crate) fn graph_mut(&mut self) -> &mut GraphExec<'g, P> {
        &mut self.graph
    }

    /// The payload as the host may read it while no work writes it
    /// ([`GraphExec::payload`]).
    pub fn payload(&self) -> P::Read<'_> {
        self.graph.payload()
    }

    /// The payload as the host may reach it while no work uses it
    /// ([`GraphExec::payload_mut`]).
    pub fn payload_mut(&mut self) -> P::Access<'_> {
        self.graph.payload_mut()
    }
}
