//! Several contexts from one thread: work in flight on every GPU at once.
//!
//! # A thread per context, or one thread for all
//!
//! The default is a thread per context (pattern P5 in `tests/patterns.rs`): each thread has
//! its own [`Stack`], pushes its context once, and everything its guard lends stays there. It
//! needs no parking, each thread's code reads like a one-GPU program, and the threads run
//! concurrently on the host too. Use it when the contexts work independently, or when each
//! needs host work of its own (decoding input, post-processing output).
//!
//! One thread for several contexts fits when the host side is thin and the point is to keep
//! every GPU, or every partition of one GPU, fed from one place:
//!
//! - NVIDIA's `simpleMultiGPU` shape: enqueue on GPU 0, enqueue on GPU 1, wait for both;
//! - collective calls issued on every GPU from one thread (NCCL group calls);
//! - a control loop driving two contexts of one GPU (two green contexts: a latency partition
//!   and a throughput partition), or a pipeline handing chunks from one GPU to another;
//! - a library type that owns a context per device and is called from the user's thread.
//!
//! There, a thread per context costs a hand-off (a channel, a barrier) per step, which is
//! often more than the work being enqueued.
//!
//! # Keeping work pending across a nested push
//!
//! A [`Submission`] borrows its stream and so its guard: while it is pending, no other context
//! can be pushed on top of that guard (`ui-tests/c22_unparked_submission_kept_across_nested_push.rs`).
//! Park it: [`PushedGuard::park_submission`] turns it into a [`ParkedSubmission`], which
//! borrows only the [`Context`] and keeps its payload in its parked form (device memory as a
//! [`ParkedBuffer`], page-locked memory as a [`ParkedPinned`], host vectors as themselves). The
//! guard is then free to push another context while the work runs:
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, ParkedBuffer, ParkedSubmission, PushedGuard, Stack};
//!
//! /// Enqueues `x = k; copy x to the host` on `guard`'s context and leaves it in flight.
//! fn enqueue<'c>(
//!     guard: &PushedGuard<'c, '_>,
//!     k: u8,
//! ) -> custack::Result<ParkedSubmission<'c, (ParkedBuffer<'c, u32>, Vec<u32>)>> {
//!     let stream = guard.stream()?; // may be dropped while its work runs
//!     let payload = (guard.alloc::<u32>(1 << 20)?, vec![0u32; 1 << 20]);
//!     let work = stream.submit(payload, |s, (mut dev, host)| {
//!         s.fill_bytes(&mut dev, k)?;
//!         s.copy_to_host(host, &dev)
//!     })?;
//!     Ok(guard.park_submission(work))
//! }
//!
//! fn main() -> custack::Result<()> {
//!     let driver = Driver::init()?;
//!     let contexts = driver
//!         .devices()?
//!         .into_iter()
//!         .map(|d| Context::new(d, ContextFlags::empty()))
//!         .collect::<custack::Result<Vec<_>>>()?;
//!     let mut stack = Stack::new()?;
//!     // Enqueue on every GPU; nothing waits yet.
//!     let pending = contexts
//!         .iter()
//!         .zip(1u8..)
//!         .map(|(ctx, k)| stack.with_pushed(ctx, |g| enqueue(g, k))?)
//!         .collect::<custack::Result<Vec<_>>>()?;
//!     // Wait for each, whatever context is current (here none).
//!     for (work, k) in pending.into_iter().zip(1u32..) {
//!         let (_device_memory, host) = work.wait()?;
//!         assert!(host.iter().all(|&x| x == k * 0x0101_0101));
//!     }
//!     Ok(())
//! }
//! ```
//!
//! Waiting and polling ([`ParkedSubmission::wait`], [`try_wait`](crate::ParkedSubmission::try_wait),
//! [`is_complete`](crate::ParkedSubmission::is_complete)) work under any context: the driver's event
//! waits accept an event of another context. What comes back is parked: device and
//! page-locked memory of context A is usable again only once attached to a guard of A
//! ([`PushedGuard::attach`], checked by a pointer compare), never as context B's memory
//! (`ui-tests/c22_parked_result_used_as_memory_of_other_context.rs`). Dropping a parked
//! submission waits for it; its context cannot be dropped while it is pending
//! (`ui-tests/c22_context_dropped_while_parked_work_pending.rs`); leaking it is sound (R11).
//!
//! # Ordering work across contexts on the GPU
//!
//! [`Stream::wait_parked`] makes a stream of any context wait, on the GPU, for a parked
//! submission of another (`cuStreamWaitEvent`; across devices too): B's next kernel starts
//! after A's work without a host round trip. It orders work only: A's memory stays with A's
//! parked submission until that is waited for.
//!
//! To move data from A's pending work into B's on the GPU, [`Stream::scope_after`] opens a
//! scope on B's stream that first waits for A's event, and lends that scope A's device buffers
//! as [`PendingSource`]s: the source of a peer copy ([`StreamScope::copy_from_pending`],
//! `cuMemcpyPeerAsync`), never B's memory
//! (`ui-tests/c22_pending_buffer_copied_as_memory_of_other_context.rs`) and never host memory
//! (`ui-tests/c22_pending_host_memory_not_lent_by_scope_after.rs`: the host does not know A's
//! work is done), and only to the scope that waited, not to one nested in it on another stream
//! (`ui-tests/c22_pending_source_used_by_scope_that_did_not_wait.rs`). A's parked submission stays
//! borrowed until the scope has synchronized:
//!
//! ```no_run
//! # use custack::prelude::*;
//! # use custack::{Context, ContextFlags, Driver, Stack};
//! # let driver = Driver::init()?;
//! # let a = Context::new(driver.device(0)?, ContextFlags::empty())?;
//! # let b = Context::new(driver.device(driver.device_count()? - 1)?, ContextFlags::empty())?;
//! # let mut stack = Stack::new()?;
//! # let mut ga = stack.push(&a)?;
//! let pending_a = {
//!     let stream = ga.stream()?;
//!     let work = stream.submit((ga.alloc::<u32>(1024)?,), |s, (mut x,)| s.fill_bytes(&mut x, 1))?;
//!     ga.park_submission(work)
//! };
//! let copy = ga.with_pushed(&b, |gb| -> custack::Result<Vec<u32>> {
//!     let mut mine = gb.alloc::<u32>(1024)?;
//!     gb.stream()?.scope_after(&pending_a, |s, (theirs,)| {
//!         s.copy_from_pending(s.bind_mut(&mut mine), theirs) // after A's fill, on the GPU
//!     })??;
//!     mine.to_vec()
//! })??;
//! assert!(copy.iter().all(|&x| x == 0x0101_0101));
//! let (_a_buffer,) = pending_a.wait()?;
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # Libraries that enqueue later: NCCL group calls
//!
//! A submission records its event when it is made, after its closure enqueued the work. A
//! library call that enqueues its work *later* does not fit inside one: between
//! `ncclGroupStart` and `ncclGroupEnd`, `ncclAllReduce` only records the call, and NCCL
//! enqueues every GPU's work at `ncclGroupEnd`. So a submission around `ncclAllReduce` inside
//! the group would complete before NCCL's work and hand its buffers back while NCCL still
//! used them. Keep the buffers parked across the group call (a parked buffer's
//! [`device_ptr`](crate::ParkedBuffer::device_ptr) and a parked stream's
//! [`as_raw`](crate::ParkedStream::as_raw) are what NCCL needs), and after `ncclGroupEnd` make
//! per context a submission on the same stream that takes them over and park it: its event
//! follows NCCL's work in stream order, so the buffers come back only after it.
//! `examples/12_nccl.rs` does this beside the thread-per-GPU version, synchronizing each
//! context before its buffers can drop if anything fails after the group started.
//!
//! # Moving data between contexts
//!
//! - Through the host: stage in A's page-locked memory, parked ([`PushedGuard::park_pinned`]),
//!   which B's scopes copy from and to (P11; [`guide::parking`](super::parking)).
//! - Device to device: the peer copies of [`guide::parking`](super::parking)
//!   ([`PushedGuard::copy_from_peer`]), which take the other context's buffer parked.
//!
//! # Things that synchronize
//!
//! Dropping a [`Module`](crate::Module) waits for its whole context before it unloads (a
//! kernel must never run from unloaded code). A helper that loads a module, enqueues work and
//! returns would therefore wait for that work on its way out: park the module too
//! ([`PushedGuard::park_module`]) and drop it after the work, as pattern P9 in
//! `tests/patterns.rs` does. Streams need no such care: a stream destroyed with work pending
//! lets that work finish.
//!
//! # Two green contexts from one thread
//!
//! A [`GreenContext`] may be current on one thread at a time, so it is `!Send`, and so is
//! everything parked from it: the parked forms carry the kind of their context
//! ([`ParkedBuffer<'_, T, Green>`](crate::ParkedBuffer),
//! [`ParkedModule<'_, Green>`](crate::ParkedModule),
//! [`ParkedStream<'_, Green>`](crate::ParkedStream)), and only the [`Floating`](crate::Floating)
//! kind is `Send` (`ui-tests/c20_green_parked_work_result_sent_to_thread.rs`). Within its
//! thread, a green context's work parks like any other: push the throughput partition's green
//! context, submit, park the submission and the module, pop; push the latency partition's, and
//! its kernels run while the other partition's work is still pending (P9's green variant in
//! `tests/gpu_green.rs`; `examples/17_green_partitions.rs` times it). Green contexts are pushed
//! at the top level ([`Stack::push_green`](crate::Stack::push_green)), one after the other:
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Driver, GreenContext, Stack};
//! let sms = Driver::init()?.device(0)?.sm_resource()?;
//! let split = sms.split(1, 16)?; // a partition of at least 16 SMs, and the rest
//! let (small, rest) = (GreenContext::new(&split.groups[0])?, GreenContext::new(&split.remaining)?);
//! let mut stack = Stack::new()?;
//! let pending = {
//!     let g = stack.push_green(&rest)?;
//!     let stream = g.stream()?;
//!     let work = stream.submit((g.alloc::<u32>(1 << 24)?,), |s, (mut x,)| s.fill_bytes(&mut x, 1))?;
//!     g.park_submission(work) // borrows `rest` only; `!Send`
//! }; // popped, the fill still running on the rest of the SMs
//! let g = stack.push_green(&small)?;
//! let mine = g.alloc_from(&[1u32; 256])?; // the small partition's work, meanwhile
//! # drop(mine);
//! let (_filled,) = pending.wait()?; // a `ParkedBuffer<'_, u32, Green>`, still on this thread
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # Limits
//!
//! A green context's page-locked and registered host memory does not park (their parked forms
//! are `Send`; its device buffers, modules, streams and submissions do);
//! [`Stream::scope_after`] lends the device buffers of floating contexts' work only (a green
//! context's parked work may be waited for on the GPU, and lends nothing). Managed memory has
//! no parked form yet.
//!
//! # A launched graph in flight
//!
//! A submission that launched an executable graph parks too, when the graph owns the module its
//! kernels come from. The reason is what an executable graph is: its kernel nodes name the
//! module's functions for as long as the graph exists, and it is launched again after the wait
//! (that is why one keeps it).
//!
//! - A parked plain submission drops its kernel [`Function`](crate::Function)s (they park as
//!   `()`, [`Park`](crate::Park)): its module may then be dropped while the work is pending,
//!   which is sound only because dropping a [`Module`](crate::Module) synchronizes its context
//!   before `cuModuleUnload`. After the wait nothing of that submission runs the kernel again.
//! - An executable graph would: the driver documents no reference from a `CUgraphExec` to its
//!   module, so unloading the module while the graph exists leaves nodes naming unloaded code,
//!   and the next `cuGraphLaunch` runs it. A graph whose payload holds a `Function<'m>` keeps
//!   the module borrowed for `'m`, a borrow of the guard: such a graph does not park
//!   ([`ParkWithGraph`](crate::ParkWithGraph) is not implemented for `Function` or
//!   [`Kernel`](crate::Kernel); `ui-tests/c22_graph_with_borrowed_function_parked.rs`).
//! - So the graph owns the module: move the [`Module`](crate::Module) into the capture's
//!   payload and look its functions up inside the capture closure, where it is bound as
//!   `&'scope Module<'scope>` (a function cannot leave the closure,
//!   `ui-tests/c22_function_of_owned_module_escapes_capture.rs`). Parked, the graph's payload
//!   holds a [`ParkedModule`](crate::ParkedModule): the module stays loaded at least as long
//!   as the graph exists, and the [`ParkedGraph`](crate::ParkedGraph)'s drop destroys the graph
//!   before the module unloads (both with the graph's context pushed).
//! - The function *handle* cannot leave the closure, but work launched with it can: inside the
//!   closure it may be launched on another stream in a submission that is kept (parked)
//!   after the capture. As for a parked plain submission, what keeps that sound is the
//!   module's unload, which synchronizes its context first (and leaks the module rather than
//!   unload it if the context cannot confirm it is idle).
//!
//! The pending launch parks with [`PushedGuard::park_submission`], whose wait hands back a
//! [`ParkedGraph`](crate::ParkedGraph); [`PushedGuard::attach_graph`] (the pointer compare of
//! [`PushedGuard::attach`], then each part attached) gives the
//! [`GraphExec`](crate::graph::GraphExec) to launch again. An idle executable graph parks with
//! [`PushedGuard::park_graph`], to outlive its guard or a nested push. Nothing new is
//! tracked: the graph is one more payload with a parked form.
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
//! let driver = Driver::init()?;
//! let a = Context::new(driver.device(0)?, ContextFlags::empty())?;
//! let b = Context::new(driver.device(driver.device_count()? - 1)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let mut ga = stack.push(&a)?;
//! let stream = ga.stream()?;
//! let payload = (ga.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?, ga.alloc_zeroed::<u32>(1 << 20)?);
//! let exec = stream
//!     .capture(payload, |s, (module, mut x)| {
//!         let add = module.function("add_u32")?;
//!         for _ in 0..100 {
//!             // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
//!             unsafe { s.launch(&add, LaunchConfig::for_elements(1 << 20), (&mut x, 1u32, 1u32 << 20)) }?;
//!         }
//!         Ok(())
//!     })?
//!     .instantiate()?;
//! let pending = ga.park_submission(stream.submit(exec, |s, g| s.launch_graph(&g))?);
//! drop(stream);
//! ga.with_pushed(&b, |gb| -> custack::Result<()> {
//!     let _mine = gb.alloc_from(&[1u32; 256])?; // B's work, while A's graph runs
//!     Ok(())
//! })??;
//! let exec = ga.attach_graph(pending.wait()?)?; // launch it again from here
//! # drop(exec);
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! `tests/gpu_in_flight.rs` (`p9_graph_in_flight`) runs this on two contexts (two GPUs where
//! there are two), and the `parked_graph` program of `benches/checking` runs it under the
//! checking driver and Miri with every driver call failed in turn.
//!
//! [`Stack`]: crate::Stack
//! [`GreenContext`]: crate::GreenContext
//! [`Context`]: crate::Context
//! [`Submission`]: crate::Submission
//! [`ParkedSubmission`]: crate::ParkedSubmission
//! [`ParkedSubmission::wait`]: crate::ParkedSubmission::wait
//! [`PushedGuard::park_submission`]: crate::PushedGuard::park_submission
//! [`PushedGuard::attach`]: crate::PushedGuard::attach
//! [`PushedGuard::park_pinned`]: crate::PushedGuard::park_pinned
//! [`PushedGuard::park_module`]: crate::PushedGuard::park_module
//! [`PushedGuard::copy_from_peer`]: crate::PushedGuard::copy_from_peer
//! [`ParkedBuffer`]: crate::ParkedBuffer
//! [`ParkedPinned`]: crate::ParkedPinned
//! [`Stream::wait_parked`]: crate::Stream::wait_parked
//! [`Stream::scope_after`]: crate::Stream::scope_after
//! [`PendingSource`]: crate::PendingSource
//! [`StreamScope::copy_from_pending`]: crate::StreamScope::copy_from_pending
//! [`PushedGuard::park_graph`]: crate::PushedGuard::park_graph
//! [`PushedGuard::attach_graph`]: crate::PushedGuard::attach_graph
