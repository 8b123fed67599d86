//! NCCL's stand-in for the checking driver: a `libnccl.so.2` (NCCL 2's soname) that a program
//! loads instead of NCCL, with the checking `libcuda.so.1` ahead of the real ones on
//! `LD_LIBRARY_PATH`. It models NCCL within one process: no network, no other process, no data.
//!
//! Its communicators are the double's handles (`checkdriver/src/library_handles.rs`, as every
//! stand-in's), asked through the double's extensions, found with `dlsym` in the process's
//! global scope; each entry point below is counted by the double as a driver call of its name,
//! so the schedules fail it too: the stand-in then answers `ncclUnhandledCudaError` (a CUDA
//! call of NCCL's failed), and does nothing else (but an abort: see below). What it keeps itself
//! is what NCCL knows of its cliques: the unique ids it made, each communicator's clique, rank
//! and count, and the collectives not yet complete.
//!
//! What is modelled:
//! - `ncclGetUniqueId` makes a fresh id (the stand-in's mark and a serial number in its first 16
//!   bytes); `ncclCommInitRankConfig` makes rank `rank` of the clique of `nranks` that id names,
//!   a communicator of the current context (`ncclInvalidArgument` for an id it did not make, a
//!   rank out of range or a count other than the clique's; `ncclInvalidUsage` for a rank made
//!   twice). Several ranks of one clique may live in one context: the double has one device,
//!   and the stand-in checks no device (NCCL refuses two ranks of a clique on one device). The
//!   configuration is not read; every call is answered at once, as a blocking communicator's.
//! - `ncclCommGetAsyncError` answers `ncclInProgress` until every rank of the clique was made
//!   (a clique some rank never joins never becomes ready) and, after `ncclCommFinalize`, while
//!   a collective of the communicator is not complete; `ncclSuccess` otherwise: the stand-in
//!   raises no asynchronous error of its own (the schedules fail the query itself).
//!   `ncclCommCount`, `ncclCommCuDevice` (0) and `ncclCommUserRank` answer what they ask. These
//!   queries, `ncclGetUniqueId` and the group calls need no current context.
//! - The collectives `ncclAllReduce`, `ncclReduce`, `ncclBroadcast`, `ncclReduceScatter` and
//!   `ncclAllGather`, on a communicator of the current context and a stream of it (both checked
//!   by the double), enqueue work on that stream that uses both buffers
//!   (`custackCheckdriverLibraryEnqueue`): the double records it as pending there, so freeing a
//!   buffer before the program saw the stream's work complete is reported, as for any other
//!   stream work, and it is an enqueue for `NULLDRIVER_HANG_AT`. The work is **held back** (the
//!   stream's queries answer `CUDA_ERROR_NOT_READY`, its synchronize never returns: the double's
//!   hung exit) until every rank of the clique has issued its matching collective (the n-th of
//!   each rank's): outside a group at once, inside one (`ncclGroupStart` ... `ncclGroupEnd`,
//!   nested) when the outermost group ends. A collective on a communicator whose clique is not
//!   complete, or one the stand-in does not know (destroyed, aborted: the double reports the
//!   use), is counted and answered `ncclInvalidArgument`, enqueueing nothing. A group whose
//!   ranks do not all take part never completes, as NCCL's kernels wait for the missing ranks;
//!   nor does the work of a group whose `ncclGroupEnd` the schedule failed. Only `ncclCommAbort` (or `ncclCommDestroy`) of a
//!   communicator releases its held work, as NCCL's abort ends its kernels: the work is then
//!   pending as any other, complete once the program synchronizes or queries its stream. An
//!   abort ends the communicator and releases its work even when the schedule answers it with
//!   an error (NCCL's abort frees the communicator whatever it answers).
//! - `ncclCommFinalize` checks the communicator (current context); `ncclCommDestroy` destroys it
//!   (current context, no work that may still run on the stream its last collective was given,
//!   as every stand-in's destroy); `ncclCommAbort` ends it whatever work may still run; a
//!   communicator alive at exit is a leak, as every handle.
//!
//! What is not modelled: no data moves (the receive buffer keeps its bytes; element counts,
//! types, reductions and roots are not checked, nor are the buffers' sizes); `ncclSend` and
//! `ncclRecv` check the communicator and answer `ncclInvalidUsage`, as do `ncclCommSplit` and
//! `ncclCommInitAll` (counted calls that make nothing); the stream given to a collective is not
//! checked against its communicator's other ranks'; a collective on the null stream is pending
//! but never held back (the double's null stream is one per context); `ncclGetVersion` answers
//! 0 (the stand-in is no NCCL version); `ncclGetErrorString` answers NCCL's names of its
//! statuses and `ncclGetLastError` an empty string. Without the double in the process (a real
//! `libcuda.so.1`), every call answers `ncclSystemError`.
//!
//! The entry points are those custack declares (`ffi/nccl.rs`; `tests/exports.rs` checks that
//! each is exported), written here; the code that reaches the double is
//! `../common/standin.rs`, shared with the other stand-ins.

#![allow(
    non_snake_case,
    unused_variables,
    clippy::too_many_arguments,
    reason = "NCCL's C names and signatures, some of whose arguments a stand-in ignores"
)]
#![allow(
    dead_code,
    unused_macros,
    reason = "`../common/standin.rs`'s set-stream and `entry_point!`, which NCCL's stand-in \
              (no set-stream; every entry point written by hand) does not use"
)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// `ncclSuccess`.
const SUCCESS: c_int = 0;
/// `ncclSystemError`: no checking driver in the process (what custack's build answers without
/// NCCL too).
const NOT_INITIALIZED: c_int = 2;
/// `ncclUnhandledCudaError`: the double failed the call with its out-of-memory.
const ALLOC_FAILED: c_int = 1;
/// `ncclInvalidArgument`.
const INVALID_VALUE: c_int = 4;
/// `ncclUnhandledCudaError`: the double failed the call.
const INTERNAL_ERROR: c_int = 1;
/// `ncclInvalidUsage`: what the stand-in does not model.
const NOT_SUPPORTED: c_int = 5;
/// `ncclInProgress`.
const IN_PROGRESS: c_int = 7;

/// No workspace: NCCL has no workspace query (`../common/standin.rs` names it).
pub const WORKSPACE: c_int = 0;
/// `ncclGetLastError`'s answer: no text.
const ERROR_STRING: &core::ffi::CStr = c"";
/// The first 8 bytes of every unique id the stand-in makes; the next 8 are its number.
pub const ID_MARK: [u8; 8] = *b"CSTKNCCL";

include!("../../common/standin.rs");

/// `ncclUniqueId`: 128 opaque bytes, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UniqueId {
    internal: [u8; 128],
}

/// `custackCheckdriverLibraryEnqueue`.
type EnqueueFn = unsafe extern "C" fn(*const c_char, u64, u64, *const u64, usize, c_int) -> c_int;
/// `custackCheckdriverLibraryRelease`.
type ReleaseFn = unsafe extern "C" fn(u64) -> c_int;
/// `custackCheckdriverLibraryAbort` and `custackCheckdriverLibraryCall`.
type CallFn = unsafe extern "C" fn(*const c_char, u64) -> c_int;

/// The double's extensions NCCL's stand-in uses beyond `../common/standin.rs`'s.
struct Extensions {
    enqueue: EnqueueFn,
    release: ReleaseFn,
    abort: CallFn,
    call: CallFn,
}

/// The extensions, if the double is in the process.
fn extensions() -> Option<&'static Extensions> {
    static EXTENSIONS: std::sync::OnceLock<Option<Extensions>> = std::sync::OnceLock::new();
    double()?;
    EXTENSIONS
        .get_or_init(|| {
            let (e, r, a, c) = (
                find(c"custackCheckdriverLibraryEnqueue")?,
                find(c"custackCheckdriverLibraryRelease")?,
                find(c"custackCheckdriverLibraryAbort")?,
                find(c"custackCheckdriverLibraryCall")?,
            );
            // SAFETY: the checking driver defines each extension with its signature here
            // (`library_handles.rs`); a function pointer from `dlsym` has a pointer's size.
            let enqueue = unsafe { core::mem::transmute::<*mut c_void, EnqueueFn>(e) };
            // SAFETY: as above.
            let release = unsafe { core::mem::transmute::<*mut c_void, ReleaseFn>(r) };
            // SAFETY: as above.
            let abort = unsafe { core::mem::transmute::<*mut c_void, CallFn>(a) };
            // SAFETY: as above.
            let call = unsafe { core::mem::transmute::<*mut c_void, CallFn>(c) };
            Some(Extensions {
                enqueue,
                release,
                abort,
                call,
            })
        })
        .as_ref()
}

/// A counted call named `name` that takes communicator `comm` (null: none): 0 once the double
/// accepted it, its error code otherwise.
fn call(x: &Extensions, name: &core::ffi::CStr, comm: Handle) -> c_int {
    // SAFETY: a NUL-terminated name; the handle is passed by value, never dereferenced.
    unsafe { (x.call)(name.as_ptr(), comm.addr() as u64) }
}

/// One clique: an id's ranks.
#[derive(Default)]
struct Clique {
    /// Its count of ranks (0 until its first rank is made).
    nranks: c_int,
    /// The ranks made so far.
    ranks: Vec<c_int>,
    /// The collectives issued and not yet matched by every rank: per round, each rank's op.
    rounds: Vec<Vec<(c_int, u64)>>,
}

/// One communicator.
struct Comm {
    clique: u64,
    rank: c_int,
    nranks: c_int,
    finalized: bool,
}

/// A collective whose work is held back, by its id: its communicator and stream.
struct Op {
    comm: usize,
    stream: u64,
}

/// What the stand-in knows.
#[derive(Default)]
struct State {
    /// The last unique id made.
    last_id: u64,
    cliques: HashMap<u64, Clique>,
    comms: HashMap<usize, Comm>,
    /// The collectives held back, by id.
    held: HashMap<u64, Op>,
    last_op: u64,
    /// Per stream, how many held collectives it has.
    streams: HashMap<u64, usize>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

thread_local! {
    /// This thread's open groups: their depth, and the collectives issued inside them.
    static GROUP: RefCell<(u32, Vec<u64>)> = const { RefCell::new((0, Vec::new())) };
}

/// The state, locked.
fn state() -> StateGuard {
    StateGuard(STATE.lock().unwrap_or_else(PoisonError::into_inner))
}

/// The locked state.
struct StateGuard(MutexGuard<'static, Option<State>>);

impl StateGuard {
    fn get(&mut self) -> &mut State {
        self.0.get_or_insert_with(State::default)
    }
}

impl State {
    /// Whether every rank of `comm`'s clique was made; `None` for a communicator it does not
    /// know (never made, destroyed or aborted).
    fn ready(&self, comm: usize) -> Option<bool> {
        let c = self.comms.get(&comm)?;
        let clique = self.cliques.get(&c.clique)?;
        Some(clique.ranks.len() == c.nranks as usize)
    }

    /// Matches the collectives `ops` with the other ranks': the streams whose held work is
    /// complete now (to release once the lock is dropped).
    fn submit(&mut self, ops: &[u64]) -> Vec<u64> {
        let mut done = Vec::new();
        for &op in ops {
            let Some(o) = self.held.get(&op) else {
                continue;
            };
            let Some(c) = self.comms.get(&o.comm) else {
                continue;
            };
            let (rank, nranks) = (c.rank, c.nranks);
            let Some(clique) = self.cliques.get_mut(&c.clique) else {
                continue;
            };
            let free_round = clique
                .rounds
                .iter()
                .position(|r| r.iter().all(|(k, _)| *k != rank));
            let round = free_round.unwrap_or_else(|| {
                clique.rounds.push(Vec::new());
                clique.rounds.len() - 1
            });
            clique.rounds[round].push((rank, op));
            if clique.rounds[round].len() == nranks as usize {
                let complete = clique.rounds.remove(round);
                done.extend(complete.into_iter().map(|(_, id)| id));
            }
        }
        self.complete(&done)
    }

    /// The collectives `ops` are complete (or aborted): the streams with none held any more.
    fn complete(&mut self, ops: &[u64]) -> Vec<u64> {
        let mut free = Vec::new();
        for op in ops {
            let Some(o) = self.held.remove(op) else {
                continue;
            };
            if let Some(n) = self.streams.get_mut(&o.stream) {
                *n -= 1;
                if *n == 0 {
                    self.streams.remove(&o.stream);
                    free.push(o.stream);
                }
            }
        }
        free
    }

    /// Communicator `comm` is aborted or destroyed: its held collectives end (the streams to
    /// release), and it is forgotten.
    fn end(&mut self, comm: usize) -> Vec<u64> {
        let ops: Vec<u64> = self
            .held
            .iter()
            .filter(|(_, o)| o.comm == comm)
            .map(|(id, _)| *id)
            .collect();
        if let Some(c) = self.comms.get(&comm)
            && let Some(clique) = self.cliques.get_mut(&c.clique)
        {
            for round in &mut clique.rounds {
                round.retain(|(_, id)| !ops.contains(id));
            }
            clique.rounds.retain(|r| !r.is_empty());
        }
        self.comms.remove(&comm);
        self.complete(&ops)
    }

    /// Whether communicator `comm` has collectives held back.
    fn holds(&self, comm: usize) -> bool {
        self.held.values().any(|o| o.comm == comm)
    }
}

/// Releases the held work of `streams` in the double (no lock held).
fn release(x: &Extensions, streams: &[u64]) {
    for &s in streams {
        // SAFETY: takes a stream handle by value, never dereferenced.
        let _ = unsafe { (x.release)(s) };
    }
}

/// The id's number, if the stand-in made it.
fn id_number(id: &UniqueId) -> Option<u64> {
    let (mark, rest) = id.internal.split_at(8);
    if mark != ID_MARK {
        return None;
    }
    let number: [u8; 8] = rest.get(..8)?.try_into().ok()?;
    Some(u64::from_le_bytes(number))
}

/// `ncclGetVersion`: 0, the stand-in is no NCCL version.
///
/// # Safety
///
/// `version` is null or valid for a write of a `c_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncclGetVersion(version: *mut c_int) -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    if version.is_null() {
        return INVALID_VALUE;
    }
    match call(x, cname!(ncclGetVersion), core::ptr::null_mut()) {
        0 => {
            // SAFETY: non-null (checked), valid for the write (the caller's promise).
            unsafe { version.write(0) };
            SUCCESS
        }
        code => status(code),
    }
}

/// `ncclGetUniqueId`: a fresh id of a clique of no rank yet.
///
/// # Safety
///
/// `uniqueId` is null or valid for a write of an `ncclUniqueId`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncclGetUniqueId(uniqueId: *mut c_void) -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    if uniqueId.is_null() {
        return INVALID_VALUE;
    }
    match call(x, cname!(ncclGetUniqueId), core::ptr::null_mut()) {
        0 => {}
        code => return status(code),
    }
    let number = {
        let mut s = state();
        let s = s.get();
        s.last_id += 1;
        s.cliques.insert(s.last_id, Clique::default());
        s.last_id
    };
    let mut id = UniqueId { internal: [0; 128] };
    id.internal[..8].copy_from_slice(&ID_MARK);
    id.internal[8..16].copy_from_slice(&number.to_le_bytes());
    // SAFETY: non-null (checked), valid for the write (the caller's promise).
    unsafe { uniqueId.cast::<UniqueId>().write(id) };
    SUCCESS
}

/// `ncclCommInitRankConfig`: rank `rank` of the clique `commId` names, of `nranks`, a
/// communicator of the current context; the configuration is not read.
///
/// # Safety
///
/// `comm` is null or valid for a write of a communicator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncclCommInitRankConfig(
    comm: *mut c_void,
    nranks: c_int,
    commId: UniqueId,
    rank: c_int,
    config: *mut c_void,
) -> c_int {
    if extensions().is_none() {
        return NOT_INITIALIZED;
    }
    if comm.is_null() || nranks < 1 || rank < 0 || rank >= nranks {
        return INVALID_VALUE;
    }
    let Some(number) = id_number(&commId) else {
        return INVALID_VALUE;
    };
    {
        let mut s = state();
        let Some(clique) = s.get().cliques.get(&number) else {
            return INVALID_VALUE;
        };
        if clique.nranks != 0 && clique.nranks != nranks {
            return INVALID_VALUE;
        }
        if clique.ranks.contains(&rank) {
            return NOT_SUPPORTED;
        }
    }
    let made = create(cname!(ncclCommInitRankConfig), comm);
    if made != SUCCESS {
        return made;
    }
    // SAFETY: the handle `create` just wrote through the caller's non-null out-pointer.
    let h = unsafe { comm.cast::<Handle>().read() }.addr();
    let mut s = state();
    let s = s.get();
    let clique = s.cliques.entry(number).or_default();
    clique.nranks = nranks;
    clique.ranks.push(rank);
    s.comms.insert(
        h,
        Comm {
            clique: number,
            rank,
            nranks,
            finalized: false,
        },
    );
    SUCCESS
}

/// `ncclCommInitAll`: not modelled (custack makes its cliques rank by rank): a counted call
/// that makes nothing, `ncclInvalidUsage`.
#[unsafe(no_mangle)]
pub extern "C" fn ncclCommInitAll(comm: *mut c_void, ndev: c_int, devlist: *const c_int) -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    match call(x, cname!(ncclCommInitAll), core::ptr::null_mut()) {
        0 => NOT_SUPPORTED,
        code => status(code),
    }
}

/// `ncclCommFinalize`: checks the communicator (live, of the current context); from now on its
/// asynchronous error is `ncclInProgress` while a collective of it is held back.
#[unsafe(no_mangle)]
pub extern "C" fn ncclCommFinalize(comm: Handle) -> c_int {
    use_handle(cname!(ncclCommFinalize), comm, || {
        match state().get().comms.get_mut(&comm.addr()) {
            Some(c) => {
                c.finalized = true;
                SUCCESS
            }
            None => INVALID_VALUE,
        }
    })
}

/// `ncclCommDestroy`: destroys the communicator (as every stand-in's destroy: live, of the
/// current context, no work that may still run on its last collective's stream); its held
/// collectives end.
#[unsafe(no_mangle)]
pub extern "C" fn ncclCommDestroy(comm: Handle) -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    let destroyed = destroy(cname!(ncclCommDestroy), comm);
    if destroyed == SUCCESS {
        let free = state().get().end(comm.addr());
        release(x, &free);
    }
    destroyed
}

/// `ncclCommAbort`: ends the communicator whatever work may still run (live, of the current
/// context), and releases its held collectives, even when the schedule fails the call (NCCL's
/// abort frees the communicator whatever it answers); null is accepted, as NCCL does.
#[unsafe(no_mangle)]
pub extern "C" fn ncclCommAbort(comm: Handle) -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    if comm.is_null() {
        return SUCCESS;
    }
    let name = cname!(ncclCommAbort);
    // SAFETY: a NUL-terminated name; the handle is passed by value, never dereferenced.
    let code = unsafe { (x.abort)(name.as_ptr(), comm.addr() as u64) };
    // Ended whatever the answer (the double's abort ends the handle even when it fails it).
    let free = state().get().end(comm.addr());
    release(x, &free);
    status(code)
}

/// `ncclCommSplit`: not modelled: checks the communicator (live, of the current context) and
/// answers `ncclInvalidUsage`, making nothing.
#[unsafe(no_mangle)]
pub extern "C" fn ncclCommSplit(
    comm: Handle,
    color: c_int,
    key: c_int,
    newcomm: *mut c_void,
    config: *mut c_void,
) -> c_int {
    use_handle(cname!(ncclCommSplit), comm, || NOT_SUPPORTED)
}

/// `ncclGetErrorString`: NCCL's name of `result`.
#[unsafe(no_mangle)]
pub extern "C" fn ncclGetErrorString(result: c_int) -> *const c_char {
    let text = match result {
        0 => c"no error",
        1 => c"unhandled cuda error (the checking driver failed a call)",
        2 => c"unhandled system error (no checking driver in the process)",
        3 => c"internal error",
        4 => c"invalid argument",
        5 => c"invalid usage (or not modelled by NCCL's stand-in)",
        6 => c"remote process exited or there was a network error",
        7 => c"NCCL operation in progress",
        _ => c"unknown result code",
    };
    text.as_ptr()
}

/// `ncclGetLastError`: an empty string.
#[unsafe(no_mangle)]
pub extern "C" fn ncclGetLastError(comm: Handle) -> *const c_char {
    ERROR_STRING.as_ptr()
}

/// `ncclCommGetAsyncError`: `ncclInProgress` until the clique is complete and, once finalized,
/// while a collective of it is held back; `ncclSuccess` otherwise. Any context.
///
/// # Safety
///
/// `asyncError` is null or valid for a write of an `ncclResult_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncclCommGetAsyncError(comm: Handle, asyncError: *mut c_int) -> c_int {
    let answer = |s: &State, c: &Comm| {
        if s.ready(comm.addr()) != Some(true) || (c.finalized && s.holds(comm.addr())) {
            IN_PROGRESS
        } else {
            SUCCESS
        }
    };
    // SAFETY: `asyncError` is null or valid for the write (the caller's promise).
    unsafe { query(cname!(ncclCommGetAsyncError), comm, asyncError, answer) }
}

/// `ncclCommCount`: the clique's count of ranks. Any context.
///
/// # Safety
///
/// `count` is null or valid for a write of a `c_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncclCommCount(comm: Handle, count: *mut c_int) -> c_int {
    // SAFETY: `count` is null or valid for the write (the caller's promise).
    unsafe { query(cname!(ncclCommCount), comm, count, |_, c| c.nranks) }
}

/// `ncclCommCuDevice`: 0, the double's one device. Any context.
///
/// # Safety
///
/// `device` is null or valid for a write of a `c_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncclCommCuDevice(comm: Handle, device: *mut c_int) -> c_int {
    // SAFETY: `device` is null or valid for the write (the caller's promise).
    unsafe { query(cname!(ncclCommCuDevice), comm, device, |_, _| 0) }
}

/// `ncclCommUserRank`: the communicator's rank. Any context.
///
/// # Safety
///
/// `rank` is null or valid for a write of a `c_int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncclCommUserRank(comm: Handle, rank: *mut c_int) -> c_int {
    // SAFETY: `rank` is null or valid for the write (the caller's promise).
    unsafe { query(cname!(ncclCommUserRank), comm, rank, |_, c| c.rank) }
}

/// A counted query of communicator `comm` (live, any context) that writes `answer` to `out`.
///
/// # Safety
///
/// `out` is null or valid for a write of a `c_int`.
unsafe fn query(
    name: &core::ffi::CStr,
    comm: Handle,
    out: *mut c_int,
    answer: impl FnOnce(&State, &Comm) -> c_int,
) -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    if out.is_null() {
        return INVALID_VALUE;
    }
    match call(x, name, comm) {
        0 => {}
        code => return status(code),
    }
    let value = {
        let mut s = state();
        let s = s.get();
        match s.comms.get(&comm.addr()) {
            Some(c) => answer(s, c),
            None => return INVALID_VALUE,
        }
    };
    // SAFETY: non-null (checked), valid for the write (the caller's promise).
    unsafe { out.write(value) };
    SUCCESS
}

/// A collective named `name` of communicator `comm` on `stream` that uses `buffers`: enqueued
/// in the double, held back until every rank issued its own (see the crate's docs).
fn collective(
    name: &core::ffi::CStr,
    comm: Handle,
    stream: Handle,
    buffers: [*const c_void; 2],
) -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    if state().get().ready(comm.addr()) != Some(true) {
        // Counted, and the double reports a communicator it destroyed; nothing is enqueued.
        return match call(x, name, comm) {
            0 => INVALID_VALUE,
            code => status(code),
        };
    }
    let addresses = buffers.map(|b| b.addr() as u64);
    // SAFETY: a NUL-terminated name and two addresses at `addresses`; handles and addresses
    // are passed by value, never dereferenced.
    let code = unsafe {
        (x.enqueue)(
            name.as_ptr(),
            comm.addr() as u64,
            stream.addr() as u64,
            addresses.as_ptr(),
            addresses.len(),
            1,
        )
    };
    if code != 0 {
        return status(code);
    }
    let stream = stream.addr() as u64;
    let op = {
        let mut s = state();
        let s = s.get();
        s.last_op += 1;
        let id = s.last_op;
        s.held.insert(
            id,
            Op {
                comm: comm.addr(),
                stream,
            },
        );
        *s.streams.entry(stream).or_insert(0) += 1;
        id
    };
    let grouped = GROUP.with_borrow_mut(|(depth, ops)| {
        if *depth > 0 {
            ops.push(op);
        }
        *depth > 0
    });
    if !grouped {
        let free = state().get().submit(&[op]);
        release(x, &free);
    }
    SUCCESS
}

/// `ncclAllReduce`: a collective (see the crate's docs); no data moves.
#[unsafe(no_mangle)]
pub extern "C" fn ncclAllReduce(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: c_int,
    op: c_int,
    comm: Handle,
    stream: Handle,
) -> c_int {
    collective(
        cname!(ncclAllReduce),
        comm,
        stream,
        [sendbuff, recvbuff.cast_const()],
    )
}

/// `ncclReduce`: a collective (see the crate's docs); no data moves.
#[unsafe(no_mangle)]
pub extern "C" fn ncclReduce(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: c_int,
    op: c_int,
    root: c_int,
    comm: Handle,
    stream: Handle,
) -> c_int {
    collective(
        cname!(ncclReduce),
        comm,
        stream,
        [sendbuff, recvbuff.cast_const()],
    )
}

/// `ncclBroadcast`: a collective (see the crate's docs); no data moves.
#[unsafe(no_mangle)]
pub extern "C" fn ncclBroadcast(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: c_int,
    root: c_int,
    comm: Handle,
    stream: Handle,
) -> c_int {
    collective(
        cname!(ncclBroadcast),
        comm,
        stream,
        [sendbuff, recvbuff.cast_const()],
    )
}

/// `ncclReduceScatter`: a collective (see the crate's docs); no data moves.
#[unsafe(no_mangle)]
pub extern "C" fn ncclReduceScatter(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    recvcount: usize,
    datatype: c_int,
    op: c_int,
    comm: Handle,
    stream: Handle,
) -> c_int {
    collective(
        cname!(ncclReduceScatter),
        comm,
        stream,
        [sendbuff, recvbuff.cast_const()],
    )
}

/// `ncclAllGather`: a collective (see the crate's docs); no data moves.
#[unsafe(no_mangle)]
pub extern "C" fn ncclAllGather(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    sendcount: usize,
    datatype: c_int,
    comm: Handle,
    stream: Handle,
) -> c_int {
    collective(
        cname!(ncclAllGather),
        comm,
        stream,
        [sendbuff, recvbuff.cast_const()],
    )
}

/// `ncclSend`: not modelled: checks the communicator (live, of the current context) and
/// answers `ncclInvalidUsage`, enqueueing nothing.
#[unsafe(no_mangle)]
pub extern "C" fn ncclSend(
    sendbuff: *const c_void,
    count: usize,
    datatype: c_int,
    peer: c_int,
    comm: Handle,
    stream: Handle,
) -> c_int {
    use_handle(cname!(ncclSend), comm, || NOT_SUPPORTED)
}

/// `ncclRecv`: not modelled: checks the communicator (live, of the current context) and
/// answers `ncclInvalidUsage`, enqueueing nothing.
#[unsafe(no_mangle)]
pub extern "C" fn ncclRecv(
    recvbuff: *mut c_void,
    count: usize,
    datatype: c_int,
    peer: c_int,
    comm: Handle,
    stream: Handle,
) -> c_int {
    use_handle(cname!(ncclRecv), comm, || NOT_SUPPORTED)
}

/// `ncclGroupStart`: opens a group on this thread (nested groups count).
#[unsafe(no_mangle)]
pub extern "C" fn ncclGroupStart() -> c_int {
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    match call(x, cname!(ncclGroupStart), core::ptr::null_mut()) {
        0 => {
            GROUP.with_borrow_mut(|(depth, _)| *depth += 1);
            SUCCESS
        }
        code => status(code),
    }
}

/// `ncclGroupEnd`: closes this thread's innermost group (`ncclInvalidUsage` outside one, not
/// counted); the outermost one submits its collectives, each complete once every rank of its
/// clique issued its own. Closed even when the schedule fails the call: its collectives then
/// stay held back until their communicators are aborted.
#[unsafe(no_mangle)]
pub extern "C" fn ncclGroupEnd() -> c_int {
    let Some((depth, ops)) = GROUP.with_borrow_mut(|(depth, ops)| {
        if *depth == 0 {
            return None;
        }
        *depth -= 1;
        Some((
            *depth,
            if *depth == 0 {
                core::mem::take(ops)
            } else {
                Vec::new()
            },
        ))
    }) else {
        return NOT_SUPPORTED;
    };
    let Some(x) = extensions() else {
        return NOT_INITIALIZED;
    };
    match call(x, cname!(ncclGroupEnd), core::ptr::null_mut()) {
        0 => {}
        code => return status(code),
    }
    if depth == 0 {
        let free = state().get().submit(&ops);
        release(x, &free);
    }
    SUCCESS
}
