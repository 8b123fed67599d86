//! C28.16 a stream not lent to a capture joined to it by a wait, inside the capture's closure,
//! for an event the capture's scope recorded: the closure is `'static`, so a stream or event
//! its guard lends for less cannot reach it (only a leaked guard's can, whose records and
//! waits custack refuses at run time).
//! Positive twin: `no_event_route_joins_a_stream_to_a_capture_and_the_stream_runs_on_another_thread` in `tests/gpu_graph_kept_attack.rs`.
use custack::{Context, ContextFlags, Driver, EventFlags, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx: &'static Context =
        Box::leak(Box::new(Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?));
    let stack: &'static mut Stack = Box::leak(Box::new(Stack::new()?));
    let guard = stack.push(ctx)?;
    let (origin, other) = (guard.stream()?, guard.stream()?); //~ ERROR E0597
    let into = guard.event(EventFlags::DISABLE_TIMING)?;
    let graph = origin.capture((), move |s, ()| {
        s.record(&into)?;
        other.wait(&into)
    })?;
    drop(graph);
    Ok(())
}
