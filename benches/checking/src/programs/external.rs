//! The program `external`: memory and a timeline semaphore imported from file descriptors (a
//! `memfd` each: the double backs imported memory with any file of the size imported), a buffer
//! mapped onto the memory and filled in a scope that signals and waits on the semaphore, read
//! back, then a mipmapped array mapped onto the same import, and one mapped with each
//! `MappedArrayFlags` (a surface over a level is refused by custack, before the driver, for one
//! mapped without `SURFACE_LDST`, which the double would report; a layered one's level copies
//! keep every layer); arrays whose levels, packed, run past the import's end refused by custack
//! before the driver; everything released in the order the driver needs (the buffer and the
//! arrays before their import). A dma-buf import is refused
//! (`NotSupported`, as outside Tegra) with its descriptor closed by custack. Contract rows C30,
//! C31; under the failing runs, R10 (each import failed once: its descriptor closed once).
//! Not run on the real driver (a memfd is no opaque fd another API exported).

use crate::common::{N, unexpected};
use custack::{
    Context, Deadline, DeviceMemory, ErrorKind, ExternalMemory, MappedArrayFlags, MemoryHandle,
    Overrun, PushedGuard, Result, Stack, Timeline,
};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// A `memfd` of `size` bytes.
pub(crate) fn memfd(size: u64) -> Result<OwnedFd> {
    // SAFETY: a NUL-terminated name and no flags; the result is checked before it is owned.
    let fd = unsafe { libc::memfd_create(c"custack-external".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(unexpected("memfd_create failed"));
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let len = libc::off_t::try_from(size).map_err(|_| unexpected("memfd size"))?;
    // SAFETY: an open descriptor of this process's.
    if unsafe { libc::ftruncate(owned.as_raw_fd(), len) } != 0 {
        return Err(unexpected("ftruncate of the memfd failed"));
    }
    Ok(owned)
}

/// Whether `fd` is open in this process.
fn is_open(fd: RawFd) -> bool {
    // SAFETY: `F_GETFD` reads the descriptor's flags, or fails with `EBADF`; nothing changes.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

/// Maps a 8 × 8 mipmapped array of 4 slices or layers, 2 levels, with each flag: a surface over
/// level 1 only with `SURFACE_LDST` (refused by custack otherwise: `InvalidValue`, no driver
/// call, so the double reports nothing), and level 1 copied both ways, of 4 layers if layered
/// (4 × 4 × 4 elements) and of 2 slices if not (4 × 4 × 2).
fn mapped_with_each_flag<K: custack::ContextKind>(
    guard: &PushedGuard<'_, '_, K>,
    memory: &mut ExternalMemory<'_>,
) -> Result<()> {
    use MappedArrayFlags as F;
    for flags in [
        F::SURFACE_LDST,
        F::SURFACE_LDST | F::COLOR_ATTACHMENT,
        F::COLOR_ATTACHMENT,
        F::LAYERED,
        F::LAYERED | F::SURFACE_LDST,
        F::LAYERED | F::COLOR_ATTACHMENT,
        F::empty(),
    ] {
        let mut array = memory.map_mipmapped_array_with::<f32>(0, [8, 8, 4], 2, flags)?;
        match guard.surface_level(&mut array, 1) {
            Ok(surface) if flags.contains(F::SURFACE_LDST) => drop(surface),
            Err(e) if !flags.contains(F::SURFACE_LDST) && e.kind() == ErrorKind::InvalidValue => {}
            Ok(_) => {
                return Err(unexpected(
                    "a surface over an array mapped without SURFACE_LDST",
                ));
            }
            Err(e) => return Err(e),
        }
        let depth: u16 = if flags.contains(F::LAYERED) { 4 } else { 2 };
        if array.level_extent(1)? != [4, 4, usize::from(depth)] {
            return Err(unexpected("level 1's extent"));
        }
        let elements: Vec<f32> = (0..4 * 4 * depth).map(f32::from).collect();
        array.copy_level_from_host(1, &elements)?;
        if array.level_to_vec(1)? != elements {
            return Err(unexpected(
                "a mapped level did not read back what was written",
            ));
        }
    }
    // Flags custack does not name (a cubemap, 0x04): refused before the driver.
    match memory.map_mipmapped_array_with::<f32>(0, [8, 8, 6], 1, F::from_bits_retain(0x04)) {
        Err(e) if e.kind() == ErrorKind::InvalidValue => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected("a cubemap mapped")),
    }
}

/// Arrays whose levels, packed, do not fit between their offset and the end of the `size`-byte
/// import: refused by custack before the driver (`InvalidValue`; the double reports any that
/// reaches it). (One that fits packed but not as the driver lays it out is the driver's to
/// refuse, which the double's own test shows.) A 64 × 64 array of `f32` is the whole import: it fits at offset 0, not at 4; two levels of it
/// do not fit at 0; one element at the last byte does not fit.
fn mapped_past_the_import(memory: &mut ExternalMemory<'_>, size: u64) -> Result<()> {
    drop(memory.map_mipmapped_array::<f32>(0, [64, 64, 1], 1)?);
    let past: [(u64, [usize; 3], u32); 4] = [
        (4, [64, 64, 1], 1),
        (0, [64, 64, 1], 2),
        (size - 1, [1, 1, 1], 1),
        (0, [1 << 40, 1 << 30, 1], 1),
    ];
    for (offset, extent, levels) in past {
        match memory.map_mipmapped_array::<f32>(offset, extent, levels) {
            Err(e) if e.kind() == ErrorKind::InvalidValue => {}
            Err(e) => return Err(e),
            Ok(_) => return Err(unexpected("an array mapped past the end of its import")),
        }
    }
    Ok(())
}

/// Imports, maps, fills and reads back, signals and waits, maps an array, releases; returns
/// what the mapped buffer read back (`N` fives).
pub(crate) fn external(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let size = 16 * 1024;
    // A dma-buf: refused, and its descriptor closed by custack (the driver took nothing).
    let dmabuf = memfd(size)?;
    let raw = dmabuf.as_raw_fd();
    // SAFETY: a memfd of `size` bytes that nothing else touches.
    match unsafe { guard.import_memory(dmabuf, size, MemoryHandle::DmaBuf) } {
        Err(e) if e.kind() == ErrorKind::NotSupported => {}
        Err(e) => return Err(e),
        Ok(_) => return Err(unexpected("a dma-buf imported")),
    }
    if is_open(raw) {
        return Err(unexpected("the refused dma-buf's descriptor is still open"));
    }
    // SAFETY: as above; the double backs the import with the memfd.
    let mut memory = unsafe { guard.import_memory(memfd(size)?, size, MemoryHandle::OpaqueFd)? };
    let semaphore = guard.import_semaphore::<Timeline>(memfd(0)?)?;
    let stream = guard.stream()?;
    let read = {
        let mut buffer = memory.map_buffer::<u32>(0, N)?;
        // Past it (a lost device's work never ends) the process takes the safe state: well
        // within the checking run's 60 s limit, far beyond the double's instant work.
        let deadline = Deadline::after(Duration::from_secs(10));
        stream.scope_by(deadline, Overrun::Exit, |s| -> Result<()> {
            s.signal_semaphore(&semaphore, 1)?;
            s.wait_semaphore(&semaphore, 1)?;
            s.fill_u32(s.bind_mut(&mut buffer), 5)?;
            s.signal_semaphore(&semaphore, 2)
        })??;
        buffer.to_vec()?
    };
    let array = memory.map_mipmapped_array::<f32>(0, [16, 16, 1], 2)?;
    drop(array);
    mapped_with_each_flag(&guard, &mut memory)?;
    mapped_past_the_import(&mut memory, size)?;
    drop(semaphore);
    drop(memory);
    if read != vec![5; N] {
        return Err(unexpected(
            "the mapped buffer did not read back what was written",
        ));
    }
    Ok(read)
}
