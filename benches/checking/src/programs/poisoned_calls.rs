//! The program `poisoned_calls` (R20; the double reporting 13.0): once a sticky error poisoned
//! the process, the calls a review found still reaching the driver (an event recorded or
//! waited for context-wide, a module's functions listed, a kernel's parameters asked for) are
//! refused with that first error and make no driver call. The sticky error is the double's,
//! told (`custackCheckdriverFailNext`, sticky) at a context's synchronize, after each call was
//! made once clean (its entry point looked up); not run on the real driver
//! (`checkdriver/trace/programs.txt`). Without the checks, its clean run fails.

use crate::common::{KERNELS, unexpected};
use crate::differential::fail_next;
use crate::double::driver_calls;
use custack::{Context, EventFlags, Result, Stack};

/// `CUDA_ERROR_ILLEGAL_ADDRESS`, sticky.
const STICKY: i32 = 700;

/// `r` must be the first sticky error, `what` naming the call for the failure.
fn refused<T: core::fmt::Debug>(what: &str, r: Result<T>) -> Result<()> {
    match r {
        Err(e) if e.code().map(|c| c.0) == Some(STICKY) => Ok(()),
        other => Err(unexpected(&format!(
            "{what} after a sticky error answered {other:?}, not the sticky error"
        ))),
    }
}

/// Poisons the process at a synchronize, then makes each call: refused, no driver call.
pub(crate) fn poisoned_calls(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let event = guard.event(EventFlags::DISABLE_TIMING)?;
    // Each call once before the fault, so that its entry point is looked up already (a lookup
    // after the fault is refused on its own, which would hide a missing check).
    guard.record_event(&event)?;
    guard.wait_event(&event)?;
    drop(module.functions()?);
    drop(add.param_layout()?);
    fail_next(STICKY, true)?;
    refused("the synchronize told to fail", guard.synchronize())?;
    if custack::poisoned().is_none() {
        return Err(unexpected("a sticky error did not poison the process"));
    }
    let before = driver_calls()?;
    refused("PushedGuard::record_event", guard.record_event(&event))?;
    refused("PushedGuard::wait_event", guard.wait_event(&event))?;
    refused("Module::functions", module.functions())?;
    refused("Function::param_layout", add.param_layout())?;
    let made = driver_calls()? - before;
    if made != 0 {
        return Err(unexpected(&format!(
            "{made} driver calls after the process was poisoned"
        )));
    }
    Ok(())
}
