//! Mirrors cuFFT's `cufft.h` (cuFFT 11.0 of CUDA 12.2 and 12.0 of CUDA 13 alike): the plan
//! handle, the complex element types, the enums the safe layer passes, and the entry points
//! `custack::fft` calls, in header order.
//!
//! Only symbols exported by both `libcufft.so.11` (CUDA 12.2) and `libcufft.so.12` (CUDA 13)
//! are declared (checked with `nm -D`). No `#[link]`: with the cargo feature `cufft`, `build.rs`
//! links the library into the crate. Where it found none (`cfg(custack_no_cufft)`), the same
//! names are functions that return `CUFFT_SETUP_FAILED` without touching their arguments, so the
//! crate builds and `custack::fft` says at run time what to install.
//!
//! `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles.

use super::types::CUstream;
use core::ffi::{c_int, c_longlong, c_void};

/// `cufftHandle`: a plan, an integer cuFFT hands out.
pub type cufftHandle = c_int;

/// `cufftResult`: the status every cuFFT entry point returns.
///
/// A newtype, not an enum: a newer cuFFT may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct cufftResult(pub c_int);

impl cufftResult {
    /// `CUFFT_SUCCESS` (0).
    pub const CUFFT_SUCCESS: Self = Self(0);
    /// `CUFFT_INVALID_PLAN` (1).
    pub const CUFFT_INVALID_PLAN: Self = Self(1);
    /// `CUFFT_ALLOC_FAILED` (2).
    pub const CUFFT_ALLOC_FAILED: Self = Self(2);
    /// `CUFFT_INVALID_TYPE` (3).
    pub const CUFFT_INVALID_TYPE: Self = Self(3);
    /// `CUFFT_INVALID_VALUE` (4).
    pub const CUFFT_INVALID_VALUE: Self = Self(4);
    /// `CUFFT_INTERNAL_ERROR` (5).
    pub const CUFFT_INTERNAL_ERROR: Self = Self(5);
    /// `CUFFT_EXEC_FAILED` (6).
    pub const CUFFT_EXEC_FAILED: Self = Self(6);
    /// `CUFFT_SETUP_FAILED` (7).
    pub const CUFFT_SETUP_FAILED: Self = Self(7);
    /// `CUFFT_INVALID_SIZE` (8).
    pub const CUFFT_INVALID_SIZE: Self = Self(8);
    /// `CUFFT_UNALIGNED_DATA` (9).
    pub const CUFFT_UNALIGNED_DATA: Self = Self(9);
    /// `CUFFT_INCOMPLETE_PARAMETER_LIST` (10; cuFFT 11).
    pub const CUFFT_INCOMPLETE_PARAMETER_LIST: Self = Self(10);
    /// `CUFFT_INVALID_DEVICE` (11).
    pub const CUFFT_INVALID_DEVICE: Self = Self(11);
    /// `CUFFT_PARSE_ERROR` (12; cuFFT 11).
    pub const CUFFT_PARSE_ERROR: Self = Self(12);
    /// `CUFFT_NO_WORKSPACE` (13).
    pub const CUFFT_NO_WORKSPACE: Self = Self(13);
    /// `CUFFT_NOT_IMPLEMENTED` (14).
    pub const CUFFT_NOT_IMPLEMENTED: Self = Self(14);
    /// `CUFFT_LICENSE_ERROR` (15; cuFFT 11).
    pub const CUFFT_LICENSE_ERROR: Self = Self(15);
    /// `CUFFT_NOT_SUPPORTED` (16).
    pub const CUFFT_NOT_SUPPORTED: Self = Self(16);
    /// `CUFFT_MISSING_DEPENDENCY` (17; cuFFT 12).
    pub const CUFFT_MISSING_DEPENDENCY: Self = Self(17);
    /// `CUFFT_NVRTC_FAILURE` (18; cuFFT 12).
    pub const CUFFT_NVRTC_FAILURE: Self = Self(18);
    /// `CUFFT_NVJITLINK_FAILURE` (19; cuFFT 12).
    pub const CUFFT_NVJITLINK_FAILURE: Self = Self(19);
    /// `CUFFT_NVSHMEM_FAILURE` (20; cuFFT 12).
    pub const CUFFT_NVSHMEM_FAILURE: Self = Self(20);
}

/// `cufftType`: what a plan transforms.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cufftType(pub c_int);

impl cufftType {
    /// `CUFFT_R2C` (0x2a): real to complex, single precision.
    pub const CUFFT_R2C: Self = Self(0x2a);
    /// `CUFFT_C2R` (0x2c): complex to real, single precision.
    pub const CUFFT_C2R: Self = Self(0x2c);
    /// `CUFFT_C2C` (0x29): complex to complex, single precision.
    pub const CUFFT_C2C: Self = Self(0x29);
    /// `CUFFT_D2Z` (0x6a): real to complex, double precision.
    pub const CUFFT_D2Z: Self = Self(0x6a);
    /// `CUFFT_Z2D` (0x6c): complex to real, double precision.
    pub const CUFFT_Z2D: Self = Self(0x6c);
    /// `CUFFT_Z2Z` (0x69): complex to complex, double precision.
    pub const CUFFT_Z2Z: Self = Self(0x69);
}

/// `CUFFT_FORWARD`: the sign of the exponent of a forward transform.
pub const CUFFT_FORWARD: c_int = -1;
/// `CUFFT_INVERSE`: the sign of the exponent of an inverse transform.
pub const CUFFT_INVERSE: c_int = 1;

/// `cufftComplex` (`float2`): a single-precision complex number, 8-byte aligned as CUDA's
/// `float2` is.
#[repr(C, align(8))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cufftComplex {
    /// `x`: the real part.
    pub x: f32,
    /// `y`: the imaginary part.
    pub y: f32,
}

/// `cufftDoubleComplex` (`double2`): a double-precision complex number, 16-byte aligned as
/// CUDA's `double2` is.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct cufftDoubleComplex {
    /// `x`: the real part.
    pub x: f64,
    /// `y`: the imaginary part.
    pub y: f64,
}

const _: () = assert!(size_of::<cufftComplex>() == 8 && align_of::<cufftComplex>() == 8);
const _: () =
    assert!(size_of::<cufftDoubleComplex>() == 16 && align_of::<cufftDoubleComplex>() == 16);

link_or_stub! {
    missing: custack_no_cufft => cufftResult::CUFFT_SETUP_FAILED;
    /// Makes a plan handle, to be made into a plan by `cufftMakePlan*`.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftcreate>
    pub fn cufftCreate(handle: *mut cufftHandle) -> cufftResult;
    /// Makes a plan of any rank, batch and data layout, with 64-bit sizes; reports the size of
    /// the work area it needs.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftmakeplanmany64>
    pub fn cufftMakePlanMany64(
        plan: cufftHandle,
        rank: c_int,
        n: *mut c_longlong,
        inembed: *mut c_longlong,
        istride: c_longlong,
        idist: c_longlong,
        onembed: *mut c_longlong,
        ostride: c_longlong,
        odist: c_longlong,
        type_: cufftType,
        batch: c_longlong,
        workSize: *mut usize,
    ) -> cufftResult;
    /// Whether cuFFT allocates the plan's work area itself (1, the default) or the caller
    /// provides it (0); set before the plan is made.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftsetautoallocation>
    pub fn cufftSetAutoAllocation(plan: cufftHandle, autoAllocate: c_int) -> cufftResult;
    /// Gives the plan the work area its executions use.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftsetworkarea>
    pub fn cufftSetWorkArea(plan: cufftHandle, workArea: *mut c_void) -> cufftResult;
    /// A complex-to-complex transform, single precision.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2c-and-cufftexecz2z>
    pub fn cufftExecC2C(
        plan: cufftHandle,
        idata: *mut cufftComplex,
        odata: *mut cufftComplex,
        direction: c_int,
    ) -> cufftResult;
    /// A real-to-complex transform, single precision.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecr2c-and-cufftexecd2z>
    pub fn cufftExecR2C(
        plan: cufftHandle,
        idata: *mut f32,
        odata: *mut cufftComplex,
    ) -> cufftResult;
    /// A complex-to-real transform, single precision (it may overwrite its input).
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2r-and-cufftexecz2d>
    pub fn cufftExecC2R(
        plan: cufftHandle,
        idata: *mut cufftComplex,
        odata: *mut f32,
    ) -> cufftResult;
    /// A complex-to-complex transform, double precision.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2c-and-cufftexecz2z>
    pub fn cufftExecZ2Z(
        plan: cufftHandle,
        idata: *mut cufftDoubleComplex,
        odata: *mut cufftDoubleComplex,
        direction: c_int,
    ) -> cufftResult;
    /// A real-to-complex transform, double precision.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecr2c-and-cufftexecd2z>
    pub fn cufftExecD2Z(
        plan: cufftHandle,
        idata: *mut f64,
        odata: *mut cufftDoubleComplex,
    ) -> cufftResult;
    /// A complex-to-real transform, double precision (it may overwrite its input).
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2r-and-cufftexecz2d>
    pub fn cufftExecZ2D(
        plan: cufftHandle,
        idata: *mut cufftDoubleComplex,
        odata: *mut f64,
    ) -> cufftResult;
    /// Sets the stream the plan's later executions run on.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftsetstream>
    pub fn cufftSetStream(plan: cufftHandle, stream: CUstream) -> cufftResult;
    /// Destroys a plan and frees what cuFFT allocated for it.
    /// <https://docs.nvidia.com/cuda/cufft/#cufftdestroy>
    pub fn cufftDestroy(plan: cufftHandle) -> cufftResult;
    /// The cuFFT version (e.g. 12000 for 12.0.0).
    /// <https://docs.nvidia.com/cuda/cufft/#cufftgetversion>
    pub fn cufftGetVersion(version: *mut c_int) -> cufftResult;
}
