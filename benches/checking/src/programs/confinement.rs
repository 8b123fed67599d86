//! The program `confinement` (R22): once `Profile::init` has run, every entry to the full API is
//! refused before it reaches the driver (the double counts no call); the profile's own context
//! still works.

use crate::common::KERNELS;
use crate::double::driver_calls;
use custack::{Context, ContextFlags, Driver, GraphMem, Result, Stack};

/// R22: once `Profile::init` has run, every entry to the full API is refused before it reaches
/// the driver: the double counts no call for any of them. Then the profile's own context still
/// works (its init phase makes a stream), reaching the driver through paths that do not ask.
pub(crate) fn confinement() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext};
    use custack::{ErrorKind, Library};
    let profile = Profile::init(1)?;
    let device = profile.device(0)?;
    let before = driver_calls()?;
    let escapes: [(&str, Result<()>); 11] = [
        ("Driver::init", Driver::init().map(drop)),
        (
            "Context::new",
            Context::new(device, ContextFlags::empty()).map(drop),
        ),
        ("Context::primary", Context::primary(device).map(drop)),
        (
            "Context::with_sm_count",
            Context::with_sm_count(device, ContextFlags::empty(), 8).map(drop),
        ),
        (
            "Context::from_raw",
            // SAFETY: refused before the (null) handle is used.
            unsafe { Context::from_raw(core::ptr::null_mut()) }.map(drop),
        ),
        (
            "Device::set_primary_context_flags",
            device.set_primary_context_flags(ContextFlags::empty()),
        ),
        ("Device::sm_resource", device.sm_resource().map(drop)),
        ("Device::graph_mem_trim", device.graph_mem_trim()),
        (
            "Device::reset_graph_mem_high",
            device.reset_graph_mem_high(GraphMem::UsedHigh),
        ),
        (
            "Library::load_ptx",
            Library::load_ptx(profile.driver(), KERNELS).map(drop),
        ),
        ("name_launches(true)", custack::name_launches(true)),
    ];
    for (entry, result) in escapes {
        match result {
            Err(e) if e.kind() == ErrorKind::OutsideProfile => {}
            other => {
                return Err(custack::Error::new(
                    ErrorKind::InvalidValue,
                    format!("{entry} was not refused: {other:?}"),
                ));
            }
        }
    }
    let after = driver_calls()?;
    if after != before {
        return Err(custack::Error::new(
            ErrorKind::InvalidValue,
            format!("the refused entries made {} driver calls", after - before),
        ));
    }
    let mut ctx = RestrictedContext::new(&profile, device, Budget::new().streams(1))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = guard.init().and_then(|init| init.stream().map(drop));
    let shutdown = guard.shutdown();
    outcome?;
    shutdown?;
    drop(stack);
    ctx.destroy()
}
