//! C25 library handles: an NCCL communicator lent by a guard cannot be used after the guard is
//! dropped (its context popped).
//! Positive twin: `one_rank_collectives_on_custack_memory` in `tests/gpu_nccl.rs`.
use custack::{Context, Driver, Stack};
use std::time::Duration;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, Duration::from_secs(10))?;
    drop(guard); //~ ERROR E0505
    comm.destroy()?;
    Ok(())
}
