//! C28.16 the capturing stream parked inside its own capture's closure, to be attached on
//! another thread, whose capture mark is clear, and record an event in the capture there: the
//! capture borrows its stream until it ends, so it cannot be moved out (parked) meanwhile.
//! Positive twin: `no_event_route_joins_a_stream_to_a_capture_and_the_stream_runs_on_another_thread` in `tests/gpu_graph_kept_attack.rs`.
use custack::{Context, ContextFlags, Driver, PushedGuard, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx: &'static Context =
        Box::leak(Box::new(Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?));
    let stack: &'static mut Stack = Box::leak(Box::new(Stack::new()?));
    let guard: &'static PushedGuard<'static, 'static> = Box::leak(Box::new(stack.push(ctx)?));
    let origin = guard.stream()?;
    let graph = origin.capture((), move |_s, ()| { //~ ERROR E0505
        let parked = guard.park_stream(origin);
        drop(parked);
        Ok(())
    })?;
    drop(graph);
    Ok(())
}
