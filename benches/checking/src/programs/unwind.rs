//! The program `unwind`: drops during unwinding, a panic inside a stream scope (bound device
//! memory, host memory in enqueued copies, a stream-ordered allocation alive) and one while a
//! pushed guard and its buffer are alive; each caught, the memory then reused and freed. No row of
//! its own: R10 (every drop path under every failure).

use crate::common::{N, Unwind};
use custack::{Context, Result, Stack, StackTop};

/// Drops during unwinding: a panic inside a stream scope (with bound device memory, page-locked
/// and pageable host memory in enqueued copies, and a stream-ordered allocation alive), and a
/// panic while a pushed guard and its buffer are alive. Each is caught; afterwards the memory
/// is reused, freed, and the stack pushed again.
pub(crate) fn unwind(ctx: &Context) -> Result<()> {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Unwind>() {
            default_hook(info);
        }
    }));
    let caught = |r: std::thread::Result<Result<()>>| -> Result<()> {
        match r {
            Ok(r) => r,
            Err(p) if p.is::<Unwind>() => Ok(()),
            Err(p) => std::panic::resume_unwind(p),
        }
    };
    let mut stack = Stack::new()?;
    caught(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
        || -> Result<()> {
            let guard = stack.push(ctx)?;
            let _buffer = guard.alloc::<u32>(N)?;
            std::panic::panic_any(Unwind)
        },
    )))?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(N)?;
    let mut pinned = guard.alloc_pinned::<u32>(N)?;
    let host = vec![1u32; N];
    caught(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
        || -> Result<()> {
            stream.scope(|s| -> Result<()> {
                let mut d = s.bind_mut(&mut dev);
                s.copy_to_device(&mut d, &host)?;
                s.copy_to_host(&mut pinned, &d)?;
                let _tmp = s.alloc::<u8>(64)?;
                std::panic::panic_any(Unwind)
            })?
        },
    )))?;
    pinned.fill(2); // page-locked memory as a slice, after the unwound scope
    drop(host); // pageable memory handed back
    dev.free()?;
    stream.destroy()?;
    drop(pinned);
    guard.pop()?;
    stack.with_pushed(ctx, |g| g.synchronize())?
}
