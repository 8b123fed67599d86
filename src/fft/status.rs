//! cuFFT's results as errors: the `Cufft…` kind named after the result, the detail naming the
//! call.

use crate::error::{Error, Result};
use crate::ffi;

/// A cuFFT result as a `Result`: the kind named after it, the detail naming the call.
#[inline]
pub(crate) fn status(call: &str, result: ffi::cufft::cufftResult) -> Result<()> {
    Error::check_library(
        result,
        ffi::cufft::cufftResult::CUFFT_SUCCESS,
        call,
        "result",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

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
            assert_eq!(e.library_status(), Some(value));
            assert_eq!(e.kind().name(), name);
            assert_eq!(
                e.detail(),
                Some(format!("cufftExecC2C returned {name} ({value})").as_str())
            );
            assert!(!e.is_sticky());
        }
        let e = status("cufftExecC2C", ffi::cufft::cufftResult(77)).unwrap_err();
        assert_eq!(e.library_status(), Some(77));
        assert_eq!(e.kind(), ErrorKind::CufftUnlisted);
        assert_eq!(e.detail(), Some("cufftExecC2C returned result (77)"));
        status("cufftExecC2C", ffi::cufft::cufftResult::CUFFT_SUCCESS).unwrap();
    }
}
