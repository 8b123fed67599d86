//! C30 external memory: a mapped buffer borrows its import exclusively, so two mappings, both
//! exclusive device memory, cannot reach the same bytes at once.
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
    let first = memory.map_buffer::<f32>(0, 1024)?;
    let second = memory.map_buffer::<f32>(0, 1024)?; //~ ERROR E0499
    drop((first, second));
    Ok(())
}
