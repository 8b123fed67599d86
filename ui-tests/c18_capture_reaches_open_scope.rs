//! C18 graphs: a capture's closure reaches only its own scope and payload; it cannot enqueue
//! through a scope opened before the capture (that work would be captured, not run, so the outer
//! scope's synchronize would find nothing pending and release `local` while the graph keeps its
//! address). The closure is `'static`.
//! Positive twin: `c18_capture_inside_an_open_scope` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let dev = guard.alloc_zeroed::<u32>(1024)?;
    let mut local = vec![0u32; 1024];
    let graph = stream.scope(|s2| {
        stream.capture((), |_s, ()| { //~ ERROR E0521: `s2` escapes into a `'static` closure
            s2.copy_to_host(s2.bind_host_mut(&mut local), s2.bind(&dev))
        })
    })??;
    drop(local);
    drop(graph);
    Ok(())
}
