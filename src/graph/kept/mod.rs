//! Graph allocations that outlive the launch ([`GraphBuilder::alloc_kept`]): memory an
//! allocation node makes at each launch and no node of the graph frees. The executable graph
//! records, per kept allocation, whether a launch made it and it was not taken yet; once the
//! launch is complete, [`GraphExec::take_kept`] hands it out as a [`DeviceBuffer`] that frees
//! it (`cuMemFree`) and borrows the executable graph, so that no launch can make it again
//! while the buffer lives.
//!
//! ```text
//!   b.alloc_kept::<T>(len, &deps)   -> (node, GraphAlloc)   no free node: kept number k
//!   graph.instantiate()                                     never AUTO_FREE_ON_LAUNCH
//!   exec launched (scope, submission)                      kept k: made, not taken
//!   launched again before the take                         refused (InvalidValue)
//!   exec.take_kept::<T>(k)          -> DeviceBuffer<'_, T>  once per launch
//!   buffer parked, moved, leaked; launched again           refused by the driver
//!   drop(buffer)                                            cuMemFree: launchable again
//!   drop(exec) with k not taken                             cuMemFree in the drop
//! ```
//!
//! The borrow is not the whole guarantee: safe code can end it while the buffer lives (the
//! buffer parked, moved into a submission that is parked or leaked, or into another graph's
//! payload whose executable graph is parked). What keeps the memory the buffer's is the
//! driver: an executable graph of such a graph is never instantiated with
//! `AUTO_FREE_ON_LAUNCH` (every path refuses the flag before the driver, and so
//! `DEVICE_LAUNCH`; no shared instantiation, clone, whole-graph update or child-graph node of
//! one), and without that flag the driver fails a launch while an allocation of the previous
//! launch is unfreed (`CUDA_ERROR_INVALID_VALUE`). So a relaunch never frees nor makes again
//! memory that a value of the program owns, whatever became of the value.
//!
//! The executable graph's record of them (`record.rs`, [`Kept`]) sits below the graph and its
//! executable form, which keep it and launch through it; this file holds what makes and takes
//! kept allocations, above the builder and the executable graph.

// The record of a graph's kept allocations, a leaf: the graph's other files (`order.rs`,
// `owned.rs`) and the parking room take its types from it, not through this file, whose impl
// blocks reach up to the builder and the graph (so no circle of imports inside the room).
pub(crate) mod record;
use record::{KeptAlloc, kept_of, refuse_capturing};

use super::builder::{GraphBuilder, GraphNode};
use super::order::Role;
use super::owned::{Graph, GraphExec};
use crate::asynchronous::payload::Payload;
use crate::asynchronous::scope::StreamScope;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::{DeviceBuffer, DeviceMemory, DeviceView};
use crate::vocabulary::binding::GraphAlloc;
use crate::vocabulary::binding::ScopedAlloc;
use crate::vocabulary::plain::DeviceCopy;
use core::any::TypeId;

impl<'b> GraphBuilder<'b> {
    /// `cuGraphAddMemAllocNode`—As [`alloc`](Self::alloc), an allocation that no node of the
    /// graph frees: it outlives each launch, and the program takes it from the executable
    /// graph once the launch is complete ([`GraphExec::take_kept`], number `k` for the
    /// `k`-th `alloc_kept` of the build, from 0), then frees it by dropping the buffer. Every
    /// node that uses it must still have this node among its ancestors; [`free`](Self::free)
    /// refuses it.
    ///
    /// The memory's address is fixed when the node is made, so a launch can make it only once
    /// the previous launch's is freed: a launch before the take is refused, and the taken
    /// buffer borrows the executable graph, so none can start while it lives. Where safe code
    /// ends that borrow while the buffer lives (it is parked, moved into a parked or leaked
    /// submission or into another graph's payload), the driver refuses the launch
    /// (`CUDA_ERROR_INVALID_VALUE`): the graph is never instantiated with
    /// `AUTO_FREE_ON_LAUNCH`, which would free the program's memory at the relaunch (every
    /// instantiation refuses that flag and `DEVICE_LAUNCH`, and such a graph is not
    /// instantiated shared, cloned, updated into an executable graph, nor added as a child
    /// graph). An allocation made and not taken is freed when the executable graph drops.
    ///
    /// # Errors
    ///
    /// As [`alloc`](Self::alloc).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let graph = guard.build_graph((), |b, ()| {
    ///     let (made, mut x) = b.alloc_kept::<u32>(1024, &[])?;
    ///     b.fill_u32(&mut x, 42, &[made])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// for _ in 0..2 {
    ///     exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    ///     let x = exec.take_kept::<u32>(0)?; // the launch's memory, freed on drop
    ///     assert_eq!(x.to_vec()?, vec![42; 1024]);
    /// }
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemAllocNode")]
    pub fn alloc_kept<T: DeviceCopy>(
        &self,
        len: usize,
        deps: &[GraphNode<'b>],
    ) -> Result<(GraphNode<'b>, GraphAlloc<'b, T>)> {
        let (node, alloc) = self.alloc_as::<T>(len, deps, Role::Kept)?;
        if let Some(t) = &self.mem {
            t.keep(KeptAlloc {
                ptr: alloc.device_ptr(),
                len,
                elem: TypeId::of::<T>(),
                elem_name: core::any::type_name::<T>(),
            });
        }
        Ok((node, alloc))
    }
}

impl<P: Payload> GraphExec<'_, P> {
    /// The number of allocations the graph keeps ([`GraphBuilder::alloc_kept`]).
    pub fn kept_count(&self) -> usize {
        self.kept.as_ref().map_or(0, |k| k.len())
    }

    /// The device address of kept allocation `k` ([`GraphBuilder::alloc_kept`]) as elements
    /// of `T`: the address every launch makes it at, fixed when its node was made, for as long
    /// as the executable graph lives. A number, to name the memory in a log or to raw code: it
    /// lends nothing (the memory exists only from a launch to its free); read the allocation in
    /// place with [`kept_view`](Self::kept_view), own it with [`take_kept`](Self::take_kept).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) if the graph keeps no
    /// allocation `k` or its element type is not `T`.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let graph = guard.build_graph((), |b, ()| {
    ///     let (made, mut x) = b.alloc_kept::<u32>(256, &[])?;
    ///     b.fill_u32(&mut x, 7, &[made])?;
    ///     Ok(())
    /// })?;
    /// let built_at = graph.kept_device_ptr::<u32>(0)?;
    /// let mut exec = graph.instantiate()?;
    /// assert_eq!(exec.kept_device_ptr::<u32>(0)?, built_at);
    /// exec = guard.stream()?.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// let x = exec.take_kept::<u32>(0)?;
    /// assert_eq!(custack::DeviceMemory::device_ptr(&x), built_at);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemAllocNode")]
    pub fn kept_device_ptr<T: DeviceCopy>(&self, k: usize) -> Result<ffi::CUdeviceptr> {
        match &self.kept {
            Some(kept) => Ok(kept.get::<T>(k)?.0.ptr),
            None => Err(no_kept(k)),
        }
    }

    /// Kept allocation `k` that the last launch made, read in place without taking it: a view
    /// that borrows the executable graph exclusively, so that while it lives the memory is
    /// neither taken (and freed by the buffer), made again by a launch, nor freed by the
    /// executable graph's drop. Once the view is gone, [`take_kept`](Self::take_kept) takes
    /// the allocation as before.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) if the graph keeps no
    /// allocation `k`, if its element type is not `T`, or if no launch made it since it was
    /// last taken (or ever): then no memory is there to read.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let graph = guard.build_graph((), |b, ()| {
    ///     let (made, mut x) = b.alloc_kept::<u32>(256, &[])?;
    ///     b.fill_u32(&mut x, 7, &[made])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// exec = guard.stream()?.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// assert_eq!(exec.kept_view::<u32>(0)?.to_vec()?, vec![7; 256]); // still the graph's
    /// let x = exec.take_kept::<u32>(0)?;                              // now the program's
    /// # drop(x);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemAllocNode")]
    pub fn kept_view<T: DeviceCopy>(&mut self, k: usize) -> Result<DeviceView<'_, T>> {
        crate::error::poison::check()?;
        let Some(kept) = &self.kept else {
            return Err(no_kept(k));
        };
        let (a, made) = kept.get::<T>(k)?;
        if !made.get() {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("kept allocation {k} was not made by a launch since it was last taken"),
            ));
        }
        // SAFETY: memory of `a.len` elements of `T` that the graph's last launch, complete
        // (`&mut self`: none pending), allocated in the current context and nobody took (its
        // mark): live while the executable graph is borrowed, since only a take (which needs
        // `&self`), the executable graph's drop or parking (by value) and a launch (by value or
        // `&mut`) end it, and none can run while the view borrows `self` exclusively; nothing
        // writes it meanwhile (no launch, no buffer).
        Ok(unsafe { DeviceView::from_raw_parts(a.ptr, a.len) })
    }

    /// Takes kept allocation `k` ([`GraphBuilder::alloc_kept`]) that the last launch made, as
    /// a buffer that frees it on drop (`cuMemFree`, or [`DeviceBuffer::free`]). Once per
    /// launch. `&self`: no launch is pending (a pending launch owns the executable graph, a
    /// scope borrows it exclusively), so the launch that made the memory is complete; the
    /// buffer borrows the executable graph, so no launch, which would make the memory at the
    /// same address again, can start before it is freed.
    ///
    /// Not freed by the buffer, whatever became of it (given to raw code with
    /// [`DeviceBuffer::into_raw`], parked, moved into a submission or graph that is parked or
    /// leaked), the memory keeps the next launch from starting: the driver fails it with
    /// `CUDA_ERROR_INVALID_VALUE`, since the executable graph never frees on launch.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (nothing taken) if the graph keeps no allocation `k`, if its
    /// element type is not `T`, or if no launch made it since it was last taken (or ever).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuMemFree")]
    pub fn take_kept<T: DeviceCopy>(&self, k: usize) -> Result<DeviceBuffer<'_, T>> {
        crate::error::poison::check()?;
        let (ptr, len) = match &self.kept {
            Some(kept) => kept.take::<T>(k)?,
            None => {
                return Err(Error::custack(
                    ErrorKind::InvalidValue,
                    format!("the graph keeps no allocation {k}"),
                ));
            }
        };
        // SAFETY: memory of `len` elements of `T` that the graph's last launch, complete
        // (`&self`: none pending), allocated in the current context and nobody took (its mark,
        // cleared by `take`): owned by the buffer alone, which `cuMemFree` frees. It stays allocated
        // for the buffer's life, also where the buffer's borrow of this executable graph ends
        // early (parked, moved, leaked): the graph was not instantiated with
        // `AUTO_FREE_ON_LAUNCH` (`refuse_instantiate_flags`), so the driver fails every launch
        // while this memory is unfreed, and nothing else frees graph memory.
        Ok(unsafe { DeviceBuffer::from_raw_parts(ptr, len) })
    }
}

/// The refusal of a kept allocation's accessor on a graph that keeps none.
fn no_kept(k: usize) -> Error {
    Error::custack(
        ErrorKind::InvalidValue,
        format!("the graph keeps no allocation {k}"),
    )
}

impl<P: Payload> Graph<'_, P> {
    /// The device address of kept allocation `k` ([`GraphBuilder::alloc_kept`]) as elements
    /// of `T`, known once the build returns: the address every launch of the executable graph
    /// made from this graph makes it at ([`GraphExec::kept_device_ptr`] answers the same). A
    /// number that lends nothing: no memory is there until a launch makes it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) if the graph keeps no
    /// allocation `k` or its element type is not `T`.
    ///
    /// # Examples
    ///
    /// As [`GraphExec::kept_device_ptr`]'s.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemAllocNode")]
    pub fn kept_device_ptr<T: DeviceCopy>(&self, k: usize) -> Result<ffi::CUdeviceptr> {
        Ok(kept_of::<T>(&self.kept, k)?.ptr)
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuMemFreeAsync`—Frees a kept allocation taken from `exec` ([`GraphExec::take_kept`]) in
    /// this scope's stream order, after the work enqueued before it, without waiting: the
    /// buffer is consumed, so no handle reaches the memory afterwards, and `exec` stays
    /// borrowed until the scope ends, which waits for the free, so no launch of it can make the
    /// memory again (at the same address) before the free has run. To use the memory in the
    /// scope first, [`bind_kept`](Self::bind_kept) it.
    ///
    /// # Errors
    ///
    /// As [`bind_kept`](Self::bind_kept); then the driver's error of `cuMemFreeAsync` (the
    /// buffer is consumed either way: after a failed free the memory may still be allocated,
    /// and the next launch of `exec` is then refused by the driver, as while a taken buffer
    /// lives); after a sticky error (or in a forked child), that error without calling the
    /// driver, the memory left behind (R20).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let graph = guard.build_graph((), |b, ()| {
    ///     let (made, mut x) = b.alloc_kept::<u32>(256, &[])?;
    ///     b.fill_u32(&mut x, 7, &[made])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// for _ in 0..2 {
    ///     exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    ///     let x = exec.take_kept::<u32>(0)?;
    ///     assert_eq!(x.to_vec()?, vec![7; 256]);
    ///     // `exec` is borrowed until the scope has waited for the free.
    ///     stream.scope(|s| s.free_kept(&exec, x))??;
    /// }
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemFreeAsync")]
    pub fn free_kept<P: Payload, T: DeviceCopy>(
        &self,
        exec: &'scope GraphExec<'_, P>,
        buffer: DeviceBuffer<'_, T>,
    ) -> Result<()> {
        self.bind_kept(exec, buffer)?.free()
    }

    /// Binds a kept allocation taken from `exec` ([`GraphExec::take_kept`]) to this scope as a
    /// [`ScopedAlloc`]: the scope's operations use it by reference, in stream order, and it is
    /// freed on this scope's stream after them (`cuMemFreeAsync`) when dropped or
    /// [freed](ScopedAlloc::free), so a frame's output is copied out and its memory given back
    /// with one wait, the scope's. The buffer is consumed, and the scoped allocation, branded
    /// with the scope, cannot leave it: no handle reaches the memory after its free. `exec`
    /// stays borrowed until the scope ends, which waits for the free, so no launch of it can
    /// make the memory again (at the same address) before the free has run; leaked
    /// (`mem::forget`), the memory is never freed, and the driver refuses every later launch
    /// of `exec`, as while a taken buffer lives.
    ///
    /// `buffer` must be exactly one of `exec`'s kept allocations, of its element type and
    /// length, taken since its last launch; it may have been parked and attached again
    /// meanwhile. The free is the scope's own: a submission's scope takes only an executable
    /// graph borrowed for ever (`&'static`), which no launch can take again; a capture's scope
    /// is refused, since a captured free would be a free node that every launch of that graph
    /// runs.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (no driver call) if `buffer`
    /// is none of `exec`'s kept allocations, holds another element type or length, or is not
    /// taken; [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) on a stream that
    /// captures (`cuStreamIsCapturing`, whose error it returns too). Refused, the buffer is
    /// dropped, and its drop frees it (`cuMemFree`): it was idle, owned by value.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let graph = guard.build_graph((), |b, ()| {
    ///     let (made, mut x) = b.alloc_kept::<u32>(256, &[])?;
    ///     b.fill_u32(&mut x, 7, &[made])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// let mut out = vec![0u32; 256];
    /// for _ in 0..2 {
    ///     exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    ///     let x = exec.take_kept::<u32>(0)?;
    ///     stream.scope(|s| {
    ///         let x = s.bind_kept(&exec, x)?;
    ///         s.copy_to_host(&mut out, &x)?;
    ///         x.free() // after the copy, in stream order; one wait, the scope's
    ///     })??;
    ///     assert_eq!(out, vec![7; 256]);
    /// }
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MALLOC__ASYNC.html>
    #[doc(alias = "cuMemFreeAsync")]
    pub fn bind_kept<P: Payload, T: DeviceCopy>(
        &self,
        exec: &'scope GraphExec<'_, P>,
        buffer: DeviceBuffer<'_, T>,
    ) -> Result<ScopedAlloc<'scope, T>> {
        crate::error::poison::check()?;
        let (ptr, len) = (buffer.device_ptr(), buffer.len());
        match &exec.kept {
            Some(kept) => kept.taken::<T>(ptr, len)?,
            None => {
                return Err(Error::custack(
                    ErrorKind::InvalidValue,
                    format!(
                        "device memory {ptr:#x} is none of this executable graph's kept \
                         allocations (it keeps none)"
                    ),
                ));
            }
        };
        refuse_capturing(
            self.as_raw(),
            "a kept allocation freed on a capturing stream: the free would be a free node of the \
             captured graph, run at each of its launches",
        )?;
        let (ptr, len) = buffer.into_raw();
        // SAFETY: `ptr` is memory of the current context of `len` elements of `T` that the
        // buffer, consumed above, owned alone: a kept allocation of `exec` that a complete
        // launch made and the program took (`taken`: the graph's own address, element type and
        // length, its mark clear), which nothing else frees and no pending work uses (the
        // buffer was owned by value: no scope borrows it, no submission holds it). Graph memory
        // that no free node frees is freed by `cuMemFreeAsync` on any stream; this one does not
        // capture (checked), and the result, branded with this scope, frees it there once,
        // after the operations that use it by reference. Its address is made again only by a
        // launch of `exec` (fixed per allocation node, reserved for the graph's life), and
        // `exec` is borrowed for 'scope, which ends only once the scope's stream, and so the
        // free, is complete.
        Ok(unsafe { ScopedAlloc::from_raw_parts(ptr, len, self.as_raw()) })
    }
}
