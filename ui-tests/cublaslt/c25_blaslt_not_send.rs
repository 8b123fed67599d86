//! C25 library handles: a cuBLASLt handle stays on its thread: it cannot be sent to another
//! thread (its context is current on this one only).
//! Positive twin: `a_handle_is_used_again_after_an_inner_guard_pops` in
//! `tests/gpu_cublaslt.rs` (used on its own thread).
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let lt = guard.blas_lt()?;
    std::thread::scope(|s| {
        s.spawn(move || lt.workspace_bytes()); //~ ERROR E0277
    });
    Ok(())
}
