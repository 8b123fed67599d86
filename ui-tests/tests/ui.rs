//! Compile-fail tests: every compile-time row of `docs/invariants.md` whose capability exists
//! has at least one program in `ui-tests/` that must not compile, with the compiler's message
//! checked in beside it.
//!
//! This is the test of the crate `custack-ui-tests` (`ui-tests/Cargo.toml`), not of custack:
//! trybuild is this crate's dev-dependency, so custack's examples (the README's first command)
//! do not build it. Its paths are relative to `ui-tests/`, this crate's directory.
//!
//! The `.stderr` files are pinned to the toolchain CI uses, rustc 1.95.0 stable: another
//! compiler may word or place its messages differently. To regenerate them, run
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p custack-ui-tests --test ui
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
    trybuild::TestCases::new().compile_fail("*.rs");
}

/// C26 through the facade crate custack-safety (`ui-tests/facade/`): each program names, through
/// `custack_safety::`, one way out of the safety subset, and each is an unresolved name. Without
/// any of custack's features (they add modules to custack, never to the facade, but may change
/// the compiler's suggestions): `cargo test -p custack-ui-tests --test ui ui_facade`.
#[cfg(not(any(
    feature = "nvrtc",
    feature = "cublas",
    feature = "nccl",
    feature = "cufft",
    feature = "curand",
    feature = "cublaslt",
    feature = "cusparse",
    feature = "cudnn",
    feature = "cusolver"
)))]
#[test]
fn ui_facade() {
    trybuild::TestCases::new().compile_fail("facade/*.rs");
}

/// C25 for NVRTC-compiled modules (`ui-tests/nvrtc/`), with the feature `nvrtc` (which
/// `scripts/test.sh` turns on with the NVRTC it fetches):
/// `cargo test -p custack-ui-tests --features nvrtc --test ui ui_nvrtc`.
#[cfg(feature = "nvrtc")]
#[test]
fn ui_nvrtc() {
    trybuild::TestCases::new().compile_fail("nvrtc/*.rs");
}

/// C25 for `custack::blas` (feature `cublas`, `ui-tests/cublas/`). Run, or regenerate, with
/// `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features cublas --test ui ui_cublas`.
#[cfg(feature = "cublas")]
#[test]
fn ui_cublas() {
    trybuild::TestCases::new().compile_fail("cublas/*.rs");
}

/// C25 for `custack::nccl` (feature `nccl`, `ui-tests/nccl/`). Run, or regenerate, with
/// `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features nccl --test ui ui_nccl`.
#[cfg(feature = "nccl")]
#[test]
fn ui_nccl() {
    trybuild::TestCases::new().compile_fail("nccl/*.rs");
}

/// C25 for `custack::rand` (feature `curand`, `ui-tests/curand/`). Run, or regenerate, with
/// `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features curand --test ui ui_curand`.
#[cfg(feature = "curand")]
#[test]
fn ui_curand() {
    trybuild::TestCases::new().compile_fail("curand/*.rs");
}

/// C25 for `custack::fft` (feature `cufft`, `ui-tests/cufft/`). Run, or regenerate, with
/// `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features cufft --test ui ui_cufft`.
#[cfg(feature = "cufft")]
#[test]
fn ui_cufft() {
    trybuild::TestCases::new().compile_fail("cufft/*.rs");
}

/// C35 for `custack::sparse` (feature `cusparse`, `ui-tests/cusparse/`). Run, or regenerate,
/// with `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features cusparse --test ui
/// ui_cusparse`.
#[cfg(feature = "cusparse")]
#[test]
fn ui_cusparse() {
    trybuild::TestCases::new().compile_fail("cusparse/*.rs");
}

/// C25 for `custack::blaslt` (feature `cublaslt`, `ui-tests/cublaslt/`). Run, or regenerate, with
/// `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features cublaslt --test ui ui_cublaslt`.
#[cfg(feature = "cublaslt")]
#[test]
fn ui_cublaslt() {
    trybuild::TestCases::new().compile_fail("cublaslt/*.rs");
}

/// C36 for `custack::dnn` (feature `cudnn`, `ui-tests/cudnn/`). Run, or regenerate, with
/// `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features cudnn --test ui ui_cudnn`.
#[cfg(feature = "cudnn")]
#[test]
fn ui_cudnn() {
    trybuild::TestCases::new().compile_fail("cudnn/*.rs");
}

/// C34 for `custack::solver` (feature `cusolver`, `ui-tests/cusolver/`): the info word read
/// inside its scope or shared by two calls, a factored matrix bound read-only or to another
/// stream's scope, a plan used after the pop, an info sent to another thread. Run, or
/// regenerate, with
/// `[TRYBUILD=overwrite] cargo test -p custack-ui-tests --features cusolver --test ui ui_cusolver`.
#[cfg(feature = "cusolver")]
#[test]
fn ui_cusolver() {
    trybuild::TestCases::new().compile_fail("cusolver/*.rs");
}
