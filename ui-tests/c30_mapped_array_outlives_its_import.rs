//! C30 external memory: a mipmapped array mapped onto imported memory cannot outlive the import,
//! since `cuDestroyExternalMemory` must come after the array's `cuMipmappedArrayDestroy`.
//! Positive twin: `c30_mapped_buffer_freed_before_its_import` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, MemoryHandle, Stack};
use std::os::fd::OwnedFd;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let fd: OwnedFd = std::fs::File::open("/dev/null")?.into();
    // SAFETY: (the program is not meant to compile)
    let mut memory = unsafe { guard.import_memory(fd, 1 << 20, MemoryHandle::OpaqueFd)? };
    let array = memory.map_mipmapped_array::<f32>(0, [64, 64, 0], 2)?;
    drop(memory); //~ ERROR E0505
    drop(array);
    Ok(())
}
