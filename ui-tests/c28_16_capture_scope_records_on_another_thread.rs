//! C28.16 the capture's scope lent to a thread reached through `std::thread::scope` inside the
//! capture's closure, to record an event in the capture there, where the thread's capture mark
//! is clear and would not refuse it: a `StreamScope` is neither `Send` nor `Sync`.
//! Positive twin: `no_event_route_joins_a_stream_to_a_capture_and_the_stream_runs_on_another_thread` in `tests/gpu_graph_kept_attack.rs`.
use custack::{Context, ContextFlags, Driver, EventFlags, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx: &'static Context =
        Box::leak(Box::new(Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?));
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let origin = guard.stream()?;
    let graph = origin.capture((), move |s, ()| {
        std::thread::scope(|ts| {
            ts.spawn(|| -> Result<(), custack::Error> { //~ ERROR E0277
                let mut there = Stack::new()?;
                let g = there.push(ctx)?;
                let into = g.event(EventFlags::DISABLE_TIMING)?;
                s.record(&into)
            })
            .join()
            .unwrap_or(Ok(()))
        })
    })?;
    drop(graph);
    Ok(())
}
