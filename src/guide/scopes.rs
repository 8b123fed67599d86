//! Asynchronous work: stream scopes, owned submissions, graphs.
//!
//! A kernel launch or an asynchronous copy returns before the GPU has run it. Until it has,
//! the memory it uses must not be freed, reused, or touched by the host. custack offers three
//! shapes of asynchronous work, which differ in *who holds the memory meanwhile*:
//!
//! | shape | made by | the memory is | ends with | pick it for |
//! | --- | --- | --- | --- | --- |
//! | stream scope | [`Stream::scope`]`(\|s\| …)` | *borrowed* for the whole scope | one `cuStreamSynchronize` when the closure returns | a batch of work, then its results; the simplest shape |
//! | submission | [`Stream::submit`]`(payload, \|s, bound\| …)` | *moved in*, handed back by [`Submission::wait`] | the submission's one event (`cuEventSynchronize`) | pipelines whose stages overlap across streams; `async` code |
//! | graph | [`Stream::capture`]`(payload, \|s, bound\| …)` | owned by the [`Graph`], then the [`GraphExec`] | each launch is a submission or part of a scope | the same work launched many times |
//!
//! All three enqueue through the same [`StreamScope`] `s`: copies ([`copy_to_device`],
//! [`copy_to_host`], [`copy_device`]), memsets ([`fill_bytes`], …), stream-ordered allocation
//! ([`StreamScope::alloc`]), events ([`record`], [`wait`]), kernel launches
//! ([`launch`](crate::StreamScope::launch), [`launch_kernel`](crate::StreamScope::launch_kernel))
//! and host functions ([`host_fn`](crate::StreamScope::host_fn)).
//!
//! Every one of these waits has a form bounded by a [`Deadline`](crate::Deadline)
//! ([`Stream::scope_by`](crate::Stream::scope_by), [`Submission::wait_by`](crate::Submission::wait_by), …): past it, a
//! submission comes back still pending, and a scope, which cannot hand back what it borrows,
//! keeps waiting or ends the process, as its caller chose ([`Overrun`](crate::Overrun)). The
//! table of bounded waits is [`Deadline`](crate::Deadline)'s documentation.
//!
//! # Stream scopes
//!
//! Inside the scope, memory is *bound* to it: [`bind`](crate::StreamScope::bind) (`&buf`, a
//! `Copy` [`ScopedSlice`]) or [`bind_mut`](crate::StreamScope::bind_mut) (`&mut buf`, a
//! [`ScopedSliceMut`]). Host memory is passed as `&`/`&mut` of a `Vec`, a slice, an array or a
//! [`PinnedBuffer`]. Each borrow lasts until the scope has synchronized the stream, like the
//! borrows of [`std::thread::scope`], so the host cannot touch what the GPU may still use (C10,
//! C11); that includes host memory a copy reads, which stays shared-borrowed, so the example
//! downloads into a second buffer rather than the one it uploaded from:
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
//!
//! custack::kernel_contract! {
//!     /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
//!     unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
//! }
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
//!     let add = module.declared::<AddU32>()?;          // its contract checked at lookup
//!     let stream = guard.stream()?;
//!
//!     // Page-locked host memory, so that the copies are truly asynchronous.
//!     let mut input = guard.alloc_pinned::<u32>(1024)?;
//!     input.fill(41);
//!     let mut output = guard.alloc_pinned::<u32>(1024)?;
//!     let mut dev = guard.alloc::<u32>(1024)?;
//!     stream.scope(|s| -> custack::Result<()> {
//!         let mut d = s.bind_mut(&mut dev);            // `dev` is borrowed until the sync
//!         s.copy_to_device(&mut d, &input)?;           // cuMemcpyHtoDAsync; `input` borrowed
//!         s.run(&add, LaunchConfig::for_elements(1024), (&mut d, 1, 1024))?; // a safe launch
//!         s.copy_to_host(&mut output, &d)              // cuMemcpyDtoHAsync; `output` borrowed
//!     })??;                                            // cuStreamSynchronize
//!     assert!(output.iter().all(|&x| x == 42));        // the borrows have ended
//!     Ok(())
//! }
//! ```
//!
//! The kernel is declared once with its contract ([`kernel_contract!`](crate::kernel_contract):
//! its parameters, and how much of each buffer it touches); that declaration is the one
//! `unsafe`, and every launch of it is a safe call that checks the buffers' lengths first.
//!
//! `scope` returns `Result<R>`: the outer error is the synchronization's (the first error of
//! the scope's work, e.g. a kernel that faulted), `R` is the closure's value, often a `Result`
//! of the enqueue calls, hence `??`. The scope waits also when the closure panics, and its
//! borrows end only once no work of it can still run (see [`Stream::scope`] for what happens
//! when the synchronization itself fails).
//!
//! Reading the buffer on the host inside the scope does not compile (C10,
//! `ui-tests/c10_device_buffer_read_while_async_write.rs`): `dev` is mutably borrowed by the
//! binding until the scope ends (`E0502`).
//!
//! ```compile_fail,E0502
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let stream = guard.stream()?;
//!     let host = guard.alloc_pinned::<u32>(1024)?;
//!     let mut dev = guard.alloc::<u32>(1024)?;
//!     stream.scope(|s| -> custack::Result<Vec<u32>> {
//!         s.copy_to_device(s.bind_mut(&mut dev), &host)?;
//!         dev.to_vec() // error[E0502]: `dev` is also borrowed as mutable (by the scope)
//!     })??;
//!     Ok(())
//! }
//! ```
//!
//! After the scope, the same read is fine: `dev.to_vec()` follows `})??;`.
//!
//! Several streams run at once by *nesting* scopes (`a.scope(|sa| b.scope(|sb| …))`): each
//! binds what it uses, and the inner one ends first. Stream-ordered memory
//! ([`StreamScope::alloc`], `cuMemAllocAsync`) is a [`ScopedAlloc`] branded with its scope: it
//! cannot leave it, and is freed on the stream after the work that used it.
//!
//! # Submissions: work that owns its memory
//!
//! Scopes nest; they never overlap. A rolling pipeline (upload chunk *i + 1* on one stream
//! while chunk *i* computes on another and the host consumes chunk *i − 1*) needs work whose
//! lifetimes overlap. A [`Submission`] *owns* its [`Payload`] (device buffers, pinned buffers,
//! `Vec`s, boxed slices, functions, or tuples of these: memory whose address survives a move)
//! and hands it back from [`wait`](crate::Submission::wait):
//!
//! ```no_run
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let stream = guard.stream()?;
//!     let dev = guard.alloc::<u32>(1024)?;
//!     let pending = stream.submit((dev, vec![0u32; 1024]), |s, (mut dev, host)| {
//!         s.fill_bytes(&mut dev, 1)?;     // cuMemsetD8Async
//!         s.copy_to_host(host, &dev)      // cuMemcpyDtoHAsync
//!     })?;                                // cuEventRecord
//!     // ... the host does other work here; `dev` and the Vec are out of its reach ...
//!     let (_dev, host) = pending.wait()?; // cuEventSynchronize: the memory comes back
//!     assert!(host.iter().all(|&x| x == 0x0101_0101));
//!     Ok(())
//! }
//! ```
//!
//! The closure's scope has a `'static` environment: it reaches only the payload, never memory
//! borrowed from outside, because a submission may outlive any borrow (even leaked with
//! `mem::forget`, which is sound: the payload leaks with it). And what was moved in cannot be
//! used until it comes back (C16, `ui-tests/c16_payload_used_while_pending.rs`, `E0382`):
//!
//! ```compile_fail,E0382
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let stream = guard.stream()?;
//!     let dev = guard.alloc::<u32>(1024)?;
//!     let pending = stream.submit(dev, |s, mut dev| s.fill_bytes(&mut dev, 0))?;
//!     let _ = dev.to_vec()?; // error[E0382]: borrow of moved value: `dev`
//!     pending.wait()?;
//!     Ok(())
//! }
//! ```
//!
//! [`Stream::submit_after`] takes a pending submission over on another stream with a GPU-side
//! wait (`cuStreamWaitEvent`, no host round trip), so the next stage starts without the host
//! waiting (C17). Dropping an unwaited submission waits for it; a failed wait leaks the
//! payload rather than free memory the GPU may still use. A submission is also a `Future`
//! (`submission.await`), woken by a stream callback when its work completes; see
//! [`SubmissionFuture`](crate::SubmissionFuture).
//!
//! ## Awaiting submissions
//!
//! `submission.await` enqueues a stream callback (`cuStreamAddCallback`) behind the work; the
//! driver runs it on *its own* callback thread once the work is complete (also after a device
//! fault), and it calls the executor's [`Waker`](std::task::Waker). Nothing polls the GPU; the
//! executor's thread sleeps while it waits. Two facts decide where that works:
//!
//! - **The waker is called from a foreign thread, inside a driver callback.** Every executor's
//!   waker must allow that (`Waker` is `Send + Sync`), and the ones in use do: tokio (both
//!   runtimes, `LocalSet`), async-std, smol and async-executor, `futures::executor`,
//!   `pollster`, and the ten-line `block_on` in [`SubmissionFuture`](crate::SubmissionFuture)'s
//!   docs all queue the task or unpark a thread. What the driver forbids in a callback is a
//!   CUDA call or blocking on GPU work, so an executor whose waker *polls the task inline* on
//!   the waking thread would break (and would move a `!Send` future to another thread): none
//!   of the above does.
//! - **A submission is `!Send` and borrows its stream** (and so the guard), like everything a
//!   guard lends. It is awaited on the thread that pushed the context, inside a future that
//!   thread drives: `Runtime::block_on` (the current-thread runtime, or the multi-threaded one's
//!   `block_on`), `LocalSet::run_until`, `futures::executor::block_on`. `tokio::spawn` needs
//!   `Send + 'static` and `spawn_local` needs `'static`, so neither takes it; many requests in
//!   flight are futures joined on that thread (`tokio::join!`, `futures`' `join_all` or
//!   `FuturesUnordered`, or lanes as in the example). Tasks elsewhere (a multi-threaded server)
//!   hand their requests to that thread over a channel.
//!
//! `benches/examples/13_tokio_requests.rs` runs 512 requests on tokio's current-thread
//! runtime, each moving its buffers into a submission (upload, kernel, download) and awaiting
//! it, 16 in flight on 4 streams, and compares the throughput with awaiting them one at a time;
//! `benches/tests/gpu_tokio.rs` awaits 64 at once on tokio's current-thread runtime, in a
//! `LocalSet` and in the multi-threaded runtime's `block_on`. (Both are in the repository's
//! crate `custack-benches`, so that custack's own examples and tests build without tokio.)
//!
//! A payload's host memory stays where the work was bound to it while the submission (or a
//! graph) owns it: a `Box<[T]>` is kept as the `Vec<T>` it converts to for free and becomes a
//! box again only when handed back, because a `Box` claims to be the only pointer to its
//! elements each time it moves, which the GPU's pending access would contradict.
//!
//! ## Module globals and function handles
//!
//! A kernel [`Function`](crate::Function) is `Copy` and a payload: a pending submission may own
//! one and still run its kernel, which may read the module's globals. So writing a global
//! ([`Module::global_mut`](crate::Module::global_mut), which borrows the module mutably) is
//! refused while any function handle of the module is still to be used, pending work or not.
//! Write globals before looking functions up, or stop using the handles, write, and look the
//! functions up again (a hash lookup in the driver):
//!
//! ```no_run
//! # use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, LaunchConfig, Stack};
//! # custack::kernel_contract! {
//! #     unsafe kernel CountThreads = "count_threads"();
//! # }
//! # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! # let mut stack = Stack::new()?;
//! # let guard = stack.push(&ctx)?;
//! # let stream = guard.stream()?;
//! let mut module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
//! for round in 0..3u32 {
//!     module.global_mut::<u32>("counters")?.copy_from_host(&[round, 0, 0, 0])?;
//!     let count = module.declared::<CountThreads>()?; // looked up again each round
//!     stream.scope(|s| s.run(&count, LaunchConfig::for_elements(256), ()))??;
//! }
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # Graphs
//!
//! [`Stream::capture`] records what its closure enqueues into a [`Graph`] that owns the
//! payload, instead of running it. The closure is `'static`: what the graph uses comes only
//! through the payload, never from the environment, not even a scope that is open around the
//! capture (its work would be captured instead of run, and its end would release memory the
//! graph still names). Work that should run on two streams at once inside one graph is
//! captured by [`Stream::capture_forked`](crate::Stream::capture_forked), which forks the second
//! stream in and joins it back itself, each stream with its own scope and payload; a host
//! function the graph calls at each launch is
//! [`StreamScope::graph_host_fn`](crate::StreamScope::graph_host_fn). [`Graph::instantiate`]
//! makes a [`GraphExec`], which takes the payload over; an executable graph is itself a
//! payload, so it is launched in a submission and handed back by `wait`:
//!
//! ```no_run
//! use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
//!
//! custack::kernel_contract! {
//!     /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
//!     unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
//! }
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
//!     let add = module.declared::<AddU32>()?;
//!     let stream = guard.stream()?;
//!     let payload = (guard.alloc_zeroed::<u32>(1024)?, add, vec![0u32; 1024]);
//!     let graph = stream.capture(payload, |s, (mut dev, add, out)| {
//!         s.run(&add, LaunchConfig::for_elements(1024), (&mut dev, 1, 1024))?;
//!         s.copy_to_host(out, &dev)
//!     })?;                                     // nothing has run yet
//!     let mut exec = graph.instantiate()?;     // cuGraphInstantiate
//!     for _ in 0..3 {
//!         exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?; // cuGraphLaunch
//!     }
//!     let (_dev, _add, out) = exec.payload_mut();
//!     assert!(out.iter().all(|&x| x == 3));
//!     Ok(())
//! }
//! ```
//!
//! Between launches, [`GraphExec::payload_mut`] gives the host the payload's contents (device
//! memory as views, host memory as slices) but never the memory itself, which the graph's nodes
//! were built on (C18); [`GraphExec::update`] swaps in a graph of the same shape over other
//! memory and hands the old payload back.
//!
//! ## Built graphs, and loops that stay on the GPU
//!
//! [`PushedGuard::build_graph`](crate::PushedGuard::build_graph) builds the same kind of graph
//! node by node ([`GraphBuilder`](crate::graph::GraphBuilder)), each node after the nodes it names.
//! A built graph can also branch and loop on the device: a conditional node runs a body graph
//! once if a value is non-zero, one of two bodies, the body the value numbers, or the body
//! again and again while the value is non-zero
//! ([`while_loop`](crate::graph::GraphBuilder::while_loop)). A kernel of the graph sets the value
//! with `cudaGraphSetConditional`, through a [`ConditionalHandle`](crate::graph::ConditionalHandle)
//! passed for a contract parameter declared `name: conditional`. An iteration that runs until a
//! residual is small is then one graph launch and one wait instead of a launch, a copy back and
//! a host decision per step (`examples/26_graph_while.rs`; 2.5× faster per step on the H100 in
//! `benches/graph_while.rs`):
//!
//! ```text
//! guard.build_graph(payload, |b, (x, r, step, check)| {
//!     let cond = b.condition(1, true)?;             // 1 at the start of every launch
//!     let handle = cond.handle();                   // for `check`'s `cond: conditional`
//!     b.while_loop(cond, &[], |body| {              // a builder of the body, its own brand
//!         let s = body.kernel(&step, cfg, (&mut x, &mut r, n), &[])?;
//!         body.kernel(&check, one, (handle, &r, tol), &[s]).map(drop) // sets the value
//!     })?;
//!     Ok(())
//! })?
//! ```
//!
//! A body's nodes are branded apart from the graph around it, and the handle cannot leave the
//! builder's closure: the compiler refuses a body's node as a dependency outside it and a
//! handle kept past its graph (row C28).
//!
//! Capture and the builder nest inside each other, as NVIDIA's graph samples mix them (driver
//! 12.3; `DriverTooOld` on 535): [`GraphBuilder::capture`](crate::graph::GraphBuilder::capture)
//! captures what a closure enqueues on a stream scope into the graph being built or into a
//! body (`body.capture(&[], |s| s.run(&step, cfg, args))`), and inside
//! [`Stream::capture`]'s closure a conditional node goes in the middle of the capture
//! ([`s.condition`](crate::StreamScope::condition), then
//! [`s.while_loop(cond, |body| …)`](crate::StreamScope::while_loop) after a captured kernel that
//! sets the condition); the capture's later work follows the node.
//!
//! A built graph can own memory for the span of each launch:
//! [`b.alloc::<T>(len, &deps)`](crate::graph::GraphBuilder::alloc) adds an allocation node and
//! lends a [`GraphAlloc`](crate::graph::GraphAlloc) that later nodes use as they use the payload's
//! memory, and [`b.free(a, &deps)`](crate::graph::GraphBuilder::free) consumes it. The builder
//! knows every node's ancestors, so a use that does not follow the allocation node, or a free that
//! does not follow every use, is refused before the driver sees it, and an allocation not freed by
//! the end of the build too (row C28).
//!
//! # Ordering against synchronous calls
//!
//! Synchronous custack calls (`buf.copy_from_host`, `buf.to_vec`, `guard.alloc`, …) run on the
//! context's legacy NULL stream. Streams from [`PushedGuard::stream`] are *blocking*: their work
//! is ordered after earlier synchronous calls and before later ones. Streams made with
//! [`StreamFlags::NON_BLOCKING`] overlap synchronous work; both kinds are sound, and the "Stream kinds"
//! section of the repository's `docs/features.md` says exactly where their orderings differ.
//!
//! [`Stream::scope`]: crate::Stream::scope
//! [`Stream::submit`]: crate::Stream::submit
//! [`Stream::submit_after`]: crate::Stream::submit_after
//! [`Stream::capture`]: crate::Stream::capture
//! [`Submission::wait`]: crate::Submission::wait
//! [`Submission`]: crate::Submission
//! [`Payload`]: crate::Payload
//! [`Graph`]: crate::graph::Graph
//! [`Graph::instantiate`]: crate::graph::Graph::instantiate
//! [`GraphExec`]: crate::graph::GraphExec
//! [`GraphExec::payload_mut`]: crate::graph::GraphExec::payload_mut
//! [`GraphExec::update`]: crate::graph::GraphExec::update
//! [`StreamScope`]: crate::StreamScope
//! [`StreamScope::alloc`]: crate::StreamScope::alloc
//! [`ScopedSlice`]: crate::ScopedSlice
//! [`ScopedSliceMut`]: crate::ScopedSliceMut
//! [`ScopedAlloc`]: crate::ScopedAlloc
//! [`PinnedBuffer`]: crate::PinnedBuffer
//! [`PushedGuard::stream`]: crate::PushedGuard::stream
//! [`StreamFlags::NON_BLOCKING`]: crate::StreamFlags::NON_BLOCKING
//! [`copy_to_device`]: crate::StreamScope::copy_to_device
//! [`copy_to_host`]: crate::StreamScope::copy_to_host
//! [`copy_device`]: crate::StreamScope::copy_device
//! [`fill_bytes`]: crate::StreamScope::fill_bytes
//! [`record`]: crate::StreamScope::record
//! [`wait`]: crate::StreamScope::wait
