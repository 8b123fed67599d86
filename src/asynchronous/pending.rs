//! The core of pending work that owns its payload, which a [`Submission`](crate::Submission)
//! and a [`ParkedSubmission`](crate::ParkedSubmission) share: the event recorded after the
//! work and the payload in its held form, handed back only once that event is known complete
//! (`wait`, `try_wait`), dropped only then (`drop`), leaked when the driver cannot say (R11).
//! The one difference between the two is where the event's context is: current (a submission
//! borrows its guard, which is on top) or pushed for the clean-up (a parked submission borrows
//! only its context): [`EventHome`].

use crate::context::raw::with_raw_current;
use crate::deadline::{Deadline, Polled, poll};
use crate::error::left_behind::{Object, left_behind};
use crate::error::poison;
use crate::error::{Observer, Result, record_drop_error};
use crate::ffi;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;

/// Where the context of a pending work's event is while the event is destroyed and the
/// context's host-function panics are looked up.
pub(crate) trait EventHome: Copy {
    /// What a wait of the pending work is, for the origin of a sticky error it observes (R20).
    const OBSERVER: Observer;
    /// Runs `f` with the event's context current, leaving the thread's stack as it was.
    fn with_context(&self, f: impl FnOnce() -> Result<()>) -> Result<()>;
}

/// The event's context is current whenever the pending work is used: a submission borrows the
/// guard that is on top of the thread's stack.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Current;

impl EventHome for Current {
    const OBSERVER: Observer = Observer::SubmissionWait;
    #[inline]
    fn with_context(&self, f: impl FnOnce() -> Result<()>) -> Result<()> {
        f()
    }
}

/// The event's context is pushed briefly for the clean-up: a parked submission borrows only its
/// context, and any context (or none) may be current.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pushed(ffi::CUcontext);

impl Pushed {
    /// # Safety
    ///
    /// `ctx` is a live context that outlives every use of the value.
    pub(crate) unsafe fn new(ctx: ffi::CUcontext) -> Self {
        Self(ctx)
    }

    /// The raw context.
    pub(crate) fn raw(self) -> ffi::CUcontext {
        self.0
    }
}

impl EventHome for Pushed {
    const OBSERVER: Observer = Observer::ParkedSubmissionWait;
    fn with_context(&self, f: impl FnOnce() -> Result<()>) -> Result<()> {
        // SAFETY: the context is alive (`Pushed::new`'s promise); `f` is the caller's clean-up,
        // which leaves the stack as it was.
        unsafe { with_raw_current(self.0, f) }
    }
}

/// What pending work holds: a payload in its held form, and how to name to the checking driver
/// the driver objects in it that custack leaves behind when it cannot know the work is over.
pub(crate) trait Holds {
    /// The held payload.
    type Held;
    /// Names `held`'s driver objects as left behind on purpose.
    ///
    /// # Safety
    ///
    /// As [`Payload::left_behind`](crate::asynchronous::payload::Payload::left_behind): `held`
    /// is leaked right after.
    unsafe fn left_behind(held: &Self::Held);
}

/// Pending work's event and held payload (see the module documentation): `L` says what is
/// held ([`Holds`]), `E` where the event's context is.
pub(crate) struct Pending<L: Holds, E: EventHome> {
    event: ffi::CUevent,
    home: E,
    payload: ManuallyDrop<L::Held>,
    _holds: PhantomData<fn() -> L>,
}

impl<L: Holds, E: EventHome> Pending<L, E> {
    /// # Safety
    ///
    /// `event` is a live event of `home`'s context, recorded after every operation that uses
    /// `payload`, owned by nothing else.
    #[inline]
    pub(crate) unsafe fn new(event: ffi::CUevent, home: E, payload: L::Held) -> Self {
        Self {
            event,
            home,
            payload: ManuallyDrop::new(payload),
            _holds: PhantomData,
        }
    }

    /// The raw event recorded after the work.
    #[inline]
    pub(crate) fn raw_event(&self) -> ffi::CUevent {
        self.event
    }

    /// Where the event's context is.
    #[inline]
    pub(crate) fn home(&self) -> &E {
        &self.home
    }

    /// The payload in its held form, still in use by the work.
    #[inline]
    pub(crate) fn payload(&self) -> &L::Held {
        &self.payload
    }

    /// `cuEventSynchronize`, then the payload; see [`finish`](Self::finish).
    #[inline]
    #[track_caller]
    pub(crate) fn wait(self) -> Result<L::Held> {
        let r = match poison::check() {
            // SAFETY: a live event (destroyed only by `finish` or `drop`) of a live context; an
            // event of another context than the current one may be waited for.
            Ok(()) => unsafe { ffi::cuEventSynchronize(self.event) }.result_by(E::OBSERVER),
            // Poisoned (R20): not waited for, so the payload is leaked by `finish`.
            Err(poisoned) => Err(poisoned),
        };
        self.finish(r)
    }

    /// `cuEventQuery` until the work is complete or `deadline` passes: the payload (see
    /// [`finish`](Self::finish)), or the pending work back with how long it was waited for.
    #[inline]
    #[track_caller]
    pub(crate) fn wait_by(
        self,
        deadline: Deadline,
    ) -> Result<core::result::Result<L::Held, (Self, core::time::Duration)>> {
        if let Err(poisoned) = poison::check() {
            // Poisoned (R20): not waited for, so the payload is leaked by `finish`.
            return self.finish(Err(poisoned)).map(Ok);
        }
        let site = core::panic::Location::caller();
        // SAFETY: as in `wait`.
        match poll(deadline, E::OBSERVER, site, || unsafe {
            ffi::cuEventQuery(self.event)
        }) {
            Polled::Done(r) => self.finish(r).map(Ok),
            Polled::Overdue(waited) => Ok(Err((self, waited))),
        }
    }

    /// Gives up on the work without waiting: the event is destroyed (a pending record does not
    /// stop that) and the payload leaked, named to the checking driver as left behind.
    pub(crate) fn abandon(self) {
        let (event, home, payload) = self.into_all_parts();
        // SAFETY: the payload is leaked just below.
        unsafe { L::left_behind(&payload) };
        core::mem::forget(payload);
        destroy_event_in(home, event);
    }

    /// `cuEventQuery`: the payload if the work is complete, the pending work back if not.
    #[inline]
    #[track_caller]
    pub(crate) fn try_wait(self) -> Result<core::result::Result<L::Held, Self>> {
        if let Err(poisoned) = poison::check() {
            return self.finish(Err(poisoned)).map(Ok);
        }
        // SAFETY: as in `wait`.
        match unsafe { ffi::cuEventQuery(self.event) } {
            ffi::CUresult::CUDA_ERROR_NOT_READY => Ok(Err(self)),
            r => self.finish(r.result_by(E::OBSERVER)).map(Ok),
        }
    }

    /// `cuEventQuery`: whether the work is complete.
    #[inline]
    #[track_caller]
    pub(crate) fn is_complete(&self) -> Result<bool> {
        poison::check()?;
        // SAFETY: as in `wait`.
        match unsafe { ffi::cuEventQuery(self.event) } {
            ffi::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            r => r.result_by(E::OBSERVER).map(|()| true),
        }
    }

    /// Destroys the event and looks up the context's host-function panics, in the event's
    /// context; hands the payload back if `waited` (the event's synchronize or query)
    /// succeeded, leaks it otherwise (the work may still use it). On a host function's panic
    /// the work is complete: the payload is dropped.
    #[inline]
    fn finish(self, waited: Result<()>) -> Result<L::Held> {
        let (event, home, payload) = self.into_all_parts();
        let mut destroyed = false;
        let cleaned = home.with_context(|| {
            destroyed = destroy_event(event);
            super::host::check_panics()
        });
        if !destroyed {
            left_behind(Object::Event, event as u64);
        }
        match waited {
            Ok(()) => cleaned.map(|()| payload),
            Err(e) => {
                // SAFETY: the payload is leaked just below.
                unsafe { L::left_behind(&payload) };
                core::mem::forget(payload);
                // The clean-up's error too (a host function's panic, taken from the record
                // above; the push or pop of a parked submission's context): neither is lost.
                Err(match cleaned {
                    Err(c) => e.and_failed_too("the clean-up after it", &c),
                    Ok(()) => e,
                })
            }
        }
    }

    /// The event and the payload in its held form, without waiting.
    #[inline]
    pub(crate) fn into_parts(self) -> (ffi::CUevent, L::Held) {
        let (event, _, payload) = self.into_all_parts();
        (event, payload)
    }

    #[inline]
    fn into_all_parts(self) -> (ffi::CUevent, E, L::Held) {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: the payload is taken once; `this` never drops.
        let payload = unsafe { ManuallyDrop::take(&mut this.payload) };
        (this.event, this.home, payload)
    }
}

impl<L: Holds, E: EventHome> Drop for Pending<L, E> {
    fn drop(&mut self) {
        let waited = match poison::check() {
            // SAFETY: as in `wait`.
            Ok(()) => unsafe { ffi::cuEventSynchronize(self.event) }.result_by(E::OBSERVER),
            Err(poisoned) => Err(poisoned),
        };
        match waited {
            // SAFETY: the payload is dropped once, after the work that used it is complete.
            Ok(()) => unsafe { ManuallyDrop::drop(&mut self.payload) },
            Err(e) => {
                // The work may still use the payload: it is leaked, never freed.
                // SAFETY: the payload (`ManuallyDrop`) is not dropped on this path, nor after.
                unsafe { L::left_behind(&self.payload) };
                record_drop_error(e);
            }
        }
        destroy_event_in(self.home, self.event);
    }
}

/// Destroys `event` with `home`'s context current ([`destroy_event`]); an event not destroyed
/// (its context not pushed, the destroy failed or the process leaves it behind) is named left
/// behind, and a failed push recorded.
fn destroy_event_in<E: EventHome>(home: E, event: ffi::CUevent) {
    let mut destroyed = false;
    let pushed = home.with_context(|| {
        destroyed = destroy_event(event);
        Ok(())
    });
    if !destroyed {
        left_behind(Object::Event, event as u64);
    }
    if let Err(e) = pushed {
        record_drop_error(e);
    }
}

/// Destroys `event`, recording a failure; whether it was destroyed.
pub(crate) fn destroy_event(event: ffi::CUevent) -> bool {
    if !crate::error::left_behind::release_in_drop(Object::Event, event as u64) {
        return false;
    }
    // SAFETY: a live event of the current context, destroyed once. A pending record or a
    // stream's pending wait on it does not stop it from being destroyed (Event Management).
    match unsafe { ffi::cuEventDestroy_v2(event) }.result() {
        Ok(()) => true,
        Err(e) => {
            record_drop_error(e);
            false
        }
    }
}
