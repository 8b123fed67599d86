//! C15 wrong-type arguments: a buffer lent by a guard of another thread cannot be a kernel
//! argument here (it cannot even reach this thread).
//! Positive twin: `c7_parked_buffer_sent_to_another_thread` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let buffer = guard.alloc::<u32>(1024)?;
    let shared = &buffer;
    let ctx = &ctx;
    std::thread::scope(|t| {
        t.spawn(move || -> custack::Result<()> {
            //~^ ERROR E0277
            let mut stack = Stack::new()?;
            let guard = stack.push(ctx)?;
            let stream = guard.stream()?;
            let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n")?;
            let empty_ptr = module.function("empty_ptr")?;
            stream.scope(|s| unsafe {
                s.launch(&empty_ptr, LaunchConfig::for_elements(1), (s.bind(shared),))
            })?
        });
    });
    Ok(())
}
