//! Level-2 calls (matrix–vector): [`Blas::gemv`].

use crate::asynchronous::scope::StreamScope;
use crate::blas::check;
use crate::blas::handle::{Blas, dptr, dptr_mut};
use crate::blas::scalar::BlasScalar;
use crate::blas::shape::Gemv;
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
                (T::GEMV_FN)(
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
}
