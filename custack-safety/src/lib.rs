//! custack's restricted safety profile, and nothing else: NVIDIA's safety subset of CUDA as the
//! only API a program can name.
//!
//! [`custack::safety`] keeps each restricted value inside the subset (C26) and the run
//! phase from creating anything (C27), and custack refuses every entry to the full API at run
//! time once [`Profile::init`] has run (R22). This crate is the compile-time half of that
//! confinement: it re-exports the profile's types and the vocabulary a restricted program is
//! written in, and nothing more. A program that depends on `custack-safety` alone (not on
//! `custack`) cannot name `Driver`, `Context`, `PushedGuard`, submissions, raw launches,
//! `name_launches`, PTX and the JIT, NVRTC, the library modules (`blas`, `fft`, …), managed or
//! shared memory: each is an unresolved name, a compile error (the ui-tests in
//! `ui-tests/facade/`, one per escape).
//!
//! What it re-exports:
//!
//! - everything in `custack::safety`, at the root and as the module [`safety`]: [`Profile`],
//!   [`Budget`] and its [`Resource`]s, the bound of every wait ([`WaitBound`], [`OnOverrun`]),
//!   [`RestrictedContext`], [`RestrictedGuard`], [`InitPhase`], [`RunPhase`],
//!   [`RestrictedStream`], [`RestrictedScope`] with its page-locked memory ([`PinnedHost`],
//!   [`PinnedHostMut`]), [`RestrictedBuffer`], [`RestrictedEvent`], [`RestrictedModule`],
//!   [`RestrictedKernel`], [`RestrictedGraph`], [`RestrictedGraphBuilder`],
//!   [`RestrictedKernelUpdater`], and redundancy ([`RedundantKernel`], [`Replicas`],
//!   [`KnownAnswer`], [`CompareOn`], [`OnMismatch`], [`ReplicasCompare`]);
//! - [`Stack`], which [`RestrictedContext::push`] takes (the only push a facade program can
//!   make: a full [`Stack`] push needs a `Context`, which it cannot name or get);
//! - what the profile's signatures name: [`Device`] (from [`Profile::device`]), [`PinnedBuffer`]
//!   (from [`InitPhase::alloc_pinned`]), the scope's bindings ([`ScopedSlice`],
//!   [`ScopedSliceMut`], [`ScopedHost`], [`ScopedHostMut`], [`ScopedGraph`], and the traits
//!   [`ScopedRead`], [`ScopedWrite`] of its copies), [`CheckedBy`], [`Deadline`], the device
//!   queries' [`DeviceAttribute`] and [`ComputeCapability`];
//! - the vocabulary of a restricted program: [`kernel_contract!`], [`DeviceCopy`] (the trait and
//!   its derive), [`LaunchConfig`], the errors ([`Error`], [`ErrorKind`], [`Result`],
//!   [`Overrun`], [`Origin`], [`LaunchSite`], [`Observer`]) and the error discipline
//!   ([`take_drop_errors`], [`dropped_error_count`], [`poisoned`], [`fail_stop`],
//!   [`FAIL_STOP_STATUS`]).
//!
//! What it cannot close at compile time: the methods of the values the profile hands out. A
//! [`Device`] from [`Profile::device`] still has `sm_resource` (green contexts),
//! `set_primary_context_flags` and the graph-memory pool's trim, and [`Profile::driver`]
//! returns custack's `Driver` value, whose methods query versions and devices; custack refuses
//! every one of them that would leave the profile at run time, once [`Profile::init`] has run
//! (`ErrorKind::OutsideProfile`). And `Profile::init` refuses a process in which anything
//! (a dependency, another thread) used custack's full API first.
//!
//! # Testing without a GPU
//!
//! A restricted program is tested on a machine without a GPU as any custack program is, under
//! custack's checking driver (a `libcuda` of its own that tracks contexts, handles and pending
//! work, fails any call on demand and runs kernels' CPU stand-ins; `custack::guide::testing`,
//! "Testing GPU code without a GPU", and its section on the restricted profile). The stand-ins
//! are registered with `custack::StandIn`, which this crate does not re-export: the test takes
//! `custack` as a **dev-dependency** (`[dev-dependencies] custack = ...`, the same version as
//! this crate's). That is within the assumption that no code of the program calls `libcuda`
//! except through the profile (the safety manual's AOU-9): a dev-dependency is built into the
//! tests only, never into the program, and `StandIn::register` makes no call outside the
//! subset (a lookup of the checking driver's extension, which a real driver does not have).
//!
//! ```toml
//! [dependencies]
//! custack-safety = "0.1"
//!
//! [dev-dependencies]
//! custack = "0.1" # StandIn, for the tests under the checking driver
//! ```
//!
//! # The application's side
//!
//! Depend on this crate, not on `custack`: then nothing outside the subset can be named (a
//! dependency that names custack itself is still refused at run time). Carry
//! `#![deny(unsafe_code)]` at the crate root, and `#[allow(unsafe_code)]` on one audited module:
//! the image load, [`InitPhase::load_cubin`], is the profile's one `unsafe` call (the image must
//! be a cubin whose kernels honour their contracts; [`kernel_contract!`]'s `unsafe kernel` is
//! the same promise, written where the kernel is declared). `forbid` cannot be used at the root
//! with that exception (a `forbid` cannot be allowed again below it); a program that wants
//! `#![forbid(unsafe_code)]` puts the load in a small crate of its own.
//!
//! ```no_run
//! #![deny(unsafe_code)] // every module but `image`, the audited one
//!
//! use custack_safety::{Budget, DeviceCopy, LaunchConfig, Profile, RestrictedContext, Stack};
//!
//! /// An affine map, passed to the kernel by value.
//! #[derive(Clone, Copy, DeviceCopy)]
//! #[repr(C)]
//! struct Gain {
//!     factor: f32,
//!     offset: f32,
//! }
//!
//! custack_safety::kernel_contract! {
//!     /// `scale(float* data, Gain gain, unsigned n)`: `data[i] = data[i] * gain.factor +
//!     /// gain.offset` for `i < n`.
//!     unsafe kernel Scale = "scale"(data: &mut [f32; n], gain: Gain, n: u32);
//! }
//!
//! /// The one audited module: the image load.
//! #[allow(unsafe_code)]
//! mod image {
//!     use custack_safety::{InitPhase, RestrictedModule, Result};
//!
//!     pub(crate) fn load<'g>(init: &InitPhase<'g>, cubin: &[u8]) -> Result<RestrictedModule<'g>> {
//!         // SAFETY: `cubin` is nvcc's build of `scale`, which honours its contract above.
//!         unsafe { init.load_cubin(cubin) }
//!     }
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     const N: u32 = 1024;
//!     let cubin = std::fs::read("scale.cubin")?;
//!     let profile = Profile::init(1)?;
//!     // Every resource the init phase makes, stated up front; what is not stated is refused.
//!     let bytes = N as usize * size_of::<f32>();
//!     let budget = Budget::page_locked(2 * bytes)
//!         .device_bytes(bytes)
//!         .streams(1)
//!         .modules(1)
//!         .kernels(1);
//!     let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
//!     let mut stack = Stack::new()?;
//!     let mut guard = ctx.push(&mut stack)?;
//!     let outcome = (|| -> custack_safety::Result<()> {
//!         // Init: everything is made here.
//!         let init = guard.init()?;
//!         let module = image::load(&init, &cubin)?;
//!         let scale = init.kernel::<Scale>(&module)?;
//!         let stream = init.stream()?;
//!         let mut data = init.alloc::<f32>(N as usize)?;
//!         let mut input = init.alloc_pinned::<f32>(N as usize)?;
//!         let mut output = init.alloc_pinned::<f32>(N as usize)?;
//!         input.fill(1.0);
//!         // Run: copies and declared launches only.
//!         let run = init.seal();
//!         stream.scope(|s| {
//!             let mut d = s.bind_mut(&mut data);
//!             s.copy_to_device(&mut d, &input)?;
//!             let gain = Gain { factor: 2.0, offset: 1.0 };
//!             s.run(&scale, LaunchConfig::for_elements(N), (&mut d, gain, N))?;
//!             s.copy_to_host(&mut output, &d)
//!         })??;
//!         run.synchronize()?;
//!         assert!(output.iter().all(|&x| x == 3.0));
//!         Ok(())
//!     })();
//!     guard.shutdown()?;
//!     outcome?;
//!     ctx.destroy()?;
//!     Ok(())
//! }
//! ```

pub use custack::safety;
// Every public item of `custack::safety`, at the root too (a test keeps the two lists equal:
// `tests/facade_root.rs`).
pub use custack::safety::{
    BatchCopies, Budget, CompareOn, InitPhase, KnownAnswer, OnMismatch, OnOverrun, PinnedHost,
    PinnedHostMut, Profile, RedundantKernel, Replicas, ReplicasCompare, Resource, RestrictedBatch,
    RestrictedBuffer, RestrictedContext, RestrictedEvent, RestrictedGraph, RestrictedGraphBuilder,
    RestrictedGuard, RestrictedKernel, RestrictedKernelUpdater, RestrictedModule, RestrictedScope,
    RestrictedStream, RunPhase, WaitBound,
};

pub use custack::Stack;

pub use custack::graph::ScopedGraph;
pub use custack::{
    CheckedBy, ComputeCapability, Deadline, Device, DeviceAttribute, PinnedBuffer, ScopedHost,
    ScopedHostMut, ScopedRead, ScopedSlice, ScopedSliceMut, ScopedWrite,
};

pub use custack::{
    Error, ErrorKind, FAIL_STOP_STATUS, LaunchConfig, LaunchSite, Observer, Origin, Overrun,
    Result, dropped_error_count, fail_stop, poisoned, take_drop_errors,
};

pub use custack::kernel_contract;

// `DeviceCopy`: custack's trait, with this crate's derive under the same name. `custack::
// DeviceCopy` names both the trait and custack's derive, whose impl names `::custack`, which a
// program depending on this crate alone cannot resolve; custack-derive's second entry point
// names `::custack_safety` instead. The trait comes through a glob, which the derive's explicit
// import shadows in the macro namespace only.
mod plain {
    pub use custack::DeviceCopy;
}
/// `#[derive(DeviceCopy)]`: implements [`DeviceCopy`](trait@DeviceCopy) for a `#[repr(C)]` or
/// `#[repr(transparent)]` struct after checking, at compile time, that every field is
/// `DeviceCopy` and that it has no padding bytes (custack's derive, naming this crate's path).
pub use custack_derive::DeviceCopyOfCustackSafety as DeviceCopy;
pub use plain::*;
