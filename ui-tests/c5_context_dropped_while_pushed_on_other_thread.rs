//! C5 context outlives its pushes: a `Context` cannot be dropped on one thread while another
//! thread has it pushed.
//! Positive twin: `c5_context_dropped_after_its_guards` and `p4_shared_context` in
//! `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let shared = &ctx;
    std::thread::scope(|s| {
        //~^ ERROR E0505
        let worker = s.spawn(move || -> custack::Result<()> {
            let mut stack = Stack::new()?;
            let guard = stack.push(shared)?;
            guard.synchronize()
        });
        drop(ctx); // moves `ctx` into the closure above while `shared` borrows it
        worker.join().unwrap()
    })?;
    Ok(())
}
