//! External memory measured against the raw driver calls in the same process: what custack's
//! import, mapping and release of Vulkan memory cost over `cuImportExternalMemory`,
//! `cuExternalMemoryGetMappedBuffer` (or `cuExternalMemoryGetMappedMipmappedArray`), `cuMemFree`
//! (or `cuMipmappedArrayDestroy`) and `cuDestroyExternalMemory`.
//!
//! ```text
//! cargo bench -p custack-benches --bench external_memory  # on a GPU machine with Vulkan
//! bash scripts/gpu-bundle.sh --bench external_memory  # packs it, and Vulkan; then .gpu/run.sh
//! ```
//!
//! The memory is Vulkan's (`benches/tests/vulkan/mod.rs`, the device matched to the CUDA device
//! by UUID), allocated once before timing: a 1 MiB device-local buffer and a 256 × 256 `R32_UINT`
//! image of 9 levels, each a dedicated exportable allocation. Every import consumes its fd, so
//! each sample first exports its own fds (`vkGetMemoryFdKHR`, one new descriptor of the same
//! memory a call), outside the time taken; the imports of one sample follow one another, each
//! released before the next. Rows, each custack beside the raw `custack::ffi` calls it makes, in
//! alternating order after one warm-up of each, per import:
//! - import + map a buffer + release: `guard.import_memory(fd, size, OpaqueFdDedicated)`,
//!   `map_buffer::<u8>(0, 1 MiB)`, both dropped (raw: the four calls above);
//! - import + map a mipmapped array + release: the same with
//!   `map_mipmapped_array::<u32>(0, [256, 256, 1], 9)` (raw: the same descriptor, with
//!   `CUDA_ARRAY3D_SURFACE_LDST` as custack passes it).
//!
//! Reported: the median over `CUSTACK_EXT_REPS` (default 50) samples of `CUSTACK_EXT_PER`
//! (default 20) imports each, the spread (p10–p90 ÷ 2 of the median) and custack's median over
//! raw's. After the rows, no drop error is recorded. Nothing here asserts a time. Without
//! `--bench` (as `cargo test --all-targets` runs it) it prints how to run it and exits.
#![allow(
    clippy::cast_precision_loss,
    clippy::multiple_unsafe_ops_per_block, // the raw variants are C programs in Rust syntax
    clippy::too_many_lines
)]

mod common;
#[cfg(target_os = "linux")]
#[path = "tests/vulkan/mod.rs"]
mod vulkan;

/// Everything but `main`: external memory by file descriptor is Linux only.
#[cfg(target_os = "linux")]
mod linux {
    use super::common::{cu as ok, pair_row as row, time};
    use super::vulkan::Vulkan;
    use custack::{Context, ContextFlags, DeviceMemory, Driver, MemoryHandle, Stack, ffi};
    use std::os::fd::{IntoRawFd, OwnedFd};

    const BYTES: u64 = 1 << 20;
    const IMAGE: [u32; 2] = [256, 256];
    const LEVELS: u32 = 9;

    /// `per` fresh fds of `memory`, exported before a sample's clock starts.
    fn fds(vk: &Vulkan, memory: ash::vk::DeviceMemory, per: usize) -> Vec<OwnedFd> {
        (0..per)
            .map(|_| vk.export_fd(memory).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    /// Raw: `cuImportExternalMemory` of `fd` (`size` bytes, dedicated); the driver owns the fd
    /// once it succeeds.
    fn raw_import(fd: OwnedFd, size: u64) -> ffi::CUexternalMemory {
        let desc = ffi::CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
            type_: ffi::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
            handle: ffi::CUDA_EXTERNAL_HANDLE {
                fd: fd.into_raw_fd(),
            },
            size,
            flags: ffi::CUDA_EXTERNAL_MEMORY_DEDICATED,
            reserved: [0; 16],
        };
        let mut ext = core::ptr::null_mut();
        // SAFETY: a valid out-pointer and descriptor; the fd is Vulkan's export of `size` bytes of
        // a dedicated allocation on this device, which nothing else uses while imported.
        unsafe {
            ok(
                ffi::cuImportExternalMemory(&raw mut ext, &raw const desc),
                "cuImportExternalMemory",
            );
        }
        ext
    }

    /// Raw: destroys an import none of whose mappings lives.
    fn raw_destroy(ext: ffi::CUexternalMemory) {
        // SAFETY: a live import of the current context, its mapping released already.
        unsafe { ok(ffi::cuDestroyExternalMemory(ext), "cuDestroyExternalMemory") };
    }

    pub(crate) fn run(reps: usize, per: usize) -> Result<(), String> {
        let e = |e: custack::Error| e.to_string();
        let device = Driver::init().map_err(e)?.device(0).map_err(e)?;
        let mut vk = Vulkan::for_uuid(device.uuid().map_err(e)?)?;
        let (buffer, first) = vk.exported_buffer(BYTES)?;
        drop(first);
        let (image, first) = vk.exported_image(IMAGE, LEVELS)?;
        drop(first);
        let ctx = Context::new(device, ContextFlags::empty()).map_err(e)?;
        let mut stack = Stack::new().map_err(e)?;
        let guard = stack.push(&ctx).map_err(e)?;
        let len = usize::try_from(BYTES).map_err(|e| e.to_string())?;
        let [w, h] = IMAGE.map(|x| x as usize);

        println!(
            "| operation (per import) | raw | custack | custack/raw | spread (raw · custack) |"
        );
        println!("| --- | ---: | ---: | ---: | --- |");
        row(
            "import an opaque fd + map a 1 MiB buffer + release",
            reps,
            per,
            || {
                let fds = fds(&vk, buffer.memory, per);
                time(|| {
                    for fd in fds {
                        let ext = raw_import(fd, buffer.size);
                        let desc = ffi::CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
                            offset: 0,
                            size: BYTES,
                            flags: 0,
                            reserved: [0; 16],
                        };
                        let mut ptr = 0;
                        // SAFETY: a live import of the current context; a range inside it; the
                        // mapping freed once, before the import is destroyed.
                        unsafe {
                            ok(
                                ffi::cuExternalMemoryGetMappedBuffer(
                                    &raw mut ptr,
                                    ext,
                                    &raw const desc,
                                ),
                                "cuExternalMemoryGetMappedBuffer",
                            );
                            core::hint::black_box(ptr);
                            ok(ffi::cuMemFree_v2(ptr), "cuMemFree");
                        }
                        raw_destroy(ext);
                    }
                })
            },
            || {
                let fds = fds(&vk, buffer.memory, per);
                time(|| {
                    for fd in fds {
                        // SAFETY: the fd is Vulkan's export of `buffer.size` bytes of a dedicated
                        // allocation on this device, which nothing else uses while imported.
                        let mut memory = unsafe {
                            guard.import_memory(fd, buffer.size, MemoryHandle::OpaqueFdDedicated)
                        }
                        .expect("import_memory");
                        let mapped = memory.map_buffer::<u8>(0, len).expect("map_buffer");
                        core::hint::black_box(mapped.device_ptr());
                        drop(mapped);
                        drop(memory);
                    }
                })
            },
        );
        row(
            "import an opaque fd + map a 256 × 256 u32 mipmapped array (9 levels) + release",
            reps,
            per,
            || {
                let fds = fds(&vk, image.memory, per);
                time(|| {
                    for fd in fds {
                        let ext = raw_import(fd, image.size);
                        let desc = ffi::CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC {
                            offset: 0,
                            arrayDesc: ffi::CUDA_ARRAY3D_DESCRIPTOR {
                                Width: w,
                                Height: h,
                                Depth: 0,
                                Format: ffi::CU_AD_FORMAT_UNSIGNED_INT32,
                                NumChannels: 1,
                                Flags: ffi::CUDA_ARRAY3D_SURFACE_LDST,
                            },
                            numLevels: LEVELS,
                            reserved: [0; 16],
                        };
                        let mut array = core::ptr::null_mut();
                        // SAFETY: a live import of the current context; the image's format, extent
                        // and levels at offset 0; the array destroyed once, before the import.
                        unsafe {
                            ok(
                                ffi::cuExternalMemoryGetMappedMipmappedArray(
                                    &raw mut array,
                                    ext,
                                    &raw const desc,
                                ),
                                "cuExternalMemoryGetMappedMipmappedArray",
                            );
                            core::hint::black_box(array);
                            ok(
                                ffi::cuMipmappedArrayDestroy(array),
                                "cuMipmappedArrayDestroy",
                            );
                        }
                        raw_destroy(ext);
                    }
                })
            },
            || {
                let fds = fds(&vk, image.memory, per);
                time(|| {
                    for fd in fds {
                        // SAFETY: the fd is Vulkan's export of `image.size` bytes of the image's
                        // dedicated allocation on this device, which nothing else uses while
                        // imported.
                        let mut memory = unsafe {
                            guard.import_memory(fd, image.size, MemoryHandle::OpaqueFdDedicated)
                        }
                        .expect("import_memory");
                        let mapped = memory
                            .map_mipmapped_array::<u32>(0, [w, h, 1], LEVELS)
                            .expect("map_mipmapped_array");
                        core::hint::black_box(mapped.as_raw());
                        drop(mapped);
                        drop(memory);
                    }
                })
            },
        );
        let errors = custack::take_drop_errors();
        if !errors.is_empty() {
            return Err(format!("drop errors: {errors:?}"));
        }
        // The guard and context go first, then Vulkan (declared before them).
        Ok(())
    }
}

/// Elsewhere: no file descriptors to import.
#[cfg(not(target_os = "linux"))]
mod linux {
    pub(crate) fn run(_: usize, _: usize) -> Result<(), String> {
        Err("external memory by file descriptor is Linux only".to_owned())
    }
}

fn main() -> std::process::ExitCode {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "external_memory: a benchmark; run it with `cargo bench -p custack-benches --bench external_memory` on a GPU machine with Vulkan"
        );
        return std::process::ExitCode::SUCCESS;
    }
    let var = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n| n > 0)
            .unwrap_or(default)
    };
    match linux::run(var("CUSTACK_EXT_REPS", 50), var("CUSTACK_EXT_PER", 20)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("external_memory: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
