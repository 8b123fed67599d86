//! C5 context outlives its pushes: a context cannot be dropped while page-locked memory it
//! allocated is parked (the driver frees a context's page-locked memory with it).
//! Positive twin: `p11_staging_through_pinned` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let a = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let staging = {
        let ga = stack.push(&a)?;
        ga.park_pinned(ga.alloc_pinned::<u32>(1024)?)
    };
    drop(a); //~ ERROR E0505
    println!("{}", staging[0]);
    Ok(())
}
