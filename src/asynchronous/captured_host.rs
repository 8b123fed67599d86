//! Host functions a capture may take (full API only): a Rust closure a graph calls at each
//! launch, owned by the capturing graph through a CUDA user object, as a graph host node's is
//! (`graph::host`).
//!
//! ```text
//!   s.graph_host_fn(move || …)                     in a capture's closure
//!     cuStreamGetCaptureInfo_v2 -> the graph being captured (not capturing: one call, in order)
//!     Box<Repeated<F>> ──cuUserObjectCreate──> user object (1 reference, ours)
//!     ──cuGraphRetainUserObject(MOVE)──> the graph holds it; every executable graph, clone or
//!     update made from it holds a reference of its own (the driver's rule)
//!     ──cuLaunchHostFunc(call::<F>, the box)──> captured as a host node
//!   the last reference gone: the driver calls destroy::<F> on its thread, dropping the box
//! ```
//!
//! Why this is sound: the closure lives as long as anything that can call it (the user object
//! goes with the last graph or executable graph, once its launches are complete, and with the
//! graph a failed capture discards); the driver calls it on its own threads, possibly for two
//! executable graphs of one graph at once, so it is `Send` and called under a lock (`FnMut`
//! needs no more); it is `'static`, so it borrows nothing the program could free while a launch
//! runs; and a panic, in the closure or its drop, is caught before it reaches the driver and
//! reported by the context's next wait. The restricted profile's scope offers none (C26:
//! callbacks are outside NVIDIA's safety subset).

use super::host::{Call, catch, enqueue};
use super::scope::StreamScope;
use crate::error::Result;
use crate::ffi;
use core::ffi::c_void;
use std::sync::{Mutex, PoisonError};

/// What a captured host function's user object owns: the closure, behind the lock that lets
/// two launches share it, and the context whose next wait reports its panics.
struct Repeated<F> {
    f: Mutex<F>,
    ctx: usize,
}

/// The function the captured host node calls.
///
/// # Safety
///
/// `data` must point to a live `Repeated<F>` made by [`StreamScope::graph_host_fn`], which its
/// user object keeps alive while any graph or executable graph can call this.
unsafe extern "C" fn call<F: FnMut() + Send + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: a live box, only ever shared; the closure is reached
    // through its lock alone, so two launches calling at once take turns.
    let node = unsafe { &*data.cast::<Repeated<F>>() };
    catch(node.ctx, || {
        // A closure that panicked before left its lock poisoned: it is still a valid value.
        let mut f = node.f.lock().unwrap_or_else(PoisonError::into_inner);
        (*f)();
    });
}

/// The user object's destructor: drops the box.
///
/// # Safety
///
/// `data` must come from `Box::<Repeated<F>>::into_raw` in [`StreamScope::graph_host_fn`] and
/// be passed here once (the driver calls a destructor once, when the last reference goes and
/// no launch can call the node any more).
unsafe extern "C" fn destroy<F: FnMut() + Send + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: the box, now ours alone (`F: Send`: dropped on the
    // driver's thread).
    let node = unsafe { Box::from_raw(data.cast::<Repeated<F>>()) };
    let ctx = node.ctx;
    catch(ctx, move || drop(node));
}

impl StreamScope<'_, '_> {
    /// `cuLaunchHostFunc` under a capture—Enqueues a call of `f` on the host that a captured
    /// graph makes at **each** launch: inside [`Stream::capture`](crate::Stream::capture)'s (or
    /// [`capture_forked`](crate::Stream::capture_forked)'s) closure it becomes a host node of
    /// the graph, owned by the graph through a user object (`cuStreamGetCaptureInfo`,
    /// `cuUserObjectCreate`, `cuGraphRetainUserObject`) as a
    /// [graph host node](crate::GraphBuilder::host)'s closure is: every executable graph,
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
        let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        let (mut id, mut graph) = (0u64, core::ptr::null_mut());
        let (mut deps, mut n) = (core::ptr::null(), 0usize);
        // SAFETY: a live stream of the current context (the scope's); valid out-pointers.
        unsafe {
            ffi::cuStreamGetCaptureInfo_v2(
                stream,
                &raw mut status,
                &raw mut id,
                &raw mut graph,
                &raw mut deps,
                &raw mut n,
            )
        }
        .result()?;
        match status {
            ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE => {
                return enqueue(stream, Call::InOrder, f);
            }
            ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE if !graph.is_null() => {}
            _ => return ffi::CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.result(),
        }
        let mut ctx = core::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { ffi::cuCtxGetCurrent(&raw mut ctx) }.result()?;
        let data = Box::into_raw(Box::new(Repeated {
            f: Mutex::new(f),
            ctx: ctx as usize,
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
            drop(unsafe { Box::from_raw(data.cast::<Repeated<F>>()) });
            return Err(e);
        }
        // SAFETY: the graph being captured (live until the capture ends, after this call) and
        // a live user object; our one reference moves to the graph.
        let retained = unsafe {
            ffi::cuGraphRetainUserObject(graph, object, 1, ffi::CU_GRAPH_USER_OBJECT_MOVE)
        }
        .result();
        if let Err(e) = retained {
            // SAFETY: the reference is still ours: releasing it runs the destructor, which
            // drops the box (no node names it).
            let _ = unsafe { ffi::cuUserObjectRelease(object, 1) };
            return Err(e);
        }
        // SAFETY: a live, capturing stream of the current context; `call::<F>` is called with
        // the box the graph's user object keeps alive while the graph, or anything made from
        // it, can launch the captured node. If the driver refuses, the graph still owns the box
        // and drops it with itself.
        unsafe { ffi::cuLaunchHostFunc(stream, Some(call::<F>), data) }.result()
    }
}
