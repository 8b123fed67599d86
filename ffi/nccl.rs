//! Mirrors NCCL's `nccl.h` (NCCL 2.18 and newer alike): the communicator, the unique id, the
//! configuration's leading fields, the enums the safe layer passes, and the entry points
//! `custack::nccl` calls, in header order.
//!
//! No `#[link]`: with the cargo feature `nccl`, `build.rs` links `libnccl` into the crate. Where
//! it found none (`cfg(custack_no_nccl)`), the same names are functions that return
//! `ncclSystemError` without touching their arguments, so the crate builds and `custack::nccl`
//! says at run time what to install.
//!
//! `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles.

use super::types::CUstream;
use core::ffi::{c_char, c_int, c_uint, c_void};
use core::marker::{PhantomData, PhantomPinned};

/// `struct ncclComm`: opaque.
#[repr(C)]
pub struct ncclComm {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `ncclComm_t`: a communicator, one rank of a clique, bound to a CUDA device.
pub type ncclComm_t = *mut ncclComm;

/// `NCCL_UNIQUE_ID_BYTES`.
pub const NCCL_UNIQUE_ID_BYTES: usize = 128;

/// `ncclUniqueId`: opaque bytes made by `ncclGetUniqueId`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ncclUniqueId {
    /// `internal`.
    pub internal: [c_char; NCCL_UNIQUE_ID_BYTES],
}

/// `ncclResult_t`: the status every NCCL entry point returns.
///
/// A newtype, not an enum: a newer NCCL may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct ncclResult_t(pub c_int);

impl ncclResult_t {
    /// `ncclSuccess` (0).
    pub const ncclSuccess: Self = Self(0);
    /// `ncclUnhandledCudaError` (1).
    pub const ncclUnhandledCudaError: Self = Self(1);
    /// `ncclSystemError` (2).
    pub const ncclSystemError: Self = Self(2);
    /// `ncclInternalError` (3).
    pub const ncclInternalError: Self = Self(3);
    /// `ncclInvalidArgument` (4).
    pub const ncclInvalidArgument: Self = Self(4);
    /// `ncclInvalidUsage` (5).
    pub const ncclInvalidUsage: Self = Self(5);
    /// `ncclRemoteError` (6).
    pub const ncclRemoteError: Self = Self(6);
    /// `ncclInProgress` (7).
    pub const ncclInProgress: Self = Self(7);
    /// `ncclTimeout` (8, NCCL 2.29 and newer).
    pub const ncclTimeout: Self = Self(8);
}

/// `NCCL_API_MAGIC`: `ncclConfig_t::magic`.
pub const NCCL_API_MAGIC: c_uint = 0xcafe_beef;
/// `NCCL_CONFIG_UNDEF_INT`: a field left to NCCL.
pub const NCCL_CONFIG_UNDEF_INT: c_int = c_int::MIN;
/// `NCCL_VERSION(2, 18, 0)`: the version whose fields [`ncclConfig_t`] mirrors.
pub const NCCL_CONFIG_VERSION_2_18: c_uint = 21800;

/// `ncclConfig_t`, its fields up to `trafficClass` (NCCL 2.18's, and the next one, which fills
/// what would otherwise be 4 bytes of padding: NCCL copies all `size` = 48 bytes, and 2.26 reads
/// that field whatever `version` says). NCCL takes its defaults for every later field, so a
/// newer NCCL reads this prefix as it is.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ncclConfig_t {
    /// `size`: `size_of::<ncclConfig_t>()`.
    pub size: usize,
    /// `magic`: [`NCCL_API_MAGIC`].
    pub magic: c_uint,
    /// `version`: the version these fields are those of.
    pub version: c_uint,
    /// `blocking`: 0 makes every call of the communicator non-blocking (`ncclInProgress`).
    pub blocking: c_int,
    /// `cgaClusterSize`.
    pub cgaClusterSize: c_int,
    /// `minCTAs`.
    pub minCTAs: c_int,
    /// `maxCTAs`.
    pub maxCTAs: c_int,
    /// `netName`.
    pub netName: *const c_char,
    /// `splitShare`.
    pub splitShare: c_int,
    /// `trafficClass` (NCCL 2.25): [`NCCL_CONFIG_UNDEF_INT`].
    pub trafficClass: c_int,
}

/// `ncclRedOp_t`: a reduction.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ncclRedOp_t(pub c_int);

impl ncclRedOp_t {
    /// `ncclSum`.
    pub const ncclSum: Self = Self(0);
    /// `ncclProd`.
    pub const ncclProd: Self = Self(1);
    /// `ncclMax`.
    pub const ncclMax: Self = Self(2);
    /// `ncclMin`.
    pub const ncclMin: Self = Self(3);
    /// `ncclAvg`.
    pub const ncclAvg: Self = Self(4);
}

/// `ncclDataType_t`: an element type.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ncclDataType_t(pub c_int);

impl ncclDataType_t {
    /// `ncclInt8`.
    pub const ncclInt8: Self = Self(0);
    /// `ncclUint8`.
    pub const ncclUint8: Self = Self(1);
    /// `ncclInt32`.
    pub const ncclInt32: Self = Self(2);
    /// `ncclUint32`.
    pub const ncclUint32: Self = Self(3);
    /// `ncclInt64`.
    pub const ncclInt64: Self = Self(4);
    /// `ncclUint64`.
    pub const ncclUint64: Self = Self(5);
    /// `ncclFloat16`.
    pub const ncclFloat16: Self = Self(6);
    /// `ncclFloat32`.
    pub const ncclFloat32: Self = Self(7);
    /// `ncclFloat64`.
    pub const ncclFloat64: Self = Self(8);
    /// `ncclBfloat16`.
    pub const ncclBfloat16: Self = Self(9);
}

const _: () = assert!(core::mem::size_of::<ncclUniqueId>() == 128);
const _: () = assert!(core::mem::size_of::<ncclConfig_t>() == 48);
const _: () = assert!(core::mem::align_of::<ncclConfig_t>() == 8);

link_or_stub! {
    missing: custack_no_nccl => ncclResult_t::ncclSystemError;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetversion>
    pub fn ncclGetVersion(version: *mut c_int) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetuniqueid>
    pub fn ncclGetUniqueId(uniqueId: *mut ncclUniqueId) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitrankconfig>
    pub fn ncclCommInitRankConfig(
        comm: *mut ncclComm_t,
        nranks: c_int,
        commId: ncclUniqueId,
        rank: c_int,
        config: *mut ncclConfig_t,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitall>
    pub fn ncclCommInitAll(comm: *mut ncclComm_t, ndev: c_int, devlist: *const c_int) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommfinalize>
    pub fn ncclCommFinalize(comm: ncclComm_t) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommdestroy>
    pub fn ncclCommDestroy(comm: ncclComm_t) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommabort>
    pub fn ncclCommAbort(comm: ncclComm_t) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommsplit>
    pub fn ncclCommSplit(
        comm: ncclComm_t,
        color: c_int,
        key: c_int,
        newcomm: *mut ncclComm_t,
        config: *mut ncclConfig_t,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgeterrorstring>
    pub fn ncclGetErrorString(result: ncclResult_t) -> *const c_char = core::ptr::null();
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetlasterror>
    pub fn ncclGetLastError(comm: ncclComm_t) -> *const c_char = core::ptr::null();
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommgetasyncerror>
    pub fn ncclCommGetAsyncError(comm: ncclComm_t, asyncError: *mut ncclResult_t) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommcount>
    pub fn ncclCommCount(comm: ncclComm_t, count: *mut c_int) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommcudevice>
    pub fn ncclCommCuDevice(comm: ncclComm_t, device: *mut c_int) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommuserrank>
    pub fn ncclCommUserRank(comm: ncclComm_t, rank: *mut c_int) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclreduce>
    pub fn ncclReduce(
        sendbuff: *const c_void,
        recvbuff: *mut c_void,
        count: usize,
        datatype: ncclDataType_t,
        op: ncclRedOp_t,
        root: c_int,
        comm: ncclComm_t,
        stream: CUstream,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclbroadcast>
    pub fn ncclBroadcast(
        sendbuff: *const c_void,
        recvbuff: *mut c_void,
        count: usize,
        datatype: ncclDataType_t,
        root: c_int,
        comm: ncclComm_t,
        stream: CUstream,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallreduce>
    pub fn ncclAllReduce(
        sendbuff: *const c_void,
        recvbuff: *mut c_void,
        count: usize,
        datatype: ncclDataType_t,
        op: ncclRedOp_t,
        comm: ncclComm_t,
        stream: CUstream,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclreducescatter>
    pub fn ncclReduceScatter(
        sendbuff: *const c_void,
        recvbuff: *mut c_void,
        recvcount: usize,
        datatype: ncclDataType_t,
        op: ncclRedOp_t,
        comm: ncclComm_t,
        stream: CUstream,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html#ncclallgather>
    pub fn ncclAllGather(
        sendbuff: *const c_void,
        recvbuff: *mut c_void,
        sendcount: usize,
        datatype: ncclDataType_t,
        comm: ncclComm_t,
        stream: CUstream,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclsend>
    pub fn ncclSend(
        sendbuff: *const c_void,
        count: usize,
        datatype: ncclDataType_t,
        peer: c_int,
        comm: ncclComm_t,
        stream: CUstream,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/p2p.html#ncclrecv>
    pub fn ncclRecv(
        recvbuff: *mut c_void,
        count: usize,
        datatype: ncclDataType_t,
        peer: c_int,
        comm: ncclComm_t,
        stream: CUstream,
    ) -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/group.html#ncclgroupstart>
    pub fn ncclGroupStart() -> ncclResult_t;
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/group.html#ncclgroupend>
    pub fn ncclGroupEnd() -> ncclResult_t;
}
