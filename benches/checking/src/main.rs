//! Programs run under the checking driver by `scripts/check-driver.sh`: the contract's
//! P-patterns and the GPU tests' scenarios that need no kernel results (under the double a
//! launch does nothing and a copy moves nothing; the values computed are ignored).
//!
//! `custack-checking PROGRAM` runs one program and exits 0 when it returned `Ok`, 1 when it
//! returned an error (the expected outcome when the driver fails a call), 2 for an unknown name.
//! A panic exits 101 and the harness counts it as a failure. The scenario bodies are copies of
//! `tests/patterns.rs` (which runs them on a GPU and checks the values).
#![allow(clippy::too_many_lines)]

use custack::{
    Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, EventFlags, GraphMem,
    LaunchConfig, Module, ParkedBuffer, ParkedModule, PushedGuard, Result, Stack, StackTop,
    StandIn,
};
use std::process::ExitCode;

mod differential;
mod graph_capture_forked;
mod graph_capture_into;
mod graph_host;
mod graph_kept_routes;
mod graph_mem;
mod observe;
mod profile_first;
mod redundant_flips;
mod replicas_compare;

const KERNELS: &str = include_str!("../../../tests/fixtures/kernels.ptx");
const N: usize = 1000;
const N32: u32 = N as u32;

fn context0() -> Result<Context> {
    Context::new(Driver::init()?.device(0)?, ContextFlags::empty())
}

fn add_on_device(
    guard: &PushedGuard<'_, '_>,
    module: &Module<'_>,
    x: &mut impl DeviceMemoryMut<u32>,
    k: u32,
) -> Result<()> {
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let n = x.len() as u32;
    stream.scope(|s| {
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`, and
        // `x` holds `n` elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(n), (s.bind_mut(x), k, n)) }
    })?
}

fn step_parked<'c>(
    guard: &PushedGuard<'c, '_>,
    buffer: ParkedBuffer<'c, u32>,
    module: ParkedModule<'c>,
    k: u32,
) -> Result<(ParkedBuffer<'c, u32>, ParkedModule<'c>)> {
    let mut buffer = guard.attach(buffer)?;
    let module = guard.attach_module(module)?;
    add_on_device(guard, &module, &mut buffer, k)?;
    Ok((guard.park(buffer), guard.park_module(module)))
}

fn p1_one_guard_many_handles(ctx: &Context) -> Result<(Vec<f32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.function("vector_add")?;
    let add_u32 = module.function("add_u32")?;
    let empty = module.function("empty")?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let done = guard.event(EventFlags::DISABLE_TIMING)?;

    let mut a_host = guard.alloc_pinned::<f32>(N)?;
    let mut b_host = guard.alloc_pinned::<f32>(N)?;
    let mut c_host = guard.alloc_pinned::<f32>(N)?;
    for (i, (a, b)) in a_host.iter_mut().zip(b_host.iter_mut()).enumerate() {
        *a = f32::from(i as u16);
        *b = 2.0 * f32::from(i as u16);
    }
    let (mut a, mut b, mut c) = (
        guard.alloc::<f32>(N)?,
        guard.alloc::<f32>(N)?,
        guard.alloc::<f32>(N)?,
    );
    let mut x = guard.alloc_from(&vec![7u32; N])?;
    let mut x_host = vec![0u32; N];
    let cfg = LaunchConfig::for_elements(N32);

    one.scope(|s1| {
        let (mut a, mut b, mut c) = (
            s1.bind_mut(&mut a),
            s1.bind_mut(&mut b),
            s1.bind_mut(&mut c),
        );
        two.scope(|s2| -> Result<()> {
            let mut x = s2.bind_mut(&mut x);
            s1.copy_to_device(&mut a, &a_host)?;
            s1.copy_to_device(&mut b, &b_host)?;
            // SAFETY: `vector_add(const float* a, const float* b, float* c, unsigned n)` reads
            // `n` floats of `a` and `b` and writes `n` of `c`; each holds `n`.
            unsafe { s1.launch(&vector_add, cfg, (&a, &b, &mut c, N32)) }?;
            s1.copy_to_host(&mut c_host, &c)?;
            // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)`; `x` holds `n` elements.
            unsafe { s2.launch(&add_u32, cfg, (&mut x, 5u32, N32)) }?;
            // SAFETY: `empty()` takes no parameters and touches no memory.
            unsafe { s2.launch(&empty, LaunchConfig::for_elements(1), ()) }?;
            s2.record(&done)?;
            s2.copy_to_host(&mut x_host, &x)
        })?
    })??;
    done.synchronize()?;
    Ok((c_host.to_vec(), x_host))
}

fn p2_push_pop_push(a: &Context, b: &Context) -> Result<Vec<(custack::ffi::CUcontext, Vec<u32>)>> {
    let mut stack = Stack::new()?;
    let mut seen = Vec::new();
    for (ctx, value) in [(a, 1u32), (b, 2), (a, 3)] {
        let guard = stack.push(ctx)?;
        let read = guard.alloc_from(&[value; 4])?.to_vec()?;
        seen.push((guard.as_raw(), read));
        guard.pop()?;
    }
    Ok(seen)
}

fn p3_nested_push(a: &Context, b: &Context) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(a)?;
    let buffer_a = guard_a.alloc_from(&vec![1u32; N])?;
    let module_a = guard_a.load_ptx(KERNELS)?;
    let parked_buffer = guard_a.park(buffer_a);
    let parked_module = guard_a.park_module(module_a);

    let from_b = guard_a.with_pushed(b, |guard_b| -> Result<Vec<u32>> {
        let module_b = guard_b.load_ptx(KERNELS)?;
        let mut buffer_b = guard_b.alloc_from(&vec![10u32; N])?;
        add_on_device(guard_b, &module_b, &mut buffer_b, 5)?;
        buffer_b.to_vec()
    })??;

    guard_a.synchronize()?; // A is on top again
    let mut buffer_a = guard_a.attach(parked_buffer)?;
    let module_a = guard_a.attach_module(parked_module)?;
    add_on_device(&guard_a, &module_a, &mut buffer_a, 2)?;
    Ok((buffer_a.to_vec()?, from_b))
}

fn p4_shared_context(ctx: &Context, threads: u32) -> Result<Vec<Vec<u32>>> {
    let work = |i: u32| -> Result<Vec<u32>> {
        let mut stack = Stack::new()?;
        let guard = stack.push(ctx)?;
        let module = guard.load_ptx(KERNELS)?;
        let mut x = guard.alloc_from(&vec![i; N])?;
        add_on_device(&guard, &module, &mut x, 100)?;
        x.to_vec()
    };
    // Drop errors are logged per thread: a worker hands its own on as its error.
    let worker = |i: u32| -> Result<Vec<u32>> {
        let r = work(i);
        match custack::take_drop_errors().into_iter().next() {
            Some(e) => Err(e),
            None => r,
        }
    };
    std::thread::scope(|t| {
        let handles: Vec<_> = (0..threads).map(|i| t.spawn(move || worker(i))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

fn p8_alternating_contexts(a: &Context, b: &Context, rounds: u32) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let (mut buffer_a, mut module_a) = stack.with_pushed(a, |g| -> Result<_> {
        Ok((
            g.park(g.alloc_zeroed::<u32>(N)?),
            g.park_module(g.load_ptx(KERNELS)?),
        ))
    })??;
    let (mut buffer_b, mut module_b) = stack.with_pushed(b, |g| -> Result<_> {
        Ok((
            g.park(g.alloc_zeroed::<u32>(N)?),
            g.park_module(g.load_ptx(KERNELS)?),
        ))
    })??;
    for round in 1..=rounds {
        (buffer_a, module_a) =
            stack.with_pushed(a, |g| step_parked(g, buffer_a, module_a, 1))??;
        (buffer_b, module_b) =
            stack.with_pushed(b, |g| step_parked(g, buffer_b, module_b, round))??;
    }
    let read_a = stack.with_pushed(a, |g| g.attach(buffer_a)?.to_vec())??;
    let read_b = stack.with_pushed(b, |g| g.attach(buffer_b)?.to_vec())??;
    drop((module_a, module_b)); // each pushes its own context to unload
    Ok((read_a, read_b))
}

fn c10_stream_ordered_alloc_in_scope(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let host = vec![3u32; 256];
    let mut out = vec![0u32; 256];
    stream.scope(|s| -> Result<()> {
        let mut tmp = s.alloc::<u32>(256)?;
        s.copy_to_device(&mut tmp, &host)?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
        unsafe {
            s.launch(
                &add,
                LaunchConfig::for_elements(256),
                (&mut tmp, 4u32, 256u32),
            )
        }?;
        s.copy_to_host(&mut out, &tmp)?;
        let scratch = s.alloc::<u8>(1 << 20)?;
        drop(scratch); // freed in stream order; nothing used it
        let mut halves = s.alloc::<u16>(256)?;
        s.fill_u16(&mut halves, 7)?;
        halves.free() // the explicit free, which returns the driver's error
    })??;
    Ok(out)
}

fn c10_c11_memory_reused_after_scope(ctx: &Context) -> Result<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(N)?;
    host.fill(1);
    let mut dev = guard.alloc::<u32>(N)?;
    let mut out = guard.alloc_pinned::<u32>(N)?;
    let cfg = LaunchConfig::for_elements(N32);
    stream.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut dev);
        s.copy_to_device(&mut d, &host)?;
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)`; `d` holds `n` elements.
        unsafe { s.launch(&add, cfg, (&mut d, 1u32, N32)) }?;
        s.copy_to_host(&mut out, &d)
    })??;
    let first = dev.to_vec()?; // read on the host after the scope
    let first_async = out.to_vec(); // host memory read after the scope
    if let Some(first) = host.first_mut() {
        *first = 40; // host memory mutated after the scope
    }
    let moved = host; // and moved
    let mut back = vec![0u32; N];
    stream.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut dev);
        s.copy_to_device(&mut d, &moved)?;
        s.copy_to_host(&mut back, &d)
    })??;
    dev.free()?; // freed after the scope
    let mut second = back;
    second.truncate(2);
    Ok((first, first_async, second))
}

/// The panic payload of `unwind`: its panics are expected, so the hook stays quiet about them.
struct Unwind;

/// Drops during unwinding: a panic inside a stream scope (with bound device memory, page-locked
/// and pageable host memory in enqueued copies, and a stream-ordered allocation alive), and a
/// panic while a pushed guard and its buffer are alive. Each is caught; afterwards the memory
/// is reused, freed, and the stack pushed again.
fn unwind(ctx: &Context) -> Result<()> {
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

/// Scoped host pointers: pageable host memory bound to a scope for reading and for writing
/// (the same buffer both read and written), page-locked memory as slices around the scope.
fn scoped_host(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(N)?;
    let mut pinned = guard.alloc_pinned::<u32>(N)?;
    pinned.fill(3);
    let input = vec![2u32; N];
    let mut output = vec![0u32; N];
    stream.scope(|s| -> Result<()> {
        let h = s.bind_host(&input);
        let o = s.bind_host_mut(&mut output);
        let mut d = s.bind_mut(&mut dev);
        s.copy_to_device(&mut d, h)?;
        s.fill_u32(&mut d, 7)?;
        s.copy_to_host(o, &d)?;
        s.copy_to_device(&mut d, o)?; // read back what the scope wrote
        s.copy_to_device(&mut d, &pinned)?;
        s.copy_to_host(o, &d)
    })??;
    output.extend_from_slice(&pinned);
    Ok(output)
}

/// Events: timing and non-timing events recorded on streams, in a scope and on the context's
/// null stream, waited for by streams and the context, queried, timed and destroyed.
fn events(ctx: &Context) -> Result<f32> {
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

/// Owned submissions: payloads of every kind, a join across streams, waits, polls, and one
/// dropped while pending (its drop waits).
fn submission(ctx: &Context) -> Result<Vec<u32>> {
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

/// Graphs: a capture with copies, a stream-ordered allocation and a launch; instantiated,
/// launched as a submission and twice in a scope, its payload read and written between
/// launches, updated with a second capture; a capture inside a scope open on another stream;
/// a capture that fails in its closure.
fn graph(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let capture = |k: u32| -> Result<_> {
        let mut input = guard.alloc_pinned::<u32>(N)?;
        input.fill(k);
        let payload = (
            input,
            guard.alloc::<u32>(N)?,
            module.function("add_u32")?,
            vec![0u32; N],
        );
        stream.capture(payload, |s, (input, mut dev, add, out)| {
            s.copy_to_device(&mut dev, input)?;
            let mut scratch = s.alloc::<u32>(N)?;
            s.copy_device(&mut scratch, &dev)?;
            // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); both hold n elements.
            unsafe {
                s.launch(
                    &add,
                    LaunchConfig::for_elements(N32),
                    (&mut scratch, 5u32, N32),
                )
            }?;
            s.copy_device(&mut dev, &scratch)?;
            s.copy_to_host(out, &dev)
        })
    };
    let graph = capture(1)?;
    let _ = graph.node_count()?;
    let mut exec = graph.instantiate()?;
    let (input, _dev, _add, _out) = exec.payload_mut();
    input.fill(100);
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)?;
        s.launch_graph(&g)
    })??;
    let (_input, _dev, _add, _old_out) = exec.update(capture(2)?)?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    // A capture inside a scope open on another stream: the scope's copy runs and is complete
    // at its end, so `local` may go; the graph's copy reaches only its payload (the closure is
    // `'static`), written at each launch, long after `local` is freed.
    let other = guard.stream()?;
    let dev = guard.alloc_zeroed::<u32>(N)?;
    let mut local = vec![1u32; N];
    let inner = other.scope(|s2| {
        s2.copy_to_host(s2.bind_host_mut(&mut local), s2.bind(&dev))?;
        stream.capture(
            (guard.alloc_zeroed::<u32>(N)?, vec![1u32; N]),
            move |s, (d, out)| s.copy_to_host(out, &d),
        )
    })??;
    drop(local);
    let inner = stream
        .submit(inner.instantiate()?, |s, g| s.launch_graph(&g))?
        .wait()?;
    drop(inner);
    // Refused during a capture (custack's own error): the capture ends, the payload drops.
    match stream.capture(vec![0u8; 4], |s, _| s.host_fn(|| ())) {
        Err(e) if e.kind() == custack::ErrorKind::NotSupported => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a host function was captured"),
    }
    Ok(exec.payload().3.to_vec())
}

/// Device queries, the primary context and the current context's settings.
fn device_info() -> Result<()> {
    let driver = Driver::init()?;
    let _ = (
        driver.version()?,
        driver.device_count()?,
        custack::driver_version()?,
    );
    for device in driver.devices()? {
        let _ = (
            device.name()?,
            device.uuid()?,
            device.pci_bus_id()?,
            device.total_memory()?,
        );
        let _ = (
            device.compute_capability()?,
            device.ordinal(),
            device.supports_sm_count_affinity()?,
        );
        for attribute in [
            custack::DeviceAttribute::MultiprocessorCount,
            custack::DeviceAttribute::ComputeCapabilityMajor,
        ] {
            let _ = device.attribute(attribute)?;
        }
        let _ = device.primary_context_state()?;
        let _ = device.can_access_peer(device)?;
        device.set_primary_context_flags(ContextFlags::SCHED_BLOCKING_SYNC)?;
        let mut primary = Context::primary(device)?;
        let _ = (primary.is_primary(), primary.device());
        primary.reset()?; // no guard of it is alive: `&mut`
        let mut stack = Stack::new()?;
        stack.with_pushed(&primary, |g| -> Result<()> {
            let _ = (g.device()?, g.api_version()?, g.flags()?, g.unique_id()?);
            let _ = (g.stream_priority_range()?, g.cache_config()?);
            g.set_cache_config(g.cache_config()?)?;
            let limit = g.limit(custack::Limit::StackSize)?;
            g.set_limit(custack::Limit::StackSize, limit)?;
            let _ = (g.sm_count_affinity()?, g.memory_info()?);
            g.set_shared_mem_config(g.shared_mem_config()?)?;
            g.reset_persisting_l2_cache()?;
            g.synchronize()
        })??;
        primary.destroy()?;
        adopted_context(&mut stack, device)?;
    }
    Ok(())
}

/// A context made with the raw `cuCtxCreate` and handed to custack (`Context::from_raw`), after
/// `adopted_and_borrowed_contexts` in `tests/gpu_interop.rs`. On a failure before the handover
/// the raw context is destroyed here, so a fault leaks nothing.
fn adopted_context(stack: &mut Stack, device: custack::Device) -> Result<()> {
    use custack::ffi;
    let check = |r: ffi::CUresult| match r {
        ffi::CUresult::CUDA_SUCCESS => Ok(()),
        // A raw call's code, made before custack holds the context; custack's own
        // `CUresult::result` is crate-private.
        #[allow(
            clippy::disallowed_methods,
            reason = "a raw call outside custack's wrappers"
        )]
        code => Err(custack::Error::from_raw(code)),
    };
    let mut raw = core::ptr::null_mut();
    // SAFETY: valid out-pointer; a device of an initialized driver.
    check(unsafe { ffi::cuCtxCreate_v2(&raw mut raw, 0, device.as_raw()) })?;
    let mut popped = core::ptr::null_mut();
    // SAFETY: `cuCtxCreate` pushed `raw` on this thread; valid out-pointer.
    let adopted = check(unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) })
        // SAFETY: a live `cuCtxCreate`d context, on no thread's stack once popped, handed over:
        // nothing else destroys it.
        .and_then(|()| unsafe { Context::from_raw(raw) });
    match adopted {
        Ok(ctx) => {
            stack.with_pushed(&ctx, |g| g.alloc_from(&[3u32; 4])?.to_vec())??;
            ctx.destroy()
        }
        Err(e) => {
            // SAFETY: still ours (not adopted), destroyed once; the double pops it if it is
            // still on top.
            let _ = unsafe { ffi::cuCtxDestroy_v2(raw) };
            Err(e)
        }
    }
}

/// Module variables, JIT options and logs, a linker, function attributes and occupancy, a
/// typed kernel, the module's function list, and a global read while a parked declared kernel
/// of the module may run.
fn module_globals(ctx: &Context) -> Result<u32> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let options = custack::JitOptions {
        optimization_level: Some(3),
        max_registers: Some(32),
        line_info: true,
        ..custack::JitOptions::default()
    };
    let (mut module, _log) = guard.load_ptx_with(KERNELS, &options)?;
    let _ = module.global_address("counters")?;
    let counters = module.global::<u32>("counters")?.to_vec()?;
    module
        .global_mut::<u32>("counters")?
        .copy_from_host(&[0; 4])?;
    let add = module.function("add_u32")?;
    // (param_layout needs driver 12.4: run by `newer`, the double reporting 13.0.)
    let _ = (add.max_threads_per_block()?, add.attributes()?);
    add.set_max_dynamic_shared_mem(0)?;
    add.set_cache_config(custack::CacheConfig::PreferShared)?;
    let _ = (
        add.suggested_block_size(0)?,
        add.suggested_block_size_with(&|block| block as usize * 4)?,
        add.max_active_blocks_per_sm(256, 0)?,
    );
    let typed = module.kernel::<(custack::DevicePtr<u32>, u32, u32)>("add_u32")?;
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    guard.stream()?.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
        unsafe {
            s.launch_kernel(
                &typed,
                LaunchConfig::for_elements(N32),
                (&mut dx, 2u32, N32),
            )
        }
    })??;
    // A typed kernel owned by a submission, with the buffer it writes.
    let (x, _typed) = guard
        .stream()?
        .submit((x, typed), |s, (mut dx, typed)| {
            // SAFETY: as above.
            unsafe {
                s.launch_kernel(
                    &typed,
                    LaunchConfig::for_elements(N32),
                    (&mut dx, 1u32, N32),
                )
            }
        })?
        .wait()?;
    // (module.functions() needs driver 12.4: run by `newer`, the double reporting 13.0.)
    let mut linker = guard.linker(&custack::JitOptions::default())?;
    linker.add_ptx("kernels.ptx", KERNELS)?;
    let (image, _log) = linker.complete()?;
    let _ = image.as_bytes().len();
    let linked = guard.load_linked(&image)?;
    drop(linker);
    linked.unload()?;
    let mut from_file = guard.linker(&custack::JitOptions::default())?;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/kernels.ptx"
    );
    // SAFETY: the fixture is PTX text (the checking driver does not read it).
    unsafe {
        from_file.add_file(
            custack::ffi::CUjitInputType::CU_JIT_INPUT_PTX,
            path.as_ref(),
        )
    }?;
    drop(from_file.complete()?);
    drop(from_file);
    // Binary images through the header checks (the checking driver reads only their magic).
    let mut cubin = [0u8; 64];
    cubin[..5].copy_from_slice(b"\x7fELF\x02");
    // SAFETY: an ELF64 header that declares no section and no program header beyond itself.
    unsafe { guard.load_cubin(&cubin) }?.unload()?;
    let mut fatbin = [0u8; 16];
    fatbin[..4].copy_from_slice(&0xBA55_ED50u32.to_le_bytes());
    fatbin[6..8].copy_from_slice(&16u16.to_le_bytes());
    // SAFETY: a fatbin header whose size fields say the image ends with it.
    unsafe { guard.load_fatbin(&fatbin) }?.unload()?;
    // A declared kernel that writes the module's global, launched in a submission that is
    // parked (it parks as `()`): the global is read while the kernel may still run, and the read
    // waits for the context first.
    let count = module.declared::<CountThreads>()?;
    let pending = guard.park_submission(guard.stream()?.submit(count, |s, count| {
        s.run(&count, LaunchConfig::for_elements(256), ())
    })?);
    let after = module.global::<u32>("counters")?.to_vec()?;
    pending.wait()?;
    module.unload()?;
    Ok(counters.iter().sum::<u32>() + after.iter().sum::<u32>() + x.to_vec()?.len() as u32)
}

/// A kernel function borrowed by raw handle (`function_from_raw`, as for a module that other
/// code loaded): its module is parked under a first push and kept loaded, by the parked value
/// declared before the second guard, until after that guard is gone.
fn borrowed_function(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let (_kept, raw) = stack.with_pushed(ctx, |g| -> Result<_> {
        let module = g.load_ptx(KERNELS)?;
        let raw = module.function("add_u32")?.as_raw();
        Ok((g.park_module(module), raw))
    })??;
    let guard = stack.push(ctx)?;
    // SAFETY: `raw` is `add_u32` of a module loaded in this context, which `_kept` keeps
    // loaded until after `guard` (declared after it) is dropped.
    let add = unsafe { guard.function_from_raw(raw) };
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    guard.stream()?.scope(|s| {
        let dx = s.bind_mut(&mut x);
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (dx, 1u32, N32)) }
    })??;
    x.to_vec() // then `x`, `add` and `guard` drop, and `_kept` after them
}

/// Memory pools, pitched 2D memory and registered host memory, in and out of scopes.
fn memory_kinds(ctx: &Context) -> Result<Vec<f32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let default_pool = guard.default_mem_pool()?;
    let pool = guard.create_mem_pool()?;
    pool.set_release_threshold(1 << 20)?;
    let _ = (
        pool.release_threshold()?,
        pool.usage()?,
        default_pool.usage()?,
    );
    let (w, h) = (100, 7);
    let mut image = guard.alloc_pitched::<f32>(w, h)?;
    image.copy_from_host(&vec![0.5; w * h])?;
    let rows = image.to_vec()?;
    let mut host = vec![1.0f32; 64];
    let registered = guard.register_host(&mut host)?;
    let mut vec = guard.register_vec(vec![2.0f32; 64])?;
    let mut back = vec![0.0f32; w * h];
    stream.scope(|s| -> Result<()> {
        let mut tmp = s.alloc_from_pool::<f32>(&pool, 64)?;
        s.copy_to_device(&mut tmp, &*registered)?;
        s.copy_to_host(&mut *vec, &tmp)?;
        let mut p = s.bind_pitched(&mut image);
        s.copy_to_pitched(&mut p, &rows)?;
        s.copy_from_pitched(&mut back, &p)
    })??;
    // Scratch memory from the pool in a submission: the pool is named when the allocation is
    // enqueued, not borrowed for the submission.
    let scratch = stream
        .submit(vec![0.0f32; 64], |s, host| {
            let mut tmp = s.alloc_from_pool::<f32>(&pool, 64)?;
            s.fill_u32(&mut tmp, 0)?;
            s.copy_to_host(host, &tmp)
        })?
        .wait()?;
    pool.trim_to(0)?;
    registered.unregister()?;
    // The registered vector and a buffer owned by a submission, parked (it then borrows the
    // context only), polled and waited for.
    let pending = stream.submit((vec, guard.alloc::<f32>(64)?), |s, (host, mut dev)| {
        s.fill_u32(&mut dev, 0)?;
        s.copy_to_host(host, &dev)
    })?;
    let pending = guard.park_submission(pending);
    let _ = pending.is_complete()?;
    let (vec, dev) = pending.wait()?;
    // Synchronous copies and memsets between buffers, the pointer's attributes, the
    // context's free memory, and explicit frees.
    let mut dev = guard.attach(dev)?;
    let mut other = guard.alloc_zeroed::<f32>(64)?;
    other.fill_u16(0x3f80)?;
    dev.copy_from_device(&other)?;
    let _ = (dev.pointer_attributes()?, guard.memory_info()?);
    dev.free()?;
    other.free()?;
    guard.alloc_pinned::<u8>(16)?.free()?;
    let mut out = vec.into_vec()?;
    out.extend_from_slice(&rows);
    out.extend_from_slice(&back);
    out.extend_from_slice(&scratch);
    image.free()?;
    drop((pool, default_pool));
    Ok(out)
}

/// Managed memory: host access as slices, advice, a range attribute, prefetches in a scope.
/// (Native runs only: the host sees managed memory at the device address, an integer, so this
/// program cannot run under Miri's strict provenance.)
fn managed(ctx: &Context) -> Result<u32> {
    use custack::Location;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let device = guard.device()?;
    let mut m = guard.alloc_managed::<u32>(N)?;
    m.fill(3);
    m.advise(
        custack::ffi::CUmem_advise::CU_MEM_ADVISE_SET_READ_MOSTLY,
        Location::Device(device),
    )?;
    let _ =
        m.range_attribute(custack::ffi::CUmem_range_attribute::CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    guard.stream()?.scope(|s| -> Result<()> {
        let mut dm = s.bind_mut(&mut m);
        s.prefetch(&dm, Location::Device(device))?;
        s.fill_u32(&mut dm, 4)?;
        // A contract launch on managed memory: bound like device memory, its length checked.
        s.run(&add, LaunchConfig::for_elements(N32), (&mut dm, 0, N32))?;
        s.prefetch(&dm, Location::Host)
    })??;
    // Owned by a submission, then touched on the host again.
    let mut m = guard
        .stream()?
        .submit(m, |s, mut dm| s.fill_u32(&mut dm, 5))?
        .wait()?;
    m[0] = 4;
    let sum = m.iter().sum();
    m.free()?;
    Ok(sum)
}

/// Libraries: context-independent loading, a kernel's function in two contexts, launches.
fn library(a: &Context, b: &Context) -> Result<()> {
    let library = custack::Library::load_ptx(Driver::init()?, KERNELS)?;
    let add = library.kernel("add_u32")?;
    let mut stack = Stack::new()?;
    for ctx in [a, b] {
        stack.with_pushed(ctx, |guard| -> Result<()> {
            let f = guard.library_function(&add)?;
            let _ = f.attributes()?;
            let mut x = guard.alloc_zeroed::<u32>(N)?;
            guard.stream()?.scope(|s| {
                let dx = s.bind_mut(&mut x);
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
                unsafe { s.launch_library(&f, LaunchConfig::for_elements(N32), (dx, 1u32, N32)) }
            })??;
            x.free()
        })??;
    }
    library.unload()
}

/// Virtual memory management: a reservation filled, then grown by mapping a second physical
/// allocation after the first (unmapped and mapped again), copies and memsets on the mapping and
/// on a view of it in a scope, and a read-only mapping shown twice; everything unmapped,
/// released and freed on drop.
fn vmm(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let g = guard.allocation_granularity()?;
    let space = guard.reserve(4 * g)?;
    let mut first = guard.create_physical(g)?;
    {
        let mut small = space.map::<u32, _>(&guard, [&mut first])?;
        small.fill_u32(7)?;
    }
    let mut second = guard.create_physical(g)?;
    let stream = guard.stream()?;
    let host = vec![1u32; N];
    let mut out = vec![0u32; N];
    {
        let mut grown = space.map::<u32, _>(&guard, [&mut first, &mut second])?;
        let mut head = grown.slice_mut(..N)?;
        stream.scope(|s| -> Result<()> {
            let mut d = s.bind_mut(&mut head);
            s.copy_to_device(&mut d, &host)?;
            s.fill_u32(&mut d, 2)?;
            s.copy_to_host(&mut out, &d)
        })??;
        grown.fill_bytes(0)?;
    }
    let table = guard.reserve(2 * g)?;
    let shared = table.map_read_only::<u32, _>(&guard, &[&first, &first])?;
    let mut back = shared.slice(..N)?.to_vec()?;
    drop(shared);
    back.extend_from_slice(&out);
    Ok(back)
}

/// VMM memory shared between processes, both ends in this one: physical memory created
/// exportable, exported as a file descriptor, sent with its size over a `UnixStream::pair()`
/// (`send_fd`, `recv_fd`) and imported, after the exporter released its own handle (the import
/// keeps the memory alive); the imported allocation mapped writable (written synchronously and
/// in a stream scope), then read-only twice in one mapping, then taken by `map_owned`; every
/// handle released once. (Under Miri, which has no `sendmsg`, the descriptor is moved instead
/// of sent; the socket helpers are tested natively, in custack's unit tests.)
fn vmm_share(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let g = guard.allocation_granularity()?;
    let exported = guard.create_physical_exportable(g, custack::HandleType::PosixFileDescriptor)?;
    let fd = exported.export_fd()?;
    let (fd, size) = pass_fd(fd, g)?;
    drop(exported);
    let mut imported = guard.import_physical(fd, size)?;
    let space = guard.reserve(2 * g)?;
    let host = vec![3u32; N];
    let mut out = vec![0u32; N];
    {
        let mut mapped = space.map::<u32, _>(&guard, [&mut imported])?;
        mapped.fill_u32(9)?;
        let mut head = mapped.slice_mut(..N)?;
        guard.stream()?.scope(|s| -> Result<()> {
            let mut d = s.bind_mut(&mut head);
            s.copy_to_device(&mut d, &host)?;
            s.copy_to_host(&mut out, &d)
        })??;
    }
    {
        let shared = space.map_read_only::<u32, _>(&guard, &[&imported, &imported])?;
        out.extend(shared.slice(..N)?.to_vec()?);
    }
    let owned = space.map_owned::<u32, _>(&guard, vec![imported])?;
    out.extend(owned.slice(..N)?.to_vec()?);
    Ok(out)
}

/// Sends `fd` and `size` over a socket pair and receives them, as two processes would.
#[cfg(not(miri))]
fn pass_fd(fd: std::os::fd::OwnedFd, size: usize) -> Result<(std::os::fd::OwnedFd, usize)> {
    use std::os::fd::AsFd;
    let (a, b) = std::os::unix::net::UnixStream::pair()
        .map_err(|e| custack::Error::new(custack::ErrorKind::Io, "a socket pair").with_source(e))?;
    custack::send_fd(&a, fd.as_fd(), &(size as u64).to_le_bytes())?;
    drop(fd); // the receiver's descriptor is its own
    let (fd, bytes) = custack::recv_fd(&b)?;
    let size = <[u8; 8]>::try_from(bytes.as_slice()).map_or(0, u64::from_le_bytes);
    Ok((fd, size as usize))
}

/// Under Miri (no `sendmsg`): the descriptor is moved, not sent.
#[cfg(miri)]
fn pass_fd(fd: std::os::fd::OwnedFd, size: usize) -> Result<(std::os::fd::OwnedFd, usize)> {
    Ok((fd, size))
}

/// Peer access and peer copies between two contexts: B's buffer parked beside A's guard,
/// copied from and to synchronously, and in a stream scope of A's (both directions, B's
/// buffers borrowed by the scope); peer
/// access enabled from A to B while it is used, then disabled; a second enabling of the same
/// access ("already enabled") leaves it as found.
fn peer(a: &Context, b: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let (parked_b, mut out_b) = stack.with_pushed(b, |gb| -> Result<_> {
        Ok((
            gb.park(gb.alloc_from(&vec![1u32; N])?),
            gb.park(gb.alloc::<u32>(N)?),
        ))
    })??;
    let guard = stack.push(a)?;
    let access = guard.enable_peer_access(b)?;
    let again = guard.enable_peer_access(b)?; // already enabled: dropping it changes nothing
    drop(again);
    let mut mine = guard.alloc::<u32>(N)?;
    guard.copy_from_peer(&mut mine, &parked_b)?;
    guard.copy_to_peer(&mut out_b, &mine)?;
    let stream = guard.stream()?;
    let mut second = guard.alloc::<u32>(N)?;
    stream.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut second);
        s.copy_from_peer(&mut d, &parked_b)?;
        s.fill_u32(&mut d, 3)?;
        s.copy_to_peer(&mut out_b, &d)
    })??;
    drop(access);
    let mut back = second.to_vec()?;
    back.extend(mine.to_vec()?);
    drop((mine, second, stream));
    guard.pop()?;
    back.extend(stack.with_pushed(b, |gb| -> Result<Vec<u32>> {
        let (x, y) = (gb.attach(parked_b)?, gb.attach(out_b)?);
        let mut v = x.to_vec()?;
        v.extend(y.to_vec()?);
        Ok(v)
    })??);
    Ok(back)
}

/// IPC: a buffer exported as a handle (its bytes round-tripped as another process would receive
/// them) and opened, written in a stream scope and synchronously, read back, closed on drop
/// before the exporter frees its buffer; then an event exported and opened the same way,
/// recorded on one stream and waited for on another, destroyed before the exporter's. (A real
/// driver refuses to open a handle in the process that exported it; the double accepts it, so
/// that both sides run here.)
fn ipc(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let exported = guard.alloc_from(&vec![4u32; N])?;
    let handle = custack::IpcMemHandle::from_bytes(exported.ipc_handle()?.to_bytes());
    // SAFETY: `exported` outlives the opening, holds N elements, and is opened once; nothing
    // else reaches it while the opening lives.
    let mut opened = unsafe { guard.open_ipc::<u32>(&handle, N) }?;
    let mut out = vec![0u32; N];
    guard.stream()?.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut opened);
        s.fill_u32(&mut d, 5)?;
        s.copy_to_host(&mut out, &d)
    })??;
    opened.fill_u32(6)?;
    out.extend(opened.to_vec()?);
    drop(opened);
    exported.free()?;
    // An event shared the same way: exported, opened (as another process would), recorded on
    // one stream and waited for on another; the opened event is destroyed like any.
    let exported =
        guard.event(custack::EventFlags::INTERPROCESS | custack::EventFlags::DISABLE_TIMING)?;
    let handle = custack::IpcEventHandle::from_bytes(exported.ipc_handle()?.to_bytes());
    // SAFETY: `exported` outlives the opening (dropped after it below).
    let opened = unsafe { guard.open_ipc_event(&handle) }?;
    guard.stream()?.scope(|s| s.record(&exported))??;
    guard.stream()?.scope(|s| s.wait(&opened))??;
    drop(opened);
    drop(exported);
    Ok(out)
}

/// Runs a future to completion on this thread (a waker that unparks it).
fn block_on<F: std::future::IntoFuture>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut f = std::pin::pin!(f.into_future());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// Concurrency in the host-call path: 4 threads, each with a context of its
/// own and all sharing one, make 6 submissions in each, every third with a host function that
/// panics, and wait for them in reverse order, every other one as a future. In a run where no
/// call failed, every panic must be reported exactly once, by a wait of its own context: the
/// counts are compared per own context and in total for the shared one.
fn stress(shared: &Context) -> Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Unwind>() {
            quiet(info);
        }
    }));
    let (shared_raised, shared_reported) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let failed = AtomicUsize::new(0);
    // One context's round: returns (raised, reported) or the first error.
    let round = |ctx: &Context, seed: usize| -> Result<(usize, usize)> {
        let mut stack = Stack::new()?;
        let guard = stack.push(ctx)?;
        let stream = guard.stream()?;
        let (mut raised, mut reported) = (0, 0);
        let mut pending = Vec::new();
        for k in 0..6 {
            let panics = (k + seed).is_multiple_of(3);
            pending.push(stream.submit(vec![k as u32], move |s, _| {
                s.host_fn(move || {
                    if panics {
                        std::panic::panic_any(Unwind);
                    }
                })
            })?);
            raised += usize::from(panics);
        }
        let mut first_error = None;
        let mut note = |r: Result<Vec<u32>>| match r {
            Ok(_) => {}
            Err(e) if e.kind() == custack::ErrorKind::HostFunctionPanicked => reported += 1,
            Err(e) => {
                first_error.get_or_insert(e);
            }
        };
        for (i, submission) in pending.into_iter().rev().enumerate() {
            if i % 2 == 0 {
                note(block_on(submission));
            } else {
                note(submission.wait());
            }
        }
        note(stream.synchronize().map(|()| Vec::new()));
        drop(stream);
        guard.pop()?;
        match first_error {
            Some(e) => Err(e),
            None => Ok((raised, reported)),
        }
    };
    std::thread::scope(|t| {
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let (round, shared) = (&round, shared);
                let (sr, sp, failed) = (&shared_raised, &shared_reported, &failed);
                t.spawn(move || -> Result<()> {
                    let own = context0()?;
                    let r = round(&own, i).and_then(|(raised, reported)| {
                        assert_eq!(raised, reported, "thread {i}: panics raised, reported");
                        let (raised, reported) = round(shared, i)?;
                        sr.fetch_add(raised, SeqCst);
                        sp.fetch_add(reported, SeqCst);
                        Ok(())
                    });
                    drop(own); // its destroy's error, too, is this thread's
                    // Drop errors are logged per thread: a worker hands its own on as its error.
                    let r = match custack::take_drop_errors().into_iter().next() {
                        Some(e) => r.and(Err(e)),
                        None => r,
                    };
                    if r.is_err() {
                        failed.fetch_add(1, SeqCst);
                    }
                    r
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Result<Vec<()>>>()
    })?;
    if failed.load(SeqCst) == 0 {
        // The shared context's reports may land in any thread's wait, but all of them, once.
        assert_eq!(shared_raised.load(SeqCst), shared_reported.load(SeqCst));
    }
    Ok(())
}

/// The example's shape (examples/01_vector_add.rs): a floating context, a guard, a module,
/// page-locked and device memory, one stream scope with copies and a launch.
fn example() -> Result<()> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let _ = (
        device.name()?,
        device.compute_capability()?,
        device.total_memory()?,
        driver.version()?,
    );
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.function("vector_add")?;
    let stream = guard.stream()?;
    let a = guard.alloc_pinned::<f32>(N)?;
    let b = guard.alloc_pinned::<f32>(N)?;
    let mut c = guard.alloc_pinned::<f32>(N)?;
    let mut da = guard.alloc::<f32>(N)?;
    let mut db = guard.alloc::<f32>(N)?;
    let mut dc = guard.alloc::<f32>(N)?;
    stream.scope(|s| -> Result<()> {
        let (mut da, mut db, mut dc) = (
            s.bind_mut(&mut da),
            s.bind_mut(&mut db),
            s.bind_mut(&mut dc),
        );
        s.copy_to_device(&mut da, &a)?;
        s.copy_to_device(&mut db, &b)?;
        // SAFETY: under the checking driver no kernel runs; on a GPU `vector_add` reads `n`
        // floats of its first two arguments and writes `n` of the third, each holding `n`.
        unsafe {
            s.launch(
                &vector_add,
                LaunchConfig::for_elements(N32),
                (&da, &db, &mut dc, N32),
            )?
        };
        s.copy_to_host(&mut c, &dc)
    })??;
    Ok(())
}

/// Kernels computed on the CPU by stand-ins: `vector_add` in a scope, and `add_u32`
/// in a captured graph launched twice. Whenever every call succeeded the results are the CPU's
/// (a wrong value panics: the harness counts it).
fn stand_ins() -> Result<()> {
    let driver = Driver::init()?;
    // SAFETY: as the kernel, the stand-in reads n floats of `a` and `b` and writes n of `c`.
    let vector_add_on_cpu = unsafe {
        StandIn::register(&driver, "vector_add", |call| {
            let n = call.arg::<u32>(3)? as usize;
            let a = call.read::<f32>(call.arg(0)?, n)?;
            let b = call.read::<f32>(call.arg(1)?, n)?;
            let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            call.write(call.arg(2)?, &c)?;
            Ok(())
        })
    }?;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n).
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&driver, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            v.iter_mut().for_each(|e| *e += k);
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    assert!(
        vector_add_on_cpu.is_active(),
        "the checking driver runs stand-ins"
    );
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.function("vector_add")?;
    let stream = guard.stream()?;
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| 2.0 * i as f32).collect();
    let mut c = vec![0f32; N];
    let mut da = guard.alloc::<f32>(N)?;
    let mut db = guard.alloc::<f32>(N)?;
    let mut dc = guard.alloc::<f32>(N)?;
    stream.scope(|s| -> Result<()> {
        let (mut da, mut db, mut dc) = (
            s.bind_mut(&mut da),
            s.bind_mut(&mut db),
            s.bind_mut(&mut dc),
        );
        s.copy_to_device(&mut da, &a)?;
        s.copy_to_device(&mut db, &b)?;
        // SAFETY: `vector_add` reads `n` floats of its first two arguments and writes `n` of
        // the third, each holding `n` (here: its stand-in does).
        unsafe {
            s.launch(
                &vector_add,
                LaunchConfig::for_elements(N32),
                (&da, &db, &mut dc, N32),
            )?
        };
        s.copy_to_host(&mut c, &dc)
    })??;
    assert!(
        c.iter().enumerate().all(|(i, x)| *x == 3.0 * i as f32),
        "vector_add's stand-in computed {:?}...",
        &c[..4]
    );
    // A captured launch runs at each launch of the graph, after the captured copy.
    let mut input = guard.alloc_pinned::<u32>(N)?;
    input.fill(1);
    let payload = (
        input,
        guard.alloc::<u32>(N)?,
        module.function("add_u32")?,
        vec![0u32; N],
    );
    let graph = stream.capture(payload, |s, (input, mut dev, add, out)| {
        s.copy_to_device(&mut dev, input)?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); `dev` holds n elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 5u32, N32)) }?;
        s.copy_to_host(out, &dev)
    })?;
    let mut exec = graph.instantiate()?;
    for round in [10u32, 20] {
        exec.payload_mut().0.fill(round);
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        let out = &exec.payload().3;
        assert!(
            out.iter().all(|x| *x == round + 5),
            "add_u32's stand-in gave {}",
            out[0]
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Kernel contracts: every shape launched safely in a scope, a submission and a graph
// capture; a buffer one element short and an overflowing extent refused with no launch reaching
// the driver (R12); a declaration that disagrees with the PTX refused at lookup (R13).

const CONTRACT_KERNELS: &str = include_str!("../../../tests/fixtures/contracts.ptx");

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// The same kernel declared with a 64-bit `k`: the PTX says 32 bits.
    unsafe kernel AddU32Wide = "add_u32"(x: &mut [u32; n], k: u64, n: u32);
    /// `scale_u32(unsigned* x, unsigned rows, unsigned cols, unsigned k)`.
    unsafe kernel ScaleU32 = "scale_u32"(x: &mut [u32; rows * cols], rows: u32, cols: u32, k: u32);
    /// The same kernel with a stricter extent, whose arithmetic can overflow.
    unsafe kernel ScaleU32Strict = "scale_u32"(
        x: &mut [u32; rows * cols * k],
        rows: u32,
        cols: u32,
        k: u32,
    );
    /// `fill_rows(unsigned* img, size_t pitch, unsigned width, unsigned height, unsigned v)`.
    unsafe kernel FillRows = "fill_rows"(
        img: &mut [u32; pitched(height, pitch)],
        pitch: u64,
        width: u32,
        height: u32,
        value: u32,
    );
    /// `iota(unsigned* x)`: one element per launched thread.
    unsafe kernel Iota = "iota"(x: &mut [u32; grid]);
    /// The same kernel declared with stricter clauses: dynamic shared memory and a largest block.
    unsafe kernel IotaClauses = "iota"(x: &mut [u32; grid]) shared(block * 4) max_block(256, 1, 1);
    /// The same kernel declared cooperative (as a kernel with a grid-wide barrier would be):
    /// `run_cooperative` only.
    unsafe kernel IotaCooperative = "iota"(x: &mut [u32; grid]) max_block(256, 1, 1) cooperative;
    /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    unsafe kernel CountThreads = "count_threads"();
    /// `row_offsets(unsigned* offsets, unsigned char n)`: `offsets[i] = i` for `i <= n`.
    unsafe kernel RowOffsets = "row_offsets"(offsets: &mut [u32; (n + 1)], n: u8);
    /// `cluster_ids(uint2* out)`: block `b` writes its rank in its cluster of 2 and its
    /// cluster's index to `out[b]`: written for clusters of 2 blocks.
    unsafe kernel ClusterIds = "cluster_ids"(out: &mut [[u32; 2]; blocks]) cluster(2, 1, 1);
    /// `index_2d(unsigned* out, unsigned width)`: `out[y * width + x] = y * width + x` per
    /// launched thread, no bounds check.
    unsafe kernel Index2d = "index_2d"(out: &mut [u32; grid_y * width], width: u32)
        requires(width > 0, grid_x <= width, blocks_z == 1);
}

/// `index_2d` on the CPU, indexing exactly as the kernel does, past the buffer too if a launch
/// let it: the checking driver then reports the write outside its allocation.
fn index_2d_on_cpu(
    call: &custack::KernelCall<'_>,
) -> core::result::Result<(), custack::StandInError> {
    let (out, width) = (call.arg::<u64>(0)?, u64::from(call.arg::<u32>(1)?));
    let (grid, block) = (call.grid(), call.block());
    let threads = |axis: usize| u64::from(grid[axis]) * u64::from(block[axis]);
    for _layer in 0..threads(2) {
        for y in 0..threads(1) {
            let row: Vec<u32> = (0..threads(0)).map(|x| (y * width + x) as u32).collect();
            call.write(out + 4 * y * width, &row)?;
        }
    }
    Ok(())
}

// The double's call counters (`benches/nulldriver`): this program only runs linked to it.
unsafe extern "C" {
    fn nulldriver_set_counting(on: core::ffi::c_int);
    fn nulldriver_entry_count() -> usize;
    fn nulldriver_entry_name(i: usize) -> *const core::ffi::c_char;
    fn nulldriver_counts(out: *mut u64, cap: usize) -> usize;
}

/// How many kernel launches of any kind have reached the driver since counting began.
fn launches_seen() -> u64 {
    calls_seen(|name| name.starts_with(b"cuLaunch"))
}

/// How many calls of the entry points `which` names have reached the driver since counting
/// began (this call turns counting on).
fn calls_seen(which: impl Fn(&[u8]) -> bool) -> u64 {
    // SAFETY: the double's counter functions take no pointer (these two) or a buffer of `cap`
    // counters (below); the names are NUL-terminated statics or null.
    let n = unsafe {
        nulldriver_set_counting(1);
        nulldriver_entry_count()
    };
    let mut counts = vec![0u64; n];
    // SAFETY: `counts` holds `n` counters.
    unsafe { nulldriver_counts(counts.as_mut_ptr(), n) };
    (0..n)
        .filter(|&i| {
            // SAFETY: as above.
            let name = unsafe { nulldriver_entry_name(i) };
            // SAFETY: a NUL-terminated static name, checked non-null.
            !name.is_null() && which(unsafe { core::ffi::CStr::from_ptr(name) }.to_bytes())
        })
        .filter_map(|i| counts.get(i).copied())
        .sum()
}

/// `run`'s refusal of a launch, which must be `kind` and reach no driver entry point.
/// A graph built node by node (C28): a memset, a declared kernel checked against its contract,
/// copies to, within and from the device, an event record and wait, a child graph; instantiated
/// and launched in a submission and in a scope. Then a build whose kernel node its contract
/// refuses: the graph is destroyed and its payload dropped, nothing launched.
fn graph_built(ctx: &Context) -> Result<Vec<u32>> {
    use std::rc::Rc;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n): the results below are the
    // CPU's whenever every call succeeded.
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&Driver::init()?, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            v.iter_mut().for_each(|e| *e += k);
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let child = guard.build_graph(guard.alloc::<u32>(N)?, |b, mut d| {
        b.fill_u32(&mut d, 3, &[])?;
        Ok(())
    })?;
    let event = Rc::new(guard.event(EventFlags::DISABLE_TIMING)?);
    let payload = (
        guard.alloc::<u32>(N)?,
        guard.alloc::<u32>(N)?,
        module.declared::<AddU32>()?,
        vec![0u32; N],
        Rc::clone(&event),
        child,
        vec![7u32; N],
    );
    let graph = guard.build_graph(payload, |b, (mut x, mut y, add, out, ev, child, input)| {
        let up = b.copy_to_device(&mut x, input, &[])?;
        let set = b.fill_u32(&mut y, 1, &[])?;
        let cfg = LaunchConfig::for_elements(N32);
        let added = b.kernel(&add, cfg, (&mut x, 5u32, N32), &[up])?;
        let copied = b.copy_device(&mut y, &x, &[added, set])?;
        let recorded = b.record(&ev, &[copied])?;
        let waited = b.wait(&ev, &[recorded])?;
        let sub = b.child(&child, &[])?;
        b.copy_to_host(out, &y, &[waited, sub])?;
        Ok(())
    })?;
    let _ = graph.node_count()?;
    // The DOT file, where the process may write files (Miri isolates it from the file system).
    if !cfg!(miri) {
        let dot =
            std::env::temp_dir().join(format!("custack-graph-built-{}.dot", std::process::id()));
        graph.write_dot(&dot, custack::DotFlags::VERBOSE)?;
        let text = std::fs::read_to_string(&dot).unwrap_or_default();
        let _ = std::fs::remove_file(&dot);
        assert!(text.starts_with("digraph"), "a DOT file: {text:?}");
    }
    let mut exec = graph.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)
    })??;
    let out = exec.payload().3.to_vec();
    assert!(out.iter().all(|&v| v == 12), "7 + 5 copied out");
    // The kernel node's parameters updated in place: a new scalar over the same buffer, then
    // an update past the buffer's extent, refused before the driver sees it.
    exec.update_kernels(|u, (mut x, _, add, ..)| {
        let node = u.kernel_node(&add, 0)?;
        u.set_kernel(node, LaunchConfig::for_elements(N32), (&mut x, 9u32, N32))?;
        match u.set_kernel(
            node,
            LaunchConfig::for_elements(2 * N32),
            (&mut x, 1u32, 2 * N32),
        ) {
            Err(e) if e.kind() == custack::ErrorKind::BufferTooShort => {}
            other => panic!("an update past the buffer's extent: {other:?}"),
        }
        match u.kernel_node(&add, 1) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => Ok(()),
            other => panic!("a second node of one kernel node: {other:?}"),
        }
    })?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let updated = exec.payload().3.to_vec();
    assert!(updated.iter().all(|&v| v == 16), "7 + 9 copied out");
    drop(exec);
    let short = (guard.alloc::<u32>(8)?, module.declared::<AddU32>()?);
    let refused = guard.build_graph(short, |b, (mut x, add)| {
        b.kernel(
            &add,
            LaunchConfig::for_elements(N32),
            (&mut x, 1u32, N32),
            &[],
        )?;
        Ok(())
    });
    match refused {
        Err(e) if e.kind() == custack::ErrorKind::BufferTooShort => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a kernel node past its buffer's extent was made"),
    }
    Ok(out)
}

/// A replay arena (C28): device memory reserved once, two buffers lent from it, a graph built
/// over them and one captured over them, each replayed three times in scopes at the same
/// addresses; the results read back, a request past the arena's capacity refused without a
/// driver call, and the arena reset once the graphs are gone (a context synchronize) and
/// dropped (a synchronize, then its one free). Then the device's graph-memory pool: its figures,
/// its high watermarks reset, a trim.
fn graph_arena(ctx: &Context) -> Result<()> {
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n): the results below are the
    // CPU's whenever every call succeeded.
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&Driver::init()?, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            v.iter_mut().for_each(|e| *e += k);
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let mut arena = guard.replay_arena(4 * N * 4)?;
    {
        let (mut x, y) = (arena.buffer::<u32>(N)?, arena.buffer::<u32>(N)?);
        let at = (x.device_ptr(), y.device_ptr());
        x.copy_from_host(&[1u32; N])?;
        let payload = (x, y, module.declared::<AddU32>()?);
        let built = guard.build_graph(payload, |b, (mut x, mut y, add)| {
            let cfg = LaunchConfig::for_elements(N32);
            let added = b.kernel(&add, cfg, (&mut x, 2u32, N32), &[])?;
            b.copy_device(&mut y, &x, &[added])?;
            Ok(())
        })?;
        let mut exec = built.instantiate()?;
        for _ in 0..3 {
            stream.scope(|s| s.launch_graph(&s.bind_graph(&mut exec)))??;
            let (x, y, _) = exec.payload();
            assert_eq!((x.device_ptr(), y.device_ptr()), at, "replayed in place");
        }
        let (x, y, _) = exec.payload();
        assert_eq!(x.to_vec()?, vec![7u32; N], "1 + 3 * 2");
        assert_eq!(y.to_vec()?, vec![7u32; N]);
        let z = arena.buffer::<u32>(N)?;
        let at_z = z.device_ptr();
        let captured = stream.capture((z, module.declared::<AddU32>()?), |s, (mut z, add)| {
            s.run(&add, LaunchConfig::for_elements(N32), (&mut z, 5u32, N32))
        })?;
        let mut replay = captured.instantiate()?;
        replay.payload_mut().0.copy_from_host(&[0u32; N])?;
        for _ in 0..3 {
            stream.scope(|s| s.launch_graph(&s.bind_graph(&mut replay)))??;
        }
        assert_eq!(replay.payload().0.device_ptr(), at_z);
        assert_eq!(replay.payload().0.to_vec()?, vec![15u32; N], "3 * 5");
        let refused = arena.buffer::<u32>(N + 1).map(drop);
        assert_eq!(
            refused.map_err(|e| e.kind()),
            Err(custack::ErrorKind::OutOfMemory)
        );
    }
    arena.reset()?;
    assert_eq!(arena.remaining(), arena.capacity());
    drop(arena);
    // The device's graph-memory pool, which an arena's graphs never touch: its figures read,
    // its high watermarks reset, a figure only the pool sets refused first, then a trim.
    let device = Driver::init()?.device(0)?;
    for figure in [
        GraphMem::Used,
        GraphMem::UsedHigh,
        GraphMem::Reserved,
        GraphMem::ReservedHigh,
    ] {
        let _ = device.graph_mem(figure)?;
    }
    device.reset_graph_mem_high(GraphMem::UsedHigh)?;
    device.reset_graph_mem_high(GraphMem::ReservedHigh)?;
    let refused = device.reset_graph_mem_high(GraphMem::Used);
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(custack::ErrorKind::InvalidValue)
    );
    device.graph_mem_trim()?;
    Ok(())
}

/// Graphs that survive instantiation: two executable graphs sharing one built graph's payload
/// (one of them made from a clone, with flags), uploaded and launched in scopes, the node
/// kinds listed, the payload read back once both are gone, and a flag set the driver would
/// refuse refused first; then the memset and memcpy nodes updated in place (to another buffer,
/// another value), and updates that would change a node's kind refused.
fn graph_shared(ctx: &Context) -> Result<Vec<u32>> {
    use custack::InstantiateFlags;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n).
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&Driver::init()?, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            v.iter_mut().for_each(|e| *e += k);
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let payload = (
        guard.alloc::<u32>(N)?,
        module.declared::<AddU32>()?,
        vec![0u32; N],
        guard.alloc::<u32>(N)?,
    );
    let mut graph = guard.build_graph(payload, |b, (mut x, add, out, _y)| {
        let set = b.fill_u32(&mut x, 1, &[])?;
        let added = b.kernel(
            &add,
            LaunchConfig::for_elements(N32),
            (&mut x, 2u32, N32),
            &[set],
        )?;
        b.copy_to_host(out, &x, &[added])?;
        Ok(())
    })?;
    assert_eq!(graph.nodes()?.len(), 3, "three nodes listed");
    {
        let first = graph.instantiate_shared(InstantiateFlags::empty())?;
        let clone = graph.clone_graph()?;
        assert_eq!(clone.nodes()?.len(), 3, "the clone's three nodes");
        let second = clone.instantiate_shared(InstantiateFlags::USE_NODE_PRIORITY)?;
        drop(clone);
        first.upload(&stream)?;
        second.upload(&stream)?;
        stream.scope(|s| {
            s.launch_graph(&s.bind_shared(&first))?;
            s.launch_graph(&s.bind_shared(&second))
        })??;
    }
    let out = graph.payload_mut().2.to_vec();
    assert!(out.iter().all(|&v| v == 3), "1 + 2 copied out");
    match graph
        .instantiate_shared(InstantiateFlags::AUTO_FREE_ON_LAUNCH | InstantiateFlags::DEVICE_LAUNCH)
    {
        Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("AUTO_FREE_ON_LAUNCH with DEVICE_LAUNCH was instantiated"),
    }
    let exec = graph.instantiate_with(InstantiateFlags::AUTO_FREE_ON_LAUNCH)?;
    exec.upload(&stream)?;
    let mut exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert!(exec.payload().2.iter().all(|&v| v == 3));
    // The memset now sets `y` to 10, the copy reads `y`: the kernel's `x` is no longer copied.
    exec.update_nodes(|u, (x, _add, out, mut y)| {
        let fill = u.fill_node(0)?;
        match u.set_fill_bytes(fill, &mut y, 1) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
            other => panic!("a fill_u32 node updated as a byte fill: {other:?}"),
        }
        u.set_fill_u32(fill, &mut y, 10)?;
        let copy = u.copy_node(0)?;
        u.set_copy_to_host(copy, out, &y)?;
        match u.set_copy_device(copy, &mut y, &x) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => {}
            other => panic!("a device-to-host node updated as a device copy: {other:?}"),
        }
        match u.copy_node(1) {
            Err(e) if e.kind() == custack::ErrorKind::InvalidValue => Ok(()),
            other => panic!("a second memcpy node of one: {other:?}"),
        }
    })?;
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    assert!(
        exec.payload().2.iter().all(|&v| v == 10),
        "y set to 10 copied out"
    );
    Ok(out)
}

/// `set_condition(handle cond, const unsigned* value)`, the parameter list of the nvcc kernel
/// of `tests/fixtures/conditional.cu` (the double runs no kernel: only the list counts).
const CONDITIONAL_PTX: &str = "
.version 7.8
.target sm_90
.address_size 64
.visible .entry set_condition(
    .param .u64 set_condition_cond,
    .param .u64 set_condition_value
)
{
    ret;
}
";

custack::kernel_contract! {
    /// `set_condition(cudaGraphConditionalHandle cond, const unsigned* value)`.
    unsafe kernel SetCondition = "set_condition"(cond: conditional, value: &[u32; 1]);
}

/// Conditional nodes of a built graph (C28): reporting 12.5, an IF/ELSE node is refused
/// (`DriverTooOld`, the graph destroyed, its payload dropped); reporting 13.0, a graph with a
/// WHILE node (its body: kernel nodes, one setting the loop's condition, and a nested IF),
/// an IF/ELSE and a SWITCH node, instantiated and launched twice; then a body's kernel node
/// past its buffer's extent, refused, the whole graph destroyed.
fn graph_conditional(ctx: &Context) -> Result<()> {
    use custack::ErrorKind;
    // 12.5: WHILE and IF nodes (12.3), but no IF/ELSE (12.8): the build is refused after its
    // WHILE node, the graph destroyed.
    report_driver_version(12050)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let old = guard.build_graph(guard.alloc::<u32>(N)?, |b, mut x| {
        let set = b.fill_u32(&mut x, 1, &[])?;
        let cond = b.condition(1, true)?;
        let looped = b.while_loop(cond, &[set], |_| Ok(()))?;
        let branch = b.condition(1, true)?;
        b.if_else(branch, &[looped], |_, _| Ok(()))?;
        Ok(())
    });
    match old {
        Err(e) if e.kind() == ErrorKind::DriverTooOld => {}
        Err(e) => return Err(e),
        Ok(_) => return Err(unexpected("an IF/ELSE node made on driver 12.5")),
    }
    report_driver_version(13000)?;
    let module = guard.load_ptx(CONDITIONAL_PTX)?;
    let kernels = guard.load_ptx(KERNELS)?;
    let payload = (
        guard.alloc::<u32>(N)?,
        guard.alloc::<u32>(1)?,
        module.declared::<SetCondition>()?,
        kernels.declared::<AddU32>()?,
        vec![0u32; N],
    );
    let graph = guard.build_graph(payload, |b, (mut x, mut flag, set, add, out)| {
        let cfg = LaunchConfig::for_elements(N32);
        let one = LaunchConfig::for_elements(1);
        let flagged = b.fill_u32(&mut flag, 2, &[])?;
        let again = b.condition(1, true)?;
        let again_handle = again.handle();
        let looped = b.while_loop(again, &[flagged], |body| {
            let added = body.kernel(&add, cfg, (&mut x, 1u32, N32), &[])?;
            let set_again = body.kernel(&set, one, (again_handle, &flag), &[added])?;
            let inner = body.condition(0, true)?;
            let set_inner = body.kernel(&set, one, (inner.handle(), &flag), &[set_again])?;
            body.if_then(inner, &[set_inner], |then| {
                then.fill_u32(&mut x, 5, &[])?;
                Ok(())
            })?;
            Ok(())
        })?;
        let branch = b.condition(0, false)?;
        let set_branch = b.kernel(&set, one, (branch.handle(), &flag), &[looped])?;
        let branched = b.if_else(branch, &[set_branch], |then, otherwise| {
            then.fill_u32(&mut x, 7, &[])?;
            otherwise.kernel(&add, cfg, (&mut x, 2u32, N32), &[])?;
            Ok(())
        })?;
        let which = b.condition(1, true)?;
        let switched = b.switch(which, &[branched], 3, |n, case| {
            case.fill_u32(&mut x, n, &[])?;
            Ok(())
        })?;
        b.copy_to_host(out, &x, &[switched])?;
        Ok(())
    })?;
    let mut exec = graph.instantiate()?;
    let stream = guard.stream()?;
    for _ in 0..2 {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    }
    drop(exec);
    let short = (guard.alloc::<u32>(8)?, kernels.declared::<AddU32>()?);
    let refused = guard.build_graph(short, |b, (mut x, add)| {
        let cond = b.condition(1, true)?;
        b.while_loop(cond, &[], |body| {
            body.kernel(
                &add,
                LaunchConfig::for_elements(N32),
                (&mut x, 1u32, N32),
                &[],
            )?;
            Ok(())
        })?;
        Ok(())
    });
    match refused {
        Err(e) if e.kind() == ErrorKind::BufferTooShort => Ok(()),
        Err(e) => Err(e),
        Ok(_) => Err(unexpected(
            "a body's kernel node past its buffer's extent was made",
        )),
    }
}

fn refused(kind: custack::ErrorKind, launch: impl FnOnce() -> Result<()>) {
    let before = launches_seen();
    match launch() {
        Err(e) if e.kind() == kind => {}
        other => panic!("expected a {kind:?} refusal, got {other:?}"),
    }
    assert_eq!(
        launches_seen(),
        before,
        "a refused launch reached the driver"
    );
}

fn contracts(ctx: &Context) -> Result<Vec<u32>> {
    use custack::{CheckedBy, ErrorKind};
    launches_seen(); // counting on
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let shapes = guard.load_ptx(CONTRACT_KERNELS)?;
    let add = module.declared::<AddU32>()?;
    // The double is driver 12.2, without cuFuncGetParamInfo: checked against the PTX.
    assert_eq!(add.checked_by(), CheckedBy::Ptx);
    match module.declared::<AddU32Wide>() {
        Err(e) if e.kind() == ErrorKind::KernelSignatureMismatch => {
            assert!(e.to_string().contains("parameter 1 `k`"), "{e}");
        }
        Err(e) => return Err(e),
        Ok(_) => panic!("a declaration disagreeing with the PTX was accepted"),
    }
    let scale = shapes.declared::<ScaleU32>()?;
    let strict = shapes.declared::<ScaleU32Strict>()?;
    let fill = shapes.declared::<FillRows>()?;
    let iota = shapes.declared::<Iota>()?;
    let iota_clauses = shapes.declared::<IotaClauses>()?;
    let iota_cooperative = shapes.declared::<IotaCooperative>()?;
    let row_offsets = shapes.declared::<RowOffsets>()?;
    let index_2d = shapes.declared::<Index2d>()?;
    // SAFETY: as the kernel, the stand-in writes out[y * width + x] for every launched thread.
    let _index_2d_on_cpu =
        unsafe { StandIn::register(&Driver::init()?, "index_2d", index_2d_on_cpu) }?;
    let mut rows2d = guard.alloc_zeroed::<u32>(96 * 7)?;
    let clusters = guard.load_ptx(include_str!("../../../tests/fixtures/cluster.ptx"))?;
    let cluster_ids = clusters.declared::<ClusterIds>()?;
    let mut ids = guard.alloc_zeroed::<[u32; 2]>(8)?;
    let stream = guard.stream()?;
    let cfg = LaunchConfig::for_elements(N32);
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    let mut grid = guard.alloc_zeroed::<u32>(1024)?;
    let mut image = guard.alloc_pitched::<u32>(100, 7)?;
    let pitch = image.pitch_bytes() as u64;
    stream.scope(|s| -> Result<()> {
        let mut dx = s.bind_mut(&mut x);
        let mut dg = s.bind_mut(&mut grid);
        let mut img = s.bind_pitched(&mut image);
        s.run(&add, cfg, (&mut dx, 1, N32))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&add, cfg, (&mut dx, 1, N32 + 1))
        });
        s.run(&scale, cfg, (&mut dx, 10, 100, 3))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&scale, cfg, (&mut dx, 10, 101, 3))
        });
        refused(ErrorKind::SizeOverflow, || {
            s.run(&strict, cfg, (&mut dx, u32::MAX, u32::MAX, u32::MAX))
        });
        let rows = LaunchConfig {
            grid: (1, 7, 1),
            block: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        s.run(&fill, rows, (&mut img, pitch, 100, 7, 9))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&fill, rows, (&mut img, pitch, 100, 8, 9))
        });
        s.run(&iota, LaunchConfig::for_elements(1024), (&mut dg,))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&iota, LaunchConfig::for_elements(1025), (&mut dg,))
        });
        let huge = LaunchConfig {
            grid: (u32::MAX, u32::MAX, u32::MAX),
            block: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        refused(ErrorKind::SizeOverflow, || s.run(&iota, huge, (&mut dg,)));
        let with_shared = LaunchConfig::for_elements(1024).with_shared_mem(1024);
        s.run(&iota_clauses, with_shared, (&mut dg,))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&iota_clauses, LaunchConfig::for_elements(1024), (&mut dg,))
        });
        let big_block = LaunchConfig::for_elements_with_block(1024, 512).with_shared_mem(2048);
        refused(ErrorKind::OutOfRange, || {
            s.run(&iota_clauses, big_block, (&mut dg,))
        });
        s.run_cooperative(
            &iota_cooperative,
            LaunchConfig::for_elements(1024),
            (&mut dg,),
        )?;
        refused(ErrorKind::OutOfRange, || {
            s.run_cooperative(&iota_cooperative, big_block, (&mut dg,))
        });
        // `(n + 1)` with n = 255u8 is 256 elements, computed in usize: in `u8` it would wrap to
        // 0 and pass any buffer. (scripts/check-driver.sh builds this program in the release
        // profile, where overflow checks are off.)
        let mut one = s.alloc::<u32>(1)?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(
                &row_offsets,
                LaunchConfig::for_elements(256),
                (&mut one, 255u8),
            )
        });
        s.run(
            &row_offsets,
            LaunchConfig::for_elements(256),
            (&mut dg, 255u8),
        )?;
        // Two axes: grid_y rows of `width`, while the grid's x threads fit a row (R14). The
        // stand-in writes where the kernel would: out of bounds, the checking driver says so.
        let mut r2 = s.bind_mut(&mut rows2d);
        let shape = |blocks_x, blocks_z| LaunchConfig {
            grid: (blocks_x, 7, blocks_z),
            block: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        s.run(&index_2d, shape(3, 1), (&mut r2, 96))?;
        refused(ErrorKind::PreconditionFailed, || {
            s.run(&index_2d, shape(4, 1), (&mut r2, 96))
        });
        refused(ErrorKind::PreconditionFailed, || {
            s.run(&index_2d, shape(3, 2), (&mut r2, 96))
        });
        refused(ErrorKind::PreconditionFailed, || {
            s.run(&index_2d, shape(3, 1), (&mut r2, 0))
        });
        refused(ErrorKind::BufferTooShort, || {
            s.run(&index_2d, shape(3, 1), (&mut r2, 97))
        });
        // A clustered kernel: launched in its clusters of 2; a grid of 7 blocks is refused.
        let mut di = s.bind_mut(&mut ids);
        let eight = LaunchConfig {
            grid: (8, 1, 1),
            block: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        s.run_clustered(&cluster_ids, eight, (&mut di,))?;
        let seven = LaunchConfig {
            grid: (7, 1, 1),
            ..eight
        };
        refused(ErrorKind::OutOfRange, || {
            s.run_clustered(&cluster_ids, seven, (&mut di,))
        });
        Ok(())
    })??;
    // Whenever every call succeeded, the stand-in wrote each element once, where the kernel would.
    let want: Vec<u32> = (0..96 * 7).collect();
    assert_eq!(rows2d.to_vec()?, want, "index_2d's stand-in");
    // A submission that owns the buffer and the declared kernel.
    let pending = stream.submit((x, add), |s, (mut x, add)| {
        s.run(&add, cfg, (&mut x, 2, N32))
    })?;
    let (x, add) = pending.wait()?;
    // A graph capture: the declared kernel is part of the graph's payload.
    let graph = stream.capture((x, add, vec![0u32; N]), move |s, (mut x, add, out)| {
        s.run(&add, cfg, (&mut x, 1, N32))?;
        s.copy_to_host(out, &x)
    })?;
    let mut exec = graph.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let (_x, _add, out) = exec.payload();
    let out = out.to_vec();
    drop(exec);
    // A library kernel's function with its contract (scopes only), and a launch with
    // attributes.
    let library = custack::Library::load_ptx(Driver::init()?, KERNELS)?;
    let kernel = library.kernel("add_u32")?;
    let lib_add = guard.library_function(&kernel)?.declared::<AddU32>()?;
    assert_eq!(lib_add.checked_by(), CheckedBy::Unchecked); // no PTX kept, driver 12.2
    let mut y = guard.alloc_zeroed::<u32>(N)?;
    stream.scope(|s| -> Result<()> {
        let mut dy = s.bind_mut(&mut y);
        // `run` takes a library's declared function as well.
        s.run(&lib_add, cfg, (&mut dy, 1, N32))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&lib_add, cfg, (&mut dy, 1, N32 + 1))
        });
        s.run_with(
            &add,
            cfg,
            &custack::LaunchAttributes::default(),
            (&mut dy, 1, N32),
        )?;
        // Programmatic serialization lets the launch overlap the kernel before it, which no
        // contract describes: refused before the driver, only the unsafe `launch_with` has it.
        let overlapping = custack::LaunchAttributes {
            programmatic_serialization: true,
            ..custack::LaunchAttributes::default()
        };
        refused(ErrorKind::InvalidValue, || {
            s.run_with(&add, cfg, &overlapping, (&mut dy, 1, N32))
        });
        // A cooperative launch: the grid checked against the device first.
        s.run_cooperative(&add, cfg, (&mut dy, 1, N32))
    })??;
    y.free()?;
    library.unload()?;
    Ok(out)
}

custack::kernel_contract! {
    /// `tex_read(cudaTextureObject_t tex, float* out, unsigned w, unsigned h)`: for x < w and
    /// y < h (checked), `out[y * w + x]` = the texel at (x, y).
    unsafe kernel TexRead = "tex_read"(tex: texture, out: &mut [f32; w * h], w: u32, h: u32);
}

/// Arrays, a mipmapped array and textures over every resource kind: a CUDA array
/// and a view of it, a mipmapped array, linear and pitched device memory; a surface over a
/// level; a texture bound to a scope and passed to a kernel; an asynchronous copy into an
/// array. (After `tests/gpu_sampling.rs` and `tests/gpu_texture.rs`.)
fn textures(ctx: &Context) -> Result<Vec<f32>> {
    use custack::{AddressMode, FilterMode, ResourceView, TextureOptions, TextureResource};
    const TEXTURE_PTX: &str = include_str!("../../../tests/fixtures/texture.ptx");
    let (w, h) = (64usize, 32usize);
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(TEXTURE_PTX)?;
    let tex_read = module.declared::<TexRead>()?;
    let stream = guard.stream()?;
    let pixels = vec![0.5f32; w * h];
    let mut array = guard.alloc_array::<f32>(w, h)?;
    array.copy_from_host(&pixels)?;
    let mut mip = guard.alloc_mipmapped_array::<f32>(w, h, 2)?;
    mip.copy_level_from_host(0, &pixels)?;
    mip.copy_level_from_host(1, &pixels[..w * h / 4])?;
    let mut pitched = guard.alloc_pitched::<f32>(w, h)?;
    pitched.copy_from_host(&pixels)?;
    let linear = guard.alloc_from(&pixels)?;
    let options = TextureOptions {
        filter: FilterMode::Linear,
        normalized: true,
        border_color: [1.0, 0.0, 0.0, 0.0],
        max_mipmap_level_clamp: 1.0,
        ..TextureOptions::default().with_address(AddressMode::Wrap)
    };
    let view = ResourceView::of_array(&array);
    let textures = [
        guard.texture(&array, &options)?,
        guard.texture_from(TextureResource::array_view(&array, &view), &options)?,
        guard.texture_from(TextureResource::mipmapped(&mip), &options)?,
        guard.texture_from(
            TextureResource::mipmapped_view(&mip, &ResourceView::of_mipmapped(&mip).levels(0, 1)),
            &options,
        )?,
        guard.texture_from(
            TextureResource::pitched(&pitched),
            &TextureOptions::default(),
        )?,
        guard.texture_from(TextureResource::linear(&linear), &TextureOptions::default())?,
    ];
    let mut out = guard.alloc_zeroed::<f32>(w * h)?;
    let cfg = LaunchConfig {
        grid: (w as u32 / 16, h as u32 / 16, 1),
        block: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    for texture in &textures {
        stream.scope(|s| {
            let (t, mut o) = (s.bind_texture(texture), s.bind_mut(&mut out));
            // A contract launch with a texture parameter: the texture bound to this scope.
            s.run(&tex_read, cfg, (t, &mut o, w as u32, h as u32))
        })??;
    }
    drop(textures);
    {
        let _surface = guard.surface_level(&mut mip, 1)?;
    }
    drop(guard.surface(&mut array)?);
    stream.scope(|s| {
        let mut a = s.bind_array(&mut array);
        s.copy_to_array(&mut a, &pixels)
    })??;
    let mut level1 = vec![0.0f32; w * h / 4];
    stream.scope(|s| {
        let l1 = s.bind_level(&mut mip, 1)?;
        s.copy_from_array(&mut level1, &l1)
    })??;
    let mut result = out.to_vec()?;
    result.extend(mip.level_to_vec(1)?);
    result.extend(array.to_vec()?);
    Ok(result)
}

/// Virtual memory across devices, on the one device the double has: a range of
/// pieces made and mapped under one push, released right after mapping, lent to guards of two
/// pushes in turn; a borrowed and a shared mapping. (After `tests/gpu_vmm_devices.rs`.)
fn peer_vmm(ctx: &Context) -> Result<Vec<u32>> {
    use custack::Access;
    let device = ctx.device();
    let mut stack = Stack::new()?;
    let (space, pieces, mut table, g) = stack.with_pushed(ctx, |guard| -> Result<_> {
        let g = guard.granularity_on(device)?;
        let pieces = vec![
            guard.create_physical_on(device, g)?,
            guard.create_physical_on(device, g)?,
        ];
        let table = guard.create_physical_on(device, g)?;
        Ok((guard.reserve_multi_device(4 * g)?, pieces, table, g))
    })??;
    let rw = [(device, Access::ReadWrite)];
    let mut striped = space.map_owned::<u32>(0, pieces, &rw)?;
    stack.with_pushed(ctx, |guard| guard.lend_mut(&mut striped)?.fill_u32(1))??;
    {
        let mut writer = space.map::<u32>(2 * g, [&mut table], &rw)?;
        stack.with_pushed(ctx, |guard| guard.lend_mut(&mut writer)?.fill_u32(2))??;
    }
    let reader = space.map_read_only::<u32>(3 * g, &[&table], &[device])?;
    let mut out = stack.with_pushed(ctx, |guard| guard.lend(&striped)?.to_vec())??;
    out.extend(stack.with_pushed(ctx, |guard| guard.lend_read_only(&reader)?.to_vec())??);
    Ok(out)
}

/// P11: staging between two contexts through page-locked host memory. A downloads
/// into its page-locked buffer; under a nested push B reads it (synchronously, then in its own
/// stream scope asynchronously), adds it to itself on the GPU and writes the result back into
/// another of A's page-locked buffers; A reads it as a slice and uploads it again. Page-locked
/// memory crosses the nested push parked (`park_pinned`, `park_registered`), as device memory
/// does. The twin of `ui-tests/c11_parked_pinned_*.rs`,
/// `c5_context_dropped_while_pinned_parked.rs` and `c22_parked_pinned_is_no_payload.rs`.
///
/// `a` and `b` may be contexts of one device or of two (no peer access is needed).
fn p11_staging_through_pinned(a: &Context, b: &Context) -> Result<(f32, Vec<f32>, Vec<f32>)> {
    let values: Vec<f32> = (0..N).map(|i| f32::from(i as u16)).collect();
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let src = ga.alloc_from(&values)?;
    let mut staging = ga.park_pinned(ga.alloc_pinned::<f32>(N)?);
    src.copy_to_host(&mut staging)?;
    drop(src); // A's device memory stays with A's guard (or is parked, as in P3)
    let total = ga.with_pushed(b, |gb| -> Result<f32> {
        let dst = gb.alloc_from(&staging)?; // B reads A's page-locked memory
        Ok(dst.to_vec()?.iter().sum())
    })??;

    // Asynchronous copies under B from and to A's page-locked memory, borrowed by B's scope.
    let mut back = ga.park_pinned(ga.alloc_pinned::<f32>(N)?);
    let mut registered = ga.park_registered(ga.register_vec(vec![0f32; N])?);
    ga.with_pushed(b, |gb| -> Result<()> {
        let module = gb.load_ptx(KERNELS)?;
        let vector_add = module.function("vector_add")?;
        let stream = gb.stream()?;
        let (mut once, mut twice, mut thrice) = (
            gb.alloc::<f32>(N)?,
            gb.alloc::<f32>(N)?,
            gb.alloc::<f32>(N)?,
        );
        let cfg = LaunchConfig::for_elements(N32);
        stream.scope(|s| -> Result<()> {
            let (mut once, mut twice, mut thrice) = (
                s.bind_mut(&mut once),
                s.bind_mut(&mut twice),
                s.bind_mut(&mut thrice),
            );
            s.copy_to_device(&mut once, &staging)?;
            // SAFETY: `vector_add(const float* a, const float* b, float* c, unsigned n)` reads
            // `n` floats of `a` and `b` and writes `n` of `c`; each holds `n`.
            unsafe { s.launch(&vector_add, cfg, (&once, &once, &mut twice, N32)) }?; // 2 * i
            s.copy_to_host(&mut back, &twice)?;
            // SAFETY: as above.
            unsafe { s.launch(&vector_add, cfg, (&twice, &once, &mut thrice, N32)) }?; // 3 * i
            s.copy_to_host(&mut registered, &thrice)
        })?
    })??;
    staging[0] = -1.0; // the host's own again once B's scope is over
    let round_trip = ga.attach(ga.park(ga.alloc_from(&back)?))?.to_vec()?;
    let registered = ga.attach_registered(registered)?.into_vec()?;
    let _ = ga.attach_pinned(staging)?; // freed in A, its guard current
    Ok((total, round_trip, registered))
}

/// What `enqueue_parked` leaves in flight: its upload buffer, device buffer and download
/// vector, parked.
type InFlight<'c> = custack::ParkedSubmission<
    'c,
    (
        custack::ParkedPinned<'c, u32>,
        ParkedBuffer<'c, u32>,
        Vec<u32>,
        (),
    ),
>;

/// Enqueues on `guard`'s context, in a submission it then parks: `x = k` uploaded from
/// page-locked memory, `x += k` by `add_u32`, downloaded into a vector. The module is parked
/// too (dropping it would synchronize the context), so the work stays in flight when this
/// returns.
fn enqueue_parked<'c>(
    guard: &PushedGuard<'c, '_>,
    k: u32,
) -> Result<(InFlight<'c>, ParkedModule<'c>)> {
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(N)?;
    host.fill(k);
    let payload = (host, guard.alloc::<u32>(N)?, vec![0u32; N], add);
    let work = stream.submit(payload, |s, (host, mut dev, out, add)| {
        s.copy_to_device(&mut dev, host)?;
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`, and
        // `dev` holds `n` elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, k, N32)) }?;
        s.copy_to_host(out, &dev)
    })?;
    let pending = guard.park_submission(work); // borrows the context only; the stream may go
    Ok((pending, guard.park_module(module)))
}

/// P9: one thread keeps work pending on two contexts at once: enqueue on A, push B
/// and enqueue on B, wait for both (NVIDIA's `simpleMultiGPU` shape). A's pending work is
/// parked (`park_submission`), so A's guard can be frozen under the nested push; B's is parked
/// to leave the nested push; both are waited for while A is current, B's from another context.
/// A third submission on A waits on the GPU for B's work (`wait_parked`, `cuStreamWaitEvent`
/// with B's event), and B copies A's device buffer from A's still-pending work on the GPU
/// (`scope_after`, `copy_from_pending`). What comes back is parked memory, re-attached to its
/// own context's guard.
/// The twin of `ui-tests/c22_*.rs`.
///
/// Returns A's host result (`2 * 3`), B's (`2 * 5`), A's device buffer read back under A's
/// guard (`6`), the ordered third submission's result (`7 + 7`) and B's copy of A's buffer
/// (`6`).
fn p9_two_contexts_in_flight(a: &Context, b: &Context) -> Result<[Vec<u32>; 5]> {
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let (pending_a, module_a) = enqueue_parked(&ga, 3)?;
    let (pending_b, module_b) = ga.with_pushed(b, |gb| enqueue_parked(gb, 5))??;
    // B reads A's device buffer on the GPU once A's work is done there: a peer copy in a scope
    // that waits for A's event first; A's pending work stays borrowed until it has synchronized.
    let peer_copy = ga.with_pushed(b, |gb| -> Result<Vec<u32>> {
        let stream = gb.stream()?;
        let mut copy = gb.alloc::<u32>(N)?;
        stream.scope_after(&pending_a, |s, ((), dev_a, (), ())| {
            s.copy_from_pending(s.bind_mut(&mut copy), dev_a)
        })??;
        copy.to_vec()
    })??;
    // Both in flight. A's stream waits on the GPU for B's work before its own.
    let stream = ga.stream()?;
    stream.wait_parked(&pending_b)?;
    let ordered = stream.submit(vec![0u32; N], |s, host| {
        let mut tmp = s.alloc::<u32>(N)?;
        s.fill_u32(&mut tmp, 14)?;
        s.copy_to_host(host, &tmp)
    })?;
    let (_, dev_a, host_a, ()) = pending_a.wait()?;
    let (_, dev_b, host_b, ()) = pending_b.wait()?; // B's event, A current
    let dev_a = ga.attach(dev_a)?.to_vec()?; // A's memory under A's guard again
    let ordered = ordered.wait()?;
    drop((dev_b, module_b, module_a)); // each pushes its own context
    Ok([host_a, host_b, dev_a, ordered, peer_copy])
}

/// The scenarios of `tests/gpu_in_flight.rs` without their value checks: a
/// parked submission polled under another context, one dropped unwaited there, a parked result
/// attached to the wrong context (refused, freed in its own), parked page-locked and registered
/// memory used by another context's scopes and freed from under it.
fn in_flight(a: &Context, b: &Context) -> Result<()> {
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

/// A graph adding `k` to a zeroed buffer and copying it out, owning its module.
type OwningGraph<'g> = custack::GraphExec<
    'g,
    (
        custack::Module<'g>,
        custack::DeviceBuffer<'g, u32>,
        Vec<u32>,
    ),
>;

fn capture_owning<'g>(ga: &'g custack::PushedGuard<'_, '_>, k: u32) -> Result<OwningGraph<'g>> {
    let stream = ga.stream()?;
    let payload = (
        ga.load_ptx(KERNELS)?,
        ga.alloc_zeroed::<u32>(N)?,
        vec![0u32; N],
    );
    let graph = stream.capture(payload, move |s, (module, mut dev, out)| {
        let add = module.function("add_u32")?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); x holds n elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, k, N32)) }?;
        s.copy_to_host(out, &dev)
    })?;
    graph.instantiate()
}

/// A launched graph kept in flight across a nested push: the graph owns its module
/// (looked up inside the capture), its launch is parked and polled from B, handed back as a
/// `ParkedGraph`, attached to A's guard and launched again; an idle graph parked across a pop;
/// one attached to the wrong context (refused, destroyed in its own); one dropped under B.
/// The twin of `ui-tests/c22_*graph*.rs`; `tests/gpu_in_flight.rs` checks the values.
fn parked_graph(a: &Context, b: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let exec = capture_owning(&ga, 3)?;
    let stream = ga.stream()?;
    let pending = ga.park_submission(stream.submit(exec, |s, g| s.launch_graph(&g))?);
    drop(stream);
    let second = ga.park_graph(capture_owning(&ga, 4)?); // idle, parked
    let parked = ga.with_pushed(b, |gb| -> Result<_> {
        let mine = gb.alloc_from(&[7u32; N])?; // B works while A's graph runs
        let mut pending = pending;
        let parked = loop {
            match pending.try_wait()? {
                Ok(done) => break done,
                Err(again) => pending = again,
            }
        };
        drop(mine);
        // A's idle graph attached to B's guard: refused, and destroyed in A.
        if gb.attach_graph(second).is_ok() {
            return Err(custack::Error::from_kind(
                custack::ErrorKind::ContextMismatch,
            ));
        }
        Ok(parked)
    })??;
    let exec = ga.attach_graph(parked)?;
    let stream = ga.stream()?;
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    // An idle graph parked across a pop, attached to a new guard of A and launched again.
    let idle = ga.park_graph(exec);
    drop(stream);
    drop(ga);
    let ga = stack.push(a)?;
    let exec = ga.attach_graph(idle)?;
    let stream = ga.stream()?;
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let out = exec.payload().2.to_vec();
    // Dropped while B is current: destroyed in A, its module unloaded after it.
    let idle = ga.park_graph(exec);
    drop(stream);
    drop(ga);
    let gb = stack.push(b)?;
    drop(idle);
    drop(gb);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Entry points newer than the 12.2 baseline: run with the double reporting driver
// 13.0, so that custack finds them through cuGetProcAddress_v2 as on a current driver.

/// Asks the checking driver to report driver `version` (its extension, found through
/// `cuGetProcAddress_v2`; not a driver call, so neither counted nor failed).
/// The checking double's extension `name`, found with the driver's `cuGetProcAddress_v2`
/// (`NotFound` on any other driver).
fn checkdriver_extension(name: &core::ffi::CStr) -> Result<*mut core::ffi::c_void> {
    use custack::ffi;
    let mut pfn: *mut core::ffi::c_void = core::ptr::null_mut();
    let mut status = ffi::CU_GET_PROC_ADDRESS_SUCCESS;
    // SAFETY: the symbol is NUL-terminated; both out-pointers are valid.
    let r = unsafe {
        ffi::cuGetProcAddress_v2(
            name.as_ptr(),
            &raw mut pfn,
            12000,
            ffi::CU_GET_PROC_ADDRESS_DEFAULT,
            &raw mut status,
        )
    };
    if r != ffi::CUresult::CUDA_SUCCESS || pfn.is_null() {
        return Err(custack::Error::new(
            custack::ErrorKind::NotFound,
            "not the checking driver",
        ));
    }
    Ok(pfn)
}

/// The double's count of driver calls so far (`custackCheckdriverCalls`).
fn driver_calls() -> Result<u64> {
    let pfn = checkdriver_extension(c"custackCheckdriverCalls")?;
    type Calls = unsafe extern "C" fn() -> u64;
    // SAFETY: the double's `custackCheckdriverCalls`, of exactly this signature.
    let calls: Calls = unsafe { core::mem::transmute::<*mut core::ffi::c_void, Calls>(pfn) };
    // SAFETY: takes nothing, reads an atomic counter.
    Ok(unsafe { calls() })
}

/// R22: once `Profile::init` has run, every entry to the full API is refused before it reaches
/// the driver: the double counts no call for any of them. Then the profile's own context still
/// works (its init phase makes a stream), reaching the driver through paths that do not ask.
fn confinement() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext};
    use custack::{ErrorKind, Library};
    let profile = Profile::init(1)?;
    let device = profile.device(0)?;
    let before = driver_calls()?;
    let escapes: [(&str, Result<()>); 11] = [
        ("Driver::init", Driver::init().map(drop)),
        (
            "Context::new",
            Context::new(device, ContextFlags::empty()).map(drop),
        ),
        ("Context::primary", Context::primary(device).map(drop)),
        (
            "Context::with_sm_count",
            Context::with_sm_count(device, ContextFlags::empty(), 8).map(drop),
        ),
        (
            "Context::from_raw",
            // SAFETY: refused before the (null) handle is used.
            unsafe { Context::from_raw(core::ptr::null_mut()) }.map(drop),
        ),
        (
            "Device::set_primary_context_flags",
            device.set_primary_context_flags(ContextFlags::empty()),
        ),
        ("Device::sm_resource", device.sm_resource().map(drop)),
        ("Device::graph_mem_trim", device.graph_mem_trim()),
        (
            "Device::reset_graph_mem_high",
            device.reset_graph_mem_high(GraphMem::UsedHigh),
        ),
        (
            "Library::load_ptx",
            Library::load_ptx(profile.driver(), KERNELS).map(drop),
        ),
        ("name_launches(true)", custack::name_launches(true)),
    ];
    for (entry, result) in escapes {
        match result {
            Err(e) if e.kind() == ErrorKind::OutsideProfile => {}
            other => {
                return Err(custack::Error::new(
                    ErrorKind::InvalidValue,
                    format!("{entry} was not refused: {other:?}"),
                ));
            }
        }
    }
    let after = driver_calls()?;
    if after != before {
        return Err(custack::Error::new(
            ErrorKind::InvalidValue,
            format!("the refused entries made {} driver calls", after - before),
        ));
    }
    let mut ctx = RestrictedContext::new(&profile, device, Budget::new().streams(1))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = guard.init().and_then(|init| init.stream().map(drop));
    let shutdown = guard.shutdown();
    outcome?;
    shutdown?;
    drop(stack);
    ctx.destroy()
}

fn report_driver_version(version: core::ffi::c_int) -> Result<()> {
    use custack::ffi;
    let pfn = checkdriver_extension(c"custackCheckdriverSetDriverVersion")?;
    type SetVersion = unsafe extern "C" fn(core::ffi::c_int) -> ffi::CUresult;
    // SAFETY: only the checking driver defines this symbol, with the signature `SetVersion`
    // (`checkdriver/src/extensions.rs`); function and data pointers have one size.
    let set = unsafe { core::mem::transmute::<*mut core::ffi::c_void, SetVersion>(pfn) };
    // SAFETY: takes an integer.
    match unsafe { set(version) } {
        ffi::CUresult::CUDA_SUCCESS => Ok(()),
        // The checking driver's own extension, which no custack wrapper calls.
        #[allow(
            clippy::disallowed_methods,
            reason = "a raw call outside custack's wrappers"
        )]
        r => Err(custack::Error::from_raw(r)),
    }
}

/// An error for a result the driver's answers contradict (never a panic: under a failed call
/// the program returns it).
fn unexpected(what: &str) -> custack::Error {
    custack::Error::new(custack::ErrorKind::InvalidValue, what)
}

/// The double reporting 13.0: every looked-up entry point of 13.0 or older found (and the newer
/// `cuFuncGetParamCount` not); a module's functions
/// enumerated and named; kernels declared and checked against `cuFuncGetParamInfo` (a wrong
/// declaration refused); context-wide events recorded and waited for; a context made with an
/// SM-count affinity (`cuCtxCreate_v4`).
fn newer(ctx: &Context) -> Result<()> {
    let driver = custack::driver_version()?;
    for entry in custack::newer_entry_points() {
        match entry.available {
            Ok(()) if entry.needs > driver => {
                return Err(unexpected("an entry point newer than the driver was found"));
            }
            Err(e) if entry.needs <= driver || e.kind() != custack::ErrorKind::DriverTooOld => {
                return Err(e);
            }
            _ => {}
        }
    }
    let mut stack = Stack::new()?;
    newer_in(&stack.push(ctx)?)?;
    // A context limited to 66 SMs, made through the looked-up cuCtxCreate_v4.
    let device = Driver::init()?.device(0)?;
    let limited = Context::with_sm_count(device, ContextFlags::empty(), 66)?;
    let guard = stack.push(&limited)?;
    let _ = (
        guard.sm_count_affinity()?,
        guard.alloc_from(&[1u32; 4])?.to_vec()?,
    );
    Ok(())
}

/// How long `deadlines` waits for each piece of work: ample for the double, whose work completes
/// at the first query, and what a hung piece of work (`NULLDRIVER_HANG_AT`) costs a run.
const DEADLINE: std::time::Duration = std::time::Duration::from_millis(50);
/// The status `deadlines` ends the process with when its scope overruns (`Overrun::Exit`).
/// R19: every bounded wait, each with a short deadline (the double reporting 13.0, for the
/// context's `cuCtxRecordEvent`). Under a hang schedule the first wait whose work never
/// completes ends at its deadline with the documented outcome, and the program stops there:
/// owned work (a submission, a parked one, a graph launched as one, a module) is abandoned,
/// never freed, and the error returned (exit 1); an event, the stream and the context report
/// `DeadlinePassed`, and the submission behind them is abandoned; the scope ends the process
/// in the safe state (`custack::FAIL_STOP_STATUS`, 75). No wait here blocks without a deadline. (The double runs no
/// kernel: the GPU tests, `tests/gpu_deadlines.rs`, check the results.)
fn deadlines(ctx: &Context) -> Result<()> {
    use custack::TimedOut;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let waited = deadline_waits(&guard, &module);
    // The module, whose kernel may still run where a wait above ran out: unloaded by a
    // deadline too, or left loaded (its drop would wait for that kernel with no deadline).
    let unloaded = match module.unload_by(custack::Deadline::after(DEADLINE)) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(late)) => Err(TimedOut::abandon(late)),
        Err(e) => Err(e),
    };
    waited.and(unloaded)
}

/// `deadlines`' waits, on kernels of `module`.
fn deadline_waits(guard: &PushedGuard<'_, '_>, module: &Module<'_>) -> Result<()> {
    use custack::{Abandon, Deadline, Overrun, TimedOut};
    let by = || Deadline::after(DEADLINE);
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let all = LaunchConfig::for_elements(N32);
    // A submission.
    let pending = stream.submit((guard.alloc::<u32>(N)?, add), |s, (mut d, add)| {
        s.fill_u32(&mut d, 1)?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); `d` holds `n` elements.
        unsafe { s.launch(&add, all, (&mut d, 1u32, N32)) }
    })?;
    let (dev, add) = pending.wait_by(by())?.map_err(TimedOut::abandon)?;
    // A parked submission.
    let pending = stream.submit((dev, add), |s, (mut d, add)| {
        // SAFETY: as above.
        unsafe { s.launch(&add, all, (&mut d, 1u32, N32)) }
    })?;
    let (dev, ()) = guard
        .park_submission(pending)
        .wait_by(by())?
        .map_err(TimedOut::abandon)?;
    let dev = guard.attach(dev)?;
    // An event recorded after all of the context's work, the stream, the context.
    let event = guard.event(EventFlags::DISABLE_TIMING)?;
    let pending = stream.submit(add, |s, add| {
        // SAFETY: as above, with n = 0: touches nothing.
        unsafe { s.launch(&add, all, (0u64, 1u32, 0u32)) }
    })?;
    guard.record_event(&event)?;
    let waited = event
        .synchronize_by(by())
        .and_then(|()| stream.synchronize_by(by()))
        .and_then(|()| guard.synchronize_by(by()));
    if let Err(e) = waited {
        pending.abandon();
        return Err(e);
    }
    let add = pending.wait_by(by())?.map_err(TimedOut::abandon)?;
    // A graph launched as a submission.
    let graph = stream
        .capture((dev, add), move |s, (mut d, add)| {
            // SAFETY: as above.
            unsafe { s.launch(&add, all, (&mut d, 1u32, N32)) }
        })?
        .instantiate()?;
    let pending = stream.submit(graph, |s, g| s.launch_graph(&g))?;
    let graph = pending.wait_by(by())?.map_err(TimedOut::abandon)?;
    drop(graph);
    // A module unloaded by a deadline, after work of its kernel that nothing borrows any more.
    let second = guard.load_ptx(KERNELS)?;
    let empty = second.function("empty")?;
    let pending = stream.submit(empty, |s, empty| {
        // SAFETY: `empty()` takes no parameters and touches nothing.
        unsafe { s.launch(&empty, LaunchConfig::for_elements(1), ()) }
    })?;
    pending.abandon();
    second.unload_by(by())?.map_err(TimedOut::abandon)?;
    // A scope, last: past its deadline it ends the process.
    let mut out = guard.alloc::<u32>(N)?;
    stream.scope_by(by(), Overrun::Exit, |s| s.fill_u32(s.bind_mut(&mut out), 3))??;
    Ok(())
}

/// The double reporting 13.2, which counts a kernel's parameters (`cuFuncGetParamCount`):
/// `param_layout` asks for exactly that many, so no query fails, and a declaration is checked
/// against them.
fn counted_params(ctx: &Context) -> Result<()> {
    use custack::CheckedBy;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let calls = || {
        (
            calls_seen(|name| name == b"cuFuncGetParamCount"),
            calls_seen(|name| name == b"cuFuncGetParamInfo"),
        )
    };
    let before = calls();
    if add.param_layout()? != [(0, 8), (8, 4), (12, 4)] {
        return Err(unexpected("add_u32's parameter layout"));
    }
    let after = calls();
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (1, 3),
        "one count, 3 queries"
    );
    if module.declared::<AddU32>()?.checked_by() != CheckedBy::ParamInfo {
        return Err(unexpected("not checked by cuFuncGetParamInfo"));
    }
    Ok(())
}

fn newer_in(guard: &PushedGuard<'_, '_>) -> Result<()> {
    use custack::{CheckedBy, ErrorKind};
    let module = guard.load_ptx(KERNELS)?;
    let names: Vec<String> = module.functions()?.into_iter().map(|(n, _)| n).collect();
    if !names.iter().any(|n| n == "add_u32") {
        return Err(unexpected("add_u32 is not among the module's functions"));
    }
    let add = module.function("add_u32")?;
    // A failed call ends the list early (the driver ends it with an error): an error here.
    if add.param_layout()? != [(0, 8), (8, 4), (12, 4)] {
        return Err(unexpected("add_u32's parameter layout"));
    }
    // Driver 13.0 cannot count parameters; the module's PTX can: one query per parameter,
    // none past the last (which tools reporting API errors would show).
    let info = || calls_seen(|name| name == b"cuFuncGetParamInfo");
    let before = info();
    let declared = module.declared::<AddU32>()?;
    assert_eq!(info() - before, 3, "queries of add_u32's 3 parameters");
    if declared.checked_by() != CheckedBy::ParamInfo {
        return Err(unexpected("not checked by cuFuncGetParamInfo"));
    }
    match module.declared::<AddU32Wide>() {
        Err(e) if e.kind() == ErrorKind::KernelSignatureMismatch => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a declaration disagreeing with cuFuncGetParamInfo was accepted"),
    }
    let typed = module.kernel::<(custack::DevicePtr<u32>, u32, u32)>("add_u32")?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let everything = guard.event(EventFlags::DISABLE_TIMING)?;
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    let work = one.submit((guard.alloc_zeroed::<u32>(N)?,), |s, (mut y,)| {
        s.fill_u32(&mut y, 3)
    })?;
    // After the work of every stream of the context; the other stream's later work waits.
    guard.record_event(&everything)?;
    guard.wait_event(&everything)?;
    two.scope(|s| -> Result<()> {
        let mut dx = s.bind_mut(&mut x);
        let cfg = LaunchConfig::for_elements(N32);
        s.run(&declared, cfg, (&mut dx, 1, N32))?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
        unsafe { s.launch_kernel(&typed, cfg, (&mut dx, 2u32, N32)) }
    })??;
    everything.synchronize()?;
    let (y,) = work.wait()?;
    let _ = (y.to_vec()?, x.to_vec()?);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Green contexts from one thread: P9's green variant (`tests/gpu_green.rs`) and
// the partitions of `guide::in_flight`.

const GREEN_PTX: &str = include_str!("../../../tests/fixtures/green.ptx");
const BLOCKS: u32 = 256;

/// `smid_spin`'s parked work on a green context: the SM ids on the device, the kernel's `()`,
/// the SM ids copied to the host.
type GreenInFlight<'g> =
    custack::ParkedSubmission<'g, (ParkedBuffer<'g, u32, custack::Green>, (), Vec<u32>)>;

/// Pushes `green`, enqueues `smid_spin` there and pops it, leaving the work in flight: the
/// submission and the module parked (`!Send`, kind `Green`).
fn enqueue_green<'g>(
    stack: &mut Stack,
    green: &'g custack::GreenContext<'_>,
) -> Result<(GreenInFlight<'g>, ParkedModule<'g, custack::Green>)> {
    let guard = stack.push_green(green)?;
    let module = guard.load_ptx(GREEN_PTX)?;
    let f = module.function("smid_spin")?;
    let stream = guard.stream()?;
    let cfg = LaunchConfig {
        grid: (BLOCKS, 1, 1),
        block: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    let payload = (
        guard.alloc_zeroed::<u32>(BLOCKS as usize)?,
        f,
        vec![0u32; BLOCKS as usize],
    );
    let work = stream.submit(payload, |s, (mut out, f, host)| {
        // SAFETY: smid_spin(unsigned* out, long long spin) writes out[0..grid), and `out`
        // holds `grid` elements.
        unsafe { s.launch(&f, cfg, (&mut out, 1000i64)) }?;
        s.copy_to_host(host, &out)
    })?;
    Ok((guard.park_submission(work), guard.park_module(module)))
}

/// The device's SMs split in two groups and the rest, a green context over each. P9's green
/// variant: work parked on A, then on B while A's is in flight, both waited for with no context
/// current, each result re-attached under a guard of its own green context. Then the guide's
/// partitions: a fill parked on the rest while A's guard allocates and reads, a stream parked
/// and re-attached, the fill's buffer re-attached; two destroyed explicitly, one by drop.
fn green() -> Result<()> {
    use custack::GreenContext;
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let (Some(pa), Some(pb)) = (split.groups.first(), split.groups.get(1)) else {
        return Err(unexpected("fewer than two groups of 16 SMs"));
    };
    let a = GreenContext::new(pa)?;
    let b = GreenContext::new(pb)?;
    let rest = GreenContext::new(&split.remaining)?;
    let mut stack = Stack::new()?;
    let (pending_a, module_a) = enqueue_green(&mut stack, &a)?;
    let (pending_b, module_b) = enqueue_green(&mut stack, &b)?; // both in flight now
    let (dev_a, (), _host_a) = pending_a.wait()?;
    let (dev_b, (), _host_b) = pending_b.wait()?;
    let _ = stack.push_green(&a)?.attach(dev_a)?.to_vec()?;
    let _ = stack.push_green(&b)?.attach(dev_b)?.to_vec()?;
    drop((module_a, module_b)); // each pushes its own green context
    let (pending, parked_stream) = {
        let g = stack.push_green(&rest)?;
        let stream = g.stream()?;
        let work = stream.submit((g.alloc::<u32>(N)?,), |s, (mut x,)| s.fill_bytes(&mut x, 1))?;
        (g.park_submission(work), g.park_stream(stream))
    }; // popped, the fill still pending on the rest of the SMs
    {
        let g = stack.push_green(&a)?;
        let _ = g.alloc_from(&[1u32; 256])?.to_vec()?; // the small partition's work, meanwhile
    }
    let (filled,) = pending.wait()?;
    {
        let g = stack.push_green(&rest)?;
        let stream = g.attach_stream(parked_stream)?;
        let mut filled = g.attach(filled)?;
        stream.scope(|s| s.fill_u32(s.bind_mut(&mut filled), 2))??;
        let _ = filled.to_vec()?;
    }
    a.destroy()?;
    b.destroy()?;
    drop(rest);
    Ok(())
}

#[path = "../../../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

/// The checking driver's cubin builder (`checkdriver/src/cubin.rs`), compiled into this program
/// rather than linked: the double as a library would bring its own entry points into the
/// program, which must reach the checking driver through libcuda.
#[path = "../../../checkdriver/src/cubin.rs"]
#[allow(dead_code)]
mod cubin;

/// Example 22's init and run phases under the restricted profile (P14), with its kernels'
/// stand-ins and a stand-in cubin carrying their PTX declarations (`cubin::stand_in_cubin`; the
/// profile's own checks pass it): three frames, each checked against the CPU. Then a second context's
/// one init phase, and the refusal of every later one (C27).
fn safety_frame() -> Result<()> {
    // Two restricted contexts: the pipeline's, then `one_init_phase`'s.
    let profile = custack::safety::Profile::init(2)?;
    let w = pipeline::WIDTH as usize;
    // SAFETY: as the kernel, the stand-in reads width * height floats of `input` and writes as
    // many of `output`.
    let _blur = unsafe {
        StandIn::register(&profile.driver(), "frame_blur", move |call| {
            let (input, output) = (call.arg::<u64>(0)?, call.arg::<u64>(1)?);
            let n = call.arg::<u32>(2)? as usize * call.arg::<u32>(3)? as usize;
            let frame = call.read::<f32>(input, n)?;
            let blurred: Vec<f32> = (0..n)
                .map(|i| {
                    let (row, x) = (i / w * w, i % w);
                    let at = |x: usize| frame[row + x];
                    (at(x.saturating_sub(1)) + at(x) + at((x + 1).min(w - 1))) / 3.0
                })
                .collect();
            call.write(output, &blurred)?;
            Ok(())
        })
    }?;
    // SAFETY: as the kernel, the stand-in reads and writes n floats of `data`.
    let _gain = unsafe {
        StandIn::register(&profile.driver(), "frame_gain", |call| {
            let (data, gain, n) = (
                call.arg::<u64>(0)?,
                call.arg::<f32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<f32>(data, n as usize)?;
            v.iter_mut().for_each(|x| *x *= gain);
            call.write(data, &v)?;
            Ok(())
        })
    }?;
    let cubin = differential::frame_cubin();
    let outcome = pipeline::run(profile, &cubin, |run, frame| {
        for _ in 0..3 {
            frame()?;
        }
        run.synchronize()?;
        Ok(())
    });
    match outcome {
        Ok(()) => one_init_phase(profile),
        Err(pipeline::FrameError::Cuda(e)) => Err(e),
        Err(mismatch) => panic!("safety_frame: {mismatch}"),
    }
}

custack::kernel_contract! {
    /// `jacobi_step(const float* b, const float* x, float* y, unsigned* diff, unsigned n)`
    /// (`tests/fixtures/conditional.cu`).
    unsafe kernel JacobiStep = "jacobi_step"(
        b: &[f32; n], x: &[f32; n], y: &mut [f32; n], diff: &mut [u32; 1], n: u32,
    );
    /// `jacobi_check(handle cond, unsigned* diff, unsigned* iters, float tol, unsigned max)`.
    unsafe kernel JacobiCheck = "jacobi_check"(
        cond: conditional, diff: &mut [u32; 1], iters: &mut [u32; 1], tol: f32, max_iters: u32,
    );
}

/// The PTX declarations of `tests/fixtures/conditional.cu`'s Jacobi kernels, which the stand-in
/// cubin carries (the double runs no kernel here: only the parameter lists count).
const JACOBI_DECLARATIONS: &str = ".version 7.8\n.target sm_90\n.address_size 64\n\
    .visible .entry jacobi_step(.param .u64 b, .param .u64 x, .param .u64 y, .param .u64 diff, \
    .param .u32 n) { ret; }\n\
    .visible .entry jacobi_check(.param .u64 cond, .param .u64 diff, .param .u64 iters, \
    .param .f32 tol, .param .u32 max_iters) { ret; }\n";

/// A graph built node by node under the restricted profile (P14, C27, C28), the double
/// reporting 13.0: a cubin whose one undefined symbol is `cudaGraphSetConditional` loads (one
/// that also references `cudaGraphLaunch` is refused before any driver call); the init phase
/// builds a graph with a WHILE node (memsets, the body's three kernel nodes, a root kernel node),
/// instantiates and uploads it, then a second build past the budget's graph nodes is refused
/// (the graph destroyed, its payload dropped); the run phase launches the graph in three bounded
/// scopes, updates its root kernel node between them (an update past a buffer's extent and a
/// node the graph does not have are refused), and ends; the init phase's figures equal the
/// budget's, the body's nodes counted.
fn safety_graph() -> Result<()> {
    use custack::ErrorKind;
    use custack::safety::{Budget, Profile, Resource, RestrictedContext, WaitBound};
    const N: usize = 64;
    const N32: u32 = N as u32;
    const NODES: usize = 7;
    report_driver_version(13000)?;
    let profile = Profile::init(1)?;
    let image = differential::conditional_cubin();
    let launching = cubin::stand_in_cubin(
        &["jacobi_step", "jacobi_check"],
        &["cudaGraphSetConditional", "cudaGraphLaunch"],
        JACOBI_DECLARATIONS,
    );
    let f32s = N * size_of::<f32>();
    let budget = Budget::page_locked(f32s)
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(4 * f32s + 3 * size_of::<u32>())
        .streams(1)
        .modules(1)
        .kernels(2)
        .graphs(2)
        .graph_nodes(NODES);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<()> {
        let init = guard.init()?;
        // SAFETY: a well-formed cubin the double's builder made, for the double only.
        match unsafe { init.load_cubin(&launching) } {
            Err(e) if e.kind() == ErrorKind::OutsideProfile => {}
            Err(e) => return Err(e),
            Ok(_) => return Err(unexpected("a cubin referencing cudaGraphLaunch was loaded")),
        }
        // SAFETY: a complete cubin (`differential::conditional_cubin`'s), whose kernels honour
        // their contracts (the double runs none; on a GPU, tests/fixtures/conditional.cu's).
        let module = unsafe { init.load_cubin(&image) }?;
        let step = init.kernel::<JacobiStep>(&module)?;
        let check = init.kernel::<JacobiCheck>(&module)?;
        let stream = init.stream()?;
        let mut out = init.alloc_pinned::<f32>(N)?;
        let payload = (
            (init.alloc::<f32>(N)?, init.alloc::<f32>(N)?),
            (init.alloc::<f32>(N)?, init.alloc::<f32>(N)?),
            (init.alloc::<u32>(1)?, init.alloc::<u32>(1)?),
            (step, check),
        );
        let cfg = LaunchConfig::for_elements(N32);
        let mut graph = init.build_graph(
            &stream,
            payload,
            move |g, ((b, b2), (mut x, mut y), (mut diff, mut iters), (step, check))| {
                let clear = [g.fill_u32(&mut x, 0, &[])?, g.fill_u32(&mut iters, 0, &[])?];
                let cond = g.condition(1, true)?;
                let handle = cond.handle();
                let one = LaunchConfig::for_elements(1);
                let looped = g.while_loop(cond, &clear, |body| {
                    let a = body.kernel(&step, cfg, (&b, &x, &mut y, &mut diff, N32), &[])?;
                    let c = body.kernel(&step, cfg, (&b2, &y, &mut x, &mut diff, N32), &[a])?;
                    body.kernel(&check, one, (handle, &mut diff, &mut iters, 1e-6, 8), &[c])?;
                    Ok(())
                })?;
                g.kernel(&step, cfg, (&b, &x, &mut y, &mut diff, N32), &[looped])?;
                Ok(())
            },
        )?;
        // The graph nodes are spent: a second build is destroyed before instantiation.
        match init.build_graph(&stream, init.alloc::<u32>(1)?, |g, mut x| {
            g.fill_u32(&mut x, 0, &[])?;
            Ok(())
        }) {
            Err(e) if e.kind() == ErrorKind::OutsideProfile => {}
            Err(e) => return Err(e),
            Ok(_) => {
                return Err(unexpected(
                    "a graph past the budget's graph nodes was built",
                ));
            }
        }
        let run = init.seal();
        for frame in 0..3 {
            if frame == 1 {
                graph.update_kernels(
                    move |u, ((_, b2), (x, mut y), (mut diff, _), (step, _))| {
                        let node = u.kernel_node(&step, 0)?;
                        u.set_kernel(node, cfg, (&b2, &x, &mut y, &mut diff, N32))
                    },
                )?;
                // Past the buffers' extent: refused by the contract, the node unchanged.
                let past = graph.update_kernels(
                    move |u, ((b, _), (x, mut y), (mut diff, _), (step, _))| {
                        let node = u.kernel_node(&step, 0)?;
                        let wide = LaunchConfig::for_elements(2 * N32);
                        u.set_kernel(node, wide, (&b, &x, &mut y, &mut diff, 2 * N32))
                    },
                );
                match past {
                    Err(e) if e.kind() == ErrorKind::BufferTooShort => {}
                    Err(e) => return Err(e),
                    Ok(()) => return Err(unexpected("an update past a buffer's extent was made")),
                }
                // The body's kernel nodes are not lent: the root has one node of `step`.
                let second = graph
                    .update_kernels(|u, (_, _, _, (step, _))| u.kernel_node(&step, 1).map(drop));
                match second {
                    Err(e) if e.kind() == ErrorKind::InvalidValue => {}
                    Err(e) => return Err(e),
                    Ok(()) => return Err(unexpected("a body's kernel node was lent for update")),
                }
            }
            stream.scope(|s| -> Result<()> {
                let (g, (_, (x, _), _, _)) = s.bind_graph(&mut graph);
                s.launch_graph(&g)?;
                s.copy_to_host(&mut out, &x)
            })??;
        }
        run.synchronize()
    })();
    let shutdown = guard.shutdown();
    outcome?;
    shutdown?;
    // One graph kept (the refused one gave its figure back), and the nodes the budget states.
    for r in Resource::ALL {
        let stated = if r == Resource::Graphs {
            1
        } else {
            ctx.budget().stated(r)
        };
        if ctx.used(r) != stated {
            return Err(unexpected(&format!(
                "safety_graph: {r:?}: {} used, {stated} expected",
                ctx.used(r)
            )));
        }
    }
    ctx.destroy()
}

/// The restricted graph builder's other node kinds (C28): a byte memset, a device copy, an IF,
/// an IF/ELSE and a SWITCH node whose bodies hold memsets, and a record of and a wait for an
/// event the init phase made, shared with the graph's payload (an `Rc<RestrictedEvent>`). The
/// graph is launched in two bounded scopes, after which the event is complete and the copy's
/// destination holds the memset's bytes; the nodes made, bodies' included, are the budget's.
fn safety_graph_nodes() -> Result<()> {
    use custack::safety::{Budget, Profile, Resource, RestrictedContext, WaitBound};
    use std::rc::Rc;
    const N: usize = 64;
    // Root: memset, copy, record, wait, IF, IF/ELSE, SWITCH (7); bodies: 1 + 2 + 3 memsets.
    const NODES: usize = 13;
    const BYTE: u8 = 0x5a;
    report_driver_version(13000)?;
    let profile = Profile::init(1)?;
    let budget = Budget::page_locked(N * size_of::<u32>())
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(4 * N * size_of::<u32>())
        .streams(1)
        .events(1)
        .graphs(1)
        .graph_nodes(NODES);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<()> {
        let init = guard.init()?;
        let stream = init.stream()?;
        let mut out = init.alloc_pinned::<u32>(N)?;
        let payload = (
            (init.alloc::<u32>(N)?, init.alloc::<u32>(N)?),
            (init.alloc::<u32>(N)?, init.alloc::<u32>(N)?),
            Rc::new(init.event()?),
        );
        let mut graph = init.build_graph(
            &stream,
            payload,
            |g, ((mut src, mut dst), (mut a, mut b), done)| {
                let filled = g.fill_bytes(&mut src, BYTE, &[])?;
                let copied = g.copy_device(&mut dst, &src, &[filled])?;
                let recorded = g.record(&done, &[copied])?;
                let waited = g.wait(&done, &[recorded])?;
                let cond = g.condition(1, true)?;
                let then = g.if_then(cond, &[waited], |body| {
                    body.fill_u32(&mut a, 1, &[])?;
                    Ok(())
                })?;
                let cond = g.condition(0, true)?;
                let branched = g.if_else(cond, &[then], |yes, no| {
                    yes.fill_u32(&mut a, 2, &[])?;
                    no.fill_u32(&mut b, 3, &[])?;
                    Ok(())
                })?;
                let which = g.condition(2, true)?;
                g.switch(which, &[branched], 3, |n, case| {
                    case.fill_u32(&mut b, 10 + n, &[])?;
                    Ok(())
                })?;
                Ok(())
            },
        )?;
        let run = init.seal();
        for _ in 0..2 {
            out.fill(0);
            stream.scope(|s| -> Result<()> {
                let (g, ((_, dst), _, _)) = s.bind_graph(&mut graph);
                s.launch_graph(&g)?;
                s.copy_to_host(&mut out, &dst)
            })??;
            let want = u32::from_ne_bytes([BYTE; 4]);
            if let Some(i) = out.iter().position(|&v| v != want) {
                return Err(unexpected(&format!(
                    "safety_graph_nodes: element {i} of the copy is {:#x}, not {want:#x}",
                    out[i]
                )));
            }
            // The event the graph recorded, through the payload (read and access).
            let (_, _, done) = graph.payload();
            if !done.is_complete()? {
                return Err(unexpected(
                    "safety_graph_nodes: the graph's event is not complete",
                ));
            }
            let (_, _, done) = graph.payload_mut();
            done.synchronize()?;
        }
        run.synchronize()
    })();
    let shutdown = guard.shutdown();
    outcome?;
    shutdown?;
    for r in Resource::ALL {
        let stated = ctx.budget().stated(r);
        if ctx.used(r) != stated {
            return Err(unexpected(&format!(
                "safety_graph_nodes: {r:?}: {} used, {stated} expected",
                ctx.used(r)
            )));
        }
    }
    ctx.destroy()
}

/// C27's run-time part: a restricted context opens one init phase in its life; the same guard
/// after the run phase (a frame loop's next frame) and the guard of a later push are refused,
/// before any driver call.
fn one_init_phase(profile: custack::safety::Profile) -> Result<()> {
    let refused = |r: Result<custack::safety::InitPhase<'_>>| match r {
        Err(e) if e.kind() == custack::ErrorKind::OutsideProfile => {}
        other => panic!("safety_frame: a second init phase was not refused: {other:?}"),
    };
    let budget = custack::safety::Budget::new().streams(1);
    let mut ctx = custack::safety::RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    {
        let init = guard.init()?;
        let stream = init.stream()?;
        let run = init.seal();
        stream.synchronize()?;
        run.synchronize()?;
    }
    refused(guard.init());
    guard.shutdown()?;
    let mut guard = ctx.push(&mut stack)?;
    refused(guard.init());
    guard.shutdown()?;
    ctx.destroy()
}

/// R22: a child forked after `Profile::init` makes no driver call. With live values of every
/// kind (a stream, two events, device and page-locked memory, a module, the guard and its
/// context), the child makes each kind of call and drop: each must refuse with
/// `ForkedProcess` (a drop records it), and the child exits 0 (4 if any did not refuse: the
/// parent then panics). The checking driver counts every call made in a forked child (its
/// report's `forked-calls`, which `scripts/check-driver.sh` requires to be 0). The parent then
/// uses its own values and ends as usual.
fn fork() -> Result<()> {
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
        if pid < 0 {
            panic!("fork: fork failed");
        }
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

/// How every sticky error's text ends: the number of errors of a sticky kind an error's text
/// names.
const STICKY: &str = " (sticky: CUDA is unusable in this process";

/// The restricted profile's end, judged by the program itself as well as by the double (each
/// check a panic, which `scripts/check-driver.sh` counts as a failure under every schedule).
/// With an init phase open (a stream made), another thread makes, uses and ends a restricted
/// context of its own; where the schedule's fault falls among that thread's calls, the process
/// is poisoned while this init phase is still open, and `load_cubin` must then return the
/// poison before any driver call (the double counts none, R20). Then both threads end through
/// [`checked_shutdown`] and [`checked_destroy`]: each returns the driver's error rather than
/// leave it to a drop (a failed `cuCtxPopCurrent` or `cuCtxDestroy`), and a poisoned process's
/// shutdown names its sticky error once.
fn restricted_end() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext};
    // Two restricted contexts: this one, and the other thread's.
    let profile = Profile::init(2)?;
    let device = profile.device(0)?;
    let budget = Budget::new().streams(1).modules(1);
    let mut ctx = RestrictedContext::new(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let cubin = differential::frame_cubin();
    let mut errors = Vec::new();
    let mut other = Ok(());
    let outcome = guard.init().and_then(|init| {
        let _stream = init.stream()?;
        other = std::thread::scope(|s| {
            s.spawn(|| {
                let mut ctx = RestrictedContext::new(&profile, device, Budget::new().streams(1))?;
                let mut stack = Stack::new()?;
                let mut guard = ctx.push(&mut stack)?;
                let mut errors = Vec::new();
                let outcome = guard.init().and_then(|init| init.stream().map(drop));
                let shutdown = checked_shutdown(guard, &mut errors);
                drop(stack);
                let destroyed = checked_destroy(ctx, &mut errors);
                outcome.and(shutdown).and(destroyed)?;
                errors.into_iter().next().map_or(Ok(()), Err)
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        let poison = custack::poisoned();
        let before = driver_calls()?;
        // SAFETY: a complete cubin made above (the profile's checks read it; nothing launches).
        let module = unsafe { init.load_cubin(&cubin) };
        let calls = driver_calls()? - before;
        if let Some(poison) = poison {
            match &module {
                Err(e) if e.kind() == poison.kind() && calls == 0 => {}
                other => panic!(
                    "restricted_end: load_cubin in a poisoned process made {calls} driver calls \
                     and returned {other:?}, not the poison"
                ),
            }
        }
        module.map(drop)
    });
    let shutdown = checked_shutdown(guard, &mut errors);
    drop(stack);
    let destroyed = checked_destroy(ctx, &mut errors);
    outcome.and(other).and(shutdown).and(destroyed)?;
    errors.into_iter().next().map_or(Ok(()), Err)
}

/// `guard.shutdown()`, with the errors drops recorded before it moved to `errors` (so that the
/// shutdown's own are told apart), and checked: it leaves nothing to the drop log (a pop that
/// failed is returned, not recorded by the guard's drop), and in a poisoned process it returns
/// an error whose text names a sticky error exactly once (the poison, merged in only when no
/// error of its kind is there already).
fn checked_shutdown(
    guard: custack::safety::RestrictedGuard<'_, '_>,
    errors: &mut Vec<custack::Error>,
) -> Result<()> {
    errors.extend(custack::take_drop_errors());
    let shutdown = guard.shutdown();
    let left = custack::take_drop_errors();
    assert!(
        left.is_empty(),
        "restricted_end: shutdown returned {shutdown:?} and left errors to the drop log: {left:?}"
    );
    if custack::poisoned().is_some() {
        let text = match &shutdown {
            Ok(()) => panic!("restricted_end: shutdown in a poisoned process returned Ok"),
            Err(e) => e.to_string(),
        };
        let named = text.matches(STICKY).count();
        assert!(
            named == 1,
            "restricted_end: the shutdown's error names {named} sticky errors, not the poison \
             once: {text}"
        );
    }
    shutdown
}

/// `ctx.destroy()`, with the errors drops recorded before it moved to `errors`, and checked: it
/// leaves nothing to the drop log (a `cuCtxDestroy` that failed, or a poisoned process's
/// refusal, is returned, not recorded by the context's drop).
fn checked_destroy(
    ctx: custack::safety::RestrictedContext,
    errors: &mut Vec<custack::Error>,
) -> Result<()> {
    errors.extend(custack::take_drop_errors());
    let destroyed = ctx.destroy();
    let left = custack::take_drop_errors();
    assert!(
        left.is_empty(),
        "restricted_end: destroy returned {destroyed:?} and left errors to the drop log: {left:?}"
    );
    assert!(
        custack::poisoned().is_none() || destroyed.is_err(),
        "restricted_end: destroy in a poisoned process returned Ok"
    );
    destroyed
}

/// The restricted API's calls no other program makes, under a driver that reports 13.0: the run
/// phase's synchronize then waits on the init phase's idle event (`cuCtxRecordEvent`), `kernel`
/// loads its function (`cuFuncLoad`), and a module's drop unloads within the bound. A primary
/// restricted context; a graph captured with a restricted buffer and kernel as its payload (a
/// launch and a device-to-device copy); a scope that binds page-locked memory both ways, fills,
/// records and waits on an event, launches the graph; the result checked against the CPU, and
/// the budget used exactly as stated.
fn restricted_api() -> Result<()> {
    use custack::safety::{Budget, Profile, Resource, RestrictedContext, WaitBound};
    let profile = Profile::init(1)?;
    // SAFETY: as the kernel, the stand-in reads and writes n floats of `data`.
    let _gain = unsafe {
        StandIn::register(&profile.driver(), "frame_gain", |call| {
            let (data, gain, n) = (
                call.arg::<u64>(0)?,
                call.arg::<f32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<f32>(data, n as usize)?;
            v.iter_mut().for_each(|x| *x *= gain);
            call.write(data, &v)?;
            Ok(())
        })
    }?;
    let cubin = differential::frame_cubin();
    let bytes = RESTRICTED_API_LEN * size_of::<f32>();
    let budget = Budget::page_locked(2 * bytes)
        .device_bytes(3 * bytes)
        .waits(WaitBound::return_error(std::time::Duration::from_secs(1)))
        .streams(1)
        .events(2)
        .modules(1)
        .kernels(1)
        .graphs(1)
        .graph_nodes(2)
        // Past the double's 1024 bytes: the init phase reserves it (`cuCtxSetLimit`).
        .local_memory(2048);
    let device = profile.device(0)?;
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    assert_eq!(ctx.device().ordinal(), device.ordinal());
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = restricted_api_phases(&mut guard, &cubin);
    let shutdown = guard.shutdown();
    outcome.and(shutdown)?;
    let used = Resource::ALL.map(|r| (r, ctx.used(r), ctx.budget().stated(r)));
    let page_locked = ctx.page_locked_used();
    ctx.destroy()?;
    assert!(
        used.iter().all(|&(_, used, stated)| used == stated),
        "restricted_api: the budget was not used as stated: {used:?}"
    );
    assert_eq!(page_locked, 2 * bytes, "restricted_api: page-locked bytes");
    Ok(())
}

const RESTRICTED_API_LEN: usize = 64;

fn restricted_api_phases(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
) -> Result<()> {
    const N: usize = RESTRICTED_API_LEN;
    let init = guard.init()?;
    // The same cubin built for sm_80: no code for the double's sm_90, refused with the fix
    // (and the module it would have been not counted against the budget).
    let mut other_arch = cubin.to_vec();
    other_arch[0x30] = 80; // `e_flags`' SM
    // SAFETY: as below: a complete cubin, only its architecture differs.
    match unsafe { init.load_cubin(&other_arch) } {
        // Where the schedule failed the device's query, the refusal says so: returned.
        Err(e)
            if e.code() == Some(custack::ffi::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU)
                && e.to_string()
                    .contains("holds no code for sm_90: build it for this device") => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("restricted_api: a cubin for sm_80 loaded on the double's sm_90"),
    }
    // SAFETY: a complete cubin, `differential::frame_cubin`'s (the profile's checks read it).
    let module = unsafe { init.load_cubin(cubin) }?;
    let gain = init.kernel::<pipeline::FrameGain>(&module)?;
    let described = format!("{gain:?} {:?}", gain.checked_by());
    assert!(described.contains("RestrictedKernel"), "{described}");
    let stream = init.stream()?;
    let (done, later) = (init.event()?, init.event()?);
    let mut input = init.alloc_pinned::<f32>(N)?;
    let mut output = init.alloc_pinned::<f32>(N)?;
    for (i, x) in input.iter_mut().enumerate() {
        *x = i as f32;
    }
    let mut staged = init.alloc::<f32>(N)?;
    assert!(staged.len() == N && !staged.is_empty());
    let payload = (init.alloc::<f32>(N)?, init.alloc::<f32>(N)?, gain);
    // The graph: x *= 2, then y = x.
    let mut graph = init.capture(&stream, payload, |s, (mut x, mut y, gain)| {
        s.run(
            &gain,
            LaunchConfig::for_elements(N as u32),
            (&mut x, 2.0f32, N as u32),
        )?;
        s.copy_device(&mut y, &x)
    })?;
    let (x, y, _) = graph.payload();
    assert!(x.len() == N && y.len() == N);
    let (x, _, _) = graph.payload_mut();
    assert!(!x.is_empty());
    let described = format!("{graph:?}");
    assert!(described.contains("RestrictedGraph"), "{described}");
    let run = init.seal();
    // staged = 0, then input.
    stream.scope(|s| -> Result<()> {
        assert!(format!("{s:?}").contains("RestrictedScope"));
        let mut staged = s.bind_mut(&mut staged);
        s.fill_bytes(&mut staged, 0)?;
        s.copy_to_device(&mut staged, &mut input)?;
        s.record(&done)
    })??;
    // x = staged; the graph doubles x into y; output = y; x = output (the same values).
    stream.scope(|s| -> Result<()> {
        let (bound, (mut x, y, gain)) = s.bind_graph(&mut graph);
        let again = Some(&gain).cloned();
        assert!(again.is_some_and(|k| k.checked_by() == gain.checked_by()));
        let staged = s.bind(&staged);
        let host_in = s.bind_host(&input);
        let host_out = s.bind_host_mut(&mut output);
        assert!(host_in.len() == N && !host_in.is_empty());
        assert!(host_out.len() == N && !host_out.is_empty());
        s.wait(&done)?;
        s.copy_device(&mut x, staged)?;
        s.launch_graph(&bound)?;
        s.copy_to_host(host_out, &y)?;
        s.copy_to_device(&mut x, host_out)?;
        s.record(&later)
    })??;
    later.synchronize()?;
    run.synchronize()?;
    for (i, &got) in output.iter().enumerate() {
        let want = 2.0 * i as f32;
        if got != want {
            return Err(unexpected(&format!(
                "restricted_api: element {i} is {got}, expected {want}"
            )));
        }
    }
    Ok(())
}

/// Launches named (`name_launches(true)`, R20's origin): a declared kernel's stand-in launched
/// twice and a raw launch of the same function, each followed by the host function that marks
/// it complete. Clean, the result is the CPU's. Where a schedule's sticky fault poisons the
/// process, the poison's text carries its origin, and the first named launch never marked
/// complete, where there is one: the declared kernel's name, or "a raw launch".
fn named_launches() -> Result<()> {
    let outcome = named_launches_run();
    if let Some(poison) = custack::poisoned() {
        let text = poison.to_string();
        let origin = poison.origin();
        assert!(
            origin.is_some(),
            "named_launches: the poison has no origin: {text}"
        );
        if let Some(launch) = origin.and_then(custack::Origin::unfinished_launch) {
            let named = match launch.kernel() {
                Some(kernel) => format!("`{kernel}` launched at {}", launch.call_site()),
                None => format!("a raw launch at {}", launch.call_site()),
            };
            assert!(
                text.contains(&format!("the first launch that never completed: {named}")),
                "named_launches: {text}"
            );
        }
    }
    outcome
}

fn named_launches_run() -> Result<()> {
    custack::name_launches(true)?;
    let driver = Driver::init()?;
    // SAFETY: as the kernel, the stand-in reads and writes x[0..n): the result below is the
    // CPU's whenever every call succeeded.
    let _add_u32_on_cpu = unsafe {
        StandIn::register(&driver, "add_u32", |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<u32>(x, n as usize)?;
            v.iter_mut().for_each(|e| *e += k);
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let raw = module.function("add_u32")?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(N)?;
    // The declared kernel in a submission, whose wait returns a sticky error (a scope's end
    // takes the safe state instead): the program then reads the poison's unfinished launch.
    let cfg = LaunchConfig::for_elements(N32);
    let (mut x, _) = stream
        .submit((guard.alloc::<u32>(N)?, add), |s, (mut dx, add)| {
            s.fill_u32(&mut dx, 1)?;
            s.run(&add, cfg, (&mut dx, 2u32, N32))?;
            s.run(&add, cfg, (&mut dx, 3u32, N32))
        })?
        .wait()?;
    stream.scope(|s| -> Result<()> {
        let mut dx = s.bind_mut(&mut x);
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`, and
        // `dx` holds `n` elements.
        unsafe { s.launch(&raw, cfg, (&mut dx, 4u32, N32))? };
        s.copy_to_host(&mut host, &dx)
    })??;
    custack::name_launches(false)?;
    match host.iter().position(|&v| v != 10) {
        None => Ok(()),
        Some(i) => Err(unexpected(&format!(
            "named_launches: element {i} is {}, expected 10",
            host[i]
        ))),
    }
}

/// The redundant kernel (`InitPhase::redundant`), under a driver that reports 13.0 (green
/// contexts): a primary restricted context's two partitions of the double's SMs, the stand-in
/// `frame_gain` run once in each on a copy of an uploaded input. A frame whose replicas agree
/// returns `Ok` with both results the CPU's; a frame whose second replica is given another gain
/// returns `ReplicasDiffer` naming the frame and the output, and both results stay readable.
fn restricted_redundant() -> Result<()> {
    use custack::safety::OnMismatch::ReturnError;
    use custack::safety::{Budget, Profile, RestrictedContext, WaitBound};
    const N: usize = RESTRICTED_API_LEN;
    // Two restricted contexts: one of its own (refused partitions), then the primary one.
    let profile = Profile::init(2)?;
    // SAFETY: as the kernel, the stand-in reads and writes n floats of `data`.
    let _gain = unsafe {
        StandIn::register(&profile.driver(), "frame_gain", |call| {
            let (data, gain, n) = (
                call.arg::<u64>(0)?,
                call.arg::<f32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<f32>(data, n as usize)?;
            v.iter_mut().for_each(|x| *x *= gain);
            call.write(data, &v)?;
            Ok(())
        })
    }?;
    let cubin = differential::frame_cubin();
    let device = profile.device(0)?;
    // A context that is not the device's primary one has no redundant kernel: refused before
    // anything is taken from its budget.
    let mut other = RestrictedContext::new(&profile, device, Budget::new().modules(1))?;
    let mut stack = Stack::new()?;
    let mut guard = other.push(&mut stack)?;
    let refused = guard.init().and_then(|init| {
        // SAFETY: a complete cubin, `differential::frame_cubin`'s (the profile's checks read it).
        let module = unsafe { init.load_cubin(&cubin) }?;
        let kernel = init.redundant::<pipeline::FrameGain, f32>(&module, "data", N, 8, ReturnError);
        match kernel {
            Err(e) if e.kind() == custack::ErrorKind::OutsideProfile => Ok(()),
            Err(e) => Err(e),
            Ok(_) => panic!("restricted_redundant: a redundant kernel outside the primary context"),
        }
    });
    let shutdown = guard.shutdown();
    refused.and(shutdown)?;
    drop(stack);
    other.destroy()?;
    // The primary context: the two replicas' outputs and staging, the input and its upload, and
    // what the refusal of too large partitions took before it (a kernel, two outputs, two
    // staging buffers).
    let bytes = N * size_of::<f32>();
    let budget = Budget::page_locked(5 * bytes)
        .device_bytes(5 * bytes)
        .waits(WaitBound::return_error(std::time::Duration::from_secs(1)))
        .streams(3)
        .partitions(2)
        .events(0)
        .modules(1)
        .kernels(2);
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = restricted_redundant_phases(&mut guard, &cubin);
    let shutdown = guard.shutdown();
    outcome.and(shutdown)?;
    ctx.destroy()
}

fn restricted_redundant_phases(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
) -> Result<()> {
    use custack::safety::OnMismatch;
    const N: usize = RESTRICTED_API_LEN;
    let init = guard.init()?;
    // SAFETY: a complete cubin, `differential::frame_cubin`'s (the profile's checks read it).
    let module = unsafe { init.load_cubin(cubin) }?;
    // Refused: an output the kernel does not declare; partitions larger than half the device.
    for (output, sms_each, says) in [
        ("nope", 8, "declares no parameter `nope`"),
        ("data", 100, "not two"),
    ] {
        match init.redundant::<pipeline::FrameGain, f32>(
            &module,
            output,
            N,
            sms_each,
            OnMismatch::ReturnError,
        ) {
            // The refusal (a failed driver call's `InvalidValue` says something else).
            Err(e) if e.to_string().contains(says) => {
                assert_eq!(e.kind(), custack::ErrorKind::InvalidValue, "{e}");
            }
            Err(e) => return Err(e),
            Ok(_) => panic!("restricted_redundant: {output}, {sms_each} SMs each, not refused"),
        }
    }
    let mut twice =
        init.redundant::<pipeline::FrameGain, f32>(&module, "data", N, 8, OnMismatch::ReturnError)?;
    let stream = init.stream()?;
    let mut host = init.alloc_pinned::<f32>(N)?;
    for (i, x) in host.iter_mut().enumerate() {
        *x = i as f32;
    }
    let mut input = init.alloc::<f32>(N)?;
    let _run = init.seal();
    stream.scope(|s| -> Result<()> {
        let mut input = s.bind_mut(&mut input);
        s.copy_to_device(&mut input, &host)
    })??;
    // Replica `r` computes input * gain(r).
    let mut frame = |second_gain: f32| {
        twice.run(&input, |replica, s, gain, out, input| {
            let input = s.bind(input);
            s.copy_device(&mut *out, input)?;
            let k = if replica == 0 { 2.0f32 } else { second_gain };
            s.run(
                gain,
                LaunchConfig::for_elements(N as u32),
                (&mut *out, k, N as u32),
            )
        })
    };
    frame(2.0)?;
    let differ = frame(3.0);
    let want = |i: usize, k: f32| i as f32 * k;
    for (r, k) in [(0, 2.0f32), (1, 3.0)] {
        if let Some(i) = (0..N).find(|&i| twice.replica(r)[i] != want(i, k)) {
            return Err(unexpected(&format!(
                "restricted_redundant: replica {r}, element {i} is {}, expected {}",
                twice.replica(r)[i],
                want(i, k)
            )));
        }
    }
    match differ {
        Err(e) if e.kind() == custack::ErrorKind::ReplicasDiffer => {
            let text = e.to_string();
            assert!(
                text.contains("frame 1") && text.contains("`data`") && text.contains("element 1"),
                "restricted_redundant: {text}"
            );
        }
        // A driver call the schedule failed.
        Err(e) => return Err(e),
        Ok(()) => panic!("restricted_redundant: replicas that differ compared equal"),
    }
    assert_eq!(twice.frames(), 2);
    assert_eq!(twice.output().len(), N);
    let [a, b] = twice.sm_counts();
    assert!(
        a >= 8 && b >= 8,
        "restricted_redundant: partitions of {a} and {b} SMs"
    );
    assert!(format!("{:?}", twice.replicas()).contains("Replicas"));
    Ok(())
}

/// The PTX declarations of example 22's kernels, which the stand-in cubin carries so that the
/// checking driver knows their parameters (`cubin::DECLARATIONS_SECTION`).
const FRAME_DECLARATIONS: &str = ".version 6.0\n.target sm_50\n.address_size 64\n\
    .visible .entry frame_blur(.param .u64 input, .param .u64 output, .param .u32 width, \
    .param .u32 height) { ret; }\n\
    .visible .entry frame_gain(.param .u64 data, .param .f32 gain, .param .u32 n) { ret; }\n";

custack::kernel_contract! {
    /// `mix(unsigned* out, const unsigned* in, unsigned n, unsigned frame, unsigned flip_at)`
    /// (`tests/fixtures/redundancy.cu`): `out[i]` a hash of `in[i]`, `i` and `frame`.
    unsafe kernel Mix = "mix"(out: &mut [u32; n], input: &[u32; n], n: u32, frame: u32, flip_at: u32);
}

/// `mix` and custack's compare kernel, as the stand-in cubin declares them.
const REDUNDANT_DECLARATIONS: &str = ".version 6.0\n.target sm_50\n.address_size 64\n\
    .visible .entry mix(.param .u64 out, .param .u64 input, .param .u32 n, .param .u32 frame, \
    .param .u32 flip_at) { ret; }\n\
    .visible .entry custack_replicas_compare(.param .u64 first, .param .u64 second, \
    .param .u64 len, .param .u64 size, .param .u64 verdict) { ret; }\n";

/// `mix`'s value for element `i` (as `tests/fixtures/redundancy.cu` computes it).
fn mix_value(input: u32, i: u32, frame: u32) -> u32 {
    let mut x = input ^ frame.wrapping_mul(2_654_435_761) ^ i.wrapping_mul(40_503);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// Elements of the redundant kernels' outputs in `redundant_inject`.
const INJECT_N: usize = 64;

/// The count of differing elements a `ReplicasDiffer` error names ("… differs first, C of N").
fn differing(e: &custack::Error) -> Option<usize> {
    let text = e.to_string();
    text.split("differs first, ")
        .nth(1)?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

/// Redundant execution under the checking driver's injection (`NULLDRIVER_INJECT=SEED`,
/// `checkdriver/src/inject.rs`): a kernel of 64 `u32`s whose result changes every frame run
/// redundantly on two green-context partitions, once compared on the host and once on the
/// device (the compare kernel's CPU stand-in), `CHECK_INJECT_FRAMES` frames (default 2,000). The
/// double corrupts replica 1 of every odd frame of each kernel (1, 8 or 64 random bits of its
/// output flipped, or its launch dropped, in turn): every one must be found
/// (`ReplicasDiffer`, its count within the bits flipped), and every even frame compare equal.
/// Without `NULLDRIVER_INJECT` every frame must compare equal. First, a module without the
/// compare kernel must be refused a comparison on the device (`NotFound`, naming
/// `ReplicasCompare::SOURCE`). Prints the tally.
#[allow(clippy::too_many_lines)] // the stand-ins, the init phase and the tally
fn redundant_inject() -> Result<()> {
    use custack::safety::{Budget, CompareOn, OnMismatch, Profile, RestrictedContext};
    report_driver_version(13020)?;
    let frames: u32 = std::env::var("CHECK_INJECT_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let injecting = std::env::var("NULLDRIVER_INJECT").is_ok_and(|v| !v.is_empty() && v != "0");
    let profile = Profile::init(1)?;
    // SAFETY: as the kernel, the stand-in reads n u32s of `input` and writes n of `out`.
    let _mix = unsafe {
        StandIn::register(&profile.driver(), "mix", |call| {
            let (out, input) = (call.arg::<u64>(0)?, call.arg::<u64>(1)?);
            let (n, frame, flip_at) = (
                call.arg::<u32>(2)?,
                call.arg::<u32>(3)?,
                call.arg::<u32>(4)?,
            );
            let values = call.read::<u32>(input, n as usize)?;
            let result: Vec<u32> = (0..n)
                .zip(values)
                .map(|(i, v)| {
                    let x = mix_value(v, i, frame);
                    if i == flip_at {
                        x ^ (1 << (frame & 31))
                    } else {
                        x
                    }
                })
                .collect();
            call.write(out, &result)?;
            Ok(())
        })
    }?;
    // SAFETY: as `src/safety/replicas_compare.cu`: reads len * size bytes of each output and
    // the verdict's two u64s, writes the verdict.
    let _compare = unsafe { replicas_compare::register(&profile.driver()) }?;
    let image = cubin::stand_in_cubin(
        &["mix", "custack_replicas_compare"],
        &[],
        REDUNDANT_DECLARATIONS,
    );
    let n = INJECT_N;
    // Two redundant kernels: per kernel two outputs and the input's share on the device, the
    // page-locked copies (two on the host, one on the device), the comparison's verdicts,
    // kernel lookups (mix twice, the compare kernel once) and event.
    // And a module without the compare kernel, whose comparison on the device is refused
    // (after its mix lookup, two outputs and a page-locked copy, which stay counted).
    let budget = Budget::page_locked(4 * n * 4 + 16)
        .device_bytes(7 * n * 4 + 16)
        .streams(4)
        .partitions(4)
        .modules(2)
        .kernels(4)
        .events(1);
    let mut ctx = RestrictedContext::primary(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<[[u64; 4]; 2]> {
        let init = guard.init()?;
        // SAFETY: the checking driver's stand-in cubin; its kernels are the stand-ins above.
        let module = unsafe { init.load_cubin(&image) }?;
        let input = init.alloc::<u32>(n)?;
        let mix_only = REDUNDANT_DECLARATIONS
            .lines()
            .filter(|l| !l.contains("custack_replicas_compare"))
            .collect::<Vec<_>>()
            .join("\n");
        let only_mix = cubin::stand_in_cubin(&["mix"], &[], &mix_only);
        // SAFETY: as above.
        let without = unsafe { init.load_cubin(&only_mix) }?;
        match init.redundant_compared::<Mix, u32>(
            &without,
            "out",
            n,
            16,
            OnMismatch::ReturnError,
            CompareOn::Device,
        ) {
            Err(e)
                if e.kind() == custack::ErrorKind::NotFound
                    && e.to_string().contains("ReplicasCompare::SOURCE") => {}
            Err(e) => return Err(e),
            Ok(_) => {
                return Err(unexpected(
                    "compared on the device with a module lacking custack_replicas_compare",
                ));
            }
        }
        let mut kernels = [
            init.redundant_compared::<Mix, u32>(
                &module,
                "out",
                n,
                16,
                OnMismatch::ReturnError,
                CompareOn::Host,
            )?,
            init.redundant_compared::<Mix, u32>(
                &module,
                "out",
                n,
                16,
                OnMismatch::ReturnError,
                CompareOn::Device,
            )?,
        ];
        let run = init.seal();
        // Where each compares, as asked; on the device, ordered by the event the init phase
        // tried (the double records an event of the primary context on a partition's stream).
        let placed = kernels
            .iter()
            .map(|k| (k.compare_on(), k.ordered_by_event()));
        if !placed.eq([(CompareOn::Host, false), (CompareOn::Device, true)]) {
            return Err(unexpected(
                "redundant_inject: the kernels compare elsewhere than asked",
            ));
        }
        let cfg = LaunchConfig::for_elements(n as u32);
        // Per kernel: injected and found, injected and missed, clean and equal, clean and
        // reported different.
        let mut tally = [[0u64; 4]; 2];
        for frame in 0..frames {
            for (twice, tally) in kernels.iter_mut().zip(&mut tally) {
                let outcome = twice.run(&(&input,), |_, s, k, out, &(input,)| {
                    s.run(k, cfg, (out, s.bind(input), n as u32, frame, u32::MAX))
                });
                let injected = injecting && frame % 2 == 1;
                // The injection's kind, as the double chooses it: launch `frame` of the stream.
                let bits = match (frame / 2) % 4 {
                    0 => 1,
                    1 => 8,
                    2 => 64,
                    _ => n,
                };
                match (outcome, injected) {
                    (Err(e), true) if e.kind() == custack::ErrorKind::ReplicasDiffer => {
                        let count = differing(&e).unwrap_or(0);
                        if count == 0 || count > bits {
                            return Err(unexpected(&format!(
                                "frame {frame}: {count} elements differ, {bits} bits injected: {e}"
                            )));
                        }
                        tally[0] += 1;
                    }
                    (Ok(()), true) => tally[1] += 1,
                    (Ok(()), false) => {
                        // Replica 1's output comes back only where the host compares, equal.
                        let second = twice.replica(1);
                        let kept = if twice.compare_on() == CompareOn::Device {
                            second.is_empty()
                        } else {
                            second == twice.replica(0)
                        };
                        if twice.replica(0).len() != n || !kept {
                            return Err(unexpected(&format!(
                                "frame {frame}: the replicas' outputs as copied back are wrong"
                            )));
                        }
                        tally[2] += 1;
                    }
                    (Err(e), false) if e.kind() == custack::ErrorKind::ReplicasDiffer => {
                        tally[3] += 1;
                    }
                    (Err(e), _) => return Err(e),
                }
            }
        }
        run.synchronize()?;
        drop(kernels);
        drop(input);
        drop(run);
        drop((module, without));
        Ok(tally)
    })();
    // Also after a failed phase or shutdown: the context destroyed (its primary context's
    // handles released with it).
    let shutdown = guard.shutdown();
    let destroyed = ctx.destroy();
    let tally = outcome?;
    shutdown?;
    destroyed?;
    for (on, [found, missed, equal, false_positives]) in ["host", "device"].iter().zip(tally) {
        println!(
            "redundant_inject: compared on the {on}: {found} of {} injections found, {missed} \
             missed; {equal} clean frames equal, {false_positives} reported different",
            found + missed
        );
        if missed != 0 || false_positives != 0 {
            return Err(unexpected(
                "an injection missed or a clean frame reported different",
            ));
        }
    }
    Ok(())
}

fn run(program: &str) -> Option<Result<()>> {
    let two = || -> Result<(Context, Context)> { Ok((context0()?, context0()?)) };
    Some(match program {
        "example" => example(),
        "stand_ins" => stand_ins(),
        "p1" => context0().and_then(|c| p1_one_guard_many_handles(&c).map(drop)),
        "p2" => two().and_then(|(a, b)| p2_push_pop_push(&a, &b).map(drop)),
        "p3" => two().and_then(|(a, b)| p3_nested_push(&a, &b).map(drop)),
        "p4" => context0().and_then(|c| p4_shared_context(&c, 3).map(drop)),
        "p9" => two().and_then(|(a, b)| p9_two_contexts_in_flight(&a, &b).map(drop)),
        "in_flight" => two().and_then(|(a, b)| in_flight(&a, &b)),
        "parked_graph" => two().and_then(|(a, b)| parked_graph(&a, &b).map(drop)),
        "p11" => two().and_then(|(a, b)| p11_staging_through_pinned(&a, &b).map(drop)),
        "p8" => two().and_then(|(a, b)| p8_alternating_contexts(&a, &b, 2).map(drop)),
        "scoped_alloc" => context0().and_then(|c| c10_stream_ordered_alloc_in_scope(&c).map(drop)),
        "unwind" => context0().and_then(|c| unwind(&c)),
        "events" => context0().and_then(|c| events(&c).map(drop)),
        "submission" => context0().and_then(|c| submission(&c).map(drop)),
        "graph" => context0().and_then(|c| graph(&c).map(drop)),
        "graph_built" => context0().and_then(|c| graph_built(&c).map(drop)),
        "graph_conditional" => context0().and_then(|c| graph_conditional(&c)),
        "graph_capture_into" => context0().and_then(|c| graph_capture_into::graph_capture_into(&c)),
        "graph_shared" => context0().and_then(|c| graph_shared(&c).map(drop)),
        "graph_arena" => context0().and_then(|c| graph_arena(&c)),
        "graph_host" => context0().and_then(|c| graph_host::graph_host(&c)),
        "graph_capture_forked" => {
            context0().and_then(|c| graph_capture_forked::graph_capture_forked(&c))
        }
        "graph_mem" => context0().and_then(|c| graph_mem::graph_mem(&c)),
        "graph_kept_routes" => context0().and_then(|c| graph_kept_routes::graph_kept_routes(&c)),
        "device_info" => device_info(),
        "module_globals" => context0().and_then(|c| {
            module_globals(&c)?;
            borrowed_function(&c).map(drop)
        }),
        "memory_kinds" => context0().and_then(|c| memory_kinds(&c).map(drop)),
        "peer" => two().and_then(|(a, b)| peer(&a, &b).map(drop)),
        "ipc" => context0().and_then(|c| ipc(&c).map(drop)),
        "stress" => context0().and_then(|c| stress(&c)),
        "vmm" => context0().and_then(|c| vmm(&c).map(drop)),
        "vmm_share" => context0().and_then(|c| vmm_share(&c).map(drop)),
        "managed" => context0().and_then(|c| managed(&c).map(drop)),
        "library" => two().and_then(|(a, b)| library(&a, &b)),
        "contracts" => context0().and_then(|c| contracts(&c).map(drop)),
        "scoped_host" => context0().and_then(|c| scoped_host(&c).map(drop)),
        "textures" => context0().and_then(|c| textures(&c).map(drop)),
        "peer_vmm" => context0().and_then(|c| peer_vmm(&c).map(drop)),
        "newer" => report_driver_version(13000)
            .and_then(|()| context0())
            .and_then(|c| newer(&c)),
        "green" => report_driver_version(13020)
            .and_then(|()| green())
            .and_then(|()| context0())
            .and_then(|c| counted_params(&c)),
        "deadlines" => report_driver_version(13000)
            .and_then(|()| context0())
            .and_then(|c| deadlines(&c)),
        "safety_frame" => safety_frame(),
        "restricted_scope" => report_driver_version(13000).and_then(|()| restricted_scope()),
        "driver_init" => report_driver_version(13000).and_then(|()| driver_init()),
        "redundant_partitions" => {
            report_driver_version(13020).and_then(|()| redundant_partitions())
        }
        "redundant_inject" => redundant_inject(),
        "redundant_flips" => {
            report_driver_version(13020).and_then(|()| redundant_flips::redundant_flips())
        }
        "safety_graph" => safety_graph(),
        "safety_graph_nodes" => safety_graph_nodes(),
        "fork" => fork(),
        "confinement" => confinement(),
        "profile_first" => profile_first::profile_first(),
        "context_count" => profile_first::context_count(),
        "restricted_end" => restricted_end(),
        "named_launches" => named_launches(),
        "restricted_redundant" => {
            report_driver_version(13000).and_then(|()| restricted_redundant())
        }
        "restricted_api" => report_driver_version(13000).and_then(|()| restricted_api()),
        "reuse_after_scope" => {
            context0().and_then(|c| c10_c11_memory_reused_after_scope(&c).map(drop))
        }
        _ => return None,
    })
}

fn main() -> ExitCode {
    let program = std::env::args().nth(1).unwrap_or_default();
    // Under Miri the double is linked in and the environment is isolated: checking is turned on
    // from here, and a schedule comes as a second argument, `fail-at=K`, `sticky-at=K` or
    // `hang-at=K`.
    #[cfg(miri)]
    {
        let schedule = std::env::args().nth(2).unwrap_or_default();
        let at = |prefix: &str| {
            schedule
                .strip_prefix(prefix)
                .and_then(|k| k.parse().ok())
                .unwrap_or(0)
        };
        match at("hang-at=") {
            0 => checkdriver::start_checking(at("fail-at="), at("sticky-at=")),
            k => checkdriver::start_hanging(k),
        }
    }
    // The differential run's dispatch first (`observe.rs`: only with CUSTACK_OBSERVE=1;
    // `differential.rs`: its own programs), then the programs of scripts/check-driver.sh.
    let outcome = observe::run(&program)
        .or_else(|| differential::run(&program))
        .or_else(|| run(&program));
    let drop_errors = custack::take_drop_errors();
    #[cfg(miri)]
    {
        // The report a loaded driver writes at exit; here any violation, leak or non-empty
        // stack fails the run.
        // (With a call failed, only violations count: scripts/check-driver.sh judges the rest.)
        let report = checkdriver::report();
        if std::env::args().nth(2).as_deref() == Some("count") {
            print!("{report}");
        }
        let clean = report.lines().any(|l| l == "failed -");
        let bad = report.lines().any(|l| {
            let mut w = l.split_whitespace();
            let key = w.next();
            (key == Some("violations")
                || clean && matches!(key, Some("leaks" | "stacks" | "orphans")))
                && w.next() != Some("0")
        });
        if bad {
            eprintln!("{program}: the checking driver reports:\n{report}");
            return ExitCode::from(3);
        }
    }
    match outcome {
        None => {
            eprintln!("custack-checking: unknown program {program:?}");
            ExitCode::from(2)
        }
        Some(Ok(())) => {
            println!("{program}: ok ({} drop errors)", drop_errors.len());
            ExitCode::SUCCESS
        }
        Some(Err(e)) => {
            println!(
                "{program}: error {:?}: {e} ({} drop errors)",
                e.kind(),
                drop_errors.len()
            );
            ExitCode::FAILURE
        }
    }
}

/// Elements of each buffer of [`restricted_scope`] and [`redundant_partitions`].
const SCOPE_LEN: usize = 64;

/// Panics unless `f` made exactly `n` calls of the entry points `prefix` names (`at_least`: `n`
/// or more), naming `what`.
fn calls<R>(
    what: &str,
    prefix: &str,
    n: u64,
    at_least: bool,
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    let (r, made) = counting(prefix, f)?;
    assert!(
        made == n || at_least && made > n,
        "restricted_scope: {what} made {made} calls of {prefix}*, not {}{n}",
        if at_least { "at least " } else { "" }
    );
    Ok(r)
}

/// The calls of the driver entry points whose names start with `prefix` so far.
fn calls_of(prefix: &str) -> u64 {
    calls_seen(|name| name.starts_with(prefix.as_bytes()))
}

/// `f`'s result and how many calls of the entry points named by `prefix` it made.
fn counting<R>(prefix: &str, f: impl FnOnce() -> Result<R>) -> Result<(R, u64)> {
    let before = calls_of(prefix);
    let r = f()?;
    Ok((r, calls_of(prefix) - before))
}

/// The restricted profile's run-phase API, method by method (no GPU): every method of
/// [`RestrictedScope`](custack::safety::RestrictedScope), of a restricted stream, event and
/// buffer, and the bound host memory, is used once, and each must reach the driver entry point
/// its documentation names (the double counts the calls) and move the data it says (the double
/// copies and fills the bytes and runs the `frame_gain` stand-in). A method that returned
/// without its call, a length or a wait's answer made up, is a panic, which
/// `scripts/check-driver.sh` counts as a failure under every schedule. Run with the double
/// reporting driver 13.0, so that the module's unload takes its bounded path (12.5+);
/// `safety_frame` runs the 12.2 path.
fn restricted_scope() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext, WaitBound};
    let profile = Profile::init(1)?;
    // SAFETY: as the kernel, the stand-in reads and writes n floats of `data`.
    let _gain = unsafe {
        StandIn::register(&profile.driver(), "frame_gain", |call| {
            let (data, gain, n) = (
                call.arg::<u64>(0)?,
                call.arg::<f32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<f32>(data, n as usize)?;
            v.iter_mut().for_each(|x| *x *= gain);
            call.write(data, &v)?;
            Ok(())
        })
    }?;
    let cubin = differential::frame_cubin();
    let bytes = SCOPE_LEN * size_of::<f32>();
    let budget = Budget::page_locked(2 * bytes)
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(3 * bytes)
        .streams(1)
        .events(2)
        .modules(1)
        .kernels(1)
        .graphs(1)
        .graph_nodes(1);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = restricted_scope_run(&mut guard, &cubin);
    let shutdown = guard.shutdown();
    drop(stack);
    let destroyed = ctx.destroy();
    outcome.and(shutdown).and(destroyed)
}

fn restricted_scope_run(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
) -> Result<()> {
    let n = SCOPE_LEN as u32;
    let config = LaunchConfig::for_elements(n);
    calls_of("cu"); // counting starts
    let init = guard.init()?;
    // SAFETY: a complete cubin made above, whose `frame_gain` (stand-in or kernel) honours its
    // contract.
    let module = unsafe { init.load_cubin(cubin) }?;
    let gain = init.kernel::<pipeline::FrameGain>(&module)?;
    let stream = init.stream()?;
    let (start, end) = (init.event()?, init.event()?);
    let mut a = init.alloc::<f32>(SCOPE_LEN)?;
    let mut b = init.alloc::<f32>(SCOPE_LEN)?;
    let mut src = init.alloc_pinned::<f32>(SCOPE_LEN)?;
    let mut dst = init.alloc_pinned::<f32>(SCOPE_LEN)?;
    #[allow(clippy::cast_precision_loss)] // below 2^24: exact
    for (i, x) in src.iter_mut().enumerate() {
        *x = i as f32 + 1.0;
    }
    let payload = (init.alloc::<f32>(SCOPE_LEN)?, gain);
    let mut graph = init.capture(&stream, payload, move |s, (mut c, gain)| {
        s.run(&gain, config, (&mut c, pipeline::GAIN, n))
    })?;
    let _run = init.seal();
    assert!(
        (a.len(), a.is_empty()) == (SCOPE_LEN, false),
        "restricted_scope: a buffer of {SCOPE_LEN} says {} and empty {}",
        a.len(),
        a.is_empty()
    );
    for (what, text) in [
        ("RestrictedKernel", format!("{gain:?}")),
        ("RestrictedGraph", format!("{graph:?}")),
    ] {
        assert!(
            text.starts_with(what),
            "restricted_scope: {what}'s Debug is {text:?}"
        );
    }
    let filled = f32::from_bits(0x3F3F_3F3F);
    let want = |i: usize| src[i] * pipeline::GAIN;
    // A fill, a copy to the device, an event recorded and waited for, a launch; a copy back.
    stream.scope(|s| -> Result<()> {
        let text = format!("{s:?}");
        assert!(
            text.starts_with("RestrictedScope"),
            "restricted_scope: Debug {text:?}"
        );
        let (from, to) = (s.bind_host(&src), s.bind_host_mut(&mut dst));
        for (len, empty) in [(from.len(), from.is_empty()), (to.len(), to.is_empty())] {
            assert!(
                (len, empty) == (SCOPE_LEN, false),
                "restricted_scope: bound host memory of {SCOPE_LEN} says {len} and empty {empty}"
            );
        }
        let (mut a, mut b) = (s.bind_mut(&mut a), s.bind_mut(&mut b));
        calls("fill_bytes", "cuMemset", 1, false, || {
            s.fill_bytes(&mut b, 0x3F)
        })?;
        calls("copy_to_device", "cuMemcpyHtoD", 1, false, || {
            s.copy_to_device(&mut a, from)
        })?;
        calls("record", "cuEventRecord", 1, false, || s.record(&start))?;
        calls("wait", "cuStreamWaitEvent", 1, false, || s.wait(&start))?;
        calls("run", "cuLaunch", 1, false, || {
            s.run(&gain, config, (&mut a, pipeline::GAIN, n))
        })?;
        s.record(&end)?;
        calls("copy_to_host", "cuMemcpyDtoH", 1, false, || {
            s.copy_to_host(to, &b)
        })
    })??;
    if let Some(i) = (0..SCOPE_LEN).find(|&i| dst[i].to_bits() != filled.to_bits()) {
        panic!(
            "restricted_scope: byte fill, then copy to the host: element {i} is {}",
            dst[i]
        );
    }
    // The events' host waits and queries, and their time.
    calls("the event's synchronize", "cuEventQuery", 1, true, || {
        end.synchronize()
    })?;
    let deadline = custack::Deadline::after(std::time::Duration::from_secs(1));
    calls(
        "the event's synchronize_by",
        "cuEventQuery",
        1,
        true,
        || end.synchronize_by(deadline),
    )?;
    let done = calls("the event's is_complete", "cuEventQuery", 1, false, || {
        end.is_complete()
    })?;
    assert!(
        done,
        "restricted_scope: an event waited for is not complete"
    );
    let ms = calls("elapsed_ms", "cuEventElapsedTime", 1, false, || {
        start.elapsed_ms(&end)
    })?;
    assert!(
        ms > 0.0 && ms < 1.0,
        "restricted_scope: the double's 1 us reads {ms} ms"
    );
    // A copy between device buffers (and the launch's result), given a deadline an hour away:
    // the context's bound (1 s, fail-stop) still ends the wait, so in the hang pass a hung
    // enqueue here ends the process in the safe state within the bound (a scope_by that let
    // the later deadline lengthen the bound polls past the double's idle limit instead).
    let later = custack::Deadline::after(std::time::Duration::from_secs(3600));
    stream.scope_by(later, |s| -> Result<()> {
        let (a, mut b) = (s.bind(&a), s.bind_mut(&mut b));
        calls("copy_device", "cuMemcpyDtoD", 1, false, || {
            s.copy_device(&mut b, a)
        })?;
        s.copy_to_host(&mut dst, &b)
    })??;
    if let Some(i) = (0..SCOPE_LEN).find(|&i| dst[i] != want(i)) {
        panic!(
            "restricted_scope: launch, then device copy: element {i} is {}, not {}",
            dst[i],
            want(i)
        );
    }
    // The graph, launched on memory copied into it; its result copied out.
    stream.scope(|s| -> Result<()> {
        let (graph, (mut c, _)) = s.bind_graph(&mut graph);
        s.copy_to_device(&mut c, &src)?;
        calls("launch_graph", "cuGraphLaunch", 1, false, || {
            s.launch_graph(&graph)
        })?;
        s.copy_to_host(&mut dst, &c)
    })??;
    if let Some(i) = (0..SCOPE_LEN).find(|&i| dst[i] != want(i)) {
        panic!(
            "restricted_scope: the graph: element {i} is {}, not {}",
            dst[i],
            want(i)
        );
    }
    // The stream's host waits and query.
    calls("the stream's synchronize", "cuStreamQuery", 1, true, || {
        stream.synchronize()
    })?;
    calls(
        "the stream's synchronize_by",
        "cuStreamQuery",
        1,
        true,
        || stream.synchronize_by(deadline),
    )?;
    let done = calls(
        "the stream's is_complete",
        "cuStreamQuery",
        1,
        false,
        || stream.is_complete(),
    )?;
    assert!(
        done,
        "restricted_scope: a stream waited for is not complete"
    );
    // The module's unload (driver 12.5+, as the double reports 13.0 here): its wait for the
    // context's work is bounded, an event recorded on the context and queried, never the
    // unbounded `cuCtxSynchronize`.
    drop((graph, gain));
    let synchronized = calls_of("cuCtxSynchronize");
    let ((), recorded) = counting("cuCtxRecordEvent", || {
        drop(module);
        Ok(())
    })?;
    let synchronized = calls_of("cuCtxSynchronize") - synchronized;
    // A failed call on the way (the drops record it) reaches the program as its error.
    if let Some(e) = custack::take_drop_errors().into_iter().next() {
        return Err(e);
    }
    assert!(
        (recorded, synchronized) == (1, 0),
        "restricted_scope: the module's unload made {recorded} cuCtxRecordEvent and \
         {synchronized} cuCtxSynchronize, not 1 and 0"
    );
    Ok(())
}

/// The driver's init path (no GPU; the double reports driver 13.0): `Driver::init` registers
/// the driver's log callback (`cuLogsRegisterCallback`, 12.9+) once, a second `Driver::init`
/// registers nothing, and `Profile::init` after them is refused (`OutsideProfile`: the process
/// used the full API, and its driver keeps the callback, while the safety subset has no
/// callbacks) before any driver call (at 12.2, without the log API: `profile_first`). Under a
/// failed call on the way, `Driver::init` returns that error.
fn driver_init() -> Result<()> {
    calls_of("cu"); // counting starts
    let ((), registered) = counting("cuLogsRegisterCallback", || Driver::init().map(drop))?;
    assert!(
        registered == 1,
        "driver_init: the first Driver::init made {registered} cuLogsRegisterCallback, not 1"
    );
    let ((), again) = counting("cuLogsRegisterCallback", || Driver::init().map(drop))?;
    assert!(
        again == 0,
        "driver_init: a second Driver::init registered the callback {again} more times"
    );
    let before = driver_calls()?;
    let profile = custack::safety::Profile::init(1);
    let calls = driver_calls()? - before;
    match profile {
        Err(e) if e.kind() == custack::ErrorKind::OutsideProfile && calls == 0 => Ok(()),
        other => panic!(
            "driver_init: Profile::init after Driver::init made {calls} driver calls and \
             returned {other:?}, not OutsideProfile before any call"
        ),
    }
}

/// Redundant execution under the profile (no GPU; the double reports driver 13.2, whose green
/// contexts it models): a declared kernel (the `frame_gain` stand-in) run once in each of two
/// SM partitions per frame, into its own output, the two compared. Three frames: two clean, in
/// which both replicas hold the CPU's result, then one whose second replica is given another
/// gain, which must be found with its first element and count. The partitions' SM counts and
/// the frame count are checked too, and the green contexts' release by the double's report (a
/// leak fails the run).
fn redundant_partitions() -> Result<()> {
    use custack::safety::{Budget, OnMismatch, Profile, RestrictedContext, WaitBound};
    let profile = Profile::init(1)?;
    // SAFETY: as the kernel, the stand-in reads and writes n floats of `data`.
    let _gain = unsafe {
        StandIn::register(&profile.driver(), "frame_gain", |call| {
            let (data, gain, n) = (
                call.arg::<u64>(0)?,
                call.arg::<f32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<f32>(data, n as usize)?;
            v.iter_mut().for_each(|x| *x *= gain);
            call.write(data, &v)?;
            Ok(())
        })
    }?;
    let cubin = differential::frame_cubin();
    let bytes = 3 * SCOPE_LEN * size_of::<f32>();
    let budget = Budget::page_locked(bytes)
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(bytes)
        .streams(2)
        .partitions(2)
        .modules(1)
        .kernels(1);
    let device = profile.device(0)?;
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<()> {
        let init = guard.init()?;
        // SAFETY: a complete cubin made above, whose `frame_gain` (stand-in or kernel) honours
        // its contract.
        let module = unsafe { init.load_cubin(&cubin) }?;
        let mut twice = init.redundant::<pipeline::FrameGain, f32>(
            &module,
            "data",
            SCOPE_LEN,
            16,
            OnMismatch::ReturnError,
        )?;
        let mut src = init.alloc_pinned::<f32>(SCOPE_LEN)?;
        #[allow(clippy::cast_precision_loss)] // below 2^24: exact
        for (i, x) in src.iter_mut().enumerate() {
            *x = i as f32 + 1.0;
        }
        let _run = init.seal();
        let sms = twice.sm_counts();
        assert!(
            sms == [16, 16],
            "restricted_redundant: partitions of {sms:?} SMs, not 16 each"
        );
        let n = SCOPE_LEN as u32;
        let config = LaunchConfig::for_elements(n);
        let gains = [[0.5, 0.5], [0.25, 0.25], [0.5, 2.0]];
        for (frame, [g0, g1]) in gains.into_iter().enumerate() {
            let outcome = twice.run(&src, |replica, s, kernel, out, src| {
                s.copy_to_device(&mut *out, src)?;
                let g = if replica == 0 { g0 } else { g1 };
                s.run(kernel, config, (&mut *out, g, n))
            });
            // A launch's or a copy's error ends the program (the schedule's failure).
            if let Err(e) = &outcome
                && e.kind() != custack::ErrorKind::ReplicasDiffer
            {
                return outcome;
            }
            let want = |g: f32| (0..SCOPE_LEN).map(|i| src[i] * g).collect::<Vec<_>>();
            let (first, second) = (twice.replica(0), twice.replica(1));
            assert!(
                first == want(g0) && second == want(g1),
                "restricted_redundant: frame {frame}: replicas {first:?} and {second:?}"
            );
            match outcome {
                Ok(()) if g0 == g1 => {}
                Err(e) if g0 != g1 && e.kind() == custack::ErrorKind::ReplicasDiffer => {
                    let text = e.to_string();
                    let named = format!(
                        "frame {frame}: the two runs wrote different `data`: element 0 \
                         differs first, {SCOPE_LEN} of {SCOPE_LEN} elements differ"
                    );
                    assert!(text.contains(&named), "restricted_redundant: {text}");
                }
                Err(e) => return Err(e),
                Ok(()) => panic!(
                    "restricted_redundant: frame {frame}: replicas {g0} and {g1} compared equal"
                ),
            }
        }
        let frames = twice.frames();
        assert!(
            frames == 3,
            "restricted_redundant: {frames} frames counted, not 3"
        );
        Ok(())
    })();
    let shutdown = guard.shutdown();
    drop(stack);
    let destroyed = ctx.destroy();
    outcome.and(shutdown).and(destroyed)
}
