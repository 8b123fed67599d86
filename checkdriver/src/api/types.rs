//! Models `cuda.h` "Data types used by CUDA driver" (`group__CUDA__TYPES`), as far as the double
//! needs them: the handle and address types of its entry points' signatures, and the result codes
//! it returns.

use core::ffi::{c_int, c_ulonglong, c_void};

pub(crate) type CUresult = c_int;

pub(crate) type CUdevice = c_int;

pub(crate) type CUdeviceptr = c_ulonglong;

pub(crate) type Handle = *mut c_void;

pub(crate) const CUDA_SUCCESS: CUresult = 0;

pub(crate) const CUDA_ERROR_INVALID_VALUE: CUresult = 1;

pub(crate) const CUDA_ERROR_OUT_OF_MEMORY: CUresult = 2;

pub(crate) const CUDA_ERROR_INVALID_DEVICE: CUresult = 101;

pub(crate) const CUDA_ERROR_INVALID_CONTEXT: CUresult = 201;

pub(crate) const CUDA_ERROR_ILLEGAL_STATE: CUresult = 401;

pub(crate) const CUDA_ERROR_INVALID_IMAGE: CUresult = 200;

pub(crate) const CUDA_ERROR_NO_BINARY_FOR_GPU: CUresult = 209;

pub(crate) const CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: CUresult = 217;

pub(crate) const CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY: CUresult = 224;

pub(crate) const CUDA_ERROR_OPERATING_SYSTEM: CUresult = 304;

pub(crate) const CUDA_ERROR_NOT_FOUND: CUresult = 500;

pub(crate) const CUDA_ERROR_NOT_READY: CUresult = 600;

pub(crate) const CUDA_ERROR_NOT_SUPPORTED: CUresult = 801;

pub(crate) const CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: CUresult = 900;

pub(crate) const CUDA_ERROR_STREAM_CAPTURE_UNJOINED: CUresult = 904;

pub(crate) const CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: CUresult = 910;

pub(crate) const CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: CUresult = 704;

pub(crate) const CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: CUresult = 705;
