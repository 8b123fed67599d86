//! C20 context-independent code (green half): a green context cannot be used after the device
//! resource it was built from is gone.
//! Positive twin: `two_green_contexts_run_at_once_on_disjoint_sms` in `tests/gpu_green.rs`.
use custack::{Driver, GreenContext, Stack};

fn main() -> Result<(), custack::Error> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let green = GreenContext::new(&split.groups[0])?;
    drop(split);
    drop(sms); //~ ERROR E0505
    let mut stack = Stack::new()?;
    let _guard = stack.push_green(&green)?;
    Ok(())
}
