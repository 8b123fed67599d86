//! cuFFT's results as errors: the `Cufft…` kind named after the result, the detail naming the
//! call.

use crate::error::{Error, ErrorKind, Result};
use crate::ffi;

/// A cuFFT result as a `Result`: the kind named after it, the detail naming the call.
#[inline]
pub(crate) fn status(call: &str, result: ffi::cufft::cufftResult) -> Result<()> {
    if result == ffi::cufft::cufftResult::CUFFT_SUCCESS {
        return Ok(());
    }
    Err(status_error(call, result))
}

#[cold]
#[inline(never)]
fn status_error(call: &str, result: ffi::cufft::cufftResult) -> Error {
    let kind = status_kind(result);
    let name = match kind {
        ErrorKind::CufftUnlisted => "result",
        _ => kind.name(),
    };
    Error::custack(kind, format!("{call} returned {name} ({})", result.0))
}

/// The kind of a cuFFT result (never called with success).
pub(crate) fn status_kind(result: ffi::cufft::cufftResult) -> ErrorKind {
    use ffi::cufft::cufftResult as R;
    match result {
        R::CUFFT_INVALID_PLAN => ErrorKind::CufftInvalidPlan,
        R::CUFFT_ALLOC_FAILED => ErrorKind::CufftAllocFailed,
        R::CUFFT_INVALID_TYPE => ErrorKind::CufftInvalidType,
        R::CUFFT_INVALID_VALUE => ErrorKind::CufftInvalidValue,
        R::CUFFT_INTERNAL_ERROR => ErrorKind::CufftInternalError,
        R::CUFFT_EXEC_FAILED => ErrorKind::CufftExecFailed,
        R::CUFFT_SETUP_FAILED => ErrorKind::CufftSetupFailed,
        R::CUFFT_INVALID_SIZE => ErrorKind::CufftInvalidSize,
        R::CUFFT_UNALIGNED_DATA => ErrorKind::CufftUnalignedData,
        R::CUFFT_INCOMPLETE_PARAMETER_LIST => ErrorKind::CufftIncompleteParameterList,
        R::CUFFT_INVALID_DEVICE => ErrorKind::CufftInvalidDevice,
        R::CUFFT_PARSE_ERROR => ErrorKind::CufftParseError,
        R::CUFFT_NO_WORKSPACE => ErrorKind::CufftNoWorkspace,
        R::CUFFT_NOT_IMPLEMENTED => ErrorKind::CufftNotImplemented,
        R::CUFFT_LICENSE_ERROR => ErrorKind::CufftLicenseError,
        R::CUFFT_NOT_SUPPORTED => ErrorKind::CufftNotSupported,
        R::CUFFT_MISSING_DEPENDENCY => ErrorKind::CufftMissingDependency,
        R::CUFFT_NVRTC_FAILURE => ErrorKind::CufftNvrtcFailure,
        R::CUFFT_NVJITLINK_FAILURE => ErrorKind::CufftNvjitlinkFailure,
        R::CUFFT_NVSHMEM_FAILURE => ErrorKind::CufftNvshmemFailure,
        _ => ErrorKind::CufftUnlisted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_map_to_their_kinds_and_keep_the_value() {
        let names = [
            "CUFFT_INVALID_PLAN",
            "CUFFT_ALLOC_FAILED",
            "CUFFT_INVALID_TYPE",
            "CUFFT_INVALID_VALUE",
            "CUFFT_INTERNAL_ERROR",
            "CUFFT_EXEC_FAILED",
            "CUFFT_SETUP_FAILED",
            "CUFFT_INVALID_SIZE",
            "CUFFT_UNALIGNED_DATA",
            "CUFFT_INCOMPLETE_PARAMETER_LIST",
            "CUFFT_INVALID_DEVICE",
            "CUFFT_PARSE_ERROR",
            "CUFFT_NO_WORKSPACE",
            "CUFFT_NOT_IMPLEMENTED",
            "CUFFT_LICENSE_ERROR",
            "CUFFT_NOT_SUPPORTED",
            "CUFFT_MISSING_DEPENDENCY",
            "CUFFT_NVRTC_FAILURE",
            "CUFFT_NVJITLINK_FAILURE",
            "CUFFT_NVSHMEM_FAILURE",
        ];
        // cufft.h's values 1 to 20, in order.
        for (value, name) in (1..).zip(names) {
            let e = status("cufftExecC2C", ffi::cufft::cufftResult(value)).unwrap_err();
            assert_eq!(e.kind().name(), name);
            assert_eq!(
                e.detail(),
                Some(format!("cufftExecC2C returned {name} ({value})").as_str())
            );
            assert!(!e.is_sticky());
        }
        let e = status("cufftExecC2C", ffi::cufft::cufftResult(77)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CufftUnlisted);
        assert_eq!(e.detail(), Some("cufftExecC2C returned result (77)"));
        status("cufftExecC2C", ffi::cufft::cufftResult::CUFFT_SUCCESS).unwrap();
    }
}
