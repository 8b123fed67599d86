//! Conditional graph nodes on a real device (C28): a WHILE node that runs Jacobi sweeps on the
//! GPU until the change is small, checked against the same iteration on the CPU; a WHILE node
//! that counts down, and one whose condition starts at 0; IF, IF/ELSE and SWITCH nodes whose
//! condition a kernel of the graph sets; a condition no node takes, refused at instantiation.
//! The kernels are tests/fixtures/conditional.cu, built by `scripts/gpu-bundle.sh`'s run.sh with
//! nvcc (`CUSTACK_CONDITIONAL_CUBIN`): they call `cudaGraphSetConditional` and load with
//! `cuModuleLoadData`, nothing linked.
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
    let mut state = 0x1234_5678_u32;
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
fn a_while_node_iterates_jacobi_on_the_gpu_until_the_change_is_small_as_the_cpu_does() {
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
                let clear = [
                    g.fill_u32(&mut x, 0, &[])?,
                    g.fill_u32(&mut y, 0, &[])?,
                    g.fill_u32(&mut diff, 0, &[])?,
                    g.fill_u32(&mut iters, 0, &[])?,
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
                g.copy_to_host(out, &x, &[looped])?;
                g.copy_to_host(count, &iters, &[looped])?;
                Ok(())
            },
        )
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    let stream = guard.stream().unwrap();
    let (want, want_pairs) = jacobi_cpu(&b, TOL, MAX);
    for round in 0..2 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let (_, _, (x, count)) = exec.payload();
        let pairs = count[0];
        println!("round {round}: {pairs} sweep pairs on the GPU, {want_pairs} on the CPU");
        // Several pairs ran, and the loop ended on the change, not the cap.
        assert!(pairs > 2 && pairs < MAX, "round {round}: {pairs} pairs");
        // The same arithmetic in the same order (IEEE single precision, the division by 4
        // exact): the same count; one apart allowed for a last-bit difference at the edge.
        assert!(
            pairs.abs_diff(want_pairs) <= 1,
            "round {round}: {pairs} vs {want_pairs}"
        );
        let worst = x
            .iter()
            .zip(&want)
            .map(|(g, c)| (g - c).abs())
            .fold(0f32, f32::max);
        assert!(
            worst <= 1e-5,
            "round {round}: the solutions differ by {worst}"
        );
        // And it solves the system: 4 x[i] - x[i-1] - x[i+1] = b[i].
        let residual = (0..N)
            .map(|i| {
                let left = if i > 0 { x[i - 1] } else { 0.0 };
                let right = if i + 1 < N { x[i + 1] } else { 0.0 };
                (4.0 * x[i] - left - right - b[i]).abs()
            })
            .fold(0f32, f32::max);
        assert!(residual < 1e-4, "round {round}: residual {residual}");
    }
}

/// A graph that sets `runs` to 0, then runs a WHILE node whose condition starts at `start` at
/// each launch and whose body adds 1 to `runs` and counts `left` down from `from`: how many
/// times the body ran.
fn count_down(start: u32, from: u32) -> u32 {
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
        vec![0u32; 1],
    );
    let graph = guard
        .build_graph(payload, move |g, (mut runs, mut left, down, add, out)| {
            let a = g.fill_u32(&mut runs, 0, &[])?;
            let b = g.fill_u32(&mut left, from, &[])?;
            let cond = g.condition(start, true)?;
            let handle = cond.handle();
            let one = LaunchConfig::for_elements(1);
            let looped = g.while_loop(cond, &[a, b], |body| {
                let n = body.kernel(&add, one, (&mut runs, 1u32, 1u32), &[])?;
                body.kernel(&down, one, (handle, &mut left), &[n])?;
                Ok(())
            })?;
            g.copy_to_host(out, &runs, &[looped])?;
            Ok(())
        })
        .unwrap();
    let exec = graph.instantiate().unwrap();
    let stream = guard.stream().unwrap();
    let exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    exec.payload().4[0]
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_while_node_runs_its_body_until_a_kernel_clears_the_condition_and_not_at_all_from_zero() {
    assert_eq!(count_down(1, 5), 5);
    assert_eq!(count_down(1, 1), 1);
    // The condition is checked before the first run.
    assert_eq!(count_down(0, 5), 0);
}

/// Which body ran: a graph that fills `x` with 1, sets `flag` to `value`, has a kernel set the
/// condition from it and then runs the node `kind` makes (IF: body 0 fills 7; IF/ELSE: 7 or 9;
/// SWITCH of 3: body n fills 10 + n), and reads `x` back.
fn conditional_body(kind: &'static str, value: u32) -> u32 {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let image = cubin();
    // SAFETY: a cubin nvcc wrote for this device (run.sh), read whole.
    let module = unsafe { guard.load_cubin(&image) }.unwrap();
    let payload = (
        guard.alloc::<u32>(N).unwrap(),
        guard.alloc::<u32>(1).unwrap(),
        module.declared::<SetCondition>().unwrap(),
        vec![0u32; N],
    );
    let graph = guard
        .build_graph(payload, move |g, (mut x, mut flag, set, out)| {
            let filled = g.fill_u32(&mut x, 1, &[])?;
            let flagged = g.fill_u32(&mut flag, value, &[])?;
            // No default: the kernel sets it before the node runs.
            let cond = g.condition(0, false)?;
            let one = LaunchConfig::for_elements(1);
            let set = g.kernel(&set, one, (cond.handle(), &flag), &[flagged])?;
            let deps = [filled, set];
            let node = match kind {
                "if" => g.if_then(cond, &deps, |then| {
                    then.fill_u32(&mut x, 7, &[])?;
                    Ok(())
                })?,
                "if_else" => g.if_else(cond, &deps, |then, otherwise| {
                    then.fill_u32(&mut x, 7, &[])?;
                    otherwise.fill_u32(&mut x, 9, &[])?;
                    Ok(())
                })?,
                _ => g.switch(cond, &deps, 3, |n, case| {
                    case.fill_u32(&mut x, 10 + n, &[])?;
                    Ok(())
                })?,
            };
            g.copy_to_host(out, &x, &[node])?;
            Ok(())
        })
        .unwrap();
    let exec = graph.instantiate().unwrap();
    let stream = guard.stream().unwrap();
    let exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    let out = &exec.payload().3;
    assert!(
        out.iter().all(|&v| v == out[0]),
        "{kind} {value}: not uniform"
    );
    out[0]
}

#[test]
#[ignore = "needs a CUDA device"]
fn an_if_node_runs_its_body_only_when_a_kernel_set_its_condition() {
    assert_eq!(conditional_body("if", 0), 1);
    assert_eq!(conditional_body("if", 1), 7);
    assert_eq!(conditional_body("if", 42), 7);
}

#[test]
#[ignore = "needs a CUDA device"]
fn if_else_and_switch_nodes_run_the_body_the_condition_names() {
    let driver = custack::driver_version().unwrap();
    assert!(
        (driver.major, driver.minor) >= (12, 8),
        "IF/ELSE and SWITCH need driver 12.8: this device's is {driver}"
    );
    assert_eq!(conditional_body("if_else", 0), 9);
    assert_eq!(conditional_body("if_else", 5), 7);
    assert_eq!(conditional_body("switch", 0), 10);
    assert_eq!(conditional_body("switch", 2), 12);
    // No body for 3 or more: `x` keeps its 1.
    assert_eq!(conditional_body("switch", 3), 1);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_condition_no_node_takes_is_refused_when_the_graph_is_instantiated() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let graph = guard
        .build_graph(guard.alloc::<u32>(16).unwrap(), |g, mut x| {
            g.fill_u32(&mut x, 1, &[])?;
            let _unused = g.condition(1, true)?;
            Ok(())
        })
        .unwrap();
    let err = graph.instantiate().unwrap_err();
    println!("{err}");
}
