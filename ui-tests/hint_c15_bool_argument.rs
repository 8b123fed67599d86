//! Hint (C15 wrong-type arguments): `bool` is not plain data (its C size and bit patterns are
//! not Rust's); the message says to pass a `u8`.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let flag = module.function("flag")?;
    let cfg = LaunchConfig::for_elements(1);
    stream.scope(|s| unsafe { s.launch(&flag, cfg, (true,)) })??; //~ ERROR E0277
    Ok(())
}
