//! Memory allocation and free nodes of a graph built node by node
//! ([`GraphBuilder::alloc`], [`GraphBuilder::free`]): a [`GraphAlloc`] is device memory that
//! exists from its allocation node to its free node, in graph order; the builder checks that
//! every node that uses it lies between the two (`order.rs`).

use super::builder::{GraphBuilder, GraphNode};
use super::order::{Role, Tracker, refused};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::binding::GraphAlloc;
use crate::vocabulary::plain::DeviceCopy;

/// Memory allocation and free nodes: only in the root graph (the driver takes no memory node
/// in a conditional node's body nor in a child graph).
impl<'b> GraphBuilder<'b> {
    /// `cuGraphAddMemAllocNode`—Adds an allocation of `len` elements of `T` after `deps` and
    /// returns the node with the memory, a [`GraphAlloc`] that later nodes of this build use
    /// (`&mut a` to write, `&a` to read) and that [`free`](Self::free) frees. The memory exists
    /// at each launch from this node until its free node: every node that uses it must have
    /// this node among its ancestors (the builder refuses one that does not), and every
    /// allocation must be freed in the graph before the build ends.
    ///
    /// An allocation that outlives the launch, which the program takes from the executable
    /// graph after each launch and frees itself, is [`alloc_kept`](Self::alloc_kept)'s.
    ///
    /// The driver allows one executable graph at a time of a graph with memory nodes (a second
    /// [`instantiate_shared`](crate::graph::Graph::instantiate_shared) while the first lives
    /// fails), and neither clones it ([`clone_graph`](crate::graph::Graph::clone_graph)) nor takes
    /// it as a child graph: those calls return the driver's error (`CUDA_ERROR_NOT_SUPPORTED` from
    /// driver 580 on an H100 for the first two).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if `len` is 0 or `T` is zero-sized, [`ErrorKind::SizeOverflow`];
    /// the driver's errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
    ///
    /// custack::kernel_contract! {
    ///     /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    ///     pub unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// }
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let payload = (module.declared::<AddU32>()?, vec![0u32; 1024]);
    /// let graph = guard.build_graph(payload, |b, (add, out)| {
    ///     let (made, mut x) = b.alloc::<u32>(1024, &[])?;
    ///     let set = b.fill_u32(&mut x, 40, &[made])?;
    ///     let cfg = LaunchConfig::for_elements(1024);
    ///     let added = b.kernel(&add, cfg, (&mut x, 2u32, 1024u32), &[set])?;
    ///     let copied = b.copy_to_host(out, &x, &[added])?;
    ///     b.free(x, &[copied])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// assert!(exec.payload().1.iter().all(|&v| v == 42));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemAllocNode")]
    pub fn alloc<T: DeviceCopy>(
        &self,
        len: usize,
        deps: &[GraphNode<'b>],
    ) -> Result<(GraphNode<'b>, GraphAlloc<'b, T>)> {
        self.alloc_as(len, deps, Role::Alloc)
    }

    /// An allocation node in `role` ([`Role::Alloc`], or [`Role::Kept`] for one no free node
    /// frees).
    pub(super) fn alloc_as<T: DeviceCopy>(
        &self,
        len: usize,
        deps: &[GraphNode<'b>],
        role: Role,
    ) -> Result<(GraphNode<'b>, GraphAlloc<'b, T>)> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(|| {
            Error::custack(ErrorKind::SizeOverflow, "graph allocation".to_owned())
        })?;
        if bytes == 0 {
            return Err(refused("a graph allocation of 0 bytes"));
        }
        let mut device = 0;
        // SAFETY: a valid out-pointer; the builder's context is current.
        unsafe { ffi::cuCtxGetDevice(&raw mut device) }.result()?;
        let mut params = ffi::CUDA_MEM_ALLOC_NODE_PARAMS {
            poolProps: ffi::CUmemPoolProps {
                allocType: ffi::CU_MEM_ALLOCATION_TYPE_PINNED,
                handleTypes: ffi::CU_MEM_HANDLE_TYPE_NONE,
                location: ffi::CUmemLocation {
                    type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: device,
                },
                win32SecurityAttributes: core::ptr::null_mut(),
                maxSize: 0,
                usage: 0,
                reserved: [0; 54],
            },
            accessDescs: core::ptr::null(),
            accessDescCount: 0,
            bytesize: bytes,
            dptr: 0,
        };
        let (node, index) = self.add_as(deps, role, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes;
            // `params` is valid for reads and for the driver's write of `dptr`, for this call.
            unsafe { ffi::cuGraphAddMemAllocNode(out, graph, deps, n, &raw mut params) }
        })?;
        let tracker = self.mem.as_ref().map_or(0, Tracker::id);
        // SAFETY: the memory of the allocation node just made, of `bytes` bytes, numbered
        // `index` in this build's tracker `tracker`.
        Ok((node, unsafe {
            GraphAlloc::from_raw_parts(params.dptr, len, tracker, index)
        }))
    }

    /// `cuGraphAddMemFreeNode`—Adds the free of `alloc` after `deps`, which must have every
    /// node that used it among their ancestors (or be those nodes); it consumes `alloc`, so no
    /// later node can use it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no node made) if a node that used `alloc`, or its
    /// allocation node, is not among the ancestors of `deps`; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddMemFreeNode")]
    #[allow(clippy::needless_pass_by_value)]
    pub fn free<T: DeviceCopy>(
        &self,
        alloc: GraphAlloc<'b, T>,
        deps: &[GraphNode<'b>],
    ) -> Result<GraphNode<'b>> {
        let (ptr, index) = (alloc.device_ptr(), alloc.index());
        let (node, _) = self.add_as(deps, Role::Free(index), |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes; `ptr`
            // is the memory of an allocation node of this graph, not freed before (`alloc` is
            // consumed here), and every node that used it comes before (checked).
            unsafe { ffi::cuGraphAddMemFreeNode(out, graph, deps, n, ptr) }
        })?;
        Ok(node)
    }
}
