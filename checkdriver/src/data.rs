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
//! CUDA arrays and mipmapped arrays' levels keep their bytes here too, at device addresses of
//! their own that no program is handed (`array_created`, `array_bytes`): 2D and 3D copies move
//! their rows. So does virtual memory management's physical memory (`physical_created`): a
//! mapped range's accesses go to the bytes of the physical memory it maps (`mapped`, `pieces`),
//! which every handle of one allocation shares. An access that runs past the end of its allocation is refused and reported as a
//! violation; an address no allocation holds (freed memory, which `check.rs` reports) moves no
//! bytes.

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

/// Performs `access` at `address`, in the pieces a mapped range's bytes lie in (`pieces`): what
/// [`access_block`] answers, `Ok(false)` when no piece was held anywhere.
fn access(address: u64, access: Access<'_>) -> Result<bool, String> {
    let bytes = match &access {
        Access::Read(b) => b.len(),
        Access::Write(b) => b.len(),
        Access::Fill(p, count) => p.len().saturating_mul(*count),
    };
    let pieces = pieces(address, bytes);
    if let [(at, _)] = pieces.as_slice() {
        return access_block(*at, access);
    }
    let mut moved = false;
    let mut done = 0;
    match access {
        Access::Read(buf) => {
            for (at, n) in pieces {
                moved |= access_block(at, Access::Read(&mut buf[done..done + n]))?;
                done += n;
            }
        }
        Access::Write(buf) => {
            for (at, n) in pieces {
                moved |= access_block(at, Access::Write(&buf[done..done + n]))?;
                done += n;
            }
        }
        Access::Fill(pattern, _) => {
            // Mapped ranges are granularity-aligned: a piece holds whole elements.
            for (at, n) in pieces {
                let count = n / pattern.len().max(1);
                moved |= access_block(at, Access::Fill(pattern, count))?;
            }
        }
    }
    Ok(moved)
}

/// Performs `access` at `address`: `Ok(false)` when no allocation holds the address (nothing
/// moved; a read leaves the buffer as it was), an error when it runs past the end of the
/// allocation that holds it.
fn access_block(address: u64, access: Access<'_>) -> Result<bool, String> {
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
        // The pattern once, then what is written so far copied after itself, doubling: a
        // memset of megabytes is a few dozen copies, not one per element (under Miri, which
        // interprets the loop, one per element took minutes for a virtual-memory range).
        Access::Fill(pattern, count) if count > 0 && !pattern.is_empty() => {
            // SAFETY: as above: the first element lies inside the checked range
            // (`bytes = pattern.len() * count > 0`); the pattern is the caller's.
            unsafe { core::ptr::copy_nonoverlapping(pattern.as_ptr(), at, pattern.len()) };
            let mut done = pattern.len();
            while done < bytes {
                let n = done.min(bytes - done);
                // SAFETY: `at..at + done` is written and `at + done..at + done + n` lies inside
                // the checked range (`done + n <= bytes`); the two do not overlap.
                unsafe { core::ptr::copy_nonoverlapping(at, at.wrapping_add(done), n) };
                done += n;
            }
        }
        Access::Fill(..) => {}
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

/// Where the double keeps a CUDA array's bytes (or one level's, of a mipmapped array): an
/// allocation of this module at a device address of its own, which no program is handed; the
/// bytes of one row, and the rows of one slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArrayBytes {
    pub(crate) at: u64,
    pub(crate) row: usize,
    pub(crate) rows: usize,
    /// Bytes per element (`cuMemcpy3DBatchAsync` counts an array's extent in elements).
    pub(crate) element: usize,
}

/// Per array handle (an array, or a level `cuMipmappedArrayGetLevel` handed out), its bytes;
/// per mipmapped array, its levels' bytes.
struct Arrays {
    arrays: BTreeMap<usize, ArrayBytes>,
    mipmapped: BTreeMap<usize, Vec<ArrayBytes>>,
}

static ARRAYS: Mutex<Arrays> = Mutex::new(Arrays {
    arrays: BTreeMap::new(),
    mipmapped: BTreeMap::new(),
});

fn arrays() -> std::sync::MutexGuard<'static, Arrays> {
    ARRAYS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The bytes of an element of `format` (`CUarray_format`), for `channels` channels; `None` for
/// a block-compressed or unknown format (the double keeps no bytes for those).
pub(crate) fn element_bytes(format: u32, channels: u32) -> Option<usize> {
    let one = match format {
        0x01 | 0x08 => 1,        // UNSIGNED_INT8, SIGNED_INT8
        0x02 | 0x09 | 0x10 => 2, // UNSIGNED_INT16, SIGNED_INT16, HALF
        0x03 | 0x0a | 0x20 => 4, // UNSIGNED_INT32, SIGNED_INT32, FLOAT
        _ => return None,
    };
    usize::try_from(channels)
        .ok()
        .filter(|c| (1..=4).contains(c))
        .map(|c| one * c)
}

/// New bytes for an array of `width` elements of `element` bytes, `height` rows (0: one) and
/// `depth` slices (0: one).
fn array_bytes_made(width: usize, height: usize, depth: usize, element: usize) -> ArrayBytes {
    let row = width.saturating_mul(element);
    let rows = height.max(1);
    let size = row.saturating_mul(rows).saturating_mul(depth.max(1));
    let at = crate::handles::device_address(size);
    allocated(at, size);
    ArrayBytes {
        at,
        row,
        rows,
        element,
    }
}

/// Array `h` was made (`cuArray3DCreate`): its bytes, zeroed, in checking mode.
pub(crate) fn array_created(h: usize, [width, height, depth]: [usize; 3], element: usize) {
    if CHECK.load(Relaxed) {
        let bytes = array_bytes_made(width, height, depth, element);
        arrays().arrays.insert(h, bytes);
    }
}

/// Mipmapped array `h` was made with `levels` levels: each level's bytes, level `l` of
/// `max(1, d >> l)` elements along each of the descriptor's dimensions (0 stays 0), except a
/// layered array's depth, its number of layers, which every level keeps.
pub(crate) fn mipmapped_created(
    h: usize,
    [width, height, depth]: [usize; 3],
    element: usize,
    levels: u32,
    layered: bool,
) {
    if CHECK.load(Relaxed) {
        let shrink = |d: usize, l: u32| if d == 0 { 0 } else { (d >> l).max(1) };
        let shrink_depth = |l: u32| if layered { depth } else { shrink(depth, l) };
        let made = (0..levels.max(1))
            .map(|l| {
                array_bytes_made(
                    shrink(width, l),
                    shrink(height, l),
                    shrink_depth(l),
                    element,
                )
            })
            .collect();
        arrays().mipmapped.insert(h, made);
    }
}

/// `level` of mipmapped array `mip` was handed out as array handle `h`: the level's bytes.
pub(crate) fn level_taken(h: usize, mip: usize, level: u32) {
    let mut a = arrays();
    let bytes = a
        .mipmapped
        .get(&mip)
        .and_then(|levels| levels.get(usize::try_from(level).ok()?))
        .copied();
    if let Some(bytes) = bytes {
        a.arrays.insert(h, bytes);
    }
}

/// Array `h` (or mipmapped array `h`, with its levels) was destroyed: its bytes go.
pub(crate) fn array_destroyed(h: usize) {
    let gone: Vec<ArrayBytes> = {
        let mut a = arrays();
        let mut gone: Vec<ArrayBytes> = a.arrays.remove(&h).into_iter().collect();
        if let Some(levels) = a.mipmapped.remove(&h) {
            a.arrays.retain(|_, b| !levels.contains(b));
            gone.extend(levels);
        }
        gone
    };
    for b in gone {
        freed(b.at);
    }
}

/// The bytes of array handle `h` (an array, or a level of a mipmapped array), where the double
/// keeps them.
pub(crate) fn array_bytes(h: usize) -> Option<ArrayBytes> {
    arrays().arrays.get(&h).copied()
}

/// Physical memory of virtual memory management (`cuMemCreate`) and where it is mapped: each
/// physical allocation's bytes are an allocation here at a device address of its own, shared
/// by every handle of it (an import, in this process, of an export of it) and kept while a
/// handle, a mapping or an export holds it; a mapped range's accesses go to the bytes of the
/// physical memory it maps.
#[derive(Default)]
struct Physical {
    /// Per physical allocation handle, where its bytes are.
    handles: BTreeMap<u64, u64>,
    /// Per physical allocation's bytes, how many handles, mappings and exports hold them.
    holds: BTreeMap<u64, usize>,
    /// Per mapped range's start: its size, and where in the physical memory's bytes it begins.
    mapped: BTreeMap<u64, (u64, u64)>,
}

static PHYSICAL: Mutex<Option<Physical>> = Mutex::new(None);

fn physical<R>(f: impl FnOnce(&mut Physical) -> R) -> R {
    let mut guard = PHYSICAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(guard.get_or_insert_with(Physical::default))
}

/// One more hold on the bytes at `at`.
fn hold(p: &mut Physical, at: u64) {
    *p.holds.entry(at).or_default() += 1;
}

/// One hold fewer on the bytes at `at`: the last one frees them.
fn let_go(p: &mut Physical, at: u64) -> bool {
    match p.holds.get_mut(&at) {
        Some(n) if *n > 1 => {
            *n -= 1;
            false
        }
        Some(_) => {
            p.holds.remove(&at);
            true
        }
        None => false,
    }
}

/// Physical memory `h` of `size` bytes was made (`cuMemCreate`; an import of another process's
/// export): new bytes, zeroed. `shares`: the bytes of an export of this process it imports.
pub(crate) fn physical_created(h: u64, size: usize, shares: Option<u64>) {
    if !CHECK.load(Relaxed) {
        return;
    }
    let at = shares.unwrap_or_else(|| {
        let at = crate::handles::device_address(size);
        allocated(at, size);
        at
    });
    physical(|p| {
        p.handles.insert(h, at);
        hold(p, at);
    });
}

/// Physical memory `h` was exported: its bytes stay while the export may be imported (the
/// double does not see the handle closed); where they are, for the export to name.
pub(crate) fn physical_exported(h: u64) -> Option<u64> {
    physical(|p| {
        let at = p.handles.get(&h).copied()?;
        hold(p, at);
        Some(at)
    })
}

/// Physical memory handle `h` was released (`cuMemRelease`): its bytes go once nothing holds
/// them (a mapping of it keeps them, as the driver frees the memory once it is unmapped).
pub(crate) fn physical_released(h: u64) {
    let gone = physical(|p| {
        let at = p.handles.remove(&h)?;
        let_go(p, at).then_some(at)
    });
    if let Some(at) = gone {
        freed(at);
    }
}

/// `ptr..ptr + size` maps `size` bytes of physical memory `h` from `offset` (`cuMemMap`).
pub(crate) fn mapped(ptr: u64, size: usize, offset: usize, h: u64) {
    physical(|p| {
        if let Some(&at) = p.handles.get(&h) {
            p.mapped.insert(ptr, (size as u64, at + offset as u64));
            hold(p, at);
        }
    });
}

/// The mappings inside `ptr..ptr + size` are gone (`cuMemUnmap`).
pub(crate) fn unmapped(ptr: u64, size: usize) {
    let end = ptr.saturating_add(size as u64);
    let gone: Vec<u64> = physical(|p| {
        let starts: Vec<u64> = p.mapped.range(ptr..end).map(|(&s, _)| s).collect();
        let mut gone = Vec::new();
        for s in starts {
            if let Some((_, target)) = p.mapped.remove(&s) {
                // The physical memory's bytes are those the target lies in.
                let at = p.holds.range(..=target).next_back().map(|(&at, _)| at);
                if let Some(at) = at
                    && let_go(p, at)
                {
                    gone.push(at);
                }
            }
        }
        gone
    });
    for at in gone {
        freed(at);
    }
}

/// The pieces of `len` bytes at `address`: each the address its bytes are kept at (a mapped
/// range's are its physical memory's) and its length, in order.
fn pieces(address: u64, len: usize) -> Vec<(u64, usize)> {
    physical(|p| {
        if p.mapped.is_empty() {
            return vec![(address, len)];
        }
        let mut out = Vec::new();
        let (mut at, mut left) = (address, len);
        while left > 0 {
            let inside = p
                .mapped
                .range(..=at)
                .next_back()
                .filter(|&(&s, &(size, _))| at - s < size);
            if let Some((&s, &(size, target))) = inside {
                let n = usize::try_from(s + size - at).map_or(left, |n| n.min(left));
                out.push((target + (at - s), n));
                at += n as u64;
                left -= n;
            } else {
                out.push((at, left));
                left = 0;
            }
        }
        out
    })
}
