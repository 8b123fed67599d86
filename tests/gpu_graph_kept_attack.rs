//! A reviewer's route against a kept graph allocation, on a real device (C28.9): a stream joined
//! to a capture (an event recorded in it, `Stream::wait`) parked and attached on another thread,
//! reached through `std::thread::scope` inside the capture's closure, where the thread's capture
//! mark is clear; an executable graph that keeps allocations, parked and attached there too and
//! launched on that stream, is refused by custack (`NotSupported`: the stream says it captures)
//! before the driver, so the launch, which would be a node of the capture and make nothing,
//! marks nothing made and no take hands out memory no launch allocated. And an upload
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

/// On the other thread: the joined stream and the executable graph attached, the launch
/// submitted on the stream. Its error (the refusal), with the submission's drop errors.
fn launch_on_another_thread(
    ctx: &'static Context,
    stream: ParkedStream<'static>,
    exec: ParkedGraph<'static, ()>,
) -> custack::Error {
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(ctx).unwrap();
    let stream = guard.attach_stream(stream).unwrap();
    let exec = guard.attach_graph(exec).unwrap();
    // A submission, not a scope: the scope's end would synchronize a capturing stream. The
    // refused submission leaks the executable graph (its wait on the capturing stream fails).
    let submitted = stream.submit(exec, |s, g| s.launch_graph(&g));
    let refused = match submitted {
        Err(e) => e,
        Ok(pending) => {
            core::mem::forget(pending);
            panic!("a kept graph launched on a stream joined to another thread's capture");
        }
    };
    drop(custack::take_drop_errors());
    refused
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kept_graph_launched_on_a_stream_joined_to_another_thread_s_capture_is_refused() {
    // The capture's closure is `'static`: the route needs a guard borrowed for ever (leaked).
    let ctx: &'static Context = Box::leak(Box::new(context()));
    let stack: &'static mut Stack = Box::leak(Box::new(Stack::new().unwrap()));
    let guard: &'static PushedGuard<'static, 'static> =
        Box::leak(Box::new(stack.push(ctx).unwrap()));
    let origin = guard.stream().unwrap();
    let joined = guard.stream().unwrap();
    let into = guard.event(EventFlags::DISABLE_TIMING).unwrap();
    let exec = guard.park_graph(kept_graph(guard).unwrap().instantiate().unwrap());
    let captured = origin.capture((), move |s, ()| {
        s.record(&into)?;
        joined.wait(&into)?; // `joined` is in the capture now
        let parked = guard.park_stream(joined);
        let refused = std::thread::scope(|ts| {
            ts.spawn(move || launch_on_another_thread(ctx, parked, exec))
                .join()
                .unwrap()
        });
        // custack's refusal, before the driver (a driver error has no such detail).
        assert_eq!(refused.kind(), ErrorKind::NotSupported, "{refused:?}");
        assert!(
            refused
                .detail()
                .is_some_and(|d| d.contains("stream that captures")),
            "{refused:?}"
        );
        Ok(())
    });
    // The joined stream never joined back (or its wait invalidated the capture): no graph.
    assert!(captured.is_err());
    drop(custack::take_drop_errors());
    // The origin stream is out of capture mode and works.
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
    // `upload` takes `&self`: allowed while the buffer borrows the executable graph. Whatever the
    // driver answers (it may refuse while the allocation is unfreed), the memory stays the
    // buffer's, with the program's values.
    let _ = exec.upload(&other);
    other.synchronize().unwrap();
    assert_eq!(
        x.to_vec().unwrap(),
        pattern(),
        "an upload changed a taken buffer"
    );
    // Again while a scope frees it in stream order after a copy out: the scope borrows the
    // executable graph shared, so an upload on another stream can be asked for meanwhile.
    let mut out = vec![0u32; N];
    stream
        .scope(|s| {
            let x = s.bind_kept(&exec, x)?;
            s.copy_to_host(&mut out, &x)?;
            let _ = exec.upload(&other);
            x.free()
        })
        .unwrap()
        .unwrap();
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
