//! cuSPARSE's generic API under the guard (cargo feature `cusparse`): sparse matrices in CSR
//! or COO format whose structure custack has checked, multiplied with dense vectors
//! ([`SpMvPlan`]) and dense matrices ([`SpMmPlan`]) on a [`StreamScope`], every dimension,
//! count, leading dimension and length checked before cuSPARSE sees it.
//!
//! # Structures, matrices and what is checked
//!
//! A sparse matrix is a structure and values. The structure is a [`CsrPattern`] (row offsets
//! and column indices) or a [`CooPattern`] (row and column indices), made by
//! [`PushedGuard::csr_pattern`] / [`PushedGuard::coo_pattern`] from host arrays, **checked on
//! the host** and then copied into device buffers the pattern owns and never writes again:
//!
//! - CSR: `rows + 1` offsets, the first 0, none smaller than the one before, the last
//!   (`nnz`) at most the number of column indices; each of the `nnz` column indices in
//!   `0..cols`;
//! - COO: as many row as column indices, each row index in `0..rows` and sorted by row (the
//!   order cuSPARSE's COO format has), each column index in `0..cols`;
//! - both: `rows`, `cols` and `nnz` fit the index type ([`SparseIndex`]: `i32` or `i64`) and
//!   `nnz ≥ 1` (CUDA has no empty allocation to hold an empty structure).
//!
//! A structure that lives only on the device is checked by [`CsrPattern::from_device`] and
//! [`CooPattern::from_device`], which take ownership of the buffers and copy them back to the
//! host once (a synchronous copy: the cost of the check). Without that copy, custack can only
//! check lengths and dimensions, not the offsets and indices themselves, and **cuSPARSE
//! checks them neither**: its generic API validates sizes, data types and layouts, and its
//! kernels index the value array, `x`, `B` and `y`/`C` with the stored offsets and indices, so
//! a malformed structure makes them read (and, through the indices, write) out of bounds. So
//! the routes over unchecked device arrays, [`SparseMatrix::csr_unchecked`] and
//! [`SparseMatrix::coo_unchecked`], are `unsafe`, with what they check (lengths, dimensions,
//! the index type) and what the caller must guarantee written on each.
//!
//! [`SparseMatrix::csr`] and [`SparseMatrix::coo`] pair a pattern with values bound to a
//! scope (`s.bind(&values)`, at least `nnz` of them) and make a cuSPARSE descriptor
//! (`cusparseCreateConstCsr`, `cusparseCreateConstCoo`: read-only, a host-only call).
//! [`SparseMatrix<'scope, T, I>`](SparseMatrix) borrows the pattern and the values for the
//! scope `'scope`, so (C35) it cannot outlive them, cannot be made of memory bound to another
//! scope, cannot leave the scope's closure, and nothing can write its arrays while it exists.
//!
//! # Plans and calls
//!
//! [`PushedGuard::spmv_plan`] and [`PushedGuard::spmm_plan`] make a plan for the operands
//! given: a cuSPARSE handle of its own (`cusparseCreate`) and a workspace of the size
//! `cusparseSpMV_bufferSize` / `cusparseSpMM_bufferSize` asks for, allocated on the guard.
//! Each [`run`](SpMvPlan::run) takes the [`StreamScope`] to enqueue on, the matrix, and the
//! dense operands bound to that scope: the inputs as [`ScopedRead`] (`s.bind(&x)`), the output
//! as [`ScopedWrite`] (`s.bind_mut(&mut y)`). Before anything is enqueued it checks the
//! operands against `op(A)` (`x` holds its columns, `y` its rows; `op(B)` is `k × n`, `C` is
//! `m × n`, each leading dimension at least its minimum and each buffer holding what its
//! layout spans), makes the dense descriptors (`cusparseCreateDnVec`, `cusparseCreateDnMat`,
//! destroyed after the call), asks cuSPARSE again how much workspace these operands need and
//! refuses the call ([`ErrorKind::BufferTooShort`]) if the plan's is smaller. The scalars
//! `alpha` and `beta` are passed by host pointer (cuSPARSE's default pointer mode, never
//! changed), read before the call returns.
//!
//! A plan borrows its guard (C25), is `!Send` and `!Sync`, and its calls never overlap on the
//! GPU, whatever streams they are on (they share the workspace): as for cuBLAS's handles
//! (`custack::blas`), a call on the previous call's stream is ordered by the stream, a call on
//! another waits on the GPU for everything before it. Dropping a plan synchronizes its context
//! (if it ran) before destroying the handle and freeing the workspace. Calls inside a graph
//! capture are refused.
//!
//! A refused call is [`ErrorKind::InvalidValue`], [`ErrorKind::BufferTooShort`] or
//! [`ErrorKind::SizeOverflow`] naming the call and the argument (`cusparseSpMV: x holds 3
//! elements, the call needs 4; nothing was enqueued`). cuSPARSE's own statuses are the
//! `Cusparse…` kinds ([`ErrorKind::CusparseInvalidValue`], …); none is sticky.
//!
//! # Without cuSPARSE
//!
//! With the feature on but no cuSPARSE found at build time (`build.rs` warns), the crate still
//! builds and every call returns [`ErrorKind::LibraryNotLinked`] saying what to set:
//! `CUSTACK_CUSPARSE_LIB_DIR` (the directory holding `libcusparse.so.12`), or install the
//! `nvidia-cusparse` Python wheel (with `nvidia-nvjitlink`, which libcusparse loads) or the
//! CUDA toolkit.
//!
//! # Examples
//!
//! `y = A·x` for the 2 × 3 matrix `[[1, 0, 2], [0, 0, 3]]`:
//!
//! ```no_run
//! use custack::sparse::{SparseMatrix, SpMv};
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let pattern = guard.csr_pattern(2, 3, &[0i32, 2, 3], &[0, 2, 2])?;
//! let values = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
//! let x = guard.alloc_from(&[1.0f32, 1.0, 1.0])?;
//! let mut y = guard.alloc_zeroed::<f32>(2)?;
//! let mut out = [0.0f32; 2];
//! guard.stream()?.scope(|s| -> custack::Result<()> {
//!     let a = SparseMatrix::csr(s, &pattern, s.bind(&values))?;
//!     let (x, mut y) = (s.bind(&x), s.bind_mut(&mut y));
//!     let mv = SpMv::new(1.0, 0.0);
//!     let plan = guard.spmv_plan(&mv, &a, x, &y)?;
//!     plan.run(s, &mv, &a, x, &mut y)?;
//!     s.copy_to_host(&mut out, &y)
//! })??;
//! assert_eq!(out, [3.0, 3.0]);
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/cusparse/#cusparse-generic-api-reference>

// The files, bottom to top: each uses only files listed before it.
// - `status`: cuSPARSE's statuses as results;
// - `types`: the element and index types, operations, layouts and algorithms;
// - `check`: the structure, dimension and operand checks, pure functions;
// - `pattern`: `CsrPattern`, `CooPattern`, checked structures owned on the device;
// - `plan`: the handle core, `version`, `SpMv`/`SpMm` and their plans (it names
//   `SparseMatrix`; `not_linked` is in `status`, below both);
// - `matrix`: `SparseMatrix`, the descriptor over a pattern and bound values.
mod check;
mod matrix;
mod pattern;
mod plan;
mod status;
mod types;

pub use matrix::{Format, SparseMatrix};
pub use pattern::{CooPattern, CsrPattern};
pub use plan::{SpMm, SpMmPlan, SpMv, SpMvPlan, version};
pub use types::{Dense, Operation, Order, SpMmAlg, SpMvAlg, SparseIndex, SparseScalar};

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::context::stack::PushedGuard;
#[cfg(doc)]
use crate::error::ErrorKind;
#[cfg(doc)]
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
