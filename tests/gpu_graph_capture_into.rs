//! Stream capture and the graph builder inside each other, on a real device (C28): a WHILE
//! node of a built graph whose body is captured from stream work (`GraphBuilder::capture`)
//! runs Jacobi sweeps until the change is small, as the CPU does; an IF node added in the
//! middle of a capture (`StreamScope::if_then`) runs its body only when a captured kernel set
//! its condition, before the work captured after it; a WHILE node added in the middle of a
//! capture, its body captured too, runs until a kernel clears its condition. The kernels are
//! tests/fixtures/conditional.cu (`CUSTACK_CONDITIONAL_CUBIN`, built by run.sh with nvcc) and
//! tests/fixtures/kernels.ptx. Driver 12.3 or newer: on driver 535 (CUDA 12.2) each of these
//! calls returns `DriverTooOld` (`scripts/check-driver.sh`'s program `graph_capture_into`
//! checks that without a GPU).
mod common;
use common::{KERNELS, context};
use custack::{LaunchConfig, Stack};

custack::kernel_contract! {
    /// `jacobi_step(const float* b, const float* x, float* y, unsigned* diff, unsigned n)`.
    unsafe kernel JacobiStep = "jacobi_step"(
        b: &[f32; n], x: &[f32; n], y: &mut [f32; n], diff: &mut [u32; 1], n: u32,
    );
    /// `jacobi_check(handle cond, unsigned* diff, unsigned* iters, float tol, unsigned max)`.
    unsafe kernel JacobiCheck = "jacobi_check"(
        cond: conditional, diff: &mut [u32; 1], iters: &mut [u32; 1], tol: f32, max_iters: u32,
    );
    /// `set_condition(handle cond, const unsigned* value)`.
    unsafe kernel SetCondition = "set_condition"(cond: conditional, value: &[u32; 1]);
    /// `count_down(handle cond, unsigned* left)`.
    unsafe kernel CountDown = "count_down"(cond: conditional, left: &mut [u32; 1]);
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

const N: usize = 1 << 14;
const N32: u32 = N as u32;

fn cubin() -> Vec<u8> {
    let var = "CUSTACK_CONDITIONAL_CUBIN";
    let path = std::env::var(var)
        .unwrap_or_else(|_| panic!("{var}: set by scripts/gpu-bundle.sh's run.sh, with nvcc"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{var}={path}: {e}"))
}

/// A right-hand side with some structure (deterministic).
fn rhs() -> Vec<f32> {
    let mut state = 0x8765_4321_u32;
    (0..N)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from(u16::try_from(state >> 16).unwrap()) / 32768.0 - 1.0
        })
        .collect()
}

/// The CPU's Jacobi iteration as the graph runs it: pairs of sweeps from x = 0, the change the
/// largest of both sweeps, until it is at most `tol` or `max` pairs ran. The solution and the
/// number of pairs.
fn jacobi_cpu(b: &[f32], tol: f32, max: u32) -> (Vec<f32>, u32) {
    let n = b.len();
    let sweep = |x: &[f32], y: &mut [f32]| {
        let mut change = 0f32;
        for i in 0..n {
            let left = if i > 0 { x[i - 1] } else { 0.0 };
            let right = if i + 1 < n { x[i + 1] } else { 0.0 };
            let v = (b[i] + left + right) / 4.0;
            y[i] = v;
            change = change.max((v - x[i]).abs());
        }
        change
    };
    let (mut x, mut y) = (vec![0f32; n], vec![0f32; n]);
    let mut pairs = 0;
    loop {
        let c1 = sweep(&x, &mut y);
        let c2 = sweep(&y, &mut x);
        pairs += 1;
        if !(c1.max(c2) > tol && pairs < max) {
            return (x, pairs);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_while_node_whose_body_is_captured_from_stream_work_runs_jacobi_as_the_cpu_does() {
    const TOL: f32 = 1e-6;
    const MAX: u32 = 1000;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let image = cubin();
    // SAFETY: a cubin nvcc wrote for this device (run.sh), read whole.
    let module = unsafe { guard.load_cubin(&image) }.unwrap();
    let b = rhs();
    let payload = (
        (
            guard.alloc_from(&b).unwrap(),
            guard.alloc::<f32>(N).unwrap(),
            guard.alloc::<f32>(N).unwrap(),
            guard.alloc::<u32>(1).unwrap(),
            guard.alloc::<u32>(1).unwrap(),
        ),
        (
            module.declared::<JacobiStep>().unwrap(),
            module.declared::<JacobiCheck>().unwrap(),
        ),
        (vec![0f32; N], vec![0u32; 1]),
    );
    let graph = guard
        .build_graph(
            payload,
            |g, ((b, mut x, mut y, mut diff, mut iters), (step, check), (out, count))| {
                // The clears, captured into the root graph: one chain, joined in its last node.
                let cleared = g.capture(&[], |s| {
                    s.fill_u32(&mut x, 0)?;
                    s.fill_u32(&mut y, 0)?;
                    s.fill_u32(&mut diff, 0)?;
                    s.fill_u32(&mut iters, 0)
                })?;
                let cond = g.condition(1, true)?;
                let handle = cond.handle();
                let cfg = LaunchConfig::for_elements(N32);
                let one = LaunchConfig::for_elements(1);
                let looped = g.while_loop(cond, &[cleared], |body| {
                    // The body, captured from stream work: two sweeps and the check.
                    body.capture(&[], |s| {
                        s.run(&step, cfg, (&b, &x, &mut y, &mut diff, N32))?;
                        s.run(&step, cfg, (&b, &y, &mut x, &mut diff, N32))?;
                        s.run(&check, one, (handle, &mut diff, &mut iters, TOL, MAX))
                    })?;
                    Ok(())
                })?;
                g.copy_to_host(out, &x, &[looped])?;
                g.copy_to_host(count, &iters, &[looped])?;
                Ok(())
            },
        )
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    let stream = guard.stream().unwrap();
    let (want, want_pairs) = jacobi_cpu(&b, TOL, MAX);
    assert!(want_pairs > 1, "the CPU's iteration stopped at once");
    for round in 0..2 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let (_, _, (x, count)) = exec.payload();
        let pairs = count[0];
        // Float sums in another order may stop a pair earlier or later.
        assert!(
            pairs.abs_diff(want_pairs) <= 2,
            "round {round}: {pairs} pairs on the GPU, {want_pairs} on the CPU"
        );
        let worst = x
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(
            worst <= 1e-5,
            "round {round}: the solutions differ by {worst}"
        );
    }
}

/// A capture that fills `x` with 1 and `flag` with `value`, captures a kernel that sets a
/// condition from `flag`, adds an IF node in its middle whose body fills `x` with 7, then
/// captures a kernel that adds 1 to `x` (after the node) and the copy out: `x` as read back.
fn if_in_a_capture(value: u32) -> u32 {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let image = cubin();
    // SAFETY: a cubin nvcc wrote for this device (run.sh), read whole.
    let module = unsafe { guard.load_cubin(&image) }.unwrap();
    let ptx = guard.load_ptx(KERNELS).unwrap();
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        guard.alloc::<u32>(1).unwrap(),
        module.declared::<SetCondition>().unwrap(),
        ptx.declared::<AddU32>().unwrap(),
        vec![0u32; N],
    );
    let stream = guard.stream().unwrap();
    let graph = stream
        .capture(payload, move |s, (mut x, mut flag, set, add, out)| {
            s.fill_u32(&mut x, 1)?;
            s.fill_u32(&mut flag, value)?;
            // No default: the captured kernel sets it before the node runs.
            let cond = s.condition(0, false)?;
            s.run(&set, LaunchConfig::for_elements(1), (cond.handle(), &flag))?;
            s.if_then(cond, |then| {
                then.fill_u32(&mut x, 7, &[])?;
                Ok(())
            })?;
            s.run(&add, LaunchConfig::for_elements(N32), (&mut x, 1u32, N32))?;
            s.copy_to_host(out, &x)
        })
        .unwrap();
    let exec = graph.instantiate().unwrap();
    let exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    let out = &exec.payload().4;
    assert!(out.iter().all(|&v| v == out[0]), "{value}: not uniform");
    out[0]
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_capture_with_an_if_node_in_its_middle_runs_the_body_only_when_the_kernel_set_the_condition() {
    assert_eq!(if_in_a_capture(0), 2);
    assert_eq!(if_in_a_capture(1), 8);
    assert_eq!(if_in_a_capture(42), 8);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_while_node_in_the_middle_of_a_capture_with_a_captured_body_counts_down() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let image = cubin();
    // SAFETY: a cubin nvcc wrote for this device (run.sh), read whole.
    let module = unsafe { guard.load_cubin(&image) }.unwrap();
    let ptx = guard.load_ptx(KERNELS).unwrap();
    let payload = (
        guard.alloc::<u32>(1).unwrap(),
        guard.alloc::<u32>(1).unwrap(),
        module.declared::<CountDown>().unwrap(),
        ptx.declared::<AddU32>().unwrap(),
        (vec![0u32; 1], vec![0u32; 1]),
    );
    let stream = guard.stream().unwrap();
    let graph = stream
        .capture(
            payload,
            |s, (mut runs, mut left, down, add, (ran, rest))| {
                s.fill_u32(&mut runs, 0)?;
                s.fill_u32(&mut left, 6)?;
                let cond = s.condition(1, true)?;
                let handle = cond.handle();
                let one = LaunchConfig::for_elements(1);
                s.while_loop(cond, |body| {
                    body.capture(&[], |c| {
                        c.run(&add, one, (&mut runs, 1u32, 1u32))?;
                        c.run(&down, one, (handle, &mut left))
                    })?;
                    Ok(())
                })?;
                // After the loop: 100 more, once.
                s.run(&add, one, (&mut runs, 100u32, 1u32))?;
                s.copy_to_host(ran, &runs)?;
                s.copy_to_host(rest, &left)
            },
        )
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    for _ in 0..2 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let (ran, rest) = &exec.payload().4;
        assert_eq!((ran[0], rest[0]), (106, 0));
    }
}
