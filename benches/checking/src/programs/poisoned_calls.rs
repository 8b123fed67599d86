//! The program `poisoned_calls` (R20; the double reporting 13.0): once a sticky error poisoned
//! the process, the calls a review found still reaching the driver (an event recorded or
//! waited for context-wide, a module's functions listed, a kernel's parameters asked for) are
//! refused with that first error and make no driver call. The sticky error is the double's,
//! told (`custackCheckdriverFailNext`, sticky) at the synchronize of another context, on another
//! thread, after each call was made once clean (its entry point looked up): the poison is the
//! process's, so a fault in any context refuses every context's calls. Not run on the real
//! driver (`checkdriver/trace/programs.txt`). Without the checks, its clean run fails.

use crate::common::{KERNELS, unexpected};
use crate::differential::fail_next;
use crate::double::driver_calls;
use custack::{Context, ContextFlags, EventFlags, Result, Stack};

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

/// Poisons the process at a synchronize of another context on another thread, then makes
/// each call in `ctx`: refused, no driver call.
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
    let other = Context::new(ctx.device(), ContextFlags::empty())?;
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut stack = Stack::new()?;
            let guard = stack.push(&other)?;
            fail_next(STICKY, true)?;
            refused(
                "the other context's synchronize told to fail",
                guard.synchronize(),
            )
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })?;
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
    // Poisoned: the other context is left, not destroyed (R20), its destroy refused.
    refused("Context::destroy of the other context", other.destroy())
}
