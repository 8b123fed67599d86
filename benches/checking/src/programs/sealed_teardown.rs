//! The program `sealed_teardown` (C27): after the seal, the run phase's end creates nothing. A
//! restricted module unloaded at its drop waits for its context to be idle, and so does the
//! guard's `shutdown`; each records and polls the one event the guard made when its init phase
//! opened, so neither makes an event of its own after the seal (before, each made one through
//! `Module::unload_by` and `PushedGuard::synchronize_by`). The event is the context's (R25): a
//! guard dropped without its shutdown leaves it to the next guard, whose shutdown polls it,
//! bounded, rather than `cuCtxSynchronize`.

use crate::differential;
use crate::double::{calls_of, report_driver_version};
use custack::{Result, Stack};

/// The event creations `f` made.
fn events_made<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = calls_of("cuEventCreate");
    let r = f();
    (r, calls_of("cuEventCreate") - before)
}

/// A restricted context's init phase (a stream, a module), its seal, a context-wide wait, the
/// module's drop and the guard's shutdown, on a driver with `cuCtxRecordEvent` (13.0, so that
/// the waits are bounded ones; before 12.5 they are `cuCtxSynchronize` and make no event
/// either way). From the seal on, no `cuEventCreate`; every error, a drop's included, returned.
pub(crate) fn sealed_teardown() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext};
    report_driver_version(13000)?;
    let profile = Profile::init(1)?;
    let device = profile.device(0)?;
    let budget = Budget::new().streams(1).modules(1);
    let mut ctx = RestrictedContext::new(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let cubin = differential::frame_cubin();
    let outcome = guard.init().and_then(|init| {
        let _stream = init.stream()?;
        // SAFETY: a complete cubin made above (the profile's checks read it; nothing launches).
        let module = unsafe { init.load_cubin(&cubin) }?;
        let run = init.seal();
        let (waited, made) = events_made(|| {
            let waited = run.synchronize();
            drop(module);
            waited
        });
        assert!(
            made == 0,
            "sealed_teardown: the run phase's wait and the module's unload made {made} events \
             after the seal"
        );
        waited
    });
    // R25: the guard that opened the init phase dropped without its shutdown (a guard forgotten
    // runs no code either, and leaves its context pushed: the event is the context's all the
    // same); the next guard's shutdown waits by the context's event, bounded.
    drop(guard);
    let shutdown = later_shutdown(ctx.push(&mut stack)?, outcome.is_ok(), "dropped");
    drop(stack);
    // The event is destroyed with the context.
    let destroyed = ctx.destroy();
    let dropped = custack::take_drop_errors().into_iter().next();
    outcome
        .and(shutdown)
        .and(destroyed)
        .and(dropped.map_or(Ok(()), Err))
}

/// The shutdown of a guard pushed after an earlier guard of the context was `before` without
/// its own: where the init phase opened (`opened`), it makes no event
/// and no `cuCtxSynchronize` (an unbounded wait, R25), and where it succeeds it recorded the
/// context's event to poll it. Before, the event was the first guard's and went with it, and
/// this shutdown was `cuCtxSynchronize`.
fn later_shutdown(
    guard: custack::safety::RestrictedGuard<'_, '_>,
    opened: bool,
    before: &str,
) -> Result<()> {
    let synchronizes = calls_of("cuCtxSynchronize");
    let records = calls_of("cuCtxRecordEvent");
    let (shutdown, made) = events_made(|| guard.shutdown());
    let synchronizes = calls_of("cuCtxSynchronize") - synchronizes;
    let records = calls_of("cuCtxRecordEvent") - records;
    assert!(
        made == 0,
        "sealed_teardown: the shutdown after a guard {before} without its own made {made} \
         events after the seal"
    );
    if opened {
        assert!(
            synchronizes == 0 && (shutdown.is_err() || records >= 1),
            "sealed_teardown: the shutdown after a guard {before} without its own made \
             {synchronizes} unbounded cuCtxSynchronize and {records} cuCtxRecordEvent \
             ({shutdown:?})"
        );
    }
    shutdown
}
