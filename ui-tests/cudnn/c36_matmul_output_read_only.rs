//! C36 cuDNN runs: the output `C` of a matmul is written, so it must be an exclusive binding
//! (`s.bind_mut`); a read-only binding, which other reads (here `A` itself) may share, fails to
//! compile. Positive twin: `batched_matmul_matches_the_cpu` in `tests/gpu_cudnn.rs`.
use custack::dnn::Matmul;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.matmul_plan(&Matmul::new(1, 2, 2, 2))?;
    let (a, b) = (guard.alloc_zeroed::<f32>(4)?, guard.alloc_zeroed::<f32>(4)?);
    guard.stream()?.scope(|s| {
        plan.run(s, s.bind(&a), s.bind(&b), s.bind(&a)) //~ ERROR E0277
    })??;
    Ok(())
}
