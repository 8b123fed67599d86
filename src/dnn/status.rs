//! cuDNN's statuses as errors: the `Cudnn…` kind named after the status, the detail naming the
//! call.

use crate::error::{Error, Result};
use crate::ffi;

/// A cuDNN status as a `Result`: the kind named after it, the detail naming the call.
#[inline]
pub(crate) fn status(call: &str, result: ffi::cudnn::cudnnStatus_t) -> Result<()> {
    Error::check_library(
        result,
        ffi::cudnn::cudnnStatus_t::CUDNN_STATUS_SUCCESS,
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
        // cudnn_graph.h's values (cuDNN 9), as `cudnnGetErrorString` names them.
        let listed = [
            (1001, "CUDNN_STATUS_NOT_INITIALIZED"),
            (1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"),
            (1005, "CUDNN_STATUS_LICENSE_ERROR"),
            (2000, "CUDNN_STATUS_BAD_PARAM"),
            (2001, "CUDNN_STATUS_INVALID_VALUE"),
            (2002, "CUDNN_STATUS_BAD_PARAM_NULL_POINTER"),
            (2003, "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER"),
            (2004, "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED"),
            (3000, "CUDNN_STATUS_NOT_SUPPORTED"),
            (3001, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN"),
            (3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE"),
            (3003, "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE"),
            (3004, "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT"),
            (3005, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER"),
            (3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH"),
            (3009, "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE"),
            (4000, "CUDNN_STATUS_INTERNAL_ERROR"),
            (4004, "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED"),
            (5000, "CUDNN_STATUS_EXECUTION_FAILED"),
        ];
        for (value, name) in listed {
            let e = status("cudnnCreate", ffi::cudnn::cudnnStatus_t(value)).unwrap_err();
            assert_eq!(e.library_status(), Some(value));
            assert_eq!(e.kind().name(), name);
            assert_eq!(
                e.detail(),
                Some(format!("cudnnCreate returned {name} ({value})").as_str())
            );
            assert!(!e.is_sticky());
        }
        // A code the table does not list (a detail of a listed category) keeps its value.
        let e = status("cudnnCreate", ffi::cudnn::cudnnStatus_t(3012)).unwrap_err();
        assert_eq!(e.library_status(), Some(3012));
        assert_eq!(e.kind(), ErrorKind::CudnnUnlisted);
        assert_eq!(e.detail(), Some("cudnnCreate returned status (3012)"));
        status(
            "cudnnCreate",
            ffi::cudnn::cudnnStatus_t::CUDNN_STATUS_SUCCESS,
        )
        .unwrap();
    }

    /// The names above are cuDNN's own, where the library is linked: `cudnnGetErrorString`
    /// runs on the CPU.
    #[cfg(not(custack_no_cudnn))]
    #[test]
    fn the_names_are_cudnns_own() {
        for value in [
            1001, 1002, 1005, 2000, 2001, 2002, 2003, 2004, 3000, 3001, 3002, 3003, 3004, 3005,
            3007, 3009, 4000,
        ] {
            let kind = status("x", ffi::cudnn::cudnnStatus_t(value))
                .unwrap_err()
                .kind();
            // SAFETY: no pointer argument; cuDNN returns a static string for any value.
            let raw = unsafe { ffi::cudnn::cudnnGetErrorString(ffi::cudnn::cudnnStatus_t(value)) };
            assert!(!raw.is_null());
            // SAFETY: a static NUL-terminated string (checked non-null).
            let name = unsafe { core::ffi::CStr::from_ptr(raw) };
            assert_eq!(name.to_str().ok(), Some(kind.name()), "{value}");
        }
    }
}
