//! C25 library handles: a stream-ordered allocation that a recorded call of an NCCL batch
//! writes cannot be freed before the batch is issued (its free would be enqueued before the
//! call). Positive twin: `a_batch_is_one_group_and_every_call_lands` in `tests/gpu_nccl.rs`.
use custack::nccl::ReduceOp;
use custack::{Context, Driver, Stack};
use std::time::Duration;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, Duration::from_secs(10))?;
    guard.stream()?.scope(|s| {
        let mut tmp = s.alloc::<f32>(4)?;
        let mut batch = comm.batch(s);
        batch.all_reduce_in_place(&mut tmp, 4, ReduceOp::Sum)?;
        drop(tmp); //~ ERROR E0505
        batch.issue()
    })??;
    Ok(())
}
