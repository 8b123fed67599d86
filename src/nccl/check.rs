//! The checks of an NCCL call's counts, ranks and peers against its bound buffers and its
//! communicator, before anything is enqueued (R15): pure functions, tested without a GPU.

use crate::error::{Error, ErrorKind, Result};
use core::ffi::c_int;

/// `len` holds at least `need` elements, or `BufferTooShort` naming the call and the argument.
pub(super) fn holds(call: &str, arg: &str, len: usize, need: usize, what: &str) -> Result<()> {
    if len >= need {
        return Ok(());
    }
    Err(Error::custack(
        ErrorKind::BufferTooShort,
        format!(
            "{call}: {arg} holds {len} elements, fewer than {what} {need}; nothing was enqueued"
        ),
    ))
}

/// `nranks × count`, or `SizeOverflow` naming the call.
pub(super) fn times_ranks(call: &str, nranks: usize, count: usize) -> Result<usize> {
    nranks.checked_mul(count).ok_or_else(|| {
        Error::custack(
            ErrorKind::SizeOverflow,
            format!("{call}: nranks {nranks} × count {count} overflows; nothing was enqueued"),
        )
    })
}

/// A rank of the communicator (`root`, `peer`) as NCCL's `int`, or `InvalidValue` naming it.
pub(super) fn rank(call: &str, arg: &str, rank: usize, nranks: usize) -> Result<c_int> {
    if rank < nranks {
        // `nranks` came from a `c_int` (the communicator's size), so `rank` fits.
        if let Ok(r) = c_int::try_from(rank) {
            return Ok(r);
        }
    }
    Err(Error::custack(
        ErrorKind::InvalidValue,
        format!(
            "{call}: {arg} {rank} is not a rank of this communicator of {nranks}; nothing was \
             enqueued"
        ),
    ))
}

/// A communicator's rank and size before it is made: `nranks ≥ 1`, `rank < nranks`, both C `int`s.
pub(super) fn clique(rank: usize, nranks: usize) -> Result<(c_int, c_int)> {
    let call = "ncclCommInitRankConfig";
    let n = c_int::try_from(nranks)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| {
            Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "{call}: nranks {nranks} is not between 1 and {}",
                    c_int::MAX
                ),
            )
        })?;
    let r = self::rank(call, "rank", rank, nranks)?;
    Ok((r, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_buffer_names_the_call_the_argument_and_the_need() {
        assert!(holds("ncclAllReduce", "recvbuff", 8, 8, "count").is_ok());
        let e = holds("ncclAllReduce", "recvbuff", 7, 8, "count").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        assert_eq!(
            e.detail(),
            Some(
                "ncclAllReduce: recvbuff holds 7 elements, fewer than count 8; nothing was \
                 enqueued"
            )
        );
    }

    #[test]
    fn all_gather_needs_nranks_times_count() {
        let need = times_ranks("ncclAllGather", 4, 16).unwrap();
        assert_eq!(need, 64);
        assert!(holds("ncclAllGather", "recvbuff", 64, need, "nranks × count").is_ok());
        let e = holds("ncclAllGather", "recvbuff", 63, need, "nranks × count").unwrap_err();
        assert!(
            e.detail()
                .unwrap()
                .contains("recvbuff holds 63 elements, fewer than nranks × count 64")
        );
        let e = times_ranks("ncclAllGather", 2, usize::MAX).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
    }

    #[test]
    fn ranks_outside_the_communicator_are_refused() {
        assert_eq!(rank("ncclBroadcast", "root", 1, 2).unwrap(), 1);
        let e = rank("ncclBroadcast", "root", 2, 2).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            e.detail()
                .unwrap()
                .starts_with("ncclBroadcast: root 2 is not a rank")
        );
        assert!(rank("ncclSend", "peer", usize::MAX, usize::MAX).is_err());
    }

    #[test]
    fn a_clique_has_at_least_one_rank_and_the_rank_in_it() {
        assert_eq!(clique(0, 1).unwrap(), (0, 1));
        assert_eq!(clique(3, 4).unwrap(), (3, 4));
        assert_eq!(clique(0, 0).unwrap_err().kind(), ErrorKind::InvalidValue);
        assert_eq!(clique(4, 4).unwrap_err().kind(), ErrorKind::InvalidValue);
        assert!(clique(0, usize::MAX).is_err());
    }
}
