//! C30 external memory: an import is lent by a guard and cannot outlive it, since it belongs to
//! the context the guard keeps current.
//! Positive twin: `c30_mapped_buffer_freed_before_its_import` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, MemoryHandle, Stack};
use std::os::fd::OwnedFd;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let fd: OwnedFd = std::fs::File::open("/dev/null")?.into();
    // SAFETY: (the program is not meant to compile)
    let memory = unsafe { guard.import_memory(fd, 4096, MemoryHandle::OpaqueFd)? };
    drop(guard); //~ ERROR E0505
    drop(memory);
    Ok(())
}
