//! CPU stand-ins for kernels, in checking mode: a program registers a function by kernel name
//! (custack's `StandIn::register`, which finds `custackCheckdriverSetStandIn` through
//! `cuGetProcAddress`, so that a real driver answers "not found" and the real kernel runs), and
//! each launch of a kernel of that name calls it, at once, with the launch's shape, its
//! arguments (where the module was loaded from PTX text, whose signature gives their sizes) and
//! functions that read and write device memory (`data.rs`). A launch of a kernel without one
//! does nothing, as before, and the report counts it (`no-stand-in NAME N`).
//!
//! The ABI below is mirrored by `src/testing/stand_in.rs` of custack; `size` lets either side check
//! that the other agrees.

use crate::data;
use crate::mode::{CHECK, data_violation};
use core::ffi::{CStr, c_char, c_int, c_uint, c_void};
use core::sync::atomic::Ordering::Relaxed;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What a stand-in is given: `custack_checkdriver_launch`.
#[repr(C)]
pub struct StandInLaunch {
    /// `size_of::<StandInLaunch>()`.
    pub size: usize,
    /// The kernel's name, NUL-terminated.
    pub name: *const c_char,
    /// The launch's grid, in blocks.
    pub grid: [c_uint; 3],
    /// The launch's block, in threads.
    pub block: [c_uint; 3],
    /// The launch's dynamic shared memory, in bytes.
    pub shared: c_uint,
    /// The number of arguments; `usize::MAX` when the double does not know the kernel's
    /// parameters (a module not loaded from PTX text).
    pub n_args: usize,
    /// Each argument's bytes, as `kernelParams`.
    pub args: *const *const c_void,
    /// Each argument's size in bytes.
    pub arg_sizes: *const usize,
    /// Reads `bytes` device bytes at `device` into `host`: 0, or 1 when no allocation holds
    /// `device`, or 2 when the read runs past the end of its allocation (a violation).
    pub read: unsafe extern "C" fn(device: u64, host: *mut c_void, bytes: usize) -> c_int,
    /// Writes `bytes` bytes at `host` to the device at `device`; results as for `read`.
    pub write: unsafe extern "C" fn(device: u64, host: *const c_void, bytes: usize) -> c_int,
    /// Records a violation with this text (NUL-terminated).
    pub report: unsafe extern "C" fn(text: *const c_char),
}

const _: () = assert!(size_of::<StandInLaunch>() == 96); // custack's `RawLaunch` agrees

/// A stand-in: 0 when it ran, anything else when it failed (the launch then fails).
pub type StandInFn = unsafe extern "C" fn(data: *mut c_void, launch: *const StandInLaunch) -> c_int;
/// Releases a stand-in's `data`, when it is replaced or removed.
pub type DropFn = unsafe extern "C" fn(data: *mut c_void);

struct Entry {
    call: StandInFn,
    data: *mut c_void,
    drop: Option<DropFn>,
}

// SAFETY: the registering side promises that `call` may be called, and `drop` run, from any
// thread, on `data` (custack requires `Send + Sync` of the closure).
unsafe impl Send for Entry {}
// SAFETY: as above.
unsafe impl Sync for Entry {}

impl Drop for Entry {
    fn drop(&mut self) {
        if let Some(d) = self.drop {
            // SAFETY: the registering side's contract: `drop` releases `data`, once.
            unsafe { d(self.data) };
        }
    }
}

static STAND_INS: Mutex<BTreeMap<String, Arc<Entry>>> = Mutex::new(BTreeMap::new());
/// Function and library-kernel handles, by name.
static NAMES: Mutex<Option<HashMap<usize, String>>> = Mutex::new(None);
/// Launches of kernels without a stand-in, by name.
static MISSING: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn checking() -> bool {
    CHECK.load(Relaxed)
}

/// Handle `h` (a function or a library kernel) is the kernel `name`.
pub(crate) fn named(h: usize, name: &str) {
    if checking() {
        lock(&NAMES)
            .get_or_insert_with(HashMap::new)
            .insert(h, name.to_owned());
    }
}

/// Function `f` is library kernel `kernel`'s: the same name.
pub(crate) fn same_name(f: usize, kernel: usize) {
    if checking() {
        let mut names = lock(&NAMES);
        let names = names.get_or_insert_with(HashMap::new);
        if let Some(n) = names.get(&kernel).cloned() {
            names.insert(f, n);
        }
    }
}

/// Registers `call` for kernel `name` (replacing, and releasing, any earlier one), or removes
/// it when `call` is null. Not a driver entry point, and not counted as a driver call: found
/// through `cuGetProcAddress`. `CUDA_ERROR_NOT_SUPPORTED` (and `data` released) when the double
/// is not in checking mode, where device memory holds no data.
///
/// # Safety
/// `name` is null or NUL-terminated; `call` and `drop` may be called from any thread on `data`,
/// `drop` once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn custackCheckdriverSetStandIn(
    name: *const c_char,
    call: Option<StandInFn>,
    data: *mut c_void,
    drop: Option<DropFn>,
) -> c_int {
    let entry = call.map(|call| Entry { call, data, drop });
    if name.is_null() {
        return 1; // CUDA_ERROR_INVALID_VALUE (`entry` releases `data`)
    }
    if !checking() {
        return 801; // CUDA_ERROR_NOT_SUPPORTED
    }
    // SAFETY: the caller's: NUL-terminated.
    let name = unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned();
    let old = match entry {
        Some(e) => lock(&STAND_INS).insert(name, Arc::new(e)),
        None => lock(&STAND_INS).remove(&name),
    };
    core::mem::drop(old); // released outside the lock: its `drop` may do anything
    0
}

unsafe extern "C" fn read(device: u64, host: *mut c_void, bytes: usize) -> c_int {
    if host.is_null() && bytes != 0 {
        return 1;
    }
    let buf = if bytes == 0 {
        &mut [][..]
    } else {
        // SAFETY: the stand-in's contract: `host` is valid for writing `bytes` bytes.
        unsafe { core::slice::from_raw_parts_mut(host.cast::<u8>(), bytes) }
    };
    result(data::read(device, buf), "a stand-in's read")
}

unsafe extern "C" fn write(device: u64, host: *const c_void, bytes: usize) -> c_int {
    if host.is_null() && bytes != 0 {
        return 1;
    }
    let buf = if bytes == 0 {
        &[][..]
    } else {
        // SAFETY: the stand-in's contract: `host` is valid for reading `bytes` bytes.
        unsafe { core::slice::from_raw_parts(host.cast::<u8>(), bytes) }
    };
    crate::inject::wrote(device, bytes);
    result(data::write(device, buf), "a stand-in's write")
}

fn result(r: Result<bool, String>, what: &str) -> c_int {
    match r {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            data_violation(what, &e);
            2
        }
    }
}

unsafe extern "C" fn report(text: *const c_char) {
    if !text.is_null() {
        // SAFETY: the stand-in's contract: NUL-terminated.
        let t = unsafe { CStr::from_ptr(text) }.to_string_lossy();
        data_violation("a stand-in", &t);
    }
}

/// A launch to run: the kernel, its shape, and a copy of its arguments (so that a captured
/// launch can run again at each launch of its graph).
#[derive(Clone)]
pub(crate) struct Launch {
    f: usize,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    /// `None` when the kernel's parameters are unknown.
    args: Option<Vec<Vec<u8>>>,
}

/// The launch of `f` with `params` (`kernelParams`), its arguments copied, where their sizes
/// are known (`param_sizes`: `f`'s parameter sizes, `check::param_sizes`).
///
/// # Safety
/// `params` holds a valid pointer per parameter of `f`, each to that parameter's bytes.
pub(crate) unsafe fn launch(
    f: usize,
    param_sizes: Option<Vec<usize>>,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    params: *const *mut c_void,
) -> Launch {
    let args = param_sizes.map(|sizes| {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                if params.is_null() || size == 0 {
                    return vec![0; size];
                }
                // SAFETY: the caller's: a valid pointer per parameter, to `size` bytes.
                let arg = unsafe { params.wrapping_add(i).read() }.cast::<u8>();
                // SAFETY: as above.
                unsafe { core::slice::from_raw_parts(arg, size) }.to_vec()
            })
            .collect()
    });
    Launch {
        f,
        grid,
        block,
        shared,
        args,
    }
}

/// Runs `launch`: its kernel's stand-in, or nothing (counted). `Err(code)`: the stand-in failed.
pub(crate) fn run(launch: &Launch) -> Result<(), c_int> {
    let name = lock(&NAMES)
        .as_ref()
        .and_then(|n| n.get(&launch.f).cloned())
        .unwrap_or_else(|| "<unnamed>".to_owned());
    let Some(entry) = lock(&STAND_INS).get(&name).cloned() else {
        *lock(&MISSING).entry(name).or_insert(0) += 1;
        return Ok(());
    };
    let cname = std::ffi::CString::new(name.clone()).unwrap_or_default();
    let (ptrs, sizes): (Vec<*const c_void>, Vec<usize>) = launch
        .args
        .iter()
        .flatten()
        .map(|a| (a.as_ptr().cast::<c_void>(), a.len()))
        .unzip();
    let raw = StandInLaunch {
        size: size_of::<StandInLaunch>(),
        name: cname.as_ptr(),
        grid: launch.grid,
        block: launch.block,
        shared: launch.shared,
        n_args: launch.args.as_ref().map_or(usize::MAX, Vec::len),
        args: ptrs.as_ptr(),
        arg_sizes: sizes.as_ptr(),
        read,
        write,
        report,
    };
    // SAFETY: the registering side's contract; `raw` and everything it points to live across
    // the call. No lock is held: the stand-in calls `read` and `write`.
    if unsafe { (entry.call)(entry.data, &raw const raw) } == 0 {
        Ok(())
    } else {
        data_violation(
            "cuLaunchKernel",
            &format!("the stand-in for kernel `{name}` failed"),
        );
        Err(719) // CUDA_ERROR_LAUNCH_FAILED
    }
}

/// The report's lines: `no-stand-in NAME N` per kernel launched without a stand-in.
pub(crate) fn report_lines() -> String {
    use core::fmt::Write;
    let mut out = String::new();
    for (name, n) in lock(&MISSING).iter() {
        let _ = writeln!(out, "no-stand-in {name} {n}");
    }
    out
}
