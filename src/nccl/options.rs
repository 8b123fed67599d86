//! How a communicator is made and paced: [`NcclCalls`] (settled non-blocking calls, or the
//! opt-in blocking calls of a split child), [`CommOptions`] (that mode and the cap on un-waited
//! calls), and the pure checks behind them (the cap's arithmetic, the environment the blocking
//! mode needs), tested without a GPU.

use crate::error::{Error, ErrorKind, Result};
use core::cell::Cell;
use std::ffi::OsStr;

/// How a [`Comm`](super::Comm)'s calls reach NCCL; see the [module docs](crate::nccl) (R16).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NcclCalls {
    /// A non-blocking communicator, every call polled (`ncclCommGetAsyncError`) until NCCL's
    /// thread has enqueued it, at most the communicator's timeout: every wait bounded on
    /// NCCL's documented behaviour, 50–100 µs of host time a call. The default.
    #[default]
    Settled,
    /// A blocking communicator split (`ncclCommSplit`) from a non-blocking one, both made
    /// within the timeout, every connection made at its init (`NCCL_RUNTIME_CONNECT=0` in the
    /// process's environment, checked); before each call one look at
    /// `ncclCommGetAsyncError`, and never more than the cap of calls un-waited. As fast as
    /// NCCL's blocking default; its calls are bounded only on a condition NCCL does not
    /// promise (a connected communicator with at most the cap of calls in flight never blocks
    /// inside a call: R16, the safety manual's limitations). Not part of the restricted
    /// profile.
    Blocking,
}

/// How [`PushedGuard::nccl_comm_with`](crate::PushedGuard::nccl_comm_with) makes a
/// communicator: its [`NcclCalls`] mode and its cap on un-waited calls.
///
/// A call that would take the communicator's un-waited calls (collectives, sends and
/// receives, a batch counting each of its calls, since the last bounded wait for the stream)
/// past the cap first waits for the stream it is issued on, bounded as
/// [`Comm::wait`](super::Comm::wait) is, with its errors. The cap keeps NCCL's queues short, so
/// that an abort after a dead rank ends in bounded time.
///
/// # Examples
///
/// ```
/// use custack::nccl::{CommOptions, NcclCalls};
/// let options = CommOptions::new().calls(NcclCalls::Blocking).unwaited_cap(16)?;
/// assert_eq!((options.mode(), options.cap()), (NcclCalls::Blocking, 16));
/// assert!(CommOptions::new().unwaited_cap(65).is_err()); // 1..=64
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommOptions {
    calls: NcclCalls,
    cap: u32,
}

impl Default for CommOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl CommOptions {
    /// The most un-waited calls a communicator allows, and its default cap: measured on two
    /// GPUs, NCCL's work queue filled after 1,022 un-waited 4 MiB all-reduces and the next
    /// call blocked without bound; an abort with thousands un-waited hung.
    pub const MAX_UNWAITED: usize = 64;

    /// [`NcclCalls::Settled`], a cap of [`MAX_UNWAITED`](Self::MAX_UNWAITED).
    pub const fn new() -> Self {
        Self {
            calls: NcclCalls::Settled,
            cap: Self::MAX_UNWAITED as u32,
        }
    }

    /// The call mode.
    #[must_use]
    pub const fn calls(self, calls: NcclCalls) -> Self {
        Self { calls, ..self }
    }

    /// The cap on un-waited calls, `1..=64`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for a cap outside `1..=64`.
    pub fn unwaited_cap(self, cap: usize) -> Result<Self> {
        match u32::try_from(cap) {
            Ok(c) if (1..=Self::MAX_UNWAITED).contains(&cap) => Ok(Self { cap: c, ..self }),
            _ => Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "an NCCL communicator's cap on un-waited calls is 1..={}, not {cap}",
                    Self::MAX_UNWAITED
                ),
            )),
        }
    }

    /// The call mode.
    pub const fn mode(self) -> NcclCalls {
        self.calls
    }

    /// The cap on un-waited calls.
    pub const fn cap(self) -> usize {
        self.cap as usize
    }
}

/// A communicator's pace: its mode, its cap and how many of its calls are un-waited.
#[derive(Debug)]
pub(super) struct Pace {
    pub(super) calls: NcclCalls,
    pub(super) cap: u32,
    /// Calls issued since the last bounded wait for a stream (`Comm::wait`, the cap's own).
    pub(super) unwaited: Cell<u32>,
}

impl Pace {
    pub(super) fn new(options: CommOptions) -> Self {
        Self {
            calls: options.calls,
            cap: options.cap,
            unwaited: Cell::new(0),
        }
    }

    /// The same pace, for the same communicator moved into another value (parked, attached).
    pub(super) fn carried_over(&self) -> Self {
        Self {
            calls: self.calls,
            cap: self.cap,
            unwaited: Cell::new(Cell::get(&self.unwaited)),
        }
    }

    /// Whether `adding` calls (one, or a batch's) must first wait for the stream; `Err`
    /// (`InvalidValue`, nothing enqueued) when they are more than the cap on their own.
    pub(super) fn must_wait(&self, call: &str, adding: usize) -> Result<bool> {
        must_wait(call, Cell::get(&self.unwaited), adding, self.cap)
    }

    /// `adding` calls were issued.
    pub(super) fn issued(&self, adding: usize) {
        let adding = u32::try_from(adding).unwrap_or(u32::MAX);
        self.unwaited
            .set(Cell::get(&self.unwaited).saturating_add(adding));
    }

    /// A bounded wait for the stream succeeded: nothing is un-waited.
    pub(super) fn waited(&self) {
        self.unwaited.set(0);
    }
}

/// Whether `adding` calls on top of `unwaited` pass `cap` (so the stream must be waited for
/// first); `InvalidValue` naming `call` when `adding` alone does (a batch larger than the cap,
/// which no wait makes room for: issue it in parts).
pub(super) fn must_wait(call: &str, unwaited: u32, adding: usize, cap: u32) -> Result<bool> {
    let cap_calls = cap as usize;
    if adding > cap_calls {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "{call}: {adding} calls at once are more than this communicator's cap of \
                 {cap} un-waited calls; issue them in parts of at most {cap}; nothing was \
                 enqueued"
            ),
        ));
    }
    Ok(unwaited as usize + adding > cap_calls)
}

/// `Ok` where `NCCL_RUNTIME_CONNECT` (`value`) is `0`, which makes NCCL connect every
/// algorithm at init, so that no call of a blocking communicator waits on a peer's handshake.
/// NCCL reads it once per process, before its first init; a library cannot set it (no
/// `set_var` in a threaded process), so the blocking mode only checks it.
pub(super) fn require_runtime_connect_off(value: Option<&OsStr>) -> Result<()> {
    if value == Some(OsStr::new("0")) {
        return Ok(());
    }
    let shown = match value {
        None => "unset".to_owned(),
        Some(v) => format!("{:?}", v.to_string_lossy()),
    };
    Err(Error::custack(
        ErrorKind::InvalidValue,
        format!(
            "NcclCalls::Blocking needs NCCL_RUNTIME_CONNECT=0 in the process's environment \
             before its first NCCL init (every connection made at init, so that no call waits \
             on a peer), and it is {shown}: set it where the process starts, or use \
             NcclCalls::Settled"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_one_to_sixty_four_and_anything_else_is_an_error() {
        assert_eq!(CommOptions::new().cap(), 64);
        assert_eq!(CommOptions::default().mode(), NcclCalls::Settled);
        for ok in [1, 2, 63, 64] {
            assert_eq!(CommOptions::new().unwaited_cap(ok).unwrap().cap(), ok);
        }
        for bad in [0, 65, 1022, usize::MAX] {
            let e = CommOptions::new().unwaited_cap(bad).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
            assert!(e.detail().unwrap().contains("1..=64"), "{e}");
        }
        let o = CommOptions::new().calls(NcclCalls::Blocking);
        assert_eq!((o.mode(), o.cap()), (NcclCalls::Blocking, 64));
    }

    #[test]
    fn a_call_past_the_cap_waits_first_and_a_batch_past_it_alone_is_refused() {
        // Up to the cap: issued without a wait.
        assert!(!must_wait("ncclAllReduce", 0, 1, 64).unwrap());
        assert!(!must_wait("ncclAllReduce", 63, 1, 64).unwrap());
        // The 65th: a wait first.
        assert!(must_wait("ncclAllReduce", 64, 1, 64).unwrap());
        assert!(must_wait("ncclAllReduce", 0, 2, 1).is_err());
        assert!(must_wait("ncclAllReduce", 1, 1, 1).unwrap());
        assert!(!must_wait("ncclAllReduce", 0, 1, 1).unwrap());
        // A batch counts its calls.
        assert!(!must_wait("ncclGroupEnd", 44, 20, 64).unwrap());
        assert!(must_wait("ncclGroupEnd", 45, 20, 64).unwrap());
        assert!(!must_wait("ncclGroupEnd", 0, 64, 64).unwrap());
        let e = must_wait("ncclGroupEnd", 0, 65, 64).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            e.detail().unwrap().starts_with(
                "ncclGroupEnd: 65 calls at once are more than this communicator's cap of 64"
            ),
            "{e}"
        );
    }

    #[test]
    fn the_pace_counts_issued_calls_and_a_wait_resets_it() {
        let pace = Pace::new(CommOptions::new().unwaited_cap(3).unwrap());
        let mut waits = 0;
        for _ in 0..200 {
            if pace.must_wait("ncclAllReduce", 1).unwrap() {
                pace.waited();
                waits += 1;
            }
            pace.issued(1);
            assert!(pace.unwaited.get() <= 3);
        }
        // 200 calls, at most 3 un-waited: a wait before the 4th, 7th, … 199th.
        assert_eq!(waits, 66);
        assert_eq!(pace.unwaited.get(), 2);
    }

    #[test]
    fn the_blocking_mode_needs_runtime_connect_set_to_zero() {
        assert!(require_runtime_connect_off(Some(OsStr::new("0"))).is_ok());
        for bad in [None, Some("1"), Some(" 0"), Some(""), Some("00")] {
            let e = require_runtime_connect_off(bad.map(OsStr::new)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
            assert!(
                e.detail().unwrap().contains("needs NCCL_RUNTIME_CONNECT=0"),
                "{e}"
            );
        }
    }
}
