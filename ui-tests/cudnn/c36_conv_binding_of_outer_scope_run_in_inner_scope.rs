//! C36 cuDNN runs: a convolution's buffers are bound to the scope that runs it, so an output
//! bound to one stream's scope cannot be written by a run in a scope of another stream, where
//! both could write it at once. Positive twin:
//! `one_plan_serves_two_streams_and_submissions_and_drops_with_work_pending` in
//! `tests/gpu_cudnn.rs`.
use custack::dnn::Conv2d;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.conv_plan(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]))?;
    let (x, w, b) = (guard.alloc_zeroed::<f32>(9)?, guard.alloc_zeroed::<f32>(9)?, guard.alloc_zeroed::<f32>(1)?);
    let mut y = guard.alloc_zeroed::<f32>(1)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s1| {
        let y1 = s1.bind_mut(&mut y);
        two.scope(|s2| plan.run(s2, s2.bind(&x), s2.bind(&w), s2.bind(&b), y1))? //~ ERROR E0521
    })??;
    Ok(())
}
