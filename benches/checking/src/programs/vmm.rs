//! The program `vmm` (C14, C21): virtual memory management, a reservation filled, then grown by
//! mapping a second physical allocation, copies and memsets on the mapping and a view of it, a
//! read-only mapping shown twice; everything unmapped, released and freed on drop; a second
//! mapping over a live one and over a leaked one, refused before the driver; and a mapping
//! leaked, whose reservation is then left behind, not freed under it (R9).

use crate::common::N;
use custack::{Context, DeviceMemory, DeviceMemoryMut, Result, Stack};

/// Virtual memory management: a reservation filled, then grown by mapping a second physical
/// allocation after the first (unmapped and mapped again), copies and memsets on the mapping and
/// on a view of it in a scope, and a read-only mapping shown twice; everything unmapped,
/// released and freed on drop.
pub(crate) fn vmm(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let g = guard.allocation_granularity()?;
    let space = guard.reserve(4 * g)?;
    let mut first = guard.create_physical(g)?;
    {
        let mut small = space.map::<u32, _>(&guard, [&mut first])?;
        small.fill_u32(7)?;
    }
    let mut second = guard.create_physical(g)?;
    let stream = guard.stream()?;
    let host = vec![1u32; N];
    let mut out = vec![0u32; N];
    {
        let mut grown = space.map::<u32, _>(&guard, [&mut first, &mut second])?;
        let mut head = grown.slice_mut(..N)?;
        stream.scope(|s| -> Result<()> {
            let mut d = s.bind_mut(&mut head);
            s.copy_to_device(&mut d, &host)?;
            s.fill_u32(&mut d, 2)?;
            s.copy_to_host(&mut out, &d)
        })??;
        grown.fill_bytes(0)?;
    }
    let table = guard.reserve(2 * g)?;
    let shared = table.map_read_only::<u32, _>(&guard, &[&first, &first])?;
    // A second mapping of a reservation while one lives (all start at its base): refused
    // before the driver is asked (before, the double reported `cuMemMap: ... overlaps the
    // mapping at ...`; found by review).
    crate::common::already_mapped(table.map_read_only::<u32, _>(&guard, &[&first]))?;
    let mut back = shared.slice(..N)?.to_vec()?;
    drop(shared);
    // A mapping leaked (`mem::forget` ends its borrows without unmapping): its reservation is
    // left behind with it, not freed under it (before the fix the double reported
    // `cuMemAddressFree: ... freed while ... is mapped in it`).
    let leaky = guard.reserve(g)?;
    let mut third = guard.create_physical(g)?;
    core::mem::forget(leaky.map::<u32, _>(&guard, [&mut third])?);
    // The leaked mapping still holds its range: a new one there is refused too.
    crate::common::already_mapped(leaky.map::<u32, _>(&guard, [&mut third]))?;
    drop(third);
    drop(leaky);
    back.extend_from_slice(&out);
    Ok(back)
}
