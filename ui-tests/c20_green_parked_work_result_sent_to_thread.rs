//! C20 context-independent code (green half): what a green context's parked submission hands
//! back keeps the context's kind: its device memory is a `!Send` `ParkedBuffer<'_, _, Green>`,
//! which cannot be dropped (pushing the green context) on another thread.
//! Positive twin: `p9_two_green_contexts_in_flight` in `tests/gpu_green.rs`.
use custack::{Driver, GreenContext, Stack};

fn main() -> Result<(), custack::Error> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let green = GreenContext::new(&split.groups[0])?;
    let mut stack = Stack::new()?;
    let pending = {
        let guard = stack.push_green(&green)?;
        let stream = guard.stream()?;
        let work = stream.submit((guard.alloc::<u32>(16)?,), |s, (mut x,)| s.fill_bytes(&mut x, 1))?;
        guard.park_submission(work)
    };
    let (buffer,) = pending.wait()?;
    std::thread::scope(|t| {
        t.spawn(move || drop(buffer)); //~ ERROR E0277
    });
    Ok(())
}
