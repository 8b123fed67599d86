//! Host functions a graph owns, under the full API only: a Rust closure the driver calls at
//! each launch of an executable graph, on a thread of its own, as a host node of a graph built
//! node by node ([`GraphBuilder::host`], `cuGraphAddHostNode`) or a host function a capture
//! takes ([`StreamScope::graph_host_fn`], `cuLaunchHostFunc` inside the capture). Either way the
//! graph owns the closure through a CUDA user object, handed over by one function
//! ([`own_by_graph`]):
//!
//! ```text
//!   b.host(move || counter.fetch_add(1, Relaxed), &[after])   in build_graph's closure
//!   s.graph_host_fn(move || …)                                 in a capture's closure
//!     (cuStreamGetCaptureInfo -> the graph being captured; not capturing: one call, in order)
//!     Box<HostNode<F>> ──cuUserObjectCreate──> user object (1 reference, ours)
//!     ──cuGraphRetainUserObject(MOVE)──> the graph holds it; every executable graph made or
//!     updated from it, and every clone, holds a reference of its own (the driver's rule)
//!     ──cuGraphAddHostNode(call::<F>, the box)──> the node      (a builder's)
//!     ──cuLaunchHostFunc(call::<F>, the box)──> a host node    (a capture's)
//!   the last reference gone (graph and executable graphs destroyed, launches complete):
//!     the driver calls destroy::<F> on its thread: the box is dropped there
//! ```
//!
//! Why this is sound:
//! - the closure lives as long as anything that can call it: the driver ties the box to the
//!   graph and to every executable graph, clone or update made from it, and drops it (through
//!   the user object's destructor) only after the last of them is destroyed and its launches
//!   have completed (or with the graph a failed capture discards), so no Rust bookkeeping has
//!   to follow the graph through `instantiate`, `instantiate_shared`, `clone_graph` or
//!   `GraphExec::update`;
//! - the driver calls it on its own thread, and more than one executable graph of one graph
//!   (`instantiate_shared`, clones) may run it at once: a host node's closure is
//!   `Fn + Send + Sync` (shared state through atomics or a lock); a captured one is
//!   `FnMut + Send`, called under a lock, so two launches take turns; either is `'static`, so
//!   it borrows nothing the program could free or reach while a launch runs (the payload
//!   included: a host function reads no device memory the types could order);
//! - a panic never unwinds into the driver: it is caught, its message kept with the graph's
//!   context, and the context's next wait reports it as `HostFunctionPanicked` (as for
//!   `StreamScope::host_fn`); a panic while the closure is dropped is caught the same way.
//!
//! The closure must not call the CUDA API (the driver documents that such a call may deadlock
//! or fail with `CUDA_ERROR_NOT_PERMITTED`); nor may its drop, which runs on the driver's
//! thread. Neither is undefined behaviour. The restricted profile's builder and scopes offer no
//! host function (C26: callbacks are outside NVIDIA's safety subset).

use super::builder::{GraphBuilder, GraphNode};
use super::capture::{Capturing, capture_info};
use super::host_fn::{HostNode, call, destroy};
use super::params::DataNodeKind;
use crate::asynchronous::host::{Call, enqueue};
use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::ffi;
use core::ffi::c_void;
use std::sync::{Mutex, PoisonError};

/// Hands `f`, boxed with the context `ctx` whose next wait reports its panics, to `graph`
/// (live, of the current context: a graph being built, or the one a stream is capturing into)
/// through a CUDA user object the graph owns (`cuUserObjectCreate`, then
/// `cuGraphRetainUserObject` with `CU_GRAPH_USER_OBJECT_MOVE`): the one way custack gives a
/// graph a value to keep. Returns the function for the host node to name and the box, which
/// the user object keeps alive until the last graph or executable graph holding it is destroyed
/// and its launches are complete; the driver then drops it, on its thread.
///
/// # Errors
///
/// The driver's errors; then `f` is dropped: here if no user object was made, by the user
/// object's destructor (on releasing our reference) if the graph did not take it, unless the
/// process is poisoned or forked by then (both leaked, R20).
fn own_by_graph<F: Fn() + Send + Sync + 'static>(
    graph: ffi::CUgraph,
    ctx: usize,
    f: F,
) -> Result<(ffi::CUhostFn, *mut c_void)> {
    // What `f`'s calls or drop leave behind on the driver's thread is named with what this
    // finds.
    crate::error::left_behind::prime();
    let data = Box::into_raw(Box::new(HostNode { f, ctx })).cast::<c_void>();
    let mut object = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; `destroy::<F>` takes exactly the box `data` points to,
    // once, when the object's last reference goes; the flag is the one the driver requires.
    let created = unsafe {
        ffi::cuUserObjectCreate(
            &raw mut object,
            data,
            Some(destroy::<F>),
            1,
            ffi::CU_USER_OBJECT_NO_DESTRUCTOR_SYNC,
        )
    }
    .result();
    if let Err(e) = created {
        // SAFETY: no user object was made, so nothing else will ever free the box.
        drop(unsafe { Box::from_raw(data.cast::<HostNode<F>>()) });
        return Err(e);
    }
    // SAFETY: a live graph of the current context (the caller's) and a live user object; our
    // one reference moves to the graph.
    let retained =
        unsafe { ffi::cuGraphRetainUserObject(graph, object, 1, ffi::CU_GRAPH_USER_OBJECT_MOVE) }
            .result();
    if let Err(e) = retained {
        // Released as every driver object is, through the one gate: after a sticky answer
        // (now the process's poison) or in a forked child nothing is released (R20, R22), and
        // the object and `f` are leaked. Otherwise its error goes to the drop log; the call's
        // is returned.
        let release = crate::error::left_behind::release(
            crate::error::left_behind::Object::Untracked,
            object as u64,
        )
        // SAFETY: the reference is still ours: releasing it runs the destructor, which drops
        // the box (no node names it).
        .and_then(|()| unsafe { ffi::cuUserObjectRelease(object, 1) }.result());
        if let Err(r) = release {
            crate::error::record_drop_error(r);
        }
        return Err(e);
    }
    Ok((Some(call::<F>), data))
}

impl<'b> GraphBuilder<'b> {
    /// `cuGraphAddHostNode`—Adds a node that calls `f` at each launch, after `deps`, on a
    /// thread of the driver's (the graph's later nodes wait for it). `f` is owned by the graph
    /// through a user object (`cuUserObjectCreate`, `cuGraphRetainUserObject`): every executable
    /// graph, clone or update made from the graph keeps it, and it is dropped, on the driver's
    /// thread, after the last of them is destroyed and its launches are complete.
    ///
    /// `f` is `Fn + Send + Sync + 'static`: the driver calls it on its own thread, possibly
    /// for two executable graphs at once, and it may run long after this call (keep state in
    /// atomics or a lock; it cannot borrow the payload). A panic is caught before it reaches
    /// the driver and reported by the next wait of the graph's context
    /// ([`ErrorKind::HostFunctionPanicked`](crate::ErrorKind::HostFunctionPanicked)). `f` (and
    /// its drop) must not call the CUDA API: the driver documents that such a call may
    /// deadlock or fail with `CUDA_ERROR_NOT_PERMITTED`. Only a root graph takes host nodes
    /// (a conditional node's body does not), and only under the full API.
    ///
    /// # Errors
    ///
    /// The driver's errors; then no node is made, and `f` is dropped (by the graph, if the
    /// user object was already given to it).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let launches = Arc::new(AtomicU32::new(0));
    /// let seen = Arc::clone(&launches);
    /// let graph = guard.build_graph(guard.alloc::<u32>(256)?, move |b, mut x| {
    ///     let set = b.fill_u32(&mut x, 7, &[])?;
    ///     b.host(move || { seen.fetch_add(1, Ordering::Relaxed); }, &[set])?;
    ///     Ok(())
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// let stream = guard.stream()?;
    /// exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// assert_eq!(launches.load(Ordering::Relaxed), 1);
    /// # drop(exec);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphAddHostNode")]
    #[doc(alias = "cuUserObjectCreate")]
    #[doc(alias = "cuGraphRetainUserObject")]
    pub fn host<F: Fn() + Send + Sync + 'static>(
        &self,
        f: F,
        deps: &[GraphNode<'b>],
    ) -> Result<GraphNode<'b>> {
        crate::error::poison::check()?;
        let (fn_, data) = own_by_graph(self.raw, self.ctx as usize, f)?;
        let params = ffi::CUDA_HOST_NODE_PARAMS {
            fn_,
            userData: data,
        };
        self.add(deps, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes
            // (branded 'b); `fn_` is called with the box the graph's user object keeps alive
            // while the graph, or anything made from it, can launch the node.
            unsafe { ffi::cuGraphAddHostNode(out, graph, deps, n, &raw const params) }
        })
        .map(|node| self.note(node, DataNodeKind::Host { index: 0 }))
    }
}

impl StreamScope<'_, '_> {
    /// `cuLaunchHostFunc` under a capture—Enqueues a call of `f` on the host that a captured
    /// graph makes at **each** launch: inside [`Stream::capture`](crate::Stream::capture)'s (or
    /// [`capture_forked`](crate::Stream::capture_forked)'s) closure it becomes a host node of
    /// the graph, owned by the graph through a user object (`cuStreamGetCaptureInfo`,
    /// `cuUserObjectCreate`, `cuGraphRetainUserObject`) as a
    /// [graph host node](GraphBuilder::host)'s closure is: every executable graph,
    /// clone or update made from the graph keeps it, and it is dropped, on the driver's thread,
    /// after the last of them is destroyed and its launches are complete (or with the capture,
    /// if it fails). On a stream that is not capturing it is called once, as
    /// [`host_fn`](Self::host_fn) would.
    ///
    /// `f` is `FnMut + Send + 'static`: the driver calls it on its own thread, possibly for two
    /// executable graphs of one graph at once (custack then makes them take turns, through a
    /// lock), and it may run long after this call, so it cannot borrow the payload. A panic is
    /// caught before it reaches the driver and reported by the next wait of the scope's context
    /// ([`ErrorKind::HostFunctionPanicked`](crate::ErrorKind::HostFunctionPanicked)), as for
    /// graph host nodes; the next launch calls `f` again. `f` (and its drop) must not call the
    /// CUDA API: the driver documents that such a call may deadlock or fail with
    /// `CUDA_ERROR_NOT_PERMITTED`. Full API only: the restricted profile's scopes take no host
    /// function.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` if the capture was invalidated; the driver's
    /// errors. Then `f` is dropped without being called (by the graph, if it already held it).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let launches = Arc::new(AtomicU32::new(0));
    /// let seen = Arc::clone(&launches);
    /// let graph = stream.capture(guard.alloc::<u32>(256)?, move |s, mut x| {
    ///     s.fill_u32(&mut x, 7)?;
    ///     s.graph_host_fn(move || { seen.fetch_add(1, Ordering::Relaxed); })
    /// })?;
    /// let mut exec = graph.instantiate()?;
    /// for _ in 0..3 {
    ///     exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    /// }
    /// assert_eq!(launches.load(Ordering::Relaxed), 3);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamGetCaptureInfo")]
    #[doc(alias = "cuUserObjectCreate")]
    #[doc(alias = "cuGraphRetainUserObject")]
    #[doc(alias = "cuLaunchHostFunc")]
    pub fn graph_host_fn<F: FnMut() + Send + 'static>(&self, f: F) -> Result<()> {
        crate::error::poison::check()?;
        let stream = self.as_raw();
        let graph = match capture_info(stream)? {
            Capturing::Not => return enqueue(stream, Call::InOrder, f),
            Capturing::Into { graph, .. } => graph,
        };
        let ctx = crate::context::raw::current()?;
        // Behind a lock, so that two launches calling it at once take turns; a closure that
        // panicked before left its lock poisoned: it is still a valid value.
        let f = Mutex::new(f);
        let shared = move || (*f.lock().unwrap_or_else(PoisonError::into_inner))();
        let (fn_, data) = own_by_graph(graph, ctx as usize, shared)?;
        // SAFETY: a live, capturing stream of the current context; `fn_` is called with the
        // box the graph's user object keeps alive while the graph, or anything made from it,
        // can launch the captured node. If the driver refuses, the graph still owns the box
        // and drops it with itself.
        unsafe { ffi::cuLaunchHostFunc(stream, fn_, data) }.result()
    }
}
