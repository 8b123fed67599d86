//! One NCCL call, checked and not yet issued, and its vocabulary: the reductions ([`ReduceOp`])
//! and element types ([`NcclType`]) calls take. An [`Op`] is made from buffers bound to a scope,
//! its counts, roots and peers checked against them and the communicator (R15), and issued by
//! one `unsafe` function, whether alone ([`Comm`](super::Comm)'s calls) or with others in one
//! group ([`Batch`](super::Batch)).

use super::check;
use crate::error::Result;
use crate::ffi;
use crate::ffi::nccl::{ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

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

/// A checked NCCL call of the scope `'scope`: the device addresses it reads and writes (bound to
/// that scope by the values it was made from), its count, element type and reduction, root or
/// peer. Invariant in `'scope`, as the bindings are, so it is issued on its own scope's stream
/// only.
#[derive(Debug, Clone, Copy)]
pub(super) struct Op<'scope> {
    kind: Kind,
    /// What it reads (`sendbuff`; for in-place forms and `ncclBroadcast` the same as `recv`).
    send: ffi::CUdeviceptr,
    /// What it writes (`recvbuff`); 0 for `ncclSend`.
    recv: ffi::CUdeviceptr,
    count: usize,
    ty: ncclDataType_t,
    reduce: ncclRedOp_t,
    /// The root or the peer; 0 where the call has none.
    rank: c_int,
    _scope: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    AllReduce,
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    Send,
    Recv,
}

impl<'scope> Op<'scope> {
    fn new<T: NcclType>(
        kind: Kind,
        send: ffi::CUdeviceptr,
        recv: ffi::CUdeviceptr,
        count: usize,
    ) -> Self {
        Self {
            kind,
            send,
            recv,
            count,
            ty: T::RAW,
            reduce: ReduceOp::Sum.raw(),
            rank: 0,
            _scope: PhantomData,
        }
    }

    fn reducing(mut self, op: ReduceOp) -> Self {
        self.reduce = op.raw();
        self
    }

    fn at(mut self, rank: c_int) -> Self {
        self.rank = rank;
        self
    }

    /// NCCL's name of the call.
    pub(super) fn call(&self) -> &'static str {
        match self.kind {
            Kind::AllReduce => "ncclAllReduce",
            Kind::Broadcast => "ncclBroadcast",
            Kind::Reduce => "ncclReduce",
            Kind::AllGather => "ncclAllGather",
            Kind::ReduceScatter => "ncclReduceScatter",
            Kind::Send => "ncclSend",
            Kind::Recv => "ncclRecv",
        }
    }

    /// `ncclAllReduce` of `count` elements of `send` into `recv`.
    pub(super) fn all_reduce<T: NcclType>(
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
    ) -> Result<Self> {
        let call = "ncclAllReduce";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        check::holds(call, "sendbuff", send_len, count, "count")?;
        check::holds(call, "recvbuff", recv_len, count, "count")?;
        Ok(Self::new::<T>(Kind::AllReduce, send, recv, count).reducing(op))
    }

    /// `ncclAllReduce` of `count` elements of `buf` into itself.
    pub(super) fn all_reduce_in_place<T: NcclType>(
        buf: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
    ) -> Result<Self> {
        let (buf, len) = buf.raw_parts();
        check::holds("ncclAllReduce", "buff", len, count, "count")?;
        Ok(Self::new::<T>(Kind::AllReduce, buf, buf, count).reducing(op))
    }

    /// `ncclBroadcast` of `count` elements of rank `root`'s `buf` into every rank's `buf`.
    pub(super) fn broadcast<T: NcclType>(
        buf: impl ScopedWrite<'scope, T>,
        count: usize,
        root: usize,
        nranks: usize,
    ) -> Result<Self> {
        let call = "ncclBroadcast";
        let (buf, len) = buf.raw_parts();
        check::holds(call, "buff", len, count, "count")?;
        let root = check::rank(call, "root", root, nranks)?;
        Ok(Self::new::<T>(Kind::Broadcast, buf, buf, count).at(root))
    }

    /// `ncclReduce` of `count` elements of every rank's `send` into rank `root`'s `recv`.
    pub(super) fn reduce<T: NcclType>(
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
        (root, nranks): (usize, usize),
    ) -> Result<Self> {
        let call = "ncclReduce";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        check::holds(call, "sendbuff", send_len, count, "count")?;
        check::holds(call, "recvbuff", recv_len, count, "count")?;
        let root = check::rank(call, "root", root, nranks)?;
        Ok(Self::new::<T>(Kind::Reduce, send, recv, count)
            .reducing(op)
            .at(root))
    }

    /// `ncclAllGather` of `count` elements of every rank's `send` into `recv` (`nranks × count`).
    pub(super) fn all_gather<T: NcclType>(
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
        nranks: usize,
    ) -> Result<Self> {
        let call = "ncclAllGather";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        check::holds(call, "sendbuff", send_len, count, "count")?;
        let need = check::times_ranks(call, nranks, count)?;
        check::holds(call, "recvbuff", recv_len, need, "nranks × count")?;
        Ok(Self::new::<T>(Kind::AllGather, send, recv, count))
    }

    /// `ncclReduceScatter` of every rank's `send` (`nranks × count`), block `rank` into `recv`.
    pub(super) fn reduce_scatter<T: NcclType>(
        send: impl ScopedRead<'scope, T>,
        recv: impl ScopedWrite<'scope, T>,
        count: usize,
        op: ReduceOp,
        nranks: usize,
    ) -> Result<Self> {
        let call = "ncclReduceScatter";
        let ((send, send_len), (recv, recv_len)) = (send.raw_parts(), recv.raw_parts());
        let need = check::times_ranks(call, nranks, count)?;
        check::holds(call, "sendbuff", send_len, need, "nranks × count")?;
        check::holds(call, "recvbuff", recv_len, count, "count")?;
        Ok(Self::new::<T>(Kind::ReduceScatter, send, recv, count).reducing(op))
    }

    /// `ncclSend` of `count` elements of `buf` to rank `peer`.
    pub(super) fn send<T: NcclType>(
        buf: impl ScopedRead<'scope, T>,
        count: usize,
        peer: usize,
        nranks: usize,
    ) -> Result<Self> {
        let call = "ncclSend";
        let (buf, len) = buf.raw_parts();
        check::holds(call, "sendbuff", len, count, "count")?;
        let peer = check::rank(call, "peer", peer, nranks)?;
        Ok(Self::new::<T>(Kind::Send, buf, 0, count).at(peer))
    }

    /// `ncclRecv` of `count` elements from rank `peer` into `buf`.
    pub(super) fn recv<T: NcclType>(
        buf: impl ScopedWrite<'scope, T>,
        count: usize,
        peer: usize,
        nranks: usize,
    ) -> Result<Self> {
        let call = "ncclRecv";
        let (buf, len) = buf.raw_parts();
        check::holds(call, "recvbuff", len, count, "count")?;
        let peer = check::rank(call, "peer", peer, nranks)?;
        Ok(Self::new::<T>(Kind::Recv, 0, buf, count).at(peer))
    }

    /// Issues the call on `comm` and `stream` (inside a group: records it for the group's end),
    /// returning NCCL's status.
    ///
    /// # Safety
    ///
    /// - The op was made (checked) from buffers bound to a scope of the current context whose
    ///   stream is `stream`, and the values it was made from stay borrowed until NCCL has
    ///   enqueued it (the call returned and, inside a group, the group ended), so that nothing
    ///   else reaches what it writes, or writes what it reads, before its work is complete (the
    ///   scope's stream synchronized).
    /// - `comm` is a live communicator of the current context, of the `nranks` the op was
    ///   checked against.
    pub(super) unsafe fn issue(&self, comm: ncclComm_t, stream: ffi::CUstream) -> ncclResult_t {
        let (send, recv) = (self.send as *const c_void, self.recv as *mut c_void);
        let (count, ty, op, rank) = (self.count, self.ty, self.reduce, self.rank);
        // Every arm below relies on what the constructors checked (each buffer holds what the
        // call reads or writes, of the type `ty` names; `rank` is a rank of the communicator)
        // and on the caller's guarantee (the buffers are live and reached by nothing else until
        // the stream's work is complete; `comm` and `stream` are live, of the current context).
        // `recv` comes from an exclusive binding: it overlaps no other operand, and equals
        // `send` only in NCCL's in-place forms.
        match self.kind {
            // SAFETY: `ncclAllReduce` reads `count` elements of `send` and writes `count` of
            // `recv`, each checked to hold `count`, on `stream`, with the live `comm`.
            Kind::AllReduce => unsafe {
                ffi::nccl::ncclAllReduce(send, recv, count, ty, op, comm, stream)
            },
            // SAFETY: `ncclBroadcast` in place (`send == recv`): reads `count` elements on the
            // root, writes `count` elsewhere, the buffer checked to hold `count`; `rank` checked.
            Kind::Broadcast => unsafe {
                ffi::nccl::ncclBroadcast(send, recv, count, ty, rank, comm, stream)
            },
            // SAFETY: `ncclReduce` reads `count` elements of `send` and writes `count` of `recv` on
            // the root `rank` (checked), each buffer checked to hold `count`.
            Kind::Reduce => unsafe {
                ffi::nccl::ncclReduce(send, recv, count, ty, op, rank, comm, stream)
            },
            // SAFETY: `ncclAllGather` reads `count` elements of `send` and writes `nranks·count` of
            // `recv`, each checked to hold that many.
            Kind::AllGather => unsafe {
                ffi::nccl::ncclAllGather(send, recv, count, ty, comm, stream)
            },
            // SAFETY: `ncclReduceScatter` reads `nranks·count` elements of `send` and writes
            // `count` of `recv`, each checked to hold that many.
            Kind::ReduceScatter => unsafe {
                ffi::nccl::ncclReduceScatter(send, recv, count, ty, op, comm, stream)
            },
            // SAFETY: `ncclSend` reads `count` elements of `send` (checked), to the peer `rank`
            // (checked).
            Kind::Send => unsafe { ffi::nccl::ncclSend(send, count, ty, rank, comm, stream) },
            // SAFETY: `ncclRecv` writes `count` elements of `recv` (checked), from the peer `rank`
            // (checked).
            Kind::Recv => unsafe { ffi::nccl::ncclRecv(recv, count, ty, rank, comm, stream) },
        }
    }
}

#[cfg(test)]
mod tests {
    // Ops made from raw parts (no GPU): what each constructor checks, and the call each names.
    use super::*;
    use crate::error::ErrorKind;
    use crate::vocabulary::binding::{ScopedSlice, ScopedSliceMut};

    fn read(len: usize) -> ScopedSlice<'static, f32> {
        // SAFETY: never issued; only its address and length are read.
        unsafe { ScopedSlice::from_raw_parts(0x1000, len) }
    }
    fn write(len: usize) -> ScopedSliceMut<'static, f32> {
        // SAFETY: as `read`.
        unsafe { ScopedSliceMut::from_raw_parts(0x2000, len) }
    }

    #[test]
    fn every_constructor_checks_its_buffers_and_ranks_and_names_its_call() {
        let sum = ReduceOp::Sum;
        let made = [
            Op::all_reduce(read(8), write(8), 8, sum),
            Op::all_reduce_in_place(write(8), 8, sum),
            Op::broadcast(write(8), 8, 1, 2),
            Op::reduce(read(8), write(8), 8, sum, (1, 2)),
            Op::all_gather(read(8), write(16), 8, 2),
            Op::reduce_scatter(read(16), write(8), 8, sum, 2),
            Op::send(read(8), 8, 1, 2),
            Op::recv(write(8), 8, 1, 2),
        ];
        let names: Vec<&str> = made.iter().map(|m| m.as_ref().unwrap().call()).collect();
        assert_eq!(
            names,
            [
                "ncclAllReduce",
                "ncclAllReduce",
                "ncclBroadcast",
                "ncclReduce",
                "ncclAllGather",
                "ncclReduceScatter",
                "ncclSend",
                "ncclRecv"
            ]
        );
        let in_place = made[1].as_ref().unwrap();
        assert_eq!((in_place.send, in_place.recv), (0x2000, 0x2000));
        let refused = [
            (
                Op::all_reduce(read(7), write(8), 8, sum),
                ErrorKind::BufferTooShort,
            ),
            (
                Op::all_reduce_in_place(write(7), 8, sum),
                ErrorKind::BufferTooShort,
            ),
            (Op::broadcast(write(8), 8, 2, 2), ErrorKind::InvalidValue),
            (
                Op::reduce(read(8), write(8), 8, sum, (2, 2)),
                ErrorKind::InvalidValue,
            ),
            (
                Op::all_gather(read(8), write(15), 8, 2),
                ErrorKind::BufferTooShort,
            ),
            (
                Op::reduce_scatter(read(15), write(8), 8, sum, 2),
                ErrorKind::BufferTooShort,
            ),
            (
                Op::all_gather(read(8), write(8), usize::MAX, 2),
                ErrorKind::BufferTooShort,
            ),
            (
                Op::reduce_scatter(read(8), write(8), usize::MAX, sum, 2),
                ErrorKind::SizeOverflow,
            ),
            (Op::send(read(8), 8, 5, 2), ErrorKind::InvalidValue),
            (Op::recv(write(8), 9, 1, 2), ErrorKind::BufferTooShort),
        ];
        for (i, (r, kind)) in refused.into_iter().enumerate() {
            assert_eq!(r.map(|_| ()).unwrap_err().kind(), kind, "case {i}");
        }
    }
}
