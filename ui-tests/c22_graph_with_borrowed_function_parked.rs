//! C22 several contexts in flight: an executable graph whose payload holds a kernel `Function`
//! (which borrows a module the graph does not own) cannot be parked, pending or idle: a parked
//! graph borrows only its context, so nothing would keep that module loaded while the graph
//! can still be launched. Move the `Module` itself into the payload instead.
//! Positive twin: `p9_graph_in_flight` in `tests/gpu_in_flight.rs` (`parked_graph` in
//! `benches/checking`).
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let stream = guard.stream()?;
    let payload = (guard.alloc::<u32>(16)?, module.function("add_u32")?);
    let exec = stream
        .capture(payload, |s, (mut x, add)| {
            // SAFETY: not run (compile-fail test).
            unsafe { s.launch(&add, LaunchConfig::for_elements(16), (&mut x, 1u32, 16u32)) }
        })?
        .instantiate()?;
    let pending = stream.submit(exec, |s, g| s.launch_graph(&g))?;
    let _parked = guard.park_submission(pending); //~ ERROR E0277
    Ok(())
}
