//! cuDNN's stand-in for the checking driver: a `libcudnn.so.9` (cuDNN 9's soname) that a program
//! loads instead of cuDNN, with the checking `libcuda.so.1` ahead of the real ones on
//! `LD_LIBRARY_PATH`.
//!
//! Its handle and descriptors are the double's (`checkdriver/src/library_handles.rs`), which it
//! asks through the double's extensions, found with `dlsym` in the process's global scope:
//! `cudnnCreate` makes a handle in the current context, `cudnnSetStream` gives it a stream (live,
//! of the current context), `cudnnDestroy` destroys it (once, with no work that may still run on
//! its stream), and every other call that takes the handle checks it (live, of the current
//! context). A descriptor (`cudnnCreateTensorDescriptor`, `cudnnCreateFilterDescriptor`,
//! `cudnnCreateConvolutionDescriptor`, `cudnnCreateActivationDescriptor`) is made and destroyed
//! by the double too, as a host object of no context: destroyed once, or reported as a leak; and
//! each call that takes descriptors (their sets, the shape, algorithm and workspace queries) asks
//! the double that each is live and cuDNN's. The double counts each entry point as a driver call
//! of that name, so its schedules fail them too: the stand-in then answers
//! `CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED` for the driver's out-of-memory and
//! `CUDNN_STATUS_INTERNAL_ERROR` for any other failure.
//!
//! Unlike cuSOLVER's and cuSPARSE's stand-ins it keeps one piece of state: what each descriptor
//! was set to (a tensor's and a filter's four sizes, a convolution's padding, stride and
//! dilation), so that a program can make a convolution plan, which checks cuDNN's answers:
//! - `cudnnGetConvolution2dForwardOutputDim` answers the output's sizes by cuDNN's documented
//!   formula ([`output_dims`]): `n` the input's, `c` the filter's `k`, and per spatial dimension
//!   `(in + 2·pad − dilation·(k − 1) − 1) / stride + 1`; `CUDNN_STATUS_BAD_PARAM` for a
//!   descriptor not set, the input's channels not the filter's (no groups), or a filter reaching
//!   beyond the padded input;
//! - `cudnnGetConvolutionForwardAlgorithm_v7` lists one algorithm,
//!   `CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM` (1), as supported, with [`WORKSPACE`]
//!   bytes, where the output descriptor's sizes are those the formula gives
//!   (`CUDNN_STATUS_BAD_PARAM` otherwise); `cudnnGetConvolutionForwardWorkspaceSize` answers
//!   [`WORKSPACE`] bytes for any algorithm of cuDNN's eight.
//!
//! The graph (backend) API, which custack's matmul uses, is tracked, not computed:
//! `cudnnBackendCreateDescriptor` makes a descriptor the double tracks as the legacy ones (of
//! whatever type asked), `cudnnBackendDestroyDescriptor` destroys it (once, or reported);
//! `cudnnBackendSetAttribute` and `cudnnBackendFinalize` accept a live descriptor (the attribute's
//! name, type and values are not checked, nor whether descriptors among the values are live);
//! `cudnnBackendGetAttribute` checks the descriptor and answers the four attributes custack's
//! matmul reads (one engine configuration listed, an engine with no numerical note, a workspace
//! of [`WORKSPACE`] bytes), so a matmul plan can be made and its descriptors are all tracked;
//! `cudnnBackendExecute` checks the handle, the execution plan and the variant pack (each live)
//! and answers `CUDNN_STATUS_NOT_SUPPORTED`.
//!
//! It models no more: strides, data types, formats, the convolution's mode and math type, the
//! activation are accepted as given, not checked against what cuDNN supports; the workspace is
//! not the size a real algorithm asks. Nothing is computed: the convolution itself
//! (`cudnnConvolutionBiasActivationForward`) checks the handle and answers
//! `CUDNN_STATUS_NOT_SUPPORTED`, so a program sees a typed error, never a crash;
//! `cudnnGetVersion` answers 0 (the stand-in is no cuDNN version) and `cudnnGetErrorString` one
//! string. Without the double in the process (a real `libcuda.so.1`), every call answers
//! `CUDNN_STATUS_NOT_INITIALIZED`.
//!
//! The entry points are those custack declares (`ffi/cudnn.rs`): the ones above are defined
//! here, the rest written by `../common/build.rs`; the code is `../common/standin.rs`, shared
//! with cuSOLVER's and cuSPARSE's stand-ins.

#![allow(
    non_snake_case,
    unused_variables,
    clippy::too_many_arguments,
    clippy::many_single_char_names,
    reason = "cuDNN's C names and signatures (`n, c, h, w`), most of whose arguments a stand-in \
              ignores"
)]

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// `CUDNN_STATUS_SUCCESS`.
const SUCCESS: c_int = 0;
/// `CUDNN_STATUS_NOT_INITIALIZED`: no checking driver in the process.
const NOT_INITIALIZED: c_int = 1001;
/// `CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED`: the driver's out-of-memory.
const ALLOC_FAILED: c_int = 4004;
/// `CUDNN_STATUS_BAD_PARAM`: a descriptor not set, or sizes that make no convolution.
const BAD_PARAM: c_int = 2000;
/// `CUDNN_STATUS_BAD_PARAM_NULL_POINTER`: a null out-pointer.
const INVALID_VALUE: c_int = 2002;
/// `CUDNN_STATUS_INTERNAL_ERROR`.
const INTERNAL_ERROR: c_int = 4000;
/// `CUDNN_STATUS_NOT_SUPPORTED`.
const NOT_SUPPORTED: c_int = 3000;

/// The workspace the algorithm query and the workspace query answer, in bytes.
pub const WORKSPACE: c_int = 64;
/// The one algorithm the stand-in lists: `CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM`.
pub const ALGORITHM: c_int = 1;
/// `CUDNN_CONVOLUTION_FWD_ALGO_COUNT`: the algorithms cuDNN 9 defines.
const ALGO_COUNT: c_int = 8;
/// What `cudnnGetErrorString` answers, for every status.
const ERROR_STRING: &core::ffi::CStr = c"cuDNN's stand-in (the checking driver)";

include!("../../common/standin.rs");
include!("../../common/descriptors.rs");
include!(concat!(env!("OUT_DIR"), "/entry_points.rs"));

/// What a descriptor was set to (by address; the double never reuses one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Set {
    /// A tensor's sizes `n, c, h, w`.
    Tensor([i64; 4]),
    /// A filter's sizes `k, c, r, s`.
    Filter([i64; 4]),
    /// A 2-d convolution's padding, stride and dilation, each `[h, w]`.
    Convolution {
        /// Zero padding on each side.
        pad: [i64; 2],
        /// The step between windows.
        stride: [i64; 2],
        /// The step between a filter's taps.
        dilation: [i64; 2],
    },
}

/// Each descriptor's last successful set.
static DESCRIPTORS: Mutex<Option<HashMap<usize, Set>>> = Mutex::new(None);

fn record(d: Handle, set: Set) {
    DESCRIPTORS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(d.addr(), set);
}

fn lookup(d: Handle) -> Option<Set> {
    DESCRIPTORS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(&d.addr()).copied())
}

/// A descriptor's set: checked by the double, then recorded when `set` is `Some` (positive
/// sizes), `CUDNN_STATUS_BAD_PARAM` otherwise.
fn set_descriptor(name: &core::ffi::CStr, d: Handle, set: Option<Set>) -> c_int {
    use_descriptors(name, core::ptr::null_mut(), &[d], || match set {
        Some(set) => {
            record(d, set);
            SUCCESS
        }
        None => BAD_PARAM,
    })
}

/// Four sizes, each at least 1.
fn positive(v: [c_int; 4]) -> Option<[i64; 4]> {
    v.iter().all(|&x| x > 0).then(|| v.map(i64::from))
}

/// The output's sizes `n, k, p, q` of a cross-correlation (or convolution) of input `x`
/// (`n, c, h, w`) with filter `w` (`k, c, r, s`): cuDNN's documented formula per spatial
/// dimension, `(in + 2·pad − dilation·(k − 1) − 1) / stride + 1`. `None` (cuDNN's
/// `CUDNN_STATUS_BAD_PARAM`) where the channels differ (the stand-in models no groups) or the
/// dilated filter reaches beyond the padded input.
#[must_use]
pub fn output_dims(x: [i64; 4], w: [i64; 4], conv: Set) -> Option<[i64; 4]> {
    let Set::Convolution {
        pad,
        stride,
        dilation,
    } = conv
    else {
        return None;
    };
    if x[1] != w[1] {
        return None;
    }
    let mut out = [x[0], w[0], 0, 0];
    for i in 0..2 {
        let reach = dilation[i] * (w[2 + i] - 1) + 1;
        let padded = x[2 + i] + 2 * pad[i];
        if reach > padded {
            return None;
        }
        out[2 + i] = (padded - reach) / stride[i] + 1;
    }
    Some(out)
}

/// The output sizes of the convolution `conv` of tensor `x` with filter `w`, as set.
fn output_of(conv: Handle, x: Handle, w: Handle) -> Option<[i64; 4]> {
    let (Some(Set::Tensor(x)), Some(Set::Filter(w)), Some(c)) =
        (lookup(x), lookup(w), lookup(conv))
    else {
        return None;
    };
    output_dims(x, w, c)
}

/// `Some(())` where `y` is set to the sizes the convolution gives.
fn output_agrees(x: Handle, w: Handle, conv: Handle, y: Handle) -> Option<()> {
    let out = output_of(conv, x, w)?;
    (lookup(y) == Some(Set::Tensor(out))).then_some(())
}

/// `cudnnGetVersion`: 0, the stand-in is no cuDNN version.
#[unsafe(no_mangle)]
pub extern "C" fn cudnnGetVersion() -> usize {
    0
}

/// `cudnnSetTensor4dDescriptorEx`: records the sizes (the strides and type are not modelled).
#[unsafe(no_mangle)]
pub extern "C" fn cudnnSetTensor4dDescriptorEx(
    tensorDesc: Handle,
    dataType: c_int,
    n: c_int,
    c: c_int,
    h: c_int,
    w: c_int,
    nStride: c_int,
    cStride: c_int,
    hStride: c_int,
    wStride: c_int,
) -> c_int {
    let set = positive([n, c, h, w]).map(Set::Tensor);
    set_descriptor(cname!(cudnnSetTensor4dDescriptorEx), tensorDesc, set)
}

/// `cudnnSetFilter4dDescriptor`: records the sizes `k, c, r, s` (whatever the format).
#[unsafe(no_mangle)]
pub extern "C" fn cudnnSetFilter4dDescriptor(
    filterDesc: Handle,
    dataType: c_int,
    format: c_int,
    k: c_int,
    c: c_int,
    h: c_int,
    w: c_int,
) -> c_int {
    let set = positive([k, c, h, w]).map(Set::Filter);
    set_descriptor(cname!(cudnnSetFilter4dDescriptor), filterDesc, set)
}

/// `cudnnSetConvolution2dDescriptor`: records padding (at least 0), stride and dilation (at
/// least 1).
#[unsafe(no_mangle)]
pub extern "C" fn cudnnSetConvolution2dDescriptor(
    convDesc: Handle,
    pad_h: c_int,
    pad_w: c_int,
    u: c_int,
    v: c_int,
    dilation_h: c_int,
    dilation_w: c_int,
    mode: c_int,
    computeType: c_int,
) -> c_int {
    let set = (pad_h >= 0 && pad_w >= 0 && u > 0 && v > 0 && dilation_h > 0 && dilation_w > 0)
        .then(|| Set::Convolution {
            pad: [pad_h.into(), pad_w.into()],
            stride: [u.into(), v.into()],
            dilation: [dilation_h.into(), dilation_w.into()],
        });
    set_descriptor(cname!(cudnnSetConvolution2dDescriptor), convDesc, set)
}

/// `cudnnSetConvolutionMathType`: a live convolution descriptor; the math type is not modelled.
#[unsafe(no_mangle)]
pub extern "C" fn cudnnSetConvolutionMathType(convDesc: Handle, mathType: c_int) -> c_int {
    let name = cname!(cudnnSetConvolutionMathType);
    use_descriptors(name, core::ptr::null_mut(), &[convDesc], || SUCCESS)
}

/// `cudnnSetActivationDescriptor`: a live descriptor; the activation is not modelled.
#[unsafe(no_mangle)]
pub extern "C" fn cudnnSetActivationDescriptor(
    activationDesc: Handle,
    mode: c_int,
    reluNanOpt: c_int,
    coef: f64,
) -> c_int {
    let name = cname!(cudnnSetActivationDescriptor);
    use_descriptors(name, core::ptr::null_mut(), &[activationDesc], || SUCCESS)
}

/// `cudnnGetConvolution2dForwardOutputDim`: the output's sizes by [`output_dims`].
///
/// # Safety
///
/// `n`, `c`, `h` and `w` are null or valid for a write of a `c_int` each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudnnGetConvolution2dForwardOutputDim(
    convDesc: Handle,
    inputTensorDesc: Handle,
    filterDesc: Handle,
    n: *mut c_int,
    c: *mut c_int,
    h: *mut c_int,
    w: *mut c_int,
) -> c_int {
    let name = cname!(cudnnGetConvolution2dForwardOutputDim);
    let descriptors = [convDesc, inputTensorDesc, filterDesc];
    use_descriptors(name, core::ptr::null_mut(), &descriptors, || {
        if [n, c, h, w].iter().any(|p| p.is_null()) {
            return INVALID_VALUE;
        }
        let Some(out) = output_of(convDesc, inputTensorDesc, filterDesc) else {
            return BAD_PARAM;
        };
        let mut values = [0; 4];
        for (v, o) in values.iter_mut().zip(out) {
            let Ok(o) = c_int::try_from(o) else {
                return BAD_PARAM;
            };
            *v = o;
        }
        for (p, v) in [n, c, h, w].into_iter().zip(values) {
            // SAFETY: non-null (checked), valid for the write (the caller's promise).
            unsafe { p.write(v) };
        }
        SUCCESS
    })
}

/// `cudnnConvolutionFwdAlgoPerf_t`, as cuDNN 9 lays it out.
#[repr(C)]
struct AlgoPerf {
    algo: c_int,
    status: c_int,
    time: f32,
    memory: usize,
    determinism: c_int,
    math_type: c_int,
    reserved: [c_int; 3],
}

/// `cudnnGetConvolutionForwardAlgorithm_v7`: one entry, [`ALGORITHM`], supported with
/// [`WORKSPACE`] bytes, where the output descriptor has the sizes the convolution gives.
///
/// # Safety
///
/// `returnedAlgoCount` is null or valid for a write of a `c_int`; `perfResults` null or valid
/// for writes of `requestedAlgoCount` `cudnnConvolutionFwdAlgoPerf_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudnnGetConvolutionForwardAlgorithm_v7(
    handle: Handle,
    srcDesc: Handle,
    filterDesc: Handle,
    convDesc: Handle,
    destDesc: Handle,
    requestedAlgoCount: c_int,
    returnedAlgoCount: *mut c_int,
    perfResults: *mut c_void,
) -> c_int {
    let name = cname!(cudnnGetConvolutionForwardAlgorithm_v7);
    let descriptors = [srcDesc, filterDesc, convDesc, destDesc];
    use_descriptors(name, handle, &descriptors, || {
        if returnedAlgoCount.is_null() || perfResults.is_null() {
            return INVALID_VALUE;
        }
        if requestedAlgoCount < 1
            || output_agrees(srcDesc, filterDesc, convDesc, destDesc).is_none()
        {
            return BAD_PARAM;
        }
        let perf = AlgoPerf {
            algo: ALGORITHM,
            status: SUCCESS,
            time: -1.0,
            memory: WORKSPACE as usize,
            determinism: 1, // CUDNN_DETERMINISTIC
            math_type: 0,
            reserved: [0; 3],
        };
        // SAFETY: non-null (checked) and valid for at least one entry, `requestedAlgoCount`
        // being at least 1 (the caller's promise).
        unsafe { perfResults.cast::<AlgoPerf>().write(perf) };
        // SAFETY: the count through its non-null (checked) out-pointer (the caller's promise).
        unsafe { returnedAlgoCount.write(1) };
        SUCCESS
    })
}

/// `cudnnGetConvolutionForwardWorkspaceSize`: [`WORKSPACE`] bytes for any of cuDNN's eight
/// algorithms, where the output descriptor has the sizes the convolution gives.
///
/// # Safety
///
/// `sizeInBytes` is null or valid for a write of a `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudnnGetConvolutionForwardWorkspaceSize(
    handle: Handle,
    xDesc: Handle,
    wDesc: Handle,
    convDesc: Handle,
    yDesc: Handle,
    algo: c_int,
    sizeInBytes: *mut usize,
) -> c_int {
    let name = cname!(cudnnGetConvolutionForwardWorkspaceSize);
    use_descriptors(name, handle, &[xDesc, wDesc, convDesc, yDesc], || {
        if sizeInBytes.is_null() {
            return INVALID_VALUE;
        }
        if !(0..ALGO_COUNT).contains(&algo)
            || output_agrees(xDesc, wDesc, convDesc, yDesc).is_none()
        {
            return BAD_PARAM;
        }
        // SAFETY: non-null (checked), valid for the write (the caller's promise).
        unsafe { sizeInBytes.write(WORKSPACE as usize) };
        SUCCESS
    })
}

/// `cudnnBackendCreateDescriptor`: a descriptor the double tracks (the type is not modelled).
///
/// # Safety
///
/// `descriptor` is null or valid for a write of a descriptor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudnnBackendCreateDescriptor(
    descriptorType: c_int,
    descriptor: *mut c_void,
) -> c_int {
    create(cname!(cudnnBackendCreateDescriptor), descriptor)
}

/// `cudnnBackendSetAttribute`: a live descriptor; the attribute is not modelled.
#[unsafe(no_mangle)]
pub extern "C" fn cudnnBackendSetAttribute(
    descriptor: Handle,
    attributeName: c_int,
    attributeType: c_int,
    elementCount: i64,
    arrayOfElements: *const c_void,
) -> c_int {
    let name = cname!(cudnnBackendSetAttribute);
    use_descriptors(name, core::ptr::null_mut(), &[descriptor], || SUCCESS)
}

/// `cudnnBackendFinalize`: a live descriptor.
#[unsafe(no_mangle)]
pub extern "C" fn cudnnBackendFinalize(descriptor: Handle) -> c_int {
    let name = cname!(cudnnBackendFinalize);
    use_descriptors(name, core::ptr::null_mut(), &[descriptor], || SUCCESS)
}

/// `CUDNN_ATTR_ENGINEHEUR_RESULTS`: the heuristics' engine configurations.
const HEUR_RESULTS: c_int = 202;
/// `CUDNN_ATTR_ENGINECFG_ENGINE`: a configuration's engine.
const CFG_ENGINE: c_int = 300;
/// `CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE`: the execution plan's workspace, in bytes.
const PLAN_WORKSPACE: c_int = 402;
/// `CUDNN_ATTR_ENGINE_NUMERICAL_NOTE`: an engine's numerical notes.
const ENGINE_NOTES: c_int = 1303;

/// `cudnnBackendGetAttribute`: a live descriptor (and, for an attribute whose values are
/// descriptors the caller made, the first of them, live), then the one answer of each attribute
/// custack's matmul reads, so that a matmul plan can be made: the heuristics list one engine
/// configuration (`CUDNN_ATTR_ENGINEHEUR_RESULTS`, count 1, written into the caller's first
/// descriptor), its engine is the caller's descriptor (`CUDNN_ATTR_ENGINECFG_ENGINE`, count 1)
/// with no numerical note (`CUDNN_ATTR_ENGINE_NUMERICAL_NOTE`, count 0), and the execution
/// plan asks for [`WORKSPACE`] bytes (`CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE`); any other
/// attribute, or a request of no values, `CUDNN_STATUS_NOT_SUPPORTED`.
///
/// # Safety
///
/// `elementCount` is null or valid for a write of an `int64_t`; `arrayOfElements` is null or
/// valid for reads and writes of `requestedElementCount` values of the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudnnBackendGetAttribute(
    descriptor: Handle,
    attributeName: c_int,
    attributeType: c_int,
    requestedElementCount: i64,
    elementCount: *mut c_void,
    arrayOfElements: *mut c_void,
) -> c_int {
    let name = cname!(cudnnBackendGetAttribute);
    let wanted = requestedElementCount >= 1 && !arrayOfElements.is_null();
    let mut descriptors = vec![descriptor];
    if wanted && (attributeName == HEUR_RESULTS || attributeName == CFG_ENGINE) {
        // SAFETY: non-null, valid for a read of one descriptor (the caller's promise).
        descriptors.push(unsafe { arrayOfElements.cast::<Handle>().read() });
    }
    use_descriptors(name, core::ptr::null_mut(), &descriptors, || {
        if elementCount.is_null() {
            return INVALID_VALUE;
        }
        let count: i64 = match attributeName {
            HEUR_RESULTS | CFG_ENGINE if wanted => 1,
            ENGINE_NOTES => 0,
            PLAN_WORKSPACE if wanted => {
                // SAFETY: non-null, valid for a write of one `int64_t` (the caller's promise).
                unsafe { arrayOfElements.cast::<i64>().write(i64::from(WORKSPACE)) };
                1
            }
            _ => return NOT_SUPPORTED,
        };
        // SAFETY: non-null (checked), valid for a write of an `int64_t` (the caller's promise).
        unsafe { elementCount.cast::<i64>().write(count) };
        SUCCESS
    })
}

/// `cudnnBackendExecute`: the handle, the execution plan and the variant pack live (the
/// descriptors cuDNN's, the handle of the current context), then `CUDNN_STATUS_NOT_SUPPORTED`:
/// nothing is computed.
#[unsafe(no_mangle)]
pub extern "C" fn cudnnBackendExecute(
    handle: Handle,
    executionPlan: Handle,
    variantPack: Handle,
) -> c_int {
    let name = cname!(cudnnBackendExecute);
    use_descriptors(name, handle, &[executionPlan, variantPack], || {
        NOT_SUPPORTED
    })
}

#[cfg(test)]
mod tests {
    use super::{Set, output_dims};

    fn conv(pad: [i64; 2], stride: [i64; 2], dilation: [i64; 2]) -> Set {
        Set::Convolution {
            pad,
            stride,
            dilation,
        }
    }

    #[test]
    fn the_output_shape_is_cudnns_formula() {
        let plain = conv([0, 0], [1, 1], [1, 1]);
        // A 3 × 3 filter over 5 × 7: 3 × 5; the batch and the filter count carried through.
        assert_eq!(
            output_dims([2, 3, 5, 7], [4, 3, 3, 3], plain),
            Some([2, 4, 3, 5])
        );
        // Padding 1, 2 and stride 2, 3: (5 + 2 − 3) / 2 + 1 = 3, (7 + 4 − 3) / 3 + 1 = 3.
        assert_eq!(
            output_dims([2, 3, 5, 7], [4, 3, 3, 3], conv([1, 2], [2, 3], [1, 1])),
            Some([2, 4, 3, 3])
        );
        // Dilation 2, 3 of a 3 × 2 filter over 17 × 9: reach 5 and 4, so 13 × 6.
        assert_eq!(
            output_dims([1, 8, 17, 9], [16, 8, 3, 2], conv([0, 0], [1, 1], [2, 3])),
            Some([1, 16, 13, 6])
        );
        // "Same" padding keeps the size.
        assert_eq!(
            output_dims(
                [32, 256, 64, 64],
                [256, 256, 3, 3],
                conv([1, 1], [1, 1], [1, 1])
            ),
            Some([32, 256, 64, 64])
        );
        // A filter exactly the input's size: one output.
        assert_eq!(
            output_dims([1, 1, 3, 3], [1, 1, 3, 3], plain),
            Some([1, 1, 1, 1])
        );
    }

    #[test]
    fn shapes_cudnn_refuses_are_refused() {
        let plain = conv([0, 0], [1, 1], [1, 1]);
        // The input's channels are not the filter's.
        assert_eq!(output_dims([1, 3, 5, 5], [1, 4, 3, 3], plain), None);
        // The filter reaches beyond the padded input (dilated, or plain).
        assert_eq!(output_dims([1, 1, 3, 3], [1, 1, 4, 3], plain), None);
        assert_eq!(
            output_dims([1, 1, 5, 5], [1, 1, 3, 3], conv([0, 0], [1, 1], [3, 1])),
            None
        );
        // Not a convolution descriptor.
        assert_eq!(
            output_dims([1, 1, 3, 3], [1, 1, 3, 3], Set::Tensor([1, 1, 3, 3])),
            None
        );
    }
}
