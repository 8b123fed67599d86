//! GPU health through NVML (feature `nvml`): opens NVML for device 0, prints what the
//! restricted profile's pre-flight would find (ECC mode, row remapping, page retirement, the
//! events NVML can watch), then measures what one zero-timeout poll of the event set costs.
//!
//! ```text
//! cargo run --release --features nvml --example 24_gpu_health [POLLS]
//! ```
//!
//! Without a GPU (or without NVML linked) it says so in one line and exits with 1.

use custack::Driver;
use custack::health::Health;
use std::process::ExitCode;
use std::time::Instant;

fn run(polls: u32) -> custack::Result<()> {
    let device = Driver::init()?.device(0)?;
    let health = Health::open(device)?;
    let preflight = health.preflight()?;
    println!(
        "24_gpu_health: {} at PCI {}: {preflight:?}",
        device.name()?,
        health.pci_bus_id().to_string_lossy()
    );
    println!(
        "24_gpu_health: ECC errors since the driver loaded: {:?}",
        health.ecc_errors()?
    );
    let findings = preflight.findings();
    if findings.is_empty() {
        println!("24_gpu_health: the pre-flight finds nothing: a restricted run phase may start");
    }
    for finding in &findings {
        println!("24_gpu_health: the pre-flight would refuse: {finding}");
    }
    // The poll's cost: a warm-up, then `polls` zero-timeout waits.
    for _ in 0..100 {
        health.poll()?;
    }
    let mut found = 0u32;
    let start = Instant::now();
    for _ in 0..polls {
        if let Some(event) = health.poll()? {
            println!("24_gpu_health: event: {event}");
            found += 1;
        }
    }
    let elapsed = start.elapsed();
    println!(
        "24_gpu_health: poll: {:.0} ns per call over {polls} calls ({found} events)",
        elapsed.as_secs_f64() * 1e9 / f64::from(polls.max(1))
    );
    Ok(())
}

fn main() -> ExitCode {
    let polls = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    match run(polls) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("24_gpu_health: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
