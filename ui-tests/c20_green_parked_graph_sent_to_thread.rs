//! C20 context-independent code (green half): a green context's parked graph keeps the
//! context's kind, so it is `!Send`: it cannot be dropped (pushing the green context) or
//! attached on another thread.
//! Positive twin: `p9_two_green_contexts_in_flight` in `tests/gpu_green.rs`.
use custack::{Driver, GreenContext, Stack};

fn main() -> Result<(), custack::Error> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let green = GreenContext::new(&split.groups[0])?;
    let mut stack = Stack::new()?;
    let parked = {
        let guard = stack.push_green(&green)?;
        let stream = guard.stream()?;
        let exec = stream
            .capture((guard.alloc::<u32>(16)?,), |s, (mut x,)| s.fill_bytes(&mut x, 1))?
            .instantiate()?;
        guard.park_graph(exec)
    };
    std::thread::scope(|t| {
        t.spawn(move || drop(parked)); //~ ERROR E0277
    });
    Ok(())
}
