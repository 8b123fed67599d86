//! C36 cuDNN runs: a run is never captured into a graph, which would keep using the plan's
//! workspace after the plan was destroyed. A capture's closure is `'static`, so the plan, which
//! borrows its guard, cannot be reached from it (and a run inside a capture's closure by
//! other means is refused at run time, `CUDA_ERROR_NOT_SUPPORTED`, as every library's call is).
use custack::dnn::Conv2d;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.conv_plan(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]))?;
    let payload = (
        guard.alloc_zeroed::<f32>(9)?,
        guard.alloc_zeroed::<f32>(9)?,
        guard.alloc_zeroed::<f32>(1)?,
        guard.alloc_zeroed::<f32>(1)?,
    );
    let _graph = guard.stream()?.capture(payload, |s, (x, w, b, mut y)| {
        plan.run(s, &x, &w, &b, &mut y) //~ ERROR E0597
    })?;
    Ok(())
}
