//! C30 external memory: the mipmapped array mapped onto imported memory cannot be swapped out of
//! its `MappedArray` (`mem::swap`, `mem::replace`): a `MappedArray` lends the array shared only
//! (no `DerefMut`), so the value whose drop counts the mapping as released is always the one
//! holding the mapped array. With a swap, both arrays would be destroyed, yet the import would
//! still count one mapping and be left behind, never destroyed: a leak no error reported.
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
    let mut own = guard.alloc_mipmapped_array::<f32>(64, 64, 1)?;
    let mut mapped = memory.map_mipmapped_array::<f32>(0, [64, 64, 0], 1)?;
    std::mem::swap(&mut *mapped, &mut own); //~ ERROR E0596
    drop(mapped);
    drop(own);
    Ok(())
}
