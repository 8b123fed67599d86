//! Mirrors the part of cuDNN 9's C API (`cudnn_graph.h`, `cudnn_ops.h`, `cudnn_cnn.h`) that
//! `custack::dnn` calls: the handle; the graph (backend) API's descriptors, attributes and
//! execution, for the matmul (the legacy API has none); the legacy tensor, filter,
//! convolution and activation descriptors, the forward algorithm's choice and workspace, and
//! the fused convolution, bias and activation; in header order.
//!
//! Every symbol is exported by `libcudnn.so.9` itself, of the CUDA 12 wheel (cuDNN 9.1) and
//! of the CUDA 13 wheel (cuDNN 9.28) alike (checked with `nm -D`): `libcudnn.so.9` is a shim
//! that loads its sub-libraries (`libcudnn_graph`, `_ops`, `_cnn`, `_engines_*`) from its own
//! directory when first needed. No `#[link]`: with the cargo feature `cudnn`, `build.rs` links
//! the library into the crate. Where it found none (`cfg(custack_no_cudnn)`), the same names
//! are functions that return `CUDNN_STATUS_NOT_INITIALIZED` without touching their arguments,
//! so the crate builds and `custack::dnn` says at run time what to install.
//!
//! `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles.

use super::types::CUstream;
use core::ffi::{c_char, c_int, c_void};

/// `cudnnHandle_t`: a cuDNN context, bound to the CUDA context current when it was made.
pub type cudnnHandle_t = *mut c_void;
/// `cudnnTensorDescriptor_t`: a host-side description of a tensor.
pub type cudnnTensorDescriptor_t = *mut c_void;
/// `cudnnFilterDescriptor_t`: a host-side description of a filter.
pub type cudnnFilterDescriptor_t = *mut c_void;
/// `cudnnConvolutionDescriptor_t`: a host-side description of a convolution.
pub type cudnnConvolutionDescriptor_t = *mut c_void;
/// `cudnnActivationDescriptor_t`: a host-side description of an activation.
pub type cudnnActivationDescriptor_t = *mut c_void;

/// `cudnnBackendDescriptor_t`: an opaque graph-API (backend) descriptor, of the type it was
/// made with.
pub type cudnnBackendDescriptor_t = *mut c_void;

/// `cudnnStatus_t`: the status every cuDNN entry point returns.
///
/// A newtype, not an enum: cuDNN 9's codes are a category (1000, 2000, …) plus a detail, and
/// a newer cuDNN may return values this list lacks.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[must_use]
pub struct cudnnStatus_t(pub c_int);

impl cudnnStatus_t {
    /// `CUDNN_STATUS_SUCCESS` (0).
    pub const CUDNN_STATUS_SUCCESS: Self = Self(0);
    /// `CUDNN_STATUS_NOT_INITIALIZED` (1001).
    pub const CUDNN_STATUS_NOT_INITIALIZED: Self = Self(1001);
    /// `CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH` (1002).
    pub const CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH: Self = Self(1002);
    /// `CUDNN_STATUS_LICENSE_ERROR` (1005).
    pub const CUDNN_STATUS_LICENSE_ERROR: Self = Self(1005);
    /// `CUDNN_STATUS_BAD_PARAM` (2000).
    pub const CUDNN_STATUS_BAD_PARAM: Self = Self(2000);
    /// `CUDNN_STATUS_INVALID_VALUE` (2001).
    pub const CUDNN_STATUS_INVALID_VALUE: Self = Self(2001);
    /// `CUDNN_STATUS_BAD_PARAM_NULL_POINTER` (2002).
    pub const CUDNN_STATUS_BAD_PARAM_NULL_POINTER: Self = Self(2002);
    /// `CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER` (2003).
    pub const CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER: Self = Self(2003);
    /// `CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED` (2004).
    pub const CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED: Self = Self(2004);
    /// `CUDNN_STATUS_NOT_SUPPORTED` (3000).
    pub const CUDNN_STATUS_NOT_SUPPORTED: Self = Self(3000);
    /// `CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN` (3001).
    pub const CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN: Self = Self(3001);
    /// `CUDNN_STATUS_NOT_SUPPORTED_SHAPE` (3002).
    pub const CUDNN_STATUS_NOT_SUPPORTED_SHAPE: Self = Self(3002);
    /// `CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE` (3003).
    pub const CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE: Self = Self(3003);
    /// `CUDNN_STATUS_NOT_SUPPORTED_LAYOUT` (3004).
    pub const CUDNN_STATUS_NOT_SUPPORTED_LAYOUT: Self = Self(3004);
    /// `CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER` (3005).
    pub const CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER: Self = Self(3005);
    /// `CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH` (3007).
    pub const CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH: Self = Self(3007);
    /// `CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE` (3009).
    pub const CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE: Self = Self(3009);
    /// `CUDNN_STATUS_INTERNAL_ERROR` (4000).
    pub const CUDNN_STATUS_INTERNAL_ERROR: Self = Self(4000);
    /// `CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED` (4004).
    pub const CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED: Self = Self(4004);
    /// `CUDNN_STATUS_EXECUTION_FAILED` (5000).
    pub const CUDNN_STATUS_EXECUTION_FAILED: Self = Self(5000);
}

/// `cudnnDataType_t`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnDataType_t(pub c_int);

impl cudnnDataType_t {
    /// `CUDNN_DATA_FLOAT` (0).
    pub const CUDNN_DATA_FLOAT: Self = Self(0);
    /// `CUDNN_DATA_HALF` (2).
    pub const CUDNN_DATA_HALF: Self = Self(2);
    /// `CUDNN_DATA_BFLOAT16` (9).
    pub const CUDNN_DATA_BFLOAT16: Self = Self(9);
}

/// `cudnnBackendAttributeName_t`: the attributes `custack::dnn` sets or reads.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnBackendAttributeName_t(pub c_int);

impl cudnnBackendAttributeName_t {
    /// `CUDNN_ATTR_ENGINEHEUR_MODE` (200).
    pub const CUDNN_ATTR_ENGINEHEUR_MODE: Self = Self(200);
    /// `CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH` (201).
    pub const CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH: Self = Self(201);
    /// `CUDNN_ATTR_ENGINEHEUR_RESULTS` (202): the engine configurations, best first.
    pub const CUDNN_ATTR_ENGINEHEUR_RESULTS: Self = Self(202);
    /// `CUDNN_ATTR_ENGINECFG_ENGINE` (300).
    pub const CUDNN_ATTR_ENGINECFG_ENGINE: Self = Self(300);
    /// `CUDNN_ATTR_EXECUTION_PLAN_HANDLE` (400).
    pub const CUDNN_ATTR_EXECUTION_PLAN_HANDLE: Self = Self(400);
    /// `CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG` (401).
    pub const CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG: Self = Self(401);
    /// `CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE` (402), in bytes.
    pub const CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE: Self = Self(402);
    /// `CUDNN_ATTR_OPERATIONGRAPH_HANDLE` (800).
    pub const CUDNN_ATTR_OPERATIONGRAPH_HANDLE: Self = Self(800);
    /// `CUDNN_ATTR_OPERATIONGRAPH_OPS` (801).
    pub const CUDNN_ATTR_OPERATIONGRAPH_OPS: Self = Self(801);
    /// `CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT` (900).
    pub const CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT: Self = Self(900);
    /// `CUDNN_ATTR_TENSOR_DATA_TYPE` (901).
    pub const CUDNN_ATTR_TENSOR_DATA_TYPE: Self = Self(901);
    /// `CUDNN_ATTR_TENSOR_DIMENSIONS` (902).
    pub const CUDNN_ATTR_TENSOR_DIMENSIONS: Self = Self(902);
    /// `CUDNN_ATTR_TENSOR_STRIDES` (903), in elements.
    pub const CUDNN_ATTR_TENSOR_STRIDES: Self = Self(903);
    /// `CUDNN_ATTR_TENSOR_UNIQUE_ID` (906).
    pub const CUDNN_ATTR_TENSOR_UNIQUE_ID: Self = Self(906);
    /// `CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS` (1000).
    pub const CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS: Self = Self(1000);
    /// `CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS` (1001).
    pub const CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS: Self = Self(1001);
    /// `CUDNN_ATTR_VARIANT_PACK_WORKSPACE` (1003).
    pub const CUDNN_ATTR_VARIANT_PACK_WORKSPACE: Self = Self(1003);
    /// `CUDNN_ATTR_ENGINE_NUMERICAL_NOTE` (1303).
    pub const CUDNN_ATTR_ENGINE_NUMERICAL_NOTE: Self = Self(1303);
    /// `CUDNN_ATTR_MATMUL_COMP_TYPE` (1500).
    pub const CUDNN_ATTR_MATMUL_COMP_TYPE: Self = Self(1500);
    /// `CUDNN_ATTR_OPERATION_MATMUL_ADESC` (1520).
    pub const CUDNN_ATTR_OPERATION_MATMUL_ADESC: Self = Self(1520);
    /// `CUDNN_ATTR_OPERATION_MATMUL_BDESC` (1521).
    pub const CUDNN_ATTR_OPERATION_MATMUL_BDESC: Self = Self(1521);
    /// `CUDNN_ATTR_OPERATION_MATMUL_CDESC` (1522).
    pub const CUDNN_ATTR_OPERATION_MATMUL_CDESC: Self = Self(1522);
    /// `CUDNN_ATTR_OPERATION_MATMUL_DESC` (1523).
    pub const CUDNN_ATTR_OPERATION_MATMUL_DESC: Self = Self(1523);
}

/// `cudnnBackendAttributeType_t`: the C type of an attribute's values.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnBackendAttributeType_t(pub c_int);

impl cudnnBackendAttributeType_t {
    /// `CUDNN_TYPE_HANDLE` (0): `cudnnHandle_t`.
    pub const CUDNN_TYPE_HANDLE: Self = Self(0);
    /// `CUDNN_TYPE_DATA_TYPE` (1): `cudnnDataType_t`.
    pub const CUDNN_TYPE_DATA_TYPE: Self = Self(1);
    /// `CUDNN_TYPE_INT64` (3): `int64_t`.
    pub const CUDNN_TYPE_INT64: Self = Self(3);
    /// `CUDNN_TYPE_VOID_PTR` (6): `void *`.
    pub const CUDNN_TYPE_VOID_PTR: Self = Self(6);
    /// `CUDNN_TYPE_HEUR_MODE` (8): `cudnnBackendHeurMode_t`.
    pub const CUDNN_TYPE_HEUR_MODE: Self = Self(8);
    /// `CUDNN_TYPE_NUMERICAL_NOTE` (11): `cudnnBackendNumericalNote_t`.
    pub const CUDNN_TYPE_NUMERICAL_NOTE: Self = Self(11);
    /// `CUDNN_TYPE_BACKEND_DESCRIPTOR` (15): `cudnnBackendDescriptor_t`.
    pub const CUDNN_TYPE_BACKEND_DESCRIPTOR: Self = Self(15);
}

/// `cudnnBackendDescriptorType_t`: what a backend descriptor describes.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnBackendDescriptorType_t(pub c_int);

impl cudnnBackendDescriptorType_t {
    /// `CUDNN_BACKEND_ENGINE_DESCRIPTOR` (2).
    pub const CUDNN_BACKEND_ENGINE_DESCRIPTOR: Self = Self(2);
    /// `CUDNN_BACKEND_ENGINECFG_DESCRIPTOR` (3).
    pub const CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: Self = Self(3);
    /// `CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR` (4).
    pub const CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: Self = Self(4);
    /// `CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR` (5).
    pub const CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: Self = Self(5);
    /// `CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR` (15).
    pub const CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: Self = Self(15);
    /// `CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR` (16).
    pub const CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: Self = Self(16);
    /// `CUDNN_BACKEND_TENSOR_DESCRIPTOR` (17).
    pub const CUDNN_BACKEND_TENSOR_DESCRIPTOR: Self = Self(17);
    /// `CUDNN_BACKEND_MATMUL_DESCRIPTOR` (18).
    pub const CUDNN_BACKEND_MATMUL_DESCRIPTOR: Self = Self(18);
    /// `CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR` (19).
    pub const CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: Self = Self(19);
}

/// `cudnnBackendHeurMode_t`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnBackendHeurMode_t(pub c_int);

impl cudnnBackendHeurMode_t {
    /// `CUDNN_HEUR_MODE_A` (3): the heuristics for most operation graphs.
    pub const CUDNN_HEUR_MODE_A: Self = Self(3);
}

/// `cudnnBackendNumericalNote_t`: a property of an engine's numerics.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnBackendNumericalNote_t(pub c_int);

impl cudnnBackendNumericalNote_t {
    /// `CUDNN_NUMERICAL_NOTE_TENSOR_CORE` (0): the engine uses tensor cores (TF32 for `f32`).
    pub const CUDNN_NUMERICAL_NOTE_TENSOR_CORE: Self = Self(0);
    /// `CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS` (1): the engine converts its inputs to a
    /// narrower type.
    pub const CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS: Self = Self(1);
    /// `CUDNN_NUMERICAL_NOTE_TYPE_COUNT` (10): how many notes cuDNN 9 defines, the most one
    /// engine can report.
    pub const CUDNN_NUMERICAL_NOTE_TYPE_COUNT: Self = Self(10);
}

/// `cudnnTensorFormat_t`: the order of a 4-d tensor's (or filter's) dimensions in memory.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnTensorFormat_t(pub c_int);

impl cudnnTensorFormat_t {
    /// `CUDNN_TENSOR_NCHW` (0): a filter's dimensions `K, C, R, S`, `S` fastest.
    pub const CUDNN_TENSOR_NCHW: Self = Self(0);
    /// `CUDNN_TENSOR_NHWC` (1): a filter's dimensions `K, R, S, C`, `C` fastest.
    pub const CUDNN_TENSOR_NHWC: Self = Self(1);
}

/// `cudnnConvolutionMode_t`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnConvolutionMode_t(pub c_int);

impl cudnnConvolutionMode_t {
    /// `CUDNN_CONVOLUTION` (0): the filter flipped.
    pub const CUDNN_CONVOLUTION: Self = Self(0);
    /// `CUDNN_CROSS_CORRELATION` (1): the filter as it is (what deep-learning frameworks call a
    /// convolution).
    pub const CUDNN_CROSS_CORRELATION: Self = Self(1);
}

/// `cudnnMathType_t`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnMathType_t(pub c_int);

impl cudnnMathType_t {
    /// `CUDNN_DEFAULT_MATH` (0): tensor cores allowed (TF32 for `f32` data on Ampere and
    /// newer).
    pub const CUDNN_DEFAULT_MATH: Self = Self(0);
    /// `CUDNN_FMA_MATH` (3): FMA instructions only, full `f32` precision.
    pub const CUDNN_FMA_MATH: Self = Self(3);
}

/// `cudnnActivationMode_t`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnActivationMode_t(pub c_int);

impl cudnnActivationMode_t {
    /// `CUDNN_ACTIVATION_RELU` (1).
    pub const CUDNN_ACTIVATION_RELU: Self = Self(1);
}

/// `cudnnNanPropagation_t`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnNanPropagation_t(pub c_int);

impl cudnnNanPropagation_t {
    /// `CUDNN_PROPAGATE_NAN` (1).
    pub const CUDNN_PROPAGATE_NAN: Self = Self(1);
}

/// `cudnnConvolutionFwdAlgo_t`: a forward convolution algorithm (0 to 7).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnConvolutionFwdAlgo_t(pub c_int);

/// `cudnnDeterminism_t`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudnnDeterminism_t(pub c_int);

/// `cudnnConvolutionFwdAlgoPerf_t`: one algorithm's entry in the list the heuristics return.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudnnConvolutionFwdAlgoPerf_t {
    /// The algorithm.
    pub algo: cudnnConvolutionFwdAlgo_t,
    /// `CUDNN_STATUS_SUCCESS` where the algorithm supports the convolution.
    pub status: cudnnStatus_t,
    /// The time the heuristics expect, in milliseconds (`-1` when not measured).
    pub time: f32,
    /// The workspace it needs, in bytes.
    pub memory: usize,
    /// Whether its results are deterministic.
    pub determinism: cudnnDeterminism_t,
    /// The math type it uses.
    pub mathType: cudnnMathType_t,
    /// Reserved.
    pub reserved: [c_int; 3],
}

link_or_stub! {
    missing: custack_no_cudnn => cudnnStatus_t::CUDNN_STATUS_NOT_INITIALIZED;
    /// The version of the library loaded (`major·10000 + minor·100 + patch` for cuDNN 9).
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnngetversion>
    pub fn cudnnGetVersion() -> usize = 0;
    /// The status's name, a static string.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnngeterrorstring>
    pub fn cudnnGetErrorString(status: cudnnStatus_t) -> *const c_char = core::ptr::null();
    /// Makes a handle in the current context.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnncreate>
    pub fn cudnnCreate(handle: *mut cudnnHandle_t) -> cudnnStatus_t;
    /// Destroys a handle.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnndestroy>
    pub fn cudnnDestroy(handle: cudnnHandle_t) -> cudnnStatus_t;
    /// Sets the stream the handle's later calls are enqueued on.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnsetstream>
    pub fn cudnnSetStream(handle: cudnnHandle_t, streamId: CUstream) -> cudnnStatus_t;
    /// Makes a backend descriptor of a type, its attributes unset.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackendcreatedescriptor>
    pub fn cudnnBackendCreateDescriptor(
        descriptorType: cudnnBackendDescriptorType_t,
        descriptor: *mut cudnnBackendDescriptor_t,
    ) -> cudnnStatus_t;
    /// Destroys a backend descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackenddestroydescriptor>
    pub fn cudnnBackendDestroyDescriptor(descriptor: cudnnBackendDescriptor_t) -> cudnnStatus_t;
    /// Checks a descriptor's attributes and makes it read-only.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackendfinalize>
    pub fn cudnnBackendFinalize(descriptor: cudnnBackendDescriptor_t) -> cudnnStatus_t;
    /// Sets an attribute of a descriptor not yet finalized: `elementCount` values of
    /// `attributeType` at `arrayOfElements`.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackendsetattribute>
    pub fn cudnnBackendSetAttribute(
        descriptor: cudnnBackendDescriptor_t,
        attributeName: cudnnBackendAttributeName_t,
        attributeType: cudnnBackendAttributeType_t,
        elementCount: i64,
        arrayOfElements: *const c_void,
    ) -> cudnnStatus_t;
    /// Reads at most `requestedElementCount` values of an attribute of a finalized
    /// descriptor, and how many it has.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackendgetattribute>
    pub fn cudnnBackendGetAttribute(
        descriptor: cudnnBackendDescriptor_t,
        attributeName: cudnnBackendAttributeName_t,
        attributeType: cudnnBackendAttributeType_t,
        requestedElementCount: i64,
        elementCount: *mut i64,
        arrayOfElements: *mut c_void,
    ) -> cudnnStatus_t;
    /// Enqueues an execution plan on the handle's stream, with the pointers of a variant pack.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackendexecute>
    pub fn cudnnBackendExecute(
        handle: cudnnHandle_t,
        executionPlan: cudnnBackendDescriptor_t,
        variantPack: cudnnBackendDescriptor_t,
    ) -> cudnnStatus_t;
    /// Makes a tensor descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnncreatetensordescriptor>
    pub fn cudnnCreateTensorDescriptor(tensorDesc: *mut cudnnTensorDescriptor_t) -> cudnnStatus_t;
    /// Describes a 4-d tensor by its sizes and strides, in elements.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnnsettensor4ddescriptorex>
    pub fn cudnnSetTensor4dDescriptorEx(
        tensorDesc: cudnnTensorDescriptor_t,
        dataType: cudnnDataType_t,
        n: c_int,
        c: c_int,
        h: c_int,
        w: c_int,
        nStride: c_int,
        cStride: c_int,
        hStride: c_int,
        wStride: c_int,
    ) -> cudnnStatus_t;
    /// Destroys a tensor descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnndestroytensordescriptor>
    pub fn cudnnDestroyTensorDescriptor(tensorDesc: cudnnTensorDescriptor_t) -> cudnnStatus_t;
    /// Makes a filter descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnncreatefilterdescriptor>
    pub fn cudnnCreateFilterDescriptor(filterDesc: *mut cudnnFilterDescriptor_t) -> cudnnStatus_t;
    /// Describes a packed 4-d filter: `k` output and `c` input channels of `h × w`.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnnsetfilter4ddescriptor>
    pub fn cudnnSetFilter4dDescriptor(
        filterDesc: cudnnFilterDescriptor_t,
        dataType: cudnnDataType_t,
        format: cudnnTensorFormat_t,
        k: c_int,
        c: c_int,
        h: c_int,
        w: c_int,
    ) -> cudnnStatus_t;
    /// Destroys a filter descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnndestroyfilterdescriptor>
    pub fn cudnnDestroyFilterDescriptor(filterDesc: cudnnFilterDescriptor_t) -> cudnnStatus_t;
    /// Makes an activation descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnncreateactivationdescriptor>
    pub fn cudnnCreateActivationDescriptor(
        activationDesc: *mut cudnnActivationDescriptor_t,
    ) -> cudnnStatus_t;
    /// Describes an activation.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnnsetactivationdescriptor>
    pub fn cudnnSetActivationDescriptor(
        activationDesc: cudnnActivationDescriptor_t,
        mode: cudnnActivationMode_t,
        reluNanOpt: cudnnNanPropagation_t,
        coef: f64,
    ) -> cudnnStatus_t;
    /// Destroys an activation descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-ops-library.html#cudnndestroyactivationdescriptor>
    pub fn cudnnDestroyActivationDescriptor(
        activationDesc: cudnnActivationDescriptor_t,
    ) -> cudnnStatus_t;
    /// Makes a convolution descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnncreateconvolutiondescriptor>
    pub fn cudnnCreateConvolutionDescriptor(
        convDesc: *mut cudnnConvolutionDescriptor_t,
    ) -> cudnnStatus_t;
    /// Describes a 2-d convolution: padding, stride and dilation of each spatial dimension.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnnsetconvolution2ddescriptor>
    pub fn cudnnSetConvolution2dDescriptor(
        convDesc: cudnnConvolutionDescriptor_t,
        pad_h: c_int,
        pad_w: c_int,
        u: c_int,
        v: c_int,
        dilation_h: c_int,
        dilation_w: c_int,
        mode: cudnnConvolutionMode_t,
        computeType: cudnnDataType_t,
    ) -> cudnnStatus_t;
    /// Sets the math type (tensor cores or not) of a convolution.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnnsetconvolutionmathtype>
    pub fn cudnnSetConvolutionMathType(
        convDesc: cudnnConvolutionDescriptor_t,
        mathType: cudnnMathType_t,
    ) -> cudnnStatus_t;
    /// Destroys a convolution descriptor.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnndestroyconvolutiondescriptor>
    pub fn cudnnDestroyConvolutionDescriptor(
        convDesc: cudnnConvolutionDescriptor_t,
    ) -> cudnnStatus_t;
    /// The output's sizes of a 2-d convolution of the input and filter described.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnngetconvolution2dforwardoutputdim>
    pub fn cudnnGetConvolution2dForwardOutputDim(
        convDesc: cudnnConvolutionDescriptor_t,
        inputTensorDesc: cudnnTensorDescriptor_t,
        filterDesc: cudnnFilterDescriptor_t,
        n: *mut c_int,
        c: *mut c_int,
        h: *mut c_int,
        w: *mut c_int,
    ) -> cudnnStatus_t;
    /// The forward algorithms for a convolution, best first by cuDNN's heuristics.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardalgorithm-v7>
    pub fn cudnnGetConvolutionForwardAlgorithm_v7(
        handle: cudnnHandle_t,
        srcDesc: cudnnTensorDescriptor_t,
        filterDesc: cudnnFilterDescriptor_t,
        convDesc: cudnnConvolutionDescriptor_t,
        destDesc: cudnnTensorDescriptor_t,
        requestedAlgoCount: c_int,
        returnedAlgoCount: *mut c_int,
        perfResults: *mut cudnnConvolutionFwdAlgoPerf_t,
    ) -> cudnnStatus_t;
    /// The workspace an algorithm needs for a convolution, in bytes.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardworkspacesize>
    pub fn cudnnGetConvolutionForwardWorkspaceSize(
        handle: cudnnHandle_t,
        xDesc: cudnnTensorDescriptor_t,
        wDesc: cudnnFilterDescriptor_t,
        convDesc: cudnnConvolutionDescriptor_t,
        yDesc: cudnnTensorDescriptor_t,
        algo: cudnnConvolutionFwdAlgo_t,
        sizeInBytes: *mut usize,
    ) -> cudnnStatus_t;
    /// `y = act(alpha1 · conv(x, w) + alpha2 · z + bias)`, enqueued on the handle's stream.
    /// `alpha1` and `alpha2` point to host `float`s for `float` data.
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnnconvolutionbiasactivationforward>
    pub fn cudnnConvolutionBiasActivationForward(
        handle: cudnnHandle_t,
        alpha1: *const c_void,
        xDesc: cudnnTensorDescriptor_t,
        x: *const c_void,
        wDesc: cudnnFilterDescriptor_t,
        w: *const c_void,
        convDesc: cudnnConvolutionDescriptor_t,
        algo: cudnnConvolutionFwdAlgo_t,
        workSpace: *mut c_void,
        workSpaceSizeInBytes: usize,
        alpha2: *const c_void,
        zDesc: cudnnTensorDescriptor_t,
        z: *const c_void,
        biasDesc: cudnnTensorDescriptor_t,
        bias: *const c_void,
        activationDesc: cudnnActivationDescriptor_t,
        yDesc: cudnnTensorDescriptor_t,
        y: *mut c_void,
    ) -> cudnnStatus_t;
}
