//! The raw layer: hand-declared mirrors of `cuda.h`, one module per driver-API group, types first.
//!
//! Nothing here holds logic. Every entry point is bound to the symbol the driver *exports*
//! (`cuCtxPushCurrent_v2`, not `cuCtxPushCurrent`: `cuda.h` `#define`s the unversioned names to
//! these), and every symbol is exported by both driver 535 and driver 580; `tests/symbols.rs`
//! checks that against the linked library. `build.rs` links libcuda; the one `#[link]`
//! attribute, `link(name = "nvcuda", kind = "raw-dylib")` in `driver_api!`, applies only on
//! Windows, where `build.rs` found the driver and set `cfg(custack_nvcuda_raw_dylib)`:
//! `raw-dylib` can be asked for only by an attribute, and it lets rustc write the import
//! library for `nvcuda.dll` itself, so no CUDA toolkit is needed to build (and no `LoadLibrary`
//! runs).
//!
//! The declarations are the same on every target: `cuda.h` uses only fixed-width types,
//! `int`/`unsigned int` (32 bits on Linux, QNX and Windows alike), `size_t` (`usize`) and
//! `unsigned long long`; never `long`, whose width differs on Windows. `CUDAAPI` is `__stdcall`
//! on Windows, which x86_64 and aarch64 ignore: `extern "C"` is the same convention there.
//!
//! Each group declares its entry points through `driver_api!`: an `unsafe extern "C"` block
//! where `build.rs` found libcuda. Where it found none (`cfg(custack_no_libcuda)`: a machine
//! without the NVIDIA driver), the same declarations become functions that return
//! `CUDA_ERROR_NO_DEVICE` without touching their arguments, so every program links and runs,
//! and says that it has no GPU, instead of failing to link. Nothing is loaded at run time.
//!
//! Entry points newer than driver 535 are not linked: `entry_point.rs` lists them as `PFN_*`
//! function-pointer types with the CUDA version that introduced each, and custack looks them up
//! with `cuGetProcAddress_v2` (linked) on first use.
//!
//! All functions are `unsafe`: each takes raw handles and pointers whose validity the caller
//! guarantees, as the linked NVIDIA documentation describes.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
#![allow(clippy::upper_case_acronyms)]
// The module docs name NVIDIA's doc groups (group__CUDA__CTX) as they are spelled in URLs.
#![allow(clippy::doc_markdown)]

/// Declares driver entry points (all return `CUresult`): linked from libcuda, or, in a build
/// without libcuda (`cfg(custack_no_libcuda)`), defined to return `CUDA_ERROR_NO_DEVICE`.
macro_rules! driver_api {
    ($($(#[$attr:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> CUresult;)*) => {
        #[cfg(not(custack_no_libcuda))]
        #[cfg_attr(custack_nvcuda_raw_dylib, link(name = "nvcuda", kind = "raw-dylib"))]
        unsafe extern "C" {
            $($(#[$attr])* pub fn $name($($arg: $ty),*) -> CUresult;)*
        }
        $(
            #[cfg(custack_no_libcuda)]
            $(#[$attr])*
            #[allow(unused_variables, clippy::missing_safety_doc)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> CUresult {
                CUresult::CUDA_ERROR_NO_DEVICE
            }
        )*
    };
}

mod types;
pub use types::*;

mod error;
pub use error::*;
mod init;
pub use init::*;
mod device;
pub use device::*;
mod primary_ctx;
pub use primary_ctx::*;
mod ctx;
pub use ctx::*;
mod module;
pub use module::*;
mod memory;
pub use memory::*;
mod stream;
pub use stream::*;
mod event;
pub use event::*;
mod launch;
pub use launch::*;
mod library;
pub use library::*;
mod texture;
pub use texture::*;
mod occupancy;
pub use occupancy::*;
mod graph;
pub use graph::*;
mod entry_point;
pub use entry_point::*;
/// cuBLAS's C API (`cublas_api.h`, the `_v2` names), with the feature `cublas`.
#[cfg(feature = "cublas")]
pub mod cublas;
/// NCCL's C API (`nccl.h`), with the feature `nccl`.
#[cfg(feature = "nccl")]
pub mod nccl;
/// NVRTC's C API (`nvrtc.h`), with the feature `nvrtc`.
#[cfg(feature = "nvrtc")]
pub mod nvrtc;
