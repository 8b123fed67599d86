//! The trace of driver calls (`NULLDRIVER_TRACE=path`), for the differential run against the
//! real libcuda (`docs/validation.md`, contract row R26): one line per entry point call, written
//! after its body (the early `check::fault` return included), in the format the interposer of
//! `checkdriver/trace/` writes in front of a real driver, so that one comparer reads both:
//!
//! ```text
//! SEQ<TAB>THREAD<TAB>NAME<TAB>RESULT[<TAB>DETAIL]
//! ```
//!
//! `SEQ` counts the traced calls of the process from 1 (in the order their bodies returned),
//! `THREAD` numbers the calling threads from 0 in the order of their first traced call (not the
//! OS id, which differs from run to run), `NAME` is the exported symbol (`cuMemAlloc_v2`),
//! `RESULT` the `CUresult` returned, and `DETAIL` what a call adds for the comparer: the symbol,
//! the version asked for and the status answered by `cuGetProcAddress*` (`name@version status`),
//! so that the lookups of the double's own extensions can be told apart.
//!
//! Each line is one `write` to a file opened with `O_APPEND`, at once (no buffer): a process that
//! ends in custack's safe state (`_exit`) loses no line, and several processes may share a file.
//! Off (the default) a call pays one relaxed load.

use core::cell::{Cell, RefCell};
use core::ffi::c_int;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::fs::File;
use std::io::Write;
use std::sync::OnceLock;

static ON: AtomicBool = AtomicBool::new(false);
static FILE: OnceLock<File> = OnceLock::new();
static SEQ: AtomicU64 = AtomicU64::new(0);
static NEXT_THREAD: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's number, once it made a traced call.
    static THREAD: Cell<Option<u64>> = const { Cell::new(None) };
    /// The detail the running call left for its line.
    static DETAIL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Opens the trace file that `NULLDRIVER_TRACE` names (at load; nothing when unset or empty).
pub(crate) fn init() {
    let Some(path) = std::env::var_os("NULLDRIVER_TRACE").filter(|p| !p.is_empty()) else {
        return;
    };
    let opened = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(file) = opened
        && FILE.set(file).is_ok()
    {
        ON.store(true, Relaxed);
    }
}

/// Whether calls are traced.
#[inline(always)]
#[allow(
    clippy::inline_always,
    reason = "on every entry point's path: one load and a branch while it is off (timing runs)"
)]
pub(crate) fn on() -> bool {
    ON.load(Relaxed)
}

/// Entry point `name` returned `code`: its line.
#[inline(always)]
#[allow(
    clippy::inline_always,
    reason = "on every entry point's path: one load and a branch while it is off (timing runs)"
)]
pub(crate) fn record(name: &str, code: c_int) {
    if on() {
        record_slow(name, code);
    }
}

#[inline(never)]
fn record_slow(name: &str, code: c_int) {
    let seq = SEQ.fetch_add(1, Relaxed) + 1;
    // A call from a thread-local destructor may find this thread's slots gone: `-`.
    let thread = THREAD
        .try_with(|t| {
            let n = t.get().unwrap_or_else(|| NEXT_THREAD.fetch_add(1, Relaxed));
            t.set(Some(n));
            n.to_string()
        })
        .unwrap_or_else(|_| "-".to_owned());
    let detail = DETAIL.try_with(|d| d.borrow_mut().take()).ok().flatten();
    let line = match detail {
        Some(d) => format!("{seq}\t{thread}\t{name}\t{code}\t{d}\n"),
        None => format!("{seq}\t{thread}\t{name}\t{code}\n"),
    };
    if let Some(mut file) = FILE.get() {
        let _ = file.write_all(line.as_bytes());
    }
}

/// The running call's detail for its line (only made when tracing is on).
pub(crate) fn detail(text: impl FnOnce() -> String) {
    if on() {
        let text = text();
        let _ = DETAIL.try_with(|d| *d.borrow_mut() = Some(text.replace(['\t', '\n'], " ")));
    }
}

/// `cuGetProcAddress*(symbol, .., version, .., status)` answered by `lookup` (given a status
/// slot that is never null), with its detail: `symbol@version status` (`-` for the status of
/// `cuGetProcAddress`, which has none).
///
/// # Safety
///
/// `symbol` is null or NUL-terminated; `status` is null or writable.
pub(crate) unsafe fn proc_address(
    symbol: *const core::ffi::c_char,
    version: c_int,
    status: *mut c_int,
    lookup: impl FnOnce(*mut c_int) -> c_int,
) -> c_int {
    let mut own = -1;
    let slot = if status.is_null() {
        &raw mut own
    } else {
        status
    };
    let r = lookup(slot);
    detail(|| {
        let name = if symbol.is_null() {
            "(null)".to_owned()
        } else {
            // SAFETY: the caller's promise: a NUL-terminated symbol.
            unsafe { core::ffi::CStr::from_ptr(symbol) }
                .to_string_lossy()
                .into_owned()
        };
        // The status the caller asked for (`cuGetProcAddress_v2`), or `-`: the interposer
        // cannot see one that `cuGetProcAddress` keeps to itself.
        let answered = if status.is_null() {
            "-".to_owned()
        } else {
            // SAFETY: the caller's writable status, written or left by `lookup`.
            unsafe { status.read() }.to_string()
        };
        format!("{name}@{version} {answered}")
    });
    r
}

// ---------------------------------------------------------------------------------------------
// The differential run's extensions (`docs/validation.md`). The interposer defines the same two
// in front of a real driver, so that one program runs on both.

/// `NULLDRIVER_DRIVER_VERSION_MAX` (read at load): the highest version the double reports,
/// whatever a program asks for (`custackCheckdriverSetDriverVersion`), so that it answers as the
/// real driver of the differential run does (580: 13000).
static VERSION_CEILING: core::sync::atomic::AtomicI32 =
    core::sync::atomic::AtomicI32::new(c_int::MAX);

/// The version ceiling (`c_int::MAX` when none is set).
pub(crate) fn version_ceiling() -> c_int {
    static READ: std::sync::Once = std::sync::Once::new();
    READ.call_once(|| {
        if let Some(v) = std::env::var("NULLDRIVER_DRIVER_VERSION_MAX")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            VERSION_CEILING.store(v, Relaxed);
        }
    });
    VERSION_CEILING.load(Relaxed)
}

/// The double's extension for the differential run's failure programs: the next counted driver
/// call (any thread's) fails with `code`; with `sticky` other than 0, every counted call from it
/// on fails with `code` (but the calls a sticky schedule spares: the context stack's,
/// `cuCtxDestroy`, `cuGreenCtxDestroy`, `cuLibraryUnload`). A program calls it just before the
/// call it makes the real driver fail, where the interposer's twin does nothing. Found through
/// `cuGetProcAddress("custackCheckdriverFailNext")`; not a driver call, so neither counted nor
/// failed. Returns 0, or `CUDA_ERROR_INVALID_VALUE` for a code of 0 or less.
#[unsafe(no_mangle)]
pub extern "C" fn custackCheckdriverFailNext(code: c_int, sticky: c_int) -> c_int {
    match u64::try_from(code) {
        Ok(c) if c > 0 => {
            crate::check::fail_next(c, sticky != 0);
            0
        }
        _ => 1,
    }
}

/// The double's extension for an error path inside one custack call: the next counted call of
/// the entry point `name` (a NUL-terminated name or a name's start, on any thread) fails with
/// `code`, as `custackCheckdriverFailNext` fails the next call (with `sticky` other than 0,
/// every counted call from it on). The double's alone: the interposer does not answer it, so a
/// program that calls it is not run on the real driver. Returns 0, or
/// `CUDA_ERROR_INVALID_VALUE` for a code of 0 or less or a name that is null or not UTF-8.
///
/// # Safety
///
/// `name` is null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverFailCall(
    name: *const core::ffi::c_char,
    code: c_int,
    sticky: c_int,
) -> c_int {
    if name.is_null() {
        return 1;
    }
    // SAFETY: non-null and NUL-terminated (this function's contract).
    let name = unsafe { core::ffi::CStr::from_ptr(name) };
    match (u64::try_from(code), name.to_str()) {
        (Ok(c), Ok(name)) if c > 0 && !name.is_empty() => {
            crate::check::fail_call(name, c, sticky != 0);
            0
        }
        _ => 1,
    }
}
