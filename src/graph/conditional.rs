//! Conditional nodes of a graph built node by node: a body graph that runs once if a value the
//! device sets is non-zero (IF, with an optional ELSE body), again and again while it is
//! (WHILE), or the body that value numbers (SWITCH). The value is a condition's, made on the
//! graph the node goes into ([`GraphBuilder::condition`]); a kernel of the graph sets it with
//! `cudaGraphSetConditional(handle, value)`, its handle a contract parameter declared
//! `name: conditional` ([`ConditionalHandle`]).
//!
//! ```text
//!   let cond = b.condition(1, true)?;             cuGraphConditionalHandleCreate (CUDA 12.3)
//!   let handle = cond.handle();                   ConditionalHandle<'b>: a kernel argument
//!   b.while_loop(cond, &[n], |body| {             cuGraphAddNode, CU_GRAPH_COND_TYPE_WHILE
//!       let s = body.kernel(&step, cfg, args, &[])?;              GraphNode<'b, BodyGraph<'c>>
//!       body.kernel(&check, one, (handle, …), &[s])               sets the condition
//!   })?;                                          -> GraphNode<'b>
//! ```
//!
//! The kernel is ordinary CUDA C++ (`tests/fixtures/conditional.cu`):
//!
//! ```text
//! extern "C" __global__ void check(cudaGraphConditionalHandle cond, const float* r, float tol) {
//!     if (threadIdx.x == 0) cudaGraphSetConditional(cond, *r > tol);
//! }
//! ```
//!
//! `nvcc -cubin` leaves `cudaGraphSetConditional` the cubin's one undefined symbol, which the
//! driver resolves when it loads the module (`cuModuleLoadData`, [`load_cubin`]): no
//! relocatable device code, nothing linked (so on the H100, driver 580).
//!
//! [`load_cubin`]: crate::PushedGuard::load_cubin
//!
//! The driver makes the bodies (`phGraph_out`) and owns them with the node; each is built in
//! its own closure through a [`GraphBuilder<'b, BodyGraph<'c>>`](GraphBuilder), for a fresh
//! brand `'c`: the same typed nodes (kernels, copies, memsets, nested conditionals) checked as
//! the root graph's, over the same payload (`'b`).

use super::builder::{BodyGraph, Brand, GraphBuilder, GraphNode, RootGraph};
use crate::driver::lookup::{GRAPH_ADD_NODE, GRAPH_CONDITIONAL_HANDLE_CREATE};
use crate::driver::version::{Version, driver_version};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::argument::ConditionalHandle;
use core::marker::PhantomData;

/// A condition made on the graph of brand `G` for one conditional node of that graph: the
/// node's method ([`GraphBuilder::if_then`], [`while_loop`](GraphBuilder::while_loop), …) takes
/// it by value, so a condition controls one node, of the graph it was made on (the driver's
/// rules). Its [`handle`](Self::handle) is what kernels set it through.
#[derive(Debug)]
pub struct Condition<'b, G = RootGraph> {
    handle: ffi::CUgraphConditionalHandle,
    graph: ffi::CUgraph,
    _marker: Brand<'b, G>,
}

static_assertions::assert_not_impl_any!(Condition<'static>: Send, Sync, Clone);

impl<'b, G> Condition<'b, G> {
    /// The handle kernels set this condition through (`cudaGraphSetConditional`).
    pub fn handle(&self) -> ConditionalHandle<'b> {
        // SAFETY: a handle made on this graph, branded with the graph's `'b`.
        unsafe { ConditionalHandle::from_raw(self.handle) }
    }
}

/// IF with an ELSE body, and SWITCH: CUDA 12.8.
const TWO_BODIES: u32 = 12080;

impl<'b, G> GraphBuilder<'b, G> {
    /// `cuGraphConditionalHandleCreate`—Makes a condition on this graph, for one conditional
    /// node of it. With `assign_default`, its value is `default` at the start of each launch of
    /// the executable graph (`CU_GRAPH_COND_ASSIGN_DEFAULT`); without, nothing resets it (the
    /// driver documents `default` only with the flag): have a kernel of the graph set it before
    /// the node reads it, as the IF tests do. A kernel sets it through [`Condition::handle`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.3; the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphConditionalHandleCreate")]
    pub fn condition(&self, default: u32, assign_default: bool) -> Result<Condition<'b, G>> {
        crate::error::poison::check()?;
        let create = GRAPH_CONDITIONAL_HANDLE_CREATE.get()?;
        let flags = if assign_default {
            ffi::CU_GRAPH_COND_ASSIGN_DEFAULT
        } else {
            0
        };
        let mut handle = 0;
        // SAFETY: a valid out-pointer; a live graph being built of the current context `ctx`.
        unsafe { create(&raw mut handle, self.raw, self.ctx, default, flags) }.result()?;
        Ok(Condition {
            handle,
            graph: self.raw,
            _marker: PhantomData,
        })
    }

    /// `cuGraphAddNode`—Adds an IF node: `then` builds its body, which runs once per launch of
    /// the node if the condition is non-zero when the node runs.
    ///
    /// # Errors
    ///
    /// As [`while_loop`](Self::while_loop).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn if_then(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        then: impl for<'c> FnOnce(&GraphBuilder<'b, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        let (node, bodies) = self.conditional(cond, ffi::CU_GRAPH_COND_TYPE_IF, 1, deps)?;
        then(&self.body(&bodies, 0)?)?;
        Ok(node)
    }

    /// `cuGraphAddNode`—Adds an IF node with an ELSE body: `bodies` builds both, the first
    /// builder's running if the condition is non-zero, the second's if it is zero. One closure
    /// for both, so that both bodies can write the same buffer; each builder has its own brand,
    /// so neither body's nodes are dependencies in the other.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.8; as [`while_loop`](Self::while_loop).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn if_else(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        bodies: impl for<'c, 'e> FnOnce(
            &GraphBuilder<'b, BodyGraph<'c>>,
            &GraphBuilder<'b, BodyGraph<'e>>,
        ) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        needs_two_bodies("if_else")?;
        let (node, made) = self.conditional(cond, ffi::CU_GRAPH_COND_TYPE_IF, 2, deps)?;
        bodies(&self.body(&made, 0)?, &self.body(&made, 1)?)?;
        Ok(node)
    }

    /// `cuGraphAddNode`—Adds a WHILE node: `body` builds its body, which runs again and again
    /// while the condition is non-zero (checked before each run, so not at all if it is zero
    /// when the node starts). A kernel of the body sets the condition to end the loop; one
    /// that never does runs the loop forever (a hang, as any kernel that never ends: the
    /// launch's deadline, not memory safety, is what bounds it).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.3; [`ErrorKind::InvalidValue`] if `cond`
    /// was made on another graph (checked, though the brands already keep a condition in the
    /// body it was made in); the driver's errors
    /// (e.g. a body node of a type bodies cannot hold), or `body`'s. The node is made before
    /// its body, so on an error the whole graph is destroyed, as for any node's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn while_loop(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        body: impl for<'c> FnOnce(&GraphBuilder<'b, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        let (node, bodies) = self.conditional(cond, ffi::CU_GRAPH_COND_TYPE_WHILE, 1, deps)?;
        body(&self.body(&bodies, 0)?)?;
        Ok(node)
    }

    /// `cuGraphAddNode`—Adds a SWITCH node of `cases` bodies: body `n` runs once if the
    /// condition is `n`, none if it is `cases` or more. `case(n, builder)` builds body `n`, for
    /// `n` from 0.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.8; [`ErrorKind::InvalidValue`] if `cases`
    /// is 0; as [`while_loop`](Self::while_loop).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddNode")]
    pub fn switch(
        &self,
        cond: Condition<'b, G>,
        deps: &[GraphNode<'b, G>],
        cases: u32,
        mut case: impl for<'c> FnMut(u32, &GraphBuilder<'b, BodyGraph<'c>>) -> Result<()>,
    ) -> Result<GraphNode<'b, G>> {
        needs_two_bodies("switch")?;
        if cases == 0 {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a switch node needs at least one body".to_owned(),
            ));
        }
        let (node, bodies) = self.conditional(cond, ffi::CU_GRAPH_COND_TYPE_SWITCH, cases, deps)?;
        for n in 0..cases {
            case(n, &self.body(&bodies, n as usize)?)?;
        }
        Ok(node)
    }

    /// A builder of body `index` of a conditional node this builder made.
    pub(super) fn body<'c>(
        &self,
        bodies: &[ffi::CUgraph],
        index: usize,
    ) -> Result<GraphBuilder<'b, BodyGraph<'c>>> {
        match bodies.get(index) {
            Some(&raw) if !raw.is_null() => Ok(GraphBuilder::new(raw, self.ctx)),
            _ => Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("the driver returned no body graph {index} for the conditional node"),
            )),
        }
    }

    /// Adds a conditional node of `type_` with `size` bodies after `deps`; returns it and the
    /// bodies the driver made (owned by the node).
    // `cond` by value: a condition is taken by one node.
    #[allow(clippy::needless_pass_by_value)]
    pub(super) fn conditional(
        &self,
        cond: Condition<'b, G>,
        type_: ffi::CUgraphConditionalNodeType,
        size: u32,
        deps: &[GraphNode<'b, G>],
    ) -> Result<(GraphNode<'b, G>, Vec<ffi::CUgraph>)> {
        if cond.graph != self.raw {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "the condition was made on another graph: a conditional node takes a condition \
                 of its own graph"
                    .to_owned(),
            ));
        }
        let add = GRAPH_ADD_NODE.get()?;
        let mut params = ffi::CUgraphNodeParams {
            type_: ffi::CU_GRAPH_NODE_TYPE_CONDITIONAL,
            reserved0: [0; 3],
            params: ffi::CUgraphNodeParams_params { reserved1: [0; 29] },
            reserved2: 0,
        };
        params.params.conditional = ffi::CUDA_CONDITIONAL_NODE_PARAMS {
            handle: cond.handle,
            type_,
            size,
            phGraph_out: core::ptr::null_mut(),
            ctx: self.ctx,
        };
        let node = self.add(deps, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context `ctx`; `deps` holds `n` of its nodes;
            // `params` is a conditional node's, zeroed but for its fields, with a handle made on
            // this graph (checked above) for this node only (`cond` is consumed), which the
            // driver writes `phGraph_out` into.
            unsafe { add(out, graph, deps, n, &raw mut params) }
        })?;
        // SAFETY: the conditional member is the one written above (the driver wrote only its
        // `phGraph_out`).
        let out = unsafe { params.params.conditional.phGraph_out };
        if out.is_null() {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "the driver returned no body graphs for the conditional node".to_owned(),
            ));
        }
        // SAFETY: on success the driver points `phGraph_out` at `size` body graphs, valid while
        // the node lives (the graph owns it); copied out at once.
        let bodies = unsafe { core::slice::from_raw_parts(out, size as usize) }.to_vec();
        Ok((node, bodies))
    }
}

/// [`ErrorKind::DriverTooOld`] before driver 12.8 (IF with ELSE, SWITCH).
pub(super) fn needs_two_bodies(what: &str) -> Result<()> {
    let driver = driver_version()?;
    let needs = Version::from_raw(TWO_BODIES);
    if driver < needs {
        return Err(Error::custack(
            ErrorKind::DriverTooOld,
            format!("{what} needs driver ≥ {needs} (this driver: {driver})"),
        ));
    }
    Ok(())
}
