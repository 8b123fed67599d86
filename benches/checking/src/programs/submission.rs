//! The program `submission` (C16, C17): owned submissions, payloads of every kind, a join across
//! streams, waits, polls, and one dropped while pending (its drop waits).

use crate::common::{KERNELS, N, N32};
use custack::{Context, LaunchConfig, Result, Stack};

/// Owned submissions: payloads of every kind, a join across streams, waits, polls, and one
/// dropped while pending (its drop waits).
pub(crate) fn submission(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
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
    Ok(out)
}
