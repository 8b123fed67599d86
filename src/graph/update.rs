//! Memset and memcpy nodes of an executable graph updated in place
//! (`cuGraphExecMemsetNodeSetParams`, `cuGraphExecMemcpyNodeSetParams`), checked as the
//! builder checked the nodes: [`GraphExec::update_nodes`] lends a [`NodeUpdater`] and the
//! payload bound to it, as [`GraphExec::update_kernels`] does for kernel nodes.
//!
//! ```text
//!   exec.update_nodes(|u, bound| …)              &mut exec: no launch pending
//!     u.fill_node(i)    -> FillNode<'u>          the i-th memset node the builder made
//!     u.copy_node(i)    -> CopyNode<'u>          the i-th memcpy node
//!     u.set_fill_u32(node, dst, value)           cuGraphExecMemsetNodeSetParams
//!     u.set_copy_to_host(node, dst, src)         cuGraphExecMemcpyNodeSetParams
//! ```

use super::{copy_params, memset_params};
use crate::asynchronous::graph::{DataNode, DataNodeKind, GraphExec};
use crate::asynchronous::payload::Payload;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::{check_memset_unit, check_same_len};
use crate::vocabulary::binding::{Invariant, ScopedHost, ScopedHostMut, ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// The brand of an update: `'u` invariant, not `Send`.
type Brand<'u> = PhantomData<(Invariant<'u>, *const ())>;

/// A memset node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the same
/// `'u`: what [`set_fill_bytes`](NodeUpdater::set_fill_bytes) and
/// [`set_fill_u32`](NodeUpdater::set_fill_u32) take. It cannot leave the update's closure, nor
/// name a node of another executable graph (`'u` is invariant).
#[derive(Debug, Clone, Copy)]
pub struct FillNode<'u> {
    node: DataNode,
    _marker: Brand<'u>,
}

/// A memcpy node of the executable graph whose [`NodeUpdater<'u>`](NodeUpdater) has the same
/// `'u`: what the `set_copy_*` methods take, each for the direction the node was built with.
#[derive(Debug, Clone, Copy)]
pub struct CopyNode<'u> {
    node: DataNode,
    _marker: Brand<'u>,
}

/// The memset and memcpy nodes of an executable graph, lent by [`GraphExec::update_nodes`] to
/// its closure for the brand `'u`, with the graph's payload bound for `'u`.
///
/// What the types promise (C28): the new memory is the payload's (the closure is `'static`,
/// as the builder's), which the executable graph owns; a node is one of this executable
/// graph's (branded `'u`). What is checked before the driver sees an update: the lengths of
/// the two sides of a copy, a memset's alignment and whole units, that nothing is empty, and
/// that the update keeps the node's kind: a memset's unit, a copy's direction (host to device,
/// device to host, device to device) and element type, which the driver cannot change.
#[derive(Debug)]
pub struct NodeUpdater<'u> {
    exec: ffi::CUgraphExec,
    nodes: &'u [DataNode],
    _marker: Brand<'u>,
}

static_assertions::assert_not_impl_any!(NodeUpdater<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(FillNode<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(CopyNode<'static>: Send, Sync);

impl<P: Payload> GraphExec<'_, P> {
    /// Updates the memory and values of the graph's memset and memcpy nodes in place, in `f`,
    /// which receives a [`NodeUpdater`] and the payload bound to it: the next launch runs the
    /// nodes with the new parameters. Only a graph built node by node
    /// ([`PushedGuard::build_graph`](crate::PushedGuard::build_graph)) lends its nodes, and
    /// only until a whole-graph [`update`](Self::update).
    ///
    /// `f` is `'static` (move what it needs in), as the builder's: the new parameters can name
    /// only what the payload owns, so nothing they touch can be freed while this executable
    /// graph lives (C28).
    ///
    /// # Errors
    ///
    /// `f`'s: a node's checks or the driver's errors. The nodes updated before the error keep
    /// their new parameters (each update is checked before it is made).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let payload = (guard.alloc::<u32>(256)?, guard.alloc::<u32>(256)?, vec![0u32; 256]);
    /// let graph = guard.build_graph(payload, |b, (mut x, _y, out)| {
    ///     let set = b.fill_u32(&mut x, 7, &[])?;
    ///     b.copy_to_host(out, &x, &[set])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// // From now on the graph sets `y` to 9 and copies `y` out.
    /// exec.update_nodes(|u, (_x, mut y, out)| {
    ///     u.set_fill_u32(u.fill_node(0)?, &mut y, 9)?;
    ///     u.set_copy_to_host(u.copy_node(0)?, out, &y)
    /// })?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    pub fn update_nodes(
        &mut self,
        f: impl for<'u> FnOnce(&'u NodeUpdater<'u>, P::Bound<'u>) -> Result<()> + 'static,
    ) -> Result<()> {
        crate::error::poison::check()?;
        let (exec, nodes) = (self.as_raw(), core::mem::take(&mut self.data));
        let updater = NodeUpdater {
            exec,
            nodes: &nodes,
            _marker: PhantomData,
        };
        // SAFETY: `&mut self`: no launch of the executable graph is pending, and the payload
        // stays where it is, owned by the executable graph, which no host code reaches while
        // `f` runs; the bound handles cannot leave `f` ('u is invariant and `f` is `'static`),
        // and the parameters they go into are the executable graph's, which owns the payload.
        let bound = unsafe { P::bind(self.held_mut()) };
        let result = f(&updater, bound);
        self.data = nodes;
        result
    }
}

/// A refusal of an update that would change what a node is.
fn refused(what: &str) -> Error {
    Error::custack(ErrorKind::InvalidValue, what.to_owned())
}

impl<'u> NodeUpdater<'u> {
    /// The `index`th node (from 0, in the order the builder made them) of kind `fill` or not.
    fn nth(&self, fill: bool, index: usize) -> Result<DataNode> {
        self.nodes
            .iter()
            .filter(|n| matches!(n.kind, DataNodeKind::Fill { .. }) == fill)
            .nth(index)
            .copied()
            .ok_or_else(|| {
                let kind = if fill { "memset" } else { "memcpy" };
                refused(&format!("the executable graph has no {kind} node {index}"))
            })
    }

    /// The `index`th memset node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    pub fn fill_node(&self, index: usize) -> Result<FillNode<'u>> {
        Ok(FillNode {
            node: self.nth(true, index)?,
            _marker: PhantomData,
        })
    }

    /// The `index`th memcpy node (from 0, in the order the builder made them).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if the graph has no such node (or lends no nodes).
    pub fn copy_node(&self, index: usize) -> Result<CopyNode<'u>> {
        Ok(CopyNode {
            node: self.nth(false, index)?,
            _marker: PhantomData,
        })
    }

    /// `cuGraphExecMemsetNodeSetParams` of `node` to `count` units of `unit` bytes at `ptr`.
    fn set_fill(
        &self,
        node: FillNode<'u>,
        ptr: ffi::CUdeviceptr,
        value: u32,
        unit: u32,
        count: usize,
    ) -> Result<()> {
        crate::error::poison::check()?;
        if node.node.kind != (DataNodeKind::Fill { unit }) {
            return Err(refused(
                "a memset node keeps its unit: fill_bytes and fill_u32 nodes are updated alike",
            ));
        }
        if count == 0 {
            return Err(refused("a memset node cannot be made empty"));
        }
        let params = memset_params(ptr, value, unit, count);
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is a memset node of the graph it was made from (branded 'u,
        // taken from its list, kept alive by it), of context `ctx`; `ptr` is device memory of
        // the payload holding `count` units (the callers'), owned by the executable graph.
        unsafe {
            ffi::cuGraphExecMemsetNodeSetParams(
                self.exec,
                node.node.raw,
                &raw const params,
                node.node.ctx,
            )
        }
        .result()
    }

    /// `cuGraphExecMemsetNodeSetParams`—Sets every byte of `dst` to `value` at the next
    /// launches, in place of what the memset node `node` (a `fill_bytes` node) set.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no driver call) for a `fill_u32` node or an empty `dst`;
    /// the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemsetNodeSetParams")]
    pub fn set_fill_bytes<T: DeviceCopy>(
        &self,
        node: FillNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        value: u8,
    ) -> Result<()> {
        let (ptr, len) = dst.raw_parts();
        self.set_fill(node, ptr, u32::from(value), 1, len * size_of::<T>())
    }

    /// `cuGraphExecMemsetNodeSetParams`—Sets every 32-bit word of `dst` to `value` at the next
    /// launches, in place of what the memset node `node` (a `fill_u32` node) set.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` (no driver call) if `dst` is not 4-byte aligned or not a
    /// whole number of words; [`ErrorKind::InvalidValue`] for a `fill_bytes` node or an empty
    /// `dst`; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemsetNodeSetParams")]
    pub fn set_fill_u32<T: DeviceCopy>(
        &self,
        node: FillNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        value: u32,
    ) -> Result<()> {
        let (ptr, len) = dst.raw_parts();
        let bytes = len * size_of::<T>();
        check_memset_unit(ptr, bytes, 4)?;
        self.set_fill(node, ptr, value, 4, bytes / 4)
    }

    /// `cuGraphExecMemcpyNodeSetParams` of `node` to a copy of `bytes` between the sides
    /// given, once its kind is checked.
    fn set_copy<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: super::CopySide<*mut core::ffi::c_void>,
        src: super::CopySide<*const core::ffi::c_void>,
        bytes: usize,
    ) -> Result<()> {
        crate::error::poison::check()?;
        let kind = DataNodeKind::Copy {
            dst: dst.0,
            src: src.0,
            elem: core::any::type_name::<T>(),
        };
        if node.node.kind != kind {
            return Err(refused(&format!(
                "a memcpy node keeps its direction and element type: {:?}, not {kind:?}",
                node.node.kind
            )));
        }
        if bytes == 0 {
            return Err(refused("a memcpy node cannot be made empty"));
        }
        let params = copy_params(dst, src, bytes);
        // SAFETY: a live executable graph of the current context (its `&mut` is held for 'u),
        // no launch pending; `node` is a memcpy node of the graph it was made from (branded 'u,
        // kept alive by it), of context `ctx`, of the same memory types; both sides are the
        // payload's memory holding `bytes` (the callers checked the lengths), owned by the
        // executable graph, and disjoint (the destination is bound exclusively).
        unsafe {
            ffi::cuGraphExecMemcpyNodeSetParams(
                self.exec,
                node.node.raw,
                &raw const params,
                node.node.ctx,
            )
        }
        .result()
    }

    /// `cuGraphExecMemcpyNodeSetParams`—Copies host memory of the payload to device memory of
    /// the payload at the next launches, in place of what the memcpy node `node` (a
    /// `copy_to_device` node of the same `T`) copied.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`]; [`ErrorKind::InvalidValue`] (no driver call) for a node
    /// of another direction or element type, or an empty copy; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemcpyNodeSetParams")]
    pub fn set_copy_to_device<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        src: impl Into<ScopedHost<'u, T>>,
    ) -> Result<()> {
        let ((ptr, len), src) = (dst.raw_parts(), src.into());
        check_same_len("set_copy_to_device", len, src.len())?;
        self.set_copy::<T>(
            node,
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null_mut(), ptr),
            (ffi::CU_MEMORYTYPE_HOST, src.as_ptr().cast(), 0),
            len * size_of::<T>(),
        )
    }

    /// `cuGraphExecMemcpyNodeSetParams`—Copies device memory of the payload to host memory of
    /// the payload at the next launches, in place of what the memcpy node `node` (a
    /// `copy_to_host` node of the same `T`) copied.
    ///
    /// # Errors
    ///
    /// As [`set_copy_to_device`](Self::set_copy_to_device).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemcpyNodeSetParams")]
    pub fn set_copy_to_host<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: impl Into<ScopedHostMut<'u, T>>,
        src: impl ScopedRead<'u, T>,
    ) -> Result<()> {
        let (dst, (ptr, len)) = (dst.into(), src.raw_parts());
        check_same_len("set_copy_to_host", dst.len(), len)?;
        self.set_copy::<T>(
            node,
            (ffi::CU_MEMORYTYPE_HOST, dst.as_mut_ptr().cast(), 0),
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null(), ptr),
            len * size_of::<T>(),
        )
    }

    /// `cuGraphExecMemcpyNodeSetParams`—Copies device memory of the payload to other device
    /// memory of the payload at the next launches, in place of what the memcpy node `node` (a
    /// `copy_device` node of the same `T`) copied.
    ///
    /// # Errors
    ///
    /// As [`set_copy_to_device`](Self::set_copy_to_device).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphExecMemcpyNodeSetParams")]
    pub fn set_copy_device<T: DeviceCopy>(
        &self,
        node: CopyNode<'u>,
        dst: impl ScopedWrite<'u, T>,
        src: impl ScopedRead<'u, T>,
    ) -> Result<()> {
        let ((dst, len), (src, src_len)) = (dst.raw_parts(), src.raw_parts());
        check_same_len("set_copy_device", len, src_len)?;
        self.set_copy::<T>(
            node,
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null_mut(), dst),
            (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null(), src),
            len * size_of::<T>(),
        )
    }
}
