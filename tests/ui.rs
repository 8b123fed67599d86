//! Compile-fail tests: every compile-time row of `docs/invariants.md` whose capability exists
//! has at least one program in `ui-tests/` that must not compile, with the compiler's message
//! checked in beside it.
//!
//! The `.stderr` files are pinned to the toolchain CI uses, rustc 1.95.0 stable: another
//! compiler may word or place its messages differently. To regenerate them, run
//!
//! ```text
//! TRYBUILD=overwrite cargo test --test ui
//! ```
//!
//! then review the diff (`git diff ui-tests/`): each message must still name the invariant's
//! error (a borrow error, `cannot be sent between threads safely`, `DeviceCopy` not
//! implemented, an unsafe call), not a typo or an unrelated type error. See
//! `ui-tests/README.md`.
//!
//! trybuild only runs `cargo check` on these programs, so this test needs neither a GPU nor the
//! CUDA driver library.

// Pinned to the default features: with `cublas`, `custack::blas::{F16, Bf16}` implement
// `DeviceCopy`, with `cufft` `custack::fft::{Complex32, Complex64}` do, and the compiler's lists
// of "other types that implement" it in several messages change. Run it without those
// features; `ui_cublas` and `ui_cufft` cover them.
#[cfg(not(any(feature = "cublas", feature = "cufft")))]
#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("ui-tests/*.rs");
}

/// C25 for NVRTC-compiled modules (`ui-tests/nvrtc/`), with the feature `nvrtc` (which
/// `scripts/test.sh` turns on with the NVRTC it fetches): `cargo test --features nvrtc --test ui`.
#[cfg(feature = "nvrtc")]
#[test]
fn ui_nvrtc() {
    trybuild::TestCases::new().compile_fail("ui-tests/nvrtc/*.rs");
}

/// C25 for `custack::blas` (cargo feature `cublas`): `cargo test --features cublas --test ui`.
/// Regenerate with `TRYBUILD=overwrite cargo test --features cublas --test ui ui_cublas`.
#[cfg(feature = "cublas")]
#[test]
fn ui_cublas() {
    trybuild::TestCases::new().compile_fail("ui-tests/cublas/*.rs");
}

/// C25 for `custack::nccl` (cargo feature `nccl`): `cargo test --features nccl --test ui`.
/// Regenerate with `TRYBUILD=overwrite cargo test --features nccl --test ui ui_nccl`.
#[cfg(feature = "nccl")]
#[test]
fn ui_nccl() {
    trybuild::TestCases::new().compile_fail("ui-tests/nccl/*.rs");
}

/// C25 for `custack::rand` (cargo feature `curand`): `cargo test --features curand --test ui`.
/// Regenerate with `TRYBUILD=overwrite cargo test --features curand --test ui ui_curand`.
#[cfg(feature = "curand")]
#[test]
fn ui_curand() {
    trybuild::TestCases::new().compile_fail("ui-tests/curand/*.rs");
}

/// C25 for `custack::fft` (cargo feature `cufft`): `cargo test --features cufft --test ui`.
/// Regenerate with `TRYBUILD=overwrite cargo test --features cufft --test ui ui_cufft`.
#[cfg(feature = "cufft")]
#[test]
fn ui_cufft() {
    trybuild::TestCases::new().compile_fail("ui-tests/cufft/*.rs");
}

/// C25 for `custack::blaslt` (cargo feature `cublaslt`): `cargo test --features cublaslt --test
/// ui`. Regenerate with `TRYBUILD=overwrite cargo test --features cublaslt --test ui ui_cublaslt`.
#[cfg(feature = "cublaslt")]
#[test]
fn ui_cublaslt() {
    trybuild::TestCases::new().compile_fail("ui-tests/cublaslt/*.rs");
}
