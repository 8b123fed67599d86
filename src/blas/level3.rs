//! Level-3 calls (matrix–matrix): [`Blas::gemm`], [`Blas::gemm_strided_batched`] and, on
//! 16-bit inputs, [`Blas::gemm_ex`].

use crate::asynchronous::scope::StreamScope;
use crate::blas::check;
#[cfg(doc)]
use crate::blas::half::{Bf16, F16};
use crate::blas::handle::{Blas, dptr, dptr_mut};
use crate::blas::scalar::{BlasScalar, GemmExOutput, HalfFloat};
use crate::blas::shape::{Batch, Gemm};
#[cfg(doc)]
use crate::error::ErrorKind;
use crate::error::Result;
use crate::ffi;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};

#[allow(
    clippy::many_single_char_names,
    reason = "BLAS's own names: the scope s, the operands a, b, c, x, y, the shape g"
)]
impl Blas<'_> {
    /// `cublasSgemm_v2`/`cublasDgemm_v2`—Enqueues `C = alpha·op(A)·op(B) + beta·C`
    /// (column-major; see [`Gemm`] and the [module docs](crate::blas) for row-major data).
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
                (T::GEMM_FN)(
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
    /// [`ErrorKind::InvalidValue`] if two GEMMs would write one element of `C` (naming the two
    /// and the element; see [`Batch`]).
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
            // and no element of C is written by two batches (checked exactly).
            unsafe {
                (T::GEMM_STRIDED_BATCHED_FN)(
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
}
