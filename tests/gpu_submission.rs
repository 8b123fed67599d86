//! Owned submissions on a real device: payloads handed back, GPU-side joins across streams,
//! non-blocking streams, errors and panics in the closure, dropping unwaited, and R11 (a leaked
//! submission never frees or hands back its memory).
mod common;
use common::{KERNELS, block_on_within, context};
use custack::prelude::*;
use custack::{ErrorKind, LaunchConfig, Stack, StreamFlags, take_drop_errors};
use std::process::Command;

const N: usize = 1 << 20;
const N32: u32 = N as u32;

#[test]
#[ignore = "needs a CUDA device"]
fn every_payload_kind_comes_back_with_the_work_done() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    for flags in [StreamFlags::empty(), StreamFlags::NON_BLOCKING] {
        let stream = guard.stream_with(flags, 0).unwrap();
        let mut pinned = guard.alloc_pinned::<u32>(N).unwrap();
        pinned.fill(5);
        let dev = guard.alloc::<u32>(N).unwrap();
        let boxed: Box<[u32]> = vec![0; N].into_boxed_slice();
        let pending = stream
            .submit(
                (pinned, dev, add, boxed, vec![0u32; N]),
                |s, (pinned, mut dev, add, boxed, vec)| {
                    s.copy_to_device(&mut dev, pinned)?;
                    // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); `dev` holds n elements.
                    unsafe {
                        s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 2u32, N32))
                    }?;
                    s.copy_to_host(boxed, &dev)?;
                    let mut scratch = s.alloc::<u32>(N)?; // stream-ordered, freed on the stream
                    s.copy_device(&mut scratch, &dev)?;
                    s.copy_to_host(vec, &scratch)
                },
            )
            .unwrap();
        let (pinned, dev, _add, boxed, vec) = pending.wait().unwrap();
        assert!(pinned.iter().all(|&x| x == 5), "{flags:?}: input untouched");
        assert!(boxed.iter().all(|&x| x == 7), "{flags:?}");
        assert!(vec.iter().all(|&x| x == 7), "{flags:?}");
        assert_eq!(dev.to_vec().unwrap(), vec![7; N], "{flags:?}");
        // A completed submission says so, through every form.
        let again = stream
            .submit(dev, |s, mut dev| s.fill_bytes(&mut dev, 0))
            .unwrap();
        stream.synchronize().unwrap();
        assert!(again.is_complete().unwrap());
        let Ok(dev) = again.try_wait().unwrap() else {
            panic!("{flags:?}: complete but try_wait said pending")
        };
        assert_eq!(dev.to_vec().unwrap(), vec![0; N]);
    }
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_join_orders_the_second_stream_after_the_first() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let (a, b) = (
        guard.stream().unwrap(),
        guard.stream_with(StreamFlags::NON_BLOCKING, 0).unwrap(),
    );
    let dev = guard.alloc_zeroed::<u32>(N).unwrap();
    // Many small launches on A, then B reads the result: without the GPU-side wait B would
    // see a partial sum.
    let first = a
        .submit((dev, add), |s, (mut dev, add)| {
            for _ in 0..200 {
                // SAFETY: as above.
                unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 1u32, N32)) }?;
            }
            Ok(())
        })
        .unwrap();
    let joined = b
        .submit_after(first, vec![0u32; N], |s, ((dev, _add), out)| {
            s.copy_to_host(out, &dev)
        })
        .unwrap();
    let ((dev, _add), out) = joined.wait().unwrap();
    assert!(
        out.iter().all(|&x| x == 200),
        "B read before A finished: {:?}",
        out.first()
    );
    assert_eq!(dev.to_vec().unwrap(), vec![200; N]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn errors_and_panics_in_the_closure_wait_before_dropping_the_payload() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    // The closure's own error (a length mismatch) after some work was enqueued.
    let big = guard.alloc::<u8>(256 << 20).unwrap();
    let big_ptr = big.device_ptr();
    let err = stream
        .submit((big, vec![0u8; 16]), |s, (mut big, small)| {
            s.fill_bytes(&mut big, 1)?;
            s.copy_to_host(small, &big)
        })
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LengthMismatch);
    // The payload was dropped (after the stream finished with it): its memory is freed.
    assert!(!allocated(big_ptr));
    // A panic in the closure: the stream is drained before the payload drops, and the
    // context carries on.
    let big = guard.alloc::<u8>(256 << 20).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stream.submit(big, |s, mut big| {
            s.fill_bytes(&mut big, 2)?;
            panic!("in the submission's closure");
        })
    }));
    assert!(caught.is_err());
    assert!(take_drop_errors().is_empty());
    // Dropping an unwaited submission waits for it, then frees the memory.
    let big = guard.alloc::<u8>(256 << 20).unwrap();
    drop(
        stream
            .submit(big, |s, mut big| s.fill_bytes(&mut big, 3))
            .unwrap(),
    );
    assert!(stream.is_complete().unwrap());
    guard.synchronize().unwrap();
    assert!(take_drop_errors().is_empty());
}

/// Whether `ptr` lies in a live device allocation of the current context.
fn allocated(ptr: custack::ffi::CUdeviceptr) -> bool {
    let (mut base, mut size) = (0, 0);
    // SAFETY: valid out-pointers; the caller's guard is current.
    let r = unsafe { custack::ffi::cuMemGetAddressRange_v2(&raw mut base, &raw mut size, ptr) };
    r == custack::ffi::CUresult::CUDA_SUCCESS
}

const CHILD_ENV: &str = "CUSTACK_SUBMISSION_CHILD";

/// In the parent: runs `test` again in a child process and checks it printed `CHILD-OK`;
/// returns `true` there, `false` in the child (which then runs the scenario).
fn in_parent(test: &str) -> bool {
    if std::env::var_os(CHILD_ENV).is_some() {
        return false;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--include-ignored", "--nocapture"])
        .env(CHILD_ENV, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!(
        "--- child\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && stdout.contains("CHILD-OK"));
    true
}

/// R11: a leaked submission's memory is never freed or handed back; the module of a leaked
/// launch is unloaded only after the context's work (Module's drop waits). Runs in a child
/// process, whose leaked memory the driver reclaims at exit.
#[test]
#[ignore = "needs a CUDA device"]
fn r11_leaking_a_pending_submission_is_sound() {
    if in_parent("r11_leaking_a_pending_submission_is_sound") {
        return;
    }
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let dev = guard.alloc::<u32>(64 << 20).unwrap(); // 256 MiB
    let dev_ptr = dev.device_ptr();
    let pending = stream
        .submit((dev, add), |s, (mut dev, add)| {
            for _ in 0..50 {
                let n = (64u32) << 20;
                // SAFETY: as above.
                unsafe { s.launch(&add, LaunchConfig::for_elements(n), (&mut dev, 1u32, n)) }?;
            }
            Ok(())
        })
        .unwrap();
    core::mem::forget(pending);
    drop(module); // waits for the leaked launches before unloading
    assert!(
        stream.is_complete().unwrap(),
        "Module's drop waited for the context"
    );
    assert!(allocated(dev_ptr), "the leaked memory stays allocated");
    // The context carries on.
    let mut again = guard.alloc_from(&[1u32, 2, 3]).unwrap();
    again.fill_u32(9).unwrap();
    assert_eq!(again.to_vec().unwrap(), [9, 9, 9]);
    assert!(take_drop_errors().is_empty());
    println!("CHILD-OK");
}

/// Drives a future on this thread (see `common::block_on_within`), failing after ten minutes.
fn block_on<F: std::future::Future>(f: F) -> (F::Output, usize) {
    block_on_within(f, std::time::Duration::from_secs(600)).expect("the future never resolved")
}

#[test]
#[ignore = "needs a CUDA device"]
fn host_functions_run_in_order_and_their_panics_are_reported() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let before = tx.clone();
    let pending = stream
        .submit(guard.alloc::<u8>(64 << 20).unwrap(), |s, mut buf| {
            s.host_fn(move || before.send("before").unwrap())?;
            s.fill_bytes(&mut buf, 0)?;
            s.host_fn(move || tx.send("after").unwrap())
        })
        .unwrap();
    assert_eq!(rx.recv().unwrap(), "before");
    assert_eq!(rx.recv().unwrap(), "after");
    pending.wait().unwrap();

    // A panic is caught before it reaches the driver and reported by the next wait.
    let pending = stream
        .submit(vec![0u8; 4], |s, _| {
            s.host_fn(|| panic!("boom in a host function"))
        })
        .unwrap();
    let err = pending.wait().map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::HostFunctionPanicked);
    assert!(err.to_string().contains("boom in a host function"), "{err}");
    // Reported once; the stream and context carry on.
    stream.synchronize().unwrap();
    let r = stream.scope(|s| s.host_fn(|| panic!("boom in a scope")));
    let err = r.map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::HostFunctionPanicked);
    stream.scope(|s| s.host_fn(|| ())).unwrap().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_submission_is_a_future_woken_by_the_driver() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    let dev = guard.alloc_zeroed::<u32>(N).unwrap();
    let pending = stream
        .submit((dev, add, vec![0u32; N]), |s, (mut dev, add, out)| {
            for _ in 0..100 {
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); `dev` holds n elements.
                unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 1u32, N32)) }?;
            }
            s.copy_to_host(out, &dev)
        })
        .unwrap();
    let (result, polls) = block_on(async { pending.await });
    let (_dev, _add, out) = result.unwrap();
    assert!(out.iter().all(|&x| x == 100));
    // Pending once, then woken by the host function: no busy polling.
    assert!(polls <= 3, "polled {polls} times");
    // Two at once on two streams, awaited in turn.
    let other = guard.stream().unwrap();
    let a = stream.submit(vec![0u8; 4], |_, _| Ok(())).unwrap();
    let b = other.submit(vec![1u8; 4], |_, _| Ok(())).unwrap();
    let ((x, y), _) = block_on(async { (a.await, b.await) });
    assert_eq!((x.unwrap(), y.unwrap()), (vec![0; 4], vec![1; 4]));
}
