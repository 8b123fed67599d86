//! The program `deadlines` (R19, R25; the double reporting 13.0): every bounded wait, each with a
//! short deadline. Under a hang schedule the first wait whose work never completes ends at its
//! deadline with its documented outcome (owned work abandoned, `DeadlinePassed`, or the scope's
//! safe state, status 75). No wait here blocks without a deadline (a strict program of
//! `scripts/check-driver.sh`'s hang pass).

use crate::common::{KERNELS, N, N32};
use custack::{Context, EventFlags, LaunchConfig, Module, PushedGuard, Result, Stack};

/// How long `deadlines` waits for each piece of work: ample for the double, whose work completes
/// at the first query, and what a hung piece of work (`NULLDRIVER_HANG_AT`) costs a run.
const DEADLINE: std::time::Duration = std::time::Duration::from_millis(50);

/// R19: every bounded wait, each with a short deadline (the double reporting 13.0, for the
/// context's `cuCtxRecordEvent`). Under a hang schedule the first wait whose work never
/// completes ends at its deadline with the documented outcome, and the program stops there:
/// owned work (a submission, a parked one, a graph launched as one, a module) is abandoned,
/// never freed, and the error returned (exit 1); an event, the stream and the context report
/// `DeadlinePassed`, and the submission behind them is abandoned; the scope ends the process
/// in the safe state (`custack::FAIL_STOP_STATUS`, 75). No wait here blocks without a deadline. (The double runs no
/// kernel: the GPU tests, `tests/gpu_deadlines.rs`, check the results.)
pub(crate) fn deadlines(ctx: &Context) -> Result<()> {
    use custack::TimedOut;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let waited = deadline_waits(&guard, &module);
    // The module, whose kernel may still run where a wait above ran out: unloaded by a
    // deadline too, or left loaded (its drop would wait for that kernel with no deadline).
    let unloaded = match module.unload_by(custack::Deadline::after(DEADLINE)) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(late)) => Err(TimedOut::abandon(late)),
        Err(e) => Err(e),
    };
    waited.and(unloaded)
}

/// `deadlines`' waits, on kernels of `module`.
fn deadline_waits(guard: &PushedGuard<'_, '_>, module: &Module<'_>) -> Result<()> {
    use custack::{Abandon, Deadline, Overrun, TimedOut};
    let by = || Deadline::after(DEADLINE);
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let all = LaunchConfig::for_elements(N32);
    // A submission.
    let pending = stream.submit((guard.alloc::<u32>(N)?, add), |s, (mut d, add)| {
        s.fill_u32(&mut d, 1)?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); `d` holds `n` elements.
        unsafe { s.launch(&add, all, (&mut d, 1u32, N32)) }
    })?;
    let (dev, add) = pending.wait_by(by())?.map_err(TimedOut::abandon)?;
    // A parked submission.
    let pending = stream.submit((dev, add), |s, (mut d, add)| {
        // SAFETY: as above.
        unsafe { s.launch(&add, all, (&mut d, 1u32, N32)) }
    })?;
    let (dev, ()) = guard
        .park_submission(pending)
        .wait_by(by())?
        .map_err(TimedOut::abandon)?;
    let dev = guard.attach(dev)?;
    // An event recorded after all of the context's work, the stream, the context.
    let event = guard.event(EventFlags::DISABLE_TIMING)?;
    let pending = stream.submit(add, |s, add| {
        // SAFETY: as above, with n = 0: touches nothing.
        unsafe { s.launch(&add, all, (0u64, 1u32, 0u32)) }
    })?;
    guard.record_event(&event)?;
    let waited = event
        .synchronize_by(by())
        .and_then(|()| stream.synchronize_by(by()))
        .and_then(|()| guard.synchronize_by(by()));
    if let Err(e) = waited {
        pending.abandon();
        return Err(e);
    }
    let add = pending.wait_by(by())?.map_err(TimedOut::abandon)?;
    // A graph launched as a submission.
    let graph = stream
        .capture((dev, add), move |s, (mut d, add)| {
            // SAFETY: as above.
            unsafe { s.launch(&add, all, (&mut d, 1u32, N32)) }
        })?
        .instantiate()?;
    let pending = stream.submit(graph, |s, g| s.launch_graph(&g))?;
    let graph = pending.wait_by(by())?.map_err(TimedOut::abandon)?;
    drop(graph);
    // A module unloaded by a deadline, after work of its kernel that nothing borrows any more.
    let second = guard.load_ptx(KERNELS)?;
    let empty = second.function("empty")?;
    let pending = stream.submit(empty, |s, empty| {
        // SAFETY: `empty()` takes no parameters and touches nothing.
        unsafe { s.launch(&empty, LaunchConfig::for_elements(1), ()) }
    })?;
    pending.abandon();
    second.unload_by(by())?.map_err(TimedOut::abandon)?;
    // A scope, last: past its deadline it ends the process.
    let mut out = guard.alloc::<u32>(N)?;
    stream.scope_by(by(), Overrun::Exit, |s| s.fill_u32(s.bind_mut(&mut out), 3))??;
    Ok(())
}
