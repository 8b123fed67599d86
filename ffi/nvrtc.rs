//! Mirrors `nvrtc.h`, NVRTC's C API (CUDA C++ compiled at run time): the error handling,
//! general information and compilation groups custack uses, in the header's order.
//!
//! Only with the cargo feature `nvrtc`, when `build.rs` links libnvrtc (`-l nvrtc`, or
//! `libnvrtc.so.13` / `.so.12` by name). Where the feature is on but no libnvrtc was found
//! (`cfg(custack_no_nvrtc)`), the same declarations become functions that return
//! `NVRTC_ERROR_INTERNAL_ERROR` without touching their arguments (and `nvrtcGetErrorString` a
//! static string), so the crate still builds; the safe layer says what to install before it
//! calls any of them. Every entry point here is exported by NVRTC 12.0 through 13.x.
//!
//! <https://docs.nvidia.com/cuda/nvrtc/index.html>

use core::ffi::{c_char, c_int};
use core::marker::{PhantomData, PhantomPinned};

/// `nvrtcResult`, a C enum: kept as its integer, so a value a newer NVRTC adds is no UB.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use]
pub struct nvrtcResult(pub c_int);

impl nvrtcResult {
    pub const NVRTC_SUCCESS: Self = Self(0);
    pub const NVRTC_ERROR_OUT_OF_MEMORY: Self = Self(1);
    pub const NVRTC_ERROR_PROGRAM_CREATION_FAILURE: Self = Self(2);
    pub const NVRTC_ERROR_INVALID_INPUT: Self = Self(3);
    pub const NVRTC_ERROR_INVALID_PROGRAM: Self = Self(4);
    pub const NVRTC_ERROR_INVALID_OPTION: Self = Self(5);
    pub const NVRTC_ERROR_COMPILATION: Self = Self(6);
    pub const NVRTC_ERROR_BUILTIN_OPERATION_FAILURE: Self = Self(7);
    pub const NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION: Self = Self(8);
    pub const NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION: Self = Self(9);
    pub const NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID: Self = Self(10);
    pub const NVRTC_ERROR_INTERNAL_ERROR: Self = Self(11);
    pub const NVRTC_ERROR_TIME_FILE_WRITE_FAILED: Self = Self(12);
    pub const NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED: Self = Self(13);
    pub const NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED: Self = Self(14);
    pub const NVRTC_ERROR_PCH_CREATE: Self = Self(15);
    pub const NVRTC_ERROR_CANCELLED: Self = Self(16);
    pub const NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED: Self = Self(17);
}

/// `struct _nvrtcProgram`, opaque.
#[repr(C)]
pub struct _nvrtcProgram {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}
/// `nvrtcProgram`: a program, from `nvrtcCreateProgram` to `nvrtcDestroyProgram`.
pub type nvrtcProgram = *mut _nvrtcProgram;

link_or_stub! {
    missing: custack_no_nvrtc => nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR;
    // Error handling.
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__error_1g31e41ef222c0ea75b4c48f715b3cd9f0>
    pub fn nvrtcGetErrorString(result: nvrtcResult) -> *const c_char = c"NVRTC not linked".as_ptr();

    // General information query.
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__query>
    pub fn nvrtcVersion(major: *mut c_int, minor: *mut c_int) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__query>
    pub fn nvrtcGetNumSupportedArchs(numArchs: *mut c_int) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__query>
    pub fn nvrtcGetSupportedArchs(supportedArchs: *mut c_int) -> nvrtcResult;

    // Compilation.
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcCreateProgram(
        prog: *mut nvrtcProgram,
        src: *const c_char,
        name: *const c_char,
        numHeaders: c_int,
        headers: *const *const c_char,
        includeNames: *const *const c_char,
    ) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcDestroyProgram(prog: *mut nvrtcProgram) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcCompileProgram(
        prog: nvrtcProgram,
        numOptions: c_int,
        options: *const *const c_char,
    ) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcGetPTXSize(prog: nvrtcProgram, ptxSizeRet: *mut usize) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcGetPTX(prog: nvrtcProgram, ptx: *mut c_char) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcGetCUBINSize(prog: nvrtcProgram, cubinSizeRet: *mut usize) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcGetCUBIN(prog: nvrtcProgram, cubin: *mut c_char) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcGetProgramLogSize(prog: nvrtcProgram, logSizeRet: *mut usize) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcGetProgramLog(prog: nvrtcProgram, log: *mut c_char) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcAddNameExpression(
        prog: nvrtcProgram,
        name_expression: *const c_char,
    ) -> nvrtcResult;
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    pub fn nvrtcGetLoweredName(
        prog: nvrtcProgram,
        name_expression: *const c_char,
        lowered_name: *mut *const c_char,
    ) -> nvrtcResult;
}
