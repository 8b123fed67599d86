//! The checking mode (`NULLDRIVER_CHECK=1`), fault injection (`NULLDRIVER_FAIL_AT=k`,
//! `NULLDRIVER_STICKY_AT=k`, `NULLDRIVER_REPEAT_AT=k`, `NULLDRIVER_LOST_AT=k`, optional
//! `NULLDRIVER_FAIL_CODE=n`) and hangs (`NULLDRIVER_HANG_AT=k`).
//!
//! In checking mode every context, stream, event, module, function, device allocation and
//! page-locked allocation is recorded with the context it belongs to, and a **violation** is
//! recorded when a call uses a handle of a context that is not current on the calling thread, uses
//! or frees a destroyed one, frees one twice, pops an empty stack, or destroys a context that is
//! on some thread's stack. At exit a report goes to the file `NULLDRIVER_REPORT` names (or
//! stderr): `calls`, `failed` (the entry point that was failed), `violations`, `leaks` (live
//! handles of live contexts, and live contexts other than the primary one), `stacks` (threads
//! whose stack was not empty at their last call) and `orphans` (handles other than functions
//! still alive when their context was destroyed: the driver releases them, but the program did
//! not; and texture or surface objects still alive when the array or memory they read was
//! freed), then one line per violation, orphan and leak.
//!
//! Fault injection counts every call except the error-text and proc-address lookups; call k
//! fails with `NULLDRIVER_FAIL_CODE`, or with a typical code for its entry point (out of memory
//! for allocations, `CUDA_ERROR_LAUNCH_FAILED` for synchronizations, `CUDA_ERROR_INVALID_HANDLE`
//! for `cuFuncGetParamInfo`, whose invalid value ends its list, `CUDA_ERROR_INVALID_VALUE`
//! otherwise). Sticky mode fails every call from k on with `CUDA_ERROR_ILLEGAL_ADDRESS`, except
//! the context-stack calls, `cuCtxDestroy` and `cuGreenCtxDestroy`, which a real driver still
//! honours after a fault,
//! and `cuLibraryUnload` (a library belongs to no context); and the driver's and device's
//! queries that need no working context, which the driver answers after a fault
//! (`spared_by_sticky`). Repeat mode
//! (`NULLDRIVER_REPEAT_AT=k`) fails every call from k on, but the same exempt ones, with the
//! same error that is **not** sticky, for ever: `NULLDRIVER_FAIL_CODE`, or the entry point's
//! typical code, or `CUDA_ERROR_UNKNOWN` (999) where that is sticky (a synchronize's): a driver
//! that keeps answering a query "invalid value" or "unknown error", which says nothing about the
//! work and never turns into a sticky error. A wait that takes such an answer for "not yet"
//! must still end by its deadline. Lost mode (`NULLDRIVER_LOST_AT=k`) is a device lost at call
//! k (fallen off the bus): every call from k on, but the context stack's, the destroys and
//! `cuLibraryUnload` (the device's queries too: the device is gone), answers
//! `CUDA_ERROR_DEVICE_UNAVAILABLE` (46; `NULLDRIVER_FAIL_CODE` does not change it), which
//! custack does not classify sticky (nor does [`is_sticky`]), so the process is not poisoned;
//! the work pending at the loss never completes (no wait or query can succeed any more), and,
//! as in a poisoned process, a release of what it uses is a violation however the release is
//! answered: nothing can show that a lost device stopped touching it. The code is the double's
//! choice: the driver documents none for a device lost mid-process (46 is its "busy or
//! unavailable" device), and a lost device whose driver answers `CUDA_ERROR_UNKNOWN` instead is
//! the repeat schedule's, one that answers a sticky code the sticky schedule's.
//!
//! Pending work: an asynchronous copy, memset or launch leaves the device allocation it uses
//! (found from any address inside it: views at an offset count) and the page-locked host
//! allocation (by its start) pending on its stream, and a launch its function's module (or
//! library), until a synchronize of that stream or of the context, or of an event recorded
//! after it, or a successful query. Freeing memory that is pending on any stream is a violation
//! (`cuMemFreeAsync`: on any other stream), and so is unloading a module or library whose
//! kernels or globals pending work uses. A sticky error (any of custack's sticky codes, from
//! any schedule) **poisons** the process and ends no pending work: on a real device a fault in
//! one context does not stop another context's kernels and copies (measured on an H100,
//! custack's docs/reliability.md), and no later call can say when they end. From then on a
//! release of what pending work uses (`cuMemFree`, `cuMemFreeAsync`, `cuMemFreeHost`,
//! `cuIpcCloseMemHandle`, `cuArrayDestroy`, `cuMipmappedArrayDestroy`, `cuModuleUnload`,
//! `cuLibraryUnload`) is a violation even when the call itself is answered with the sticky
//! error: the program asked for it, and what it does with that memory next is its own. The
//! host side of each asynchronous copy is made for real when the copy completes (bytes read, or
//! zeroed for a copy to the host), so host memory handed back early is touched after its end:
//! Miri reports it (`scripts/miri.sh`).
//!
//! Hangs (`NULLDRIVER_HANG_AT=k`, counted like `NULLDRIVER_FAIL_AT`): the first asynchronous
//! enqueue at or after call k **never completes**, nor does anything after it in its stream's
//! order. The enqueues are `cuLaunchKernel`, `cuLaunchKernelEx`, `cuLaunchCooperativeKernel`,
//! `cuLaunchHostFunc`, `cuStreamAddCallback`, `cuGraphLaunch`, the asynchronous copies
//! (`cuMemcpy{HtoD,DtoH,DtoD}Async_v2`, `cuMemcpy2DAsync_v2`, `cuMemcpy3DAsync_v2`,
//! `cuMemcpyPeerAsync`), memsets (`cuMemsetD{8,16,32}Async`), stream-ordered allocations and
//! frees (`cuMemAllocAsync`, `cuMemAllocFromPoolAsync`, `cuMemFreeAsync`) and
//! `cuMemPrefetchAsync`; an operation enqueued while its stream is capturing is not (its graph's
//! launch is). Event records and waits are not enqueues: they mark, or wait for, the work
//! around them. An event recorded after hung work (on its stream, or by `cuCtxRecordEvent` in
//! its context) never completes, until it is recorded again where nothing hangs; a stream made
//! to wait for such an event (`cuStreamWaitEvent`) hangs from then on, and so does every stream
//! of a context made to wait for it (`cuCtxWaitEvent`), those created later included.
//! `cuStreamQuery` and `cuEventQuery` on hung work answer `CUDA_ERROR_NOT_READY`, forever; hung
//! work never runs (its stand-ins, host functions and host-side copies do not happen). A
//! **blocking** wait on hung work, one that could never return in a real process, ends the
//! process at once with exit status 86 (`HUNG_EXIT`) after writing the report with the line
//! `hung <entry point>`: `cuStreamSynchronize` of a hung stream, `cuEventSynchronize` of a hung
//! event, `cuCtxSynchronize` in a context with a hung stream (one destroyed already included:
//! the driver releases it once its work is done), and the synchronous copies to or
//! from host memory (`cuMemcpyHtoD_v2`, `cuMemcpyDtoH_v2`, `cuMemcpy2D_v2`, `cuMemcpy3D_v2`
//! with a host side), which run on the legacy default stream and so wait for the context's
//! null stream and its blocking streams (not those created `CU_STREAM_NON_BLOCKING`).
//! Once the hang began, a program that makes no progress (no driver call but queries that find
//! hung work) for `NULLDRIVER_HANG_IDLE_SECS` seconds (default 10) is taken to wait with no
//! deadline where the double cannot see it (polling a query in a loop, parked on a future whose
//! host function never runs), and a watchdog thread ends it the same way (`hung idle: no
//! progress for 10 s after call N ...`): a program whose every wait has a deadline keeps its
//! deadlines in a hang run under that limit.
//! Destroying a stream, an event or a context, and the synchronous device-side copies and
//! memsets, do not block (the driver returns at once from the destroys; the latter are
//! asynchronous to the host; the double does not model their place on the legacy stream).
//! Freeing memory that hung work uses is a violation (on any stream but the one a
//! `cuMemFreeAsync` is ordered on). At a normal exit, what the program named as left behind
//! (`custackCheckdriverLeftBehind`) is reported as such; anything else is reported as usual.
//! Every report ends with `enqueues` and the call numbers of the enqueues that ran (a clean
//! run's tell a runner where to hang); under `NULLDRIVER_HANG_AT` it says which enqueue hung
//! (`hang-at N entry point`, or `hang-at -` when no enqueue came at or after k).
//!
//! Modules loaded from PTX text are parsed (`ptx.rs`): each entry's parameter sizes and each
//! `.global`/`.const` variable's size. `cuModuleGetFunction`/`cuModuleGetGlobal` answer
//! `CUDA_ERROR_NOT_FOUND` for a name the PTX lacks; variables are device memory of their
//! module's context that die with the module. A launch (`cuLaunchKernel`, `cuLaunchKernelEx`,
//! `cuLaunchCooperativeKernel`) of such a function reads every argument through `kernelParams`
//! (all its bytes), and an 8-byte argument whose value lies inside device memory the double
//! handed out must point into live memory of the current context: a violation otherwise
//! (freed memory, or memory of another context).
//! Modules loaded from a cubin (an ELF image) with a symbol table are read for the kernels they
//! define (`cubin.rs`: `STT_FUNC` symbols marked `STO_CUDA_ENTRY`): `cuModuleGetFunction`
//! answers `CUDA_ERROR_NOT_FOUND` for any other name; their parameters stay unknown (anything
//! goes).
//!
//! Entry points newer than 12.2 (found through `cuGetProcAddress` only when the double reports
//! their version): `cuFuncGetParamInfo` answers the PTX's layout, `cuModuleGetFunctionCount`
//! and `cuModuleEnumerateFunctions` its entries, each for a live handle of the current context;
//! `cuCtxRecordEvent` (a live context, an event of it) covers the work pending on every stream
//! of the context, `cuCtxWaitEvent` makes every stream of it wait, now and later. A green
//! context is recorded with the `CUcontext` that stands for it, a context like any other on the
//! stacks, whose handles (its streams, `cuGreenCtxStreamCreate` included) are checked as any
//! context's; destroying it while on a stack (but on top of the caller's), destroying its
//! `CUcontext` with `cuCtxDestroy`, and using or pushing it after destruction are violations,
//! handles it leaves are orphans, and a live one at exit is a leak.

use crate::mode::{CHECK, thread_id, violation};
use core::cell::Cell;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

static FAULTS: AtomicBool = AtomicBool::new(false);

static CALLS: AtomicU64 = AtomicU64::new(0);
static FAIL_AT: AtomicU64 = AtomicU64::new(0);
static STICKY_AT: AtomicU64 = AtomicU64::new(0);
static FAIL_CODE: AtomicU64 = AtomicU64::new(0);
/// `NULLDRIVER_REPEAT_AT`: every call from this one on (but the exempt ones, as for
/// `NULLDRIVER_STICKY_AT`) answers the same error that is not sticky, for ever (0: never).
static REPEAT_AT: AtomicU64 = AtomicU64::new(0);
/// `NULLDRIVER_LOST_AT`: the device is lost at this call: every call from it on (but the exempt
/// ones, as for `NULLDRIVER_STICKY_AT`) answers `CUDA_ERROR_DEVICE_UNAVAILABLE` (0: never).
static LOST_AT: AtomicU64 = AtomicU64::new(0);
/// Set once the lost schedule answered a call: the device's pending work never completes, and
/// nothing it uses may be released from then on, whatever that call is answered (as after
/// `POISONED`).
static LOST: AtomicBool = AtomicBool::new(false);
/// `CUDA_ERROR_DEVICE_UNAVAILABLE`: what every call of a lost device answers.
const DEVICE_UNAVAILABLE: i32 = 46;
/// Set once the double answered a sticky error: the process is poisoned, and the device's work
/// it had pending may still run (a fault in one context does not stop another's, R20), so
/// nothing it uses may be released from then on, whatever that call is answered.
static POISONED: AtomicBool = AtomicBool::new(false);
/// `NULLDRIVER_HANG_AT`: the first asynchronous enqueue at or after this call never completes
/// (0: none).
static HANG_AT: AtomicU64 = AtomicU64::new(0);
/// What blocked on hung work (the report's line `hung`), once something did.
static BLOCKED: Mutex<Option<String>> = Mutex::new(None);
/// `NULLDRIVER_HANG_IDLE_SECS` (default 10): how long, once the hang began, a program may make
/// no progress (no driver call but queries that find hung work) before the double takes it
/// for a wait with no deadline.
static HANG_IDLE_SECS: AtomicU64 = AtomicU64::new(10);
/// When the hang began (the watchdog's clock).
static HANG_CLOCK: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
/// The program's last progress, in milliseconds on `HANG_CLOCK`, and the call it made then.
static PROGRESS_MS: AtomicU64 = AtomicU64::new(0);
static PROGRESS_CALL: AtomicU64 = AtomicU64::new(0);
static FAILED: Mutex<Option<&'static str>> = Mutex::new(None);
/// The call a program told the double to fail ([`fail_next`], not sticky; 0: none), and with
/// what: the program's own choice, whose error it expects and checks, so not a schedule's
/// failure (the report's `failed`, which must reach the program) and independent of one.
static TOLD_AT: AtomicU64 = AtomicU64::new(0);
static TOLD_CODE: AtomicU64 = AtomicU64::new(0);
/// The call from which a program told the double to answer a sticky error ([`fail_next`],
/// sticky; 0: never), and which: as a sticky schedule's, but the program's own, so neither the
/// report's `failed` nor a change of the schedule's own sticky call or code.
static TOLD_STICKY_AT: AtomicU64 = AtomicU64::new(0);
static TOLD_STICKY_CODE: AtomicU64 = AtomicU64::new(700);
/// The entry point whose next call a program told the double to fail ([`fail_call`]: the name,
/// the code, whether sticky), until that call comes; `TOLD_CALL_ON` says whether one is told.
static TOLD_CALL: Mutex<Option<(String, u64, bool)>> = Mutex::new(None);
static TOLD_CALL_ON: AtomicBool = AtomicBool::new(false);

/// What a handle is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Kind {
    Context,
    Stream,
    Event,
    Module,
    Function,
    DeviceMemory,
    HostMemory,
    /// A module's `.global`/`.const` variable: device memory that lives as long as its module.
    Global,
    Graph,
    GraphExec,
    /// A library (`cuLibraryLoadData`) and its kernels: of no context.
    Library,
    LibraryKernel,
    /// A CUDA array (`cuArray3DCreate`).
    Array,
    /// A mipmapped CUDA array (`cuMipmappedArrayCreate`).
    MipmappedArray,
    /// A level of a mipmapped array (`cuMipmappedArrayGetLevel`): it dies with its parent.
    ArrayLevel,
    /// A texture object; its parent is the resource it reads (an array, mipmapped array or
    /// device allocation).
    TexObject,
    /// A surface object; its parent is its array.
    SurfObject,
    /// A reserved device address range (`cuMemAddressReserve`), by its start.
    Reservation,
    /// Physical memory (`cuMemCreate`), by its handle.
    Physical,
    /// Physical memory mapped into a reservation (`cuMemMap`), by its start: device memory
    /// that any context of the device may use once `cuMemSetAccess` granted access.
    Mapping,
    /// Device memory opened from an IPC handle (`cuIpcOpenMemHandle`), by its address; its
    /// parent is the exported allocation, when this process exported it.
    IpcMemory,
    /// A green context (`cuGreenCtxCreate`); its `ctx` is the `CUcontext` that stands for it
    /// (`cuCtxFromGreenCtx`), a context whose `parent` is the green context.
    GreenContext,
    /// Imported external memory (`cuImportExternalMemory`), with its size; the buffers and
    /// mipmapped arrays mapped onto it name it as their parent.
    ExternalMemory,
    /// An imported external semaphore (`cuImportExternalSemaphore`).
    ExternalSemaphore,
    /// A CUDA library's handle (`cusolverDnCreate`, ...), made by a stand-in library
    /// (`library_handles.rs`) in the current context.
    LibraryHandle,
    /// A CUDA library's descriptor (`cusparseCreateDnVec`, ...), made by a stand-in library: a
    /// host object of no context.
    LibraryDescriptor,
}

impl Kind {
    /// Host memory and libraries belong to no context.
    fn context_free(self) -> bool {
        matches!(
            self,
            Kind::HostMemory | Kind::Library | Kind::LibraryKernel | Kind::LibraryDescriptor
        )
    }

    /// Used from any context of the device: the virtual address space is the process's
    /// (recorded with the context that made them, for leaks and orphans).
    fn any_context(self) -> bool {
        self.context_free()
            || matches!(
                self,
                Kind::Reservation | Kind::Physical | Kind::Mapping | Kind::GreenContext
            )
    }

    /// Device memory a copy, memset or launch may use by address.
    fn addressable(self) -> bool {
        matches!(
            self,
            Kind::DeviceMemory | Kind::Global | Kind::Mapping | Kind::IpcMemory
        )
    }
}

/// What an enqueued operation uses, as a captured graph keeps it to use at each launch.
#[derive(Clone)]
enum Op {
    Mem((Kind, usize)),
    Host {
        ptr: *mut u8,
        bytes: usize,
        write: bool,
        /// The device address a copy to the host reads (0: none).
        device: u64,
    },
    /// What moves data (`work.rs`): done again at each launch.
    Data(crate::work::DataOp),
}

// SAFETY: as for `HostAccess`: the pointer is only used under the state's lock.
unsafe impl Send for Op {}

/// A stream's capture in progress: the operations enqueued, and the allocations made in it
/// (the graph's own allocation nodes, which each launch makes anew).
#[derive(Default)]
struct Capture {
    ops: Vec<Op>,
    internal: Vec<usize>,
    /// The streams forked into the capture (by waiting for one of its events) that have not
    /// been joined back since they joined or last captured work: the origin has not waited for
    /// an event they recorded after that. Ending the capture with one is
    /// `CUDA_ERROR_STREAM_CAPTURE_UNJOINED`. (Only a wait by the origin joins back; the driver
    /// also takes a join through another joined stream, which no custack call makes.)
    unjoined: HashSet<usize>,
}

/// A stream made to wait for an event: what the event's stream had pending (memory, and host
/// accesses before `seq`), which completes when the waiting stream does.
#[derive(Clone)]
struct Wait {
    stream: usize,
    pending: Pending,
    seq: u64,
}

/// An event's record: its stream, what was pending there, the host accesses before `seq`,
/// and the waits that stream had made.
#[derive(Clone)]
struct Recorded {
    wait: Wait,
    waits: Vec<Wait>,
}

/// A host-memory access of an enqueued copy, made when the copy completes (a synchronize of its
/// stream, its context or an event recorded after it; a successful query): the bytes are read,
/// or zeroed for a copy to the host. Made for real so that a program that hands host memory
/// back before its copy completed touches freed or re-borrowed memory, which Miri reports (and
/// a native run may crash on).
struct HostAccess {
    stream: usize,
    seq: u64,
    ptr: *mut u8,
    bytes: usize,
    write: bool,
    /// For a copy to the host, the device bytes it copies (taken when it was enqueued, as the
    /// device's work runs at once), written instead of zeroes.
    data: Option<Vec<u8>>,
}

// SAFETY: the pointer is only used by `perform`, under the state's lock, as the program's
// enqueued copy would use it from the device: from whichever thread completes the work.
unsafe impl Send for HostAccess {}

impl HostAccess {
    fn perform(&self) {
        match &self.data {
            Some(d) if self.write && !self.ptr.is_null() => {
                // SAFETY: as below; `d` holds `bytes` bytes.
                unsafe { core::ptr::copy_nonoverlapping(d.as_ptr(), self.ptr, d.len()) }
            }
            // SAFETY: the enqueuing program promised, by enqueuing the copy, that `ptr` is
            // valid for `bytes` until the copy completes, which is now. A broken promise is
            // what Miri is here to report.
            _ => unsafe { access(self.ptr, self.bytes, self.write) },
        }
    }
}

/// Reads `bytes` at `ptr`, or zeroes them for a write, as a copy would.
pub(crate) unsafe fn access(ptr: *mut u8, bytes: usize, write: bool) {
    if ptr.is_null() || bytes == 0 {
        return;
    }
    if write {
        // SAFETY: the caller's.
        unsafe { ptr.write_bytes(0, bytes) };
    } else {
        let p = ptr.cast::<core::mem::MaybeUninit<u8>>();
        for i in 0..bytes {
            // SAFETY: the caller's (bytes need not be initialized: a copy moves any bytes).
            let _ = unsafe { p.wrapping_add(i).read_volatile() };
        }
    }
}

/// The memory an operation uses: (kind, start).
type Pending = Vec<(Kind, usize)>;

/// What an enqueued operation uses, and when it was enqueued (`State::next_seq`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Use {
    key: (Kind, usize),
    seq: u64,
}

/// The keys of `uses`, in order: what a record saw pending.
fn keys(uses: &[Use]) -> Pending {
    uses.iter().map(|u| u.key).collect()
}

/// Whether `uses` holds `key`.
fn holds(uses: &[Use], key: (Kind, usize)) -> bool {
    uses.iter().any(|u| u.key == key)
}

struct Obj {
    ctx: usize,
    parent: usize,
    live: bool,
    /// Bytes, for device memory and globals (0: unknown, then only its start is known).
    size: u64,
    /// The call that made it: its number (0 where calls are not counted) and entry point.
    born: (u64, &'static str),
    /// The program said it leaves this handle behind on purpose
    /// (`custackCheckdriverLeftBehind`): not an orphan, not a leak.
    left: bool,
}

impl Obj {
    /// What the report says of where it came from: " from call 21 `cuMemAlloc_v2`".
    fn origin(&self) -> String {
        match self.born {
            (0, _) => String::new(),
            (n, name) => format!(" from call {n} {name}"),
        }
    }
}

thread_local! {
    /// The number and entry point of this thread's latest counted driver call: the call that
    /// makes a handle created now.
    static LAST_CALL: Cell<(u64, &'static str)> = const { Cell::new((0, "")) };
}

/// This thread's latest counted call.
fn born() -> (u64, &'static str) {
    LAST_CALL.try_with(Cell::get).unwrap_or((0, ""))
}

#[derive(Default)]
struct State {
    objs: HashMap<(Kind, usize), Obj>,
    stacks: HashMap<u64, Vec<usize>>,
    exited_nonempty: usize,
    orphans: Vec<String>,
    /// Handles the program said it leaves behind on purpose, as they were released with their
    /// context (or found alive at exit).
    left: Vec<String>,
    /// Per stream (0: a context's null stream), the memory its enqueued operations use, each
    /// with the sequence number of its enqueue, so that a wait completes only what came before
    /// the record it waits for ([`State::complete_wait`]).
    pending: HashMap<usize, Vec<Use>>,
    /// Per event, what was pending on its stream when it was recorded, and the host accesses
    /// enqueued before it (by sequence number).
    recorded: HashMap<usize, Recorded>,
    /// Per stream, the events' work it was made to wait for.
    waits: HashMap<usize, Vec<Wait>>,
    /// Per capturing stream, its capture so far.
    capturing: HashMap<usize, Capture>,
    /// Per stream that captures (its own capture, one it joined, or into a graph), the nodes
    /// its next captured work will depend on: what `cuStreamGetCaptureInfo` answers.
    capture_deps: HashMap<usize, Vec<usize>>,
    /// Per event recorded in a capture, the recording stream's dependencies at the record: a
    /// stream made to wait for it depends on them too.
    capture_event_deps: HashMap<usize, Vec<usize>>,
    /// Per stream capturing into an existing graph (`cuStreamBeginCaptureToGraph`): that
    /// graph, and the key its work is kept under (a graph being built, or a capturing stream
    /// whose graph holds the body captured into).
    into: HashMap<usize, (usize, usize)>,
    /// Per graph handle `cuStreamGetCaptureInfo` named for a capture begun with
    /// `cuStreamBeginCapture`, the capturing stream (`cuStreamEndCapture` returns that handle).
    capture_graphs: HashMap<usize, usize>,
    /// Streams drawn into another stream's capture by waiting for an event recorded in it
    /// (the "fork" of a cross-stream capture): per stream, the stream whose capture it joined.
    /// What they enqueue is captured, not run, until that capture ends.
    joined: HashMap<usize, usize>,
    /// Events recorded during a capture (on its stream or a joined one): per event, the stream
    /// whose capture holds the record and the stream that recorded it. A wait for one joins
    /// that capture (or, by the capture's own stream, joins the recording stream back).
    capture_events: HashMap<usize, (usize, usize)>,
    /// Per graph and executable graph, the operations each launch enqueues.
    graph_ops: HashMap<usize, Vec<Op>>,
    /// Per executable graph, the memory of its allocation nodes that no free node frees (each
    /// launch makes it anew; it stays allocated until `cuMemFree` or `cuMemFreeAsync`), with
    /// its size, and whether it was instantiated with `AUTO_FREE_ON_LAUNCH`.
    exec_kept: HashMap<usize, (Vec<(usize, u64)>, bool)>,
    /// The memory of every executable graph's kept allocations (`exec_kept`), and those of it
    /// the program used (a copy, a memset, a kernel's argument) since the launch that last made
    /// them: memory the program took and may hold, which a relaunch must not free.
    kept_ptrs: HashSet<usize>,
    kept_used: HashSet<usize>,
    /// Per graph made by `cuGraphCreate`, its nodes so far as a capture (what each node
    /// enqueues, in the order the nodes were added: an order that honours every dependency,
    /// since a node depends only on nodes added before it) and its node count.
    building: HashMap<usize, (Capture, usize)>,
    /// Per body graph of a conditional node (made by the driver, owned by the node), the graph
    /// being built whose operations its nodes join: the double runs no kernel, so it cannot
    /// tell how often a body runs, and checks its work as if it ran once per launch, in the
    /// order its nodes were added (custack builds a body right after its node).
    bodies: HashMap<usize, usize>,
    /// Per conditional handle not yet taken by a node, the graph it was made on.
    handles: HashMap<u64, usize>,
    /// Per kernel node of a graph being built, its graph and the span of the graph's
    /// operations that is its work (start, length).
    kernel_nodes: HashMap<usize, (usize, usize, usize)>,
    /// Per executable graph, the graph it was made from and, per kernel node of that graph,
    /// the span of the executable graph's operations that is the node's work.
    exec_nodes: HashMap<usize, (usize, Spans)>,
    /// Per executable graph, the topology of the graph it was made from (its node count and,
    /// built node by node, its node kinds): the double's image of it, which a whole-graph
    /// update must keep.
    exec_topology: HashMap<usize, crate::node_kinds::Topology>,
    /// Per disabled node of an executable graph (`cuGraphNodeSetEnabled`), its work, held out of
    /// the executable graph's operations (its span is empty) until it is enabled again.
    disabled: HashMap<(usize, usize), Vec<Op>>,
    /// Host accesses of enqueued copies not yet completed, in enqueue order.
    host: Vec<HostAccess>,
    next_seq: u64,
    /// Per module loaded from PTX text, its entries and variables.
    ptx: HashMap<usize, std::sync::Arc<crate::ptx::Ptx>>,
    /// Per module loaded from an ELF image (a cubin) with a symbol table, the kernels it
    /// defines (`cubin::function_names`).
    cubin_functions: HashMap<usize, Vec<String>>,
    /// Per function of such a module, its parameters' sizes.
    params: HashMap<usize, Vec<usize>>,
    /// Per function of such a module, its parameters' offsets (`cuFuncGetParamInfo`).
    offsets: HashMap<usize, Vec<usize>>,
    /// Per context, the events' work that all its future work waits for (`cuCtxWaitEvent`):
    /// a stream created in it later waits for it too.
    ctx_waits: HashMap<usize, Vec<Wait>>,
    /// Mappings whose range `cuMemSetAccess` made accessible.
    accessible: std::collections::HashSet<usize>,
    /// Peer access enabled: (the context that enabled it, its peer).
    peers: std::collections::HashSet<(usize, usize)>,
    /// Peer access the program leaves enabled on purpose (`custackCheckdriverLeftBehind`).
    peers_left: std::collections::HashSet<(usize, usize)>,
    /// The call numbers of the asynchronous enqueues that ran (not captured), in order: the
    /// report's `enqueues` line, which a runner iterates `NULLDRIVER_HANG_AT` over.
    enqueues: Vec<u64>,
    /// The enqueue that hung (its call number and entry point), once one did.
    hang: Option<(u64, &'static str)>,
    /// Tests only: the next enqueue hangs whatever its number (calls are not counted there).
    hang_next: bool,
    /// Streams whose work from some point on never completes (`hung_key`): everything enqueued
    /// on one from then on stays pending.
    hung: HashSet<(usize, usize)>,
    /// Events whose latest record follows hung work: they never complete.
    hung_events: HashSet<usize>,
    /// Contexts made to wait for hung work (`cuCtxWaitEvent`): their streams made later hang.
    hung_contexts: HashSet<usize>,
    /// Per hung stream (`hung_key`), the memory its hung work uses: never released by a
    /// synchronization, so freeing it is a violation.
    hung_pending: HashMap<(usize, usize), Pending>,
    /// Streams created with `CU_STREAM_NON_BLOCKING`: the legacy default stream's implicit
    /// synchronization (a synchronous copy) does not wait for them.
    non_blocking: HashSet<usize>,
    /// Streams a library's stand-in holds back (`library_block`: NCCL's collectives of a group
    /// that has not completed), hung as `hung` says until `library_release`, and only those:
    /// a stream hung by the schedule (`NULLDRIVER_HANG_AT`) is never released.
    library_blocked: HashSet<usize>,
}

impl State {
    /// The stream whose capture `stream`'s work goes into: itself, or the stream whose capture
    /// it joined; `None` if it is not capturing.
    /// A stream capturing into a graph answers the key that graph's work is kept under.
    fn capture_origin(&self, stream: usize) -> Option<usize> {
        if let Some(&(_, key)) = self.into.get(&stream) {
            return Some(key);
        }
        let origin = self.joined.get(&stream).copied().unwrap_or(stream);
        self.capturing.contains_key(&origin).then_some(origin)
    }

    /// The capture `stream`'s work goes into, if any (its own, the one it joined, or the graph
    /// it captures into). Work captured on a joined stream leaves that stream to be joined back.
    fn capture_of(&mut self, stream: usize) -> Option<&mut Capture> {
        if let Some(origin) = self.capture_origin(stream) {
            if self.capturing.contains_key(&origin) {
                let forked = self.joined.get(&stream) == Some(&origin);
                let c = self.capturing.get_mut(&origin)?;
                if forked {
                    c.unjoined.insert(stream);
                }
                return Some(c);
            }
            return self.building.get_mut(&origin).map(|(c, _)| c);
        }
        // A graph being built takes its nodes' work as a capture keyed by the graph itself.
        self.building.get_mut(&stream).map(|(c, _)| c)
    }

    /// Graph `g`'s operations: captured, or of the nodes added to it so far.
    fn ops_of(&self, g: usize) -> Vec<Op> {
        match self.building.get(&g) {
            Some((c, _)) => c.ops.clone(),
            None => self.graph_ops.get(&g).cloned().unwrap_or_default(),
        }
    }

    /// Memory `key` is in use by an operation enqueued on `stream` (or captured by it).
    fn pend(&mut self, stream: usize, key: (Kind, usize)) {
        if let Some(c) = self.capture_of(stream) {
            if !c.internal.contains(&key.1) {
                c.ops.push(Op::Mem(key));
            }
            return;
        }
        if !self.hung.is_empty() {
            let h = self.hung_key(stream);
            if self.hung.contains(&h) {
                self.hung_pending.entry(h).or_default().push(key);
                return;
            }
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.pending
            .entry(stream)
            .or_default()
            .push(Use { key, seq });
    }

    /// How `stream` is known among the hung streams: the null stream (0) is one per context.
    fn hung_key(&self, stream: usize) -> (usize, usize) {
        if stream == 0 {
            (0, current(self))
        } else {
            (stream, 0)
        }
    }

    /// Whether `stream`'s work from some point on never completes.
    fn is_hung(&self, stream: usize) -> bool {
        !self.hung.is_empty() && self.hung.contains(&self.hung_key(stream))
    }

    /// The work `w` covers is complete: what was enqueued on its stream before its record, not
    /// a later use of the same memory (an event captures the stream's work at its record).
    fn complete_wait(&mut self, w: &Wait) {
        if let Some(p) = self.pending.get_mut(&w.stream) {
            p.retain(|u| u.seq >= w.seq);
        }
        self.complete_host(|a| a.stream == w.stream && a.seq < w.seq);
    }

    /// Completes the host accesses for which `done` holds.
    fn complete_host(&mut self, done: impl Fn(&HostAccess) -> bool) {
        let (now, later): (Vec<HostAccess>, Vec<HostAccess>) = core::mem::take(&mut self.host)
            .into_iter()
            .partition(|a| done(a));
        self.host = later;
        for a in &now {
            a.perform();
        }
    }
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
    if !CHECK.load(Relaxed) {
        return None;
    }
    let mut g = STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Some(f(g.get_or_insert_with(State::default)))
}

fn env_u64(name: &str) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Reads the environment; returns whether a report is wanted at exit.
pub(crate) fn init() -> bool {
    let check = std::env::var_os("NULLDRIVER_CHECK").is_some_and(|v| !v.is_empty() && v != "0");
    CHECK.store(check, Relaxed);
    FAIL_AT.store(env_u64("NULLDRIVER_FAIL_AT"), Relaxed);
    STICKY_AT.store(env_u64("NULLDRIVER_STICKY_AT"), Relaxed);
    FAIL_CODE.store(env_u64("NULLDRIVER_FAIL_CODE"), Relaxed);
    REPEAT_AT.store(env_u64("NULLDRIVER_REPEAT_AT"), Relaxed);
    LOST_AT.store(env_u64("NULLDRIVER_LOST_AT"), Relaxed);
    HANG_AT.store(env_u64("NULLDRIVER_HANG_AT"), Relaxed);
    crate::inject::init();
    if let Some(secs) = std::env::var("NULLDRIVER_HANG_IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        HANG_IDLE_SECS.store(secs, Relaxed);
    }
    FAULTS.store(
        check
            || FAIL_AT.load(Relaxed) != 0
            || STICKY_AT.load(Relaxed) != 0
            || REPEAT_AT.load(Relaxed) != 0
            || LOST_AT.load(Relaxed) != 0,
        Relaxed,
    );
    check
}

/// Whether `code` is one of the driver's sticky errors (custack's list, `ErrorKind::is_sticky`).
pub(crate) fn is_sticky(code: i32) -> bool {
    matches!(
        code,
        214 | 226 | 700 | 702 | 710 | 714..=719 | 721 | 810 | 911
    )
}

/// The error `NULLDRIVER_REPEAT_AT` answers `name` with: `NULLDRIVER_FAIL_CODE`, or the entry
/// point's typical one, or, where that is sticky (a synchronize's `CUDA_ERROR_LAUNCH_FAILED`),
/// `CUDA_ERROR_UNKNOWN` (999), which is not.
fn repeat_code(name: &str) -> i32 {
    match FAIL_CODE.load(Relaxed) {
        0 => match typical_code(name) {
            sticky if is_sticky(sticky) => 999,
            code => code,
        },
        c => i32::try_from(c).unwrap_or(1),
    }
}

fn typical_code(name: &str) -> i32 {
    if name == "cuFuncGetParamInfo" {
        // Its invalid value is an answer, not a failure: one past the last parameter.
        400 // CUDA_ERROR_INVALID_HANDLE
    } else if name.contains("Alloc") || name.contains("Create") || name.contains("Load") {
        2 // CUDA_ERROR_OUT_OF_MEMORY
    } else if name.contains("Synchronize") {
        719 // CUDA_ERROR_LAUNCH_FAILED
    } else {
        1 // CUDA_ERROR_INVALID_VALUE
    }
}

// ---------------------------------------------------------------------------------------------
// Calls made in a forked child (R22: a child forked after custack's `Profile::init` makes no
// driver call). The count lives in memory shared with the parent (an anonymous shared mapping
// made at load), so the parent's report says how many calls its forked children made, and
// which: `forked-calls N`, then a `forked-call: NAME` line for each of the first few.

/// Set in a forked child (the `pthread_atfork` child handler registered at load).
static IN_FORKED_CHILD: AtomicBool = AtomicBool::new(false);

/// How many calls' names the shared record keeps.
const FORKED_NAMES: usize = 8;

/// The record shared with forked children: the count, then the names (address and length of
/// a `&'static str`, the same in parent and child) of the first `FORKED_NAMES` calls.
#[repr(C)]
struct ForkedRecord {
    calls: AtomicU64,
    names: [(AtomicU64, AtomicU64); FORKED_NAMES],
}

/// The shared record, once made (null: never made, e.g. under Miri, which has no fork).
static FORKED_RECORD: core::sync::atomic::AtomicPtr<ForkedRecord> =
    core::sync::atomic::AtomicPtr::new(core::ptr::null_mut());

/// Makes the shared record and registers the child handler: at load, in checking mode.
pub(crate) fn watch_forks() {
    #[cfg(not(miri))]
    {
        unsafe extern "C" {
            fn mmap(
                a: *mut core::ffi::c_void,
                n: usize,
                p: i32,
                f: i32,
                fd: i32,
                o: i64,
            ) -> *mut core::ffi::c_void;
            fn pthread_atfork(
                prepare: Option<extern "C" fn()>,
                parent: Option<extern "C" fn()>,
                child: Option<extern "C" fn()>,
            ) -> i32;
        }
        const PROT_READ_WRITE: i32 = 0x1 | 0x2;
        const MAP_SHARED_ANONYMOUS: i32 = 0x01 | 0x20;
        extern "C" fn in_child() {
            IN_FORKED_CHILD.store(true, Relaxed);
            // Every call then reaches `fault_slow`, which counts it.
            FAULTS.store(true, Relaxed);
        }
        // SAFETY: a new anonymous mapping, zero-filled: a valid `ForkedRecord` (atomics of 0).
        let p = unsafe {
            mmap(
                core::ptr::null_mut(),
                size_of::<ForkedRecord>(),
                PROT_READ_WRITE,
                MAP_SHARED_ANONYMOUS,
                -1,
                0,
            )
        };
        if !p.is_null() && p as isize != -1 {
            FORKED_RECORD.store(p.cast(), Relaxed);
        }
        // SAFETY: `in_child` only stores to atomics (async-signal-safe).
        let _ = unsafe { pthread_atfork(None, None, Some(in_child)) };
    }
}

/// Whether this process is a forked child (its exit writes no report: the parent's is the one).
pub(crate) fn in_forked_child() -> bool {
    IN_FORKED_CHILD.load(Relaxed)
}

fn forked_record() -> Option<&'static ForkedRecord> {
    let p = FORKED_RECORD.load(Relaxed);
    // SAFETY: made once at load, never unmapped; shared atomics only.
    (!p.is_null()).then(|| unsafe { &*p })
}

#[cold]
fn forked_call(name: &'static str) {
    if let Some(r) = forked_record() {
        let i = r.calls.fetch_add(1, Relaxed);
        if let Some((at, len)) = usize::try_from(i).ok().and_then(|i| r.names.get(i)) {
            at.store(name.as_ptr() as u64, Relaxed);
            len.store(name.len() as u64, Relaxed);
        }
    }
}

/// The report's `forked-calls` line and its `forked-call:` lines.
fn forked_lines(out: &mut String) {
    use core::fmt::Write;
    let Some(r) = forked_record() else {
        out.push_str("forked-calls 0\n");
        return;
    };
    let n = r.calls.load(Relaxed);
    let _ = writeln!(out, "forked-calls {n}");
    for (at, len) in r
        .names
        .iter()
        .take(usize::try_from(n).unwrap_or(FORKED_NAMES))
    {
        let (at, len) = (at.load(Relaxed) as usize, len.load(Relaxed) as usize);
        if at == 0 {
            continue;
        }
        // SAFETY: the address and length of a `&'static str` of this binary (the child is a
        // copy of this process), written before the count was read back here.
        let bytes = unsafe { core::slice::from_raw_parts(at as *const u8, len) };
        let _ = writeln!(out, "forked-call: {}", String::from_utf8_lossy(bytes));
    }
}

/// Counts the call and returns the error to fail it with, if any.
#[inline(always)]
#[allow(
    clippy::inline_always,
    reason = "on every entry point's path: one load and a branch while it is off (timing runs)"
)]
pub(crate) fn fault(name: &'static str) -> Option<i32> {
    if !FAULTS.load(Relaxed) {
        return None;
    }
    fault_slow(name)
}

#[inline(never)]
fn fault_slow(name: &'static str) -> Option<i32> {
    if IN_FORKED_CHILD.load(Relaxed) {
        forked_call(name);
    }
    // The driver forbids CUDA calls from code it called (a host function, a stream callback, a
    // user object's destructor); the error-name lookups are plain tables.
    if crate::callback::inside() && !name.starts_with("cuGetError") {
        crate::mode::violation(&format!(
            "{name}: a CUDA call from code the driver called (a host function, a stream \
             callback, a user object's destructor), which the driver forbids"
        ));
    }
    if name.starts_with("cuGetErrorName")
        || name.starts_with("cuGetErrorString")
        || name.starts_with("cuGetProcAddress")
        || name.starts_with("cuGetExportTable")
    {
        return None;
    }
    let n = CALLS.fetch_add(1, Relaxed) + 1;
    let _ = LAST_CALL.try_with(|c| c.set((n, name)));
    // A query is progress unless it finds hung work (its body says: `progress`).
    if HANG_CLOCK.get().is_some() && name != "cuStreamQuery" && name != "cuEventQuery" {
        progress();
    }
    if TOLD_CALL_ON.load(Relaxed) {
        told_call(n, name);
    }
    let mut told = n == TOLD_AT.load(Relaxed);
    let code = if told {
        i32::try_from(TOLD_CODE.load(Relaxed)).unwrap_or(1)
    } else if n == FAIL_AT.load(Relaxed) {
        match FAIL_CODE.load(Relaxed) {
            0 => typical_code(name),
            c => i32::try_from(c).unwrap_or(1),
        }
    } else {
        let sticky = STICKY_AT.load(Relaxed);
        let repeat = REPEAT_AT.load(Relaxed);
        let lost = LOST_AT.load(Relaxed);
        // What a faulted or lost device still answers: the thread's context stack (host-side
        // state of the driver), and the destruction of what the process tears down.
        let exempt = name.starts_with("cuCtxPushCurrent")
            || name.starts_with("cuCtxPopCurrent")
            || name.starts_with("cuCtxGetCurrent")
            || name.starts_with("cuCtxSetCurrent")
            || name.starts_with("cuCtxDestroy")
            || name.starts_with("cuGreenCtxDestroy")
            // A library belongs to no context, so a context's fault does not stop its unload.
            || name.starts_with("cuLibraryUnload");
        if exempt {
            return None;
        }
        let told_sticky = TOLD_STICKY_AT.load(Relaxed);
        let scheduled = sticky != 0 && n >= sticky;
        if scheduled || told_sticky != 0 && n >= told_sticky {
            if spared_by_sticky(name) {
                return None;
            }
            if scheduled {
                STICKY_CODE.load(Relaxed) as i32 // CUDA_ERROR_ILLEGAL_ADDRESS
            } else {
                told = true;
                i32::try_from(TOLD_STICKY_CODE.load(Relaxed)).unwrap_or(700)
            }
        } else if lost != 0 && n >= lost {
            // The device is gone: its pending work never completes (every wait and query
            // fails from now on), and releasing what it uses is a violation from now on
            // (`freeing`, `released_while_failed`), whatever the release is answered.
            LOST.store(true, Relaxed);
            DEVICE_UNAVAILABLE
        } else if repeat != 0 && n >= repeat {
            repeat_code(name)
        } else {
            return None;
        }
    };
    if is_sticky(code) {
        // The process is poisoned. Its pending work is not over: on a real device a fault in
        // one context does not stop another context's kernels and copies (R20), and no call
        // can say when they end. It stays pending, so releasing what it uses is a violation
        // from now on (`freeing`, `released_while_failed`), whatever the release is answered.
        POISONED.store(true, Relaxed);
    }
    if !told {
        let mut f = FAILED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if f.is_none() {
            *f = Some(name);
        }
    }
    Some(code)
}

/// Where call `n` is of the entry point a program told the double to fail ([`fail_call`]), it
/// becomes the told call, as [`fail_next`] makes the next one (and the entry point is told no
/// more).
#[cold]
#[inline(never)]
fn told_call(n: u64, name: &str) {
    let mut t = TOLD_CALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some((told, code, sticky)) = t.as_ref() else {
        return;
    };
    if !name.starts_with(told.as_str()) {
        return;
    }
    if *sticky {
        TOLD_STICKY_CODE.store(*code, Relaxed);
        TOLD_STICKY_AT.store(n, Relaxed);
    } else {
        TOLD_CODE.store(*code, Relaxed);
        TOLD_AT.store(n, Relaxed);
    }
    *t = None;
    TOLD_CALL_ON.store(false, Relaxed);
}

/// The calls a sticky error does not fail, besides the context stack's and the releases
/// `fault_slow` spares under every schedule: the driver's and the device's queries, which need
/// no working context (measured on the H200, driver 580: after a trap's
/// `CUDA_ERROR_LAUNCH_FAILED` and an illegal address's `CUDA_ERROR_ILLEGAL_ADDRESS` these five
/// answered `CUDA_SUCCESS`, while `cuMemGetInfo`, the synchronizes, allocations, copies, loads,
/// launches, `cuDevicePrimaryCtxRetain` and `cuCtxCreate` answered the sticky error;
/// `docs/validation.md`). Repeat mode (a persistent error that is not sticky) and lost mode (a
/// device that is gone) fail them still.
fn spared_by_sticky(name: &str) -> bool {
    matches!(
        name,
        "cuCtxGetApiVersion"
            | "cuCtxGetDevice"
            | "cuDeviceGet"
            | "cuDeviceGetAttribute"
            | "cuDriverGetVersion"
    )
}

/// On a thread's exit, its stack leaves the live record (the driver forgets a dead thread's
/// stack, so its contexts are no longer current anywhere); a non-empty one is remembered for the
/// report.
struct ThreadExit(u64);

impl Drop for ThreadExit {
    fn drop(&mut self) {
        with_state(|s| {
            if let Some(v) = s.stacks.remove(&self.0)
                && !v.is_empty()
            {
                s.exited_nonempty += 1;
            }
        });
    }
}

thread_local! {
    static THREAD_EXIT: ThreadExit = ThreadExit(thread_id());
}

/// The calling thread's context stack changed to `stack`.
pub(crate) fn stack_changed(stack: &[usize]) {
    let _ = THREAD_EXIT.try_with(|_| ());
    with_state(|s| {
        s.stacks.insert(thread_id(), stack.to_vec());
    });
}

fn current(s: &State) -> usize {
    s.stacks
        .get(&thread_id())
        .and_then(|v| v.last().copied())
        .unwrap_or(0)
}

/// A handle of `kind` was created in the current context (`parent`: its module, for functions).
pub(crate) fn created(kind: Kind, h: usize, parent: usize) {
    created_sized(kind, h, parent, 0);
}

/// As `created`, for device memory of `size` bytes.
pub(crate) fn created_sized(kind: Kind, h: usize, parent: usize, size: u64) {
    with_state(|s| {
        let ctx = if kind == Kind::Context { h } else { current(s) };
        if kind != Kind::Context && !kind.context_free() && ctx == 0 {
            violation(&format!("{kind:?} {h:#x} created with no context current"));
        }
        s.objs.insert(
            (kind, h),
            Obj {
                ctx,
                parent,
                live: true,
                size,
                born: born(),
                left: false,
            },
        );
        if kind == Kind::Stream
            && let Some(w) = s.ctx_waits.get(&ctx).cloned()
        {
            s.waits.entry(h).or_default().extend(w);
        }
        if kind == Kind::Stream && s.hung_contexts.contains(&ctx) {
            s.hung.insert((h, 0));
        }
    });
}

/// A primary context was retained: known from then on, never a leak.
pub(crate) fn primary(h: usize) {
    with_state(|s| {
        s.objs.entry((Kind::Context, h)).or_insert(Obj {
            ctx: h,
            parent: usize::MAX,
            live: true,
            size: 0,
            born: born(),
            left: false,
        });
    });
}

fn check_use(s: &mut State, kind: Kind, h: usize, what: &str) -> Option<usize> {
    check_use_in(s, kind, h, what, false)
}

/// As `check_use`; with `any_context`, a live handle of any context is accepted (the driver's
/// event waits: see `used_from_any_context`).
fn check_use_in(
    s: &mut State,
    kind: Kind,
    h: usize,
    what: &str,
    any_context: bool,
) -> Option<usize> {
    note_kept_use(s, (kind, h));
    let cur = current(s);
    match s.objs.get(&(kind, h)) {
        None => {
            violation(&format!("{what}: unknown {kind:?} {h:#x}"));
            None
        }
        Some(o) if !o.live => {
            violation(&format!(
                "{what}: {kind:?} {h:#x} already destroyed or freed"
            ));
            None
        }
        Some(o)
            if !kind.any_context()
                && !any_context
                && o.ctx != cur
                && !green_stream_under_primary(s, kind, o.ctx, cur) =>
        {
            let ctx = o.ctx;
            violation(&format!(
                "{what}: {kind:?} {h:#x} of context {ctx:#x} used while {cur:#x} is current"
            ));
            Some(ctx)
        }
        Some(o) => {
            let ctx = o.ctx;
            if kind == Kind::Mapping && !s.accessible.contains(&h) {
                violation(&format!(
                    "{what}: mapped memory {h:#x} used before cuMemSetAccess"
                ));
            }
            Some(ctx)
        }
    }
}

/// The program used `key`: if it is memory a graph keeps, the program holds it (see
/// `kept_launch`).
fn note_kept_use(s: &mut State, key: (Kind, usize)) {
    if key.0 == Kind::DeviceMemory && s.kept_ptrs.contains(&key.1) {
        s.kept_used.insert(key.1);
    }
}

/// Whether a stream of context `ctx` may be used while `cur` is current: a stream of a green
/// context (`cuGreenCtxStreamCreate`) while a primary context is, as the driver allows (green
/// contexts share the primary context's memory and modules; custack's redundant kernel enqueues
/// on its partitions' streams with the primary context current, `tests/gpu_redundancy.rs`).
fn green_stream_under_primary(s: &State, kind: Kind, ctx: usize, cur: usize) -> bool {
    let parent = |c: usize| s.objs.get(&(Kind::Context, c)).map(|o| o.parent);
    kind == Kind::Stream
        && parent(cur) == Some(usize::MAX)
        && parent(ctx).is_some_and(|g| s.objs.get(&(Kind::GreenContext, g)).is_some_and(|o| o.live))
}

/// Array handle `h` (an array or a level of a mipmapped array) is used by `what`; returns the
/// key it is known by.
pub(crate) fn used_array(h: usize, what: &str) -> (Kind, usize) {
    with_state(|s| {
        let kind = if s.objs.contains_key(&(Kind::ArrayLevel, h)) {
            Kind::ArrayLevel
        } else {
            Kind::Array
        };
        check_use(s, kind, h, what);
        (kind, h)
    })
    .unwrap_or((Kind::Array, h))
}

/// What is destroyed to free `key`: a level's mipmapped array, or `key` itself.
pub(crate) fn owner_of(key: (Kind, usize)) -> (Kind, usize) {
    if key.0 != Kind::ArrayLevel {
        return key;
    }
    with_state(|s| {
        s.objs
            .get(&key)
            .map_or(key, |o| (Kind::MipmappedArray, o.parent))
    })
    .unwrap_or(key)
}

/// The start of the device allocation holding address `p`, for a texture's parent (`p` itself
/// if the double did not hand it out).
pub(crate) fn allocation_of(p: u64) -> usize {
    with_state(|s| containing(s, p).map_or(p as usize, |(_, start)| start)).unwrap_or(p as usize)
}

/// `h` is used by `what` (a null stream is the current context's default stream).
pub(crate) fn used(kind: Kind, h: usize, what: &str) {
    if h == 0 && kind == Kind::Stream {
        return;
    }
    with_state(|s| {
        check_use(s, kind, h, what);
    });
}

/// `h` is used by `what`, a call the driver documents to accept a handle of another context
/// than the current one: `cuEventSynchronize` and `cuEventQuery` (the CUDA Programming Guide,
/// multi-device stream and event behaviour) and `cuStreamWaitEvent`'s event ("may be from a
/// different context than hStream"). It must still be live.
pub(crate) fn used_from_any_context(kind: Kind, h: usize, what: &str) {
    with_state(|s| {
        check_use_in(s, kind, h, what, true);
    });
}

/// The device allocation or module variable that holds address `p` (its start, or any byte
/// inside it: a view at an offset), if the double handed it out. Addresses are never reused, so
/// a freed allocation is still found, as freed.
fn containing(s: &State, p: u64) -> Option<(Kind, usize)> {
    // A mapping's start may also be its reservation's: the mapping (live ones first) answers.
    let at = |k: Kind| s.objs.get(&(k, p as usize)).map(|o| (o.live, k));
    if let Some((_, k)) = [
        Kind::Mapping,
        Kind::DeviceMemory,
        Kind::Global,
        Kind::IpcMemory,
    ]
    .into_iter()
    .filter_map(at)
    .max_by_key(|(live, _)| *live)
    {
        return Some((k, p as usize));
    }
    s.objs
        .iter()
        .filter(|((k, start), o)| {
            k.addressable() && (*start as u64) < p && p < *start as u64 + o.size
        })
        .max_by_key(|(_, o)| o.live)
        .map(|(key, _)| *key)
}

/// Device address `p` is used by `what`: where it lies in an allocation or module variable the
/// double handed out (at its start or inside), that must be live and of the current context.
pub(crate) fn used_address(p: u64, what: &str) {
    with_state(|s| {
        if let Some((kind, h)) = containing(s, p) {
            check_use(s, kind, h, what);
        }
    });
}

/// Whether address `p` lies in device memory the double handed out (live or freed): a batched
/// copy's side (`cuMemcpyBatchAsync`, whose pointers say nothing of where they point) is
/// device memory then, host memory otherwise.
pub(crate) fn is_device_address(p: u64) -> bool {
    with_state(|s| containing(s, p).is_some()).unwrap_or(false)
}

/// Device bytes `first..end` are used by `what`, as memory of context `ctx` (None: the current
/// one): where `first` lies in memory the double handed out, that memory must be live, of that
/// context, and hold `end` too (a copy must not run past the end of its allocation).
pub(crate) fn used_span(first: u64, end: u64, ctx: Option<usize>, what: &str) {
    with_state(|s| {
        let Some(key) = containing(s, first) else {
            return;
        };
        let Some(obj) = s.objs.get(&key) else {
            return;
        };
        let (live, owner, size) = (obj.live, obj.ctx, obj.size);
        match ctx {
            None => {
                check_use(s, key.0, key.1, what);
            }
            Some(c) if !live => violation(&format!(
                "{what}: {:?} {:#x} (of context {c:#x}) already freed",
                key.0, key.1
            )),
            Some(c) if owner != c && !key.0.any_context() => violation(&format!(
                "{what}: {:?} {:#x} is memory of context {owner:#x}, named as of {c:#x}",
                key.0, key.1
            )),
            Some(_) => {}
        }
        if size != 0 && end > key.1 as u64 + size {
            violation(&format!(
                "{what}: bytes {first:#x}..{end:#x} run past the end of {:?} {:#x} ({size} bytes)",
                key.0, key.1
            ));
        }
    });
}

/// Context `ctx` is named by `what` (a peer copy's context): it must be live.
pub(crate) fn context_named(ctx: usize, what: &str) {
    with_state(|s| {
        if !s.objs.get(&(Kind::Context, ctx)).is_some_and(|o| o.live) {
            violation(&format!("{what}: context {ctx:#x} is not live"));
        }
    });
}

/// `cuCtxEnablePeerAccess(peer)`: the peer must be a live context other than the current one.
/// Returns false when access was enabled already (`CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED`).
pub(crate) fn peer_enabled(peer: usize) -> bool {
    with_state(|s| {
        let cur = current(s);
        if !s.objs.get(&(Kind::Context, peer)).is_some_and(|o| o.live) || peer == cur {
            violation(
                &format!("cuCtxEnablePeerAccess: {peer:#x} is not a live context other than the current {cur:#x}"),
            );
        }
        s.peers.insert((cur, peer))
    })
    .unwrap_or(true)
}

/// `cuCtxDisablePeerAccess(peer)`: access must have been enabled from the current context.
/// Returns false when it was not (`CUDA_ERROR_PEER_ACCESS_NOT_ENABLED`).
pub(crate) fn peer_disabled(peer: usize) -> bool {
    with_state(|s| {
        let cur = current(s);
        let was = s.peers.remove(&(cur, peer));
        if !was {
            violation(&format!(
                "cuCtxDisablePeerAccess: access from {cur:#x} to {peer:#x} is not enabled"
            ));
        }
        was
    })
    .unwrap_or(true)
}

/// `cuIpcGetMemHandle(ptr)`: `ptr` must be the start of a live `cuMemAlloc` allocation of the
/// current context; returns its size (0 when unknown).
pub(crate) fn ipc_exported(ptr: u64) -> u64 {
    with_state(|s| {
        let key = (Kind::DeviceMemory, ptr as usize);
        if s.objs.contains_key(&key) {
            check_use(s, key.0, key.1, "cuIpcGetMemHandle");
            s.objs.get(&key).map_or(0, |o| o.size)
        } else {
            violation(&format!(
                "cuIpcGetMemHandle: {ptr:#x} is not the start of a device allocation"
            ));
            0
        }
    })
    .unwrap_or(0)
}

/// `cuIpcOpenMemHandle` opened the allocation exported at `exported` (0: another process's) as
/// `ptr`, `size` bytes, in the current context. Opening one handle twice while the first
/// opening lives is a violation (`open_ipc`'s contract: two exclusive handles to one memory).
pub(crate) fn ipc_opened(ptr: u64, size: u64, exported: u64) {
    with_state(|s| {
        if exported != 0
            && s.objs
                .iter()
                .any(|((k, _), o)| *k == Kind::IpcMemory && o.live && o.parent == exported as usize)
        {
            violation(&format!(
                "cuIpcOpenMemHandle: the allocation {exported:#x} is opened already"
            ));
        }
    });
    created_sized(Kind::IpcMemory, ptr as usize, exported as usize, size);
}

/// The size recorded for the live handle `h` of `kind` (0 if none).
pub(crate) fn size_of_object(kind: Kind, h: usize) -> u64 {
    with_state(|s| {
        s.objs
            .get(&(kind, h))
            .filter(|o| o.live)
            .map_or(0, |o| o.size)
    })
    .unwrap_or(0)
}

/// The live handles of `kinds` whose parent is `h`, named for a report.
pub(crate) fn live_children(h: usize, kinds: &[Kind]) -> Vec<String> {
    with_state(|s| {
        s.objs
            .iter()
            .filter(|((k, _), o)| kinds.contains(k) && o.live && o.parent == h)
            .map(|((k, x), _)| format!("{k:?} {x:#x}"))
            .collect()
    })
    .unwrap_or_default()
}

/// Whether `ptr` is a live IPC opening (made by `cuIpcOpenMemHandle`, not closed yet).
pub(crate) fn ipc_open_at(ptr: u64) -> bool {
    with_state(|s| {
        s.objs
            .get(&(Kind::IpcMemory, ptr as usize))
            .is_some_and(|o| o.live)
    })
    .unwrap_or(false)
}

/// Whether a live IPC opening shows the allocation at `ptr` (which must then not be freed).
pub(crate) fn ipc_open_on(ptr: u64) -> bool {
    with_state(|s| {
        s.objs
            .iter()
            .any(|((k, _), o)| *k == Kind::IpcMemory && o.live && o.parent == ptr as usize)
    })
    .unwrap_or(false)
}

/// An asynchronous operation on `stream` uses `h` (when the double handed `h` out; a device
/// address may lie inside an allocation).
pub(crate) fn enqueued(stream: usize, kind: Kind, h: usize) {
    with_state(|s| {
        let key = match kind {
            Kind::DeviceMemory => containing(s, h as u64).unwrap_or((kind, h)),
            _ => (kind, h),
        };
        if s.objs.get(&key).is_some_and(|o| o.live) {
            note_kept_use(s, key);
            s.pend(stream, key);
        }
    });
}

/// Module `module` was loaded from `image`: PTX text is parsed for its entries and variables,
/// a cubin (ELF) for the kernels its symbol table defines; a fatbin is not read.
///
/// # Safety
/// `image` is null, or points to a PTX text (NUL-terminated), to a fatbin image of at least 4
/// bytes, or to an ELF image of at least 64 bytes (its header) whose section table and
/// sections lie within it: what custack's structural check of a cubin ensures, and what the
/// driver itself reads. (The double's own linker output is such a header, with no sections.)
pub(crate) unsafe fn module_loaded(module: usize, image: *const core::ffi::c_void) {
    if image.is_null() || !CHECK.load(Relaxed) {
        return;
    }
    // SAFETY: the caller's: at least 4 readable bytes.
    let magic = unsafe { image.cast::<[u8; 4]>().read_unaligned() };
    if magic == *b"\x7fELF" {
        // SAFETY: the caller's: an ELF image, its sections and section table within it; the
        // bytes are read here, while the caller's image is alive.
        let bytes = unsafe { cubin_bytes(image.cast()) };
        if let Some(ptx) = bytes.and_then(crate::cubin::declarations) {
            // A test's cubin that declares its kernels' parameters: known as PTX's are.
            let ptx = std::sync::Arc::new(crate::ptx::parse(ptx));
            with_state(|s| {
                s.ptx.insert(module, ptx);
            });
            return;
        }
        let names = bytes.and_then(crate::cubin::function_names);
        if let Some(names) = names {
            with_state(|s| {
                s.cubin_functions.insert(module, names);
            });
        }
        return;
    }
    let binary =
        u32::from_le_bytes(magic) == 0xBA55_ED50 || u32::from_le_bytes(magic) == 0x466B_F4B8;
    if binary {
        return;
    }
    // SAFETY: the caller's: not a binary image, so NUL-terminated PTX text.
    let text = unsafe { core::ffi::CStr::from_ptr(image.cast()) };
    let ptx = std::sync::Arc::new(crate::ptx::parse(text.to_bytes()));
    with_state(|s| {
        s.ptx.insert(module, ptx);
    });
}

/// An ELF image's bytes, read in three steps of known length: its header, its section table,
/// then everything up to the end of its last section. `None` for an image without sections.
///
/// # Safety
/// As `module_loaded`'s for an ELF image; the bytes stay readable for `'a`.
unsafe fn cubin_bytes<'a>(image: *const u8) -> Option<&'a [u8]> {
    // SAFETY: the caller's: the 64-byte header is readable.
    let header = unsafe { core::slice::from_raw_parts(image, 64) };
    let (shoff, shentsize, shnum) = crate::cubin::section_table(header)?;
    if shnum == 0 {
        return None;
    }
    // SAFETY: the caller's: the section table lies within the image.
    let table = unsafe {
        core::slice::from_raw_parts(image.wrapping_add(shoff), shentsize.checked_mul(shnum)?)
    };
    let len = crate::cubin::extent(shoff, shentsize, table)?;
    // SAFETY: the caller's: every section, and the table, lie within the image.
    Some(unsafe { core::slice::from_raw_parts(image, len) })
}

/// What a module knows of a name.
pub(crate) enum Lookup<T> {
    /// Not checking, or the module was not loaded from PTX (for an entry: or it is a function
    /// of a cubin, whose parameters are not known): anything goes.
    Unknown,
    Found(T),
    Missing,
}

/// An entry's parameters: their sizes, and their offsets.
pub(crate) type Params = (Vec<usize>, Vec<usize>);

/// The parameters of entry `name` of `module`.
pub(crate) fn entry(module: usize, name: &str) -> Lookup<Params> {
    with_state(|s| match s.ptx.get(&module) {
        None => match s.cubin_functions.get(&module) {
            Some(names) if !names.iter().any(|n| n == name) => Lookup::Missing,
            _ => Lookup::Unknown,
        },
        Some(p) => match (p.entries.get(name), p.offsets.get(name)) {
            (Some(sizes), Some(offsets)) => Lookup::Found((sizes.clone(), offsets.clone())),
            _ => Lookup::Missing,
        },
    })
    .unwrap_or(Lookup::Unknown)
}

/// The entries of `module` by name (sorted), where it was loaded from PTX text (`None`
/// otherwise, or when not checking).
pub(crate) fn entry_names(module: usize) -> Option<Vec<String>> {
    with_state(|s| {
        s.ptx.get(&module).map(|p| {
            let mut names: Vec<String> = p.entries.keys().cloned().collect();
            names.sort();
            names
        })
    })
    .flatten()
}

/// The size of variable `name` of `module`.
pub(crate) fn global(module: usize, name: &str) -> Lookup<usize> {
    with_state(|s| match s.ptx.get(&module) {
        None => Lookup::Unknown,
        Some(p) => p
            .globals
            .get(name)
            .map_or(Lookup::Missing, |g| Lookup::Found(*g)),
    })
    .unwrap_or(Lookup::Unknown)
}

/// `f` is library kernel `kernel`'s function in the current context: it dies with the library,
/// and takes the kernel's parameters.
pub(crate) fn function_of_kernel(f: usize, kernel: usize) {
    let library = with_state(|s| s.objs.get(&(Kind::LibraryKernel, kernel)).map(|o| o.parent));
    created(Kind::Function, f, library.flatten().unwrap_or(0));
    with_state(|s| {
        if let Some(p) = s.params.get(&kernel).cloned() {
            s.params.insert(f, p);
        }
        if let Some(o) = s.offsets.get(&kernel).cloned() {
            s.offsets.insert(f, o);
        }
    });
}

/// Function `f` takes parameters of these sizes, at these offsets.
pub(crate) fn function_params(f: usize, (sizes, offsets): Params) {
    with_state(|s| {
        s.params.insert(f, sizes);
        s.offsets.insert(f, offsets);
    });
}

/// Function `f`'s parameters as (offset, size), where known (a module loaded from PTX text).
pub(crate) fn param_layout(f: usize) -> Option<Vec<(usize, usize)>> {
    with_state(|s| {
        let sizes = s.params.get(&f)?;
        let offsets = s.offsets.get(&f)?;
        Some(offsets.iter().copied().zip(sizes.iter().copied()).collect())
    })
    .flatten()
}

/// A launch of `f` on `stream` with `kernelParams` `params`: where `f`'s parameter sizes are
/// known, each argument is read (all its bytes, as the driver copies them), and an 8-byte one
/// whose value lies in device memory the double handed out must point into live memory of the
/// current context; that memory is then in use by the launch until it completes.
///
/// # Safety
/// `params` holds a valid pointer per parameter of `f`, each to that parameter's bytes (the
/// launch's contract).
pub(crate) unsafe fn launched(
    f: usize,
    stream: usize,
    params: *const *mut core::ffi::c_void,
    what: &str,
) {
    // The launch runs the code of its function's module (or library): pending until it
    // completes, so that unloading it before then is a violation (`unloading`).
    with_state(|s| {
        if let Some(parent) = s.objs.get(&(Kind::Function, f)).map(|o| o.parent) {
            for kind in [Kind::Module, Kind::Library] {
                if s.objs.get(&(kind, parent)).is_some_and(|o| o.live) {
                    s.pend(stream, (kind, parent));
                }
            }
        }
    });
    let Some(Some(sizes)) = with_state(|s| s.params.get(&f).cloned()) else {
        return;
    };
    if params.is_null() && !sizes.is_empty() {
        violation(&format!(
            "{what}: no kernelParams for {} parameters",
            sizes.len()
        ));
        return;
    }
    for (i, size) in sizes.iter().enumerate() {
        // SAFETY: the caller's: one valid pointer per parameter, to `size` bytes.
        let arg = unsafe { params.wrapping_add(i).read() }.cast::<u8>();
        // SAFETY: as above.
        unsafe { access(arg, *size, false) };
        if *size != 8 {
            continue;
        }
        // SAFETY: as above: 8 readable bytes.
        let value = unsafe { arg.cast::<u64>().read_unaligned() };
        with_state(|s| {
            let Some(key) = containing(s, value) else {
                return;
            };
            let cur = current(s);
            match s.objs.get(&key) {
                Some(o) if !o.live => violation(&format!(
                    "{what}: argument {i} ({value:#x}) points into freed memory ({:?} {:#x})",
                    key.0, key.1
                )),
                Some(o) if !key.0.any_context() && o.ctx != cur => {
                    let ctx = o.ctx;
                    violation(&format!(
                        "{what}: argument {i} ({value:#x}) points into memory of context {ctx:#x} while {cur:#x} is current"
                    ));
                }
                _ => s.pend(stream, key),
            }
        });
    }
}

/// An enqueued copy on `stream` reads (or, `write`, writes) `bytes` host bytes at `ptr`, when it
/// completes; a copy to the host writes the bytes at device address `device` (0: zeroes).
pub(crate) fn host_enqueued(stream: usize, ptr: *mut u8, bytes: usize, write: bool, device: u64) {
    host_access_enqueued(stream, ptr, bytes, write, device, None);
}

/// As [`host_enqueued`] for a copy to the host whose device bytes were gathered already
/// (`data`: the rows of a 2D or 3D copy, from device memory or an array). Captured, it writes
/// zeroes at each launch (a graph keeps no gathered bytes).
pub(crate) fn host_enqueued_bytes(stream: usize, ptr: *mut u8, data: Vec<u8>) {
    host_access_enqueued(stream, ptr, data.len(), true, 0, Some(data));
}

/// [`host_enqueued`], with the bytes a copy to the host writes where they are known already.
fn host_access_enqueued(
    stream: usize,
    ptr: *mut u8,
    bytes: usize,
    write: bool,
    device: u64,
    gathered: Option<Vec<u8>>,
) {
    with_state(|s| {
        if let Some(c) = s.capture_of(stream) {
            c.ops.push(Op::Host {
                ptr,
                bytes,
                write,
                device,
            });
            // A copy to the host is a node of its own; a copy from it is its data operation's.
            if write {
                node_captured(s, stream);
            }
            return;
        }
        if s.is_hung(stream) {
            // Hung work never runs: its host side is never touched.
            return;
        }
        let data = if gathered.is_some() {
            gathered
        } else if write && device != 0 {
            match crate::data::snapshot(device, bytes) {
                Ok(d) => d,
                Err(e) => {
                    violation(&format!("a copy to the host: {e}"));
                    None
                }
            }
        } else {
            None
        };
        let seq = s.next_seq;
        s.next_seq += 1;
        s.host.push(HostAccess {
            stream,
            seq,
            ptr,
            bytes,
            write,
            data,
        });
    });
}

/// Data work (`data.rs`) enqueued on `stream`: kept in the capture if the stream is capturing,
/// done now otherwise (in checking mode; nothing otherwise). Returns the launch's result.
pub(crate) fn data_op(stream: usize, op: &crate::work::DataOp, what: &str) -> i32 {
    let capturing = with_state(|s| match s.capture_of(stream) {
        Some(c) => {
            c.ops.push(Op::Data(op.clone()));
            node_captured(s, stream);
            true
        }
        // Hung work never runs.
        None => s.is_hung(stream),
    });
    match capturing {
        Some(false) => op.run(what),
        _ => 0,
    }
}

/// The parameter sizes of function `f`, where known (a module loaded from PTX text).
pub(crate) fn param_sizes(f: usize) -> Option<Vec<usize>> {
    with_state(|s| s.params.get(&f).cloned()).flatten()
}

/// A synchronous copy reads (or writes) `bytes` host bytes at `ptr`, now (in checking mode).
pub(crate) unsafe fn host_now(ptr: *mut u8, bytes: usize, write: bool) {
    if CHECK.load(Relaxed) {
        // SAFETY: the caller's.
        unsafe { access(ptr, bytes, write) };
    }
}

/// Everything enqueued on `stream` is complete.
pub(crate) fn stream_synchronized(stream: usize) {
    with_state(|s| {
        s.pending.remove(&stream);
        s.complete_host(|a| a.stream == stream);
        for w in s.waits.remove(&stream).unwrap_or_default() {
            s.complete_wait(&w);
        }
    });
}

/// `stream` waits for `event`: what the event covers completes when `stream`'s work does.
pub(crate) fn stream_waits(stream: usize, event: usize) {
    with_state(|s| {
        if let Some(&(origin, recorder)) = s.capture_events.get(&event) {
            // Waiting for an event recorded in a capture joins that capture: from now on what
            // `stream` enqueues is captured too, until the capture ends, and the capture cannot
            // end before `stream` is joined back. Its next work depends on the record's.
            let deps = s
                .capture_event_deps
                .get(&event)
                .cloned()
                .unwrap_or_default();
            let forking = s.capture_origin(stream).is_none();
            let own = s.capture_deps.entry(stream).or_default();
            if forking {
                own.clear();
            }
            for d in deps {
                if !own.contains(&d) {
                    own.push(d);
                }
            }
            match s.capture_origin(stream) {
                None => {
                    s.joined.insert(stream, origin);
                    if let Some(c) = s.capturing.get_mut(&origin) {
                        c.unjoined.insert(stream);
                    }
                }
                // The origin waits for a joined stream's record: that stream is joined back.
                Some(o) if o == origin && stream == origin => {
                    if let Some(c) = s.capturing.get_mut(&origin) {
                        c.unjoined.remove(&recorder);
                    }
                }
                Some(_) => {}
            }
            return;
        }
        if let Some(r) = s.recorded.get(&event).cloned() {
            let w = s.waits.entry(stream).or_default();
            w.push(r.wait);
            w.extend(r.waits);
        }
        if s.hung_events.contains(&event) {
            // Its work from now on waits for work that never completes.
            let h = s.hung_key(stream);
            s.hung.insert(h);
        }
    });
}

/// `stream` begins a capture: what is enqueued on it from now on runs only when the graph is
/// launched.
pub(crate) fn capture_begun(stream: usize) {
    with_state(|s| {
        s.capturing.insert(stream, Capture::default());
        s.capture_deps.insert(stream, Vec::new());
    });
}

/// An allocation made on `stream`, if capturing: one of the graph's own allocation nodes.
pub(crate) fn allocated_on(stream: usize, p: u64) {
    with_state(|s| {
        if let Some(c) = s.capture_of(stream) {
            c.internal.push(p as usize);
            node_captured(s, stream);
        }
    });
}

/// Whether `p` is the memory of an allocation node of graph `g` (a graph being built), not
/// freed by a free node yet; if so, it is taken off the graph's own memory, so that a node that
/// uses it after its free node pends it (and a launch reports it freed).
pub(crate) fn graph_alloc_freed(g: usize, p: u64) -> bool {
    with_state(|s| {
        let Some((c, _)) = s.building.get_mut(&g) else {
            return false;
        };
        let before = c.internal.len();
        c.internal.retain(|&x| x != p as usize);
        c.internal.len() != before
    })
    .unwrap_or(false)
}

/// Whether `stream` is capturing.
pub(crate) fn is_capturing(stream: usize) -> bool {
    with_state(|s| s.capture_origin(stream).is_some()).unwrap_or(false)
}

/// `stream` begins a capture into `graph` (`cuStreamBeginCaptureToGraph`): a graph being
/// built, a body of one, or a body of a conditional node added to a capture. `false` (with a
/// violation where the graph is unknown) if it is none of those, or `stream` captures already.
pub(crate) fn capture_to_graph_begun(stream: usize, graph: usize, what: &str) -> bool {
    if is_capturing(stream) {
        return false;
    }
    let Some(key) = graph_stream(graph, what) else {
        return false;
    };
    with_state(|s| {
        s.into.insert(stream, (graph, key));
    });
    true
}

/// `stream`'s capture into a graph ends: that graph, or `None` if it captures into none.
pub(crate) fn capture_to_graph_ended(stream: usize) -> Option<usize> {
    with_state(|s| {
        s.capture_deps.remove(&stream);
        s.into.remove(&stream).map(|(graph, _)| graph)
    })
    .flatten()
}

/// `stream`'s capture's work so far ends in a new node: the capture's next work depends on it
/// alone (each captured operation is one node, which follows the ones before it on its stream).
fn node_captured(s: &mut State, stream: usize) {
    if s.capture_origin(stream).is_some() {
        let node = crate::handles::handle().addr();
        s.capture_deps.insert(stream, vec![node]);
    }
}

/// A stream-ordered free captured on `stream`: a free node of the capture.
pub(crate) fn free_captured(stream: usize) {
    with_state(|s| node_captured(s, stream));
}

/// `stream`'s capture's dependencies become `deps` (`cuStreamBeginCaptureToGraph`'s, or
/// `cuStreamUpdateCaptureDependencies` with `CU_STREAM_SET_CAPTURE_DEPENDENCIES`), or take
/// `deps` too (`add`: `CU_STREAM_ADD_CAPTURE_DEPENDENCIES`).
pub(crate) fn capture_dependencies_set(stream: usize, deps: &[usize], add: bool) {
    with_state(|s| {
        let own = s.capture_deps.entry(stream).or_default();
        if !add {
            own.clear();
        }
        for &d in deps {
            if !own.contains(&d) {
                own.push(d);
            }
        }
    });
}

/// The nodes `stream`'s capture's next work will depend on (`cuStreamGetCaptureInfo`): none
/// when it captures nothing yet, the last captured operation's node after one.
pub(crate) fn capture_dependencies(stream: usize) -> Vec<usize> {
    with_state(|s| s.capture_deps.get(&stream).cloned().unwrap_or_default()).unwrap_or_default()
}

/// The graph `stream` captures into (`cuStreamGetCaptureInfo`), made by `make` (a graph of
/// the current context from then on) the first time it is asked for a capture begun with
/// `cuStreamBeginCapture`; `None` if it is not capturing.
pub(crate) fn capture_graph(stream: usize, make: impl FnOnce() -> usize) -> Option<usize> {
    let (graph, made) = with_state(|s| {
        if let Some(&(graph, _)) = s.into.get(&stream) {
            return Some((graph, false));
        }
        let origin = s.capture_origin(stream)?;
        if let Some((&graph, _)) = s.capture_graphs.iter().find(|(_, o)| **o == origin) {
            return Some((graph, false));
        }
        let graph = make();
        s.capture_graphs.insert(graph, origin);
        Some((graph, true))
    })
    .flatten()?;
    if made {
        created(Kind::Graph, graph, 0);
    }
    Some(graph)
}

/// `stream`'s capture ends: its graph (the one `cuStreamGetCaptureInfo` named while it ran, or
/// `fresh`), or `Err` with that graph (which the driver destroys) if a stream forked into it
/// was not joined back. Either way every stream of the capture leaves it. `None`: `stream`
/// began no capture.
pub(crate) fn capture_ended(stream: usize, fresh: usize) -> Option<Result<usize, usize>> {
    let (ended, made) = with_state(|s| {
        let c = s.capturing.remove(&stream)?;
        let named = s
            .capture_graphs
            .iter()
            .find(|(_, o)| **o == stream)
            .map(|(&g, _)| g);
        let graph = named.unwrap_or(fresh);
        // The handle named during the capture is the graph's from now on, and so are the
        // bodies of the conditional nodes added to the capture.
        s.capture_graphs.retain(|_, origin| *origin != stream);
        for root in s.bodies.values_mut() {
            if *root == stream {
                *root = graph;
            }
        }
        // The streams that joined it leave it, and its events' records end with it.
        let left: Vec<usize> = s
            .joined
            .iter()
            .filter(|(_, origin)| **origin == stream)
            .map(|(&j, _)| j)
            .collect();
        for j in left.into_iter().chain([stream]) {
            s.capture_deps.remove(&j);
        }
        s.joined.retain(|_, origin| *origin != stream);
        s.capture_events.retain(|_, (origin, _)| *origin != stream);
        let made = named.is_none();
        if !c.unjoined.is_empty() {
            return Some((Err(graph), made));
        }
        s.graph_ops.insert(graph, c.ops);
        Some((Ok(graph), made))
    })
    .flatten()?;
    if made {
        created(Kind::Graph, fresh, 0);
    }
    Some(ended)
}

/// The number of nodes graph `g` holds, as the driver counts them: one per captured launch,
/// copy or memset. Each of those is one `Op::Data`, except a copy to the host, which is one
/// writing `Op::Host`; the `Op::Mem` entries (one per buffer an operation uses) and a copy
/// from the host's reading `Op::Host` are bookkeeping of the same operations, not nodes.
pub(crate) fn graph_len(g: usize) -> usize {
    with_state(|s| {
        if let Some((_, nodes)) = s.building.get(&g) {
            return *nodes;
        }
        s.graph_ops.get(&g).map_or(0, |ops| {
            ops.iter()
                .filter(|o| matches!(o, Op::Data(_) | Op::Host { write: true, .. }))
                .count()
        })
    })
    .unwrap_or(0)
}

/// Per kernel node, the span of a graph's operations that is its work (start, length).
type Spans = HashMap<usize, (usize, usize)>;

/// `exec` (new, or updated) takes graph `graph`'s operations. Its kernel nodes are named by
/// the graph it was first made from, updated or not (a graph of the same topology: the same
/// spans), as the driver names them.
pub(crate) fn graph_instantiated(exec: usize, graph: usize) {
    with_state(|s| {
        let ops = s.ops_of(graph);
        s.graph_ops.insert(exec, ops);
        let nodes = s
            .kernel_nodes
            .iter()
            .filter(|(_, (g, _, _))| *g == graph)
            .map(|(node, &(_, start, len))| (*node, (start, len)))
            .collect();
        s.exec_nodes.entry(exec).or_insert((graph, nodes));
        // A whole-graph update: the nodes are the new graph's, all enabled. The driver keeps a
        // node disabled through the update (driver 580, `tests/gpu_graph_update_attack.rs`),
        // but custack refuses the update while any node is disabled, so none is here.
        s.disabled.retain(|(e, _), _| *e != exec);
    });
    let topology = topology_of(graph);
    with_state(|s| {
        s.exec_topology.insert(exec, topology);
    });
}

/// What the double knows of `graph`'s topology: its node count and, for a graph built node by
/// node, its nodes' kinds in the order they were added.
fn topology_of(graph: usize) -> crate::node_kinds::Topology {
    crate::node_kinds::Topology {
        nodes: graph_len(graph),
        kinds: crate::node_kinds::kinds_of(graph),
    }
}

/// `cuGraphExecUpdate` of `exec` from `graph`: whether `graph` keeps the topology of the graph
/// `exec` was made from, as far as the double sees it: the same node count and, where both
/// graphs were built node by node, the same node kinds in the same order (an update that adds
/// or drops a node, or puts a node of another kind in a node's place, is refused, as the
/// driver refuses it with `CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED` or
/// `..._NODE_TYPE_CHANGED`; the double keeps no edges).
pub(crate) fn update_keeps_topology(exec: usize, graph: usize) -> bool {
    let new = topology_of(graph);
    with_state(|s| {
        s.exec_topology
            .get(&exec)
            .is_none_or(|old| old.kept_by(&new))
    })
    .unwrap_or(true)
}

/// `cuGraphNodeSetEnabled`: node `node` of `exec` is enabled or disabled for the next launches.
/// A disabled node's work leaves the executable graph's operations (kept aside, with its
/// parameters, as the driver keeps them) and comes back at its place when it is enabled. A
/// node that is no kernel, memset or memcpy node of the graph `exec` was made from is a
/// violation (`false`).
pub(crate) fn node_enabled_set(exec: usize, node: usize, enabled: bool, what: &str) -> bool {
    with_state(|s| {
        let Some((_, nodes)) = s.exec_nodes.get_mut(&exec) else {
            violation(&format!(
                "{what}: {exec:#x} is no executable graph made from a built graph"
            ));
            return false;
        };
        let Some(&(start, len)) = nodes.get(&node) else {
            violation(&format!(
                "{what}: {node:#x} is no kernel, memset or memcpy node of the graph {exec:#x} \
                 was made from"
            ));
            return false;
        };
        let held = s.disabled.contains_key(&(exec, node));
        if enabled != held {
            return true;
        }
        let ops = s.graph_ops.entry(exec).or_default();
        let added = if enabled {
            let back = s.disabled.remove(&(exec, node)).unwrap_or_default();
            let n = back.len();
            ops.splice(start..start, back);
            n
        } else {
            let out: Vec<Op> = ops.splice(start..start + len, []).collect();
            s.disabled.insert((exec, node), out);
            0
        };
        for (other, (at, _)) in nodes.iter_mut() {
            if *other != node && *at > start {
                *at = *at + added - len;
            }
        }
        nodes.insert(node, (start, added));
        true
    })
    .unwrap_or(false)
}

/// `cuGraphNodeGetEnabled`: whether node `node` of `exec` is enabled; `None` (a violation) for
/// a node that is no kernel, memset or memcpy node of the graph `exec` was made from.
pub(crate) fn node_enabled(exec: usize, node: usize, what: &str) -> Option<bool> {
    with_state(|s| {
        let known = s
            .exec_nodes
            .get(&exec)
            .is_some_and(|(_, nodes)| nodes.contains_key(&node));
        if !known {
            violation(&format!(
                "{what}: {node:#x} is no kernel, memset or memcpy node of the graph {exec:#x} \
                 was made from"
            ));
            return None;
        }
        Some(!s.disabled.contains_key(&(exec, node)))
    })
    .flatten()
}

/// `exec` was instantiated from `graph` (with `AUTO_FREE_ON_LAUNCH` if `auto_free`): the
/// memory of `graph`'s allocation nodes that no free node frees becomes the executable graph's,
/// allocated by each launch only, so not allocated now.
pub(crate) fn kept_instantiated(exec: usize, graph: usize, auto_free: bool) {
    with_state(|s| {
        let Some((c, _)) = s.building.get_mut(&graph) else {
            return;
        };
        let kept: Vec<usize> = core::mem::take(&mut c.internal);
        if kept.is_empty() {
            return;
        }
        let mut sized = Vec::new();
        for p in kept {
            if let Some(o) = s.objs.get_mut(&(Kind::DeviceMemory, p)) {
                o.live = false;
                sized.push((p, o.size));
            }
            crate::data::freed(p as u64);
            // The build's own nodes used it; the program has not.
            s.kept_ptrs.insert(p);
            s.kept_used.remove(&p);
        }
        s.exec_kept.insert(exec, (sized, auto_free));
    });
}

/// `exec` is about to be launched on `stream`: `false` if memory a previous launch kept is not
/// freed yet and `exec` was not instantiated with `AUTO_FREE_ON_LAUNCH` (the driver's
/// `CUDA_ERROR_INVALID_VALUE`: "If any allocations created by hGraphExec remain unfreed (from
/// a previous launch) and hGraphExec was not instantiated with
/// `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`, the launch will fail", `cuGraphLaunch`).
/// Otherwise the launch allocates it again, in the current context; with
/// `AUTO_FREE_ON_LAUNCH`, what is still allocated is first freed, in the launch's stream
/// order, as the driver does: a violation where other work may still use it (another stream's
/// pending operation) or where the program used it since the launch that made it (it took it
/// and may hold it still: the relaunch frees and makes again, at the same address, memory
/// the program owns). A later free of it by the program then frees the new launch's
/// allocation, and the one after that is a double free.
pub(crate) fn kept_launch(exec: usize, stream: usize) -> bool {
    with_state(|s| {
        let Some((kept, auto_free)) = s.exec_kept.get(&exec).cloned() else {
            return true;
        };
        let live =
            |s: &State, p: usize| s.objs.get(&(Kind::DeviceMemory, p)).is_some_and(|o| o.live);
        if !auto_free && kept.iter().any(|&(p, _)| live(s, p)) {
            return false;
        }
        for &(p, _) in &kept {
            if !live(s, p) {
                unordered_kept_free(s, p, stream);
            }
        }
        let cur = current(s);
        for (p, size) in kept {
            if live(s, p) {
                const WHAT: &str = "cuGraphLaunch (AUTO_FREE_ON_LAUNCH)";
                if s.kept_used.contains(&p) {
                    violation(&format!(
                        "{WHAT}: frees DeviceMemory {p:#x}, kept by the graph's previous launch \
                         and used by the program since (it may hold it still), and makes it \
                         again at the same address"
                    ));
                }
                freeing_in(s, Kind::DeviceMemory, p, Some(stream), WHAT);
                crate::data::freed(p as u64);
            }
            crate::data::allocated(p as u64, size as usize);
            s.kept_used.remove(&p);
            if let Some(o) = s.objs.get_mut(&(Kind::DeviceMemory, p)) {
                o.live = true;
                o.ctx = cur;
            }
        }
        true
    })
    .unwrap_or(true)
}

/// A relaunch on `stream` makes kept memory `p` again at its address: a violation while work on
/// another stream that may not have run yet uses it or frees it (`cuMemFreeAsync`, which
/// `kept_freed_async` leaves pending there), with no order before `stream` (no wait of
/// `stream` for an event recorded after it): that free could run after the relaunch made the
/// memory, and free the new launch's.
fn unordered_kept_free(s: &State, p: usize, stream: usize) {
    let key = (Kind::DeviceMemory, p);
    let ordered = |st: usize| {
        s.waits.get(&stream).is_some_and(|ws| {
            ws.iter()
                .any(|w| w.stream == st && w.pending.contains(&key))
        })
    };
    for (st, uses) in &s.pending {
        if *st != stream && holds(uses, key) && !ordered(*st) {
            violation(&format!(
                "cuGraphLaunch: makes DeviceMemory {p:#x}, kept by the graph's previous launch, \
                 again while work on stream {st:#x} that frees or uses it may not have run (no \
                 order between them): that work could run after the relaunch made it"
            ));
        }
    }
}

/// `cuMemFreeAsync` on `stream` freed `p`: if it is memory a graph keeps past its launch, the
/// free stays pending on `stream` until the stream's work is known complete, so that a
/// relaunch that makes it again with no order after the free is reported
/// (`unordered_kept_free`).
pub(crate) fn kept_freed_async(p: usize, stream: usize) {
    with_state(|s| {
        if s.kept_ptrs.contains(&p) {
            s.pend(stream, (Kind::DeviceMemory, p));
        }
    });
}

/// `cuGraphClone` made `clone` from `graph`: a graph of its own with the same operations (and,
/// for a graph built node by node, the same count of nodes).
pub(crate) fn graph_cloned(graph: usize, clone: usize) {
    created(Kind::Graph, clone, 0);
    with_state(|s| {
        if let Some((c, nodes)) = s.building.get(&graph) {
            let copy = Capture {
                ops: c.ops.clone(),
                internal: c.internal.clone(),
                ..Capture::default()
            };
            let nodes = *nodes;
            s.building.insert(clone, (copy, nodes));
        } else {
            let ops = s.ops_of(graph);
            s.graph_ops.insert(clone, ops);
        }
    });
}

/// The number of operations graph `g`, being built, holds so far.
pub(crate) fn building_ops(g: usize) -> usize {
    with_state(|s| s.building.get(&g).map_or(0, |(c, _)| c.ops.len())).unwrap_or(0)
}

/// `node`, a kernel node of graph `g`, is the work from operation `start` on.
pub(crate) fn kernel_node_made(node: usize, g: usize, start: usize) {
    let end = building_ops(g);
    with_state(|s| {
        s.kernel_nodes.insert(node, (g, start, end - start));
    });
}

/// `cuGraphExecKernelNodeSetParams`: the work of kernel node `node` of `exec` becomes the
/// operations graph `scratch` (built for this call) holds, which is then forgotten. A node
/// that is no kernel node of the graph `exec` was made from is a violation (`false`).
pub(crate) fn kernel_node_set(exec: usize, node: usize, scratch: usize, what: &str) -> bool {
    with_state(|s| {
        let new = s
            .building
            .remove(&scratch)
            .map(|(c, _)| c.ops)
            .unwrap_or_default();
        let Some((_, nodes)) = s.exec_nodes.get_mut(&exec) else {
            violation(&format!(
                "{what}: {exec:#x} is no executable graph made from a built graph"
            ));
            return false;
        };
        let Some(&(start, len)) = nodes.get(&node) else {
            violation(&format!(
                "{what}: {node:#x} is no kernel node of the graph {exec:#x} was made from"
            ));
            return false;
        };
        // A disabled node keeps its new parameters aside, for when it is enabled.
        if let Some(held) = s.disabled.get_mut(&(exec, node)) {
            *held = new;
            return true;
        }
        let added = new.len();
        for (other, (at, _)) in nodes.iter_mut() {
            if *other != node && *at > start {
                *at = *at + added - len;
            }
        }
        nodes.insert(node, (start, added));
        if let Some(ops) = s.graph_ops.get_mut(&exec) {
            ops.splice(start..start + len, new);
        }
        true
    })
    .unwrap_or(false)
}

/// `cuGraphCreate` made `graph`, empty: the work of the nodes added to it is kept as a
/// capture keyed by the graph (`graph_stream`).
pub(crate) fn graph_created(graph: usize) {
    created(Kind::Graph, graph, 0);
    with_state(|s| {
        s.building.insert(graph, (Capture::default(), 0));
    });
}

/// The key under which a node added to `graph` enqueues its work (the graph itself, taken as
/// a capturing stream), once the graph is known to be live and one built by `cuGraphCreate`;
/// `None` otherwise (a captured graph takes no nodes here).
pub(crate) fn graph_stream(graph: usize, what: &str) -> Option<usize> {
    // A conditional node's body: the driver's, no object of the program's. Its work joins a
    // graph being built, or a capture (a conditional node added to one).
    if let Some(root) = with_state(|s| s.bodies.get(&graph).copied()).flatten() {
        return with_state(|s| {
            (s.building.contains_key(&root) || s.capturing.contains_key(&root)).then_some(root)
        })
        .flatten();
    }
    // The graph of a capture under way, as `cuStreamGetCaptureInfo` named it: its work is the
    // capturing stream's.
    if let Some(stream) = with_state(|s| s.capture_graphs.get(&graph).copied()).flatten() {
        return with_state(|s| s.capturing.contains_key(&stream).then_some(stream)).flatten();
    }
    used(Kind::Graph, graph, what);
    with_state(|s| s.building.contains_key(&graph).then_some(graph)).flatten()
}

/// `cuGraphConditionalHandleCreate` made `handle` on `graph` (a graph being built or a body).
pub(crate) fn conditional_handle_made(handle: u64, graph: usize) {
    with_state(|s| {
        s.handles.insert(handle, graph);
    });
}

/// A conditional node of `graph` takes `handle`: one made on that graph and taken by no node
/// before (the driver's rules), else a violation (`false`).
pub(crate) fn conditional_handle_taken(handle: u64, graph: usize, what: &str) -> bool {
    let made_on = with_state(|s| s.handles.remove(&handle)).flatten();
    match made_on {
        Some(g) if g == graph => true,
        Some(g) => {
            violation(&format!(
                "{what}: conditional handle {handle:#x} was made on graph {g:#x}, not on \
                 {graph:#x}, the node's"
            ));
            false
        }
        None => {
            violation(&format!(
                "{what}: conditional handle {handle:#x} is unknown or taken by a node already"
            ));
            false
        }
    }
}

/// A conditional node was added to a graph whose work is kept under `root`: its `bodies`
/// join that work.
pub(crate) fn conditional_bodies(root: usize, bodies: &[usize]) {
    with_state(|s| {
        for &b in bodies {
            s.bodies.insert(b, root);
        }
    });
}

/// A node was added to `graph`: one more in its count.
pub(crate) fn node_added(graph: usize) {
    with_state(|s| {
        if let Some((_, nodes)) = s.building.get_mut(&graph) {
            *nodes += 1;
        }
    });
}

/// A child-graph node of `parent` runs a copy of `child`'s operations at each launch.
pub(crate) fn child_added(parent: usize, child: usize) {
    with_state(|s| {
        let ops = s.ops_of(child);
        if let Some((c, nodes)) = s.building.get_mut(&parent) {
            c.ops.extend(ops);
            *nodes += 1;
        }
    });
}

/// `graph` was destroyed: its nodes' work goes with it.
pub(crate) fn graph_forgotten(graph: usize) {
    with_state(|s| {
        // Its allocation nodes' memory not freed by a free node goes with it, as the driver
        // frees it.
        if let Some((c, _)) = s.building.remove(&graph) {
            for p in c.internal {
                if let Some(o) = s.objs.get_mut(&(Kind::DeviceMemory, p)) {
                    o.live = false;
                }
            }
        }
        // Its conditional nodes' bodies and unused handles go with it.
        let bodies = &s.bodies;
        s.handles
            .retain(|_, g| *g != graph && bodies.get(g).is_none_or(|root| *root != graph));
        s.bodies.retain(|_, root| *root != graph);
        s.kernel_nodes.retain(|_, (g, _, _)| *g != graph);
    });
}

/// `exec` is launched on `stream`: its operations are enqueued there, and the memory they use
/// must be live and of the current context.
pub(crate) fn graph_launched(exec: usize, stream: usize) {
    let ops =
        with_state(|s| s.graph_ops.get(&exec).cloned().unwrap_or_default()).unwrap_or_default();
    for op in ops {
        match op {
            Op::Mem(key) => {
                with_state(|s| {
                    let cur = current(s);
                    match s.objs.get(&key) {
                        Some(o) if !o.live => violation(&format!(
                            "cuGraphLaunch: the graph uses freed memory ({:?} {:#x})",
                            key.0, key.1
                        )),
                        Some(o) if !key.0.any_context() && o.ctx != cur => {
                            let ctx = o.ctx;
                            violation(&format!(
                                "cuGraphLaunch: the graph uses memory of context {ctx:#x} while {cur:#x} is current"
                            ));
                        }
                        _ => s.pend(stream, key),
                    }
                });
            }
            Op::Host {
                ptr,
                bytes,
                write,
                device,
            } => host_enqueued(stream, ptr, bytes, write, device),
            Op::Data(d) => {
                if !with_state(|s| s.is_hung(stream)).unwrap_or(false) {
                    let _ = d.run("cuGraphLaunch");
                }
            }
        }
    }
}

/// Everything enqueued in the current context is complete.
pub(crate) fn context_synchronized() {
    with_state(|s| {
        let cur = current(s);
        let streams: Vec<usize> = s
            .pending
            .keys()
            .copied()
            .filter(|st| {
                *st == 0
                    || s.objs
                        .get(&(Kind::Stream, *st))
                        .is_some_and(|o| o.ctx == cur)
            })
            .collect();
        for st in &streams {
            s.pending.remove(st);
            s.waits.remove(st);
        }
        let ours = |st: usize| {
            st == 0
                || s.objs
                    .get(&(Kind::Stream, st))
                    .is_some_and(|o| o.ctx == cur)
        };
        let done: Vec<usize> = s
            .host
            .iter()
            .map(|a| a.stream)
            .filter(|st| ours(*st))
            .collect();
        s.complete_host(|a| done.contains(&a.stream));
    });
}

/// Whether work enqueued on `stream` may still run: pending, or hung.
pub(crate) fn has_pending(stream: usize) -> bool {
    with_state(|s| {
        s.pending.get(&stream).is_some_and(|p| !p.is_empty())
            || s.hung.iter().any(|(st, _)| *st == stream)
    })
    .unwrap_or(false)
}

/// `event` is recorded on `stream`: it completes what is pending there now.
pub(crate) fn event_recorded(event: usize, stream: usize) {
    with_state(|s| {
        s.capture_events.remove(&event);
        if let Some(origin) = s.capture_origin(stream) {
            // A record node of the capture, not a record of work that runs now.
            s.recorded.remove(&event);
            s.capture_events.insert(event, (origin, stream));
            let deps = s.capture_deps.get(&stream).cloned().unwrap_or_default();
            s.capture_event_deps.insert(event, deps);
            return;
        }
        let pending = s.pending.get(&stream).map(|p| keys(p)).unwrap_or_default();
        let waits = s.waits.get(&stream).cloned().unwrap_or_default();
        let wait = Wait {
            stream,
            pending,
            seq: s.next_seq,
        };
        s.recorded.insert(event, Recorded { wait, waits });
        // An event's state is its latest record's.
        if s.is_hung(stream) {
            s.hung_events.insert(event);
        } else {
            s.hung_events.remove(&event);
        }
    });
}

/// `event` completed: so did what was pending on its stream when it was recorded.
pub(crate) fn event_synchronized(event: usize) {
    with_state(|s| {
        if let Some(r) = s.recorded.get(&event).cloned() {
            s.complete_wait(&r.wait);
            for w in &r.waits {
                s.complete_wait(w);
            }
        }
    });
}

/// Memory `h` is freed by `what` (on `stream`, for `cuMemFreeAsync`): it must not be pending
/// on any (other) stream.
pub(crate) fn freeing(kind: Kind, h: usize, stream: Option<usize>, what: &str) {
    with_state(|s| freeing_in(s, kind, h, stream, what));
}

/// As `freeing`, in the state `s`.
fn freeing_in(s: &mut State, kind: Kind, h: usize, stream: Option<usize>, what: &str) {
    {
        let on: Vec<usize> = s
            .pending
            .iter()
            .filter(|(st, p)| Some(**st) != stream && holds(p, (kind, h)))
            .map(|(st, _)| *st)
            .collect();
        // Memory of hung work, on any stream other than the one a stream-ordered free follows.
        let own = stream.map(|st| s.hung_key(st));
        let hung_on: Vec<usize> = s
            .hung_pending
            .iter()
            .filter(|(st, p)| Some(**st) != own && p.contains(&(kind, h)))
            .map(|((st, _), _)| *st)
            .collect();
        for st in &hung_on {
            violation(&format!(
                "{what}: {kind:?} {h:#x} freed while hung work on stream {st:#x} uses it (it never completes)"
            ));
        }
        let poisoned = if POISONED.load(Relaxed) {
            " (in a poisoned process: a sticky error does not end the device's work)"
        } else if LOST.load(Relaxed) {
            " (the device is lost: nothing shows that its work stopped)"
        } else {
            ""
        };
        for &st in on.iter().filter(|st| !hung_on.contains(st)) {
            violation(&format!(
                "{what}: {kind:?} {h:#x} freed while an operation on stream {st:#x} may use it{poisoned}"
            ));
            // Reported: the copies' host accesses are dropped rather than made on freed memory.
            if kind == Kind::HostMemory {
                s.host.retain(|a| a.stream != st || a.ptr.addr() != h);
            }
        }
        if let Some(st) = stream
            && let Some(p) = s.pending.get_mut(&st)
        {
            p.retain(|u| u.key != (kind, h));
        }
        // Reported once: the object is gone, so the work no longer holds it. A later object at
        // the same address (host memory's allocator reuses addresses) is another object, whose
        // free must not be reported again for work that used the one before.
        for st in on.iter().chain(&hung_on) {
            if let Some(p) = s.pending.get_mut(st) {
                p.retain(|u| u.key != (kind, h));
            }
        }
        for ((st, _), p) in &mut s.hung_pending {
            if hung_on.contains(st) {
                p.retain(|x| *x != (kind, h));
            }
        }
    }
}

/// A call that releases `h` (of `kind`: memory, or a module or library, whose globals and
/// kernels go with it) was answered with an error (`fault`). In a poisoned process, or once the
/// device is lost, that is still a release the program asked for while the device's work may
/// use what it releases: the program, not the driver's answer, decides what it does next with
/// that memory (reuses it, frees it again, hands it back), so it is checked as a release that
/// succeeded ([`freeing`]). Elsewhere a failed release releases nothing.
pub(crate) fn released_while_failed(kind: Kind, h: usize, stream: Option<usize>, what: &str) {
    if POISONED.load(Relaxed) || LOST.load(Relaxed) {
        match kind {
            Kind::Module | Kind::Library => unloading(h, what),
            _ => freeing(kind, h, stream, what),
        }
    }
}

/// Module or library `h` is unloaded by `what`: work pending on any stream must not run its
/// kernels (a launch pends its function's module or library) nor use its globals.
pub(crate) fn unloading(h: usize, what: &str) {
    let globals: Vec<usize> = with_state(|s| {
        s.objs
            .iter()
            .filter(|((k, _), o)| *k == Kind::Global && o.live && o.parent == h)
            .map(|((_, g), _)| *g)
            .collect()
    })
    .unwrap_or_default();
    for g in globals {
        freeing(Kind::Global, g, None, what);
    }
    for kind in [Kind::Module, Kind::Library] {
        freeing(kind, h, None, what);
    }
}

/// `h` is destroyed or freed by `what`; false if it was not live (the double then must not
/// free it again).
pub(crate) fn destroyed(kind: Kind, h: usize, what: &str) -> bool {
    with_state(|s| {
        if check_use(s, kind, h, what).is_none() {
            return false;
        }
        if let Some(o) = s.objs.get_mut(&(kind, h)) {
            o.live = false;
        }
        if matches!(kind, Kind::Module | Kind::Library | Kind::MipmappedArray) {
            for ((k, _), o) in &mut s.objs {
                if matches!(
                    k,
                    Kind::Function | Kind::Global | Kind::LibraryKernel | Kind::ArrayLevel
                ) && o.parent == h
                {
                    o.live = false;
                }
            }
        }
        // A texture or surface reads its resource until it is destroyed.
        if matches!(
            kind,
            Kind::Array | Kind::MipmappedArray | Kind::DeviceMemory | Kind::Global
        ) {
            let levels: Vec<usize> = s
                .objs
                .iter()
                .filter(|((k, _), o)| *k == Kind::ArrayLevel && o.parent == h)
                .map(|((_, l), _)| *l)
                .collect();
            let readers: Vec<String> = s
                .objs
                .iter()
                .filter(|((k, _), o)| {
                    matches!(k, Kind::TexObject | Kind::SurfObject)
                        && o.live
                        && (o.parent == h || levels.contains(&o.parent))
                })
                .map(|((k, x), _)| format!("{k:?} {x:#x}"))
                .collect();
            // Counted with the orphans, not the violations: it is a texture or surface the
            // program left alive (as a failed destroy does, which the driver keeps), and a
            // clean run must have none.
            for r in readers {
                s.orphans.push(format!(
                    "orphan: {r} still alive when {what} freed {kind:?} {h:#x}, which it reads"
                ));
            }
        }
        true
    })
    .unwrap_or(true)
}

/// Context `h` is destroyed: it must be live, not a green context's, and on no thread's stack;
/// its handles die with it. Returns false for a green context's context, which the driver
/// refuses to destroy (`CUDA_ERROR_INVALID_CONTEXT`).
pub(crate) fn context_destroyed(h: usize) -> bool {
    with_state(|s| {
        match s.objs.get(&(Kind::Context, h)) {
            Some(o) if s.objs.contains_key(&(Kind::GreenContext, o.parent)) => {
                let green = o.parent;
                violation(
                    &format!("cuCtxDestroy: context {h:#x} stands for green context {green:#x} (destroyed by cuGreenCtxDestroy)"),
                );
                return false;
            }
            Some(o) if o.live => {}
            _ => {
                violation(
                    &format!("cuCtxDestroy: context {h:#x} unknown or already destroyed"),
                );
                return true;
            }
        }
        stacked_at_destruction(s, h, &format!("cuCtxDestroy: context {h:#x}"));
        release_context(s, h);
        true
    })
    .unwrap_or(true)
}

/// Context `h` is destroyed (`what` names it): the driver pops a context destroyed on top of
/// the calling thread's stack (Context Management, cuCtxDestroy): that is allowed, and how a
/// program recovers from a failed pop. Anywhere else on a stack it is a violation.
fn stacked_at_destruction(s: &mut State, h: usize, what: &str) {
    let me = thread_id();
    let on: Vec<u64> = s
        .stacks
        .iter()
        .filter(|(t, v)| {
            let on_top_here = **t == me && v.last() == Some(&h);
            v.contains(&h) && !(on_top_here && v.iter().filter(|c| **c == h).count() == 1)
        })
        .map(|(t, _)| *t)
        .collect();
    for t in on {
        violation(&format!("{what} is on the stack of thread {t}"));
    }
}

/// Context `h` ends: its handles die with it (those the program left alive are orphans), and
/// so does peer access to and from it.
fn release_context(s: &mut State, h: usize) {
    let mut orphans = Vec::new();
    let mut left = Vec::new();
    for ((k, x), o) in &mut s.objs {
        if o.ctx == h && o.live && !matches!(k, Kind::Context | Kind::GreenContext) {
            o.live = false;
            if o.left {
                left.push(format!(
                    "left-behind: {k:?} {x:#x}{}, released with context {h:#x} (left on purpose)",
                    o.origin()
                ));
            } else if !matches!(k, Kind::Function | Kind::Global | Kind::ArrayLevel) {
                orphans.push(format!(
                    "orphan: {k:?} {x:#x}{} still alive when context {h:#x} was destroyed",
                    o.origin()
                ));
            }
        }
    }
    s.left.extend(left);
    let peers: Vec<(usize, usize)> = s
        .peers
        .iter()
        .copied()
        .filter(|(from, to)| *from == h || *to == h)
        .collect();
    for (from, to) in peers {
        s.peers.remove(&(from, to));
        orphans.push(format!(
            "orphan: peer access from {from:#x} to {to:#x} still enabled when context {h:#x} was destroyed"
        ));
    }
    s.orphans.extend(orphans);
    if let Some(o) = s.objs.get_mut(&(Kind::Context, h)) {
        o.live = false;
    }
    s.ctx_waits.remove(&h);
}

/// `cuCtxPushCurrent`/`cuCtxSetCurrent` of context `h`: a context the double knows must be
/// live (a green context's, while the green context is).
pub(crate) fn context_made_current(h: usize, what: &str) {
    with_state(|s| {
        if s.objs.get(&(Kind::Context, h)).is_some_and(|o| !o.live) {
            violation(&format!("{what}: context {h:#x} already destroyed"));
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Green contexts (CUDA 12.4) and context-wide events (CUDA 12.5).

/// `cuGreenCtxCreate` made green context `green`, which context `ctx` stands for
/// (`cuCtxFromGreenCtx`). No context need be current.
pub(crate) fn green_created(green: usize, ctx: usize) {
    with_state(|s| {
        let obj = |ctx, parent| Obj {
            ctx,
            parent,
            live: true,
            size: 0,
            born: born(),
            left: false,
        };
        s.objs.insert((Kind::GreenContext, green), obj(ctx, 0));
        s.objs.insert((Kind::Context, ctx), obj(ctx, green));
    });
}

/// Green context `green` is used by `what`: it must be live. Returns its context.
pub(crate) fn green_used(green: usize, what: &str) -> Option<usize> {
    with_state(|s| check_use(s, Kind::GreenContext, green, what)).flatten()
}

/// A stream `h` made in green context `green`'s context (`cuGreenCtxStreamCreate`: the green
/// context need not be current).
pub(crate) fn green_stream_created(h: usize, green: usize) {
    let Some(ctx) = green_used(green, "cuGreenCtxStreamCreate") else {
        return;
    };
    with_state(|s| {
        s.objs.insert(
            (Kind::Stream, h),
            Obj {
                ctx,
                parent: 0,
                live: true,
                size: 0,
                born: born(),
                left: false,
            },
        );
        if let Some(w) = s.ctx_waits.get(&ctx).cloned() {
            s.waits.entry(h).or_default().extend(w);
        }
        if s.hung_contexts.contains(&ctx) {
            s.hung.insert((h, 0));
        }
        // `cuGreenCtxStreamCreate` requires `CU_STREAM_NON_BLOCKING`.
        s.non_blocking.insert(h);
    });
}

/// `cuGreenCtxDestroy(green)`: it must be live, and its context on no thread's stack (a
/// guard that pushed it borrows it) but, as `cuCtxDestroy` allows, the top of the calling
/// thread's, which the double then pops as the driver pops a destroyed context; its handles die
/// with it, as with `cuCtxDestroy`.
pub(crate) fn green_destroyed(green: usize) {
    with_state(|s| {
        let Some(ctx) = check_use(s, Kind::GreenContext, green, "cuGreenCtxDestroy") else {
            return;
        };
        let what = format!("cuGreenCtxDestroy: green context {green:#x} (context {ctx:#x})");
        stacked_at_destruction(s, ctx, &what);
        if let Some(o) = s.objs.get_mut(&(Kind::GreenContext, green)) {
            o.live = false;
        }
        release_context(s, ctx);
    });
}

/// The streams whose work context `ctx` covers: its own, those of its green contexts when it is
/// a primary context (the driver documents that the primary context's events and waits cover
/// them), and the null stream (0) when `ctx` is current. A destroyed stream whose work is not
/// known complete (pending, or hung) is one of them: `cuStreamDestroy` returns at once and the
/// driver releases the stream once its work completes, so the context's synchronize and its
/// recorded events still cover that work (hung: a synchronize waits for ever).
fn streams_of(s: &State, ctx: usize) -> Vec<usize> {
    let primary = s
        .objs
        .get(&(Kind::Context, ctx))
        .is_some_and(|o| o.parent == usize::MAX);
    let green_ctx = |c: usize| {
        s.objs
            .get(&(Kind::Context, c))
            .is_some_and(|o| s.objs.contains_key(&(Kind::GreenContext, o.parent)))
    };
    let mut streams: Vec<usize> = s
        .objs
        .iter()
        .filter(|((k, h), o)| {
            *k == Kind::Stream
                && (o.live || s.is_hung(*h) || s.pending.get(h).is_some_and(|p| !p.is_empty()))
                && (o.ctx == ctx || primary && green_ctx(o.ctx))
        })
        .map(|((_, h), _)| *h)
        .collect();
    if current(s) == ctx {
        streams.push(0);
    }
    streams
}

/// Context `ctx` named by `what` must be a live context.
fn live_context(s: &mut State, ctx: usize, what: &str) -> bool {
    let live = s.objs.get(&(Kind::Context, ctx)).is_some_and(|o| o.live);
    if !live {
        violation(&format!("{what}: context {ctx:#x} unknown or destroyed"));
    }
    live
}

/// `cuCtxRecordEvent(ctx, event)`: the context must be live and the event its own; the event
/// then covers the work pending on every stream of the context. Returns false where the driver
/// refuses (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`: a stream of the context is capturing).
pub(crate) fn context_recorded(ctx: usize, event: usize) -> bool {
    const WHAT: &str = "cuCtxRecordEvent";
    with_state(|s| {
        let live = live_context(s, ctx, WHAT);
        match check_use_in(s, Kind::Event, event, WHAT, true) {
            Some(of) if live && of != ctx => violation(&format!(
                "{WHAT}: event {event:#x} of context {of:#x} recorded for context {ctx:#x}"
            )),
            _ => {}
        }
        let streams = streams_of(s, ctx);
        if streams.iter().any(|&st| s.capture_origin(st).is_some()) {
            return false;
        }
        let mut waits = Vec::new();
        for &st in &streams {
            waits.push(Wait {
                stream: st,
                pending: s.pending.get(&st).map(|p| keys(p)).unwrap_or_default(),
                seq: s.next_seq,
            });
            waits.extend(s.waits.get(&st).cloned().unwrap_or_default());
        }
        let hung = streams.iter().any(|&st| s.is_hung(st));
        // The record's own stream: none (the waits hold every stream's work).
        let wait = Wait {
            stream: usize::MAX,
            pending: Vec::new(),
            seq: 0,
        };
        s.recorded.insert(event, Recorded { wait, waits });
        if hung {
            s.hung_events.insert(event);
        } else {
            s.hung_events.remove(&event);
        }
        true
    })
    .unwrap_or(true)
}

/// `cuCtxWaitEvent(ctx, event)`: the context must be live, the event live (of any context);
/// every stream of the context, present and future, waits for what the event covers. Returns
/// false where the driver refuses (a stream of the context is capturing).
pub(crate) fn context_waits(ctx: usize, event: usize) -> bool {
    const WHAT: &str = "cuCtxWaitEvent";
    with_state(|s| {
        live_context(s, ctx, WHAT);
        check_use_in(s, Kind::Event, event, WHAT, true);
        let streams = streams_of(s, ctx);
        if streams.iter().any(|&st| s.capture_origin(st).is_some()) {
            return false;
        }
        if let Some(r) = s.recorded.get(&event).cloned() {
            let mut covered = r.waits;
            covered.push(r.wait);
            for st in streams {
                s.waits
                    .entry(st)
                    .or_default()
                    .extend(covered.iter().cloned());
            }
            s.ctx_waits.entry(ctx).or_default().extend(covered);
        }
        if s.hung_events.contains(&event) {
            // Every stream of the context, now and later, waits for work that never completes.
            for st in streams_of(s, ctx) {
                let h = if st == 0 { (0, ctx) } else { (st, 0) };
                s.hung.insert(h);
            }
            s.hung.insert((0, ctx));
            s.hung_contexts.insert(ctx);
        }
        true
    })
    .unwrap_or(true)
}

// ---------------------------------------------------------------------------------------------
// Virtual memory management: reserve, create, map, set access, unmap, release, free, in order.

/// `cuMemAddressReserve` reserved `size` bytes at `base`.
pub(crate) fn reserved(base: u64, size: usize) {
    created_sized(Kind::Reservation, base as usize, 0, size as u64);
}

/// `cuMemCreate` made `size` bytes of physical memory, `handle`.
pub(crate) fn physical_created(handle: u64, size: usize) {
    created_sized(Kind::Physical, handle as usize, 0, size as u64);
}

/// `cuMemMap(ptr, size, offset, handle)`: the range must lie in a live reservation and overlap
/// no live mapping; the physical memory must be live and hold `offset + size` bytes. Returns
/// false (after recording the violation) when the double should refuse it.
pub(crate) fn mapping(ptr: u64, size: usize, offset: usize, handle: u64) -> bool {
    with_state(|s| {
        let end = ptr + size as u64;
        let live_in = |k: Kind, s: &State| {
            s.objs
                .iter()
                .find(|((kind, start), o)| {
                    *kind == k && o.live && *start as u64 <= ptr && end <= *start as u64 + o.size
                })
                .map(|((_, start), _)| *start)
        };
        let Some(reservation) = live_in(Kind::Reservation, s) else {
            violation(&format!(
                "cuMemMap: {ptr:#x}..{end:#x} lies in no live reservation"
            ));
            return false;
        };
        if let Some(((_, other), _)) = s.objs.iter().find(|((k, start), o)| {
            *k == Kind::Mapping && o.live && (*start as u64) < end && ptr < *start as u64 + o.size
        }) {
            let other = *other;
            violation(&format!(
                "cuMemMap: {ptr:#x}..{end:#x} overlaps the mapping at {other:#x}"
            ));
            return false;
        }
        if check_use(s, Kind::Physical, handle as usize, "cuMemMap").is_none() {
            return false;
        }
        let have = s.objs[&(Kind::Physical, handle as usize)].size;
        if (offset + size) as u64 > have {
            violation(&format!(
                "cuMemMap: {size} bytes at offset {offset} of a {have}-byte allocation"
            ));
            return false;
        }
        let ctx = current(s);
        s.objs.insert(
            (Kind::Mapping, ptr as usize),
            Obj {
                ctx,
                parent: reservation,
                live: true,
                size: size as u64,
                born: born(),
                left: false,
            },
        );
        // The physical memory stays in use while mapped (`cuMemRelease` defers its release).
        s.accessible.remove(&(ptr as usize));
        true
    })
    .unwrap_or(true)
}

/// The live mappings that `ptr..ptr + size` covers exactly (one after the other), or the
/// violation's text.
fn mappings_covering(s: &State, ptr: u64, size: usize) -> Result<Vec<usize>, String> {
    let mut at = ptr;
    let end = ptr + size as u64;
    let mut found = Vec::new();
    while at < end {
        match s.objs.get(&(Kind::Mapping, at as usize)) {
            Some(o) if o.live => {
                found.push(at as usize);
                at += o.size;
            }
            _ => return Err(format!("{at:#x} is not the start of a live mapping")),
        }
    }
    if at == end {
        Ok(found)
    } else {
        Err(format!("the range ends inside the mapping before {at:#x}"))
    }
}

/// `cuMemSetAccess(ptr, size)`: the range must be mapped; its mappings become accessible.
pub(crate) fn access_set(ptr: u64, size: usize) {
    with_state(|s| match mappings_covering(s, ptr, size) {
        Ok(found) => s.accessible.extend(found),
        Err(e) => violation(&format!("cuMemSetAccess: {ptr:#x} + {size}: {e}")),
    });
}

/// `cuMemUnmap(ptr, size)`: the range must be mapped, and no enqueued work may still use it.
pub(crate) fn unmapping(ptr: u64, size: usize) {
    let found = with_state(|s| match mappings_covering(s, ptr, size) {
        Ok(found) => found,
        Err(e) => {
            violation(&format!("cuMemUnmap: {ptr:#x} + {size}: {e}"));
            Vec::new()
        }
    })
    .unwrap_or_default();
    for m in found {
        freeing(Kind::Mapping, m, None, "cuMemUnmap");
        with_state(|s| {
            if let Some(o) = s.objs.get_mut(&(Kind::Mapping, m)) {
                o.live = false;
            }
            s.accessible.remove(&m);
        });
    }
}

/// `cuMemAddressFree(ptr, size)`: a live reservation of exactly that size, nothing mapped in it.
pub(crate) fn reservation_freed(ptr: u64, size: usize) {
    with_state(|s| {
        let key = (Kind::Reservation, ptr as usize);
        if let Some(o) = s.objs.get(&key)
            && o.live
            && o.size != size as u64
        {
            let have = o.size;
            violation(&format!(
                "cuMemAddressFree: {ptr:#x} freed as {size} bytes, reserved as {have}"
            ));
        }
        let mapped: Vec<usize> = s
            .objs
            .iter()
            .filter(|((k, _), o)| *k == Kind::Mapping && o.live && o.parent == ptr as usize)
            .map(|((_, m), _)| *m)
            .collect();
        for m in mapped {
            violation(&format!(
                "cuMemAddressFree: {ptr:#x} freed while {m:#x} is mapped in it"
            ));
        }
    });
    let _ = destroyed(Kind::Reservation, ptr as usize, "cuMemAddressFree");
}

// ---------------------------------------------------------------------------------------------
// Hangs (`NULLDRIVER_HANG_AT=k`): the first asynchronous enqueue at or after call k never
// completes, nor does what follows it in stream order.

/// An asynchronous operation is enqueued on `stream` by the current call: its number joins
/// the report's `enqueues` (a capture's operations are not enqueued work: its graph's launch
/// is); the first one at or after call `NULLDRIVER_HANG_AT` hangs `stream` from here on. Called
/// first in each enqueuing entry point, before the work is recorded.
pub(crate) fn enqueue(stream: usize) {
    with_state(|s| {
        if s.capture_origin(stream).is_some() {
            return;
        }
        let (n, name) = born();
        if n != 0 {
            s.enqueues.push(n);
        }
        let at = HANG_AT.load(Relaxed);
        let due = s.hang_next || (at != 0 && n >= at);
        if due && s.hang.is_none() {
            s.hang = Some((n, name));
            s.hang_next = false;
            let h = s.hung_key(stream);
            s.hung.insert(h);
            // The schedule's hang is for ever: a library's release no longer ends it.
            s.library_blocked.remove(&stream);
            if at != 0 {
                start_watchdog();
            }
        }
    });
}

/// A library's stand-in holds `stream`'s work back from here on (NCCL's collectives of a group
/// whose ranks have not all taken part, which wait for the missing ones): the stream is hung as
/// a scheduled hang is (a query answers `CUDA_ERROR_NOT_READY`, a synchronize ends the process,
/// its memory may not be freed), until [`library_release`]. Not for the null stream (0), which
/// is one per context: its work stays pending as usual. Does nothing to a stream already hung.
pub(crate) fn library_block(stream: usize) {
    with_state(|s| {
        if stream == 0 || s.is_hung(stream) {
            return;
        }
        s.hung.insert((stream, 0));
        s.library_blocked.insert(stream);
    });
}

/// A library's stand-in releases what it held back on `stream` ([`library_block`]: NCCL's
/// abort ends a communicator's kernels): the work held back is pending as any other (it
/// completes at the next synchronize or successful query), and so are the events recorded after
/// it on that stream. A stream that waited for such an event stays hung (not modelled). Does
/// nothing to a stream no library blocked, nor to one the schedule hung.
pub(crate) fn library_release(stream: usize) {
    with_state(|s| {
        if !s.library_blocked.remove(&stream) {
            return;
        }
        let key = (stream, 0);
        s.hung.remove(&key);
        let held = s.hung_pending.remove(&key).unwrap_or_default();
        // Released now: after every record made while they were held.
        for key in held {
            let seq = s.next_seq;
            s.next_seq += 1;
            s.pending.entry(stream).or_default().push(Use { key, seq });
        }
        let after: Vec<usize> = s
            .hung_events
            .iter()
            .copied()
            .filter(|e| s.recorded.get(e).is_some_and(|r| r.wait.stream == stream))
            .collect();
        for e in after {
            s.hung_events.remove(&e);
        }
    });
}

/// Whether `stream`'s work from some point on never completes (a query answers
/// `CUDA_ERROR_NOT_READY`, a synchronize blocks).
pub(crate) fn stream_hung(stream: usize) -> bool {
    with_state(|s| s.is_hung(stream)).unwrap_or(false)
}

/// Whether `event`'s latest record follows hung work (it never completes).
pub(crate) fn event_hung(event: usize) -> bool {
    with_state(|s| s.hung_events.contains(&event)).unwrap_or(false)
}

/// Whether the current context has hung work: `cuCtxSynchronize` blocks.
pub(crate) fn context_hung() -> bool {
    with_state(|s| {
        if s.hung.is_empty() {
            return false;
        }
        let cur = current(s);
        streams_of(s, cur).into_iter().any(|st| s.is_hung(st))
    })
    .unwrap_or(false)
}

/// Whether a synchronous copy blocks on hung work: it runs on the legacy default stream, which
/// waits for the current context's null stream and its blocking streams (those not created
/// with `CU_STREAM_NON_BLOCKING`).
pub(crate) fn synchronous_copy_hung() -> bool {
    with_state(|s| {
        if s.hung.is_empty() {
            return false;
        }
        let cur = current(s);
        streams_of(s, cur)
            .into_iter()
            .any(|st| !s.non_blocking.contains(&st) && s.is_hung(st))
    })
    .unwrap_or(false)
}

/// Stream `h` was created with `flags` (`CU_STREAM_NON_BLOCKING` is bit 0).
pub(crate) fn stream_flags(h: usize, flags: u32) {
    if flags & 1 != 0 {
        with_state(|s| {
            s.non_blocking.insert(h);
        });
    }
}

/// `what` (a blocking wait's entry point, or the watchdog's finding) waits for hung work: in a
/// real process it never returns. The report's `hung` line says so.
pub(crate) fn blocked(what: String) {
    let mut b = BLOCKED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if b.is_none() {
        *b = Some(what);
    }
}

/// The program made progress (a driver call other than a query that found hung work).
pub(crate) fn progress() {
    if let Some(clock) = HANG_CLOCK.get() {
        let ms = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
        PROGRESS_MS.fetch_max(ms, Relaxed);
        PROGRESS_CALL.store(born().0, Relaxed);
    }
}

/// The hang began: a watchdog thread ends the process as a blocking wait would, once the
/// program makes no progress for `NULLDRIVER_HANG_IDLE_SECS`: it then waits for the hung work
/// with no deadline where the double cannot see it (polling a query, parked on a future whose
/// host function never runs, joining a thread that is).
fn start_watchdog() {
    if HANG_CLOCK.set(std::time::Instant::now()).is_err() {
        return;
    }
    progress();
    let _ = std::thread::Builder::new()
        .name("checkdriver-hang-watchdog".to_owned())
        .spawn(|| {
            let limit = HANG_IDLE_SECS.load(Relaxed).saturating_mul(1000);
            loop {
                std::thread::sleep(std::time::Duration::from_millis(50));
                let Some(clock) = HANG_CLOCK.get() else {
                    return;
                };
                let now = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
                if now.saturating_sub(PROGRESS_MS.load(Relaxed)) >= limit {
                    let secs = limit / 1000;
                    let call = PROGRESS_CALL.load(Relaxed);
                    crate::load::hang_exit(format!(
                        "idle: no progress for {secs} s after call {call} (a wait with no deadline the driver does not see, or queries of hung work)"
                    ));
                }
            }
        });
}

/// Tests only: the next asynchronous enqueue hangs (the tests' calls are not counted).
#[cfg(test)]
pub(crate) fn hang_next() {
    with_state(|s| {
        s.hang = None;
        s.hang_next = true;
    });
}

/// An orphan the caller found: a handle left behind by what the program freed.
pub(crate) fn report_orphan(text: &str) {
    with_state(|s| s.orphans.push(format!("orphan: {text}")));
}

/// A pop found the stack empty.
pub(crate) fn pop_empty() {
    violation("cuCtxPopCurrent: the stack is empty");
}

/// Writes the report.
#[allow(
    clippy::too_many_lines,
    reason = "the report's lines in the order it documents them, read top to bottom"
)]
pub(crate) fn report() -> String {
    use core::fmt::Write;
    let failed = FAILED.lock().map_or(None, |f| *f).unwrap_or("-");
    let mut out = String::new();
    let _ = writeln!(out, "calls {}", CALLS.load(Relaxed));
    let _ = writeln!(out, "failed {failed}");
    forked_lines(&mut out);
    with_state(|s| {
        let live_ctx = |c: usize| s.objs.get(&(Kind::Context, c)).is_some_and(|o| o.live);
        // A context left behind on purpose leaves its handles behind with it.
        // (A green context's `CUcontext` goes with its green context.)
        let left_ctx = |c: usize| {
            s.objs.get(&(Kind::Context, c)).is_some_and(|o| {
                o.left
                    || s.objs
                        .get(&(Kind::GreenContext, o.parent))
                        .is_some_and(|g| g.left)
            })
        };
        // And a library left behind leaves its kernels (of no context) with it, and a module or
        // library left behind its functions and globals (which a real driver keeps with it:
        // they are not handles of their own to release).
        let left_library = |l: usize| s.objs.get(&(Kind::Library, l)).is_some_and(|o| o.left);
        let left_module = |m: usize| {
            [Kind::Module, Kind::Library]
                .iter()
                .any(|&kind| s.objs.get(&(kind, m)).is_some_and(|o| o.left))
        };
        let mut leaks = Vec::new();
        let mut left = s.left.clone();
        for ((k, h), o) in &s.objs {
            // A primary context (parent `usize::MAX`) is never a leak, and a green context's
            // context is reported as its green context.
            let leaked = if *k == Kind::Context {
                o.live && o.parent == 0
            } else {
                o.live && (k.context_free() || live_ctx(o.ctx))
            };
            let left_with = (*k != Kind::Context && left_ctx(o.ctx))
                || (*k == Kind::LibraryKernel && left_library(o.parent))
                || (matches!(k, Kind::Function | Kind::Global) && left_module(o.parent));
            if leaked && (o.left || left_with) {
                left.push(format!(
                    "left-behind: {k:?} {h:#x}{} of context {:#x}, alive at exit (left on purpose)",
                    o.origin(),
                    o.ctx
                ));
            } else if leaked {
                leaks.push(format!(
                    "leak: {k:?} {h:#x}{} of context {:#x}",
                    o.origin(),
                    o.ctx
                ));
            }
        }
        for (from, to) in &s.peers {
            if s.peers_left.contains(&(*from, *to)) {
                left.push(format!(
                    "left-behind: peer access from {from:#x} to {to:#x}, enabled at exit (left on purpose)"
                ));
                continue;
            }
            leaks.push(format!(
                "leak: peer access from {from:#x} to {to:#x} still enabled"
            ));
        }
        leaks.sort();
        let stacks = s.stacks.values().filter(|v| !v.is_empty()).count() + s.exited_nonempty;
        let violations = crate::mode::violations();
        let _ = writeln!(out, "violations {}", violations.len());
        let _ = writeln!(out, "leaks {}", leaks.len());
        let _ = writeln!(out, "stacks {stacks}");
        let _ = writeln!(out, "orphans {}", s.orphans.len());
        let _ = writeln!(out, "left {}", left.len());
        for v in violations.iter() {
            let _ = writeln!(out, "violation: {v}");
        }
        for l in &s.orphans {
            let _ = writeln!(out, "{l}");
        }
        for l in &leaks {
            let _ = writeln!(out, "{l}");
        }
        left.sort();
        for l in &left {
            let _ = writeln!(out, "{l}");
        }
        // Hangs: the enqueues' call numbers (a clean run's tell a runner where to hang), the
        // enqueue that hung, and the wait that blocked on it.
        let _ = write!(out, "enqueues");
        for n in &s.enqueues {
            let _ = write!(out, " {n}");
        }
        out.push('\n');
        if HANG_AT.load(Relaxed) != 0 {
            match s.hang {
                Some((n, name)) => {
                    let _ = writeln!(out, "hang-at {n} {name}");
                }
                None => out.push_str("hang-at -\n"),
            }
        }
    });
    if let Some(what) = &*BLOCKED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        let _ = writeln!(out, "hung {what}");
    }
    out.push_str(&crate::standin::report_lines());
    out.push_str(&crate::inject::report_lines());
    out
}

/// Turns the checking mode on (as `NULLDRIVER_CHECK=1` does at load), for a program that links
/// the double as an rlib and calls it from Rust: under Miri, which has no loader.
pub(crate) fn start(fail_at: u64, sticky_at: u64, hang_at: u64) {
    CHECK.store(true, Relaxed);
    FAULTS.store(true, Relaxed);
    FAIL_AT.store(fail_at, Relaxed);
    STICKY_AT.store(sticky_at, Relaxed);
    HANG_AT.store(hang_at, Relaxed);
}

/// The device is lost from call `k` on (`NULLDRIVER_LOST_AT`; 0: not lost, and forgets that it
/// was), for the double's own tests.
#[cfg(test)]
pub(crate) fn lose_at(k: u64) {
    LOST_AT.store(k, Relaxed);
    LOST.store(false, Relaxed);
    if k != 0 {
        FAULTS.store(true, Relaxed);
    }
}

/// Tests only: the first call a schedule failed (the report's `failed`).
#[cfg(test)]
pub(crate) fn failed() -> Option<&'static str> {
    *FAILED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Tests only: no fault schedule any more (a sticky or lost one included), and the process no
/// longer poisoned nor its device lost, so that the next test starts as a fresh process would.
#[cfg(test)]
pub(crate) fn faults_off() {
    FAULTS.store(false, Relaxed);
    FAIL_AT.store(0, Relaxed);
    TOLD_AT.store(0, Relaxed);
    TOLD_STICKY_AT.store(0, Relaxed);
    TOLD_STICKY_CODE.store(700, Relaxed);
    TOLD_CALL_ON.store(false, Relaxed);
    *TOLD_CALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    *FAILED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    STICKY_AT.store(0, Relaxed);
    REPEAT_AT.store(0, Relaxed);
    LOST_AT.store(0, Relaxed);
    LOST.store(false, Relaxed);
    STICKY_CODE.store(700, Relaxed);
    POISONED.store(false, Relaxed);
}

/// The number of orphans so far.
#[cfg(test)]
pub(crate) fn orphan_count() -> usize {
    with_state(|s| s.orphans.len()).unwrap_or(0)
}

/// The program leaves its current context's access to `peer` enabled on purpose
/// (`custackCheckdriverLeftBehind`, kind `PeerAccess`): at exit it is reported as left behind,
/// not as a leak. Returns whether that access is enabled; otherwise a violation.
pub(crate) fn peer_left_behind(peer: usize) -> bool {
    with_state(|s| {
        let cur = current(s);
        let found = s.peers.contains(&(cur, peer));
        if found {
            s.peers_left.insert((cur, peer));
        } else {
            violation(&format!(
                "custackCheckdriverLeftBehind: no peer access from {cur:#x} to {peer:#x}"
            ));
        }
        found
    })
    .unwrap_or(true)
}

/// The program leaves handle `h` of `kind` (with `bytes`: every one starting in `h..h + bytes`)
/// behind on purpose (`custackCheckdriverLeftBehind`):
/// released with its context, or alive at exit, it is reported as left behind, not as an orphan
/// or a leak. Returns whether a live handle of that kind was found; an unknown one is a
/// violation (the program named something it does not hold).
pub(crate) fn left_behind(kind: Kind, h: usize, bytes: usize) -> bool {
    with_state(|s| {
        let end = h.saturating_add(bytes.max(1));
        let mut found = false;
        for ((k, x), o) in &mut s.objs {
            if *k == kind && (h..end).contains(x) && o.live {
                o.left = true;
                found = true;
            }
        }
        if !found {
            violation(&format!(
                "custackCheckdriverLeftBehind: no live {kind:?} at {h:#x} (+{bytes})"
            ));
        }
        found
    })
    .unwrap_or(true)
}

/// The driver calls counted so far (`calls` in the report).
pub(crate) fn calls() -> u64 {
    CALLS.load(Relaxed)
}

// ---------------------------------------------------------------------------------------------
// The differential run (`docs/validation.md`): a program that makes the real driver fail a call
// tells the double to fail the same call (`custackCheckdriverFailNext`, `trace.rs`).

/// The code of a sticky schedule's failures: `CUDA_ERROR_ILLEGAL_ADDRESS`.
static STICKY_CODE: AtomicU64 = AtomicU64::new(700);

/// The next counted call fails with `code`; with `sticky`, every counted call from it on does
/// (but the calls a sticky schedule spares). The program's own choice, beside any schedule's
/// failures (which it neither moves nor hides: a schedule's failure comes first where both
/// would), and not the report's `failed`. Turns fault injection on (counting starts now).
pub(crate) fn fail_next(code: u64, sticky: bool) {
    FAULTS.store(true, Relaxed);
    let next = CALLS.load(Relaxed) + 1;
    if sticky {
        TOLD_STICKY_CODE.store(code, Relaxed);
        TOLD_STICKY_AT.store(next, Relaxed);
    } else {
        TOLD_CODE.store(code, Relaxed);
        TOLD_AT.store(next, Relaxed);
    }
}

/// The next counted call of the entry point `name` (a name's start: `cuMemFree` names
/// `cuMemFree_v2`), on any thread, fails as [`fail_next`] fails the next call: with `code`, and
/// with `sticky` every counted call from it on. For an error path a program cannot reach with
/// [`fail_next`] (a call made after others inside one custack call). Turns fault injection on.
pub(crate) fn fail_call(name: &str, code: u64, sticky: bool) {
    FAULTS.store(true, Relaxed);
    *TOLD_CALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((name.to_owned(), code, sticky));
    TOLD_CALL_ON.store(true, Relaxed);
}
