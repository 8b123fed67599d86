//! Hint (C15 wrong-type arguments): kernel arguments are a tuple, `(x,)` for one; a bare
//! argument fails, and the message shows the one-element tuple.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let zero = module.function("zero")?;
    let cfg = LaunchConfig::for_elements(4);
    let mut x = guard.alloc::<f32>(4)?;
    stream.scope(|s| {
        let mut x = s.bind_mut(&mut x);
        unsafe { s.launch(&zero, cfg, &mut x) } //~ ERROR E0277
    })??;
    Ok(())
}
