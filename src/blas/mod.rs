//! cuBLAS under the guard (cargo feature `cublas`): a [`Blas`] handle lent by a
//! [`PushedGuard`], whose calls enqueue on a [`StreamScope`] with bound device memory, every
//! shape checked before anything is enqueued.
//!
//! # The handle
//!
//! [`PushedGuard::blas`] creates a cuBLAS handle (`cublasCreate_v2`) while the guard's context
//! is current; cuBLAS binds the handle to that context. [`Blas<'g>`](Blas) borrows the guard,
//! like the streams and buffers it lends, so the compiler refuses (C25) a handle used after its
//! guard popped, while another context is pushed on top, or on another thread (`!Send`,
//! `!Sync`). It is destroyed when dropped (errors recorded, see
//! [`take_drop_errors`](crate::take_drop_errors)) or by [`Blas::destroy`].
//!
//! # Calls
//!
//! Every call takes the [`StreamScope`] to enqueue on (the handle's stream is set to the
//! scope's stream when it is not already, `cublasSetStream_v2`) and device memory bound to that scope:
//! operands cuBLAS reads as [`ScopedRead`] (`s.bind(&x)`, `&s.bind_mut(&mut y)`, `&alloc`),
//! outputs as [`ScopedWrite`] (`s.bind_mut(&mut y)`, `&mut alloc`). A read-only binding
//! cannot be passed as an output: that fails to compile. The memory stays borrowed until the
//! scope has waited for its stream, so cuBLAS's kernels cannot outlive it.
//!
//! Scalars (`alpha`, `beta`) are passed by value and given to cuBLAS in host pointer mode,
//! which reads them before the call returns. Results of reductions ([`Blas::dot`],
//! [`Blas::nrm2`]) are written, in stream order, to a one-element device buffer bound to the
//! scope (device pointer mode), so no call blocks the host and all of them work in a scope or
//! a [`Submission`](crate::Submission).
//!
//! Before anything is enqueued, every dimension, increment, leading dimension, stride and batch
//! count is checked in checked `usize` arithmetic against the lengths of the bound buffers and
//! against the C types cuBLAS takes. A refused call returns an [`Error`] whose detail names the
//! call and the argument (`cublasSgemm_v2: lda 3 < m 4; nothing was enqueued`):
//! [`ErrorKind::BufferTooShort`], [`ErrorKind::InvalidValue`] (a leading dimension below its
//! minimum, an increment of 0, overlapping outputs of a batch) or [`ErrorKind::SizeOverflow`].
//! cuBLAS's own statuses are the `Cublas…` kinds ([`ErrorKind::CublasNotSupported`], …), whose
//! detail names the call. No cuBLAS status is sticky: the handle and the context stay usable.
//!
//! # Column-major
//!
//! cuBLAS is column-major, and so is this module: an `m × n` matrix `A` with leading dimension
//! `lda ≥ m` holds element `(i, j)` at `a[i + j·lda]`. A row-major matrix read column-major is
//! its transpose, so a row-major product `C = A·B` (`A` is `m × k`, `B` is `k × n`) is the
//! column-major `Cᵀ = Bᵀ·Aᵀ`: call [`Blas::gemm`] with `Gemm::new(n, m, k)` and the operands
//! swapped (`b` first). The example below does exactly that.
//!
//! # Workspace and streams
//!
//! Each handle owns a device buffer that it gives cuBLAS as its workspace
//! (`cublasSetWorkspace_v2`, again for each call, since setting the stream resets it): 32 MiB on
//! devices of compute capability 9.0 and newer, 4 MiB before, the sizes cuBLAS's documentation
//! of `cublasSetWorkspace` recommends (4 MiB is the size of cuBLAS's own default pool; Hopper
//! wants 32 MiB); [`PushedGuard::blas_with_workspace`] takes another size. With a workspace set,
//! cuBLAS's calls allocate no device memory (`cublasCreate_v2` itself still allocates cuBLAS's
//! internal resources, released by `cublasDestroy_v2`).
//!
//! One workspace serves every stream the handle is used on, and two kernels using it at once
//! would corrupt each other's results. So the calls of one handle run one after another on the
//! GPU, whatever streams they are on, at no cost where they share a stream:
//!
//! - a call on the stream of the handle's previous call is ordered by the stream: nothing is
//!   set and no driver call is made besides cuBLAS's own (the pointer mode is set only when it
//!   changes);
//! - a call on another stream first makes that stream wait, on the GPU, for all work enqueued
//!   so far in the context (`cuCtxRecordEvent` and `cuStreamWaitEvent`; `cuCtxSynchronize` on
//!   drivers before 12.5), then gives cuBLAS the new stream and the workspace. That covers
//!   every earlier call of the handle, on a stream since destroyed too.
//!
//! Use one handle per stream for concurrent cuBLAS work: a handle that alternates between
//! streams waits for everything in the context at each change.
//!
//! Dropping the handle synchronizes its context (`cuCtxSynchronize`, if it made any call)
//! before freeing the workspace, so it may be dropped while its work is pending (inside a
//! scope, or with a submission in flight, parked or not). Calls inside a graph capture are
//! refused: the captured graph would keep using the workspace after the handle is gone.
//!
//! # Without cuBLAS
//!
//! With the feature on but no cuBLAS found at build time (`build.rs` warns), the crate still
//! builds and [`PushedGuard::blas`] returns [`ErrorKind::LibraryNotLinked`] saying what to
//! set: `CUSTACK_CUBLAS_LIB_DIR` (the directory holding `libcublas.so.13` or `.12`), or install
//! the `nvidia-cublas` Python wheel or the CUDA toolkit.
//!
//! # Examples
//!
//! A row-major SGEMM, `c = a·b` with `a` 2×3 and `b` 3×2, checked on the host:
//!
//! ```no_run
//! use custack::blas::Gemm;
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let stream = guard.stream()?;
//! let blas = guard.blas()?;
//!
//! let (m, n, k) = (2, 2, 3);
//! let a = guard.alloc_from(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?; // row-major 2×3
//! let b = guard.alloc_from(&[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0])?; // row-major 3×2
//! let mut c = guard.alloc_zeroed::<f32>(m * n)?;
//! let mut out = vec![0.0f32; m * n];
//! stream.scope(|s| -> custack::Result<()> {
//!     let (da, db, mut dc) = (s.bind(&a), s.bind(&b), s.bind_mut(&mut c));
//!     // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: n × m, b first.
//!     blas.gemm(s, &Gemm::new(n, m, k), db, da, &mut dc)?;
//!     s.copy_to_host(&mut out, &dc)
//! })??;
//! assert_eq!(out, [4.0, 5.0, 10.0, 11.0]); // row-major 2×2
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/cublas/>

// The files, bottom to top: each uses only files listed before it.
// - `half`: `F16`, `Bf16`, the 16-bit storage types;
// - `status`: cuBLAS's statuses as results;
// - `scalar`: the element types (`BlasScalar`, `HalfFloat`, `GemmExOutput`), sealed, and the
//   typed entry points of each;
// - `shape`: the shapes of the calls (`Gemm`, `Gemv`, `Batch`, `Transpose`);
// - `check`: the checks every call makes before it enqueues anything;
// - `handle`: `Blas`, its creation, workspace, call order (`enqueue`) and destruction;
// - `level1` (axpy, dot, nrm2), `level2` (gemv), `level3` (gemm, gemm_strided_batched,
//   gemm_ex): the calls.
pub(crate) mod check;
pub(crate) mod half;
pub(crate) mod handle;
mod level1;
mod level2;
mod level3;
pub(crate) mod scalar;
pub(crate) mod shape;
pub(crate) mod status;

pub use half::{Bf16, F16};
pub use handle::{Blas, version};
pub use scalar::{BlasScalar, GemmExOutput, HalfFloat};
pub use shape::{Batch, Gemm, Gemv, Transpose};

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::context::stack::PushedGuard;
#[cfg(doc)]
use crate::error::{Error, ErrorKind};
#[cfg(doc)]
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
