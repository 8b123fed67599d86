//! The program `graph_kept_attack` (C28.12, C28.15, C28.16): the reviewer's run-time routes against a
//! kept graph allocation's stream-ordered free and captures forked over several streams, each
//! walked under the checking driver, which reports a relaunch of an executable graph with no
//! order after a pending stream-ordered free of its kept memory, a free during a capture, a
//! leak and a stream left capturing. A scope that panics after `bind_kept` (and a copy) or
//! after `free_kept`: the unwind drops the scoped allocation, enqueuing its free, and the
//! scope's unwind waits, so the relaunch after it is ordered after the free. Executable graphs
//! that keep allocations, each launched and its allocation not taken, as the payloads of a
//! capture forked over two streams: their launch is refused in the origin's scope and in a
//! branch (`NotSupported`, nothing marked made), a branch then panics, and the payloads,
//! dropped after the capture ended, free what their launches made. A branch leaked with
//! `mem::forget` (its fork joins back with no work) and branches run one inside the other with
//! a panic in the inner one: every stream leaves the capture. And the route by which a stream
//! not lent to a capture joined it (an event recorded in the capture, `Stream::wait`), to be
//! parked and attached on another thread reached through `std::thread::scope` inside the
//! capture's closure (C28.16): every event record and wait inside the closure is refused before
//! the driver (`NotSupported`), so the stream, parked and attached there, is an ordinary one, on
//! which an executable graph that keeps allocations launches in a scope whose end synchronizes
//! it, and the capture ends with a graph; the graph launches as usual after the capture.

use crate::common::{N, Unwind, context0, unexpected};
use custack::graph::{Graph, GraphExec};
use custack::{
    Context, DeviceMemory, Error, ErrorKind, EventFlags, ParkedGraph, ParkedStream, PushedGuard,
    Result, Stack, Stream, ffi,
};
use std::cell::RefCell;
use std::rc::Rc;

/// What each launch of `kept_graph` writes into its kept allocation.
const GRAPH_VALUE: u32 = 0x4154_4b21;

/// A graph that allocates memory it keeps (no free node) and fills it with `GRAPH_VALUE`.
fn kept_graph<'g>(guard: &'g PushedGuard<'_, '_>) -> Result<Graph<'g, ()>> {
    guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
        b.fill_u32(&mut x, GRAPH_VALUE, &[made])?;
        Ok(())
    })
}

/// An executable graph of `kept_graph`, launched once, its allocation made and not taken.
fn launched<'g>(guard: &'g PushedGuard<'_, '_>, stream: &Stream<'_>) -> Result<GraphExec<'g, ()>> {
    let exec = kept_graph(guard)?.instantiate()?;
    stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()
}

/// Whether the driver says `stream` is capturing.
fn capturing(stream: &Stream<'_>) -> Result<bool> {
    let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE;
    // SAFETY: a live stream of the current context; a valid out-pointer.
    let r = unsafe { ffi::cuStreamIsCapturing(stream.as_raw(), &raw mut status) };
    if r != ffi::CUresult::CUDA_SUCCESS {
        return Err(Error::from_kind(ErrorKind::Unknown));
    }
    Ok(status != ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}

/// Expects `got` to have failed with `want`; another error is the program's (a call the double
/// failed on purpose), and success is a defect.
fn expect_err<T>(got: Result<T>, want: ErrorKind, what: &str) -> Result<()> {
    match got {
        Err(e) if e.kind() == want => Ok(()),
        Err(e) => Err(e),
        Ok(_) => panic!("{what}"),
    }
}

/// The first error a drop recorded (a capture's end or a free the double failed): the
/// program's. A capture whose end the double refused leaves its stream capturing.
fn recorded() -> Result<()> {
    match custack::take_drop_errors().into_iter().next() {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

/// Expects `caught` to be the unwind of an `Unwind` panic; the closure's own error (a call the
/// double failed before the panic) is the program's, and a return is a defect. Then the first
/// error a drop recorded during the unwind (a free the double failed) is the program's too.
fn unwound<T>(caught: std::thread::Result<Result<Result<T>>>, what: &str) -> Result<()> {
    match caught {
        Ok(r) => {
            r??;
            panic!("{what} returned instead of unwinding");
        }
        Err(payload) if payload.is::<Unwind>() => {}
        Err(payload) => std::panic::resume_unwind(payload),
    }
    recorded()
}

/// A scope that panics after `bind_kept` and a copy, then one that panics after `free_kept`:
/// each free is enqueued by the unwind and waited for by the scope's, so each relaunch after it
/// is ordered after the free (the double reports one that is not), and its memory is the
/// graph's value again.
fn unwinding_frees(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let other = guard.stream()?;
    let mut exec = launched(guard, &stream)?;
    let mut out = vec![0u32; N];
    let x = exec.take_kept::<u32>(0)?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        other.scope(|s| -> Result<()> {
            let x = s.bind_kept(&exec, x)?;
            s.copy_to_host(&mut out, &x)?;
            std::panic::panic_any(Unwind)
        })
    }));
    unwound(caught, "a scope panicking after bind_kept")?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let x = exec.take_kept::<u32>(0)?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        other.scope(|s| -> Result<()> {
            s.free_kept(&exec, x)?;
            std::panic::panic_any(Unwind)
        })
    }));
    unwound(caught, "a scope panicking after free_kept")?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let x = exec.take_kept::<u32>(0)?;
    if x.to_vec()?.len() != N {
        return Err(unexpected("the relaunch's memory"));
    }
    drop(x);
    drop(exec);
    Ok(())
}

/// Executable graphs that keep allocations (launched, the allocation not taken) as a forked
/// capture's payloads: launched inside it, refused in the origin's scope and in a branch; a
/// branch that then panics, or the refusal returned, ends the capture, and the payloads dropped
/// after its end free what their launches made.
fn kept_execs_in_a_forked_capture(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let (stream, a) = (guard.stream()?, guard.stream()?);
    let (ea, eb) = (launched(guard, &stream)?, launched(guard, &stream)?);
    let refused = stream.capture_forks((&a, eb), ea, |s, ga, bb| {
        expect_err(
            s.launch_graph(&ga),
            ErrorKind::NotSupported,
            "a kept graph launched in a capture's scope",
        )?;
        bb.run(|t, gb| t.launch_graph(&gb))
    });
    expect_err(
        refused,
        ErrorKind::NotSupported,
        "a kept graph launched in a branch",
    )?;
    recorded()?;
    for st in [&stream, &a] {
        assert!(!capturing(st)?, "a stream left in a capture");
    }
    let (ea, eb) = (launched(guard, &stream)?, launched(guard, &stream)?);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stream
            .capture_forks((&a, eb), ea, |_s, _ga, bb| {
                bb.run(|t, gb| {
                    expect_err(
                        t.launch_graph(&gb),
                        ErrorKind::NotSupported,
                        "a kept graph launched in a branch",
                    )?;
                    std::panic::panic_any(Unwind)
                })
            })
            .map(Ok)
    }));
    unwound(caught, "a capture whose branch panics")?;
    for st in [&stream, &a] {
        assert!(!capturing(st)?, "a stream left in a capture");
    }
    Ok(())
}

/// A branch leaked with `mem::forget` (its fork joins back with no work: the capture makes a
/// graph of the origin's work), and branches run one inside the other, the inner one
/// panicking: every stream leaves the capture, and each works in a scope afterwards.
fn leaked_and_nested_branches(guard: &PushedGuard<'_, '_>) -> Result<()> {
    let (stream, a, b) = (guard.stream()?, guard.stream()?, guard.stream()?);
    let graph = stream.capture_forks(
        (&a, guard.alloc::<u32>(N)?),
        guard.alloc::<u32>(N)?,
        |s, mut x, ba| {
            s.fill_u32(&mut x, 1)?;
            // The reviewer's route; a `Branch` has no `Drop` (the crate joins its fork back
            // whatever became of it), so leaking it is not running it.
            #[allow(clippy::forget_non_drop, reason = "the route under test")]
            core::mem::forget(ba);
            Ok(())
        },
    );
    recorded()?;
    let exec = graph?.instantiate()?;
    drop(stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stream
            .capture_forks(
                ((&a, guard.alloc::<u32>(N)?), (&b, guard.alloc::<u32>(N)?)),
                (),
                |_s, (), (ba, bb)| {
                    ba.run(|t, mut x| {
                        t.fill_u32(&mut x, 2)?;
                        bb.run(|u, mut y| {
                            u.fill_u32(&mut y, 3)?;
                            std::panic::panic_any(Unwind)
                        })
                    })
                },
            )
            .map(Ok)
    }));
    unwound(caught, "a capture whose inner branch panics")?;
    let mut dev = guard.alloc::<u32>(N)?;
    for st in [&stream, &a, &b] {
        assert!(!capturing(st)?, "a stream left in a capture");
        st.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 4))??;
    }
    Ok(())
}

/// What the capture's closure hands back for the program to release after the capture: the
/// stream and the executable graph, each as the other thread parked it.
type Back = Rc<RefCell<Option<(ParkedStream<'static>, ParkedGraph<'static, ()>)>>>;

/// Expects `got` to be custack's refusal of an event inside a capture's closure (C28.16):
/// `NotSupported` with custack's detail, made before the driver (which the double could have
/// failed on purpose, or answered with success).
fn refused_in_capture(got: Result<()>, what: &str) -> Result<()> {
    match got {
        Err(e)
            if e.kind() == ErrorKind::NotSupported
                && e.detail().is_some_and(|d| d.contains("capture_forks")) =>
        {
            Ok(())
        }
        Err(e) => Err(e),
        Ok(()) => panic!("{what} inside a capture's closure was not refused"),
    }
}

/// On the other thread (no capture mark): the stream, which no event joined to the capture,
/// and the executable graph attached; the stream is not capturing, so the launch in a scope
/// runs, its end synchronizes the stream (the call the real driver answered with
/// `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` when the stream had joined the capture), and the
/// allocation the launch made is taken; both parked again for the capture's thread.
fn on_another_thread(
    ctx: &'static Context,
    stream: ParkedStream<'static>,
    exec: ParkedGraph<'static, ()>,
) -> Result<(ParkedStream<'static>, ParkedGraph<'static, ()>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.attach_stream(stream)?;
    let mut exec = guard.attach_graph(exec)?;
    assert!(
        !capturing(&stream)?,
        "a stream joined another thread's capture"
    );
    stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??;
    let taken = exec.take_kept::<u32>(0)?;
    if taken.to_vec()?.first() != Some(&GRAPH_VALUE) {
        return Err(unexpected("the kept allocation's value"));
    }
    drop(taken);
    let parked = (guard.park_stream(stream), guard.park_graph(exec));
    drop(guard);
    drop(stack);
    // A drop's error on this thread (the pop the double failed) is recorded on this thread.
    recorded()?;
    Ok(parked)
}

/// The route, under a context, stack and guard borrowed for ever (the capture's closure is
/// `'static`, so only values of a leaked guard reach it): inside the capture's closure every
/// way to record or wait for an event (the capture's scope, a stream of the leaked guard, the
/// context-wide record and wait) is refused before the driver, so no stream joins the capture
/// (C28.16); the stream, parked and attached on a thread reached through `std::thread::scope`
/// inside the closure, is an ordinary stream there, and the capture ends with a graph.
fn joined_to_another_thread_s_capture(
    ctx: &'static Context,
    guard: &'static PushedGuard<'static, 'static>,
) -> Result<()> {
    let origin = guard.stream()?;
    let other = guard.stream()?;
    let into = guard.event(EventFlags::DISABLE_TIMING)?;
    // Recorded before the capture: a wait for it inside would join nothing, and is refused
    // all the same (the capture's closure records and waits for no event).
    other.record(&into)?;
    let exec = kept_graph(guard)?.instantiate()?;
    let exec = guard.park_graph(exec);
    let back: Back = Rc::new(RefCell::new(None));
    let handed = Rc::clone(&back);
    let graph = origin.capture(guard.alloc::<u32>(N)?, move |s, mut x| {
        s.fill_u32(&mut x, 1)?;
        refused_in_capture(s.record(&into), "a record on the capture's scope")?;
        refused_in_capture(s.wait(&into), "a wait on the capture's scope")?;
        refused_in_capture(other.record(&into), "Stream::record")?;
        refused_in_capture(other.wait(&into), "Stream::wait")?;
        refused_in_capture(guard.record_event(&into), "PushedGuard::record_event")?;
        refused_in_capture(guard.wait_event(&into), "PushedGuard::wait_event")?;
        let parked = guard.park_stream(other);
        let there = std::thread::scope(|ts| {
            ts.spawn(move || on_another_thread(ctx, parked, exec))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })?;
        let (stream, exec) = there;
        let stream = guard.attach_stream(stream)?;
        assert!(!capturing(&stream)?, "a stream joined the capture");
        *handed.borrow_mut() = Some((guard.park_stream(stream), exec));
        Ok(())
    });
    // Nothing joined the capture, so it ends with a graph (of the fill).
    let graph = graph?;
    drop(graph);
    let Some((stream, exec)) = back.borrow_mut().take() else {
        return Err(unexpected("the capture's closure handed nothing back"));
    };
    let stream = guard.attach_stream(stream)?;
    let mut exec = guard.attach_graph(exec)?;
    // After the capture the graph launches as usual, and its allocation is made and taken.
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    drop(exec.take_kept::<u32>(0)?);
    drop(exec);
    Ok(())
}

/// [`joined_to_another_thread_s_capture`] under a context, stack and guard of its own, leaked
/// for the route and taken back once every borrow of them has ended.
fn with_leaked_guard() -> Result<()> {
    let ctx: *mut Context = Box::into_raw(Box::new(context0()?));
    let ran = (|| {
        let stack: *mut Stack = Box::into_raw(Box::new(Stack::new()?));
        let ran = (|| {
            // SAFETY: `stack` is the box made above, taken back only after this closure.
            let stack: &'static mut Stack = unsafe { &mut *stack };
            // SAFETY: `ctx` is the box made above, taken back only after every borrow ended.
            let ctx: &'static Context = unsafe { &*ctx };
            let guard = Box::into_raw(Box::new(stack.push(ctx)?));
            // SAFETY: `guard` is the box made above, taken back just below, after the route.
            let ran = joined_to_another_thread_s_capture(ctx, unsafe { &*guard });
            // SAFETY: made by `Box::into_raw` above; no borrow of it is left.
            drop(unsafe { Box::from_raw(guard) });
            ran
        })();
        // SAFETY: made by `Box::into_raw` above; the guard that borrowed it is gone.
        drop(unsafe { Box::from_raw(stack) });
        ran
    })();
    // SAFETY: made by `Box::into_raw` above; the guards that borrowed it are gone.
    drop(unsafe { Box::from_raw(ctx) });
    ran
}

/// The program: see the file's documentation.
pub(crate) fn graph_kept_attack(ctx: &Context) -> Result<()> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Unwind>() {
            quiet(info);
        }
    }));
    {
        let mut stack = Stack::new()?;
        let guard = stack.push(ctx)?;
        unwinding_frees(&guard)?;
        kept_execs_in_a_forked_capture(&guard)?;
        leaked_and_nested_branches(&guard)?;
    }
    with_leaked_guard()?;
    recorded()
}
