//! A stream set aside from its guard ([`ParkedStream`]): it borrows only its context, so it
//! survives the pop and nested pushes, and is attached again to a guard of that context.

use crate::asynchronous::stream::Stream;
use crate::context::Context;
use crate::context::raw::release_in;
use crate::context::stack::{ContextKind, Floating, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::{Result, record_drop_error};
use crate::ffi;
use core::marker::PhantomData;

/// A [`Stream`] set aside to outlive its guard and nested pushes
/// ([`PushedGuard::park_stream`]), re-attached later with [`PushedGuard::attach_stream`]: a
/// long-lived stream of a context that one thread pushes in turn with others
/// ([`guide::in_flight`](crate::guide::in_flight)). Dropping it pushes its context briefly to
/// destroy it; work still pending on it completes (`cuStreamDestroy` returns at once and the
/// driver releases the stream afterwards).
///
/// `K` is the kind of context: `Send` and `Sync` for a [`Floating`] one (the default), neither
/// for a [`Green`](crate::Green) one, which may be current on one thread only.
#[derive(Debug)]
pub struct ParkedStream<'ctx, K: ContextKind = Floating> {
    ctx: ffi::CUcontext,
    raw: ffi::CUstream,
    _marker: PhantomData<(&'ctx Context, K)>,
}

// SAFETY: a stream of a floating context belongs to a context, not a thread; a parked stream
// offers no operation until attached to a guard of its context (checked), and its drop pushes
// that context itself. Not for a green context: the raw `ctx` field keeps that kind `!Send`.
unsafe impl Send for ParkedStream<'_, Floating> {}
// SAFETY: `&ParkedStream` offers no operation.
unsafe impl Sync for ParkedStream<'_, Floating> {}

static_assertions::assert_impl_all!(ParkedStream<'static>: Send, Sync);
static_assertions::assert_not_impl_any!(ParkedStream<'static, crate::context::stack::Green>: Send, Sync);

impl<K: ContextKind> ParkedStream<'_, K> {
    /// The raw context the stream belongs to.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.ctx
    }
    /// The raw `CUstream` (usable only while its context is current).
    pub fn as_raw(&self) -> ffi::CUstream {
        self.raw
    }
}

impl<K: ContextKind> Drop for ParkedStream<'_, K> {
    fn drop(&mut self) {
        let raw = self.raw;
        let destroy = || {
            // SAFETY: a live stream of `ctx`, current while this runs, destroyed once.
            unsafe { ffi::cuStreamDestroy_v2(raw) }.result()
        };
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); `destroy` leaves the stack as it was.
        if let Err(e) = unsafe { release_in(self.ctx, Object::Stream, raw as u64, destroy) } {
            record_drop_error(e);
        }
    }
}

impl<'ctx, K: ContextKind> PushedGuard<'ctx, '_, K> {
    /// Parks a stream: it no longer borrows this guard, only the context, so it survives the
    /// pop and nested pushes. Re-attach it with [`attach_stream`](Self::attach_stream). No
    /// driver call. A green context's stream parks as a `!Send` [`ParkedStream`] (see its `K`).
    pub fn park_stream(&self, stream: Stream<'_>) -> ParkedStream<'ctx, K> {
        ParkedStream {
            ctx: self.as_raw(),
            raw: stream.into_raw(),
            _marker: PhantomData,
        }
    }

    /// Re-attaches a parked stream to this guard. Checked without calling the driver.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ContextMismatch`](crate::ErrorKind::ContextMismatch) if it was parked from
    /// another context; the parked stream is then dropped, which destroys it in its own
    /// context.
    pub fn attach_stream(&self, parked: ParkedStream<'ctx, K>) -> Result<Stream<'_>> {
        super::same_context("stream", parked.ctx, self.as_raw())?;
        let parked = core::mem::ManuallyDrop::new(parked);
        // SAFETY: a live stream of this guard's context (checked above), owned by the parked
        // stream, which is consumed without being dropped.
        Ok(unsafe { self.stream_from_raw(parked.raw) })
    }
}
