//! cuBLASLt under the guard (cargo feature `cublaslt`, which turns `cublas` on): a [`BlasLt`]
//! handle lent by a [`PushedGuard`], matmuls with their layouts, transposes, batch and epilogue
//! (bias, ReLU, GELU) described in checked types ([`Matmul`], [`Epilogue`]), prepared once as a
//! [`MatmulPlan`] and run on device memory bound to a [`StreamScope`].
//!
//! # The handle and its plans
//!
//! [`PushedGuard::blas_lt`] creates a cuBLASLt handle (`cublasLtCreate`) with a workspace of its
//! own (32 MiB from compute capability 9.0 on, 4 MiB before, as `Blas`'s;
//! [`PushedGuard::blas_lt_with_workspace`] takes another size). [`BlasLt<'g>`](BlasLt) borrows
//! the guard, so the compiler refuses (C25) a handle used after its guard popped, while another
//! context is pushed on top, or on another thread (`!Send`, `!Sync`).
//!
//! [`BlasLt::matmul_plan`] prepares a matmul once: its descriptor (`f32` arithmetic and
//! scalars, `CUBLAS_COMPUTE_32F`, or TF32 tensor cores for `f32` inputs with
//! [`Matmul::fast_tf32`]), the layouts of `A`, `B`, `C` and `D` (and the batch), and the
//! algorithm cuBLASLt's heuristic chooses for the workspace the handle actually owns
//! (`CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES`); an algorithm that would need more is refused.
//! The plan borrows the handle. Its runs only check the bound buffers and call
//! `cublasLtMatmul`: no descriptor, allocation or heuristic per run, so a repeated matmul costs
//! what the raw call costs.
//!
//! The element types are those of cuBLASLt's `CUBLAS_COMPUTE_32F` table, as traits: inputs
//! ([`MatmulInput`]) `f32`, [`F16`](crate::blas::F16) or [`Bf16`](crate::blas::Bf16), outputs
//! ([`MatmulOutput`]) `f32` or the input's own 16-bit type; any other combination fails to
//! compile. The bias and the auxiliary matrix are of the output's type.
//!
//! # Runs
//!
//! [`MatmulPlan::run`] takes the scope, `A` and `B` ([`ScopedRead`]), `C` ([`ScopedRead`]) and
//! `D` ([`ScopedWrite`]); [`MatmulPlan::run_in_place`] one exclusive binding as both `C` and `D`.
//! The epilogue's buffers come last, as what the epilogue takes: `()`, a [`Bias`] vector (read),
//! an [`Aux`] matrix (written: GELU's input, for the backward pass), or [`BiasAux`]. A
//! read-only binding where cuBLASLt writes fails to compile.
//!
//! Before anything is enqueued, every dimension, leading dimension, stride and batch count is
//! checked as cuBLAS's are (a batch's `D`s may not share an element), the bound buffers
//! against their extents (the bias holds `m` elements; the auxiliary matrix's leading
//! dimension is a multiple of 8, at least `m`, as cuBLASLt requires), that the epilogue's
//! buffers are the ones it takes, and that `A`, `B`, `C`, `D`, the bias and the auxiliary
//! matrix start on 256-byte boundaries: the plan's algorithm is chosen for that alignment
//! (cuBLASLt's default for the matrices, stated explicitly as a preference; for the bias and
//! the auxiliary matrix, placeholder addresses on it, from which the heuristic takes their
//! alignment), which every allocation has; a view starting elsewhere is refused rather than
//! given to an algorithm that may not handle it. A refused call is
//! [`ErrorKind::BufferTooShort`], [`ErrorKind::InvalidValue`] or [`ErrorKind::SizeOverflow`]
//! naming the call and the argument (`cublasLtMatmul: bias holds 3 elements, the call needs 4;
//! nothing was enqueued`); cuBLASLt's statuses are cuBLAS's `Cublas…` kinds.
//!
//! # Workspace and streams
//!
//! cuBLASLt takes the stream and the workspace with each call. The handle's matmuls share its
//! workspace, so they run one after another on the GPU, whatever streams they are on, as
//! cuBLAS's calls do ([`crate::blas`]): on one stream they are ordered by the stream (no extra
//! driver call); on another, a matmul first waits, on the GPU, for all work enqueued so far in
//! the context. Dropping the handle synchronizes the context (if it ran anything) before
//! freeing the workspace, so it may be dropped while its work is pending; its plans borrow it,
//! so they are gone by then. Matmuls inside a graph capture are refused.
//!
//! # Without cuBLASLt
//!
//! With the feature on but no cuBLASLt found at build time (`build.rs` warns), the crate still
//! builds and [`PushedGuard::blas_lt`] returns [`ErrorKind::LibraryNotLinked`] saying what to
//! set: `CUSTACK_CUBLASLT_LIB_DIR` (the directory holding `libcublasLt.so.13` or `.12`), or
//! install the `nvidia-cublas` Python wheel (which holds it) or the CUDA toolkit.
//!
//! # Examples
//!
//! `D = ReLU(W·X + b)` for a layer of 2 outputs and 3 inputs, one sample, checked on the host:
//!
//! ```no_run
//! use custack::blas::Gemm;
//! use custack::blaslt::{Bias, Epilogue, Matmul};
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let lt = guard.blas_lt()?;
//! let layer = lt.matmul_plan::<f32, f32>(
//!     &Matmul::new(Gemm::new(2, 1, 3)).epilogue(Epilogue::ReluBias),
//! )?;
//! let w = guard.alloc_from(&[1.0f32, -1.0, 2.0, -2.0, 3.0, -3.0])?; // 2 × 3, column-major
//! let x = guard.alloc_from(&[1.0f32, 1.0, 1.0])?;
//! let b = guard.alloc_from(&[0.5f32, 0.5])?;
//! let mut y = guard.alloc_zeroed::<f32>(2)?;
//! guard.stream()?.scope(|s| {
//!     layer.run_in_place(s, s.bind(&w), s.bind(&x), s.bind_mut(&mut y), Bias(s.bind(&b)))
//! })??;
//! assert_eq!(y.to_vec()?, [6.5, 0.0]); // ReLU(6 + 0.5), ReLU(-6 + 0.5)
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/cublas/#using-the-cublaslt-api>

// The files, bottom to top: each uses only files listed before it.
// - `types`: the element types of a matmul (`MatmulInput`, `MatmulOutput`), sealed;
// - `matmul`: the description (`Matmul`, `Epilogue`);
// - `check`: a plan's parameters and extents, and the checks every run makes;
// - `handle`: `BlasLt`, its creation, workspace, order and destruction;
// - `plan`: `MatmulPlan`, its descriptors, algorithm and runs, and the epilogue's buffers.
mod check;
mod handle;
mod matmul;
mod plan;
mod types;

pub use handle::{BlasLt, version};
pub use matmul::{Epilogue, Matmul};
pub use plan::{Aux, Bias, BiasAux, Extras, MatmulPlan};
pub use types::{MatmulInput, MatmulOutput};

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::context::stack::PushedGuard;
#[cfg(doc)]
use crate::error::ErrorKind;
#[cfg(doc)]
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
