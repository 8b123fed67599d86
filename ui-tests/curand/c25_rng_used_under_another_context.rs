//! C25 library handles: a cuRAND generator cannot be used while another context is pushed on
//! top of the guard that lent it (cuRAND would run in the wrong context).
//! Positive twin: `a_generator_is_used_again_after_an_inner_guard_pops` in
//! `tests/gpu_curand.rs`.
use custack::rand::Pseudo;
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let mut rng = guard_a.rng(Pseudo::Xorwow, 1)?;
    guard_a.with_pushed(&b, |_guard_b| {
        //~^ ERROR E0502
        rng.set_offset(8)
    })??;
    Ok(())
}
