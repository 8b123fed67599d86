//! cuRAND's statuses as results: the `Curand…` kind named after the status, the detail naming
//! the call.

use crate::error::{Error, Result};
use crate::ffi;

/// A cuRAND status as a result: the kind named after the status, the detail naming the call.
#[inline]
pub(crate) fn status(call: &str, status: ffi::curand::curandStatus_t) -> Result<()> {
    Error::check_library(
        status,
        ffi::curand::curandStatus_t::CURAND_STATUS_SUCCESS,
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
        use ffi::curand::curandStatus_t as S;
        for (st, kind) in [
            (
                S::CURAND_STATUS_VERSION_MISMATCH,
                ErrorKind::CurandVersionMismatch,
            ),
            (
                S::CURAND_STATUS_NOT_INITIALIZED,
                ErrorKind::CurandNotInitialized,
            ),
            (
                S::CURAND_STATUS_ALLOCATION_FAILED,
                ErrorKind::CurandAllocationFailed,
            ),
            (S::CURAND_STATUS_TYPE_ERROR, ErrorKind::CurandTypeError),
            (S::CURAND_STATUS_OUT_OF_RANGE, ErrorKind::CurandOutOfRange),
            (
                S::CURAND_STATUS_LENGTH_NOT_MULTIPLE,
                ErrorKind::CurandLengthNotMultiple,
            ),
            (
                S::CURAND_STATUS_DOUBLE_PRECISION_REQUIRED,
                ErrorKind::CurandDoublePrecisionRequired,
            ),
            (
                S::CURAND_STATUS_LAUNCH_FAILURE,
                ErrorKind::CurandLaunchFailure,
            ),
            (
                S::CURAND_STATUS_PREEXISTING_FAILURE,
                ErrorKind::CurandPreexistingFailure,
            ),
            (
                S::CURAND_STATUS_INITIALIZATION_FAILED,
                ErrorKind::CurandInitializationFailed,
            ),
            (
                S::CURAND_STATUS_ARCH_MISMATCH,
                ErrorKind::CurandArchMismatch,
            ),
            (
                S::CURAND_STATUS_INTERNAL_ERROR,
                ErrorKind::CurandInternalError,
            ),
        ] {
            let e = status("curandGenerate", st).unwrap_err();
            assert_eq!(e.library_status(), Some(st.0));
            assert_eq!(e.kind(), kind);
            assert_eq!(
                e.detail(),
                Some(format!("curandGenerate returned {} ({})", kind.name(), st.0).as_str())
            );
            assert!(!e.is_sticky());
        }
        let e = status("curandGenerate", S(4242)).unwrap_err();
        assert_eq!(e.library_status(), Some(4242));
        assert_eq!(e.kind(), ErrorKind::CurandUnlisted);
        assert_eq!(e.detail(), Some("curandGenerate returned status (4242)"));
        status("curandGenerate", S::CURAND_STATUS_SUCCESS).unwrap();
    }
}
