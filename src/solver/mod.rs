//! cuSOLVER's dense API under the guard (cargo feature `cusolver`): LU ([`LuPlan`]: `getrf`,
//! `getrs`), Cholesky ([`CholeskyPlan`]: `potrf`, `potrs`), QR ([`QrPlan`]: `geqrf`,
//! `ormqr`), the symmetric eigendecomposition ([`EigenPlan`]: `syevd`) and the singular value
//! decomposition ([`SvdPlan`]: `gesvd`), in `f32` and `f64`, on device memory bound to a
//! [`StreamScope`], every dimension, leading dimension, length and workspace size checked
//! before cuSOLVER sees it, and each call's info word read back as a typed error.
//!
//! # Plans
//!
//! A plan is made by a [`PushedGuard`] for one shape of column-major [`Matrix`] (rows,
//! columns, leading dimension): it owns a cuSOLVER handle (`cusolverDnCreate`) and the
//! workspace its calls need, which cuSOLVER is asked for when the plan is made
//! (`*_bufferSize`) and which is allocated on the guard then, so no call allocates. Like
//! cuFFT's plans, it borrows the guard (`'g`): used after the pop, under another context or
//! on another thread, it fails to compile (C25, `!Send`, `!Sync`). Its calls never overlap on
//! the GPU (they share the workspace), whatever streams they are on (`CallOrder`, as for
//! cuBLAS); dropping it waits for the context if it ran at all, then destroys the handle and
//! frees the workspace (errors recorded, [`take_drop_errors`](crate::take_drop_errors)), or
//! [`destroy`](LuPlan::destroy) returns them. Graph capture: a capture's closure is `'static`
//! ([`Stream::capture`](crate::Stream::capture)), so a plan, which borrows its guard, cannot be
//! named in it; reached anyway (a leaked guard), a call inside a capture is refused
//! (`CUDA_ERROR_NOT_SUPPORTED`) as every library handle's is: the captured graph would keep
//! using the workspace, and the info word, after the plan and the info are gone; with an info
//! batch the call is refused before it takes a slot, so the batch enqueues no copy back into
//! the graph either.
//!
//! # Buffers
//!
//! Each call takes the scope and device memory bound to it, as cuBLAS's and cuFFT's do: what it
//! only reads as [`ScopedRead`] (`s.bind(&x)`), what it writes as [`ScopedWrite`]
//! (`s.bind_mut(&mut x)`), so a matrix cannot be both the factor read and the right-hand side
//! overwritten, nor read by the host while the factorization may still write it. Before
//! anything is enqueued, each binding must hold what the call reaches
//! ([`Matrix::reach`]: `ld·(cols − 1) + rows`; `min(m, n)` reflectors; `n`
//! eigenvalues or singular values), and each number must fit the C `int` cuSOLVER takes: a
//! refusal is [`ErrorKind::InvalidValue`], [`ErrorKind::BufferTooShort`] or
//! [`ErrorKind::SizeOverflow`] naming the call and the argument (`cusolverDnSgetrf: A holds 8
//! elements, the call reaches 9; nothing was enqueued`).
//!
//! LU's pivots are not any `i32` buffer but [`Pivots`] (`guard.lu_pivots(shape)`, bound with
//! `s.bind_pivots(&mut p)`), which start as the identity and which only `getrf` writes:
//! `getrs` interchanges the rows of `B` its pivots name on the GPU without checking them, so
//! a pivot outside `1..=n` would read and write memory outside `B`. Pivots of the caller's own
//! are solved with by the `unsafe` [`LuPlan::getrs_unchecked`].
//!
//! # The info word, and when it is known
//!
//! cuSOLVER reports what it found in the matrix (a zero pivot, a minor that is not positive
//! definite, no convergence) not in its returned status but in an `int` it writes on the GPU,
//! after the call has returned. Each call takes a [`SolverInfo`] (`guard.solver_info()`)
//! **borrowed mutably for the whole scope**, and enqueues after itself, on the same stream, a
//! copy of the device word into the info's pinned host word (or a slot of a scope's info
//! array, below, copied back once for all the scope's calls). So:
//!
//! - the info is known **once the scope that enqueued the call has ended**: the scope's one
//!   wait (`cuStreamSynchronize`, bounded as every scope's is) brings it home. Reading it inside
//!   the scope is a borrow error (E0502), and so is giving one info to two calls of a scope
//!   (E0499: a `getrs` would overwrite `getrf`'s pivot with its own 0);
//! - [`SolverInfo::outcome`] (typed [`Info`]) and [`SolverInfo::ensure_success`] (an error) read the host
//!   word: no driver call, no wait, hidden or not;
//! - `ensure_success` turns a failure into [`ErrorKind::SingularMatrix`] (`getrf`: the detail names the
//!   zero pivot `U(i,i)`, 1-based), [`ErrorKind::NotPositiveDefinite`] (`potrf`: the order of
//!   the first leading minor that is not), [`ErrorKind::NotConverged`] (`syevd`, `gesvd`),
//!   or [`ErrorKind::InvalidValue`] for an illegal parameter (which custack's own checks
//!   should have refused first);
//! - if the call returned an error, or its scope failed, the info says it was not written;
//! - a [`Submission`](crate::Submission)'s closure takes only what its payload lends, and a
//!   `SolverInfo` is no payload: cuSOLVER's calls run in scopes (a limitation of this version,
//!   not of cuSOLVER).
//!
//! # Many calls of a scope: one info array, one copy back
//!
//! A copy a call costs about as much as a small factorization's own launch. For many calls of
//! one scope, take a [`SolverInfos`] of as many slots (`guard.solver_infos(n)`) and open it
//! on the scope ([`SolverInfos::open`]): every call takes the [`InfoBatch`] shared (`&batch`,
//! where a lone call takes `&mut info`: both are an [`InfoOut`]) and writes its info into the
//! next slot of one device array, and the batch, dropped at the end of the scope's closure,
//! enqueues **one** copy of the used slots to pinned host memory: `N` calls cost `N` cuSOLVER
//! calls and one copy. After the scope, [`SolverInfos::ensure_success`] names the first call
//! that failed by its index in the scope (`cusolverDnDgetrf (call 4 of the scope): U(3,3) is
//! exactly zero`), and [`SolverInfos::outcome`] reads any one. The array is borrowed by the
//! batch for the whole scope (reading it inside is E0502), the batch is branded with its scope
//! (a call on another stream's scope cannot take it), a call cuSOLVER refused keeps its slot
//! unwritten, a batch that was forgotten (`mem::forget`, so no copy back was enqueued) makes
//! every read an error rather than an earlier scope's info, and a call beyond the array's
//! slots is refused ([`ErrorKind::BufferTooShort`], nothing enqueued): the array is not grown
//! inside a scope, whose earlier calls are still writing it.
//!
//! ```no_run
//! use custack::solver::{Info, Matrix, Transpose};
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! // A = [[4, 3], [6, 3]] (column-major), b = [10, 12]: x = [1, 2].
//! let lu = guard.lu_plan::<f64>(Matrix::square(2))?;
//! let mut a = guard.alloc_from(&[4.0, 6.0, 3.0, 3.0])?;
//! let mut b = guard.alloc_from(&[10.0, 12.0])?;
//! let mut ipiv = guard.lu_pivots(Matrix::square(2))?; // the identity until getrf writes it
//! let (mut factored, mut solved) = (guard.solver_info()?, guard.solver_info()?);
//! guard.stream()?.scope(|s| -> custack::Result<()> {
//!     let mut pivots = s.bind_pivots(&mut ipiv);
//!     let mut lu_a = s.bind_mut(&mut a);
//!     lu.getrf(s, &mut lu_a, &mut pivots, &mut factored)?;
//!     lu.getrs(s, Transpose::No, &lu_a, &pivots, s.bind_mut(&mut b), Matrix::new(2, 1), &mut solved)
//! })??;
//! // The scope has ended: both infos are known.
//! assert_eq!(factored.outcome()?, Info::Success);
//! solved.ensure_success()?;
//! let x = b.to_vec()?;
//! assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # Without cuSOLVER
//!
//! With the feature on but no cuSOLVER found at build time (`build.rs` warns), the crate still
//! builds and every plan returns [`ErrorKind::LibraryNotLinked`] saying what to set:
//! `CUSTACK_CUSOLVER_LIB_DIR` (the directory holding `libcusolver.so.12` or `.11`), or install
//! the `nvidia-cusolver` Python wheel or the CUDA toolkit. At run time the loader also needs
//! what libcusolver needs: libcublas, libcublasLt, libcusparse and libnvJitLink of its CUDA
//! generation (the wheels `nvidia-cublas`, `nvidia-cusparse`, `nvidia-nvjitlink`).
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-dense-lapack>

// The files, bottom to top: each uses only files listed before it.
// - `status`: cuSOLVER's statuses as errors;
// - `types`: the element types (`Scalar`) and their raw calls, `Matrix`, `Fill`, `Transpose`,
//   `Vectors`;
// - `check`: the checks of shapes, lengths and workspace sizes;
// - `info`: the info word (`SolverInfo`, `Info`);
// - `infos`: the info array of a scope's calls (`SolverInfos`, `InfoBatch`) and `InfoOut`;
// - `plan`: the plans, their making, calls, order and destruction.
mod check;
mod info;
mod infos;
mod pivots;
mod plan;
mod status;
mod types;

pub use info::{Info, SolverInfo};
pub use infos::{InfoBatch, InfoOut, SolverInfos};
pub use pivots::{Pivots, ScopedPivots};
pub use plan::{CholeskyPlan, EigenPlan, LuPlan, QrPlan, SvdPlan, version};
pub use types::{Fill, Matrix, Scalar, Transpose, Vectors};

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::context::stack::PushedGuard;
#[cfg(doc)]
use crate::error::ErrorKind;
#[cfg(doc)]
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
