//! C36 cuDNN plans: a matmul plan holds a cuDNN handle, graph-API descriptors and a workspace of
//! the context current on this thread (it borrows the guard), so it cannot be sent to another
//! thread, where its workspace would be freed in whatever context is current there.
//! Positive twin: `matmul_plans_of_two_threads_own_guards_run_side_by_side` in
//! `tests/gpu_cudnn.rs` (each thread makes a plan of its own guard).
use custack::dnn::Matmul;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.matmul_plan(&Matmul::new(1, 2, 3, 4))?;
    std::thread::scope(|t| {
        t.spawn(move || drop(plan)); //~ ERROR E0277
    });
    Ok(())
}
