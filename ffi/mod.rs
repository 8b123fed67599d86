//! The raw layer: hand-declared mirrors of `cuda.h`, one module per driver-API group, types first.
//!
//! Nothing here holds logic. Every entry point is bound to the symbol the driver *exports*
//! (`cuCtxPushCurrent_v2`, not `cuCtxPushCurrent`: `cuda.h` `#define`s the unversioned names to
//! these), and every symbol is exported by both driver 535 and driver 580; `tests/symbols.rs`
//! checks that against the linked library. `build.rs` links libcuda; the one `#[link]`
//! attribute, `link(name = "nvcuda", kind = "raw-dylib")` in `link_or_stub!`, applies only on
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
//! Each group declares its entry points through `link_or_stub!`: an `unsafe extern "C"` block
//! where `build.rs` found libcuda. Where it found none (`cfg(custack_no_libcuda)`: a machine
//! without the NVIDIA driver), the same declarations become functions that return
//! `CUDA_ERROR_NO_DEVICE` without touching their arguments, so every program links and runs,
//! and says that it has no GPU, instead of failing to link. Nothing is loaded at run time.
//! The libraries (`nvrtc`, `cublas`, `cublaslt`, `cufft`, `curand`, `nccl`, and the driver's
//! `nvml`) declare theirs
//! through the same macro, each under its own cfg.
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

/// Declares a library's entry points, in one of two builds chosen by a cfg that `build.rs` sets:
///
/// - the library was found (the cfg is unset): an `unsafe extern "C"` block, bound to the
///   exported symbols of the names as written;
/// - it was not (`cfg(custack_no_libcuda)`, `cfg(custack_no_nvrtc)`, `cfg(custack_no_cublas)`, …,
///   `cfg(custack_no_nccl)`): the same names, signatures and docs as `unsafe extern "C"`
///   functions that return the stub value without touching their arguments, so every program
///   links and runs, and the safe layer says at run time what to install.
///
/// ```text
/// link_or_stub! {
///     missing: custack_no_cublas => cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
///     /// <NVIDIA link>
///     pub fn cublasCreate_v2(handle: *mut cublasHandle_t) -> cublasStatus_t;
///     /// <NVIDIA link>
///     pub fn cublasGetStatusName(status: cublasStatus_t) -> *const c_char = NOT_LINKED;
/// }
/// ```
///
/// The header names the cfg of the build without the library and what its stubs return; a
/// declaration's own `= value` overrides that (an entry point that returns no status).
/// `libcuda;` is the header of the driver's groups: `missing: custack_no_libcuda =>
/// CUDA_ERROR_NO_DEVICE`, plus `link(name = "nvcuda", kind = "raw-dylib")` on Windows where
/// `build.rs` set `cfg(custack_nvcuda_raw_dylib)`.
macro_rules! link_or_stub {
    (libcuda; $($decls:tt)*) => {
        link_or_stub! {
            #[cfg_attr(custack_nvcuda_raw_dylib, link(name = "nvcuda", kind = "raw-dylib"))]
            missing: custack_no_libcuda => $crate::ffi::types::CUresult::CUDA_ERROR_NO_DEVICE;
            $($decls)*
        }
    };
    (@stub $default:expr) => { $default };
    (@stub $default:expr, $stub:expr) => { $stub };
    (
        $(#[$link:meta])*
        missing: $missing:ident => $default:expr;
        $(
            $(#[$attr:meta])*
            pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $(= $stub:expr)?;
        )*
    ) => {
        #[cfg(not($missing))]
        $(#[$link])*
        unsafe extern "C" {
            $($(#[$attr])* pub fn $name($($arg: $ty),*) -> $ret;)*
        }
        $(
            #[cfg($missing)]
            $(#[$attr])*
            #[allow(unused_variables, clippy::missing_safety_doc)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
                link_or_stub!(@stub $default $(, $stub)?)
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
mod tensor_map;
pub use tensor_map::*;
mod occupancy;
pub use occupancy::*;
mod graph;
pub use graph::*;
mod external;
pub use external::*;
mod entry_point;
pub use entry_point::*;
/// cuBLAS's C API (`cublas_api.h`, the `_v2` names), with the feature `cublas`.
#[cfg(feature = "cublas")]
pub mod cublas;
/// cuBLASLt's C API (`cublasLt.h`), with the feature `cublaslt`.
#[cfg(feature = "cublaslt")]
pub mod cublaslt;
/// cuDNN 9's legacy convolution API (`cudnn_ops.h`, `cudnn_cnn.h`), with the feature `cudnn`.
#[cfg(feature = "cudnn")]
pub mod cudnn;
/// cuFFT's C API (`cufft.h`), with the feature `cufft`.
#[cfg(feature = "cufft")]
pub mod cufft;
/// cuRAND's host API (`curand.h`), with the feature `curand`.
#[cfg(feature = "curand")]
pub mod curand;
/// cuSOLVER's dense API (`cusolverDn.h`), with the feature `cusolver`.
#[cfg(feature = "cusolver")]
pub mod cusolver;
/// cuSPARSE's generic API (`cusparse.h`), with the feature `cusparse`.
#[cfg(feature = "cusparse")]
pub mod cusparse;
/// NCCL's C API (`nccl.h`), with the feature `nccl`.
#[cfg(feature = "nccl")]
pub mod nccl;
/// NVML's C API (`nvml.h`, the driver's `libnvidia-ml`), with the feature `nvml`.
#[cfg(feature = "nvml")]
pub mod nvml;
/// NVRTC's C API (`nvrtc.h`), with the feature `nvrtc`.
#[cfg(feature = "nvrtc")]
pub mod nvrtc;
