//! Models `cuda.h` "Stream Management" (`group__CUDA__STREAM`): streams, their waits, queries and
//! synchronization (which may find hung work, `NULLDRIVER_HANG_AT`), callbacks, and stream capture
//! into a new graph or (12.3) into an existing one.

use super::common::{checking, out};
use super::types::{
    CUDA_ERROR_ILLEGAL_STATE, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_READY,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, CUDA_SUCCESS,
    CUresult, Handle,
};
use crate::check::{self, Kind};
use crate::handles::handle;
use crate::load::hang_exit;
use crate::user_object;
use core::ffi::{c_int, c_uint, c_void};
use core::ptr::null_mut;

entry_points! {
    fn cuStreamCreate(stream: *mut Handle, flags: c_uint) { new_stream(stream, flags) }
    fn cuStreamCreateWithPriority(stream: *mut Handle, flags: c_uint, priority: c_int) {
        new_stream(stream, flags)
    }
    fn cuStreamGetPriority(stream: Handle, priority: *mut c_int) { out(priority, 0); CUDA_SUCCESS }
    fn cuStreamGetFlags(stream: Handle, flags: *mut c_uint) { out(flags, 0); CUDA_SUCCESS }
    fn cuStreamWaitEvent(stream: Handle, event: Handle, flags: c_uint) {
        check::used(Kind::Stream, stream as usize, "cuStreamWaitEvent");
        check::used_from_any_context(Kind::Event, event as usize, "cuStreamWaitEvent");
        check::stream_waits(stream as usize, event as usize);
        CUDA_SUCCESS
    }
    // A stream in a capture (the one that began it, or one that joined it by waiting for an
    // event recorded in it, from any thread) is neither queried nor synchronized: its work is
    // captured, not run (the H100 run answered a synchronize of a stream joined to another
    // thread's capture with this code; the capture's invalidation is not modelled).
    fn cuStreamQuery(stream: Handle) {
        check::used(Kind::Stream, stream as usize, "cuStreamQuery");
        if check::is_capturing(stream as usize) {
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
        if check::stream_hung(stream as usize) {
            return CUDA_ERROR_NOT_READY;
        }
        check::progress();
        // Success says the stream's work is done: it is, from now on.
        check::stream_synchronized(stream as usize);
        CUDA_SUCCESS
    }
    fn cuStreamSynchronize(stream: Handle) {
        check::used(Kind::Stream, stream as usize, "cuStreamSynchronize");
        if check::is_capturing(stream as usize) {
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
        if check::stream_hung(stream as usize) {
            hang_exit("cuStreamSynchronize".to_owned());
        }
        check::stream_synchronized(stream as usize);
        CUDA_SUCCESS
    }
    fn cuStreamDestroy_v2(stream: Handle) {
        let _ = check::destroyed(Kind::Stream, stream as usize, "cuStreamDestroy");
        CUDA_SUCCESS
    }
    fn cuStreamAddCallback(
        stream: Handle,
        f: Option<unsafe extern "C" fn(Handle, CUresult, *mut c_void)>,
        data: *mut c_void,
        flags: c_uint,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuStreamAddCallback");
        if check::is_capturing(stream as usize) {
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
        if check::stream_hung(stream as usize) {
            return CUDA_SUCCESS;
        }
        if let Some(f) = f { crate::callback::in_callback(|| f(stream, CUDA_SUCCESS, data)); }
        CUDA_SUCCESS
    }
    // Checking mode models captures: what is enqueued on a capturing stream is kept in the
    // graph and enqueued again at each launch of an executable graph made from it.
    // The capture's graph is made when `cuStreamGetCaptureInfo` first names it, or at the end; a
    // capture that ends with a forked stream not joined back fails, and the driver destroys its
    // graph.
    fn cuStreamBeginCapture_v2(stream: Handle, mode: c_int) {
        check::used(Kind::Stream, stream as usize, "cuStreamBeginCapture");
        check::capture_begun(stream as usize);
        CUDA_SUCCESS
    }
    fn cuStreamEndCapture(stream: Handle, graph: *mut Handle) {
        check::used(Kind::Stream, stream as usize, "cuStreamEndCapture");
        // A capture into an existing graph ends in that graph.
        if let Some(g) = check::capture_to_graph_ended(stream as usize) {
            out(graph, core::ptr::without_provenance_mut(g));
            return CUDA_SUCCESS;
        }
        match check::capture_ended(stream as usize, handle() as usize) {
            Some(Ok(g)) => {
                out(graph, core::ptr::without_provenance_mut(g));
                CUDA_SUCCESS
            }
            Some(Err(g)) => {
                let _ = check::destroyed(Kind::Graph, g, "cuStreamEndCapture");
                check::graph_forgotten(g);
                user_object::owner_destroyed(g);
                out(graph, core::ptr::null_mut());
                CUDA_ERROR_STREAM_CAPTURE_UNJOINED
            }
            None => {
                out(graph, core::ptr::null_mut());
                CUDA_ERROR_ILLEGAL_STATE
            }
        }
    }
    fn cuStreamIsCapturing(stream: Handle, status: *mut c_int) {
        out(status, c_int::from(check::is_capturing(stream as usize)));
        CUDA_SUCCESS
    }
    // The capture's status, its graph (named the first time it is asked for) and its current
    // dependencies: none, as the double keeps no edges (a node added after them follows
    // nothing, which is still a node of the capture).
    fn cuStreamGetCaptureInfo_v2(
        stream: Handle,
        status: *mut c_int,
        id: *mut u64,
        graph: *mut Handle,
        deps: *mut *const Handle,
        n: *mut usize,
    ) {
        check::used(Kind::Stream, stream as usize, "cuStreamGetCaptureInfo");
        if status.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let captured = check::capture_graph(stream as usize, || handle() as usize);
        out(status, c_int::from(captured.is_some()));
        if !id.is_null() {
            out(id, stream as u64);
        }
        if !graph.is_null() {
            out(graph, captured.map_or(null_mut(), core::ptr::without_provenance_mut));
        }
        // The capture's current dependencies: the node of its last captured operation, the
        // ones it began with or was given (the H200 run: the driver named one node after two
        // captured memsets where the double named none). Valid until this thread asks again.
        let nodes = check::capture_dependencies(stream as usize);
        let at = CAPTURE_DEPS.with(|buffer| {
            let mut buffer = buffer.borrow_mut();
            buffer.clear();
            buffer.extend(nodes.iter().map(|&h| core::ptr::without_provenance_mut(h)));
            buffer.as_ptr()
        });
        if !deps.is_null() {
            out(deps, if nodes.is_empty() { core::ptr::null() } else { at });
        }
        if !n.is_null() {
            out(n, nodes.len());
        }
        CUDA_SUCCESS
    }
    fn cuStreamUpdateCaptureDependencies(stream: Handle, deps: *mut Handle, n: usize, flags: c_uint) {
        check::used(Kind::Stream, stream as usize, "cuStreamUpdateCaptureDependencies");
        if checking() && !check::is_capturing(stream as usize) || flags > 1 || n > 0 && deps.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let given: Vec<usize> = (0..n).map(|i| (*deps.add(i)).addr()).collect();
        check::capture_dependencies_set(stream as usize, &given, flags == 0);
        CUDA_SUCCESS
    }
    // A capture whose work becomes nodes of `graph` (CUDA 12.3): a graph being built, or a
    // conditional node's body. `cuStreamEndCapture` ends it in that graph.
    fn cuStreamBeginCaptureToGraph(
        stream: Handle,
        graph: Handle,
        deps: *const Handle,
        data: *const c_void,
        n: usize,
        mode: c_int,
    ) {
        const WHAT: &str = "cuStreamBeginCaptureToGraph";
        check::used(Kind::Stream, stream as usize, WHAT);
        if !data.is_null() || n > 0 && deps.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        if !check::capture_to_graph_begun(stream as usize, graph as usize, WHAT) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let given: Vec<usize> = (0..n).map(|i| (*deps.add(i)).addr()).collect();
        check::capture_dependencies_set(stream as usize, &given, false);
        CUDA_SUCCESS
    }
}

thread_local! {
    /// The nodes `cuStreamGetCaptureInfo` last answered on this thread: the array its
    /// dependencies point to, valid until the thread's next call of it (the driver's is valid
    /// until the next call on the stream).
    static CAPTURE_DEPS: core::cell::RefCell<Vec<Handle>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// A new stream with `flags` (`cuStreamCreate`, `cuStreamCreateWithPriority`).
///
/// # Safety
///
/// `h` is null or valid for a write of a handle.
unsafe fn new_stream(h: *mut Handle, flags: c_uint) -> CUresult {
    let new = handle();
    check::created(Kind::Stream, new as usize, 0);
    check::stream_flags(new as usize, flags);
    // SAFETY: `h` is null or valid for the write (this function's contract).
    unsafe { out(h, new) };
    CUDA_SUCCESS
}
