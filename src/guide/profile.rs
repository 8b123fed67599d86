//! The restricted safety profile: NVIDIA's safety subset as the whole API, every resource
//! stated up front, an init phase that makes everything and a run phase that makes nothing.
//!
//! # Why
//!
//! NVIDIA's safety-certified CUDA for DRIVE OS is a subset of CUDA, and NVIDIA's guidelines for
//! safety-critical CUDA narrow it further. The profile keeps out what they exclude and what
//! custack cannot check: callbacks, launches from the device, PTX and the JIT, managed memory. A
//! program that is assessed against ISO 26262 or DO-178C runs inside the subset, and the
//! assessor asks of every library it uses: *can the program leave it?* In C nothing stops one
//! call outside it, so a review has to find every call. The module [`safety`](crate::safety)
//! answers the question three times:
//!
//! - **the types**: a restricted value lends the subset and nothing else. A host function, a
//!   PTX load or a raw launch on one is a compile error (C26), and so is creating anything once
//!   the run phase has begun (C27);
//! - **the process**: once [`Profile::init`] has run, custack refuses every entry to the full
//!   API at run time, whoever calls it, and a process that used the full API before cannot
//!   enter the profile (R22);
//! - **the dependency**: the facade crate `custack-safety` re-exports the subset alone, so a
//!   program that depends on it, not on custack, cannot name the rest.
//!
//! What custack cannot see (the kernels' device code, and two obligations of the program) is
//! listed in the repository's `docs/safety.md`, which answers NVIDIA's guidelines rule by rule.
//!
//! # The process's entry: `Profile::init`
//!
//! [`Profile::init`] is `cuInit` without the driver-log callback that [`Driver::init`]
//! registers (the subset has no callbacks, CUDA SAFETY 1.1). It also registers a fork handler:
//! a child forked afterwards refuses every call (`ErrorKind::ForkedProcess`, CUDA-1.6).
//!
//! Call it first, in `main`, before anything of the full API in any thread or dependency. This
//! is checked: one process-wide state remembers whether the full API was entered, and
//! `Profile::init` in a process that used it (a `Driver::init`, even one that failed, a
//! `Context::new`, a full `Stack::push`, [`name_launches(true)`](crate::name_launches), ...)
//! refuses with [`ErrorKind::OutsideProfile`], naming the first entry: a guard pushed before
//! would keep reaching the driver outside the subset (a PTX load, a host function, managed
//! memory) beside the profile's values. It refuses on every driver version, with or without the
//! log API.
//!
//! Otherwise its first step, before the driver is asked and whatever it returns, confines the
//! process for good. From then on every entry to the full API returns `OutsideProfile` before
//! it reaches the driver or a library: `Driver::init`, `Context::new` and `Context::primary`,
//! a full `Stack::push`, green contexts, `Library::load_ptx`, `name_launches(true)`, NVRTC,
//! cuRAND's host generators, NCCL's ids, the CUDA libraries' versions. It does not matter who
//! calls: the application, a dependency that links custack, another thread. A program that
//! starts in the subset cannot leave it. The restricted types reach the same driver calls
//! through paths of their own, which do not ask. The state moves once, by one atomic
//! compare-exchange, so two threads racing `Profile::init` against a full entry get one answer:
//! one of them is refused.
//!
//! Its argument is how many restricted contexts the process makes over its life, as a
//! [`Budget`] states a context's resources: `Profile::init(1)` for one. Each
//! [`RestrictedContext::new`] or `primary` takes one before the driver is asked, one past the
//! count is refused, and destroying a context gives nothing back, so a frame loop or a thread
//! cannot keep making contexts after another one was sealed. The first `Profile::init` that
//! succeeds states the count; calling it again with the same count (another thread, a test
//! harness's tests) returns the same profile, and another count is refused.
//!
//! # The facade crate: the same door, closed at compile time
//!
//! The confinement refuses what runs; the facade crate `custack-safety` (a member of the
//! repository's workspace, not published yet) refuses what is written. It re-exports
//! `custack::safety`, [`Stack`](crate::Stack) (which [`RestrictedContext::push`] takes), the
//! types the profile's signatures name ([`Device`](crate::Device),
//! [`PinnedBuffer`](crate::PinnedBuffer), the scope's bindings) and the vocabulary of a
//! restricted program ([`kernel_contract!`](crate::kernel_contract), `DeviceCopy` and its
//! derive, [`LaunchConfig`](crate::LaunchConfig), the errors). Nothing else: in a program that
//! depends on it alone, `Driver`, `Context`, `PushedGuard`, submissions, raw launches, PTX,
//! NVRTC, the libraries, managed and shared memory are unresolved names. Two things stay open
//! at compile time, and the confinement refuses them at run time: the methods of the values it
//! hands out (a `Device`'s green contexts), and a dependency that names custack itself.
//!
//! The program's own `unsafe` is then one call. Put `#![deny(unsafe_code)]` at the crate root
//! and `#[allow(unsafe_code)]` on one audited module that holds the image load,
//! [`InitPhase::load_cubin`], the profile's one `unsafe` call: the driver trusts the counts
//! inside a cubin, and the kernels in it must honour their contracts. (`kernel_contract!`'s
//! `unsafe kernel` is the same promise, written where each kernel is declared.) A `forbid`
//! cannot be allowed again below it; a program that wants `#![forbid(unsafe_code)]` puts the
//! load in a small crate of its own. The program under [Two phases](#two-phases) is written this
//! way, with `custack::` paths; with the facade they read `custack_safety::`.
//!
//! # The budget: every resource stated up front
//!
//! Vulkan SC has an application state, when it creates a device, how many objects of each kind
//! it will ever create. A restricted context does the same: its [`Budget`], given to
//! [`RestrictedContext::new`], states every resource its init phase will make: device bytes,
//! page-locked bytes, streams, events, modules, kernel lookups, graphs and graph nodes. What it
//! does not state is 0:
//!
//! ```
//! use custack::safety::{Budget, Resource};
//! let budget = Budget::new().streams(1);
//! assert_eq!(budget.stated(Resource::Streams), 1);
//! assert_eq!(budget.stated(Resource::Events), 0); // unstated: none may be made
//! ```
//!
//! Each creation takes its share before the driver is asked; one past a figure is refused with
//! `ErrorKind::OutsideProfile`, naming the resource, the request, what is used and the builder
//! that states it. The figures count over the context's life (freeing gives nothing back), so
//! each is the most the program will ever hold. [`RestrictedContext::used`] against
//! [`Budget::stated`] shows that a program made exactly what it stated; example 22 checks it
//! after its shutdown. The budget also holds the bound of every wait,
//! [`Budget::waits`]: see [Past the bound](#past-the-bound).
//!
//! # Two phases
//!
//! [`RestrictedGuard::init`] opens the context's one [`InitPhase`]. It makes everything the
//! program will use, each within the budget: a stream ([`stream`][init-stream]), events,
//! page-locked host memory ([`alloc_pinned`][init-alloc-pinned]) and device memory
//! ([`alloc`][init-alloc]), modules from cubins ([`load_cubin`][`InitPhase::load_cubin`]), the
//! declared kernels in them ([`kernel`][init-kernel]: the contract checked where the driver
//! lists parameters, and the function loaded now where the driver loads lazily), and graphs
//! ([`capture`][init-capture], or [`build_graph`][init-build] node by node, conditional IF,
//! WHILE and SWITCH nodes included; instantiated and uploaded at once). [`seal`][init-seal]
//! consumes it and returns the [`RunPhase`]: from then on nothing can be created, loaded,
//! allocated, built or instantiated, and the values init made can copy, launch, record, wait,
//! launch graphs and, between launches, update a built graph's kernel nodes within their
//! contracts ([`update_kernels`][graph-update]).
//!
//! `load_cubin` takes cubins only. It checks the image before the driver sees it: an ELF image
//! for the CUDA machine, every section within the slice, no symbol of the device runtime (a
//! kernel that launches from the device is outside the subset). PTX is refused (the driver
//! would compile it), and so is a fatbin, which may carry PTX the driver compiles when no cubin
//! matches. A program for several GPUs builds one cubin per architecture
//! (`nvcc -cubin -arch=sm_XY` for each device it runs on) and loads the one that
//! [`Device::compute_capability`](crate::Device::compute_capability) names.
//!
//! A frame loop in the run phase: in one scope, a copy to the device, a graph launch, a kernel
//! launch and a copy back. It follows `examples/22_safety_frame/pipeline.rs` in the repository.
//!
//! ```no_run
//! #![deny(unsafe_code)] // every module but `image`, the audited one
//!
//! use custack::safety::{Budget, Profile, RestrictedContext, RestrictedGuard, WaitBound};
//! use custack::{LaunchConfig, Stack};
//! use std::time::Duration;
//!
//! const N: u32 = 1 << 20;
//! const BYTES: usize = N as usize * size_of::<f32>();
//!
//! custack::kernel_contract! {
//!     /// `scale(float* data, float factor, unsigned n)`: `data[i] *= factor` for `i < n`.
//!     unsafe kernel Scale = "scale"(data: &mut [f32; n], factor: f32, n: u32);
//! }
//!
//! /// Everything the init phase makes, and the bound of every wait.
//! const BUDGET: Budget = Budget::page_locked(2 * BYTES)
//!     .waits(WaitBound::fail_stop(Duration::from_millis(100)))
//!     .device_bytes(BYTES)
//!     .streams(1)
//!     .events(0)
//!     .modules(1)
//!     .kernels(1)
//!     .graphs(1)
//!     .graph_nodes(1);
//!
//! /// The one audited module: the image load.
//! #[allow(unsafe_code)]
//! mod image {
//!     use custack::safety::{InitPhase, RestrictedModule};
//!
//!     pub(crate) fn load<'g>(
//!         init: &InitPhase<'g>,
//!         cubin: &[u8],
//!     ) -> custack::Result<RestrictedModule<'g>> {
//!         // SAFETY: `cubin` is nvcc's build of `scale.cu` for this device, and `scale`
//!         // honours its contract: it touches `n` floats of `data` only.
//!         unsafe { init.load_cubin(cubin) }
//!     }
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let cubin = std::fs::read("scale.cubin")?; // nvcc -cubin -arch=sm_90 scale.cu
//!     let profile = Profile::init(1)?; // from here on, the full API is refused
//!     let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, BUDGET)?;
//!     let mut stack = Stack::new()?;
//!     let mut guard = ctx.push(&mut stack)?;
//!     let outcome = phases(&mut guard, &cubin); // kept: the shutdown runs first
//!     let shutdown = guard.shutdown(); // synchronize, pop, drop errors, the poison
//!     outcome?;
//!     shutdown?;
//!     ctx.destroy()?;
//!     Ok(())
//! }
//!
//! fn phases(guard: &mut RestrictedGuard<'_, '_>, cubin: &[u8]) -> custack::Result<()> {
//!     // Init: everything is made here.
//!     let init = guard.init()?;
//!     let module = image::load(&init, cubin)?;
//!     let scale = init.kernel::<Scale>(&module)?;
//!     let stream = init.stream()?;
//!     let mut input = init.alloc_pinned::<f32>(N as usize)?;
//!     let mut output = init.alloc_pinned::<f32>(N as usize)?;
//!     input.fill(1.0);
//!     let payload = (init.alloc::<f32>(N as usize)?, scale);
//!     let mut graph = init.capture(&stream, payload, |s, (mut data, scale)| {
//!         s.run(&scale, LaunchConfig::for_elements(N), (&mut data, 2.0f32, N))
//!     })?;
//!     let run = init.seal();
//!
//!     // Run: copies, launches and graph launches, each frame in one bounded scope.
//!     for _frame in 0..100 {
//!         stream.scope(|s| -> custack::Result<()> {
//!             let (g, (mut data, _)) = s.bind_graph(&mut graph);
//!             s.copy_to_device(&mut data, &input)?; // page-locked memory only
//!             s.launch_graph(&g)?; // the captured launch: data *= 2
//!             s.run(&scale, LaunchConfig::for_elements(N), (&mut data, 0.25f32, N))?;
//!             s.copy_to_host(&mut output, &data)
//!         })??; // within the bound, or the process ends in the safe state
//!         assert!(output.iter().all(|&x| x == 0.5));
//!     }
//!     run.synchronize()
//! }
//! ```
//!
//! The run phase has no method that makes anything (C27,
//! `ui-tests/c27_stream_created_in_run_phase.rs`): the stream above, asked of the run phase
//! instead of the init phase, does not compile (`E0599`). The other `ui-tests/c27_*` do the same
//! for memory, modules, kernels and graphs, and for a second init phase.
//!
//! ```compile_fail,E0599
//! use custack::Stack;
//! use custack::safety::{Budget, Profile, RestrictedContext};
//!
//! fn main() -> custack::Result<()> {
//!     let profile = Profile::init(1)?;
//!     let budget = Budget::new().streams(1);
//!     let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
//!     let mut stack = Stack::new()?;
//!     let mut guard = ctx.push(&mut stack)?;
//!     let init = guard.init()?;
//!     let run = init.seal();
//!     let _stream = run.stream()?; // error[E0599]: no method named `stream` found for `RunPhase`
//!     Ok(())
//! }
//! ```
//!
//! The scope copies page-locked memory of the init phase only: its copies take
//! [`PinnedHost`] and [`PinnedHostMut`], made from `&PinnedBuffer` and `&mut PinnedBuffer`. The
//! driver stages a copy from pageable memory (a `Vec`, an array) and blocks the host meanwhile,
//! outside any bound, so `s.copy_to_device(&mut data, &vec)` does not compile
//! (`ui-tests/c26_pageable_copy_in_restricted_scope.rs`, `E0277`).
//!
//! # Past the bound
//!
//! Every wait the run phase can make is bounded by the context's [`WaitBound`], stated once in
//! its budget: [`WaitBound::fail_stop`]`(limit)` or [`WaitBound::return_error`]`(limit)`. A
//! budget that states none has [`WaitBound::DEFAULT`]: ten seconds, then the safe state, which
//! only ends a hang.
//!
//! - **A scope** ([`RestrictedStream::scope`]) borrows its memory, so it cannot return while
//!   the GPU may still write it. Past its bound it always ends the process in the safe state,
//!   whatever the bound's [`OnOverrun`]: [`fail_stop`](crate::fail_stop) prints one line on
//!   stderr and exits with [`FAIL_STOP_STATUS`](crate::FAIL_STOP_STATUS) (75), and a supervisor
//!   starts a new process for the work ([`faults`](super::faults)). A scope's end that meets a
//!   sticky error takes the same state. [`scope_by`](crate::safety::RestrictedStream::scope_by)
//!   takes a deadline that can shorten the bound, never lengthen it.
//! - **A stream's or an event's `synchronize`** borrows nothing. Past the bound it does what
//!   the context chose: [`OnOverrun::FailStop`] ends the process in the safe state;
//!   [`OnOverrun::ReturnError`] returns [`ErrorKind::DeadlinePassed`], the work possibly still
//!   running, nothing freed under it.
//!
//! # The guard and the shutdown
//!
//! [`RestrictedGuard`] is the context pushed on this thread (`!Send`). It lends the init phase
//! and nothing else, and every value the init phase makes borrows it. Its
//! [`shutdown`][guard-shutdown] waits for the context's work within the bound, pops it, and
//! returns every error a drop recorded ([`take_drop_errors`](crate::take_drop_errors))
//! and the process's poison ([`poisoned`](crate::poisoned)). Every step runs even when an
//! earlier one failed.
//!
//! `main` above keeps the phases' outcome instead of returning it with `?`, and shuts down
//! first, also after a failed phase. A `?` on the outcome would return from `main` with the
//! guard merely dropped: the context popped, but its work not waited for (NVIDIA's CUDA-1.2
//! asks for every device's work to be finished before the program ends), and the errors its
//! drops recorded never seen. The order is:
//!
//! 1. `phases` returns. Every value init made borrows the guard, so they are gone by now,
//!    whether the phases succeeded or not: `shutdown` consumes the guard, and while one of them
//!    lived it would not compile;
//! 2. `guard.shutdown()`, always: the context synchronized and popped, drop errors and the
//!    poison collected;
//! 3. `?` on the phases' outcome: where a phase failed, its error is the one returned, and the
//!    shutdown has run all the same;
//! 4. `?` on the shutdown;
//! 5. [`ctx.destroy()`][ctx-destroy], which returns `cuCtxDestroy`'s error where a drop could
//!    only record it.
//!
//! Nothing of CUDA is then left for a destructor after `main` (CUDA-1.1). Keep the `Profile`,
//! the context and the `Stack` as locals of `main`, never in a `static` or a `thread_local!`.
//!
//! # Every wait bounded, every reservation made at init
//!
//! The waits outside a scope are bounded too, by the same [`WaitBound`]:
//! [`RunPhase::synchronize`] records an event the init phase made and polls it, the shutdown
//! waits the same way, and a module's drop waits within the bound before it unloads (past it the
//! module stays loaded, never unloaded under a kernel that may run it). Before driver 12.5,
//! which cannot record an event after a whole context's work, these waits are
//! `cuCtxSynchronize`, which finds the context idle by construction: every enqueue of the run
//! phase is in a scope, and every scope ended within its bound or ended the process.
//!
//! What a launch could otherwise grow is fixed when the init phase opens: the local memory per
//! thread the budget states ([`Budget::local_memory`]) is reserved then
//! (`CU_LIMIT_STACK_SIZE`), and a kernel that needs more is refused when it is looked up,
//! because its first launch would allocate a larger reservation in the run phase. Device
//! `malloc` and `printf` are refused with the cubin, so their heap and FIFO never grow. This is
//! row R23 of the contract (`docs/invariants.md` in the repository). The profile's whole API is
//! listed, one item a line, in `docs/safety-api.txt`, and a test fails when it changes without
//! review.
//!
//! # Faults no driver reports: two runs, a known answer, the GPU's health
//!
//! Every error above is one the driver returns. A transient hardware fault that flips a bit of a
//! result, or memory that degrades, returns none. For those the profile has three checks, each
//! set up in the init phase and paid for in the run phase with no allocation:
//!
//! - **Two runs on SMs they never share.** [`InitPhase::redundant`] splits the device's SMs into
//!   two green-context partitions (the context must be [`RestrictedContext::primary`], and the
//!   budget states [`Budget::partitions`]), allocates a second copy of the output the kernel's
//!   contract declares `&mut`, and returns a [`RedundantKernel`]. Each
//!   [`RedundantKernel::run`] launches the kernel once in each partition, before waiting for
//!   either, and compares the two outputs bit for bit: on the host for small outputs, on the
//!   device from [`CompareOn::DEVICE_FROM_BYTES`] on, with the comparison kernel
//!   ([`ReplicasCompare`], CUDA C that ships with custack and that you build into your own
//!   cubin, since the profile compiles nothing at run time). A difference is
//!   [`ErrorKind::ReplicasDiffer`], naming the kernel, the frame, the first differing element
//!   and how many differ. Whether it is returned or takes the safe state is the
//!   [`OnMismatch`] chosen at init.
//! - **A known answer.** [`KnownAnswer`] runs a kernel on a pattern whose result the CPU computed
//!   in the init phase, every Nth frame; a wrong answer is [`ErrorKind::SelfTestFailed`].
//! - **The GPU's health** (feature `nvml`): `InitPhase::watch_health` refuses the run phase when
//!   ECC is off or a row remap is pending or has failed, and `RunPhase::poll_health`, a
//!   zero-timeout poll of NVML's events within the frame, turns a double-bit ECC error or a
//!   critical Xid into the process poison.
//!
//! Example 25 (`examples/25_safety_redundant.rs`) runs example 22's filter with all three;
//! `docs/reliability.md` in the repository has what they detect and what they cost, measured.
//!
//! [`Profile::init`]: crate::safety::Profile::init
//! [`Budget::local_memory`]: crate::safety::Budget::local_memory
//! [`Driver::init`]: crate::Driver::init
//! [`ErrorKind::OutsideProfile`]: crate::ErrorKind::OutsideProfile
//! [`ErrorKind::DeadlinePassed`]: crate::ErrorKind::DeadlinePassed
//! [`Budget`]: crate::safety::Budget
//! [`Budget::stated`]: crate::safety::Budget::stated
//! [`Budget::waits`]: crate::safety::Budget::waits
//! [`RestrictedContext::new`]: crate::safety::RestrictedContext::new
//! [`RestrictedContext::push`]: crate::safety::RestrictedContext::push
//! [`RestrictedContext::used`]: crate::safety::RestrictedContext::used
//! [`RestrictedGuard`]: crate::safety::RestrictedGuard
//! [`RestrictedGuard::init`]: crate::safety::RestrictedGuard::init
//! [`RestrictedStream::scope`]: crate::safety::RestrictedStream::scope
//! [`InitPhase`]: crate::safety::InitPhase
//! [`InitPhase::load_cubin`]: crate::safety::InitPhase::load_cubin
//! [`RunPhase`]: crate::safety::RunPhase
//! [`RunPhase::synchronize`]: crate::safety::RunPhase::synchronize
//! [`PinnedHost`]: crate::safety::PinnedHost
//! [`PinnedHostMut`]: crate::safety::PinnedHostMut
//! [`WaitBound`]: crate::safety::WaitBound
//! [`WaitBound::fail_stop`]: crate::safety::WaitBound::fail_stop
//! [`WaitBound::return_error`]: crate::safety::WaitBound::return_error
//! [`WaitBound::DEFAULT`]: crate::safety::WaitBound::DEFAULT
//! [`OnOverrun`]: crate::safety::OnOverrun
//! [`OnOverrun::FailStop`]: crate::safety::OnOverrun::FailStop
//! [`OnOverrun::ReturnError`]: crate::safety::OnOverrun::ReturnError
//! [init-stream]: crate::safety::InitPhase::stream
//! [init-alloc-pinned]: crate::safety::InitPhase::alloc_pinned
//! [init-alloc]: crate::safety::InitPhase::alloc
//! [init-kernel]: crate::safety::InitPhase::kernel
//! [init-capture]: crate::safety::InitPhase::capture
//! [init-build]: crate::safety::InitPhase::build_graph
//! [graph-update]: crate::safety::RestrictedGraph::update_kernels
//! [init-seal]: crate::safety::InitPhase::seal
//! [guard-shutdown]: crate::safety::RestrictedGuard::shutdown
//! [ctx-destroy]: crate::safety::RestrictedContext::destroy
//! [`InitPhase::redundant`]: crate::safety::InitPhase::redundant
//! [`RestrictedContext::primary`]: crate::safety::RestrictedContext::primary
//! [`Budget::partitions`]: crate::safety::Budget::partitions
//! [`RedundantKernel`]: crate::safety::RedundantKernel
//! [`RedundantKernel::run`]: crate::safety::RedundantKernel::run
//! [`CompareOn::DEVICE_FROM_BYTES`]: crate::safety::CompareOn::DEVICE_FROM_BYTES
//! [`ReplicasCompare`]: crate::safety::ReplicasCompare
//! [`ErrorKind::ReplicasDiffer`]: crate::ErrorKind::ReplicasDiffer
//! [`ErrorKind::SelfTestFailed`]: crate::ErrorKind::SelfTestFailed
//! [`OnMismatch`]: crate::safety::OnMismatch
//! [`KnownAnswer`]: crate::safety::KnownAnswer
