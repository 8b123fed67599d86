//! A CUDA graph that owns its memory: captured once, launched many times with new inputs written
//! between launches, then updated to run on other buffers.
//!
//! `cargo run --release --example 03_graph`
//!
//! The capture closure enqueues an upload, a kernel and a download on a payload it owns; the
//! executable graph keeps owning it, and is itself moved into each launch's submission and
//! handed back by `wait()`, so its memory is never touched by the host while a launch may run.
use custack::graph::UpdateError;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 1 << 20;
const LAUNCHES: u32 = 100;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn run() -> custack::Result<bool> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let stream = guard.stream()?;
    let n = N as u32;

    // The graph: upload `input`, add 1 in place, download into `output`.
    let capture = |k: u32| {
        let payload = (
            guard.alloc_pinned::<u32>(N)?,
            guard.alloc::<u32>(N)?,
            add,
            vec![0u32; N],
        );
        stream.capture(payload, move |s, (input, mut dev, add, output)| {
            s.copy_to_device(&mut dev, input)?;
            s.run(&add, LaunchConfig::for_elements(n), (&mut dev, k, n))?;
            s.copy_to_host(output, &dev)
        })
    };
    let graph = capture(1)?;
    let nodes = graph.node_count()?;
    let mut exec = graph.instantiate()?;
    let mut ok = true;
    for round in 0..LAUNCHES {
        exec.payload_mut().0.fill(round); // new input, written while no launch is pending
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
        ok &= exec.payload().3.iter().all(|&x| x == round + 1);
    }
    // Same topology, other buffers and another constant: update, don't re-instantiate.
    let (_old_input, _old_dev, _, old_output) = exec
        .update(capture(1000)?)
        .map_err(UpdateError::into_error)?;
    ok &= old_output.iter().all(|&x| x == LAUNCHES);
    exec.payload_mut().0.fill(7);
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    ok &= exec.payload().3.iter().all(|&x| x == 1007);
    if ok {
        println!(
            "graph: {nodes} nodes captured once, launched {LAUNCHES} times with new inputs and once more after an update, every result checked"
        );
    }
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("03_graph: a result differs from the expected one");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("03_graph: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
