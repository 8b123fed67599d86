//! C18 graphs: a capture cannot draw a scope opened before it on another stream into the graph
//! through events (record on the capturing stream, wait on the other one, work there, join back):
//! that work would be captured, not run, and the other scope's synchronize would release `local`
//! while the graph keeps its address. The closure is `'static`, so it reaches no open scope.
//! Positive twin: `c18_capture_inside_an_open_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, EventFlags, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let (fork, join) = (guard.event(EventFlags::empty())?, guard.event(EventFlags::empty())?);
    let dev = guard.alloc_zeroed::<u32>(1024)?;
    let mut local = vec![0u32; 1024];
    let graph = two.scope(|s2| {
        one.capture((), |s, ()| { //~ ERROR E0521: `s2` escapes into a `'static` closure
            s.record(&fork)?;
            s2.wait(&fork)?;
            s2.copy_to_host(s2.bind_host_mut(&mut local), s2.bind(&dev))?;
            s2.record(&join)?;
            s.wait(&join)
        })
    })??;
    drop(local);
    drop(graph);
    Ok(())
}
