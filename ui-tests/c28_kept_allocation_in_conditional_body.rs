//! C28.9 kept graph allocations: `alloc_kept` is a method of the root graph's builder
//! (`GraphBuilder<'b, RootGraph>`) only, whose executable graph records what each launch makes
//! (`GraphExec::take_kept`); a conditional node's body, built through a
//! `GraphBuilder<'b, BodyGraph<'c>>`, has no record of its own to hand such memory out from
//! (and the driver takes no memory node in a body): keeping an allocation there does not compile.
//! Positive twin: `a_kept_graph_allocation_is_taken_after_each_launch_read_and_freed_then_launched_again`
//! in `tests/gpu_graph_build.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let _g = guard.build_graph((), |b, ()| {
        let cond = b.condition(1, true)?;
        b.if_then(cond, &[], |then| {
            let (_made, _x) = then.alloc_kept::<u32>(4, &[])?; //~ ERROR E0599
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}
