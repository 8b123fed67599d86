//! A graph built node by node under the restricted profile on a real device (P14, C27, C28): the
//! init phase loads tests/fixtures/conditional.cu's cubin (`CUSTACK_CONDITIONAL_CUBIN`, built by
//! `scripts/gpu-bundle.sh`'s run.sh with nvcc; `cudaGraphSetConditional` is its one undefined
//! symbol, which the profile's image check lets through), builds a graph with a WHILE node that
//! runs Jacobi sweeps until the change is small, instantiates and uploads it, and seals; the run
//! phase launches it frame after frame in bounded scopes, updates its root kernel node's
//! arguments between frames, and every frame is checked against the CPU; the run phase's
//! launches and update allocate nothing on the heap (counted by this binary's allocator) and
//! leave the device's free memory as it was. Without a device the test fails (`Profile::init`
//! errs), never passes.

use custack::safety::{Budget, Profile, Resource, RestrictedContext, WaitBound};
use custack::{LaunchConfig, Stack};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts this thread's heap allocations: the run phase's launches and its kernel-node update
/// make none.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to `System` with the same arguments.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

custack::kernel_contract! {
    /// `jacobi_step(const float* b, const float* x, float* y, unsigned* diff, unsigned n)`.
    unsafe kernel JacobiStep = "jacobi_step"(
        b: &[f32; n], x: &[f32; n], y: &mut [f32; n], diff: &mut [u32; 1], n: u32,
    );
    /// `jacobi_check(handle cond, unsigned* diff, unsigned* iters, float tol, unsigned max)`.
    unsafe kernel JacobiCheck = "jacobi_check"(
        cond: conditional, diff: &mut [u32; 1], iters: &mut [u32; 1], tol: f32, max_iters: u32,
    );
}

const N: usize = 1 << 14;
const N32: u32 = N as u32;
const TOL: f32 = 1e-6;
const MAX: u32 = 1000;
const FRAMES: usize = 4;
/// The frame before which the run phase updates the root kernel node (from 0).
const UPDATED_AT: usize = 2;
/// The nodes the build makes: five memsets, the WHILE node, its body's three kernels, the
/// root's kernel.
const NODES: usize = 10;

fn cubin() -> Vec<u8> {
    let var = "CUSTACK_CONDITIONAL_CUBIN";
    let path = std::env::var(var)
        .unwrap_or_else(|_| panic!("{var}: set by scripts/gpu-bundle.sh's run.sh, with nvcc"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{var}={path}: {e}"))
}

/// A right-hand side with some structure (deterministic), from `seed`.
fn rhs(seed: u32) -> Vec<f32> {
    let mut state = seed;
    (0..N)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from(u16::try_from(state >> 16).unwrap()) / 32768.0 - 1.0
        })
        .collect()
}

/// One Jacobi sweep of `x` for the right-hand side `b`, as `jacobi_step` computes it: the new
/// values and the largest change.
fn sweep(b: &[f32], x: &[f32]) -> (Vec<f32>, f32) {
    let mut change = 0f32;
    let y = (0..N)
        .map(|i| {
            let left = if i > 0 { x[i - 1] } else { 0.0 };
            let right = if i + 1 < N { x[i + 1] } else { 0.0 };
            let v = (b[i] + left + right) / 4.0;
            change = change.max((v - x[i]).abs());
            v
        })
        .collect();
    (y, change)
}

/// The WHILE node's iteration on the CPU: pairs of sweeps from x = 0 until the change is at most
/// `TOL` or `MAX` pairs ran. The solution and the number of pairs.
fn jacobi_cpu(b: &[f32]) -> (Vec<f32>, u32) {
    let mut x = vec![0f32; N];
    let mut pairs = 0;
    loop {
        let (y, c1) = sweep(b, &x);
        let (next, c2) = sweep(b, &y);
        x = next;
        pairs += 1;
        if !(c1.max(c2) > TOL && pairs < MAX) {
            return (x, pairs);
        }
    }
}

fn worst(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs())
        .fold(0f32, f32::max)
}

/// Checks one frame against the CPU: the number of sweep pairs and the solution `x` against
/// `want`, and the root node's sweep `z` of the GPU's own solution against a sweep with the
/// right-hand side its parameters name, `rhs[0]`, and not with the other, `rhs[1]`.
fn check_frame(
    frame: usize,
    pairs: u32,
    x: &[f32],
    z: &[f32],
    want: (&[f32], u32),
    rhs: [&[f32]; 2],
) {
    let (want, want_pairs) = want;
    println!("frame {frame}: {pairs} sweep pairs on the GPU, {want_pairs} on the CPU");
    assert!(pairs > 2 && pairs < MAX, "frame {frame}: {pairs} pairs");
    assert!(
        pairs.abs_diff(want_pairs) <= 1,
        "frame {frame}: {pairs} vs {want_pairs}"
    );
    let off = worst(x, want);
    assert!(off <= 1e-5, "frame {frame}: the solutions differ by {off}");
    let (z_want, _) = sweep(rhs[0], x);
    let (z_other, _) = sweep(rhs[1], x);
    let off = worst(z, &z_want);
    assert!(
        off <= 1e-6,
        "frame {frame}: the root sweep differs by {off}"
    );
    assert!(
        worst(z, &z_other) > 1e-2,
        "frame {frame}: the root sweep used the other right-hand side"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
#[allow(clippy::too_many_lines)] // one restricted context's life: init, frames, shutdown
fn a_while_graph_built_in_the_init_phase_runs_its_frames_and_takes_kernel_updates_in_the_run_phase()
{
    let image = cubin();
    let (b, b2) = (rhs(0x1234_5678), rhs(0x9abc_def0));
    let (want, want_pairs) = jacobi_cpu(&b);
    let f32s = N * size_of::<f32>();
    let budget = Budget::page_locked(2 * f32s + size_of::<u32>())
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(5)))
        .device_bytes(5 * f32s + 3 * size_of::<u32>())
        .streams(1)
        .modules(1)
        .kernels(2)
        .graphs(1)
        .graph_nodes(NODES);
    let profile = Profile::init(1).unwrap();
    let mut ctx = RestrictedContext::new(&profile, profile.device(0).unwrap(), budget).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        // SAFETY: a cubin nvcc wrote for this device (run.sh), read whole; its kernels honour
        // the contracts above (they touch `n` elements of the buffers, one of diff and iters).
        let module = unsafe { init.load_cubin(&image) }.unwrap();
        let step = init.kernel::<JacobiStep>(&module).unwrap();
        let check = init.kernel::<JacobiCheck>(&module).unwrap();
        let stream = init.stream().unwrap();
        let (mut x_out, mut z_out) = (
            init.alloc_pinned::<f32>(N).unwrap(),
            init.alloc_pinned::<f32>(N).unwrap(),
        );
        let mut pairs_out = init.alloc_pinned::<u32>(1).unwrap();
        // The right-hand sides, copied in once in the init phase, before the graph.
        let (mut b_dev, mut b2_dev) =
            (init.alloc::<f32>(N).unwrap(), init.alloc::<f32>(N).unwrap());
        x_out.copy_from_slice(&b);
        z_out.copy_from_slice(&b2);
        stream
            .scope(|s| -> custack::Result<()> {
                let (mut d, mut d2) = (s.bind_mut(&mut b_dev), s.bind_mut(&mut b2_dev));
                s.copy_to_device(&mut d, &x_out)?;
                s.copy_to_device(&mut d2, &z_out)
            })
            .unwrap()
            .unwrap();
        let payload = (
            (
                b_dev,
                b2_dev,
                init.alloc::<f32>(N).unwrap(),
                init.alloc::<f32>(N).unwrap(),
                init.alloc::<f32>(N).unwrap(),
            ),
            (
                init.alloc::<u32>(1).unwrap(),
                init.alloc::<u32>(1).unwrap(),
                init.alloc::<u32>(1).unwrap(),
            ),
            (step, check),
        );
        let mut graph = init
            .build_graph(
                &stream,
                payload,
                |g,
                 (
                    (b, _b2, mut x, mut y, mut z),
                    (mut diff, mut iters, mut last),
                    (step, check),
                )| {
                    let clear = [
                        g.fill_u32(&mut x, 0, &[])?,
                        g.fill_u32(&mut y, 0, &[])?,
                        g.fill_u32(&mut diff, 0, &[])?,
                        g.fill_u32(&mut iters, 0, &[])?,
                        g.fill_u32(&mut last, 0, &[])?,
                    ];
                    // Starts at 1 at each launch: the first pair always runs.
                    let cond = g.condition(1, true)?;
                    let handle = cond.handle();
                    let cfg = LaunchConfig::for_elements(N32);
                    let one = LaunchConfig::for_elements(1);
                    let looped = g.while_loop(cond, &clear, |body| {
                        let a = body.kernel(&step, cfg, (&b, &x, &mut y, &mut diff, N32), &[])?;
                        let c = body.kernel(&step, cfg, (&b, &y, &mut x, &mut diff, N32), &[a])?;
                        body.kernel(&check, one, (handle, &mut diff, &mut iters, TOL, MAX), &[c])?;
                        Ok(())
                    })?;
                    // The root's one kernel node: one more sweep of the solution, into z.
                    g.kernel(&step, cfg, (&b, &x, &mut z, &mut last, N32), &[looped])?;
                    Ok(())
                },
            )
            .unwrap();
        let run = init.seal();
        let (free_before, _) = run.memory_info().unwrap();
        // The heap allocations of the run phase's calls, from frame 1 on (frame 0 warms up).
        let mut heap = 0;
        for frame in 0..FRAMES {
            let before = allocations();
            if frame == UPDATED_AT {
                // The root kernel node sweeps with the second right-hand side from now on.
                graph
                    .update_kernels(|u, ((_b, b2, x, _y, mut z), (_, _, mut last), (step, _))| {
                        let node = u.kernel_node(&step, 0)?;
                        u.set_kernel(
                            node,
                            LaunchConfig::for_elements(N32),
                            (&b2, &x, &mut z, &mut last, N32),
                        )
                    })
                    .unwrap();
            }
            stream
                .scope(|s| -> custack::Result<()> {
                    let (g, ((_, _, x, _, z), (_, iters, _), _)) = s.bind_graph(&mut graph);
                    s.launch_graph(&g)?;
                    s.copy_to_host(&mut x_out, &x)?;
                    s.copy_to_host(&mut z_out, &z)?;
                    s.copy_to_host(&mut pairs_out, &iters)
                })
                .unwrap()
                .unwrap();
            if frame > 0 {
                heap += allocations() - before;
            }
            let rhs: [&[f32]; 2] = if frame < UPDATED_AT {
                [&b, &b2]
            } else {
                [&b2, &b]
            };
            check_frame(
                frame,
                pairs_out[0],
                &x_out,
                &z_out,
                (&want, want_pairs),
                rhs,
            );
        }
        let (free_after, _) = run.memory_info().unwrap();
        run.synchronize().unwrap();
        println!("device memory free: {free_before} before the frames, {free_after} after");
        assert_eq!(
            heap, 0,
            "the run phase's launches and update allocated {heap} times on the heap"
        );
        assert_eq!(
            free_before, free_after,
            "the run phase's launches and update allocated device memory"
        );
    }
    guard.shutdown().unwrap();
    // The init phase made what the budget states: the build counted its body's nodes.
    for r in Resource::ALL {
        assert_eq!(ctx.used(r), ctx.budget().stated(r), "{r:?}");
    }
    ctx.destroy().unwrap();
}
