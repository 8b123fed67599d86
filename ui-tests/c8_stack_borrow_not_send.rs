//! C8 one stack per thread: a `&mut Stack` cannot be sent to another thread to push there.
//! Positive twin: `p4_shared_context` in `tests/patterns.rs`, and `a_stack_per_thread` there.
use custack::{Context, ContextFlags, Driver, Stack, StackTop};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let top = &mut stack;
    std::thread::scope(|s| {
        s.spawn(|| top.with_pushed(&ctx, |guard| guard.synchronize())); //~ ERROR E0277
    });
    Ok(())
}
