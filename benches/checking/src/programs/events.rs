//! The program `events`: timing and non-timing events recorded on streams, in a scope and on the
//! context's null stream, waited for by streams and the context, queried, timed and destroyed. No
//! row of its own: R10.

use crate::common::N;
use custack::{Context, EventFlags, Result, Stack};

/// Events: timing and non-timing events recorded on streams, in a scope and on the context's
/// null stream, waited for by streams and the context, queried, timed and destroyed.
pub(crate) fn events(ctx: &Context) -> Result<f32> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let (one, two) = (guard.stream()?, guard.stream_with_priority(0)?);
    let (start, end) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );
    let done = guard.event(EventFlags::BLOCKING_SYNC | EventFlags::DISABLE_TIMING)?;
    let mut dev = guard.alloc::<u32>(N)?;
    let mut pinned = guard.alloc_pinned::<u32>(N)?;
    one.record(&start)?;
    one.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut dev);
        s.fill_u32(&mut d, 1)?;
        s.copy_to_host(&mut pinned, &d)?;
        s.record(&done)
    })??;
    one.record(&end)?;
    two.wait(&done)?;
    two.scope(|s| -> Result<()> {
        s.wait(&done)?;
        let mut d = s.bind_mut(&mut dev);
        s.fill_bytes(&mut d, 0)
    })??;
    // (guard.record_event/wait_event need driver 12.5: run by `newer`, the double reporting 13.0.)
    let _ = (done.is_complete()?, one.is_complete()?, one.priority()?);
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)?;
    done.destroy()?;
    two.synchronize()?;
    two.destroy()?;
    drop(guard.park_stream(one)); // a parked stream dropped: destroyed in its own context
    Ok(ms)
}
