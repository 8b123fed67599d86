//! C2 escape: a buffer cannot be stored in a struct that outlives its guard.
//! Positive twin: `c2_results_and_parked_forms_escape` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, DeviceBuffer, DeviceMemory, Driver, Stack};

struct Holder<'g> {
    buffer: Option<DeviceBuffer<'g, u32>>,
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut holder = Holder { buffer: None };
    {
        let guard = stack.push(&ctx)?;
        holder.buffer = Some(guard.alloc::<u32>(16)?); //~ ERROR E0597
    }
    if let Some(buffer) = &holder.buffer {
        let _ = buffer.to_vec()?;
    }
    Ok(())
}
