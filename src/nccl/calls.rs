//! The collectives and point-to-point calls of a [`Comm`], each on a [`StreamScope`] with bound
//! device memory, its counts, roots and peers checked before anything is enqueued (one
//! [`Op`] each).

use super::comm::Comm;
use super::op::{NcclType, Op, ReduceOp};
use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};

impl Comm<'_> {
    /// `ncclAllReduce`—Enqueues the reduction of `count` elements of every rank's `send` into
    /// every rank's `recv`.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] if `send` or `recv` holds
    /// fewer than `count` elements; `CUDA_ERROR_NOT_SUPPORTED` inside a capture. NCCL's status
    /// or [`ErrorKind::DeadlinePassed`] (the communicator is then aborted).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::nccl::ReduceOp;
    /// # use custack::{Context, Driver, Stack};
    /// # let ctx = Context::primary(Driver::init()?.device(0)?)?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// # let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, std::time::Duration::from_secs(10))?;
    /// let x = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    /// let mut sum = guard.alloc_zeroed::<f32>(3)?;
    /// guard.stream()?.scope(|s| -> custack::Result<()> {
    ///     comm.all_reduce(s, s.bind(&x), s.bind_mut(&mut sum), 3, ReduceOp::Sum)?;
    ///     comm.wait(s)
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallreduce>
    ///
    /// [`ErrorKind::BufferTooShort`]: crate::ErrorKind::BufferTooShort
    /// [`ErrorKind::DeadlinePassed`]: crate::ErrorKind::DeadlinePassed
    #[doc(alias = "ncclAllReduce")]
    pub fn all_reduce<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.enqueue(s, Op::all_reduce(send, recv, count, op)?)
    }

    /// `ncclAllReduce`—Enqueues the reduction of `count` elements of every rank's `buf` into
    /// `buf` itself (NCCL's in-place form).
    ///
    /// # Errors
    ///
    /// As [`all_reduce`](Self::all_reduce).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallreduce>
    #[doc(alias = "ncclAllReduce")]
    pub fn all_reduce_in_place<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        buf: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.enqueue(s, Op::all_reduce_in_place(buf, count, op)?)
    }

    /// `ncclBroadcast`—Enqueues the copy of `count` elements of rank `root`'s `buf` into every
    /// rank's `buf` (NCCL's in-place form).
    ///
    /// # Errors
    ///
    /// As [`all_reduce`](Self::all_reduce); [`ErrorKind::InvalidValue`] if `root` is not a rank.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclbroadcast>
    ///
    /// [`ErrorKind::InvalidValue`]: crate::ErrorKind::InvalidValue
    #[doc(alias = "ncclBroadcast")]
    pub fn broadcast<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        buf: impl ScopedWrite<'scope, T>,
        count: usize,
        root: usize,
    ) -> Result<()> {
        self.enqueue(s, Op::broadcast(buf, count, root, self.nranks)?)
    }

    /// `ncclReduce`—Enqueues the reduction of `count` elements of every rank's `send` into rank
    /// `root`'s `recv` (other ranks' `recv` is left as it is).
    ///
    /// # Errors
    ///
    /// As [`broadcast`](Self::broadcast).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclreduce>
    #[doc(alias = "ncclReduce")]
    #[allow(clippy::too_many_arguments, reason = "NCCL's own argument list")]
    pub fn reduce<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        self.enqueue(s, Op::reduce(send, recv, count, op, (root, self.nranks))?)
    }

    /// `ncclAllGather`—Enqueues the gathering of `count` elements of every rank's `send` into
    /// every rank's `recv`, rank `i`'s at `recv[i·count..]`: `recv` holds `nranks × count`.
    ///
    /// # Errors
    ///
    /// As [`all_reduce`](Self::all_reduce), with `recv` needing `nranks × count` elements
    /// ([`ErrorKind::SizeOverflow`] if that overflows).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallgather>
    ///
    /// [`ErrorKind::SizeOverflow`]: crate::ErrorKind::SizeOverflow
    #[doc(alias = "ncclAllGather")]
    pub fn all_gather<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
    ) -> Result<()> {
        self.enqueue(s, Op::all_gather(send, recv, count, self.nranks)?)
    }

    /// `ncclReduceScatter`—Enqueues the reduction of every rank's `send` (`nranks × count`
    /// elements) of which rank `i` receives block `i`, `count` elements, in `recv`.
    ///
    /// # Errors
    ///
    /// As [`all_gather`](Self::all_gather), with `send` needing `nranks × count` and `recv`
    /// `count`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclreducescatter>
    #[doc(alias = "ncclReduceScatter")]
    pub fn reduce_scatter<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.enqueue(s, Op::reduce_scatter(send, recv, count, op, self.nranks)?)
    }

    /// `ncclSend`—Enqueues sending `count` elements of `buf` to rank `peer`, which must
    /// enqueue a matching [`recv`](Self::recv). A send and a receive that must happen together
    /// are one [`send_recv`](Self::send_recv).
    ///
    /// # Errors
    ///
    /// As [`all_reduce`](Self::all_reduce); [`ErrorKind::InvalidValue`] if `peer` is not a rank.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclsend>
    ///
    /// [`ErrorKind::InvalidValue`]: crate::ErrorKind::InvalidValue
    #[doc(alias = "ncclSend")]
    pub fn send<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        buf: impl ScopedRead<'scope, T>,
        count: usize,
        peer: usize,
    ) -> Result<()> {
        self.enqueue(s, Op::send(buf, count, peer, self.nranks)?)
    }

    /// `ncclRecv`—Enqueues receiving `count` elements from rank `peer` into `buf`.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclrecv>
    #[doc(alias = "ncclRecv")]
    pub fn recv<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        buf: impl ScopedWrite<'scope, T>,
        count: usize,
        peer: usize,
    ) -> Result<()> {
        self.enqueue(s, Op::recv(buf, count, peer, self.nranks)?)
    }

    /// `ncclGroupStart`, `ncclSend`, `ncclRecv`, `ncclGroupEnd`—Enqueues sending `count`
    /// elements of `send` to rank `to` and receiving `count` from rank `from` into `recv`, as
    /// one NCCL group, so that ranks that all send before they receive (a ring shift) do not
    /// wait for each other. Both are checked before the group opens; it returns once NCCL has
    /// enqueued both.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send) and [`recv`](Self::recv), for either argument; nothing is
    /// enqueued when one is refused.
    ///
    /// # Examples
    ///
    /// A ring shift: every rank sends to the next and receives from the previous.
    ///
    /// ```no_run
    /// # use custack::{Context, Driver, Stack};
    /// # let ctx = Context::primary(Driver::init()?.device(0)?)?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// # let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, std::time::Duration::from_secs(10))?;
    /// let (r, n) = (comm.rank(), comm.nranks());
    /// let mine = guard.alloc_from(&[r as u32; 256])?;
    /// let mut theirs = guard.alloc_zeroed::<u32>(256)?;
    /// guard.stream()?.scope(|s| -> custack::Result<()> {
    ///     comm.send_recv(s, s.bind(&mine), (r + 1) % n, s.bind_mut(&mut theirs), (r + n - 1) % n, 256)?;
    ///     comm.wait(s)
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/group.html>
    #[doc(alias = "ncclGroupStart")]
    #[doc(alias = "ncclGroupEnd")]
    #[allow(clippy::too_many_arguments, reason = "NCCL's own arguments, twice")]
    pub fn send_recv<'scope, T: NcclType>(
        &self,
        s: &StreamScope<'scope, '_>,
        send: impl ScopedRead<'scope, T>,
        to: usize,
        recv: impl ScopedWrite<'scope, T>,
        from: usize,
        count: usize,
    ) -> Result<()> {
        // Both checked before anything is issued, then one group: ranks that all send before
        // they receive (a ring shift) do not wait for each other.
        let mut batch = self.batch(s);
        batch.send(send, count, to)?;
        batch.recv(recv, count, from)?;
        batch.issue()
    }
}
