//! C14 no aliasing: physical memory imported from another process (`import_physical`) is
//! physical memory like any, so it cannot back two writable mappings at once either (a writable
//! mapping borrows each allocation behind it exclusively).
//! Positive twin: `c14_vmm_imported_mappings` in `tests/patterns.rs` (one writable mapping of
//! the imported allocation, dropped, then shared read-only mappings).
use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let g = guard.allocation_granularity()?;
    let exported = guard.create_physical_exportable(g, custack::HandleType::PosixFileDescriptor)?;
    let mut imported = guard.import_physical(exported.export_fd()?, g)?;
    let (r1, r2) = (guard.reserve(g)?, guard.reserve(g)?);
    let mut m1 = r1.map::<u32, _>(&guard, [&mut imported])?;
    let m2 = r2.map::<u32, _>(&guard, [&mut imported])?; //~ ERROR E0499
    m1.fill_u32(7)?;
    drop(m2);
    Ok(())
}
