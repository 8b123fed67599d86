//! The program `fork` (R22): a child forked after `Profile::init` makes no driver call: with live
//! values of every kind, each call and drop in the child refuses with `ForkedProcess`; the double
//! counts every call a forked child makes (`forked-calls`, required 0).

use crate::differential;
use custack::{Result, Stack};

/// R22: a child forked after `Profile::init` makes no driver call. With live values of every
/// kind (a stream, two events, device and page-locked memory, a module, the guard and its
/// context), the child makes each kind of call and drop: each must refuse with
/// `ForkedProcess` (a drop records it), and the child exits 0 (4 if any did not refuse: the
/// parent then panics). The checking driver counts every call made in a forked child (its
/// report's `forked-calls`, which `scripts/check-driver.sh` requires to be 0). The parent then
/// uses its own values and ends as usual.
pub(crate) fn fork() -> Result<()> {
    use custack::ErrorKind;
    use custack::safety::{Budget, RestrictedContext};
    let profile = custack::safety::Profile::init(1)?;
    let budget = Budget::page_locked(4096)
        .device_bytes(1024)
        .streams(1)
        .events(2)
        .modules(1);
    let device = profile.device(0)?;
    let mut ctx = RestrictedContext::new(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let cubin = differential::frame_cubin();
    {
        let init = guard.init()?;
        let stream = init.stream()?;
        let (start, end) = (init.event()?, init.event()?);
        let mut buffer = init.alloc::<f32>(256)?;
        let pinned = init.alloc_pinned::<f32>(256)?;
        // SAFETY: a complete cubin made above (the profile's checks read it; nothing launches).
        let module = unsafe { init.load_cubin(&cubin) }?;
        let run = init.seal();
        stream.scope(|s| {
            s.record(&start)?;
            s.fill_bytes(s.bind_mut(&mut buffer), 0)?;
            s.record(&end)
        })??;
        // SAFETY: the child runs only custack's refusals, its own drops and `exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork: fork failed");
        if pid == 0 {
            let refused =
                |r: Result<()>| matches!(r, Err(e) if e.kind() == ErrorKind::ForkedProcess);
            let mut bad = Vec::new();
            let mut expect = |what: &str, ok: bool| {
                if !ok {
                    bad.push(what.to_owned());
                }
            };
            expect(
                "stream.is_complete",
                refused(stream.is_complete().map(drop)),
            );
            expect("event.is_complete", refused(start.is_complete().map(drop)));
            expect(
                "event.elapsed_ms",
                refused(start.elapsed_ms(&end).map(drop)),
            );
            expect("run.memory_info", refused(run.memory_info().map(drop)));
            expect("run.synchronize", refused(run.synchronize()));
            expect("stream.synchronize", refused(stream.synchronize()));
            expect("event.synchronize", refused(end.synchronize()));
            expect("stream.scope", refused(stream.scope(|_| ())));
            // Refused as forked, before the process's count of contexts (taken already) is
            // asked: `ForkedProcess`, not `OutsideProfile`.
            expect(
                "RestrictedContext::new",
                refused(RestrictedContext::new(&profile, device, Budget::new()).map(drop)),
            );
            expect(
                "RestrictedContext::primary",
                refused(RestrictedContext::primary(&profile, device, Budget::new()).map(drop)),
            );
            drop(custack::take_drop_errors());
            drop((buffer, pinned, stream, start, end, module, run));
            let dropped = custack::take_drop_errors();
            expect(
                "drops (buffer, pinned, stream, two events, module)",
                dropped.len() == 6 && dropped.iter().all(|e| e.kind() == ErrorKind::ForkedProcess),
            );
            expect("guard.shutdown", refused(guard.shutdown()));
            expect("RestrictedContext::destroy", refused(ctx.destroy()));
            let status = if bad.is_empty() {
                0
            } else {
                eprintln!("fork: in the child, not refused: {}", bad.join(", "));
                4
            };
            std::process::exit(status);
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        let waited = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        assert!(
            waited == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "fork: the child did not end cleanly (status {status:#x}): a call was not refused"
        );
        // The parent's own values still work.
        assert!(stream.is_complete()?, "fork: the parent's stream is idle");
        let _ = run.memory_info()?;
        stream.scope(|s| s.fill_bytes(s.bind_mut(&mut buffer), 1))??;
        drop((buffer, pinned, start, end, module));
        drop(stream);
    }
    guard.shutdown()?;
    ctx.destroy()
}
