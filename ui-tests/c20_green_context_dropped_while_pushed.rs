//! C20 context-independent code (green half): a green context cannot be destroyed while its
//! guard is alive.
//! Positive twin: `two_green_contexts_run_at_once_on_disjoint_sms` in `tests/gpu_green.rs`.
use custack::{Driver, GreenContext, Stack};

fn main() -> Result<(), custack::Error> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let green = GreenContext::new(&split.groups[0])?;
    let mut stack = Stack::new()?;
    let guard = stack.push_green(&green)?;
    green.destroy()?; //~ ERROR E0505
    drop(guard);
    Ok(())
}
