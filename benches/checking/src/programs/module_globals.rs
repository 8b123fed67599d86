//! The program `module_globals` (C9, C24, R17): module variables, JIT options and logs, a linker,
//! function attributes and occupancy, a typed kernel, the module's function list, a global read
//! while a parked declared kernel of the module may run, header-checked images the driver refuses
//! for holding no code; then a kernel
//! function borrowed by raw handle, its module kept loaded by a parked value.

use crate::common::{KERNELS, N, N32};
use crate::kernels::CountThreads;
use custack::{
    Context, DeviceMemory, DeviceMemoryMut, ErrorKind, LaunchConfig, Result, Stack, StackTop,
};

/// Module variables, JIT options and logs, a linker, function attributes and occupancy, a
/// typed kernel, the module's function list, and a global read while a parked declared kernel
/// of the module may run.
pub(crate) fn module_globals(ctx: &Context) -> Result<u32> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let options = custack::JitOptions {
        optimization_level: Some(3),
        max_registers: Some(32),
        line_info: true,
        ..custack::JitOptions::default()
    };
    let (mut module, _log) = guard.load_ptx_with(KERNELS, &options)?;
    let _ = module.global_address("counters")?;
    let counters = module.global::<u32>("counters")?.to_vec()?;
    module
        .global_mut::<u32>("counters")?
        .copy_from_host(&[0; 4])?;
    let add = module.function("add_u32")?;
    // (param_layout needs driver 12.4: run by `newer`, the double reporting 13.0.)
    let _ = (add.max_threads_per_block()?, add.attributes()?);
    add.set_max_dynamic_shared_mem(0)?;
    add.set_cache_config(custack::CacheConfig::PreferShared)?;
    let _ = (
        add.suggested_block_size(0)?,
        add.suggested_block_size_with(&|block| block as usize * 4)?,
        add.max_active_blocks_per_sm(256, 0)?,
    );
    let typed = module.kernel::<(custack::DevicePtr<u32>, u32, u32)>("add_u32")?;
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    guard.stream()?.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
        unsafe {
            s.launch_kernel(
                &typed,
                LaunchConfig::for_elements(N32),
                (&mut dx, 2u32, N32),
            )
        }
    })??;
    // A typed kernel owned by a submission, with the buffer it writes.
    let (x, _typed) = guard
        .stream()?
        .submit((x, typed), |s, (mut dx, typed)| {
            // SAFETY: as above.
            unsafe {
                s.launch_kernel(
                    &typed,
                    LaunchConfig::for_elements(N32),
                    (&mut dx, 1u32, N32),
                )
            }
        })?
        .wait()?;
    // (module.functions() needs driver 12.4: run by `newer`, the double reporting 13.0.)
    let mut linker = guard.linker(&custack::JitOptions::default())?;
    linker.add_ptx("kernels.ptx", KERNELS)?;
    let (image, _log) = linker.complete()?;
    let _ = image.as_bytes().len();
    let linked = guard.load_linked(&image)?;
    drop(linker);
    linked.unload()?;
    let mut from_file = guard.linker(&custack::JitOptions::default())?;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/kernels.ptx"
    );
    // SAFETY: the fixture is PTX text (the checking driver does not read it).
    unsafe {
        from_file.add_file(
            custack::ffi::CUjitInputType::CU_JIT_INPUT_PTX,
            path.as_ref(),
        )
    }?;
    drop(from_file.complete()?);
    drop(from_file);
    // Binary images that pass custack's header checks but hold no code: the driver refuses a
    // bare ELF header (no machine, no sections) as no image (the H200 run), and a fatbin with
    // nothing past its header as no image too (the H100 run).
    let mut cubin = [0u8; 64];
    cubin[..5].copy_from_slice(b"\x7fELF\x02");
    // SAFETY: an ELF64 header that declares no section and no program header beyond itself.
    let loaded = unsafe { guard.load_cubin(&cubin) }.map(drop);
    refused_image(loaded, &[ErrorKind::InvalidImage])?;
    let mut fatbin = [0u8; 16];
    fatbin[..4].copy_from_slice(&0xBA55_ED50u32.to_le_bytes());
    fatbin[6..8].copy_from_slice(&16u16.to_le_bytes());
    // SAFETY: a fatbin header whose size fields say the image ends with it.
    let loaded = unsafe { guard.load_fatbin(&fatbin) }.map(drop);
    refused_image(loaded, &[ErrorKind::InvalidImage])?;
    // A declared kernel that writes the module's global, launched in a submission that is
    // parked (it parks as `()`): the global is read while the kernel may still run, and the read
    // waits for the context first.
    let count = module.declared::<CountThreads>()?;
    let pending = guard.park_submission(guard.stream()?.submit(count, |s, count| {
        s.run(&count, LaunchConfig::for_elements(256), ())
    })?);
    let after = module.global::<u32>("counters")?.to_vec()?;
    pending.wait()?;
    module.unload()?;
    Ok(counters.iter().sum::<u32>() + after.iter().sum::<u32>() + x.to_vec()?.len() as u32)
}

/// `Ok` if `loaded` is one of the refusals `kinds`; its error if another; an error if the image
/// loaded.
fn refused_image(loaded: Result<()>, kinds: &[ErrorKind]) -> Result<()> {
    match loaded {
        Err(e) if kinds.contains(&e.kind()) => Ok(()),
        Err(e) => Err(e),
        Ok(()) => Err(crate::common::unexpected(
            "an image with no code for the device loaded",
        )),
    }
}

/// A kernel function borrowed by raw handle (`function_from_raw`, as for a module that other
/// code loaded): its module is parked under a first push and kept loaded, by the parked value
/// declared before the second guard, until after that guard is gone.
pub(crate) fn borrowed_function(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let (_kept, raw) = stack.with_pushed(ctx, |g| -> Result<_> {
        let module = g.load_ptx(KERNELS)?;
        let raw = module.function("add_u32")?.as_raw();
        Ok((g.park_module(module), raw))
    })??;
    let guard = stack.push(ctx)?;
    // SAFETY: `raw` is `add_u32` of a module loaded in this context, which `_kept` keeps
    // loaded until after `guard` (declared after it) is dropped.
    let add = unsafe { guard.function_from_raw(raw) };
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    guard.stream()?.scope(|s| {
        let dx = s.bind_mut(&mut x);
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (dx, 1u32, N32)) }
    })??;
    x.to_vec() // then `x`, `add` and `guard` drop, and `_kept` after them
}
