//! custack's trace interposer, for the differential run of the checking driver against the real
//! libcuda (`docs/validation.md`, contract row R26). Loaded with `LD_PRELOAD` in front of a
//! driver, it exports every entry point custack links (the `fn`s of `ffi/`'s
//! `link_or_stub! { libcuda; .. }` blocks, listed in `entries.rs`), forwards each to the next
//! library's symbol of that name (`dlsym(RTLD_NEXT, ..)`: the real libcuda) and writes one line
//! per call to the file `CUSTACK_TRACE` names, in the checking driver's trace format
//! (`checkdriver/src/trace.rs`):
//!
//! ```text
//! SEQ<TAB>THREAD<TAB>NAME<TAB>RESULT[<TAB>DETAIL]
//! ```
//!
//! The entry points custack looks up with `cuGetProcAddress_v2` (the `PFN_*` types of
//! `ffi/entry_point.rs`) are traced too: for a name custack asks for, the interposer keeps the
//! pointer the driver returned and hands back a wrapper of its own that forwards to it. Any other
//! name found is handed back as the driver returned it, and its lookup's line says `untraced`.
//!
//! The checking driver's extensions that checking programs use without a stand-in on a real
//! driver are answered here when the next library lacks them (in front of the double itself, the
//! double's own answer, so that a run of the interposer over the double is the double's run):
//! `custackCheckdriverSetDriverVersion` (the version is emulated: `cuDriverGetVersion` answers it
//! and the entry points introduced after it are not found, clamped at the real driver's own),
//! `custackCheckdriverCalls` and the call counters `nulldriver_*` (the calls traced here), and
//! `custackCheckdriverFailNext` (nothing to do: the real driver fails that call by itself).
//! `CUSTACK_TRACE_OWN=1` answers them here even in front of the double (the self-test of these
//! answers). `CUSTACK_TRACE_DRIVER_VERSION=V` emulates version `V` from the start (as the
//! double's `NULLDRIVER_DRIVER_VERSION` sets the version it reports), so that custack takes the
//! same version-dependent paths on both drivers.
//!
//! A test tool, not part of custack: custack itself never loads a library by name.

#![allow(non_snake_case)]

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
compile_error!(
    "the interposer's erased signatures rely on the x86-64 System V calling convention (lib.rs)"
);

use core::cell::Cell;
use core::ffi::{CStr, c_char, c_int, c_uint, c_void};
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU64, Ordering::Relaxed};
use std::fs::File;
use std::io::Write;
use std::sync::OnceLock;

type CUresult = c_int;
const CUDA_SUCCESS: CUresult = 0;
const CUDA_ERROR_INVALID_VALUE: CUresult = 1;
const CUDA_ERROR_NOT_FOUND: CUresult = 500;
const CU_GET_PROC_ADDRESS_SUCCESS: c_int = 0;
const CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: c_int = 1;
/// The checking driver's baseline (CUDA 12.2): no version before it is emulated.
const BASELINE_VERSION: c_int = 12020;

#[link(name = "dl")]
unsafe extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// The next library's symbol `name` (`dlsym(RTLD_NEXT, name)`), or null.
fn next(name: &CStr) -> *mut c_void {
    // glibc's `RTLD_NEXT` is `((void *) -1l)`.
    let rtld_next = core::ptr::without_provenance_mut::<c_void>(usize::MAX);
    // SAFETY: `dlsym` takes a pseudo-handle and a NUL-terminated name; it only reads them.
    unsafe { dlsym(rtld_next, name.as_ptr()) }
}

/// `s` (ending in a NUL) as a `CStr`, at compile time.
const fn cstr(s: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(c) => c,
        Err(_) => panic!("an entry point name with a NUL inside"),
    }
}

/// A type for each erased argument.
macro_rules! usize_for {
    ($a:ident) => {
        usize
    };
}

// ---------------------------------------------------------------------------------------------
// The wrappers.
//
// ABI (x86-64 System V, the only target this compiles for): every entry point of `entries.rs`
// takes only arguments of the INTEGER class of at most 8 bytes (pointers, function pointers,
// handles, enums, `int`, `unsigned`, `unsigned char`/`short`, `size_t`, `unsigned long long`;
// the test `erased_arguments_are_integer_class` checks every argument type `ffi/` declares for
// them against that list) and returns `CUresult`, an `int`. Such an argument travels in the next
// free general-purpose register (rdi, rsi, rdx, rcx, r8, r9), then in the next 8-byte stack slot,
// exactly where a `usize` in the same position travels; a narrower one leaves the upper bits of
// its register or slot unspecified, and its callee reads only the low bits. A wrapper declared
// with as many `usize` arguments as the C declaration has (never more: it reads no slot its
// caller did not write) receives each register and slot whole and passes the same bits on in the
// same place, so the driver's function sees exactly what custack's call passed; the `int` result
// comes back in eax. None of these functions is variadic or takes a float (an SSE register) or a
// struct by value: the two that take a 64-byte IPC handle by value (passed in memory) are
// declared exactly below, as are the two the interposer answers in part. Rust's own rules of
// function-pointer compatibility are stricter (they call `u32` and `usize` different); what this
// relies on is the platform's calling convention, which both sides are compiled to: acceptable
// in a test tool that runs on one platform, not in custack.

macro_rules! entries {
    (
        linked { $( $(#[$la:meta])* $l:ident($($a:ident),*); )* }
        looked_up { $( $p:ident($($b:ident),*) as $asked:literal; )* }
    ) => {
        /// Every traced entry point: those declared by hand, then `entries.rs`'s.
        #[allow(non_camel_case_types, clippy::enum_variant_names)]
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        enum Id {
            cuGetProcAddress_v2,
            cuDriverGetVersion,
            cuIpcOpenMemHandle_v2,
            cuIpcOpenEventHandle,
            $($l,)*
            $($p,)*
        }

        /// The names, in `Id` order, NUL-terminated.
        const NAMES: &[&CStr] = &[
            c"cuGetProcAddress_v2",
            c"cuDriverGetVersion",
            c"cuIpcOpenMemHandle_v2",
            c"cuIpcOpenEventHandle",
            $(cstr(concat!(stringify!($l), "\0")),)*
            $(cstr(concat!(stringify!($p), "\0")),)*
        ];
        const ENTRY_COUNT: usize = NAMES.len();

        /// The number of arguments of each entry point of `entries.rs`, for the tests.
        #[cfg(test)]
        const ARITIES: &[(&str, usize)] = &[
            $((stringify!($l), <[&str]>::len(&[$(stringify!($a)),*])),)*
            $((stringify!($p), <[&str]>::len(&[$(stringify!($b)),*])),)*
        ];

        /// The looked-up entry points and the names custack asks `cuGetProcAddress_v2` for.
        #[cfg(test)]
        const LOOKED_UP: &[(&str, &str)] = &[$((stringify!($p), $asked),)*];

        $(
            $(#[$la])*
            #[doc = concat!("`", stringify!($l), "`, traced, forwarded to the next library's.")]
            ///
            /// # Safety
            ///
            /// The driver's: this function passes its arguments on unchanged.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $l($($a: usize),*) -> CUresult {
                type F = unsafe extern "C" fn($(usize_for!($a)),*) -> CUresult;
                let Some(f) = direct(Id::$l) else {
                    return missing(Id::$l);
                };
                // SAFETY: `f` is the next library's `$l`, whose C declaration has as many
                // arguments as `F`, each passed where `F` passes it (the module's ABI note).
                let f = unsafe { core::mem::transmute::<*mut c_void, F>(f) };
                // SAFETY: the caller's arguments, unchanged: the driver's contract is theirs.
                let r = unsafe { f($($a),*) };
                record(Id::$l, r, None);
                r
            }
        )*

        /// The wrappers handed back by `cuGetProcAddress_v2` for the looked-up entry points:
        /// each forwards to the pointer the driver returned.
        mod looked_up {
            use super::{c_void, record, CUresult, Id, PROC};
            $(
                #[doc = concat!("`", stringify!($p), "`, traced, forwarded to the looked-up pointer.")]
                ///
                /// # Safety
                ///
                /// The driver's: this function passes its arguments on unchanged.
                pub(super) unsafe extern "C" fn $p($($b: usize),*) -> CUresult {
                    type F = unsafe extern "C" fn($(usize_for!($b)),*) -> CUresult;
                    let p = PROC[Id::$p as usize].load(core::sync::atomic::Ordering::Relaxed);
                    if p.is_null() {
                        return super::missing(Id::$p);
                    }
                    // SAFETY: `p` is what the driver's `cuGetProcAddress_v2` returned for the
                    // name custack asks for, whose `PFN_*` declaration has as many arguments as
                    // `F` (the module's ABI note); custack calls it with that declaration.
                    let f = unsafe { core::mem::transmute::<*mut c_void, F>(p) };
                    // SAFETY: the caller's arguments, unchanged.
                    let r = unsafe { f($($b),*) };
                    record(Id::$p, r, None);
                    r
                }
            )*
        }

        /// The wrapper and id of the looked-up entry point custack asks for as `asked`.
        fn looked_up(asked: &[u8]) -> Option<(Id, *mut c_void)> {
            $(
                if asked == $asked.as_bytes() {
                    return Some((Id::$p, looked_up::$p as *mut c_void));
                }
            )*
            None
        }
    };
}

include!("entries.rs");

/// The next library's function of each entry point, once resolved.
static DIRECT: [AtomicPtr<c_void>; ENTRY_COUNT] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; ENTRY_COUNT];
/// The pointer `cuGetProcAddress_v2` returned for each looked-up entry point.
static PROC: [AtomicPtr<c_void>; ENTRY_COUNT] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; ENTRY_COUNT];

/// The next library's function for `id`, resolved on first use.
fn direct(id: Id) -> Option<*mut c_void> {
    let slot = &DIRECT[id as usize];
    let p = slot.load(Relaxed);
    if !p.is_null() {
        return Some(p);
    }
    let p = next(NAMES[id as usize]);
    if p.is_null() {
        None
    } else {
        slot.store(p, Relaxed);
        Some(p)
    }
}

/// An entry point the next library does not have: traced, `CUDA_ERROR_NOT_FOUND`.
fn missing(id: Id) -> CUresult {
    record(id, CUDA_ERROR_NOT_FOUND, Some("missing".to_owned()));
    CUDA_ERROR_NOT_FOUND
}

// ---------------------------------------------------------------------------------------------
// The trace and the counters.

static TRACE: OnceLock<Option<File>> = OnceLock::new();
static SEQ: AtomicU64 = AtomicU64::new(0);
static NEXT_THREAD: AtomicU64 = AtomicU64::new(0);
/// The calls counted as the checking driver counts them (`custackCheckdriverCalls`).
static CALLS: AtomicU64 = AtomicU64::new(0);
/// `nulldriver_set_counting`.
static COUNTING: AtomicBool = AtomicBool::new(false);
static COUNTS: [AtomicU64; ENTRY_COUNT] = [const { AtomicU64::new(0) }; ENTRY_COUNT];

thread_local! {
    static THREAD: Cell<Option<u64>> = const { Cell::new(None) };
}

fn trace_file() -> Option<&'static File> {
    TRACE
        .get_or_init(|| {
            let path = std::env::var_os("CUSTACK_TRACE").filter(|p| !p.is_empty())?;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()
        })
        .as_ref()
}

/// Entry point `id` returned `r`: counted, and its line written (one `write`, at once).
fn record(id: Id, r: CUresult, detail: Option<String>) {
    let name = NAMES[id as usize].to_bytes();
    // As the checking driver counts: neither the error texts nor the lookups.
    if !(name.starts_with(b"cuGetErrorName")
        || name.starts_with(b"cuGetErrorString")
        || name.starts_with(b"cuGetProcAddress"))
    {
        CALLS.fetch_add(1, Relaxed);
    }
    if COUNTING.load(Relaxed) {
        COUNTS[id as usize].fetch_add(1, Relaxed);
    }
    let Some(mut file) = trace_file() else {
        return;
    };
    let seq = SEQ.fetch_add(1, Relaxed) + 1;
    let thread = THREAD
        .try_with(|t| {
            let n = t.get().unwrap_or_else(|| NEXT_THREAD.fetch_add(1, Relaxed));
            t.set(Some(n));
            n.to_string()
        })
        .unwrap_or_else(|_| "-".to_owned());
    let name = String::from_utf8_lossy(name);
    let line = match detail {
        Some(d) => format!(
            "{seq}\t{thread}\t{name}\t{r}\t{}\n",
            d.replace(['\t', '\n'], " ")
        ),
        None => format!("{seq}\t{thread}\t{name}\t{r}\n"),
    };
    let _ = file.write_all(line.as_bytes());
}

// ---------------------------------------------------------------------------------------------
// The entry points declared by hand.

/// `CUipcMemHandle` and `CUipcEventHandle`: 64 bytes, passed by value (in memory).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct IpcHandle {
    reserved: [c_char; 64],
}

/// `cuIpcOpenMemHandle_v2`, traced, forwarded to the next library's (declared exactly: its
/// handle is a 64-byte struct passed by value).
///
/// # Safety
///
/// The driver's: this function passes its arguments on unchanged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuIpcOpenMemHandle_v2(
    pdptr: *mut u64,
    handle: IpcHandle,
    flags: c_uint,
) -> CUresult {
    type F = unsafe extern "C" fn(*mut u64, IpcHandle, c_uint) -> CUresult;
    let Some(f) = direct(Id::cuIpcOpenMemHandle_v2) else {
        return missing(Id::cuIpcOpenMemHandle_v2);
    };
    // SAFETY: the next library's `cuIpcOpenMemHandle_v2`, whose C declaration `F` is.
    let f = unsafe { core::mem::transmute::<*mut c_void, F>(f) };
    // SAFETY: the caller's arguments, unchanged.
    let r = unsafe { f(pdptr, handle, flags) };
    record(Id::cuIpcOpenMemHandle_v2, r, None);
    r
}

/// `cuIpcOpenEventHandle`, traced, forwarded to the next library's (declared exactly: its
/// handle is a 64-byte struct passed by value).
///
/// # Safety
///
/// The driver's: this function passes its arguments on unchanged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuIpcOpenEventHandle(
    event: *mut *mut c_void,
    handle: IpcHandle,
) -> CUresult {
    type F = unsafe extern "C" fn(*mut *mut c_void, IpcHandle) -> CUresult;
    let Some(f) = direct(Id::cuIpcOpenEventHandle) else {
        return missing(Id::cuIpcOpenEventHandle);
    };
    // SAFETY: the next library's `cuIpcOpenEventHandle`, whose C declaration `F` is.
    let f = unsafe { core::mem::transmute::<*mut c_void, F>(f) };
    // SAFETY: the caller's arguments, unchanged.
    let r = unsafe { f(event, handle) };
    record(Id::cuIpcOpenEventHandle, r, None);
    r
}

/// The real driver's version (`cuDriverGetVersion` of the next library, not traced: the
/// interposer's own question), or `None`.
fn real_version() -> Option<c_int> {
    type F = unsafe extern "C" fn(*mut c_int) -> CUresult;
    let f = direct(Id::cuDriverGetVersion)?;
    // SAFETY: the next library's `cuDriverGetVersion`, whose C declaration `F` is.
    let f = unsafe { core::mem::transmute::<*mut c_void, F>(f) };
    let mut v = 0;
    // SAFETY: a valid out-pointer.
    (unsafe { f(&raw mut v) } == CUDA_SUCCESS).then_some(v)
}

/// `cuDriverGetVersion`, traced, forwarded; under an emulated version (a checking program asked
/// for it, `custackCheckdriverSetDriverVersion`) the lower of the two is answered.
///
/// # Safety
///
/// `version` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    type F = unsafe extern "C" fn(*mut c_int) -> CUresult;
    let Some(f) = direct(Id::cuDriverGetVersion) else {
        return missing(Id::cuDriverGetVersion);
    };
    // SAFETY: the next library's `cuDriverGetVersion`, whose C declaration `F` is.
    let f = unsafe { core::mem::transmute::<*mut c_void, F>(f) };
    // SAFETY: the caller's argument, unchanged.
    let r = unsafe { f(version) };
    let emulated = emulated();
    if r == CUDA_SUCCESS && emulated != 0 && !version.is_null() {
        // SAFETY: the caller's out-pointer, checked non-null, just written by the driver.
        let real = unsafe { version.read() };
        // SAFETY: as above: writable.
        unsafe { version.write(real.min(emulated)) };
    }
    record(Id::cuDriverGetVersion, r, None);
    r
}

/// `cuGetProcAddress_v2`, traced (its detail: `symbol@version status`); the looked-up entry
/// points custack declares come back as the interposer's wrappers, the checking driver's
/// extensions the next library lacks as the interposer's answers.
///
/// # Safety
///
/// The driver's: `symbol` NUL-terminated, `pfn` writable, `status` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
    status: *mut c_int,
) -> CUresult {
    type F =
        unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> CUresult;
    let name: &[u8] = if symbol.is_null() {
        b""
    } else {
        // SAFETY: the caller's NUL-terminated symbol.
        unsafe { CStr::from_ptr(symbol) }.to_bytes()
    };
    let mut note = "";
    let own = own_extensions().then(|| own_extension(name)).flatten();
    let r = if let Some(f) = own {
        answer(pfn, status, f)
    } else if pfn.is_null() {
        CUDA_ERROR_INVALID_VALUE
    } else if emulation_hides(name) {
        // As the checking driver answers an entry point newer than the version it reports.
        // SAFETY: the caller's writable out-pointer, checked non-null.
        unsafe { pfn.write(core::ptr::null_mut()) };
        if !status.is_null() {
            // SAFETY: the caller's writable status, checked non-null.
            unsafe { status.write(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND) };
        }
        note = " emulated";
        CUDA_ERROR_NOT_FOUND
    } else {
        let Some(f) = direct(Id::cuGetProcAddress_v2) else {
            return missing(Id::cuGetProcAddress_v2);
        };
        // SAFETY: the next library's `cuGetProcAddress_v2`, whose C declaration `F` is.
        let f = unsafe { core::mem::transmute::<*mut c_void, F>(f) };
        // SAFETY: the caller's arguments, unchanged.
        let r = unsafe { f(symbol, pfn, version, flags, status) };
        // SAFETY: `pfn` is the caller's, checked non-null, written or left by the driver.
        let found = unsafe { pfn.read() };
        // `cuCtxCreate` is `cuCtxCreate_v4` (whose wrapper this is) from 12.5 only; custack
        // asks at 12.5. Asked for at another version it is left untraced.
        let wrapped = looked_up(name).filter(|_| name != b"cuCtxCreate" || version >= 12050);
        if r == CUDA_SUCCESS && !found.is_null() {
            if let Some((id, wrapper)) = wrapped {
                PROC[id as usize].store(found, Relaxed);
                // SAFETY: as above.
                unsafe { pfn.write(wrapper) };
            } else if !name.starts_with(b"custackCheckdriver") {
                note = " untraced";
            }
            r
        } else if let Some(f) = own_extension(name) {
            answer(pfn, status, f)
        } else {
            r
        }
    };
    let answered = if status.is_null() {
        "-".to_owned()
    } else {
        // SAFETY: the caller's status, checked non-null.
        unsafe { status.read() }.to_string()
    };
    let detail = format!(
        "{}@{version} {answered}{note}",
        String::from_utf8_lossy(name)
    );
    record(Id::cuGetProcAddress_v2, r, Some(detail));
    r
}

/// Hands back `f` as a lookup that found it.
fn answer(pfn: *mut *mut c_void, status: *mut c_int, f: *mut c_void) -> CUresult {
    if pfn.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the caller's writable out-pointer, checked non-null.
    unsafe { pfn.write(f) };
    if !status.is_null() {
        // SAFETY: the caller's writable status, checked non-null.
        unsafe { status.write(CU_GET_PROC_ADDRESS_SUCCESS) };
    }
    CUDA_SUCCESS
}

// ---------------------------------------------------------------------------------------------
// The checking driver's extensions, answered where the next library lacks them.

/// `CUSTACK_TRACE_OWN=1`: the interposer answers its extensions even where the next library has
/// them (the self-test, over the double).
fn own_extensions() -> bool {
    static OWN: OnceLock<bool> = OnceLock::new();
    *OWN.get_or_init(|| std::env::var_os("CUSTACK_TRACE_OWN").is_some_and(|v| v == "1"))
}

/// The interposer's answer for extension `name`, if it has one.
fn own_extension(name: &[u8]) -> Option<*mut c_void> {
    match name {
        b"custackCheckdriverSetDriverVersion" => Some(set_driver_version as *mut c_void),
        b"custackCheckdriverCalls" => Some(calls as *mut c_void),
        b"custackCheckdriverFailNext" => Some(fail_next as *mut c_void),
        _ => None,
    }
}

/// The emulated driver version (0: none; -1: not read from the environment yet).
static EMULATED: AtomicI32 = AtomicI32::new(-1);

/// The emulated driver version (0: none): at first `CUSTACK_TRACE_DRIVER_VERSION`, as the
/// checking driver reads `NULLDRIVER_DRIVER_VERSION`, then what a program asked for.
fn emulated() -> c_int {
    let v = EMULATED.load(Relaxed);
    if v >= 0 {
        return v;
    }
    // In front of the checking driver, the double reports the version itself.
    let double = !own_extensions() && !next(c"custackCheckdriverSetDriverVersion").is_null();
    let asked = std::env::var("CUSTACK_TRACE_DRIVER_VERSION")
        .ok()
        .filter(|_| !double)
        .and_then(|v| v.parse::<c_int>().ok())
        .filter(|&v| v >= BASELINE_VERSION);
    let v = match asked {
        Some(v) => real_version().map_or(v, |real| v.min(real)),
        None => 0,
    };
    // A program's own request (already made) wins.
    match EMULATED.compare_exchange(-1, v, Relaxed, Relaxed) {
        Ok(_) => v,
        Err(now) => now,
    }
}

/// The entry points newer than the 12.2 baseline and the CUDA version that introduced each:
/// the checking driver's `NEWER` (`checkdriver/src/api/entry_point.rs`; the test
/// `newer_matches_the_double` compares the two).
const NEWER: &[(&[u8], c_int)] = &[
    (b"cuGraphConditionalHandleCreate", 12030),
    (b"cuStreamBeginCaptureToGraph", 12030),
    (b"cuFuncGetName", 12030),
    (b"cuFuncLoad", 12040),
    (b"cuFuncGetParamInfo", 12040),
    (b"cuModuleGetFunctionCount", 12040),
    (b"cuModuleEnumerateFunctions", 12040),
    (b"cuDeviceGetDevResource", 12040),
    (b"cuCtxGetDevResource", 12040),
    (b"cuDevSmResourceSplitByCount", 12040),
    (b"cuDevResourceGenerateDesc", 12040),
    (b"cuGreenCtxCreate", 12040),
    (b"cuGreenCtxDestroy", 12040),
    (b"cuCtxFromGreenCtx", 12040),
    (b"cuGreenCtxStreamCreate", 12050),
    (b"cuCtxCreate_v4", 12050),
    (b"cuCtxRecordEvent", 12050),
    (b"cuCtxWaitEvent", 12050),
    (b"cuMemcpyBatchAsync", 12080),
    (b"cuMemcpy3DBatchAsync", 12080),
    (b"cuLogsRegisterCallback", 12090),
    (b"cuMemPrefetchBatchAsync", 13000),
    (b"cuMemDiscardBatchAsync", 13000),
    (b"cuMemDiscardAndPrefetchBatchAsync", 13000),
    (b"cuFuncGetParamCount", 13020),
];

/// Whether the emulated version hides `name` (asked for as custack asks: `cuCtxCreate` is
/// `cuCtxCreate_v4` from 12.5, as the checking driver resolves it).
fn emulation_hides(name: &[u8]) -> bool {
    let emulated = emulated();
    if emulated == 0 {
        return false;
    }
    let resolved: &[u8] = if name == b"cuCtxCreate" {
        b"cuCtxCreate_v4"
    } else {
        name
    };
    NEWER
        .iter()
        .any(|&(n, introduced)| n == resolved && emulated < introduced)
}

/// `custackCheckdriverSetDriverVersion` in front of a real driver: from now on
/// `cuDriverGetVersion` answers the lower of `version` and the driver's own, and the entry
/// points introduced after it are not found. `CUDA_ERROR_INVALID_VALUE` before the 12.2
/// baseline, as the checking driver answers.
extern "C" fn set_driver_version(version: c_int) -> CUresult {
    if version < BASELINE_VERSION {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let real = real_version().unwrap_or(version);
    EMULATED.store(version.min(real), Relaxed);
    CUDA_SUCCESS
}

/// `custackCheckdriverCalls` in front of a real driver: the calls traced so far, counted as the
/// checking driver counts them (neither the error texts nor the lookups).
extern "C" fn calls() -> u64 {
    CALLS.load(Relaxed)
}

/// `custackCheckdriverFailNext` in front of a real driver: nothing (the real driver fails the
/// call the program makes fail).
extern "C" fn fail_next(_code: c_int, _sticky: c_int) -> c_int {
    0
}

/// The next library's counter function `name`, unless the interposer answers its own.
fn next_counter(name: &CStr) -> Option<*mut c_void> {
    if own_extensions() {
        return None;
    }
    let p = next(name);
    (!p.is_null()).then_some(p)
}

/// The checking driver's `nulldriver_set_counting` (linked by the checking programs): the next
/// library's, or counting of the calls traced here.
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_set_counting(on: c_int) {
    if let Some(f) = next_counter(c"nulldriver_set_counting") {
        // SAFETY: the checking driver's `nulldriver_set_counting(int)`.
        let f = unsafe { core::mem::transmute::<*mut c_void, extern "C" fn(c_int)>(f) };
        f(on);
    } else {
        COUNTING.store(on != 0, Relaxed);
    }
}

/// The checking driver's `nulldriver_entry_count`: the next library's, or the interposer's
/// number of entry points.
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_entry_count() -> usize {
    if let Some(f) = next_counter(c"nulldriver_entry_count") {
        // SAFETY: the checking driver's `nulldriver_entry_count(void)`.
        let f = unsafe { core::mem::transmute::<*mut c_void, extern "C" fn() -> usize>(f) };
        f()
    } else {
        ENTRY_COUNT
    }
}

/// The checking driver's `nulldriver_entry_name`: the next library's, or the NUL-terminated name
/// of the interposer's entry point `i` (null past the end).
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_entry_name(i: usize) -> *const c_char {
    if let Some(f) = next_counter(c"nulldriver_entry_name") {
        // SAFETY: the checking driver's `nulldriver_entry_name(size_t)`.
        let f = unsafe {
            core::mem::transmute::<*mut c_void, extern "C" fn(usize) -> *const c_char>(f)
        };
        f(i)
    } else {
        NAMES.get(i).map_or(core::ptr::null(), |n| n.as_ptr())
    }
}

/// The checking driver's `nulldriver_counts`: the next library's, or the interposer's counters
/// (up to `cap` of them copied into `out`, in entry point order); returns how many exist.
///
/// # Safety
///
/// `out` is null or holds `cap` writable counters.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nulldriver_counts(out: *mut u64, cap: usize) -> usize {
    if let Some(f) = next_counter(c"nulldriver_counts") {
        type F = unsafe extern "C" fn(*mut u64, usize) -> usize;
        // SAFETY: the checking driver's `nulldriver_counts(uint64_t*, size_t)`.
        let f = unsafe { core::mem::transmute::<*mut c_void, F>(f) };
        // SAFETY: the caller's buffer, as the caller promised.
        return unsafe { f(out, cap) };
    }
    if !out.is_null() {
        for (i, c) in COUNTS.iter().enumerate().take(cap) {
            // SAFETY: `i < cap`, and `out` holds `cap` counters: in bounds.
            let slot = unsafe { out.add(i) };
            // SAFETY: as above: a writable counter.
            unsafe { slot.write(c.load(Relaxed)) };
        }
    }
    ENTRY_COUNT
}

#[cfg(test)]
mod tests;
