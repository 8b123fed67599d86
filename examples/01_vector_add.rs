//! Vector addition on device 0, checked against the CPU.
//!
//! `cargo run --release --example 01_vector_add`
//!
//! Shows the model in one screen: a floating context, this thread's stack, a guard that lends
//! a stream, a module and device memory, and one stream scope in which the copies and the
//! launch run asynchronously and are waited for once. The kernel is declared once with its
//! contract (`kernel_contract!`, the one `unsafe`); its launch is a safe call.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 1 << 20;

custack::kernel_contract! {
    /// `vector_add(const float* a, const float* b, float* c, unsigned n)`: `c[i] = a[i] + b[i]`
    /// for `i < n`. It reads `n` floats of `a` and `b` and writes `n` of `c`, nothing else.
    unsafe kernel VectorAdd = "vector_add"(a: &[f32; n], b: &[f32; n], c: &mut [f32; n], n: u32);
}

/// Runs the addition and returns how many elements differ from the CPU result.
fn run() -> custack::Result<usize> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!(
        "device 0: {} (compute {}, {} MiB), driver API {}",
        device.name()?,
        device.compute_capability()?,
        device.total_memory()? >> 20,
        driver.version()?
    );

    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?; // floating: current nowhere
    let mut stack = Stack::new()?; // this thread's context stack
    let guard = stack.push(&ctx)?; // ctx is current until `guard` drops

    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.declared::<VectorAdd>()?; // its parameters checked against the kernel
    let stream = guard.stream()?;

    // Page-locked host memory, so the copies below are truly asynchronous.
    let mut a = guard.alloc_pinned::<f32>(N)?;
    let mut b = guard.alloc_pinned::<f32>(N)?;
    let mut c = guard.alloc_pinned::<f32>(N)?;
    // Small integers: their sums are exact in f32, so the GPU must match the CPU bit for bit.
    for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
        *x = f32::from((i % 4096) as u16);
        *y = 2.0 * f32::from((i % 1000) as u16);
    }
    let mut da = guard.alloc::<f32>(N)?;
    let mut db = guard.alloc::<f32>(N)?;
    let mut dc = guard.alloc::<f32>(N)?;

    let n = N as u32;
    stream.scope(|s| -> custack::Result<()> {
        // Bind the device buffers to the scope: they stay borrowed until it has waited for the
        // stream, and its operations may use them in stream order.
        let (mut da, mut db, mut dc) = (
            s.bind_mut(&mut da),
            s.bind_mut(&mut db),
            s.bind_mut(&mut dc),
        );
        s.copy_to_device(&mut da, &a)?;
        s.copy_to_device(&mut db, &b)?;
        // A safe launch: each buffer's length is checked against `n` before it is enqueued.
        s.run(
            &vector_add,
            LaunchConfig::for_elements(n),
            (&da, &db, &mut dc, n),
        )?;
        s.copy_to_host(&mut c, &dc)
    })??; // the scope waited for the stream: the host may read `c` now

    let wrong = c
        .iter()
        .zip(a.iter().zip(b.iter()))
        .filter(|(c, (a, b))| c.to_bits() != (*a + *b).to_bits())
        .count();
    if wrong == 0 {
        let last = c.last().copied().unwrap_or_default();
        println!(
            "vector_add: {N} elements added on the GPU, all equal to the CPU result (last = {last})"
        );
    }
    Ok(wrong)
}

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(wrong) => {
            eprintln!("01_vector_add: {wrong} of {N} elements differ from the CPU result");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("01_vector_add: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
