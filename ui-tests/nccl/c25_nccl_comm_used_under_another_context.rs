//! C25 library handles: an NCCL communicator cannot be used while another context is pushed on
//! top of the guard that lent it (NCCL would enqueue on a stream of the wrong context).
//! Positive twins: `a_parked_communicator_is_used_again_under_a_nested_push` (parked across
//! the push) and `a_communicator_is_made_again_after_the_inner_guard_pops` in
//! `tests/gpu_nccl.rs`.
use custack::nccl::ReduceOp;
use custack::{Context, ContextFlags, Driver, Stack, StackTop};
use std::time::Duration;

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::primary(device)?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let comm = guard_a.nccl_comm(&custack::nccl::unique_id()?, 0, 1, Duration::from_secs(10))?;
    guard_a.with_pushed(&b, |guard_b| {
        //~^ ERROR E0502
        let mut x = guard_b.alloc_zeroed::<f32>(4)?;
        guard_b
            .stream()?
            .scope(|s| comm.all_reduce_in_place(s, s.bind_mut(&mut x), 4, ReduceOp::Sum))?
    })??;
    Ok(())
}
