//! External memory and semaphores against Vulkan on the GPU (contract rows C30, C31): a Vulkan
//! buffer exported as an opaque fd and imported by custack, a timeline semaphore exported the
//! same way, the Vulkan device matched to the CUDA device by UUID.
//!
//! - CUDA writes, Vulkan reads: Vulkan's copy of the buffer into host-visible memory is
//!   submitted first, waiting for the semaphore's value 1; then a custack scope fills the
//!   mapped buffer, adds 7 with the `add_u32` kernel of `tests/fixtures/kernels.ptx` and
//!   signals 1; Vulkan's copy then reads 7 everywhere (the copy ran after CUDA's work, or it
//!   would read what the memory held before).
//! - Vulkan writes, CUDA reads: a custack scope waits for the value 3 and copies the mapped
//!   buffer to the host; only then is Vulkan's fill with 42 submitted, signalling 3; the host
//!   copy reads 42 everywhere (CUDA's copy waited for Vulkan's fill, or it would read 7).
//!
//! `#[ignore = "needs a CUDA device"]`: without a device it fails (`Driver::init`), and it
//! fails too, naming the step, when Vulkan cannot start (no loader, no ICD, no device with the
//! CUDA device's UUID, a missing extension): never a skip. Here, in custack-benches, so that
//! custack's own tests build without ash. On the GPU machine, from the bundle (`.gpu/run.sh`
//! sets `LD_LIBRARY_PATH` and `VK_ICD_FILENAMES`):
//! `bash scripts/gpu-bundle.sh --test gpu_external`, then `ONLY=test-gpu_external bash .gpu/run.sh`.
#![cfg(target_os = "linux")]

mod vulkan;

use custack::{
    Context, ContextFlags, Deadline, DeviceMemory, Driver, LaunchConfig, MemoryHandle, Overrun,
    Stack, Timeline,
};
use std::time::Duration;
use vulkan::Vulkan;

const KERNELS: &str = include_str!("../../tests/fixtures/kernels.ptx");
const N: usize = 1 << 16;
const N32: u32 = N as u32;
const BYTES: u64 = (N * 4) as u64;
/// A bound every wait of the test keeps (liveness only: the work takes microseconds).
const BOUND: Duration = Duration::from_secs(60);

#[test]
#[ignore = "needs a CUDA device"]
fn vulkan_and_cuda_share_a_buffer_ordered_by_a_timeline_semaphore() {
    let driver = Driver::init().expect("needs a CUDA device: Driver::init failed");
    let device = driver.device(0).expect("needs a CUDA device: no device 0");
    let uuid = device.uuid().expect("cuDeviceGetUuid");
    let mut vk = Vulkan::for_uuid(uuid).unwrap_or_else(|e| panic!("{e}"));
    let (shared, memory_fd) = vk.exported_buffer(BYTES).unwrap_or_else(|e| panic!("{e}"));
    let staging = vk.staging_buffer(BYTES).unwrap_or_else(|e| panic!("{e}"));
    let (timeline, semaphore_fd) = vk.exported_timeline().unwrap_or_else(|e| panic!("{e}"));

    let ctx = Context::new(device, ContextFlags::empty()).expect("a context on device 0");
    let mut stack = Stack::new().expect("the thread's stack");
    let guard = stack.push(&ctx).expect("push");
    // SAFETY: the fd is Vulkan's export of `shared.size` bytes of a dedicated allocation on
    // this device; Vulkan touches the buffer only in submissions ordered against CUDA's work
    // by the timeline semaphore.
    let mut memory =
        unsafe { guard.import_memory(memory_fd, shared.size, MemoryHandle::OpaqueFdDedicated) }
            .expect("cuImportExternalMemory of Vulkan's opaque fd");
    let semaphore = guard
        .import_semaphore::<Timeline>(semaphore_fd)
        .expect("cuImportExternalSemaphore of Vulkan's timeline semaphore");
    let module = guard.load_ptx(KERNELS).expect("kernels.ptx");
    let add = module.function("add_u32").expect("add_u32");
    let stream = guard.stream().expect("stream");
    let mut mapped = memory
        .map_buffer::<u32>(0, N)
        .expect("cuExternalMemoryGetMappedBuffer");
    assert_eq!(mapped.len(), N);

    // CUDA writes, Vulkan reads. Vulkan's copy goes in first, waiting for 1; it gives the
    // buffer back to CUDA when done.
    vk.submit_read_back(timeline, (1, 2), (shared, staging), BYTES, true)
        .unwrap_or_else(|e| panic!("{e}"));
    let cfg = LaunchConfig::for_elements(N32);
    stream
        .scope_by(
            Deadline::after(BOUND),
            Overrun::Exit,
            |s| -> custack::Result<()> {
                let mut x = s.bind_mut(&mut mapped);
                s.fill_u32(&mut x, 0)?;
                // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)`; `x` holds `n` elements.
                unsafe { s.launch(&add, cfg, (&mut x, 7u32, N32)) }?;
                s.signal_semaphore(&semaphore, 1)
            },
        )
        .expect("the scope's end")
        .expect("CUDA's fill, kernel and signal");
    vk.wait(timeline, 2, BOUND)
        .unwrap_or_else(|e| panic!("{e}"));
    let read = vk.read_u32(staging, N).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        read.iter().all(|&v| v == 7),
        "Vulkan read what CUDA wrote (7): first values {:?}",
        read.get(..8)
    );

    // Vulkan writes, CUDA reads: CUDA's wait is enqueued before Vulkan's fill is submitted.
    let mut host = guard.alloc_pinned::<u32>(N).expect("pinned");
    stream
        .scope_by(
            Deadline::after(BOUND),
            Overrun::Exit,
            |s| -> custack::Result<()> {
                s.wait_semaphore(&semaphore, 3)?;
                s.copy_to_host(&mut host, s.bind(&mapped))?;
                s.signal_semaphore(&semaphore, 4)?;
                vk.submit_fill(timeline, (2, 3), shared, BYTES, 42)
                    .map_err(|e| custack::Error::new(custack::ErrorKind::InvalidValue, &e))
            },
        )
        .expect("the scope's end")
        .expect("CUDA's wait, copy and signal, and Vulkan's fill");
    assert!(
        host.iter().all(|&v| v == 42),
        "CUDA read what Vulkan wrote (42) after waiting for it: first values {:?}",
        host.get(..8)
    );
    vk.wait(timeline, 4, BOUND)
        .unwrap_or_else(|e| panic!("{e}"));

    // The right order: the mapping before its import, CUDA's imports before Vulkan's objects.
    drop(mapped);
    drop(memory);
    drop(semaphore);
    let errors = custack::take_drop_errors();
    assert!(errors.is_empty(), "drop errors: {errors:?}");
    // The rest drops in reverse order of declaration: the guard and context, then Vulkan.
}
