//! Several contexts in flight from one thread and page-locked memory across a nested
//! push, on a device: parked submissions polled and waited for under another
//! context, dropped unwaited, leaked; parked results attached to the right and the wrong
//! context; parked page-locked and registered memory freed from under another context.
//!
//! Run: `cargo test --test gpu_in_flight -- --include-ignored` (two contexts of device 0, or of
//! devices 0 and 1 where there are two). Without a device every test fails.
mod common;

use common::{KERNELS, context, current_raw};
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, ErrorKind, LaunchConfig, Stack};

const N: usize = 1 << 20;
const N32: u32 = N as u32;

/// A context of device 1 where there is one, else of device 0.
fn second_context() -> Context {
    let driver = Driver::init().expect("needs a CUDA device: Driver::init failed");
    let count = driver.device_count().expect("cuDeviceGetCount");
    let device = driver.device(count.min(2) - 1).expect("a device");
    Context::new(device, ContextFlags::empty()).expect("creating a context")
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_parked_submission_is_polled_under_another_context_and_attached_to_its_own()
-> custack::Result<()> {
    let (a, b) = (context(), second_context());
    let mut stack = Stack::new()?;
    let mut ga = stack.push(&a)?;
    let module = ga.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let pending = {
        let stream = ga.stream()?;
        let dev = ga.alloc_from(&vec![1u32; N])?;
        let work = stream.submit((dev, vec![0u32; N], add), |s, (mut dev, out, add)| {
            for _ in 0..64 {
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
                unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 1u32, N32)) }?;
            }
            s.copy_to_host(out, &dev)
        })?;
        ga.park_submission(work)
    };
    let module = ga.park_module(module);
    let (dev, out) = ga.with_pushed(&b, |gb| -> custack::Result<_> {
        assert_eq!(current_raw(), gb.as_raw());
        let mut pending = pending;
        let mut polls = 0u64;
        let (dev, out, ()) = loop {
            polls += 1;
            match pending.try_wait()? {
                Ok(done) => break done,
                Err(again) => pending = again,
            }
        };
        assert!(polls >= 1);
        assert_eq!(current_raw(), gb.as_raw(), "the wait left B on top");
        Ok((dev, out))
    })??;
    for (i, &x) in out.iter().enumerate() {
        assert_eq!(x, 65, "element {i}");
    }
    let dev = ga.attach(dev)?; // its own context: fine
    assert_eq!(dev.to_vec()?, vec![65; N]);
    drop(ga.attach_module(module)?);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_parked_result_attached_to_another_context_is_refused() -> custack::Result<()> {
    let (a, b) = (context(), second_context());
    let mut stack = Stack::new()?;
    let mut ga = stack.push(&a)?;
    let pending = {
        let stream = ga.stream()?;
        let work = stream.submit(ga.alloc::<u32>(16)?, |s, mut d| s.fill_bytes(&mut d, 7))?;
        ga.park_submission(work)
    };
    let dev_a = pending.wait()?;
    let refused = ga.with_pushed(&b, |gb| gb.attach(dev_a).map(drop))?;
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(ErrorKind::ContextMismatch)
    );
    assert!(
        custack::take_drop_errors().is_empty(),
        "freed in its own context"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_parked_submission_dropped_unwaited_waits_and_a_leaked_one_is_sound() -> custack::Result<()> {
    let (a, b) = (context(), second_context());
    let mut stack = Stack::new()?;
    let mut ga = stack.push(&a)?;
    let enqueue = |value: u8| -> custack::Result<_> {
        let stream = ga.stream()?;
        let pinned = ga.alloc_pinned::<u8>(N)?;
        let work = stream.submit((ga.alloc::<u8>(N)?, pinned), |s, (mut d, h)| {
            s.fill_bytes(&mut d, value)?;
            s.copy_to_host(h, &d)
        })?;
        Ok(ga.park_submission(work))
    };
    let dropped = enqueue(1)?;
    let leaked = enqueue(2)?;
    ga.with_pushed(&b, |_gb| {
        drop(dropped); // waits (A's event, from B), then frees in A
        core::mem::forget(leaked); // its memory is never freed or handed back (R11)
    })?;
    assert!(custack::take_drop_errors().is_empty());
    ga.synchronize()?;
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn parked_page_locked_memory_is_freed_from_under_another_context() -> custack::Result<()> {
    let (a, b) = (context(), second_context());
    let mut stack = Stack::new()?;
    let mut ga = stack.push(&a)?;
    let mut pinned = ga.park_pinned(ga.alloc_pinned::<u32>(N)?);
    let registered = ga.park_registered(ga.register_vec(vec![5u32; N])?);
    pinned.fill(4);
    ga.with_pushed(&b, |gb| -> custack::Result<()> {
        let mut dev = gb.alloc::<u32>(N)?;
        let stream = gb.stream()?;
        stream.scope(|s| s.copy_to_device(s.bind_mut(&mut dev), &pinned))??;
        pinned.fill(0);
        stream.scope(|s| s.copy_to_host(&mut pinned, s.bind(&dev)))??; // back into A's memory
        assert!(pinned.iter().all(|&x| x == 4));
        assert_eq!(dev.to_vec()?, vec![4; N]);
        pinned.free()?; // A's page-locked memory, freed with A pushed over B briefly
        assert_eq!(current_raw(), gb.as_raw());
        assert_eq!(registered.into_vec()?, vec![5; N]); // unregistered in A
        assert_eq!(current_raw(), gb.as_raw());
        Ok(())
    })??;
    assert!(custack::take_drop_errors().is_empty());
    Ok(())
}

/// A graph that owns its module, adding `k` to a zeroed buffer 64 times and copying it out.
type OwningGraph<'g> = custack::graph::GraphExec<
    'g,
    (
        custack::Module<'g>,
        custack::DeviceBuffer<'g, u32>,
        Vec<u32>,
    ),
>;

fn capture_owning<'g>(
    g: &'g custack::PushedGuard<'_, '_>,
    k: u32,
) -> custack::Result<OwningGraph<'g>> {
    let stream = g.stream()?;
    let payload = (
        g.load_ptx(KERNELS)?,
        g.alloc_zeroed::<u32>(N)?,
        vec![0u32; N],
    );
    stream
        .capture(payload, move |s, (module, mut dev, out)| {
            // Looked up during the capture: the function cannot leave this closure.
            let add = module.function("add_u32")?;
            for _ in 0..64 {
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
                unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, k, N32)) }?;
            }
            s.copy_to_host(out, &dev)
        })?
        .instantiate()
}

/// P9 with graphs: A's graph launch stays in flight while B is pushed and launches
/// its own; both are waited for under the other context, attached back to their own guards
/// and launched again; an idle graph survives a pop and is dropped under another context.
#[test]
#[ignore = "needs a CUDA device"]
fn p9_graph_in_flight() -> custack::Result<()> {
    let (a, b) = (context(), second_context());
    let mut stack = Stack::new()?;
    let mut ga = stack.push(&a)?;
    let stream_a = ga.stream()?;
    let pending_a =
        ga.park_submission(stream_a.submit(capture_owning(&ga, 1)?, |s, g| s.launch_graph(&g))?);
    drop(stream_a);
    let (pending_b, idle_b) = ga.with_pushed(&b, |gb| -> custack::Result<_> {
        let stream = gb.stream()?;
        let pending =
            gb.park_submission(stream.submit(capture_owning(gb, 2)?, |s, g| s.launch_graph(&g))?);
        let idle = gb.park_graph(capture_owning(gb, 5)?);
        Ok((pending, idle))
    })??;
    // Both in flight; B's waited for under A, then A's, handed back as parked graphs.
    let parked_b = pending_b.wait()?;
    assert_eq!(current_raw(), ga.as_raw(), "the wait left A on top");
    let parked_a = pending_a.wait()?;
    // An idle graph of A under B's guard: refused (destroyed in A).
    let stray = ga.park_graph(capture_owning(&ga, 9)?);
    let refused = ga.with_pushed(&b, |gb| gb.attach_graph(stray).map(drop))?;
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(ErrorKind::ContextMismatch)
    );
    let exec = ga.attach_graph(parked_a)?; // launched once already: 64
    let stream_a = ga.stream()?;
    let exec = stream_a.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert!(
        exec.payload().2.iter().all(|&x| x == 128),
        "A's graph launched twice"
    );
    let kept_a = ga.park_graph(exec);
    drop(stream_a);
    let (after_b, idle_b) = ga.with_pushed(&b, |gb| -> custack::Result<_> {
        let exec = gb.attach_graph(parked_b)?; // launched once already: 128
        let stream = gb.stream()?;
        let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        let out = exec.payload().2.to_vec();
        let (_module, dev, _) = exec.payload();
        assert_eq!(dev.to_vec()?, out, "the device buffer is B's, read under B");
        let idle = gb.attach_graph(idle_b)?;
        let idle = stream.submit(idle, |s, g| s.launch_graph(&g))?.wait()?;
        assert!(
            idle.payload().2.iter().all(|&x| x == 320),
            "B's idle graph, launched once"
        );
        Ok((out, gb.park_graph(idle)))
    })??;
    assert!(
        after_b.iter().all(|&x| x == 256),
        "B's graph launched twice"
    );
    drop(ga);
    // Popped: the parked graphs are dropped with no context current, each in its own.
    drop((idle_b, kept_a));
    assert_eq!(custack::take_drop_errors(), vec![]);
    Ok(())
}
