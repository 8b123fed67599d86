//! C20 context-independent code (green half): a green context may be current on one thread at a
//! time, so it never leaves the thread that made it (`!Send`).
//! Positive twin: `two_green_contexts_run_at_once_on_disjoint_sms` in `tests/gpu_green.rs`.
use custack::{Driver, GreenContext};

fn main() -> Result<(), custack::Error> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let green = GreenContext::new(&split.groups[0])?;
    std::thread::scope(|t| {
        t.spawn(move || drop(green)); //~ ERROR E0277
    });
    Ok(())
}
