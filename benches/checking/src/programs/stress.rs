//! The program `stress`: concurrency in the host-call path, 4 threads with contexts of their own
//! and one shared, submissions with host functions that panic, waited for in reverse order, some as
//! futures; every panic reported exactly once, by a wait of its own context. No row of its own:
//! R10. (Its call count depends on the threads' interleaving, so it differs from run to run.)

use crate::common::{Unwind, context0};
use custack::{Context, Result, Stack};

/// Runs a future to completion on this thread (a waker that unparks it).
fn block_on<F: std::future::IntoFuture>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut f = std::pin::pin!(f.into_future());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// Concurrency in the host-call path: 4 threads, each with a context of its
/// own and all sharing one, make 6 submissions in each, every third with a host function that
/// panics, and wait for them in reverse order, every other one as a future. In a run where no
/// call failed, every panic must be reported exactly once, by a wait of its own context: the
/// counts are compared per own context and in total for the shared one.
pub(crate) fn stress(shared: &Context) -> Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Unwind>() {
            quiet(info);
        }
    }));
    let (shared_raised, shared_reported) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let failed = AtomicUsize::new(0);
    // One context's round: returns (raised, reported) or the first error.
    let round = |ctx: &Context, seed: usize| -> Result<(usize, usize)> {
        let mut stack = Stack::new()?;
        let guard = stack.push(ctx)?;
        let stream = guard.stream()?;
        let (mut raised, mut reported) = (0, 0);
        let mut pending = Vec::new();
        for k in 0..6 {
            let panics = (k + seed).is_multiple_of(3);
            pending.push(stream.submit(vec![k as u32], move |s, _| {
                s.host_fn(move || {
                    if panics {
                        std::panic::panic_any(Unwind);
                    }
                })
            })?);
            raised += usize::from(panics);
        }
        let mut first_error = None;
        let mut note = |r: Result<Vec<u32>>| match r {
            Ok(_) => {}
            Err(e) if e.kind() == custack::ErrorKind::HostFunctionPanicked => reported += 1,
            Err(e) => {
                first_error.get_or_insert(e);
            }
        };
        for (i, submission) in pending.into_iter().rev().enumerate() {
            if i % 2 == 0 {
                note(block_on(submission));
            } else {
                note(submission.wait());
            }
        }
        note(stream.synchronize().map(|()| Vec::new()));
        drop(stream);
        guard.pop()?;
        match first_error {
            Some(e) => Err(e),
            None => Ok((raised, reported)),
        }
    };
    std::thread::scope(|t| {
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let (round, shared) = (&round, shared);
                let (sr, sp, failed) = (&shared_raised, &shared_reported, &failed);
                t.spawn(move || -> Result<()> {
                    let own = context0()?;
                    let r = round(&own, i).and_then(|(raised, reported)| {
                        assert_eq!(raised, reported, "thread {i}: panics raised, reported");
                        let (raised, reported) = round(shared, i)?;
                        sr.fetch_add(raised, SeqCst);
                        sp.fetch_add(reported, SeqCst);
                        Ok(())
                    });
                    drop(own); // its destroy's error, too, is this thread's
                    // Drop errors are logged per thread: a worker hands its own on as its error.
                    let r = match custack::take_drop_errors().into_iter().next() {
                        Some(e) => r.and(Err(e)),
                        None => r,
                    };
                    if r.is_err() {
                        failed.fetch_add(1, SeqCst);
                    }
                    r
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Result<Vec<()>>>()
    })?;
    if failed.load(SeqCst) == 0 {
        // The shared context's reports may land in any thread's wait, but all of them, once.
        assert_eq!(shared_raised.load(SeqCst), shared_reported.load(SeqCst));
    }
    Ok(())
}
