//! The program `green_leaked` (C5; the double reporting 13.2): the routes by which a green context
//! outlives custack's view of it, each of which must keep the device's primary context from
//! being reset, since a green context's memory is the primary context's. In turn:
//! - a green context alive on another thread: the reset is refused on this one (no
//!   `cuDevicePrimaryCtxReset`) until that thread destroyed it, then runs;
//! - a child forked while a green context lives: its reset is refused, with no driver call in
//!   the child (the double's `forked-calls`, which `scripts/check-driver.sh` requires to be 0);
//!   outside the restricted profile custack does not watch for a fork (R22 is the profile's), so
//!   the refusal is the count the child inherited (in use), not `ForkedProcess`; the parent's
//!   reset, once its green context is destroyed, runs;
//! - a green context forgotten (`mem::forget`): the reset is refused for the rest of the process,
//!   as a leaked guard keeps its context;
//! - a green context whose destroy failed (the double told to fail `cuGreenCtxDestroy`): counted
//!   still, so the refusal's count grows to two;
//! - a split into no group or into `u32::MAX` groups: refused before the driver;
//! - last, as it poisons the process: a green context the driver made, whose making then meets a
//!   sticky error (`cuCtxFromGreenCtx`, the double told by `custackCheckdriverFailCall`): no
//!   `cuGreenCtxDestroy` (R20: the error path releases through the one gate), named left behind
//!   by custack itself.
//!
//! The two green contexts left in the driver are named to the double as left behind on purpose.
//! Not run on the real driver (`checkdriver/trace/programs.txt`: a failed destroy cannot be made
//! there, and the interposer answers no left-behind extension).

use super::external_leaked::left_behind;
use crate::common::unexpected;
use crate::differential::{fail_call, fail_next};
use crate::double::counting;
use custack::{Context, Driver, ErrorKind, GreenContext, Result};
use std::sync::mpsc;

/// `CUDA_ERROR_ILLEGAL_ADDRESS`, sticky.
const STICKY: i32 = 700;

/// `primary.reset()`, which must be refused as in use with no `cuDevicePrimaryCtxReset` call,
/// naming `live` green contexts; `route` names the route for the failure.
fn refused(primary: &mut Context, live: usize, route: &str) -> Result<()> {
    let (r, resets) = counting("cuDevicePrimaryCtxReset", || Ok(primary.reset()))?;
    match r {
        Err(e) if e.kind() == ErrorKind::PrimaryContextInUse && resets == 0 => {
            let named = format!("has {live} green context(s) alive");
            if e.to_string().contains(&named) {
                Ok(())
            } else {
                Err(unexpected(&format!(
                    "{route}: the refusal does not say {named}: {e}"
                )))
            }
        }
        Err(e) => Err(e),
        Ok(()) => Err(unexpected(&format!(
            "{route}: the primary context was reset under a live green context"
        ))),
    }
}

/// `primary.reset()`, which must run (one `cuDevicePrimaryCtxReset`).
fn resets(primary: &mut Context, route: &str) -> Result<()> {
    let ((), resets) = counting("cuDevicePrimaryCtxReset", || primary.reset())?;
    if resets != 1 {
        return Err(unexpected(&format!(
            "{route}: the reset made {resets} cuDevicePrimaryCtxReset calls, not 1"
        )));
    }
    Ok(())
}

/// A green context of 16 SMs of device 0, made and used (`f`) on the calling thread.
fn with_green<R>(f: impl FnOnce(GreenContext<'_>) -> Result<R>) -> Result<R> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(1, 16)?;
    let part = split
        .groups
        .first()
        .ok_or_else(|| unexpected("no group of 16 SMs"))?;
    f(GreenContext::new(part)?)
}

/// A green context made on another thread (a `GreenContext` is `!Send`): this thread's reset is
/// refused while it lives, and runs once the other thread destroyed it.
fn on_another_thread(primary: &mut Context) -> Result<()> {
    let (made_tx, made_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
        with_green(|green| {
            // The other side may have ended early (its own error): nothing to wait for then.
            if made_tx.send(()).is_ok() {
                let _ = done_rx.recv();
            }
            green.destroy()
        })
    });
    // No message: the worker failed before its green context lived (its error is joined below).
    let checked = match made_rx.recv() {
        Ok(()) => refused(primary, 1, "another thread's green context"),
        Err(_) => Ok(()),
    };
    drop(done_tx); // the worker destroys its green context now, whatever was checked
    let joined = worker
        .join()
        .map_err(|_| unexpected("the green context's thread panicked"))?;
    checked?;
    joined?;
    resets(primary, "another thread's green context, destroyed")
}

/// A child forked while a green context lives: its reset is refused before any driver call, as
/// in use (the child inherited the count; no profile, so no fork watch); the parent destroys
/// its green context and resets.
fn in_a_forked_child(primary: &mut Context) -> Result<()> {
    with_green(|green| {
        // SAFETY: the child makes only custack's refusal (no driver call) and exits.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(unexpected("fork failed"));
        }
        if pid == 0 {
            let status = match primary.reset() {
                Err(e) if e.kind() == ErrorKind::PrimaryContextInUse => 0,
                Err(e) => {
                    eprintln!("green_leaked: the forked child's reset answered {e}");
                    4
                }
                Ok(()) => {
                    eprintln!("green_leaked: the forked child reset the primary context");
                    4
                }
            };
            std::process::exit(status);
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        let waited = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        if waited != pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
            return Err(unexpected(&format!(
                "the forked child's reset was not refused as in use (status {status:#x})"
            )));
        }
        green.destroy()
    })?;
    resets(
        primary,
        "a forked child, its parent's green context destroyed",
    )
}

/// Every route in turn (the forgotten, failed and poisoned routes leave three green contexts to
/// the process's end).
pub(crate) fn green_leaked() -> Result<()> {
    let mut primary = Context::primary(Driver::init()?.device(0)?)?;
    on_another_thread(&mut primary)?;
    in_a_forked_child(&mut primary)?;

    // Forgotten: custack never sees it destroyed, so the reset stays refused.
    let forgotten = with_green(|green| {
        let raw = green.as_raw_green();
        core::mem::forget(green);
        Ok(raw)
    })?;
    left_behind(c"GreenContext", forgotten as u64)?;
    refused(&mut primary, 1, "a forgotten green context")?;

    // A destroy that failed: the green context may still hold its memory, so it counts.
    let failed = with_green(|green| {
        let raw = green.as_raw_green();
        fail_next(1, false)?; // CUDA_ERROR_INVALID_VALUE, once
        match green.destroy() {
            Err(e) if e.code() == Some(custack::ffi::CUresult::CUDA_ERROR_INVALID_VALUE) => Ok(raw),
            Err(e) => Err(e),
            Ok(()) => Err(unexpected("the double did not fail cuGreenCtxDestroy")),
        }
    })?;
    left_behind(c"GreenContext", failed as u64)?;
    refused(&mut primary, 2, "a green context whose destroy failed")?;

    // No group, or more groups than SMs: refused before the driver (the array the driver fills
    // is allocated first, and `u32::MAX` groups of it would abort the process).
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    for groups in [0, u32::MAX] {
        let (r, calls) = counting("cuDevSmResourceSplitByCount", || {
            Ok(sms.split(groups, 1).map(|_| ()))
        })?;
        match r {
            Err(e) if e.kind() == ErrorKind::InvalidValue && calls == 0 => {}
            other => {
                return Err(unexpected(&format!(
                    "a split into {groups} groups answered {other:?} after {calls} driver calls"
                )));
            }
        }
    }

    // Last, as it poisons the process: a green context the driver made, whose making then meets
    // a sticky error (at `cuCtxFromGreenCtx`), is released as any other, through the one gate:
    // not destroyed (R20), named left behind by custack (no leak in the report), still counted.
    let split = sms.split(1, 16)?;
    let part = split
        .groups
        .first()
        .ok_or_else(|| unexpected("no group of 16 SMs"))?;
    fail_call(c"cuCtxFromGreenCtx", STICKY, true)?;
    let (made, destroys) = counting("cuGreenCtxDestroy", || {
        Ok(GreenContext::new(part).map(|_| ()))
    })?;
    match made {
        Err(e) if e.code().map(|c| c.0) == Some(STICKY) && destroys == 0 => Ok(()),
        Err(e) if e.code().map(|c| c.0) == Some(STICKY) => Err(unexpected(&format!(
            "a green context whose making met a sticky error was destroyed ({destroys} \
             cuGreenCtxDestroy) in the poisoned process"
        ))),
        // Another failure first (a fault schedule's): the program's error.
        Err(e) => Err(e),
        Ok(()) => Err(unexpected("the double did not fail cuCtxFromGreenCtx")),
    }
}
