//! The program `peer_vmm` (C14): virtual memory across devices, on the one device the double has:
//! pieces made and mapped under one push, lent to guards of two pushes in turn; a borrowed and a
//! shared mapping; two mappings over live ones, and one listing a device twice, refused before
//! the driver.

use custack::{Context, DeviceMemory, DeviceMemoryMut, Result, Stack, StackTop};

/// Virtual memory across devices, on the one device the double has: a range of
/// pieces made and mapped under one push, released right after mapping, lent to guards of two
/// pushes in turn; a borrowed and a shared mapping. (After `tests/gpu_vmm_devices.rs`.)
pub(crate) fn peer_vmm(ctx: &Context) -> Result<Vec<u32>> {
    use custack::Access;
    let device = ctx.device();
    let mut stack = Stack::new()?;
    let (space, pieces, mut table, g) = stack.with_pushed(ctx, |guard| -> Result<_> {
        let g = guard.granularity_on(device)?;
        let pieces = vec![
            guard.create_physical_on(device, g)?,
            guard.create_physical_on(device, g)?,
        ];
        let table = guard.create_physical_on(device, g)?;
        Ok((guard.reserve_multi_device(4 * g)?, pieces, table, g))
    })??;
    let rw = [(device, Access::ReadWrite)];
    let mut striped = space.map_owned::<u32>(0, pieces, &rw)?;
    stack.with_pushed(ctx, |guard| guard.lend_mut(&mut striped)?.fill_u32(1))??;
    // A device listed twice (read-write, then read-only): refused before the driver, whose
    // answer to two entries is not documented.
    let twice = [(device, Access::ReadWrite), (device, Access::Read)];
    match space.map::<u32>(2 * g, [&mut table], &twice) {
        Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
        Err(e) => return Err(e),
        Ok(_) => return Err(crate::common::unexpected("a device listed twice mapped")),
    }
    {
        let mut writer = space.map::<u32>(2 * g, [&mut table], &rw)?;
        stack.with_pushed(ctx, |guard| guard.lend_mut(&mut writer)?.fill_u32(2))??;
    }
    let reader = space.map_read_only::<u32>(3 * g, &[&table], &[device])?;
    // Two mappings that would overlap live ones (`striped` at 0..2g, `reader` at 3g..4g), the
    // second with its first piece on free addresses: each refused before the driver is asked
    // (before, the double reported `cuMemMap: ... overlaps the mapping at ...`).
    crate::common::already_mapped(space.map_read_only::<u32>(g, &[&table, &table], &[device]))?;
    crate::common::already_mapped(space.map_read_only::<u32>(2 * g, &[&table, &table], &[device]))?;
    let mut out = stack.with_pushed(ctx, |guard| guard.lend(&striped)?.to_vec())??;
    out.extend(stack.with_pushed(ctx, |guard| guard.lend_read_only(&reader)?.to_vec())??);
    Ok(out)
}
