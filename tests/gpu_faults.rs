//! R6: sticky faults. Each test re-runs itself in a child process, which provokes the fault and
//! checks what it sees; the parent then checks the child finished and carries on with a fresh
//! context of its own.
//!
//! What the driver does (NVIDIA, `CUresult` docs, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`): "This
//! leaves the process in an inconsistent state and any further CUDA work will return the same
//! error. To continue using CUDA, the process must be terminated and relaunched." Driver 580 on
//! an H100 does exactly that: after the fault, creating a new context and resetting the primary
//! context both return the same sticky error. So the child checks that every call, in every
//! context, reports the sticky error and that no drop panics or aborts; recovery is a new
//! process, which the parent demonstrates.
#![allow(clippy::items_after_statements)]
mod common;
use common::{KERNELS, block_on_within, device};
use custack::prelude::*;
use custack::{Context, ContextFlags, ErrorKind, LaunchConfig, Stack, take_drop_errors};
use std::process::Command;

const CHILD_ENV: &str = "CUSTACK_FAULT_CHILD";

/// In the parent: runs `test` again in a child process, checks it printed `CHILD-OK`, and
/// carries on with a fresh context. Returns `true` in the parent, `false` in the child (which
/// then runs the scenario).
fn in_parent(test: &str) -> bool {
    if std::env::var_os(CHILD_ENV).is_some() {
        return false;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test,
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("--- child stdout\n{stdout}\n--- child stderr\n{stderr}");
    assert!(out.status.success(), "child failed: {:?}", out.status);
    assert!(
        stdout.contains("CHILD-OK"),
        "child did not finish its scenario"
    );
    // The parent process was never faulted: it carries on with a fresh context.
    fresh_context_works();
    true
}

/// Launches `kernel` (no arguments) and returns the error the scope reports.
fn fault_in(ctx: &Context, kernel: &str) -> custack::Error {
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let f = module.function(kernel).unwrap();
    let stream = guard.stream().unwrap();
    let buf = guard.alloc_from(&[1u32, 2, 3]).unwrap();
    // SAFETY: the fault kernels take no arguments; their misbehaviour is on the GPU, which is
    // exactly what this test provokes.
    let launched = stream.scope(|s| unsafe { s.launch(&f, LaunchConfig::for_elements(1), ()) });
    let err = match launched {
        Ok(Ok(())) => panic!("{kernel}: the faulting kernel reported success"),
        Ok(Err(e)) | Err(e) => e,
    };
    println!("{kernel}: scope reported {err}");
    assert!(err.is_sticky(), "{kernel}: {err} should be sticky");
    // Every later call on the context reports the sticky error (and says it is sticky).
    let errors = [
        guard.synchronize().unwrap_err(),
        guard.alloc::<u8>(16).map(|_| ()).unwrap_err(),
        buf.to_vec().map(|_| ()).unwrap_err(),
        stream.synchronize().unwrap_err(),
        guard.stream().map(|_| ()).unwrap_err(),
    ];
    for e in &errors {
        assert!(
            e.is_sticky(),
            "{kernel}: a later call reported a non-sticky {e}"
        );
        assert!(e.to_string().contains("sticky"), "{e}");
    }
    err
    // buf, stream, module and guard drop here: no panic, no abort; failures are recorded
}

fn fresh_context_works() {
    let ctx = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    let mut x = guard.alloc_from(&[10u32; 64]).unwrap();
    stream
        .scope(|s| {
            let dx = s.bind_mut(&mut x);
            // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
            unsafe { s.launch(&add, LaunchConfig::for_elements(64), (dx, 5u32, 64u32)) }.unwrap();
        })
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), [15; 64]);
    println!("a fresh context works");
}

fn sticky_fault_in_created_context(test: &str, kernel: &str, kinds: &[ErrorKind]) {
    if in_parent(test) {
        return;
    }
    let ctx = Context::new(device(), ContextFlags::empty()).unwrap();
    let err = fault_in(&ctx, kernel);
    assert!(kinds.contains(&err.kind()), "{kernel}: unexpected {err}");
    let recorded = take_drop_errors();
    println!(
        "drops after the fault recorded {} error(s): {recorded:?}",
        recorded.len()
    );
    assert!(
        recorded.iter().all(custack::Error::is_sticky),
        "{recorded:?}"
    );
    // Destroying the poisoned context reports or succeeds, but never panics.
    println!("destroying the poisoned context: {:?}", ctx.destroy());
    // The whole process is poisoned: a new context gets the same sticky error, as documented.
    let again = Context::new(device(), ContextFlags::empty())
        .map(|_| ())
        .unwrap_err();
    println!("a new context in the faulted process: {again}");
    assert_eq!(again.kind(), err.kind());
    assert!(again.is_sticky());
    println!("CHILD-OK");
}

#[test]
#[ignore = "needs a CUDA device"]
fn r6_illegal_address_is_sticky_and_the_process_carries_on() {
    sticky_fault_in_created_context(
        "r6_illegal_address_is_sticky_and_the_process_carries_on",
        "illegal_write",
        &[ErrorKind::IllegalAddress],
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn r6_trap_is_sticky_and_the_process_carries_on() {
    sticky_fault_in_created_context(
        "r6_trap_is_sticky_and_the_process_carries_on",
        "trap_kernel",
        &[
            ErrorKind::LaunchFailed,
            ErrorKind::IllegalInstruction,
            ErrorKind::Assert,
        ],
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn r6_primary_context_fault_is_reported_and_a_new_process_recovers() {
    if in_parent("r6_primary_context_fault_is_reported_and_a_new_process_recovers") {
        return;
    }
    let mut primary = Context::primary(device()).unwrap();
    let err = fault_in(&primary, "illegal_write");
    assert_eq!(err.kind(), ErrorKind::IllegalAddress);
    let _ = take_drop_errors();
    // Resetting reports the same sticky error rather than recovering in this process.
    let reset = primary.reset().unwrap_err();
    println!("resetting the faulted primary context: {reset}");
    assert_eq!(reset.kind(), ErrorKind::IllegalAddress);
    drop(primary); // releases without panicking; the failure, if any, is recorded
    let _ = take_drop_errors();
    println!("CHILD-OK");
}

/// R6 with a future: a submission whose kernel faults resolves, with the sticky error, when
/// awaited. Its waker is a `cuStreamAddCallback` callback, which the driver calls even after a
/// fault; a `cuLaunchHostFunc` function is never called then, and the future would wait forever.
#[test]
#[ignore = "needs a CUDA device"]
fn r6_fault_resolves_an_awaited_submission() {
    if in_parent("r6_fault_resolves_an_awaited_submission") {
        return;
    }
    let ctx = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let payload = (
        module.function("illegal_write").unwrap(),
        guard.alloc::<u32>(4).unwrap(),
    );
    let pending = stream
        .submit(payload, |s, (f, _buf)| {
            // SAFETY: illegal_write takes no arguments; it faults on the GPU, as this test wants.
            unsafe { s.launch(&f, LaunchConfig::for_elements(1), ()) }
        })
        .unwrap();
    let resolved = block_on_within(pending.into_future(), std::time::Duration::from_secs(60));
    let err = resolved
        .expect("the awaited submission never resolved after the fault")
        .0
        .map(drop)
        .unwrap_err();
    println!("the awaited submission resolved with {err}");
    assert!(err.is_sticky(), "{err}");
    println!("CHILD-OK");
}

custack::kernel_contract! {
    /// `illegal_write()`: declared as touching nothing, and a lie on purpose (it writes through
    /// address 8): the child process it runs in is the fault's sandbox.
    unsafe kernel IllegalWrite = "illegal_write"();

    /// `empty()`: touches nothing.
    unsafe kernel Empty = "empty"();
}

/// Pending work on `ctx` (a fill), parked so that it borrows only `ctx`.
fn parked_fill<'c>(
    stack: &mut Stack,
    ctx: &'c Context,
) -> custack::ParkedSubmission<'c, custack::ParkedBuffer<'c, u32>> {
    let guard = stack.push(ctx).unwrap();
    let stream = guard.stream().unwrap();
    let work = stream
        .submit(guard.alloc::<u32>(1 << 10).unwrap(), |s, mut d| {
            s.fill_u32(&mut d, 7)
        })
        .unwrap();
    guard.park_submission(work)
}

/// R20: the first sticky error poisons the whole process. In a child: a parked submission is
/// pending on context B; a declared kernel faults on context A; then a call through A's guard,
/// a push of B, the parked submission's wait and a second thread's calls all return that first
/// error with its origin (the scope's end, its call site in this file, the kernel), and the
/// calls custack refuses say they were not made. What holds if the driver allows more: a new
/// context, if the driver makes one, cannot be pushed (custack's record is the process's).
#[test]
#[ignore = "needs a CUDA device"]
fn r20_the_first_sticky_error_poisons_every_thread_and_context() {
    if in_parent("r20_the_first_sticky_error_poisons_every_thread_and_context") {
        return;
    }
    assert!(custack::poisoned().is_none(), "poisoned before the fault");
    let a = Context::new(device(), ContextFlags::empty()).unwrap();
    let b = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let parked = parked_fill(&mut stack, &b);
    let guard = stack.push(&a).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let fault = module.declared::<IllegalWrite>().unwrap();
    let stream = guard.stream().unwrap();
    let line = line!() + 1;
    let faulted = stream.scope(|s| s.run(&fault, LaunchConfig::for_elements(1), ()));
    let first = match faulted {
        Ok(Ok(())) => panic!("the faulting kernel reported success"),
        Ok(Err(e)) | Err(e) => e,
    };
    println!("the scope reported {first}");
    assert_eq!(first.kind(), ErrorKind::IllegalAddress, "{first}");
    let origin = first
        .origin()
        .expect("the first sticky error has its origin");
    assert_eq!(origin.observer(), custack::Observer::ScopeEnd);
    assert_eq!(origin.call_site().file(), file!());
    assert_eq!(origin.call_site().line(), line);
    assert_eq!(origin.kernel(), Some("illegal_write"));
    assert!(
        first.to_string().contains(&format!(
            "first observed by the end of a stream scope at {}:{line}:",
            file!()
        )),
        "{first}"
    );
    assert_eq!(custack::poisoned().as_ref(), Some(&first));

    // Every later call returns the first error with its origin; a refused one says so.
    let same = |what: &str, e: custack::Error, refused: bool| {
        println!("{what}: {e}");
        assert_eq!(e.kind(), first.kind(), "{what}: {e}");
        assert_eq!(e.origin(), first.origin(), "{what}: {e}");
        let not_made = e
            .detail()
            .is_some_and(|d| d.contains("this call was not made"));
        assert_eq!(not_made, refused, "{what}: {e}");
    };
    same("guard.synchronize", guard.synchronize().unwrap_err(), true);
    same(
        "stream.synchronize",
        stream.synchronize().unwrap_err(),
        true,
    );
    same(
        "a new scope",
        stream.scope(|_| ()).map(drop).unwrap_err(),
        true,
    );
    // An allocation goes to the driver, which answers with the sticky error: custack returns
    // the first one.
    same(
        "guard.alloc",
        guard.alloc::<u8>(16).map(drop).unwrap_err(),
        false,
    );
    drop(module);
    drop(stream);
    drop(guard);
    same("pushing B", stack.push(&b).map(drop).unwrap_err(), true);
    // The parked submission's wait is refused; its payload is leaked, never freed.
    same(
        "the parked submission's wait",
        parked.wait().map(drop).unwrap_err(),
        true,
    );
    // Another thread, another stack: the same.
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut stack = Stack::new().unwrap();
            same(
                "pushing A on another thread",
                stack.push(&a).map(drop).unwrap_err(),
                true,
            );
        });
    });
    // If the driver ever makes a new context in this process, custack still refuses to push
    // it; driver 580 refuses the context itself, with the sticky error.
    match Context::new(device(), ContextFlags::empty()) {
        Ok(c) => {
            println!("the driver made a new context after the fault");
            same(
                "pushing a new context",
                stack.push(&c).map(drop).unwrap_err(),
                true,
            );
        }
        Err(e) => same("a new context", e, false),
    }
    // Drops after the fault record errors, never panic.
    let _ = take_drop_errors();
    println!("destroying A: {:?}; B: {:?}", a.destroy(), b.destroy());
    println!("CHILD-OK");
}

/// R20's other side: an error that is not sticky (out of memory) poisons nothing; later calls go
/// to the driver and succeed.
#[test]
#[ignore = "needs a CUDA device"]
fn r20_a_non_sticky_error_poisons_nothing() {
    let ctx = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let e = guard.alloc::<u8>(1 << 50).map(drop).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{e}");
    assert!(e.origin().is_none(), "{e}");
    assert!(custack::poisoned().is_none());
    let x = guard.alloc_from(&[1u32, 2, 3]).unwrap();
    guard.stream().unwrap().scope(|_| ()).unwrap();
    assert_eq!(x.to_vec().unwrap(), [1, 2, 3]);
}

/// Issue 44 item 4: with launches named, the origin names the launch that faulted, where the
/// kernel the observing thread launched last is the one enqueued after it.
#[test]
#[ignore = "needs a CUDA device"]
fn named_launches_name_the_first_launch_that_never_completed() {
    if in_parent("named_launches_name_the_first_launch_that_never_completed") {
        return;
    }
    custack::name_launches(true);
    assert!(custack::launches_named());
    let ctx = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let fault = module.declared::<IllegalWrite>().unwrap();
    let empty = module.declared::<Empty>().unwrap();
    let stream = guard.stream().unwrap();
    let one = LaunchConfig::for_elements(1);
    // Launches that complete, in an earlier scope and this one.
    stream.scope(|s| s.run(&empty, one, ())).unwrap().unwrap();
    let line = line!() + 4;
    let faulted = stream.scope(|s| -> custack::Result<()> {
        s.run(&empty, one, ())?;
        s.run(&empty, one, ())?;
        s.run(&fault, one, ())?;
        s.run(&empty, one, ()) // queued behind the fault: never runs
    });
    let first = match faulted {
        Ok(Ok(())) => panic!("the faulting kernel reported success"),
        Ok(Err(e)) | Err(e) => e,
    };
    println!("the scope reported {first}");
    let origin = first
        .origin()
        .expect("the first sticky error has its origin");
    assert_eq!(origin.kernel(), Some("empty"), "the thread's last launch");
    let launch = origin
        .unfinished_launch()
        .expect("launches are named: the first that never completed");
    assert_eq!(launch.kernel(), Some("illegal_write"), "{first}");
    assert_eq!(launch.call_site().file(), file!());
    assert_eq!(launch.call_site().line(), line, "{first}");
    assert!(
        first
            .to_string()
            .contains("the first launch that never completed: `illegal_write` launched at"),
        "{first}"
    );
    println!("CHILD-OK");
}
