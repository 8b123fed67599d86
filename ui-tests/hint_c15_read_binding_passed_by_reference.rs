//! Hint (C15 wrong-type arguments): a read-only binding (`s.bind(&x)`) is passed by value; passing
//! it by reference, as one writes for `bind_mut` bindings, fails, and the message says so.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let add = module.function("vector_add")?;
    let cfg = LaunchConfig::for_elements(4);
    let x = guard.alloc_from(&[1.0f32; 4])?;
    let y = guard.alloc_from(&[2.0f32; 4])?;
    let mut z = guard.alloc::<f32>(4)?;
    stream.scope(|s| {
        let (a, b, mut c) = (s.bind(&x), s.bind(&y), s.bind_mut(&mut z));
        unsafe { s.launch(&add, cfg, (&a, &b, &mut c, 4u32)) } //~ ERROR E0277
    })??;
    Ok(())
}
