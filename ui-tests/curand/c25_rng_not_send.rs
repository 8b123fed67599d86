//! C25 library handles: a cuRAND generator stays on its thread: it cannot be sent to another
//! thread (its context is current on this one only).
//! Positive twin: `a_generator_is_used_again_after_an_inner_guard_pops` in
//! `tests/gpu_curand.rs` (used on its own thread).
use custack::rand::Pseudo;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let rng = guard.rng(Pseudo::Xorwow, 1)?;
    std::thread::scope(|s| {
        s.spawn(move || rng.kind()); //~ ERROR E0277
    });
    Ok(())
}
