//! Vector addition on device 0 along the memory path its kind of GPU wants: on an integrated
//! GPU (Jetson: `CU_DEVICE_ATTRIBUTE_INTEGRATED`, the GPU shares the CPU's DRAM) without
//! copies, through managed memory both sides address; on a discrete GPU (and on an integrated
//! one without concurrent managed access) with explicit copies between page-locked host memory
//! and device memory.
//!
//! `cargo run --release --example 16_integrated_memory`
//!
//! See the guide page [`custack::guide::platforms`] for what else differs on an integrated GPU.
use custack::{
    Context, ContextFlags, Device, DeviceAttribute, Driver, LaunchConfig, PushedGuard, Stack,
};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 1 << 20;

custack::kernel_contract! {
    /// `vector_add(const float* a, const float* b, float* c, unsigned n)`: `c[i] = a[i] + b[i]`
    /// for `i < n`.
    unsafe kernel VectorAdd = "vector_add"(a: &[f32; n], b: &[f32; n], c: &mut [f32; n], n: u32);
}

fn input(i: usize) -> (f32, f32) {
    // Small integers: their sums are exact in f32, so the GPU must match the CPU bit for bit.
    (
        f32::from((i % 4096) as u16),
        2.0 * f32::from((i % 1000) as u16),
    )
}

/// The memory path for `device`, and why.
fn path(device: Device) -> custack::Result<(bool, &'static str)> {
    let integrated = device.attribute(DeviceAttribute::Integrated)? != 0;
    let concurrent = device.attribute(DeviceAttribute::ConcurrentManagedAccess)? != 0;
    Ok(match (integrated, concurrent) {
        (true, true) => (
            true,
            "integrated GPU: host and device share DRAM, so managed memory is used in place, no copies",
        ),
        (true, false) => (
            false,
            "integrated GPU without concurrent managed access: custack allocates no managed memory there, so explicit copies (within the same DRAM)",
        ),
        (false, _) => (
            false,
            "discrete GPU: explicit copies between page-locked host memory and device memory",
        ),
    })
}

/// Managed memory: the host fills `a` and `b` and reads `c` in place; the kernel runs on the
/// same allocations. The scope's bindings keep the host out while the kernel may run (C21).
fn add_in_place(guard: &PushedGuard<'_, '_>) -> custack::Result<Vec<f32>> {
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.declared::<VectorAdd>()?;
    let stream = guard.stream()?;
    let mut a = guard.alloc_managed::<f32>(N)?;
    let mut b = guard.alloc_managed::<f32>(N)?;
    let mut c = guard.alloc_managed::<f32>(N)?;
    for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
        (*x, *y) = input(i);
    }
    let n = N as u32;
    stream.scope(|s| -> custack::Result<()> {
        let (da, db, mut dc) = (s.bind(&a), s.bind(&b), s.bind_mut(&mut c));
        // Managed memory binds like device memory; every buffer is checked to hold `n`.
        s.run(
            &vector_add,
            LaunchConfig::for_elements(n),
            (da, db, &mut dc, n),
        )
    })??;
    Ok(c.to_vec())
}

/// Explicit copies, as `01_vector_add` does.
fn add_with_copies(guard: &PushedGuard<'_, '_>) -> custack::Result<Vec<f32>> {
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.declared::<VectorAdd>()?;
    let stream = guard.stream()?;
    let mut a = guard.alloc_pinned::<f32>(N)?;
    let mut b = guard.alloc_pinned::<f32>(N)?;
    let mut c = guard.alloc_pinned::<f32>(N)?;
    for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
        (*x, *y) = input(i);
    }
    let mut da = guard.alloc::<f32>(N)?;
    let mut db = guard.alloc::<f32>(N)?;
    let mut dc = guard.alloc::<f32>(N)?;
    let n = N as u32;
    stream.scope(|s| -> custack::Result<()> {
        let (mut da, mut db, mut dc) = (
            s.bind_mut(&mut da),
            s.bind_mut(&mut db),
            s.bind_mut(&mut dc),
        );
        s.copy_to_device(&mut da, &a)?;
        s.copy_to_device(&mut db, &b)?;
        s.run(
            &vector_add,
            LaunchConfig::for_elements(n),
            (&da, &db, &mut dc, n),
        )?;
        s.copy_to_host(&mut c, &dc)
    })??;
    Ok(c.to_vec())
}

/// Runs the addition on the device's path; returns how many elements differ from the CPU.
fn run() -> custack::Result<usize> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let (in_place, why) = path(device)?;
    println!("device 0: {}: {why}", device.name()?);

    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let c = if in_place {
        add_in_place(&guard)?
    } else {
        add_with_copies(&guard)?
    };
    let wrong = c
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            let (a, b) = input(*i);
            c.to_bits() != (a + b).to_bits()
        })
        .count();
    if wrong == 0 {
        let how = if in_place {
            "in managed memory, no copies"
        } else {
            "with explicit copies"
        };
        println!(
            "integrated_memory: {N} elements added on the GPU {how}, all equal to the CPU result"
        );
    }
    Ok(wrong)
}

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(wrong) => {
            eprintln!("16_integrated_memory: {wrong} of {N} elements differ from the CPU result");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("16_integrated_memory: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
