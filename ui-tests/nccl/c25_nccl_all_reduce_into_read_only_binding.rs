//! C25 library handles: a read-only binding (`ScopedSlice`, from `bind`) cannot be passed as
//! the output of an NCCL call: `all_reduce` writes `recv`, which must be bound with `bind_mut`.
//! Positive twin: `one_rank_collectives_on_custack_memory` in `tests/gpu_nccl.rs`.
use custack::nccl::ReduceOp;
use custack::{Context, Driver, Stack};
use std::time::Duration;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let comm = guard.nccl_comm(&custack::nccl::unique_id()?, 0, 1, Duration::from_secs(10))?;
    let x = guard.alloc_zeroed::<f32>(4)?;
    let y = guard.alloc_zeroed::<f32>(4)?;
    guard.stream()?.scope(|s| {
        let (dx, dy) = (s.bind(&x), s.bind(&y));
        comm.all_reduce(s, dx, dy, 4, ReduceOp::Sum) //~ ERROR E0277
    })??;
    Ok(())
}
