//! The differential run's own programs and switches (`docs/validation.md`, contract row R26).
//!
//! **Failures made real.** Each `fault_*` program makes the real driver fail a call the way the
//! checking driver's schedules fail one (a trap kernel: `CUDA_ERROR_LAUNCH_FAILED`, sticky; an
//! illegal write: `CUDA_ERROR_ILLEGAL_ADDRESS`, sticky; an allocation too large for the device or
//! for its pool: `CUDA_ERROR_OUT_OF_MEMORY`; a destroyed stream, a null function: an invalid
//! handle; a call with the context current on another thread: `CUDA_ERROR_INVALID_CONTEXT`), and
//! tells the double, just before that call, to fail it with the same code
//! (`custackCheckdriverFailNext`; in front of a real driver the interposer's twin does nothing).
//! Then it goes on: custack's own next calls, and after a sticky error a probe of the driver's
//! answers to the calls custack makes (raw, each whatever the one before answered). The
//! comparer sets the two traces side by side. A program here asserts nothing about the codes:
//! what the drivers answer is the comparison's to judge.
//!
//! The code a program tells the double is the one the CUDA documentation gives for the failure;
//! where the H100 run shows another, the program's code is corrected (the double is not told to
//! agree with a driver it was not compared with).
//!
//! **Real kernel images.** The restricted programs load a cubin made by `cubin::stand_in_cubin`
//! (an ELF the double reads, which a real driver refuses). Where the GPU bundle built the real
//! image (`CUSTACK_FRAME_CUBIN`, `CUSTACK_FRAME_CUBIN_WRONG_ARCH`, `CUSTACK_CONDITIONAL_CUBIN`:
//! the differential run sets them for the real driver's run only), [`frame_cubin`],
//! [`frame_cubin_wrong_arch`] and [`conditional_cubin`] load that instead.

use crate::common::{KERNELS, context0, unexpected};
use core::ffi::{CStr, c_int, c_void};
use custack::ffi;
use custack::{Context, DeviceMemory, LaunchConfig, Result, Stack};

/// The frame kernels' image: the GPU bundle's cubin where `CUSTACK_FRAME_CUBIN` names one, the
/// stand-in cubin (for the double) otherwise.
pub(crate) fn frame_cubin() -> Vec<u8> {
    real_image("CUSTACK_FRAME_CUBIN").unwrap_or_else(|| {
        crate::cubin::stand_in_cubin(
            &["frame_blur", "frame_gain"],
            &[],
            crate::kernels::FRAME_DECLARATIONS,
        )
    })
}

/// The conditional nodes' kernels' image (`tests/fixtures/conditional.cu`: the Jacobi graph's,
/// `set_condition`, `count_down`): the GPU bundle's cubin where `CUSTACK_CONDITIONAL_CUBIN`
/// names one, the stand-in cubin otherwise.
pub(crate) fn conditional_cubin() -> Vec<u8> {
    real_image("CUSTACK_CONDITIONAL_CUBIN").unwrap_or_else(|| {
        crate::cubin::stand_in_cubin(
            &["jacobi_step", "jacobi_check", "set_condition", "count_down"],
            &["cudaGraphSetConditional"],
            crate::kernels::CONDITIONAL_DECLARATIONS,
        )
    })
}

/// Example 22's kernels built for another architecture than the device's: the GPU bundle's
/// `sm_80` cubin where `CUSTACK_FRAME_CUBIN_WRONG_ARCH` names one, otherwise [`frame_cubin`]'s
/// stand-in with its SM set to 80 where its ELF ABI puts it (the stand-in's first ABI version:
/// `e_flags`' low byte).
pub(crate) fn frame_cubin_wrong_arch() -> Vec<u8> {
    real_image("CUSTACK_FRAME_CUBIN_WRONG_ARCH").unwrap_or_else(|| {
        let mut image = frame_cubin();
        if let Some(flags) = image.get_mut(0x30) {
            *flags = 80;
        }
        image
    })
}

/// The file `var` names, if it is set (a set variable naming no readable file is a panic: the
/// run would otherwise compare another image than it says).
fn real_image(var: &str) -> Option<Vec<u8>> {
    let path = std::env::var_os(var).filter(|p| !p.is_empty())?;
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => panic!("{var}={}: {e}", path.to_string_lossy()),
    }
}

/// The differential run's programs (none of them is in `scripts/check-driver.sh`'s list: each
/// needs the failure it makes to be made on both drivers).
pub(crate) fn run(program: &str) -> Option<Result<()>> {
    Some(match program {
        "fault_trap" => fault_sticky("trap_kernel", 719),
        "fault_illegal" => fault_sticky("illegal_write", 700),
        "fault_oom" => fault_oom(),
        "fault_pool" => fault_pool(),
        "fault_stream" => fault_stream(),
        "fault_handle" => fault_handle(),
        "fault_thread" => fault_thread(),
        _ => return None,
    })
}

/// Tells the double to fail the next driver call with `code` (with `sticky`: every call from it
/// on, but those a sticky fault spares).
pub(crate) fn fail_next(code: c_int, sticky: bool) -> Result<()> {
    type FailNext = unsafe extern "C" fn(c_int, c_int) -> c_int;
    let pfn = crate::double::checkdriver_extension(c"custackCheckdriverFailNext")?;
    // SAFETY: the checking driver's (or the interposer's) `custackCheckdriverFailNext`, of
    // exactly this signature (checkdriver/src/trace.rs, checkdriver/trace/src/lib.rs).
    let f = unsafe { core::mem::transmute::<*mut c_void, FailNext>(pfn) };
    // SAFETY: takes two integers.
    match unsafe { f(code, c_int::from(sticky)) } {
        0 => Ok(()),
        _ => Err(unexpected("custackCheckdriverFailNext refused")),
    }
}

/// Tells the double to fail the next call of the entry point `name` with `code` (with `sticky`:
/// every call from it on, but those a sticky fault spares): an error path inside one custack
/// call. The double's alone (not the interposer's), so only programs not run on the real driver
/// call it.
pub(crate) fn fail_call(name: &CStr, code: c_int, sticky: bool) -> Result<()> {
    type FailCall = unsafe extern "C" fn(*const core::ffi::c_char, c_int, c_int) -> c_int;
    let pfn = crate::double::checkdriver_extension(c"custackCheckdriverFailCall")?;
    // SAFETY: the checking driver's `custackCheckdriverFailCall`, of exactly this signature
    // (checkdriver/src/trace.rs).
    let f = unsafe { core::mem::transmute::<*mut c_void, FailCall>(pfn) };
    // SAFETY: a NUL-terminated name and two integers.
    match unsafe { f(name.as_ptr(), code, c_int::from(sticky)) } {
        0 => Ok(()),
        _ => Err(unexpected("custackCheckdriverFailCall refused")),
    }
}

/// Prints `observe KEY CODE` for a raw call's result (the comparer reads it beside the trace);
/// whether it succeeded.
fn code(key: &str, r: ffi::CUresult) -> bool {
    println!("observe {key} {}", r.0);
    r == ffi::CUresult::CUDA_SUCCESS
}

/// A kernel that faults (`trap_kernel`: `CUDA_ERROR_LAUNCH_FAILED`; `illegal_write`:
/// `CUDA_ERROR_ILLEGAL_ADDRESS`), launched in a submission; the double is told to turn sticky
/// with that code at the next call, the submission's wait (`cuEventSynchronize`, its first
/// driver call: on the real driver it blocks until the fault is known, which driver 580 takes
/// hundreds of milliseconds to report, docs/reliability.md, while the calls between the launch
/// and the wait come within microseconds of it); then every kind of call custack makes is probed.
fn fault_sticky(kernel: &str, sticky: c_int) -> Result<()> {
    let ctx = context0()?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let faulting = module.function(kernel)?;
    let empty = module.function("empty")?;
    let stream = guard.stream()?;
    let dev = guard.alloc_from(&[1u32; 256])?;
    let work = stream.submit(faulting, |s, f| {
        // SAFETY: the kernel takes no parameters; it faults (on purpose: the run's failure).
        unsafe { s.launch(&f, LaunchConfig::for_elements(1), ()) }
    })?;
    fail_next(sticky, true)?;
    let waited = work.wait();
    println!(
        "observe {kernel}.wait {}",
        waited
            .as_ref()
            .map_or_else(|e| format!("{:?}", e.kind()), |_| "ok".to_owned())
    );
    drop(waited);
    after_sticky(&ctx, &guard, &stream, &dev, &empty);
    Ok(())
}

/// Probes, raw, what each kind of call answers after a sticky error (the double's model: every
/// call fails with the sticky code, but the context stack's, `cuCtxDestroy`, `cuGreenCtxDestroy`
/// and `cuLibraryUnload`).
#[allow(
    clippy::multiple_unsafe_ops_per_block,
    clippy::many_single_char_names,
    clippy::too_many_lines,
    reason = "a raw probe, a C program in Rust syntax: one unsafe block under one contract (its \
              SAFETY comment), C-style handle names, one call after another"
)]
fn after_sticky(
    ctx: &Context,
    guard: &custack::PushedGuard<'_, '_>,
    stream: &custack::Stream<'_>,
    dev: &custack::DeviceBuffer<'_, u32>,
    empty: &custack::Function<'_>,
) {
    let raw_ctx = guard.as_raw();
    let s = stream.as_raw();
    let d = dev.device_ptr();
    let host = [0u32; 4];
    // SAFETY: (each call below) valid out-pointers and sizes; `raw_ctx`, `s` and `d` are live
    // handles of the current context (custack owns them and frees them after this function);
    // what a call creates is destroyed here when it succeeded.
    unsafe {
        code("sticky.cuCtxSynchronize", ffi::cuCtxSynchronize());
        let mut p: ffi::CUdeviceptr = 0;
        if code("sticky.cuMemAlloc", ffi::cuMemAlloc_v2(&raw mut p, 1024)) {
            code("sticky.cuMemFree", ffi::cuMemFree_v2(p));
        }
        let mut other: ffi::CUstream = core::ptr::null_mut();
        if code(
            "sticky.cuStreamCreate",
            ffi::cuStreamCreate(&raw mut other, 0),
        ) {
            code("sticky.cuStreamDestroy", ffi::cuStreamDestroy_v2(other));
        }
        code("sticky.cuStreamSynchronize", ffi::cuStreamSynchronize(s));
        code("sticky.cuStreamQuery", ffi::cuStreamQuery(s));
        let mut e: ffi::CUevent = core::ptr::null_mut();
        if code("sticky.cuEventCreate", ffi::cuEventCreate(&raw mut e, 0)) {
            code("sticky.cuEventRecord", ffi::cuEventRecord(e, s));
            code("sticky.cuEventQuery", ffi::cuEventQuery(e));
            code("sticky.cuEventDestroy", ffi::cuEventDestroy_v2(e));
        }
        code(
            "sticky.cuMemcpyHtoD",
            ffi::cuMemcpyHtoD_v2(d, host.as_ptr().cast(), 16),
        );
        code("sticky.cuMemsetD32", ffi::cuMemsetD32_v2(d, 0, 4));
        let ptx = format!("{KERNELS}\0");
        let mut m: ffi::CUmodule = core::ptr::null_mut();
        if code(
            "sticky.cuModuleLoadData",
            ffi::cuModuleLoadData(&raw mut m, ptx.as_ptr().cast()),
        ) {
            code("sticky.cuModuleUnload", ffi::cuModuleUnload(m));
        }
        code(
            "sticky.cuLaunchKernel",
            ffi::cuLaunchKernel(
                empty.as_raw(),
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                s,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            ),
        );
        let mut device: ffi::CUdevice = -1;
        code(
            "sticky.cuCtxGetDevice",
            ffi::cuCtxGetDevice(&raw mut device),
        );
        let mut v: c_int = 0;
        code(
            "sticky.cuDeviceGetAttribute",
            ffi::cuDeviceGetAttribute(
                &raw mut v,
                ffi::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                0,
            ),
        );
        code(
            "sticky.cuDriverGetVersion",
            ffi::cuDriverGetVersion(&raw mut v),
        );
        code("sticky.cuDeviceGet", ffi::cuDeviceGet(&raw mut device, 0));
        let (mut free, mut total) = (0usize, 0usize);
        code(
            "sticky.cuMemGetInfo",
            ffi::cuMemGetInfo_v2(&raw mut free, &raw mut total),
        );
        let mut api: core::ffi::c_uint = 0;
        code(
            "sticky.cuCtxGetApiVersion",
            ffi::cuCtxGetApiVersion(raw_ctx, &raw mut api),
        );
        let mut current: ffi::CUcontext = core::ptr::null_mut();
        code(
            "sticky.cuCtxGetCurrent",
            ffi::cuCtxGetCurrent(&raw mut current),
        );
        if code("sticky.cuCtxPushCurrent", ffi::cuCtxPushCurrent_v2(raw_ctx)) {
            code(
                "sticky.cuCtxPopCurrent",
                ffi::cuCtxPopCurrent_v2(&raw mut current),
            );
        }
        let mut primary: ffi::CUcontext = core::ptr::null_mut();
        if code(
            "sticky.cuDevicePrimaryCtxRetain",
            ffi::cuDevicePrimaryCtxRetain(&raw mut primary, 0),
        ) {
            code(
                "sticky.cuDevicePrimaryCtxRelease",
                ffi::cuDevicePrimaryCtxRelease_v2(0),
            );
        }
        // Another context after the fault: made, used, destroyed (R20's other contexts).
        let mut fresh: ffi::CUcontext = core::ptr::null_mut();
        if code(
            "sticky.cuCtxCreate",
            ffi::cuCtxCreate_v2(&raw mut fresh, 0, 0),
        ) {
            let mut q: ffi::CUdeviceptr = 0;
            if code(
                "sticky.fresh.cuMemAlloc",
                ffi::cuMemAlloc_v2(&raw mut q, 1024),
            ) {
                code("sticky.fresh.cuMemFree", ffi::cuMemFree_v2(q));
            }
            code("sticky.fresh.cuCtxSynchronize", ffi::cuCtxSynchronize());
            code("sticky.fresh.cuCtxDestroy", ffi::cuCtxDestroy_v2(fresh));
        }
    }
    let _ = ctx;
}

/// An allocation larger than any device (1 PiB), synchronous and stream-ordered: the driver
/// answers `CUDA_ERROR_OUT_OF_MEMORY`, and the program goes on with memory that fits.
fn fault_oom() -> Result<()> {
    const HUGE: usize = 1 << 50;
    let ctx = context0()?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    fail_next(2, false)?;
    let refused = guard.alloc::<u8>(HUGE).map(drop);
    println!("observe oom.alloc {:?}", refused.map_err(|e| e.kind()));
    let stream = guard.stream()?;
    let scoped = stream.scope(|s| -> Result<()> {
        fail_next(2, false)?;
        let r = s.alloc::<u8>(HUGE).map(drop);
        println!("observe oom.alloc_async {:?}", r.map_err(|e| e.kind()));
        let mut small = s.alloc::<u32>(256)?;
        s.fill_u32(&mut small, 5)
    })?;
    println!("observe oom.scope {:?}", scoped.map_err(|e| e.kind()));
    let back = guard.alloc_from(&[7u32; 64])?.to_vec()?;
    crate::observe::observe("oom.after", &back);
    Ok(())
}

/// A memory pool of at most 2 MiB: 1 PiB from it is refused (`CUDA_ERROR_OUT_OF_MEMORY`), 1 MiB
/// is not; raw, as custack has no pool size limit. (The H200 run's driver gave 4 MiB from this
/// pool: its limit is not one the program can count on, the device's size is.)
fn fault_pool() -> Result<()> {
    const HUGE: usize = 1 << 50;
    let ctx = context0()?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let s = stream.as_raw();
    let props = ffi::CUmemPoolProps {
        allocType: ffi::CU_MEM_ALLOCATION_TYPE_PINNED,
        handleTypes: 0,
        location: ffi::CUmemLocation {
            type_: ffi::CU_MEM_LOCATION_TYPE_DEVICE,
            id: 0,
        },
        win32SecurityAttributes: core::ptr::null_mut(),
        maxSize: 2 << 20,
        usage: 0,
        reserved: [0; 54],
    };
    let mut pool: ffi::CUmemoryPool = core::ptr::null_mut();
    // SAFETY: valid properties and out-pointer.
    if !code("pool.create", unsafe {
        ffi::cuMemPoolCreate(&raw mut pool, &raw const props)
    }) {
        return Ok(());
    }
    let mut p: ffi::CUdeviceptr = 0;
    fail_next(2, false)?;
    // SAFETY: a live pool and stream of the current context; a valid out-pointer.
    let r = unsafe { ffi::cuMemAllocFromPoolAsync(&raw mut p, HUGE, pool, s) };
    if code("pool.alloc_huge", r) {
        // SAFETY: the allocation just made, freed once on its stream.
        code("pool.free_huge", unsafe { ffi::cuMemFreeAsync(p, s) });
    }
    // SAFETY: as above.
    let r = unsafe { ffi::cuMemAllocFromPoolAsync(&raw mut p, 1 << 20, pool, s) };
    if code("pool.alloc_1mib", r) {
        // SAFETY: as above.
        code("pool.free_1mib", unsafe { ffi::cuMemFreeAsync(p, s) });
    }
    stream.synchronize()?;
    // SAFETY: the pool made above, with nothing allocated from it any more; destroyed once.
    code("pool.destroy", unsafe { ffi::cuMemPoolDestroy(pool) });
    Ok(())
}

/// A stream used after its destruction (`CUDA_ERROR_INVALID_HANDLE` documented), then a new
/// stream used as usual.
fn fault_stream() -> Result<()> {
    let ctx = context0()?;
    let mut stack = Stack::new()?;
    let _guard = stack.push(&ctx)?;
    let mut s: ffi::CUstream = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; a context is current.
    if !code("stream.create", unsafe {
        ffi::cuStreamCreate(&raw mut s, 0)
    }) {
        return Ok(());
    }
    // SAFETY: the stream just made, destroyed once.
    code("stream.destroy", unsafe { ffi::cuStreamDestroy_v2(s) });
    fail_next(400, false)?;
    // SAFETY: not sound by the driver's contract (a destroyed handle): the failure this program
    // makes on purpose, in a process of its own.
    code("stream.query_destroyed", unsafe { ffi::cuStreamQuery(s) });
    let mut again: ffi::CUstream = core::ptr::null_mut();
    // SAFETY: as the first creation.
    if code("stream.create_again", unsafe {
        ffi::cuStreamCreate(&raw mut again, 0)
    }) {
        // SAFETY: the live stream just made.
        code("stream.query", unsafe { ffi::cuStreamQuery(again) });
        // SAFETY: as above.
        code("stream.synchronize", unsafe {
            ffi::cuStreamSynchronize(again)
        });
        // SAFETY: as above; destroyed once.
        code("stream.destroy_again", unsafe {
            ffi::cuStreamDestroy_v2(again)
        });
    }
    Ok(())
}

/// Invalid handles: a launch of a null function and a wait for a destroyed event (the
/// documented `CUDA_ERROR_INVALID_HANDLE`, the double told so), a function the module lacks
/// and a push of a null context (answered by the double on its own: `CUDA_ERROR_NOT_FOUND`,
/// `CUDA_ERROR_INVALID_CONTEXT`).
fn fault_handle() -> Result<()> {
    let ctx = context0()?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    fail_next(400, false)?;
    // SAFETY: a null function is refused by the driver before anything runs; no parameters.
    let r = unsafe {
        ffi::cuLaunchKernel(
            core::ptr::null_mut(),
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        )
    };
    code("handle.launch_null", r);
    let mut f: ffi::CUfunction = core::ptr::null_mut();
    // SAFETY: a live module, a NUL-terminated name, a valid out-pointer.
    let r = unsafe {
        ffi::cuModuleGetFunction(&raw mut f, module.as_raw(), c"no_such_kernel".as_ptr())
    };
    code("handle.missing_function", r);
    let mut e: ffi::CUevent = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; a context is current.
    if code("handle.event_create", unsafe {
        ffi::cuEventCreate(&raw mut e, 0)
    }) {
        // SAFETY: the event just made, destroyed once.
        code("handle.event_destroy", unsafe { ffi::cuEventDestroy_v2(e) });
        fail_next(400, false)?;
        // SAFETY: not sound by the driver's contract (a destroyed handle): the failure this
        // program makes on purpose, in a process of its own.
        code("handle.event_destroyed", unsafe {
            ffi::cuEventSynchronize(e)
        });
    }
    // SAFETY: a null context is refused; nothing is pushed.
    code("handle.push_null", unsafe {
        ffi::cuCtxPushCurrent_v2(core::ptr::null_mut())
    });
    // custack's own calls go on as usual.
    let back = guard.alloc_from(&[3u32; 16])?.to_vec()?;
    crate::observe::observe("handle.after", &back);
    Ok(())
}

/// A context current on another thread only: this thread's calls find no current context
/// (`CUDA_ERROR_INVALID_CONTEXT`, the double told so), while the other thread's succeed.
fn fault_thread() -> Result<()> {
    let ctx = context0()?;
    let (pushed_tx, pushed_rx) = std::sync::mpsc::channel::<()>();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| -> Result<()> {
        let ctx = &ctx;
        let other = scope.spawn(move || -> Result<Vec<u32>> {
            let mut stack = Stack::new()?;
            let guard = stack.push(ctx)?;
            let _ = pushed_tx.send(());
            let _ = done_rx.recv();
            guard.alloc_from(&[4u32; 16])?.to_vec()
        });
        let _ = pushed_rx.recv();
        let mut p: ffi::CUdeviceptr = 0;
        fail_next(201, false)?;
        // SAFETY: a valid out-pointer; no context is current on this thread (the failure).
        let r = unsafe { ffi::cuMemAlloc_v2(&raw mut p, 1024) };
        code("thread.alloc_without_context", r);
        fail_next(201, false)?;
        // SAFETY: takes nothing.
        code("thread.synchronize_without_context", unsafe {
            ffi::cuCtxSynchronize()
        });
        let mut current: ffi::CUcontext = core::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        code("thread.get_current", unsafe {
            ffi::cuCtxGetCurrent(&raw mut current)
        });
        println!("observe thread.current_is_null {}", current.is_null());
        let _ = done_tx.send(());
        let read = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        crate::observe::observe("thread.other", &read);
        Ok(())
    })
}
