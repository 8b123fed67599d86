//! The program `device_info`: device queries, the primary context (adopted as a context of its own)
//! and the current context's settings. No row of its own: R10.

use custack::{Context, ContextFlags, DeviceMemory, Driver, Result, Stack, StackTop};

/// Device queries, the primary context and the current context's settings.
pub(crate) fn device_info() -> Result<()> {
    let driver = Driver::init()?;
    let _ = (
        driver.version()?,
        driver.device_count()?,
        custack::driver_version()?,
    );
    for device in driver.devices()? {
        let _ = (
            device.name()?,
            device.uuid()?,
            device.pci_bus_id()?,
            device.total_memory()?,
        );
        let _ = (
            device.compute_capability()?,
            device.ordinal(),
            device.supports_sm_count_affinity()?,
        );
        for attribute in [
            custack::DeviceAttribute::MultiprocessorCount,
            custack::DeviceAttribute::ComputeCapabilityMajor,
        ] {
            let _ = device.attribute(attribute)?;
        }
        let _ = device.primary_context_state()?;
        let _ = device.can_access_peer(device)?;
        device.set_primary_context_flags(ContextFlags::SCHED_BLOCKING_SYNC)?;
        let mut primary = Context::primary(device)?;
        let _ = (primary.is_primary(), primary.device());
        primary.reset()?; // no guard of it is alive: `&mut`
        let mut stack = Stack::new()?;
        stack.with_pushed(&primary, |g| -> Result<()> {
            let _ = (g.device()?, g.api_version()?, g.flags()?, g.unique_id()?);
            let _ = (g.stream_priority_range()?, g.cache_config()?);
            g.set_cache_config(g.cache_config()?)?;
            let limit = g.limit(custack::Limit::StackSize)?;
            g.set_limit(custack::Limit::StackSize, limit)?;
            let _ = (g.sm_count_affinity()?, g.memory_info()?);
            g.set_shared_mem_config(g.shared_mem_config()?)?;
            g.reset_persisting_l2_cache()?;
            g.synchronize()
        })??;
        primary.destroy()?;
        adopted_context(&mut stack, device)?;
    }
    Ok(())
}

/// A context made with the raw `cuCtxCreate` and handed to custack (`Context::from_raw`), after
/// `adopted_and_borrowed_contexts` in `tests/gpu_interop.rs`. On a failure before the handover
/// the raw context is destroyed here, so a fault leaks nothing.
fn adopted_context(stack: &mut Stack, device: custack::Device) -> Result<()> {
    use custack::ffi;
    let check = |r: ffi::CUresult| match r {
        ffi::CUresult::CUDA_SUCCESS => Ok(()),
        // A raw call's code, made before custack holds the context; custack's own
        // `CUresult::result` is crate-private.
        #[allow(
            clippy::disallowed_methods,
            reason = "a raw call outside custack's wrappers"
        )]
        code => Err(custack::Error::from_raw(code)),
    };
    let mut raw = core::ptr::null_mut();
    // SAFETY: valid out-pointer; a device of an initialized driver.
    check(unsafe { ffi::cuCtxCreate_v2(&raw mut raw, 0, device.as_raw()) })?;
    let mut popped = core::ptr::null_mut();
    // SAFETY: `cuCtxCreate` pushed `raw` on this thread; valid out-pointer.
    let adopted = check(unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) })
        // SAFETY: a live `cuCtxCreate`d context, on no thread's stack once popped, handed over:
        // nothing else destroys it.
        .and_then(|()| unsafe { Context::from_raw(raw) });
    match adopted {
        Ok(ctx) => {
            stack.with_pushed(&ctx, |g| g.alloc_from(&[3u32; 4])?.to_vec())??;
            ctx.destroy()
        }
        Err(e) => {
            // SAFETY: still ours (not adopted), destroyed once; the double pops it if it is
            // still on top.
            let _ = unsafe { ffi::cuCtxDestroy_v2(raw) };
            Err(e)
        }
    }
}
