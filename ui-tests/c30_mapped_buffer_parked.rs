//! C30 external memory: a buffer mapped onto imported memory cannot be parked (detached from its
//! import to float free of it): parking takes a `DeviceBuffer`, which a `MappedBuffer` is not,
//! so its `cuMemFree` still comes before the import's `cuDestroyExternalMemory`.
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
    let parked = guard.park(buffer); //~ ERROR E0308
    drop(memory);
    drop(parked);
    Ok(())
}
