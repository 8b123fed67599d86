//! Submissions awaited on a real executor, tokio: the driver's callback
//! thread calls tokio's waker. Many submissions in flight on a few streams, each awaited in its
//! own future and checked; on the current-thread runtime, in `LocalSet::run_until`, and in the
//! multi-threaded runtime's `block_on` (which runs the future on the calling thread, the one
//! that pushed the context). See also `benches/examples/13_tokio_requests.rs`.
//!
//! Here, in the crate `custack-benches`, so that custack's own tests build without tokio:
//! `cargo test -p custack-benches --test gpu_tokio -- --include-ignored`.
use custack::{Context, ContextFlags, Driver, PushedGuard, Stack, Stream};
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

/// A fresh created context on device 0, as custack's GPU tests make it (tests/common/mod.rs).
/// Fails (so the tests fail, never pass) without a device.
fn context() -> Context {
    let driver = Driver::init().expect("needs a CUDA device: Driver::init failed");
    let device = driver.device(0).expect("needs a CUDA device: no device 0");
    Context::new(device, ContextFlags::empty()).expect("creating a context on device 0")
}

const REQUESTS: u32 = 64;
const N: usize = 1 << 16;

/// Drives every future on this thread until all are done.
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(v) => *output = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// Request `id`: fill a device buffer with `id` on the GPU, copy it into a host vector, await
/// the submission, and return the vector.
async fn request(
    id: u32,
    stream: &Stream<'_>,
    guard: &PushedGuard<'_, '_>,
) -> custack::Result<Vec<u32>> {
    let dev = guard.alloc::<u32>(N)?;
    let submission = stream.submit((dev, vec![0u32; N]), move |s, (mut dev, out)| {
        s.fill_u32(&mut dev, id)?;
        s.copy_to_host(out, &dev)
    })?;
    let (_dev, out) = submission.await?;
    Ok(out)
}

/// Every request at once on four streams; checks each result.
async fn all_requests(guard: &PushedGuard<'_, '_>) {
    let streams: Vec<Stream<'_>> = (0..4).map(|_| guard.stream().unwrap()).collect();
    let results = join_all(
        (0..REQUESTS)
            .map(|id| request(id, &streams[id as usize % streams.len()], guard))
            .collect(),
    )
    .await;
    assert_eq!(results.len(), REQUESTS as usize);
    for (id, out) in (0u32..).zip(results) {
        let out = out.unwrap();
        assert!(out.iter().all(|&x| x == id), "request {id}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn many_submissions_awaited_on_tokios_current_thread_runtime() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(all_requests(&guard));
}

#[test]
#[ignore = "needs a CUDA device"]
fn many_submissions_awaited_in_a_local_set() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let local = tokio::task::LocalSet::new();
    runtime.block_on(local.run_until(all_requests(&guard)));
}

#[test]
#[ignore = "needs a CUDA device"]
fn many_submissions_awaited_in_the_multi_thread_runtimes_block_on() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    runtime.block_on(all_requests(&guard));
}
