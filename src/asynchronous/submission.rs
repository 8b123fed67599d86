//! Owned submissions: asynchronous work whose memory is moved in, so its lifetime may overlap
//! other work without nesting.
//!
//! [`Stream::submit`] moves a [`Payload`] (device buffers, page-locked buffers, host vectors,
//! kernel functions, tuples of them) into a [`Submission`], enqueues work on it through the same
//! [`StreamScope`] a [`Stream::scope`] uses, and records one event. The submission owns the
//! payload while the GPU may use it and hands it back from [`Submission::wait`] (or
//! [`try_wait`](Submission::try_wait)); nothing else can reach it meanwhile (C16). A submission
//! on another stream takes a pending one over with [`Stream::submit_after`]: its stream waits for
//! the first one's event on the GPU, and the joint submission owns both payloads until all of its
//! work is done (C17).
//!
//! Nothing is counted or tracked at run time: the borrow checker does the bookkeeping, and each
//! submission costs one event record (and, for a first submission, one event).

use crate::asynchronous::stream::Stream;
use crate::deadline::{Abandon, Deadline, TimedOut, passed};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use core::future::{Future, IntoFuture};
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::pin::Pin;
use core::sync::atomic::{AtomicBool, Ordering};
use core::task::{Context as TaskContext, Poll, Waker};
use std::sync::{Arc, Mutex, PoisonError};

use super::payload::{AsPayload, Payload};
use super::pending::{Current, Pending, destroy_event};
use super::scope::StreamScope;
use crate::error::left_behind::{Object, left_behind};

/// Work enqueued on a stream that owns its [`Payload`] until the GPU is done with it.
///
/// Made by [`Stream::submit`] or [`Stream::submit_after`]. It borrows its stream (and so the
/// guard that lent it): it cannot outlive either, be used while another context is pushed on
/// top, or leave its thread (`!Send`, `!Sync`). To keep it pending across a nested push of
/// another context, park it ([`PushedGuard::park_submission`](crate::PushedGuard::park_submission),
/// [`guide::in_flight`](crate::guide::in_flight)). Its payload is out of the host's reach until
/// it is handed back:
///
/// - [`wait`](Self::wait): `cuEventSynchronize` on the submission's event, then the payload;
/// - [`try_wait`](Self::try_wait), [`is_complete`](Self::is_complete): `cuEventQuery`;
/// - dropping it waits, then drops the payload (never freeing memory under the GPU);
/// - leaking it (`mem::forget`) leaks the payload: it is never freed or handed back, which is
///   sound (R11). A leaked function's module may still be unloaded, but [`Module`](crate::Module)
///   synchronizes its context before unloading.
///
/// When a wait fails (a sticky error of the context, say), the payload is not handed back or
/// freed: custack cannot tell whether the GPU still uses it, so it is leaked (device and
/// page-locked memory go with the context).
///
/// # Examples
///
/// Chunk *i*'s upload on one stream overlaps chunk *i − 1*'s kernel and download on another;
/// each chunk's buffers come back as soon as its own work is done:
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
/// # fn consume(_: &[u32]) {}
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
/// let add = module.function("add_u32")?;
/// let (copy, compute) = (guard.stream()?, guard.stream()?);
/// const N: usize = 1 << 20;
/// let mut pending = std::collections::VecDeque::new();
/// for chunk in 0..8u32 {
///     let mut host = guard.alloc_pinned::<u32>(N)?;
///     host.fill(chunk);
///     let dev = guard.alloc::<u32>(N)?;
///     let upload = copy.submit((host, dev), |s, (host, mut dev)| {
///         s.copy_to_device(&mut dev, host)
///     })?;
///     // The compute stream waits for the upload on the GPU and takes its payload over.
///     let done = compute.submit_after(upload, add, |s, ((host, mut dev), add)| {
///         // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
///         unsafe { s.launch(&add, LaunchConfig::for_elements(N as u32), (&mut dev, 1u32, N as u32)) }?;
///         s.copy_to_host(host, &dev)
///     })?;
///     pending.push_back(done);
///     if pending.len() == 2 {
///         let ((host, _dev), _add) = pending.pop_front().unwrap().wait()?;
///         consume(&host);
///     }
/// }
/// for done in pending {
///     let ((host, _dev), _add) = done.wait()?;
///     consume(&host);
/// }
/// # Ok::<(), custack::Error>(())
/// ```
#[must_use = "dropping a submission waits for it at once; keep it, and `wait` for its payload"]
#[doc(alias = "cuEventRecord")]
#[doc(alias = "cuEventSynchronize")]
pub struct Submission<'s, P: Payload> {
    // The event and the payload: its context is current (the submission borrows its guard).
    pending: Pending<AsPayload<P>, Current>,
    // The stream that recorded the event (for `IntoFuture`'s host function).
    stream: ffi::CUstream,
    // Borrows the stream (and through it the guard); the guard's thread only.
    _stream: PhantomData<(&'s (), *const ())>,
}

impl<P: Payload> core::fmt::Debug for Submission<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Submission")
            .field("event", &self.pending.raw_event())
            .field("stream", &self.stream)
            .finish_non_exhaustive()
    }
}

static_assertions::assert_not_impl_any!(Submission<'static, Vec<u8>>: Send, Sync);

/// A submission whose work may be partly enqueued: on an error or a panic before it is
/// complete, waits for the stream, then drops the payload (or leaks it if the wait failed), and
/// destroys the event. `H` is the payload in its held form.
struct Enqueuing<P: Payload> {
    stream: ffi::CUstream,
    event: ffi::CUevent,
    payload: ManuallyDrop<P::Held>,
}

impl<P: Payload> Drop for Enqueuing<P> {
    fn drop(&mut self) {
        let waited = match crate::error::poison::check() {
            // SAFETY: the stream is live and of the current context (borrowed by `submit`).
            Ok(()) => unsafe { ffi::cuStreamSynchronize(self.stream) }.result(),
            Err(poisoned) => Err(poisoned),
        };
        match waited {
            // SAFETY: the payload is dropped once; the stream's work, all of which may use it,
            // is complete.
            Ok(()) => unsafe { ManuallyDrop::drop(&mut self.payload) },
            Err(e) => {
                // The work may still use the payload: it is leaked, never freed.
                // SAFETY: the payload (`ManuallyDrop`) is not dropped on this path, nor after.
                unsafe { P::left_behind(&self.payload) };
                record_drop_error(e);
            }
        }
        if !destroy_event(self.event) {
            left_behind(Object::Event, self.event as u64);
        }
    }
}

impl Stream<'_> {
    /// Moves `payload` into a submission on this stream, enqueues the work `f` does with it,
    /// and records the submission's event (`cuEventCreate`, `cuEventRecord`).
    ///
    /// `f` enqueues through a [`StreamScope`] exactly as in [`scope`](Self::scope) and receives
    /// the payload [bound](Payload::Bound) to that scope. It can reach nothing else: the scope's
    /// environment is `'static`, so memory and functions that the submission does not own are
    /// rejected by the compiler (a submission may outlive any borrow, even leaked).
    ///
    /// # Errors
    ///
    /// The event's creation or recording, or `f`'s error. Then the submission is not made: the
    /// stream is synchronized (everything `f` enqueued is complete) and the payload dropped.
    /// `CUDA_ERROR_NOT_SUPPORTED` inside a [capture](Self::capture)'s closure (which reaches a
    /// stream only through a leaked guard), before anything is enqueued: the work would be
    /// captured, not run.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let dev = guard.alloc::<u32>(1024)?;
    /// let pending = stream.submit((dev, vec![0u32; 1024]), |s, (mut dev, host)| {
    ///     s.fill_bytes(&mut dev, 1)?;
    ///     s.copy_to_host(host, &dev)
    /// })?;
    /// // ... the host does other work; `dev` and the vector are out of its reach ...
    /// let (_dev, host) = pending.wait()?;
    /// assert!(host.iter().all(|&x| x == 0x0101_0101));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventRecord")]
    #[inline]
    #[track_caller]
    pub fn submit<P: Payload>(
        &self,
        payload: P,
        f: impl for<'scope> FnOnce(&'scope StreamScope<'scope, 'static>, P::Bound<'scope>) -> Result<()>,
    ) -> Result<Submission<'_, P>> {
        super::refuse_inside_capture("a submission")?;
        crate::error::poison::check()?;
        let mut event = core::ptr::null_mut();
        let flags = ffi::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 as core::ffi::c_uint;
        // SAFETY: valid out-pointer; the stream's context is current. Nothing is enqueued yet,
        // so on failure the payload simply drops.
        unsafe { ffi::cuEventCreate(&raw mut event, flags) }.result()?;
        self.enqueue(event, payload.hold(), f)
    }

    /// Takes a pending submission (of any stream of this context) over: makes this stream wait
    /// for its event on the GPU (`cuStreamWaitEvent`, no host round trip), then enqueues `f`
    /// with both payloads, and records the joint submission's event (`cuEventRecord`, reusing
    /// the first submission's event).
    ///
    /// The joint submission owns `(pending's payload, payload)` until all of its work is done:
    /// `pending`'s memory cannot be handed back to the host, freed or reused while work on
    /// this stream may still use it (C17).
    ///
    /// # Errors
    ///
    /// As [`submit`](Self::submit); an error of the wait itself. On an error the joint
    /// submission is not made: this stream is synchronized, which covers `pending`'s work too
    /// once the wait was enqueued (otherwise `pending` is waited for), and both payloads drop.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::LaunchConfig;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let add = module.function("add_u32")?;
    /// let (copy, compute) = (guard.stream()?, guard.stream()?);
    /// let mut host = guard.alloc_pinned::<u32>(1024)?;
    /// host.fill(41);
    /// let dev = guard.alloc::<u32>(1024)?;
    /// let upload = copy.submit((host, dev), |s, (host, mut dev)| s.copy_to_device(&mut dev, host))?;
    /// // `compute` waits for the upload on the GPU and takes its payload over.
    /// let done = compute.submit_after(upload, add, |s, ((host, mut dev), add)| {
    ///     // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
    ///     unsafe { s.launch(&add, LaunchConfig::for_elements(1024), (&mut dev, 1u32, 1024u32)) }?;
    ///     s.copy_to_host(host, &dev)
    /// })?;
    /// let ((host, _dev), _add) = done.wait()?;
    /// assert!(host.iter().all(|&x| x == 42));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamWaitEvent")]
    #[inline]
    #[track_caller]
    pub fn submit_after<'s, Q: Payload, P: Payload>(
        &'s self,
        pending: Submission<'s, Q>,
        payload: P,
        f: impl for<'scope> FnOnce(
            &'scope StreamScope<'scope, 'static>,
            (Q::Bound<'scope>, P::Bound<'scope>),
        ) -> Result<()>,
    ) -> Result<Submission<'s, (Q, P)>> {
        super::refuse_inside_capture("a submission")?;
        crate::error::poison::check()?;
        // SAFETY: both handles are live and of the current context; the flags must be 0.
        let waited =
            unsafe { ffi::cuStreamWaitEvent(self.as_raw(), pending.event_raw(), 0) }.result();
        // On failure, dropping `pending` waits for it before its payload is dropped.
        waited?;
        let (event, earlier) = pending.into_parts();
        // From here `event` may be recorded again: a stream's wait refers to the record that
        // preceded it (cuStreamWaitEvent). `earlier`'s work is ordered before this stream's.
        // `earlier` stays in its held form: it is not released (a `Box` made again) while the
        // work bound to it may still run.
        self.enqueue::<(Q, P)>(event, (earlier, payload.hold()), |s, (q, p)| f(s, (q, p)))
    }

    fn enqueue<P: Payload>(
        &self,
        event: ffi::CUevent,
        payload: P::Held,
        f: impl for<'scope> FnOnce(&'scope StreamScope<'scope, 'static>, P::Bound<'scope>) -> Result<()>,
    ) -> Result<Submission<'_, P>> {
        let mut work = Enqueuing::<P> {
            stream: self.as_raw(),
            event,
            payload: ManuallyDrop::new(payload),
        };
        // SAFETY: the stream is live and of the current context for as long as `self` is
        // borrowed. The payload is owned by `work` and then by the submission, which hand it
        // back only after the stream, or the event recorded after the scope's work, completes.
        let scope = unsafe { StreamScope::of(self) };
        // SAFETY: the payload stays where its memory is (a `Payload` moves without moving the
        // memory it names) and out of reach until then; the bound handles are branded with the
        // scope, which `f` cannot let escape.
        let bound = unsafe { P::bind(&mut work.payload) };
        f(&scope, bound)?;
        // Poisoned or forked while `f` ran (R20, R22): no record; `work`'s drop leaks the
        // payload, which the work may still use.
        crate::error::poison::check()?;
        // SAFETY: both handles are live and of the current context.
        unsafe { ffi::cuEventRecord(work.event, work.stream) }.result()?;
        let work = ManuallyDrop::new(work);
        // SAFETY: read once from `work`, which is never dropped.
        let payload = unsafe { core::ptr::read(&raw const work.payload) };
        // SAFETY: the event, of the current context, was recorded after all the work that uses
        // the payload (enqueued by `f`).
        let pending =
            unsafe { Pending::new(work.event, Current, ManuallyDrop::into_inner(payload)) };
        Ok(Submission {
            pending,
            stream: work.stream,
            _stream: PhantomData,
        })
    }
}

impl<P: Payload> Submission<'_, P> {
    /// The raw `CUevent` recorded after the submission's work.
    pub fn event_raw(&self) -> ffi::CUevent {
        self.pending.raw_event()
    }

    /// `cuEventSynchronize`—Waits until the submission's work is complete and hands its
    /// payload back.
    ///
    /// # Errors
    ///
    /// The first error of the work, or a sticky error of the context: the payload is then
    /// leaked, never handed back (see [`Submission`]).
    /// [`ErrorKind::HostFunctionPanicked`](crate::ErrorKind::HostFunctionPanicked) if a
    /// [host function](StreamScope::host_fn) of this context panicked: the work is complete,
    /// and the payload is dropped.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventSynchronize")]
    #[inline]
    #[track_caller]
    pub fn wait(self) -> Result<P> {
        self.pending.wait().map(P::release)
    }

    /// `cuEventQuery` until the work is complete or `deadline` passes—The payload, or past
    /// the deadline the submission back, its payload still out of reach
    /// ([R19](crate::Deadline)).
    ///
    /// The first query answers at once for complete work (the cost of [`wait`](Self::wait));
    /// then it polls with a backoff ([`deadline`](crate::Deadline)).
    ///
    /// # Errors
    ///
    /// As [`wait`](Self::wait). Past the deadline, `Ok(Err(late))`: `late.error()` is
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) naming this call
    /// site, and `late.into_pending()` the submission, to wait for again or keep;
    /// `late.abandon()` gives it up (its payload leaked, never freed).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::{Deadline, DeviceMemory};
    /// use std::time::Duration;
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let pending = stream.submit(guard.alloc::<u32>(1024)?, |s, mut d| s.fill_u32(&mut d, 7))?;
    /// let dev = match pending.wait_by(Deadline::after(Duration::from_millis(50)))? {
    ///     Ok(dev) => dev,
    ///     Err(late) => return Err(late.abandon()), // never freed: the GPU may still write it
    /// };
    /// assert_eq!(dev.to_vec()?, vec![7; 1024]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[track_caller]
    #[inline]
    pub fn wait_by(self, deadline: Deadline) -> Result<core::result::Result<P, TimedOut<Self>>> {
        let site = core::panic::Location::caller();
        let Self {
            pending, stream, ..
        } = self;
        Ok(match pending.wait_by(deadline)? {
            Ok(held) => Ok(P::release(held)),
            Err((pending, waited)) => Err(TimedOut::new(
                Self {
                    pending,
                    stream,
                    _stream: PhantomData,
                },
                passed(format_args!("the submission waited for at {site}"), waited),
            )),
        })
    }

    /// `cuEventQuery`—The payload if the work is complete, or the submission back if not.
    ///
    /// # Errors
    ///
    /// As [`wait`](Self::wait).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[inline]
    #[track_caller]
    pub fn try_wait(self) -> Result<core::result::Result<P, Self>> {
        let Self {
            pending, stream, ..
        } = self;
        Ok(match pending.try_wait()? {
            Ok(held) => Ok(P::release(held)),
            Err(pending) => Err(Self {
                pending,
                stream,
                _stream: PhantomData,
            }),
        })
    }

    /// `cuEventQuery`—Whether the submission's work is complete.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[inline]
    #[track_caller]
    pub fn is_complete(&self) -> Result<bool> {
        self.pending.is_complete()
    }

    /// The event and the payload in its held form, without waiting.
    #[inline]
    pub(crate) fn into_parts(self) -> (ffi::CUevent, P::Held) {
        self.pending.into_parts()
    }
}

impl<P: Payload> Abandon for Submission<'_, P> {
    /// Gives up on the submission without waiting: its event is destroyed, its payload leaked
    /// (never freed or handed back; named to the checking driver as left behind).
    fn abandon(self) {
        self.pending.abandon();
    }
}

/// What a submission's future and its host function share.
#[derive(Debug, Default)]
struct Wakeup {
    done: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

/// A [`Submission`] as a [`Future`]: resolves to [`Submission::wait`]'s result, woken by a
/// host function the driver calls once the work is complete (no polling of the GPU). Made by
/// `.await` on a submission ([`IntoFuture`]); `!Send`, like the submission, so it runs on an
/// executor on the guard's thread (a local executor or `block_on`), from any async runtime or
/// none.
///
/// Dropping it before it resolves drops the submission, which waits.
///
/// # Examples
///
/// No runtime needed: a ten-line `block_on` drives it.
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, Stack};
/// use std::future::Future;
/// use std::sync::Arc;
/// use std::task::{Context as TaskContext, Poll, Wake, Waker};
///
/// struct Unpark(std::thread::Thread);
/// impl Wake for Unpark {
///     fn wake(self: Arc<Self>) { self.0.unpark() }
/// }
/// fn block_on<F: Future>(f: F) -> F::Output {
///     let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
///     let mut f = std::pin::pin!(f);
///     loop {
///         match f.as_mut().poll(&mut TaskContext::from_waker(&waker)) {
///             Poll::Ready(v) => return v,
///             Poll::Pending => std::thread::park(),
///         }
///     }
/// }
///
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let stream = guard.stream()?;
/// let pending = stream.submit((guard.alloc::<u32>(1024)?, vec![0u32; 1024]), |s, (mut d, h)| {
///     s.fill_bytes(&mut d, 0)?;
///     s.copy_to_host(h, &d)
/// })?;
/// let (_dev, host) = block_on(async { pending.await })?;
/// assert!(host.iter().all(|&x| x == 0));
/// # Ok::<(), custack::Error>(())
/// ```
#[must_use = "futures do nothing unless polled; dropping it waits for the submission"]
#[derive(Debug)]
pub struct SubmissionFuture<'s, P: Payload> {
    submission: Option<Submission<'s, P>>,
    // `None` when the host function could not be enqueued: then the first poll waits.
    wakeup: Option<Arc<Wakeup>>,
}

impl<'s, P: Payload> IntoFuture for Submission<'s, P> {
    type Output = Result<P>;
    type IntoFuture = SubmissionFuture<'s, P>;

    /// `cuStreamAddCallback`—Enqueues, on the stream that recorded the submission's event, a
    /// callback that wakes the future. The driver calls it exactly once, also after a device
    /// fault (a `cuLaunchHostFunc` function would not run then, and the future would never
    /// resolve). Should enqueuing fail, the future waits (blocking) when first polled, and
    /// reports the failure only if the wait fails too.
    ///
    /// The executor's waker is called on the driver's callback thread: it must neither call
    /// CUDA nor block on GPU work (the driver forbids both in callbacks); unparking a thread or
    /// queueing a task, as executors' wakers do, is fine.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamAddCallback")]
    fn into_future(self) -> SubmissionFuture<'s, P> {
        let wakeup = Arc::new(Wakeup::default());
        let shared = Arc::clone(&wakeup);
        let woken = super::host::enqueue(self.stream, super::host::Call::Always, move || {
            shared.done.store(true, Ordering::Release);
            let waker = shared
                .waker
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(waker) = waker {
                waker.wake();
            }
        });
        let wakeup = match woken {
            Ok(()) => Some(wakeup),
            // The future still resolves (its first poll waits, blocking); the error goes where
            // errors nothing can return go, so it is not lost (found by the checking driver's
            // `stress` program).
            Err(e) => {
                crate::error::record_drop_error(e);
                None
            }
        };
        SubmissionFuture {
            submission: Some(self),
            wakeup,
        }
    }
}

// Nothing in the future is ever pinned: `poll` only moves the submission out by value.
impl<P: Payload> Unpin for SubmissionFuture<'_, P> {}

impl<P: Payload> Future for SubmissionFuture<'_, P> {
    type Output = Result<P>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<P>> {
        let this = self.get_mut();
        if let Some(wakeup) = &this.wakeup {
            if !wakeup.done.load(Ordering::Acquire) {
                let mut slot = wakeup.waker.lock().unwrap_or_else(PoisonError::into_inner);
                // Checked again under the lock: the host function may have run meanwhile.
                if !wakeup.done.load(Ordering::Acquire) {
                    *slot = Some(cx.waker().clone());
                    return Poll::Pending;
                }
            }
        }
        match this.submission.take() {
            // The host function ran after the event's record, so the event is complete and
            // `wait` returns at once (it blocks only if the host function could not be enqueued).
            Some(submission) => Poll::Ready(submission.wait()),
            None => Poll::Ready(Err(Error::custack(
                ErrorKind::OutOfRange,
                "a SubmissionFuture was polled after it returned its payload",
            ))),
        }
    }
}

// Regression tests for pointers that enqueued work keeps into a payload's host memory: they
// must stay valid when the host reborrows the payload before that work completes (a joint
// submission's bind, `GraphExec::payload_mut` between launches). Miri found both through the
// checking driver (`scripts/miri.sh`), which makes a copy's host access when the copy
// completes; on a GPU they run as ordinary tests with `--include-ignored`.
#[cfg(test)]
mod tests {
    use crate::context::Context;
    use crate::context::ContextFlags;
    use crate::context::stack::Stack;
    use crate::driver::Driver;
    use crate::error::Result;
    use crate::memory::DeviceMemory;

    fn context() -> Result<Context> {
        // Under Miri the driver is the checking double (linked in by `src/lib.rs`).
        #[cfg(miri)]
        checkdriver::start_checking(0, 0);
        Context::new(Driver::init()?.device(0)?, ContextFlags::empty())
    }

    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn a_joint_submission_rebinds_a_payload_its_first_part_still_reads() -> Result<()> {
        let ctx = context()?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let (one, two) = (guard.stream()?, guard.stream()?);
        let mut pinned = guard.alloc_pinned::<u32>(16)?;
        pinned.fill(7);
        let dev = guard.alloc::<u32>(16)?;
        let first = one.submit((pinned, dev), |s, (pinned, mut dev)| {
            s.copy_to_device(&mut dev, pinned)
        })?;
        // Binds `pinned` again while the first copy may still read it.
        let joint = two.submit_after(first, vec![0u32; 16], |s, ((_, dev), out)| {
            s.copy_to_host(out, &dev)
        })?;
        let ((pinned, _dev), _out) = joint.wait()?;
        assert_eq!(pinned.len(), 16);
        Ok(())
    }

    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn a_graph_reads_its_payload_after_host_writes_between_launches() -> Result<()> {
        let ctx = context()?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let stream = guard.stream()?;
        let payload = (guard.alloc_pinned::<u32>(16)?, guard.alloc::<u32>(16)?);
        let graph = stream.capture(payload, |s, (input, mut dev)| {
            s.copy_to_device(&mut dev, input)
        })?;
        let mut exec = graph.instantiate()?;
        for round in 0..2 {
            exec.payload_mut().0.fill(round); // a `&mut [u32]` between launches
            exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        }
        Ok(())
    }

    // A regression test: a `Box<[T]>` payload is retagged as unique each time it moves (into a tuple, a
    // graph, a submission and back), which invalidated the address its copies were bound to
    // while a graph or a pending submission could still use it. Each of these was undefined
    // behaviour under Stacked Borrows and Tree Borrows (`scripts/miri.sh` runs both) before
    // boxes were held as vectors.

    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn a_graph_refills_its_boxed_input_between_launches() -> Result<()> {
        let ctx = context()?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let stream = guard.stream()?;
        let host: Box<[u32]> = vec![1u32; 16].into_boxed_slice();
        let graph = stream.capture((host, guard.alloc::<u32>(16)?), |s, (h, mut d)| {
            s.copy_to_device(&mut d, h)
        })?;
        let mut exec = graph.instantiate()?;
        for round in 0..3 {
            exec.payload_mut().0.fill(round);
            exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
            assert_eq!(exec.payload().1.to_vec()?, [round; 16]);
        }
        Ok(())
    }

    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn a_graph_output_box_is_read_between_launches() -> Result<()> {
        let ctx = context()?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let stream = guard.stream()?;
        let input: Box<[u32]> = vec![0u32; 16].into_boxed_slice();
        let output: Box<[u32]> = vec![9u32; 16].into_boxed_slice();
        let payload = (input, guard.alloc::<u32>(16)?, output);
        let graph = stream.capture(payload, |s, (input, mut dev, output)| {
            s.copy_to_device(&mut dev, input)?;
            s.copy_to_host(output, &dev)
        })?;
        let mut exec = graph.instantiate()?;
        for round in 1..4 {
            exec.payload_mut().0.fill(round);
            exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
            assert_eq!(*exec.payload().2, [round; 16]); // the output, read on the host
        }
        Ok(())
    }

    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn a_joint_submission_hands_a_box_back() -> Result<()> {
        let ctx = context()?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let (one, two) = (guard.stream()?, guard.stream()?);
        let input: Box<[u32]> = vec![5u32; 16].into_boxed_slice();
        let first = one.submit((input, guard.alloc::<u32>(16)?), |s, (h, mut d)| {
            s.copy_to_device(&mut d, h)
        })?;
        let output: Box<[u32]> = vec![9u32; 16].into_boxed_slice();
        // The joint submission takes the first one's box over while its copy may still read it.
        let joint = two.submit_after(first, output, |s, ((_, d), out)| s.copy_to_host(out, &d))?;
        let ((mut input, _dev), output) = joint.wait()?;
        assert_eq!(*output, [5; 16]);
        input.fill(6); // the host's own box again
        assert_eq!(*input, [6; 16]);
        Ok(())
    }

    // The contract of a panicked host function's report (`host`'s module
    // docs): the first wait of its context reports it, once, whichever submission, scope or
    // stream of that context the wait is for; waits of another context never see it.
    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn a_host_panic_is_reported_once_by_the_next_wait_of_its_context() -> Result<()> {
        use crate::context::stack::StackTop;
        use crate::error::ErrorKind;
        let (a, b) = (context()?, context()?);
        let mut stack = Stack::new()?;
        let guard = stack.push(&a)?;
        let (one, two) = (guard.stream()?, guard.stream()?);
        let panicking = one.submit(vec![1u32], |s, _| {
            s.host_fn(|| std::panic::panic_any("host function 1"))
        })?;
        // On a GPU the host function runs later, on the driver's thread: stream two waits for
        // it (an event recorded after it on stream one), so the other submission completes only
        // once the host function has run and its wait is the first to see the panic.
        let ran = guard.event(crate::asynchronous::event::EventFlags::empty())?;
        one.record(&ran)?;
        two.wait(&ran)?;
        let other = two.submit(vec![2u32], |_, _| Ok(()))?;
        // B's waits (on another thread) do not see A's panic.
        std::thread::scope(|t| {
            t.spawn(|| -> Result<()> {
                Stack::new()?.with_pushed(&b, |g| g.stream()?.synchronize())?
            })
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
        })?;
        // The other submission's wait comes first: it reports the panic (its work is complete,
        // its payload dropped) ...
        match other.wait() {
            Err(e) if e.kind() == ErrorKind::HostFunctionPanicked => {
                assert!(e.to_string().contains("host function 1"), "{e}");
            }
            r => panic!("expected the panic, got {r:?}"),
        }
        // ... and the panicking submission's own wait then succeeds: reported once.
        assert_eq!(panicking.wait()?, [1]);
        one.synchronize()?;
        drop((ran, one, two));
        guard.pop()?;
        Ok(())
    }

    // A panic no wait reported ends with its context's handle: the destroy returns it, and
    // nothing of it is kept for a context made later at the same address (the record was keyed
    // by the raw handle and kept for ever before).
    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn an_unreported_host_panic_ends_with_its_context_s_handle() -> Result<()> {
        use crate::asynchronous::host::{Call, enqueue, take_panics_of};
        use crate::error::ErrorKind;
        let a = context()?;
        let raw = a.as_raw() as usize;
        let mut stack = Stack::new()?;
        let guard = stack.push(&a)?;
        let stream = guard.stream()?;
        enqueue(stream.as_raw(), Call::InOrder, || {
            std::panic::panic_any("lost with its context")
        })?;
        // The function runs, and no custack wait sees its panic: the driver's own synchronize.
        // SAFETY: a live stream of the current context.
        unsafe { crate::ffi::cuStreamSynchronize(stream.as_raw()) }.result()?;
        drop(stream);
        guard.pop()?;
        match a.destroy() {
            Err(e) if e.kind() == ErrorKind::HostFunctionPanicked => {
                assert!(e.to_string().contains("lost with its context"), "{e}");
            }
            r => panic!("expected the unreported panic from the destroy, got {r:?}"),
        }
        assert_eq!(
            take_panics_of(raw),
            0,
            "the ended handle's panic is still kept"
        );
        Ok(())
    }
}
