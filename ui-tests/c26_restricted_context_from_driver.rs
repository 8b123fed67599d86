//! C26 CUDA SAFETY 1.1 (no callbacks): a `RestrictedContext` is made from a `Profile`, not a
//! `Driver`. `Driver::init` registers the driver's log callback, which the driver keeps for the
//! whole process; `Profile::init` initializes CUDA without it, so only its proof opens the
//! profile.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Driver;
use custack::safety::{Budget, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let _ctx = RestrictedContext::new(&driver, device, Budget::page_locked(1 << 20))?; //~ ERROR E0308
    Ok(())
}
