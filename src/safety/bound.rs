//! The bound of every wait of a restricted context ([`WaitBound`]): stated once, with the
//! context's [`Budget`](crate::safety::Budget), and what happens past it ([`OnOverrun`]).

use crate::deadline::Deadline;
use crate::error::{Error, ErrorKind, Result};
use std::time::Duration;

/// What a wait of a restricted context does past its bound, where nothing it waits for is
/// borrowed (a stream's or an event's `synchronize`). A scope borrows its memory, so a scope
/// past its bound always takes the safe state ([`fail_stop`](crate::fail_stop)), whatever
/// this says: returning while the GPU may still write what it borrows would free memory under
/// the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnOverrun {
    /// End the process in custack's one safe state (exit status
    /// [`FAIL_STOP_STATUS`](crate::FAIL_STOP_STATUS)): one line on stderr, which a supervisor
    /// reads as "start a new process for this work".
    FailStop,
    /// Return [`ErrorKind::DeadlinePassed`]: the work may still be running, and nothing of the
    /// program's is freed under it (the wait borrowed nothing).
    ReturnError,
}

/// How long any one wait of a restricted context may take, and what happens past it: stated
/// once for the whole context, in its [`Budget`](crate::safety::Budget). Every wait the run
/// phase can make is bounded by it: a scope's end, a stream's and an event's `synchronize`.
///
/// # Examples
///
/// ```
/// use custack::safety::{OnOverrun, WaitBound};
/// use std::time::Duration;
/// let bound = WaitBound::fail_stop(Duration::from_millis(50));
/// assert_eq!(bound.limit(), Duration::from_millis(50));
/// assert_eq!(bound.on_overrun(), OnOverrun::FailStop);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WaitBound {
    limit: Duration,
    on_overrun: OnOverrun,
}

impl WaitBound {
    /// The bound of a [`Budget`](crate::safety::Budget) that states none: every wait at most
    /// ten seconds, past it the safe state. Generous, so that it only ends a hang; a program
    /// states its own with [`Budget::waits`](crate::safety::Budget::waits).
    pub const DEFAULT: Self = Self::fail_stop(Duration::from_secs(10));

    /// Every wait at most `limit`; past it, the safe state.
    pub const fn fail_stop(limit: Duration) -> Self {
        Self {
            limit,
            on_overrun: OnOverrun::FailStop,
        }
    }

    /// Every wait at most `limit`; past it, scopes take the safe state and the waits that
    /// borrow nothing return [`ErrorKind::DeadlinePassed`].
    pub const fn return_error(limit: Duration) -> Self {
        Self {
            limit,
            on_overrun: OnOverrun::ReturnError,
        }
    }

    /// The longest any one wait may take.
    pub const fn limit(self) -> Duration {
        self.limit
    }

    /// What a wait that borrows nothing does past the bound.
    pub const fn on_overrun(self) -> OnOverrun {
        self.on_overrun
    }

    /// The deadline of a wait that starts now.
    pub(crate) fn deadline(self) -> Deadline {
        Deadline::after(self.limit)
    }

    /// `deadline`, or the deadline of a wait that starts now where that comes first: a deadline
    /// a program gives can shorten the context's bound, never lengthen it.
    pub(crate) fn nearer(self, deadline: Deadline) -> Deadline {
        let own = self.deadline();
        match (deadline.instant(), own.instant()) {
            (Some(given), Some(bound)) if given < bound => deadline,
            // A bound the clock cannot represent (`Deadline::NEVER`): any given deadline is
            // nearer.
            (Some(_), None) => deadline,
            _ => own,
        }
    }

    /// The outcome of a wait that borrowed nothing: past its deadline, the context's choice.
    pub(crate) fn settle(self, waited: Result<()>) -> Result<()> {
        match waited {
            Err(e) if e.kind() == ErrorKind::DeadlinePassed => self.overran(e),
            other => other,
        }
    }

    fn overran(self, e: Error) -> Result<()> {
        match self.on_overrun {
            OnOverrun::FailStop => crate::error::fail_stop(&e),
            OnOverrun::ReturnError => Err(e),
        }
    }
}

impl Default for WaitBound {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bound_keeps_its_limit_and_its_policy() {
        let (short, long) = (Duration::from_millis(5), Duration::from_secs(7));
        let stop = WaitBound::fail_stop(short);
        let ret = WaitBound::return_error(long);
        assert_eq!(
            (stop.limit(), stop.on_overrun()),
            (short, OnOverrun::FailStop)
        );
        assert_eq!(
            (ret.limit(), ret.on_overrun()),
            (long, OnOverrun::ReturnError)
        );
        let default = WaitBound::default();
        assert_eq!(
            (default.limit(), default.on_overrun()),
            (Duration::from_secs(10), OnOverrun::FailStop)
        );
    }

    #[test]
    fn a_returned_overrun_is_the_wait_s_own_error_and_other_outcomes_pass_through() {
        let bound = WaitBound::return_error(Duration::from_millis(5));
        let late = Error::custack(ErrorKind::DeadlinePassed, "the stream was not complete");
        assert_eq!(bound.settle(Err(late.clone())), Err(late));
        assert_eq!(bound.settle(Ok(())), Ok(()));
        let other = Error::from_kind(ErrorKind::InvalidValue);
        // Not an overrun: returned as it is, whatever the policy (fail-stop included).
        assert_eq!(
            WaitBound::fail_stop(Duration::ZERO).settle(Err(other.clone())),
            Err(other)
        );
    }

    /// Past the bound, a fail-stop bound ends the process in the safe state (status 75), never
    /// returns the overrun: in a forked child, whose exit status the parent reads.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_fail_stop_overrun_ends_the_process_in_the_safe_state() {
        crate::alone::rerun_alone!(a_fail_stop_overrun_ends_the_process_in_the_safe_state);
        // SAFETY: the child only settles an error (which writes one line and `_exit`s) or, if
        // settling returned, `_exit`s with 0 itself.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: the child's stderr is closed: its one line is not the test's output.
            unsafe { libc::close(2) };
            let late = Error::custack(ErrorKind::DeadlinePassed, "in a test");
            let _ = WaitBound::fail_stop(Duration::ZERO).settle(Err(late));
            // SAFETY: ends the forked child without running the harness's code.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        assert_eq!(libc::WEXITSTATUS(status), crate::error::FAIL_STOP_STATUS);
    }

    #[test]
    fn a_given_deadline_shortens_the_bound_and_never_lengthens_it() {
        let bound = WaitBound::fail_stop(Duration::from_secs(60));
        let soon = Deadline::after(Duration::from_millis(1));
        assert_eq!(bound.nearer(soon), soon);
        // Later than the bound, or none: the bound's own deadline, a minute from the call.
        let minute = Duration::from_secs(60);
        for late in [Deadline::after(Duration::from_secs(3600)), Deadline::NEVER] {
            let before = std::time::Instant::now();
            let got = bound.nearer(late).instant().expect("a bounded deadline");
            let after = std::time::Instant::now();
            assert!(before + minute <= got && got <= after + minute);
        }
        // A bound too long for the clock is no deadline: a given one still shortens it.
        let endless = WaitBound::fail_stop(Duration::MAX);
        assert_eq!(endless.nearer(soon), soon);
        assert_eq!(endless.nearer(Deadline::NEVER), Deadline::NEVER);
    }
}
