//! custack's checking driver: a CUDA driver library, `libcuda.so` (soname `libcuda.so.1`), that
//! needs no GPU. It serves two purposes:
//!
//! - **Testing programs without a GPU** (the checking mode, `NULLDRIVER_CHECK=1`, `check.rs`):
//!   it records every context, stream, allocation and pending operation, fails driver call k
//!   (`NULLDRIVER_FAIL_AT=k`) or every call from k on (`NULLDRIVER_STICKY_AT=k`: a sticky error;
//!   `NULLDRIVER_REPEAT_AT=k`: the same error that is not sticky, for ever), makes the
//!   first asynchronous enqueue at or after call k never complete (`NULLDRIVER_HANG_AT=k`: a
//!   blocking wait on it ends the process with status [`HUNG_EXIT`] and a `hung` line in the
//!   report), corrupts one replica of a redundant kernel (`NULLDRIVER_INJECT=SEED`, `inject.rs`:
//!   bits flipped in what a launch on a second partition's stream wrote, or the launch dropped),
//!   and reports wrong-context calls, double frees, leaks and memory freed under pending work. The runner `custack-check` (`src/bin/custack-check`) runs a program, or a
//!   test binary, under every such schedule (`--hangs`: one hang per enqueue of the clean run):
//!
//!   ```text
//!   cargo run --release --manifest-path <custack>/checkdriver/Cargo.toml --bin custack-check -- --cargo [-- test filter]
//!   cargo run --release --manifest-path <custack>/checkdriver/Cargo.toml --bin custack-check -- <test binary> [test filter]
//!   cargo run --release --manifest-path <custack>/checkdriver/Cargo.toml --bin custack-check -- --hangs <test binary> [test filter]
//!   ```
//!
//!   `custack-check --lib-dir` prints the directory holding this library as `libcuda.so` and
//!   `libcuda.so.1`. A program built against custack loads it at run time when that directory
//!   leads `LD_LIBRARY_PATH` (custack's build emits no rpath); on a machine with no libcuda at
//!   all, build with `CUDA_DRIVER_LIB_DIR` set to it, so that custack links it. The guide page
//!   "Testing GPU code without a GPU" (`custack::guide::testing`) shows the whole workflow.
//! - **Measuring what a wrapper costs by itself** (the default mode): every entry point returns
//!   at once.
//!
//! Every entry point that custack's raw layer declares, and every one that the benchmark's cudarc
//! calls, returns `CUDA_SUCCESS` at once. Out-parameters get plausible values: non-null handles, a
//! device count of 1, driver version 12020 (or the version `NULLDRIVER_DRIVER_VERSION` or
//! `custackCheckdriverSetDriverVersion` sets), compute capability 9.0, 132 SMs and memory pools
//! supported (as an H100 reports), real page-locked host memory from `posix_memalign` (wrappers write to it).
//! The per-thread context stack is kept for real, because wrappers check what they pop.
//!
//! Calls are counted per entry point while counting is on (relaxed atomics; off by default, so
//! timing runs pay one load and a branch per call):
//! - `nulldriver_set_counting(1)` turns it on, `nulldriver_counts(buf, cap)` copies the counters,
//!   `nulldriver_entry_count()` and `nulldriver_entry_name(i)` name them (the benchmark finds
//!   these with `dlsym`, which is also how it tells the null driver from a real one);
//! - with `NULLDRIVER_DUMP=1` in the environment, counting starts at load and the non-zero
//!   counters are printed to stderr at exit.
//!
//! `cuGetProcAddress` and `cuGetProcAddress_v2` resolve names from the same table (trying the
//! `_v2` symbol first, as the real driver does for the API versions the benchmark asks for;
//! `cuCtxCreate` at 12.5 is `_v4`); an entry point newer than 12.2 is found only from its
//! version on (`NEWER`).
//! cudarc 0.19 itself resolves each entry point with `dlsym` on first use and never asks for it.
//!
//! [`cubin`] builds a minimal cubin (an ELF image whose symbol table names its kernels, and
//! references undefined symbols) for tests that load binary images without nvcc; in the
//! checking mode, `cuModuleGetFunction` on a module loaded from a cubin answers from its
//! symbol table ([`function_names`]). [`stand_in_cubin`] builds one that also carries its
//! kernels' PTX declarations ([`DECLARATIONS_SECTION`]), for a program that loads cubins only
//! and gives its kernels CPU stand-ins: the checking mode then reads their parameters from it.
//!
//! For the differential run against the real libcuda (`docs/validation.md`), `NULLDRIVER_TRACE=path`
//! writes a line per driver call (`trace.rs`), `NULLDRIVER_DRIVER_VERSION_MAX` caps the version a
//! program may ask for, and `custackCheckdriverFailNext` fails the next call as a real driver will.
//!
//! Built by `scripts/bench-nulldriver.sh`, `scripts/check-driver.sh` and `cargo run --bin
//! custack-check`; not part of custack's package.

// A test double for a C library: the exported names are the C names, every function is an
// `unsafe extern "C"` entry point whose contract is the CUDA documentation's, and the bodies
// only write through the out-pointers the caller passed.
#![allow(non_snake_case, unsafe_op_in_unsafe_fn, clippy::missing_safety_doc)]

mod check;
mod cubin;
mod data;
mod inject;
mod mode;
mod ptx;
mod standin;
mod trace;
mod user_object;
mod work;

pub use cubin::{
    DECLARATIONS_SECTION, EM_CUDA, cubin, declarations, function_names, stand_in_cubin,
};
pub use standin::{DropFn, StandInFn, StandInLaunch, custackCheckdriverSetStandIn};
pub use trace::custackCheckdriverFailNext;

use check::Kind;
use core::cell::RefCell;
use core::ffi::{CStr, c_char, c_int, c_uchar, c_uint, c_ulonglong, c_ushort, c_void};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering::Relaxed};

type CUresult = c_int;
type CUdevice = c_int;
type CUdeviceptr = c_ulonglong;
type Handle = *mut c_void;

const CUDA_SUCCESS: CUresult = 0;
const CUDA_ERROR_INVALID_VALUE: CUresult = 1;
const CUDA_ERROR_OUT_OF_MEMORY: CUresult = 2;
const CUDA_ERROR_INVALID_DEVICE: CUresult = 101;
const CUDA_ERROR_INVALID_CONTEXT: CUresult = 201;
const CUDA_ERROR_ILLEGAL_STATE: CUresult = 401;
const CUDA_ERROR_NO_BINARY_FOR_GPU: CUresult = 209;
const CUDA_ERROR_OPERATING_SYSTEM: CUresult = 304;
const CUDA_ERROR_NOT_FOUND: CUresult = 500;
const CUDA_ERROR_NOT_READY: CUresult = 600;
const CUDA_ERROR_NOT_SUPPORTED: CUresult = 801;
const CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: CUresult = 900;
const CUDA_ERROR_STREAM_CAPTURE_UNJOINED: CUresult = 904;
const CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: CUresult = 704;
const CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: CUresult = 705;

const DRIVER_VERSION: c_int = 12020;

/// The exit status of a process that blocked on hung work (`NULLDRIVER_HANG_AT`): a blocking
/// wait that could never return in a real process ends it with this status, after the report
/// (with its `hung` line) is written. Not 0, 1, 101 (a test harness's failure), 2 (the
/// runner's own), nor 128 + a signal.
pub const HUNG_EXIT: c_int = 86;

/// The driver version `cuDriverGetVersion` reports: 12.2 (custack's linked baseline) unless
/// `NULLDRIVER_DRIVER_VERSION` or `custackCheckdriverSetDriverVersion` says otherwise. The
/// entry points of `NEWER` are found through `cuGetProcAddress` only from their version on.
static REPORTED_VERSION: AtomicI32 = AtomicI32::new(DRIVER_VERSION);

/// The entry points newer than the 12.2 baseline, with the CUDA version that introduced each:
/// `cuGetProcAddress` finds one only when the reported driver version and the version asked
/// for are both at least that (as a real driver answers `CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND`
/// or `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`).
const NEWER: &[(&[u8], c_int)] = &[
    (b"cuGraphConditionalHandleCreate", 12030),
    (b"cuStreamBeginCaptureToGraph", 12030),
    (b"cuFuncGetName", 12030),
    (b"cuFuncLoad", 12040),
    (b"cuFuncGetParamInfo", 12040),
    (b"cuModuleGetFunctionCount", 12040),
    (b"cuModuleEnumerateFunctions", 12040),
    (b"cuDeviceGetDevResource", 12040),
    (b"cuDevSmResourceSplitByCount", 12040),
    (b"cuDevResourceGenerateDesc", 12040),
    (b"cuGreenCtxCreate", 12040),
    (b"cuGreenCtxDestroy", 12040),
    (b"cuCtxFromGreenCtx", 12040),
    (b"cuGreenCtxStreamCreate", 12050),
    (b"cuCtxCreate_v4", 12050),
    (b"cuCtxRecordEvent", 12050),
    (b"cuCtxWaitEvent", 12050),
    (b"cuLogsRegisterCallback", 12090),
    (b"cuFuncGetParamCount", 13020),
];

/// The SMs of the one device (an H100 SXM), and the granularity of a green context's
/// partition (compute capability 9.0: multiples of 8 SMs).
const SM_COUNT: c_uint = 132;
const SM_GRANULARITY: c_uint = 8;
const CU_DEV_RESOURCE_TYPE_SM: c_int = 1;
const CU_GREEN_CTX_DEFAULT_STREAM: c_uint = 1;
const CU_STREAM_NON_BLOCKING: c_uint = 1;

/// `CUdevResource`, 144 bytes in the CUDA 12.4 and 13.0 layouts: the type, then the SM counts
/// at offset 96 (`smCount`, and in 13.0 `minSmPartitionSize`, `smCoscheduledAlignment`,
/// `flags`). Written and read through the caller's pointer only.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DevResource {
    kind: c_int,
    _internal: [u8; 92],
    sm: [c_uint; 4],
    _rest: [u8; 32],
}
const _: () = assert!(size_of::<DevResource>() == 144);

impl DevResource {
    const fn sms(count: c_uint) -> Self {
        Self {
            kind: CU_DEV_RESOURCE_TYPE_SM,
            _internal: [0; 92],
            sm: [count, SM_GRANULARITY, SM_GRANULARITY, 0],
            _rest: [0; 32],
        }
    }
}

/// The `CUcontext` that stands for green context `green` (`cuCtxFromGreenCtx`): a handle of its
/// own, half-way to the next one (handles are 0x40 apart), so known without a record.
fn context_of_green(green: Handle) -> Handle {
    core::ptr::without_provenance_mut(green.addr() + 0x20)
}

/// The next conditional handle `cuGraphConditionalHandleCreate` makes.
static NEXT_CONDITIONAL: AtomicU64 = AtomicU64::new(1);

/// The body-graph arrays of the conditional nodes made (`cuGraphAddNode`'s `phGraph_out`):
/// kept for the process, as the driver keeps each while its node lives.
static BODY_ARRAYS: std::sync::Mutex<Vec<BodyArray>> = std::sync::Mutex::new(Vec::new());

/// One conditional node's body graphs (handles: addresses without provenance, never
/// dereferenced).
struct BodyArray(Box<[Handle]>);
// SAFETY: the handles are numbers the double made; nothing is reached through them.
unsafe impl Send for BodyArray {}

/// The names `cuFuncGetName` returns, one per function handle (checking mode only): interned,
/// NUL-terminated and never freed, as the driver keeps a name while its module is loaded.
static FUNCTION_NAMES: std::sync::Mutex<Vec<(usize, &'static CStr)>> =
    std::sync::Mutex::new(Vec::new());

/// Function `f` is named `name` (for `cuFuncGetName`).
fn function_named(f: Handle, name: &str) {
    if !checking() {
        return;
    }
    let mut names = FUNCTION_NAMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let interned = names
        .iter()
        .map(|(_, n)| *n)
        .find(|n| n.to_bytes() == name.as_bytes());
    let interned = match interned {
        Some(n) => n,
        None => match std::ffi::CString::new(name) {
            Ok(c) => Box::leak(c.into_boxed_c_str()),
            Err(_) => return,
        },
    };
    names.push((f.addr(), interned));
}

/// A new function of `module` named `name` (with its parameters, where the module's PTX gives
/// them): `cuModuleGetFunction`, `cuModuleEnumerateFunctions`.
unsafe fn module_function(module: Handle, name: &str, params: Option<check::Params>) -> Handle {
    let h = handle();
    check::created(Kind::Function, h as usize, module as usize);
    standin::named(h as usize, name);
    function_named(h, name);
    if let Some(p) = params {
        check::function_params(h as usize, p);
    }
    h
}

static COUNTING: AtomicBool = AtomicBool::new(false);

/// Fake handles: distinct, non-null, never dereferenced by a wrapper. They are pointers without
/// provenance (`ptr::without_provenance_mut`), not integers cast to pointers, so that Miri's
/// `-Zmiri-strict-provenance` accepts them: a program may hold, copy and compare them, and any
/// dereference is reported as the error it would be.
static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(1);
/// Fake device addresses, 2 MiB apart at least (wrappers compare ranges, never dereference).
static NEXT_DEVICE_ADDRESS: AtomicU64 = AtomicU64::new(0x7f00_0000_0000);
/// The primary context of the one device: a fixed address.
static PRIMARY: u8 = 0;

fn handle() -> Handle {
    core::ptr::without_provenance_mut(0x1000_0000 + NEXT_HANDLE.fetch_add(1, Relaxed) * 0x40)
}

fn device_address(bytes: usize) -> CUdeviceptr {
    let step = (bytes as u64).div_ceil(1 << 21).max(1) << 21;
    NEXT_DEVICE_ADDRESS.fetch_add(step, Relaxed)
}

fn primary() -> Handle {
    (&raw const PRIMARY).cast_mut().cast()
}

unsafe fn out<T>(p: *mut T, v: T) {
    if !p.is_null() {
        p.write(v);
    }
}

/// Copies `text` (NUL-terminated, truncated to `len`) into a caller's buffer.
unsafe fn out_str(buf: *mut c_char, len: c_int, text: &CStr) {
    let Ok(len) = usize::try_from(len) else {
        return;
    };
    if buf.is_null() || len == 0 {
        return;
    }
    let bytes = text.to_bytes();
    let n = bytes.len().min(len - 1);
    core::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), buf, n);
    buf.add(n).write(0);
}

// ---------------------------------------------------------------------------------------------
// The calling thread's context stack, kept as the driver keeps it.

const STACK_DEPTH: usize = 64;

struct CtxStack {
    // Handles, not addresses: a popped context comes back with the provenance it was pushed
    // with (the primary context is a real pointer to a static).
    items: [Handle; STACK_DEPTH],
    len: usize,
}

thread_local! {
    static STACK: RefCell<CtxStack> = const {
        RefCell::new(CtxStack { items: [null_mut(); STACK_DEPTH], len: 0 })
    };
}

fn with_stack<R>(f: impl FnOnce(&mut CtxStack) -> R) -> R {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        let r = f(&mut s);
        if mode::CHECK.load(Relaxed) {
            let addrs: Vec<usize> = s.items[..s.len].iter().map(|h| h.addr()).collect();
            check::stack_changed(&addrs);
        }
        r
    })
}

impl CtxStack {
    fn push(&mut self, ctx: Handle) -> CUresult {
        if self.len == STACK_DEPTH {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        self.items[self.len] = ctx;
        self.len += 1;
        CUDA_SUCCESS
    }
    fn pop(&mut self) -> Option<Handle> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.items[self.len])
    }
    fn top(&self) -> Handle {
        if self.len == 0 {
            null_mut()
        } else {
            self.items[self.len - 1]
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Entry points. Each is counted (when counting is on), then runs its body.

/// The entry points, each `fn name(args) { body }`; a call that releases something names it
/// after its arguments, `fn name(args) releases(kind, handle[, stream]) { body }`, so that a
/// release the fault injection answers with an error is still checked in a poisoned process
/// (`check::released_while_failed`).
macro_rules! entry_points {
    ($( fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(releases($kind:expr, $h:expr $(, $st:expr)?))? $body:block )*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, clippy::enum_variant_names)]
        #[derive(Clone, Copy)]
        enum Id { $($name,)* }

        /// NUL-terminated entry point names, in `Id` order.
        const NAMES: &[&str] = &[$(concat!(stringify!($name), "\0")),*];
        const ENTRY_COUNT: usize = NAMES.len();
        static COUNTS: [AtomicU64; ENTRY_COUNT] = [const { AtomicU64::new(0) }; ENTRY_COUNT];

        $(
            #[unsafe(no_mangle)]
            #[allow(unused_variables)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> CUresult {
                count(Id::$name);
                // The body's `return`s end the closure, so that the trace (`trace.rs`) records
                // every result, a failure injected here included.
                let r = (move || -> CUresult {
                    if let Some(e) = check::fault(stringify!($name)) {
                        $(check::released_while_failed($kind, $h, None $(.or(Some($st)))?, stringify!($name));)?
                        return e;
                    }
                    $body
                })();
                trace::record(stringify!($name), r);
                r
            }
        )*

        /// The entry point named `name` (without NUL), as `cuGetProcAddress` returns it.
        fn lookup(name: &[u8]) -> *mut c_void {
            $( if name == stringify!($name).as_bytes() { return $name as *mut c_void; } )*
            null_mut()
        }
    };
}

#[inline(always)]
fn count(id: Id) {
    if COUNTING.load(Relaxed) {
        COUNTS[id as usize].fetch_add(1, Relaxed);
    }
}

entry_points! {
    // --- Initialization, version, errors ---
    fn cuInit(flags: c_uint) { CUDA_SUCCESS }
    fn cuDriverGetVersion(v: *mut c_int) { out(v, REPORTED_VERSION.load(Relaxed)); CUDA_SUCCESS }
    fn cuGetErrorName(code: CUresult, s: *mut *const c_char) { error_text(code, s, true) }
    fn cuGetErrorString(code: CUresult, s: *mut *const c_char) { error_text(code, s, false) }
    fn cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, version: c_int, flags: u64) {
        trace::proc_address(symbol, version, null_mut(), |s| get_proc_address(symbol, pfn, version, s))
    }
    fn cuGetProcAddress_v2(
        symbol: *const c_char,
        pfn: *mut *mut c_void,
        version: c_int,
        flags: u64,
        status: *mut c_int,
    ) {
        trace::proc_address(symbol, version, status, |s| get_proc_address(symbol, pfn, version, s))
    }

    // --- Devices ---
    fn cuDeviceGet(dev: *mut CUdevice, ordinal: c_int) {
        if ordinal != 0 { return CUDA_ERROR_INVALID_VALUE; }
        out(dev, 0);
        CUDA_SUCCESS
    }
    fn cuDeviceGetCount(n: *mut c_int) { out(n, 1); CUDA_SUCCESS }
    fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) {
        out_str(name, len, c"custack null driver");
        CUDA_SUCCESS
    }
    fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: CUdevice) { out(uuid, [0x5a; 16]); CUDA_SUCCESS }
    fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: CUdevice) { out(uuid, [0x5a; 16]); CUDA_SUCCESS }
    fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) { out(bytes, 80 << 30); CUDA_SUCCESS }
    fn cuDeviceGetAttribute(value: *mut c_int, attribute: c_int, dev: CUdevice) {
        out(value, match attribute {
            1 => 1024,  // MAX_THREADS_PER_BLOCK
            16 => 132,  // MULTIPROCESSOR_COUNT
            75 => 9,    // COMPUTE_CAPABILITY_MAJOR
            76 => 0,    // COMPUTE_CAPABILITY_MINOR
            115 => 1,   // MEMORY_POOLS_SUPPORTED
            _ => 1,
        });
        CUDA_SUCCESS
    }
    fn cuDeviceGetPCIBusId(bus: *mut c_char, len: c_int, dev: CUdevice) {
        out_str(bus, len, c"0000:00:00.0");
        CUDA_SUCCESS
    }
    fn cuDeviceGetDefaultMemPool(pool: *mut Handle, dev: CUdevice) { out(pool, handle()); CUDA_SUCCESS }
    // The graph-memory pool: empty (no graph allocation node is modelled), its two high
    // watermarks reset by setting 0 and nothing else set, as the driver documents.
    fn cuDeviceGetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut u64) {
        if !(0..=3).contains(&attr) { return CUDA_ERROR_INVALID_VALUE; }
        out(value, 0u64);
        CUDA_SUCCESS
    }
    fn cuDeviceSetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut u64) {
        // SAFETY: the caller passes a `cuuint64_t` to read.
        let zero = !value.is_null() && unsafe { value.read() } == 0;
        if (attr == 1 || attr == 3) && zero { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuDeviceGraphMemTrim(dev: CUdevice) { CUDA_SUCCESS }
    fn cuDeviceGetMemPool(pool: *mut Handle, dev: CUdevice) { out(pool, handle()); CUDA_SUCCESS }

    // --- Primary contexts ---
    fn cuDevicePrimaryCtxRetain(ctx: *mut Handle, dev: CUdevice) {
        check::primary(primary() as usize);
        out(ctx, primary());
        CUDA_SUCCESS
    }
    fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) { CUDA_SUCCESS }
    fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) { CUDA_SUCCESS }
    fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) {
        out(flags, 0);
        out(active, 1);
        CUDA_SUCCESS
    }
    fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) { CUDA_SUCCESS }

    // --- Contexts ---
    fn cuCtxCreate_v2(ctx: *mut Handle, flags: c_uint, dev: CUdevice) { create_context(ctx) }
    fn cuCtxCreate_v3(ctx: *mut Handle, params: *mut c_void, n: c_int, flags: c_uint, dev: CUdevice) {
        create_context(ctx)
    }
    fn cuCtxCreate_v4(ctx: *mut Handle, params: *mut c_void, flags: c_uint, dev: CUdevice) {
        create_context(ctx)
    }
    fn cuCtxDestroy_v2(ctx: Handle) {
        if !check::context_destroyed(ctx as usize) {
            return CUDA_ERROR_INVALID_CONTEXT;
        }
        with_stack(|s| if s.top() == ctx { s.pop(); });
        CUDA_SUCCESS
    }
    fn cuCtxPushCurrent_v2(ctx: Handle) {
        if ctx.is_null() { return CUDA_ERROR_INVALID_CONTEXT; }
        check::context_made_current(ctx as usize, "cuCtxPushCurrent");
        with_stack(|s| s.push(ctx))
    }
    fn cuCtxPopCurrent_v2(ctx: *mut Handle) {
        match with_stack(CtxStack::pop) {
            Some(popped) => { out(ctx, popped); CUDA_SUCCESS }
            None => { check::pop_empty(); CUDA_ERROR_INVALID_CONTEXT }
        }
    }
    fn cuCtxGetCurrent(ctx: *mut Handle) { out(ctx, with_stack(|s| s.top())); CUDA_SUCCESS }
    fn cuCtxSetCurrent(ctx: Handle) {
        if !ctx.is_null() {
            check::context_made_current(ctx as usize, "cuCtxSetCurrent");
        }
        with_stack(|s| {
            if ctx.is_null() {
                s.pop();
                CUDA_SUCCESS
            } else if s.len == 0 {
                s.push(ctx)
            } else {
                s.items[s.len - 1] = ctx;
                CUDA_SUCCESS
            }
        })
    }
    fn cuCtxGetDevice(dev: *mut CUdevice) { out(dev, 0); CUDA_SUCCESS }
    fn cuCtxSynchronize() {
        if check::context_hung() {
            hang_exit("cuCtxSynchronize".to_owned());
        }
        check::context_synchronized();
        CUDA_SUCCESS
    }
    fn cuCtxGetApiVersion(ctx: Handle, v: *mut c_uint) {
        out(v, REPORTED_VERSION.load(Relaxed) as c_uint);
        CUDA_SUCCESS
    }
    fn cuCtxGetFlags(flags: *mut c_uint) { out(flags, 0); CUDA_SUCCESS }
    fn cuCtxSetFlags(flags: c_uint) { CUDA_SUCCESS }
    fn cuCtxGetId(ctx: Handle, id: *mut c_ulonglong) { out(id, ctx as c_ulonglong); CUDA_SUCCESS }
    fn cuCtxGetLimit(value: *mut usize, limit: c_int) { out(value, 1024); CUDA_SUCCESS }
    fn cuCtxSetLimit(limit: c_int, value: usize) { CUDA_SUCCESS }
    fn cuCtxGetCacheConfig(config: *mut c_int) { out(config, 0); CUDA_SUCCESS }
    fn cuCtxSetCacheConfig(config: c_int) { CUDA_SUCCESS }
    fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) {
        out(least, 0);
        out(greatest, -5);
        CUDA_SUCCESS
    }

    // --- Modules and functions ---
    fn cuModuleLoad(module: *mut Handle, path: *const c_char) { new_handle(module, Kind::Module) }
    fn cuModuleLoadData(module: *mut Handle, image: *const c_void) { load_module(module, image) }
    fn cuModuleLoadDataEx(
        module: *mut Handle,
        image: *const c_void,
        n: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
    ) {
        let r = load_module(module, image);
        // As the real compiler does: the logs into the caller's buffers, the bytes written and
        // the wall time back into the value array.
        let logs = JitLogs::read(n, options, values);
        logs.write(c"info: compiled by the checking double", r != CUDA_SUCCESS);
        logs.write_back(values, 0.25);
        r
    }
    fn cuModuleLoadFatBinary(module: *mut Handle, image: *const c_void) { new_handle(module, Kind::Module) }
    fn cuModuleUnload(module: Handle) releases(Kind::Module, module as usize) {
        check::unloading(module as usize, "cuModuleUnload");
        let _ = check::destroyed(Kind::Module, module as usize, "cuModuleUnload");
        CUDA_SUCCESS
    }
    fn cuModuleGetFunction(f: *mut Handle, module: Handle, name: *const c_char) {
        check::used(Kind::Module, module as usize, "cuModuleGetFunction");
        let name = name_of(name);
        let params = match check::entry(module as usize, &name) {
            check::Lookup::Missing => return CUDA_ERROR_NOT_FOUND,
            check::Lookup::Found(p) => Some(p),
            check::Lookup::Unknown => None,
        };
        out(f, module_function(module, &name, params));
        CUDA_SUCCESS
    }
    fn cuModuleGetGlobal_v2(ptr: *mut CUdeviceptr, bytes: *mut usize, module: Handle, name: *const c_char) {
        check::used(Kind::Module, module as usize, "cuModuleGetGlobal");
        let size = match check::global(module as usize, &name_of(name)) {
            check::Lookup::Missing => return CUDA_ERROR_NOT_FOUND,
            check::Lookup::Found(size) => size,
            check::Lookup::Unknown => 256,
        };
        let p = device_address(size);
        check::created_sized(Kind::Global, p as usize, module as usize, size as u64);
        data::allocated(p, size);
        out(ptr, p);
        out(bytes, size);
        CUDA_SUCCESS
    }
    fn cuFuncGetAttribute(value: *mut c_int, attribute: c_int, f: Handle) {
        check::used(Kind::Function, f as usize, "cuFuncGetAttribute");
        out(value, 1024);
        CUDA_SUCCESS
    }
    fn cuFuncSetAttribute(f: Handle, attribute: c_int, value: c_int) {
        check::used(Kind::Function, f as usize, "cuFuncSetAttribute");
        CUDA_SUCCESS
    }
    fn cuFuncSetCacheConfig(f: Handle, config: c_int) { CUDA_SUCCESS }

    // --- Entry points newer than 12.2 (`NEWER`): custack reaches them through
    // `cuGetProcAddress`, and only when `cuDriverGetVersion` reports their version. ---
    // The parameters of a function of a module loaded from PTX, as the PTX lays them out;
    // `CUDA_ERROR_INVALID_VALUE` one past the last (how the driver ends the list).
    fn cuFuncGetParamInfo(f: Handle, index: usize, offset: *mut usize, size: *mut usize) {
        check::used(Kind::Function, f as usize, "cuFuncGetParamInfo");
        // A module the double did not parse (a cubin, or not checking): it cannot tell.
        let Some(layout) = check::param_layout(f as usize) else {
            return CUDA_ERROR_NOT_SUPPORTED;
        };
        match layout.get(index) {
            Some(&(o, n)) => {
                out(offset, o);
                out(size, n);
                CUDA_SUCCESS
            }
            None => CUDA_ERROR_INVALID_VALUE,
        }
    }
    // How many parameters a function of a module loaded from PTX takes.
    fn cuFuncGetParamCount(f: Handle, count: *mut usize) {
        check::used(Kind::Function, f as usize, "cuFuncGetParamCount");
        let Some(layout) = check::param_layout(f as usize) else {
            return CUDA_ERROR_NOT_SUPPORTED;
        };
        out(count, layout.len());
        CUDA_SUCCESS
    }
    // A module's entries, where it was loaded from PTX (none otherwise).
    fn cuModuleGetFunctionCount(count: *mut c_uint, module: Handle) {
        check::used(Kind::Module, module as usize, "cuModuleGetFunctionCount");
        let n = check::entry_names(module as usize).map_or(0, |names| names.len());
        out(count, c_uint::try_from(n).unwrap_or(c_uint::MAX));
        CUDA_SUCCESS
    }
    fn cuModuleEnumerateFunctions(functions: *mut Handle, n: c_uint, module: Handle) {
        check::used(Kind::Module, module as usize, "cuModuleEnumerateFunctions");
        if functions.is_null() && n != 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let names = check::entry_names(module as usize).unwrap_or_default();
        for (i, name) in names.iter().take(n as usize).enumerate() {
            let params = match check::entry(module as usize, name) {
                check::Lookup::Found(p) => Some(p),
                _ => None,
            };
            functions.add(i).write(module_function(module, name, params));
        }
        CUDA_SUCCESS
    }
    // Nothing is loaded lazily here: loading a live function is a no-op.
    fn cuFuncLoad(f: Handle) {
        check::used(Kind::Function, f as usize, "cuFuncLoad");
        CUDA_SUCCESS
    }
    fn cuFuncGetName(name: *mut *const c_char, f: Handle) {
        check::used(Kind::Function, f as usize, "cuFuncGetName");
        let found = FUNCTION_NAMES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|(h, _)| *h == f.addr())
            .map_or(core::ptr::null(), |(_, n)| n.as_ptr());
        out(name, found);
        CUDA_SUCCESS
    }
    // Context-wide events: the context live, a recorded event its own; the record covers every
    // stream of the context, a wait holds back every stream of it, now and later.
    fn cuCtxRecordEvent(ctx: Handle, event: Handle) {
        if check::context_recorded(ctx as usize, event as usize) {
            CUDA_SUCCESS
        } else {
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        }
    }
    fn cuCtxWaitEvent(ctx: Handle, event: Handle) {
        if check::context_waits(ctx as usize, event as usize) {
            CUDA_SUCCESS
        } else {
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        }
    }
    // The error log (12.9): registered; the double logs nothing.
    fn cuLogsRegisterCallback(
        callback: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut c_char, usize)>,
        data: *mut c_void,
        registered: *mut Handle,
    ) {
        if callback.is_none() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        out(registered, handle());
        CUDA_SUCCESS
    }
    // Green contexts: the device's SMs, split in groups of multiples of 8; a green context over
    // a descriptor of them; its `CUcontext`, pushed and popped like any context; its streams.
    fn cuDeviceGetDevResource(dev: CUdevice, resource: *mut DevResource, kind: c_int) {
        if dev != 0 {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        if kind != CU_DEV_RESOURCE_TYPE_SM || resource.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        resource.write(DevResource::sms(SM_COUNT));
        CUDA_SUCCESS
    }
    fn cuDevSmResourceSplitByCount(
        result: *mut DevResource,
        groups: *mut c_uint,
        input: *const DevResource,
        remaining: *mut DevResource,
        flags: c_uint,
        min: c_uint,
    ) {
        if input.is_null() || groups.is_null() || (*input).kind != CU_DEV_RESOURCE_TYPE_SM {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let have = (*input).sm[0];
        let size = min.max(SM_GRANULARITY).next_multiple_of(SM_GRANULARITY);
        // With no result array: how many groups could be made.
        let made = if result.is_null() { have / size } else { (have / size).min(groups.read()) };
        if !result.is_null() {
            for i in 0..made as usize {
                result.add(i).write(DevResource::sms(size));
            }
        }
        groups.write(made);
        if !remaining.is_null() {
            remaining.write(DevResource::sms(have - made * size));
        }
        CUDA_SUCCESS
    }
    fn cuDevResourceGenerateDesc(desc: *mut Handle, resources: *mut DevResource, n: c_uint) {
        if desc.is_null() || resources.is_null() || n == 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        for i in 0..n as usize {
            let r = resources.add(i).read();
            if r.kind != CU_DEV_RESOURCE_TYPE_SM || r.sm[0] == 0 {
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
        out(desc, handle());
        CUDA_SUCCESS
    }
    fn cuGreenCtxCreate(green: *mut Handle, desc: Handle, dev: CUdevice, flags: c_uint) {
        if dev != 0 {
            return CUDA_ERROR_INVALID_DEVICE;
        }
        // The driver requires the default-stream flag.
        if desc.is_null() || flags != CU_GREEN_CTX_DEFAULT_STREAM {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = handle();
        check::green_created(h as usize, context_of_green(h) as usize);
        inject::green_created(h as usize);
        out(green, h);
        CUDA_SUCCESS
    }
    fn cuGreenCtxDestroy(green: Handle) {
        check::green_destroyed(green as usize);
        let ctx = context_of_green(green);
        with_stack(|s| if s.top() == ctx { s.pop(); });
        CUDA_SUCCESS
    }
    fn cuCtxFromGreenCtx(ctx: *mut Handle, green: Handle) {
        if green.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let _ = check::green_used(green as usize, "cuCtxFromGreenCtx");
        out(ctx, context_of_green(green));
        CUDA_SUCCESS
    }
    fn cuGreenCtxStreamCreate(stream: *mut Handle, green: Handle, flags: c_uint, priority: c_int) {
        // The driver requires a non-blocking stream.
        if flags & CU_STREAM_NON_BLOCKING == 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = handle();
        check::green_stream_created(h as usize, green as usize);
        inject::green_stream_created(h as usize, green as usize);
        out(stream, h);
        CUDA_SUCCESS
    }

    // --- Memory ---
    fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) {
        out(free, 79 << 30);
        out(total, 80 << 30);
        CUDA_SUCCESS
    }
    fn cuMemAlloc_v2(ptr: *mut CUdeviceptr, bytes: usize) { new_address(ptr, bytes) }
    fn cuMemFree_v2(ptr: CUdeviceptr) releases(Kind::DeviceMemory, ptr as usize) {
        check::freeing(Kind::DeviceMemory, ptr as usize, None, "cuMemFree");
        // In one process this breaks `open_ipc`'s contract (across two, it is the other
        // process's); reported as what the program left behind, so a failed close excuses it.
        if check::ipc_open_on(ptr) {
            check::report_orphan(format!("{ptr:#x} freed while opened through IPC"));
        }
        if check::destroyed(Kind::DeviceMemory, ptr as usize, "cuMemFree") {
            data::freed(ptr);
            let mut managed = MANAGED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(i) = managed.iter().position(|m| m.0.addr() as CUdeviceptr == ptr) {
                free(managed.swap_remove(i).0);
            }
        }
        CUDA_SUCCESS
    }
    fn cuMemAllocAsync(ptr: *mut CUdeviceptr, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemAllocAsync");
        stream_address(ptr, bytes, stream)
    }
    fn cuMemAllocFromPoolAsync(ptr: *mut CUdeviceptr, bytes: usize, pool: Handle, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemAllocFromPoolAsync");
        stream_address(ptr, bytes, stream)
    }
    fn cuMemFreeAsync(ptr: CUdeviceptr, stream: Handle) releases(Kind::DeviceMemory, ptr as usize, stream as usize) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemFreeAsync");
        check::freeing(Kind::DeviceMemory, ptr as usize, Some(stream as usize), "cuMemFreeAsync");
        if check::destroyed(Kind::DeviceMemory, ptr as usize, "cuMemFreeAsync") {
            data::freed(ptr);
        }
        CUDA_SUCCESS
    }
    // Managed memory is host memory the host reads and writes at the device address: real
    // memory here, its address exposed (so not under Miri's strict provenance).
    fn cuMemAllocManaged(ptr: *mut CUdeviceptr, bytes: usize, flags: c_uint) {
        let mut mem = null_mut();
        if posix_memalign(&raw mut mem, 4096, bytes.max(1)) != 0 {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        let address = mem.expose_provenance() as CUdeviceptr;
        MANAGED.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(Managed(mem));
        check::created_sized(Kind::DeviceMemory, address as usize, 0, bytes as u64);
        data::managed(address, mem.cast(), bytes);
        out(ptr, address);
        CUDA_SUCCESS
    }
    fn cuMemHostAlloc(p: *mut *mut c_void, bytes: usize, flags: c_uint) {
        let mut mem = null_mut();
        if posix_memalign(&raw mut mem, 4096, bytes.max(1)) != 0 {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        check::created(Kind::HostMemory, mem as usize, 0);
        out(p, mem);
        CUDA_SUCCESS
    }
    fn cuMemFreeHost(p: *mut c_void) releases(Kind::HostMemory, p as usize) {
        check::freeing(Kind::HostMemory, p as usize, None, "cuMemFreeHost");
        if check::destroyed(Kind::HostMemory, p as usize, "cuMemFreeHost") {
            free(p);
        }
        CUDA_SUCCESS
    }
    fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) {
        if check::synchronous_copy_hung() {
            hang_exit("cuMemcpyHtoD_v2".to_owned());
        }
        check::used_address(dst, "cuMemcpyHtoD_v2");
        check::host_now(src.cast_mut().cast(), bytes, false);
        if checking() {
            data_result(data::from_host(dst, src.cast(), bytes), "cuMemcpyHtoD_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) {
        if check::synchronous_copy_hung() {
            hang_exit("cuMemcpyDtoH_v2".to_owned());
        }
        check::used_address(src, "cuMemcpyDtoH_v2");
        // The device's bytes where the double holds them, zeroes otherwise.
        let moved = checking() && data::to_host(dst.cast(), src, bytes).unwrap_or_else(|e| {
            mode::data_violation("cuMemcpyDtoH_v2", e);
            false
        });
        if !moved {
            check::host_now(dst.cast(), bytes, true);
        }
        CUDA_SUCCESS
    }
    fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) {
        check::used_address(dst, "cuMemcpyDtoD_v2");
        check::used_address(src, "cuMemcpyDtoD_v2");
        if checking() {
            data_result(data::copy(dst, src, bytes), "cuMemcpyDtoD_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemcpyHtoDAsync_v2");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::enqueued(stream as usize, Kind::HostMemory, src as usize);
        check::host_enqueued(stream as usize, src.cast_mut().cast(), bytes, false, 0);
        check::used(Kind::Stream, stream as usize, "cuMemcpyHtoDAsync_v2");
        let op = work::DataOp::FromHost { dst, src: src.cast(), bytes };
        check::data_op(stream as usize, op, "cuMemcpyHtoDAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(src, "cuMemcpyDtoHAsync_v2");
        check::enqueued(stream as usize, Kind::DeviceMemory, src as usize);
        check::enqueued(stream as usize, Kind::HostMemory, dst as usize);
        check::host_enqueued(stream as usize, dst.cast(), bytes, true, src);
        check::used(Kind::Stream, stream as usize, "cuMemcpyDtoHAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemcpyDtoDAsync_v2");
        check::used_address(src, "cuMemcpyDtoDAsync_v2");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::enqueued(stream as usize, Kind::DeviceMemory, src as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpyDtoDAsync_v2");
        check::data_op(stream as usize, work::DataOp::Copy { dst, src, bytes }, "cuMemcpyDtoDAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpyPeerAsync(
        dst: CUdeviceptr,
        dst_ctx: Handle,
        src: CUdeviceptr,
        src_ctx: Handle,
        bytes: usize,
        stream: Handle,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpyPeerAsync");
        peer_copy_used(dst, dst_ctx, src, src_ctx, bytes, Some(stream as usize), "cuMemcpyPeerAsync");
        CUDA_SUCCESS
    }
    fn cuMemsetD8_v2(dst: CUdeviceptr, v: c_uchar, n: usize) {
        check::used_address(dst, "cuMemsetD8_v2");
        if checking() {
            data_result(data::fill(dst, &[v], n), "cuMemsetD8_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemsetD16_v2(dst: CUdeviceptr, v: c_ushort, n: usize) {
        check::used_address(dst, "cuMemsetD16_v2");
        if checking() {
            data_result(data::fill(dst, &v.to_ne_bytes(), n), "cuMemsetD16_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemsetD32_v2(dst: CUdeviceptr, v: c_uint, n: usize) {
        check::used_address(dst, "cuMemsetD32_v2");
        if checking() {
            data_result(data::fill(dst, &v.to_ne_bytes(), n), "cuMemsetD32_v2");
        }
        CUDA_SUCCESS
    }
    fn cuMemsetD8Async(dst: CUdeviceptr, v: c_uchar, n: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemsetD8Async");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::used(Kind::Stream, stream as usize, "cuMemsetD8Async");
        let op = work::DataOp::Fill { dst, pattern: [v].to_vec(), count: n };
        check::data_op(stream as usize, op, "cuMemsetD8Async");
        CUDA_SUCCESS
    }
    fn cuMemsetD16Async(dst: CUdeviceptr, v: c_ushort, n: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemsetD16Async");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::used(Kind::Stream, stream as usize, "cuMemsetD16Async");
        let op = work::DataOp::Fill { dst, pattern: v.to_ne_bytes().to_vec(), count: n };
        check::data_op(stream as usize, op, "cuMemsetD16Async");
        CUDA_SUCCESS
    }
    fn cuMemsetD32Async(dst: CUdeviceptr, v: c_uint, n: usize, stream: Handle) {
        check::enqueue(stream as usize);
        check::used_address(dst, "cuMemsetD32Async");
        check::enqueued(stream as usize, Kind::DeviceMemory, dst as usize);
        check::used(Kind::Stream, stream as usize, "cuMemsetD32Async");
        let op = work::DataOp::Fill { dst, pattern: v.to_ne_bytes().to_vec(), count: n };
        check::data_op(stream as usize, op, "cuMemsetD32Async");
        CUDA_SUCCESS
    }

    // --- Streams ---
    fn cuStreamCreate(stream: *mut Handle, flags: c_uint) { new_stream(stream, flags) }
    fn cuStreamCreateWithPriority(stream: *mut Handle, flags: c_uint, priority: c_int) {
        new_stream(stream, flags)
    }
    fn cuStreamGetPriority(stream: Handle, priority: *mut c_int) { out(priority, 0); CUDA_SUCCESS }
    fn cuStreamGetFlags(stream: Handle, flags: *mut c_uint) { out(flags, 0); CUDA_SUCCESS }
    fn cuStreamWaitEvent(stream: Handle, event: Handle, flags: c_uint) {
        check::used(Kind::Stream, stream as usize, "cuStreamWaitEvent");
        check::used_from_any_context(Kind::Event, event as usize, "cuStreamWaitEvent");
        check::stream_waits(stream as usize, event as usize);
        CUDA_SUCCESS
    }
    fn cuStreamQuery(stream: Handle) {
        check::used(Kind::Stream, stream as usize, "cuStreamQuery");
        if check::stream_hung(stream as usize) {
            return CUDA_ERROR_NOT_READY;
        }
        check::progress();
        // Success says the stream's work is done: it is, from now on.
        check::stream_synchronized(stream as usize);
        CUDA_SUCCESS
    }
    fn cuStreamSynchronize(stream: Handle) {
        check::used(Kind::Stream, stream as usize, "cuStreamSynchronize");
        if check::stream_hung(stream as usize) {
            hang_exit("cuStreamSynchronize".to_owned());
        }
        check::stream_synchronized(stream as usize);
        CUDA_SUCCESS
    }
    fn cuStreamDestroy_v2(stream: Handle) {
        let _ = check::destroyed(Kind::Stream, stream as usize, "cuStreamDestroy");
        CUDA_SUCCESS
    }

    // --- Events ---
    fn cuEventCreate(event: *mut Handle, flags: c_uint) { new_handle(event, Kind::Event) }
    fn cuEventRecord(event: Handle, stream: Handle) {
        check::used(Kind::Event, event as usize, "cuEventRecord");
        check::used(Kind::Stream, stream as usize, "cuEventRecord");
        check::event_recorded(event as usize, stream as usize);
        CUDA_SUCCESS
    }
    fn cuEventQuery(event: Handle) {
        check::used_from_any_context(Kind::Event, event as usize, "cuEventQuery");
        if check::event_hung(event as usize) {
            return CUDA_ERROR_NOT_READY;
        }
        check::progress();
        // Success says the work before the event is done: it is, from now on.
        check::event_synchronized(event as usize);
        CUDA_SUCCESS
    }
    fn cuEventSynchronize(event: Handle) {
        check::used_from_any_context(Kind::Event, event as usize, "cuEventSynchronize");
        if check::event_hung(event as usize) {
            hang_exit("cuEventSynchronize".to_owned());
        }
        check::event_synchronized(event as usize);
        CUDA_SUCCESS
    }
    fn cuEventDestroy_v2(event: Handle) {
        let _ = check::destroyed(Kind::Event, event as usize, "cuEventDestroy");
        CUDA_SUCCESS
    }
    fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) { out(ms, 0.001); CUDA_SUCCESS }
    fn cuEventElapsedTime_v2(ms: *mut f32, start: Handle, end: Handle) { out(ms, 0.001); CUDA_SUCCESS }

    // --- Execution ---
    fn cuLaunchKernel(
        f: Handle,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        stream: Handle,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Function, f as usize, "cuLaunchKernel");
        check::used(Kind::Stream, stream as usize, "cuLaunchKernel");
        check::launched(f as usize, stream as usize, params, "cuLaunchKernel");
        run_kernel(f, [gx, gy, gz], [bx, by, bz], shared, stream, params, "cuLaunchKernel")
    }
    fn cuLaunchCooperativeKernel(
        f: Handle,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        stream: Handle,
        params: *mut *mut c_void,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Function, f as usize, "cuLaunchCooperativeKernel");
        check::used(Kind::Stream, stream as usize, "cuLaunchCooperativeKernel");
        check::launched(f as usize, stream as usize, params, "cuLaunchCooperativeKernel");
        run_kernel(f, [gx, gy, gz], [bx, by, bz], shared, stream, params, "cuLaunchCooperativeKernel")
    }
    fn cuLaunchKernelEx(config: *const LaunchConfig, f: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) {
        let stream = if config.is_null() { null_mut() } else { (*config).stream };
        check::enqueue(stream as usize);
        check::used(Kind::Function, f as usize, "cuLaunchKernelEx");
        check::used(Kind::Stream, stream as usize, "cuLaunchKernelEx");
        check::launched(f as usize, stream as usize, params, "cuLaunchKernelEx");
        if config.is_null() {
            return CUDA_SUCCESS;
        }
        let c = &*config;
        run_kernel(f, c.grid, c.block, c.shared, stream, params, "cuLaunchKernelEx")
    }
    // A host function runs at once (there is no stream to wait for): its contract is only
    // that it runs in order, once. On a hung stream it never runs.
    // Captured, a host function is a host node, called at each launch of the graph.
    fn cuLaunchHostFunc(stream: Handle, f: Option<unsafe extern "C" fn(*mut c_void)>, data: *mut c_void) {
        check::enqueue(stream as usize);
        let Some(f) = f else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::data_op(stream as usize, work::DataOp::HostFn { f, data }, "cuLaunchHostFunc")
    }
    fn cuStreamAddCallback(
        stream: Handle,
        f: Option<unsafe extern "C" fn(Handle, CUresult, *mut c_void)>,
        data: *mut c_void,
        flags: c_uint,
    ) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuStreamAddCallback");
        if check::is_capturing(stream as usize) {
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
        if check::stream_hung(stream as usize) {
            return CUDA_SUCCESS;
        }
        if let Some(f) = f { f(stream, CUDA_SUCCESS, data); }
        CUDA_SUCCESS
    }

    // --- Occupancy ---
    fn cuOccupancyMaxActiveBlocksPerMultiprocessor(n: *mut c_int, f: Handle, block: c_int, smem: usize) {
        out(n, 8);
        CUDA_SUCCESS
    }
    fn cuOccupancyMaxPotentialBlockSize(
        grid: *mut c_int,
        block: *mut c_int,
        f: Handle,
        b2d: Option<unsafe extern "C" fn(c_int) -> usize>,
        smem: usize,
        limit: c_int,
    ) {
        out(grid, 264);
        out(block, 1024);
        CUDA_SUCCESS
    }
    fn cuOccupancyAvailableDynamicSMemPerBlock(bytes: *mut usize, f: Handle, n: c_int, block: c_int) {
        out(bytes, 48 << 10);
        CUDA_SUCCESS
    }

    // --- Contexts, more ---
    fn cuCtxGetExecAffinity(param: *mut [c_int; 2], kind: c_int) { out(param, [0, 132]); CUDA_SUCCESS }
    fn cuCtxGetSharedMemConfig(config: *mut c_int) { out(config, 0); CUDA_SUCCESS }
    fn cuCtxSetSharedMemConfig(config: c_int) { CUDA_SUCCESS }
    fn cuCtxResetPersistingL2Cache() { CUDA_SUCCESS }
    fn cuDeviceGetExecAffinitySupport(v: *mut c_int, kind: c_int, dev: CUdevice) { out(v, 0); CUDA_SUCCESS }

    // --- Graphs and capture ---
    // Checking mode models captures: what is enqueued on a capturing stream is kept in the
    // graph and enqueued again at each launch of an executable graph made from it.
    // The capture's graph is made when `cuStreamGetCaptureInfo` first names it, or at the end; a
    // capture that ends with a forked stream not joined back fails, and the driver destroys its
    // graph.
    fn cuStreamBeginCapture_v2(stream: Handle, mode: c_int) {
        check::used(Kind::Stream, stream as usize, "cuStreamBeginCapture");
        check::capture_begun(stream as usize);
        CUDA_SUCCESS
    }
    fn cuStreamEndCapture(stream: Handle, graph: *mut Handle) {
        check::used(Kind::Stream, stream as usize, "cuStreamEndCapture");
        // A capture into an existing graph ends in that graph.
        if let Some(g) = check::capture_to_graph_ended(stream as usize) {
            out(graph, core::ptr::without_provenance_mut(g));
            return CUDA_SUCCESS;
        }
        match check::capture_ended(stream as usize, handle() as usize) {
            Some(Ok(g)) => {
                out(graph, core::ptr::without_provenance_mut(g));
                CUDA_SUCCESS
            }
            Some(Err(g)) => {
                let _ = check::destroyed(Kind::Graph, g, "cuStreamEndCapture");
                check::graph_forgotten(g);
                user_object::owner_destroyed(g);
                out(graph, core::ptr::null_mut());
                CUDA_ERROR_STREAM_CAPTURE_UNJOINED
            }
            None => {
                out(graph, core::ptr::null_mut());
                CUDA_ERROR_ILLEGAL_STATE
            }
        }
    }
    fn cuStreamIsCapturing(stream: Handle, status: *mut c_int) {
        out(status, c_int::from(check::is_capturing(stream as usize)));
        CUDA_SUCCESS
    }
    // The capture's status, its graph (named the first time it is asked for) and its current
    // dependencies: none, as the double keeps no edges (a node added after them follows
    // nothing, which is still a node of the capture).
    fn cuStreamGetCaptureInfo_v2(
        stream: Handle,
        status: *mut c_int,
        id: *mut u64,
        graph: *mut Handle,
        deps: *mut *const Handle,
        n: *mut usize,
    ) {
        check::used(Kind::Stream, stream as usize, "cuStreamGetCaptureInfo");
        if status.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let captured = check::capture_graph(stream as usize, || handle() as usize);
        out(status, c_int::from(captured.is_some()));
        if !id.is_null() {
            out(id, stream as u64);
        }
        if !graph.is_null() {
            out(graph, captured.map_or(null_mut(), core::ptr::without_provenance_mut));
        }
        if !deps.is_null() {
            out(deps, core::ptr::null());
        }
        if !n.is_null() {
            out(n, 0);
        }
        CUDA_SUCCESS
    }
    fn cuStreamUpdateCaptureDependencies(stream: Handle, deps: *mut Handle, n: usize, flags: c_uint) {
        check::used(Kind::Stream, stream as usize, "cuStreamUpdateCaptureDependencies");
        if checking() && !check::is_capturing(stream as usize) || flags > 1 || n > 0 && deps.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        CUDA_SUCCESS
    }
    fn cuGraphDestroy(graph: Handle) {
        let _ = check::destroyed(Kind::Graph, graph as usize, "cuGraphDestroy");
        check::graph_forgotten(graph as usize);
        user_object::owner_destroyed(graph as usize);
        CUDA_SUCCESS
    }
    // With an array, fresh node handles up to its capacity: the double keeps no node objects
    // (nor their kinds: `cuGraphNodeGetType` says every node is an empty one).
    fn cuGraphGetNodes(graph: Handle, nodes: *mut Handle, n: *mut usize) {
        check::used(Kind::Graph, graph as usize, "cuGraphGetNodes");
        if n.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let len = check::graph_len(graph as usize);
        if !nodes.is_null() {
            for i in 0..(*n).min(len) {
                *nodes.add(i) = handle();
            }
        }
        out(n, len);
        CUDA_SUCCESS
    }
    fn cuGraphNodeGetType(node: Handle, kind: *mut c_uint) {
        if node.is_null() || kind.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        out(kind, 5);
        CUDA_SUCCESS
    }
    // A clone takes the graph's operations (and its node count): launched, it uses the same
    // memory, which must be live then.
    fn cuGraphClone(clone: *mut Handle, graph: Handle) {
        check::used(Kind::Graph, graph as usize, "cuGraphClone");
        let c = handle();
        check::graph_cloned(graph as usize, c as usize);
        user_object::copied(graph as usize, c as usize, false);
        out(clone, c);
        CUDA_SUCCESS
    }
    // A DOT file of one node per node the graph holds, without edges: enough for a reader to
    // parse, nothing of the driver's own detail.
    fn cuGraphDebugDotPrint(graph: Handle, path: *const c_char, flags: c_uint) {
        check::used(Kind::Graph, graph as usize, "cuGraphDebugDotPrint");
        if path.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let Ok(path) = core::ffi::CStr::from_ptr(path).to_str() else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        let mut dot = format!("digraph graph_{:x} {{\n", graph as usize);
        for i in 0..check::graph_len(graph as usize) {
            dot.push_str(&format!("  node_{i};\n"));
        }
        dot.push_str("}\n");
        match std::fs::write(path, dot) {
            Ok(()) => CUDA_SUCCESS,
            Err(_) => CUDA_ERROR_OPERATING_SYSTEM,
        }
    }
    fn cuGraphInstantiateWithFlags(exec: *mut Handle, graph: Handle, flags: c_ulonglong) {
        check::used(Kind::Graph, graph as usize, "cuGraphInstantiate");
        let e = handle();
        check::created(Kind::GraphExec, e as usize, 0);
        check::graph_instantiated(e as usize, graph as usize);
        check::kept_instantiated(e as usize, graph as usize, flags & 1 != 0);
        user_object::copied(graph as usize, e as usize, false);
        out(exec, e);
        CUDA_SUCCESS
    }
    fn cuGraphLaunch(exec: Handle, stream: Handle) {
        // Memory a previous launch kept, not freed yet: refused, as the driver does.
        if !check::kept_launch(exec as usize, stream as usize) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        check::enqueue(stream as usize);
        check::used(Kind::GraphExec, exec as usize, "cuGraphLaunch");
        check::used(Kind::Stream, stream as usize, "cuGraphLaunch");
        check::graph_launched(exec as usize, stream as usize);
        CUDA_SUCCESS
    }
    fn cuGraphUpload(exec: Handle, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::GraphExec, exec as usize, "cuGraphUpload");
        check::used(Kind::Stream, stream as usize, "cuGraphUpload");
        CUDA_SUCCESS
    }
    fn cuGraphExecDestroy(exec: Handle) {
        let _ = check::destroyed(Kind::GraphExec, exec as usize, "cuGraphExecDestroy");
        user_object::owner_destroyed(exec as usize);
        CUDA_SUCCESS
    }
    fn cuGraphExecUpdate_v2(exec: Handle, graph: Handle, info: *mut c_void) {
        check::used(Kind::GraphExec, exec as usize, "cuGraphExecUpdate");
        check::used(Kind::Graph, graph as usize, "cuGraphExecUpdate");
        check::graph_instantiated(exec as usize, graph as usize);
        user_object::copied(graph as usize, exec as usize, true);
        CUDA_SUCCESS
    }

    // Graphs built node by node: each node's work is kept as if enqueued on a stream capturing
    // into the graph (the graph's handle as its key), in the order the nodes were added, which
    // honours every dependency; a launch enqueues it all again. Event record and wait nodes
    // only check their event.
    fn cuGraphCreate(graph: *mut Handle, flags: c_uint) {
        let g = handle();
        check::graph_created(g as usize);
        out(graph, g);
        CUDA_SUCCESS
    }
    fn cuGraphAddKernelNode_v2(
        node: *mut Handle,
        graph: Handle,
        deps: *const Handle,
        n: usize,
        params: *const c_void,
    ) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddKernelNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let start = check::building_ops(g);
        // The work goes under `g`: the graph's own, or for a conditional node's body the graph
        // being built that it joins.
        let key = core::ptr::without_provenance_mut(g);
        let r = graph_kernel(params, key, "cuGraphAddKernelNode");
        let r = graph_node_made(node, g, r);
        if r == CUDA_SUCCESS {
            check::kernel_node_made(*node as usize, g, start);
        }
        r
    }
    // A host node: its function is called with its argument at each launch, in the graph's
    // order (as the double runs every node's work, on the launching thread).
    fn cuGraphAddHostNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, params: *const c_void) {
        const WHAT: &str = "cuGraphAddHostNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // CUDA_HOST_NODE_PARAMS: fn, userData.
        let Some(f) = params.cast::<Option<unsafe extern "C" fn(*mut c_void)>>().read_unaligned() else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        let data = params.cast::<u8>().add(8).cast::<*mut c_void>().read_unaligned();
        let r = check::data_op(g, work::DataOp::HostFn { f, data }, WHAT);
        graph_node_made(node, g, r)
    }
    fn cuUserObjectCreate(
        object: *mut Handle,
        ptr: *mut c_void,
        destroy: Option<unsafe extern "C" fn(*mut c_void)>,
        count: c_uint,
        flags: c_uint,
    ) {
        // CU_USER_OBJECT_NO_DESTRUCTOR_SYNC is required.
        let Some(destroy) = destroy else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if object.is_null() || count == 0 || flags != 1 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let o = handle();
        user_object::created(o as usize, ptr, destroy, count);
        out(object, o);
        CUDA_SUCCESS
    }
    fn cuUserObjectRelease(object: Handle, count: c_uint) {
        if count == 0 || !user_object::released(object as usize, count) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        CUDA_SUCCESS
    }
    fn cuGraphRetainUserObject(graph: Handle, object: Handle, count: c_uint, flags: c_uint) {
        check::used(Kind::Graph, graph as usize, "cuGraphRetainUserObject");
        if count == 0 || flags > 1 || !user_object::retained(graph as usize, object as usize, count, flags == 1) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        CUDA_SUCCESS
    }
    fn cuGraphExecKernelNodeSetParams_v2(exec: Handle, node: Handle, params: *const c_void) {
        const WHAT: &str = "cuGraphExecKernelNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // The new work is kept as a scratch graph's, then takes the node's place.
        let scratch_graph = handle();
        let scratch = scratch_graph as usize;
        check::graph_created(scratch);
        let r = graph_kernel(params, scratch_graph, WHAT);
        let _ = check::destroyed(Kind::Graph, scratch, WHAT);
        let known = check::kernel_node_set(exec as usize, node as usize, scratch, WHAT);
        if r != CUDA_SUCCESS {
            return r;
        }
        if known { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuGraphAddMemcpyNode(
        node: *mut Handle,
        graph: Handle,
        deps: *const Handle,
        n: usize,
        copy: *const c_void,
        ctx: Handle,
    ) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddMemcpyNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::context_named(ctx as usize, "cuGraphAddMemcpyNode");
        let start = check::building_ops(g);
        graph_copy(copy, g);
        let r = graph_node_made(node, g, CUDA_SUCCESS);
        // Its span of the graph's work, for `cuGraphExecMemcpyNodeSetParams`.
        check::kernel_node_made(*node as usize, g, start);
        r
    }
    fn cuGraphAddMemsetNode(
        node: *mut Handle,
        graph: Handle,
        deps: *const Handle,
        n: usize,
        memset: *const c_void,
        ctx: Handle,
    ) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddMemsetNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::context_named(ctx as usize, "cuGraphAddMemsetNode");
        let start = check::building_ops(g);
        let r = graph_memset(memset, g, "cuGraphAddMemsetNode");
        let r = graph_node_made(node, g, r);
        if r == CUDA_SUCCESS {
            // Its span of the graph's work, for `cuGraphExecMemsetNodeSetParams`.
            check::kernel_node_made(*node as usize, g, start);
        }
        r
    }
    // An executable graph's memset or memcpy node updated: the new work is kept as a scratch
    // graph's, then takes the node's place, as for a kernel node.
    fn cuGraphExecMemsetNodeSetParams(exec: Handle, node: Handle, memset: *const c_void, ctx: Handle) {
        const WHAT: &str = "cuGraphExecMemsetNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        check::context_named(ctx as usize, WHAT);
        let scratch = handle() as usize;
        check::graph_created(scratch);
        let r = graph_memset(memset, scratch, WHAT);
        let _ = check::destroyed(Kind::Graph, scratch, WHAT);
        let known = check::kernel_node_set(exec as usize, node as usize, scratch, WHAT);
        if r != CUDA_SUCCESS {
            return r;
        }
        if known { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuGraphExecMemcpyNodeSetParams(exec: Handle, node: Handle, copy: *const c_void, ctx: Handle) {
        const WHAT: &str = "cuGraphExecMemcpyNodeSetParams";
        check::used(Kind::GraphExec, exec as usize, WHAT);
        check::context_named(ctx as usize, WHAT);
        if copy.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let scratch = handle() as usize;
        check::graph_created(scratch);
        graph_copy(copy, scratch);
        let _ = check::destroyed(Kind::Graph, scratch, WHAT);
        if check::kernel_node_set(exec as usize, node as usize, scratch, WHAT) {
            CUDA_SUCCESS
        } else {
            CUDA_ERROR_INVALID_VALUE
        }
    }
    fn cuGraphAddEventRecordNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, event: Handle) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddEventRecordNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::used(Kind::Event, event as usize, "cuGraphAddEventRecordNode");
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    fn cuGraphAddEventWaitNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, event: Handle) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddEventWaitNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::used_from_any_context(Kind::Event, event as usize, "cuGraphAddEventWaitNode");
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    fn cuGraphAddChildGraphNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, child: Handle) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddChildGraphNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        check::used(Kind::Graph, child as usize, "cuGraphAddChildGraphNode");
        // The child is cloned into the node: its nodes' work is the parent's from now on.
        check::child_added(g, child as usize);
        user_object::copied(child as usize, graph as usize, false);
        out(node, handle());
        CUDA_SUCCESS
    }
    // A memory allocation node of a graph being built (`CUDA_MEM_ALLOC_NODE_PARAMS`: `bytesize`
    // at 104, `dptr` at 112): memory of the graph's own, as a captured `cuMemAllocAsync` makes,
    // from this node on. Like the driver, no memory node in a conditional node's body.
    fn cuGraphAddMemAllocNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, params: *mut c_void) {
        const WHAT: &str = "cuGraphAddMemAllocNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if g != graph as usize {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        if params.is_null() || node.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let at = |offset: usize| params.cast::<u8>().add(offset);
        let bytes = at(104).cast::<usize>().read_unaligned();
        if bytes == 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let dptr = at(112).cast::<CUdeviceptr>();
        let r = new_address(dptr, bytes);
        check::allocated_on(g, dptr.read());
        graph_node_made(node, g, r)
    }
    // A memory free node: `dptr` must be memory of one of the graph's allocation nodes, not
    // freed yet. Its data stays, for the launches of the nodes before the free node.
    fn cuGraphAddMemFreeNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, dptr: CUdeviceptr) {
        const WHAT: &str = "cuGraphAddMemFreeNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if g != graph as usize {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        if node.is_null() || !check::graph_alloc_freed(g, dptr) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        check::freeing(Kind::DeviceMemory, dptr as usize, Some(g), WHAT);
        let _ = check::destroyed(Kind::DeviceMemory, dptr as usize, WHAT);
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    // A conditional node's handle, for a node of `graph` (a graph being built or a body).
    fn cuGraphConditionalHandleCreate(
        handle: *mut u64,
        graph: Handle,
        ctx: Handle,
        default: c_uint,
        flags: c_uint,
    ) {
        const WHAT: &str = "cuGraphConditionalHandleCreate";
        if check::graph_stream(graph as usize, WHAT).is_none() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        check::context_named(ctx as usize, WHAT);
        if handle.is_null() || flags & !1 != 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let h = NEXT_CONDITIONAL.fetch_add(1, Relaxed);
        check::conditional_handle_made(h, graph as usize);
        out(handle, h);
        CUDA_SUCCESS
    }
    // A node of any type, as CUDA 12.2 declared it; the double makes only conditional nodes
    // (`CUgraphNodeParams`, 256 bytes: the type at 0; `CUDA_CONDITIONAL_NODE_PARAMS` at 16:
    // handle, type at 24, size at 28, `phGraph_out` at 32, ctx at 40). Their bodies are
    // graphs whose nodes join the work of the graph being built (`check::conditional_bodies`).
    fn cuGraphAddNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize, params: *mut c_void) {
        const WHAT: &str = "cuGraphAddNode";
        let Some(g) = check::graph_stream(graph as usize, WHAT) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        if params.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let at = |offset: usize| params.cast::<u8>().add(offset);
        if at(0).cast::<c_uint>().read_unaligned() != 13 {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        let cond = at(16).cast::<u64>().read_unaligned();
        let kind = at(24).cast::<c_uint>().read_unaligned();
        let size = at(28).cast::<c_uint>().read_unaligned();
        let ctx = at(40).cast::<Handle>().read_unaligned();
        check::context_named(ctx as usize, WHAT);
        // IF with ELSE, and SWITCH: from 12.8.
        let newer = REPORTED_VERSION.load(Relaxed) >= 12080;
        let valid = match kind {
            0 => size == 1 || size == 2 && newer,
            1 => size == 1,
            2 => size >= 1 && newer,
            _ => false,
        };
        if !valid || !check::conditional_handle_taken(cond, graph as usize, WHAT) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        // The array is the node's for its life: kept, as the driver keeps it.
        let bodies: Box<[Handle]> = (0..size).map(|_| handle()).collect();
        let keys: Vec<usize> = bodies.iter().map(|&b| b as usize).collect();
        check::conditional_bodies(g, &keys);
        let mut kept = BODY_ARRAYS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.push(BodyArray(bodies));
        if let Some(array) = kept.last_mut() {
            at(32).cast::<*mut Handle>().write_unaligned(array.0.as_mut_ptr());
        }
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    fn cuGraphAddEmptyNode(node: *mut Handle, graph: Handle, deps: *const Handle, n: usize) {
        let Some(g) = check::graph_stream(graph as usize, "cuGraphAddEmptyNode") else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        graph_node_made(node, g, CUDA_SUCCESS)
    }
    // A capture whose work becomes nodes of `graph` (CUDA 12.3): a graph being built, or a
    // conditional node's body. `cuStreamEndCapture` ends it in that graph.
    fn cuStreamBeginCaptureToGraph(
        stream: Handle,
        graph: Handle,
        deps: *const Handle,
        data: *const c_void,
        n: usize,
        mode: c_int,
    ) {
        const WHAT: &str = "cuStreamBeginCaptureToGraph";
        check::used(Kind::Stream, stream as usize, WHAT);
        if !data.is_null() || n > 0 && deps.is_null() {
            return CUDA_ERROR_INVALID_VALUE;
        }
        if !check::capture_to_graph_begun(stream as usize, graph as usize, WHAT) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        CUDA_SUCCESS
    }
    fn cuGraphAddDependencies(graph: Handle, from: *const Handle, to: *const Handle, n: usize) {
        check::used(Kind::Graph, graph as usize, "cuGraphAddDependencies");
        CUDA_SUCCESS
    }

    // --- Libraries and the linker ---
    fn cuLibraryLoadData(
        lib: *mut Handle,
        code: *const c_void,
        jit_options: *mut c_int,
        jit_values: *mut *mut c_void,
        n_jit: c_uint,
        lib_options: *mut c_int,
        lib_values: *mut *mut c_void,
        n_lib: c_uint,
    ) {
        let h = handle();
        check::created(Kind::Library, h as usize, 0);
        check::module_loaded(h as usize, code);
        out(lib, h);
        CUDA_SUCCESS
    }
    fn cuLibraryUnload(lib: Handle) releases(Kind::Library, lib as usize) {
        check::unloading(lib as usize, "cuLibraryUnload");
        let _ = check::destroyed(Kind::Library, lib as usize, "cuLibraryUnload");
        CUDA_SUCCESS
    }
    fn cuLibraryGetKernel(kernel: *mut Handle, lib: Handle, name: *const c_char) {
        check::used(Kind::Library, lib as usize, "cuLibraryGetKernel");
        let params = match check::entry(lib as usize, &name_of(name)) {
            check::Lookup::Missing => return CUDA_ERROR_NOT_FOUND,
            check::Lookup::Found(p) => Some(p),
            check::Lookup::Unknown => None,
        };
        let h = handle();
        check::created(Kind::LibraryKernel, h as usize, lib as usize);
        standin::named(h as usize, &name_of(name));
        if let Some(p) = params {
            check::function_params(h as usize, p);
        }
        out(kernel, h);
        CUDA_SUCCESS
    }
    // The kernel's function in the current context: lives until the library is unloaded.
    fn cuKernelGetFunction(f: *mut Handle, kernel: Handle) {
        check::used(Kind::LibraryKernel, kernel as usize, "cuKernelGetFunction");
        let h = handle();
        check::function_of_kernel(h as usize, kernel as usize);
        standin::same_name(h as usize, kernel as usize);
        out(f, h);
        CUDA_SUCCESS
    }
    fn cuLinkCreate_v2(n: c_uint, options: *mut c_int, values: *mut *mut c_void, state: *mut Handle) {
        let h = handle();
        // The real linker keeps the log buffers of `cuLinkCreate` and writes into them at every
        // later call on the state, until `cuLinkDestroy`.
        let logs = JitLogs::read(n, options, values);
        logs.write(c"info: linker created", false);
        logs.write_back(values, 0.0);
        LINKERS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((h.addr(), logs));
        out(state, h);
        CUDA_SUCCESS
    }
    fn cuLinkAddData_v2(
        state: Handle,
        kind: c_int,
        data: *mut c_void,
        size: usize,
        name: *const c_char,
        n: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
    ) {
        linker_logs(state, c"info: input added");
        CUDA_SUCCESS
    }
    fn cuLinkAddFile_v2(
        state: Handle,
        kind: c_int,
        path: *const c_char,
        n: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
    ) {
        linker_logs(state, c"info: file added");
        CUDA_SUCCESS
    }
    fn cuLinkComplete(state: Handle, image: *mut *mut c_void, size: *mut usize) {
        linker_logs(state, c"info: linked");
        out(image, (&raw const LINKED_IMAGE).cast_mut().cast());
        out(size, LINKED_IMAGE.len());
        CUDA_SUCCESS
    }
    fn cuLinkDestroy(state: Handle) {
        LINKERS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|(h, _)| *h != state.addr());
        CUDA_SUCCESS
    }

    // --- Memory, more ---
    fn cuMemAllocPitch_v2(ptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, elem: c_uint) {
        let pitch_bytes = width.div_ceil(512) * 512;
        out(pitch, pitch_bytes);
        new_address(ptr, pitch_bytes * height)
    }
    fn cuMemcpy2D_v2(copy: *const c_void) {
        if copy_touches_host(copy, Shape::TwoD) && check::synchronous_copy_hung() {
            hang_exit("cuMemcpy2D_v2".to_owned());
        }
        copy_used(copy, Shape::TwoD, None, "cuMemcpy2D_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpy2DAsync_v2(copy: *const c_void, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpy2DAsync_v2");
        copy_used(copy, Shape::TwoD, Some(stream as usize), "cuMemcpy2DAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpy3D_v2(copy: *const c_void) {
        if copy_touches_host(copy, Shape::ThreeD) && check::synchronous_copy_hung() {
            hang_exit("cuMemcpy3D_v2".to_owned());
        }
        copy_used(copy, Shape::ThreeD, None, "cuMemcpy3D_v2");
        CUDA_SUCCESS
    }
    fn cuMemcpy3DAsync_v2(copy: *const c_void, stream: Handle) {
        check::enqueue(stream as usize);
        check::used(Kind::Stream, stream as usize, "cuMemcpy3DAsync_v2");
        copy_used(copy, Shape::ThreeD, Some(stream as usize), "cuMemcpy3DAsync_v2");
        CUDA_SUCCESS
    }
    fn cuMemGetAddressRange_v2(base: *mut CUdeviceptr, size: *mut usize, ptr: CUdeviceptr) {
        out(base, ptr);
        out(size, 1);
        CUDA_SUCCESS
    }
    fn cuMemHostRegister_v2(p: *mut c_void, bytes: usize, flags: c_uint) { CUDA_SUCCESS }
    fn cuMemHostUnregister(p: *mut c_void) { CUDA_SUCCESS }
    fn cuMemHostGetDevicePointer_v2(ptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) {
        out(ptr, p as CUdeviceptr);
        CUDA_SUCCESS
    }
    fn cuPointerGetAttributes(n: c_uint, attributes: *mut c_int, data: *mut *mut c_void, ptr: CUdeviceptr) {
        CUDA_SUCCESS
    }
    fn cuMemPrefetchAsync(ptr: CUdeviceptr, bytes: usize, device: CUdevice, stream: Handle) {
        check::enqueue(stream as usize);
        CUDA_SUCCESS
    }
    fn cuMemAdvise(ptr: CUdeviceptr, bytes: usize, advice: c_int, device: CUdevice) { CUDA_SUCCESS }
    fn cuMemRangeGetAttribute(data: *mut c_void, size: usize, attribute: c_int, ptr: CUdeviceptr, bytes: usize) {
        CUDA_SUCCESS
    }
    fn cuMemPoolCreate(pool: *mut Handle, props: *const c_void) { out(pool, handle()); CUDA_SUCCESS }
    fn cuMemPoolDestroy(pool: Handle) { CUDA_SUCCESS }
    fn cuMemPoolTrimTo(pool: Handle, keep: usize) { CUDA_SUCCESS }
    fn cuMemPoolSetAttribute(pool: Handle, attribute: c_int, value: *mut c_void) { CUDA_SUCCESS }
    fn cuMemPoolGetAttribute(pool: Handle, attribute: c_int, value: *mut c_void) {
        out(value.cast::<u64>(), 0);
        CUDA_SUCCESS
    }
    fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, align: usize, addr: CUdeviceptr, flags: c_ulonglong) {
        let base = device_address(size);
        check::reserved(base, size);
        out(ptr, base);
        CUDA_SUCCESS
    }
    fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) {
        check::reservation_freed(ptr, size);
        CUDA_SUCCESS
    }
    fn cuMemCreate(h: *mut c_ulonglong, size: usize, prop: *const c_void, flags: c_ulonglong) {
        let new = handle().addr() as c_ulonglong;
        check::physical_created(new, size);
        // `CUmemAllocationProp::requestedHandleTypes`, the second `int`.
        let requested = if prop.is_null() { 0 } else { prop.cast::<c_int>().add(1).read() };
        share::created(new, size, requested);
        out(h, new);
        CUDA_SUCCESS
    }
    // An exported allocation is a real descriptor (a memfd holding a marker, a token, its size
    // and handle types) or a fabric handle (the same 32 bytes), which an import in this process maps back to it: a
    // new handle of the same size, which must be released like any (a leak otherwise).
    fn cuMemExportToShareableHandle(os: *mut c_void, h: c_ulonglong, kind: c_int, flags: c_ulonglong) {
        check::used(Kind::Physical, h as usize, "cuMemExportToShareableHandle");
        share::export(os, h, kind)
    }
    fn cuMemImportFromShareableHandle(h: *mut c_ulonglong, os: *mut c_void, kind: c_int) {
        match share::import(os, kind) {
            Some((size, requested)) => {
                let new = handle().addr() as c_ulonglong;
                check::physical_created(new, size);
                share::created(new, size, requested);
                out(h, new);
                CUDA_SUCCESS
            }
            None => CUDA_ERROR_INVALID_VALUE,
        }
    }
    fn cuMemGetAllocationPropertiesFromHandle(prop: *mut c_void, h: c_ulonglong) {
        check::used(Kind::Physical, h as usize, "cuMemGetAllocationPropertiesFromHandle");
        let requested = share::requested(h);
        // `CUmemAllocationProp`: pinned, the handle types, on device 0, no Windows metadata.
        let mut bytes = [0u8; 32];
        bytes[..4].copy_from_slice(&1i32.to_ne_bytes());
        bytes[4..8].copy_from_slice(&requested.to_ne_bytes());
        bytes[8..12].copy_from_slice(&1i32.to_ne_bytes());
        out(prop.cast::<[u8; 32]>(), bytes);
        CUDA_SUCCESS
    }
    // Released while mapped is allowed: the driver frees the memory once it is unmapped.
    fn cuMemRelease(h: c_ulonglong) {
        let _ = check::destroyed(Kind::Physical, h as usize, "cuMemRelease");
        CUDA_SUCCESS
    }
    fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, h: c_ulonglong, flags: c_ulonglong) {
        if check::mapping(ptr, size, offset, h) { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuMemUnmap(ptr: CUdeviceptr, size: usize) {
        check::unmapping(ptr, size);
        CUDA_SUCCESS
    }
    fn cuMemSetAccess(ptr: CUdeviceptr, size: usize, desc: *const c_void, n: usize) {
        check::access_set(ptr, size);
        CUDA_SUCCESS
    }
    fn cuMemcpyPeer(dst: CUdeviceptr, dst_ctx: Handle, src: CUdeviceptr, src_ctx: Handle, bytes: usize) {
        peer_copy_used(dst, dst_ctx, src, src_ctx, bytes, None, "cuMemcpyPeer");
        CUDA_SUCCESS
    }
    // Enabling twice and disabling what was not enabled are the driver's errors, as on a GPU.
    fn cuCtxEnablePeerAccess(peer: Handle, flags: c_uint) {
        if check::peer_enabled(peer as usize) { CUDA_SUCCESS } else { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED }
    }
    fn cuCtxDisablePeerAccess(peer: Handle) {
        if check::peer_disabled(peer as usize) { CUDA_SUCCESS } else { CUDA_ERROR_PEER_ACCESS_NOT_ENABLED }
    }
    fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) { out(can, 0); CUDA_SUCCESS }
    // A handle carries the exported address and size (8 bytes each, then a marker), so that an
    // opening in this process knows what it shows.
    fn cuIpcGetMemHandle(handle: *mut [u8; 64], ptr: CUdeviceptr) {
        let size = check::ipc_exported(ptr);
        let mut bytes = [7u8; 64];
        bytes[..8].copy_from_slice(&ptr.to_le_bytes());
        bytes[8..16].copy_from_slice(&size.to_le_bytes());
        bytes[16..24].copy_from_slice(b"custack\0");
        out(handle, bytes);
        CUDA_SUCCESS
    }
    fn cuIpcOpenMemHandle_v2(ptr: *mut CUdeviceptr, handle: IpcHandle, flags: c_uint) {
        let bytes = ipc_bytes(&handle).map(|c| c as u8);
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            u64::from_le_bytes(w)
        };
        let ours = &bytes[16..24] == b"custack\0";
        let (exported, size) = if ours { (word(0), word(1)) } else { (0, 0) };
        let p = device_address(if size == 0 { 1 << 21 } else { size as usize });
        check::ipc_opened(p, size, exported);
        out(ptr, p);
        CUDA_SUCCESS
    }
    // An event's handle carries the exported event (8 bytes, then a marker); opening one makes
    // an event of the current context, which must be destroyed like any (the exporter's side
    // of the contract, keeping its event alive, is the caller's: `open_ipc_event` is unsafe).
    fn cuIpcGetEventHandle(handle: *mut [u8; 64], event: Handle) {
        check::used(Kind::Event, event as usize, "cuIpcGetEventHandle");
        let mut bytes = [7u8; 64];
        bytes[..8].copy_from_slice(&(event as usize as u64).to_le_bytes());
        bytes[16..24].copy_from_slice(b"custev\0\0");
        out(handle, bytes);
        CUDA_SUCCESS
    }
    fn cuIpcOpenEventHandle(event: *mut Handle, handle: IpcEventHandle) {
        let bytes = ipc_event_bytes(&handle).map(|c| c as u8);
        if &bytes[16..24] != b"custev\0\0" {
            return CUDA_ERROR_INVALID_VALUE;
        }
        new_handle(event, Kind::Event)
    }
    fn cuIpcCloseMemHandle(ptr: CUdeviceptr) releases(Kind::IpcMemory, ptr as usize) {
        check::freeing(Kind::IpcMemory, ptr as usize, None, "cuIpcCloseMemHandle");
        let _ = check::destroyed(Kind::IpcMemory, ptr as usize, "cuIpcCloseMemHandle");
        CUDA_SUCCESS
    }
    fn cuArray3DCreate_v2(array: *mut Handle, desc: *const c_void) { new_handle(array, Kind::Array) }
    fn cuArrayDestroy(array: Handle) releases(Kind::Array, array as usize) {
        check::freeing(Kind::Array, array as usize, None, "cuArrayDestroy");
        let _ = check::destroyed(Kind::Array, array as usize, "cuArrayDestroy");
        CUDA_SUCCESS
    }
    fn cuMipmappedArrayCreate(array: *mut Handle, desc: *const c_void, levels: c_uint) {
        new_handle(array, Kind::MipmappedArray)
    }
    fn cuMipmappedArrayGetLevel(level_array: *mut Handle, array: Handle, level: c_uint) {
        check::used(Kind::MipmappedArray, array as usize, "cuMipmappedArrayGetLevel");
        let h = handle();
        check::created(Kind::ArrayLevel, h as usize, array as usize);
        out(level_array, h);
        CUDA_SUCCESS
    }
    fn cuMipmappedArrayDestroy(array: Handle) releases(Kind::MipmappedArray, array as usize) {
        check::freeing(Kind::MipmappedArray, array as usize, None, "cuMipmappedArrayDestroy");
        let _ = check::destroyed(Kind::MipmappedArray, array as usize, "cuMipmappedArrayDestroy");
        CUDA_SUCCESS
    }
    fn cuTexObjectCreate(tex: *mut c_ulonglong, res: *const c_void, desc: *const c_void, view: *const c_void) {
        let parent = resource_used(res, "cuTexObjectCreate");
        let h = handle().addr();
        check::created(Kind::TexObject, h, parent);
        out(tex, h as c_ulonglong);
        CUDA_SUCCESS
    }
    fn cuTexObjectDestroy(tex: c_ulonglong) {
        let _ = check::destroyed(Kind::TexObject, tex as usize, "cuTexObjectDestroy");
        CUDA_SUCCESS
    }
    fn cuSurfObjectCreate(surf: *mut c_ulonglong, res: *const c_void) {
        let parent = resource_used(res, "cuSurfObjectCreate");
        let h = handle().addr();
        check::created(Kind::SurfObject, h, parent);
        out(surf, h as c_ulonglong);
        CUDA_SUCCESS
    }
    fn cuSurfObjectDestroy(surf: c_ulonglong) {
        let _ = check::destroyed(Kind::SurfObject, surf as usize, "cuSurfObjectDestroy");
        CUDA_SUCCESS
    }
    fn cuMemGetAllocationGranularity(g: *mut usize, prop: *const c_void, option: c_int) {
        out(g, 2 << 20);
        CUDA_SUCCESS
    }
}

/// Managed allocations: the memory, to free.
struct Managed(*mut c_void);

// SAFETY: only freed, under the lock.
unsafe impl Send for Managed {}

static MANAGED: std::sync::Mutex<Vec<Managed>> = std::sync::Mutex::new(Vec::new());

/// `CUlaunchConfig`, as far as the double reads it (the stream).
#[repr(C)]
pub struct LaunchConfig {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: Handle,
    attrs: *mut c_void,
    n_attrs: c_uint,
}

/// `CUipcMemHandle`: 64 opaque bytes, passed by value in a `repr(C)` struct as `cuda.h` does.
#[cfg(not(miri))]
#[repr(C)]
pub struct IpcHandle([c_char; 64]);

/// Under Miri, custack's own declaration of `CUipcMemHandle`: Miri accepts a struct passed by
/// value only when caller and callee name the same type, and this is the one custack passes
/// (the programs under Miri link this double as an rlib beside custack).
#[cfg(miri)]
pub use custack::ffi::CUipcMemHandle as IpcHandle;

/// `CUipcEventHandle`: as `CUipcMemHandle`, a struct of its own under Miri.
#[cfg(not(miri))]
#[repr(C)]
pub struct IpcEventHandle([c_char; 64]);

/// Under Miri, custack's own declaration of `CUipcEventHandle` (see [`IpcHandle`]).
#[cfg(miri)]
pub use custack::ffi::CUipcEventHandle as IpcEventHandle;

/// The bytes of an IPC event handle.
#[cfg(not(miri))]
fn ipc_event_bytes(handle: &IpcEventHandle) -> [c_char; 64] {
    handle.0
}
#[cfg(miri)]
fn ipc_event_bytes(handle: &IpcEventHandle) -> [c_char; 64] {
    handle.reserved
}

/// An IPC handle holding `bytes`.
#[cfg(all(test, not(miri)))]
fn ipc_handle(bytes: [c_char; 64]) -> IpcHandle {
    IpcHandle(bytes)
}
#[cfg(all(test, miri))]
fn ipc_handle(bytes: [c_char; 64]) -> IpcHandle {
    IpcHandle { reserved: bytes }
}

/// The bytes of an IPC handle.
#[cfg(not(miri))]
fn ipc_bytes(handle: &IpcHandle) -> [c_char; 64] {
    handle.0
}
#[cfg(miri)]
fn ipc_bytes(handle: &IpcHandle) -> [c_char; 64] {
    handle.reserved
}

/// The log buffers of a JIT option array (`cuModuleLoadDataEx`, `cuLink*`): each buffer with
/// its size in bytes, and the index of its size slot in the value array.
#[derive(Clone, Copy)]
struct JitLogs {
    info: (*mut c_char, usize, Option<usize>),
    error: (*mut c_char, usize, Option<usize>),
    wall_time: Option<usize>,
}

// SAFETY: the buffers are the caller's, written only during its calls on the linker state
// (which the caller serializes, as the real driver requires).
unsafe impl Send for JitLogs {}

/// Linker states and the log buffers given to `cuLinkCreate`.
static LINKERS: std::sync::Mutex<Vec<(usize, JitLogs)>> = std::sync::Mutex::new(Vec::new());

impl JitLogs {
    /// Reads the log options of an option array (the sizes are pointer-sized integers).
    unsafe fn read(n: c_uint, options: *mut c_int, values: *mut *mut c_void) -> Self {
        let mut logs = Self {
            info: (null_mut(), 0, None),
            error: (null_mut(), 0, None),
            wall_time: None,
        };
        if options.is_null() || values.is_null() {
            return logs;
        }
        for i in 0..n as usize {
            let value = values.add(i).read();
            match options.add(i).read() {
                2 => logs.wall_time = Some(i),
                3 => logs.info.0 = value.cast(),
                4 => logs.info = (logs.info.0, value.addr(), Some(i)),
                5 => logs.error.0 = value.cast(),
                6 => logs.error = (logs.error.0, value.addr(), Some(i)),
                _ => {}
            }
        }
        logs
    }

    /// Writes `info` into the info log and, for a failed call, a line into the error log (an
    /// empty error log otherwise), NUL-terminated, through the caller's pointers.
    unsafe fn write(&self, info: &CStr, failed: bool) {
        let (buf, len, _) = self.info;
        out_str(buf, c_int::try_from(len).unwrap_or(c_int::MAX), info);
        let error = if failed {
            c"error: the checking double failed this call"
        } else {
            c""
        };
        let (buf, len, _) = self.error;
        out_str(buf, c_int::try_from(len).unwrap_or(c_int::MAX), error);
    }

    /// The bytes written to each log, and the wall time in milliseconds (a `float` in the low
    /// bytes of its slot), back into the value array.
    unsafe fn write_back(&self, values: *mut *mut c_void, wall_time_ms: f32) {
        for (buf, len, slot) in [self.info, self.error] {
            if let (Some(i), false) = (slot, buf.is_null() || len == 0) {
                let written = CStr::from_ptr(buf).to_bytes().len();
                values
                    .add(i)
                    .write(core::ptr::without_provenance_mut(written));
            }
        }
        if let Some(i) = self.wall_time {
            let bits = wall_time_ms.to_bits() as usize;
            values.add(i).write(core::ptr::without_provenance_mut(bits));
        }
    }
}

/// Writes `info` into the logs `cuLinkCreate` was given for `state`.
unsafe fn linker_logs(state: Handle, info: &CStr) {
    let logs = LINKERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .find(|(h, _)| *h == state.addr())
        .map(|(_, logs)| *logs);
    if let Some(logs) = logs {
        logs.write(info, false);
    }
}

/// What `cuLinkComplete` hands out: an ELF64 header (64 bytes, as a loaded ELF image must
/// have: the checking mode reads it) of an image with no sections, whose functions are
/// therefore unknown (anything goes).
static LINKED_IMAGE: [u8; 64] = {
    let mut h = [0u8; 64];
    h[0] = 0x7f;
    h[1] = b'E';
    h[2] = b'L';
    h[3] = b'F';
    h[4] = 2; // ELFCLASS64
    h[5] = 1; // ELFDATA2LSB
    h[6] = 1; // EV_CURRENT
    h
};

/// Which copy descriptor: `CUDA_MEMCPY2D` or `CUDA_MEMCPY3D`.
#[derive(Clone, Copy)]
enum Shape {
    TwoD,
    ThreeD,
}

/// One side of a copy descriptor.
struct Side {
    x: usize,
    y: usize,
    z: usize,
    memory_type: c_uint,
    host: *mut u8,
    device: u64,
    array: usize,
    pitch: usize,
    /// Rows per slice (3D).
    rows: usize,
}

/// Reads the sides and the extent (bytes per row, rows, slices) of a copy descriptor.
unsafe fn copy_desc(copy: *const c_void, shape: Shape) -> (Side, Side, [usize; 3]) {
    let at = |offset: usize| copy.cast::<u8>().add(offset);
    let word = |offset: usize| at(offset).cast::<usize>().read_unaligned();
    let side = |o: [usize; 9]| Side {
        x: word(o[0]),
        y: o[1].checked_sub(1).map_or(0, |_| word(o[1])),
        z: o[2].checked_sub(1).map_or(0, |_| word(o[2])),
        memory_type: at(o[3]).cast::<c_uint>().read_unaligned(),
        // A pointer, read as one: the copy's host side keeps the program's provenance.
        host: at(o[4]).cast::<*mut u8>().read_unaligned(),
        device: at(o[5]).cast::<u64>().read_unaligned(),
        array: word(o[6]),
        pitch: word(o[7]),
        rows: o[8].checked_sub(1).map_or(0, |_| word(o[8])),
    };
    match shape {
        // srcXInBytes, srcY, -, srcMemoryType, srcHost, srcDevice, srcArray, srcPitch, -
        Shape::TwoD => (
            side([0, 8, 0, 16, 24, 32, 40, 48, 0]),
            side([56, 64, 0, 72, 80, 88, 96, 104, 0]),
            [word(112), word(120), 1],
        ),
        // ..., srcZ, (srcLOD), ..., reserved, srcPitch, srcHeight
        Shape::ThreeD => (
            side([0, 8, 16, 32, 40, 48, 56, 72, 80]),
            side([88, 96, 104, 120, 128, 136, 144, 160, 168]),
            [word(176), word(184), word(192)],
        ),
    }
}

/// A 2D or 3D copy (`copy` a `CUDA_MEMCPY2D` or `CUDA_MEMCPY3D`): each side is checked as its
/// memory type says. Device memory: the first and last byte the copy touches lie in one live
/// allocation of the current context. Arrays: live, of the current context. Host memory: each
/// row the copy reads or writes is accessed for real, now (synchronous) or when the copy on
/// `stream` completes, as a 1D copy's host side is. On `stream`, what it uses is pending there.
unsafe fn copy_used(copy: *const c_void, shape: Shape, stream: Option<usize>, what: &str) {
    if copy.is_null() {
        return;
    }
    let (src, dst, [width, height, depth]) = copy_desc(copy, shape);
    if width == 0 || height == 0 || depth == 0 {
        return;
    }
    for (side, write) in [(src, false), (dst, true)] {
        let rows = side.rows.max(height);
        // The byte offset of row `y`, slice `z` of the copy.
        let row = |y: usize, z: usize| ((side.z + z) * rows + side.y + y) * side.pitch + side.x;
        match side.memory_type {
            1 => {
                // Host: row by row (one access when the rows are contiguous).
                let contiguous = side.pitch == width && (depth == 1 || rows == height);
                let runs: Vec<(usize, usize)> = if contiguous {
                    vec![(row(0, 0), width * height * depth)]
                } else {
                    (0..depth)
                        .flat_map(|z| (0..height).map(move |y| (z, y)))
                        .map(|(z, y)| (row(y, z), width))
                        .collect()
                };
                for (offset, bytes) in runs {
                    let p = side.host.wrapping_add(offset);
                    match stream {
                        Some(st) => check::host_enqueued(st, p, bytes, write, 0),
                        None => check::host_now(p, bytes, write),
                    }
                }
            }
            2 | 4 => {
                let first = side.device + row(0, 0) as u64;
                let end = side.device + (row(height - 1, depth - 1) + width) as u64;
                check::used_span(first, end, None, what);
                if let Some(st) = stream {
                    check::enqueued(st, Kind::DeviceMemory, first as usize);
                }
            }
            3 => {
                let key = check::used_array(side.array, what);
                if let Some(st) = stream {
                    // A level is pending as its mipmapped array, which is what gets destroyed.
                    let key = check::owner_of(key);
                    check::enqueued(st, key.0, key.1);
                }
            }
            _ => {}
        }
    }
}

/// A peer copy of `bytes` from `src` (memory of `src_ctx`) to `dst` (of `dst_ctx`): both
/// contexts live, each range inside one live allocation of its context; on `stream` (of the
/// current context) both are pending there.
fn peer_copy_used(
    dst: CUdeviceptr,
    dst_ctx: Handle,
    src: CUdeviceptr,
    src_ctx: Handle,
    bytes: usize,
    stream: Option<usize>,
    what: &str,
) {
    for (p, ctx) in [(dst, dst_ctx), (src, src_ctx)] {
        check::context_named(ctx as usize, what);
        check::used_span(p, p + bytes as u64, Some(ctx as usize), what);
        if let Some(st) = stream {
            check::enqueued(st, Kind::DeviceMemory, p as usize);
        }
    }
}

/// The resource a `CUDA_RESOURCE_DESC` at `res` names (`resType` at offset 0, then the union
/// at offset 8, whose first member is the array, the mipmapped array or the device pointer),
/// checked live and of the current context; returns it, for the object's parent.
unsafe fn resource_used(res: *const c_void, what: &str) -> usize {
    if res.is_null() {
        return 0;
    }
    let res_type = res.cast::<c_int>().read_unaligned();
    let first = res.cast::<u8>().add(8).cast::<u64>().read_unaligned();
    match res_type {
        0 => check::used_array(first as usize, what).1,
        1 => {
            check::used(Kind::MipmappedArray, first as usize, what);
            first as usize
        }
        _ => {
            check::used_address(first, what);
            check::allocation_of(first)
        }
    }
}

/// A node of graph `g` was made with result `r`: on success it is counted and gets a handle.
/// A kernel node's work (`params` a `CUDA_KERNEL_NODE_PARAMS_v2`), checked as a launch and
/// kept as graph `g`'s.
unsafe fn graph_kernel(params: *const c_void, graph: Handle, what: &str) -> CUresult {
    let g = graph as usize;
    // CUDA_KERNEL_NODE_PARAMS_v2: func, grid and block (6 unsigned), shared, kernelParams.
    let at = |offset: usize| params.cast::<u8>().add(offset);
    let f = at(0).cast::<Handle>().read_unaligned();
    let dim = |i: usize| at(8 + 4 * i).cast::<c_uint>().read_unaligned();
    let shared = dim(6);
    let kernel_params = at(40).cast::<*mut *mut c_void>().read_unaligned();
    check::used(Kind::Function, f as usize, what);
    check::launched(f as usize, g, kernel_params, what);
    run_kernel(
        f,
        [dim(0), dim(1), dim(2)],
        [dim(3), dim(4), dim(5)],
        shared,
        graph,
        kernel_params,
        what,
    )
}

unsafe fn graph_node_made(node: *mut Handle, g: usize, r: CUresult) -> CUresult {
    if r == CUDA_SUCCESS {
        check::node_added(g);
        out(node, handle());
    }
    r
}

/// A memset node's work (`memset` a `CUDA_MEMSET_NODE_PARAMS`) kept under graph `g`.
unsafe fn graph_memset(memset: *const c_void, g: usize, what: &str) -> CUresult {
    if memset.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // CUDA_MEMSET_NODE_PARAMS: dst, pitch, value, elementSize, width, height.
    let at = |offset: usize| memset.cast::<u8>().add(offset);
    let dst = at(0).cast::<CUdeviceptr>().read_unaligned();
    let value = at(16).cast::<c_uint>().read_unaligned();
    let size = at(20).cast::<c_uint>().read_unaligned() as usize;
    let width = at(24).cast::<usize>().read_unaligned();
    let height = at(32).cast::<usize>().read_unaligned();
    if !matches!(size, 1 | 2 | 4) || height != 1 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    check::used_span(dst, dst + (width * size) as u64, None, what);
    check::enqueued(g, Kind::DeviceMemory, dst as usize);
    let pattern = value.to_ne_bytes()[..size].to_vec();
    let op = work::DataOp::Fill {
        dst,
        pattern,
        count: width,
    };
    check::data_op(g, op, what)
}

/// A memcpy node of graph `g` (`copy` a `CUDA_MEMCPY3D`): a contiguous copy between host and
/// device memory is kept as the 1D copy on a stream is (its data moved at each launch), any
/// other shape is checked as a 3D copy.
unsafe fn graph_copy(copy: *const c_void, g: usize) {
    const WHAT: &str = "cuGraphAddMemcpyNode";
    if copy.is_null() {
        return;
    }
    let (src, dst, [width, height, depth]) = copy_desc(copy, Shape::ThreeD);
    let plain = |s: &Side| s.x == 0 && s.y == 0 && s.z == 0;
    if height != 1 || depth != 1 || !plain(&src) || !plain(&dst) {
        copy_used(copy, Shape::ThreeD, Some(g), WHAT);
        return;
    }
    let bytes = width;
    let device = |p: u64| {
        check::used_span(p, p + bytes as u64, None, WHAT);
        check::enqueued(g, Kind::DeviceMemory, p as usize);
    };
    match (src.memory_type, dst.memory_type) {
        (1, 2) => {
            device(dst.device);
            check::enqueued(g, Kind::HostMemory, src.host as usize);
            check::host_enqueued(g, src.host, bytes, false, 0);
            let op = work::DataOp::FromHost {
                dst: dst.device,
                src: src.host.cast_const(),
                bytes,
            };
            check::data_op(g, op, WHAT);
        }
        (2, 1) => {
            device(src.device);
            check::enqueued(g, Kind::HostMemory, dst.host as usize);
            check::host_enqueued(g, dst.host, bytes, true, src.device);
        }
        (2, 2) => {
            device(src.device);
            device(dst.device);
            let op = work::DataOp::Copy {
                dst: dst.device,
                src: src.device,
                bytes,
            };
            check::data_op(g, op, WHAT);
        }
        _ => copy_used(copy, Shape::ThreeD, Some(g), WHAT),
    }
}

unsafe fn new_handle(h: *mut Handle, kind: Kind) -> CUresult {
    let new = handle();
    check::created(kind, new as usize, 0);
    out(h, new);
    CUDA_SUCCESS
}

/// A new stream with `flags` (`cuStreamCreate`, `cuStreamCreateWithPriority`).
unsafe fn new_stream(h: *mut Handle, flags: c_uint) -> CUresult {
    let new = handle();
    check::created(Kind::Stream, new as usize, 0);
    check::stream_flags(new as usize, flags);
    out(h, new);
    CUDA_SUCCESS
}

/// Whether the 2D/3D copy at `copy` reads or writes host memory (a synchronous one then waits
/// for the copy, and so for the work before it on the legacy default stream).
unsafe fn copy_touches_host(copy: *const c_void, shape: Shape) -> bool {
    if copy.is_null() {
        return false;
    }
    let (src, dst, _) = copy_desc(copy, shape);
    src.memory_type == 1 || dst.memory_type == 1
}

/// `what`, a blocking wait, waits for hung work (`NULLDRIVER_HANG_AT`): in a real process it
/// would never return (or the hang watchdog found no progress for `NULLDRIVER_HANG_IDLE_SECS`).
/// The report is written with the line `hung <what>`, and the process ends at once with
/// `HUNG_EXIT` (no destructor, no other exit handler: the program is still in the middle of
/// its work).
pub(crate) fn hang_exit(what: String) -> ! {
    // Once: a second thread blocking (or the watchdog) must not rewrite the report while the
    // first one's `_exit` ends the process; it waits for that end, as it would wait forever.
    if HANG_EXITING.swap(true, Relaxed) {
        loop {
            std::thread::park();
        }
    }
    check::blocked(what);
    write_report_now();
    // SAFETY: `_exit` has no preconditions; it ends the process without running handlers.
    unsafe { _exit(HUNG_EXIT) }
}

fn checking() -> bool {
    mode::CHECK.load(Relaxed)
}

/// Records a data fault (running past the end of an allocation) as a violation of `what`.
fn data_result<T>(r: Result<T, String>, what: &str) {
    if let Err(e) = r {
        mode::data_violation(what, e);
    }
}

/// A kernel launch, in checking mode: its CPU stand-in runs now (or at each launch of the graph
/// a capture makes), and the launch fails when the stand-in does.
unsafe fn run_kernel(
    f: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    what: &str,
) -> CUresult {
    if !checking() {
        return CUDA_SUCCESS;
    }
    let launch = standin::launch(
        f as usize,
        check::param_sizes(f as usize),
        grid,
        block,
        shared,
        params.cast_const(),
    );
    // A replica's fault (`NULLDRIVER_INJECT`): the launch dropped, or its writes corrupted.
    match inject::next_launch(stream as usize) {
        inject::Action::Run => check::data_op(stream as usize, work::DataOp::Launch(launch), what),
        inject::Action::Drop => CUDA_SUCCESS,
        inject::Action::Flip(bits) => {
            inject::record_writes();
            let r = check::data_op(stream as usize, work::DataOp::Launch(launch), what);
            inject::flip_written(bits);
            r
        }
    }
}

unsafe fn new_address(p: *mut CUdeviceptr, bytes: usize) -> CUresult {
    let new = device_address(bytes);
    check::created_sized(Kind::DeviceMemory, new as usize, 0, bytes as u64);
    data::allocated(new, bytes);
    out(p, new);
    CUDA_SUCCESS
}

/// A stream-ordered allocation (one of a graph's own allocation nodes, when capturing).
unsafe fn stream_address(p: *mut CUdeviceptr, bytes: usize, stream: Handle) -> CUresult {
    let r = new_address(p, bytes);
    if !p.is_null() {
        check::allocated_on(stream as usize, p.read());
    }
    r
}

unsafe fn load_module(module: *mut Handle, image: *const c_void) -> CUresult {
    // Like the driver: a cubin built for another architecture than the device's has no code
    // for it (an sm_80 cubin on the H100; a header that states none is taken as the device's).
    if cubin_sm(image).is_some_and(|sm| sm != 0 && sm != DEVICE_SM) {
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    let new = handle();
    check::created(Kind::Module, new as usize, 0);
    check::module_loaded(new as usize, image);
    out(module, new);
    CUDA_SUCCESS
}

/// The SM a cubin is built for (`e_flags`' low byte, `EF_CUDA_SM*`), for an ELF image of
/// `e_machine` `EM_CUDA`; `None` for anything else.
///
/// # Safety
///
/// `image` is null or the start of a complete image, at least 4 bytes, and of a whole ELF
/// header when it starts with the ELF magic (the driver's contract for a loaded image).
unsafe fn cubin_sm(image: *const c_void) -> Option<u8> {
    if image.is_null() {
        return None;
    }
    let bytes = image.cast::<u8>();
    if bytes.cast::<[u8; 4]>().read_unaligned() != *b"\x7fELF" {
        return None;
    }
    let machine = u16::from_le_bytes(bytes.add(0x12).cast::<[u8; 2]>().read_unaligned());
    (machine == EM_CUDA).then(|| bytes.add(0x30).read())
}

/// The SM of the double's device (compute capability 9.0: an H100).
const DEVICE_SM: u8 = 90;

/// A C string argument, for lookups (empty when null).
unsafe fn name_of(name: *const c_char) -> String {
    if name.is_null() {
        String::new()
    } else {
        CStr::from_ptr(name).to_string_lossy().into_owned()
    }
}

unsafe fn create_context(ctx: *mut Handle) -> CUresult {
    let new = handle();
    check::created(Kind::Context, new as usize, 0);
    out(ctx, new);
    // Like the driver: the new context is pushed on the calling thread.
    with_stack(|s| s.push(new))
}

unsafe fn error_text(code: CUresult, s: *mut *const c_char, name: bool) -> CUresult {
    let text: Option<(&CStr, &CStr)> = match code {
        0 => Some((c"CUDA_SUCCESS", c"no error")),
        1 => Some((c"CUDA_ERROR_INVALID_VALUE", c"invalid argument")),
        2 => Some((c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory")),
        3 => Some((c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error")),
        201 => Some((c"CUDA_ERROR_INVALID_CONTEXT", c"invalid device context")),
        209 => Some((
            c"CUDA_ERROR_NO_BINARY_FOR_GPU",
            c"no kernel image is available for execution on the device",
        )),
        500 => Some((c"CUDA_ERROR_NOT_FOUND", c"named symbol not found")),
        _ => None,
    };
    match text {
        Some((n, d)) => {
            out(s, if name { n.as_ptr() } else { d.as_ptr() });
            CUDA_SUCCESS
        }
        None => {
            out(s, core::ptr::null());
            CUDA_ERROR_INVALID_VALUE
        }
    }
}

unsafe fn get_proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    status: *mut c_int,
) -> CUresult {
    const FOUND: c_int = 0;
    const NOT_FOUND: c_int = 1;
    const VERSION_NOT_SUFFICIENT: c_int = 2;
    if symbol.is_null() || pfn.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let name = CStr::from_ptr(symbol).to_bytes();
    // The double's own extensions (a real driver has no such symbols): custack's `StandIn`, and
    // the driver version a checking program asks the double to report.
    let extension: Option<*mut c_void> = match name {
        b"custackCheckdriverSetStandIn" => Some(custackCheckdriverSetStandIn as *mut c_void),
        b"custackCheckdriverSetDriverVersion" => {
            Some(custackCheckdriverSetDriverVersion as *mut c_void)
        }
        b"custackCheckdriverLeftBehind" => Some(custackCheckdriverLeftBehind as *mut c_void),
        b"custackCheckdriverCalls" => Some(custackCheckdriverCalls as *mut c_void),
        b"custackCheckdriverFailNext" => Some(custackCheckdriverFailNext as *mut c_void),
        _ => None,
    };
    if let Some(f) = extension {
        pfn.write(f);
        out(status, FOUND);
        return CUDA_SUCCESS;
    }
    // The ABI that `version` selects where the names differ (`cuCtxCreate` is `_v4` from
    // 12.5); otherwise the `_v2` symbol first, as the real driver does for the versions asked.
    let mut resolved: &[u8] = name;
    let mut f = null_mut();
    if name == b"cuCtxCreate" && version >= 12050 {
        resolved = b"cuCtxCreate_v4";
        f = lookup(resolved);
    }
    let mut versioned = [0u8; 128];
    if f.is_null()
        && let Some(buf) = versioned.get_mut(..name.len() + 3)
    {
        buf[..name.len()].copy_from_slice(name);
        buf[name.len()..].copy_from_slice(b"_v2");
        f = lookup(buf);
    }
    if f.is_null() {
        f = lookup(name);
    }
    // An entry point newer than the baseline: only from its version on.
    let mut answer = if f.is_null() { NOT_FOUND } else { FOUND };
    if let Some(&(_, introduced)) = NEWER.iter().find(|(n, _)| *n == resolved) {
        if REPORTED_VERSION.load(Relaxed) < introduced {
            answer = NOT_FOUND;
        } else if version < introduced {
            answer = VERSION_NOT_SUFFICIENT;
        }
    }
    if answer == FOUND {
        pfn.write(f);
        out(status, FOUND);
        CUDA_SUCCESS
    } else {
        pfn.write(null_mut());
        out(status, answer);
        CUDA_ERROR_NOT_FOUND
    }
}

/// The double's extension for checking programs: from now on, `cuDriverGetVersion` reports
/// `version` (e.g. 13000), and `cuGetProcAddress` finds the entry points of `NEWER` up to it.
/// Found through `cuGetProcAddress("custackCheckdriverSetDriverVersion")` (a program that
/// links a real driver finds nothing); not a driver call, so neither counted nor failed.
/// Returns 0, or `CUDA_ERROR_INVALID_VALUE` for a version before the 12.2 baseline.
#[unsafe(no_mangle)]
pub extern "C" fn custackCheckdriverSetDriverVersion(version: c_int) -> CUresult {
    if version < DRIVER_VERSION {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // The differential run's ceiling (`NULLDRIVER_DRIVER_VERSION_MAX`): the real driver's.
    REPORTED_VERSION.store(version.min(trace::version_ceiling()), Relaxed);
    CUDA_SUCCESS
}

/// The double's extension for checking programs: the number of driver calls made so far in
/// this process (the report's `calls`), so that a program can show that something made none.
/// Found through `cuGetProcAddress("custackCheckdriverCalls")`; not a driver call, so neither
/// counted nor failed.
#[unsafe(no_mangle)]
pub extern "C" fn custackCheckdriverCalls() -> u64 {
    check::calls()
}

/// The double's extension for the program under test (custack calls it): the handle `handle`
/// (with `bytes` other than 0: every handle of that kind starting in `handle..handle + bytes`,
/// as a mapping made of several pieces),
/// of the kind named `kind` (`DeviceMemory`, `HostMemory`, `Module`, `GraphExec`, `Stream`,
/// `Event`, `Reservation`, `PhysicalMemory`, `Mapping`, `Context`, `GreenContext`, `Graph`,
/// `Library`, `Array`, `MipmappedArray`, `TexObject`, `SurfObject`, `IpcMemory`; `PeerAccess`
/// with the peer context as the handle: the calling thread's current context's access to it),
/// is left behind on purpose (work may still use it: a submission whose wait failed leaks its
/// payload rather than free it; after a sticky error nothing is released, R20). A context
/// left behind leaves every handle of it behind too. It is then reported as left behind, not as an orphan or a
/// leak; any other handle the program leaves still is one. Found through
/// `cuGetProcAddress("custackCheckdriverLeftBehind")`; not a driver call, so neither counted
/// nor failed. Returns 0, or `CUDA_ERROR_INVALID_VALUE` (and a violation) for a kind it does not
/// know or a handle that is not live.
///
/// # Safety
///
/// `kind` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverLeftBehind(
    kind: *const c_char,
    handle: u64,
    bytes: u64,
) -> CUresult {
    if kind.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the caller's promise.
    let name = unsafe { CStr::from_ptr(kind) }.to_bytes();
    let kind = match name {
        b"DeviceMemory" => Kind::DeviceMemory,
        b"HostMemory" => Kind::HostMemory,
        b"Module" => Kind::Module,
        b"GraphExec" => Kind::GraphExec,
        b"Stream" => Kind::Stream,
        b"Event" => Kind::Event,
        b"Reservation" => Kind::Reservation,
        b"PhysicalMemory" => Kind::Physical,
        b"Mapping" => Kind::Mapping,
        b"Context" => Kind::Context,
        b"GreenContext" => Kind::GreenContext,
        b"Graph" => Kind::Graph,
        b"Library" => Kind::Library,
        b"Array" => Kind::Array,
        b"MipmappedArray" => Kind::MipmappedArray,
        b"TexObject" => Kind::TexObject,
        b"SurfObject" => Kind::SurfObject,
        b"IpcMemory" => Kind::IpcMemory,
        b"PeerAccess" => {
            return if check::peer_left_behind(handle as usize) {
                CUDA_SUCCESS
            } else {
                CUDA_ERROR_INVALID_VALUE
            };
        }
        _ => {
            mode::data_violation(
                "custackCheckdriverLeftBehind",
                format!("unknown kind {:?}", String::from_utf8_lossy(name)),
            );
            return CUDA_ERROR_INVALID_VALUE;
        }
    };
    if check::left_behind(kind, handle as usize, bytes as usize) {
        CUDA_SUCCESS
    } else {
        CUDA_ERROR_INVALID_VALUE
    }
}

/// Allocations exported to OS handles, and the handle types each physical allocation may be
/// exported to (`cuMemExportToShareableHandle`, `cuMemImportFromShareableHandle`).
mod share {
    use super::{CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED, CUDA_SUCCESS, CUresult};
    use core::ffi::{c_int, c_ulonglong, c_void};
    use std::collections::HashMap;
    use std::sync::Mutex;

    const POSIX_FILE_DESCRIPTOR: c_int = 0x1;
    const FABRIC: c_int = 0x8;
    /// The first 8 bytes of an exported handle's contents (`contents`).
    const MARKER: &[u8; 8] = b"custkvmm";

    #[derive(Default)]
    struct Share {
        /// Per physical allocation: its size and `requestedHandleTypes`.
        physical: HashMap<c_ulonglong, (usize, c_int)>,
        /// Exports made so far (each one's token is its number).
        exported: usize,
        /// Under Miri: the contents of each descriptor exported (by its number).
        #[cfg(miri)]
        miri_fds: HashMap<c_int, [u8; 32]>,
    }
    static SHARE: Mutex<Option<Share>> = Mutex::new(None);

    fn with<R>(f: impl FnOnce(&mut Share) -> R) -> R {
        let mut guard = SHARE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(guard.get_or_insert_with(Share::default))
    }

    pub(super) fn created(h: c_ulonglong, size: usize, requested: c_int) {
        with(|s| s.physical.insert(h, (size, requested)));
    }

    pub(super) fn requested(h: c_ulonglong) -> c_int {
        with(|s| s.physical.get(&h).map_or(0, |&(_, r)| r))
    }

    /// The 32 bytes naming an export: the marker, a token, the allocation's size and handle
    /// types, so that an import in another process (the example and the GPU test, run against
    /// the double) finds them too.
    fn contents(token: usize, size: usize, requested: c_int) -> [u8; 32] {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(MARKER);
        bytes[8..16].copy_from_slice(&(token as u64).to_le_bytes());
        bytes[16..24].copy_from_slice(&(size as u64).to_le_bytes());
        bytes[24..28].copy_from_slice(&requested.to_le_bytes());
        bytes
    }

    /// The size and handle types a handle's 32 bytes name, if they are one of ours.
    fn named(bytes: &[u8; 32]) -> Option<(usize, c_int)> {
        if &bytes[..8] != MARKER {
            return None;
        }
        let size = u64::from_le_bytes(bytes[16..24].try_into().ok()?);
        let requested = c_int::from_le_bytes(bytes[24..28].try_into().ok()?);
        Some((usize::try_from(size).ok()?, requested))
    }

    pub(super) unsafe fn export(os: *mut c_void, h: c_ulonglong, kind: c_int) -> CUresult {
        let Some((size, requested)) = with(|s| s.physical.get(&h).copied()) else {
            return CUDA_ERROR_INVALID_VALUE;
        };
        // The driver exports only to a type the allocation was created for.
        if requested & kind == 0 || (kind != POSIX_FILE_DESCRIPTOR && kind != FABRIC) {
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        let token = with(|s| {
            s.exported += 1;
            s.exported
        });
        let bytes = contents(token, size, requested);
        if kind == FABRIC {
            let mut handle = [0u8; 64];
            handle[..32].copy_from_slice(&bytes);
            os.cast::<[u8; 64]>().write(handle);
            return CUDA_SUCCESS;
        }
        let Some(fd) = descriptor_holding(&bytes) else {
            return super::CUDA_ERROR_OUT_OF_MEMORY;
        };
        os.cast::<c_int>().write(fd);
        CUDA_SUCCESS
    }

    /// A new descriptor whose file holds `bytes`: a memfd.
    #[cfg(not(miri))]
    unsafe fn descriptor_holding(bytes: &[u8; 32]) -> Option<c_int> {
        let fd = memfd_create(c"custack-checkdriver-export".as_ptr(), MFD_CLOEXEC);
        if fd < 0 {
            return None;
        }
        if pwrite(fd, bytes.as_ptr().cast(), bytes.len(), 0) != bytes.len() as isize {
            close(fd);
            return None;
        }
        Some(fd)
    }

    /// The 32 bytes the file of descriptor `fd` holds, if it can be read without blocking.
    #[cfg(not(miri))]
    unsafe fn contents_of(fd: c_int) -> Option<[u8; 32]> {
        let mut bytes = [0u8; 32];
        // Reads without moving the file offset, and fails at once (`ESPIPE`, `EBADF`) on a
        // socket, pipe or closed descriptor.
        let n = pread(fd, bytes.as_mut_ptr().cast(), bytes.len(), 0);
        (n == bytes.len() as isize).then_some(bytes)
    }

    /// Under Miri, which has no memfd: an eventfd, whose number the double remembers with
    /// `bytes` (the checking program moves the descriptor there instead of sending it, so the
    /// number names it on import).
    #[cfg(miri)]
    unsafe fn descriptor_holding(bytes: &[u8; 32]) -> Option<c_int> {
        const EFD_CLOEXEC: c_int = 0o2_000_000;
        let fd = eventfd(0, EFD_CLOEXEC);
        if fd < 0 {
            return None;
        }
        with(|s| s.miri_fds.insert(fd, *bytes));
        Some(fd)
    }

    #[cfg(miri)]
    unsafe fn contents_of(fd: c_int) -> Option<[u8; 32]> {
        with(|s| s.miri_fds.get(&fd).copied())
    }

    /// Closes a descriptor `export` made (for the tests).
    #[cfg(all(test, not(miri)))]
    pub(super) fn close_fd(fd: c_int) {
        // SAFETY: a descriptor the caller owns, closed once.
        unsafe { close(fd) };
    }

    /// The size and handle types of the allocation `os` names (a descriptor's value, or a
    /// pointer to a fabric handle), if it is one the double exported (in any process).
    pub(super) unsafe fn import(os: *mut c_void, kind: c_int) -> Option<(usize, c_int)> {
        match kind {
            FABRIC if !os.is_null() => {
                let handle = os.cast::<[u8; 64]>().read();
                named(handle[..32].try_into().ok()?)
            }
            POSIX_FILE_DESCRIPTOR => {
                let fd = c_int::try_from(os.addr()).ok()?;
                named(&contents_of(fd)?)
            }
            _ => None,
        }
    }

    #[cfg(not(miri))]
    const MFD_CLOEXEC: core::ffi::c_uint = 1;
    #[cfg(miri)]
    unsafe extern "C" {
        fn eventfd(initval: core::ffi::c_uint, flags: c_int) -> c_int;
    }
    #[cfg(not(miri))]
    unsafe extern "C" {
        fn memfd_create(name: *const core::ffi::c_char, flags: core::ffi::c_uint) -> c_int;
        fn pwrite(fd: c_int, buf: *const c_void, count: usize, offset: i64) -> isize;
        fn pread(fd: c_int, buf: *mut c_void, count: usize, offset: i64) -> isize;
        fn close(fd: c_int) -> c_int;
    }
}

unsafe extern "C" {
    fn posix_memalign(p: *mut *mut c_void, align: usize, size: usize) -> c_int;
    fn free(p: *mut c_void);
    fn atexit(f: extern "C" fn()) -> c_int;
    fn _exit(status: c_int) -> !;
}

// ---------------------------------------------------------------------------------------------
// The checking mode from Rust: for a program that links the double as an rlib (`extern crate
// cuda as _;` or a renamed dependency) instead of loading `libcuda.so`, as under Miri, where
// the environment is isolated (and `cargo miri run` replays the environment of the build).

/// Turns the checking mode on, as `NULLDRIVER_CHECK=1` does at load, failing call `fail_at`
/// and turning sticky from call `sticky_at` on (0: never), as `NULLDRIVER_FAIL_AT` and
/// `NULLDRIVER_STICKY_AT` do.
pub fn start_checking(fail_at: u64, sticky_at: u64) {
    check::start(fail_at, sticky_at, 0);
}

/// [`start_checking`] with no call failed, and the first asynchronous enqueue at or after call
/// `hang_at` never completing, as `NULLDRIVER_HANG_AT` does.
pub fn start_hanging(hang_at: u64) {
    check::start(0, 0, hang_at);
}

/// The report `NULLDRIVER_REPORT` receives at exit: `calls`, `failed`, `violations`, `leaks`,
/// `stacks`, `orphans`, `left`, then one line per violation, orphan, leak and handle left
/// behind, then `enqueues` (the call numbers of the asynchronous enqueues), `hang-at` (under
/// `NULLDRIVER_HANG_AT`) and `hung` (a blocking wait on hung work ended the process).
pub fn report() -> String {
    check::report()
}

/// Reads the environment as loading `libcuda.so` does (`NULLDRIVER_CHECK`, `NULLDRIVER_FAIL_AT`,
/// `NULLDRIVER_STICKY_AT`, `NULLDRIVER_REPEAT_AT`, `NULLDRIVER_FAIL_CODE`, `NULLDRIVER_HANG_AT`, `NULLDRIVER_REPORT`,
/// `NULLDRIVER_DUMP`), for a
/// program that links the double as an rlib, so that `custack-check` can run it. Only the
/// first call (or the load) acts.
pub fn start_from_env() {
    on_load();
}

/// The number of violations recorded so far (0 when checking is off).
pub fn violation_count() -> usize {
    mode::violation_count()
}

// ---------------------------------------------------------------------------------------------
// The counters, for the benchmark.

/// Turns call counting on (`on != 0`) or off.
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_set_counting(on: c_int) {
    COUNTING.store(on != 0, Relaxed);
}

/// The number of entry points (and counters).
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_entry_count() -> usize {
    ENTRY_COUNT
}

/// The NUL-terminated name of entry point `i`, or null past the end.
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_entry_name(i: usize) -> *const c_char {
    NAMES
        .get(i)
        .map_or(core::ptr::null(), |n| n.as_ptr().cast())
}

/// Copies up to `cap` call counters into `out`, in entry point order; returns how many exist.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nulldriver_counts(out: *mut u64, cap: usize) -> usize {
    if !out.is_null() {
        for (i, c) in COUNTS.iter().enumerate().take(cap) {
            out.add(i).write(c.load(Relaxed));
        }
    }
    ENTRY_COUNT
}

extern "C" fn dump_counts() {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "nulldriver: calls per entry point");
    for (name, c) in NAMES.iter().zip(COUNTS.iter()) {
        let n = c.load(Relaxed);
        if n != 0 {
            let _ = writeln!(err, "{n:>12} {}", name.trim_end_matches('\0'));
        }
    }
}

/// Set by the first `hang_exit`: the process is ending with the report it writes.
static HANG_EXITING: AtomicBool = AtomicBool::new(false);

/// At exit: the report, unless a hang's exit is writing it.
extern "C" fn write_report() {
    // A forked child's exit writes none: the report is the parent's, which counts the calls its
    // forked children made (`forked-calls`).
    if !HANG_EXITING.load(Relaxed) && !check::in_forked_child() {
        write_report_now();
    }
}

fn write_report_now() {
    use std::io::Write;
    let text = check::report();
    match std::env::var_os("NULLDRIVER_REPORT") {
        Some(path) if !path.is_empty() => {
            let _ = std::fs::write(path, text);
        }
        _ => {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
}

extern "C" fn on_load() {
    // Once: a program that links the double as an rlib may also call `start_from_env`.
    static LOADED: AtomicBool = AtomicBool::new(false);
    if LOADED.swap(true, Relaxed) {
        return;
    }
    trace::init();
    if check::init() {
        // SAFETY: registers a function with no preconditions.
        unsafe { atexit(write_report) };
        check::watch_forks();
    }
    if let Some(v) = std::env::var("NULLDRIVER_DRIVER_VERSION")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        let _ = custackCheckdriverSetDriverVersion(v);
    }
    if std::env::var_os("NULLDRIVER_DUMP").is_some_and(|v| !v.is_empty() && v != "0") {
        COUNTING.store(true, Relaxed);
        // SAFETY: registers a function with no preconditions.
        unsafe { atexit(dump_counts) };
    }
}

#[used]
#[unsafe(link_section = ".init_array")]
static ON_LOAD: extern "C" fn() = on_load;

// ---------------------------------------------------------------------------------------------
// The checking mode's own tests: one deliberately wrong raw call sequence per violation kind,
// each of which must be reported (one test, so the global record is read in order).

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` and returns how many orphans it recorded.
    fn orphans_of(f: impl FnOnce()) -> usize {
        let before = check::orphan_count();
        f();
        check::orphan_count() - before
    }

    /// Runs `f` and returns how many violations it recorded.
    fn violations_of(f: impl FnOnce()) -> usize {
        let before = mode::violation_count();
        f();
        mode::violation_count() - before
    }

    unsafe fn ctx() -> Handle {
        let mut c = null_mut();
        assert_eq!(cuCtxCreate_v2(&raw mut c, 0, 0), CUDA_SUCCESS);
        c
    }

    /// The tests share the double's global record: one at a time.
    fn serial() -> std::sync::MutexGuard<'static, ()> {
        static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
        SERIAL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[test]
    fn launch_arguments_views_and_globals_are_checked() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let ptx = concat!(include_str!("../../tests/fixtures/kernels.ptx"), "\0");
            let mut m = null_mut();
            assert_eq!(
                cuModuleLoadData(&raw mut m, ptx.as_ptr().cast()),
                CUDA_SUCCESS
            );
            let mut f = null_mut();
            assert_eq!(
                cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr()),
                CUDA_SUCCESS
            );
            let mut missing = null_mut();
            assert_eq!(
                cuModuleGetFunction(&raw mut missing, m, c"no_such_kernel".as_ptr()),
                CUDA_ERROR_NOT_FOUND
            );
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            // add_u32(unsigned* x, unsigned k, unsigned n): the double reads 8 + 4 + 4 bytes.
            let launch = |x: u64| {
                let (mut x, mut k, mut n) = (x, 1u32, 16u32);
                let mut args: [*mut c_void; 3] = [
                    (&raw mut x).cast(),
                    (&raw mut k).cast(),
                    (&raw mut n).cast(),
                ];
                let _ = cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, s, args.as_mut_ptr(), null_mut());
            };
            assert_eq!(
                violations_of(|| {
                    launch(d);
                    launch(d + 16); // a view at an offset
                    let _ = cuStreamSynchronize(s);
                    let _ = cuMemsetD8_v2(d + 8, 0, 8);
                }),
                0,
                "correct launches and views"
            );
            assert_eq!(
                violations_of(|| {
                    launch(d + 16);
                    let _ = cuMemFree_v2(d);
                }),
                1,
                "memory freed while a launch may use it (through a view)"
            );
            let _ = cuStreamSynchronize(s);
            assert_eq!(
                violations_of(|| launch(d + 8)),
                1,
                "argument into freed memory"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemsetD8_v2(d + 32, 0, 8);
                }),
                1,
                "a view of freed memory"
            );
            let mut d2 = 0;
            let _ = cuMemAlloc_v2(&raw mut d2, 64);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d2 + 8);
                }),
                1,
                "free of an address inside an allocation"
            );
            let _ = cuMemFree_v2(d2);
            let b = ctx();
            let mut other = 0;
            let _ = cuMemAlloc_v2(&raw mut other, 64);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p); // a is current again
            assert_eq!(
                violations_of(|| launch(other + 4)),
                1,
                "argument into memory of another context"
            );
            // Module variables: found with their PTX size, and they die with their module.
            let (mut g, mut bytes) = (0, 0);
            assert_eq!(
                cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"counters".as_ptr()),
                CUDA_SUCCESS
            );
            assert_eq!(bytes, 16);
            assert_eq!(
                cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"no_such_global".as_ptr()),
                CUDA_ERROR_NOT_FOUND
            );
            let (mut g, mut bytes) = (0, 0);
            let _ = cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"counters".as_ptr());
            let _ = cuStreamSynchronize(s); // its kernels are done: it may be unloaded
            let _ = cuModuleUnload(m);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemsetD32_v2(g + 4, 0, 1);
                }),
                1,
                "a variable of an unloaded module"
            );
            let _ = cuStreamDestroy_v2(s);
            let _ = cuCtxPushCurrent_v2(b);
            let _ = cuMemFree_v2(other);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(b);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    /// A module (or library) unloaded while a launch of its kernel or an operation on its
    /// global may still run is a violation; once the work is over it is not.
    #[test]
    fn a_module_unloaded_under_its_kernels_or_globals_is_a_violation() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let ptx = concat!(include_str!("../../tests/fixtures/kernels.ptx"), "\0");
            let load = || {
                let mut m = null_mut();
                assert_eq!(
                    cuModuleLoadData(&raw mut m, ptx.as_ptr().cast()),
                    CUDA_SUCCESS
                );
                let mut f = null_mut();
                assert_eq!(
                    cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr()),
                    CUDA_SUCCESS
                );
                (m, f)
            };
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let launch = |f: Handle| {
                let (mut x, mut k, mut n) = (d, 1u32, 16u32);
                let mut args: [*mut c_void; 3] = [
                    (&raw mut x).cast(),
                    (&raw mut k).cast(),
                    (&raw mut n).cast(),
                ];
                let _ = cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, s, args.as_mut_ptr(), null_mut());
            };
            let (m, f) = load();
            launch(f);
            assert_eq!(
                violations_of(|| {
                    let _ = cuModuleUnload(m);
                }),
                1,
                "unloaded while its kernel may run"
            );
            let _ = cuStreamSynchronize(s);
            let (m, f) = load();
            launch(f);
            let _ = cuStreamSynchronize(s);
            assert_eq!(
                violations_of(|| {
                    let _ = cuModuleUnload(m);
                }),
                0,
                "unloaded once its kernel is done"
            );
            let (m, _) = load();
            let (mut g, mut bytes) = (0, 0);
            let _ = cuModuleGetGlobal_v2(&raw mut g, &raw mut bytes, m, c"counters".as_ptr());
            let _ = cuMemsetD32Async(g, 0, 4, s);
            assert_eq!(
                violations_of(|| {
                    let _ = cuModuleUnload(m);
                }),
                1,
                "unloaded while a memset of its global may run"
            );
            let _ = cuStreamSynchronize(s);
            let _ = cuMemFree_v2(d);
            let _ = cuStreamDestroy_v2(s);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    /// `add_u32(x, k, n)`'s stand-in: x[i] += k for i < n, through the double's read and write.
    unsafe extern "C" fn add_u32_on_cpu(data: *mut c_void, l: *const StandInLaunch) -> c_int {
        let l = &*l;
        assert_eq!(l.size, size_of::<StandInLaunch>());
        assert_eq!(CStr::from_ptr(l.name), c"add_u32");
        assert_eq!((l.n_args, l.grid, l.block), (3, [1, 1, 1], [16, 1, 1]));
        let arg = |i: usize| (*l.args.add(i), *l.arg_sizes.add(i));
        let (x, x_size) = arg(0);
        assert_eq!(x_size, 8);
        let x = x.cast::<u64>().read_unaligned();
        let k = arg(1).0.cast::<u32>().read_unaligned();
        let n = arg(2).0.cast::<u32>().read_unaligned() as usize;
        let mut v = vec![0u32; n];
        if (l.read)(x, v.as_mut_ptr().cast(), n * 4) != 0 {
            return 1;
        }
        for e in &mut v {
            *e += k;
        }
        *data.cast::<u32>() += 1; // runs
        (l.write)(x, v.as_ptr().cast(), n * 4)
    }

    /// A module left behind (never unloaded under work that may run it) leaves its functions
    /// behind with it: at exit they are reported as left on purpose, not as leaks.
    #[test]
    fn a_module_left_behind_leaves_its_functions_with_it() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let _c = ctx();
            let ptx = concat!(include_str!("../../tests/fixtures/kernels.ptx"), "\0");
            let mut m = null_mut();
            assert_eq!(
                cuModuleLoadData(&raw mut m, ptx.as_ptr().cast()),
                CUDA_SUCCESS
            );
            let mut f = null_mut();
            assert_eq!(
                cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr()),
                CUDA_SUCCESS
            );
            let leak = format!("leak: Function {:#x}", f as usize);
            assert!(check::report().contains(&leak));
            assert_eq!(
                custackCheckdriverLeftBehind(c"Module".as_ptr(), m as u64, 0),
                0
            );
            let report = check::report();
            assert!(!report.contains(&leak), "{report}");
            let left = format!("left-behind: Function {:#x}", f as usize);
            assert!(report.contains(&left), "{report}");
        }
    }

    #[test]
    fn copies_memsets_and_stand_ins_move_data() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let c = ctx();
            let ptx = concat!(include_str!("../../tests/fixtures/kernels.ptx"), "\0");
            let mut m = null_mut();
            assert_eq!(
                cuModuleLoadData(&raw mut m, ptx.as_ptr().cast()),
                CUDA_SUCCESS
            );
            let mut f = null_mut();
            assert_eq!(
                cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr()),
                CUDA_SUCCESS
            );
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let host: Vec<u32> = (0..16).collect();
            let _ = cuMemcpyHtoDAsync_v2(d, host.as_ptr().cast(), 64, s);
            let mut runs = 0u32;
            let launch = || {
                let (mut x, mut k, mut n) = (d, 100u32, 16u32);
                let mut args: [*mut c_void; 3] = [
                    (&raw mut x).cast(),
                    (&raw mut k).cast(),
                    (&raw mut n).cast(),
                ];
                cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, s, args.as_mut_ptr(), null_mut())
            };
            // Without a stand-in the kernel does nothing, and is counted (other tests launch
            // it too: the count grows by one).
            let without = || {
                check::report()
                    .lines()
                    .find_map(|l| l.strip_prefix("no-stand-in add_u32 "))
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            let before = without();
            assert_eq!(launch(), CUDA_SUCCESS);
            assert_eq!(without(), before + 1);
            let data = (&raw mut runs).cast();
            assert_eq!(
                custackCheckdriverSetStandIn(c"add_u32".as_ptr(), Some(add_u32_on_cpu), data, None),
                0
            );
            assert_eq!(launch(), CUDA_SUCCESS);
            assert_eq!(runs, 1);
            let mut back = vec![0u32; 16];
            let _ = cuMemcpyDtoHAsync_v2(back.as_mut_ptr().cast(), d, 64, s);
            let _ = cuStreamSynchronize(s);
            assert_eq!(back, (100..116).collect::<Vec<u32>>());
            // A memset, a device-to-device copy, a synchronous copy back.
            let mut e = 0;
            let _ = cuMemAlloc_v2(&raw mut e, 64);
            let _ = cuMemsetD32_v2(d + 8, 7, 2);
            let _ = cuMemcpyDtoD_v2(e, d, 64);
            let _ = cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), e, 64);
            assert_eq!(&back[..4], &[100, 101, 7, 7]);
            // Running past the end of an allocation is a violation, and moves nothing.
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemcpyHtoD_v2(e + 32, host.as_ptr().cast(), 64);
                }),
                1
            );
            // Removed: the kernel does nothing again.
            assert_eq!(
                custackCheckdriverSetStandIn(c"add_u32".as_ptr(), None, null_mut(), None),
                0
            );
            assert_eq!(launch(), CUDA_SUCCESS);
            assert_eq!(runs, 1);
            let _ = cuMemFree_v2(e);
            let _ = cuMemFree_v2(d);
            let _ = cuStreamDestroy_v2(s);
            let _ = cuModuleUnload(m);
            let _ = cuCtxDestroy_v2(c);
        }
    }

    // The driver's event waits accept an event of another context (the CUDA
    // Programming Guide's multi-device stream and event behaviour; `cuStreamWaitEvent`'s
    // documentation); every other use of the event still needs its own context current.
    #[test]
    fn events_are_waited_for_from_another_context() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut sa = null_mut();
            let _ = cuStreamCreate(&raw mut sa, 0);
            let mut e = null_mut();
            let _ = cuEventCreate(&raw mut e, 0);
            let _ = cuEventRecord(e, sa);
            let b = ctx(); // pushed over a
            let mut sb = null_mut();
            let _ = cuStreamCreate(&raw mut sb, 0);
            assert_eq!(
                violations_of(|| {
                    let _ = cuStreamWaitEvent(sb, e, 0);
                    let _ = cuEventQuery(e);
                    let _ = cuEventSynchronize(e);
                }),
                0,
                "waits on an event of another context"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuEventRecord(e, sb);
                }),
                1,
                "recording an event of another context (on a stream of this one)"
            );
            let mut p = null_mut();
            let _ = cuStreamDestroy_v2(sb);
            let _ = cuCtxPopCurrent_v2(&raw mut p); // a is current again
            let _ = cuEventDestroy_v2(e);
            let _ = cuStreamDestroy_v2(sa);
            let _ = cuCtxDestroy_v2(b);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn graphs_and_stream_waits_are_modelled() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let (mut one, mut two) = (null_mut(), null_mut());
            let _ = cuStreamCreate(&raw mut one, 0);
            let _ = cuStreamCreate(&raw mut two, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            // Work on `one` that `two` waits for completes when `two` is synchronized.
            let mut ev = null_mut();
            let _ = cuEventCreate(&raw mut ev, 0);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemsetD8Async(d, 0, 64, one);
                    let _ = cuEventRecord(ev, one);
                    let _ = cuStreamWaitEvent(two, ev, 0);
                    let _ = cuStreamSynchronize(two);
                }),
                0,
                "a wait completes the work it waited for"
            );
            // A captured memset runs at each launch, not at capture.
            let (mut graph, mut exec) = (null_mut(), null_mut());
            let _ = cuStreamBeginCapture_v2(one, 0);
            let mut captured = 0;
            assert_eq!(cuStreamIsCapturing(one, &raw mut captured), CUDA_SUCCESS);
            assert_eq!(captured, 1);
            let _ = cuMemsetD8Async(d, 0, 64, one);
            let _ = cuStreamEndCapture(one, &raw mut graph);
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            let mut n = 0;
            let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
            assert_eq!(n, 1);
            // One node per operation, however many buffers each uses: a copy between two
            // buffers, a copy to the host, a copy from it, a memset.
            let (mut e, mut host) = (0, null_mut());
            let _ = cuMemAlloc_v2(&raw mut e, 64);
            let _ = cuMemHostAlloc(&raw mut host, 64, 0);
            let mut four = null_mut();
            let _ = cuStreamBeginCapture_v2(one, 0);
            let _ = cuMemcpyDtoDAsync_v2(e, d, 64, one);
            let _ = cuMemcpyDtoHAsync_v2(host, e, 64, one);
            let _ = cuMemcpyHtoDAsync_v2(d, host, 64, one);
            let _ = cuMemsetD8Async(e, 0, 64, one);
            let _ = cuStreamEndCapture(one, &raw mut four);
            let _ = cuGraphGetNodes(four, null_mut(), &raw mut n);
            assert_eq!(n, 4, "one node per captured operation");
            let _ = cuGraphDestroy(four);
            let _ = cuMemFreeHost(host);
            let _ = cuMemFree_v2(e);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d); // nothing pending: the capture ran nothing
                }),
                0,
                "captured work is not pending"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, one);
                }),
                1,
                "a graph launched over freed memory"
            );
            let _ = cuGraphExecDestroy(exec);
            let _ = cuGraphDestroy(graph);
            assert_eq!(
                violations_of(|| {
                    let _ = cuGraphDestroy(graph);
                }),
                1,
                "a graph destroyed twice"
            );
            let _ = cuEventDestroy_v2(ev);
            let _ = cuStreamDestroy_v2(one);
            let _ = cuStreamDestroy_v2(two);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn graphs_built_node_by_node_are_modelled() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut one = null_mut();
            let _ = cuStreamCreate(&raw mut one, 0);
            let (mut d, mut e, mut host) = (0, 0, null_mut());
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let _ = cuMemAlloc_v2(&raw mut e, 64);
            let _ = cuMemHostAlloc(&raw mut host, 64, 0);
            let (mut graph, mut child, mut exec) = (null_mut(), null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut child, 0);
            let mut node = null_mut();
            // CUDA_MEMSET_NODE_PARAMS: 64 bytes of `e` set to 7.
            let mut memset = [0u8; 40];
            memset[0..8].copy_from_slice(&e.to_ne_bytes());
            memset[16..20].copy_from_slice(&7u32.to_ne_bytes());
            memset[20..24].copy_from_slice(&1u32.to_ne_bytes());
            memset[24..32].copy_from_slice(&64usize.to_ne_bytes());
            memset[32..40].copy_from_slice(&1usize.to_ne_bytes());
            let set = memset.as_ptr().cast();
            assert_eq!(
                cuGraphAddMemsetNode(&raw mut node, child, core::ptr::null(), 0, set, a),
                CUDA_SUCCESS
            );
            let _ = cuGraphCreate(&raw mut graph, 0);
            let mut memset_d = memset;
            memset_d[0..8].copy_from_slice(&d.to_ne_bytes());
            let set_d = memset_d.as_ptr().cast();
            let mut first = null_mut();
            let _ = cuGraphAddMemsetNode(&raw mut first, graph, core::ptr::null(), 0, set_d, a);
            // CUDA_MEMCPY3D: 64 bytes from `d` to the host, after the memset.
            let mut copy = [0u8; 200];
            copy[32..36].copy_from_slice(&2u32.to_ne_bytes());
            copy[48..56].copy_from_slice(&d.to_ne_bytes());
            copy[120..124].copy_from_slice(&1u32.to_ne_bytes());
            // The host pointer is written as a pointer, keeping its provenance (Miri).
            copy.as_mut_ptr()
                .add(128)
                .cast::<*mut c_void>()
                .write_unaligned(host);
            copy[176..184].copy_from_slice(&64usize.to_ne_bytes());
            copy[184..192].copy_from_slice(&1usize.to_ne_bytes());
            copy[192..200].copy_from_slice(&1usize.to_ne_bytes());
            let deps = [first];
            let _ = cuGraphAddMemcpyNode(
                &raw mut node,
                graph,
                deps.as_ptr(),
                1,
                copy.as_ptr().cast(),
                a,
            );
            let _ = cuGraphAddChildGraphNode(&raw mut node, graph, core::ptr::null(), 0, child);
            let mut n = 0;
            let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
            assert_eq!(n, 3, "a memset, a copy and a child-graph node");
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            assert_eq!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, one);
                    let _ = cuStreamSynchronize(one);
                }),
                0,
                "a built graph launched over live memory"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(e); // nothing pending: the launch is complete
                }),
                0,
                "a built graph's nodes are not pending work"
            );
            assert!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, one);
                    let _ = cuStreamSynchronize(one);
                }) > 0,
                "a child graph's node over freed memory"
            );
            let _ = cuGraphExecDestroy(exec);
            let _ = cuGraphDestroy(graph);
            let _ = cuGraphDestroy(child);
            let _ = cuMemFree_v2(d);
            let _ = cuMemFreeHost(host);
            let _ = cuStreamDestroy_v2(one);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn conditional_bodies_join_their_graph_s_work_and_take_their_own_handles() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let (mut graph, mut other, mut exec) = (null_mut(), null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut graph, 0);
            let _ = cuGraphCreate(&raw mut other, 0);
            let (mut mine, mut theirs) = (0u64, 0u64);
            assert_eq!(
                cuGraphConditionalHandleCreate(&raw mut mine, graph, a, 1, 1),
                CUDA_SUCCESS
            );
            let _ = cuGraphConditionalHandleCreate(&raw mut theirs, other, a, 1, 1);
            // CUgraphNodeParams of a WHILE node (type 13; handle, type 1, size 1, ctx).
            let node_params = |handle: u64| {
                let mut p = [0u64; 32];
                p[0] = 13;
                p[2] = handle;
                p[3] = 1 | (1 << 32);
                p[5] = a.addr() as u64;
                p
            };
            let none = core::ptr::null();
            let mut node = null_mut();
            let mut p = node_params(theirs);
            assert!(
                violations_of(|| {
                    let r = cuGraphAddNode(&raw mut node, graph, none, 0, p.as_mut_ptr().cast());
                    assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
                }) > 0,
                "a handle of another graph"
            );
            let mut p = node_params(mine);
            assert_eq!(
                violations_of(|| {
                    let r = cuGraphAddNode(&raw mut node, graph, none, 0, p.as_mut_ptr().cast());
                    assert_eq!(r, CUDA_SUCCESS);
                }),
                0
            );
            let body = p.as_ptr().add(4).cast::<*const Handle>().read().read();
            assert!(
                violations_of(|| {
                    let mut q = node_params(mine);
                    let _ = cuGraphAddNode(&raw mut node, graph, none, 0, q.as_mut_ptr().cast());
                }) > 0,
                "a handle taken twice"
            );
            // A memset node of the body: its work is the graph's, checked at each launch.
            let mut memset = [0u64; 5];
            memset[0] = d;
            memset[2] = 4u64 << 32;
            memset[3] = 16;
            memset[4] = 1;
            let mut set = null_mut();
            assert_eq!(
                cuGraphAddMemsetNode(&raw mut set, body, none, 0, memset.as_ptr().cast(), a),
                CUDA_SUCCESS
            );
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            let _ = cuMemFree_v2(d);
            assert!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, s);
                    let _ = cuStreamSynchronize(s);
                }) > 0,
                "the body's buffer freed"
            );
            let _ = cuGraphExecDestroy(exec);
            let _ = cuGraphDestroy(graph);
            let _ = cuGraphDestroy(other);
            let _ = cuStreamDestroy_v2(s);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn captures_into_a_graph_and_nodes_added_to_a_capture_join_that_graph_s_work() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let (mut s, mut t) = (null_mut(), null_mut());
            let _ = cuStreamCreate(&raw mut s, 0);
            let _ = cuStreamCreate(&raw mut t, 0);
            let (mut d, mut e) = (0, 0);
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let _ = cuMemAlloc_v2(&raw mut e, 64);
            let none = core::ptr::null();
            let info = |stream: Handle| {
                let (mut status, mut id, mut graph, mut deps, mut n) =
                    (0, 0u64, null_mut(), core::ptr::null(), 7usize);
                let r = cuStreamGetCaptureInfo_v2(
                    stream,
                    &raw mut status,
                    &raw mut id,
                    &raw mut graph,
                    &raw mut deps,
                    &raw mut n,
                );
                assert_eq!(r, CUDA_SUCCESS);
                assert_eq!(n, 0);
                (status, graph)
            };
            // A capture into a graph being built: its memset is the graph's work.
            let (mut graph, mut exec) = (null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut graph, 0);
            assert_eq!(
                cuStreamBeginCaptureToGraph(t, graph, none, core::ptr::null(), 0, 1),
                CUDA_SUCCESS
            );
            assert_eq!(info(t), (1, graph));
            assert_eq!(cuMemsetD32Async(d, 1, 16, t), CUDA_SUCCESS);
            let mut ended = null_mut();
            assert_eq!(cuStreamEndCapture(t, &raw mut ended), CUDA_SUCCESS);
            assert_eq!(ended, graph, "a capture into a graph ends in that graph");
            assert_eq!(info(t).0, 0);
            let mut join = null_mut();
            assert_eq!(
                cuGraphAddEmptyNode(&raw mut join, graph, none, 0),
                CUDA_SUCCESS
            );
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            let _ = cuMemFree_v2(d);
            assert!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, s);
                    let _ = cuStreamSynchronize(s);
                }) > 0,
                "the captured memset's buffer freed"
            );
            let _ = cuGraphExecDestroy(exec);
            // A conditional node added in the middle of a capture, on the graph the capture
            // info names; its body's memset is the capture's work, and so the graph's.
            assert_eq!(cuStreamBeginCapture_v2(s, 1), CUDA_SUCCESS);
            let (status, captured) = info(s);
            assert_eq!(status, 1);
            assert!(!captured.is_null());
            let mut cond = 0u64;
            assert_eq!(
                cuGraphConditionalHandleCreate(&raw mut cond, captured, a, 1, 1),
                CUDA_SUCCESS
            );
            let mut p = [0u64; 32];
            p[0] = 13;
            p[2] = cond;
            p[3] = 1 | (1 << 32);
            p[5] = a.addr() as u64;
            let mut node = null_mut();
            assert_eq!(
                cuGraphAddNode(&raw mut node, captured, none, 0, p.as_mut_ptr().cast()),
                CUDA_SUCCESS
            );
            assert_eq!(
                cuStreamUpdateCaptureDependencies(s, &raw mut node, 1, 1),
                CUDA_SUCCESS
            );
            let body = p.as_ptr().add(4).cast::<*const Handle>().read().read();
            let mut memset = [0u64; 5];
            memset[0] = e;
            memset[2] = 4u64 << 32;
            memset[3] = 16;
            memset[4] = 1;
            let mut set = null_mut();
            assert_eq!(
                cuGraphAddMemsetNode(&raw mut set, body, none, 0, memset.as_ptr().cast(), a),
                CUDA_SUCCESS
            );
            let mut second = null_mut();
            assert_eq!(cuStreamEndCapture(s, &raw mut second), CUDA_SUCCESS);
            assert_eq!(
                second, captured,
                "the capture ends in the graph its info named"
            );
            assert_eq!(
                cuStreamUpdateCaptureDependencies(s, &raw mut node, 1, 1),
                CUDA_ERROR_INVALID_VALUE
            );
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, second, 0);
            let _ = cuMemFree_v2(e);
            assert!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, s);
                    let _ = cuStreamSynchronize(s);
                }) > 0,
                "the body's buffer freed"
            );
            let _ = cuGraphExecDestroy(exec);
            let _ = cuGraphDestroy(second);
            let _ = cuGraphDestroy(graph);
            let _ = cuStreamDestroy_v2(t);
            let _ = cuStreamDestroy_v2(s);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn memset_node_updates_replace_the_nodes_work_and_clones_keep_the_old() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            let (mut d, mut e) = (0, 0);
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let _ = cuMemAlloc_v2(&raw mut e, 64);
            // CUDA_MEMSET_NODE_PARAMS: dst, pitch, value, elementSize, width, height.
            let memset = |dst: CUdeviceptr| {
                let mut p = [0u8; 40];
                p[0..8].copy_from_slice(&dst.to_ne_bytes());
                p[16..20].copy_from_slice(&7u32.to_ne_bytes());
                p[20..24].copy_from_slice(&4u32.to_ne_bytes());
                p[24..32].copy_from_slice(&16usize.to_ne_bytes());
                p[32..40].copy_from_slice(&1usize.to_ne_bytes());
                p
            };
            let (mut graph, mut clone, mut node) = (null_mut(), null_mut(), null_mut());
            let (mut exec, mut cloned) = (null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut graph, 0);
            let p = memset(d);
            let none = core::ptr::null();
            let added = cuGraphAddMemsetNode(&raw mut node, graph, none, 0, p.as_ptr().cast(), a);
            assert_eq!(added, CUDA_SUCCESS);
            assert_eq!(cuGraphClone(&raw mut clone, graph), CUDA_SUCCESS);
            let mut n = 0usize;
            let _ = cuGraphGetNodes(clone, null_mut(), &raw mut n);
            assert_eq!(n, 1, "the clone's one node");
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            let _ = cuGraphInstantiateWithFlags(&raw mut cloned, clone, 0);
            // The node now sets `e`, not `d`.
            let q = memset(e);
            assert_eq!(
                violations_of(|| {
                    assert_eq!(
                        cuGraphExecMemsetNodeSetParams(exec, node, q.as_ptr().cast(), a),
                        CUDA_SUCCESS
                    );
                    let _ = cuMemFree_v2(d); // no node of `exec` uses it any more
                    let _ = cuGraphLaunch(exec, s);
                    let _ = cuStreamSynchronize(s);
                }),
                0,
                "an updated memset node over live memory, its old buffer freed"
            );
            assert!(
                violations_of(|| {
                    let _ = cuGraphLaunch(cloned, s);
                    let _ = cuStreamSynchronize(s);
                }) > 0,
                "the clone's executable graph still sets the freed buffer"
            );
        }
    }

    #[test]
    fn graph_memory_nodes_make_memory_of_the_graph_s_own_freed_once() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            // CUDA_MEM_ALLOC_NODE_PARAMS: 120 bytes, `bytesize` at 104, `dptr` at 112.
            let mut params = [0u64; 15];
            params[13] = 64;
            let memset = |dst: CUdeviceptr| {
                let mut p = [0u8; 40];
                p[0..8].copy_from_slice(&dst.to_ne_bytes());
                p[16..20].copy_from_slice(&7u32.to_ne_bytes());
                p[20..24].copy_from_slice(&4u32.to_ne_bytes());
                p[24..32].copy_from_slice(&16usize.to_ne_bytes());
                p[32..40].copy_from_slice(&1usize.to_ne_bytes());
                p
            };
            let none = core::ptr::null();
            let (mut graph, mut alloc, mut set, mut free, mut late) =
                (null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut graph, 0);
            let made =
                cuGraphAddMemAllocNode(&raw mut alloc, graph, none, 0, params.as_mut_ptr().cast());
            assert_eq!(made, CUDA_SUCCESS);
            let dptr = params[14];
            assert_ne!(dptr, 0, "the driver's address");
            let p = memset(dptr);
            assert_eq!(
                cuGraphAddMemsetNode(
                    &raw mut set,
                    graph,
                    &raw const alloc,
                    1,
                    p.as_ptr().cast(),
                    a
                ),
                CUDA_SUCCESS
            );
            // Not an allocation of this graph's: refused.
            assert_eq!(
                cuGraphAddMemFreeNode(&raw mut free, graph, &raw const set, 1, dptr + 4),
                CUDA_ERROR_INVALID_VALUE
            );
            assert_eq!(
                violations_of(|| {
                    assert_eq!(
                        cuGraphAddMemFreeNode(&raw mut free, graph, &raw const set, 1, dptr),
                        CUDA_SUCCESS
                    );
                }),
                0
            );
            // Freed twice: refused; used after its free node: a violation.
            assert_eq!(
                cuGraphAddMemFreeNode(&raw mut free, graph, &raw const set, 1, dptr),
                CUDA_ERROR_INVALID_VALUE
            );
            assert!(
                violations_of(|| {
                    let _ = cuGraphAddMemsetNode(
                        &raw mut late,
                        graph,
                        &raw const free,
                        1,
                        p.as_ptr().cast(),
                        a,
                    );
                }) > 0
            );
            let _ = cuGraphDestroy(graph);
            // An allocation never freed goes with its graph: nothing left behind.
            let mut other = null_mut();
            let _ = cuGraphCreate(&raw mut other, 0);
            let mut params = [0u64; 15];
            params[13] = 64;
            let _ =
                cuGraphAddMemAllocNode(&raw mut alloc, other, none, 0, params.as_mut_ptr().cast());
            let _ = cuGraphDestroy(other);
            assert!(!check::left_behind(
                Kind::DeviceMemory,
                params[14] as usize,
                64
            ));
        }
    }

    #[test]
    fn memory_a_graph_keeps_is_made_by_each_launch_and_a_relaunch_before_its_free_fails() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let _a = ctx();
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            let none = core::ptr::null();
            // An allocation node with no free node, instantiated with `flags`: its memory.
            let keeping = |flags: c_ulonglong| {
                let (mut graph, mut alloc, mut exec) = (null_mut(), null_mut(), null_mut());
                let _ = cuGraphCreate(&raw mut graph, 0);
                let mut params = [0u64; 15];
                params[13] = 64;
                let made = cuGraphAddMemAllocNode(
                    &raw mut alloc,
                    graph,
                    none,
                    0,
                    params.as_mut_ptr().cast(),
                );
                assert_eq!(made, CUDA_SUCCESS);
                assert_eq!(
                    cuGraphInstantiateWithFlags(&raw mut exec, graph, flags),
                    CUDA_SUCCESS
                );
                // The executable graph does not depend on its graph.
                let _ = cuGraphDestroy(graph);
                (exec, params[14])
            };
            let (exec, dptr) = keeping(0);
            // Not made before a launch: freeing it is a violation.
            assert!(
                violations_of(|| {
                    let _ = cuMemFree_v2(dptr);
                }) > 0
            );
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            // Made and not freed: the relaunch fails, as the driver's does.
            assert_eq!(cuGraphLaunch(exec, s), CUDA_ERROR_INVALID_VALUE);
            let _ = cuStreamSynchronize(s);
            assert_eq!(
                violations_of(|| assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS)),
                0
            );
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            let _ = cuStreamSynchronize(s);
            // Destroying the executable graph frees nothing: still live, freed by the program.
            let _ = cuGraphExecDestroy(exec);
            assert!(check::left_behind(Kind::DeviceMemory, dptr as usize, 64));
            assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS);
            // With AUTO_FREE_ON_LAUNCH, each launch frees what the previous one left.
            let (exec, dptr) = keeping(1);
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            let _ = cuStreamSynchronize(s);
            let _ = cuGraphExecDestroy(exec);
            assert_eq!(
                violations_of(|| assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS)),
                0
            );
        }
    }

    #[test]
    fn an_auto_free_relaunch_frees_first_and_memory_the_program_holds_is_a_violation() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let _a = ctx();
            let (mut s, mut other) = (null_mut(), null_mut());
            let _ = cuStreamCreate(&raw mut s, 0);
            let _ = cuStreamCreate(&raw mut other, 0);
            let none = core::ptr::null();
            // An allocation node with no free node, instantiated with AUTO_FREE_ON_LAUNCH.
            let (mut graph, mut alloc, mut exec) = (null_mut(), null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut graph, 0);
            let mut params = [0u64; 15];
            params[13] = 64;
            let made =
                cuGraphAddMemAllocNode(&raw mut alloc, graph, none, 0, params.as_mut_ptr().cast());
            assert_eq!(made, CUDA_SUCCESS);
            assert_eq!(
                cuGraphInstantiateWithFlags(&raw mut exec, graph, 1),
                CUDA_SUCCESS
            );
            let _ = cuGraphDestroy(graph);
            let dptr = params[14];
            assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS);
            let _ = cuStreamSynchronize(s);
            // Nobody used what the launch made: the relaunch frees it and makes it again.
            assert_eq!(
                violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)),
                0
            );
            let _ = cuStreamSynchronize(s);
            // The program read it (it took it): the relaunch frees memory the program holds.
            let mut host = [0u8; 64];
            assert_eq!(
                cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), dptr, 64),
                CUDA_SUCCESS
            );
            assert!(violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)) > 0);
            let _ = cuStreamSynchronize(s);
            // Work on another stream may still use it: the relaunch's free is a violation. (A
            // launch of a graph captured over it, which the program's use did not follow: the
            // capture's memset was a use, which the relaunch before the launch answers.)
            let mut captured = null_mut();
            assert_eq!(cuStreamBeginCapture_v2(other, 0), CUDA_SUCCESS);
            let _ = cuMemsetD32Async(dptr, 7, 16, other);
            assert_eq!(cuStreamEndCapture(other, &raw mut captured), CUDA_SUCCESS);
            let mut writer = null_mut();
            assert_eq!(
                cuGraphInstantiateWithFlags(&raw mut writer, captured, 0),
                CUDA_SUCCESS
            );
            let _ = cuGraphDestroy(captured);
            assert!(violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)) > 0);
            let _ = cuStreamSynchronize(s);
            assert_eq!(cuGraphLaunch(writer, other), CUDA_SUCCESS);
            assert!(violations_of(|| assert_eq!(cuGraphLaunch(exec, s), CUDA_SUCCESS)) > 0);
            let _ = cuStreamSynchronize(other);
            let _ = cuStreamSynchronize(s);
            let _ = cuGraphExecDestroy(writer);
            // The program frees what it took (now the last launch's allocation), and the
            // executable graph's owner frees the last launch's: a double free.
            let _ = cuGraphExecDestroy(exec);
            assert_eq!(
                violations_of(|| assert_eq!(cuMemFree_v2(dptr), CUDA_SUCCESS)),
                0
            );
            assert!(
                violations_of(|| {
                    let _ = cuMemFree_v2(dptr);
                }) > 0
            );
        }
    }

    #[test]
    fn kernel_node_updates_replace_the_nodes_work() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let ptx = concat!(include_str!("../../tests/fixtures/kernels.ptx"), "\0");
            let (mut m, mut f, mut s) = (null_mut(), null_mut(), null_mut());
            let _ = cuModuleLoadData(&raw mut m, ptx.as_ptr().cast());
            let _ = cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr());
            let _ = cuStreamCreate(&raw mut s, 0);
            let (mut d, mut e) = (0, 0);
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let _ = cuMemAlloc_v2(&raw mut e, 64);
            // CUDA_KERNEL_NODE_PARAMS_v2 of `add_u32(x, k, n)`, one block of 16, written in
            // place: the pointers keep their provenance (Miri), which a copy of the bytes drops.
            let node_params = |p: &mut [u8; 72],
                               x: &mut CUdeviceptr,
                               k: &mut u32,
                               n: &mut u32,
                               args: &mut [*mut c_void; 3]| {
                *args = [
                    core::ptr::from_mut(x).cast(),
                    core::ptr::from_mut(k).cast(),
                    core::ptr::from_mut(n).cast(),
                ];
                p.as_mut_ptr().cast::<Handle>().write_unaligned(f);
                for (i, v) in [1u32, 1, 1, 16, 1, 1, 0].iter().enumerate() {
                    p[8 + 4 * i..12 + 4 * i].copy_from_slice(&v.to_ne_bytes());
                }
                p.as_mut_ptr()
                    .add(40)
                    .cast::<*mut *mut c_void>()
                    .write_unaligned(args.as_mut_ptr());
            };
            let (mut x, mut k, mut n, mut args) = (d, 1u32, 16u32, [null_mut(); 3]);
            let mut p = [0u8; 72];
            node_params(&mut p, &mut x, &mut k, &mut n, &mut args);
            let (mut graph, mut other, mut exec) = (null_mut(), null_mut(), null_mut());
            let (mut node, mut stranger) = (null_mut(), null_mut());
            let _ = cuGraphCreate(&raw mut graph, 0);
            let none = core::ptr::null();
            assert_eq!(
                cuGraphAddKernelNode_v2(&raw mut node, graph, none, 0, p.as_ptr().cast()),
                CUDA_SUCCESS
            );
            let _ = cuGraphCreate(&raw mut other, 0);
            let _ = cuGraphAddKernelNode_v2(&raw mut stranger, other, none, 0, p.as_ptr().cast());
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            // The node now adds 2 to `e`, not 1 to `d`.
            let (mut x, mut k, mut n, mut args) = (e, 2u32, 16u32, [null_mut(); 3]);
            let mut q = [0u8; 72];
            node_params(&mut q, &mut x, &mut k, &mut n, &mut args);
            assert_eq!(
                violations_of(|| {
                    assert_eq!(
                        cuGraphExecKernelNodeSetParams_v2(exec, node, q.as_ptr().cast()),
                        CUDA_SUCCESS
                    );
                    let _ = cuMemFree_v2(d); // no node uses it any more
                    let _ = cuGraphLaunch(exec, s);
                    let _ = cuStreamSynchronize(s);
                }),
                0,
                "an updated node over live memory, its old buffer freed"
            );
            assert!(
                violations_of(|| {
                    let _ = cuGraphExecKernelNodeSetParams_v2(exec, stranger, q.as_ptr().cast());
                }) > 0,
                "a node of another graph"
            );
            let _ = cuMemFree_v2(e);
            assert!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, s);
                    let _ = cuStreamSynchronize(s);
                }) > 0,
                "the updated node's buffer freed"
            );
            let _ = cuGraphExecDestroy(exec);
            let _ = cuGraphDestroy(graph);
            let _ = cuGraphDestroy(other);
            let _ = cuModuleUnload(m);
            let _ = cuStreamDestroy_v2(s);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn a_stream_joins_a_capture_by_waiting_for_its_event() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let (mut one, mut two) = (null_mut(), null_mut());
            let _ = cuStreamCreate(&raw mut one, 0);
            let _ = cuStreamCreate(&raw mut two, 0);
            let (mut fork, mut join) = (null_mut(), null_mut());
            let _ = cuEventCreate(&raw mut fork, 0);
            let _ = cuEventCreate(&raw mut join, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            // Fork: `two` waits for an event recorded in `one`'s capture, and joins it; its
            // memset is a node of the graph, not work that runs now. Join back, end.
            let (mut graph, mut exec) = (null_mut(), null_mut());
            let _ = cuStreamBeginCapture_v2(one, 0);
            let _ = cuEventRecord(fork, one);
            let mut capturing = 0;
            let _ = cuStreamIsCapturing(two, &raw mut capturing);
            assert_eq!(capturing, 0, "not before the wait");
            let _ = cuStreamWaitEvent(two, fork, 0);
            let _ = cuStreamIsCapturing(two, &raw mut capturing);
            assert_eq!(capturing, 1, "the wait joined the capture");
            let _ = cuMemsetD8Async(d, 0, 64, two);
            let _ = cuEventRecord(join, two);
            let _ = cuStreamWaitEvent(one, join, 0);
            let _ = cuStreamEndCapture(one, &raw mut graph);
            let _ = cuStreamIsCapturing(two, &raw mut capturing);
            assert_eq!(capturing, 0, "the capture's end releases the joined stream");
            let mut n = 0;
            let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
            assert_eq!(n, 1, "the joined stream's memset is the graph's node");
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            assert_eq!(
                violations_of(|| {
                    let _ = cuStreamSynchronize(two); // returns at once: nothing ran
                    let _ = cuMemFree_v2(d);
                }),
                0,
                "the joined stream's captured work is not pending"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuGraphLaunch(exec, one);
                }),
                1,
                "the graph's node uses the freed memory"
            );
            let _ = cuGraphExecDestroy(exec);
            let _ = cuGraphDestroy(graph);
            // After the capture, `two`'s work runs again.
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let _ = cuMemsetD8Async(d, 0, 64, two);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d);
                }),
                1,
                "work enqueued after the capture is pending"
            );
            let _ = cuStreamSynchronize(two);
            let _ = cuEventDestroy_v2(fork);
            let _ = cuEventDestroy_v2(join);
            let _ = cuStreamDestroy_v2(one);
            let _ = cuStreamDestroy_v2(two);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn a_fork_not_joined_back_fails_the_capture_and_leaves_it() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let (mut one, mut two) = (null_mut(), null_mut());
            let _ = cuStreamCreate(&raw mut one, 0);
            let _ = cuStreamCreate(&raw mut two, 0);
            let (mut fork, mut join) = (null_mut(), null_mut());
            let _ = cuEventCreate(&raw mut fork, 0);
            let _ = cuEventCreate(&raw mut join, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            // Joined back, then more work on the fork: unjoined again.
            let mut graph = null_mut();
            let _ = cuStreamBeginCapture_v2(one, 0);
            let _ = cuEventRecord(fork, one);
            let _ = cuStreamWaitEvent(two, fork, 0);
            let _ = cuEventRecord(join, two);
            let _ = cuStreamWaitEvent(one, join, 0);
            let _ = cuMemsetD8Async(d, 0, 64, two);
            let mut status = 0;
            let mut g = null_mut();
            let (mut id, mut deps, mut n) = (0, core::ptr::null(), 9);
            let _ = cuStreamGetCaptureInfo_v2(
                two,
                &raw mut status,
                &raw mut id,
                &raw mut g,
                &raw mut deps,
                &raw mut n,
            );
            assert_eq!(status, 1, "the fork is in the capture");
            assert!(
                !g.is_null(),
                "the capture's graph is named while it is made"
            );
            assert_eq!(
                cuStreamEndCapture(one, &raw mut graph),
                CUDA_ERROR_STREAM_CAPTURE_UNJOINED
            );
            assert!(graph.is_null(), "a failed capture hands out no graph");
            let _ = cuStreamIsCapturing(two, &raw mut status);
            assert_eq!(status, 0, "the failed capture's end releases the fork");
            let _ = cuStreamGetCaptureInfo_v2(
                one,
                &raw mut status,
                &raw mut id,
                &raw mut g,
                &raw mut deps,
                &raw mut n,
            );
            assert_eq!(status, 0, "and the origin");
            // Joined back after its last work: the capture ends in a graph of one node.
            let _ = cuStreamBeginCapture_v2(one, 0);
            let _ = cuEventRecord(fork, one);
            let _ = cuStreamWaitEvent(two, fork, 0);
            let _ = cuMemsetD8Async(d, 0, 64, two);
            let _ = cuEventRecord(join, two);
            let _ = cuStreamWaitEvent(one, join, 0);
            assert_eq!(cuStreamEndCapture(one, &raw mut graph), CUDA_SUCCESS);
            let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
            assert_eq!(n, 1);
            let _ = cuGraphDestroy(graph);
            let _ = cuMemFree_v2(d);
            let _ = cuEventDestroy_v2(fork);
            let _ = cuEventDestroy_v2(join);
            let _ = cuStreamDestroy_v2(one);
            let _ = cuStreamDestroy_v2(two);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn a_captured_host_function_is_a_node_called_at_each_launch() {
        use core::sync::atomic::AtomicUsize;
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        unsafe extern "C" fn call(_: *mut c_void) {
            CALLS.fetch_add(1, Relaxed);
        }
        unsafe extern "C" fn destroy(_: *mut c_void) {
            DROPS.fetch_add(1, Relaxed);
        }
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut one = null_mut();
            let _ = cuStreamCreate(&raw mut one, 0);
            let (mut graph, mut exec, mut object) = (null_mut(), null_mut(), null_mut());
            let _ = cuStreamBeginCapture_v2(one, 0);
            let (mut status, mut id, mut g, mut deps, mut n) =
                (0, 0, null_mut(), core::ptr::null(), 0);
            let _ = cuStreamGetCaptureInfo_v2(
                one,
                &raw mut status,
                &raw mut id,
                &raw mut g,
                &raw mut deps,
                &raw mut n,
            );
            let _ = cuUserObjectCreate(&raw mut object, null_mut(), Some(destroy), 1, 1);
            assert_eq!(cuGraphRetainUserObject(g, object, 1, 1), CUDA_SUCCESS);
            let _ = cuLaunchHostFunc(one, Some(call), null_mut());
            assert_eq!(CALLS.load(Relaxed), 0, "captured, not called");
            let _ = cuStreamEndCapture(one, &raw mut graph);
            assert_eq!(graph, g, "the capture ends in the graph it named");
            let _ = cuGraphGetNodes(graph, null_mut(), &raw mut n);
            assert_eq!(n, 1, "a host node");
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, graph, 0);
            let _ = cuGraphDestroy(graph);
            for launch in 1..=3 {
                let _ = cuGraphLaunch(exec, one);
                assert_eq!(CALLS.load(Relaxed), launch);
            }
            assert_eq!(
                DROPS.load(Relaxed),
                0,
                "the executable graph keeps the object"
            );
            let _ = cuGraphExecDestroy(exec);
            assert_eq!(DROPS.load(Relaxed), 1);
            // Outside a capture a host function runs at once, and a callback cannot be captured.
            let _ = cuLaunchHostFunc(one, Some(call), null_mut());
            assert_eq!(CALLS.load(Relaxed), 4);
            let _ = cuStreamBeginCapture_v2(one, 0);
            assert_eq!(
                cuStreamAddCallback(one, None, null_mut(), 0),
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
            );
            let _ = cuStreamEndCapture(one, &raw mut graph);
            let _ = cuGraphDestroy(graph);
            let _ = cuStreamDestroy_v2(one);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn arrays_textures_and_surfaces_are_tracked() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            // A resource descriptor: `resType`, then the union's first member at offset 8.
            let resource = |res_type: c_int, first: u64| {
                let mut r = [0u64; 18];
                r[0] = res_type as u64;
                r[1] = first;
                r
            };
            let a = ctx();
            // A correct sequence records nothing: textures over an array, a mipmapped array and
            // device memory, a surface over a level, each destroyed before what it reads.
            assert_eq!(
                violations_of(|| {
                    let mut arr = null_mut();
                    let _ = cuArray3DCreate_v2(&raw mut arr, null_mut());
                    let mut mip = null_mut();
                    let _ = cuMipmappedArrayCreate(&raw mut mip, null_mut(), 2);
                    let mut level = null_mut();
                    let _ = cuMipmappedArrayGetLevel(&raw mut level, mip, 1);
                    let mut d = 0;
                    let _ = cuMemAlloc_v2(&raw mut d, 4096);
                    let mut t = [0; 3];
                    for (i, r) in [
                        resource(0, arr as u64),
                        resource(1, mip as u64),
                        resource(2, d + 256),
                    ]
                    .iter()
                    .enumerate()
                    {
                        let _ = cuTexObjectCreate(
                            &raw mut t[i],
                            r.as_ptr().cast(),
                            null_mut(),
                            null_mut(),
                        );
                    }
                    let mut sf = 0;
                    let r = resource(0, level as u64);
                    let _ = cuSurfObjectCreate(&raw mut sf, r.as_ptr().cast());
                    for x in t {
                        let _ = cuTexObjectDestroy(x);
                    }
                    let _ = cuSurfObjectDestroy(sf);
                    let _ = cuMemFree_v2(d);
                    let _ = cuMipmappedArrayDestroy(mip);
                    let _ = cuArrayDestroy(arr);
                }),
                0
            );
            // An array destroyed while a texture reads it; a texture destroyed twice.
            let mut arr = null_mut();
            let _ = cuArray3DCreate_v2(&raw mut arr, null_mut());
            let mut t = 0;
            let r = resource(0, arr as u64);
            let _ = cuTexObjectCreate(&raw mut t, r.as_ptr().cast(), null_mut(), null_mut());
            assert_eq!(
                orphans_of(|| {
                    let _ = cuArrayDestroy(arr);
                }),
                1,
                "array under a texture"
            );
            let _ = cuTexObjectDestroy(t);
            assert_eq!(
                violations_of(|| {
                    let _ = cuTexObjectDestroy(t);
                }),
                1,
                "double destroy"
            );
            // A mipmapped array destroyed while a surface writes one of its levels; the level
            // dies with it.
            let mut mip = null_mut();
            let _ = cuMipmappedArrayCreate(&raw mut mip, null_mut(), 2);
            let mut level = null_mut();
            let _ = cuMipmappedArrayGetLevel(&raw mut level, mip, 0);
            let mut sf = 0;
            let r = resource(0, level as u64);
            let _ = cuSurfObjectCreate(&raw mut sf, r.as_ptr().cast());
            assert_eq!(
                orphans_of(|| {
                    let _ = cuMipmappedArrayDestroy(mip);
                }),
                1,
                "mipmapped array under a surface"
            );
            let _ = cuSurfObjectDestroy(sf);
            assert_eq!(
                violations_of(|| {
                    let _ = cuSurfObjectCreate(&raw mut sf, r.as_ptr().cast());
                }),
                1,
                "level of a destroyed mipmapped array"
            );
            // Device memory freed under a texture over a view of it (an address inside it).
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 4096);
            let r = resource(3, d + 512);
            let _ = cuTexObjectCreate(&raw mut t, r.as_ptr().cast(), null_mut(), null_mut());
            assert_eq!(
                orphans_of(|| {
                    let _ = cuMemFree_v2(d);
                }),
                1,
                "memory under a texture"
            );
            let _ = cuTexObjectDestroy(t);
            // An array of another context.
            let mut arr2 = null_mut();
            let _ = cuArray3DCreate_v2(&raw mut arr2, null_mut());
            let b = ctx();
            let r = resource(0, arr2 as u64);
            assert_eq!(
                violations_of(|| {
                    let _ =
                        cuTexObjectCreate(&raw mut t, r.as_ptr().cast(), null_mut(), null_mut());
                }),
                1,
                "array of another context"
            );
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuTexObjectDestroy(t);
            let _ = cuArrayDestroy(arr2);
            let _ = cuCtxDestroy_v2(b);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    // Native only: memfd_create and pread are system calls Miri does not model (under Miri the
    // double stands in an eventfd, which the checking program `vmm_share` runs).
    #[test]
    #[cfg(not(miri))]
    fn an_imported_allocation_must_be_released() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let g = 2 << 20;
            // `CUmemAllocationProp` asking for POSIX descriptors (its second `int`).
            let mut prop = [0 as c_int; 8];
            prop[0] = 1;
            prop[1] = 1;
            let export = |h: c_ulonglong| {
                let mut fd: c_int = -1;
                let r = cuMemExportToShareableHandle((&raw mut fd).cast(), h, 1, 0);
                (r, fd)
            };
            let import = |fd: c_int| {
                let mut h = 0;
                let r = cuMemImportFromShareableHandle(
                    &raw mut h,
                    core::ptr::without_provenance_mut(fd as usize),
                    1,
                );
                (r, h)
            };
            for release in [false, true] {
                let a = ctx();
                let mut h = 0;
                let _ = cuMemCreate(&raw mut h, g, prop.as_ptr().cast(), 0);
                let (r, fd) = export(h);
                assert_eq!(r, CUDA_SUCCESS);
                let _ = cuMemRelease(h); // the import keeps the memory alive
                let (r, imported) = import(fd);
                assert_eq!(r, CUDA_SUCCESS);
                assert_ne!(imported, h, "an import is a handle of its own");
                share::close_fd(fd);
                if release {
                    let _ = cuMemRelease(imported);
                }
                let orphans = orphans_of(|| {
                    let _ = cuCtxDestroy_v2(a);
                });
                assert_eq!(orphans, usize::from(!release), "released: {release}");
            }
            let a = ctx();
            // A descriptor that names no export (closed, or not one of ours) is refused.
            assert_eq!(import(-1).0, CUDA_ERROR_INVALID_VALUE);
            assert_eq!(import(0).0, CUDA_ERROR_INVALID_VALUE);
            // Memory not created for descriptors is not exported to one.
            let mut h = 0;
            let _ = cuMemCreate(&raw mut h, g, null_mut(), 0);
            assert_eq!(export(h).0, CUDA_ERROR_NOT_SUPPORTED);
            let _ = cuMemRelease(h);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn virtual_memory_is_checked_in_order() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let (mut base, mut h, mut s) = (0, 0, null_mut());
            let _ = cuStreamCreate(&raw mut s, 0);
            let g = 2 << 20;
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemAddressReserve(&raw mut base, 2 * g, 0, 0, 0);
                    let _ = cuMemCreate(&raw mut h, g, null_mut(), 0);
                    assert_eq!(cuMemMap(base, g, 0, h, 0), CUDA_SUCCESS);
                    let _ = cuMemSetAccess(base, g, null_mut(), 1);
                    let _ = cuMemsetD32Async(base + 64, 0, 4, s);
                    let _ = cuStreamSynchronize(s);
                    let _ = cuMemUnmap(base, g);
                    // The same physical memory twice, one after the other.
                    let _ = cuMemMap(base, g, 0, h, 0);
                    let _ = cuMemMap(base + g as u64, g, 0, h, 0);
                    let _ = cuMemSetAccess(base, 2 * g, null_mut(), 1);
                    let _ = cuMemsetD8_v2(base + g as u64, 0, 8);
                    let _ = cuMemUnmap(base, 2 * g);
                }),
                0,
                "reserve, create, map, set access, use, unmap"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemMap(base, g, 0, h, 0);
                    let _ = cuMemsetD8_v2(base, 0, 8);
                }),
                1,
                "mapped memory used before cuMemSetAccess"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemMap(base, g, 0, h, 0);
                }),
                1,
                "mapped twice at one address"
            );
            let _ = cuMemSetAccess(base, g, null_mut(), 1);
            let _ = cuMemsetD8Async(base, 0, 8, s);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemUnmap(base, g);
                }),
                1,
                "unmapped while a memset may use it"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemsetD8_v2(base, 0, 8);
                    let _ = cuMemUnmap(base, g);
                }),
                2,
                "used after unmap, unmapped twice"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemMap(base + 3 * g as u64, g, 0, h, 0);
                }),
                1,
                "mapped outside the reservation"
            );
            let _ = cuMemMap(base, g, 0, h, 0);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemAddressFree(base, 2 * g);
                }),
                1,
                "a reservation freed while mapped"
            );
            let _ = cuMemUnmap(base, g);
            let _ = cuMemRelease(h);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemRelease(h);
                    let _ = cuMemMap(base, g, 0, h, 0);
                }),
                2,
                "released twice, mapped after release"
            );
            let _ = cuStreamDestroy_v2(s);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn copies_2d_and_peer_copies_are_checked() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            // A CUDA_MEMCPY2D as 16 words: host rows (pitch `row`) into device rows (`pitch`).
            let copy2d = |row: usize, dev: u64, pitch: usize, rows: usize| {
                let mut c = [0u64; 16];
                c[2] = 1; // srcMemoryType: host
                c[3] = 0; // srcHost: written by `with_host` below, as a pointer
                c[6] = row as u64;
                c[9] = 2; // dstMemoryType: device
                c[11] = dev;
                c[13] = pitch as u64;
                c[14] = row as u64; // WidthInBytes
                c[15] = rows as u64; // Height
                c
            };
            // The host pointer is stored as a pointer, in place, so that it keeps its
            // provenance (an integer copy of it would not, and Miri would rightly refuse it).
            let with_host = |mut c: [u64; 16], host: *mut u8| {
                c.as_mut_ptr().add(3).cast::<*mut u8>().write(host);
                let _ = cuMemcpy2D_v2(c.as_ptr().cast());
            };
            let a = ctx();
            let mut host = vec![0u8; 64 * 8];
            let (mut d, mut pitch) = (0, 0);
            let _ = cuMemAllocPitch_v2(&raw mut d, &raw mut pitch, 64, 8, 4);
            assert_eq!(
                violations_of(|| {
                    with_host(copy2d(64, d, pitch, 8), host.as_mut_ptr());
                }),
                0,
                "8 rows into an 8-row pitched allocation"
            );
            assert_eq!(
                violations_of(|| {
                    with_host(copy2d(32, d, pitch, 16), host.as_mut_ptr());
                }),
                1,
                "16 rows into 8"
            );
            let _ = cuMemFree_v2(d);
            assert_eq!(
                violations_of(|| {
                    with_host(copy2d(64, d, pitch, 8), host.as_mut_ptr());
                }),
                1,
                "into freed memory"
            );
            // Peer copies name each side's context; peer access is enabled once, disabled once.
            let mut da = 0;
            let _ = cuMemAlloc_v2(&raw mut da, 64);
            let b = ctx();
            let mut db = 0;
            let _ = cuMemAlloc_v2(&raw mut db, 64);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p); // a is current
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemcpyPeer(da, a, db, b, 64);
                    assert_eq!(cuCtxEnablePeerAccess(b, 0), CUDA_SUCCESS);
                    assert_eq!(
                        cuCtxEnablePeerAccess(b, 0),
                        CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
                    );
                    assert_eq!(cuCtxDisablePeerAccess(b), CUDA_SUCCESS);
                }),
                0,
                "a peer copy, access enabled and disabled"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemcpyPeer(da, b, db, b, 64); // da is a's
                    let _ = cuMemcpyPeer(da, a, db, b, 128); // past the end of both
                    let _ = cuCtxDisablePeerAccess(b); // not enabled
                }),
                4,
                "wrong context, too long, not enabled"
            );
            let _ = cuCtxPushCurrent_v2(b);
            let _ = cuMemFree_v2(db);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(b);
            let _ = cuMemFree_v2(da);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn ipc_openings_are_checked() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 4096);
            let mut h = [0u8; 64];
            let (mut opened, mut again) = (0, 0);
            assert_eq!(
                violations_of(|| {
                    let _ = cuIpcGetMemHandle(&raw mut h, d);
                    let _ = cuIpcOpenMemHandle_v2(
                        &raw mut opened,
                        ipc_handle(h.map(|b| b as c_char)),
                        1,
                    );
                    let _ = cuMemsetD8_v2(opened + 4000, 0, 8);
                    let _ = cuIpcCloseMemHandle(opened);
                }),
                0,
                "export, open, use, close"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuIpcGetMemHandle(&raw mut h, d + 64); // not an allocation's start
                    let _ = cuIpcCloseMemHandle(opened); // closed twice
                    let _ = cuMemsetD8_v2(opened, 0, 8); // used after closing
                }),
                3,
                "a handle of an inner address, a double close, a use after close"
            );
            let _ = cuIpcGetMemHandle(&raw mut h, d);
            let _ = cuIpcOpenMemHandle_v2(&raw mut opened, ipc_handle(h.map(|b| b as c_char)), 1);
            assert_eq!(
                violations_of(|| {
                    let _ = cuIpcOpenMemHandle_v2(
                        &raw mut again,
                        ipc_handle(h.map(|b| b as c_char)),
                        1,
                    );
                }),
                1,
                "opened twice"
            );
            assert_eq!(
                orphans_of(|| {
                    let _ = cuMemFree_v2(d);
                }),
                1,
                "freed while open"
            );
            let _ = cuIpcCloseMemHandle(opened);
            let _ = cuIpcCloseMemHandle(again);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    /// `cuGetProcAddress_v2(name, version)`: the function pointer, or the status.
    unsafe fn proc(name: &CStr, version: c_int) -> Result<*mut c_void, c_int> {
        let (mut f, mut status) = (null_mut(), -1);
        let r = cuGetProcAddress_v2(name.as_ptr(), &raw mut f, version, 0, &raw mut status);
        if r == CUDA_SUCCESS && status == 0 && !f.is_null() {
            Ok(f)
        } else {
            assert_eq!((r, f), (CUDA_ERROR_NOT_FOUND, null_mut()), "{name:?}");
            Err(status)
        }
    }

    #[test]
    fn newer_entry_points_are_found_from_their_version_and_checked() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            // Reported as 12.2: not found; as 13.0: found when asked at their version.
            assert_eq!(proc(c"cuCtxRecordEvent", 12050), Err(1));
            // As 12.4: green contexts, but not yet their streams (CUDA 12.5).
            assert_eq!(custackCheckdriverSetDriverVersion(12040), CUDA_SUCCESS);
            assert!(proc(c"cuGreenCtxCreate", 12040).is_ok());
            assert_eq!(proc(c"cuGreenCtxStreamCreate", 12050), Err(1));
            assert_eq!(custackCheckdriverSetDriverVersion(13000), CUDA_SUCCESS);
            let mut v = 0;
            let _ = cuDriverGetVersion(&raw mut v);
            assert_eq!(v, 13000);
            // (Function addresses are compared natively only: Miri gives each cast its own.)
            let found = |name: &CStr, version, f: *mut c_void| {
                let got = proc(name, version);
                #[cfg(not(miri))]
                assert_eq!(got, Ok(f), "{name:?}");
                #[cfg(miri)]
                let _ = f;
                got.unwrap()
            };
            found(c"cuCtxRecordEvent", 12050, cuCtxRecordEvent as *mut c_void);
            assert_eq!(
                proc(c"cuCtxRecordEvent", 12040),
                Err(2),
                "asked below its version"
            );
            // A green context's stream came with CUDA 12.5, a release after green contexts.
            found(
                c"cuGreenCtxStreamCreate",
                12050,
                cuGreenCtxStreamCreate as *mut c_void,
            );
            assert_eq!(
                proc(c"cuGreenCtxStreamCreate", 12040),
                Err(2),
                "asked below its version"
            );
            found(c"cuCtxCreate", 12000, cuCtxCreate_v2 as *mut c_void);
            // At 12.5 `cuCtxCreate` is `_v4`'s ABI: called as such (Miri checks the ABI).
            let v4 = found(c"cuCtxCreate", 12050, cuCtxCreate_v4 as *mut c_void);
            type CtxCreateV4 =
                unsafe extern "C" fn(*mut Handle, *mut c_void, c_uint, CUdevice) -> CUresult;
            let v4 = core::mem::transmute::<*mut c_void, CtxCreateV4>(v4);
            let mut c = null_mut();
            assert_eq!(v4(&raw mut c, null_mut(), 0, 0), CUDA_SUCCESS);
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(c);
            assert_eq!(proc(c"cuNoSuchEntryPoint", 13000), Err(1));

            let a = ctx();
            let ptx = concat!(include_str!("../../tests/fixtures/kernels.ptx"), "\0");
            let mut m = null_mut();
            let _ = cuModuleLoadData(&raw mut m, ptx.as_ptr().cast());
            // cuFuncGetParamInfo answers the PTX's layout, then INVALID_VALUE past the end.
            let mut f = null_mut();
            let _ = cuModuleGetFunction(&raw mut f, m, c"add_u32".as_ptr());
            let info = |f: Handle, i: usize| {
                let (mut o, mut n) = (0, 0);
                let r = cuFuncGetParamInfo(f, i, &raw mut o, &raw mut n);
                (r == CUDA_SUCCESS).then_some((o, n))
            };
            assert_eq!(
                violations_of(|| {
                    assert_eq!(
                        (0..4).map(|i| info(f, i)).collect::<Vec<_>>(),
                        [Some((0, 8)), Some((8, 4)), Some((12, 4)), None]
                    );
                    let mut n = 0;
                    assert_eq!(cuFuncGetParamCount(f, &raw mut n), CUDA_SUCCESS);
                    assert_eq!(n, 3);
                }),
                0
            );
            // The module's functions: counted, enumerated and named from its PTX.
            let mut count = 0;
            let _ = cuModuleGetFunctionCount(&raw mut count, m);
            let entries = crate::ptx::parse(ptx.as_bytes()).entries.len();
            assert_eq!(count as usize, entries);
            let mut all = vec![null_mut(); entries];
            let _ = cuModuleEnumerateFunctions(all.as_mut_ptr(), count, m);
            let mut names = Vec::new();
            for g in &all {
                let mut name = core::ptr::null();
                let _ = cuFuncGetName(&raw mut name, *g);
                names.push(CStr::from_ptr(name).to_str().unwrap().to_owned());
            }
            assert!(names.iter().any(|n| n == "add_u32"), "{names:?}");
            assert_eq!(
                info(all[names.iter().position(|n| n == "add_u32").unwrap()], 1),
                Some((8, 4))
            );
            // The function of a module of another context, and of an unloaded module.
            let b = ctx();
            assert_eq!(
                violations_of(|| {
                    let _ = info(f, 0);
                }),
                1,
                "param info in another context"
            );
            let mut n = 0;
            assert_eq!(
                violations_of(|| {
                    let _ = cuModuleGetFunctionCount(&raw mut n, m);
                }),
                1,
                "function count in another context"
            );
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p); // b
            let _ = cuModuleUnload(m);
            assert_eq!(
                violations_of(|| {
                    let _ = info(f, 0);
                }),
                1,
                "param info after unload"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuModuleGetFunctionCount(&raw mut n, m);
                }),
                1,
                "function count after unload"
            );

            // cuCtxRecordEvent covers the work of every stream of the context.
            let (mut s1, mut s2, mut ev) = (null_mut(), null_mut(), null_mut());
            let _ = cuStreamCreate(&raw mut s1, 0);
            let _ = cuStreamCreate(&raw mut s2, 0);
            let _ = cuEventCreate(&raw mut ev, 0);
            let (mut d1, mut d2) = (0, 0);
            let _ = cuMemAlloc_v2(&raw mut d1, 64);
            let _ = cuMemAlloc_v2(&raw mut d2, 64);
            let _ = cuMemsetD8Async(d1, 0, 64, s1);
            let _ = cuMemsetD8Async(d2, 0, 64, s2);
            assert_eq!(cuCtxRecordEvent(a, ev), CUDA_SUCCESS);
            let _ = cuEventSynchronize(ev);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d1);
                    let _ = cuMemFree_v2(d2);
                }),
                0,
                "completed by a context-wide event"
            );
            // A stream destroyed with work pending: the driver keeps it until its work is done,
            // and a context-wide event covers that work too.
            let mut gone = null_mut();
            let _ = cuStreamCreate(&raw mut gone, 0);
            let mut d4 = 0;
            let _ = cuMemAlloc_v2(&raw mut d4, 64);
            let _ = cuMemsetD8Async(d4, 0, 64, gone);
            let _ = cuStreamDestroy_v2(gone);
            assert_eq!(cuCtxRecordEvent(a, ev), CUDA_SUCCESS);
            let _ = cuEventSynchronize(ev);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d4);
                }),
                0,
                "a destroyed stream's work completed by a context-wide event"
            );
            // cuCtxWaitEvent: a stream made later waits too, and completes the event's work.
            let mut d3 = 0;
            let _ = cuMemAlloc_v2(&raw mut d3, 64);
            let _ = cuMemsetD8Async(d3, 0, 64, s1);
            let _ = cuEventRecord(ev, s1);
            assert_eq!(cuCtxWaitEvent(a, ev), CUDA_SUCCESS);
            let mut s3 = null_mut();
            let _ = cuStreamCreate(&raw mut s3, 0);
            let _ = cuStreamSynchronize(s3);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d3);
                }),
                0,
                "completed through a context-wide wait"
            );
            // An event of another context; a destroyed context; a capture refuses the record.
            let _ = cuCtxPushCurrent_v2(b);
            let mut other = null_mut();
            let _ = cuEventCreate(&raw mut other, 0);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxRecordEvent(a, other);
                }),
                1,
                "event of b"
            );
            let _ = cuStreamBeginCapture_v2(s2, 0);
            assert_eq!(
                cuCtxRecordEvent(a, ev),
                CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
            );
            assert_eq!(cuCtxWaitEvent(a, ev), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
            let mut g = null_mut();
            let _ = cuStreamEndCapture(s2, &raw mut g);
            let _ = cuGraphDestroy(g);
            let _ = cuCtxPushCurrent_v2(b);
            let _ = cuEventDestroy_v2(other);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(b);
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxRecordEvent(b, ev);
                }),
                1,
                "destroyed context"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxWaitEvent(b, ev);
                }),
                1,
                "destroyed context"
            );
            for s in [s1, s2, s3] {
                let _ = cuStreamDestroy_v2(s);
            }
            let _ = cuEventDestroy_v2(ev);
            let _ = cuCtxPopCurrent_v2(&raw mut p); // a
            let _ = cuCtxDestroy_v2(a);
            assert_eq!(
                custackCheckdriverSetDriverVersion(DRIVER_VERSION),
                CUDA_SUCCESS
            );
        }
    }

    #[test]
    fn green_contexts_are_tracked() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let new_green = |sms: &DevResource| {
                let mut one = *sms;
                let mut desc = null_mut();
                assert_eq!(
                    cuDevResourceGenerateDesc(&raw mut desc, &raw mut one, 1),
                    CUDA_SUCCESS
                );
                let mut green = null_mut();
                let r = cuGreenCtxCreate(&raw mut green, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM);
                assert_eq!(r, CUDA_SUCCESS);
                let mut c = null_mut();
                let _ = cuCtxFromGreenCtx(&raw mut c, green);
                (green, c)
            };
            // The SMs split in two groups of 16, the rest remaining.
            let mut all = DevResource::sms(0);
            let _ = cuDeviceGetDevResource(0, &raw mut all, CU_DEV_RESOURCE_TYPE_SM);
            let mut groups = [DevResource::sms(0); 2];
            let (mut n, mut rest) = (2, DevResource::sms(0));
            let _ = cuDevSmResourceSplitByCount(
                groups.as_mut_ptr(),
                &raw mut n,
                &raw const all,
                &raw mut rest,
                0,
                16,
            );
            assert_eq!((n, groups[0].sm[0], rest.sm[0]), (2, 16, SM_COUNT - 32));
            // A correct sequence: two green contexts pushed in turn, memory and a stream of
            // each (one made with cuGreenCtxStreamCreate, no context current), all released.
            let mut p = null_mut();
            assert_eq!(
                violations_of(|| {
                    let (ga, a) = new_green(&groups[0]);
                    let (gb, b) = new_green(&groups[1]);
                    let mut sb = null_mut();
                    let r = cuGreenCtxStreamCreate(&raw mut sb, gb, CU_STREAM_NON_BLOCKING, 0);
                    assert_eq!(r, CUDA_SUCCESS);
                    let _ = cuCtxPushCurrent_v2(a);
                    let mut da = 0;
                    let _ = cuMemAlloc_v2(&raw mut da, 64);
                    let _ = cuCtxPopCurrent_v2(&raw mut p);
                    let _ = cuCtxPushCurrent_v2(b);
                    let _ = cuMemsetD8Async(0x10, 0, 0, sb);
                    let _ = cuStreamSynchronize(sb);
                    let _ = cuStreamDestroy_v2(sb);
                    let _ = cuCtxPopCurrent_v2(&raw mut p);
                    let _ = cuCtxPushCurrent_v2(a);
                    let _ = cuMemFree_v2(da);
                    let _ = cuCtxPopCurrent_v2(&raw mut p);
                    let _ = cuGreenCtxDestroy(ga);
                    let _ = cuGreenCtxDestroy(gb);
                }),
                0
            );
            // A green context's stream used while another context is current.
            let (ga, a) = new_green(&groups[0]);
            let other = ctx();
            let mut sa = null_mut();
            let _ = cuGreenCtxStreamCreate(&raw mut sa, ga, CU_STREAM_NON_BLOCKING, 0);
            assert_eq!(
                violations_of(|| {
                    let _ = cuStreamSynchronize(sa);
                }),
                1,
                "green stream in another context"
            );
            let _ = cuCtxPopCurrent_v2(&raw mut p); // other
            let _ = cuCtxDestroy_v2(other);
            // The same stream while the device's primary context is current is no violation:
            // the green context shares its memory and modules, and the driver reports the
            // primary context as the stream's (cuStreamGetCtx_v2).
            let mut primary = null_mut();
            let _ = cuDevicePrimaryCtxRetain(&raw mut primary, 0);
            let _ = cuCtxPushCurrent_v2(primary);
            assert_eq!(
                violations_of(|| {
                    let _ = cuStreamSynchronize(sa);
                }),
                0,
                "green stream under the primary context"
            );
            let _ = cuCtxPopCurrent_v2(&raw mut p); // primary
            let _ = cuDevicePrimaryCtxRelease_v2(0);
            // Destroyed while on a stack (below another context: on top, the driver pops it as
            // it pops a destroyed context); its CUcontext destroyed with cuCtxDestroy; live
            // handles left for its destruction (orphans).
            let _ = cuCtxPushCurrent_v2(a);
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxDestroy_v2(a);
                }),
                1,
                "cuCtxDestroy of green"
            );
            let mut da = 0;
            let _ = cuMemAlloc_v2(&raw mut da, 64);
            let above = ctx();
            let mut orphans = 0;
            assert_eq!(
                violations_of(|| {
                    orphans = orphans_of(|| {
                        let _ = cuGreenCtxDestroy(ga);
                    });
                }),
                1,
                "green context destroyed while pushed"
            );
            assert_eq!(orphans, 2, "its stream and memory");
            let _ = cuCtxPopCurrent_v2(&raw mut p); // above
            let _ = cuCtxPopCurrent_v2(&raw mut p); // a
            let _ = cuCtxDestroy_v2(above);
            // Destroyed on top of the calling thread's stack: popped, as cuCtxDestroy does.
            let (gc, c) = new_green(&groups[0]);
            let _ = cuCtxPushCurrent_v2(c);
            assert_eq!(
                violations_of(|| {
                    let _ = cuGreenCtxDestroy(gc);
                }),
                0,
                "destroyed on top"
            );
            assert_eq!(with_stack(|s| s.top()), null_mut());
            // Used, pushed and destroyed after destruction.
            assert_eq!(
                violations_of(|| {
                    let _ = cuGreenCtxDestroy(ga);
                }),
                1,
                "double destroy"
            );
            let mut c = null_mut();
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxFromGreenCtx(&raw mut c, ga);
                }),
                1,
                "use after"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxPushCurrent_v2(a);
                }),
                1,
                "push after"
            );
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            // One left alive is a leak.
            let (gb, _) = new_green(&groups[1]);
            assert!(check::report().contains(&format!("leak: GreenContext {:#x}", gb as usize)));
            let _ = cuGreenCtxDestroy(gb);
            assert!(!check::report().contains(&format!("leak: GreenContext {:#x}", gb as usize)));
        }
    }

    static HOST_FN_RAN: AtomicBool = AtomicBool::new(false);
    unsafe extern "C" fn host_fn(_: *mut c_void) {
        HOST_FN_RAN.store(true, Relaxed);
    }

    // `NULLDRIVER_HANG_AT`: the hung enqueue and everything after it in stream order never
    // complete; queries say so forever, events recorded after it never fire, streams and
    // contexts made to wait for it hang from then on, and its memory must not be freed. (The
    // blocking waits end the process: `tests/hangs.rs` runs them in a child.)
    #[test]
    fn hung_work_never_completes_and_what_waits_for_it_hangs() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let (mut one, mut two) = (null_mut(), null_mut());
            let _ = cuStreamCreate(&raw mut one, 0);
            let _ = cuStreamCreate(&raw mut two, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let (mut before, mut after, mut whole) = (null_mut(), null_mut(), null_mut());
            let _ = cuEventCreate(&raw mut before, 0);
            let _ = cuEventCreate(&raw mut after, 0);
            let _ = cuEventCreate(&raw mut whole, 0);
            let _ = cuMemsetD8Async(d, 1, 64, one);
            let _ = cuEventRecord(before, one);
            check::hang_next();
            let _ = cuMemsetD8Async(d, 2, 64, one); // never completes
            // A query on hung work answers NOT_READY, however often it is asked.
            for _ in 0..3 {
                assert_eq!(cuStreamQuery(one), CUDA_ERROR_NOT_READY);
            }
            assert!(check::stream_hung(one as usize) && check::context_hung());
            // The work before it completes; nothing on another stream waits for it.
            assert_eq!(cuEventQuery(before), CUDA_SUCCESS);
            assert_eq!(cuStreamQuery(two), CUDA_SUCCESS);
            // Hung work never runs: a host function after it neither.
            HOST_FN_RAN.store(false, Relaxed);
            let _ = cuLaunchHostFunc(one, Some(host_fn), null_mut());
            assert!(
                !HOST_FN_RAN.load(Relaxed),
                "a host function after hung work ran"
            );
            // An event recorded after it never completes (on its stream, or context-wide).
            let _ = cuEventRecord(after, one);
            assert_eq!(cuEventQuery(after), CUDA_ERROR_NOT_READY);
            assert_eq!(cuEventQuery(after), CUDA_ERROR_NOT_READY);
            assert_eq!(cuCtxRecordEvent(a, whole), CUDA_SUCCESS);
            assert_eq!(cuEventQuery(whole), CUDA_ERROR_NOT_READY);
            // Recorded again where nothing hangs, an event completes again.
            let _ = cuEventRecord(whole, two);
            assert_eq!(cuEventQuery(whole), CUDA_SUCCESS);
            // A stream made to wait for it hangs from then on; waiting for earlier work does not.
            let _ = cuStreamWaitEvent(two, before, 0);
            assert_eq!(cuStreamQuery(two), CUDA_SUCCESS);
            let _ = cuStreamWaitEvent(two, after, 0);
            assert_eq!(cuStreamQuery(two), CUDA_ERROR_NOT_READY);
            // Freeing memory that hung work uses is a violation (it never stops using it).
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d);
                }),
                1,
                "a free under hung work"
            );
            // A context made to wait for it: every stream of it hangs, now and later, but
            // a non-blocking stream does not hold back a synchronous copy.
            let b = ctx(); // pushed over a
            let mut nb = null_mut();
            let _ = cuStreamCreate(&raw mut nb, 1); // CU_STREAM_NON_BLOCKING
            assert!(!check::context_hung() && !check::synchronous_copy_hung());
            assert_eq!(cuCtxWaitEvent(b, after), CUDA_SUCCESS);
            assert_eq!(cuStreamQuery(nb), CUDA_ERROR_NOT_READY);
            let mut later = null_mut();
            let _ = cuStreamCreate(&raw mut later, 0);
            assert_eq!(cuStreamQuery(later), CUDA_ERROR_NOT_READY);
            assert!(check::context_hung() && check::synchronous_copy_hung());
            let mut p = null_mut();
            let _ = cuStreamDestroy_v2(later);
            let _ = cuStreamDestroy_v2(nb);
            let _ = cuCtxDestroy_v2(b);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            for e in [before, after, whole] {
                let _ = cuEventDestroy_v2(e);
            }
            let _ = cuStreamDestroy_v2(one);
            let _ = cuStreamDestroy_v2(two);
            let _ = cuCtxDestroy_v2(a);
        }
    }

    // A capture's operations are not enqueued work: the hang goes to the next real enqueue.
    #[test]
    fn a_capture_does_not_hang_but_its_graph_launch_does() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            let a = ctx();
            let mut st = null_mut();
            let _ = cuStreamCreate(&raw mut st, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            check::hang_next();
            let _ = cuStreamBeginCapture_v2(st, 0);
            let _ = cuMemsetD8Async(d, 1, 64, st);
            let mut g = null_mut();
            let _ = cuStreamEndCapture(st, &raw mut g);
            assert_eq!(cuStreamQuery(st), CUDA_SUCCESS, "a captured memset hung");
            let mut exec = null_mut();
            let _ = cuGraphInstantiateWithFlags(&raw mut exec, g, 0);
            let _ = cuGraphLaunch(exec, st);
            assert_eq!(cuStreamQuery(st), CUDA_ERROR_NOT_READY);
            let _ = cuGraphExecDestroy(exec);
            let _ = cuGraphDestroy(g);
            let _ = cuStreamDestroy_v2(st);
            // Left behind on purpose (hung work uses it): no free.
            let _ = cuCtxDestroy_v2(a);
        }
    }

    #[test]
    fn each_violation_kind_is_reported() {
        let _serial = serial();
        mode::CHECK.store(true, Relaxed);
        unsafe {
            // A correct sequence records nothing.
            assert_eq!(
                violations_of(|| {
                    let a = ctx();
                    let mut s = null_mut();
                    let _ = cuStreamCreate(&raw mut s, 0);
                    let mut d = 0;
                    let _ = cuMemAlloc_v2(&raw mut d, 64);
                    let _ = cuMemsetD8Async(d, 0, 64, s);
                    let _ = cuStreamSynchronize(s);
                    let _ = cuMemFree_v2(d);
                    let _ = cuStreamDestroy_v2(s);
                    let mut p = null_mut();
                    let _ = cuCtxPopCurrent_v2(&raw mut p);
                    let _ = cuCtxDestroy_v2(a);
                }),
                0
            );
            // A handle of a context that is not current.
            let _a = ctx(); // stays on the stack under b, x and y below
            let mut s = null_mut();
            let _ = cuStreamCreate(&raw mut s, 0);
            let b = ctx(); // pushed on top of a
            assert_eq!(
                violations_of(|| {
                    let _ = cuStreamSynchronize(s);
                }),
                1,
                "wrong context"
            );
            let mut p = null_mut();
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            // Destroyed twice, and used after destruction.
            let _ = cuStreamDestroy_v2(s);
            assert_eq!(
                violations_of(|| {
                    let _ = cuStreamDestroy_v2(s);
                }),
                1,
                "double destroy"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuStreamQuery(s);
                }),
                1,
                "use after destroy"
            );
            // Device memory freed twice; host memory freed twice.
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let _ = cuMemFree_v2(d);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d);
                }),
                1,
                "double free"
            );
            let mut h = null_mut();
            let _ = cuMemHostAlloc(&raw mut h, 64, 0);
            let _ = cuMemFreeHost(h);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFreeHost(h);
                }),
                1,
                "double free host"
            );
            // A function used after its module was unloaded.
            let mut m = null_mut();
            let _ = cuModuleLoadData(&raw mut m, null_mut());
            let mut f = null_mut();
            let _ = cuModuleGetFunction(&raw mut f, m, c"k".as_ptr());
            let _ = cuModuleUnload(m);
            assert_eq!(
                violations_of(|| {
                    let _ =
                        cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut());
                }),
                1,
                "function of an unloaded module"
            );
            // Destroying a context that is on a stack below the top (x under y). (Destroying the
            // calling thread's top context is allowed: the driver pops it.)
            let x = ctx();
            let y = ctx();
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxDestroy_v2(x);
                }),
                1,
                "destroy while current"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxDestroy_v2(y);
                }),
                0,
                "destroy on top"
            );
            let _ = cuCtxPopCurrent_v2(&raw mut p); // x
            let _ = cuCtxPopCurrent_v2(&raw mut p); // a
            // Popping an empty stack.
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxPopCurrent_v2(&raw mut p);
                }),
                1,
                "empty pop"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuCtxDestroy_v2(b);
                }),
                0,
                "b is floating"
            );
            // Freeing memory an enqueued copy may still use; a synchronize completes it.
            let z = ctx();
            let mut st = null_mut();
            let _ = cuStreamCreate(&raw mut st, 0);
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let mut h = null_mut();
            let _ = cuMemHostAlloc(&raw mut h, 64, 0);
            let _ = cuMemcpyHtoDAsync_v2(d, h, 64, st);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d);
                }),
                1,
                "pending device memory"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFreeHost(h);
                }),
                1,
                "pending host memory"
            );
            let mut d2 = 0;
            let _ = cuMemAlloc_v2(&raw mut d2, 64);
            let mut ev = null_mut();
            let _ = cuEventCreate(&raw mut ev, 0);
            let _ = cuMemsetD8Async(d2, 0, 64, st);
            let _ = cuEventRecord(ev, st);
            let _ = cuEventSynchronize(ev);
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemFree_v2(d2);
                }),
                0,
                "completed by an event"
            );
            let _ = cuEventDestroy_v2(ev);
            let _ = cuStreamDestroy_v2(st);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(z);
            // Using a destroyed context's memory.
            let c = ctx();
            let mut d = 0;
            let _ = cuMemAlloc_v2(&raw mut d, 64);
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(c);
            let e = ctx();
            assert_eq!(
                violations_of(|| {
                    let _ = cuMemsetD8_v2(d, 0, 64);
                }),
                1,
                "freed with its context"
            );
            let _ = cuCtxPopCurrent_v2(&raw mut p);
            let _ = cuCtxDestroy_v2(e);
        }
    }
}
