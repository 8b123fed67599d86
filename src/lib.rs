//! custack: the CUDA driver API with the context stack in the type system.
//!
//! **New here? Read the [guide]**: [the stack and guards](guide::stack),
//! [asynchronous work](guide::scopes), [parking and several contexts](guide::parking),
//! [errors and faults](guide::faults), [testing without a GPU](guide::testing),
//! [the restricted profile](guide::profile), [platforms](guide::platforms). What follows is the
//! two-minute picture.
//!
//! The CUDA driver keeps, per OS thread, a stack of current contexts, and most calls act on its
//! top implicitly. custack makes that stack a borrow stack:
//!
//! | value | owns / borrows | `Send`/`Sync` |
//! | --- | --- | --- |
//! | [`Driver`] | proof that `cuInit` succeeded | yes |
//! | [`Device`] | a device ordinal, only from a `Driver` | yes |
//! | [`Context`] | a created or primary context, floating (current nowhere) | yes |
//! | [`Stack`] | the calling thread's stack token, one per thread | no |
//! | [`PushedGuard`] | a context pushed on this thread; borrows the `Context` and the stack | no |
//! | [`GreenContext`] | a context over a partition of the SMs ([`Stack::push_green`]) | no |
//! | [`Stream`], [`Event`], [`Module`], [`Function`], [`DeviceBuffer`], [`PinnedBuffer`], views | lent by a guard, borrow it | no |
//! | [`StreamScope`] | asynchronous work on a stream ([`Stream::scope`]); borrows what it uses until one stream sync | no |
//! | [`Submission`] | asynchronous work that owns its [`Payload`] ([`Stream::submit`]) until [`Submission::wait`] | no |
//! | [`graph::Graph`], [`graph::GraphExec`] | captured work ([`Stream::capture`]) or nodes built by hand ([`PushedGuard::build_graph`], [`graph::GraphBuilder`]) owning its [`Payload`] while it can be launched | no |
//! | [`ParkedBuffer`], [`ParkedModule`], [`ParkedGraph`], [`ParkedStream`], [`ParkedPinned`], [`ParkedRegisteredVec`], [`ParkedSubmission`] (not `Send`) | set aside from a guard; borrow only the `Context` | yes (a green context's: no) |
//!
//! So, at compile time: no handle is used after its guard pops, while another context is
//! pushed on top of its guard, or on another thread; no guard pops out of order; no context is
//! destroyed while pushed; asynchronous work never outlives the memory it uses, whether it
//! borrows it (scopes) or owns it (submissions, whose lifetimes may overlap across streams). See
//! the invariant catalogue (`docs/invariants.md` in the repository) and `ui-tests/` for each
//! rejected misuse.
//!
//! ```no_run
//! use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};
//!
//! fn main() -> Result<(), custack::Error> {
//!     let driver = Driver::init()?;
//!     let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?; // floating
//!     let mut stack = Stack::new()?;                                    // this thread's stack
//!     let guard = stack.push(&ctx)?;                                    // ctx is current
//!     let mut buf = guard.alloc::<u32>(1024)?;                          // lent by the guard
//!     buf.copy_from_host(&vec![1; 1024])?;
//!     assert_eq!(buf.to_vec()?.iter().sum::<u32>(), 1024);
//!     Ok(())
//! } // buf freed, guard pops, stack released, ctx destroyed: in that order, or it won't compile
//! ```
//!
//! Asynchronous work either borrows its memory for a closure ([`Stream::scope`], one stream
//! synchronization at its end) or owns it until waited for ([`Stream::submit`],
//! [`Stream::capture`]); [`guide::scopes`] compares the three.
//!
//! # Where to find what
//!
//! Every wrapper carries its driver function as a search alias: typing `cuMemcpy2D` into the
//! search box finds the methods that make that call.
//!
//! | to … | start at | driver |
//! | --- | --- | --- |
//! | find devices, query them | [`Driver::init`], [`Driver::device`], [`Device::attribute`] | `cuInit`, `cuDeviceGet`, `cuDeviceGetAttribute` |
//! | make a context current | [`Context::new`], [`Context::primary`], [`Stack::push`], [`StackTop::with_pushed`] | `cuCtxCreate`, `cuDevicePrimaryCtxRetain`, `cuCtxPushCurrent` |
//! | allocate and copy device memory | [`PushedGuard::alloc`], [`DeviceMemory`], [`DeviceMemoryMut`] | `cuMemAlloc`, `cuMemcpyHtoD`, `cuMemcpyDtoH` |
//! | page-locked or registered host memory | [`PushedGuard::alloc_pinned`], [`PushedGuard::register_host`], [`PushedGuard::register_vec`] | `cuMemHostAlloc`, `cuMemHostRegister` |
//! | managed, pitched, array memory | [`PushedGuard::alloc_managed`], [`PushedGuard::alloc_pitched`], [`PushedGuard::alloc_array`] | `cuMemAllocManaged`, `cuMemAllocPitch`, `cuArray3DCreate` |
//! | textures and surfaces | [`PushedGuard::texture_from`], [`TextureResource`], [`TextureOptions`], [`PushedGuard::surface`], [`PushedGuard::alloc_mipmapped_array`] | `cuTexObjectCreate`, `cuSurfObjectCreate`, `cuMipmappedArrayCreate` |
//! | load and look up kernels | [`PushedGuard::load_ptx`], [`PushedGuard::load_ptx_with`], [`PushedGuard::linker`], [`Module::function`], [`Module::kernel`], [`Library`], [`SharedLibrary`] | `cuModuleLoadDataEx`, `cuLinkCreate`, `cuModuleGetFunction`, `cuLibraryLoadData` |
//! | declare a kernel once, launch it safely | [`kernel_contract!`], [`Module::declared`], [`StreamScope::run`], [`StreamScope::run_cooperative`], [`derive@DeviceCopy`] | `cuFuncGetParamInfo`, `cuLaunchKernel` |
//! | launch kernels one cannot describe (`unsafe`) | [`StreamScope::launch`], [`StreamScope::launch_kernel`], [`StreamScope::launch_with`], [`LaunchConfig`] | `cuLaunchKernel`, `cuLaunchKernelEx` |
//! | streams and events | [`PushedGuard::stream`], [`PushedGuard::event`], [`Stream`], [`Event`] | `cuStreamCreate`, `cuEventCreate` |
//! | record work once, launch it many times (CUDA graphs) | [`graph`]: [`Stream::capture`], [`PushedGuard::build_graph`], [`graph::GraphExec`], [`StreamScope::launch_graph`] | `cuStreamBeginCapture`, `cuGraphCreate`, `cuGraphInstantiate`, `cuGraphLaunch` |
//! | build a graph node by node, with conditional nodes and graph memory | [`PushedGuard::build_graph`], [`graph::GraphBuilder`], [`graph::GraphExec::update_nodes`] | `cuGraphAddKernelNode`, `cuGraphConditionalHandleCreate`, `cuGraphAddMemAllocNode`, `cuGraphExecKernelNodeSetParams` |
//! | test without a GPU (the checking driver, stand-in kernels) | [`guide::testing`], [`StandIn`] | every entry point, answered by a double |
//! | memory pools, stream-ordered allocation | [`PushedGuard::create_mem_pool`], [`StreamScope::alloc`] | `cuMemPoolCreate`, `cuMemAllocAsync` |
//! | virtual memory management | [`PushedGuard::reserve`], [`PushedGuard::create_physical`], [`Reservation::map`]; across devices [`PushedGuard::reserve_multi_device`], [`PushedGuard::create_physical_on`], [`MultiDeviceReservation::map`](MultiDeviceReservation#method.map), [`PushedGuard::lend_mut`] | `cuMemAddressReserve`, `cuMemCreate`, `cuMemMap`, `cuMemSetAccess` |
//! | several GPUs | [`Device::can_access_peer`], [`PushedGuard::enable_peer_access`], [`PushedGuard::copy_from_peer`] | `cuDeviceCanAccessPeer`, `cuCtxEnablePeerAccess`, `cuMemcpyPeer` |
//! | share memory with another process | [`DeviceBuffer::ipc_handle`], [`PushedGuard::open_ipc`] | `cuIpcGetMemHandle`, `cuIpcOpenMemHandle` |
//! | share virtual memory with another process (Linux) | [`PushedGuard::create_physical_exportable`], [`PhysicalMemory::export_fd`], [`send_fd`], [`recv_fd`], [`PushedGuard::import_physical`] | `cuMemExportToShareableHandle`, `cuMemImportFromShareableHandle` |
//! | order work after another process's | [`Event::ipc_handle`], [`PushedGuard::open_ipc_event`] | `cuIpcGetEventHandle`, `cuIpcOpenEventHandle` |
//! | partition the SMs | [`Device::sm_resource`], [`GreenContext`] | `cuDeviceGetDevResource`, `cuGreenCtxCreate` |
//! | bound every wait | [`Deadline`], [`Stream::scope_by`], [`Overrun`], [`TimedOut`] | `cuStreamQuery`, `cuEventQuery` |
//! | stop safely after a sticky fault | [`poisoned`], [`fail_stop`], [`FAIL_STOP_STATUS`] | |
//! | stay inside NVIDIA's safety subset | [`safety::Profile`], [`safety::RestrictedContext`], [`safety::InitPhase`], [`safety::RunPhase`], [`safety::Budget`] | |
//!
//! # Libraries
//!
//! Each CUDA library is a cargo feature and a module whose handle the guard lends like a
//! stream, its calls taking memory bound to a scope, every size checked first: `nvrtc` (CUDA
//! C++ compiled at run time, `custack::nvrtc`), `cublas` (`custack::blas`), `cublaslt`
//! (`custack::blaslt`), `cufft` (`custack::fft`), `curand` (`custack::rand`), `cudnn`
//! (`custack::dnn`) and `nccl`
//! (`custack::nccl`, with the rendezvous of one process per GPU, `custack::rendezvous`). A
//! build that did not find a library still compiles, and its calls return
//! [`ErrorKind::LibraryNotLinked`] saying what to install. `cargo doc --features
//! cublas,cublaslt,cufft,curand,nccl,nvrtc` documents them all.
//!
//! # Faults, deadlines and the restricted profile
//!
//! A sticky fault poisons the process: every later call returns the first sticky error, and
//! nothing the GPU may still touch is freed ([`poisoned`]). Every blocking wait has a form
//! bounded by a [`Deadline`]; past it, owned work comes back in [`TimedOut`] and a scope does
//! what its [`Overrun`] says, up to the one safe state, [`fail_stop`]. The module [`safety`]
//! ([`safety::Profile`]) confines a program to NVIDIA's safety subset: an init phase that
//! reserves everything, then a sealed run phase. See [`guide::faults`] and [`guide::profile`].
//!
//! # Errors
//!
//! Every fallible call returns [`Result`]. Almost any call can also return an error from
//! earlier asynchronous work, and after a *sticky* error ([`Error::is_sticky`], e.g. a kernel
//! that wrote to an illegal address) every later call on that context fails; NVIDIA documents
//! that the process must then be relaunched to use CUDA again. `Drop` implementations never
//! panic; they record failures, which [`take_drop_errors`] returns. See [`guide::faults`].
//!
//! # Raw layer
//!
//! [`ffi`] mirrors `cuda.h` by section. Every safe wrapper names its driver call first in its
//! docs and makes exactly that call; `as_raw` methods give the raw handles for anything custack
//! does not wrap.

// No panics in library code (src/ and ffi/): errors are returned or recorded, never unwrapped.
// Tests, examples and benches are separate crates and may unwrap.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![deny(clippy::unimplemented, clippy::todo, clippy::unreachable)]
// Every code a driver call returns goes through `CUresult::result` (or `result_by`, `result_at`,
// `failure`), which records a sticky one (R20): `Error::from_raw`, which does not, is for users'
// own codes (clippy.toml); an error custack makes itself names its kind (`Error::from_kind`).
#![deny(clippy::disallowed_methods)]

#[path = "../ffi/mod.rs"]
#[allow(missing_docs, unreachable_pub)]
pub mod ffi;

// Under Miri the unit tests' driver calls go to the do-nothing driver (its `#[no_mangle]` entry
// points), linked as an rlib: `scripts/miri.sh`.
#[cfg(all(test, miri))]
extern crate checkdriver as _;

// Unit tests that fork, each run alone in a process of its own.
#[cfg(test)]
mod alone;
mod asynchronous;
#[cfg(feature = "cublas")]
pub mod blas;
#[cfg(feature = "cublaslt")]
pub mod blaslt;
mod context;
mod deadline;
#[cfg(feature = "cudnn")]
pub mod dnn;
mod driver;
mod error;
#[cfg(target_os = "linux")]
mod external;
#[cfg(feature = "cufft")]
pub mod fft;
pub mod graph;
#[cfg(feature = "nvml")]
pub mod health;
mod kernel;
mod memory;
#[cfg(feature = "nccl")]
pub mod nccl;
#[cfg(feature = "nvrtc")]
pub mod nvrtc;
mod parking;
#[cfg(feature = "curand")]
pub mod rand;
pub mod safety;
#[cfg(feature = "cusolver")]
pub mod solver;
#[cfg(feature = "cusparse")]
pub mod sparse;
mod tensor_map;
mod testing;
mod texture;
mod vocabulary;
/// The processes of one job finding each other (one process per GPU, started by torchrun or
/// mpirun): the crate `custack-rendezvous`, which carries NCCL's unique id from rank 0 to every
/// rank over TCP. Plain `std`, no CUDA; usable without custack.
#[cfg(feature = "nccl")]
pub use custack_rendezvous as rendezvous;

pub use asynchronous::batch::{CopyBatch, SourceOrder};
pub use asynchronous::event::{Event, EventFlags, IpcEventHandle, ScopedEvent};
pub use asynchronous::managed_batch::{DiscardBatch, PrefetchBatch};
pub use asynchronous::payload::Payload;
pub use asynchronous::scope::StreamScope;
pub use asynchronous::stream::{BorrowedStream, Stream, StreamFlags};
pub use asynchronous::submission::{Submission, SubmissionFuture};
pub use context::current::{CacheConfig, Limit};
pub use context::green::{GreenContext, SmPartition, SmResource, SmSplit};
pub use context::stack::{ContextKind, Floating, Green, PushedGuard, Stack, StackTop};
pub use context::{Context, ContextFlags};
/// `#[derive(DeviceCopy)]`: implements [`DeviceCopy`](trait@DeviceCopy) for a `#[repr(C)]` or
/// `#[repr(transparent)]` struct after checking, at compile time, that every field is
/// `DeviceCopy` and that it has no padding bytes; a compile error saying which check failed
/// otherwise. Generic structs are refused (write the `unsafe impl` by hand).
///
/// ```
/// use custack::DeviceCopy;
///
/// #[derive(Clone, Copy, DeviceCopy)]
/// #[repr(C)]
/// struct Particle {
///     position: [f32; 3],
///     mass: f32,
///     id: u64,
/// }
/// ```
pub use custack_derive::DeviceCopy;
pub use deadline::{Abandon, Deadline, Overrun, TimedOut};
pub use driver::attribute::DeviceAttribute;
pub use driver::lookup::{EntryPointStatus, newer_entry_points};
pub use driver::{ComputeCapability, Device, Driver, GraphMem, Version, driver_version};
pub use error::{
    Error, ErrorKind, FAIL_STOP_STATUS, LaunchSite, Observer, Origin, Result, dropped_error_count,
    fail_stop, orphaned_dropped_error_count, poisoned, take_drop_errors, take_orphaned_drop_errors,
};
#[doc(hidden)]
#[cfg(target_os = "linux")]
pub use external::{
    Binary, ExternalMemory, ExternalSemaphore, MappedArray, MappedArrayFlags, MappedBuffer,
    MemoryHandle, SemaphoreKind, Timeline,
};
pub use kernel::contract::__private as __private_contract;
pub use kernel::contract::{
    CheckedBy, ClusterLaunch, ConditionalParam, Contract, ContractArg, ContractArgs,
    CooperativeLaunch, Declared, DeclaredLibrary, ExtentFactor, FromLibrary, FromModule,
    KernelSource, ParamKind, PlainLaunch, ReadBuffer, Scalar, SurfaceParam, TensorMapOver,
    TensorMapParam, TextureParam, WriteBuffer,
};
pub use kernel::jit::{JitLog, JitOptions, LinkedImage, Linker};
pub use kernel::launch::{
    Function, FunctionAttributes, Kernel, KernelArgs, KernelSignature, LaunchAttributes,
    LaunchConfig,
};
#[doc(hidden)]
pub use kernel::library::RunLibraryIsRun;
pub use kernel::library::{Library, LibraryFunction, LibraryKernel, SharedKernel, SharedLibrary};
pub use kernel::module::Module;
pub use kernel::naming::{launches_named, name_launches};
pub use memory::ipc::{IpcBuffer, IpcMemHandle};
pub use memory::managed::{Location, ManagedBuffer};
pub use memory::pitched::{PitchedBuffer, ScopedPitched};
pub use memory::pool::MemPool;
pub use memory::registered::{RegisteredHost, RegisteredVec};
#[cfg(target_os = "linux")]
pub use memory::share::{FabricHandle, HandleType, MAX_FD_MESSAGE, recv_fd, send_fd};
pub use memory::vmm::{
    Access, Lent, Mapping, MappingMode, MultiDevice, MultiDeviceMapping, MultiDevicePhysicalMemory,
    MultiDeviceReservation, PhysicalMemory, ReadOnly, ReadOnlyMapping, ReadOnlyMultiDeviceMapping,
    ReadWrite, Reservation, VmmHome,
};
pub use memory::{
    DeviceBuffer, DeviceMemory, DeviceMemoryMut, DeviceView, DeviceViewMut, PinnedBuffer,
    PointerAttributes,
};
pub use parking::buffer::ParkedBuffer;
pub use parking::graph::{ParkWithGraph, ParkedGraph, Unpark};
pub use parking::host::{ParkedPinned, ParkedRegisteredVec};
pub use parking::module::ParkedModule;
pub use parking::peer::PeerAccess;
pub use parking::stream::ParkedStream;
pub use parking::submission::{Park, ParkedPayload, ParkedSubmission, PendingSource, PendingView};
pub use tensor_map::{
    Im2col, Interleave, L2Promotion, OobFill, ScopedTensorMap, Swizzle, TensorElement, TensorMap,
    TensorMapError, TensorMapHandle, TensorMapRule, Tiled,
};
pub use testing::stand_in::{KernelCall, StandIn, StandInError};
pub use texture::mipmap::{MipmappedArray, MipmappedLevels};
pub use texture::{
    AddressMode, ArrayElement, Copy3dBatch, CudaArray, FilterMode, ResourceView, ScopedArray,
    ScopedSurface, ScopedTexture, SurfaceHandle, SurfaceObject, TextureHandle, TextureObject,
    TextureOptions, TextureResource,
};
pub use vocabulary::argument::{DevicePtr, KernelArg, KernelParam};
pub use vocabulary::binding::{
    ScopedAlloc, ScopedHost, ScopedHostMut, ScopedRead, ScopedSlice, ScopedSliceMut, ScopedWrite,
};
pub use vocabulary::plain::DeviceCopy;
pub use vocabulary::version::LibraryVersion;

// The Rust examples of the README and of the pages it links are compiled (and, being `no_run`,
// not run) as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
#[cfg(doctest)]
#[doc = include_str!("../docs/features.md")]
struct FeaturesDoctests;
#[cfg(doctest)]
#[doc = include_str!("../docs/interop.md")]
struct InteropDoctests;
#[cfg(doctest)]
#[doc = include_str!("../docs/from-cudarc.md")]
struct FromCudarcDoctests;
#[cfg(doctest)]
#[doc = include_str!("../docs/from-cuda-core.md")]
struct FromCudaCoreDoctests;

/// The traits whose methods most programs call: `use custack::prelude::*;`.
///
/// Several everyday methods are trait methods, not inherent ones, so that buffers, views,
/// managed and IPC memory and VMM mappings (and `Stack` and guards) share one implementation
/// of each. A trait method is only callable where its trait is in scope: without the import,
/// rustc says *no method named `to_vec` found* (`E0599`), with a hint to import the trait. The
/// prelude brings the three traits, and nothing else:
///
/// | trait | its methods | implemented by |
/// | --- | --- | --- |
/// | [`DeviceMemory<T>`](DeviceMemory) | `to_vec`, `copy_to_host`, `len`, `is_empty`, `byte_len`, `device_ptr`, `as_view`, `slice`, `split_at`, `pointer_attributes` | the device memory a guard lends: [`DeviceBuffer`], [`DeviceView`], [`DeviceViewMut`], [`ManagedBuffer`], [`IpcBuffer`], [`Mapping`] |
/// | [`DeviceMemoryMut<T>`](DeviceMemoryMut) | `copy_from_host`, `copy_from_device`, `fill_bytes`, `fill_u16`, `fill_u32`, `as_view_mut`, `slice_mut`, `split_at_mut` | the device memory above that may be written |
/// | [`StackTop`] | `with_pushed` (push a context for the length of a closure) | [`Stack`] and [`PushedGuard`] |
///
/// Each trait may also be imported by name (`use custack::{DeviceMemory, DeviceMemoryMut};`),
/// as the crate's own examples often do.
///
/// # Examples
///
/// ```no_run
/// use custack::prelude::*; // DeviceMemory (to_vec), DeviceMemoryMut (copy_from_host), StackTop
/// use custack::{Context, ContextFlags, Driver, Stack};
///
/// let driver = Driver::init()?;
/// let (a, b) = (
///     Context::new(driver.device(0)?, ContextFlags::empty())?,
///     Context::new(driver.device(0)?, ContextFlags::empty())?,
/// );
/// let mut stack = Stack::new()?;
/// let mut ga = stack.push(&a)?;
/// let mut x = ga.alloc::<u32>(4)?;
/// x.copy_from_host(&[1, 2, 3, 4])?; // DeviceMemoryMut
/// assert_eq!(x.to_vec()?, [1, 2, 3, 4]); // DeviceMemory
/// drop(x);
/// ga.with_pushed(&b, |gb| gb.alloc_zeroed::<u32>(4)?.to_vec())??; // StackTop, on the guard
/// # Ok::<(), custack::Error>(())
/// ```
///
/// Without the import, the same calls do not compile (`E0599`):
///
/// ```compile_fail,E0599
/// use custack::{Context, ContextFlags, Driver, Stack};
///
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let x = guard.alloc_zeroed::<u32>(4)?;
/// let host = x.to_vec()?; // no method named `to_vec`: `DeviceMemory` is not in scope
/// # Ok::<(), custack::Error>(())
/// ```
pub mod prelude {
    pub use crate::{DeviceMemory, DeviceMemoryMut, StackTop};
}

pub mod guide;
