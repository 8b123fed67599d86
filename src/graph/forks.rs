//! The streams a capture forks ([`Stream::capture_forks`](crate::Stream::capture_forks)): one
//! stream and its payload, or a tuple of one to eight such pairs ([`Forks`]), and the
//! [`Branch`] through which the capture's closure enqueues on each, with a scope lifetime of
//! its own.
//!
//! ```text
//!   origin.capture_forks(((&a, qa), (&b, qb)), p, |s, p, (ba, bb)| …)
//!                                                        -> Graph<'g, (P, (Qa, Qb))>
//!     ba.run(|t, qa| …)        a's scope and payload, with a lifetime no other scope has
//!   origin.capture_forks((&a, qa), p, |s, p, ba| …)                   -> Graph<'g, (P, Qa)>
//! ```

use crate::asynchronous::payload::Payload;
use crate::asynchronous::scope::StreamScope;
use crate::asynchronous::stream::{Stream, StreamSerial};
use crate::error::Result;
use crate::ffi;
use core::marker::PhantomData;

/// A stream forked into a capture: its raw handle and which `Stream` it is.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ForkStream {
    pub(crate) raw: ffi::CUstream,
    pub(crate) serial: StreamSerial,
}

impl ForkStream {
    fn of(stream: &Stream<'_>) -> Self {
        Self {
            raw: stream.as_raw(),
            serial: stream.serial(),
        }
    }
}

/// The streams a capture forks, each with its payload, for
/// [`Stream::capture_forks`](crate::Stream::capture_forks): `(&stream, payload)` for one, or a
/// tuple of one to eight such pairs. Every stream is a `&Stream<'g>`, lent by the guard of the
/// stream that captures. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the forks of a capture",
    label = "expected `(&stream, payload)` or a tuple of such pairs",
    note = "`capture_forks` takes `(&side, q)` or `((&a, qa), (&b, qb), …)`, one to eight \
            pairs, each a `&Stream` of the capturing stream's guard and a `Payload`"
)]
pub trait Forks<'g>: sealed::Sealed {
    /// What the graph owns of the forks: the one fork's payload, or the tuple of theirs.
    type Payload: Payload;
    /// What the capture's closure receives: one [`Branch`], or a tuple of them.
    type Branches<'o>;
    /// The forks' streams, in order.
    #[doc(hidden)]
    type Streams: AsRef<[ForkStream]>;

    /// The streams and the payload.
    #[doc(hidden)]
    fn into_parts(self) -> (Self::Streams, Self::Payload);

    /// One branch for each stream, over its part of the held payload.
    ///
    /// # Safety
    ///
    /// `streams` are live streams of the current context, each joined to a capture, for as
    /// long as the branches live; `held` is not moved in a way that moves the memory it names,
    /// dropped, released or reached by the host until the capture's graph, and every
    /// executable graph made from it, is gone; the branches do not outlive the capture.
    #[doc(hidden)]
    unsafe fn branches<'o>(
        streams: &Self::Streams,
        held: &mut <Self::Payload as Payload>::Held,
    ) -> Self::Branches<'o>;
}

mod sealed {
    pub trait Sealed {}
}

/// One stream forked into a capture, with its payload, as the capture's closure receives it
/// ([`Stream::capture_forks`](crate::Stream::capture_forks)): [`run`](Self::run) lends its scope
/// and its payload, bound to it, once. Branded by the closure's lifetime `'o`, so it cannot
/// leave the closure; `!Send` and `!Sync`.
#[must_use = "a branch not run forks and joins with no work"]
pub struct Branch<'o, Q: Payload> {
    fork: ForkStream,
    held: *mut Q::Held,
    // Invariant in 'o and neither `Send` nor `Sync`: the branch lives only inside the
    // capture's closure, on its thread.
    _brand: PhantomData<(&'o mut &'o (), *const ())>,
}

impl<Q: Payload> Branch<'_, Q> {
    /// Enqueues the branch's work: `f` receives the fork's scope and its payload bound to it,
    /// with a lifetime `'b` that no other scope has, so a binding of this branch cannot be used
    /// by another branch or by the capturing stream, nor one of theirs here (each runs
    /// unordered with this one in the graph); nothing of `'b` leaves `f`.
    ///
    /// # Errors
    ///
    /// `f`'s; the capture then fails as for any error of its closure.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let (stream, side) = (guard.stream()?, guard.stream()?);
    /// let y = guard.alloc::<u32>(1024)?;
    /// let graph = stream.capture_forks((&side, y), (), |_s, (), branch| {
    ///     branch.run(|t, mut y| t.fill_u32(&mut y, 2))
    /// })?;
    /// # drop(graph);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    pub fn run<R>(
        self,
        f: impl for<'b> FnOnce(&'b StreamScope<'b, 'static>, Q::Bound<'b>) -> Result<R>,
    ) -> Result<R> {
        // SAFETY: the fork is a live stream of the current context, in the capture for as long
        // as the branch (`Forks::branches`' contract); its work becomes nodes of the graph,
        // which owns the payload for as long as it can be launched.
        let scope = unsafe { StreamScope::of_parts(self.fork.raw, self.fork.serial) };
        // SAFETY: `held` points at this fork's part of the capture's held payload, alive and
        // unmoved while the branch is (`Forks::branches`' contract), and reached only here:
        // the branch is consumed.
        let held = unsafe { &mut *self.held };
        // SAFETY: as above, the payload is bound once; the graph owns it for as long as it can
        // be launched, and the bound handles have the lifetime of `f`'s scope alone.
        let bound = unsafe { Q::bind(held) };
        f(&scope, bound)
    }
}

impl<Q: Payload> sealed::Sealed for (&Stream<'_>, Q) {}

impl<'g, Q: Payload> Forks<'g> for (&Stream<'g>, Q) {
    type Payload = Q;
    type Branches<'o> = Branch<'o, Q>;
    type Streams = [ForkStream; 1];

    fn into_parts(self) -> (Self::Streams, Self::Payload) {
        ([ForkStream::of(self.0)], self.1)
    }

    unsafe fn branches<'o>(streams: &Self::Streams, held: &mut Q::Held) -> Self::Branches<'o> {
        Branch {
            fork: streams[0],
            held,
            _brand: PhantomData,
        }
    }
}

macro_rules! forks {
    ($n:literal; $($name:ident $idx:tt),+) => {
        impl<$($name: Payload),+> sealed::Sealed for ($((&Stream<'_>, $name),)+) {}

        impl<'g, $($name: Payload),+> Forks<'g> for ($((&Stream<'g>, $name),)+) {
            type Payload = ($($name,)+);
            type Branches<'o> = ($(Branch<'o, $name>,)+);
            type Streams = [ForkStream; $n];

            fn into_parts(self) -> (Self::Streams, Self::Payload) {
                ([$(ForkStream::of(self.$idx.0),)+], ($(self.$idx.1,)+))
            }

            unsafe fn branches<'o>(
                streams: &Self::Streams,
                held: &mut <Self::Payload as Payload>::Held,
            ) -> Self::Branches<'o> {
                ($(
                    Branch {
                        fork: streams[$idx],
                        held: &raw mut held.$idx,
                        _brand: PhantomData,
                    },
                )+)
            }
        }
    };
}

forks!(1; A 0);
forks!(2; A 0, B 1);
forks!(3; A 0, B 1, C 2);
forks!(4; A 0, B 1, C 2, D 3);
forks!(5; A 0, B 1, C 2, D 3, E 4);
forks!(6; A 0, B 1, C 2, D 3, E 4, F 5);
forks!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
forks!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
