//! The program `newer` (the double reporting 13.0): every looked-up entry point of 13.0 or older
//! found (and the newer `cuFuncGetParamCount` not); a module's functions enumerated and named;
//! kernels checked against `cuFuncGetParamInfo`; context-wide events; a context made with an
//! SM-count affinity (`cuCtxCreate_v4`), or refused where the device has none. No row of its own:
//! R10.

use crate::common::{KERNELS, N, N32, unexpected};
use crate::double::calls_seen;
use crate::kernels::{AddU32, AddU32Wide};
use custack::{
    Context, ContextFlags, DeviceMemory, Driver, EventFlags, LaunchConfig, PushedGuard, Result,
    Stack,
};

/// The double reporting 13.0: every looked-up entry point of 13.0 or older found (and the newer
/// `cuFuncGetParamCount` not); a module's functions
/// enumerated and named; kernels declared and checked against `cuFuncGetParamInfo` (a wrong
/// declaration refused); context-wide events recorded and waited for; a context made with an
/// SM-count affinity (`cuCtxCreate_v4`), refused where the device does not support one (without
/// MPS).
pub(crate) fn newer(ctx: &Context) -> Result<()> {
    let driver = custack::driver_version()?;
    for entry in custack::newer_entry_points() {
        match entry.available {
            Ok(()) if entry.needs > driver => {
                return Err(unexpected("an entry point newer than the driver was found"));
            }
            Err(e) if entry.needs <= driver || e.kind() != custack::ErrorKind::DriverTooOld => {
                return Err(e);
            }
            _ => {}
        }
    }
    let mut stack = Stack::new()?;
    newer_in(&stack.push(ctx)?)?;
    // A context limited to 66 SMs, made through the looked-up cuCtxCreate_v4, where the device
    // supports an SM-count affinity (under MPS); refused where it does not (the H200 without
    // MPS, and the double): `UnsupportedExecAffinity`, no context made.
    let device = Driver::init()?.device(0)?;
    match Context::with_sm_count(device, ContextFlags::empty(), 66) {
        Ok(limited) => {
            let guard = stack.push(&limited)?;
            let _ = (
                guard.sm_count_affinity()?,
                guard.alloc_from(&[1u32; 4])?.to_vec()?,
            );
            Ok(())
        }
        Err(e)
            if e.kind() == custack::ErrorKind::UnsupportedExecAffinity
                && !device.supports_sm_count_affinity()? =>
        {
            Ok(())
        }
        Err(e) => Err(e),
    }
}

fn newer_in(guard: &PushedGuard<'_, '_>) -> Result<()> {
    use custack::{CheckedBy, ErrorKind};
    let module = guard.load_ptx(KERNELS)?;
    let names: Vec<String> = module.functions()?.into_iter().map(|(n, _)| n).collect();
    if !names.iter().any(|n| n == "add_u32") {
        return Err(unexpected("add_u32 is not among the module's functions"));
    }
    let add = module.function("add_u32")?;
    // A failed call ends the list early (the driver ends it with an error): an error here.
    if add.param_layout()? != [(0, 8), (8, 4), (12, 4)] {
        return Err(unexpected("add_u32's parameter layout"));
    }
    // Driver 13.0 cannot count parameters; the module's PTX can: one query per parameter,
    // none past the last (which tools reporting API errors would show).
    let info = || calls_seen(|name| name == b"cuFuncGetParamInfo");
    let before = info();
    let declared = module.declared::<AddU32>()?;
    assert_eq!(info() - before, 3, "queries of add_u32's 3 parameters");
    if declared.checked_by() != CheckedBy::ParamInfo {
        return Err(unexpected("not checked by cuFuncGetParamInfo"));
    }
    match module.declared::<AddU32Wide>() {
        Err(e) if e.kind() == ErrorKind::KernelSignatureMismatch => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a declaration disagreeing with cuFuncGetParamInfo was accepted"),
    }
    let typed = module.kernel::<(custack::DevicePtr<u32>, u32, u32)>("add_u32")?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let everything = guard.event(EventFlags::DISABLE_TIMING)?;
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    let work = one.submit((guard.alloc_zeroed::<u32>(N)?,), |s, (mut y,)| {
        s.fill_u32(&mut y, 3)
    })?;
    // After the work of every stream of the context; the other stream's later work waits.
    guard.record_event(&everything)?;
    guard.wait_event(&everything)?;
    two.scope(|s| -> Result<()> {
        let mut dx = s.bind_mut(&mut x);
        let cfg = LaunchConfig::for_elements(N32);
        s.run(&declared, cfg, (&mut dx, 1, N32))?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
        unsafe { s.launch_kernel(&typed, cfg, (&mut dx, 2u32, N32)) }
    })??;
    everything.synchronize()?;
    let (y,) = work.wait()?;
    let _ = (y.to_vec()?, x.to_vec()?);
    Ok(())
}
