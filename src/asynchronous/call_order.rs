//! The order of a library handle's calls: cuBLAS's and cuBLASLt's handles, cuFFT's plans and
//! cuRAND's generators each own device memory that every one of their calls uses (a workspace,
//! a work area, a generator's state), so two of their calls must never run on the GPU at once,
//! whatever streams they are enqueued on. [`CallOrder`] makes sure of it, with no per-call
//! event:
//!
//! - a call on the stream of the handle's previous call is ordered after it by the stream
//!   itself: nothing to do, no driver call;
//! - a call on another stream first makes that stream wait, on the GPU, for everything enqueued
//!   so far in the context (`cuCtxRecordEvent`, then `cuStreamWaitEvent`; before driver 12.5,
//!   which has no context-wide record, `cuCtxSynchronize`). That covers every earlier call of
//!   the handle, wherever it ran (a scope, a submission since parked, a stream destroyed since),
//!   without knowing which of those streams still exist;
//! - before the memory the calls share is released, the context is synchronized
//!   ([`CallOrder::wait_idle`]).
//!
//! The context-wide record is refused while any stream of the context is capturing
//! (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`), and the driver then invalidates that capture: a
//! handle switching streams while another thread captures on its context ends that capture
//! with an error, which its end reports. Nothing unsound follows; the features page says so.
//!
//! Streams are told apart by [`StreamSerial`], not by their raw handles, which the driver
//! reuses. Pending work is still tracked one way: what a call reads and writes is bound to its
//! scope, or owned by its submission; this only orders the calls of one handle among
//! themselves.

use crate::asynchronous::event::{Event, EventFlags};
use crate::asynchronous::scope::StreamScope;
use crate::asynchronous::stream::{StreamSerial, wait_event};
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::cell::Cell;

/// Where the handle's previous call was enqueued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    /// No call yet: nothing to wait for, and no stream set in the library.
    Nothing,
    /// The previous call was on this stream, which is the library's stream now.
    On(StreamSerial),
    /// A call may have been enqueued on a stream not recorded here, or the library's stream is
    /// not known (a failed set, or the raw handle handed out): the next call orders itself after
    /// everything and sets the stream again.
    Unknown,
}

/// What a call must do before it is enqueued on a stream, given where the previous one was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Before {
    /// The same stream: ordered by the stream, and it is already the library's.
    Nothing,
    /// The first call: set the library's stream.
    SetStream,
    /// Another stream: wait for everything in the context, then set the library's stream.
    WaitThenSetStream,
}

fn before(last: Last, stream: StreamSerial) -> Before {
    match last {
        Last::On(previous) if previous == stream => Before::Nothing,
        Last::Nothing => Before::SetStream,
        Last::On(_) | Last::Unknown => Before::WaitThenSetStream,
    }
}

/// The order of one library handle's calls; see the [module docs](self).
pub(crate) struct CallOrder<'g> {
    /// The handle's context (current whenever the handle is reachable: it borrows its guard).
    ctx: ffi::CUcontext,
    /// Recorded after everything in the context when a call changes streams; `None` once
    /// [`close`](Self::close)d (the handle released: no call is made after).
    everything: Option<Event<'g>>,
    last: Cell<Last>,
}

impl core::fmt::Debug for CallOrder<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CallOrder")
            .field("last", &self.last.get())
            .finish_non_exhaustive()
    }
}

impl<'g> CallOrder<'g> {
    /// The order of a new handle of `guard`'s context (`cuEventCreate`).
    pub(crate) fn new<K: ContextKind>(guard: &'g PushedGuard<'_, '_, K>) -> Result<Self> {
        Ok(Self {
            ctx: guard.as_raw(),
            everything: Some(guard.event(EventFlags::DISABLE_TIMING)?),
            last: Cell::new(Last::Nothing),
        })
    }

    /// Enqueues one call of the handle on `s`'s stream: refused inside a graph capture (the
    /// graph would use the shared memory after the handle is gone) and once the process is
    /// poisoned; ordered after the handle's previous call (see the [module docs](self));
    /// `set_stream` makes `s`'s stream the library's when it is not already (it is not called
    /// for a call on the previous call's stream); then `call` enqueues.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_SUPPORTED` inside a capture; the poison; the ordering's driver errors
    /// and `set_stream`'s, before anything is enqueued; `call`'s.
    #[inline]
    pub(crate) fn enqueue<R>(
        &self,
        what: &'static str,
        s: &StreamScope<'_, '_>,
        set_stream: impl FnOnce(ffi::CUstream) -> Result<()>,
        call: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        super::refuse_inside_capture(what)?;
        crate::error::poison::check()?;
        let stream = s.serial();
        match before(self.last.get(), stream) {
            Before::Nothing => {}
            todo => {
                if todo == Before::WaitThenSetStream {
                    self.after_everything(s.as_raw())?;
                }
                // Until the library's stream is known to be `s`'s, the next call sets it again.
                self.last.set(Last::Unknown);
                set_stream(s.as_raw())?;
                self.last.set(Last::On(stream));
            }
        }
        call()
    }

    /// Makes `stream` wait for everything enqueued so far in the context.
    #[cold]
    #[inline(never)]
    fn after_everything(&self, stream: ffi::CUstream) -> Result<()> {
        let Some(everything) = self.everything.as_ref() else {
            // Closed with its handle's release, after which the handle makes no call.
            return Err(Error::custack(
                ErrorKind::InvalidHandle,
                "a library handle's call after its release",
            ));
        };
        match crate::driver::lookup::CTX_RECORD_EVENT.get() {
            Ok(record) => {
                // SAFETY: `cuCtxRecordEvent` needs a live context and a live event of it: the
                // handle borrows its guard, so its context is live and current here, and
                // `everything` was lent by that guard.
                unsafe { record(self.ctx, everything.as_raw()) }.result()?;
                wait_event(stream, everything)
            }
            // Before driver 12.5: wait on the host instead.
            Err(e) if e.kind() == ErrorKind::DriverTooOld => {
                // SAFETY: no arguments; the handle's context is current (see above).
                unsafe { ffi::cuCtxSynchronize() }.result()
            }
            // The lookup failed (`cuDriverGetVersion`, `cuGetProcAddress_v2`): the caller's
            // error, not a reason to wait another way (found by the checking driver's
            // schedules on cuSOLVER's stand-in, the program `solver_handles`).
            Err(e) => Err(e),
        }
    }

    /// Forgets which stream the library has: the next call orders itself after everything and
    /// sets its stream, and [`wait_idle`](Self::wait_idle) waits (the raw handle was handed
    /// out, and may have been used with another stream, even before any call of this module).
    /// (`custack::sparse` hands out no raw handle.)
    #[cfg_attr(
        not(any(test, feature = "cublas", feature = "cufft", feature = "curand")),
        allow(dead_code)
    )]
    pub(crate) fn forget_stream(&self) {
        self.last.set(Last::Unknown);
    }

    /// Waits until no call of the handle can still run, before the memory they share is
    /// released: nothing if there was none, else `cuCtxSynchronize` (a call's stream may be
    /// gone, so the context is what is waited for). The one core of every library handle's
    /// release (cuBLAS, cuBLASLt, cuFFT, cuRAND): only `Ok` allows releasing the handle and its
    /// memory; on an error it is leaked.
    ///
    /// # Errors
    ///
    /// The poison or `ForkedProcess` without calling the driver ([`may_release`]: after a
    /// sticky error, work of another context may still run, R20); the synchronization's (the
    /// first error of the context's work, or a sticky error, which poisons the process).
    ///
    /// [`may_release`]: crate::error::poison::may_release
    /// Destroys the order's event (`cuEventDestroy`), once: with the handle's release, so
    /// that a release that returns its error leaves nothing for a drop to report again (after
    /// a sticky error the event is left behind, named to the checking driver, and this returns
    /// the poison, which the release has returned already).
    ///
    /// # Errors
    ///
    /// The event's destroy.
    pub(crate) fn close(&mut self) -> Result<()> {
        self.everything.take().map_or(Ok(()), Event::destroy)
    }

    pub(crate) fn wait_idle(&self) -> Result<()> {
        crate::error::poison::may_release()?;
        if self.last.get() == Last::Nothing {
            return Ok(());
        }
        // SAFETY: no arguments; the handle's context is current (it borrows its guard).
        unsafe { ffi::cuCtxSynchronize() }.result()
    }
}

#[cfg(test)]
mod tests {
    use super::{Before, Last, before};
    use crate::asynchronous::stream::StreamSerial;

    #[test]
    fn calls_on_one_stream_need_nothing_and_a_change_waits_for_everything() {
        let (one, two) = (StreamSerial::for_tests(1), StreamSerial::for_tests(2));
        assert_eq!(before(Last::Nothing, one), Before::SetStream);
        assert_eq!(before(Last::On(one), one), Before::Nothing);
        assert_eq!(before(Last::On(one), two), Before::WaitThenSetStream);
        assert_eq!(before(Last::On(two), one), Before::WaitThenSetStream);
        assert_eq!(before(Last::Unknown, one), Before::WaitThenSetStream);
    }

    #[test]
    #[cfg_attr(
        not(miri),
        ignore = "requires a CUDA device (or Miri's checking driver)"
    )]
    fn a_handle_sets_its_stream_once_per_change_of_stream() -> crate::error::Result<()> {
        use super::CallOrder;
        use crate::context::{Context, ContextFlags, stack::Stack};
        use crate::driver::Driver;
        use core::cell::Cell;
        // Under Miri the driver is the checking double (linked in by `src/lib.rs`): it reports
        // any handle used out of its context or after its destruction.
        #[cfg(miri)]
        checkdriver::start_checking(0, 0);
        let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let (one, two) = (guard.stream()?, guard.stream()?);
        let order = CallOrder::new(&guard)?;
        let (sets, calls) = (Cell::new(0), Cell::new(0));
        let call = |s: &crate::asynchronous::scope::StreamScope<'_, '_>| {
            order.enqueue(
                "a test call",
                s,
                |raw| {
                    assert_eq!(raw, s.as_raw());
                    sets.set(sets.get() + 1);
                    Ok(())
                },
                || {
                    calls.set(calls.get() + 1);
                    Ok(())
                },
            )
        };
        // Under Miri the double counts the driver calls: after the first call, which only sets
        // the library's stream (a closure here), 99 more on the same stream make none.
        #[cfg(miri)]
        let driver_calls = || {
            checkdriver::report()
                .lines()
                .find_map(|l| l.strip_prefix("calls ")?.parse::<u64>().ok())
                .unwrap_or(u64::MAX)
        };
        one.scope(|s| {
            call(s)?;
            #[cfg(miri)]
            let before = driver_calls();
            (1..100).try_for_each(|_| call(s))?;
            #[cfg(miri)]
            assert_eq!(
                driver_calls(),
                before,
                "a call on the same stream made a driver call"
            );
            Ok::<_, crate::error::Error>(())
        })??;
        assert_eq!((sets.get(), calls.get()), (1, 100));
        // Another scope on the same stream: still nothing to do.
        one.scope(|s| call(s))??;
        assert_eq!(sets.get(), 1);
        // Another stream, nested: ordered after everything, its stream set once.
        // Under Miri: each change waits for the context's work (driver calls), the calls after
        // it on the same stream make none.
        let switch = |s: &crate::asynchronous::scope::StreamScope<'_, '_>| {
            #[cfg(miri)]
            let before = driver_calls();
            call(s)?;
            #[cfg(miri)]
            assert!(
                driver_calls() > before,
                "a change of stream made no driver call"
            );
            Ok::<_, crate::error::Error>(())
        };
        one.scope(|s1| {
            two.scope(|s2| {
                switch(s2)?;
                #[cfg(miri)]
                let before = driver_calls();
                (1..3).try_for_each(|_| call(s2))?;
                #[cfg(miri)]
                assert_eq!(driver_calls(), before);
                switch(s1)
            })
        })???;
        assert_eq!((sets.get(), calls.get()), (3, 105));
        // A stream made after `two` is dropped is another stream, whatever its raw handle.
        drop(two);
        let three = guard.stream()?;
        three.scope(|s| call(s))??;
        assert_eq!(sets.get(), 4);
        // Handing the raw handle out forgets the library's stream; before any call too, so that
        // work enqueued through it is waited for before the handle's memory is released.
        let fresh = CallOrder::new(&guard)?;
        assert_eq!(fresh.last.get(), Last::Nothing);
        fresh.forget_stream();
        assert_eq!(fresh.last.get(), Last::Unknown);
        fresh.wait_idle()?;
        order.forget_stream();
        three.scope(|s| call(s))??;
        assert_eq!(sets.get(), 5);
        order.wait_idle()
    }
}
