//! C36 cuDNN runs: a matmul's buffers are bound to the scope that runs it, so an output bound
//! in one stream's scope cannot be written by a run in a scope of another stream, where both
//! could write it at once (nor kept past the scope it was bound in). Positive twin:
//! `batched_matmul_matches_the_cpu` in `tests/gpu_cudnn.rs`.
use custack::dnn::Matmul;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.matmul_plan(&Matmul::new(1, 2, 2, 2))?;
    let (a, b) = (guard.alloc_zeroed::<f32>(4)?, guard.alloc_zeroed::<f32>(4)?);
    let mut c = guard.alloc_zeroed::<f32>(4)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    one.scope(|s1| {
        let c1 = s1.bind_mut(&mut c);
        two.scope(|s2| plan.run(s2, s2.bind(&a), s2.bind(&b), c1))? //~ ERROR E0521
    })??;
    Ok(())
}
