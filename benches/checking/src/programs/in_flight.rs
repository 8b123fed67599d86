//! The program `in_flight` (P9, C22): the scenarios of `tests/gpu_in_flight.rs` without their value
//! checks: parked submissions polled, dropped and attached under the wrong context, parked
//! page-locked and registered memory used by another context's scopes.

use crate::common::N;
use custack::{Context, Result, Stack, StackTop};

/// The scenarios of `tests/gpu_in_flight.rs` without their value checks: a
/// parked submission polled under another context, one dropped unwaited there, a parked result
/// attached to the wrong context (refused, freed in its own), parked page-locked and registered
/// memory used by another context's scopes and freed from under it.
pub(crate) fn in_flight(a: &Context, b: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let enqueue = |value: u8| -> Result<_> {
        let stream = ga.stream()?;
        let work = stream.submit((ga.alloc::<u8>(N)?, vec![0u8; N]), |s, (mut d, h)| {
            s.fill_bytes(&mut d, value)?;
            s.copy_to_host(h, &d)
        })?;
        Ok(ga.park_submission(work))
    };
    let polled = enqueue(1)?;
    let dropped = enqueue(2)?;
    let mut pinned = ga.park_pinned(ga.alloc_pinned::<u32>(N)?);
    let registered = ga.park_registered(ga.register_vec(vec![5u32; N])?);
    let dev_a = ga.with_pushed(b, |gb| -> Result<_> {
        let mut pending = polled;
        let (dev_a, _host) = loop {
            match pending.try_wait()? {
                Ok(done) => break done,
                Err(again) => pending = again,
            }
        };
        drop(dropped); // waits for A's event from B, frees in A
        let mut dev = gb.alloc::<u32>(N)?;
        let stream = gb.stream()?;
        stream.scope(|s| s.copy_to_device(s.bind_mut(&mut dev), &pinned))??;
        stream.scope(|s| s.copy_to_host(&mut pinned, s.bind(&dev)))??;
        pinned.free()?;
        registered.into_vec()?;
        Ok(dev_a)
    })??;
    let refused = ga.with_pushed(b, |gb| gb.attach(dev_a).map(drop))?;
    if refused.is_ok() {
        return Err(custack::Error::from_kind(
            custack::ErrorKind::ContextMismatch,
        ));
    }
    Ok(())
}
