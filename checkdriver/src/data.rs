//! Device memory that holds data, in checking mode: each device allocation and module variable
//! the double hands out is backed by host memory (zeroed, made on first touch), so copies move
//! real bytes, memsets set them, and a kernel's CPU stand-in (`standin.rs`) reads and writes
//! them. Managed memory is its own host memory, at the device address.
//!
//! The device addresses stay the double's fake ones (handles without provenance); the bytes
//! live here, keyed by each allocation's start. Work runs at once, in issue order, so that a
//! copy, a memset and a launch on one stream see each other's results as on a device; the host
//! side of an asynchronous copy to the host is written when the copy completes (`check.rs`).
//!
//! An access that runs past the end of its allocation is refused and reported as a violation;
//! an address no allocation holds (freed memory, which `check.rs` reports, or memory the double
//! does not back: IPC, virtual memory management, peer copies) moves no bytes.

use crate::mode::CHECK;
use core::sync::atomic::Ordering::Relaxed;
use std::collections::BTreeMap;
use std::sync::Mutex;

enum Backing {
    /// Made on first touch (zeroed); `None` until then, and for a size the host cannot hold.
    Owned(Option<Box<[u8]>>),
    /// Managed memory: host memory the program also reaches at the device address.
    Host(*mut u8),
}

struct Block {
    size: usize,
    backing: Backing,
}

// SAFETY: a `Host` pointer is managed memory the double allocated and frees only after removing
// it here; it is used only under the lock, as the device would use it, from any thread.
unsafe impl Send for Block {}

static MEMORY: Mutex<BTreeMap<u64, Block>> = Mutex::new(BTreeMap::new());

fn memory() -> std::sync::MutexGuard<'static, BTreeMap<u64, Block>> {
    MEMORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The largest allocation backed by host memory (a larger one moves no bytes).
const MAX_BACKED: usize = 1 << 32;

/// Device memory `start..start + size` was allocated.
pub(crate) fn allocated(start: u64, size: usize) {
    if CHECK.load(Relaxed) {
        memory().insert(
            start,
            Block {
                size,
                backing: Backing::Owned(None),
            },
        );
    }
}

/// Managed memory `ptr` (its address is `start`) of `size` bytes was allocated.
pub(crate) fn managed(start: u64, ptr: *mut u8, size: usize) {
    if CHECK.load(Relaxed) {
        memory().insert(
            start,
            Block {
                size,
                backing: Backing::Host(ptr),
            },
        );
    }
}

/// The allocation starting at `start` was freed (or died with its module or context).
pub(crate) fn freed(start: u64) {
    if CHECK.load(Relaxed) {
        memory().remove(&start);
    }
}

fn zeroed(size: usize) -> Option<Box<[u8]>> {
    if size == 0 || size > MAX_BACKED {
        return None;
    }
    let layout = std::alloc::Layout::array::<u8>(size).ok()?;
    // SAFETY: `layout` has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` is a fresh, zeroed allocation of `size` bytes made with the global allocator
    // and the layout `Box<[u8]>` of that length uses.
    Some(unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(p, size)) })
}

/// What to do with the bytes at a device address.
enum Access<'a> {
    /// Copy `bytes` from the device into the buffer.
    Read(&'a mut [u8]),
    /// Copy the buffer to the device.
    Write(&'a [u8]),
    /// Fill `count` elements of the pattern's width with the pattern.
    Fill(&'a [u8], usize),
}

/// Performs `access` at `address`: `Ok(false)` when no allocation holds the address (nothing
/// moved; a read leaves the buffer as it was), an error when it runs past the end of the
/// allocation that holds it.
fn access(address: u64, access: Access<'_>) -> Result<bool, String> {
    let bytes = match &access {
        Access::Read(b) => b.len(),
        Access::Write(b) => b.len(),
        Access::Fill(p, count) => p.len().saturating_mul(*count),
    };
    let mut mem = memory();
    let Some((&start, block)) = mem.range_mut(..=address).next_back() else {
        return Ok(false);
    };
    if address - start >= block.size as u64 {
        return Ok(false);
    }
    let offset = (address - start) as usize;
    if offset.checked_add(bytes).is_none_or(|end| end > block.size) {
        return Err(format!(
            "{bytes} bytes at {address:#x} run past the end of the allocation at {start:#x} ({} bytes)",
            block.size
        ));
    }
    if bytes == 0 {
        return Ok(true);
    }
    let base: *mut u8 = match &mut block.backing {
        Backing::Host(p) => *p,
        Backing::Owned(b) => {
            if b.is_none() {
                *b = zeroed(block.size);
            }
            match b {
                Some(b) => b.as_mut_ptr(),
                None => return Ok(false),
            }
        }
    };
    // SAFETY: `offset + bytes <= size` (checked above) and `base` points to `size` bytes: the
    // block's own buffer, or managed memory of that size, live while it is in the map (the
    // lock is held).
    let at = unsafe { base.add(offset) };
    match access {
        // SAFETY: as above; the buffers are the caller's, distinct from the block's memory
        // (a stand-in gets copies, never the block's memory itself).
        Access::Read(buf) => unsafe {
            core::ptr::copy_nonoverlapping(at, buf.as_mut_ptr(), bytes);
        },
        // SAFETY: as above.
        Access::Write(buf) => unsafe {
            core::ptr::copy_nonoverlapping(buf.as_ptr(), at, bytes);
        },
        Access::Fill(pattern, count) => {
            for i in 0..count {
                // SAFETY: as above: element `i` lies inside the checked range.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        pattern.as_ptr(),
                        at.wrapping_add(i * pattern.len()),
                        pattern.len(),
                    );
                }
            }
        }
    }
    Ok(true)
}

/// Reads `buf.len()` device bytes at `address` into `buf`; see [`access`].
pub(crate) fn read(address: u64, buf: &mut [u8]) -> Result<bool, String> {
    access(address, Access::Read(buf))
}

/// Writes `buf` to the device at `address`; see [`access`].
pub(crate) fn write(address: u64, buf: &[u8]) -> Result<bool, String> {
    access(address, Access::Write(buf))
}

/// Sets `count` elements of `pattern`'s width at `address` to `pattern`; see [`access`].
pub(crate) fn fill(address: u64, pattern: &[u8], count: usize) -> Result<bool, String> {
    access(address, Access::Fill(pattern, count))
}

/// Copies `bytes` device bytes from `src` to `dst`.
pub(crate) fn copy(dst: u64, src: u64, bytes: usize) -> Result<(), String> {
    let mut buf = vec![0; bytes];
    if read(src, &mut buf)? {
        write(dst, &buf)?;
    }
    Ok(())
}

/// The `bytes` device bytes at `address`, for a copy to the host (`None`: not backed here, the
/// copy moves no bytes).
pub(crate) fn snapshot(address: u64, bytes: usize) -> Result<Option<Vec<u8>>, String> {
    let mut buf = vec![0; bytes];
    Ok(read(address, &mut buf)?.then_some(buf))
}

/// Copies `bytes` host bytes at `src` to the device at `dst`.
///
/// # Safety
/// `src` is null or valid for reading `bytes` bytes.
pub(crate) unsafe fn from_host(dst: u64, src: *const u8, bytes: usize) -> Result<(), String> {
    if src.is_null() || bytes == 0 {
        return Ok(());
    }
    let mut buf = vec![0; bytes];
    // SAFETY: the caller's; `buf` is a fresh buffer of `bytes` bytes.
    unsafe { core::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), bytes) };
    write(dst, &buf).map(drop)
}

/// Copies `bytes` device bytes at `src` to the host at `dst`; `false` when no allocation holds
/// `src` (nothing written).
///
/// # Safety
/// `dst` is null or valid for writing `bytes` bytes.
pub(crate) unsafe fn to_host(dst: *mut u8, src: u64, bytes: usize) -> Result<bool, String> {
    if dst.is_null() || bytes == 0 {
        return Ok(true);
    }
    match snapshot(src, bytes)? {
        Some(buf) => {
            // SAFETY: the caller's.
            unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), dst, bytes) };
            Ok(true)
        }
        None => Ok(false),
    }
}
