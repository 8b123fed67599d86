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
//! - `aborts`: aborts when a call fails;
//! - `segfaults`: creates a context, then dies of `SIGSEGV` (as a library it loaded might), so
//!   the driver writes no report;
//! - `waits`: two asynchronous memsets on a stream, then `cuStreamSynchronize`: a wait with no
//!   deadline (under `NULLDRIVER_HANG_AT` the double ends it with its `hung` exit);
//! - `deadline`: as `waits`, but polls `cuStreamQuery` until a 20 ms deadline; past it, the
//!   memory the work uses is left behind on purpose (named to the double) and the program
//!   fails with an error (exit 1);
//! - `deadline-frees`: as `deadline`, but frees that memory past the deadline (a violation);
//! - `polls`: as `deadline`, with a deadline of an hour: a poll with, in effect, no deadline;
//! - `sticky-frees`: as `waits`, but frees the memory even when the wait failed (the bug custack's
//!   R20 rules out: after a sticky error, work of another context may still use it);
//! - `destroys-then-waits`: as `waits`, but the stream is destroyed (call 7) before
//!   `cuCtxSynchronize` (call 8), which still waits for its work;
//! - `queries`: one memset on a stream, then three `cuStreamQuery` and two `cuStreamSynchronize`
//!   (calls 6 to 10), printing what each answered (`answers: ...`); exit 0 whatever they say.

use core::ffi::c_void;
use core::ptr::null_mut;
use std::process::ExitCode;
use std::time::Duration;

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

/// `Ok(true)` when the stream's work completed within `deadline`, `Ok(false)` past it.
fn poll(s: *mut c_void, deadline: std::time::Duration) -> Result<bool, String> {
    let start = std::time::Instant::now();
    loop {
        // SAFETY: `s` is a live stream of the current context.
        match unsafe { cuda::cuStreamQuery(s) } {
            0 => return Ok(true),
            600 if start.elapsed() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            600 => return Ok(false),
            r => return ok("cuStreamQuery", r).map(|()| false),
        }
    }
}

/// Work on a stream, then a wait for it: `None` has no deadline (`cuStreamSynchronize`);
/// `Some((deadline, free))` polls until `deadline`, past which the memory is left behind, or
/// freed if `free` (the bug: the work may still use it).
fn stream_work(deadline: Option<(std::time::Duration, bool)>) -> Result<(), String> {
    // SAFETY: no preconditions.
    ok("cuInit", unsafe { cuda::cuInit(0) })?;
    let c = context()?;
    let mut s = null_mut();
    // SAFETY: a valid out-pointer.
    ok("cuStreamCreate", unsafe {
        cuda::cuStreamCreate(&raw mut s, 0)
    })?;
    let d = alloc(256)?;
    // SAFETY: `d` holds 256 bytes; `s` is a live stream of the current context.
    ok("cuMemsetD8Async", unsafe {
        cuda::cuMemsetD8Async(d, 1, 256, s)
    })?;
    // SAFETY: as above.
    ok("cuMemsetD8Async", unsafe {
        cuda::cuMemsetD8Async(d, 2, 128, s)
    })?;
    let waited = match deadline {
        // SAFETY: `s` is a live stream of the current context.
        None => ok("cuStreamSynchronize", unsafe {
            cuda::cuStreamSynchronize(s)
        }),
        Some((deadline, free_anyway)) => match poll(s, deadline)? {
            true => Ok(()),
            false if free_anyway => {
                let _ = free(d);
                Err("the stream's work did not finish within 20 ms".to_owned())
            }
            false => {
                // SAFETY: a NUL-terminated kind; `d` is live.
                let _ =
                    unsafe { cuda::custackCheckdriverLeftBehind(c"DeviceMemory".as_ptr(), d, 0) };
                Err(
                    "the stream's work did not finish within 20 ms (its memory left behind)"
                        .to_owned(),
                )
            }
        },
    };
    let freed = if waited.is_ok() { free(d) } else { Ok(()) };
    // SAFETY: `s` is live; a stream with work pending is released once the work is done.
    let destroyed = ok("cuStreamDestroy", unsafe { cuda::cuStreamDestroy_v2(s) });
    let d = destroy(c);
    waited.and(freed).and(destroyed).and(d)
}

/// `sticky-frees`: work on a stream, a wait that may fail, then the memory freed anyway.
fn frees_after_a_failed_wait() -> Result<(), String> {
    // SAFETY: no preconditions.
    ok("cuInit", unsafe { cuda::cuInit(0) })?;
    let c = context()?;
    let mut s = null_mut();
    // SAFETY: a valid out-pointer.
    ok("cuStreamCreate", unsafe {
        cuda::cuStreamCreate(&raw mut s, 0)
    })?;
    let d = alloc(256)?;
    // SAFETY: `d` holds 256 bytes; `s` is a live stream of the current context.
    ok("cuMemsetD8Async", unsafe {
        cuda::cuMemsetD8Async(d, 1, 256, s)
    })?;
    // SAFETY: `s` is a live stream of the current context.
    let waited = ok("cuStreamSynchronize", unsafe {
        cuda::cuStreamSynchronize(s)
    });
    // The bug: freed whether or not the wait said the work is over.
    let freed = free(d);
    // SAFETY: `s` is live.
    let destroyed = ok("cuStreamDestroy", unsafe { cuda::cuStreamDestroy_v2(s) });
    let d = destroy(c);
    waited.and(freed).and(destroyed).and(d)
}

/// `queries`: what three queries and two synchronizes of a stream with work answer.
fn answers() -> Result<(), String> {
    // SAFETY: no preconditions.
    ok("cuInit", unsafe { cuda::cuInit(0) })?;
    let c = context()?;
    let mut s = null_mut();
    // SAFETY: a valid out-pointer.
    ok("cuStreamCreate", unsafe {
        cuda::cuStreamCreate(&raw mut s, 0)
    })?;
    let d = alloc(256)?;
    // SAFETY: `d` holds 256 bytes; `s` is a live stream of the current context.
    ok("cuMemsetD8Async", unsafe {
        cuda::cuMemsetD8Async(d, 1, 256, s)
    })?;
    let mut answers = Vec::new();
    for _ in 0..3 {
        // SAFETY: `s` is a live stream of the current context.
        answers.push(unsafe { cuda::cuStreamQuery(s) });
    }
    for _ in 0..2 {
        // SAFETY: as above.
        answers.push(unsafe { cuda::cuStreamSynchronize(s) });
    }
    let shown: Vec<String> = answers.iter().map(ToString::to_string).collect();
    println!("answers: {}", shown.join(" "));
    if answers.iter().all(|&a| a == 0) {
        let _ = free(d);
        // SAFETY: `s` is live.
        let _ = unsafe { cuda::cuStreamDestroy_v2(s) };
    }
    destroy(c)
}

/// `destroys-then-waits`: work on a stream, the stream destroyed, then the context synchronized.
fn destroys_then_waits() -> Result<(), String> {
    // SAFETY: no preconditions.
    ok("cuInit", unsafe { cuda::cuInit(0) })?;
    let c = context()?;
    let mut s = null_mut();
    // SAFETY: a valid out-pointer.
    ok("cuStreamCreate", unsafe {
        cuda::cuStreamCreate(&raw mut s, 0)
    })?;
    let d = alloc(256)?;
    for value in [1, 2] {
        // SAFETY: `d` holds 256 bytes; `s` is a live stream of the current context.
        ok("cuMemsetD8Async", unsafe {
            cuda::cuMemsetD8Async(d, value, 256, s)
        })?;
    }
    // SAFETY: `s` is live; the driver releases it once its work is done.
    ok("cuStreamDestroy", unsafe { cuda::cuStreamDestroy_v2(s) })?;
    // SAFETY: a context is current.
    ok("cuCtxSynchronize", unsafe { cuda::cuCtxSynchronize() })?;
    free(d)?;
    destroy(c)
}

fn run(mode: &str) -> Result<(), String> {
    match mode {
        "destroys-then-waits" => destroys_then_waits(),
        "sticky-frees" => frees_after_a_failed_wait(),
        "queries" => answers(),
        "waits" => stream_work(None),
        "deadline" => stream_work(Some((Duration::from_millis(20), false))),
        "deadline-frees" => stream_work(Some((Duration::from_millis(20), true))),
        "polls" => stream_work(Some((Duration::from_hours(1), false))),
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
        "segfaults" => {
            unsafe extern "C" {
                fn signal(signal: core::ffi::c_int, handler: usize) -> usize;
                fn raise(signal: core::ffi::c_int) -> core::ffi::c_int;
            }
            let _c = context()?;
            // SAFETY: SIGSEGV (11) back to its default action (`SIG_DFL`, 0: the standard
            // library's handler, for stack overflows, returns from a raised one).
            unsafe { signal(11, 0) };
            // SAFETY: no preconditions: the process ends as a crash ends it.
            unsafe { raise(11) };
            Err("SIGSEGV did not end the process".to_owned())
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
