//! The collectives and point-to-point calls of a [`Comm`], each on a [`StreamScope`] with bound
//! device memory, its counts, roots and peers checked before anything is enqueued; the
//! reductions ([`ReduceOp`]) and element types ([`NcclType`]) they take.

use super::check;
use super::comm::Comm;
use super::group::Group;
use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::ffi;
use crate::ffi::nccl::{ncclDataType_t, ncclRedOp_t};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::c_void;

/// A reduction (`ncclRedOp_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "ncclRedOp_t")]
pub enum ReduceOp {
    /// `ncclSum`.
    Sum,
    /// `ncclProd`.
    Prod,
    /// `ncclMax`.
    Max,
    /// `ncclMin`.
    Min,
    /// `ncclAvg`.
    Avg,
}

impl ReduceOp {
    pub(super) fn raw(self) -> ncclRedOp_t {
        match self {
            Self::Sum => ncclRedOp_t::ncclSum,
            Self::Prod => ncclRedOp_t::ncclProd,
            Self::Max => ncclRedOp_t::ncclMax,
            Self::Min => ncclRedOp_t::ncclMin,
            Self::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An element type NCCL reduces and moves (`ncclDataType_t`): `i8`, `u8`, `i32`, `u32`,
/// `i64`, `u64`, `f32`, `f64`. Sealed.
pub trait NcclType: DeviceCopy + sealed::Sealed {
    /// Its `ncclDataType_t`.
    #[doc(hidden)]
    const RAW: ncclDataType_t;
}

macro_rules! nccl_type {
    ($($t:ty => $raw:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl NcclType for $t {
            const RAW: ncclDataType_t = ncclDataType_t::$raw;
        }
    )*};
}
nccl_type!(i8 => ncclInt8, u8 => ncclUint8, i32 => ncclInt32, u32 => ncclUint32,
    i64 => ncclInt64, u64 => ncclUint64, f32 => ncclFloat32, f64 => ncclFloat64);

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
    /// # let comm = guard.nccl_rank(&custack::nccl::unique_id()?, 0, 1, std::time::Duration::from_secs(10))?;
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
        let call = "ncclAllReduce";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        check::holds(call, "sendbuff", send_len, count, "count")?;
        check::holds(call, "recvbuff", recv_len, count, "count")?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: `ncclAllReduce` reads `count` elements of `send` and writes `count` of
            // `recv`, in stream order:
            // - both are device memory of this context bound to the scope, alive and
            //   unreleased until the scope's stream is synchronized, holding at least `count`
            //   elements of `T` (checked above), whose NCCL type is `T::RAW`;
            // - `recv` is an exclusive binding, so it overlaps no other operand;
            // - `comm` is live and bound to the current context; the stream is the scope's,
            //   of the same context.
            unsafe {
                ffi::nccl::ncclAllReduce(
                    ptr(send),
                    ptr_mut(recv),
                    count,
                    T::RAW,
                    op.raw(),
                    comm,
                    stream,
                )
            }
        })
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
        let call = "ncclAllReduce";
        let (buf, len) = buf.raw_parts();
        check::holds(call, "buff", len, count, "count")?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: as `all_reduce`, with one buffer read and written in place, which NCCL
            // allows (`sendbuff == recvbuff`): an exclusive binding of at least `count`
            // elements.
            unsafe {
                ffi::nccl::ncclAllReduce(
                    ptr(buf),
                    ptr_mut(buf),
                    count,
                    T::RAW,
                    op.raw(),
                    comm,
                    stream,
                )
            }
        })
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
        let call = "ncclBroadcast";
        let (buf, len) = buf.raw_parts();
        check::holds(call, "buff", len, count, "count")?;
        let root = check::rank(call, "root", root, self.nranks)?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: `ncclBroadcast` reads `count` elements of `buf` on the root and writes
            // `count` of it elsewhere, in stream order: an exclusive binding of this context,
            // bound to the scope, of at least `count` elements (checked); `root` is a rank of
            // the communicator (checked); `comm` and the stream as in `all_reduce`.
            unsafe {
                ffi::nccl::ncclBroadcast(ptr(buf), ptr_mut(buf), count, T::RAW, root, comm, stream)
            }
        })
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
        let call = "ncclReduce";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        check::holds(call, "sendbuff", send_len, count, "count")?;
        check::holds(call, "recvbuff", recv_len, count, "count")?;
        let root = check::rank(call, "root", root, self.nranks)?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: as `all_reduce` (`recv` written on the root only); `root` is a rank of
            // the communicator (checked).
            unsafe {
                ffi::nccl::ncclReduce(
                    ptr(send),
                    ptr_mut(recv),
                    count,
                    T::RAW,
                    op.raw(),
                    root,
                    comm,
                    stream,
                )
            }
        })
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
        let call = "ncclAllGather";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        check::holds(call, "sendbuff", send_len, count, "count")?;
        let need = check::times_ranks(call, self.nranks, count)?;
        check::holds(call, "recvbuff", recv_len, need, "nranks × count")?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: `ncclAllGather` reads `count` elements of `send` and writes
            // `nranks·count` of `recv`: both bound to the scope, holding that many (checked),
            // `recv` exclusively; `comm` and the stream as in `all_reduce`.
            unsafe {
                ffi::nccl::ncclAllGather(ptr(send), ptr_mut(recv), count, T::RAW, comm, stream)
            }
        })
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
        let call = "ncclReduceScatter";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        let need = check::times_ranks(call, self.nranks, count)?;
        check::holds(call, "sendbuff", send_len, need, "nranks × count")?;
        check::holds(call, "recvbuff", recv_len, count, "count")?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: `ncclReduceScatter` reads `nranks·count` elements of `send` and writes
            // `count` of `recv`: both bound to the scope, holding that many (checked), `recv`
            // exclusively; `comm` and the stream as in `all_reduce`.
            unsafe {
                ffi::nccl::ncclReduceScatter(
                    ptr(send),
                    ptr_mut(recv),
                    count,
                    T::RAW,
                    op.raw(),
                    comm,
                    stream,
                )
            }
        })
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
        let call = "ncclSend";
        let (buf, len) = buf.raw_parts();
        check::holds(call, "sendbuff", len, count, "count")?;
        let peer = check::rank(call, "peer", peer, self.nranks)?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: `ncclSend` reads `count` elements of `buf` in stream order: bound to the
            // scope, holding that many (checked); `peer` a rank (checked); `comm` and the
            // stream as in `all_reduce`.
            unsafe { ffi::nccl::ncclSend(ptr(buf), count, T::RAW, peer, comm, stream) }
        })
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
        let call = "ncclRecv";
        let (buf, len) = buf.raw_parts();
        check::holds(call, "recvbuff", len, count, "count")?;
        let peer = check::rank(call, "peer", peer, self.nranks)?;
        self.enqueue(s, call, |comm, stream| {
            // SAFETY: `ncclRecv` writes `count` elements of `buf` in stream order: an
            // exclusive binding of the scope holding that many (checked); `peer` a rank
            // (checked); `comm` and the stream as in `all_reduce`.
            unsafe { ffi::nccl::ncclRecv(ptr_mut(buf), count, T::RAW, peer, comm, stream) }
        })
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
    /// # let comm = guard.nccl_rank(&custack::nccl::unique_id()?, 0, 1, std::time::Duration::from_secs(10))?;
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
        let call = "ncclGroupEnd";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        check::holds("ncclSend", "sendbuff", send_len, count, "count")?;
        check::holds("ncclRecv", "recvbuff", recv_len, count, "count")?;
        let to = check::rank("ncclSend", "peer", to, self.nranks)?;
        let from = check::rank("ncclRecv", "peer", from, self.nranks)?;
        let raw = self.live(call)?;
        crate::asynchronous::refuse_inside_capture(call)?;
        crate::error::poison::check()?;
        let stream = s.as_raw();
        // Ended before this returns, on every path (by its drop on an early return): the
        // scope, and so the memory bound to it, outlives the group.
        let mut group = Group::start().map_err(|e| self.fail(e))?;
        group.join(self, crate::deadline::Deadline::after(self.timeout));
        // SAFETY: `ncclSend` reads `count` elements of `send`, `ncclRecv` writes `count` of
        // `recv`, in stream order once the group ends: both bound to the scope, which outlives
        // this call and so the group, holding that many (checked); `recv` exclusively; `to`
        // and `from` ranks (checked); `raw` and the stream as in `all_reduce`.
        let sent = unsafe { ffi::nccl::ncclSend(ptr(send), count, T::RAW, to, raw, stream) };
        group.issued("ncclSend", raw, sent)?;
        // SAFETY: as above.
        let received =
            unsafe { ffi::nccl::ncclRecv(ptr_mut(recv), count, T::RAW, from, raw, stream) };
        group.issued("ncclRecv", raw, received)?;
        group.end(call).map(drop)
    }
}

/// A device address as NCCL's `const void*`.
pub(super) fn ptr(p: ffi::CUdeviceptr) -> *const c_void {
    p as *const c_void
}

/// A device address as NCCL's `void*`.
pub(super) fn ptr_mut(p: ffi::CUdeviceptr) -> *mut c_void {
    p as *mut c_void
}
