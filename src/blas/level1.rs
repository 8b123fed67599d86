//! Level-1 calls (vector–vector): [`Blas::axpy`], [`Blas::dot`], [`Blas::nrm2`].

use crate::asynchronous::scope::StreamScope;
use crate::blas::check;
use crate::blas::handle::{Blas, dptr, dptr_mut};
use crate::blas::scalar::BlasScalar;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};

#[allow(
    clippy::many_single_char_names,
    reason = "BLAS's own names: the scope s, the operands a, b, c, x, y, the shape g"
)]
impl Blas<'_> {
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
            unsafe { (T::AXPY_FN)(h, n_c, &raw const alpha, dptr(x), incx, dptr_mut(y), incy) }
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
            unsafe { (T::DOT_FN)(h, n_c, dptr(x), incx, dptr(y), incy, dptr_mut(r)) }
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
            unsafe { (T::NRM2_FN)(h, n_c, dptr(x), incx, dptr_mut(r)) }
        })
    }
}
