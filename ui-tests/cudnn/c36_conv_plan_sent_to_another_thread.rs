//! C36 cuDNN plans: a plan holds a cuDNN handle and a workspace of the context current on this
//! thread (it borrows the guard), so it cannot be sent to another thread, where its workspace
//! would be freed in whatever context is current there.
//! Positive twin: `one_plan_serves_two_streams_and_submissions_and_drops_with_work_pending` in
//! `tests/gpu_cudnn.rs`.
use custack::dnn::Conv2d;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.conv_plan(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]))?;
    std::thread::scope(|t| {
        t.spawn(move || drop(plan)); //~ ERROR E0277
    });
    Ok(())
}
