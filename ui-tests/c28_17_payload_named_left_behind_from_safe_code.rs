//! C28.17 an executable graph (and the kept allocations its launches made, and its payload)
//! named to the checking driver as left behind on purpose from safe code, through the `Payload`
//! trait's own method, callable by name, so that a program could hide its own leaks from the
//! double: `Payload::left_behind` (and `ParkedPayload::left_behind`) is an `unsafe fn`, whose
//! caller promises to leak what it names.
//! Positive twin: program `graph_kept_routes` under `scripts/check-driver.sh` (what custack
//! leaves behind on purpose is named, and not counted as a leak).
use custack::Payload;
use custack::graph::GraphExec;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let exec = guard.build_graph((), |_b, ()| Ok(()))?.instantiate()?;
    <GraphExec<'_, ()> as Payload>::left_behind(&exec); //~ ERROR E0133
    core::mem::forget(exec);
    Ok(())
}
