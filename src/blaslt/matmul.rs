//! A matmul's description in plain values ([`Matmul`]): its shape, transposes, leading
//! dimensions and scalars (a [`Gemm<f32>`](Gemm), as cuBLAS's), an optional strided
//! [`Batch`], and what is applied to the product before it is stored ([`Epilogue`]).

use crate::blas::shape::{Batch, Gemm};
use crate::ffi;

/// What is applied to `alpha·op(A)·op(B) + beta·C` before it is stored in `D`. The bias is a
/// vector of `m` elements (one per row of `D`) of `D`'s type; GELU is cuBLASLt's (the tanh
/// approximation); the `Aux` forms also store GELU's input in an auxiliary matrix of `D`'s type
/// (for the backward pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
#[doc(alias = "cublasLtEpilogue_t")]
pub enum Epilogue {
    /// `CUBLASLT_EPILOGUE_DEFAULT`: nothing.
    #[default]
    None,
    /// `CUBLASLT_EPILOGUE_RELU`: `max(x, 0)`.
    Relu,
    /// `CUBLASLT_EPILOGUE_GELU`: `GELU(x)`.
    Gelu,
    /// `CUBLASLT_EPILOGUE_BIAS`: `x + bias[row]`.
    Bias,
    /// `CUBLASLT_EPILOGUE_RELU_BIAS`: `max(x + bias[row], 0)`.
    ReluBias,
    /// `CUBLASLT_EPILOGUE_GELU_BIAS`: `GELU(x + bias[row])`.
    GeluBias,
    /// `CUBLASLT_EPILOGUE_GELU_AUX`: `GELU(x)`, and `x` stored in the auxiliary matrix.
    GeluAux,
    /// `CUBLASLT_EPILOGUE_GELU_AUX_BIAS`: `GELU(x + bias[row])`, and `x + bias[row]` stored.
    GeluAuxBias,
}

impl Epilogue {
    pub(crate) fn raw(self) -> ffi::cublaslt::cublasLtEpilogue_t {
        use ffi::cublaslt::cublasLtEpilogue_t as E;
        match self {
            Self::None => E::CUBLASLT_EPILOGUE_DEFAULT,
            Self::Relu => E::CUBLASLT_EPILOGUE_RELU,
            Self::Gelu => E::CUBLASLT_EPILOGUE_GELU,
            Self::Bias => E::CUBLASLT_EPILOGUE_BIAS,
            Self::ReluBias => E::CUBLASLT_EPILOGUE_RELU_BIAS,
            Self::GeluBias => E::CUBLASLT_EPILOGUE_GELU_BIAS,
            Self::GeluAux => E::CUBLASLT_EPILOGUE_GELU_AUX,
            Self::GeluAuxBias => E::CUBLASLT_EPILOGUE_GELU_AUX_BIAS,
        }
    }

    /// Whether it reads a bias vector.
    pub fn has_bias(self) -> bool {
        matches!(
            self,
            Self::Bias | Self::ReluBias | Self::GeluBias | Self::GeluAuxBias
        )
    }

    /// Whether it writes an auxiliary matrix.
    pub fn has_aux(self) -> bool {
        matches!(self, Self::GeluAux | Self::GeluAuxBias)
    }
}

/// `D = epilogue(alpha·op(A)·op(B) + beta·C)`, column-major, computed in `f32`: the shape,
/// transposes, leading dimensions and scalars of a [`Gemm<f32>`](Gemm) (`C` and `D` share `ldc`,
/// so a matmul may run in place), an optional strided [`Batch`] (`D`'s stride is `C`'s), and an
/// [`Epilogue`].
///
/// ```
/// use custack::blas::Gemm;
/// use custack::blaslt::{Epilogue, Matmul};
/// // A layer's forward pass: D = ReLU(W·X + b), W 256 × 512, X 512 × 64.
/// let layer = Matmul::new(Gemm::new(256, 64, 512)).epilogue(Epilogue::ReluBias);
/// # let _ = layer;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Matmul {
    pub(crate) gemm: Gemm<f32>,
    pub(crate) batch: Option<Batch>,
    pub(crate) epilogue: Epilogue,
    pub(crate) aux_ld: Option<usize>,
    pub(crate) tf32: bool,
}

impl Matmul {
    /// The matmul of `gemm`'s shape and scalars, one of it, no epilogue.
    pub fn new(gemm: Gemm<f32>) -> Self {
        Self {
            gemm,
            batch: None,
            epilogue: Epilogue::None,
            aux_ld: None,
            tf32: false,
        }
    }

    /// `f32` inputs multiplied on TF32 tensor cores (`CUBLAS_COMPUTE_32F_FAST_TF32`: each
    /// input rounded to 10 bits of mantissa, the products accumulated in `f32`), which is much
    /// faster for large matrices and what many inference frameworks use; by default the
    /// arithmetic is full `f32` (`CUBLAS_COMPUTE_32F`). For `f32` inputs only.
    #[must_use]
    pub fn fast_tf32(mut self) -> Self {
        self.tf32 = true;
        self
    }

    /// `batch.count` matmuls, operand `x` of matmul `i` starting `i·stride_x` elements in
    /// (`D`'s stride is `stride_c`; no element of `D` may be written twice).
    #[must_use]
    pub fn batched(mut self, batch: Batch) -> Self {
        self.batch = Some(batch);
        self
    }

    /// What is applied before `D` is stored.
    #[must_use]
    pub fn epilogue(mut self, epilogue: Epilogue) -> Self {
        self.epilogue = epilogue;
        self
    }

    /// The auxiliary matrix's leading dimension (at least `m`, a multiple of 8, as cuBLASLt
    /// requires; by default `m` rounded up to a multiple of 8); for the `Aux` epilogues only.
    #[must_use]
    pub fn aux_ld(mut self, ld: usize) -> Self {
        self.aux_ld = Some(ld);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epilogues_name_cublaslt_values_and_say_what_they_take() {
        let all = [
            (Epilogue::None, 1, false, false),
            (Epilogue::Relu, 2, false, false),
            (Epilogue::Bias, 4, true, false),
            (Epilogue::ReluBias, 6, true, false),
            (Epilogue::Gelu, 32, false, false),
            (Epilogue::GeluBias, 36, true, false),
            (Epilogue::GeluAux, 160, false, true),
            (Epilogue::GeluAuxBias, 164, true, true),
        ];
        for (e, value, bias, aux) in all {
            assert_eq!(e.raw().0, value, "{e:?}");
            assert_eq!((e.has_bias(), e.has_aux()), (bias, aux), "{e:?}");
        }
    }
}
