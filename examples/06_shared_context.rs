//! One context shared by several threads: each pushes it on its own stack and runs kernels on
//! its own stream, with its own memory.
//!
//! `cargo run --release --example 06_shared_context`
//!
//! A `Context` is floating (current nowhere) and `Send + Sync`, so threads can share it by
//! reference; a `Stack` is per thread, so each thread takes its own and pushes the context on
//! it. What the guard lends (the stream, the buffer, the kernel's function in this context) stays
//! on that thread: none of it is `Send`. The code is a `Library` (`cuLibraryLoadData`), loaded
//! once and `Send + Sync` like the context; each thread asks its guard for the kernel's function.
//! On an H100 it prints:
//!
//! ```text
//! device 0: NVIDIA H100 80GB HBM3
//! shared_context: 4 threads pushed one context (id 1), each ran 100 launches on its own stream over 1048576 elements, all results correct
//! ```
use custack::{
    Context, ContextFlags, DeviceMemory, Driver, LaunchConfig, Library, LibraryKernel, Stack,
};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const THREADS: u32 = 4;
const LAUNCHES: u32 = 100;
const N: usize = 1 << 20;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// One thread's work: its own stack with the shared context pushed, its own stream and buffer.
/// Returns the context's id as this thread sees it and how many elements are wrong.
fn worker(ctx: &Context, add: LibraryKernel<'_>, t: u32) -> custack::Result<(u64, usize)> {
    let mut stack = Stack::new()?; // this thread's context stack
    let guard = stack.push(ctx)?; // the shared context, now current on this thread too
    // The kernel in this context, lent by this guard, with its contract.
    let add = guard.library_function(&add)?.declared::<AddU32>()?;
    let stream = guard.stream()?; // this thread's stream: not ordered with the others' work
    let n = N as u32;
    let start: Vec<u32> = (0..n).map(|i| i * (t + 1)).collect();
    let mut x = guard.alloc_from(&start)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut dx = s.bind_mut(&mut x);
        for _ in 0..LAUNCHES {
            s.run(&add, LaunchConfig::for_elements(n), (&mut dx, t + 1, n))?;
        }
        Ok(())
    })??; // one stream synchronize for all the launches
    let wrong = x
        .to_vec()?
        .iter()
        .zip(&start)
        .filter(|&(&got, &was)| got != was + LAUNCHES * (t + 1))
        .count();
    Ok((guard.unique_id()?, wrong))
}

/// Runs the threads; returns whether every result was right.
fn run() -> custack::Result<bool> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let library = Library::load_ptx(driver, KERNELS)?;
    let add = library.kernel("add_u32")?; // context-independent: `Copy + Send + Sync`

    let results = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let ctx = &ctx; // shared by reference: `Context` is `Sync`
                scope.spawn(move || worker(ctx, add, t))
            })
            .collect();
        workers
            .into_iter()
            // A worker returns its errors; it panics only through a bug, passed on as is.
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<custack::Result<Vec<_>>>()
    })?;

    let wrong: usize = results.iter().map(|&(_, wrong)| wrong).sum();
    if wrong > 0 {
        eprintln!("06_shared_context: {wrong} elements differ from the expected result");
    }
    let id = results.first().map_or(0, |&(id, _)| id);
    // Every thread pushed the same context, so each saw the same `cuCtxGetId`.
    let one_context = results.iter().all(|&(other, _)| other == id);
    if !one_context {
        eprintln!("06_shared_context: the threads saw different contexts: {results:?}");
    }
    if wrong == 0 && one_context {
        println!(
            "shared_context: {THREADS} threads pushed one context (id {id}), each ran {LAUNCHES} launches on its own stream over {N} elements, all results correct"
        );
    }
    Ok(wrong == 0 && one_context)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("06_shared_context: a result differs from the expected one");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("06_shared_context: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
