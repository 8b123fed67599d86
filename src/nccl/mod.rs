//! NCCL under the guard (cargo feature `nccl`): a [`Comm`]unicator lent by a [`PushedGuard`],
//! whose collectives and point-to-point calls enqueue on a [`StreamScope`] with bound device
//! memory, every count checked before anything is enqueued, and every wait bounded by a
//! timeout the user sets.
//!
//! # The communicator
//!
//! [`PushedGuard::nccl_comm`] makes this process's rank of a clique (`ncclCommInitRankConfig`)
//! while the guard's context is current. [`Comm<'g>`](Comm) borrows the guard, like the streams
//! and buffers it lends, so the compiler refuses (C25) a communicator used after its guard
//! popped, while another context is pushed on top, or on another thread (`!Send`, `!Sync`).
//!
//! NCCL works in each device's *primary* context (its threads select the device with the
//! runtime's `cudaSetDevice`), so the guard must be one of [`Context::primary`](crate::Context::primary):
//! `nccl_comm` refuses any other context with `CUDA_ERROR_INVALID_CONTEXT`, before NCCL is called.
//!
//! Every rank gets the same [`UniqueId`], made once by rank 0 ([`unique_id`]) and sent to the
//! others out of band: [`crate::rendezvous::Job::share`] does that over TCP, with the
//! launcher's variables (`RANK`, `WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT`, as `torchrun` sets
//! them).
//!
//! # Calls
//!
//! Every call takes the [`StreamScope`] to enqueue on and device memory bound to that scope:
//! what NCCL reads as [`ScopedRead`] (`s.bind(&x)`), what it writes as [`ScopedWrite`]
//! (`s.bind_mut(&mut y)`; a read-only binding as the output fails to compile). The element
//! type comes from the Rust type ([`NcclType`]). Counts, roots and peers are checked against
//! the buffers and the communicator before anything is enqueued (R15): an all-gather's receive
//! buffer must hold `nranks × count` elements, a reduce-scatter's send buffer too; a refused
//! call is [`ErrorKind::BufferTooShort`], [`ErrorKind::InvalidValue`] or
//! [`ErrorKind::SizeOverflow`] naming the call and the argument
//! (`ncclAllGather: recvbuff holds 63 elements, fewer than nranks × count 64; nothing was enqueued`).
//! NCCL's statuses are the `Nccl…` kinds ([`ErrorKind::NcclRemoteError`], …), their detail
//! NCCL's last error message.
//!
//! A send and a receive that must happen together (every rank sends to the next and receives
//! from the previous) are one call, [`Comm::send_recv`], which issues both inside one NCCL
//! group and returns once NCCL has enqueued them. There is no open-ended group: NCCL enqueues a
//! group's work only when it ends, after anything else the program enqueued inside it (a
//! scope's allocation freed, a copy of what the group receives), so custack keeps every group
//! inside one of its own calls.
//!
//! # Batches
//!
//! A non-blocking communicator (below) enqueues each call on a thread NCCL starts for it, and
//! takes no further call until that thread is done: tens of microseconds per call, more than a
//! small all-reduce takes on the GPU. [`Comm::batch`] records calls, each checked as it is
//! recorded, and [`Batch::issue`] issues them as one NCCL group, inside that one call, paying
//! that cost once. The batch holds the borrow of every buffer it records until it is issued,
//! so one buffer written by two of its calls (NCCL runs a group's calls in no set order), or a
//! scope allocation it writes freed before the group is enqueued, fails to compile.
//!
//! # Failure: no rank waits forever (R16)
//!
//! Every communicator is made non-blocking (`blocking = 0`) with the timeout given to
//! [`nccl_comm`], and custack polls it (`ncclCommGetAsyncError`) where NCCL would block, with
//! the crate's one bounded poll ([`Deadline`]'s: one look at once, then looks between yields,
//! then sleeps doubling up to 1 ms and to a 32nd of the time waited, never past the deadline
//! the timeout sets):
//!
//! - its initialization, which waits for every rank: a rank that never arrives or dies on the
//!   way makes the others' `nccl_comm` return [`ErrorKind::DeadlinePassed`] after the timeout;
//! - a call or a [`Batch`] NCCL answers with `ncclInProgress` (a non-blocking communicator's
//!   calls are enqueued by an NCCL thread: custack returns only once they are);
//! - [`Comm::wait`], which waits for the scope's stream while watching the communicator: the
//!   way to end a scope with collectives whose peers may die (a scope's own end waits for its
//!   stream without a bound);
//! - its destruction (`ncclCommFinalize`, then `ncclCommDestroy`).
//!
//! When the timeout passes or NCCL reports an error, the communicator is aborted
//! (`ncclCommAbort`): NCCL ends its pending work and frees its resources, nothing is leaked,
//! and every later call on it returns an error of the same kind again. A timeout is
//! [`ErrorKind::DeadlinePassed`], as for every bounded wait of custack past its deadline, its
//! detail naming the call, the rank, the timeout and how long it polled.
//!
//! **The cap.** No communicator has more than its cap of calls un-waited
//! ([`CommOptions::unwaited_cap`]: 1 to 64, 64 by default): a collective, a send and a receive
//! count one each, a [`Batch`] each of its calls (a batch larger than the cap is refused,
//! nothing enqueued), and [`Comm::wait`] sets the count to zero. The call that would pass the
//! cap first waits for its stream as [`Comm::wait`] does (bounded, with its errors and the
//! abort). NCCL's queues stay short, so an abort after a dead rank ends: with thousands of
//! calls un-waited, `ncclCommAbort` itself was measured to hang.
//!
//! **Two call modes** ([`NcclCalls`], chosen with [`CommOptions`] at
//! [`nccl_comm_with`](crate::PushedGuard::nccl_comm_with)). [`NcclCalls::Settled`], the
//! default, is all of the above. [`NcclCalls::Blocking`] is opt-in: the non-blocking
//! communicator, made as above, is split (`ncclCommSplit`) into a blocking child within the same
//! timeout (polled on the parent, which is kept until the child is destroyed; the child's
//! finalize, a blocking call, only once every call was waited for, otherwise an abort); every
//! connection is made at the child's init, which needs `NCCL_RUNTIME_CONNECT=0` in the
//! process's environment before NCCL's first init (custack checks it, never sets it, and
//! refuses the mode with [`ErrorKind::InvalidValue`] otherwise); before each call one look at
//! `ncclCommGetAsyncError` (an error aborts both communicators). Its calls cost what NCCL's
//! blocking default costs, but are not polled: R16 holds for them only on a condition NCCL does
//! not promise, that a communicator connected at init with at most the cap of calls in flight
//! never blocks inside a call (measured, not documented: the safety manual's known
//! limitations). Its init, split, waits and finalize are bounded as in the default mode.
//!
//! Once the process is poisoned (a sticky CUDA error, R20), every NCCL call returns that first
//! error without reaching NCCL, as every other call that would reach the driver does; a stream
//! error that [`Comm::wait`] sees is recorded like any other driver result.
//!
//! # Without NCCL
//!
//! With the feature on but no NCCL found at build time (`build.rs` warns), the crate still
//! builds and every call returns [`ErrorKind::LibraryNotLinked`] saying what to set:
//! `CUSTACK_NCCL_LIB_DIR` (the directory holding `libnccl.so.2`), or install the
//! `nvidia-nccl-cu13` Python wheel.
//!
//! # Examples
//!
//! One rank of a job that `torchrun` (or any launcher setting its variables) started, one
//! process per GPU: an all-reduce of each rank's values.
//!
//! ```no_run
//! use custack::nccl::{self, ReduceOp};
//! use custack::rendezvous::Job;
//! use custack::{Context, Driver, Stack};
//! use std::time::Duration;
//!
//! let job = Job::from_env()?;
//! let timeout = Duration::from_secs(60);
//! let tag = nccl::version()?.to_string(); // every rank must run the same NCCL
//! let id = job.share(tag.as_bytes(), timeout, || Ok(nccl::unique_id()?.to_bytes().to_vec()))?;
//! let id = nccl::UniqueId::from_slice(&id)?;
//!
//! let ctx = Context::primary(Driver::init()?.device(job.local_rank())?)?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let comm = guard.nccl_comm(&id, job.rank(), job.world_size(), timeout)?;
//! let mut x = guard.alloc_from(&[job.rank() as f32; 1024])?;
//! guard.stream()?.scope(|s| -> custack::Result<()> {
//!     comm.all_reduce_in_place(s, s.bind_mut(&mut x), 1024, ReduceOp::Sum)?;
//!     comm.wait(s) // bounded: a dead peer is an error, not a hang
//! })??;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # References
//!
//! <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api.html>
//!
//! [`Deadline`]: crate::Deadline
//! [`PushedGuard`]: crate::PushedGuard
//! [`PushedGuard::nccl_comm`]: crate::PushedGuard::nccl_comm
//! [`nccl_comm`]: crate::PushedGuard::nccl_comm
//! [`StreamScope`]: crate::StreamScope
//! [`ScopedRead`]: crate::ScopedRead
//! [`ScopedWrite`]: crate::ScopedWrite
//! [`ErrorKind::BufferTooShort`]: crate::ErrorKind::BufferTooShort
//! [`ErrorKind::InvalidValue`]: crate::ErrorKind::InvalidValue
//! [`CommOptions::unwaited_cap`]: crate::nccl::CommOptions::unwaited_cap
//! [`ErrorKind::LibraryNotLinked`]: crate::ErrorKind::LibraryNotLinked
//! [`ErrorKind::NcclRemoteError`]: crate::ErrorKind::NcclRemoteError
//! [`ErrorKind::DeadlinePassed`]: crate::ErrorKind::DeadlinePassed
//! [`ErrorKind::SizeOverflow`]: crate::ErrorKind::SizeOverflow

// The files, each one job; none imports a file that imports it back. From the bottom up:
// `status` (NCCL's statuses as errors, the polling), `check` (counts and ranks) and `options`
// (the call mode, the cap on un-waited calls, the blocking mode's environment) use no
// sibling; `id` (the clique's id, the version) uses `status`; `group` (one NCCL group, ended
// once) uses `status`; `op` (one checked call, issued by one function; `ReduceOp`, `NcclType`)
// uses `check`; `comm` (the communicator and its lifetime) uses `check`, `group`, `id`, `op`,
// `options` and `status`; `calls` (the collectives and point-to-point calls, one op each; `send_recv`, a
// batch of two) and `batch` (several calls as one group) use `comm` and `op`, `batch` also
// `group`; `parked` (parked communicators, one thread's group over several GPUs) uses them all.
mod batch;
mod calls;
mod check;
mod comm;
mod group;
mod id;
mod op;
mod options;
mod parked;
mod status;

pub use batch::Batch;
pub use comm::Comm;
pub use id::{UniqueId, unique_id, version};
pub use op::{NcclType, ReduceOp};
pub use options::{CommOptions, NcclCalls};
pub use parked::{ParkedComm, ParkedPart, all_reduce_parked, comms};

// Here, above every file of the folder, since it calls into several of them.
#[cfg(test)]
mod poisoned {
    use crate::error::ErrorKind;
    use crate::ffi;

    /// Once the process is poisoned, NCCL's calls return the first sticky error without reaching
    /// NCCL, as the other libraries' calls do (R20). In a forked child, since it poisons the
    /// process.
    #[test]
    #[cfg(all(unix, not(miri)))]
    #[cfg_attr(custack_no_nccl, ignore = "needs NCCL linked")]
    fn every_nccl_call_refuses_once_the_process_is_poisoned() {
        crate::alone::rerun_alone!(every_nccl_call_refuses_once_the_process_is_poisoned);
        // SAFETY: the child converts a code, makes calls that are refused before NCCL is
        // reached, and `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // A sticky code a driver call could have returned, through the conversion.
            let _first = ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS.failure();
            // The poison's check refuses with the first sticky error; in a child forked after
            // another test registered `watch_forks`, the same check refuses first because the
            // process is a forked child. Either way the call was refused before NCCL.
            let refused = |r: crate::error::Result<()>| {
                r.is_err_and(|e| {
                    (e.kind() == ErrorKind::IllegalAddress && e.origin().is_some())
                        || e.kind() == ErrorKind::ForkedProcess
                })
            };
            let parts: &mut [crate::nccl::ParkedPart<'_, '_, f32>] = &mut [];
            let all = refused(crate::nccl::unique_id().map(drop))
                && refused(crate::nccl::version().map(drop))
                && refused(crate::nccl::all_reduce_parked(
                    parts,
                    0,
                    crate::nccl::ReduceOp::Sum,
                ));
            // SAFETY: ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(i32::from(!all)) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        assert_eq!(libc::WEXITSTATUS(status), 0, "a call was not refused");
    }
}
