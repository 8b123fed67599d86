//! Host nodes of graphs built node by node (`cuGraphAddHostNode`), under the full API only: a
//! Rust closure the driver calls at each launch of an executable graph, on a thread of its own.
//!
//! ```text
//!   b.host(move || counter.fetch_add(1, Relaxed), &[after])   in build_graph's closure
//!     Box<HostNode<F>> ──cuUserObjectCreate──> user object (1 reference, the builder's)
//!     ──cuGraphRetainUserObject(MOVE)──> the graph holds it; every executable graph made or
//!     updated from it, and every clone, holds a reference of its own (the driver's rule)
//!     ──cuGraphAddHostNode(call::<F>, the box)──> the node
//!   the last reference gone (graph and executable graphs destroyed, launches complete):
//!     the driver calls destroy::<F> on its thread: the box is dropped there
//! ```
//!
//! Why this is sound:
//! - the closure lives as long as anything that can call it: the driver ties the box to the
//!   graph and to every executable graph, clone or update made from it, and drops it (through
//!   the user object's destructor) only after the last of them is destroyed and its launches
//!   have completed, so no Rust bookkeeping has to follow the graph through `instantiate`,
//!   `instantiate_shared`, `clone_graph` or `GraphExec::update`;
//! - the driver calls it on its own thread, and more than one executable graph of one graph
//!   (`instantiate_shared`, clones) may run it at once: it is `Fn + Send + Sync` (shared
//!   state through atomics or a lock), and `'static`, so it borrows nothing the program could
//!   free or reach while a launch runs (the payload included: a host node reads no device
//!   memory the types could order);
//! - a panic never unwinds into the driver: it is caught, its message kept with the graph's
//!   context, and the context's next wait reports it as `HostFunctionPanicked` (as for
//!   `StreamScope::host_fn`); a panic while the closure is dropped is caught the same way.
//!
//! The closure must not call the CUDA API (the driver documents that such a call may deadlock
//! or fail with `CUDA_ERROR_NOT_PERMITTED`); nor may its drop, which runs on the driver's
//! thread. Neither is undefined behaviour. The restricted profile's builder offers no host
//! node (C26: callbacks are outside NVIDIA's safety subset).

use super::{GraphBuilder, GraphNode};
use crate::asynchronous::host::catch;
use crate::error::Result;
use crate::ffi;
use core::ffi::c_void;

/// What a host node's user object owns: the closure, and the context whose next wait reports
/// its panics.
struct HostNode<F> {
    f: F,
    ctx: usize,
}

/// The function a host node's parameters name.
///
/// # Safety
///
/// `data` must point to a live `HostNode<F>` made by [`GraphBuilder::host`], which its user
/// object keeps alive while any graph or executable graph can call this.
unsafe extern "C" fn call<F: Fn() + Send + Sync + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: a live box, only ever shared (`F: Sync`), so a shared
    // reference is sound even while another launch calls it on another thread.
    let node = unsafe { &*data.cast::<HostNode<F>>() };
    catch(node.ctx, || (node.f)());
}

/// The user object's destructor: drops the box.
///
/// # Safety
///
/// `data` must come from `Box::<HostNode<F>>::into_raw` in [`GraphBuilder::host`] and be
/// passed here once (the driver calls a destructor once, when the last reference goes and no
/// launch can call the node any more).
unsafe extern "C" fn destroy<F: Fn() + Send + Sync + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: the box, now ours alone (`F: Send`: dropped on the
    // driver's thread).
    let node = unsafe { Box::from_raw(data.cast::<HostNode<F>>()) };
    let ctx = node.ctx;
    catch(ctx, move || drop(node));
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
        let data = Box::into_raw(Box::new(HostNode {
            f,
            ctx: self.ctx as usize,
        }))
        .cast::<c_void>();
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
        // SAFETY: a live graph of the current context and a live user object; the builder's
        // one reference moves to the graph.
        let retained = unsafe {
            ffi::cuGraphRetainUserObject(self.raw, object, 1, ffi::CU_GRAPH_USER_OBJECT_MOVE)
        }
        .result();
        if let Err(e) = retained {
            // SAFETY: the reference is still the builder's: releasing it runs the destructor,
            // which drops the box (no node names it).
            let _ = unsafe { ffi::cuUserObjectRelease(object, 1) };
            return Err(e);
        }
        let params = ffi::CUDA_HOST_NODE_PARAMS {
            fn_: Some(call::<F>),
            userData: data,
        };
        self.add(deps, |out, graph, deps, n| {
            // SAFETY: a live graph of the current context; `deps` holds `n` of its nodes
            // (branded 'b); `call::<F>` is called with the box the graph's user object keeps
            // alive while the graph, or anything made from it, can launch the node.
            unsafe { ffi::cuGraphAddHostNode(out, graph, deps, n, &raw const params) }
        })
    }
}
