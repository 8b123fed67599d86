//! Programs for `custack-check`'s own tests (`tests/runner.rs`): raw driver-call sequences,
//! right and wrong, with the checking driver linked in as an rlib (its entry points are plain
//! Rust functions here). `runner_fixture MODE`:
//!
//! - `good`: two allocations, freed on every path; errors are returned (exit 1);
//! - `leaky`: as `good`, but the first allocation is not freed when the second one fails;
//! - `double-free`: frees an allocation twice (a violation in the clean run);
//! - `wrong-context`: uses a stream of one context while another is current;
//! - `stack`: leaves a context on the thread's stack;
//! - `panics`: panics when a call fails;
//! - `aborts`: aborts when a call fails.

use core::ffi::c_void;
use core::ptr::null_mut;
use std::process::ExitCode;

/// Turns a driver result into a `Result`, naming the call.
fn ok(what: &str, r: i32) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{what} failed with {r}"))
    }
}

/// A context, made current (the driver pushes a new context).
fn context() -> Result<*mut c_void, String> {
    let mut c = null_mut();
    // SAFETY: a valid out-pointer.
    ok("cuCtxCreate", unsafe {
        cuda::cuCtxCreate_v2(&raw mut c, 0, 0)
    })?;
    Ok(c)
}

fn alloc(bytes: usize) -> Result<u64, String> {
    let mut p = 0;
    // SAFETY: a valid out-pointer.
    ok("cuMemAlloc", unsafe {
        cuda::cuMemAlloc_v2(&raw mut p, bytes)
    })?;
    Ok(p)
}

fn free(p: u64) -> Result<(), String> {
    // SAFETY: `p` came from `alloc` (or, in `double-free`, on purpose not any more).
    ok("cuMemFree", unsafe { cuda::cuMemFree_v2(p) })
}

fn destroy(c: *mut c_void) -> Result<(), String> {
    // SAFETY: `c` came from `context`.
    ok("cuCtxDestroy", unsafe { cuda::cuCtxDestroy_v2(c) })
}

/// Two allocations in a fresh context; `leak_on_error`: the bug of not freeing the first when
/// the second fails.
fn two_allocations(leak_on_error: bool) -> Result<(), String> {
    // SAFETY: no preconditions.
    ok("cuInit", unsafe { cuda::cuInit(0) })?;
    let c = context()?;
    let result = (|| {
        let a = alloc(1024)?;
        let b = match alloc(2048) {
            Ok(b) => b,
            Err(e) if leak_on_error => return Err(e),
            Err(e) => {
                let _ = free(a);
                return Err(e);
            }
        };
        let r = free(b);
        let r2 = free(a);
        r.and(r2)
    })();
    let d = destroy(c);
    result.and(d)
}

fn run(mode: &str) -> Result<(), String> {
    match mode {
        "good" => two_allocations(false),
        "leaky" => two_allocations(true),
        "double-free" => {
            let c = context()?;
            let a = alloc(64)?;
            free(a)?;
            free(a)?;
            destroy(c)
        }
        "wrong-context" => {
            let a = context()?;
            let mut s = null_mut();
            // SAFETY: a valid out-pointer.
            ok("cuStreamCreate", unsafe {
                cuda::cuStreamCreate(&raw mut s, 0)
            })?;
            let b = context()?; // now current: `s` belongs to `a`
            // SAFETY: `s` is a live stream (of the wrong context: the point).
            ok("cuStreamSynchronize", unsafe {
                cuda::cuStreamSynchronize(s)
            })?;
            destroy(b)?;
            // SAFETY: `s` is a live stream of `a`, which is current again.
            ok("cuStreamDestroy", unsafe { cuda::cuStreamDestroy_v2(s) })?;
            destroy(a)
        }
        "stack" => {
            let c = context()?;
            let mut popped = null_mut();
            // SAFETY: a valid out-pointer.
            ok("cuCtxPopCurrent", unsafe {
                cuda::cuCtxPopCurrent_v2(&raw mut popped)
            })?;
            // SAFETY: `c` is live.
            ok("cuCtxPushCurrent", unsafe { cuda::cuCtxPushCurrent_v2(c) })?;
            // Never popped, and not destroyed: left on this thread's stack.
            Ok(())
        }
        "panics" => {
            if let Err(e) = two_allocations(false) {
                panic!("{e}");
            }
            Ok(())
        }
        "aborts" => {
            if two_allocations(false).is_err() {
                std::process::abort();
            }
            Ok(())
        }
        _ => Err(format!("unknown mode {mode:?}")),
    }
}

fn main() -> ExitCode {
    cuda::start_from_env();
    let mode = std::env::args().nth(1).unwrap_or_default();
    match run(&mode) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    }
}
