//! What the type system must let through: the must-compile rows (P) of `docs/invariants.md`, and
//! the positive twin of every compile-fail program in `ui-tests/`.
//!
//! Each pattern is a plain function taking what it needs, so this file compiling is the test
//! that the pattern compiles. The `#[ignore = "needs a CUDA device"]` tests run them on device
//! 0 (P5: on every device) and check the values read back; without a device they fail
//! (`Driver::init` errs), they never pass. The tests that are not ignored need no GPU.
//!
//! Twins: `ui-tests/cN_*.rs` names the function here that does the same thing correctly, and
//! each `cN_*` function below lists the ui tests it answers. The patterns P1, P3 and P4 are
//! twins too (C13/C15, C4/C15 and C6/C8 respectively).
//!
//! Run: `cargo test --test patterns` (no GPU), `-- --include-ignored` on a GPU machine.

use custack::{
    Context, ContextFlags, DeviceCopy, DeviceMemory, DeviceMemoryMut, Driver, ErrorKind,
    EventFlags, LaunchConfig, Module, ParkedBuffer, ParkedModule, PushedGuard, Result, Stack,
    StackTop, StreamFlags,
};

/// Hand-written PTX: `vector_add(a, b, c, n)`, `add_u32(x, k, n)`, `empty()`, `empty_ptr(x)`.
const KERNELS: &str = include_str!("fixtures/kernels.ptx");
/// Elements per buffer: not a multiple of the block size, so the kernels' bounds checks count.
const N: usize = 1000;
const N32: u32 = N as u32;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `x[i] += k` for every element of `x`, with `add_u32` of `module`, in one stream scope.
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

/// Attaches a parked buffer and module to `guard`, adds `k` to the buffer, and parks both
/// again: one step of P8.
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

/// Device 0 of an initialized driver; an error (so the GPU tests fail) without one.
fn device0() -> Result<custack::Device> {
    Driver::init()?.device(0)
}

/// A fresh created context on device 0.
fn context0() -> Result<Context> {
    Context::new(device0()?, ContextFlags::empty())
}

// ---------------------------------------------------------------------------------------------
// P1–P8
// ---------------------------------------------------------------------------------------------

/// P1: several streams, buffers and functions from one guard used together, three buffers in
/// one launch. Also the twin of C13 (the launch is in `unsafe`) and C15 (its arguments are
/// plain data and memory bound to the launching scope): `ui-tests/c13_launch_outside_unsafe.rs`,
/// `c14_launch_same_buffer_shared_and_mut.rs`, `c15_launch_arg_*.rs`; and the twin of the
/// messages pinned by `ui-tests/hint_c*.rs` (a read binding passed by value, a mutable one by
/// reference, every buffer bound before a launch or a copy takes it).
///
/// Returns `c = a + b` and `x + 5` read back.
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

/// P2: push A, pop; push B, pop; push A again, on one thread. Returns which context each
/// guard had current and a value computed under each.
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

/// P3: push A, push B on top, work on B, pop B, carry on with A, including a buffer and a
/// module of A created before B was pushed: parked across the nested push and re-attached.
/// The twin of `ui-tests/c4_outer_*_used_inside_nested_push.rs` and
/// `c15_launch_arg_foreign_guard_buffer.rs` / `c15_launch_arg_parked_buffer.rs`.
///
/// Returns A's buffer (`1 + 2` everywhere) and what B computed (`10 + 5`).
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

/// P4: one `Context` shared by `threads` threads, each pushing it on its own stack. The twin of
/// `ui-tests/c5_context_dropped_while_pushed_on_other_thread.rs`, `c6_*.rs` and `c8_*.rs`.
///
/// Thread `i` returns `i + 100` everywhere.
fn p4_shared_context(ctx: &Context, threads: u32) -> Result<Vec<Vec<u32>>> {
    let worker = |i: u32| -> Result<Vec<u32>> {
        let mut stack = Stack::new()?;
        let guard = stack.push(ctx)?;
        let module = guard.load_ptx(KERNELS)?;
        let mut x = guard.alloc_from(&vec![i; N])?;
        add_on_device(&guard, &module, &mut x, 100)?;
        x.to_vec()
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

/// P5: one thread per device, each with its own context. Device `i` returns `i + 1000`.
fn p5_one_thread_per_device(driver: Driver) -> Result<Vec<Vec<u32>>> {
    let devices = driver.devices()?;
    std::thread::scope(|t| {
        let handles: Vec<_> = devices
            .iter()
            .map(|&device| {
                t.spawn(move || -> Result<Vec<u32>> {
                    let ctx = Context::new(device, ContextFlags::empty())?;
                    let mut stack = Stack::new()?;
                    let guard = stack.push(&ctx)?;
                    let module = guard.load_ptx(KERNELS)?;
                    let mut x = guard.alloc_from(&vec![device.ordinal() as u32; N])?;
                    add_on_device(&guard, &module, &mut x, 1000)?;
                    x.to_vec()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// P6: a library type that owns a floating context and pushes it on every call, whatever the
/// caller has current.
struct AddLibrary {
    ctx: Context,
}

impl AddLibrary {
    fn new(device: custack::Device) -> Result<Self> {
        Ok(Self {
            ctx: Context::new(device, ContextFlags::empty())?,
        })
    }

    /// `input[i] + k`, computed in the library's own context.
    fn run(&self, top: &mut impl StackTop, input: &[u32], k: u32) -> Result<Vec<u32>> {
        top.with_pushed(&self.ctx, |guard| {
            let module = guard.load_ptx(KERNELS)?;
            let mut x = guard.alloc_from(input)?;
            add_on_device(guard, &module, &mut x, k)?;
            x.to_vec()
        })?
    }
}

/// The context current on this thread, as the driver sees it (null if none).
fn current_context() -> custack::ffi::CUcontext {
    let mut current = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; `cuCtxGetCurrent` only writes it. A failure leaves it null.
    let _ = unsafe { custack::ffi::cuCtxGetCurrent(&raw mut current) };
    current
}

/// P6 from the caller's side: the library is called with nothing current (on the bare stack)
/// and with the caller's own context current (on its guard), which is current again after.
/// Returns both results and whether the caller's context was current after the second call.
fn p6_library_owns_context(
    caller: &Context,
    library: &AddLibrary,
) -> Result<(Vec<u32>, Vec<u32>, bool)> {
    let mut stack = Stack::new()?;
    let bare = library.run(&mut stack, &[1, 2, 3], 10)?;
    let mut guard = stack.push(caller)?;
    let nested = library.run(&mut guard, &[4, 5, 6], 20)?;
    let caller_on_top = current_context() == caller.as_raw();
    guard.synchronize()?;
    Ok((bare, nested, caller_on_top))
}

/// Compiles only if `E` can be boxed, sent and returned from any thread (P7; the lead's
/// `fn _assert<E: …>()`).
fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}

/// P7: `?` with the crate's error everywhere, also into `Box<dyn Error + Send + Sync>` and across
/// a thread boundary. Returns the device count and the sum computed on device 0.
fn p7_question_mark_everywhere()
-> std::result::Result<(usize, u32), Box<dyn std::error::Error + Send + Sync>> {
    let driver = Driver::init()?;
    let count = driver.device_count()?;
    let sum = std::thread::scope(|t| {
        t.spawn(move || -> Result<u32> {
            let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
            let mut stack = Stack::new()?;
            let guard = stack.push(&ctx)?;
            Ok(guard.alloc_from(&[1u32, 2, 3])?.to_vec()?.iter().sum())
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })?;
    Ok((count, sum))
}

/// P8: one thread drives two contexts alternately, each with a long-lived buffer and module,
/// parked between turns. Pushes go through `Stack::with_pushed` here and `Stack::push` in
/// `p8_alternating_with_push`; either way parked values borrow only their context.
///
/// After `rounds` rounds, A's buffer holds `rounds` (A adds 1 a turn) and B's
/// `rounds * (rounds + 1) / 2` (B adds the round number).
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

/// Twin of `ui-tests/c29_batch_destination_not_bound_mutably.rs`,
/// `c29_batch_over_buffer_of_other_scope.rs` and `c29_batch_outlives_its_scope.rs`: a batch of
/// copies made by a scope takes destinations bound to it with `bind_mut` (or `&mut` of a
/// stream-ordered allocation), sources bound with `bind`, and is enqueued by the same scope.
///
/// Returns what the host read back: two 128-element halves, 1 then 2.
fn c29_batch_of_copies(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let (ones, twos) = (vec![1u32; 128], vec![2u32; 128]);
    let (mut a, mut b) = (guard.alloc::<u32>(128)?, guard.alloc::<u32>(128)?);
    let mut joined = guard.alloc::<u32>(256)?;
    let (mut lo, mut hi) = joined.split_at_mut(128)?;
    let mut out = vec![0u32; 256];
    stream.scope(|s| -> Result<()> {
        let (mut da, mut db) = (s.bind_mut(&mut a), s.bind_mut(&mut b));
        let mut up = s.batch();
        up.to_device(&mut da, &ones)?.to_device(&mut db, &twos)?;
        s.copy_batch(up)?;
        let (mut lo, mut hi) = (s.bind_mut(&mut lo), s.bind_mut(&mut hi));
        let mut join = s.batch();
        join.device(&mut lo, &da)?.device(&mut hi, &db)?;
        s.copy_batch(join)?;
        let (out_lo, out_hi) = out.split_at_mut(128);
        let mut down = s.batch();
        down.to_host(out_lo, &lo)?.to_host(out_hi, &hi)?;
        s.copy_batch(down)
    })??;
    Ok(out)
}

/// Twin of `ui-tests/c10_scoped_alloc_*.rs`: a stream-ordered allocation is used by several
/// operations of its scope by reference, even dropped while a kernel using it may be pending
/// (its free is ordered after that kernel on the same stream), and never leaves the scope.
///
/// Returns what the host read back: `x[i] = 3 + 4` for 256 elements.
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
        Ok(())
    })??;
    Ok(out)
}

/// P8 with top-level guards: `Stack::push`, park, pop, push the other context. A parked
/// resource borrows only its `Context` (`PushedGuard<'ctx, 'stack>` keeps the two borrows
/// apart), so it does not keep the stack borrowed.
fn p8_alternating_with_push(a: &Context, b: &Context) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let parked_a = {
        let g = stack.push(a)?;
        g.park(g.alloc_from(&[1u32; 4])?)
    };
    let parked_b = {
        let g = stack.push(b)?;
        g.park(g.alloc_from(&[2u32; 4])?)
    };
    let g = stack.push(a)?;
    let from_a = g.attach(parked_a)?.to_vec()?;
    drop(g);
    let g = stack.push(b)?;
    let from_b = g.attach(parked_b)?.to_vec()?;
    Ok((from_a, from_b))
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

/// What P11 reads back, each checked element by element by `p11_on_device`.
struct Staged {
    /// B's sum of what A staged (the program).
    total: f32,
    /// What B copied back into A's page-locked buffer after adding its own input: `2 * i`.
    round_trip: Vec<f32>,
    /// What A read from B's result staged in a parked registered vector: `3 * i`.
    registered: Vec<f32>,
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
fn p11_staging_through_pinned(a: &Context, b: &Context) -> Result<Staged> {
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
    Ok(Staged {
        total,
        round_trip,
        registered,
    })
}

// ---------------------------------------------------------------------------------------------
// Positive twins of ui-tests/
// ---------------------------------------------------------------------------------------------

/// Twin of `ui-tests/c1_use_after_pop_*.rs` and `c1_use_after_explicit_pop.rs`: every handle a
/// guard lends (stream, event, module, function, device buffer, view, page-locked memory, a
/// stream borrowed from a raw handle, a buffer adopted from a raw pointer) is used while the
/// guard is alive, and the guard pops after the last of them is dropped.
///
/// Returns the view read back (`x + 1` on `x[4..8)`, `x[i] = i`) and the page-locked copy.
fn c1_handles_used_before_pop(ctx: &Context) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let (view, pinned) = {
        let stream = guard.stream()?;
        let event = guard.event(EventFlags::empty())?;
        let module = guard.load_ptx(KERNELS)?;
        let empty = module.function("empty")?;
        let buffer = guard.alloc_from(&(0..16).collect::<Vec<u32>>())?;
        let mut pinned = guard.alloc_pinned::<u32>(16)?;
        stream.scope(|s| -> Result<()> {
            // SAFETY: `empty()` takes no parameters and touches no memory.
            unsafe { s.launch(&empty, LaunchConfig::for_elements(1), ()) }?;
            s.record(&event)
        })??;
        event.synchronize()?;
        // SAFETY: `stream` is a live stream of this guard's context, owned by `stream`, which
        // outlives `borrowed` (declared earlier, dropped later).
        let borrowed = unsafe { guard.borrow_stream_raw(stream.as_raw()) };
        borrowed.synchronize()?;
        let (ptr, len) = buffer.into_raw();
        // SAFETY: the `cuMemAlloc` allocation of 16 `u32`s `into_raw` just gave up, in this
        // guard's context, used by nothing else.
        let mut buffer = unsafe { guard.buffer_from_raw::<u32>(ptr, len) };
        let mut middle = buffer.slice_mut(4..8)?;
        add_on_device(&guard, &module, &mut middle, 1)?;
        let view = buffer.slice(4..8)?.to_vec()?;
        buffer.copy_to_host(&mut pinned)?;
        (view, pinned.to_vec())
    }; // every handle is dropped here, while the guard is alive
    guard.pop()?;
    Ok((view, pinned))
}

/// A parked buffer returned out of the function that pushed its context (C2's sanctioned
/// escape): it borrows the context only.
fn make_parked<'c>(
    stack: &mut Stack,
    ctx: &'c Context,
    value: u32,
) -> Result<ParkedBuffer<'c, u32>> {
    stack.with_pushed(ctx, |guard| Ok(guard.park(guard.alloc_from(&[value; 4])?)))?
}

/// A struct holding a buffer, living inside the guard's scope (twin of the struct in
/// `ui-tests/c2_escape_store_in_struct.rs`).
struct Holder<'g> {
    buffer: Option<custack::DeviceBuffer<'g, u32>>,
}

/// Twin of `ui-tests/c2_escape_*.rs`: values computed under a guard leave it as plain data
/// (returned from `with_pushed` or a stream scope), buffers leave it parked, and structs holding
/// handles live inside the guard's scope.
///
/// Returns the value computed in `with_pushed`, the parked buffer read back, and the struct's.
fn c2_results_and_parked_forms_escape(ctx: &Context) -> Result<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let computed = stack.with_pushed(ctx, |guard| guard.alloc_from(&[5u32; 4])?.to_vec())??;
    let parked = make_parked(&mut stack, ctx, 6)?;
    let guard = stack.push(ctx)?;
    let from_parked = guard.attach(parked)?.to_vec()?;
    let mut holder = Holder { buffer: None };
    holder.buffer = Some(guard.alloc_from(&[7u32; 4])?);
    let stream = guard.stream()?;
    let mut host = vec![0u32; 4];
    if let Some(buffer) = &holder.buffer {
        stream.scope(|s| s.copy_to_host(&mut host, s.bind(buffer)))??;
    }
    Ok((computed, from_parked, host))
}

/// Twin of `ui-tests/c3_*.rs`: the outer guard is used after the inner guard pops (when
/// `with_pushed` returns), nested pushes go through the innermost guard, and the stack is
/// pushed on again once the first guard has popped.
///
/// Returns the contexts current at each step.
fn c3_outer_guard_used_after_inner_pops(
    a: &Context,
    b: &Context,
) -> Result<Vec<custack::ffi::CUcontext>> {
    let mut stack = Stack::new()?;
    let mut current = Vec::new();
    let mut guard_a = stack.push(a)?;
    current.push(current_context());
    guard_a.with_pushed(b, |guard_b| -> Result<()> {
        current.push(current_context());
        guard_b.with_pushed(a, |_| current.push(current_context()))?;
        current.push(current_context());
        Ok(())
    })??;
    guard_a.synchronize()?; // used after the inner guard popped
    current.push(current_context());
    drop(guard_a);
    let guard_b = stack.push(b)?; // a second top-level push, after the first popped
    current.push(current_context());
    guard_b.pop()?;
    current.push(current_context());
    Ok(current)
}

/// Twin of `ui-tests/c5_*.rs`: a context is moved before it is pushed, dropped or destroyed
/// after its guards (on this thread and on others) are gone, and a primary context is reset
/// when no guard of it is alive. Returns the number of threads that pushed it.
fn c5_context_dropped_after_its_guards(device: custack::Device) -> Result<usize> {
    let ctx = Box::new(Context::new(device, ContextFlags::empty())?); // moved before any push
    let mut stack = Stack::new()?;
    stack.push(&ctx)?.pop()?;
    let pushed = std::thread::scope(|t| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                t.spawn(|| -> Result<()> {
                    let mut stack = Stack::new()?;
                    stack.push(&ctx)?.synchronize()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect::<Result<Vec<()>>>()
    })?;
    ctx.destroy()?; // every guard is gone, on every thread
    let parked = {
        let second = Context::new(device, ContextFlags::empty())?;
        let parked = make_parked(&mut stack, &second, 1)?;
        drop(parked); // the parked buffer goes before its context
        second
    };
    drop(parked);
    let mut primary = Context::primary(device)?;
    stack.with_pushed(&primary, |guard| guard.synchronize())??;
    primary.reset()?; // no guard of it is alive
    stack.with_pushed(&primary, |guard| guard.synchronize())??;
    Ok(pushed.len())
}

/// Twin of `ui-tests/c7_*.rs` (and C6, C15's other-thread case): what crosses threads is a
/// parked buffer (`Send`), re-attached by a guard the other thread pushed itself.
/// Returns `1 + 2 + 3` everywhere: 1 set here, 2 added there, 3 added back here.
fn c7_parked_buffer_sent_to_another_thread(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let parked = stack.with_pushed(ctx, |guard| -> Result<_> {
        Ok(guard.park(guard.alloc_from(&vec![1u32; N])?))
    })??;
    let parked = std::thread::scope(|t| {
        t.spawn(move || -> Result<ParkedBuffer<'_, u32>> {
            let mut stack = Stack::new()?;
            stack.with_pushed(ctx, |guard| {
                let module = guard.load_ptx(KERNELS)?;
                let mut buffer = guard.attach(parked)?;
                add_on_device(guard, &module, &mut buffer, 2)?;
                Ok(guard.park(buffer))
            })?
        })
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })?;
    stack.with_pushed(ctx, |guard| {
        let module = guard.load_ptx(KERNELS)?;
        let mut buffer = guard.attach(parked)?;
        add_on_device(guard, &module, &mut buffer, 3)?;
        buffer.to_vec()
    })?
}

/// Twin of `ui-tests/c9_*.rs`: a function is used while its module is loaded; the module is
/// unloaded (explicitly) after the function's last use. Returns the function's block limit.
fn c9_function_used_while_module_loaded(ctx: &Context) -> Result<u32> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let empty = module.function("empty")?;
    let stream = guard.stream()?;
    // SAFETY: `empty()` takes no parameters and touches no memory.
    stream.scope(|s| unsafe { s.launch(&empty, LaunchConfig::for_elements(1), ()) })??;
    let max_threads = empty.max_threads_per_block()?;
    module.unload()?;
    Ok(max_threads)
}

/// Twin of `ui-tests/c10_*.rs` and `c11_*.rs`: device and host memory handed to asynchronous
/// work are read, written, moved and freed only after the scope has waited for the stream;
/// memory a scope uses is created before it; a second scope reuses it.
///
/// Returns the device buffer read after the first scope (`1 + 1`), synchronously and by the
/// scope's own copy, and the first two elements after the second scope, which copied the host
/// buffer (`1`, its first element set to 40 after the first scope) there and back.
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

/// Twin of `ui-tests/c16_*.rs` and `ui-tests/c17_*.rs`: a rolling pipeline of owned
/// submissions over two streams (one of them non-blocking). Each chunk's page-locked input,
/// device buffer, kernel function and host output vector are moved into an upload on `copy`;
/// the `compute` stream takes the upload over (a GPU-side wait), adds `chunk + 1` and copies
/// the result into the vector; the host waits for each chunk only when the pipeline is two
/// deep, and gets every buffer back to reuse. Returns each chunk's output vector.
fn c16_c17_pipeline_hands_memory_back(ctx: &Context, chunks: u32) -> Result<Vec<Vec<u32>>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let copy = guard.stream()?;
    let compute = guard.stream_with(StreamFlags::NON_BLOCKING, 0)?;
    let cfg = LaunchConfig::for_elements(N32);
    let mut spare = Vec::new(); // buffers handed back, reused by later chunks
    let mut pending = std::collections::VecDeque::new();
    let mut results = Vec::new();
    for chunk in 0..chunks {
        let (mut host, dev) = match spare.pop() {
            Some(buffers) => buffers,
            None => (guard.alloc_pinned::<u32>(N)?, guard.alloc::<u32>(N)?),
        };
        host.fill(chunk * 10); // the host writes its buffer only while it owns it
        let upload = copy.submit((host, dev), |s, (host, mut dev)| {
            s.copy_to_device(&mut dev, host)
        })?;
        let out = vec![0u32; N];
        let done = compute.submit_after(upload, (add, out), |s, ((_, mut dev), (add, out))| {
            // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)`; `dev` holds `n` elements.
            unsafe { s.launch(&add, cfg, (&mut dev, chunk + 1, N32)) }?;
            s.copy_to_host(out, &dev)
        })?;
        pending.push_back(done);
        if pending.len() == 2 {
            if let Some(oldest) = pending.pop_front() {
                let ((host, dev), (_add, out)) = oldest.wait()?;
                results.push(out);
                spare.push((host, dev));
            }
        }
    }
    while let Some(done) = pending.pop_front() {
        // `try_wait` first, to show the non-blocking form; then wait.
        let ((_host, _dev), (_add, out)) = match done.try_wait()? {
            Ok(payload) => payload,
            Err(still_pending) => still_pending.wait()?,
        };
        results.push(out);
    }
    Ok(results)
}

/// A user type made plain data by an `unsafe impl` (C12's twin of a user struct).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Pair {
    x: f32,
    y: f32,
}

// SAFETY: `#[repr(C)]`, two `f32` fields and no padding: every bit pattern is a valid `Pair`,
// and it holds no host pointer.
unsafe impl DeviceCopy for Pair {}

/// Round-trips `values` through device memory.
fn round_trip<T: DeviceCopy>(guard: &PushedGuard<'_, '_>, values: &[T]) -> Result<Vec<T>> {
    guard.alloc_from(values)?.to_vec()
}

/// Twin of `ui-tests/c12_*.rs`: plain data (integers, floats, arrays, tuples, a user type that
/// implements `DeviceCopy`) round-trips through device and page-locked memory.
/// Returns whether every round trip gave back its input.
fn c12_plain_data_round_trips(ctx: &Context) -> Result<bool> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let ints = [i64::MIN, -1, 0, 1, i64::MAX];
    let floats = [0.5f64, -2.25, f64::MAX];
    let arrays = [[1u8, 2, 3], [4, 5, 6]];
    let tuples = [(1u32, 2u32, 3u32), (4, 5, 6)];
    let pairs = [Pair { x: 1.0, y: 2.0 }, Pair { x: -3.0, y: 0.25 }];
    let mut pinned = guard.alloc_pinned::<Pair>(2)?;
    pinned.copy_from_slice(&pairs);
    let pinned_back = guard.alloc_from(&pinned)?.to_vec()?;
    Ok(round_trip(&guard, &ints)? == ints
        && round_trip(&guard, &floats)? == floats
        && round_trip(&guard, &arrays)? == arrays
        && round_trip(&guard, &tuples)? == tuples
        && round_trip(&guard, &pairs)? == pairs
        && pinned_back == pairs)
}

/// Twin of `ui-tests/c14_*.rs`: disjoint mutable views (from `split_at_mut`) are alive and
/// used together, bound separately in one scope and launched on; overlapping views are taken
/// one after the other. Returns the buffer: `1 + 10` on the low half, `1 + 20` on the high.
fn c14_disjoint_views(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let mut dev = guard.alloc::<u32>(N)?;
    dev.slice_mut(..)?.fill_u32(1)?; // one view ...
    let _whole = dev.slice(..)?.to_vec()?; // ... then another over the same memory
    let (mut low, mut high) = dev.split_at_mut(N / 2)?;
    let half = (N / 2) as u32;
    let cfg = LaunchConfig::for_elements(half);
    stream.scope(|s| -> Result<()> {
        let (low, high) = (s.bind_mut(&mut low), s.bind_mut(&mut high));
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)`; each half holds `half`.
        unsafe { s.launch(&add, cfg, (low, 10u32, half)) }?;
        // SAFETY: as above, on the other, disjoint half.
        unsafe { s.launch(&add, cfg, (high, 20u32, half)) }
    })??;
    dev.to_vec()
}

/// Twin of `ui-tests/c14_vmm_*.rs`: one physical allocation shown at several addresses the
/// way the borrows allow: written through one writable mapping, which is then dropped, and
/// read through two shared mappings at once, one of which shows it twice. Returns what the
/// three read-only ranges read (each `5`).
fn c14_vmm_mappings(ctx: &Context) -> Result<Vec<Vec<u32>>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let g = guard.allocation_granularity()?;
    let mut physical = guard.create_physical(g)?;
    let (one, two) = (guard.reserve(g)?, guard.reserve(2 * g)?);
    {
        let mut writable = one.map::<u32, _>(&guard, [&mut physical])?;
        writable.fill_u32(5)?;
    } // unmapped: `physical` may be shared again
    let once = one.map_read_only::<u32, _>(&guard, &[&physical])?;
    let twice = two.map_read_only::<u32, _>(&guard, &[&physical, &physical])?;
    let (front, back) = twice.split_at(once.len())?;
    Ok(vec![once.to_vec()?, front.to_vec()?, back.to_vec()?])
}

/// Twin of `ui-tests/c14_vmm_imported_allocation_mapped_writable_twice.rs`: physical memory
/// imported from a file descriptor (here this process's own export, as another process would
/// receive it) maps as local memory does: written through one writable mapping, dropped, then
/// read through two shared mappings at once. Returns what the two read-only ranges read (each
/// `6`). Linux only (POSIX descriptors).
#[cfg(target_os = "linux")]
fn c14_vmm_imported_mappings(ctx: &Context) -> Result<Vec<Vec<u32>>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let g = guard.allocation_granularity()?;
    let exported = guard.create_physical_exportable(g, custack::HandleType::PosixFileDescriptor)?;
    let mut imported = guard.import_physical(exported.export_fd()?, g)?;
    drop(exported); // the import keeps the memory alive
    let (one, two) = (guard.reserve(g)?, guard.reserve(g)?);
    {
        let mut writable = one.map::<u32, _>(&guard, [&mut imported])?;
        writable.fill_u32(6)?;
    } // unmapped: `imported` may be shared again
    let a = one.map_read_only::<u32, _>(&guard, &[&imported])?;
    let b = two.map_read_only::<u32, _>(&guard, &[&imported])?;
    Ok(vec![a.to_vec()?, b.to_vec()?])
}

/// C10: a submission takes scratch memory from a pool of the user's (`alloc_from_pool`): the pool
/// is named when the allocation is enqueued, so it need not outlive the submission's work.
fn c10_scratch_from_a_pool_in_a_submission(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let pool = guard.create_mem_pool()?;
    let stream = guard.stream()?;
    let pending = stream.submit(vec![0u32; N], |s, host| {
        let mut scratch = s.alloc_from_pool::<u32>(&pool, N)?;
        s.fill_u32(&mut scratch, 6)?;
        s.copy_to_host(host, &scratch)
    })?;
    drop(pool); // destroyed while its allocation may be pending: the driver defers the release
    pending.wait()
}

/// C18: a graph captured inside a scope that is open on another stream. What the graph uses
/// comes through its payload (the closure is `'static`, a `move` closure); the open scope's own
/// work runs and is complete when it ends. Answers `c18_capture_reaches_open_scope.rs` and
/// `c18_capture_joins_open_scope_by_event.rs`.
fn c18_capture_inside_an_open_scope(ctx: &Context) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let dev = guard.alloc_from(&[7u32; N])?;
    let mut local = vec![0u32; N];
    let payload = (guard.alloc_from(&[9u32; N])?, vec![0u32; N]);
    let graph = two.scope(|s2| {
        s2.copy_to_host(s2.bind_host_mut(&mut local), s2.bind(&dev))?;
        one.capture(payload, move |s, (d, out)| s.copy_to_host(out, &d))
    })??; // `local` holds the copy here; the graph has run nothing
    let exec = one
        .submit(graph.instantiate()?, |s, g| s.launch_graph(&g))?
        .wait()?;
    let (_d, out) = exec.payload();
    Ok((local, out.to_vec()))
}

// ---------------------------------------------------------------------------------------------
// Tests that need no GPU
// ---------------------------------------------------------------------------------------------

/// R1: a second stack token on one thread is refused with a typed error; after the first is
/// dropped, a new one can be taken.
#[test]
fn r1_second_stack_on_a_thread_is_refused() {
    let first = Stack::new().expect("the first Stack on a fresh thread");
    let second = Stack::new().expect_err("a second Stack on the same thread");
    assert_eq!(second.kind(), ErrorKind::StackAlreadyTaken);
    assert!(second.to_string().contains("StackTop"), "{second}");
    drop(first);
    drop(Stack::new().expect("a Stack again once the first is dropped"));
}

/// Twin of `ui-tests/c8_*.rs`: each thread takes its own stack, while this thread holds one.
#[test]
fn a_stack_per_thread() {
    let mine = Stack::new().expect("this thread's Stack");
    std::thread::scope(|t| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                t.spawn(|| {
                    let stack = Stack::new().expect("each thread takes its own Stack");
                    assert_eq!(
                        Stack::new().map(drop).map_err(|e| e.kind()),
                        Err(ErrorKind::StackAlreadyTaken)
                    );
                    drop(stack);
                })
            })
            .collect();
        for w in workers {
            w.join().expect("worker thread");
        }
    });
    drop(mine);
}

/// P7 without a device: the error is `std::error::Error + Send + Sync + 'static`, and travels
/// through `?` into a boxed error and across threads.
#[test]
fn p7_error_is_std_error_send_sync() {
    fn fails() -> std::result::Result<(), Box<dyn std::error::Error + Send + Sync>> {
        Err(custack::Error::from_raw(
            custack::ffi::CUresult::CUDA_ERROR_NO_DEVICE,
        ))?;
        Ok(())
    }
    assert_error::<custack::Error>();
    let boxed = std::thread::spawn(fails)
        .join()
        .expect("thread")
        .expect_err("an error");
    let error = boxed
        .downcast::<custack::Error>()
        .expect("a custack::Error inside");
    assert_eq!(error.kind(), ErrorKind::NoDevice);
}

/// What may cross threads does (the twin of C6–C8's `!Send`/`!Sync` handles): contexts,
/// devices, the driver token, parked buffers and modules, and the error.
#[test]
fn handles_that_may_cross_threads_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Context>();
    send_sync::<Driver>();
    send_sync::<custack::Device>();
    send_sync::<ParkedBuffer<'static, u32>>();
    send_sync::<ParkedModule<'static>>();
    send_sync::<custack::ParkedPinned<'static, u32>>();
    send_sync::<custack::ParkedRegisteredVec<'static, u32>>();
    send_sync::<custack::Error>();
}

// ---------------------------------------------------------------------------------------------
// P10: kernel contracts
// ---------------------------------------------------------------------------------------------

custack::kernel_contract! {
    /// `vector_add(const float* a, const float* b, float* c, unsigned n)`: `c[i] = a[i] + b[i]`
    /// for `i < n`.
    unsafe kernel VectorAdd = "vector_add"(a: &[f32; n], b: &[f32; n], c: &mut [f32; n], n: u32);
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    unsafe kernel CountThreads = "count_threads"();
}

/// C24 and P12: a kernel that accumulates into its module's global, and the host reads the
/// result once the kernel's handle is no longer used; then the same declared kernel launched
/// in a submission that is parked across a nested push of `b` (P12: it parks as `()`, like a
/// `Function`), its module parked too, and the global read after the module is attached again
/// while the parked kernel may still run (`global` waits for the context first). Answers
/// `c24_global_read_beside_declared_kernel.rs`, `c24_global_read_by_submission_owning_module.rs`
/// and `c24_global_written_while_submission_runs_kernel.rs`. Returns the counter after 256
/// threads, after 2^20 more, and what `b` computed meanwhile.
fn c24_p12_global_read_after_its_kernels(a: &Context, b: &Context) -> Result<(u32, u32, u32)> {
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let mut module = ga.load_ptx(KERNELS)?;
    module.global_mut::<u32>("counters")?.fill_u32(0)?;
    let count = module.declared::<CountThreads>()?;
    ga.stream()?
        .scope(|s| s.run(&count, LaunchConfig::for_elements(256), ()))??;
    let first = module.global::<u32>("counters")?.to_vec()?[0];
    let count = module.declared::<CountThreads>()?;
    let pending = {
        let stream = ga.stream()?;
        let work = stream.submit(count, |s, count| {
            s.run(&count, LaunchConfig::for_elements(1 << 20), ())
        })?;
        ga.park_submission(work) // borrows `a` only: `count` parked as `()`
    };
    let parked = ga.park_module(module);
    let other = ga.with_pushed(b, |gb| gb.alloc_from(&[5u32; 4])?.to_vec())??;
    let mut module = ga.attach_module(parked)?;
    let second = module.global::<u32>("counters")?.to_vec()?[0]; // after the parked kernel
    pending.wait()?;
    Ok((first, second, other[0]))
}

/// P10: a declared kernel launched without `unsafe` at the call site, in a stream scope, a
/// submission and a graph capture. The twin of every `ui-tests/c23_*.rs`: the right count,
/// order and types, a writable binding where the contract writes, the kernel of the context
/// whose stream launches it. Returns `c = a + b` (`3 i`) and `x` after `1 + 2 + 3 × 4`.
fn p10_contract_launches(ctx: &Context) -> Result<(Vec<f32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let (vector_add, add) = (
        module.declared::<VectorAdd>()?,
        module.declared::<AddU32>()?,
    );
    let stream = guard.stream()?;
    let cfg = LaunchConfig::for_elements(N32);
    let a: Vec<f32> = (0..N).map(|i| f32::from(i as u16)).collect();
    let b: Vec<f32> = a.iter().map(|x| 2.0 * x).collect();
    let (da, db) = (guard.alloc_from(&a)?, guard.alloc_from(&b)?);
    let mut dc = guard.alloc_zeroed::<f32>(N)?;
    let mut c = vec![0f32; N];
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    // A stream scope: read-only bindings by value, a writable one by `&mut`.
    stream.scope(|s| -> Result<()> {
        let (sa, sb, mut sc) = (s.bind(&da), s.bind(&db), s.bind_mut(&mut dc));
        s.run(&vector_add, cfg, (sa, sb, &mut sc, N32))?;
        s.copy_to_host(&mut c, &sc)?;
        let mut sx = s.bind_mut(&mut x);
        s.run(&add, cfg, (&mut sx, 1, N32))
    })??;
    // A submission owning the buffer and the declared kernel.
    let (x, add) = stream
        .submit((x, add), |s, (mut x, add)| {
            s.run(&add, cfg, (&mut x, 2, N32))
        })?
        .wait()?;
    // A graph capture, launched three times.
    let graph = stream.capture((x, add, vec![0u32; N]), move |s, (mut x, add, out)| {
        s.run(&add, cfg, (&mut x, 4, N32))?;
        s.copy_to_host(out, &x)
    })?;
    let mut exec = graph.instantiate()?;
    for _ in 0..3 {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    }
    let (_x, _add, out) = exec.payload();
    Ok((c, out.to_vec()))
}

/// `#[derive(DeviceCopy)]` on a `#[repr(C)]` struct of plain data without padding: the twin of
/// `ui-tests/c23_derive_device_copy_*.rs`. It is a kernel argument and copies to the device.
#[derive(Clone, Copy, Debug, PartialEq, custack::DeviceCopy)]
#[repr(C)]
struct Derived {
    scale: [f32; 3],
    count: u32,
    id: u64,
}

/// A `#[repr(transparent)]` newtype.
#[derive(Clone, Copy, Debug, PartialEq, custack::DeviceCopy)]
#[repr(transparent)]
struct Meters(f64);

#[test]
fn derived_plain_data() {
    fn plain<T: DeviceCopy>() {}
    plain::<Derived>();
    plain::<Meters>();
    plain::<[Derived; 4]>();
}

// ---------------------------------------------------------------------------------------------
// Tests on a device (fail without one)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// P14: a whole program under the restricted safety profile
// ---------------------------------------------------------------------------------------------

/// Twin of `ui-tests/c30_*.rs`: memory imported from `fd` (an opaque-fd export of `size`
/// bytes), a buffer mapped onto it, used as device memory (filled in a scope, read back), and
/// freed before the import, which dies before the guard. Compiling is the test here (the fd
/// must come from Vulkan); `tests/gpu_external.rs` runs the same steps on a GPU.
#[cfg(target_os = "linux")]
#[allow(dead_code)]
fn c30_mapped_buffer_freed_before_its_import(
    ctx: &Context,
    fd: std::os::fd::OwnedFd,
    size: u64,
) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    // SAFETY: the caller's fd is an opaque-fd export of `size` bytes of this device's memory
    // that nothing else touches meanwhile.
    let mut memory = unsafe { guard.import_memory(fd, size, custack::MemoryHandle::OpaqueFd)? };
    let mut buffer = memory.map_buffer::<u32>(0, 16)?;
    let stream = guard.stream()?;
    stream.scope(|s| s.fill_u32(s.bind_mut(&mut buffer), 7))??;
    let read = buffer.to_vec()?;
    drop(buffer);
    drop(memory);
    Ok(read)
}

/// Twin of `ui-tests/c31_*.rs`: a timeline semaphore imported outside the scope, waited on and
/// signalled inside it, destroyed after the scope's end (bounded by its deadline) waited.
#[cfg(target_os = "linux")]
#[allow(dead_code)]
fn c31_semaphore_waited_and_signalled_in_a_scope(
    ctx: &Context,
    fd: std::os::fd::OwnedFd,
) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let semaphore = guard.import_semaphore::<custack::Timeline>(fd)?;
    let stream = guard.stream()?;
    let deadline = custack::Deadline::after(std::time::Duration::from_secs(60));
    stream.scope_by(deadline, custack::Overrun::Exit, |s| -> Result<()> {
        s.wait_semaphore(&semaphore, 1)?;
        s.signal_semaphore(&semaphore, 2)
    })??;
    drop(semaphore);
    Ok(())
}

/// Example 22's pipeline, this very file: init (a cubin, two declared kernels, a stream,
/// budgeted page-locked and device memory, a captured graph) sealed into a run phase whose
/// frames launch, copy and check.
mod common;

#[path = "../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod frame_pipeline;

/// P14, and the positive twin of every `ui-tests/c26_*.rs` and `c27_*.rs`: the example's
/// pattern compiles under the profile, and on a GPU (with `CUSTACK_FRAME_CUBIN`, a cubin nvcc
/// made of `examples/kernels/frame.cu`) runs `frames` frames, each checked against the CPU.
fn p14_safety_profile_frame(
    cubin: &[u8],
    frames: u32,
) -> core::result::Result<u32, frame_pipeline::FrameError> {
    let profile = custack::safety::Profile::init(1)?;
    frame_pipeline::run(profile, cubin, |run, frame| {
        for _ in 0..frames {
            frame()?;
        }
        run.synchronize()?;
        Ok(frames)
    })
}

#[test]
#[ignore = "needs a CUDA device"]
fn p14_on_device() {
    if !common::alone_in_a_process("p14_on_device") {
        return;
    }
    let path = std::env::var("CUSTACK_FRAME_CUBIN").expect(
        "CUSTACK_FRAME_CUBIN: a cubin of examples/kernels/frame.cu (scripts/gpu-bundle.sh)",
    );
    let cubin = std::fs::read(&path).expect("the cubin");
    assert_eq!(p14_safety_profile_frame(&cubin, 20).unwrap(), 20);
}

#[test]
#[ignore = "needs a CUDA device"]
fn p1_on_device() -> Result<()> {
    let (c, x) = p1_one_guard_many_handles(&context0()?)?;
    let expected: Vec<f32> = (0..N).map(|i| 3.0 * f32::from(i as u16)).collect();
    assert_eq!(c, expected);
    assert_eq!(x, vec![12; N]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn p10_on_device() -> Result<()> {
    let (c, x) = p10_contract_launches(&context0()?)?;
    let expected: Vec<f32> = (0..N).map(|i| 3.0 * f32::from(i as u16)).collect();
    assert_eq!(c, expected);
    assert_eq!(x, vec![1 + 2 + 3 * 4; N]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn p2_on_device() -> Result<()> {
    let (a, b) = (context0()?, context0()?);
    let seen = p2_push_pop_push(&a, &b)?;
    let expected = vec![
        (a.as_raw(), vec![1; 4]),
        (b.as_raw(), vec![2; 4]),
        (a.as_raw(), vec![3; 4]),
    ];
    assert_eq!(seen, expected);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn p3_on_device() -> Result<()> {
    let (a, b) = (context0()?, context0()?);
    let (from_a, from_b) = p3_nested_push(&a, &b)?;
    assert_eq!(from_a, vec![3; N]);
    assert_eq!(from_b, vec![15; N]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn p4_on_device() -> Result<()> {
    let results = p4_shared_context(&context0()?, 8)?;
    assert_eq!(results.len(), 8);
    for (i, result) in (0u32..).zip(&results) {
        assert_eq!(*result, vec![i + 100; N], "thread {i}");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn p5_on_every_device() -> Result<()> {
    let driver = Driver::init()?;
    let results = p5_one_thread_per_device(driver)?;
    assert!(!results.is_empty(), "no device");
    assert_eq!(results.len(), driver.device_count()?);
    for (i, result) in (0u32..).zip(&results) {
        assert_eq!(*result, vec![i + 1000; N], "device {i}");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn p6_on_device() -> Result<()> {
    let library = AddLibrary::new(device0()?)?;
    let (bare, nested, caller_on_top) = p6_library_owns_context(&context0()?, &library)?;
    assert_eq!(bare, [11, 12, 13]);
    assert_eq!(nested, [24, 25, 26]);
    assert!(
        caller_on_top,
        "the caller's context is current again after the library call"
    );
    assert!(current_context().is_null(), "nothing is left current");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn p7_on_device() {
    let (count, sum) = p7_question_mark_everywhere().expect("P7 on device 0");
    assert!(count >= 1);
    assert_eq!(sum, 6);
}

#[test]
#[ignore = "needs a CUDA device"]
fn p8_on_device() -> Result<()> {
    let driver = Driver::init()?;
    let second = driver.device(driver.device_count()?.min(2) - 1)?; // device 1 if there is one
    let (a, b) = (context0()?, Context::new(second, ContextFlags::empty())?);
    let rounds = 5;
    let (from_a, from_b) = p8_alternating_contexts(&a, &b, rounds)?;
    assert_eq!(from_a, vec![rounds; N]);
    assert_eq!(from_b, vec![rounds * (rounds + 1) / 2; N]);
    assert_eq!(p8_alternating_with_push(&a, &b)?, (vec![1; 4], vec![2; 4]));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn twins_c1_c2_c3_on_device() -> Result<()> {
    let (a, b) = (context0()?, context0()?);
    let (view, pinned) = c1_handles_used_before_pop(&a)?;
    assert_eq!(view, [5, 6, 7, 8]);
    assert_eq!(
        pinned,
        (0..16)
            .map(|i| if (4..8).contains(&i) { i + 1 } else { i })
            .collect::<Vec<u32>>()
    );
    assert_eq!(
        c2_results_and_parked_forms_escape(&a)?,
        (vec![5; 4], vec![6; 4], vec![7; 4])
    );
    let (ra, rb, none) = (a.as_raw(), b.as_raw(), core::ptr::null_mut());
    assert_eq!(
        c3_outer_guard_used_after_inner_pops(&a, &b)?,
        [ra, rb, ra, rb, ra, rb, none]
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn twins_c5_c7_c9_on_device() -> Result<()> {
    assert_eq!(c5_context_dropped_after_its_guards(device0()?)?, 2);
    let ctx = context0()?;
    assert_eq!(c7_parked_buffer_sent_to_another_thread(&ctx)?, vec![6; N]);
    assert!(c9_function_used_while_module_loaded(&ctx)? >= 32);
    Ok(())
}

/// P9 on two contexts: of device 0 and device 1 if there is one (two GPUs), else both of
/// device 0. Checked element by element.
#[test]
#[ignore = "needs a CUDA device"]
fn p9_on_device() -> Result<()> {
    let driver = Driver::init()?;
    let second = driver.device(driver.device_count()?.min(2) - 1)?; // device 1 if there is one
    let (a, b) = (context0()?, Context::new(second, ContextFlags::empty())?);
    let [host_a, host_b, dev_a, ordered, peer_copy] = p9_two_contexts_in_flight(&a, &b)?;
    for (what, got, want) in [
        ("A's host result", &host_a, 6),
        ("B's host result", &host_b, 10),
        ("A's device buffer", &dev_a, 6),
        ("the ordered submission", &ordered, 14),
        ("B's peer copy of A's pending buffer", &peer_copy, 6),
    ] {
        assert_eq!(got.len(), N, "{what}");
        for (i, &x) in got.iter().enumerate() {
            assert_eq!(x, want, "{what}, element {i}");
        }
    }
    Ok(())
}

/// P11 on two contexts: of device 0 and device 1 if there is one (two GPUs, no peer access
/// needed), else both of device 0. Checked element by element.
#[test]
#[ignore = "needs a CUDA device"]
fn p11_on_device() -> Result<()> {
    let driver = Driver::init()?;
    let second = driver.device(driver.device_count()?.min(2) - 1)?; // device 1 if there is one
    let (a, b) = (context0()?, Context::new(second, ContextFlags::empty())?);
    let staged = p11_staging_through_pinned(&a, &b)?;
    // Every value is an integer below 2^24, so the f32 arithmetic is exact: compare bits.
    let expected_total: f32 = (0..N).map(|i| f32::from(i as u16)).sum();
    assert_eq!(staged.total.to_bits(), expected_total.to_bits());
    assert_eq!(staged.round_trip.len(), N);
    assert_eq!(staged.registered.len(), N);
    for i in 0..N {
        let x = f32::from(i as u16);
        let (twice, thrice) = (staged.round_trip[i], staged.registered[i]);
        assert_eq!(
            twice.to_bits(),
            (2.0 * x).to_bits(),
            "round trip, element {i}: {twice}"
        );
        assert_eq!(
            thrice.to_bits(),
            (3.0 * x).to_bits(),
            "registered, element {i}: {thrice}"
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn twins_c10_c11_c12_c14_on_device() -> Result<()> {
    let ctx = context0()?;
    let (first, first_async, second) = c10_c11_memory_reused_after_scope(&ctx)?;
    assert_eq!(first, vec![2; N]);
    assert_eq!(first_async, first);
    assert_eq!(second, [40, 1]); // the host buffer, changed after the first scope
    assert_eq!(c10_stream_ordered_alloc_in_scope(&ctx)?, vec![7; 256]);
    let joined = c29_batch_of_copies(&ctx)?;
    assert_eq!(joined.get(..128), Some(&[1; 128][..]));
    assert_eq!(joined.get(128..), Some(&[2; 128][..]));
    assert!(c12_plain_data_round_trips(&ctx)?);
    let halves = c14_disjoint_views(&ctx)?;
    assert_eq!(halves.get(..N / 2), Some(&vec![11; N / 2][..]));
    assert_eq!(halves.get(N / 2..), Some(&vec![21; N / 2][..]));
    for read in c14_vmm_mappings(&ctx)? {
        assert!(!read.is_empty() && read.iter().all(|&x| x == 5));
    }
    #[cfg(target_os = "linux")]
    for read in c14_vmm_imported_mappings(&ctx)? {
        assert!(!read.is_empty() && read.iter().all(|&x| x == 6));
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn twin_c24_p12_on_device() -> Result<()> {
    let (a, b) = (context0()?, context0()?);
    assert_eq!(
        c24_p12_global_read_after_its_kernels(&a, &b)?,
        (256, 256 + (1 << 20), 5)
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn c10_pool_scratch_in_submission_on_device() -> Result<()> {
    assert_eq!(
        c10_scratch_from_a_pool_in_a_submission(&context0()?)?,
        vec![6; N]
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn twin_c18_on_device() -> Result<()> {
    let (local, out) = c18_capture_inside_an_open_scope(&context0()?)?;
    assert_eq!(local, vec![7; N]);
    assert_eq!(out, vec![9; N]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA device"]
fn twins_c16_c17_on_device() -> Result<()> {
    let ctx = context0()?;
    let results = c16_c17_pipeline_hands_memory_back(&ctx, 7)?;
    assert_eq!(results.len(), 7);
    for (chunk, out) in (0u32..).zip(&results) {
        assert_eq!(out, &vec![chunk * 10 + chunk + 1; N], "chunk {chunk}");
    }
    Ok(())
}
