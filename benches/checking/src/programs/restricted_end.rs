//! The program `restricted_end` (R20): the restricted profile's end, a second thread's context
//! made, used and ended while an init phase is open; a poisoned process's `load_cubin` refused
//! before any driver call; both threads ended through `checked_shutdown` and `checked_destroy`,
//! which return the driver's error rather than leave it to a drop.

use crate::differential;
use crate::double::driver_calls;
use custack::{Result, Stack};

/// How every sticky error's text ends: the number of errors of a sticky kind an error's text
/// names.
const STICKY: &str = " (sticky: CUDA is unusable in this process";

/// The restricted profile's end, judged by the program itself as well as by the double (each
/// check a panic, which `scripts/check-driver.sh` counts as a failure under every schedule).
/// With an init phase open (a stream made), another thread makes, uses and ends a restricted
/// context of its own; where the schedule's fault falls among that thread's calls, the process
/// is poisoned while this init phase is still open, and `load_cubin` must then return the
/// poison before any driver call (the double counts none, R20). Then both threads end through
/// [`checked_shutdown`] and [`checked_destroy`]: each returns the driver's error rather than
/// leave it to a drop (a failed `cuCtxPopCurrent` or `cuCtxDestroy`), and a poisoned process's
/// shutdown names its sticky error once.
pub(crate) fn restricted_end() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext};
    // Two restricted contexts: this one, and the other thread's.
    let profile = Profile::init(2)?;
    let device = profile.device(0)?;
    let budget = Budget::new().streams(1).modules(1);
    let mut ctx = RestrictedContext::new(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let cubin = differential::frame_cubin();
    let mut errors = Vec::new();
    let mut other = Ok(());
    let outcome = guard.init().and_then(|init| {
        let _stream = init.stream()?;
        other = std::thread::scope(|s| {
            s.spawn(|| {
                let mut ctx = RestrictedContext::new(&profile, device, Budget::new().streams(1))?;
                let mut stack = Stack::new()?;
                let mut guard = ctx.push(&mut stack)?;
                let mut errors = Vec::new();
                let outcome = guard.init().and_then(|init| init.stream().map(drop));
                let shutdown = checked_shutdown(guard, &mut errors);
                drop(stack);
                let destroyed = checked_destroy(ctx, &mut errors);
                outcome.and(shutdown).and(destroyed)?;
                errors.into_iter().next().map_or(Ok(()), Err)
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        let poison = custack::poisoned();
        let before = driver_calls()?;
        // SAFETY: a complete cubin made above (the profile's checks read it; nothing launches).
        let module = unsafe { init.load_cubin(&cubin) };
        let calls = driver_calls()? - before;
        if let Some(poison) = poison {
            match &module {
                Err(e) if e.kind() == poison.kind() && calls == 0 => {}
                other => panic!(
                    "restricted_end: load_cubin in a poisoned process made {calls} driver calls \
                     and returned {other:?}, not the poison"
                ),
            }
        }
        module.map(drop)
    });
    let shutdown = checked_shutdown(guard, &mut errors);
    drop(stack);
    let destroyed = checked_destroy(ctx, &mut errors);
    outcome.and(other).and(shutdown).and(destroyed)?;
    errors.into_iter().next().map_or(Ok(()), Err)
}

/// `guard.shutdown()`, with the errors drops recorded before it moved to `errors` (so that the
/// shutdown's own are told apart), and checked: it leaves nothing to the drop log (a pop that
/// failed is returned, not recorded by the guard's drop), and in a poisoned process it returns
/// an error whose text names a sticky error exactly once (the poison, merged in only when no
/// error of its kind is there already).
fn checked_shutdown(
    guard: custack::safety::RestrictedGuard<'_, '_>,
    errors: &mut Vec<custack::Error>,
) -> Result<()> {
    errors.extend(custack::take_drop_errors());
    let shutdown = guard.shutdown();
    let left = custack::take_drop_errors();
    assert!(
        left.is_empty(),
        "restricted_end: shutdown returned {shutdown:?} and left errors to the drop log: {left:?}"
    );
    if custack::poisoned().is_some() {
        let text = match &shutdown {
            Ok(()) => panic!("restricted_end: shutdown in a poisoned process returned Ok"),
            Err(e) => e.to_string(),
        };
        let named = text.matches(STICKY).count();
        assert!(
            named == 1,
            "restricted_end: the shutdown's error names {named} sticky errors, not the poison \
             once: {text}"
        );
    }
    shutdown
}

/// `ctx.destroy()`, with the errors drops recorded before it moved to `errors`, and checked: it
/// leaves nothing to the drop log (a `cuCtxDestroy` that failed, or a poisoned process's
/// refusal, is returned, not recorded by the context's drop).
fn checked_destroy(
    ctx: custack::safety::RestrictedContext,
    errors: &mut Vec<custack::Error>,
) -> Result<()> {
    errors.extend(custack::take_drop_errors());
    let destroyed = ctx.destroy();
    let left = custack::take_drop_errors();
    assert!(
        left.is_empty(),
        "restricted_end: destroy returned {destroyed:?} and left errors to the drop log: {left:?}"
    );
    assert!(
        custack::poisoned().is_none() || destroyed.is_err(),
        "restricted_end: destroy in a poisoned process returned Ok"
    );
    destroyed
}
