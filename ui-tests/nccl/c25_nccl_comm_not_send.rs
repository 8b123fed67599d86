//! C25 library handles: an NCCL communicator stays on its thread: it cannot be sent to another
//! thread (its context is current on this one only).
//! Positive twin: `one_rank_collectives_on_custack_memory` in `tests/gpu_nccl.rs`.
use custack::{Context, Driver, Stack};
use std::time::Duration;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, Duration::from_secs(10))?;
    std::thread::scope(|s| {
        s.spawn(move || comm.destroy()); //~ ERROR E0277
    });
    Ok(())
}
