//! The program `fork_in_scope` (R22; the double reporting 13.0, so that the run phase's batch of
//! copies is found): a child forked after `Profile::init` *inside* an open restricted scope makes
//! no driver call either. The child holds the scope, so it can reach each of the scope's
//! enqueueing calls, the batch of copies (`RestrictedScope::copy_batch`) among them: each must
//! refuse with `ForkedProcess` before the driver is asked; the double counts every call a forked
//! child makes (`forked-calls`, required 0). The parent's scope then enqueues the same work and
//! ends as usual. A second child returns from the closure to the scope's end, whose wait for the
//! stream must be refused the same way (it queried the stream before the fix).

use custack::safety::{RestrictedBuffer, RestrictedStream};
use custack::{ErrorKind, PinnedBuffer, Result, Stack};

/// Forks inside a restricted scope; the child tries every enqueueing call of the scope, then
/// exits without returning to the scope's end (0, or 4 naming what was not refused: the parent
/// then fails).
pub(crate) fn fork_in_scope() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext};
    let profile = Profile::init(1)?;
    let budget = Budget::page_locked(4096)
        .device_bytes(4096)
        .streams(1)
        .events(1);
    let device = profile.device(0)?;
    let mut ctx = RestrictedContext::new(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    {
        let init = guard.init()?;
        let stream = init.stream()?;
        let event = init.event()?;
        // One buffer per exclusive binding (a binding lasts the whole scope): the child's four
        // destinations, the parent's two, and a source all share.
        let a = init.alloc::<f32>(64)?;
        let mut w = [
            init.alloc::<f32>(64)?,
            init.alloc::<f32>(64)?,
            init.alloc::<f32>(64)?,
            init.alloc::<f32>(64)?,
        ];
        let (mut p0, mut p1) = (init.alloc::<f32>(64)?, init.alloc::<f32>(64)?);
        let pinned = init.alloc_pinned::<f32>(64)?;
        let mut pinned_out = init.alloc_pinned::<f32>(64)?;
        let copies = init.batch_copies()?;
        let _run = init.seal();
        stream.scope(|s| -> Result<()> {
            let [w0, w1, w2, w3] = &mut w;
            // SAFETY: the child makes only custack's calls (each refused) and `_exit`s.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork_in_scope: fork failed");
            if pid == 0 {
                let refused =
                    |r: Result<()>| matches!(r, Err(e) if e.kind() == ErrorKind::ForkedProcess);
                let mut bad = Vec::new();
                let mut expect = |what: &str, r: Result<()>| {
                    if !refused(r) {
                        bad.push(what.to_owned());
                    }
                };
                expect(
                    "copy_to_device",
                    s.copy_to_device(s.bind_mut(w0), s.bind_host(&pinned)),
                );
                expect("copy_device", s.copy_device(s.bind_mut(w1), s.bind(&a)));
                expect("fill_bytes", s.fill_bytes(s.bind_mut(w2), 0));
                expect("record", s.record(&event));
                expect("wait", s.wait(&event));
                let mut batch = s.batch::<2>();
                let added = batch
                    .to_device(s.bind_mut(w3), s.bind_host(&pinned))
                    .map(drop);
                expect("RestrictedBatch::to_device (no driver call: Ok)", {
                    if added.is_ok() {
                        Err(custack::Error::new(ErrorKind::ForkedProcess, "ok"))
                    } else {
                        added
                    }
                });
                expect("copy_batch", s.copy_batch(&copies, batch));
                expect(
                    "copy_to_host",
                    s.copy_to_host(s.bind_host_mut(&mut pinned_out), s.bind(&a)),
                );
                if !bad.is_empty() {
                    eprintln!(
                        "fork_in_scope: in the child, not refused: {}",
                        bad.join(", ")
                    );
                }
                // SAFETY: ends the child at once: no return to the scope's end, no destructor.
                unsafe { libc::_exit(if bad.is_empty() { 0 } else { 4 }) };
            }
            let mut status = 0;
            // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
            let waited = unsafe { libc::waitpid(pid, &raw mut status, 0) };
            assert!(
                waited == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "fork_in_scope: the child did not end cleanly (status {status:#x}): a call \
                 inside the scope was not refused"
            );
            // The parent's scope still works.
            s.copy_to_device(s.bind_mut(&mut p0), s.bind_host(&pinned))?;
            let mut batch = s.batch::<1>();
            batch.device(s.bind_mut(&mut p1), s.bind(&a))?;
            s.copy_batch(&copies, batch)
        })??;
        child_returns_to_the_scope_end(&stream, &mut p0, &pinned)?;
        drop((a, w, p0, p1, pinned, pinned_out, event, stream));
    }
    guard.shutdown()?;
    ctx.destroy()
}

/// A child that returns from the closure: the scope's end (its bounded wait for the stream) is
/// refused too, before the driver is asked (it queried the stream before a review found it).
fn child_returns_to_the_scope_end(
    stream: &RestrictedStream<'_>,
    p0: &mut RestrictedBuffer<'_, f32>,
    pinned: &PinnedBuffer<'_, f32>,
) -> Result<()> {
    let mut child = false;
    let ended = stream.scope(|s| -> Result<()> {
        s.copy_to_device(s.bind_mut(p0), s.bind_host(pinned))?;
        // SAFETY: the child makes only custack's calls (the scope's end, refused) and
        // `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork_in_scope: fork failed");
        if pid == 0 {
            child = true;
            return Ok(());
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        let waited = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        assert!(
            waited == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "fork_in_scope: the child's scope end was not refused (status {status:#x})"
        );
        Ok(())
    });
    if child {
        let refused = matches!(&ended, Err(e) if e.kind() == ErrorKind::ForkedProcess);
        if !refused {
            eprintln!("fork_in_scope: in the child, the scope's end answered {ended:?}");
        }
        // SAFETY: ends the child at once, no destructor (they would be refused anyway).
        unsafe { libc::_exit(if refused { 0 } else { 5 }) };
    }
    ended?
}
