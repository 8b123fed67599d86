//! The program `submission` (C16, C17): owned submissions, payloads of every kind, a join across
//! streams, waits, polls, and one dropped while pending (its drop waits); a host function's
//! CUDA call refused before the driver (the driver forbids them there).

use crate::common::{KERNELS, N, N32};
use custack::{Context, LaunchConfig, Result, Stack};

/// A context dropped inside a host function, the process's first value left behind: custack
/// makes no call there (neither the destroy nor the lookup of the checking driver's extension,
/// made beforehand, at the host function's enqueue), and the refusal is recorded in the
/// process's orphaned log, which the program's thread can take (the driver's thread's own log
/// it could not).
fn released_in_a_host_function(guard: &custack::PushedGuard<'_, '_>, ctx: &Context) -> Result<()> {
    let extra = Context::new(ctx.device(), custack::ContextFlags::empty())?;
    guard
        .stream()?
        .scope(|s| s.host_fn(move || drop(extra)))??;
    let orphaned = custack::take_orphaned_drop_errors();
    assert!(
        orphaned
            .iter()
            .any(|e| e.kind() == custack::ErrorKind::NotPermitted),
        "submission: the refused release in the orphaned log: {orphaned:?}"
    );
    Ok(())
}

/// Owned submissions: payloads of every kind, a join across streams, waits, polls, and one
/// dropped while pending (its drop waits).
pub(crate) fn submission(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    released_in_a_host_function(&guard, ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let mut pinned = guard.alloc_pinned::<u32>(N)?;
    pinned.fill(5);
    let dev = guard.alloc::<u32>(N)?;
    let first = one.submit((pinned, dev, add), |s, (pinned, mut dev, add)| {
        s.copy_to_device(&mut dev, pinned)?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); `dev` holds `n` elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 1u32, N32)) }
    })?;
    let joint = two.submit_after(first, vec![0u32; N], |s, ((_, dev, _), out)| {
        s.copy_to_host(out, &dev)
    })?;
    let _ = joint.is_complete()?;
    let ((_pinned, dev, _add), out) = match joint.try_wait()? {
        Ok(payload) => payload,
        Err(pending) => pending.wait()?,
    };
    let boxed: Box<[u32]> = vec![0; N].into_boxed_slice();
    let dropped = one.submit((dev, boxed), |s, (dev, boxed)| s.copy_to_host(boxed, &dev))?;
    drop(dropped); // waits, then frees the buffer and the box
    // A host function that asks for a context: the driver forbids CUDA calls there, and custack
    // refuses before the driver (`NotPermitted`). The double counts any call made from inside
    // one as a violation.
    let device = ctx.device();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = std::sync::Arc::clone(&asked);
    one.scope(|s| {
        s.host_fn(move || {
            let made = Context::new(device, custack::ContextFlags::empty()).map(drop);
            *seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) =
                Some(made.map_err(|e| e.kind()));
        })
    })??;
    let asked = asked
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    assert_eq!(
        asked,
        Some(Err(custack::ErrorKind::NotPermitted)),
        "submission: a context made from inside a host function"
    );
    Ok(out)
}
