//! The restricted safety profile (C26, C27, P14): NVIDIA's safety subset of CUDA and a
//! fixed-resource run phase, stated in the types.
//!
//! A [`RestrictedContext`] is made for the profile ([`Profile::init`], the process's first
//! entry to custack, stating how many restricted contexts the process makes, then
//! [`RestrictedContext::new`] or [`primary`](RestrictedContext::primary)); its guard
//! ([`RestrictedGuard`]) lends an API that is the subset and nothing else. The guard opens the
//! context's one [`InitPhase`], which makes everything the program will use: streams, events, device memory,
//! page-locked memory, modules from cubins built ahead of time, the declared kernels looked up
//! in them, graphs captured or built node by node (conditional nodes included) and
//! instantiated, each within the figure the context's [`Budget`]
//! stated for it when it was made (Vulkan SC's model: every resource stated up front, nothing
//! created past it). [`InitPhase::seal`]
//! ends it: the [`RunPhase`] it returns, and the values init made, can launch, copy, record and
//! wait on events, launch graphs and update their kernel nodes' parameters within the kernels'
//! contracts, and nothing else, so creating anything in the run phase
//! does not compile (C27). A context has one init phase in its life: its guard borrows it
//! exclusively, so a second thread cannot push it and open an init phase beside the first
//! one's run phase (a compile error), and an init phase asked for after the first one (a later
//! frame, a later push) is refused at run time (`ErrorKind::OutsideProfile`).
//! [`RestrictedGuard::shutdown`] ends the run phase before `main` returns: the context
//! synchronized, every error a drop recorded surfaced, the context popped.
//!
//! What the profile leaves out, each a compile error with a ui-test naming its rule (C26): every
//! callback (host functions, a submission's waking future, the driver's log callback, the
//! occupancy calculator's callback), PTX and JIT of every kind (PTX loads, the linker, JIT
//! options, NVRTC), managed memory, memory and events shared with other processes, stream-ordered
//! allocation, raw launches (only declared kernels launch). What the types cannot see is checked
//! at run time (`ErrorKind::OutsideProfile`): an image that is not a cubin, that the profile's
//! reader cannot read whole (it fails closed), or that needs the device runtime (device-side
//! launches); any creation past the budget; a restricted context past the process's count; a
//! second init phase; `Profile::init` in a process that used the full API before. A process that
//! forks after [`Profile::init`] refuses every call in the child (`ErrorKind::ForkedProcess`).
//!
//! This is one model, not a second one: every value here is the full API's value
//! ([`Stream`](crate::Stream), [`DeviceBuffer`](crate::DeviceBuffer), …) inside a wrapper that
//! lends fewer methods, borrowing the same guard; contexts and pending work are tracked exactly
//! as everywhere else (scopes wait, bounded waits poll, a sticky error poisons the process).
//! The repository's page `docs/safety.md` maps NVIDIA's guideline onto it rule by rule.
//!
//! No arithmetic in this module tree may wrap or panic: `clippy::arithmetic_side_effects` is
//! denied here (tests included); counts and offsets use `checked_`/`saturating_` forms.

#![deny(clippy::arithmetic_side_effects)]

mod batch;
mod bound;
mod context;
mod graph;
mod idle;
mod image;
mod partitioned;
mod phase;
mod profile;
mod redundant;
mod scope;
mod stream;
mod values;

pub use batch::{BatchCopies, RestrictedBatch};
pub use bound::{OnOverrun, WaitBound};
pub use context::{RestrictedContext, RestrictedGuard};
pub use graph::{RestrictedGraphBuilder, RestrictedKernelUpdater};
pub use partitioned::RedundantKernel;
pub use phase::{InitPhase, RunPhase};
pub use profile::{Budget, Profile, Resource};
pub use redundant::{CompareOn, KnownAnswer, OnMismatch, Replicas, ReplicasCompare};
pub use scope::{PinnedHost, PinnedHostMut, RestrictedScope};
pub use stream::RestrictedStream;
pub use values::{
    RestrictedBuffer, RestrictedEvent, RestrictedGraph, RestrictedKernel, RestrictedModule,
};
