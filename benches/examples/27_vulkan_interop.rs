//! Vulkan and CUDA share one buffer: Vulkan allocates it and exports it as an opaque file
//! descriptor, custack imports it and maps it as device memory, a CUDA scope fills it and
//! signals a timeline semaphore Vulkan exported, and Vulkan, whose copy waited for that signal,
//! reads it back through host-visible memory. The Vulkan device is the CUDA device's, matched by
//! UUID.
//!
//! `cargo run --release -p custack-benches --example 27_vulkan_interop`
//!
//! Needs the NVIDIA driver (CUDA and Vulkan) and a Vulkan loader: on the GPU machine, run it
//! from the bundle (`bash scripts/gpu-bundle.sh --example 27_vulkan_interop`, then
//! `ONLY=example-27_vulkan_interop bash .gpu/run.sh`), which sets `LD_LIBRARY_PATH` and
//! `VK_ICD_FILENAMES`. Without a driver, a device or Vulkan it says which, and exits 1:
//!
//! ```text
//! 27_vulkan_interop: nothing shared: Vulkan: no loader (libvulkan.so.1: ...)
//! ```
#![cfg_attr(not(target_os = "linux"), allow(unused))]

#[cfg(target_os = "linux")]
#[path = "../tests/vulkan/mod.rs"]
mod vulkan;

use std::process::ExitCode;

#[cfg(target_os = "linux")]
fn share() -> Result<String, Box<dyn std::error::Error>> {
    use custack::{
        Context, ContextFlags, Deadline, Driver, MemoryHandle, Overrun, Stack, Timeline,
    };
    use std::time::Duration;
    const N: usize = 4096;
    let device = Driver::init()?.device(0)?;
    let mut vk = vulkan::Vulkan::for_uuid(device.uuid()?)?;
    let bytes = (N * 4) as u64;
    let (shared, memory_fd) = vk.exported_buffer(bytes)?;
    let staging = vk.staging_buffer(bytes)?;
    let (timeline, semaphore_fd) = vk.exported_timeline()?;
    // Vulkan's copy first: it waits for the semaphore's value 1, which CUDA signals.
    vk.submit_read_back(timeline, (1, 2), (shared, staging), bytes, false)?;
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    // SAFETY: Vulkan's export of `shared.size` bytes of a dedicated allocation on this device,
    // which Vulkan reads only after the semaphore's value 1.
    let mut memory =
        unsafe { guard.import_memory(memory_fd, shared.size, MemoryHandle::OpaqueFdDedicated)? };
    let semaphore = guard.import_semaphore::<Timeline>(semaphore_fd)?;
    let stream = guard.stream()?;
    {
        let mut buffer = memory.map_buffer::<u32>(0, N)?;
        let deadline = Deadline::after(Duration::from_secs(60));
        stream.scope_by(deadline, Overrun::Exit, |s| -> custack::Result<()> {
            s.fill_u32(s.bind_mut(&mut buffer), 2026)?;
            s.signal_semaphore(&semaphore, 1)
        })??;
    }
    vk.wait(timeline, 2, Duration::from_secs(60))?;
    let read = vk.read_u32(staging, N)?;
    let same = read.iter().filter(|&&v| v == 2026).count();
    drop(semaphore);
    drop(memory);
    Ok(format!(
        "27_vulkan_interop: {} read {same} of {N} values CUDA wrote (2026) through a buffer Vulkan exported",
        vk.name
    ))
}

#[cfg(not(target_os = "linux"))]
fn share() -> Result<String, Box<dyn std::error::Error>> {
    Err("external memory by file descriptor is Linux only".into())
}

fn main() -> ExitCode {
    match share() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("27_vulkan_interop: nothing shared: {e}");
            ExitCode::FAILURE
        }
    }
}
