//! The shapes and scalars of the matrix calls ([`Gemm`], [`Gemv`], [`Batch`]) and how an
//! operand is read ([`Transpose`]): plain values, which `check.rs` checks against the bound
//! buffers before a call enqueues anything.

use crate::blas::scalar::BlasScalar;
#[cfg(doc)]
use crate::error::ErrorKind;
use crate::ffi;

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
    pub(crate) fn raw(self) -> ffi::cublas::cublasOperation_t {
        match self {
            Self::No => ffi::cublas::cublasOperation_t::CUBLAS_OP_N,
            Self::Yes => ffi::cublas::cublasOperation_t::CUBLAS_OP_T,
        }
    }
}

/// The setters of `alpha` and `beta`, the same on [`Gemm`] and [`Gemv`].
macro_rules! scalar_setters {
    () => {
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
    };
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

    scalar_setters!();
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
    scalar_setters!();
}

/// A strided batch: `count` GEMMs whose operands lie `stride_a`, `stride_b`, `stride_c`
/// elements apart in their buffers. A stride of 0 reuses one `A` (or `B`) for every GEMM; no
/// element of `C` may be written by two GEMMs (checked exactly: `stride_c` at least one `C`'s
/// extent, `ldc·(n-1) + m`, always is; a smaller one is accepted when the `C`s interleave
/// without sharing an element, e.g. `m = 2`, `ldc = 4`, `stride_c = 2`, two GEMMs).
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

#[cfg(test)]
mod tests {
    use super::*;

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
