//! cuSOLVER's statuses as errors: the `Cusolver…` kind named after the status, the detail
//! naming the call.

use crate::error::{Error, Result};
use crate::ffi;

/// A cuSOLVER status as a `Result`: the kind named after it, the detail naming the call.
#[inline]
pub(crate) fn status(call: &str, result: ffi::cusolver::cusolverStatus_t) -> Result<()> {
    Error::check_library(
        result,
        ffi::cusolver::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS,
        call,
        "status",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn statuses_map_to_their_kinds_and_keep_the_value() {
        let listed = [
            (1, "CUSOLVER_STATUS_NOT_INITIALIZED"),
            (2, "CUSOLVER_STATUS_ALLOC_FAILED"),
            (3, "CUSOLVER_STATUS_INVALID_VALUE"),
            (4, "CUSOLVER_STATUS_ARCH_MISMATCH"),
            (5, "CUSOLVER_STATUS_MAPPING_ERROR"),
            (6, "CUSOLVER_STATUS_EXECUTION_FAILED"),
            (7, "CUSOLVER_STATUS_INTERNAL_ERROR"),
            (8, "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED"),
            (9, "CUSOLVER_STATUS_NOT_SUPPORTED"),
            (10, "CUSOLVER_STATUS_ZERO_PIVOT"),
            (11, "CUSOLVER_STATUS_INVALID_LICENSE"),
            (31, "CUSOLVER_STATUS_INVALID_WORKSPACE"),
        ];
        for (value, name) in listed {
            let e = status("cusolverDnSgetrf", ffi::cusolver::cusolverStatus_t(value)).unwrap_err();
            assert_eq!(e.library_status(), Some(value));
            assert_eq!(e.kind().name(), name);
            assert_eq!(
                e.detail(),
                Some(format!("cusolverDnSgetrf returned {name} ({value})").as_str())
            );
            assert!(!e.is_sticky());
        }
        // The iterative-refinement statuses, of calls custack does not wrap, and any newer one.
        for value in [12, 20, 30, 77] {
            let e = status("cusolverDnSgetrf", ffi::cusolver::cusolverStatus_t(value)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::CusolverUnlisted);
            assert_eq!(e.library_status(), Some(value));
            assert_eq!(
                e.detail(),
                Some(format!("cusolverDnSgetrf returned status ({value})").as_str())
            );
        }
        status(
            "cusolverDnSgetrf",
            ffi::cusolver::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS,
        )
        .unwrap();
    }
}
