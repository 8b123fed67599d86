//! cuSPARSE's statuses as results: the `Cusparse…` kind named after the status, the detail
//! naming the call and cuSPARSE's description of the status.

use crate::error::{Error, LibraryStatus, Result};
use crate::ffi;
use core::ffi::CStr;

/// A cuSPARSE status as a result: the kind named after the status, the detail naming the call.
#[inline]
pub(crate) fn status(call: &str, status: ffi::cusparse::cusparseStatus_t) -> Result<()> {
    if status == ffi::cusparse::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        return Ok(());
    }
    Err(status_error(call, status))
}

#[cold]
#[inline(never)]
fn status_error(call: &str, status: ffi::cusparse::cusparseStatus_t) -> Error {
    // SAFETY: `cusparseGetErrorString` takes any value and returns a pointer to a static
    // NUL-terminated string (a generic one for unknown values); null is checked below.
    let text = unsafe { ffi::cusparse::cusparseGetErrorString(status) };
    let text = if text.is_null() {
        String::new()
    } else {
        // SAFETY: a non-null pointer from `cusparseGetErrorString`: a static, NUL-terminated
        // string that cuSPARSE never frees.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    };
    Error::library(
        status,
        format!("{}: {text}", status.returned(call, "status")),
    )
}

/// `Err` in a build that found no cuSPARSE.
pub(crate) fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::CUSPARSE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn statuses_map_to_their_kinds_and_keep_the_value() {
        use ffi::cusparse::cusparseStatus_t as S;
        for (st, kind) in [
            (
                S::CUSPARSE_STATUS_NOT_INITIALIZED,
                ErrorKind::CusparseNotInitialized,
            ),
            (
                S::CUSPARSE_STATUS_ALLOC_FAILED,
                ErrorKind::CusparseAllocFailed,
            ),
            (
                S::CUSPARSE_STATUS_INVALID_VALUE,
                ErrorKind::CusparseInvalidValue,
            ),
            (
                S::CUSPARSE_STATUS_ARCH_MISMATCH,
                ErrorKind::CusparseArchMismatch,
            ),
            (
                S::CUSPARSE_STATUS_MAPPING_ERROR,
                ErrorKind::CusparseMappingError,
            ),
            (
                S::CUSPARSE_STATUS_EXECUTION_FAILED,
                ErrorKind::CusparseExecutionFailed,
            ),
            (
                S::CUSPARSE_STATUS_INTERNAL_ERROR,
                ErrorKind::CusparseInternalError,
            ),
            (
                S::CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED,
                ErrorKind::CusparseMatrixTypeNotSupported,
            ),
            (S::CUSPARSE_STATUS_ZERO_PIVOT, ErrorKind::CusparseZeroPivot),
            (
                S::CUSPARSE_STATUS_NOT_SUPPORTED,
                ErrorKind::CusparseNotSupported,
            ),
            (
                S::CUSPARSE_STATUS_INSUFFICIENT_RESOURCES,
                ErrorKind::CusparseInsufficientResources,
            ),
        ] {
            assert_eq!(st.kind(), kind);
            assert!(kind.name().starts_with("CUSPARSE_STATUS_"), "{kind:?}");
            let e = status("cusparseSpMV", st).unwrap_err();
            assert_eq!(e.library_status(), Some(st.0));
            assert_eq!(e.kind(), kind);
            assert!(!e.is_sticky());
            let detail = e.detail().unwrap();
            assert!(
                detail.starts_with(&format!("cusparseSpMV returned {} ({})", kind.name(), st.0)),
                "{detail}"
            );
        }
        let e = status("cusparseSpMM", S(4242)).unwrap_err();
        assert_eq!(e.library_status(), Some(4242));
        assert_eq!(e.kind(), ErrorKind::CusparseUnlisted);
        assert!(
            e.detail()
                .unwrap()
                .starts_with("cusparseSpMM returned status (4242)")
        );
        assert!(status("cusparseSpMM", S::CUSPARSE_STATUS_SUCCESS).is_ok());
    }
}
