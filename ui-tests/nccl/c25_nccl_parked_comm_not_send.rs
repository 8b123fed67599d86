//! C25 library handles: a parked NCCL communicator stays on the thread that made it, like the
//! guard-lent one (NCCL's communicator and its context's stack are this thread's).
//! Positive twin: `a_parked_communicator_is_used_again_under_a_nested_push` in
//! `tests/gpu_nccl.rs`.
use custack::{Context, Driver, Stack};
use std::time::Duration;

fn main() -> Result<(), custack::Error> {
    let ctx = Context::primary(Driver::init()?.device(0)?)?;
    let mut stack = Stack::new()?;
    let comms = custack::nccl::comms(&mut stack, &[&ctx], Duration::from_secs(10))?;
    std::thread::scope(|s| {
        s.spawn(move || drop(comms)); //~ ERROR E0277
    });
    Ok(())
}
