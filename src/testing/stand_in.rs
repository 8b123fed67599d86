//! CPU stand-ins for kernels, for tests that run without a GPU under custack's checking driver
//! (`checkdriver/`, see [the guide](crate::guide::testing)).
//!
//! The checking driver backs device memory with host memory, so copies move real bytes; a
//! kernel, though, does nothing there unless a test gives it a stand-in: a Rust closure,
//! registered by kernel name, that each launch calls with the launch's shape and arguments and
//! that reads and writes device memory through the [`KernelCall`] it gets. On a real driver
//! registering does nothing ([`StandIn::is_active`] is false) and the real kernel runs, so one
//! test checks results on a GPU and without one.
//!
//! The registration function is the checking driver's own extension, found with the driver's
//! `cuGetProcAddress_v2`: no second way of reaching the driver, and not a driver call that the
//! fault schedules count. Its ABI mirrors `checkdriver/src/standin.rs`.

use crate::driver::Driver;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::{CStr, c_char, c_int, c_uint, c_void};
use core::marker::PhantomData;
use std::ffi::CString;

/// `custack_checkdriver_launch`, as `checkdriver/src/standin.rs` defines it.
#[repr(C)]
struct RawLaunch {
    size: usize,
    name: *const c_char,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    /// `usize::MAX` when the driver does not know the kernel's parameters.
    n_args: usize,
    args: *const *const c_void,
    arg_sizes: *const usize,
    read: unsafe extern "C" fn(device: u64, host: *mut c_void, bytes: usize) -> c_int,
    write: unsafe extern "C" fn(device: u64, host: *const c_void, bytes: usize) -> c_int,
    report: unsafe extern "C" fn(text: *const c_char),
}

static_assertions::const_assert_eq!(size_of::<RawLaunch>(), 96);

type StandInFn = unsafe extern "C" fn(data: *mut c_void, launch: *const RawLaunch) -> c_int;
type DropFn = unsafe extern "C" fn(data: *mut c_void);
type SetStandIn = unsafe extern "C" fn(
    name: *const c_char,
    call: Option<StandInFn>,
    data: *mut c_void,
    drop: Option<DropFn>,
) -> c_int;

/// What a stand-in returns when it cannot do its work: any error (`?` works on custack's
/// [`Error`] and on the standard ones). The launch then fails and the checking driver reports
/// a violation with its text.
pub type StandInError = Box<dyn std::error::Error + Send + Sync>;

/// A CPU stand-in for a kernel, registered with the checking driver while this value lives.
///
/// Under the checking driver, each launch of a kernel of this name (from a module loaded from
/// PTX text, whose signature tells the driver the arguments' sizes, or from a stand-in cubin
/// that carries that signature, as [`guide::testing`](crate::guide::testing) shows) calls the
/// closure at once, on the launching thread, after the work enqueued before it: the driver runs
/// each stream's work in issue order. A captured launch runs at each launch of its graph. On a
/// real driver nothing is registered and the kernel itself runs.
///
/// # Examples
///
/// ```no_run
/// use custack::{Driver, KernelCall, StandIn};
///
/// # fn main() -> custack::Result<()> {
/// let driver = Driver::init()?;
/// // add_u32(unsigned* x, unsigned k, unsigned n): x[i] += k for i < n.
/// let add = |call: &KernelCall<'_>| {
///     let (x, k, n) = (call.arg::<u64>(0)?, call.arg::<u32>(1)?, call.arg::<u32>(2)?);
///     let mut v = call.read::<u32>(x, n as usize)?;
///     v.iter_mut().for_each(|e| *e += k);
///     call.write(x, &v)?;
///     Ok(())
/// };
/// // SAFETY: like the kernel, the stand-in touches x[0..n) of the buffer passed as `x` only.
/// let _add = unsafe { StandIn::register(&driver, "add_u32", add) }?;
/// // ... launches of add_u32 now compute on the CPU under the checking driver.
/// # Ok(())
/// # }
/// ```
#[must_use = "the stand-in is removed when this value is dropped"]
#[derive(Debug)]
pub struct StandIn {
    name: CString,
    /// The driver's registration function, when it has one (the checking driver).
    set: Option<SetStandIn>,
}

impl StandIn {
    /// Registers `f` as the CPU stand-in of kernel `kernel` (replacing an earlier one), when
    /// the driver is custack's checking driver in checking mode; otherwise registers nothing
    /// ([`is_active`](Self::is_active) is false).
    ///
    /// # Safety
    ///
    /// Under the checking driver `f` *is* the kernel, and launches rely on what a kernel
    /// promises (the caller of an unsafe launch, or a contract's declaration for a safe
    /// [`run`](crate::StreamScope::run)). So for every launch of a kernel of this name while
    /// the stand-in is registered, `f` reads and writes ([`KernelCall::read`],
    /// [`KernelCall::write`]) only the device memory that launch lets the kernel touch: the
    /// buffers passed to it, within their extents, writing only those it may write. In
    /// particular it never touches memory that a Rust reference may reach during the launch:
    /// the checking driver keeps managed memory as host memory at its device address, so a
    /// write (or a read) there while the host borrows that memory, e.g. a managed buffer not
    /// bound to the launching scope, would be undefined behaviour.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NulInName`] for a name with a NUL byte; a driver error of
    /// `cuGetProcAddress_v2` other than "not found".
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DRIVER__ENTRY__POINT.html>
    #[doc(alias = "cuGetProcAddress")]
    pub unsafe fn register<F>(_driver: &Driver, kernel: &str, f: F) -> Result<StandIn>
    where
        F: Fn(&KernelCall<'_>) -> core::result::Result<(), StandInError> + Send + Sync + 'static,
    {
        let name = CString::new(kernel).map_err(|_| {
            Error::custack(
                ErrorKind::NulInName,
                format!("kernel name {kernel:?} holds a NUL byte"),
            )
        })?;
        let Some(set) = registration()? else {
            return Ok(StandIn { name, set: None });
        };
        let data = Box::into_raw(Box::new(f)).cast::<c_void>();
        // SAFETY: `set` is the checking driver's `custackCheckdriverSetStandIn`:
        // - `name` is NUL-terminated and outlives the call;
        // - `call::<F>` and `release::<F>` take `data`, a `Box<F>` given up here: `F` is
        //   `Send + Sync`, so both may run on any thread, and the driver runs `release` once
        //   (when replaced, removed, or refused).
        let r = unsafe { set(name.as_ptr(), Some(call::<F>), data, Some(release::<F>)) };
        match ffi::CUresult(r) {
            ffi::CUresult::CUDA_SUCCESS => Ok(StandIn {
                name,
                set: Some(set),
            }),
            // Not in checking mode: device memory holds no data there.
            ffi::CUresult::CUDA_ERROR_NOT_SUPPORTED => Ok(StandIn { name, set: None }),
            code => Err(code.failure()),
        }
    }

    /// Whether the checking driver runs this stand-in (false on a real driver).
    pub fn is_active(&self) -> bool {
        self.set.is_some()
    }

    /// The kernel's name.
    pub fn kernel_name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        if let Some(set) = self.set {
            // SAFETY: `set` is the checking driver's registration function; a null `call`
            // removes this name's stand-in (if it is still ours or another's: the latest
            // registration for a name wins, and the last guard removes it).
            let status = unsafe { set(self.name.as_ptr(), None, core::ptr::null_mut(), None) };
            if status != 0 {
                crate::error::record_drop_error(Error::custack(
                    ErrorKind::InvalidValue,
                    format!(
                        "the checking driver did not remove the stand-in of `{}` (status {status})",
                        self.name.to_string_lossy()
                    ),
                ));
            }
        }
    }
}

/// The checking driver's registration function, or `None` on another driver.
fn registration() -> Result<Option<SetStandIn>> {
    let Some(pfn) = super::extension(c"custackCheckdriverSetStandIn")? else {
        return Ok(None);
    };
    // SAFETY: only custack's checking driver defines this symbol, with the signature
    // `SetStandIn` (`checkdriver/src/standin.rs`); function and data pointers have one size.
    Ok(Some(unsafe {
        core::mem::transmute::<*mut c_void, SetStandIn>(pfn)
    }))
}

/// Calls the stand-in `data` (a `Box<F>`) for `launch`, catching a panic (the launch then
/// fails, and the panic's message has been printed).
unsafe extern "C" fn call<F>(data: *mut c_void, launch: *const RawLaunch) -> c_int
where
    F: Fn(&KernelCall<'_>) -> core::result::Result<(), StandInError> + Send + Sync + 'static,
{
    if launch.is_null() || data.is_null() {
        return 1;
    }
    // SAFETY: every version of the ABI opens the launch with its size (a `usize`), readable
    // across this call; the place is named without forming a reference to the rest, which may
    // be shorter.
    let size_at = unsafe { &raw const (*launch).size };
    // SAFETY: as above: `size_at` is the launch's first word, readable across this call.
    let size = unsafe { size_at.read() };
    if size != size_of::<RawLaunch>() {
        return 1; // a driver of another ABI
    }
    // SAFETY: the driver passes a launch of this ABI (its size, checked above), alive across
    // this call.
    let raw = unsafe { &*launch };
    // SAFETY: `data` is the `Box<F>` given up by `register`, alive until `release`.
    let f = unsafe { &*data.cast::<F>() };
    let call = KernelCall {
        raw,
        _not_send: PhantomData,
    };
    let text = match std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| f(&call))) {
        Ok(Ok(())) => return 0,
        Ok(Err(e)) => format!(
            "the stand-in for kernel `{}` failed: {e}",
            call.kernel_name()
        ),
        Err(_) => format!("the stand-in for kernel `{}` panicked", call.kernel_name()),
    };
    let text = CString::new(text.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `report` takes a NUL-terminated text, valid across the call.
    unsafe { (raw.report)(text.as_ptr()) };
    1
}

/// Releases the stand-in `data` (a `Box<F>`).
unsafe extern "C" fn release<F>(data: *mut c_void) {
    if !data.is_null() {
        // SAFETY: `data` is the `Box<F>` given up by `register`; the driver releases it once.
        drop(unsafe { Box::from_raw(data.cast::<F>()) });
    }
}

/// One launch, as its stand-in sees it: the kernel, its shape, its arguments, and the device
/// memory of the checking driver (host memory there), read and written by copy.
#[derive(Debug)]
pub struct KernelCall<'a> {
    raw: &'a RawLaunch,
    // The launch is only valid during the call, on its thread.
    _not_send: PhantomData<*const ()>,
}

impl core::fmt::Debug for RawLaunch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RawLaunch")
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("n_args", &self.n_args)
            .finish_non_exhaustive()
    }
}

impl KernelCall<'_> {
    /// The kernel's name.
    pub fn kernel_name(&self) -> &str {
        if self.raw.name.is_null() {
            return "";
        }
        // SAFETY: the driver passes the kernel's NUL-terminated name, alive during the call.
        unsafe { CStr::from_ptr(self.raw.name) }
            .to_str()
            .unwrap_or("")
    }

    /// The grid's size in blocks, (x, y, z).
    pub fn grid(&self) -> [u32; 3] {
        self.raw.grid
    }

    /// The block's size in threads, (x, y, z).
    pub fn block(&self) -> [u32; 3] {
        self.raw.block
    }

    /// The dynamic shared memory of each block, in bytes.
    pub fn shared_bytes(&self) -> u32 {
        self.raw.shared
    }

    /// The number of arguments, or `None` when the driver does not know the kernel's
    /// parameters (its module was not loaded from PTX text).
    pub fn arg_count(&self) -> Option<usize> {
        (self.raw.n_args != usize::MAX).then_some(self.raw.n_args)
    }

    /// Argument `i` as a `T` (a device pointer is a `u64`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] when there is no argument `i`, its size is not `T`'s, or the
    /// parameters are unknown.
    pub fn arg<T: DeviceCopy>(&self, i: usize) -> Result<T> {
        let Some(n) = self.arg_count() else {
            return Err(out_of_range(format!(
                "the arguments of kernel `{}` are unknown: load its module from PTX text",
                self.kernel_name()
            )));
        };
        let (sizes, args): (&[usize], &[*const c_void]) = if n == 0 {
            (&[], &[])
        } else {
            // SAFETY: the driver passes `n_args` sizes at `arg_sizes`, alive during the call.
            let sizes = unsafe { core::slice::from_raw_parts(self.raw.arg_sizes, n) };
            // SAFETY: the driver passes `n_args` argument pointers at `args`, alive too.
            let args = unsafe { core::slice::from_raw_parts(self.raw.args, n) };
            (sizes, args)
        };
        let Some((&size, &p)) = sizes.iter().zip(args).nth(i) else {
            return Err(out_of_range(format!(
                "kernel `{}` has {n} arguments, no argument {i} (counted from 0)",
                self.kernel_name()
            )));
        };
        if size != size_of::<T>() {
            return Err(out_of_range(format!(
                "argument {i} of kernel `{}` has {size} bytes, not the {} of {}",
                self.kernel_name(),
                size_of::<T>(),
                core::any::type_name::<T>()
            )));
        }
        // SAFETY: `p` points to the argument's `size_of::<T>()` bytes (checked above), which
        // are a valid `T` whatever they hold (`T: DeviceCopy`); unaligned, as the driver
        // copied them.
        Ok(unsafe { p.cast::<T>().read_unaligned() })
    }

    /// Reads `len` values of `T` from device memory at `address`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] when no allocation of the checking driver holds `address`,
    /// or the read runs past the end of its allocation (also reported as a violation);
    /// [`ErrorKind::SizeOverflow`] when `len` values do not fit in memory.
    pub fn read<T: DeviceCopy>(&self, address: u64, len: usize) -> Result<Vec<T>> {
        let bytes = bytes_of::<T>(len)?;
        let mut v: Vec<T> = Vec::with_capacity(len);
        // SAFETY: `v` has room for `len` values, `bytes` bytes; `read` writes all of them or
        // fails.
        let r = unsafe { (self.raw.read)(address, v.as_mut_ptr().cast(), bytes) };
        access(r, address, bytes)?;
        // SAFETY: `read` succeeded: all `len` values were written, and any bytes are a valid
        // `T` (`T: DeviceCopy`).
        unsafe { v.set_len(len) };
        Ok(v)
    }

    /// Writes `data` to device memory at `address`.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    pub fn write<T: DeviceCopy>(&self, address: u64, data: &[T]) -> Result<()> {
        let bytes = size_of_val(data);
        // SAFETY: `data` is `bytes` initialized bytes (`T: DeviceCopy` has no padding).
        let r = unsafe { (self.raw.write)(address, data.as_ptr().cast(), bytes) };
        access(r, address, bytes)
    }
}

/// The result of the driver's `read` or `write`.
fn access(r: c_int, address: u64, bytes: usize) -> Result<()> {
    match r {
        0 => Ok(()),
        1 => Err(out_of_range(format!(
            "no device allocation of the checking driver holds {address:#x}"
        ))),
        _ => Err(out_of_range(format!(
            "{bytes} bytes at {address:#x} run past the end of their allocation"
        ))),
    }
}

fn out_of_range(detail: String) -> Error {
    Error::custack(ErrorKind::OutOfRange, detail)
}

fn bytes_of<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>()).ok_or_else(|| {
        Error::custack(
            ErrorKind::SizeOverflow,
            format!("{len} values of {} bytes", size_of::<T>()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{KernelCall, RawLaunch, StandInError, call};
    use core::ffi::{CStr, c_char, c_int, c_void};
    use std::cell::RefCell;

    thread_local! {
        /// What the stand-in trampoline reported, as the checking driver would record it.
        static REPORTED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    }

    unsafe extern "C" fn no_read(_: u64, _: *mut c_void, _: usize) -> c_int {
        1
    }
    unsafe extern "C" fn no_write(_: u64, _: *const c_void, _: usize) -> c_int {
        1
    }
    unsafe extern "C" fn report(text: *const c_char) {
        // SAFETY: `call` passes a NUL-terminated text, valid across this call.
        let text = unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned();
        REPORTED.with(|r| r.borrow_mut().push(text));
    }

    fn launch(size: usize) -> RawLaunch {
        RawLaunch {
            size,
            name: c"scale".as_ptr(),
            grid: [2, 1, 1],
            block: [64, 1, 1],
            shared: 0,
            n_args: usize::MAX,
            args: core::ptr::null(),
            arg_sizes: core::ptr::null(),
            read: no_read,
            write: no_write,
            report,
        }
    }

    /// Runs the C trampoline for `f` on `launch`, with this test in the driver's place; returns
    /// its status and what it reported.
    fn run<F>(f: F, launch: &RawLaunch) -> (c_int, Vec<String>)
    where
        F: Fn(&KernelCall<'_>) -> Result<(), StandInError> + Send + Sync + 'static,
    {
        REPORTED.with(|r| r.borrow_mut().clear());
        let mut f = f;
        // SAFETY: `data` is a live `F`, `launch` a live launch, both across the call.
        let status = unsafe { call::<F>((&raw mut f).cast(), launch) };
        (status, REPORTED.with(|r| r.borrow_mut().split_off(0)))
    }

    #[test]
    fn a_stand_in_that_succeeds_sees_the_launch_and_reports_nothing() {
        let (status, reported) = run(
            |k| {
                assert_eq!(
                    (k.kernel_name(), k.grid(), k.block()),
                    ("scale", [2, 1, 1], [64, 1, 1])
                );
                assert_eq!(k.arg_count(), None);
                Ok(())
            },
            &launch(size_of::<RawLaunch>()),
        );
        assert_eq!((status, reported.len()), (0, 0));
    }

    #[test]
    fn a_failing_stand_in_fails_the_launch_and_reports_its_kernel_and_error() {
        let (status, reported) = run(
            |k| Err(format!("no data for {} blocks", k.grid()[0]).into()),
            &launch(size_of::<RawLaunch>()),
        );
        assert_eq!(status, 1);
        assert_eq!(
            reported,
            ["the stand-in for kernel `scale` failed: no data for 2 blocks"]
        );
        // An argument the driver does not know is an error, not a guess.
        let (status, reported) = run(
            |k| k.arg::<u32>(0).map(drop).map_err(Into::into),
            &launch(size_of::<RawLaunch>()),
        );
        assert_eq!(status, 1);
        assert!(
            reported[0].contains("load its module from PTX text"),
            "{reported:?}"
        );
    }

    #[test]
    fn a_panicking_stand_in_fails_the_launch_without_unwinding_into_the_driver() {
        let (status, reported) = run(
            |_| panic!("stand-in panic (expected by this test)"),
            &launch(size_of::<RawLaunch>()),
        );
        assert_eq!(status, 1);
        assert_eq!(reported, ["the stand-in for kernel `scale` panicked"]);
    }

    #[test]
    fn a_launch_of_another_abi_is_refused_before_the_stand_in_runs() {
        // A launch whose size names another version of the ABI: the rest is not read.
        let short = launch(size_of::<usize>() * 2);
        let (status, reported) = run(|_| panic!("the stand-in ran"), &short);
        assert_eq!((status, reported.len()), (1, 0));
        // SAFETY: null pointers are refused before anything is read.
        let status = unsafe {
            call::<fn(&KernelCall<'_>) -> Result<(), StandInError>>(
                core::ptr::null_mut(),
                &raw const short,
            )
        };
        assert_eq!(status, 1);
    }
}
