//! Every CUDA device of the machine: name, compute capability, memory, SMs and a few other
//! attributes, the driver version, and (with several devices) which can access which as peers.
//!
//! `cargo run --release --example 00_device_query`
//!
//! Shows what needs no context at all: a `Driver` (the proof that `cuInit` succeeded) hands
//! out `Device`s, and a device answers every `cuDeviceGetAttribute` query through
//! `DeviceAttribute` (one variant per attribute of `cuda.h`). Nothing is pushed, allocated or
//! launched. On an H100 (driver 580) it prints:
//!
//! ```text
//! device 0: NVIDIA H100 80GB HBM3, compute 9.0, 81079 MiB, 132 SMs at 1980 MHz, 51200 KiB L2, 5120-bit memory bus at 2619 MHz, max 1024 threads/block, 227 KiB shared memory/block (opt-in), 3 copy engines, concurrent managed access yes, PCI 0000:00:06.0
//! device_query: 1 device, driver API 13.0
//! ```
//!
//! and on two H200s, each device line ends with its row of the peer-access matrix:
//!
//! ```text
//! device 0: NVIDIA H200, compute 9.0, 143155 MiB, 132 SMs at 1980 MHz, 61440 KiB L2, 6016-bit memory bus at 3201 MHz, max 1024 threads/block, 227 KiB shared memory/block (opt-in), 3 copy engines, concurrent managed access yes, PCI 0000:00:06.0, peer access to devices 0-1: [- yes]
//! device 1: NVIDIA H200, compute 9.0, 143155 MiB, 132 SMs at 1980 MHz, 61440 KiB L2, 6016-bit memory bus at 3201 MHz, max 1024 threads/block, 227 KiB shared memory/block (opt-in), 3 copy engines, concurrent managed access yes, PCI 0000:00:07.0, peer access to devices 0-1: [yes -]
//! device_query: 2 devices, driver API 13.0
//! ```
use custack::{Device, DeviceAttribute, Driver};
use std::process::ExitCode;

/// One line about `device`; with several devices, its row of the peer-access matrix too.
fn describe(device: Device, all: &[Device]) -> custack::Result<String> {
    // With several devices, this device's row of the peer-access matrix.
    let peers = if all.len() > 1 {
        // `cuDeviceCanAccessPeer` is false for a device and itself: shown as "-".
        let row = all
            .iter()
            .map(|&peer| {
                if peer == device {
                    Ok("-")
                } else {
                    device
                        .can_access_peer(peer)
                        .map(|can| yes_no(i32::from(can)))
                }
            })
            .collect::<custack::Result<Vec<_>>>()?;
        format!(
            ", peer access to devices 0-{}: [{}]",
            all.len() - 1,
            row.join(" ")
        )
    } else {
        String::new()
    };
    let attr = |a: DeviceAttribute| device.attribute(a);
    Ok(format!(
        "device {}: {}, compute {}, {} MiB, {} SMs at {} MHz, {} KiB L2, {}-bit memory bus at {} MHz, \
         max {} threads/block, {} KiB shared memory/block (opt-in), {} copy engines, \
         concurrent managed access {}, PCI {}{peers}",
        device.ordinal(),
        device.name()?,
        device.compute_capability()?,
        device.total_memory()? >> 20,
        attr(DeviceAttribute::MultiprocessorCount)?,
        attr(DeviceAttribute::ClockRate)? / 1000,
        attr(DeviceAttribute::L2CacheSize)? >> 10,
        attr(DeviceAttribute::GlobalMemoryBusWidth)?,
        attr(DeviceAttribute::MemoryClockRate)? / 1000,
        attr(DeviceAttribute::MaxThreadsPerBlock)?,
        attr(DeviceAttribute::MaxSharedMemoryPerBlockOptin)? >> 10,
        attr(DeviceAttribute::AsyncEngineCount)?,
        yes_no(attr(DeviceAttribute::ConcurrentManagedAccess)?),
        device.pci_bus_id()?,
    ))
}

fn yes_no(value: i32) -> &'static str {
    if value == 0 { "no" } else { "yes" }
}

fn run() -> custack::Result<()> {
    let driver = Driver::init()?;
    let devices = driver.devices()?;
    for &device in &devices {
        println!("{}", describe(device, &devices)?);
    }
    let count = devices.len();
    println!(
        "device_query: {count} device{}, driver API {}",
        if count == 1 { "" } else { "s" },
        driver.version()?
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("00_device_query: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
