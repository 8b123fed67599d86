//! The program `managed` (C21): managed memory, host access as slices, advice, a range attribute,
//! prefetches in a scope. (Native runs only: the host sees managed memory at the device address,
//! which Miri's strict provenance refuses.)

use crate::common::{KERNELS, N, N32};
use crate::kernels::AddU32;
use custack::{Context, DeviceMemoryMut, LaunchConfig, Result, Stack};

/// Managed memory: host access as slices, advice, a range attribute, prefetches in a scope.
/// (Native runs only: the host sees managed memory at the device address, an integer, so this
/// program cannot run under Miri's strict provenance.)
pub(crate) fn managed(ctx: &Context) -> Result<u32> {
    use crate::double::counting;
    use custack::Location;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let device = guard.device()?;
    let mut m = guard.alloc_managed::<u32>(N)?;
    m.fill(3);
    m.advise(
        custack::ffi::CUmem_advise::CU_MEM_ADVISE_SET_READ_MOSTLY,
        Location::Device(device),
    )?;
    let _ =
        m.range_attribute(custack::ffi::CUmem_range_attribute::CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    guard.stream()?.scope(|s| -> Result<()> {
        let mut dm = s.bind_mut(&mut m);
        s.prefetch(&dm, Location::Device(device))?;
        s.fill_u32(&mut dm, 4)?;
        // A contract launch on managed memory: bound like device memory, its length checked.
        s.run(&add, LaunchConfig::for_elements(N32), (&mut dm, 0, N32))?;
        s.prefetch(&dm, Location::Host)
    })??;
    // Owned by a submission, then touched on the host again.
    let mut m = guard
        .stream()?
        .submit(m, |s, mut dm| s.fill_u32(&mut dm, 5))?
        .wait()?;
    // A synchronous upload from pageable memory may return once its bytes are staged: with a
    // managed buffer alive it waits for the copy before the host reads it (C21), one
    // `cuStreamSynchronize` of the NULL stream (none before the fix).
    let staged = vec![6u32; N];
    let ((), waited) = counting("cuStreamSynchronize", || m.copy_from_host(&staged))?;
    assert!(
        waited >= 1,
        "managed: a synchronous upload into managed memory returned without waiting for it"
    );
    assert!(m.iter().all(|&v| v == 6), "managed: the upload landed");
    m[0] = 4;
    let sum = m.iter().sum();
    m.free()?;
    Ok(sum)
}
