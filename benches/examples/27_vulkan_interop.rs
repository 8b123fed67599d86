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
#[allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "the command buffer's recording is one unsafe block under one contract"
)]
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
    let family = vk.family();
    // Vulkan's copy first: it waits for the semaphore's value 1, which CUDA signals.
    vk.submit(timeline, Some(1), 2, |d, cb| {
        use ash::vk;
        let acquire = vulkan::ownership(
            shared.handle,
            vk::QUEUE_FAMILY_EXTERNAL,
            family,
            vk::AccessFlags::empty(),
            vk::AccessFlags::TRANSFER_READ,
        );
        // SAFETY: a command buffer being recorded; buffers of this device.
        unsafe {
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[acquire],
                &[],
            );
            d.cmd_copy_buffer(
                cb,
                shared.handle,
                staging.handle,
                &[vk::BufferCopy {
                    src_offset: 0,
                    dst_offset: 0,
                    size: bytes,
                }],
            );
            // The copy's writes made visible to the host's read after the semaphore wait.
            let to_host = vk::BufferMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(staging.handle)
                .offset(0)
                .size(vk::WHOLE_SIZE);
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[],
                &[to_host],
                &[],
            );
        }
    })?;
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
