//! The restricted safety profile on a GPU (C26, C27, P14, R22), with cubins nvcc made on the
//! GPU machine from the repository's sources (`scripts/gpu-bundle.sh` sets the variables):
//! `CUSTACK_FRAME_CUBIN` (`examples/kernels/frame.cu` for the device),
//! `CUSTACK_FRAME_CUBIN_WRONG_ARCH` (the same for another major architecture) and
//! `CUSTACK_DEVICE_LAUNCH_CUBIN` (`tests/fixtures/device_launch.cu`, relocatable, launching from
//! the device). Without a device every test fails (`Profile::init` errs), never passes.

mod common;

#[path = "../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

use custack::safety::{Budget, Profile, Resource, RestrictedContext};
use custack::{ErrorKind, Stack};
use std::collections::HashMap;

fn cubin(var: &str) -> Vec<u8> {
    let path = std::env::var(var)
        .unwrap_or_else(|_| panic!("{var}: set by scripts/gpu-bundle.sh's run.sh, with nvcc"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{var}={path}: {e}"))
}

/// The restricted contexts this binary's tests make, together, in their one process: one each
/// for the seven tests through `with_init`, `the_frame_pipeline_runs_its_frames_and_checks_them`
/// and `a_second_init_phase_is_refused` (the tests alone in a child process state their own).
const CONTEXTS: usize = 9;

/// The profile of this binary's process (`CONTEXTS`).
fn profile() -> Profile {
    Profile::init(CONTEXTS).unwrap()
}

/// Runs `f` with an init phase of a fresh restricted context on device 0 stating `budget`;
/// returns `f`'s result and what the init phase took of each resource.
fn with_init<R>(
    budget: Budget,
    f: impl FnOnce(&custack::safety::InitPhase<'_>) -> R,
) -> (R, HashMap<Resource, usize>) {
    let profile = profile();
    let mut ctx = RestrictedContext::new(&profile, profile.device(0).unwrap(), budget).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    let r = f(&guard.init().unwrap());
    guard.shutdown().unwrap();
    let used = Resource::ALL.map(|r| (r, ctx.used(r))).into();
    ctx.destroy().unwrap();
    (r, used)
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_frame_pipeline_runs_its_frames_and_checks_them() {
    let cubin = cubin("CUSTACK_FRAME_CUBIN");
    let profile = profile();
    // (The device's free memory is not compared here: the other tests of this binary run
    // beside it. The example and the benchmark `safety_frame`, alone in their processes, do.)
    let frames = pipeline::run(profile, &cubin, |_, frame| {
        for _ in 0..200 {
            frame()?;
        }
        Ok(200)
    })
    .unwrap();
    assert_eq!(frames, 200);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_cubin_for_another_architecture_names_the_device() {
    let image = cubin("CUSTACK_FRAME_CUBIN_WRONG_ARCH");
    let (e, used) = with_init(Budget::new().modules(1), |init| {
        // SAFETY: a complete cubin nvcc wrote.
        unsafe { init.load_cubin(&image) }.unwrap_err()
    });
    assert_eq!(e.kind(), ErrorKind::NoBinaryForGpu, "{e}");
    assert!(e.to_string().contains("nvcc -cubin -arch=sm_"), "{e}");
    // The driver's failure gave the module's budget back.
    assert_eq!(used[&Resource::Modules], 0);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_cubin_that_launches_from_the_device_is_refused() {
    let image = cubin("CUSTACK_DEVICE_LAUNCH_CUBIN");
    // A module is budgeted: the refusal is the image's, not the budget's.
    let (e, _) = with_init(Budget::new().modules(1), |init| {
        // SAFETY: a complete cubin nvcc wrote.
        unsafe { init.load_cubin(&image) }.unwrap_err()
    });
    assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
    assert!(e.to_string().contains("device runtime"), "{e}");
    println!("refused: {e}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn ptx_is_refused_before_the_driver_sees_it() {
    let ptx = include_bytes!("fixtures/kernels.ptx");
    let (e, _) = with_init(Budget::new().modules(1), |init| {
        // SAFETY: refused before the driver reads it.
        unsafe { init.load_cubin(ptx) }.unwrap_err()
    });
    assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
    assert!(e.to_string().contains("PTX"), "{e}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn page_locked_memory_past_the_budget_is_refused() {
    with_init(Budget::page_locked(4096), |init| {
        let first = init.alloc_pinned::<u8>(4096).unwrap();
        let e = init.alloc_pinned::<u8>(1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(e.to_string().contains("4096 of 4096"), "{e}");
        drop(first);
    });
}

/// Device memory past the budget's `device_bytes` is refused before the driver is asked, and
/// freeing gives nothing back: the figure is what the context held over its life.
#[test]
#[ignore = "needs a CUDA device"]
fn device_memory_past_the_budget_is_refused() {
    let ((), used) = with_init(Budget::new().device_bytes(4096), |init| {
        let first = init.alloc::<u32>(1024).unwrap();
        let e = init.alloc::<u8>(1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        let text = e.to_string();
        assert!(
            text.contains("device memory past the context's budget"),
            "{text}"
        );
        assert!(text.contains("1 bytes asked, 4096 of 4096"), "{text}");
        drop(first);
        assert!(init.alloc::<u8>(1).is_err(), "freeing gave budget back");
        // A size past what is left, at once, is refused too.
        assert!(init.alloc::<u8>(usize::MAX).is_err());
    });
    assert_eq!(used[&Resource::DeviceBytes], 4096);
}

/// A stream past the budget's `streams` is refused; what it does not state (events) is 0.
#[test]
#[ignore = "needs a CUDA device"]
fn a_stream_past_the_budget_is_refused() {
    let ((), used) = with_init(Budget::new().streams(2), |init| {
        let streams = (init.stream().unwrap(), init.stream().unwrap());
        let e = init.stream().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(
            e.to_string()
                .contains("streams past the context's budget: 1 asked, 2 of 2"),
            "{e}"
        );
        drop(streams);
        assert!(init.stream().is_err(), "dropping streams gave budget back");
        let e = init.event().unwrap_err();
        assert!(e.to_string().contains("Budget::events(n)"), "{e}");
    });
    assert_eq!(used[&Resource::Streams], 2);
    assert_eq!(used[&Resource::Events], 0);
}

/// A module past the budget's `modules` is refused (after the image's checks, before the driver
/// loads it), and so is a kernel lookup past `kernels`; a captured graph whose nodes are past
/// `graph_nodes` is refused before instantiation, and gives its graph back.
#[test]
#[ignore = "needs a CUDA device"]
fn a_module_past_the_budget_is_refused() {
    let image = cubin("CUSTACK_FRAME_CUBIN");
    let budget = Budget::new()
        .modules(1)
        .kernels(1)
        .streams(1)
        .device_bytes(4096)
        .graphs(1)
        .graph_nodes(1);
    let ((), used) = with_init(budget, |init| {
        // SAFETY: a complete cubin nvcc wrote.
        let module = unsafe { init.load_cubin(&image) }.unwrap();
        // SAFETY: as above; refused before the driver reads it.
        let e = unsafe { init.load_cubin(&image) }.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(
            e.to_string()
                .contains("modules past the context's budget: 1 asked, 1 of 1"),
            "{e}"
        );
        let _gain = init.kernel::<pipeline::FrameGain>(&module).unwrap();
        let e = init.kernel::<pipeline::FrameGain>(&module).unwrap_err();
        assert!(
            e.to_string().contains("kernels past the context's budget"),
            "{e}"
        );
        // Two memsets: two nodes, one past the budget's one.
        let stream = init.stream().unwrap();
        let e = init
            .capture(&stream, init.alloc::<u8>(4096).unwrap(), |s, mut d| {
                s.fill_bytes(&mut d, 1)?;
                s.fill_bytes(&mut d, 2)
            })
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("graph nodes past the context's budget: 2 asked, 0 of 1"),
            "{e}"
        );
    });
    assert_eq!(used[&Resource::Modules], 1);
    assert_eq!(used[&Resource::Kernels], 1);
    assert_eq!(used[&Resource::Graphs], 0);
    assert_eq!(used[&Resource::GraphNodes], 0);
}

/// C27's run-time part (R22): a restricted context has one init phase in its life. After the
/// run phase ends, the same guard (a frame loop) cannot open another, nor can the guard of a
/// later push, here on another thread; nothing is allocated. (Two threads' phases at once do
/// not compile: `ui-tests/c27_second_thread_opens_init_during_run.rs`,
/// `ui-tests/c27_shared_context_pushed_from_two_threads.rs`.)
#[test]
#[ignore = "needs a CUDA device"]
fn a_second_init_phase_is_refused() {
    let refused = |r: custack::Result<custack::safety::InitPhase<'_>>| {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(e.to_string().contains("second init phase"), "{e}");
    };
    let profile = profile();
    let mut ctx = RestrictedContext::new(
        &profile,
        profile.device(0).unwrap(),
        Budget::page_locked(4096),
    )
    .unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    for frame in 0..3 {
        if frame == 0 {
            let init = guard.init().unwrap();
            let buffer = init.alloc_pinned::<u8>(4096).unwrap();
            let run = init.seal();
            run.synchronize().unwrap();
            drop(buffer);
        } else {
            refused(guard.init());
        }
    }
    // Dropped without its shutdown (R25): the event of the context-wide waits is the context's,
    // so the next guard's shutdown, on another thread, waits by it, bounded; the context's
    // destroy frees it.
    drop(guard);
    std::thread::scope(|t| {
        t.spawn(|| {
            let mut stack = Stack::new().unwrap();
            let mut guard = ctx.push(&mut stack).unwrap();
            refused(guard.init());
            guard.shutdown().unwrap();
        });
    });
    assert_eq!(ctx.page_locked_used(), 4096);
    ctx.destroy().unwrap();
    assert!(custack::take_drop_errors().is_empty());
}

/// `Profile::init` after `Driver::init` (which registered the log callback on driver 12.9+)
/// is refused on every driver version, naming `Driver::init`, before the driver is asked; in a
/// child process, since the full API's use lasts the process.
#[test]
#[ignore = "needs a CUDA device"]
fn profile_init_after_driver_init_registered_its_callback_is_refused() {
    if !common::alone_in_a_process(
        "profile_init_after_driver_init_registered_its_callback_is_refused",
    ) {
        return;
    }
    custack::Driver::init().unwrap();
    let v = custack::driver_version().unwrap();
    let e = Profile::init(1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutsideProfile, "driver {v}: {e}");
    assert!(
        e.to_string()
            .contains("Driver::init was used before Profile::init"),
        "driver {v}: {e}"
    );
}

/// R22: a child forked after `Profile::init` makes no driver call. With live values of every
/// kind, the child makes each kind of call and drop: each refuses with `ForkedProcess` (a drop
/// records it in the drop log) and the child exits cleanly; the parent's values still work.
/// (The checking driver's program `fork`, run by `scripts/check-driver.sh`, also counts the
/// child's driver calls: none.) In a process of its own, since `Profile::init` comes first.
#[test]
#[cfg(unix)] // `fork`: Windows has none, and no child to refuse
#[ignore = "needs a CUDA device"]
#[allow(clippy::too_many_lines)] // one child's calls and drops, each named, and the parent's
fn a_child_forked_after_profile_init_refuses_every_call_and_drop() {
    if !common::alone_in_a_process("a_child_forked_after_profile_init_refuses_every_call_and_drop")
    {
        return;
    }
    let cubin = cubin("CUSTACK_FRAME_CUBIN");
    let profile = Profile::init(1).unwrap();
    let budget = Budget::page_locked(4096)
        .device_bytes(1024)
        .streams(1)
        .events(2)
        .modules(1);
    let device = profile.device(0).unwrap();
    let mut ctx = RestrictedContext::new(&profile, device, budget).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        let stream = init.stream().unwrap();
        let (start, end) = (init.event().unwrap(), init.event().unwrap());
        let mut buffer = init.alloc::<u32>(256).unwrap();
        let mut pinned = init.alloc_pinned::<u32>(256).unwrap();
        // SAFETY: a complete cubin nvcc wrote.
        let module = unsafe { init.load_cubin(&cubin) }.unwrap();
        let run = init.seal();
        stream
            .scope(|s| {
                s.record(&start)?;
                s.fill_bytes(s.bind_mut(&mut buffer), 7)?;
                s.record(&end)
            })
            .unwrap()
            .unwrap();
        run.synchronize().unwrap();
        // SAFETY: the child runs only custack's refusals, its own drops and `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let refused = |r: custack::Result<()>| matches!(r, Err(e) if e.kind() == ErrorKind::ForkedProcess);
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
            // Six: the event of the bounded context-wide waits is the guard's (its `init` made
            // it), refused with the shutdown below.
            expect(
                "drops (buffer, pinned, stream, two events, module)",
                dropped.len() == 6 && dropped.iter().all(|e| e.kind() == ErrorKind::ForkedProcess),
            );
            expect("guard.shutdown", refused(guard.shutdown()));
            expect("RestrictedContext::destroy", refused(ctx.destroy()));
            if !bad.is_empty() {
                eprintln!("in the forked child, not refused: {}", bad.join(", "));
            }
            // SAFETY: ends the child at once: no exit handler, nothing of the parent's runs.
            unsafe { libc::_exit(i32::from(!bad.is_empty())) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "the forked child did not refuse every call and drop (status {status:#x})"
        );
        // The parent's values still work.
        assert!(stream.is_complete().unwrap());
        assert!(start.elapsed_ms(&end).unwrap() >= 0.0);
        let (free, total) = run.memory_info().unwrap();
        assert!(free <= total);
        stream
            .scope(|s| s.copy_to_host(&mut pinned, s.bind(&buffer)))
            .unwrap()
            .unwrap();
        assert!(
            pinned.iter().all(|&v| v == 0x0707_0707),
            "{:?}",
            &pinned[..4]
        );
        drop((buffer, pinned, start, end, module, stream));
    }
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
}
