//! Hint (C11 pending host memory): `bind` takes device memory; host memory is bound with
//! `bind_host`, and the message says so.
//! Positive twin: `c10_c11_memory_reused_after_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let host = vec![1.0f32; 4];
    stream.scope(|s| {
        let _a = s.bind(&host); //~ ERROR E0277
    })?;
    Ok(())
}
