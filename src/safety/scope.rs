//! A stream scope of the restricted profile ([`RestrictedScope`]): copies, declared launches,
//! events and graph launches, and nothing else.

use crate::asynchronous::payload::Payload;
use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::graph::ScopedGraph;
use crate::kernel::contract::{ContractArgs, PlainLaunch};
use crate::kernel::launch::LaunchConfig;
use crate::memory::PinnedBuffer;
use crate::safety::values::{RestrictedBuffer, RestrictedEvent, RestrictedGraph, RestrictedKernel};
use crate::vocabulary::binding::{
    ScopedHost, ScopedHostMut, ScopedRead, ScopedSlice, ScopedSliceMut, ScopedWrite,
};
use crate::vocabulary::plain::DeviceCopy;

/// A [`StreamScope`] with the safety subset's operations only: binding memory init made,
/// asynchronous copies and fills, launches of declared kernels (their contracts checked, every
/// launch's error returned), event records and waits, graph launches. No host function, no
/// stream-ordered allocation, no raw launch (C26). The borrows are the scope's own: everything
/// the full scope rejects at compile time, this one rejects too.
#[repr(transparent)]
pub struct RestrictedScope<'scope, 'env: 'scope> {
    scope: StreamScope<'scope, 'env>,
}

impl core::fmt::Debug for RestrictedScope<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RestrictedScope")
            .field("stream", &self.scope.as_raw())
            .finish()
    }
}

impl<'scope, 'env> RestrictedScope<'scope, 'env> {
    pub(crate) fn of(scope: &'scope StreamScope<'scope, 'env>) -> &'scope Self {
        // SAFETY: `RestrictedScope` is `repr(transparent)` over `StreamScope` with the same
        // lifetimes, so the reference is to a value of the same layout, borrowed as long.
        unsafe { &*core::ptr::from_ref(scope).cast::<Self>() }
    }

    /// The scope's stream, for the run phase's batches (`safety/batch.rs`).
    pub(super) fn stream_raw(&self) -> crate::ffi::CUstream {
        self.scope.as_raw()
    }

    /// Binds device memory for reading until the scope ends ([`StreamScope::bind`]).
    pub fn bind<T: DeviceCopy>(
        &self,
        memory: &'scope RestrictedBuffer<'_, T>,
    ) -> ScopedSlice<'scope, T> {
        self.scope.bind(memory.buffer())
    }

    /// Binds device memory for writing until the scope ends ([`StreamScope::bind_mut`]).
    pub fn bind_mut<T: DeviceCopy>(
        &self,
        memory: &'scope mut RestrictedBuffer<'_, T>,
    ) -> ScopedSliceMut<'scope, T> {
        self.scope.bind_mut(memory.buffer_mut())
    }

    /// Binds page-locked memory the init phase allocated for reading until the scope ends
    /// ([`StreamScope::bind_host`]). Pageable memory (a `Vec`, an array) is not accepted: its
    /// copies block the host outside any deadline.
    pub fn bind_host<T: DeviceCopy>(
        &self,
        memory: &'scope PinnedBuffer<'_, T>,
    ) -> PinnedHost<'scope, T> {
        memory.into()
    }

    /// Binds page-locked memory the init phase allocated for writing until the scope ends
    /// ([`StreamScope::bind_host_mut`]); pageable memory is not accepted.
    pub fn bind_host_mut<T: DeviceCopy>(
        &self,
        memory: &'scope mut PinnedBuffer<'_, T>,
    ) -> PinnedHostMut<'scope, T> {
        memory.into()
    }

    /// `cuMemcpyHtoDAsync`, as [`StreamScope::copy_to_device`].
    ///
    /// # Errors
    ///
    /// As [`StreamScope::copy_to_device`]; [`ErrorKind::ForkedProcess`](crate::ErrorKind::ForkedProcess)
    /// in a child forked after `Profile::init`, which holds the scope too (R22), and the first
    /// sticky error once the process is poisoned (R20): the driver is not called.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyHtoDAsync")]
    #[inline]
    pub fn copy_to_device<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        src: impl Into<PinnedHost<'scope, T>>,
    ) -> Result<()> {
        crate::error::poison::check()?;
        self.scope.copy_to_device(dst, src.into().0)
    }

    /// `cuMemcpyDtoHAsync`, as [`StreamScope::copy_to_host`].
    ///
    /// # Errors
    ///
    /// As [`StreamScope::copy_to_host`]; [`ErrorKind::ForkedProcess`](crate::ErrorKind::ForkedProcess)
    /// in a child forked after `Profile::init`, which holds the scope too (R22), and the first
    /// sticky error once the process is poisoned (R20): the driver is not called.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoHAsync")]
    #[inline]
    pub fn copy_to_host<T: DeviceCopy>(
        &self,
        dst: impl Into<PinnedHostMut<'scope, T>>,
        src: impl ScopedRead<'scope, T>,
    ) -> Result<()> {
        crate::error::poison::check()?;
        self.scope.copy_to_host(dst.into().0, src)
    }

    /// `cuMemcpyDtoDAsync`, as [`StreamScope::copy_device`].
    ///
    /// # Errors
    ///
    /// As [`StreamScope::copy_device`]; [`ErrorKind::ForkedProcess`](crate::ErrorKind::ForkedProcess)
    /// in a child forked after `Profile::init`, which holds the scope too (R22), and the first
    /// sticky error once the process is poisoned (R20): the driver is not called.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoDAsync")]
    #[inline]
    pub fn copy_device<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        src: impl ScopedRead<'scope, T>,
    ) -> Result<()> {
        crate::error::poison::check()?;
        self.scope.copy_device(dst, src)
    }

    /// `cuMemsetD8Async`, as [`StreamScope::fill_bytes`].
    ///
    /// # Errors
    ///
    /// As [`StreamScope::fill_bytes`]; [`ErrorKind::ForkedProcess`](crate::ErrorKind::ForkedProcess)
    /// in a child forked after `Profile::init`, which holds the scope too (R22), and the first
    /// sticky error once the process is poisoned (R20): the driver is not called.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemsetD8Async")]
    #[inline]
    pub fn fill_bytes<T: DeviceCopy>(
        &self,
        dst: impl ScopedWrite<'scope, T>,
        value: u8,
    ) -> Result<()> {
        crate::error::poison::check()?;
        self.scope.fill_bytes(dst, value)
    }

    /// `cuLaunchKernel`—Launches a declared kernel, its contract checked against `args` and
    /// `config` first (R12, R14), as [`StreamScope::run`]; the launch's error is returned.
    ///
    /// # Errors
    ///
    /// As [`StreamScope::run`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[inline]
    #[track_caller]
    pub fn run<C: PlainLaunch, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &RestrictedKernel<'scope, C>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        self.scope.run(kernel.declared(), config, args)
    }

    /// `cuEventRecord`, as [`StreamScope::record`].
    ///
    /// # Errors
    ///
    /// As [`StreamScope::record`]; [`ErrorKind::ForkedProcess`](crate::ErrorKind::ForkedProcess)
    /// in a child forked after `Profile::init`, which holds the scope too (R22), and the first
    /// sticky error once the process is poisoned (R20): the driver is not called.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventRecord")]
    #[inline]
    pub fn record(&self, event: &RestrictedEvent<'_>) -> Result<()> {
        crate::error::poison::check()?;
        self.scope.record(event.event())
    }

    /// `cuStreamWaitEvent`, as [`StreamScope::wait`].
    ///
    /// # Errors
    ///
    /// As [`StreamScope::wait`]; [`ErrorKind::ForkedProcess`](crate::ErrorKind::ForkedProcess)
    /// in a child forked after `Profile::init`, which holds the scope too (R22), and the first
    /// sticky error once the process is poisoned (R20): the driver is not called.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamWaitEvent")]
    #[inline]
    pub fn wait(&self, event: &RestrictedEvent<'_>) -> Result<()> {
        crate::error::poison::check()?;
        self.scope.wait(event.event())
    }

    /// Binds a graph init made to this scope exclusively, with its payload
    /// ([`StreamScope::bind_graph_and_payload`]): the scope can copy into the memory the graph
    /// owns, launch it, launch declared kernels on its memory and copy out of it, in stream
    /// order.
    pub fn bind_graph<P: Payload>(
        &self,
        graph: &'scope mut RestrictedGraph<'_, P>,
    ) -> (ScopedGraph<'scope>, P::Bound<'scope>) {
        self.scope.bind_graph_and_payload(graph.graph_mut())
    }

    /// `cuGraphLaunch`, as [`StreamScope::launch_graph`].
    ///
    /// # Errors
    ///
    /// As [`StreamScope::launch_graph`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphLaunch")]
    #[inline]
    #[track_caller]
    pub fn launch_graph(&self, graph: &ScopedGraph<'scope>) -> Result<()> {
        self.scope.launch_graph(graph)
    }
}

/// Page-locked host memory of the init phase, bound to a [`RestrictedScope`] for reading:
/// what its copies to the device read. Made from `&PinnedBuffer` (or by
/// [`bind_host`](RestrictedScope::bind_host)), never from pageable memory: a copy from pageable
/// memory is staged by the driver and blocks the host outside any deadline, so under the
/// profile it does not compile.
#[derive(Clone, Copy, Debug)]
pub struct PinnedHost<'scope, T: DeviceCopy>(pub(super) ScopedHost<'scope, T>);

/// Page-locked host memory of the init phase, bound to a [`RestrictedScope`] for writing: what
/// its copies to the host write. Made from `&mut PinnedBuffer` (or by
/// [`bind_host_mut`](RestrictedScope::bind_host_mut)), never from pageable memory.
#[derive(Clone, Copy, Debug)]
pub struct PinnedHostMut<'scope, T: DeviceCopy>(pub(super) ScopedHostMut<'scope, T>);

impl<'scope, T: DeviceCopy> From<&'scope PinnedBuffer<'_, T>> for PinnedHost<'scope, T> {
    fn from(memory: &'scope PinnedBuffer<'_, T>) -> Self {
        Self((&memory[..]).into())
    }
}

impl<'scope, T: DeviceCopy> From<&'scope mut PinnedBuffer<'_, T>> for PinnedHost<'scope, T> {
    fn from(memory: &'scope mut PinnedBuffer<'_, T>) -> Self {
        Self((&memory[..]).into())
    }
}

impl<'scope, T: DeviceCopy> From<PinnedHostMut<'scope, T>> for PinnedHost<'scope, T> {
    fn from(memory: PinnedHostMut<'scope, T>) -> Self {
        Self(memory.0.into())
    }
}

impl<'scope, T: DeviceCopy> From<&'scope mut PinnedBuffer<'_, T>> for PinnedHostMut<'scope, T> {
    fn from(memory: &'scope mut PinnedBuffer<'_, T>) -> Self {
        Self((&mut memory[..]).into())
    }
}

impl<T: DeviceCopy> PinnedHost<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: DeviceCopy> PinnedHostMut<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
