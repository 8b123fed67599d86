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

mod record;
pub(crate) use record::{Kept, KeptAlloc, refuse_instantiate_flags};

use super::builder::{GraphBuilder, GraphNode};
use super::order::Role;
use super::owned::GraphExec;
use crate::asynchronous::payload::Payload;
use crate::error::{Error, ErrorKind, Result};
use crate::memory::DeviceBuffer;
use crate::vocabulary::binding::GraphAlloc;
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
