//! Mirrors cuRAND's host API, `curand.h` (cuRAND 10.3 of CUDA 12.2 and 10.4 of CUDA 13 alike):
//! the generator, the enums the safe layer passes, and the entry points `custack::rand` calls,
//! in header order.
//!
//! Only symbols exported by both `libcurand.so.10` of CUDA 12.2 and of CUDA 13 are declared
//! (checked with `nm -D`: the two export the same 27 entry points). No `#[link]`: with the
//! cargo feature `curand`, `build.rs` links the library into the crate. Where it found none
//! (`cfg(custack_no_curand)`), the same names are functions that return
//! `CURAND_STATUS_NOT_INITIALIZED` without touching their arguments, so the crate builds and
//! `custack::rand` says at run time what to install.
//!
//! `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles.

use super::types::CUstream;
use core::ffi::{c_int, c_uint, c_ulonglong};
use core::marker::{PhantomData, PhantomPinned};

/// `struct curandGenerator_st`: opaque.
#[repr(C)]
pub struct curandGenerator_st {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `curandGenerator_t`: a generator and its state: on the device, bound to the CUDA context
/// current at creation, for a generator made by `curandCreateGenerator`; in host memory for one
/// made by `curandCreateGeneratorHost`.
pub type curandGenerator_t = *mut curandGenerator_st;

/// `curandStatus_t`: the status every cuRAND entry point returns.
///
/// A newtype, not an enum: a newer cuRAND may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct curandStatus_t(pub c_int);

impl curandStatus_t {
    /// `CURAND_STATUS_SUCCESS` (0).
    pub const CURAND_STATUS_SUCCESS: Self = Self(0);
    /// `CURAND_STATUS_VERSION_MISMATCH` (100).
    pub const CURAND_STATUS_VERSION_MISMATCH: Self = Self(100);
    /// `CURAND_STATUS_NOT_INITIALIZED` (101).
    pub const CURAND_STATUS_NOT_INITIALIZED: Self = Self(101);
    /// `CURAND_STATUS_ALLOCATION_FAILED` (102).
    pub const CURAND_STATUS_ALLOCATION_FAILED: Self = Self(102);
    /// `CURAND_STATUS_TYPE_ERROR` (103).
    pub const CURAND_STATUS_TYPE_ERROR: Self = Self(103);
    /// `CURAND_STATUS_OUT_OF_RANGE` (104).
    pub const CURAND_STATUS_OUT_OF_RANGE: Self = Self(104);
    /// `CURAND_STATUS_LENGTH_NOT_MULTIPLE` (105).
    pub const CURAND_STATUS_LENGTH_NOT_MULTIPLE: Self = Self(105);
    /// `CURAND_STATUS_DOUBLE_PRECISION_REQUIRED` (106).
    pub const CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: Self = Self(106);
    /// `CURAND_STATUS_LAUNCH_FAILURE` (201).
    pub const CURAND_STATUS_LAUNCH_FAILURE: Self = Self(201);
    /// `CURAND_STATUS_PREEXISTING_FAILURE` (202).
    pub const CURAND_STATUS_PREEXISTING_FAILURE: Self = Self(202);
    /// `CURAND_STATUS_INITIALIZATION_FAILED` (203).
    pub const CURAND_STATUS_INITIALIZATION_FAILED: Self = Self(203);
    /// `CURAND_STATUS_ARCH_MISMATCH` (204).
    pub const CURAND_STATUS_ARCH_MISMATCH: Self = Self(204);
    /// `CURAND_STATUS_INTERNAL_ERROR` (999).
    pub const CURAND_STATUS_INTERNAL_ERROR: Self = Self(999);
}

/// `curandRngType_t`: the kind of generator.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct curandRngType_t(pub c_int);

impl curandRngType_t {
    /// `CURAND_RNG_PSEUDO_XORWOW` (101).
    pub const CURAND_RNG_PSEUDO_XORWOW: Self = Self(101);
    /// `CURAND_RNG_PSEUDO_MRG32K3A` (121).
    pub const CURAND_RNG_PSEUDO_MRG32K3A: Self = Self(121);
    /// `CURAND_RNG_PSEUDO_MTGP32` (141).
    pub const CURAND_RNG_PSEUDO_MTGP32: Self = Self(141);
    /// `CURAND_RNG_PSEUDO_MT19937` (142).
    pub const CURAND_RNG_PSEUDO_MT19937: Self = Self(142);
    /// `CURAND_RNG_PSEUDO_PHILOX4_32_10` (161).
    pub const CURAND_RNG_PSEUDO_PHILOX4_32_10: Self = Self(161);
    /// `CURAND_RNG_QUASI_SOBOL32` (201).
    pub const CURAND_RNG_QUASI_SOBOL32: Self = Self(201);
    /// `CURAND_RNG_QUASI_SCRAMBLED_SOBOL32` (202).
    pub const CURAND_RNG_QUASI_SCRAMBLED_SOBOL32: Self = Self(202);
    /// `CURAND_RNG_QUASI_SOBOL64` (203).
    pub const CURAND_RNG_QUASI_SOBOL64: Self = Self(203);
    /// `CURAND_RNG_QUASI_SCRAMBLED_SOBOL64` (204).
    pub const CURAND_RNG_QUASI_SCRAMBLED_SOBOL64: Self = Self(204);
}

/// `curandOrdering_t`: the order of a generator's results in memory.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct curandOrdering_t(pub c_int);

impl curandOrdering_t {
    /// `CURAND_ORDERING_PSEUDO_BEST` (100).
    pub const CURAND_ORDERING_PSEUDO_BEST: Self = Self(100);
    /// `CURAND_ORDERING_PSEUDO_DEFAULT` (101).
    pub const CURAND_ORDERING_PSEUDO_DEFAULT: Self = Self(101);
    /// `CURAND_ORDERING_PSEUDO_SEEDED` (102).
    pub const CURAND_ORDERING_PSEUDO_SEEDED: Self = Self(102);
    /// `CURAND_ORDERING_PSEUDO_LEGACY` (103).
    pub const CURAND_ORDERING_PSEUDO_LEGACY: Self = Self(103);
    /// `CURAND_ORDERING_PSEUDO_DYNAMIC` (104).
    pub const CURAND_ORDERING_PSEUDO_DYNAMIC: Self = Self(104);
    /// `CURAND_ORDERING_QUASI_DEFAULT` (201).
    pub const CURAND_ORDERING_QUASI_DEFAULT: Self = Self(201);
}

link_or_stub! {
    missing: custack_no_curand => curandStatus_t::CURAND_STATUS_NOT_INITIALIZED;
    /// Creates a generator whose numbers are made on the device, in the current context.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandCreateGenerator(
        generator: *mut curandGenerator_t,
        rng_type: curandRngType_t,
    ) -> curandStatus_t;
    /// Creates a generator whose numbers are made by the CPU, into host memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandCreateGeneratorHost(
        generator: *mut curandGenerator_t,
        rng_type: curandRngType_t,
    ) -> curandStatus_t;
    /// Destroys a generator and frees its state.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandDestroyGenerator(generator: curandGenerator_t) -> curandStatus_t;
    /// The cuRAND version (major·1000 + minor·100 + patch).
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGetVersion(version: *mut c_int) -> curandStatus_t;
    /// Sets the stream the generator's later kernels run on.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandSetStream(generator: curandGenerator_t, stream: CUstream) -> curandStatus_t;
    /// Sets the seed of a pseudo-random generator.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandSetPseudoRandomGeneratorSeed(
        generator: curandGenerator_t,
        seed: c_ulonglong,
    ) -> curandStatus_t;
    /// Sets the absolute offset of the generator's sequence.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandSetGeneratorOffset(
        generator: curandGenerator_t,
        offset: c_ulonglong,
    ) -> curandStatus_t;
    /// Sets the order of the generator's results in memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandSetGeneratorOrdering(
        generator: curandGenerator_t,
        order: curandOrdering_t,
    ) -> curandStatus_t;
    /// Sets the number of dimensions of a quasi-random generator (1 to 20,000).
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandSetQuasiRandomGeneratorDimensions(
        generator: curandGenerator_t,
        num_dimensions: c_uint,
    ) -> curandStatus_t;
    /// Writes `num` 32-bit values to device memory (to host memory for a host generator, as
    /// every generation below).
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerate(
        generator: curandGenerator_t,
        outputPtr: *mut c_uint,
        num: usize,
    ) -> curandStatus_t;
    /// Writes `num` 64-bit values to device memory (64-bit quasi-random generators only).
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerateLongLong(
        generator: curandGenerator_t,
        outputPtr: *mut c_ulonglong,
        num: usize,
    ) -> curandStatus_t;
    /// Writes `num` floats uniform in (0, 1] to device memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerateUniform(
        generator: curandGenerator_t,
        outputPtr: *mut f32,
        num: usize,
    ) -> curandStatus_t;
    /// Writes `num` doubles uniform in (0, 1] to device memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerateUniformDouble(
        generator: curandGenerator_t,
        outputPtr: *mut f64,
        num: usize,
    ) -> curandStatus_t;
    /// Writes `n` normally distributed floats to device memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerateNormal(
        generator: curandGenerator_t,
        outputPtr: *mut f32,
        n: usize,
        mean: f32,
        stddev: f32,
    ) -> curandStatus_t;
    /// Writes `n` normally distributed doubles to device memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerateNormalDouble(
        generator: curandGenerator_t,
        outputPtr: *mut f64,
        n: usize,
        mean: f64,
        stddev: f64,
    ) -> curandStatus_t;
    /// Writes `n` log-normally distributed floats to device memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerateLogNormal(
        generator: curandGenerator_t,
        outputPtr: *mut f32,
        n: usize,
        mean: f32,
        stddev: f32,
    ) -> curandStatus_t;
    /// Writes `n` log-normally distributed doubles to device memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGenerateLogNormalDouble(
        generator: curandGenerator_t,
        outputPtr: *mut f64,
        n: usize,
        mean: f64,
        stddev: f64,
    ) -> curandStatus_t;
    /// Writes `n` Poisson-distributed 32-bit values of mean `lambda` to device memory.
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    pub fn curandGeneratePoisson(
        generator: curandGenerator_t,
        outputPtr: *mut c_uint,
        n: usize,
        lambda: f64,
    ) -> curandStatus_t;
}
