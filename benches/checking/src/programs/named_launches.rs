//! The program `named_launches` (R20): launches named (`name_launches(true)`): where a sticky fault
//! poisons the process, the poison's text names the first launch never marked complete (the
//! declared kernel's name, or "a raw launch").

use crate::common::{KERNELS, N, N32, unexpected};
use crate::kernels::AddU32;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Result, Stack, StandIn};

/// Launches named (`name_launches(true)`, R20's origin): a declared kernel's stand-in launched
/// twice and a raw launch of the same function, each followed by the host function that marks
/// it complete. Clean, the result is the CPU's. Where a schedule's sticky fault poisons the
/// process, the poison's text carries its origin, and the first named launch never marked
/// complete, where there is one: the declared kernel's name, or "a raw launch".
pub(crate) fn named_launches() -> Result<()> {
    let outcome = named_launches_run();
    if let Some(poison) = custack::poisoned() {
        let text = poison.to_string();
        let origin = poison.origin();
        assert!(
            origin.is_some(),
            "named_launches: the poison has no origin: {text}"
        );
        if let Some(launch) = origin.and_then(custack::Origin::unfinished_launch) {
            let named = match launch.kernel() {
                Some(kernel) => format!("`{kernel}` launched at {}", launch.call_site()),
                None => format!("a raw launch at {}", launch.call_site()),
            };
            assert!(
                text.contains(&format!("the first launch that never completed: {named}")),
                "named_launches: {text}"
            );
        }
    }
    outcome
}

fn named_launches_run() -> Result<()> {
    custack::name_launches(true)?;
    let driver = Driver::init()?;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n): the result below is the
    // CPU's whenever every call succeeded.
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&driver, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            for e in &mut v {
                *e += k;
            }
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let raw = module.function("add_u32")?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(N)?;
    // The declared kernel in a submission, whose wait returns a sticky error (a scope's end
    // takes the safe state instead): the program then reads the poison's unfinished launch.
    let cfg = LaunchConfig::for_elements(N32);
    let (mut x, _) = stream
        .submit((guard.alloc::<u32>(N)?, add), |s, (mut dx, add)| {
            s.fill_u32(&mut dx, 1)?;
            s.run(&add, cfg, (&mut dx, 2u32, N32))?;
            s.run(&add, cfg, (&mut dx, 3u32, N32))
        })?
        .wait()?;
    stream.scope(|s| -> Result<()> {
        let mut dx = s.bind_mut(&mut x);
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`, and
        // `dx` holds `n` elements.
        unsafe { s.launch(&raw, cfg, (&mut dx, 4u32, N32))? };
        s.copy_to_host(&mut host, &dx)
    })??;
    custack::name_launches(false)?;
    match host.iter().position(|&v| v != 10) {
        None => Ok(()),
        Some(i) => Err(unexpected(&format!(
            "named_launches: element {i} is {}, expected 10",
            host[i]
        ))),
    }
}
