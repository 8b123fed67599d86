//! Pending work that borrows only its context, so that one thread keeps work in flight on
//! several contexts at once.
//!
//! A [`Submission`] borrows its stream and so its guard: while it is pending, no other context
//! can be pushed over that guard. [`PushedGuard::park_submission`] parks it, as
//! [`PushedGuard::park`] parks a buffer: the [`ParkedSubmission`] borrows only the
//! [`Context`], and its payload is kept in its *parked* form ([`Park::Parked`]: a device buffer
//! as a [`ParkedBuffer`], page-locked memory as a [`ParkedPinned`], a registered vector as a
//! [`ParkedRegisteredVec`]; host vectors and boxes as themselves). So the guard can be frozen
//! under a nested push while the work runs, and the parked submission can be waited for or
//! polled whatever context is current. What it hands back is that parked form: usable under
//! its own context again only once attached to one of its guards, with the pointer compare of
//! [`PushedGuard::attach`] (C22).
//!
//! One model, two forms: this is the submission machinery of
//! [`submission`](crate::asynchronous::submission) (the payload's held form, its release once the work is
//! complete, leaking on a failed wait) with the parked forms of [`guide::parking`]; nothing is
//! tracked at run time.
//!
//! [`guide::parking`]: crate::guide::parking

use crate::asynchronous::payload::Payload;
use crate::asynchronous::pending::{Holds, Pending, Pushed};
use crate::asynchronous::submission::Submission;
use crate::context::Context;
use crate::context::stack::{ContextKind, Floating, PushedGuard};
use crate::deadline::{Abandon, Deadline, TimedOut, passed};
use crate::error::Result;
use crate::error::left_behind::{Object, left_behind};
use crate::ffi;
use crate::kernel::launch::Function;
use crate::memory::registered::RegisteredVec;
use crate::memory::{DeviceBuffer, PinnedBuffer};
use crate::parking::buffer::ParkedBuffer;
use crate::parking::host::{ParkedPinned, ParkedRegisteredVec};
use crate::parking::module::ParkedModule;
use crate::vocabulary::binding::Invariant;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// What a [`ParkedSubmission`] hands back: the parked form of a [`Payload`] (a
/// [`ParkedBuffer`], [`ParkedPinned`], [`ParkedRegisteredVec`], [`ParkedModule`],
/// [`ParkedGraph`](crate::ParkedGraph), `Vec<T>`, `Box<[T]>`, `()`, and tuples of these).
/// Sealed.
pub trait ParkedPayload: sealed::Sealed + Sized {
    /// How a parked submission keeps it while the work may run (a `Box<[T]>` as a `Vec<T>`,
    /// as a [`Submission`] keeps it; see [`Payload`]).
    #[doc(hidden)]
    type Held;

    /// The parked payload back from its held form, once no work uses it.
    #[doc(hidden)]
    fn release(held: Self::Held) -> Self;

    /// Names to the checking driver each driver object of a held parked payload that custack
    /// is leaving behind on purpose (work may still use it, or its context cannot be pushed to
    /// release it). Nothing for one that holds no driver object.
    ///
    /// # Safety
    ///
    /// As [`Payload::left_behind`]: `held` is leaked right after by the caller, never dropped,
    /// released nor reached again (the checking driver counts no object so named as a leak).
    #[doc(hidden)]
    #[inline]
    unsafe fn left_behind(held: &Self::Held) {
        let _ = held;
    }
}

/// What a parked submission holds: a [`ParkedPayload`] in its held form ([`Holds`]).
pub(crate) struct AsParked<Q>(PhantomData<Q>);

impl<Q: ParkedPayload> Holds for AsParked<Q> {
    type Held = Q::Held;
    #[inline]
    unsafe fn left_behind(held: &Q::Held) {
        // SAFETY: the caller's promise, for the same held payload.
        unsafe { Q::left_behind(held) };
    }
}

/// A [`Payload`] that a pending submission of a context of kind `K` can be parked with
/// ([`PushedGuard::park_submission`]): every payload but managed memory, and executable graphs
/// only when their own payload owns everything their nodes use
/// ([`ParkWithGraph`](crate::ParkWithGraph): a [`Module`](crate::Module), not its functions);
/// for a [`Green`](crate::Green) context, every payload but page-locked and registered host memory
/// (their parked forms are `Send`). Sealed.
///
/// A kernel [`Function`], [`Kernel`](crate::Kernel) or [`Declared`](crate::Declared) kernel
/// parks as `()`: the parked submission cannot keep its module borrowed, and does not need to,
/// because a [`Module`](crate::Module) synchronizes its context before it unloads and before it
/// lends a view of one of its globals ([`Module::global`](crate::Module::global)), which the
/// kernel may use (as for a leaked submission, R11).
///
/// Device memory parks as a [`ParkedBuffer`] of the same kind `K`: for a green context a
/// `!Send` one, which stays on the thread with its green context.
pub trait Park<'ctx, K: ContextKind = Floating>: Payload {
    /// The parked form a [`ParkedSubmission`] hands back.
    type Parked: ParkedPayload;

    /// The held payload in the parked form's held form, for the context `ctx` (no driver
    /// call: device memory keeps its address, host memory its pages).
    ///
    /// # Safety
    ///
    /// `ctx` is the context the payload's memory belongs to, alive for `'ctx`.
    #[doc(hidden)]
    unsafe fn park(held: Self::Held, ctx: ffi::CUcontext) -> <Self::Parked as ParkedPayload>::Held;
}

/// `Held = Self` for a parked payload.
/// (With `left_behind`: the driver object each holds, by its handle.)
macro_rules! parked_as_itself {
    ($([$($g:tt)*] $ty:ty $(=> |$h:ident| $object:ident($handle:expr))?),* $(,)?) => {$(
        impl<$($g)*> sealed::Sealed for $ty {}
        impl<$($g)*> ParkedPayload for $ty {
            type Held = Self;
            #[inline]
            fn release(held: Self) -> Self {
                held
            }
            $(
                unsafe fn left_behind($h: &Self) {
                    left_behind(Object::$object, $handle);
                }
            )?
        }
    )*};
}
parked_as_itself!(
    ['ctx, T: DeviceCopy, K: ContextKind] ParkedBuffer<'ctx, T, K>
        => |b| DeviceMemory(b.device_ptr()),
    ['ctx, T: DeviceCopy] ParkedPinned<'ctx, T> => |p| HostMemory(p.as_ptr() as u64),
    ['ctx, T: DeviceCopy] ParkedRegisteredVec<'ctx, T>,
    ['ctx, K: ContextKind] ParkedModule<'ctx, K> => |m| Module(m.as_raw() as u64),
    [T: DeviceCopy] Vec<T>,
    [] (),
);

impl<T: DeviceCopy> sealed::Sealed for Box<[T]> {}
impl<T: DeviceCopy> ParkedPayload for Box<[T]> {
    // As in a submission: a `Box` is made again only once no work uses its elements.
    type Held = Vec<T>;
    #[inline]
    fn release(held: Vec<T>) -> Self {
        <Box<[T]> as Payload>::release(held)
    }
}

impl<'ctx, T: DeviceCopy, K: ContextKind> Park<'ctx, K> for DeviceBuffer<'_, T> {
    type Parked = ParkedBuffer<'ctx, T, K>;
    #[inline]
    unsafe fn park(held: Self, ctx: ffi::CUcontext) -> ParkedBuffer<'ctx, T, K> {
        let (ptr, len) = held.into_raw();
        // SAFETY: an allocation of `ctx`, a context of kind `K` (the caller's promise), owned
        // by nothing else now.
        unsafe { ParkedBuffer::from_raw_parts(ctx, ptr, len) }
    }
}

impl<'ctx, T: DeviceCopy> Park<'ctx> for PinnedBuffer<'_, T> {
    type Parked = ParkedPinned<'ctx, T>;
    #[inline]
    unsafe fn park(held: Self, ctx: ffi::CUcontext) -> ParkedPinned<'ctx, T> {
        // SAFETY: page-locked memory of `ctx` (the caller's promise).
        unsafe { ParkedPinned::from_pinned(ctx, held) }
    }
}

impl<'ctx, T: DeviceCopy> Park<'ctx> for RegisteredVec<'_, T> {
    type Parked = ParkedRegisteredVec<'ctx, T>;
    #[inline]
    unsafe fn park(held: Self, ctx: ffi::CUcontext) -> ParkedRegisteredVec<'ctx, T> {
        // SAFETY: registered in `ctx` (the caller's promise).
        unsafe { ParkedRegisteredVec::from_registered(ctx, held) }
    }
}

impl<T: DeviceCopy, K: ContextKind> Park<'_, K> for Vec<T> {
    type Parked = Self;
    #[inline]
    unsafe fn park(held: Self, _: ffi::CUcontext) -> Self {
        held
    }
}

impl<T: DeviceCopy, K: ContextKind> Park<'_, K> for Box<[T]> {
    type Parked = Self;
    #[inline]
    unsafe fn park(held: Vec<T>, _: ffi::CUcontext) -> Vec<T> {
        held
    }
}

impl<K: ContextKind> Park<'_, K> for () {
    type Parked = ();
    #[inline]
    unsafe fn park((): (), _: ffi::CUcontext) {}
}

impl<'ctx, K: ContextKind> Park<'ctx, K> for crate::kernel::module::Module<'_> {
    type Parked = ParkedModule<'ctx, K>;
    #[inline]
    unsafe fn park(held: Self, ctx: ffi::CUcontext) -> ParkedModule<'ctx, K> {
        // SAFETY: a module of `ctx`, a context of kind `K` alive for `'ctx` (the caller's
        // promise), owned by nothing else now.
        unsafe { ParkedModule::from_module(ctx, held) }
    }
}

impl<K: ContextKind> Park<'_, K> for Function<'_> {
    type Parked = ();
    // The function handle is dropped (it is `Copy`): its module synchronizes before unloading.
    #[inline]
    unsafe fn park(_: Self, _: ffi::CUcontext) {}
}

impl<S: crate::kernel::launch::KernelSignature, K: ContextKind> Park<'_, K>
    for crate::kernel::launch::Kernel<'_, S>
{
    type Parked = ();
    #[inline]
    unsafe fn park(_: Self, _: ffi::CUcontext) {}
}

impl<C: crate::kernel::contract::Contract, K: ContextKind> Park<'_, K>
    for crate::kernel::contract::Declared<'_, C>
{
    type Parked = ();
    // As a `Function`: the module synchronizes its context before it unloads, and before it
    // lends a view of a global, which the parked kernel may still read or write (C24).
    #[inline]
    unsafe fn park(_: Self, _: ffi::CUcontext) {}
}

/// A pending [`Submission`] set aside so it borrows only its [`Context`], not its guard
/// ([`PushedGuard::park_submission`]): its guard can be frozen under a nested push, or popped,
/// while the work runs, and one thread keeps work in flight on several contexts (P9).
///
/// - [`wait`](Self::wait) (`cuEventSynchronize`), [`try_wait`](Self::try_wait),
///   [`is_complete`](Self::is_complete) (`cuEventQuery`) work whatever context is current: the
///   driver's event waits accept an event of another context (the CUDA Programming Guide,
///   multi-device *Stream and Event Behavior*: `cudaEventSynchronize()` and `cudaEventQuery()`
///   succeed even if the event belongs to another device than the current one). The event is
///   destroyed, and host-function panics are looked up, with the submission's own context
///   pushed briefly.
/// - What it hands back is the payload's parked form ([`Park::Parked`]): device and
///   page-locked memory usable under its own context again only once attached to one of its
///   guards ([`PushedGuard::attach`], [`attach_pinned`](PushedGuard::attach_pinned), …,
///   checked by a pointer compare). Host vectors come back as they are.
/// - Dropping it waits, then drops the payload (each parked part pushes its own context to
///   free itself). Leaking it (`mem::forget`) leaks the payload, which is sound (R11).
/// - It borrows its context: the context cannot be dropped while it is pending (C22).
///
/// GPU-side ordering on another stream (of this context or another one, on this device or
/// another): [`Stream::wait_parked`](crate::Stream::wait_parked) (`cuStreamWaitEvent`, which
/// accepts an event of another context); and peer copies from its device buffers after such a
/// wait, while it is still pending: [`Stream::scope_after`](crate::Stream::scope_after).
///
/// # Examples
///
/// Enqueue on A, push B and enqueue there, wait for both (NVIDIA's `simpleMultiGPU` shape):
///
/// ```no_run
/// use custack::prelude::*;
/// use custack::{Context, ContextFlags, Driver, Stack};
/// let driver = Driver::init()?;
/// let a = Context::new(driver.device(0)?, ContextFlags::empty())?;
/// let b = Context::new(driver.device(driver.device_count()? - 1)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let mut ga = stack.push(&a)?;
/// let pending_a = {
///     let stream = ga.stream()?;
///     let work = stream.submit((ga.alloc::<u32>(1 << 20)?, vec![0u32; 1 << 20]), |s, (mut d, h)| {
///         s.fill_bytes(&mut d, 1)?;
///         s.copy_to_host(h, &d)
///     })?;
///     ga.park_submission(work) // borrows `a` only; the stream may go
/// };
/// let pending_b = ga.with_pushed(&b, |gb| -> custack::Result<_> {
///     let stream = gb.stream()?;
///     let work = stream.submit((gb.alloc::<u32>(1 << 20)?, vec![0u32; 1 << 20]), |s, (mut d, h)| {
///         s.fill_bytes(&mut d, 2)?;
///         s.copy_to_host(h, &d)
///     })?;
///     Ok(gb.park_submission(work))
/// })??; // both in flight now
/// let (dev_a, host_a) = pending_a.wait()?;
/// let (_dev_b, host_b) = pending_b.wait()?; // B's event waited for while A is current
/// assert!(host_a.iter().all(|&x| x == 0x0101_0101) && host_b.iter().all(|&x| x == 0x0202_0202));
/// let dev_a = ga.attach(dev_a)?; // A's memory, under A's guard again
/// # drop(dev_a);
/// # Ok::<(), custack::Error>(())
/// ```
#[must_use = "dropping a parked submission waits for it at once; keep it, and `wait` for its payload"]
#[doc(alias = "cuEventSynchronize")]
pub struct ParkedSubmission<'ctx, Q: ParkedPayload> {
    // The event and the payload, the event's context pushed for the clean-up.
    pending: Pending<AsParked<Q>, Pushed>,
    // Borrows the context; `!Send` and `!Sync` like a submission (a host function's panic is
    // reported on the thread that waits).
    _marker: PhantomData<(&'ctx Context, *const ())>,
}

impl<Q: ParkedPayload> core::fmt::Debug for ParkedSubmission<'_, Q> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ParkedSubmission")
            .field("ctx", &self.context_raw())
            .field("event", &self.event_raw())
            .finish_non_exhaustive()
    }
}

static_assertions::assert_not_impl_any!(ParkedSubmission<'static, Vec<u8>>: Send, Sync);

impl<'ctx, K: ContextKind> PushedGuard<'ctx, '_, K> {
    /// Parks a pending submission of this guard's context: it no longer borrows the guard (or
    /// its stream), only the context, and keeps its payload in the parked form
    /// ([`Park::Parked`]). No driver call. See [`ParkedSubmission`].
    ///
    /// The submission's work is this guard's context's: a submission borrows the stream, and so
    /// the guard, that made it, and only the guard on top of the thread's stack can be used.
    ///
    /// A green context's submission parks too (P9 on two green contexts): the parked submission
    /// is `!Send` whatever its context, and what it hands back stays on this thread (device
    /// memory as a `!Send` [`ParkedBuffer`] of kind [`Green`](crate::Green)).
    pub fn park_submission<P: Park<'ctx, K>>(
        &self,
        submission: Submission<'_, P>,
    ) -> ParkedSubmission<'ctx, P::Parked> {
        let (event, held) = submission.into_parts();
        let ctx = self.as_raw();
        // SAFETY: the payload's memory belongs to this guard's context (see above), which
        // lives for `'ctx`.
        let payload = unsafe { P::park(held, ctx) };
        // SAFETY: this guard's context lives for `'ctx`, which the parked submission borrows.
        let home = unsafe { Pushed::new(ctx) };
        ParkedSubmission {
            // SAFETY: the submission's event, of that context, recorded after all the work that
            // uses the payload.
            pending: unsafe { Pending::new(event, home, payload) },
            _marker: PhantomData,
        }
    }
}

impl<Q: ParkedPayload> ParkedSubmission<'_, Q> {
    /// The raw `CUevent` recorded after the work.
    pub fn event_raw(&self) -> ffi::CUevent {
        self.pending.raw_event()
    }

    /// The raw context the work runs in.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.pending.home().raw()
    }

    /// `cuEventSynchronize`—Waits until the work is complete and hands back the payload in its
    /// parked form; any context (or none) may be current.
    ///
    /// # Errors
    ///
    /// As [`Submission::wait`]: the first error of the work or a sticky error (the payload is
    /// then leaked), or a host function's panic (the payload is dropped); the push of its own
    /// context to destroy the event.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventSynchronize")]
    #[track_caller]
    pub fn wait(self) -> Result<Q> {
        self.pending.wait().map(Q::release)
    }

    /// `cuEventQuery` until the work is complete or `deadline` passes—The payload in its
    /// parked form, or past the deadline the parked submission back ([R19](crate::Deadline));
    /// any context may be current.
    ///
    /// # Errors
    ///
    /// As [`wait`](Self::wait). Past the deadline, `Ok(Err(late))`, as
    /// [`Submission::wait_by`](crate::Submission::wait_by).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[track_caller]
    pub fn wait_by(self, deadline: Deadline) -> Result<core::result::Result<Q, TimedOut<Self>>> {
        let site = core::panic::Location::caller();
        Ok(match self.pending.wait_by(deadline)? {
            Ok(held) => Ok(Q::release(held)),
            Err((pending, waited)) => Err(TimedOut::new(
                Self {
                    pending,
                    _marker: PhantomData,
                },
                passed(
                    format_args!("the parked submission waited for at {site}"),
                    waited,
                ),
            )),
        })
    }

    /// `cuEventQuery`—The parked payload if the work is complete, or the parked submission back
    /// if not; any context may be current.
    ///
    /// # Errors
    ///
    /// As [`wait`](Self::wait).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[track_caller]
    pub fn try_wait(self) -> Result<core::result::Result<Q, Self>> {
        Ok(match self.pending.try_wait()? {
            Ok(held) => Ok(Q::release(held)),
            Err(pending) => Err(Self {
                pending,
                _marker: PhantomData,
            }),
        })
    }

    /// `cuEventQuery`—Whether the work is complete; any context may be current.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EVENT.html>
    #[doc(alias = "cuEventQuery")]
    #[track_caller]
    pub fn is_complete(&self) -> Result<bool> {
        self.pending.is_complete()
    }
}

impl<Q: ParkedPayload> Abandon for ParkedSubmission<'_, Q> {
    /// Gives up on the parked submission without waiting: its event is destroyed (its context
    /// pushed briefly), its payload leaked (never freed or handed back; named to the checking
    /// driver as left behind).
    fn abandon(self) {
        self.pending.abandon();
    }
}

impl crate::asynchronous::stream::Stream<'_> {
    /// `cuStreamWaitEvent`—Makes this stream's later work wait, on the GPU, for a parked
    /// submission's work, which may belong to another context, on this device or another (the
    /// driver documents that the event "may be from a different context than hStream, in which
    /// case this function will perform cross-device synchronization"). No host round trip.
    ///
    /// Only ordering: the parked submission keeps its payload until it is waited for, so this
    /// stream's work cannot reach that memory (C22).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported) inside a graph capture's
    /// closure, before the driver (C28.16, as [`Stream::wait`](crate::Stream::wait)); the
    /// driver's error; after a sticky error (or in a forked child) that error, without calling
    /// the driver (R20, R22), so [`scope_after`](Self::scope_after) opens no scope then.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamWaitEvent")]
    pub fn wait_parked<Q: ParkedPayload>(&self, pending: &ParkedSubmission<'_, Q>) -> Result<()> {
        // Poisoned or forked (R20, R22): refused without the driver, as every wait.
        crate::error::poison::check()?;
        crate::asynchronous::refuse_event_inside_capture("an event wait (Stream::wait_parked)")?;
        // SAFETY: a live stream of the current context and a live event (of any context); the
        // flags must be 0.
        unsafe { ffi::cuStreamWaitEvent(self.as_raw(), pending.event_raw(), 0) }.result()
    }
}

/// A device buffer of another context's pending work, as a stream scope that waited for that
/// work on the GPU ([`Stream::scope_after`](crate::Stream::scope_after)) may read it: only as the source of a peer copy
/// ([`StreamScope::copy_from_pending`](crate::asynchronous::scope::StreamScope::copy_from_pending)), never on
/// the host or as this context's memory. `Copy`.
///
/// Branded with the scope that waited (`'p` is that scope's invariant `'scope`): only that
/// scope's copies take it, not a scope nested in it on another stream, which never waited for
/// the work that may still write the buffer (C22).
#[derive(Debug, Clone, Copy)]
pub struct PendingSource<'p, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    ctx: ffi::CUcontext,
    // Invariant in 'p: a source lent to one scope is not taken by another. Only made inside
    // `scope_after`, whose parked submission (and so the buffer and its context) stays borrowed
    // until that scope has waited.
    _scope: PhantomData<(Invariant<'p>, fn() -> T)>,
}

/// The device memory of a parked payload as [`PendingSource`]s: a [`ParkedBuffer`] as one, host
/// memory as `()` (the host may not read it while the work may still write it), tuples
/// element by element. Sealed; implemented for every [`ParkedPayload`].
pub trait PendingView: ParkedPayload {
    /// The payload's device buffers as peer sources, branded with the scope `'p`.
    type View<'p>;

    /// The view of a held payload, for a scope `'p` that waited for its work.
    ///
    /// # Safety
    ///
    /// `held` stays borrowed, and its work's event waited for by the scope `'p`, until that
    /// scope has waited.
    #[doc(hidden)]
    unsafe fn pending_view<'p>(held: &Self::Held) -> Self::View<'p>;
}

impl<T: DeviceCopy> PendingView for ParkedBuffer<'_, T> {
    type View<'p> = PendingSource<'p, T>;
    #[inline]
    unsafe fn pending_view<'p>(held: &Self) -> PendingSource<'p, T> {
        PendingSource {
            ptr: held.device_ptr(),
            len: held.len(),
            ctx: held.context_raw(),
            _scope: PhantomData,
        }
    }
}

/// `View = ()`: host memory is not lent while the work may use it.
macro_rules! no_pending_view {
    ($([$($g:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($g)*> PendingView for $ty {
            type View<'p> = ();
            #[inline]
            unsafe fn pending_view<'p>(_: &Self::Held) -> Self::View<'p> {}
        }
    )*};
}
no_pending_view!(
    ['ctx, K: ContextKind] ParkedModule<'ctx, K>,
    ['ctx, T: DeviceCopy] ParkedPinned<'ctx, T>,
    ['ctx, T: DeviceCopy] ParkedRegisteredVec<'ctx, T>,
    [T: DeviceCopy] Vec<T>,
    [T: DeviceCopy] Box<[T]>,
    [] (),
);

impl crate::asynchronous::stream::Stream<'_> {
    /// A [stream scope](crate::Stream::scope) on this stream that first waits, on the GPU, for
    /// another context's parked work (`cuStreamWaitEvent`, as
    /// [`wait_parked`](Self::wait_parked)), and may then read that work's device buffers as the
    /// sources of peer copies ([`PendingSource`], `cuMemcpyPeerAsync`): memory moves from A's
    /// pending work into B's without a host round trip, and only after A's work on the GPU.
    ///
    /// The parked submission stays borrowed until the scope has synchronized this stream, so
    /// it cannot be waited for, dropped or handed back meanwhile; its host memory is not lent
    /// (the host does not know A's work is done). The sources are branded with this scope:
    /// a scope nested in `f` on another stream, which did not wait, cannot copy from them. Peer copies work between contexts of one
    /// device and between devices, with or without peer access enabled (then the driver stages
    /// them).
    ///
    /// # Errors
    ///
    /// The wait's error (then `f` does not run); as [`scope`](crate::Stream::scope).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamWaitEvent")]
    #[doc(alias = "cuMemcpyPeerAsync")]
    pub fn scope_after<'env, Q: PendingView, R>(
        &'env self,
        pending: &'env ParkedSubmission<'_, Q>,
        f: impl for<'scope> FnOnce(
            &'scope crate::asynchronous::scope::StreamScope<'scope, 'env>,
            Q::View<'scope>,
        ) -> R,
    ) -> Result<R> {
        self.wait_parked(pending)?;
        self.scope(|s| {
            // SAFETY: `pending` is borrowed for 'env, beyond the scope; this stream waited for
            // its event above, before anything the scope enqueues.
            let view = unsafe { Q::pending_view(pending.pending.payload()) };
            f(s, view)
        })
    }
}

impl<'scope> crate::asynchronous::scope::StreamScope<'scope, '_> {
    /// `cuMemcpyPeerAsync`—Enqueues a copy from a device buffer of another context's pending
    /// work, which this scope waited for on the GPU ([`Stream::scope_after`](crate::Stream::scope_after)).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyPeerAsync")]
    pub fn copy_from_pending<T: DeviceCopy>(
        &self,
        dst: impl crate::vocabulary::binding::ScopedWrite<'scope, T>,
        src: PendingSource<'scope, T>,
    ) -> Result<()> {
        // SAFETY: a `PendingSource<'scope, _>` is made only by `scope_after` for this scope, whose
        // parked submission (the buffer, its context) stays borrowed until the scope has waited;
        // the scope's stream waited for that work's event before this copy, and the work does not
        // write the buffer after its event.
        unsafe { self.copy_from_context("copy_from_pending", dst, src.ptr, src.len, src.ctx) }
    }
}
