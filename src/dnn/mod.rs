//! cuDNN 9 under the guard (cargo feature `cudnn`): a [`ConvPlan`] made by a [`PushedGuard`]
//! for one 2-d convolution forward with a bias and a ReLU, `y = max(0, conv(x, w) + bias)` of
//! `f32` tensors, with a handle, an algorithm and a workspace of its own, run on device memory
//! bound to a [`StreamScope`], every size and extent checked before anything is enqueued; and
//! a [`MatmulPlan`] for a batched `f32` matrix product `C[i] = A[i] · B[i]` ([`Matmul`]),
//! through cuDNN's graph API, checked and run the same way.
//!
//! # Which cuDNN API, and why
//!
//! cuDNN 9 offers two APIs: the graph (backend) API, in which an operation graph is assembled
//! from opaque descriptors whose attributes are set one by one
//! (`cudnnBackendSetAttribute(desc, name, type, count, void*)`), finalized, and executed with a
//! "variant pack" of raw pointers matched to tensors by integer uid; and the legacy calls it
//! still ships (`cudnn_ops`, `cudnn_cnn`), here `cudnnConvolutionBiasActivationForward` with
//! fixed, typed descriptors. **custack uses the legacy calls, because every parameter they take
//! can be checked by custack, completely, before the call**:
//!
//! - a legacy descriptor is a handful of `int`s (sizes, strides, padding, stride, dilation)
//!   that custack computes itself from a [`Conv2d`] and checks (every size at least 1, the
//!   filter within the padded input, every tensor within 2^31 − 1 elements); the output's
//!   shape is custack's formula, and cuDNN's own (`cudnnGetConvolution2dForwardOutputDim`) must
//!   agree before a plan exists, so the extent each run checks is the extent cuDNN writes;
//! - the call takes each tensor's descriptor beside its pointer, in fixed positions, so the
//!   buffer bound for `y` is the one checked against `y`'s extent. In the graph API the
//!   pointers travel in a variant pack keyed by uids that custack would have to keep matched
//!   to tensors itself, and what the finalized plan reaches of each tensor is known only to
//!   cuDNN after finalization (an engine may pick its own layout or vectorization), so a
//!   check before the call could only repeat what custack assembled, not what cuDNN will do;
//! - the legacy API's algorithm and its workspace size come from two calls custack makes once
//!   (`cudnnGetConvolutionForwardAlgorithm_v7`, `cudnnGetConvolutionForwardWorkspaceSize`),
//!   held by the plan with the workspace allocated to that size.
//!
//! The cost: no fusions beyond convolution, bias, activation and a residual, and no matmul:
//! cuDNN 9's legacy API has none (its matmul is a graph-API operation only). `f16` tensors are
//! not offered yet.
//!
//! # The matmul, through the graph API
//!
//! Because the legacy API has no matmul, [`PushedGuard::matmul_plan`] uses the graph API for
//! one, in the one shape where the argument above still holds: a graph of a single operation
//! (`CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR`) whose three tensors custack describes itself,
//! packed row-major `[batch, rows, columns]` with strides, uid and a 16-byte alignment computed
//! from the checked sizes ([`Matmul::new`]`(batch, m, n, k)`: each at least 1, every tensor's
//! elements and bytes within an `i64`). Each run checks the three buffers against their
//! tensors' elements ([`MatmulPlan::a_len`], [`b_len`](MatmulPlan::b_len),
//! [`c_len`](MatmulPlan::c_len)) and alignment, then builds its variant pack from exactly those
//! three addresses, matched to the tensors by the uids custack assigned. The engine is the first
//! of cuDNN's heuristics (mode A) whose execution plan finalizes; by default engines whose
//! numerical notes say tensor cores or down-converted inputs are skipped
//! ([`Matmul::tf32`]`(true)` allows them). The plan owns every descriptor it makes (tensors,
//! the matmul and its operation, the graph, the heuristics, the engine configurations, the
//! execution plan): each is owned from its creation and destroyed once, last made first, after
//! the plan's runs are over, also when making the plan fails midway. The workspace is the size
//! the execution plan asks for (`CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE`), owned by the plan
//! as the convolution's is. The same rules as the convolution's apply to its runs (C36; order,
//! streams, captures below). For `f16`, transposes or fusions use `custack::blas` or
//! `custack::blaslt` (features `cublas`, `cublaslt`).
//!
//! # Plans and runs
//!
//! [`PushedGuard::conv_plan`] checks the [`Conv2d`] ([`Layout::Nchw`] or [`Layout::Nhwc`],
//! packed; padding, stride, dilation; tensor cores allowed or not), sets the descriptors, makes
//! a handle, lets cuDNN's heuristics rank the algorithms and keeps the first that supports the
//! convolution, with the workspace it needs. [`ConvPlan<'g>`](ConvPlan) borrows the guard, like
//! the streams and buffers it lends, so the compiler refuses (C25) a plan used after its guard
//! popped, while another context is pushed on top, or on another thread (`!Send`, `!Sync`).
//!
//! [`ConvPlan::run`] takes the [`StreamScope`] to enqueue on, the input, filter and bias as
//! [`ScopedRead`] (`s.bind(&x)`) and the output as [`ScopedWrite`] (`s.bind_mut(&mut y)`), all
//! bound to that scope (C36): a binding of another scope, or a read-only output, fails to
//! compile. Each run checks that every buffer holds its extent ([`ConvPlan::input_len`],
//! [`filter_len`](ConvPlan::filter_len), [`bias_len`](ConvPlan::bias_len),
//! [`output_len`](ConvPlan::output_len)) and starts at a 16-byte aligned address; a refused run
//! is [`ErrorKind::BufferTooShort`] or [`ErrorKind::InvalidValue`] naming the call and the
//! buffer, and nothing is enqueued. Lengths are not in the types (device buffers are sized at
//! run time), so a buffer too small is caught at run time, never by the compiler. cuDNN's own
//! statuses are the `Cudnn…` kinds ([`ErrorKind::CudnnBadParam`], …); none is sticky.
//!
//! ```no_run
//! use custack::dnn::Conv2d;
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! // 8 images of 3 channels of 32 × 32, 16 filters of 3 × 3, padded: 8 × 16 × 32 × 32.
//! let plan = guard.conv_plan(&Conv2d::new([8, 3, 32, 32], [16, 3, 3]).padding(1, 1))?;
//! let x = guard.alloc_from(&vec![0.5f32; plan.input_len()])?;
//! let w = guard.alloc_from(&vec![0.1f32; plan.filter_len()])?;
//! let bias = guard.alloc_from(&vec![-0.2f32; plan.bias_len()])?;
//! let mut y = guard.alloc_zeroed::<f32>(plan.output_len())?;
//! guard.stream()?.scope(|s| {
//!     plan.run(s, s.bind(&x), s.bind(&w), s.bind(&bias), s.bind_mut(&mut y))
//! })??;
//! // An inner pixel sees 27 taps: max(0, 27 · 0.05 − 0.2).
//! assert!((y.to_vec()?[16 * 32 + 16] - 1.15).abs() < 1e-5);
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # Workspace, streams and graphs
//!
//! Each plan owns its handle and the workspace of its algorithm, so two runs of one plan must
//! not overlap on the GPU: they run one after another whatever streams they are on, as
//! cuBLAS's and cuFFT's calls do (on one stream by the stream; on another, the run first waits
//! on the GPU for all work enqueued so far in the context, and the handle's stream is set only
//! when it changes, `cudnnSetStream`). Dropping a plan with runs pending synchronizes the
//! context before destroying the handle and freeing the workspace. **Runs inside a graph
//! capture are refused** (`CUDA_ERROR_NOT_SUPPORTED`), as every library's calls are: the
//! captured graph would keep using the plan's workspace after the plan was destroyed, which no
//! type here can tie to the graph.
//!
//! # Without cuDNN
//!
//! With the feature on but no `libcudnn.so.9` found at build time (`build.rs` warns), the crate
//! still builds and [`PushedGuard::conv_plan`] returns [`ErrorKind::LibraryNotLinked`] saying
//! what to set: `CUSTACK_CUDNN_LIB_DIR` (the directory holding `libcudnn.so.9`, whose
//! sub-libraries `libcudnn_graph.so.9`, `libcudnn_ops.so.9`, `libcudnn_cnn.so.9` and
//! `libcudnn_engines_*.so.9` must sit beside it), or install the `nvidia-cudnn-cu13` (or
//! `-cu12`) Python wheel. cuDNN loads libcuda and, for some engines, cuBLASLt at run time.
//!
//! # References
//!
//! <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-cnn-library.html>

// The files, bottom to top: each uses only files listed before it.
// - `status`: cuDNN's statuses as errors;
// - `shape`: the description of a convolution (`Conv2d`, `Layout`);
// - `check`: its parameters and extents, and the checks every run makes;
// - `plan`: `ConvPlan`, its making, runs and destruction;
// - `matmul`: `Matmul` and `MatmulPlan`, through the graph API (uses `check`'s alignment and
//   `plan`'s handle).
mod check;
mod matmul;
mod plan;
mod shape;
mod status;

pub use matmul::{Matmul, MatmulPlan};
pub use plan::{ConvPlan, version};
pub use shape::{Conv2d, Layout};

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::context::stack::PushedGuard;
#[cfg(doc)]
use crate::error::ErrorKind;
#[cfg(doc)]
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
