//! C11 pending host memory: a host function runs on a driver thread, later; it cannot borrow
//! host memory (it is `Send + 'static`), so it cannot read or write what a copy may still use.
//! Positive twin: `host_functions_run_in_order_and_their_panics_are_reported` in
//! `tests/gpu_submission.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc::<u32>(4)?;
    let mut host = vec![0u32; 4];
    stream.scope(|s| {
        s.copy_to_host(&mut host, s.bind(&dev))?;
        s.host_fn(|| println!("{}", host[0])) //~ ERROR E0597
    })??;
    Ok(())
}
