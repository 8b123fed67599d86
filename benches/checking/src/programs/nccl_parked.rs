//! The program `nccl_parked` (R11, R20, R25): custack's NCCL communicators of one thread
//! (`nccl::comms`, `nccl::all_reduce_parked`), on NCCL's stand-in (`checkdriver/standins/nccl`,
//! a `libnccl.so.2` of one process whose collectives are work on their streams that the double
//! sees, held back until every rank of the clique took part). The double has one device, so
//! the clique's two ranks live in its primary context (the stand-in checks no device; NCCL
//! would refuse two ranks on one device), each with its own parked stream and buffers.
//!
//! Routes, in order:
//! 1. `nccl::comms` over the context twice: a group of two `ncclCommInitRankConfig`, polled
//!    ready.
//! 2. An all-reduce of both ranks (`all_reduce_parked`: `ncclGroupStart`, one `ncclAllReduce`
//!    per rank, `ncclGroupEnd`, each part's stream waited for): it completes; the receive
//!    buffers are attached, read and freed at once.
//! 3. An all-reduce of rank 0 alone (a user's mistake: the group's ranks do not all take part).
//!    NCCL's kernels wait for rank 1 for ever, so the stand-in never completes rank 0's work;
//!    custack's wait passes its deadline (`ErrorKind::DeadlinePassed`), and its error arm aborts
//!    the communicator (which ends the kernels), waits for the stream and hands the buffers
//!    back; they are freed at once.
//! 4. Rank 0 again: refused before anything is enqueued (aborted, with the deadline's kind).
//! 5. The communicators dropped: rank 1 finalized and destroyed; rank 0, aborted, not again.
//!
//! Under the fault schedules every one of these calls fails in turn (`NULLDRIVER_FAIL_AT`), and
//! from it on for ever (sticky, repeated, lost): rank 1's `ncclAllReduce` after rank 0's was
//! enqueued (the group's ranks do not all take part: rank 0's work is held back until the
//! abort), `ncclGroupEnd` (the group's work is held back until the abort), the polls of the
//! communicators and of the streams, the aborts, the waits of the error arm. In each, the double
//! reports a buffer freed while work that uses it may still run, or held-back work that never
//! ended (a synchronize of it is the double's hung exit): custack's error arm must end the work
//! before the buffers come back, or take the safe state.

use custack::nccl::{self, ParkedPart, ReduceOp};
use custack::{Context, DeviceMemory, Driver, ErrorKind, Result, Stack, StackTop};
use std::time::Duration;

/// Each communicator's timeout: none. Every wait of custack's asks once before it looks at its
/// deadline, and the stand-in answers at once whatever is complete (a clique whose ranks were
/// all made, a group whose ranks all took part), so routes 1, 2 and 5 never wait; route 3's
/// wait, which never completes, passes its deadline after one poll, so that the program's calls
/// are the same in every run (a longer timeout would poll thousands of times).
const TIMEOUT: Duration = Duration::ZERO;
/// Elements per buffer.
const N: usize = 64;

/// The routes of the file's opening.
pub(crate) fn nccl_parked() -> Result<()> {
    let ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    // 1. Two ranks of one clique, in one context.
    let comms = nccl::comms(&mut stack, &[&ctx, &ctx], TIMEOUT)?;
    let [rank0, rank1] = comms.as_slice() else {
        panic!("nccl::comms made {} communicators, not 2", comms.len());
    };
    assert_eq!((rank0.rank(), rank1.rank(), rank0.nranks()), (0, 1, 2));
    let parked = stack.with_pushed(&ctx, |g| -> Result<_> {
        Ok((
            (g.park_stream(g.stream()?), g.park_stream(g.stream()?)),
            (
                g.park(g.alloc_from(&[1u32; N])?),
                g.park(g.alloc_from(&[2u32; N])?),
            ),
            (
                g.park(g.alloc_zeroed::<u32>(N)?),
                g.park(g.alloc_zeroed::<u32>(N)?),
            ),
        ))
    })??;
    let ((s0, s1), (send0, send1), (mut recv0, mut recv1)) = parked;
    // 2. Both ranks: complete.
    nccl::all_reduce_parked(
        &mut [
            ParkedPart {
                comm: rank0,
                stream: &s0,
                send: &send0,
                recv: &mut recv0,
            },
            ParkedPart {
                comm: rank1,
                stream: &s1,
                send: &send1,
                recv: &mut recv1,
            },
        ],
        N,
        ReduceOp::Sum,
    )?;
    // The buffers are the caller's again: read, then freed (the stand-in moves no data).
    let got = stack.with_pushed(&ctx, |g| -> Result<_> {
        let out = g.attach(recv1)?.to_vec()?;
        Ok((out, g.park(g.alloc_zeroed::<u32>(N)?)))
    })??;
    let (out, recv1) = got;
    assert_eq!(out.len(), N);
    // 3. Rank 0 alone: its group never completes; the error arm ends it.
    let e = nccl::all_reduce_parked(
        &mut [ParkedPart {
            comm: rank0,
            stream: &s0,
            send: &send0,
            recv: &mut recv0,
        }],
        N,
        ReduceOp::Sum,
    );
    match e {
        Err(e) if e.kind() == ErrorKind::DeadlinePassed => {}
        Err(e) => return Err(e),
        Ok(()) => panic!("a group without rank 1 completed"),
    }
    // Handed back: freed now, while the double still knows what rank 0's work used.
    stack.with_pushed(&ctx, |g| g.attach(recv0).map(drop))??;
    let mut recv0 = stack.with_pushed(&ctx, |g| g.alloc_zeroed::<u32>(N).map(|b| g.park(b)))??;
    // 4. Rank 0 was aborted: refused before anything is enqueued.
    let refused = nccl::all_reduce_parked(
        &mut [ParkedPart {
            comm: rank0,
            stream: &s0,
            send: &send0,
            recv: &mut recv0,
        }],
        N,
        ReduceOp::Sum,
    );
    match refused {
        Err(e) if e.kind() == ErrorKind::DeadlinePassed => {}
        Err(e) => return Err(e),
        Ok(()) => panic!("an aborted communicator took an all-reduce"),
    }
    // 5. The buffers and streams dropped (each pushes the context), then the communicators.
    drop((send0, send1, recv0, recv1, s0, s1));
    drop(comms);
    Ok(())
}
