//! C30 external memory: a buffer mapped onto imported memory belongs to the context current on
//! this thread (its import borrows the guard), so it cannot be sent to another thread, where
//! its `cuMemFree` would run in whatever context is current there.
//! Positive twin: `c30_mapped_buffer_freed_before_its_import` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, MemoryHandle, Stack};
use std::os::fd::OwnedFd;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let fd: OwnedFd = std::fs::File::open("/dev/null")?.into();
    // SAFETY: (the program is not meant to compile)
    let mut memory = unsafe { guard.import_memory(fd, 4096, MemoryHandle::OpaqueFd)? };
    let buffer = memory.map_buffer::<f32>(0, 1024)?;
    std::thread::scope(|t| {
        t.spawn(move || drop(buffer)); //~ ERROR E0277
    });
    Ok(())
}
