//! NVIDIA's vectorAddMMAP: one vector striped over the memory of every GPU with the virtual
//! memory management API, one pointer for all of them, and a kernel on each GPU adding into
//! all of it, with no peer copy.
//!
//! `cargo run --release --example 15_vmm_striped`
//!
//! The address range (`reserve_multi_device`) and the physical pieces (`create_physical_on`, piece
//! `i` on device `i % n`) borrow only the first context, so they outlive the pushes below.
//! `map_owned` maps the pieces one after the other, lets every device read and write all of
//! them (`Access::ReadWrite`, checked with `cuDeviceCanAccessPeer` first) and releases them at
//! once, as C does: the mapping keeps the memory alive. Each device's context then borrows the
//! mapping in turn (`lend_mut`) and adds its share. With one GPU, two contexts on device 0
//! stand in for the two devices.
use custack::{
    Access, Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, LaunchConfig,
    MultiDeviceMapping, Stack, StackTop,
};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}
/// Pieces per device.
const PIECES: usize = 4;

/// Adds `k` to every element of `mapping` with a kernel of `ctx`'s device.
fn add_on(
    stack: &mut Stack,
    ctx: &Context,
    mapping: &mut MultiDeviceMapping<'_, u32>,
    k: u32,
) -> custack::Result<()> {
    stack.with_pushed(ctx, |guard| -> custack::Result<()> {
        let module = guard.load_ptx(KERNELS)?;
        let add = module.declared::<AddU32>()?;
        let mut view = guard.lend_mut(mapping)?;
        let n = view.len() as u32;
        guard.stream()?.scope(|s| {
            let mut x = s.bind_mut(&mut view);
            // The view, mapped read-write for this device, binds like device memory; it is
            // checked to hold `n` elements.
            s.run(&add, LaunchConfig::for_elements(n), (&mut x, k, n))
        })?
    })?
}

/// The line to print, or which elements were wrong.
fn run() -> custack::Result<Result<String, String>> {
    let driver = Driver::init()?;
    let devices: Vec<_> = driver.devices()?.into_iter().take(2).collect();
    let first = *devices
        .first()
        .ok_or_else(|| custack::Error::from_kind(custack::ErrorKind::NoDevice))?;
    let last = *devices.last().unwrap_or(&first);
    let contexts = [
        Context::new(first, ContextFlags::SCHED_BLOCKING_SYNC)?,
        Context::new(last, ContextFlags::SCHED_BLOCKING_SYNC)?,
    ];
    let mut stack = Stack::new()?;
    let (space, pieces, piece_bytes) =
        stack.with_pushed(&contexts[0], |guard| -> custack::Result<_> {
            // A piece of 32 MiB, rounded to every device's granularity.
            let mut g = 1;
            for &d in &devices {
                g = g.max(guard.granularity_on(d)?);
            }
            let piece = (32usize << 20).div_ceil(g) * g;
            let n = PIECES * devices.len();
            let pieces = (0..n)
                .map(|i| guard.create_physical_on(devices[i % devices.len()], piece))
                .collect::<custack::Result<Vec<_>>>()?;
            Ok((guard.reserve_multi_device(n * piece)?, pieces, piece))
        })??;
    let n_pieces = pieces.len();
    let access: Vec<_> = devices.iter().map(|&d| (d, Access::ReadWrite)).collect();
    let mut striped = space.map_owned::<u32>(0, pieces, &access)?;
    let n = striped.len();
    let start: Vec<u32> = (0..n as u32).collect();
    stack.with_pushed(&contexts[0], |guard| {
        guard.lend_mut(&mut striped)?.copy_from_host(&start)
    })??;
    for (k, ctx) in contexts.iter().enumerate() {
        add_on(&mut stack, ctx, &mut striped, k as u32 + 1)?;
    }
    let back = stack.with_pushed(&contexts[1], |guard| guard.lend(&striped)?.to_vec())??;
    let wrong = back
        .iter()
        .zip(&start)
        .filter(|&(&b, &s)| b != s + 3)
        .count();
    if wrong > 0 {
        return Ok(Err(format!("{wrong} of {n} elements are not start + 3")));
    }
    let names: Vec<String> = devices
        .iter()
        .map(|d| d.name())
        .collect::<custack::Result<_>>()?;
    Ok(Ok(format!(
        "vmm_striped: {n} u32 ({} MiB) striped over {} pieces of {} MiB on {} device(s) ({}), one pointer {:#x}; +1 on device {}, +2 on device {}, every element checked",
        (n * 4) >> 20,
        n_pieces,
        piece_bytes >> 20,
        devices.len(),
        names.join(", "),
        striped.device_ptr(),
        first.as_raw(),
        last.as_raw(),
    )))
}

fn main() -> ExitCode {
    match run() {
        Ok(Ok(line)) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Ok(Err(wrong)) => {
            eprintln!("15_vmm_striped: {wrong}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("15_vmm_striped: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
