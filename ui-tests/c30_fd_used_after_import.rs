//! C30 external memory: the file descriptor is moved into the import (the driver owns it once
//! the import succeeds, custack closes it when it fails), so it cannot be used, or closed,
//! after.
//! Positive twin: `c30_mapped_buffer_freed_before_its_import` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, MemoryHandle, Stack};
use std::os::fd::{AsRawFd, OwnedFd};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let fd: OwnedFd = std::fs::File::open("/dev/null")?.into();
    // SAFETY: (the program is not meant to compile)
    let memory = unsafe { guard.import_memory(fd, 4096, MemoryHandle::OpaqueFd)? };
    println!("{}", fd.as_raw_fd()); //~ ERROR E0382
    drop(memory);
    Ok(())
}
