//! C14 no aliasing: one launch cannot take the same device memory both mutably and shared.
//! Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs` (distinct buffers).
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
    let vector_add = module.function("vector_add")?;
    let a = guard.alloc::<f32>(1024)?;
    let mut c = guard.alloc::<f32>(1024)?;
    let cfg = LaunchConfig::for_elements(1024);
    stream.scope(|s| unsafe {
        s.launch(
            &vector_add,
            cfg,
            (s.bind(&a), s.bind(&c), s.bind_mut(&mut c), 1024u32), //~ ERROR E0502
        )
    })??;
    Ok(())
}
