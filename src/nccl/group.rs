//! One NCCL group (`ncclGroupStart` … `ncclGroupEnd`) on this thread, owned by a [`Group`]:
//! started when it is made, ended exactly once, by [`Group::end`] (which waits until NCCL has
//! done what the group issued) or by its drop on an early return (which aborts its
//! communicators).
//!
//! NCCL enqueues a group's work only when the group ends, after anything else enqueued inside
//! it, so a group never outlives the custack call that opens it: every `Group` is a local of
//! one function whose arguments borrow the memory its calls use, and it has ended, one way or
//! the other, before that function returns. No group is public.

use super::status::{Stalled, poll, status, status_error};
use crate::deadline::Deadline;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::ffi::nccl::{ncclComm_t, ncclResult_t};
use core::marker::PhantomData;
use std::time::Duration;

/// A communicator that calls inside a [`Group`] are issued on: [`Comm`](super::Comm) and
/// [`ParkedComm`](super::ParkedComm).
pub(super) trait Member {
    /// The live communicator, or the error it was aborted with.
    fn live(&self, call: &str) -> Result<ncclComm_t>;
    /// `ncclCommAbort` (idempotent), remembering `kind` for every later call: ends its pending
    /// work and joins NCCL's threads, so nothing of the group is enqueued after this returns.
    fn abort_with(&self, kind: ErrorKind);
    /// The error of a wait for `call` that passed its deadline after `waited` of polling
    /// ([`ErrorKind::DeadlinePassed`]).
    fn timed_out(&self, call: &str, waited: Duration) -> Error;
}

impl<M: Member + ?Sized> Member for &M {
    fn live(&self, call: &str) -> Result<ncclComm_t> {
        (**self).live(call)
    }
    fn abort_with(&self, kind: ErrorKind) {
        (**self).abort_with(kind);
    }
    fn timed_out(&self, call: &str, waited: Duration) -> Error {
        (**self).timed_out(call, waited)
    }
}

/// An open NCCL group of this thread and the communicators its calls were issued on.
///
/// Ended exactly once: [`end`](Self::end) ends it and polls every member until NCCL has done
/// what the group issued; dropped before that (an early return), it ends the group and aborts
/// every member, so that no NCCL thread enqueues the group's work after the call that opened it
/// has returned. Either way a failure aborts every member.
#[must_use = "a group's work is enqueued only when it ends"]
pub(super) struct Group<M: Member> {
    /// The communicators the group's calls were issued on, each with the deadline its wait is
    /// bounded by.
    members: Vec<(M, Deadline)>,
    /// The kind of the first error of a step inside the group ([`check`](Self::check),
    /// [`issued`](Self::issued)), being returned by the early return that drops the group.
    failed: Option<ErrorKind>,
    /// Until `ncclGroupEnd` is called.
    open: bool,
    /// An NCCL group belongs to the thread that started it: `!Send`, `!Sync`.
    _thread: PhantomData<*const ()>,
}

impl<M: Member> Group<M> {
    /// `ncclGroupStart`—Opens a group on this thread.
    ///
    /// # Errors
    ///
    /// NCCL's status; no group is open then.
    pub(super) fn start() -> Result<Self> {
        // SAFETY: opens a group on this thread, which the `Group` returned closes exactly once,
        // on this thread (`!Send`), by `end` or by its drop, before the function that owns it
        // returns; no group is open when `ncclGroupStart` fails.
        let started = unsafe { ffi::nccl::ncclGroupStart() };
        status("ncclGroupStart", core::ptr::null_mut(), started)?;
        Ok(Self {
            members: Vec::new(),
            failed: None,
            open: true,
            _thread: PhantomData,
        })
    }

    /// Adds a communicator that calls inside the group are issued on: polled by
    /// [`end`](Self::end) at most until `deadline`, aborted when the group fails.
    pub(super) fn join(&mut self, member: M, deadline: Deadline) {
        self.members.push((member, deadline));
    }

    /// Passes on the result of a step inside the group; an error is remembered, so that the
    /// drop that the early return with it causes aborts the members with its kind.
    pub(super) fn check<R>(&mut self, result: Result<R>) -> Result<R> {
        if let Err(e) = &result {
            self.failed.get_or_insert(e.kind());
        }
        result
    }

    /// The status of `call`, issued inside the group on `comm`: `ncclSuccess`, or
    /// `ncclInProgress` (done by NCCL's thread when the group ends), is `Ok`; any other status
    /// is the error, remembered as in [`check`](Self::check).
    pub(super) fn issued(
        &mut self,
        call: &str,
        comm: ncclComm_t,
        result: ncclResult_t,
    ) -> Result<()> {
        if accepted(result) {
            return Ok(());
        }
        self.check(Err(status_error(call, comm, result)))
    }

    /// `ncclGroupEnd`—Ends the group, which enqueues its calls, then polls every member
    /// (`ncclCommGetAsyncError`) until it is no longer `ncclInProgress`, each at most until its
    /// deadline; returns the members.
    ///
    /// # Errors
    ///
    /// NCCL's status of `ncclGroupEnd` or of a member's poll (named `call`), or a member's
    /// [`timed_out`](Member::timed_out); every member is aborted then, so no NCCL thread is
    /// left enqueueing the group's work.
    pub(super) fn end(mut self, call: &str) -> Result<Vec<M>> {
        let ended = self.close();
        let members = core::mem::take(&mut self.members);
        let settled = match self.failed {
            // A step's error was ignored rather than returned: fail as its drop would have.
            Some(kind) => Err(Error::custack(
                kind,
                format!("{call}: a call inside the group failed; its communicators were aborted"),
            )),
            None if !accepted(ended) => {
                Err(status_error("ncclGroupEnd", core::ptr::null_mut(), ended))
            }
            None => members.iter().try_for_each(|(m, deadline)| {
                match poll(m.live(call)?, call, *deadline) {
                    Ok(()) => Ok(()),
                    Err(Stalled::Failed(e)) => Err(e),
                    Err(Stalled::TimedOut(waited)) => Err(m.timed_out(call, waited)),
                }
            }),
        };
        if let Err(e) = settled {
            for (m, _) in &members {
                m.abort_with(e.kind());
            }
            return Err(e);
        }
        Ok(members.into_iter().map(|(m, _)| m).collect())
    }

    /// `ncclGroupEnd`, once: `ncclSuccess` once the group has ended already.
    fn close(&mut self) -> ncclResult_t {
        if !core::mem::replace(&mut self.open, false) {
            return ncclResult_t::ncclSuccess;
        }
        // SAFETY: closes the group `start` opened on this thread (a `Group` is `!Send`), once:
        // `open` is false from now on. NCCL enqueues its calls now, whose memory the function
        // owning this group still borrows.
        unsafe { ffi::nccl::ncclGroupEnd() }
    }
}

impl<M: Member> Drop for Group<M> {
    /// An early return: ends the group and aborts every member, so that nothing the group
    /// issued is still being enqueued once the caller has returned.
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        let ended = self.close();
        // The error being returned, which NCCL's `ncclGroupEnd` repeats; or, where no step
        // failed that the caller saw, one recorded here, as nothing else reports it.
        let kind = self.failed.unwrap_or_else(|| left_early(ended));
        for (m, _) in &self.members {
            m.abort_with(kind);
        }
    }
}

/// Records why a group ended by its drop although no step inside it failed (`ended`:
/// `ncclGroupEnd`'s status), and returns the kind its communicators are aborted with.
#[cold]
fn left_early(ended: ncclResult_t) -> ErrorKind {
    let e = if accepted(ended) {
        Error::custack(
            ErrorKind::NcclInvalidUsage,
            "an NCCL group was left before it ended; its communicators were aborted",
        )
    } else {
        status_error("ncclGroupEnd", core::ptr::null_mut(), ended)
    };
    let kind = e.kind();
    record_drop_error(e);
    kind
}

/// Whether an NCCL call inside a group (or `ncclGroupEnd`) was accepted: `ncclSuccess`, or
/// `ncclInProgress` (a non-blocking communicator's work, done by NCCL's thread).
fn accepted(result: ncclResult_t) -> bool {
    result == ncclResult_t::ncclSuccess || result == ncclResult_t::ncclInProgress
}

#[cfg(test)]
mod tests {
    // NCCL's group calls need no GPU: a group with no communicator's call in it starts and ends
    // on any machine with NCCL linked.
    use super::*;
    use crate::error::take_drop_errors;
    use core::cell::Cell;

    /// A member that is never a communicator: `live` refuses (so nothing polls it) and
    /// `abort_with` remembers the kind.
    #[derive(Debug, Default)]
    struct Fake {
        aborted: Cell<Option<ErrorKind>>,
    }

    impl Member for Fake {
        fn live(&self, call: &str) -> Result<ncclComm_t> {
            Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("{call}: not a communicator"),
            ))
        }
        fn abort_with(&self, kind: ErrorKind) {
            self.aborted.set(Some(kind));
        }
        fn timed_out(&self, call: &str, waited: Duration) -> Error {
            crate::deadline::passed(format_args!("{call}"), waited)
        }
    }

    /// No group is open on this thread: NCCL refuses an `ncclGroupEnd` without its start, so a
    /// group ended twice or not at all would show here.
    fn assert_no_group_open() {
        // SAFETY: `ncclGroupEnd` takes no argument; outside a group it only returns
        // `ncclInvalidUsage`.
        let ended = unsafe { ffi::nccl::ncclGroupEnd() };
        assert_eq!(ended, ncclResult_t::ncclInvalidUsage);
    }

    #[test]
    #[cfg_attr(custack_no_nccl, ignore = "needs NCCL linked")]
    fn an_empty_group_ends_once_and_returns_its_members() {
        let fake = Fake::default();
        let group = Group::<&Fake>::start().unwrap();
        assert!(group.end("ncclAllReduce").unwrap().is_empty());
        assert_no_group_open();
        assert_eq!(fake.aborted.get(), None);
    }

    #[test]
    #[cfg_attr(custack_no_nccl, ignore = "needs NCCL linked")]
    fn a_failed_call_ends_the_group_on_drop_and_aborts_every_member_with_its_kind() {
        let (a, b) = (Fake::default(), Fake::default());
        let mut group = Group::start().unwrap();
        group.join(&a, Deadline::NEVER);
        assert!(
            group
                .issued(
                    "ncclSend",
                    core::ptr::null_mut(),
                    ncclResult_t::ncclInProgress
                )
                .is_ok()
        );
        group.join(&b, Deadline::NEVER);
        let e = group
            .issued(
                "ncclRecv",
                core::ptr::null_mut(),
                ncclResult_t::ncclInvalidArgument,
            )
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NcclInvalidArgument);
        assert!(e.detail().unwrap().starts_with("ncclRecv returned"), "{e}");
        drop(group); // the early return
        assert_no_group_open();
        assert_eq!(a.aborted.get(), Some(ErrorKind::NcclInvalidArgument));
        assert_eq!(b.aborted.get(), Some(ErrorKind::NcclInvalidArgument));
        // The caller returns that error: nothing is recorded besides.
        assert!(take_drop_errors().is_empty());
    }

    #[test]
    #[cfg_attr(custack_no_nccl, ignore = "needs NCCL linked")]
    fn a_checked_step_error_is_the_kind_the_members_are_aborted_with() {
        let fake = Fake::default();
        let mut group = Group::start().unwrap();
        group.join(&fake, Deadline::NEVER);
        let pushed: Result<()> = Err(Error::custack(ErrorKind::ContextMismatch, "pushed"));
        assert!(group.check(pushed).is_err());
        drop(group);
        assert_no_group_open();
        assert_eq!(fake.aborted.get(), Some(ErrorKind::ContextMismatch));
        assert!(take_drop_errors().is_empty());
    }

    #[test]
    #[cfg_attr(custack_no_nccl, ignore = "needs NCCL linked")]
    fn a_group_left_without_an_error_records_one() {
        let fake = Fake::default();
        let mut group = Group::start().unwrap();
        group.join(&fake, Deadline::NEVER);
        drop(group);
        assert_no_group_open();
        assert_eq!(fake.aborted.get(), Some(ErrorKind::NcclInvalidUsage));
        let recorded = take_drop_errors();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].kind(), ErrorKind::NcclInvalidUsage);
    }

    #[test]
    #[cfg_attr(custack_no_nccl, ignore = "needs NCCL linked")]
    fn a_member_that_cannot_be_polled_fails_the_end_and_every_member_is_aborted() {
        let (a, b) = (Fake::default(), Fake::default());
        let mut group = Group::start().unwrap();
        group.join(&a, Deadline::NEVER);
        group.join(&b, Deadline::NEVER);
        let e = group.end("ncclAllReduce").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert_no_group_open();
        assert_eq!(a.aborted.get(), Some(ErrorKind::InvalidValue));
        assert_eq!(b.aborted.get(), Some(ErrorKind::InvalidValue));
        assert!(take_drop_errors().is_empty());
    }
}
