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
//! scope's stream for each call, `cublasSetStream_v2`) and device memory bound to that scope:
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
//! would corrupt each other's results. So each call makes its stream wait for the previous call
//! of the same handle (an event recorded after each call, `cuEventRecord`, and waited for
//! before the next, `cuStreamWaitEvent`): the calls of one handle run one after another on the
//! GPU whatever streams they are on. Use one handle per stream for concurrent cuBLAS work.
//!
//! Dropping the handle waits for its last call to finish (that event) before freeing the
//! workspace, so it may be dropped while its work is pending (inside a scope, or with a
//! submission in flight). Calls inside a graph capture are refused: the captured graph would
//! keep using the workspace after the handle is gone.
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

mod check;
mod half;

pub use half::{Bf16, F16};

use crate::asynchronous::event::{Event, EventFlags};
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::{DeviceBuffer, DeviceMemory};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::plain::DeviceCopy;
use core::cell::Cell;
use core::ffi::{CStr, c_int, c_void};
use core::marker::PhantomData;

/// The workspace below compute capability 9.0: cuBLAS's default pool size.
const WORKSPACE_BYTES: usize = 4 << 20;
/// The workspace from compute capability 9.0 (Hopper) on.
const WORKSPACE_BYTES_SM90: usize = 32 << 20;

/// A cuBLAS handle of the guard's context; see the [module docs](self).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while
/// another context is pushed on top (C25); `!Send` and `!Sync`, as cuBLAS binds a handle to a
/// context and custack's guards are per thread.
#[doc(alias = "cublasHandle_t")]
pub struct Blas<'g> {
    raw: ffi::cublas::cublasHandle_t,
    /// Given to cuBLAS for every call; freed only after the last call's `order` event is
    /// complete (or leaked when that cannot be confirmed). `None` once released, or for a
    /// workspace of 0 bytes.
    workspace: Option<DeviceBuffer<'g, u8>>,
    /// Recorded after each call, waited for before the next: the handle's calls never overlap
    /// on the GPU (they share the workspace), and the last record covers all of them.
    order: Event<'g>,
    /// Set if a record of `order` failed: the chain is broken, and releasing the workspace
    /// then waits for the whole context instead.
    unordered: Cell<bool>,
    // Borrowed from the guard; the handle is bound to the guard's context, current on this
    // thread only: `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(Blas<'static>: Send, Sync);

impl core::fmt::Debug for Blas<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Blas")
            .field("raw", &self.raw)
            .field(
                "workspace_bytes",
                &self.workspace.as_ref().map_or(0, DeviceMemory::len),
            )
            .finish_non_exhaustive()
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cublasCreate_v2`—Creates a cuBLAS handle of this guard's context, with a workspace of
    /// the size cuBLAS recommends for the device (32 MiB from compute capability 9.0 on, 4 MiB
    /// before; see the [module docs](crate::blas)).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LibraryNotLinked`] if custack was built without cuBLAS (the detail says
    /// what to set); [`ErrorKind::CublasNotInitialized`] if cuBLAS could not initialize; `CUDA_ERROR_OUT_OF_MEMORY` for the
    /// workspace; [`ErrorKind::CublasAllocFailed`]; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let blas = guard.blas()?;
    /// println!("cuBLAS {}", blas.version()?);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublascreate>
    #[doc(alias = "cublasCreate_v2")]
    #[doc(alias = "cublasCreate")]
    pub fn blas(&self) -> Result<Blas<'_>> {
        not_linked()?;
        let bytes = if self.device()?.compute_capability()?.major >= 9 {
            WORKSPACE_BYTES_SM90
        } else {
            WORKSPACE_BYTES
        };
        self.blas_with_workspace(bytes)
    }

    /// `cublasCreate_v2`—Creates a cuBLAS handle of this guard's context with a workspace of
    /// `bytes` (0: none, so cuBLAS picks algorithms that need none).
    ///
    /// # Errors
    ///
    /// As [`blas`](Self::blas).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublassetworkspace>
    #[doc(alias = "cublasCreate_v2")]
    #[doc(alias = "cublasSetWorkspace_v2")]
    pub fn blas_with_workspace(&self, bytes: usize) -> Result<Blas<'_>> {
        not_linked()?;
        let workspace = if bytes == 0 {
            None
        } else {
            Some(self.alloc::<u8>(bytes)?)
        };
        let order = self.event(EventFlags::DISABLE_TIMING)?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: `cublasCreate_v2` writes a handle to a valid out-pointer and binds it to the
        // current context:
        // - `raw` is a live local;
        // - this guard's context is current (it is the top of this thread's stack while the
        //   guard is reachable).
        status("cublasCreate_v2", unsafe {
            ffi::cublas::cublasCreate_v2(&raw mut raw)
        })?;
        Ok(Blas {
            raw,
            workspace,
            order,
            unordered: Cell::new(false),
            _guard: PhantomData,
        })
    }
}

/// `Err` in a build that found no cuBLAS.
fn not_linked() -> Result<()> {
    if cfg!(custack_no_cublas) {
        return Err(Error::custack(
            ErrorKind::LibraryNotLinked,
            "cuBLAS (feature `cublas`): build.rs found no libcublas when custack was built. Set \
             CUSTACK_CUBLAS_LIB_DIR to the directory holding libcublas.so.13 (or .12), or \
             install the CUDA toolkit or cuBLAS's Python wheel of the driver's CUDA version \
             (`pip install 'nvidia-cublas==13.*'` for a 13.x driver, \
             `'nvidia-cublas-cu12==12.2.*'` for 12.2), and build again (`cargo clean -p \
             custack` if the build does not notice)",
        ));
    }
    Ok(())
}

/// A cuBLAS status as a result: the kind named after the status, the detail naming the call.
pub(crate) fn status(call: &str, status: ffi::cublas::cublasStatus_t) -> Result<()> {
    if status == ffi::cublas::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return Ok(());
    }
    Err(status_error(call, status))
}

#[cold]
#[inline(never)]
fn status_error(call: &str, status: ffi::cublas::cublasStatus_t) -> Error {
    let kind = status_kind(status);
    // SAFETY: `cublasGetStatusString` takes any value and returns a pointer to a static
    // NUL-terminated string (a generic one for unknown values); null is checked below.
    let text = unsafe { ffi::cublas::cublasGetStatusString(status) };
    let text = if text.is_null() {
        String::new()
    } else {
        // SAFETY: a non-null pointer from `cublasGetStatusString`: a static, NUL-terminated
        // string that cuBLAS never frees.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    };
    let name = match kind {
        ErrorKind::CublasUnlisted => "status",
        _ => kind.name(),
    };
    Error::custack(
        kind,
        format!("{call} returned {name} ({}): {text}", status.0),
    )
}

/// The kind of a cuBLAS status (never called with success).
pub(crate) fn status_kind(status: ffi::cublas::cublasStatus_t) -> ErrorKind {
    use ffi::cublas::cublasStatus_t as S;
    match status {
        S::CUBLAS_STATUS_NOT_INITIALIZED => ErrorKind::CublasNotInitialized,
        S::CUBLAS_STATUS_ALLOC_FAILED => ErrorKind::CublasAllocFailed,
        S::CUBLAS_STATUS_INVALID_VALUE => ErrorKind::CublasInvalidValue,
        S::CUBLAS_STATUS_ARCH_MISMATCH => ErrorKind::CublasArchMismatch,
        S::CUBLAS_STATUS_MAPPING_ERROR => ErrorKind::CublasMappingError,
        S::CUBLAS_STATUS_EXECUTION_FAILED => ErrorKind::CublasExecutionFailed,
        S::CUBLAS_STATUS_INTERNAL_ERROR => ErrorKind::CublasInternalError,
        S::CUBLAS_STATUS_NOT_SUPPORTED => ErrorKind::CublasNotSupported,
        S::CUBLAS_STATUS_LICENSE_ERROR => ErrorKind::CublasLicenseError,
        _ => ErrorKind::CublasUnlisted,
    }
}

/// How a matrix operand is read: as stored, or transposed (`CUBLAS_OP_N`, `CUBLAS_OP_T`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[doc(alias = "cublasOperation_t")]
pub enum Transpose {
    /// `CUBLAS_OP_N`: as stored.
    #[default]
    No,
    /// `CUBLAS_OP_T`: transposed.
    Yes,
}

impl Transpose {
    fn raw(self) -> ffi::cublas::cublasOperation_t {
        match self {
            Self::No => ffi::cublas::cublasOperation_t::CUBLAS_OP_N,
            Self::Yes => ffi::cublas::cublasOperation_t::CUBLAS_OP_T,
        }
    }
}

/// The shape and scalars of `C = alpha·op(A)·op(B) + beta·C` (column-major): `op(A)` is
/// `m × k`, `op(B)` is `k × n`, `C` is `m × n`.
///
/// A stored operand has leading dimension (`lda`, `ldb`, `ldc`) at least its stored row count:
/// `A` is stored `m × k` (`lda ≥ m`), or `k × m` when transposed (`lda ≥ k`); `B` is `k × n`
/// (`ldb ≥ k`) or `n × k` (`ldb ≥ n`); `C` is `m × n` (`ldc ≥ m`). [`Gemm::new`] and the
/// transposing methods choose the smallest (tight, packed matrices); set others with
/// [`leading_dims`](Self::leading_dims).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gemm<S> {
    /// Rows of `op(A)` and `C`.
    pub m: usize,
    /// Columns of `op(B)` and `C`.
    pub n: usize,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: usize,
    /// Whether `A` is transposed.
    pub transa: Transpose,
    /// Whether `B` is transposed.
    pub transb: Transpose,
    /// `A`'s leading dimension.
    pub lda: usize,
    /// `B`'s leading dimension.
    pub ldb: usize,
    /// `C`'s leading dimension.
    pub ldc: usize,
    /// The factor of the product.
    pub alpha: S,
    /// The factor of `C`'s old value (0: `C` is only written).
    pub beta: S,
}

impl<S: BlasScalar> Gemm<S> {
    /// `C = op(A)·op(B)` with no transposes and packed matrices: `alpha = 1`, `beta = 0`,
    /// `lda = m`, `ldb = k`, `ldc = m` (each at least 1).
    #[must_use]
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        Self {
            m,
            n,
            k,
            transa: Transpose::No,
            transb: Transpose::No,
            lda: m.max(1),
            ldb: k.max(1),
            ldc: m.max(1),
            alpha: S::ONE,
            beta: S::ZERO,
        }
    }
}

impl<S> Gemm<S> {
    /// Reads `A` transposed: `A` is stored packed `k × m` (`lda = k`).
    #[must_use]
    pub fn transpose_a(mut self) -> Self {
        self.transa = Transpose::Yes;
        self.lda = self.k.max(1);
        self
    }

    /// Reads `B` transposed: `B` is stored packed `n × k` (`ldb = n`).
    #[must_use]
    pub fn transpose_b(mut self) -> Self {
        self.transb = Transpose::Yes;
        self.ldb = self.n.max(1);
        self
    }

    /// Sets the leading dimensions (set the transposes first: they reset them).
    #[must_use]
    pub fn leading_dims(mut self, lda: usize, ldb: usize, ldc: usize) -> Self {
        (self.lda, self.ldb, self.ldc) = (lda, ldb, ldc);
        self
    }

    /// Sets `alpha`.
    #[must_use]
    pub fn alpha(mut self, alpha: S) -> Self {
        self.alpha = alpha;
        self
    }

    /// Sets `beta`.
    #[must_use]
    pub fn beta(mut self, beta: S) -> Self {
        self.beta = beta;
        self
    }
}

/// The shape and scalars of `y = alpha·op(A)·x + beta·y` (column-major): `A` is stored `m × n`
/// with `lda ≥ m`; `op(A)·x` reads `n` elements of `x` and writes `m` of `y` (transposed: `m`
/// and `n`), `incx` and `incy` apart (non-zero; negative walks the vector from its end).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gemv<S> {
    /// Whether `A` is transposed.
    pub trans: Transpose,
    /// Rows of the stored `A`.
    pub m: usize,
    /// Columns of the stored `A`.
    pub n: usize,
    /// `A`'s leading dimension.
    pub lda: usize,
    /// The distance between elements of `x`.
    pub incx: isize,
    /// The distance between elements of `y`.
    pub incy: isize,
    /// The factor of the product.
    pub alpha: S,
    /// The factor of `y`'s old value.
    pub beta: S,
}

impl<S: BlasScalar> Gemv<S> {
    /// `y = A·x`, `A` packed (`lda = m`), contiguous vectors, `alpha = 1`, `beta = 0`.
    #[must_use]
    pub fn new(m: usize, n: usize) -> Self {
        Self {
            trans: Transpose::No,
            m,
            n,
            lda: m.max(1),
            incx: 1,
            incy: 1,
            alpha: S::ONE,
            beta: S::ZERO,
        }
    }
}

impl<S> Gemv<S> {
    /// `y = alpha·Aᵀ·x + beta·y`.
    #[must_use]
    pub fn transpose(mut self) -> Self {
        self.trans = Transpose::Yes;
        self
    }
    /// Sets the leading dimension of `A`.
    #[must_use]
    pub fn lda(mut self, lda: usize) -> Self {
        self.lda = lda;
        self
    }
    /// Sets the increments of `x` and `y`.
    #[must_use]
    pub fn increments(mut self, incx: isize, incy: isize) -> Self {
        (self.incx, self.incy) = (incx, incy);
        self
    }
    /// Sets `alpha`.
    #[must_use]
    pub fn alpha(mut self, alpha: S) -> Self {
        self.alpha = alpha;
        self
    }
    /// Sets `beta`.
    #[must_use]
    pub fn beta(mut self, beta: S) -> Self {
        self.beta = beta;
        self
    }
}

/// A strided batch: `count` GEMMs whose operands lie `stride_a`, `stride_b`, `stride_c`
/// elements apart in their buffers. A stride of 0 reuses one `A` (or `B`) for every GEMM; the
/// `C`s must not overlap (`stride_c` at least one `C`'s extent, `ldc·(n-1) + m`, when
/// `count > 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batch {
    /// The number of GEMMs.
    pub count: usize,
    /// Elements from one `A` to the next.
    pub stride_a: usize,
    /// Elements from one `B` to the next.
    pub stride_b: usize,
    /// Elements from one `C` to the next.
    pub stride_c: usize,
}

impl Batch {
    /// `count` GEMMs of shape `g` stored back to back: each stride is its operand's leading
    /// dimension times its stored column count. (Saturates on overflow, which the call then
    /// refuses with [`ErrorKind::SizeOverflow`].)
    #[must_use]
    pub fn packed<S>(g: &Gemm<S>, count: usize) -> Self {
        let a_cols = match g.transa {
            Transpose::No => g.k,
            Transpose::Yes => g.m,
        };
        let b_cols = match g.transb {
            Transpose::No => g.n,
            Transpose::Yes => g.k,
        };
        Self {
            count,
            stride_a: g.lda.saturating_mul(a_cols),
            stride_b: g.ldb.saturating_mul(b_cols),
            stride_c: g.ldc.saturating_mul(g.n),
        }
    }
}

mod sealed {
    use crate::ffi;
    use core::ffi::{c_int, c_longlong};

    /// The typed cuBLAS entry points of an element type. Each function is the cuBLAS function
    /// of the same name (`cublasSaxpy_v2` for `f32`); see it for the safety contract.
    #[allow(clippy::too_many_arguments, reason = "cuBLAS's own argument lists")]
    pub trait Sealed: Sized {
        const AXPY: &'static str;
        const DOT: &'static str;
        const NRM2: &'static str;
        const GEMV: &'static str;
        const GEMM: &'static str;
        const GEMM_STRIDED_BATCHED: &'static str;
        /// # Safety
        ///
        /// As `cublas?axpy_v2`.
        unsafe fn axpy(
            h: ffi::cublas::cublasHandle_t,
            n: c_int,
            alpha: *const Self,
            x: *const Self,
            incx: c_int,
            y: *mut Self,
            incy: c_int,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?dot_v2`.
        unsafe fn dot(
            h: ffi::cublas::cublasHandle_t,
            n: c_int,
            x: *const Self,
            incx: c_int,
            y: *const Self,
            incy: c_int,
            result: *mut Self,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?nrm2_v2`.
        unsafe fn nrm2(
            h: ffi::cublas::cublasHandle_t,
            n: c_int,
            x: *const Self,
            incx: c_int,
            result: *mut Self,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?gemv_v2`.
        unsafe fn gemv(
            h: ffi::cublas::cublasHandle_t,
            trans: ffi::cublas::cublasOperation_t,
            m: c_int,
            n: c_int,
            alpha: *const Self,
            a: *const Self,
            lda: c_int,
            x: *const Self,
            incx: c_int,
            beta: *const Self,
            y: *mut Self,
            incy: c_int,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?gemm_v2`.
        unsafe fn gemm(
            h: ffi::cublas::cublasHandle_t,
            transa: ffi::cublas::cublasOperation_t,
            transb: ffi::cublas::cublasOperation_t,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const Self,
            a: *const Self,
            lda: c_int,
            b: *const Self,
            ldb: c_int,
            beta: *const Self,
            c: *mut Self,
            ldc: c_int,
        ) -> ffi::cublas::cublasStatus_t;
        /// # Safety
        ///
        /// As `cublas?gemmStridedBatched`.
        unsafe fn gemm_strided_batched(
            h: ffi::cublas::cublasHandle_t,
            transa: ffi::cublas::cublasOperation_t,
            transb: ffi::cublas::cublasOperation_t,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const Self,
            a: *const Self,
            lda: c_int,
            stride_a: c_longlong,
            b: *const Self,
            ldb: c_int,
            stride_b: c_longlong,
            beta: *const Self,
            c: *mut Self,
            ldc: c_int,
            stride_c: c_longlong,
            count: c_int,
        ) -> ffi::cublas::cublasStatus_t;
    }

    /// The storage types of `cublasGemmEx` with `f32` compute.
    pub trait HalfSealed {}
    /// The output types of `cublasGemmEx` for the input `A`.
    pub trait OutputSealed<A> {}
}

macro_rules! blas_scalar {
    ($t:ty, $axpy:ident, $dot:ident, $nrm2:ident, $gemv:ident, $gemm:ident, $sb:ident) => {
        impl sealed::Sealed for $t {
            const AXPY: &'static str = stringify!($axpy);
            const DOT: &'static str = stringify!($dot);
            const NRM2: &'static str = stringify!($nrm2);
            const GEMV: &'static str = stringify!($gemv);
            const GEMM: &'static str = stringify!($gemm);
            const GEMM_STRIDED_BATCHED: &'static str = stringify!($sb);
            unsafe fn axpy(
                h: ffi::cublas::cublasHandle_t,
                n: c_int,
                alpha: *const Self,
                x: *const Self,
                incx: c_int,
                y: *mut Self,
                incy: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$axpy(h, n, alpha, x, incx, y, incy) }
            }
            unsafe fn dot(
                h: ffi::cublas::cublasHandle_t,
                n: c_int,
                x: *const Self,
                incx: c_int,
                y: *const Self,
                incy: c_int,
                result: *mut Self,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$dot(h, n, x, incx, y, incy, result) }
            }
            unsafe fn nrm2(
                h: ffi::cublas::cublasHandle_t,
                n: c_int,
                x: *const Self,
                incx: c_int,
                result: *mut Self,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$nrm2(h, n, x, incx, result) }
            }
            unsafe fn gemv(
                h: ffi::cublas::cublasHandle_t,
                trans: ffi::cublas::cublasOperation_t,
                m: c_int,
                n: c_int,
                alpha: *const Self,
                a: *const Self,
                lda: c_int,
                x: *const Self,
                incx: c_int,
                beta: *const Self,
                y: *mut Self,
                incy: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe { ffi::cublas::$gemv(h, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) }
            }
            unsafe fn gemm(
                h: ffi::cublas::cublasHandle_t,
                transa: ffi::cublas::cublasOperation_t,
                transb: ffi::cublas::cublasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                alpha: *const Self,
                a: *const Self,
                lda: c_int,
                b: *const Self,
                ldb: c_int,
                beta: *const Self,
                c: *mut Self,
                ldc: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe {
                    ffi::cublas::$gemm(
                        h, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                    )
                }
            }
            unsafe fn gemm_strided_batched(
                h: ffi::cublas::cublasHandle_t,
                transa: ffi::cublas::cublasOperation_t,
                transb: ffi::cublas::cublasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                alpha: *const Self,
                a: *const Self,
                lda: c_int,
                stride_a: core::ffi::c_longlong,
                b: *const Self,
                ldb: c_int,
                stride_b: core::ffi::c_longlong,
                beta: *const Self,
                c: *mut Self,
                ldc: c_int,
                stride_c: core::ffi::c_longlong,
                count: c_int,
            ) -> ffi::cublas::cublasStatus_t {
                // SAFETY: the caller's contract is this function's.
                unsafe {
                    ffi::cublas::$sb(
                        h, transa, transb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
                        beta, c, ldc, stride_c, count,
                    )
                }
            }
        }
    };
}

blas_scalar!(
    f32,
    cublasSaxpy_v2,
    cublasSdot_v2,
    cublasSnrm2_v2,
    cublasSgemv_v2,
    cublasSgemm_v2,
    cublasSgemmStridedBatched
);
blas_scalar!(
    f64,
    cublasDaxpy_v2,
    cublasDdot_v2,
    cublasDnrm2_v2,
    cublasDgemv_v2,
    cublasDgemm_v2,
    cublasDgemmStridedBatched
);

/// The element types of the typed cuBLAS calls: `f32` (`cublasS…`) and `f64` (`cublasD…`).
/// Sealed.
pub trait BlasScalar: DeviceCopy + PartialEq + core::fmt::Debug + sealed::Sealed {
    /// 1.
    const ONE: Self;
    /// 0.
    const ZERO: Self;
}

impl BlasScalar for f32 {
    const ONE: Self = 1.0;
    const ZERO: Self = 0.0;
}

impl BlasScalar for f64 {
    const ONE: Self = 1.0;
    const ZERO: Self = 0.0;
}

/// The 16-bit storage types of [`Blas::gemm_ex`]: [`F16`] (`CUDA_R_16F`) and [`Bf16`]
/// (`CUDA_R_16BF`). Sealed.
pub trait HalfFloat: DeviceCopy + sealed::HalfSealed {
    /// The `cudaDataType` of the storage.
    #[doc(hidden)]
    const DATA_TYPE: ffi::cublas::cudaDataType;
}

/// The output types of [`Blas::gemm_ex`] for inputs of type `A`: `A` itself or `f32`. Sealed.
pub trait GemmExOutput<A: HalfFloat>: DeviceCopy + sealed::OutputSealed<A> {
    /// The `cudaDataType` of the output.
    #[doc(hidden)]
    const DATA_TYPE: ffi::cublas::cudaDataType;
}

impl sealed::HalfSealed for F16 {}
impl sealed::HalfSealed for Bf16 {}
impl HalfFloat for F16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16F;
}
impl HalfFloat for Bf16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16BF;
}
impl<A: HalfFloat> sealed::OutputSealed<A> for f32 {}
impl<A: HalfFloat> GemmExOutput<A> for f32 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_32F;
}
impl sealed::OutputSealed<F16> for F16 {}
impl GemmExOutput<F16> for F16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16F;
}
impl sealed::OutputSealed<Bf16> for Bf16 {}
impl GemmExOutput<Bf16> for Bf16 {
    const DATA_TYPE: ffi::cublas::cudaDataType = ffi::cublas::cudaDataType::CUDA_R_16BF;
}

/// A device address as the pointer type cuBLAS takes.
fn dptr<T>(p: ffi::CUdeviceptr) -> *const T {
    p as usize as *const T
}
fn dptr_mut<T>(p: ffi::CUdeviceptr) -> *mut T {
    p as usize as *mut T
}

#[allow(
    clippy::many_single_char_names,
    reason = "BLAS's own names: the scope s, the operands a, b, c, x, y, the shape g"
)]
impl Blas<'_> {
    /// `cublasGetVersion_v2`—The cuBLAS version, as major·10000 + minor·100 + patch (e.g.
    /// 130100 for 13.1.0).
    ///
    /// # Errors
    ///
    /// cuBLAS's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasgetversion>
    #[doc(alias = "cublasGetVersion_v2")]
    pub fn version(&self) -> Result<i32> {
        let mut v: c_int = 0;
        // SAFETY: `cublasGetVersion_v2` writes an int through a valid out-pointer:
        // - `self.raw` is a live handle (destroyed only by `release`, which takes it out);
        // - `v` is a live local.
        status("cublasGetVersion_v2", unsafe {
            ffi::cublas::cublasGetVersion_v2(self.raw, &raw mut v)
        })?;
        Ok(v)
    }

    /// The raw handle, for cuBLAS functions this module does not wrap. It stays owned by
    /// `self`; set its stream yourself (calls of this module set it for each call, and reset
    /// it to the default stream after).
    pub fn as_raw(&self) -> ffi::cublas::cublasHandle_t {
        self.raw
    }

    /// Runs one cuBLAS call on the scope's stream: after the handle's previous call, with the
    /// scope's stream, the workspace and `mode` set, then records `order` after it and resets
    /// the handle's stream to the default stream (so the handle never keeps a stream that may
    /// be destroyed before it).
    fn enqueue(
        &self,
        s: &StreamScope<'_, '_>,
        call: &'static str,
        mode: ffi::cublas::cublasPointerMode_t,
        f: impl FnOnce(ffi::cublas::cublasHandle_t) -> ffi::cublas::cublasStatus_t,
    ) -> Result<()> {
        crate::asynchronous::refuse_inside_capture(call)?;
        s.wait(&self.order)?;
        let (ws, ws_bytes) = self
            .workspace
            .as_ref()
            .map_or((core::ptr::null_mut(), 0), |w| {
                (dptr_mut::<c_void>(w.device_ptr()), w.len())
            });
        // SAFETY: `cublasSetStream_v2` needs a live handle and a live stream of its context:
        // - `self.raw` is live (taken out only by `release`);
        // - the scope's stream is live for the scope and belongs to the current context, which
        //   is this handle's: the handle borrows the guard shared, so no other context can be
        //   pushed above it while the handle is reachable (push takes the guard mutably).
        status("cublasSetStream_v2", unsafe {
            ffi::cublas::cublasSetStream_v2(self.raw, s.as_raw())
        })?;
        // SAFETY: `cublasSetWorkspace_v2` needs device memory of the handle's context, 256-byte
        // aligned, live and used by nothing else while the handle's calls may run:
        // - the workspace is a `cuMemAlloc` allocation (256-byte aligned) of the guard's
        //   context, owned by `self` and freed only after the handle's last call completed;
        // - the calls of this handle never overlap on the GPU (`order`), and nothing else
        //   reaches the buffer (it is private).
        status("cublasSetWorkspace_v2", unsafe {
            ffi::cublas::cublasSetWorkspace_v2(self.raw, ws, ws_bytes)
        })?;
        // SAFETY: a live handle; `mode` is one of the two values of the enum.
        status("cublasSetPointerMode_v2", unsafe {
            ffi::cublas::cublasSetPointerMode_v2(self.raw, mode)
        })?;
        let called = status(call, f(self.raw));
        let recorded = s.record(&self.order);
        if recorded.is_err() {
            self.unordered.set(true);
        }
        // SAFETY: a live handle; the null stream is always valid. Work already enqueued stays
        // on the scope's stream.
        let reset = status("cublasSetStream_v2", unsafe {
            ffi::cublas::cublasSetStream_v2(self.raw, core::ptr::null_mut())
        });
        called.and(recorded).and(reset)
    }

    /// `cublasSaxpy_v2`/`cublasDaxpy_v2`—Enqueues `y = alpha·x + y` on `n` elements, `incx`
    /// and `incy` apart (non-zero; negative walks from the end).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] if `x` holds fewer than
    /// `1 + (n-1)·|incx|` elements (or `y` for `incy`), [`ErrorKind::InvalidValue`] for an
    /// increment of 0, [`ErrorKind::SizeOverflow`] for a value beyond a C `int`. cuBLAS's
    /// status (`Cublas…` kinds); driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{DeviceMemory, Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let blas = guard.blas()?;
    /// let x = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
    /// let mut y = guard.alloc_from(&[1.0f32; 3])?;
    /// guard.stream()?.scope(|s| blas.axpy(s, 3, 2.0, s.bind(&x), 1, s.bind_mut(&mut y), 1))??;
    /// assert_eq!(y.to_vec()?, [3.0, 5.0, 7.0]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-axpy>
    #[doc(alias = "cublasSaxpy_v2")]
    #[doc(alias = "cublasDaxpy_v2")]
    #[allow(clippy::too_many_arguments, reason = "BLAS's own argument list")]
    pub fn axpy<'scope, T: BlasScalar>(
        &self,
        s: &StreamScope<'scope, '_>,
        n: usize,
        alpha: T,
        x: impl ScopedRead<'scope, T>,
        incx: isize,
        y: impl ScopedWrite<'scope, T>,
        incy: isize,
    ) -> Result<()> {
        let call = T::AXPY;
        let ((x, x_len), (y, y_len)) = (x.raw_parts(), y.raw_parts());
        let n_c = check::int(call, "n", n)?;
        let incx = check::vector(call, "x", n, incx, x_len)?;
        let incy = check::vector(call, "y", n, incy, y_len)?;
        let mode = ffi::cublas::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        self.enqueue(s, call, mode, |h| {
            // SAFETY: `cublas?axpy_v2` reads `alpha` on the host and `n` elements of `x`, and
            // reads and writes `n` of `y`, in stream order:
            // - `alpha` is a live local, read before the call returns (host pointer mode);
            // - `x` and `y` are device memory of this context bound to the scope (alive and
            //   unreleased until the scope's stream is synchronized) spanning at least
            //   `1 + (n-1)·|inc|` elements each (checked above);
            // - `y` is an exclusive binding, so it aliases no other operand.
            unsafe { T::axpy(h, n_c, &raw const alpha, dptr(x), incx, dptr_mut(y), incy) }
        })
    }

    /// `cublasSdot_v2`/`cublasDdot_v2`—Enqueues the dot product of `n` elements of `x` and
    /// `y` (`incx`, `incy` apart), written to `result[0]` on the device in stream order.
    ///
    /// # Errors
    ///
    /// As [`axpy`](Self::axpy); [`ErrorKind::BufferTooShort`] for an empty `result`.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{DeviceMemory, Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let blas = guard.blas()?;
    /// let x = guard.alloc_from(&[1.0f64, 2.0, 3.0])?;
    /// let mut r = guard.alloc_zeroed::<f64>(1)?;
    /// guard.stream()?.scope(|s| blas.dot(s, 3, s.bind(&x), 1, s.bind(&x), 1, s.bind_mut(&mut r)))??;
    /// assert_eq!(r.to_vec()?, [14.0]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-dot>
    #[doc(alias = "cublasSdot_v2")]
    #[doc(alias = "cublasDdot_v2")]
    #[allow(clippy::too_many_arguments, reason = "BLAS's own argument list")]
    pub fn dot<'scope, T: BlasScalar>(
        &self,
        s: &StreamScope<'scope, '_>,
        n: usize,
        x: impl ScopedRead<'scope, T>,
        incx: isize,
        y: impl ScopedRead<'scope, T>,
        incy: isize,
        result: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        let call = T::DOT;
        let ((x, x_len), (y, y_len), (r, r_len)) =
            (x.raw_parts(), y.raw_parts(), result.raw_parts());
        let n_c = check::int(call, "n", n)?;
        let incx = check::vector(call, "x", n, incx, x_len)?;
        let incy = check::vector(call, "y", n, incy, y_len)?;
        check::result(call, r_len)?;
        let mode = ffi::cublas::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE;
        self.enqueue(s, call, mode, |h| {
            // SAFETY: `cublas?dot_v2` reads `n` elements of `x` and `y` and, in device pointer
            // mode, writes one element to `result`, all in stream order:
            // - `x`, `y`, `result` are device memory of this context bound to the scope (alive
            //   until its stream is synchronized); `x` and `y` span the elements the increments
            //   reach, `result` holds at least one (checked above);
            // - `result` is an exclusive binding: it aliases neither input.
            unsafe { T::dot(h, n_c, dptr(x), incx, dptr(y), incy, dptr_mut(r)) }
        })
    }

    /// `cublasSnrm2_v2`/`cublasDnrm2_v2`—Enqueues the Euclidean norm of `n` elements of `x`
    /// (`incx` apart, positive), written to `result[0]` on the device in stream order.
    ///
    /// # Errors
    ///
    /// As [`dot`](Self::dot); [`ErrorKind::InvalidValue`] for `incx ≤ 0` (cuBLAS would
    /// return 0).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-nrm2>
    #[doc(alias = "cublasSnrm2_v2")]
    #[doc(alias = "cublasDnrm2_v2")]
    pub fn nrm2<'scope, T: BlasScalar>(
        &self,
        s: &StreamScope<'scope, '_>,
        n: usize,
        x: impl ScopedRead<'scope, T>,
        incx: isize,
        result: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        let call = T::NRM2;
        let ((x, x_len), (r, r_len)) = (x.raw_parts(), result.raw_parts());
        if incx < 0 {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("{call}: incx {incx} < 0; nothing was enqueued"),
            ));
        }
        let n_c = check::int(call, "n", n)?;
        let incx = check::vector(call, "x", n, incx, x_len)?;
        check::result(call, r_len)?;
        let mode = ffi::cublas::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE;
        self.enqueue(s, call, mode, |h| {
            // SAFETY: as in `dot`, with one input.
            unsafe { T::nrm2(h, n_c, dptr(x), incx, dptr_mut(r)) }
        })
    }

    /// `cublasSgemv_v2`/`cublasDgemv_v2`—Enqueues `y = alpha·op(A)·x + beta·y` (see
    /// [`Gemv`]).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] for `lda < max(1, m)` or an
    /// increment of 0, [`ErrorKind::BufferTooShort`] naming the operand shorter than the call
    /// reaches, [`ErrorKind::SizeOverflow`]. cuBLAS's status; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemv>
    #[doc(alias = "cublasSgemv_v2")]
    #[doc(alias = "cublasDgemv_v2")]
    pub fn gemv<'scope, T: BlasScalar>(
        &self,
        s: &StreamScope<'scope, '_>,
        g: &Gemv<T>,
        a: impl ScopedRead<'scope, T>,
        x: impl ScopedRead<'scope, T>,
        y: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        let call = T::GEMV;
        let ((a, a_len), (x, x_len), (y, y_len)) = (a.raw_parts(), x.raw_parts(), y.raw_parts());
        let args = check::gemv(call, g, [a_len, x_len, y_len])?;
        let (alpha, beta) = (g.alpha, g.beta);
        let mode = ffi::cublas::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        self.enqueue(s, call, mode, |h| {
            // SAFETY: `cublas?gemv_v2` reads `alpha`, `beta` on the host and A, x in stream
            // order, and writes y:
            // - `alpha`, `beta` are live locals, read before the call returns (host mode);
            // - A spans `lda·(n-1) + m` elements, x and y what their increments reach
            //   (checked above), all device memory of this context bound to the scope;
            // - `y` is an exclusive binding, aliasing neither input.
            unsafe {
                T::gemv(
                    h,
                    g.trans.raw(),
                    args.m,
                    args.n,
                    &raw const alpha,
                    dptr(a),
                    args.lda,
                    dptr(x),
                    args.incx,
                    &raw const beta,
                    dptr_mut(y),
                    args.incy,
                )
            }
        })
    }

    /// `cublasSgemm_v2`/`cublasDgemm_v2`—Enqueues `C = alpha·op(A)·op(B) + beta·C`
    /// (column-major; see [`Gemm`] and the [module docs](self) for row-major data).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] for a leading dimension below
    /// its minimum (`lda 3 < m 4`), [`ErrorKind::BufferTooShort`] naming the operand shorter
    /// than its extent (`b holds 10 elements, the call needs 12`),
    /// [`ErrorKind::SizeOverflow`]. cuBLAS's status; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{DeviceMemory, Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::blas::Gemm;
    /// let blas = guard.blas()?;
    /// let a = guard.alloc_from(&[1.0f64, 2.0])?; // 2×1
    /// let b = guard.alloc_from(&[3.0f64, 4.0])?; // 1×2
    /// let mut c = guard.alloc_zeroed::<f64>(4)?; // 2×2, column-major
    /// guard.stream()?.scope(|s| {
    ///     blas.gemm(s, &Gemm::new(2, 2, 1), s.bind(&a), s.bind(&b), s.bind_mut(&mut c))
    /// })??;
    /// assert_eq!(c.to_vec()?, [3.0, 6.0, 4.0, 8.0]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemm>
    #[doc(alias = "cublasSgemm_v2")]
    #[doc(alias = "cublasDgemm_v2")]
    pub fn gemm<'scope, T: BlasScalar>(
        &self,
        s: &StreamScope<'scope, '_>,
        g: &Gemm<T>,
        a: impl ScopedRead<'scope, T>,
        b: impl ScopedRead<'scope, T>,
        c: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        let call = T::GEMM;
        let ((a, a_len), (b, b_len), (c, c_len)) = (a.raw_parts(), b.raw_parts(), c.raw_parts());
        let args = check::gemm(call, g, [a_len, b_len, c_len])?;
        let (alpha, beta) = (g.alpha, g.beta);
        let mode = ffi::cublas::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        self.enqueue(s, call, mode, |h| {
            // SAFETY: `cublas?gemm_v2` reads `alpha`, `beta` on the host, A and B in stream
            // order, and reads and writes C:
            // - `alpha`, `beta` are live locals, read before the call returns (host mode);
            // - A, B and C span at least `ld·(cols-1) + rows` elements of their stored shapes,
            //   with every leading dimension at least its row count (checked above), so no
            //   column of C overlaps another;
            // - all three are device memory of this context bound to the scope (alive until its
            //   stream is synchronized); C is an exclusive binding, aliasing neither input.
            unsafe {
                T::gemm(
                    h,
                    g.transa.raw(),
                    g.transb.raw(),
                    args.m,
                    args.n,
                    args.k,
                    &raw const alpha,
                    dptr(a),
                    args.lda,
                    dptr(b),
                    args.ldb,
                    &raw const beta,
                    dptr_mut(c),
                    args.ldc,
                )
            }
        })
    }

    /// `cublasSgemmStridedBatched`/`cublasDgemmStridedBatched`—Enqueues `batch.count` GEMMs
    /// of shape `g`, the operands of GEMM `i` starting `i·stride` elements into `a`, `b`, `c`
    /// (see [`Batch`]).
    ///
    /// # Errors
    ///
    /// As [`gemm`](Self::gemm), with each buffer needing `stride·(count-1) + extent` elements;
    /// [`ErrorKind::InvalidValue`] if the `C`s would overlap (`stride_c` below one `C`'s
    /// extent with `count > 1`).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublas-t-gemmstridedbatched>
    #[doc(alias = "cublasSgemmStridedBatched")]
    #[doc(alias = "cublasDgemmStridedBatched")]
    pub fn gemm_strided_batched<'scope, T: BlasScalar>(
        &self,
        s: &StreamScope<'scope, '_>,
        g: &Gemm<T>,
        batch: &Batch,
        a: impl ScopedRead<'scope, T>,
        b: impl ScopedRead<'scope, T>,
        c: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        let call = T::GEMM_STRIDED_BATCHED;
        let ((a, a_len), (b, b_len), (c, c_len)) = (a.raw_parts(), b.raw_parts(), c.raw_parts());
        let (args, bargs) = check::gemm_strided_batched(call, g, batch, [a_len, b_len, c_len])?;
        let (alpha, beta) = (g.alpha, g.beta);
        let mode = ffi::cublas::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        self.enqueue(s, call, mode, |h| {
            // SAFETY: as in `gemm`, for each GEMM of the batch: every operand of GEMM `i`
            // lies within `stride·(count-1) + extent` elements of its buffer (checked above),
            // and the Cs do not overlap one another (`stride_c` ≥ one C's extent, checked).
            unsafe {
                T::gemm_strided_batched(
                    h,
                    g.transa.raw(),
                    g.transb.raw(),
                    args.m,
                    args.n,
                    args.k,
                    &raw const alpha,
                    dptr(a),
                    args.lda,
                    bargs.stride_a,
                    dptr(b),
                    args.ldb,
                    bargs.stride_b,
                    &raw const beta,
                    dptr_mut(c),
                    args.ldc,
                    bargs.stride_c,
                    bargs.count,
                )
            }
        })
    }

    /// `cublasGemmEx`—Enqueues `C = alpha·op(A)·op(B) + beta·C` on 16-bit inputs ([`F16`] or
    /// [`Bf16`]) with `f32` arithmetic (`CUBLAS_COMPUTE_32F`), `C` of the input type or `f32`;
    /// shapes as [`gemm`](Self::gemm), scalars `f32`.
    ///
    /// # Errors
    ///
    /// As [`gemm`](Self::gemm). [`ErrorKind::CublasNotSupported`] or
    /// [`ErrorKind::CublasArchMismatch`] where the device lacks the type (bfloat16 needs
    /// compute capability 8.0).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasgemmex>
    #[doc(alias = "cublasGemmEx")]
    pub fn gemm_ex<'scope, A: HalfFloat, C: GemmExOutput<A>>(
        &self,
        s: &StreamScope<'scope, '_>,
        g: &Gemm<f32>,
        a: impl ScopedRead<'scope, A>,
        b: impl ScopedRead<'scope, A>,
        c: impl ScopedWrite<'scope, C>,
    ) -> Result<()> {
        let call = "cublasGemmEx";
        let ((a, a_len), (b, b_len), (c, c_len)) = (a.raw_parts(), b.raw_parts(), c.raw_parts());
        let args = check::gemm(call, g, [a_len, b_len, c_len])?;
        let (alpha, beta) = (g.alpha, g.beta);
        let mode = ffi::cublas::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        self.enqueue(s, call, mode, |h| {
            // SAFETY: as in `gemm`; the data types passed are those of the bound memory
            // (`A::DATA_TYPE`, `C::DATA_TYPE`, each the `cudaDataType` of its Rust type), and
            // with `CUBLAS_COMPUTE_32F` the scalars are `f32`, which `alpha` and `beta` are.
            unsafe {
                ffi::cublas::cublasGemmEx(
                    h,
                    g.transa.raw(),
                    g.transb.raw(),
                    args.m,
                    args.n,
                    args.k,
                    (&raw const alpha).cast(),
                    dptr(a),
                    A::DATA_TYPE,
                    args.lda,
                    dptr(b),
                    A::DATA_TYPE,
                    args.ldb,
                    (&raw const beta).cast(),
                    dptr_mut(c),
                    C::DATA_TYPE,
                    args.ldc,
                    ffi::cublas::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    ffi::cublas::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                )
            }
        })
    }

    /// `cublasDestroy_v2`—Destroys the handle, waits for its last call to finish, and frees
    /// its workspace, returning the first error.
    ///
    /// # Errors
    ///
    /// cuBLAS's status; the error of the wait (the first error of the handle's work, or a
    /// sticky error). If the wait fails without a sticky error, the workspace is leaked rather
    /// than freed while the GPU may still use it.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasdestroy>
    #[doc(alias = "cublasDestroy_v2")]
    pub fn destroy(mut self) -> Result<()> {
        self.release()
    }

    /// Destroys the handle and releases the workspace, once; `Drop` and `destroy` call it.
    fn release(&mut self) -> Result<()> {
        let raw = core::mem::replace(&mut self.raw, core::ptr::null_mut());
        let destroyed = if raw.is_null() {
            Ok(())
        } else {
            // SAFETY: `cublasDestroy_v2` needs a live handle whose context is current:
            // - `raw` was live and is destroyed once (replaced by null above);
            // - the handle borrows its guard, so the guard's context is current here (nothing
            //   can be pushed above a guard that is borrowed).
            status("cublasDestroy_v2", unsafe {
                ffi::cublas::cublasDestroy_v2(raw)
            })
        };
        // The workspace may be freed only when no call of this handle can still run. The
        // calls form a chain (each waits for the previous one's record of `order`), so the
        // last record's completion covers them all; if a record failed, wait for the context.
        // (`cublasDestroy_v2` synchronizes the device too, by its documentation; custack does
        // not rely on that.)
        let waited = if self.unordered.get() {
            // SAFETY: no arguments; the handle's context is current (see above).
            unsafe { ffi::cuCtxSynchronize() }.result()
        } else {
            self.order.synchronize()
        };
        let workspace = self.workspace.take();
        let freed = match &waited {
            Err(e) if !e.is_sticky() => {
                // Not known to be finished: leak rather than free memory the GPU may use.
                core::mem::forget(workspace);
                Ok(())
            }
            // Finished, or the context is unusable (a sticky error: nothing runs any more).
            _ => workspace.map_or(Ok(()), DeviceBuffer::free),
        };
        destroyed.and(waited).and(freed)
    }
}

impl Drop for Blas<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_their_kinds_and_keep_the_value() {
        use ffi::cublas::cublasStatus_t as S;
        for (st, kind) in [
            (
                S::CUBLAS_STATUS_NOT_INITIALIZED,
                ErrorKind::CublasNotInitialized,
            ),
            (S::CUBLAS_STATUS_ALLOC_FAILED, ErrorKind::CublasAllocFailed),
            (
                S::CUBLAS_STATUS_INVALID_VALUE,
                ErrorKind::CublasInvalidValue,
            ),
            (
                S::CUBLAS_STATUS_ARCH_MISMATCH,
                ErrorKind::CublasArchMismatch,
            ),
            (
                S::CUBLAS_STATUS_MAPPING_ERROR,
                ErrorKind::CublasMappingError,
            ),
            (
                S::CUBLAS_STATUS_EXECUTION_FAILED,
                ErrorKind::CublasExecutionFailed,
            ),
            (
                S::CUBLAS_STATUS_INTERNAL_ERROR,
                ErrorKind::CublasInternalError,
            ),
            (
                S::CUBLAS_STATUS_NOT_SUPPORTED,
                ErrorKind::CublasNotSupported,
            ),
            (
                S::CUBLAS_STATUS_LICENSE_ERROR,
                ErrorKind::CublasLicenseError,
            ),
        ] {
            assert_eq!(status_kind(st), kind);
            assert!(kind.name().starts_with("CUBLAS_STATUS_"), "{kind:?}");
            let e = status("cublasSgemm_v2", st).unwrap_err();
            assert_eq!(e.kind(), kind);
            assert!(!e.is_sticky());
            let detail = e.detail().unwrap();
            assert!(
                detail.starts_with(&format!(
                    "cublasSgemm_v2 returned {} ({})",
                    kind.name(),
                    st.0
                )),
                "{detail}"
            );
        }
        assert_eq!(status_kind(S(2)), ErrorKind::CublasUnlisted);
        let e = status("cublasGemmEx", S(4242)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CublasUnlisted);
        assert!(
            e.detail()
                .unwrap()
                .starts_with("cublasGemmEx returned status (4242)")
        );
        assert!(status("cublasGemmEx", S::CUBLAS_STATUS_SUCCESS).is_ok());
    }

    #[test]
    fn a_build_without_cublas_says_what_to_set() {
        // Both builds are checked: with cuBLAS linked this must be `Ok`, without (the feature
        // on, no library found) an error naming the variable and the wheel.
        let result = not_linked();
        assert_eq!(result.is_err(), cfg!(custack_no_cublas));
        if let Err(e) = result {
            assert_eq!(e.kind(), ErrorKind::LibraryNotLinked);
            let text = e.to_string();
            assert!(text.contains("CUSTACK_CUBLAS_LIB_DIR"), "{text}");
            assert!(text.contains("nvidia-cublas"), "{text}");
        }
    }

    #[test]
    fn packed_batches_use_full_columns() {
        let g = Gemm::<f64>::new(3, 4, 5)
            .transpose_a()
            .leading_dims(6, 5, 3);
        // A stored 5×3 with lda 6: stride 6·3; B 5×4: 5·4; C 3×4: 3·4.
        assert_eq!(
            Batch::packed(&g, 2),
            Batch {
                count: 2,
                stride_a: 18,
                stride_b: 20,
                stride_c: 12
            }
        );
    }
}
