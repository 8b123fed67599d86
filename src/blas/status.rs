//! cuBLAS's statuses as results: the `Cublas…` kind named after the status, the detail naming
//! the call and cuBLAS's description of the status.

use crate::error::{Error, LibraryStatus, Result};
use crate::ffi;
use core::ffi::CStr;

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
    Error::library(
        status,
        format!("{}: {text}", status.returned(call, "status")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

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
            assert_eq!(st.kind(), kind);
            assert!(kind.name().starts_with("CUBLAS_STATUS_"), "{kind:?}");
            let e = status("cublasSgemm_v2", st).unwrap_err();
            assert_eq!(e.library_status(), Some(st.0));
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
        assert_eq!(S(2).kind(), ErrorKind::CublasUnlisted);
        let e = status("cublasGemmEx", S(4242)).unwrap_err();
        assert_eq!(e.library_status(), Some(4242));
        assert_eq!(e.kind(), ErrorKind::CublasUnlisted);
        assert!(
            e.detail()
                .unwrap()
                .starts_with("cublasGemmEx returned status (4242)")
        );
        assert!(status("cublasGemmEx", S::CUBLAS_STATUS_SUCCESS).is_ok());
    }
}
