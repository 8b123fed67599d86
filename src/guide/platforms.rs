//! Platforms: where custack builds and runs, how it finds the driver on each, cross builds, and
//! what differs on an integrated GPU (Jetson).
//!
//! # The platforms
//!
//! | platform | how the driver library is found (`build.rs`) | what CI checks, without a GPU | run on a GPU |
//! | --- | --- | --- | --- |
//! | Linux x86_64 | `libcuda.so.1` / `libcuda.so`: `CUDA_DRIVER_LIB_DIR`, `CUDA_LIBRARY_PATH`, the toolkit roots, the distro and driver directories, `ldconfig -p`, last the toolkit stubs | everything: tests (ui included), docs, the checking driver, Miri, linked against the real driver 535 | H100 and H200 |
//! | Linux aarch64: Jetson (L4T), Grace (SBSA) | the same, plus the Jetson driver's `/usr/lib/aarch64-linux-gnu/tegra` (JetPack 5) and `…/nvidia` (JetPack 6) and the toolkit's `targets/aarch64-linux` and `targets/sbsa-linux` | a cross build linked against Debian's arm64 driver 535; unit tests, the GPU-less and driver tests and `01_vector_add` run under `qemu-aarch64` | not yet |
//! | Windows x86_64 (MSVC, GNU) | `nvcuda.dll` in `System32` (or `CUDA_DRIVER_LIB_DIR`), linked by name with `raw-dylib`: no toolkit needed | a cross build for `x86_64-pc-windows-gnu` whose GPU-less tests and `01_vector_add` run under Wine; the `raw-dylib` build imports `nvcuda.dll`; `cargo check` for `x86_64-pc-windows-msvc` | not yet |
//! | QNX aarch64 (DRIVE OS) | `libcuda.so` in the target tree's `/usr/libnvidia` (`CUSTACK_SYSROOT`), the toolkit's `targets/aarch64-qnx`, `cuda-safe` | `cargo +nightly check -Zbuild-std --target aarch64-unknown-nto-qnx710 --lib` | not yet |
//! | anything else (macOS, …) | no NVIDIA driver exists there | — | — |
//!
//! The API is the same on every platform: `ffi/` uses only types whose width is the same on
//! each (`int`, `unsigned int`, `size_t`, `unsigned long long`; never `long`), and `CUDAAPI`'s
//! `__stdcall` is ignored on 64-bit targets. Where the driver is not found, the build is the
//! *GPU-less* one on every platform: it warns once, sets `cfg(custack_no_libcuda)`, and every
//! driver call returns `CUDA_ERROR_NO_DEVICE` with a hint that says what to install or set, so
//! a program still builds and starts and says in one line that it did no GPU work.
//!
//! # Cross builds
//!
//! `build.rs` searches for the *target*'s library (`CARGO_CFG_TARGET_OS`,
//! `CARGO_CFG_TARGET_ARCH`), never the build machine's:
//!
//! - **aarch64 Linux from x86_64.** Point `CUSTACK_SYSROOT` at the target's root file system (a
//!   copy of the Jetson's `/`, or the L4T sample rootfs): the driver directories and
//!   `/usr/local/cuda` are searched inside it. Or set `CUDA_DRIVER_LIB_DIR` to the directory
//!   holding the target's `libcuda.so.1`. Without either, only directories that hold aarch64
//!   libraries on the build machine are searched (Debian's `/usr/lib/aarch64-linux-gnu`, the
//!   toolkit's `targets/sbsa-linux/lib` of NVIDIA's cross packages); a `libcuda` whose ELF header
//!   names another architecture is skipped wherever it is, and `ldconfig` is never asked.
//! - **Windows.** `raw-dylib` needs no file at build time, so a cross build links `nvcuda.dll`
//!   when told to: `CUSTACK_REQUIRE_LIBCUDA=1` (or `CUSTACK_SYSROOT` naming a Windows tree whose
//!   `Windows/System32` holds the driver). Without it, a build that finds no driver is the
//!   GPU-less one. The Rust target's linker (MSVC's `link.exe`, or mingw-w64's gcc) is all the
//!   build needs; no `LoadLibrary` ever runs.
//! - **QNX (DRIVE OS).** `CUSTACK_SYSROOT` names the DRIVE OS QNX target tree
//!   (`/usr/libnvidia` is searched in it), or `CUDA_DRIVER_LIB_DIR` the directory of
//!   `libcuda.so`. What CI cannot check: `aarch64-unknown-nto-qnx710` is a tier-3 target (std
//!   is built with `-Zbuild-std` on nightly), and linking needs the QNX SDP's `qcc`/`ntoaarch64`
//!   toolchain (set as the target's linker) and the DRIVE OS libraries, both licensed, so the
//!   test command only type-checks the library for it. Running needs a DRIVE board.
//!
//! # Linux-only parts
//!
//! The library itself uses nothing Linux-specific. Around it:
//!
//! - Interprocess memory handles ([`IpcMemHandle`](crate::IpcMemHandle)) are portable
//!   bytes; the driver supports them on Linux, and on Windows only for compatibility (NVIDIA
//!   does not recommend it there; it returns an error where unsupported).
//! - `tests/symbols.rs` (every linked entry point exists in the driver, read with `dlopen`) is
//!   Linux-only, and so are the checking driver (`checkdriver`, a `libcuda.so` double) and the
//!   benchmark that looks its counters up with `dlsym`.
//!
//! # Integrated GPUs (Jetson)
//!
//! On a Jetson the GPU is part of the system on a chip: [`DeviceAttribute::Integrated`](crate::DeviceAttribute::Integrated)
//! is 1, and the GPU and the CPU share one DRAM. What differs from a discrete GPU:
//!
//! - **No peer access.** There is one GPU; [`Device::can_access_peer`](crate::Device::can_access_peer)
//!   has no other device to answer for, and the multi-GPU examples have nothing to do.
//! - **Page-locked host memory is the same DRAM as device memory.** A copy between a
//!   [`PinnedBuffer`](crate::PinnedBuffer) and a [`DeviceBuffer`](crate::DeviceBuffer) moves
//!   bytes within that DRAM: correct, but work a discrete GPU needs and an integrated one does
//!   not. NVIDIA's *CUDA for Tegra* application note describes how the CPU caches each kind of
//!   memory there.
//! - **Managed memory needs no migration.** Both sides address the same pages, so
//!   [`alloc_managed`](crate::PushedGuard::alloc_managed) memory is used in place and a
//!   prefetch has nothing to move. custack allocates managed memory only where the device
//!   reports [`ConcurrentManagedAccess`](crate::DeviceAttribute::ConcurrentManagedAccess) (the
//!   host may touch managed memory while other kernels run); check it on your board, since
//!   Tegra devices have reported 0, and then `alloc_managed` returns `CUDA_ERROR_NOT_SUPPORTED`.
//! - **Zero-copy mapped host memory** (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP`,
//!   `cuMemHostGetDevicePointer`) is the usual way to share buffers without copies on Jetson.
//!   custack does not lend page-locked memory to kernels yet: a `PinnedBuffer` is host memory
//!   to every operation. Managed memory is the copy-free path custack offers today.
//!
//! `examples/16_integrated_memory.rs` takes the path the device asks for: on an integrated GPU
//! with concurrent managed access it adds two vectors in managed memory without a copy; on a
//! discrete GPU (and an integrated one without concurrent managed access) with explicit copies,
//! and it prints which path it took and why.
//!
//! ```no_run
//! use custack::{DeviceAttribute, Driver};
//! let device = Driver::init()?.device(0)?;
//! if device.attribute(DeviceAttribute::Integrated)? != 0 {
//!     println!("integrated: host and device share DRAM; prefer memory both address");
//! } else {
//!     println!("discrete: copy between page-locked host memory and device memory");
//! }
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # References
//!
//! - <https://docs.nvidia.com/cuda/cuda-for-tegra-appnote/index.html>
//! - <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
