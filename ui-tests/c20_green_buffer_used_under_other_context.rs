//! C20 context-independent code (green half): a green context's handles cannot be used while
//! another context is pushed on top of its guard, exactly like an ordinary context's.
//! Positive twin: `two_green_contexts_run_at_once_on_disjoint_sms` in `tests/gpu_green.rs`.
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, GreenContext, Stack};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let other = Context::new(device, ContextFlags::empty())?;
    let sms = device.sm_resource()?;
    let split = sms.split(2, 16)?;
    let green = GreenContext::new(&split.groups[0])?;
    let mut stack = Stack::new()?;
    let mut guard = stack.push_green(&green)?;
    let buf = guard.alloc::<u32>(16)?;
    guard.with_pushed(&other, |_inner| buf.to_vec())??; //~ ERROR E0502
    Ok(())
}
