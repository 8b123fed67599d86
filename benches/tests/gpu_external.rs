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
//! - A Vulkan image and a CUDA mipmapped array over the same memory: a 64×64 `R32_UINT` image
//!   of 4 levels, optimal tiling, transfer and storage usage, in a dedicated exportable
//!   allocation, imported as `OpaqueFdDedicated` and mapped with `map_mipmapped_array::<u32>`
//!   (same format, extent and levels, offset 0). Vulkan moves it to `GENERAL` and releases it
//!   to CUDA (1); CUDA waits for 1, copies a texel value distinct for every texel of every
//!   level into each level (`bind_level`, `copy_to_array`) and signals 2; Vulkan's copy of
//!   every level into a host-visible buffer (submitted first, waiting for 2) reads each level
//!   as CUDA wrote it. Then Vulkan clears each level to its own value (waiting for 3,
//!   signalling 4, submitted after CUDA's wait for 4 is enqueued) and CUDA's copies out of each
//!   level read those values.
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

/// Level 0's width and height of the shared image, and its levels (64, 32, 16 and 8 wide).
const IMAGE: [u32; 2] = [64, 64];
const LEVELS: u32 = 4;

/// What CUDA writes at texel `i` of level `level`: distinct for every texel of every level, so
/// a texel read from another place or level than it was written to is seen.
fn texel(level: u32, i: usize) -> u32 {
    ((level + 1) << 24) | u32::try_from(i).expect("a small level")
}

/// What Vulkan clears level `level` to.
fn cleared(level: u32) -> u32 {
    0xA000_0000 | level
}

#[test]
#[ignore = "needs a CUDA device"]
#[allow(
    clippy::too_many_lines,
    reason = "one exchange read top to bottom: set-up, CUDA to Vulkan, Vulkan to CUDA, teardown"
)]
fn vulkan_image_and_cuda_mipmapped_array_share_every_level() {
    let driver = Driver::init().expect("needs a CUDA device: Driver::init failed");
    let device = driver.device(0).expect("needs a CUDA device: no device 0");
    let uuid = device.uuid().expect("cuDeviceGetUuid");
    let mut vk = Vulkan::for_uuid(uuid).unwrap_or_else(|e| panic!("{e}"));
    let (image, memory_fd) = vk
        .exported_image(IMAGE, LEVELS)
        .unwrap_or_else(|e| panic!("{e}"));
    let (offsets, packed) = image.packed_levels();
    let staging = vk.staging_buffer(packed).unwrap_or_else(|e| panic!("{e}"));
    let (timeline, semaphore_fd) = vk.exported_timeline().unwrap_or_else(|e| panic!("{e}"));
    // The image leaves UNDEFINED for the layout it keeps while shared, released to CUDA: 1.
    vk.submit_image_release(timeline, 1, image)
        .unwrap_or_else(|e| panic!("{e}"));

    let ctx = Context::new(device, ContextFlags::empty()).expect("a context on device 0");
    let mut stack = Stack::new().expect("the thread's stack");
    let guard = stack.push(&ctx).expect("push");
    // SAFETY: the fd is Vulkan's export of `image.size` bytes of the image's dedicated
    // allocation on this device; Vulkan touches the image only in submissions ordered against
    // CUDA's work by the timeline semaphore.
    let mut memory =
        unsafe { guard.import_memory(memory_fd, image.size, MemoryHandle::OpaqueFdDedicated) }
            .expect("cuImportExternalMemory of the image's opaque fd (dedicated)");
    let semaphore = guard
        .import_semaphore::<Timeline>(semaphore_fd)
        .expect("cuImportExternalSemaphore of Vulkan's timeline semaphore");
    let stream = guard.stream().expect("stream");
    let [w, h] = IMAGE.map(|e| e as usize);
    // The image's format (R32_UINT: one unsigned 32-bit channel, `u32`), extent (2D: depth 1,
    // which custack passes as the descriptor's depth 0) and levels, at offset 0.
    let mut mapped = memory
        .map_mipmapped_array::<u32>(0, [w, h, 1], LEVELS)
        .expect("cuExternalMemoryGetMappedMipmappedArray over the Vulkan image");
    assert_eq!(
        (
            mapped.width(),
            mapped.height(),
            mapped.depth(),
            mapped.levels()
        ),
        (w, h, 1, LEVELS)
    );
    let level_len = |level: u32| {
        let [lw, lh] = image.level_extent(level);
        (lw * lh) as usize
    };
    for level in 0..LEVELS {
        let [lw, lh] = image.level_extent(level);
        assert_eq!(
            mapped.level_extent(level).expect("a level it has"),
            [lw as usize, lh as usize, 1],
            "level {level}'s extent as CUDA and Vulkan see it"
        );
    }

    // CUDA writes every level, Vulkan reads them. Vulkan's read-back goes in first, waiting
    // for 2; CUDA waits for 1 (the image released to it), writes one level a scope, signals 2.
    vk.submit_image_read_back(timeline, (2, 3), image, staging)
        .unwrap_or_else(|e| panic!("{e}"));
    // Page-locked host memory on both sides, so that every copy is enqueued without a host
    // wait: the only host waits are the scopes' ends, each bounded by `BOUND`.
    let pinned = |level: u32| guard.alloc_pinned::<u32>(level_len(level)).expect("pinned");
    let written: Vec<_> = (0..LEVELS)
        .map(|level| {
            let mut data = pinned(level);
            for (i, v) in data.iter_mut().enumerate() {
                *v = texel(level, i);
            }
            data
        })
        .collect();
    for (level, data) in (0..LEVELS).zip(&written) {
        stream
            .scope_by(
                Deadline::after(BOUND),
                Overrun::Exit,
                |s| -> custack::Result<()> {
                    if level == 0 {
                        s.wait_semaphore(&semaphore, 1)?;
                    }
                    let mut array = s.bind_level(&mut mapped, level)?;
                    s.copy_to_array(&mut array, &data[..])?;
                    if level == LEVELS - 1 {
                        s.signal_semaphore(&semaphore, 2)?;
                    }
                    Ok(())
                },
            )
            .expect("the scope's end")
            .unwrap_or_else(|e| panic!("CUDA's copy into level {level}: {e}"));
    }
    vk.wait(timeline, 3, BOUND)
        .unwrap_or_else(|e| panic!("{e}"));
    let read = vk
        .read_u32(staging, usize::try_from(packed / 4).expect("small"))
        .unwrap_or_else(|e| panic!("{e}"));
    for ((level, data), &offset) in (0..LEVELS).zip(&written).zip(&offsets) {
        let start = usize::try_from(offset / 4).expect("small");
        let got = &read[start..start + data.len()];
        let wrong = got.iter().zip(data.iter()).position(|(g, d)| g != d);
        assert!(
            wrong.is_none(),
            "Vulkan read level {level} as CUDA wrote it: first difference at texel {wrong:?} \
             (read {:?}, written {:?})",
            wrong.map(|i| got[i]),
            wrong.map(|i| data[i])
        );
    }

    // Vulkan writes every level, CUDA reads them: CUDA's wait for 4 is enqueued before
    // Vulkan's clears (waiting for 3, signalling 4) are submitted.
    let mut back: Vec<_> = (0..LEVELS).map(pinned).collect();
    let values: Vec<u32> = (0..LEVELS).map(cleared).collect();
    for (level, out) in (0..LEVELS).zip(back.iter_mut()) {
        stream
            .scope_by(
                Deadline::after(BOUND),
                Overrun::Exit,
                |s| -> custack::Result<()> {
                    if level == 0 {
                        s.wait_semaphore(&semaphore, 4)?;
                        vk.submit_image_clear(timeline, (3, 4), image, &values)
                            .map_err(|e| {
                                custack::Error::new(custack::ErrorKind::InvalidValue, &e)
                            })?;
                    }
                    let array = s.bind_level(&mut mapped, level)?;
                    s.copy_from_array(&mut out[..], &array)?;
                    if level == LEVELS - 1 {
                        s.signal_semaphore(&semaphore, 5)?;
                    }
                    Ok(())
                },
            )
            .expect("the scope's end")
            .unwrap_or_else(|e| panic!("CUDA's copy out of level {level}: {e}"));
    }
    for (level, got) in (0..LEVELS).zip(&back) {
        assert!(
            got.iter().all(|&v| v == cleared(level)),
            "CUDA read level {level} as Vulkan cleared it ({:#x}) after waiting for it: first \
             values {:x?}",
            cleared(level),
            got.get(..8)
        );
    }
    vk.wait(timeline, 5, BOUND)
        .unwrap_or_else(|e| panic!("{e}"));

    // The right order: the mapping before its import, CUDA's imports before Vulkan's objects.
    drop(mapped);
    drop(memory);
    drop(semaphore);
    let errors = custack::take_drop_errors();
    assert!(errors.is_empty(), "drop errors: {errors:?}");
}
