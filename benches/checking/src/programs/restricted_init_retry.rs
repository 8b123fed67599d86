//! The program `restricted_init_retry` (C27): an init phase that failed before it was handed
//! out used up nothing. Its event's creation refused once (`custackCheckdriverFailCall`, not
//! sticky), then its stack-size limit refused once: each `init` returns the driver's error, and
//! the next `init` of the same guard opens the phase, which makes a stream, seals and waits. An
//! `init` after the phase was handed out is still refused (`OutsideProfile`). Before, the first
//! failure used the context's one init phase: every later `init` was refused and the context
//! could never run. Not run on the real driver (`checkdriver/trace/programs.txt`: the refusals
//! are the double's).

use crate::common::unexpected;
use crate::differential::fail_call;
use crate::double::report_driver_version;
use custack::{ErrorKind, Result, Stack};

/// `CUDA_ERROR_OUT_OF_MEMORY`, not sticky.
const OUT_OF_MEMORY: i32 = 2;

/// `r` must be the refusal the double was told, `what` naming the step for the failure.
fn told<T>(what: &str, r: Result<T>) -> Result<()> {
    match r {
        Err(e) if e.code().map(|c| c.0) == Some(OUT_OF_MEMORY) => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected(&format!(
            "restricted_init_retry: {what} opened the init phase though its call was refused"
        ))),
    }
}

/// A restricted context whose `init` fails twice (the event, then the stack-size limit), then
/// opens, runs and ends; a second phase after it refused.
pub(crate) fn restricted_init_retry() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext};
    // 13.0: the init phase makes its event (`cuCtxRecordEvent` is there from 12.5).
    report_driver_version(13000)?;
    let profile = Profile::init(1)?;
    let device = profile.device(0)?;
    // A stack of 64 KiB a thread, past the default: the init phase sets the limit.
    let budget = Budget::new().streams(1).local_memory(64 << 10);
    let mut ctx = RestrictedContext::new(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    fail_call(c"cuEventCreate", OUT_OF_MEMORY, false)?;
    told("an init whose event was refused", guard.init().map(drop))?;
    fail_call(c"cuCtxSetLimit", OUT_OF_MEMORY, false)?;
    told("an init whose stack limit was refused", guard.init().map(drop))?;
    let outcome = guard.init().and_then(|init| {
        let _stream = init.stream()?;
        init.seal().synchronize()
    });
    let again = match guard.init() {
        Err(e) if e.kind() == ErrorKind::OutsideProfile => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected(
            "restricted_init_retry: a second init phase opened after the first was handed out",
        )),
    };
    let shutdown = guard.shutdown();
    drop(stack);
    let destroyed = ctx.destroy();
    let dropped = custack::take_drop_errors().into_iter().next();
    outcome
        .and(again)
        .and(shutdown)
        .and(destroyed)
        .and(dropped.map_or(Ok(()), Err))
}
