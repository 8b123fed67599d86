//! A reviewer's routes against a capture and a kept graph allocation, on a real device (C28.16,
//! C28.9): a stream not lent to a capture joining it (an event recorded in the capture, then
//! `Stream::wait`), to be parked and attached on another thread reached through
//! `std::thread::scope` inside the capture's closure, where the thread's capture mark is clear:
//! every event record and wait inside the closure is refused before the driver, so the stream
//! is an ordinary one on the other thread (a kept graph launches there in a scope whose end
//! synchronizes it, which the driver answered with `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`
//! when the stream had joined), and the capture ends with its graph. And an upload
//! (`GraphExec::upload`, `&self`, so callable while a taken buffer borrows the executable graph
//! and while a scope that frees it in stream order does) leaves the memory the program's: it
//! makes nothing again under the buffer, nor under a copy enqueued before the free. Each fails
//! without a device. The first route under the checking driver: program `graph_kept_attack`.

mod common;
use common::context;
use custack::graph::Graph;
use custack::{
    Context, DeviceMemory, DeviceMemoryMut, ErrorKind, EventFlags, ParkedGraph, ParkedStream,
    PushedGuard, Stack,
};

const N: usize = 1 << 16;

/// A graph that allocates memory it keeps (no free node) and fills it.
fn kept_graph<'g>(guard: &'g PushedGuard<'_, '_>) -> custack::Result<Graph<'g, ()>> {
    guard.build_graph((), |b, ()| {
        let (made, mut x) = b.alloc_kept::<u32>(N, &[])?;
        b.fill_u32(&mut x, 7, &[made])?;
        Ok(())
    })
}

/// Whether the driver says `stream` is capturing.
fn capturing(stream: &custack::Stream<'_>) -> bool {
    let mut status = custack::ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE;
    // SAFETY: a live stream of the current context; a valid out-pointer.
    let r = unsafe { custack::ffi::cuStreamIsCapturing(stream.as_raw(), &raw mut status) };
    assert_eq!(r, custack::ffi::CUresult::CUDA_SUCCESS);
    status != custack::ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
}

/// Asserts custack's refusal of an event inside a capture's closure, made before the driver (a
/// driver error has no such detail).
fn assert_refused(got: custack::Result<()>, what: &str) {
    let e = got.expect_err(what);
    assert_eq!(e.kind(), ErrorKind::NotSupported, "{what}: {e:?}");
    assert!(
        e.detail().is_some_and(|d| d.contains("capture_forks")),
        "{what}: {e:?}"
    );
}

/// On the other thread: the stream (which no event joined to the capture) and the executable
/// graph attached; the stream is not capturing, so the graph launches in a scope, whose end
/// synchronizes the stream (the call the driver refused when the stream had joined the
/// capture), all while the capture is live (`launched` tells the capturing thread so); then,
/// once the capture has ended (`ended`), the allocation it made is taken and read. Not before:
/// a synchronous copy runs on the legacy stream, which the driver refuses while a blocking
/// stream of the context captures (`CUDA_ERROR_STREAM_CAPTURE_IMPLICIT`, measured on the H100).
fn launch_on_another_thread(
    ctx: &'static Context,
    stream: ParkedStream<'static>,
    exec: ParkedGraph<'static, ()>,
    launched: &std::sync::mpsc::Sender<()>,
    ended: &std::sync::mpsc::Receiver<()>,
) {
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(ctx).unwrap();
    let stream = guard.attach_stream(stream).unwrap();
    let mut exec = guard.attach_graph(exec).unwrap();
    assert!(
        !capturing(&stream),
        "a stream joined another thread's capture"
    );
    stream
        .scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))
        .unwrap()
        .unwrap();
    launched.send(()).unwrap();
    ended.recv().unwrap();
    assert_eq!(exec.take_kept::<u32>(0).unwrap().to_vec().unwrap()[0], 7);
}

#[test]
#[ignore = "needs a CUDA device"]
fn no_event_route_joins_a_stream_to_a_capture_and_the_stream_runs_on_another_thread() {
    // The capture's closure is `'static`: the route needs a guard borrowed for ever (leaked).
    let ctx: &'static Context = Box::leak(Box::new(context()));
    let stack: &'static mut Stack = Box::leak(Box::new(Stack::new().unwrap()));
    let guard: &'static PushedGuard<'static, 'static> =
        Box::leak(Box::new(stack.push(ctx).unwrap()));
    let origin = guard.stream().unwrap();
    let other = guard.stream().unwrap();
    let into = guard.event(EventFlags::DISABLE_TIMING).unwrap();
    other.record(&into).unwrap();
    let exec = guard.park_graph(kept_graph(guard).unwrap().instantiate().unwrap());
    let payload = guard.alloc::<u32>(N).unwrap();
    let (launched, has_launched) = std::sync::mpsc::channel::<()>();
    let (end, ended) = std::sync::mpsc::channel::<()>();
    let handle = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = std::sync::Arc::clone(&handle);
    let captured = origin.capture(payload, move |s, mut x| {
        s.fill_u32(&mut x, 1)?;
        // Every record and wait of an event inside the closure, refused before the driver
        // (C28.16): none leaves an event of the capture for another stream to join it by.
        assert_refused(s.record(&into), "StreamScope::record");
        assert_refused(s.wait(&into), "StreamScope::wait");
        assert_refused(other.record(&into), "Stream::record");
        assert_refused(other.wait(&into), "Stream::wait");
        assert_refused(guard.record_event(&into), "PushedGuard::record_event");
        assert_refused(guard.wait_event(&into), "PushedGuard::wait_event");
        let parked = guard.park_stream(other);
        *slot.lock().unwrap() = Some(std::thread::spawn(move || {
            launch_on_another_thread(ctx, parked, exec, &launched, &ended);
        }));
        // The other thread's launch and synchronize happen while this capture is live.
        has_launched.recv().unwrap();
        Ok(())
    });
    // Nothing joined the capture and nothing invalidated it: it ends with the fill's graph.
    let graph = captured.unwrap();
    end.send(()).unwrap();
    let other_thread = handle.lock().unwrap().take().unwrap();
    other_thread.join().unwrap();
    assert!(custack::take_drop_errors().is_empty());
    drop(graph);
    origin.synchronize().unwrap();
}

/// The program's values, unlike the graph's fill anywhere.
fn pattern() -> Vec<u32> {
    (0..N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) | 1)
        .collect()
}

#[test]
#[ignore = "needs a CUDA device"]
fn an_upload_while_a_taken_kept_allocation_lives_or_is_being_freed_leaves_it_the_program_s() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (stream, other) = (guard.stream().unwrap(), guard.stream().unwrap());
    let mut exec = kept_graph(&guard).unwrap().instantiate().unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    let mut x = exec.take_kept::<u32>(0).unwrap();
    x.copy_from_host(&pattern()).unwrap();
    // `upload` takes `&mut self`: refused at compile time while the buffer borrows the
    // executable graph, and while a scope frees it in stream order
    // (`ui-tests/c28_kept_exec_uploaded_while_its_allocation_is_freed.rs`). Parked, the buffer
    // borrows only the context, and the memory is still taken: whatever the driver answers to
    // an upload then (it may refuse while the allocation is unfreed), the memory stays the
    // buffer's, with the program's values.
    let parked = guard.park(x);
    let _ = exec.upload(&other);
    other.synchronize().unwrap();
    let x = guard.attach(parked).unwrap();
    assert_eq!(
        x.to_vec().unwrap(),
        pattern(),
        "an upload changed a taken buffer"
    );
    // Freed by a scope in stream order after a copy out; the upload waits for the scope's end.
    let mut out = vec![0u32; N];
    stream
        .scope(|s| {
            let x = s.bind_kept(&exec, x)?;
            s.copy_to_host(&mut out, &x)?;
            x.free()
        })
        .unwrap()
        .unwrap();
    let _ = exec.upload(&other);
    other.synchronize().unwrap();
    other.synchronize().unwrap();
    assert_eq!(
        out,
        pattern(),
        "an upload changed memory a pending copy read"
    );
    // Freed: the graph launches again and makes its own values.
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(
        exec.take_kept::<u32>(0).unwrap().to_vec().unwrap(),
        vec![7; N]
    );
}
