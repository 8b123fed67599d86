//! The program `sealed_teardown` (C27): after the seal, the run phase's end creates nothing. A
//! restricted module unloaded at its drop waits for its context to be idle, and so does the
//! guard's `shutdown`; each records and polls the one event the guard made when its init phase
//! opened, so neither makes an event of its own after the seal (before, each made one through
//! `Module::unload_by` and `PushedGuard::synchronize_by`).

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
    let (shutdown, made) = events_made(|| guard.shutdown());
    assert!(
        made == 0,
        "sealed_teardown: the shutdown made {made} events after the seal"
    );
    drop(stack);
    let destroyed = ctx.destroy();
    let dropped = custack::take_drop_errors().into_iter().next();
    outcome
        .and(shutdown)
        .and(destroyed)
        .and(dropped.map_or(Ok(()), Err))
}
