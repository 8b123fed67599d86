//! C28.15 a fork's `Branch` smuggled out of the capture's `'static` closure through an
//! `Rc<RefCell<Option<_>>>` moved into it, to be run once the capture has ended and its stream
//! is no longer captured: the branch is branded by the closure's own lifetime, which the
//! shared cell's type (named outside the closure) cannot hold.
//! Positive twin: `a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays` in `tests/gpu_graph_capture_forks.rs`.
use core::cell::RefCell;
use std::rc::Rc;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (stream, a) = (guard.stream()?, guard.stream()?);
    let slot = Rc::new(RefCell::new(None));
    let inner = Rc::clone(&slot);
    let graph = stream.capture_forks((&a, ()), (), move |_s, (), ba| {
        *inner.borrow_mut() = Some(ba); //~ ERROR E0521
        Ok(())
    })?;
    let late = slot.borrow_mut().take();
    drop((graph, late));
    Ok(())
}
