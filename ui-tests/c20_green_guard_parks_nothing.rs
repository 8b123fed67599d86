//! C20 context-independent code (green half): a green context's buffers cannot be parked: a
//! parked buffer may be dropped on another thread, which would push the green context there
//! while this thread may have it current.
//! Positive twin: `two_green_contexts_run_at_once_on_disjoint_sms` in `tests/gpu_green.rs`.
use custack::{Driver, GreenContext, Stack};

fn main() -> Result<(), custack::Error> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let green = GreenContext::new(&split.groups[0])?;
    let mut stack = Stack::new()?;
    let guard = stack.push_green(&green)?;
    let buf = guard.alloc::<u32>(16)?;
    let _parked = guard.park(buf); //~ ERROR E0599
    Ok(())
}
