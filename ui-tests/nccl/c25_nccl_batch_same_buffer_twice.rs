//! C25 library handles: one buffer written by two calls of one NCCL batch fails to compile. A
//! batch holds the borrow of every buffer it records until it is issued, and NCCL runs a group's
//! calls in no set order among themselves. Positive twin:
//! `a_batch_is_one_group_and_every_call_lands` in `tests/gpu_nccl.rs`.
use custack::nccl::ReduceOp;
use custack::{Context, Driver, Stack};
use std::time::Duration;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, Duration::from_secs(10))?;
    let mut x = guard.alloc_zeroed::<f32>(4)?;
    guard.stream()?.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        let mut batch = comm.batch(s);
        batch.all_reduce_in_place(&mut dx, 4, ReduceOp::Sum)?;
        batch.all_reduce_in_place(&mut dx, 4, ReduceOp::Sum)?; //~ ERROR E0499
        batch.issue()
    })??;
    Ok(())
}
