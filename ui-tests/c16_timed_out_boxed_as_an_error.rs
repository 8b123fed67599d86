//! C16 (and R19, bounded waits): a `TimedOut` is no `std::error::Error`, so `?` cannot box it into a
//! `Box<dyn Error>` whose drop (the pending work's) would be the unbounded wait the bounded
//! form promised not to make. Here the parked submission is `'static` (its context is), so
//! with the impl the conversion would compile. Positive twin: `deadlines` in
//! `benches/checking` (every bounded form, its `TimedOut` waited for again or abandoned).
use custack::{Context, ContextFlags, Deadline, Driver, Stack};
use std::sync::LazyLock;

static CTX: LazyLock<Context> = LazyLock::new(|| {
    let device = Driver::init().and_then(|d| d.device(0)).unwrap();
    Context::new(device, ContextFlags::empty()).unwrap()
});

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(&CTX)?;
    let stream = guard.stream()?;
    let pending = stream.submit(guard.alloc::<u32>(4)?, |s, mut x| s.fill_u32(&mut x, 1))?;
    let parked = guard.park_submission(pending);
    let x = parked.wait_by(Deadline::after(std::time::Duration::from_millis(10)))??;
    //~^ ERROR E0277
    drop(x);
    Ok(())
}
