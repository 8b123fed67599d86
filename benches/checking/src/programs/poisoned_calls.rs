//! The program `poisoned_calls` (R20; the double reporting 13.0): once a sticky error poisoned
//! the process, the calls a review found still reaching the driver (an event recorded or
//! waited for context-wide, a module's functions listed, a kernel's parameters asked for, an
//! event recorded or waited for on a stream, a stream made to wait for a parked submission, a
//! scope opened after one) are refused with that first error and make no driver call. The
//! sticky error is the double's, told (`custackCheckdriverFailCall`, sticky) at the
//! `cuGraphRetainUserObject` of a graph build's host node in another context, on another
//! thread, after each call was made once clean (its entry point looked up): the poison is the
//! process's, so a fault in any context refuses every context's calls. That build's error path
//! releases nothing either: no `cuUserObjectRelease` (R20: through the one gate), so the host
//! node's closure is leaked, never dropped. The fault comes while a submission's closure runs
//! on this thread: the submission records no event after it. Not run on the real driver
//! (`checkdriver/trace/programs.txt`). Without the checks, its clean run fails.

use crate::common::{KERNELS, unexpected};
use crate::differential::fail_call;
use crate::double::{counting, driver_calls};
use custack::{Context, ContextFlags, EventFlags, Result, Stack};
use std::sync::Arc;

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

/// Poisons the process at a graph build of another context on another thread, then makes each
/// call in `ctx`: refused, no driver call.
pub(crate) fn poisoned_calls(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let event = guard.event(EventFlags::DISABLE_TIMING)?;
    let stream = guard.stream()?;
    let parked = guard
        .park_submission(stream.submit(guard.alloc::<u32>(4)?, |s, mut d| s.fill_u32(&mut d, 1))?);
    // Each call once before the fault, so that its entry point is looked up already (a lookup
    // after the fault is refused on its own, which would hide a missing check).
    guard.record_event(&event)?;
    guard.wait_event(&event)?;
    drop(module.functions()?);
    drop(add.param_layout()?);
    stream.record(&event)?;
    stream.wait(&event)?;
    stream.wait_parked(&parked)?;
    stream.scope_after(&parked, |_, _| ())?;
    let other = Context::new(ctx.device(), ContextFlags::empty())?;
    // What the host node's closure holds: a second count while the closure lives.
    let held = Arc::new(());
    // The poison comes while a submission's closure runs on this thread (the other thread's
    // build, joined inside it): the submission's event is then not recorded (R20), no
    // `cuEventRecord` after the closure, and its payload is leaked by the submission's
    // clean-up, which the work may still use.
    let poison_in_other_context = || {
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut stack = Stack::new()?;
                let guard = stack.push(&other)?;
                let in_node = Arc::clone(&held);
                fail_call(c"cuGraphRetainUserObject", STICKY, true)?;
                let (built, releases) = counting("cuUserObjectRelease", || {
                    Ok(guard.build_graph(guard.alloc::<u32>(4)?, move |b, _| {
                        b.host(move || drop(Arc::clone(&in_node)), &[])?;
                        Ok(())
                    }))
                })?;
                refused(
                    "the other context's graph build, its retain told to fail",
                    built.map(drop),
                )?;
                if releases != 0 {
                    return Err(unexpected(&format!(
                        "the failed build released its host node's user object after the sticky \
                     error ({releases} cuUserObjectRelease)"
                    )));
                }
                Ok(())
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    };
    let (submitted, records) = counting("cuEventRecord", || {
        Ok(stream.submit(guard.alloc::<u32>(4)?, |_, _| poison_in_other_context()))
    })?;
    refused(
        "Stream::submit whose closure saw the poison come",
        submitted.map(drop),
    )?;
    if records != 0 {
        return Err(unexpected(&format!(
            "a submission recorded its event after the poison came during its closure \
             ({records} cuEventRecord)"
        )));
    }
    if custack::poisoned().is_none() {
        return Err(unexpected("a sticky error did not poison the process"));
    }
    if Arc::strong_count(&held) != 2 {
        return Err(unexpected(
            "the host node's closure was dropped: its user object was released after the poison",
        ));
    }
    let before = driver_calls()?;
    refused("PushedGuard::record_event", guard.record_event(&event))?;
    refused("PushedGuard::wait_event", guard.wait_event(&event))?;
    refused("Module::functions", module.functions())?;
    refused("Function::param_layout", add.param_layout())?;
    refused("Stream::record", stream.record(&event))?;
    refused("Stream::wait", stream.wait(&event))?;
    refused("Stream::wait_parked", stream.wait_parked(&parked))?;
    refused(
        "Stream::scope_after",
        stream.scope_after(&parked, |_, _| ()),
    )?;
    let made = driver_calls()? - before;
    if made != 0 {
        return Err(unexpected(&format!(
            "{made} driver calls after the process was poisoned"
        )));
    }
    // Poisoned: the other context is left, not destroyed (R20), its destroy refused.
    refused("Context::destroy of the other context", other.destroy())
}
