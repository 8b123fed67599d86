//! C21 host memory the GPU can see (its virtual-memory kin): a mapping cannot outlive the
//! reservation it lies in.
//! Positive twin: `virtual_memory_vector_add_and_growing_without_copying` in
//! `tests/gpu_memory.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let mut physical = guard.create_physical(g)?;
    let space = guard.reserve(g)?;
    let mapping = space.map::<u32, _>(&guard, [&mut physical])?;
    drop(space); //~ ERROR E0505
    drop(mapping);
    Ok(())
}
