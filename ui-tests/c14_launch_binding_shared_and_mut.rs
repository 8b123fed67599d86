//! C14 no aliasing: one launch cannot receive the same bound memory both shared and mutable (a
//! mutable binding is not `Copy`; launches take `&` or `&mut` of it). (Found in review.)
//! Positive twin: `c14_disjoint_views` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let vector_add = module.function("vector_add")?;
    let stream = guard.stream()?;
    let mut c = guard.alloc::<f32>(1024)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut dc = s.bind_mut(&mut c);
        let cfg = LaunchConfig::for_elements(1024);
        unsafe { s.launch(&vector_add, cfg, (&dc, &dc, &mut dc, 1024u32)) } //~ ERROR E0502
    })??;
    Ok(())
}
