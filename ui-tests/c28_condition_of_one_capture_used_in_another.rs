//! C28.3 conditional nodes added to a capture: a condition made in a capture
//! (`StreamScope::condition`) is a `Condition<'scope, CapturedGraph>` of that capture's
//! invariant brand, so it cannot leave the capture's closure to become the condition of a node
//! of another capture, whose graph it was not made on.
//! Positive twin: `a_capture_with_an_if_node_in_its_middle_runs_the_body_only_when_the_kernel_set_the_condition`
//! in `tests/gpu_graph_capture_into.rs`.
use custack::{Context, ContextFlags, Driver, Stack};
use custack::graph::{CapturedGraph, Condition};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let kept: std::rc::Rc<std::cell::Cell<Option<Condition<'static, CapturedGraph>>>> =
        Default::default();
    let keep = kept.clone();
    let _first = stream.capture((), move |s, ()| {
        keep.set(Some(s.condition(1, true)?)); //~ ERROR
        Ok(())
    })?;
    let _second = stream.capture((), move |s, ()| match kept.take() {
        Some(cond) => s.while_loop(cond, |_| Ok(())),
        None => Ok(()),
    })?;
    Ok(())
}
