//! NCCL under the guard (cargo feature `nccl`): a [`Comm`]unicator lent by a [`PushedGuard`],
//! whose collectives and point-to-point calls enqueue on a [`StreamScope`] with bound device
//! memory, every count checked before anything is enqueued, and every wait bounded by a
//! timeout the user sets.
//!
//! # The communicator
//!
//! [`PushedGuard::nccl_rank`] makes this process's rank of a clique (`ncclCommInitRankConfig`)
//! while the guard's context is current. [`Comm<'g>`](Comm) borrows the guard, like the streams
//! and buffers it lends, so the compiler refuses (C25) a communicator used after its guard
//! popped, while another context is pushed on top, or on another thread (`!Send`, `!Sync`).
//!
//! NCCL works in each device's *primary* context (its threads select the device with the
//! runtime's `cudaSetDevice`), so the guard must be one of [`Context::primary`](crate::Context::primary):
//! `nccl_rank` refuses any other context with `CUDA_ERROR_INVALID_CONTEXT`, before NCCL is called.
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
//! # Failure: no rank waits forever (R16)
//!
//! Every communicator is made non-blocking (`blocking = 0`) with the timeout given to
//! [`nccl_rank`](PushedGuard::nccl_rank), and custack polls it (`ncclCommGetAsyncError`) where
//! NCCL would block:
//!
//! - its initialization, which waits for every rank: a rank that never arrives or dies on the
//!   way makes the others' `nccl_rank` return [`ErrorKind::NcclTimedOut`] after the timeout;
//! - a call NCCL answers with `ncclInProgress` (a non-blocking communicator's calls are
//!   enqueued by an NCCL thread: custack returns only once they are);
//! - [`Comm::wait`], which waits for the scope's stream while watching the communicator: the
//!   way to end a scope with collectives whose peers may die (a scope's own end waits for its
//!   stream without a bound);
//! - its destruction (`ncclCommFinalize`, then `ncclCommDestroy`).
//!
//! When the timeout passes or NCCL reports an error, the communicator is aborted
//! (`ncclCommAbort`): NCCL ends its pending work and frees its resources, nothing is leaked,
//! and every later call on it returns [`ErrorKind::NcclTimedOut`] (or the error) again.
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
//! let comm = guard.nccl_rank(&id, job.rank(), job.world_size(), timeout)?;
//! let mut x = guard.alloc_from(&[job.rank() as f32; 1024])?;
//! guard.stream()?.scope(|s| -> custack::Result<()> {
//!     comm.all_reduce_in_place(s, s.bind_mut(&mut x), 1024, ReduceOp::Sum)?;
//!     comm.wait(s) // bounded: a dead peer is an error, not a hang
//! })??;
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # References
//!
//! <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api.html>

mod check;
mod parked;

pub use parked::{ParkedComm, ParkedPart, all_reduce_parked, comms};

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::ffi::nccl::{ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::cell::Cell;
use core::ffi::{CStr, c_char, c_int, c_void};
use core::marker::PhantomData;
use std::time::{Duration, Instant};

/// The id every rank of one clique is made with (`ncclUniqueId`): 128 plain bytes, made once
/// by one rank ([`unique_id`]) and sent to the others.
#[derive(Clone, Copy)]
#[doc(alias = "ncclUniqueId")]
pub struct UniqueId {
    raw: ffi::nccl::ncclUniqueId,
}

impl core::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("UniqueId(..)") // opaque: NCCL's address and a random magic
    }
}

impl UniqueId {
    /// Its 128 bytes, to send to the other ranks.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.raw.internal.map(|b| b as u8)
    }
    /// An id from its 128 bytes.
    pub fn from_bytes(bytes: [u8; 128]) -> Self {
        Self {
            raw: ffi::nccl::ncclUniqueId {
                internal: bytes.map(|b| b as c_char),
            },
        }
    }
    /// An id from bytes received from another rank.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] unless `bytes` holds exactly 128.
    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        let bytes: [u8; 128] = bytes.try_into().map_err(|_| {
            Error::custack(
                ErrorKind::InvalidValue,
                format!("an NCCL unique id is 128 bytes, not {}", bytes.len()),
            )
        })?;
        Ok(Self::from_bytes(bytes))
    }
}

/// `ncclGetUniqueId`—A new id for a clique: call it on one rank and send it to the others.
///
/// # Errors
///
/// [`ErrorKind::LibraryNotLinked`] in a build without NCCL; NCCL's status (no network
/// interface NCCL can use is `NcclSystemError` or `NcclInternalError`).
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetuniqueid>
#[doc(alias = "ncclGetUniqueId")]
pub fn unique_id() -> Result<UniqueId> {
    not_linked()?;
    let mut raw = ffi::nccl::ncclUniqueId { internal: [0; 128] };
    // SAFETY: a valid out-pointer to 128 writable bytes.
    status("ncclGetUniqueId", core::ptr::null_mut(), unsafe {
        ffi::nccl::ncclGetUniqueId(&raw mut raw)
    })?;
    Ok(UniqueId { raw })
}

/// NCCL's version (`ncclGetVersion`), e.g. `2.27.7`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NcclVersion {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The patch level.
    pub patch: u32,
}

impl core::fmt::Display for NcclVersion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl NcclVersion {
    /// From `NCCL_VERSION_CODE`: `major·1000 + minor·100 + patch` up to 2.8, `major·10000 +
    /// minor·100 + patch` after.
    fn from_code(code: u32) -> Self {
        let (major, rest) = if code >= 10000 {
            (code / 10000, code % 10000)
        } else {
            (code / 1000, code % 1000)
        };
        Self {
            major,
            minor: rest / 100,
            patch: rest % 100,
        }
    }
}

/// `ncclGetVersion`—The version of the NCCL this build is linked against.
///
/// # Errors
///
/// [`ErrorKind::LibraryNotLinked`] in a build without NCCL.
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetversion>
#[doc(alias = "ncclGetVersion")]
pub fn version() -> Result<NcclVersion> {
    not_linked()?;
    let mut code: c_int = 0;
    // SAFETY: a valid out-pointer.
    status("ncclGetVersion", core::ptr::null_mut(), unsafe {
        ffi::nccl::ncclGetVersion(&raw mut code)
    })?;
    Ok(NcclVersion::from_code(code.unsigned_abs()))
}

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
    fn raw(self) -> ncclRedOp_t {
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

/// One rank of an NCCL clique, a communicator of the guard's context; see the
/// [module docs](self).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while
/// another context is pushed on top (C25); `!Send` and `!Sync`. Finalized and destroyed on drop
/// (bounded by its timeout, then aborted; errors recorded, see
/// [`take_drop_errors`](crate::take_drop_errors)), or by [`Comm::destroy`].
#[doc(alias = "ncclComm_t")]
pub struct Comm<'g> {
    /// Null once destroyed or aborted.
    raw: Cell<ncclComm_t>,
    rank: usize,
    nranks: usize,
    timeout: Duration,
    /// Why the communicator was aborted, repeated by every later call.
    aborted: Cell<Option<ErrorKind>>,
    // Borrowed from the guard; the communicator is bound to the guard's context, current on
    // this thread only: `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(Comm<'static>: Send, Sync);
static_assertions::assert_impl_all!(UniqueId: Send, Sync);

impl core::fmt::Debug for Comm<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Comm")
            .field("raw", &self.raw.get())
            .field("rank", &self.rank)
            .field("nranks", &self.nranks)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `ncclCommInitRankConfig`—Makes rank `rank` of a clique of `nranks` on this guard's
    /// device, every rank with the same `id`; waits until every rank has arrived, at most
    /// `timeout`, which also bounds every later wait of the communicator (see the
    /// [module docs](crate::nccl)).
    ///
    /// # Errors
    ///
    /// Before NCCL is called: [`ErrorKind::LibraryNotLinked`] in a build without NCCL;
    /// [`ErrorKind::InvalidValue`] unless `rank < nranks` (C `int`s); `CUDA_ERROR_INVALID_CONTEXT`
    /// unless this guard's context is its device's primary context. Then
    /// [`ErrorKind::NcclTimedOut`] if the clique was not complete within `timeout` (a rank that
    /// never arrived, or died; the attempt is aborted, nothing is leaked); NCCL's status
    /// (`NcclInvalidUsage` for two ranks on one GPU, `NcclRemoteError`, …).
    ///
    /// # Examples
    ///
    /// A clique of one (every collective is then a copy):
    ///
    /// ```no_run
    /// # use custack::{Context, Driver, Stack};
    /// # use std::time::Duration;
    /// let ctx = Context::primary(Driver::init()?.device(0)?)?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let id = custack::nccl::unique_id()?;
    /// let comm = guard.nccl_rank(&id, 0, 1, Duration::from_secs(10))?;
    /// assert_eq!(comm.nranks(), 1);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcomminitrankconfig>
    #[doc(alias = "ncclCommInitRankConfig")]
    #[doc(alias = "ncclCommInitRank")]
    pub fn nccl_rank(
        &self,
        id: &UniqueId,
        rank: usize,
        nranks: usize,
        timeout: Duration,
    ) -> Result<Comm<'_>> {
        not_linked()?;
        let (r, n) = check::clique(rank, nranks)?;
        refuse_blocking_override()?;
        self.require_primary()?;
        let mut config = nonblocking_config();
        let mut raw: ncclComm_t = core::ptr::null_mut();
        let deadline = deadline_after(timeout);
        // SAFETY: `ncclCommInitRankConfig` writes a communicator to a valid out-pointer and
        // binds it to the current device:
        // - `raw` and `config` are live locals; `config` is initialized as
        //   `NCCL_CONFIG_INITIALIZER` would (size, magic, version; `blocking` 0, the rest
        //   NCCL's defaults), and NCCL reads `config.size` bytes of it, every one initialized
        //   (the struct has no padding: 8 + 4 + 4 + 4·4 + 8 + 4 + 4 = 48);
        // - `id` is 128 plain bytes, passed by value;
        // - this guard's context is current and is its device's primary context (checked
        //   above), which NCCL's own threads select.
        let started = unsafe {
            ffi::nccl::ncclCommInitRankConfig(&raw mut raw, n, id.raw, r, &raw mut config)
        };
        let comm = Comm {
            raw: Cell::new(raw),
            rank,
            nranks,
            timeout,
            aborted: Cell::new(None),
            _guard: PhantomData,
        };
        if started != ncclResult_t::ncclSuccess && started != ncclResult_t::ncclInProgress {
            let e = status_error("ncclCommInitRankConfig", raw, started);
            comm.abort(); // frees what NCCL may have made (nothing, if `raw` is null)
            return Err(e);
        }
        comm.settle("ncclCommInitRankConfig", deadline)?;
        Ok(comm)
    }

    /// `CUDA_ERROR_INVALID_CONTEXT` unless this guard's context is its device's primary
    /// context, the one NCCL works in.
    fn require_primary(&self) -> Result<()> {
        let device = self.device()?;
        let mut primary = core::ptr::null_mut();
        // SAFETY: a valid out-pointer and a device of this driver; retained here, released
        // right below.
        unsafe { ffi::cuDevicePrimaryCtxRetain(&raw mut primary, device.as_raw()) }.result()?;
        // SAFETY: releases the reference taken just above, once; the guard's own context
        // (primary or not) is unaffected.
        let released = unsafe { ffi::cuDevicePrimaryCtxRelease_v2(device.as_raw()) }.result();
        if primary != self.as_raw() {
            return Err(Error::from_code(ffi::CUresult::CUDA_ERROR_INVALID_CONTEXT).with_detail(
                "NCCL works in the device's primary context (its threads select the device with \
                 cudaSetDevice): push `Context::primary(device)` to make a communicator",
            ));
        }
        released
    }
}

/// The configuration of every communicator custack makes: non-blocking, the rest NCCL's
/// defaults (as `NCCL_CONFIG_INITIALIZER` with `blocking = 0`).
fn nonblocking_config() -> ffi::nccl::ncclConfig_t {
    ffi::nccl::ncclConfig_t {
        size: size_of::<ffi::nccl::ncclConfig_t>(),
        magic: ffi::nccl::NCCL_API_MAGIC,
        version: ffi::nccl::NCCL_CONFIG_VERSION_2_18,
        blocking: 0,
        cgaClusterSize: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        minCTAs: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        maxCTAs: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        netName: core::ptr::null(),
        splitShare: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
        trafficClass: ffi::nccl::NCCL_CONFIG_UNDEF_INT,
    }
}

/// `Err` where `NCCL_COMM_BLOCKING=1`, which makes NCCL ignore `blocking = 0`, so that its init
/// and calls would block without the communicator's bound.
fn refuse_blocking_override() -> Result<()> {
    match std::env::var("NCCL_COMM_BLOCKING") {
        Ok(v) if v.trim() == "1" => Err(Error::custack(
            ErrorKind::InvalidValue,
            "NCCL_COMM_BLOCKING=1 is set: NCCL would then block in its init and calls with no \
             bound, where custack bounds every wait by the communicator's timeout; unset it",
        )),
        _ => Ok(()),
    }
}

/// `Err` in a build that found no NCCL.
fn not_linked() -> Result<()> {
    if cfg!(custack_no_nccl) {
        return Err(Error::custack(
            ErrorKind::LibraryNotLinked,
            "NCCL (feature `nccl`): build.rs found no libnccl when custack was built. Set \
             CUSTACK_NCCL_LIB_DIR to the directory holding libnccl.so.2, or install NCCL's \
             Python wheel of the driver's CUDA major version (`pip install nvidia-nccl-cu13` \
             for a 13.x driver, `nvidia-nccl-cu12` for 12.x) or the NCCL package, and build \
             again (`cargo clean -p custack` if the build does not notice)",
        ));
    }
    Ok(())
}

/// An NCCL status as a result: the kind named after the status, the detail naming the call and
/// NCCL's last error message.
fn status(call: &str, comm: ncclComm_t, status: ncclResult_t) -> Result<()> {
    if status == ncclResult_t::ncclSuccess {
        return Ok(());
    }
    Err(status_error(call, comm, status))
}

#[cold]
#[inline(never)]
fn status_error(call: &str, comm: ncclComm_t, status: ncclResult_t) -> Error {
    let kind = status_kind(status);
    // SAFETY: `ncclGetErrorString` takes any value and returns a pointer to a static string;
    // null is checked below.
    let text = c_text(unsafe { ffi::nccl::ncclGetErrorString(status) });
    // SAFETY: `ncclGetLastError` takes a communicator or null (the thread's last error) and
    // returns a string NCCL owns, valid until its next call on this thread; copied at once.
    let last = c_text(unsafe { ffi::nccl::ncclGetLastError(comm) });
    let name = match kind {
        ErrorKind::NcclUnlisted => "status",
        _ => kind.name(),
    };
    let mut detail = format!("{call} returned {name} ({}): {text}", status.0);
    if !last.is_empty() {
        detail.push_str(": ");
        detail.push_str(&last);
    }
    Error::custack(kind, detail)
}

/// A C string NCCL owns, copied; empty for null.
fn c_text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: a non-null pointer from `ncclGetErrorString`/`ncclGetLastError`: a
    // NUL-terminated string NCCL keeps alive at least until its next call on this thread.
    unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

/// The kind of an NCCL status (never called with success).
fn status_kind(status: ncclResult_t) -> ErrorKind {
    use ncclResult_t as R;
    match status {
        R::ncclUnhandledCudaError => ErrorKind::NcclUnhandledCudaError,
        R::ncclSystemError => ErrorKind::NcclSystemError,
        R::ncclInternalError => ErrorKind::NcclInternalError,
        R::ncclInvalidArgument => ErrorKind::NcclInvalidArgument,
        R::ncclInvalidUsage => ErrorKind::NcclInvalidUsage,
        R::ncclRemoteError => ErrorKind::NcclRemoteError,
        R::ncclInProgress => ErrorKind::NcclInProgress,
        R::ncclTimeout => ErrorKind::NcclTimeout,
        _ => ErrorKind::NcclUnlisted,
    }
}

/// The deadline `timeout` from now; `None` (no deadline) where that is beyond what `Instant`
/// can hold (`Duration::MAX`).
fn deadline_after(timeout: Duration) -> Option<Instant> {
    Instant::now().checked_add(timeout)
}

/// Whether `deadline` has passed.
fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// How long a poll sleeps: from 50 µs, doubling up to 5 ms (an initialization takes
/// milliseconds to seconds; a non-blocking collective's enqueue, by a thread NCCL starts for
/// it, tens of microseconds).
fn backoff(sleep: &mut Duration) {
    std::thread::sleep(*sleep);
    *sleep = (*sleep * 2).min(Duration::from_millis(5));
}

impl Comm<'_> {
    /// This process's rank in the clique.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// How many ranks the clique has.
    pub fn nranks(&self) -> usize {
        self.nranks
    }
    /// The timeout every wait of this communicator is bounded by.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
    /// The raw communicator (null once destroyed or aborted).
    pub fn as_raw(&self) -> ncclComm_t {
        Cell::get(&self.raw)
    }

    /// The live communicator, or the error it was aborted with.
    fn live(&self, call: &str) -> Result<ncclComm_t> {
        let raw = self.raw.get();
        if raw.is_null() {
            let kind = self.aborted.get().unwrap_or(ErrorKind::InvalidValue);
            return Err(Error::custack(
                kind,
                format!("{call}: this communicator was aborted or destroyed; nothing was enqueued"),
            ));
        }
        Ok(raw)
    }

    /// `ncclCommAbort`: ends the communicator's pending work and frees it; idempotent.
    fn abort(&self) {
        let raw = self.raw.replace(core::ptr::null_mut());
        if raw.is_null() {
            return;
        }
        // SAFETY: a live communicator of the current context (this value borrows its guard),
        // aborted once: `raw` was taken out above, so no later call reaches it.
        if let Err(e) = status("ncclCommAbort", core::ptr::null_mut(), unsafe {
            ffi::nccl::ncclCommAbort(raw)
        }) {
            record_drop_error(e);
        }
    }

    /// Aborts with the error `e` (remembered for later calls), returning it.
    fn fail(&self, e: Error) -> Error {
        self.aborted.set(Some(e.kind()));
        self.abort();
        e
    }

    /// Polls the communicator until its state is no longer `ncclInProgress`, at most until
    /// `deadline`; aborts it on an error or at the deadline.
    fn settle(&self, call: &str, deadline: Option<Instant>) -> Result<()> {
        match poll(self.live(call)?, call, deadline) {
            Ok(()) => Ok(()),
            Err(Stalled::Failed(e)) => Err(self.fail(e)),
            Err(Stalled::TimedOut) => Err(self.fail(self.timed_out(call))),
        }
    }

    #[cold]
    fn timed_out(&self, call: &str) -> Error {
        Error::custack(
            ErrorKind::NcclTimedOut,
            format!(
                "{call}: rank {} of {} did not finish within {:?} (a rank that died or never \
                 arrived?); the communicator was aborted",
                self.rank, self.nranks, self.timeout
            ),
        )
    }

    /// Issues one NCCL call on the scope's stream (refused inside a capture) and returns once
    /// NCCL has enqueued it: a non-blocking communicator answers `ncclInProgress` while its
    /// thread enqueues, and is polled until it is done.
    fn enqueue(
        &self,
        s: &StreamScope<'_, '_>,
        call: &'static str,
        f: impl FnOnce(ncclComm_t, ffi::CUstream) -> ncclResult_t,
    ) -> Result<()> {
        let raw = self.live(call)?;
        crate::asynchronous::refuse_inside_capture(call)?;
        self.settled(call, f(raw, s.as_raw()))
    }

    /// The result of a call that returned `result`: settled (polled until NCCL has enqueued
    /// it) on `ncclInProgress`; an error otherwise aborts the communicator, so no thread of
    /// NCCL's can still enqueue it after the scope has ended.
    fn settled(&self, call: &str, result: ncclResult_t) -> Result<()> {
        if result == ncclResult_t::ncclSuccess {
            return Ok(());
        }
        if result == ncclResult_t::ncclInProgress {
            return self.settle(call, deadline_after(self.timeout));
        }
        Err(self.fail(status_error(call, self.raw.get(), result)))
    }

    /// `ncclAllReduce`—Enqueues the reduction of `count` elements of every rank's `send` into
    /// every rank's `recv`.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] if `send` or `recv` holds
    /// fewer than `count` elements; `CUDA_ERROR_NOT_SUPPORTED` inside a capture. NCCL's status
    /// or [`ErrorKind::NcclTimedOut`] (the communicator is then aborted).
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
        let stream = s.as_raw();
        // SAFETY: opens a group on this thread, closed below before this function returns on
        // every path (nothing between can unwind: the calls are `extern "C"`), so no other
        // call of the program is held in it.
        let started = unsafe { ffi::nccl::ncclGroupStart() };
        if started != ncclResult_t::ncclSuccess {
            return Err(self.fail(status_error("ncclGroupStart", raw, started)));
        }
        // SAFETY: `ncclSend` reads `count` elements of `send`, `ncclRecv` writes `count` of
        // `recv`, in stream order once the group ends: both bound to the scope, which outlives
        // this call and so the group, holding that many (checked); `recv` exclusively; `to`
        // and `from` ranks (checked); `raw` and the stream as in `all_reduce`.
        let sent = unsafe { ffi::nccl::ncclSend(ptr(send), count, T::RAW, to, raw, stream) };
        // SAFETY: as above.
        let received =
            unsafe { ffi::nccl::ncclRecv(ptr_mut(recv), count, T::RAW, from, raw, stream) };
        // SAFETY: closes the group opened above, once; NCCL enqueues its calls now (a
        // non-blocking communicator by a thread of its own, settled below).
        let ended = unsafe { ffi::nccl::ncclGroupEnd() };
        for (name, r) in [("ncclSend", sent), ("ncclRecv", received)] {
            if r != ncclResult_t::ncclSuccess && r != ncclResult_t::ncclInProgress {
                return Err(self.fail(status_error(name, raw, r)));
            }
        }
        self.settled(call, ended)
    }

    /// Waits for the scope's stream, at most the communicator's timeout, watching the
    /// communicator (`cuStreamQuery`, `ncclCommGetAsyncError`): the bounded end of a scope whose
    /// collectives wait for other ranks. On an NCCL error, or when the timeout passes, the
    /// communicator is aborted, which ends its pending work, so the scope's own wait returns.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NcclTimedOut`]; NCCL's asynchronous error (`NcclRemoteError` when a peer
    /// failed); a driver error of the stream's work. Only this communicator is watched: with
    /// several communicators' work on one stream, end the scope with each one's `wait`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommgetasyncerror>,
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "ncclCommGetAsyncError")]
    #[doc(alias = "cuStreamQuery")]
    pub fn wait(&self, s: &StreamScope<'_, '_>) -> Result<()> {
        let call = "Comm::wait";
        let raw = self.live(call)?;
        let deadline = deadline_after(self.timeout);
        let mut sleep = Duration::from_micros(50);
        loop {
            // The communicator first: an idle stream proves nothing while NCCL may still be
            // enqueueing (`ncclInProgress`).
            let mut state = ncclResult_t::ncclSuccess;
            // SAFETY: a live communicator and a valid out-pointer.
            let asked = unsafe { ffi::nccl::ncclCommGetAsyncError(raw, &raw mut state) };
            status("ncclCommGetAsyncError", raw, asked).map_err(|e| self.fail(e))?;
            if state != ncclResult_t::ncclSuccess && state != ncclResult_t::ncclInProgress {
                return Err(self.fail(status_error(call, raw, state)));
            }
            if state == ncclResult_t::ncclSuccess {
                // SAFETY: the scope's stream is live for the scope and of the current context.
                let queried = unsafe { ffi::cuStreamQuery(s.as_raw()) };
                if queried == ffi::CUresult::CUDA_SUCCESS {
                    return Ok(());
                }
                if queried != ffi::CUresult::CUDA_ERROR_NOT_READY {
                    return Err(Error::from_code(queried));
                }
            }
            if passed(deadline) {
                return Err(self.fail(self.timed_out(call)));
            }
            backoff(&mut sleep);
        }
    }

    /// `ncclCommFinalize`, `ncclCommDestroy`—Finalizes (waits, at most the timeout, until every
    /// rank is done with the communicator) and destroys it; aborted instead when that fails.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NcclTimedOut`], NCCL's status; the communicator is released either way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclcommfinalize>
    #[doc(alias = "ncclCommFinalize")]
    #[doc(alias = "ncclCommDestroy")]
    pub fn destroy(self) -> Result<()> {
        self.release()
    }

    fn release(&self) -> Result<()> {
        let raw = self.raw.replace(core::ptr::null_mut());
        if raw.is_null() {
            return Ok(()); // aborted: already released, its error already returned
        }
        finish(raw, self.timeout)
    }
}

/// Why a poll of a communicator stopped before it settled.
enum Stalled {
    /// NCCL reported an error.
    Failed(Error),
    /// The deadline passed first.
    TimedOut,
}

/// Polls `ncclCommGetAsyncError` until the communicator's state is no longer `ncclInProgress`,
/// at most until `deadline`.
fn poll(
    raw: ncclComm_t,
    call: &str,
    deadline: Option<Instant>,
) -> core::result::Result<(), Stalled> {
    let mut sleep = Duration::from_micros(50);
    loop {
        let mut state = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator (the caller's) and a valid out-pointer; callable at any
        // time, from any thread, also while an operation is in progress.
        let asked = unsafe { ffi::nccl::ncclCommGetAsyncError(raw, &raw mut state) };
        status("ncclCommGetAsyncError", raw, asked).map_err(Stalled::Failed)?;
        if state == ncclResult_t::ncclSuccess {
            return Ok(());
        }
        if state != ncclResult_t::ncclInProgress {
            return Err(Stalled::Failed(status_error(call, raw, state)));
        }
        if passed(deadline) {
            return Err(Stalled::TimedOut);
        }
        backoff(&mut sleep);
    }
}

/// `ncclCommFinalize`, polled at most `timeout`, then `ncclCommDestroy`; `ncclCommAbort`
/// instead when finalizing fails or times out. Releases `raw` on every path.
fn finish(raw: ncclComm_t, timeout: Duration) -> Result<()> {
    let deadline = deadline_after(timeout);
    // SAFETY: a live communicator of the current context, owned by the caller and released
    // once, here; finalizing flushes its issued work (non-blocking: polled below).
    let finalized = unsafe { ffi::nccl::ncclCommFinalize(raw) };
    let settled =
        if finalized == ncclResult_t::ncclSuccess || finalized == ncclResult_t::ncclInProgress {
            poll(raw, "ncclCommFinalize", deadline)
        } else {
            Err(Stalled::Failed(status_error(
                "ncclCommFinalize",
                raw,
                finalized,
            )))
        };
    let failed = match settled {
        Ok(()) => {
            // SAFETY: a finalized communicator, destroyed once.
            return status("ncclCommDestroy", core::ptr::null_mut(), unsafe {
                ffi::nccl::ncclCommDestroy(raw)
            });
        }
        Err(Stalled::Failed(e)) => e,
        Err(Stalled::TimedOut) => Error::custack(
            ErrorKind::NcclTimedOut,
            format!(
                "ncclCommFinalize: the other ranks did not finish within {timeout:?}; the \
                 communicator was aborted"
            ),
        ),
    };
    // SAFETY: the same communicator, not destroyed above: aborted once instead, which ends
    // its pending work and frees it.
    if let Err(e) = status("ncclCommAbort", core::ptr::null_mut(), unsafe {
        ffi::nccl::ncclCommAbort(raw)
    }) {
        record_drop_error(e);
    }
    Err(failed)
}

impl Drop for Comm<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}

/// A device address as NCCL's `const void*`.
fn ptr(p: ffi::CUdeviceptr) -> *const c_void {
    p as *const c_void
}

/// A device address as NCCL's `void*`.
fn ptr_mut(p: ffi::CUdeviceptr) -> *mut c_void {
    p as *mut c_void
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_decode_both_encodings() {
        assert_eq!(NcclVersion::from_code(22_707).to_string(), "2.27.7");
        assert_eq!(NcclVersion::from_code(2_804).to_string(), "2.8.4");
        assert_eq!(NcclVersion::from_code(23_203).to_string(), "2.32.3");
    }

    #[test]
    fn unique_ids_round_trip_and_refuse_other_lengths() {
        let mut bytes = [0u8; 128];
        bytes[0] = 0xfe;
        bytes[127] = 7;
        assert_eq!(UniqueId::from_bytes(bytes).to_bytes(), bytes);
        assert_eq!(UniqueId::from_slice(&bytes).unwrap().to_bytes(), bytes);
        let e = UniqueId::from_slice(&bytes[..127]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.detail().unwrap().contains("not 127"));
    }

    #[test]
    fn statuses_are_kinds_named_after_them() {
        for (raw, kind) in [
            (1, ErrorKind::NcclUnhandledCudaError),
            (2, ErrorKind::NcclSystemError),
            (3, ErrorKind::NcclInternalError),
            (4, ErrorKind::NcclInvalidArgument),
            (5, ErrorKind::NcclInvalidUsage),
            (6, ErrorKind::NcclRemoteError),
            (7, ErrorKind::NcclInProgress),
            (8, ErrorKind::NcclTimeout),
            (99, ErrorKind::NcclUnlisted),
        ] {
            assert_eq!(status_kind(ncclResult_t(raw)), kind);
        }
    }
}
