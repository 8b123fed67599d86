//! C36 cuDNN runs: the output of a convolution is written, so it must be an exclusive binding
//! (`s.bind_mut`); a read-only binding, which other reads may share, fails to compile. Positive
//! twin: `convolution_bias_and_relu_match_the_cpu_in_both_layouts` in `tests/gpu_cudnn.rs`.
use custack::dnn::Conv2d;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.conv_plan(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]))?;
    let (x, w, b) = (guard.alloc_zeroed::<f32>(9)?, guard.alloc_zeroed::<f32>(9)?, guard.alloc_zeroed::<f32>(1)?);
    let y = guard.alloc_zeroed::<f32>(1)?;
    guard.stream()?.scope(|s| {
        plan.run(s, s.bind(&x), s.bind(&w), s.bind(&b), s.bind(&y)) //~ ERROR E0277
    })??;
    Ok(())
}
