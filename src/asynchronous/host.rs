//! Host functions (`cuLaunchHostFunc`, and `cuStreamAddCallback` for a future's waker, which
//! must run even after a device fault): Rust closures the driver calls, in stream order, on a
//! thread of its own; and the panics they may raise, caught before they reach C.
//!
//! A panic cannot unwind into the driver (that would be undefined behaviour), and the closure
//! runs on no thread the program can join, so the panic is caught, its message kept with the
//! context it was enqueued in, and reported as [`ErrorKind::HostFunctionPanicked`] by the next
//! wait of that context that custack makes: the end of a [`Stream::scope`](crate::Stream::scope),
//! [`Submission::wait`](crate::Submission::wait) or `try_wait`, or [`Stream::synchronize`](crate::Stream::synchronize).
//! Waits pay one relaxed atomic load for this while no panic is pending.
//!
//! The contract, precisely: a panic is reported **once**, by the **first** of those waits
//! that runs in its context after the host function ran, **whichever** submission, scope or
//! stream of the context that wait is for (a [`Submission::wait`](crate::Submission::wait)
//! that reports it drops its own payload, its work being complete); waits in other contexts
//! never see it. This is how CUDA reports a context's asynchronous errors (to the next call
//! that can), and it needs nothing but the context to route the report: attributing it to the
//! enqueuing submission would take a second registry of pending work beside the events that
//! submissions already are. A panic in a host function is a bug in the program, not an
//! outcome to recover from per submission; the report says that it happened and what it said.
//! (`a_host_panic_is_reported_once_by_the_next_wait_of_its_context` in `submission.rs` tests
//! it under Miri's checking driver and on a GPU.) A panic no wait reported before its context's
//! handle ended (a destroy, a release, a reset) is returned by that call, or recorded in the
//! drop log by a drop, and forgotten: a context made later at the same address never sees it
//! (the record is `error::host_panic`'s, which the contexts reach too).

use crate::error::host_panic;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::ffi::c_void;

/// What a host function call carries: the closure and the context it was enqueued in.
struct HostCall<F> {
    f: F,
    ctx: usize,
}

/// Runs a host call's closure, catching a panic and keeping its message with the context.
fn run<F: FnOnce() + Send + 'static>(HostCall { f, ctx }: HostCall<F>) {
    catch(ctx, f);
}

/// Runs `f` where a panic must not unwind (a function the driver calls), catching a panic and
/// keeping its message with context `ctx`, for that context's next wait to report.
pub(crate) fn catch(ctx: usize, f: impl FnOnce()) {
    // Marked as the driver's callback for its whole run: custack makes no CUDA call from it.
    crate::error::callback::run(|| catch_here(ctx, f));
}

/// As [`catch`], for a closure custack runs on the program's own thread (a graph host node's
/// closure dropped when an update replaces it or its executable graph is freed): not marked
/// as the driver's callback, so what it drops is released as anywhere in the program.
pub(crate) fn catch_here(ctx: usize, f: impl FnOnce()) {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    if let Err(payload) = caught {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-string payload".to_owned());
        // Dropping the payload may itself panic; keep that from unwinding into C as well.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(payload)));
        host_panic::record(ctx, message);
    }
}

/// The function `cuLaunchHostFunc` calls.
///
/// # Safety
///
/// `data` must come from `Box::<HostCall<F>>::into_raw` in [`enqueue`], and be passed here once.
unsafe extern "C" fn trampoline<F: FnOnce() + Send + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: a box made by `enqueue`, handed to us once.
    run(*unsafe { Box::from_raw(data.cast::<HostCall<F>>()) });
}

/// The callback `cuStreamAddCallback` calls, whatever the stream's status.
///
/// # Safety
///
/// As [`trampoline`].
unsafe extern "C" fn callback<F: FnOnce() + Send + 'static>(
    _stream: ffi::CUstream,
    _status: ffi::CUresult,
    data: *mut c_void,
) {
    // SAFETY: as in `trampoline`.
    run(*unsafe { Box::from_raw(data.cast::<HostCall<F>>()) });
}

/// When the driver calls an enqueued closure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    /// `cuLaunchHostFunc`: in stream order, and never after a device fault (the closure is
    /// then never run nor dropped: the process's CUDA state is lost anyway).
    InOrder,
    /// `cuStreamAddCallback`: in stream order, and exactly once even after a device fault (a
    /// waker must run then, or a future would never resolve).
    Always,
}

/// Enqueues `f` on `stream`, a live stream of the current context, to be called as `when`
/// says; its panic is caught and reported by the context's next wait.
pub(crate) fn enqueue<F: FnOnce() + Send + 'static>(
    stream: ffi::CUstream,
    when: Call,
    f: F,
) -> Result<()> {
    // Poisoned or forked (R20, R22): refused without the driver, as every enqueue; `f` is
    // dropped here, never called.
    crate::error::poison::check()?;
    // What `f` drops on the driver's thread is left behind there, named with what this finds.
    crate::error::left_behind::prime();
    // A captured host function would be called at every launch of the graph, and its closure
    // can be called once: refuse to be captured.
    let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: a live stream of the current context; valid out-pointer.
    unsafe { ffi::cuStreamIsCapturing(stream, &raw mut status) }.result()?;
    if status != ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
        return Err(
            Error::from_kind(ErrorKind::NotSupported).with_detail(
                "host functions cannot be captured into a graph: a graph may call them many times, a custack host function once (StreamScope::graph_host_fn takes one a graph can call at each launch)",
            ),
        );
    }
    let mut ctx = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe { ffi::cuCtxGetCurrent(&raw mut ctx) }.result()?;
    let data = Box::into_raw(Box::new(HostCall {
        f,
        ctx: ctx as usize,
    }))
    .cast::<c_void>();
    let r = match when {
        // SAFETY: the stream is live and of the current context; `trampoline::<F>` takes
        // exactly the box `data` points to, once (the driver calls a host function at most
        // once).
        Call::InOrder => unsafe { ffi::cuLaunchHostFunc(stream, Some(trampoline::<F>), data) },
        // SAFETY: as above, with `callback::<F>`, which the driver calls exactly once.
        Call::Always => unsafe { ffi::cuStreamAddCallback(stream, Some(callback::<F>), data, 0) },
    }
    .result();
    if r.is_err() {
        // SAFETY: the driver refused the call, so it will never run: the box is still ours.
        drop(unsafe { Box::from_raw(data.cast::<HostCall<F>>()) });
    }
    r
}

/// The first unreported panic of a host function of the current context, as an error.
#[inline]
pub(crate) fn check_panics() -> Result<()> {
    if !host_panic::any() {
        return Ok(());
    }
    take_panic()
}

/// Removes the unreported panics of context `ctx`, returning how many there were (tests only).
#[cfg(test)]
pub(crate) fn take_panics_of(ctx: usize) -> usize {
    host_panic::take_panics_of(ctx)
}

#[cold]
#[inline(never)]
fn take_panic() -> Result<()> {
    let mut ctx = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe { ffi::cuCtxGetCurrent(&raw mut ctx) }.result()?;
    let Some(message) = host_panic::take(ctx as usize) else {
        return Ok(());
    };
    Err(Error::custack(
        ErrorKind::HostFunctionPanicked,
        format!("a host function panicked: {message}"),
    ))
}
