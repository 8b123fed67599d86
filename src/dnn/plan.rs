//! The convolution plan, [`ConvPlan`]: its making by a guard ([`PushedGuard::conv_plan`]) with
//! a cuDNN handle, the descriptors, the algorithm and a workspace of its own; its runs on a
//! scope's bound memory; its destruction.

use crate::asynchronous::library_handle::{LibraryHandle, RawHandle};
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::dnn::check::{self, PLAN, Params, RUN};
use crate::dnn::shape::Conv2d;
use crate::dnn::status::status;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::ffi::cudnn::{
    cudnnActivationDescriptor_t, cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t,
    cudnnConvolutionFwdAlgoPerf_t, cudnnDataType_t, cudnnFilterDescriptor_t, cudnnHandle_t,
    cudnnStatus_t, cudnnTensorDescriptor_t,
};
use crate::memory::DeviceMemory;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::version::LibraryVersion;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

/// The forward algorithms cuDNN 9 defines (`CUDNN_CONVOLUTION_FWD_ALGO_COUNT`).
const ALGO_COUNT: usize = 8;

/// A cuDNN convolution forward with bias and ReLU, of the guard's context, for one
/// [`Conv2d`]: its handle, its descriptors, the algorithm cuDNN's heuristics chose and the
/// workspace that algorithm needs; see the [module docs](crate::dnn).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while another
/// context is pushed on top (C25); `!Send` and `!Sync`, as custack's guards are per thread.
#[doc(alias = "cudnnHandle_t")]
pub struct ConvPlan<'g> {
    /// The handle, the workspace of the chosen algorithm and the order of the runs, which never
    /// overlap on the GPU (they share the workspace); released in the one sound sequence
    /// (`LibraryHandle::release`): wait, then destroy and free.
    core: LibraryHandle<'g, RawDnn>,
    /// Host-side descriptions only (no GPU memory): destroyed after the handle, whenever.
    desc: Descriptors,
    params: Params,
    algo: cudnnConvolutionFwdAlgo_t,
    // Borrowed from the guard; the handle is of the guard's context, current on this thread
    // only: `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(ConvPlan<'static>: Send, Sync);

impl core::fmt::Debug for ConvPlan<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ConvPlan")
            .field("raw", &self.core.raw())
            .field("params", &self.params)
            .field("algo", &self.algo)
            .field("workspace_bytes", &self.core.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// The descriptors of one convolution: host objects, set once when the plan is made, read by
/// every run; each destroyed when dropped (errors recorded).
#[derive(Debug)]
struct Descriptors {
    x: cudnnTensorDescriptor_t,
    w: cudnnFilterDescriptor_t,
    conv: cudnnConvolutionDescriptor_t,
    bias: cudnnTensorDescriptor_t,
    y: cudnnTensorDescriptor_t,
    act: cudnnActivationDescriptor_t,
}

impl Descriptors {
    /// Makes and sets every descriptor from checked parameters, then checks that cuDNN computes
    /// the output's sizes custack computed (`cudnnGetConvolution2dForwardOutputDim`). Host
    /// calls only: no handle, no GPU.
    #[allow(
        clippy::many_single_char_names,
        reason = "cuDNN's own names: n, c, h, w and their strides"
    )]
    fn new(p: &Params) -> Result<Self> {
        let float = cudnnDataType_t::CUDNN_DATA_FLOAT;
        let mut d = Self {
            x: core::ptr::null_mut(),
            w: core::ptr::null_mut(),
            conv: core::ptr::null_mut(),
            bias: core::ptr::null_mut(),
            y: core::ptr::null_mut(),
            act: core::ptr::null_mut(),
        };
        // Each create writes a new descriptor through a valid out-pointer, a field of `d`,
        // which destroys it when dropped (also on the errors below).
        for t in [&mut d.x, &mut d.bias, &mut d.y] {
            // SAFETY: a valid out-pointer (see above).
            status("cudnnCreateTensorDescriptor", unsafe {
                ffi::cudnn::cudnnCreateTensorDescriptor(t)
            })?;
        }
        // SAFETY: a valid out-pointer (see above).
        status("cudnnCreateFilterDescriptor", unsafe {
            ffi::cudnn::cudnnCreateFilterDescriptor(&raw mut d.w)
        })?;
        // SAFETY: a valid out-pointer (see above).
        status("cudnnCreateConvolutionDescriptor", unsafe {
            ffi::cudnn::cudnnCreateConvolutionDescriptor(&raw mut d.conv)
        })?;
        // SAFETY: a valid out-pointer (see above).
        status("cudnnCreateActivationDescriptor", unsafe {
            ffi::cudnn::cudnnCreateActivationDescriptor(&raw mut d.act)
        })?;
        let k = p.w[0];
        let bias = ([1, k, 1, 1], [k, 1, 1, 1]);
        for (t, (dims, strides)) in [(d.x, p.x), (d.bias, bias), (d.y, p.y)] {
            let ([n, c, h, w], [ns, cs, hs, ws]) = (dims, strides);
            // SAFETY: a live tensor descriptor (made above); plain values.
            status("cudnnSetTensor4dDescriptorEx", unsafe {
                ffi::cudnn::cudnnSetTensor4dDescriptorEx(t, float, n, c, h, w, ns, cs, hs, ws)
            })?;
        }
        let [fk, fc, fr, fs] = p.w;
        // SAFETY: a live filter descriptor; plain values.
        status("cudnnSetFilter4dDescriptor", unsafe {
            ffi::cudnn::cudnnSetFilter4dDescriptor(d.w, float, p.format, fk, fc, fr, fs)
        })?;
        // SAFETY: a live convolution descriptor; plain values.
        status(PLAN, unsafe {
            ffi::cudnn::cudnnSetConvolution2dDescriptor(
                d.conv,
                p.pad[0],
                p.pad[1],
                p.stride[0],
                p.stride[1],
                p.dilation[0],
                p.dilation[1],
                ffi::cudnn::cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION,
                float,
            )
        })?;
        // SAFETY: as above.
        status("cudnnSetConvolutionMathType", unsafe {
            ffi::cudnn::cudnnSetConvolutionMathType(d.conv, p.math)
        })?;
        // SAFETY: a live activation descriptor; plain values.
        status("cudnnSetActivationDescriptor", unsafe {
            ffi::cudnn::cudnnSetActivationDescriptor(
                d.act,
                ffi::cudnn::cudnnActivationMode_t::CUDNN_ACTIVATION_RELU,
                ffi::cudnn::cudnnNanPropagation_t::CUDNN_PROPAGATE_NAN,
                0.0,
            )
        })?;
        let mut out: [c_int; 4] = [0; 4];
        let [on, oc, oh, ow] = &mut out;
        // SAFETY: live descriptors, set above; four valid out-pointers (locals).
        status("cudnnGetConvolution2dForwardOutputDim", unsafe {
            ffi::cudnn::cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, on, oc, oh, ow)
        })?;
        agree(out, p.y.0)?;
        Ok(d)
    }
}

/// `Ok` if cuDNN's output sizes are custack's: the extents every run checks are computed from
/// custack's, and cuDNN writes what it computes.
fn agree(cudnn: [c_int; 4], custack: [c_int; 4]) -> Result<()> {
    if cudnn == custack {
        return Ok(());
    }
    Err(Error::custack(
        ErrorKind::InvalidValue,
        format!(
            "cudnnGetConvolution2dForwardOutputDim: cuDNN computes an output of {cudnn:?}, \
             custack {custack:?}; no plan was made"
        ),
    ))
}

impl Drop for Descriptors {
    fn drop(&mut self) {
        // Each descriptor was made by `new` (or is null, skipped) and is destroyed once here;
        // descriptors are host objects that no pending GPU work reads (cuDNN reads what a call
        // needs when the call is made).
        let tensors = [self.x, self.bias, self.y]
            .into_iter()
            .filter(|t| !t.is_null())
            .map(|t| {
                // SAFETY: a live tensor descriptor (see above).
                unsafe { ffi::cudnn::cudnnDestroyTensorDescriptor(t) }
            });
        let mut results: Vec<cudnnStatus_t> = tensors.collect();
        if !self.w.is_null() {
            // SAFETY: a live filter descriptor (see above).
            results.push(unsafe { ffi::cudnn::cudnnDestroyFilterDescriptor(self.w) });
        }
        if !self.conv.is_null() {
            // SAFETY: a live convolution descriptor (see above).
            results.push(unsafe { ffi::cudnn::cudnnDestroyConvolutionDescriptor(self.conv) });
        }
        if !self.act.is_null() {
            // SAFETY: a live activation descriptor (see above).
            results.push(unsafe { ffi::cudnn::cudnnDestroyActivationDescriptor(self.act) });
        }
        for r in results {
            if let Err(e) = status("cudnnDestroy…Descriptor", r) {
                record_drop_error(e);
            }
        }
    }
}

/// The first algorithm of cuDNN's list that supports the convolution (`status` success), of
/// the `returned` entries actually written (never more than the array holds).
fn first_supported(
    perf: &[cudnnConvolutionFwdAlgoPerf_t],
    returned: c_int,
) -> Result<cudnnConvolutionFwdAlgo_t> {
    let n = usize::try_from(returned).unwrap_or(0).min(perf.len());
    perf.iter()
        .take(n)
        .find(|p| p.status == cudnnStatus_t::CUDNN_STATUS_SUCCESS)
        .map(|p| p.algo)
        .ok_or_else(|| {
            Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "cudnnGetConvolutionForwardAlgorithm_v7: none of the {n} algorithms cuDNN \
                     listed supports this convolution; no plan was made"
                ),
            )
        })
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cudnnConvolutionBiasActivationForward`'s plan—Makes a cuDNN handle of this guard's
    /// context for `conv`, its descriptors, the forward algorithm cuDNN's heuristics rank first
    /// among those that support it (`cudnnGetConvolutionForwardAlgorithm_v7`) and the
    /// workspace that algorithm needs (`cudnnGetConvolutionForwardWorkspaceSize`), allocated
    /// here and owned by the plan.
    ///
    /// # Errors
    ///
    /// Before cuDNN is called: [`ErrorKind::InvalidValue`] for a size, stride or dilation of
    /// 0, or a filter reaching beyond the padded input; [`ErrorKind::SizeOverflow`] for a
    /// tensor beyond 2^31 − 1 elements. Then [`ErrorKind::LibraryNotLinked`] if custack was
    /// built without cuDNN; cuDNN's status (`CudnnBadParam`, `CudnnNotSupported`, …);
    /// [`ErrorKind::InvalidValue`] if cuDNN computes another output shape than custack or
    /// supports no algorithm; `CUDA_ERROR_OUT_OF_MEMORY` for the workspace; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::dnn::{Conv2d, Layout};
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// // 32 images of 64 × 64 × 256, 256 filters of 3 × 3, padded to keep the size.
    /// let conv = Conv2d::new([32, 256, 64, 64], [256, 3, 3]).padding(1, 1).layout(Layout::Nhwc);
    /// let plan = guard.conv_plan(&conv)?;
    /// assert_eq!(plan.output_dims(), [32, 256, 64, 64]);
    /// println!("cuDNN {}, {} bytes of workspace", custack::dnn::version()?, plan.workspace_bytes());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnngetconvolutionforwardalgorithm-v7>
    #[doc(alias = "cudnnCreate")]
    #[doc(alias = "cudnnGetConvolutionForwardAlgorithm_v7")]
    #[doc(alias = "cudnnGetConvolutionForwardWorkspaceSize")]
    pub fn conv_plan(&self, conv: &Conv2d) -> Result<ConvPlan<'_>> {
        crate::error::poison::check()?;
        let params = check::params(conv)?;
        not_linked()?;
        let desc = Descriptors::new(&params)?;
        let core = LibraryHandle::create(self, 0, || {
            let mut raw: cudnnHandle_t = core::ptr::null_mut();
            // SAFETY: `cudnnCreate` writes a handle through a valid out-pointer (a live local);
            // it binds the handle to the current context, this guard's.
            status("cudnnCreate", unsafe {
                ffi::cudnn::cudnnCreate(&raw mut raw)
            })?;
            Ok(RawDnn(raw))
        })?;
        let raw = core.raw().map_or(core::ptr::null_mut(), |r| r.0);
        // From here the plan destroys the handle when dropped, also on the errors below.
        let mut plan = ConvPlan {
            core,
            desc,
            params,
            algo: cudnnConvolutionFwdAlgo_t(0),
            _guard: PhantomData,
        };
        let d = &plan.desc;
        let mut perf = [cudnnConvolutionFwdAlgoPerf_t {
            algo: cudnnConvolutionFwdAlgo_t(0),
            status: cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED,
            time: 0.0,
            memory: 0,
            determinism: ffi::cudnn::cudnnDeterminism_t(0),
            mathType: ffi::cudnn::cudnnMathType_t(0),
            reserved: [0; 3],
        }; ALGO_COUNT];
        let mut returned: c_int = 0;
        // SAFETY: a live handle of the current context and live descriptors; cuDNN writes at
        // most `requestedAlgoCount` entries into `perf`, which holds that many, and the count
        // through a valid out-pointer.
        status("cudnnGetConvolutionForwardAlgorithm_v7", unsafe {
            ffi::cudnn::cudnnGetConvolutionForwardAlgorithm_v7(
                raw,
                d.x,
                d.w,
                d.conv,
                d.y,
                ALGO_COUNT as c_int,
                &raw mut returned,
                perf.as_mut_ptr(),
            )
        })?;
        let algo = first_supported(&perf, returned)?;
        let mut bytes = 0usize;
        // SAFETY: as above; the size through a valid out-pointer.
        status("cudnnGetConvolutionForwardWorkspaceSize", unsafe {
            ffi::cudnn::cudnnGetConvolutionForwardWorkspaceSize(
                raw,
                d.x,
                d.w,
                d.conv,
                d.y,
                algo,
                &raw mut bytes,
            )
        })?;
        plan.algo = algo;
        if bytes > 0 {
            // The workspace the algorithm asked for, of this guard's context, passed to every
            // run with its size; the plan frees it only once no run can still use it.
            plan.core.own_memory(self.alloc::<u8>(bytes)?);
        }
        Ok(plan)
    }
}

/// A live cuDNN handle, destroyed by `cudnnDestroy`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawDnn(pub(crate) cudnnHandle_t);

impl RawHandle for RawDnn {
    unsafe fn destroy(self) -> Result<()> {
        // SAFETY: the caller's guarantee: a live handle of the current context, destroyed once,
        // no call of it still running.
        status("cudnnDestroy", unsafe { ffi::cudnn::cudnnDestroy(self.0) })
    }
}

/// `Err` in a build that found no cuDNN.
pub(crate) fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::CUDNN)
}

/// `cudnnGetVersion`—The version of the cuDNN linked (e.g. 9.1.0).
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without cuDNN.
///
/// # Examples
///
/// ```no_run
/// println!("cuDNN {}", custack::dnn::version()?);
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnngetversion>
#[doc(alias = "cudnnGetVersion")]
pub fn version() -> Result<LibraryVersion> {
    crate::error::confinement::full_api("dnn::version")?;
    not_linked()?;
    // SAFETY: no arguments; a host call.
    let v = unsafe { ffi::cudnn::cudnnGetVersion() };
    Ok(LibraryVersion::from_code(
        u32::try_from(v).unwrap_or(u32::MAX),
        10_000,
    ))
}

/// A device address as the pointer type cuDNN takes.
pub(crate) fn ptr(p: ffi::CUdeviceptr) -> *mut c_void {
    p as usize as *mut c_void
}

impl ConvPlan<'_> {
    /// The output's sizes `[n, k, p, q]` (whatever the [`Layout`](crate::dnn::Layout)).
    pub fn output_dims(&self) -> [usize; 4] {
        self.params.y.0.map(|v| usize::try_from(v).unwrap_or(0))
    }

    /// The elements of the input that one run reads: what `x` must hold at least.
    pub fn input_len(&self) -> usize {
        self.params.x_len
    }

    /// The elements of the filter: what `w` must hold at least (`K·C·R·S`).
    pub fn filter_len(&self) -> usize {
        self.params.w_len
    }

    /// The elements of the bias: `K`, one per output channel.
    pub fn bias_len(&self) -> usize {
        self.params.bias_len
    }

    /// The elements of the output that one run writes: what `y` must hold at least.
    pub fn output_len(&self) -> usize {
        self.params.y_len
    }

    /// The algorithm cuDNN's heuristics chose (`cudnnConvolutionFwdAlgo_t`).
    pub fn algorithm(&self) -> cudnnConvolutionFwdAlgo_t {
        self.algo
    }

    /// The raw cuDNN handle, for cuDNN functions this module does not wrap (`None` only while
    /// it is being destroyed). It stays owned by `self`. Runs set the handle's stream only when
    /// it differs from the previous run's; asking for the raw handle makes the next run set it
    /// again. Never let a call through it overlap this plan's own runs (they share its
    /// workspace).
    pub fn as_raw(&self) -> Option<cudnnHandle_t> {
        self.core.order().forget_stream();
        self.core.raw().map(|r| r.0)
    }

    /// The bytes of the plan's workspace (0 when the algorithm needs none).
    pub fn workspace_bytes(&self) -> usize {
        self.core.memory_bytes()
    }

    /// `cudnnConvolutionBiasActivationForward`—Enqueues `y = max(0, conv(x, w) + bias)` on the
    /// scope's stream, `x`, `w`, `bias` and `y` bound to the scope; `bias` holds one value per
    /// output channel.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] naming the buffer shorter
    /// than the plan's extent ([`input_len`](Self::input_len), [`filter_len`](Self::filter_len),
    /// [`bias_len`](Self::bias_len), [`output_len`](Self::output_len));
    /// [`ErrorKind::InvalidValue`] for a buffer not aligned to 16 bytes (a view starting
    /// elsewhere) or a destroyed plan; `CUDA_ERROR_NOT_SUPPORTED` inside a graph capture.
    /// cuDNN's status; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::dnn::Conv2d;
    /// // One 1-channel 3 × 3 image, one 3 × 3 filter of ones: one output, the sum plus the bias.
    /// let plan = guard.conv_plan(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]))?;
    /// let x = guard.alloc_from(&[1.0f32, -2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])?;
    /// let w = guard.alloc_from(&[1.0f32; 9])?;
    /// let bias = guard.alloc_from(&[-1.0f32])?;
    /// let mut y = guard.alloc_zeroed::<f32>(1)?;
    /// guard.stream()?.scope(|s| plan.run(s, s.bind(&x), s.bind(&w), s.bind(&bias), s.bind_mut(&mut y)))??;
    /// assert_eq!(y.to_vec()?, [40.0]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html#cudnnconvolutionbiasactivationforward>
    #[doc(alias = "cudnnConvolutionBiasActivationForward")]
    #[doc(alias = "cudnnSetStream")]
    #[allow(
        clippy::many_single_char_names,
        reason = "cuDNN's own names: x, w, y, and the scope s as every library's run"
    )]
    pub fn run<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        x: impl ScopedRead<'scope, f32>,
        w: impl ScopedRead<'scope, f32>,
        bias: impl ScopedRead<'scope, f32>,
        y: impl ScopedWrite<'scope, f32>,
    ) -> Result<()> {
        let (x, w, bias, y) = (
            x.raw_parts(),
            w.raw_parts(),
            bias.raw_parts(),
            y.raw_parts(),
        );
        check::buffers(&self.params, x, w, bias, y)?;
        let Some(RawDnn(raw)) = self.core.raw() else {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("{RUN}: the plan was destroyed; nothing was enqueued"),
            ));
        };
        let (work, work_bytes) = self.core.memory().map_or((core::ptr::null_mut(), 0), |m| {
            (ptr(m.device_ptr()), m.len())
        });
        let d = &self.desc;
        let (one, zero) = (1.0f32, 0.0f32);
        self.core.order().enqueue(
            RUN,
            s,
            |stream| {
                // SAFETY: `cudnnSetStream` needs a live handle and a stream of its context:
                // `raw` is live (released only by `destroy` or the drop, which take `self`);
                // the stream is a scope's, live for the scope, of the current context, which
                // is the handle's (the plan borrows the guard shared, so no other context can
                // be pushed above it while it is reachable).
                status("cudnnSetStream", unsafe {
                    ffi::cudnn::cudnnSetStream(raw, stream)
                })
            },
            || {
                // SAFETY: cuDNN reads `x`, `w`, `bias` (and `z`, here `y` scaled by 0) and
                // writes `y` in stream order, with the workspace:
                // - each buffer holds the extent its descriptor reaches and is aligned to 16
                //   bytes (checked above); the descriptors were set from the same checked
                //   parameters, and cuDNN's output shape was checked equal to custack's;
                // - all four are device memory of this context bound to the scope (alive until
                //   its stream is synchronized); `y` is an exclusive binding, so it aliases
                //   none of the inputs nor anything else the scope reaches;
                // - `z` is `y` with `alpha2 = 0`: cuDNN's documented way to add no residual;
                // - the workspace is the size the chosen algorithm asked for, owned by the
                //   plan, and the plan's runs never overlap on the GPU (`order`);
                // - `alpha1` and `alpha2` point to live host `float`s, as for `float` data;
                // - the handle is live and its stream is the scope's.
                status(RUN, unsafe {
                    ffi::cudnn::cudnnConvolutionBiasActivationForward(
                        raw,
                        (&raw const one).cast(),
                        d.x,
                        ptr(x.0),
                        d.w,
                        ptr(w.0),
                        d.conv,
                        self.algo,
                        work,
                        work_bytes,
                        (&raw const zero).cast(),
                        d.y,
                        ptr(y.0),
                        d.bias,
                        ptr(bias.0),
                        d.act,
                        d.y,
                        ptr(y.0),
                    )
                })
            },
        )
    }

    /// `cudnnDestroy`—Waits until none of the plan's runs can still run, then destroys its
    /// handle and descriptors and frees its workspace, returning the first error.
    ///
    /// # Errors
    ///
    /// The error of the wait (the first error of the context's work, or a sticky error); if it
    /// fails without a sticky error, the handle and its workspace are leaked rather than freed
    /// while the GPU may still use them. cuDNN's status; the workspace's free.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnndestroy>
    #[doc(alias = "cudnnDestroy")]
    pub fn destroy(mut self) -> Result<()> {
        self.core.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(not(custack_no_cudnn))]
    use crate::dnn::shape::Layout;
    use crate::error::not_linked::assert_says_what_to_set;

    #[test]
    fn a_build_without_cudnn_says_what_to_set() {
        // Both builds are checked: with cuDNN linked this must be `Ok`, without (the feature
        // on, no library found) an error naming the variable and the wheel.
        let (missing, env, wheel) = (
            cfg!(custack_no_cudnn),
            "CUSTACK_CUDNN_LIB_DIR",
            "nvidia-cudnn-cu13",
        );
        assert_says_what_to_set(not_linked(), missing, env, wheel);
    }

    #[test]
    fn another_output_shape_than_custacks_is_refused() {
        agree([2, 4, 3, 5], [2, 4, 3, 5]).unwrap();
        let e = agree([2, 4, 3, 6], [2, 4, 3, 5]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.to_string().contains("[2, 4, 3, 6]"), "{e}");
    }

    fn perf(algo: c_int, status: cudnnStatus_t) -> cudnnConvolutionFwdAlgoPerf_t {
        cudnnConvolutionFwdAlgoPerf_t {
            algo: cudnnConvolutionFwdAlgo_t(algo),
            status,
            time: 0.0,
            memory: 0,
            determinism: ffi::cudnn::cudnnDeterminism_t(0),
            mathType: ffi::cudnn::cudnnMathType_t(0),
            reserved: [0; 3],
        }
    }

    #[test]
    fn the_first_supported_algorithm_of_those_returned_is_chosen() {
        let (ok, no) = (
            cudnnStatus_t::CUDNN_STATUS_SUCCESS,
            cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED,
        );
        let list = [perf(6, no), perf(1, ok), perf(0, ok), perf(7, ok)];
        assert_eq!(first_supported(&list, 4).unwrap().0, 1);
        // Only the entries cuDNN says it wrote count, and never more than the array holds.
        let e = first_supported(&list, 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.to_string().contains("none of the 1 algorithms"), "{e}");
        assert!(first_supported(&list, -3).is_err());
        let all_unsupported = [perf(6, no), perf(5, no)];
        assert!(first_supported(&all_unsupported, 99).is_err());
    }

    /// The descriptors are host objects: where cuDNN is linked, they are set from custack's
    /// parameters without a GPU, and cuDNN's own output shape must equal custack's.
    #[cfg(not(custack_no_cudnn))]
    #[test]
    fn cudnn_computes_the_output_shape_custack_computes() {
        for conv in [
            Conv2d::new([2, 3, 5, 7], [4, 3, 3]),
            Conv2d::new([2, 3, 5, 7], [4, 3, 3])
                .padding(1, 2)
                .stride(2, 3),
            Conv2d::new([1, 8, 17, 9], [16, 3, 2])
                .dilation(2, 3)
                .layout(Layout::Nhwc),
            Conv2d::new([32, 256, 64, 64], [256, 3, 3]).padding(1, 1),
            Conv2d::new([1, 1, 3, 3], [1, 3, 3]),
        ] {
            let p = check::params(&conv).unwrap();
            // `Descriptors::new` compares them (`agree`) and fails otherwise.
            let d = Descriptors::new(&p).unwrap_or_else(|e| panic!("{conv:?}: {e}"));
            drop(d);
        }
    }
}
