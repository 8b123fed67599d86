//! Several calls of one communicator issued as one NCCL group: a [`Batch`] records checked
//! calls, holding the borrows of their buffers, and [`Batch::issue`] issues them all inside one
//! `ncclGroupStart` … `ncclGroupEnd` and returns once NCCL has enqueued them.
//!
//! A non-blocking communicator (R16) enqueues each group on a thread NCCL starts for it, and
//! takes no further call until that thread is done; a batch pays that once for all its calls.

use super::comm::Comm;
use super::group::Group;
use super::op::{NcclType, Op, ReduceOp};
use crate::asynchronous::scope::StreamScope;
use crate::deadline::Deadline;
use crate::error::Result;
use crate::ffi;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use core::marker::PhantomData;

/// Calls of one [`Comm`] on one [`StreamScope`], recorded (each checked as the same call of
/// `Comm` is) and issued together, as one NCCL group, by [`issue`](Self::issue).
///
/// Made by [`Comm::batch`]. Every buffer a recorded call reads or writes stays borrowed until the
/// batch is issued or dropped, so nothing else in the program reaches it in between: NCCL runs
/// a group's calls in no set order among themselves, so one buffer written by two calls of one
/// batch, or written by one and read by another, fails to compile. Nothing reaches NCCL before
/// `issue`: a batch dropped without it enqueues nothing.
///
/// # Examples
///
/// Twenty small all-reduces for the cost of one group:
///
/// ```no_run
/// # use custack::nccl::ReduceOp;
/// # use custack::{Context, Driver, Stack};
/// # let ctx = Context::primary(Driver::init()?.device(0)?)?;
/// # let mut stack = Stack::new()?;
/// # let guard = stack.push(&ctx)?;
/// # let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, std::time::Duration::from_secs(10))?;
/// let mut grads: Vec<_> = (0..20).map(|_| guard.alloc_zeroed::<f32>(1 << 18)).collect::<Result<_, _>>()?;
/// guard.stream()?.scope(|s| -> custack::Result<()> {
///     let mut bound: Vec<_> = grads.iter_mut().map(|g| s.bind_mut(g)).collect();
///     let mut batch = comm.batch(s);
///     for g in &mut bound {
///         batch.all_reduce_in_place(g, 1 << 18, ReduceOp::Sum)?;
///     }
///     batch.issue()?; // one NCCL group: enqueued once this returns
///     comm.wait(s)
/// })??;
/// # Ok::<(), custack::Error>(())
/// ```
///
/// The same buffer written twice in one batch, or a batch's stream-ordered allocation freed
/// before `issue`, fails to compile (`ui-tests/nccl/c25_nccl_batch_*.rs`).
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/groups.html>
#[must_use = "a batch enqueues nothing until it is issued"]
#[doc(alias = "ncclGroupStart")]
#[doc(alias = "ncclGroupEnd")]
pub struct Batch<'a, 'scope> {
    comm: &'a Comm<'a>,
    stream: ffi::CUstream,
    ops: Vec<Op<'scope>>,
    // The buffers of the recorded calls are borrowed for 'a (every method's `+ 'a`), as is the
    // scope: `!Send`, `!Sync`, as the communicator.
    _borrows: PhantomData<(&'a mut (), *const ())>,
}

impl core::fmt::Debug for Batch<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Batch")
            .field("comm", &self.comm)
            .field("stream", &self.stream)
            .field("ops", &self.ops)
            .finish_non_exhaustive()
    }
}

impl<'g> Comm<'g> {
    /// An empty [`Batch`] of this communicator's calls on `s`'s stream, issued as one NCCL group.
    /// Nothing is checked or enqueued until a call is recorded or the batch issued.
    pub fn batch<'a, 'scope>(&'a self, s: &'a StreamScope<'scope, '_>) -> Batch<'a, 'scope>
    where
        'g: 'a,
    {
        Batch {
            comm: self,
            stream: s.as_raw(),
            ops: Vec::new(),
            _borrows: PhantomData,
        }
    }
}

impl<'a, 'scope> Batch<'a, 'scope> {
    /// How many calls are recorded.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// Whether no call is recorded.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Records [`Comm::all_reduce`]; checked now, as it checks.
    ///
    /// # Errors
    ///
    /// As [`Comm::all_reduce`] before anything is enqueued; nothing is recorded then.
    pub fn all_reduce<T: NcclType>(
        &mut self,
        send: impl ScopedRead<'scope, T> + 'a,
        recv: impl ScopedWrite<'scope, T> + 'a,
        count: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.record(Op::all_reduce(send, recv, count, op))
    }

    /// Records [`Comm::all_reduce_in_place`].
    ///
    /// # Errors
    ///
    /// As [`all_reduce`](Self::all_reduce).
    pub fn all_reduce_in_place<T: NcclType>(
        &mut self,
        buf: impl ScopedWrite<'scope, T> + 'a,
        count: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.record(Op::all_reduce_in_place(buf, count, op))
    }

    /// Records [`Comm::broadcast`].
    ///
    /// # Errors
    ///
    /// As [`Comm::broadcast`] before anything is enqueued.
    pub fn broadcast<T: NcclType>(
        &mut self,
        buf: impl ScopedWrite<'scope, T> + 'a,
        count: usize,
        root: usize,
    ) -> Result<()> {
        self.record(Op::broadcast(buf, count, root, self.comm.nranks()))
    }

    /// Records [`Comm::reduce`].
    ///
    /// # Errors
    ///
    /// As [`Comm::reduce`] before anything is enqueued.
    pub fn reduce<T: NcclType>(
        &mut self,
        send: impl ScopedRead<'scope, T> + 'a,
        recv: impl ScopedWrite<'scope, T> + 'a,
        count: usize,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        let nranks = self.comm.nranks();
        self.record(Op::reduce(send, recv, count, op, (root, nranks)))
    }

    /// Records [`Comm::all_gather`].
    ///
    /// # Errors
    ///
    /// As [`Comm::all_gather`] before anything is enqueued.
    pub fn all_gather<T: NcclType>(
        &mut self,
        send: impl ScopedRead<'scope, T> + 'a,
        recv: impl ScopedWrite<'scope, T> + 'a,
        count: usize,
    ) -> Result<()> {
        self.record(Op::all_gather(send, recv, count, self.comm.nranks()))
    }

    /// Records [`Comm::reduce_scatter`].
    ///
    /// # Errors
    ///
    /// As [`Comm::reduce_scatter`] before anything is enqueued.
    pub fn reduce_scatter<T: NcclType>(
        &mut self,
        send: impl ScopedRead<'scope, T> + 'a,
        recv: impl ScopedWrite<'scope, T> + 'a,
        count: usize,
        op: ReduceOp,
    ) -> Result<()> {
        let nranks = self.comm.nranks();
        self.record(Op::reduce_scatter(send, recv, count, op, nranks))
    }

    /// Records [`Comm::send`]: a send and a receive of one batch do not wait for each other.
    ///
    /// # Errors
    ///
    /// As [`Comm::send`] before anything is enqueued.
    pub fn send<T: NcclType>(
        &mut self,
        buf: impl ScopedRead<'scope, T> + 'a,
        count: usize,
        peer: usize,
    ) -> Result<()> {
        self.record(Op::send(buf, count, peer, self.comm.nranks()))
    }

    /// Records [`Comm::recv`].
    ///
    /// # Errors
    ///
    /// As [`Comm::recv`] before anything is enqueued.
    pub fn recv<T: NcclType>(
        &mut self,
        buf: impl ScopedWrite<'scope, T> + 'a,
        count: usize,
        peer: usize,
    ) -> Result<()> {
        self.record(Op::recv(buf, count, peer, self.comm.nranks()))
    }

    fn record(&mut self, op: Result<Op<'scope>>) -> Result<()> {
        self.ops.push(op?);
        Ok(())
    }

    /// `ncclGroupStart`, every recorded call, `ncclGroupEnd`—Issues the batch as one NCCL group
    /// on the scope's stream and returns once NCCL has enqueued it (polled, at most the
    /// communicator's timeout). An empty batch issues nothing.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_SUPPORTED` inside a capture and the process's poison, before NCCL is
    /// called; [`ErrorKind::InvalidValue`] for a batch of more calls than the communicator's
    /// cap on un-waited calls ([`Comm::unwaited_cap`]: issue it in parts), nothing enqueued;
    /// the errors of [`Comm::wait`] when the batch would pass the cap and the stream is waited
    /// for first; NCCL's status of a call or of the group, or [`ErrorKind::DeadlinePassed`]: the
    /// communicator is then aborted, as after a single call's failure.
    ///
    /// [`ErrorKind::DeadlinePassed`]: crate::ErrorKind::DeadlinePassed
    /// [`ErrorKind::InvalidValue`]: crate::ErrorKind::InvalidValue
    #[doc(alias = "ncclGroupStart")]
    #[doc(alias = "ncclGroupEnd")]
    pub fn issue(self) -> Result<()> {
        let call = "ncclGroupEnd";
        let comm = self.comm;
        let raw = comm.live(call)?;
        crate::asynchronous::refuse_inside_capture(call)?;
        crate::error::poison::check()?;
        if self.ops.is_empty() {
            return Ok(());
        }
        // The batch counts its calls against the cap: a wait for the stream first when they
        // would pass it; a batch larger than the cap is refused here, before the group.
        comm.make_room(call, self.stream, self.ops.len())?;
        // Ended before this returns, on every path (by its drop on an early return, which aborts
        // the communicator): every buffer recorded stays borrowed until then.
        let mut group = Group::start().map_err(|e| comm.fail(e))?;
        group.join(comm, Deadline::after(comm.timeout()));
        for op in &self.ops {
            // SAFETY: every op was made (checked) by this batch's methods from bindings of the
            // scope whose stream this is, against this communicator's size, and the values they
            // were made from stay borrowed for 'a, past this call and so past the group's end;
            // `raw` is live and of the current context (the communicator borrows its guard).
            let issued = unsafe { op.issue(raw, self.stream) };
            group.issued(op.call(), raw, issued)?;
        }
        group.end(call)?;
        comm.pace.issued(self.ops.len());
        Ok(())
    }
}
