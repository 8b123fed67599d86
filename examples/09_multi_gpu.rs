//! Several GPUs: one thread per device, and one thread driving two devices with parked buffers.
//!
//! `cargo run --release --example 09_multi_gpu`
//!
//! Part 1 starts one thread per device. Each thread makes its own context, takes its own stack
//! and works on its own memory: nothing is shared, so nothing needs to be `Send` but the
//! `Device`. Part 2 drives devices 0 and 1 from one thread. A's guard stays pushed, and its
//! buffer is *parked* (`guard_a.park`), so it borrows only A's context. Then B is pushed on top
//! (`with_pushed`, which freezes A's guard and everything it lent). B copies the parked buffer
//! to itself, adds to it there and copies the result back (`copy_from_peer`, `copy_to_peer`).
//! Once B is popped, A attaches the buffer again and reads it. Peer access is enabled where the
//! two devices support it. The copies work without it too.
//!
//! With one GPU, two contexts on device 0 stand in for the two devices, and the output says so.
//! On an H100 it prints:
//!
//! ```text
//! multi_gpu: one GPU (NVIDIA H100 80GB HBM3): 2 threads on device 0, each with its own context and stack: 2 x 4194304 elements checked
//! multi_gpu: one thread drove two contexts on device 0 (one GPU, which is not its own peer: the copies need no peer access): A's parked buffer copied to B under B's push, added to there, copied back; 4194304 elements checked on both
//! ```
//!
//! and on two H200s:
//!
//! ```text
//! multi_gpu: 2 threads, one per device (NVIDIA H200, NVIDIA H200), each with its own context and stack: 2 x 4194304 elements checked
//! multi_gpu: one thread drove devices 0 and 1 (peer access enabled): A's parked buffer copied to B under B's push, added to there, copied back; 4194304 elements checked on both
//! ```
use custack::{Context, ContextFlags, Device, DeviceMemory, Driver, LaunchConfig, Stack, StackTop};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 1 << 22;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// Counts the elements of `got` that are not `start + k`.
fn count_wrong(got: &[u32], start: &[u32], k: u32) -> usize {
    got.iter().zip(start).filter(|&(&g, &s)| g != s + k).count()
}

/// Part 1, one thread: its own context on `device`, its own stack, `add_u32` with `k` over a
/// buffer of its own. Returns how many elements are wrong.
fn on_one_device(device: Device, k: u32) -> custack::Result<usize> {
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let n = N as u32;
    let start: Vec<u32> = (0..n).collect();
    let mut x = guard.alloc_from(&start)?;
    guard.stream()?.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        s.run(&add, LaunchConfig::for_elements(n), (&mut dx, k, n))
    })??;
    Ok(count_wrong(&x.to_vec()?, &start, k))
}

/// Part 2: one thread, contexts on `a` and `b`. Returns whether peer access was enabled and how
/// many elements are wrong on either side.
fn one_thread_two_devices(a: Device, b: Device) -> custack::Result<(bool, usize)> {
    const K: u32 = 10;
    let ctx_a = Context::new(a, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let ctx_b = Context::new(b, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&ctx_a)?;
    let n = N as u32;
    let start: Vec<u32> = (0..n).collect();
    // A's buffer, parked: it borrows only `ctx_a`, so it stays usable while B is on top.
    let mut parked = guard_a.park(guard_a.alloc_from(&start)?);
    // A device is never its own peer (`cuDeviceCanAccessPeer` says no), hence `a != b`.
    let peer = a != b && b.can_access_peer(a)?;

    let wrong_b = guard_a.with_pushed(&ctx_b, |guard_b| -> custack::Result<usize> {
        // `guard_a` and what it lent are frozen here; `parked` and `ctx_a` are not.
        let _access = if peer {
            Some(guard_b.enable_peer_access(&ctx_a)?) // disabled again when dropped
        } else {
            None
        };
        let module = guard_b.load_ptx(KERNELS)?;
        let add = module.declared::<AddU32>()?;
        let mut y = guard_b.alloc::<u32>(N)?;
        guard_b.stream()?.scope(|s| -> custack::Result<()> {
            let mut dy = s.bind_mut(&mut y);
            s.copy_from_peer(&mut dy, &parked)?; // A -> B, `parked` borrowed until the scope ends
            s.run(&add, LaunchConfig::for_elements(n), (&mut dy, K, n))
        })??;
        guard_b.copy_to_peer(&mut parked, &y)?; // B -> A, synchronous
        Ok(count_wrong(&y.to_vec()?, &start, K))
    })??; // B popped: A is on top again

    let x = guard_a.attach(parked)?; // the same context: checked by comparing two pointers
    let wrong_a = count_wrong(&x.to_vec()?, &start, K);
    Ok((peer, wrong_a + wrong_b))
}

/// The devices' names, or the one device's name once.
fn devices_named(devices: &[Device], one_gpu: bool) -> custack::Result<String> {
    let devices = if one_gpu { &devices[..1] } else { devices };
    Ok(devices
        .iter()
        .map(|d| d.name())
        .collect::<custack::Result<Vec<_>>>()?
        .join(", "))
}

/// Runs both parts; returns whether every result was right.
fn run() -> custack::Result<bool> {
    let driver = Driver::init()?;
    let devices = driver.devices()?;
    let a = driver.device(0)?;
    let one_gpu = devices.len() == 1;
    let b = if one_gpu { a } else { driver.device(1)? };

    // Part 1: one thread per device (two threads on device 0 with one GPU).
    let workers = if one_gpu { vec![a, a] } else { devices };
    let wrong_1 = std::thread::scope(|s| {
        let handles: Vec<_> = (1..)
            .zip(&workers)
            .map(|(k, &device)| s.spawn(move || on_one_device(device, k)))
            .collect();
        handles
            .into_iter()
            // A thread returns its errors; it panics only through a bug, passed on as is.
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .sum::<custack::Result<usize>>()
    })?;
    let names = devices_named(&workers, one_gpu)?;
    let threads = workers.len();
    if wrong_1 == 0 {
        if one_gpu {
            println!(
                "multi_gpu: one GPU ({names}): {threads} threads on device 0, each with its own context and stack: {threads} x {N} elements checked"
            );
        } else {
            println!(
                "multi_gpu: {threads} threads, one per device ({names}), each with its own context and stack: {threads} x {N} elements checked"
            );
        }
    } else {
        eprintln!("09_multi_gpu: {wrong_1} elements differ in part 1");
    }

    // Part 2: one thread, two devices (two contexts on device 0 with one GPU).
    let (peer, wrong_2) = one_thread_two_devices(a, b)?;
    if wrong_2 == 0 {
        let (devices, access) = match (one_gpu, peer) {
            (true, _) => (
                "two contexts on device 0",
                "one GPU, which is not its own peer: the copies need no peer access",
            ),
            (false, true) => ("devices 0 and 1", "peer access enabled"),
            (false, false) => (
                "devices 0 and 1",
                "no peer access between them: the copies need none",
            ),
        };
        println!(
            "multi_gpu: one thread drove {devices} ({access}): A's parked buffer copied to B under B's push, added to there, copied back; {N} elements checked on both"
        );
    } else {
        eprintln!("09_multi_gpu: {wrong_2} elements differ in part 2");
    }
    Ok(wrong_1 == 0 && wrong_2 == 0)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("09_multi_gpu: a result differs from the expected one");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("09_multi_gpu: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
