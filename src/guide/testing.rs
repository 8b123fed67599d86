//! Testing GPU code without a GPU: the checking driver, fault schedules, and CPU stand-ins for
//! kernels.
//!
//! custack's repository holds a second `libcuda`: the **checking driver** (`checkdriver/`,
//! package `custack-checkdriver`). It needs no GPU. It keeps the driver's per-thread context
//! stacks, records every context, stream, event, module, allocation and pending operation, and
//! reports what a real driver would let pass silently or crash on: a handle used while another
//! context is current, a double free, memory freed while work may still use it, a context left
//! on a thread's stack, a leak. It can fail any one driver call, or every call from one on (a
//! sticky fault, as after a kernel's illegal address), so the error paths of a program run
//! too. Device memory holds data (host memory, there), so copies move real bytes, and a test
//! can give a kernel a CPU stand-in to check results end to end.
//!
//! It is for your code as much as for custack's: any program or test binary built against
//! custack runs on it unchanged, on an ordinary CI machine.
//!
//! # Running your tests under every fault schedule
//!
//! One command, from your crate's directory (`<custack>` is a checkout of custack's
//! repository; the first line builds the runner and the checking libcuda beside it):
//!
//! ```text
//! cargo build --release --manifest-path <custack>/checkdriver/Cargo.toml
//! <custack>/checkdriver/target/release/custack-check --cargo -- [test filter] [--include-ignored]
//! ```
//!
//! `--cargo` builds your tests against the checking driver (`cargo test --no-run` with
//! `CUDA_DRIVER_LIB_DIR` pointing at it) into a directory of its own, `target/custack-check`, or
//! `$CARGO_TARGET_DIR/custack-check` when that is set, so your usual build is never relinked
//! (cargo's own arguments, such as `--test NAME` or `--release`, go before the `--`). It then
//! checks each test harness that loads libcuda (the artifacts cargo built with `profile.test`:
//! unit tests of the library and of each binary, integration tests; a binary's own executable is
//! not one); what follows `--` goes to each. A single program is checked with
//! `custack-check <program> [args]`.
//!
//! The runner runs each binary once cleanly and counts its driver calls (N), then once with
//! call k failed and once with a sticky fault from call k on, for every k in 1..=N, as many at a
//! time as the machine has cores, each with `RUST_TEST_THREADS=1` so that call k is the same
//! call in every run. It prints a table and each failing schedule with its call number and driver
//! function, and exits 1 when any schedule had a violation, a leak, a panic or an abort (2 when
//! the program fails even without faults, or never loaded the checking driver; a clean run that
//! fails names the kernels that ran without a stand-in, the usual cause).
//!
//! - A failure that **reached the program as an error** (a test returning `Err`, a `main`
//!   returning `Err`) is what a correct program does; so is a failure **absorbed** (a failed
//!   free in a `Drop`, which custack records for [`take_drop_errors`](crate::take_drop_errors)).
//! - A **panic** counts against the program, and the report shows its `panicked at FILE:LINE`
//!   line and message: return errors (`fn test() -> Result<…>` and `?`) rather than `unwrap`
//!   them, or the runner reports each failed call as a panic.
//! - A **leak** is a handle alive at exit; an **orphan** is one left for its context's
//!   destruction to release. Each is named with the call that made it
//!   (`DeviceMemory 0x7f0000600000 from call 20 cuMemAlloc_v2`), which points at the code. Both
//!   count where call k failed once, except when call k was itself the free or destroy (the
//!   driver keeps that handle); after a sticky fault every free fails and destroying the context
//!   is the clean-up, so they are not judged there.
//! - What custack leaves behind **on purpose** is not counted: where the driver cannot say that
//!   work is over (a failed wait or enqueue, a failed graph update, a module whose kernels may
//!   still run, a parked value whose context cannot be pushed), custack leaks the memory rather
//!   than free it under the GPU, and names each handle it leaves to the checking driver (nothing
//!   is sent on a real driver). The report lists those as `left-behind`; every other handle left
//!   is yours, whatever call failed.
//!
//! Reproduce one schedule by hand, with the program's output and the driver's report:
//! `custack-check --fail-at 7 <binary> [args]` (or `--sticky-at 7`); it is judged as the table
//! judges that schedule.
//!
//! After a sticky error the checking driver ends no work the program enqueued: on a GPU, a
//! fault in one context does not stop another context's kernels and copies, and no call can
//! say when they end. Freeing memory that such work uses (or unloading a module whose kernels
//! it runs) is a violation from then on, even where the free is itself answered with the sticky
//! error: custack leaks it instead ([`fail_stop`](crate::fail_stop) is the way out).
//!
//! # A driver that keeps answering an error
//!
//! A driver may answer every query with the same error that is not sticky (an unknown error, an
//! invalid value), for ever. A wait that takes such an answer for "not yet" must still end by its
//! deadline, not spin. `NULLDRIVER_REPEAT_AT=k` (below) makes every call from k on answer so,
//! except the context's stack and destruction, as after a sticky fault: the error is
//! `NULLDRIVER_FAIL_CODE`, or the call's typical one (`CUDA_ERROR_INVALID_VALUE` for a query,
//! `CUDA_ERROR_UNKNOWN` for a synchronize, whose typical code is sticky). Run a program whose
//! waits have deadlines under it for each k with a time limit (`timeout 60`): every run must end,
//! with an error or in custack's safe state, whose one line then names the deadline that passed.
//! custack's own programs run so in `scripts/check-driver.sh`.
//!
//! # A lost device
//!
//! A GPU that falls off the bus is not a sticky fault of custack's list: the driver answers
//! every call with an error from then on, and the work pending at the loss never reports its
//! end. `NULLDRIVER_LOST_AT=k` (below) answers every call from k on, but the context's stack
//! and destruction, `CUDA_ERROR_DEVICE_UNAVAILABLE`
//! ([`ErrorKind::DeviceUnavailable`](crate::ErrorKind::DeviceUnavailable), not sticky, so the
//! process is not poisoned), and from then on a release of memory (or of a module) that work
//! pending at the loss uses is a violation however the release is answered: nothing shows that
//! the device stopped using it. Every run must end, with an error or in custack's safe state,
//! without a panic and without such a release; `scripts/check-driver.sh` runs it in rotation
//! with the sticky and repeat schedules.
//!
//! # Hangs: does every wait end by its deadline?
//!
//! A kernel that never finishes (a deadlock, a peer that never arrives) is the failure a fault
//! schedule cannot show. `custack-check --hangs <binary> [args]` (also with `--cargo`) runs the
//! hang schedules instead: the clean run's report lists the call numbers of its asynchronous
//! enqueues (launches, host functions, graph launches, asynchronous copies and memsets,
//! stream-ordered allocations and frees), and one run per enqueue makes that enqueue never
//! complete (`NULLDRIVER_HANG_AT=k`), with everything after it on its stream, every event
//! recorded after it, and every stream or context made to wait for such an event.
//! `cuStreamQuery` and `cuEventQuery` answer `CUDA_ERROR_NOT_READY` for it forever. Each run ends
//! in one of three ways:
//!
//! - The program **exits by itself**: a wait with a deadline ended (the work it handed back and
//!   then left behind on purpose is named to the checking driver, so it is no leak), or it
//!   never waited for that work. It is judged as any schedule: no violation, no leak, no panic.
//! - It **blocked in a wait with no deadline**: `cuStreamSynchronize`, `cuEventSynchronize`,
//!   `cuCtxSynchronize` or a synchronous copy to or from the host on hung work; or, once the
//!   hang began, it made no progress (no driver call but queries that find hung work) for
//!   `--hang-idle` seconds (default 10): a poll loop with no deadline, a future whose host
//!   function never runs. In a real process that wait never returns; the checking driver writes
//!   its report with a line `hung <call>` (or `hung idle: ...`) and ends the process with exit
//!   status 86. A program with deadlines keeps them under that limit in a hang run. The table counts these runs ("blocked in a wait
//!   with no deadline"): a documented outcome, not a failure, unless `--strict-hangs` says that
//!   every wait of the program has a deadline, or the run had a violation.
//! - **Anything else** fails: a panic, a signal, a violation (memory freed while the hung work
//!   uses it is one), a leak.
//!
//! `--hang-sample N` hangs N evenly spaced enqueues of a program with more; `custack-check
//! --hang-at K <binary> [args]` runs one hang schedule with the program's output and the
//! report. A test harness ends at the first test that blocks, so the tests after it do not run
//! in that schedule: give a test filter to hang every enqueue of one test.
//!
//! # What only a result check finds
//!
//! A program that swallows an error (`let _ = stream.synchronize();`, an `if let Ok(..)` that
//! goes on without the result) leaks nothing and returns `Ok`: every schedule looks absorbed.
//! The checking driver finds it only where the test checks the result: give the kernel a
//! stand-in (below) and assert the output. A failed launch then leaves the output unwritten, the
//! assertion fails, and the runner reports the schedule as a panic at the assertion's line.
//!
//! # Without the runner: one variable
//!
//! custack emits no rpath, so the loader takes `libcuda.so.1` from `LD_LIBRARY_PATH` first.
//! `custack-check --lib-dir` prints a directory holding the checking driver as `libcuda.so` and
//! `libcuda.so.1`:
//!
//! ```text
//! LD_LIBRARY_PATH=$(custack-check --lib-dir) NULLDRIVER_CHECK=1 cargo test
//! ```
//!
//! runs your whole test suite once on it, and prints its report (violations, leaks) to stderr at
//! the end of each test binary (`NULLDRIVER_REPORT=FILE` writes it to a file instead;
//! `NULLDRIVER_FAIL_AT=k` and `NULLDRIVER_STICKY_AT=k` fail call k, as the runner does,
//! `NULLDRIVER_REPEAT_AT=k` answers every call from k on with the same error that is not sticky,
//! for ever (`NULLDRIVER_FAIL_CODE=n` chooses it; by default the call's typical code),
//! `NULLDRIVER_LOST_AT=k` loses the device at call k (`CUDA_ERROR_DEVICE_UNAVAILABLE` for ever,
//! its pending work never completing), and
//! `NULLDRIVER_HANG_AT=k` makes the first asynchronous enqueue from call k on never complete). Where
//! no libcuda is installed at all, custack's build finds none and links none; set
//! `CUDA_DRIVER_LIB_DIR` to the same directory for the build, so that custack links the
//! checking one.
//!
//! ## Which driver the checking driver reports
//!
//! By default it reports driver **12.2** (`cuDriverGetVersion` answers 12020), the oldest custack
//! links against, so that custack takes the paths a 535 driver takes: the entry points newer
//! than 12.2 are not found by `cuGetProcAddress` and their wrappers return
//! [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld). `NULLDRIVER_DRIVER_VERSION=n`
//! (or, from the program, the checking driver's `custackCheckdriverSetDriverVersion`) reports
//! another; each newer entry point is found from the version that brought it:
//!
//! | to test | set at least |
//! | --- | --- |
//! | conditional IF and WHILE nodes, capture into a graph (`GraphBuilder::capture`), kernel names | `12030` |
//! | green contexts, kernels' parameter info (`cuFuncGetParamInfo`), `cuFuncLoad` | `12040` |
//! | green contexts' streams, `cuCtxRecordEvent` (a bounded `PushedGuard::synchronize_by`, the restricted profile's `RunPhase::synchronize`) | `12050` |
//! | IF with ELSE and SWITCH nodes | `12080` |
//! | the driver's log callback (`cuLogsRegisterCallback`) | `12090` |
//!
//! ```text
//! NULLDRIVER_DRIVER_VERSION=12080 LD_LIBRARY_PATH=$(custack-check --lib-dir) NULLDRIVER_CHECK=1 cargo test
//! ```
//!
//! # Programs that are not custack's
//!
//! The checking driver is a libcuda, so any program that loads `libcuda.so.1` runs on it
//! unchanged: a C or C++ program linked against libcuda, a crate that links it, a crate that
//! loads it at run time with `dlopen` (the runner puts the checking driver first on
//! `LD_LIBRARY_PATH`, so that load finds it too). The stand-in hook is a C entry point of the
//! checking driver (`custackCheckdriverSetStandIn`, found through `cuGetProcAddress`; its
//! arguments are documented in `checkdriver/src/standin.rs`), so such a program can register
//! one as well; without one, its kernels compute nothing and only its driver calls are checked.
//!
//! Many such programs make a context current and leave it so (the primary context bound to the
//! thread with `cuCtxSetCurrent`, as a crate that binds a context per call does): every schedule
//! would report a context left on a thread's stack. `--context-stays-current` says that is by
//! design; everything else is judged as before, leaks included:
//!
//! ```text
//! cc -o keeps_context keeps_context.c -L$(custack-check --lib-dir) -lcuda
//! custack-check --context-stays-current ./keeps_context leaky
//! ```
//!
//! `checkdriver/tests/c/keeps_context.c` in the repository is such a program (declarations of its
//! own, no `cuda.h`); its leaky mode loses an allocation when `cuEventCreate` fails, which the
//! runner finds:
//!
//! ```text
//! failing schedules (reproduce one: custack-check --fail-at K ./keeps_context leaky):
//!   fail-at 6      cuEventCreate                    exit 1 (error), 1 leak(s)
//!       leak: DeviceMemory 0x7f0000000000 from call 5 cuMemAlloc_v2 of context 0x…
//!       | cuEventCreate failed with 2
//! custack-check: FAILED (1 of 17 schedules failing)
//! ```
//!
//! For a Rust crate that is not custack, build its tests as usual and name each test binary
//! (`custack-check --context-stays-current target/debug/deps/pipeline-… --include-ignored`);
//! `--cargo` sets `CUDA_DRIVER_LIB_DIR`, which only custack's build reads, so for other crates it
//! checks whatever libcuda their build and the loader find.
//!
//! # CUDA libraries: cuSOLVER's, cuSPARSE's, cuDNN's, cuBLAS's, cuBLASLt's and NCCL's stand-ins
//!
//! A crate built with the `cusolver`, `cusparse`, `cudnn` or `cublas` feature needs that library
//! to load, and a real one needs a GPU. The checking driver's build (the first line above) also
//! builds a stand-in for each, `libcusolver.so`, `libcusparse.so`, `libcudnn.so` and
//! `libcublas.so` with the real sonames, which the runner puts beside the checking libcuda (also
//! as `libcusolver.so.12` and `.so.11`, `libcusparse.so.12`, `libcudnn.so.9`, `libcublas.so.12`
//! and `.so.13`) and which `--cargo` links in place of the libraries
//! (`CUSTACK_CUSOLVER_LIB_DIR`, `CUSTACK_CUSPARSE_LIB_DIR`, `CUSTACK_CUDNN_LIB_DIR`,
//! `CUSTACK_CUBLAS_LIB_DIR`).
//! Your plans then run under every schedule: the stand-ins' handles are the checking driver's,
//! which reports a handle destroyed twice or used after its destruction, one used under another
//! context, a stream given to it that is destroyed or of another context, and a handle destroyed
//! while that stream may still run work; a handle (or a cuSPARSE or cuDNN descriptor) left alive
//! is a leak or an orphan as any other, and a cuDNN descriptor set or queried after its
//! destruction is reported too. Their calls are counted and failed as driver calls
//! (`fail-at 12  cusolverDnCreate`). They compute nothing: the workspace queries answer a small
//! size, so that a plan can be made (cuDNN's stand-in also answers a convolution's output shape,
//! by cuDNN's formula, and one algorithm; cuBLAS's accepts the handle's pointer mode and
//! workspace), and every computation returns `ErrorKind::CusolverNotSupported`,
//! `ErrorKind::CusparseNotSupported`, `ErrorKind::CudnnNotSupported` or
//! `ErrorKind::CublasNotSupported`, which a test under the checking driver expects (on a GPU the
//! same test checks the results):
//!
//! ```no_run
//! # #[cfg(feature = "cusolver")]
//! # fn main() -> Result<(), custack::Error> {
//! use custack::solver::Matrix;
//! use custack::{Context, ContextFlags, Driver, ErrorKind, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let lu = guard.lu_plan::<f32>(Matrix::square(4))?; // cusolverDnCreate
//! let mut a = guard.alloc_zeroed::<f32>(16)?;
//! let mut ipiv = guard.lu_pivots(Matrix::square(4))?;
//! let mut info = guard.solver_info()?;
//! let stream = guard.stream()?;
//! // cusolverDnSetStream, then getrf: the stand-in refuses the computation.
//! match stream.scope(|s| lu.getrf(s, s.bind_mut(&mut a), &mut s.bind_pivots(&mut ipiv), &mut info))? {
//!     Err(e) if e.kind() == ErrorKind::CusolverNotSupported => {} // the checking driver
//!     r => r?,                                                    // a GPU: check `a`
//! }
//! lu.destroy()?; // cusolverDnDestroy
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "cusolver"))]
//! # fn main() {}
//! ```
//!
//! cuBLASLt (`cublaslt`: `libcublasLt.so`, also as `.so.12` and `.so.13`,
//! `CUSTACK_CUBLASLT_LIB_DIR`) has a stand-in of the same kind. NCCL (`nccl`: `libnccl.so`, also
//! as `libnccl.so.2`, `CUSTACK_NCCL_LIB_DIR`) has one that models a single process: unique ids,
//! communicators of one or more ranks in one process (the checking driver has one device, so
//! they share it, which a real NCCL refuses), groups, and collectives (`ncclAllReduce`,
//! `ncclReduce`, `ncclBroadcast`, `ncclReduceScatter`, `ncclAllGather`) that are work on their
//! stream the checking driver sees: a buffer freed while one may still run is reported, and that
//! work does not complete until every rank of the clique took part (a group with a rank missing
//! never completes, as NCCL's kernels wait for it) or the communicator is aborted. It moves no
//! data, and `ncclSend`, `ncclRecv`, `ncclCommSplit` and `ncclCommInitAll` answer
//! `ncclInvalidUsage`.
//!
//! # Kernels: CPU stand-ins
//!
//! Under the checking driver a kernel does nothing, so a test that checks its output fails. Give
//! the kernel a stand-in: a closure registered by kernel name with [`StandIn::register`], which
//! each launch calls at once with a [`KernelCall`]: the launch's grid and block, its arguments
//! ([`KernelCall::arg`]; a device pointer is a `u64`) and device memory, read and written by copy
//! ([`KernelCall::read`], [`KernelCall::write`]). The arguments' sizes come from the module's
//! PTX signature, so the module must be loaded from PTX text (or, where only cubins load, from
//! a stand-in cubin: below). On a real driver registering does
//! nothing and the real kernel runs: the same test checks the GPU's results there. Registering
//! is `unsafe`: under the checking driver the stand-in is the kernel, so it promises what the
//! kernel's launches rely on, that it touches only the memory each launch passes it.
//!
//! ```no_run
//! use custack::{Context, ContextFlags, Driver, KernelCall, LaunchConfig, Stack, StandIn};
//!
//! # const PTX: &str = "";
//! fn vector_add_matches_the_cpu() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//!     let driver = Driver::init()?;
//!     // vector_add(const float* a, const float* b, float* c, unsigned n)
//!     let vector_add = |k: &KernelCall<'_>| {
//!         let n = k.arg::<u32>(3)? as usize;
//!         let (a, b) = (k.read::<f32>(k.arg(0)?, n)?, k.read::<f32>(k.arg(1)?, n)?);
//!         let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
//!         k.write(k.arg(2)?, &c)?;
//!         Ok(())
//!     };
//!     // SAFETY: as the kernel, it reads n floats of `a` and `b` and writes n of `c` only.
//!     let _on_cpu = unsafe { StandIn::register(&driver, "vector_add", vector_add) }?;
//!     let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let module = guard.load_ptx(PTX)?;
//!     let f = module.function("vector_add")?;
//!     let (a, b) = (vec![1.0f32; 256], vec![2.0f32; 256]);
//!     let (mut da, mut db) = (guard.alloc_from(&a)?, guard.alloc_from(&b)?);
//!     let mut dc = guard.alloc::<f32>(256)?;
//!     let mut c = vec![0.0f32; 256];
//!     let stream = guard.stream()?;
//!     stream.scope(|s| -> custack::Result<()> {
//!         let (da, db, mut dc) = (s.bind_mut(&mut da), s.bind_mut(&mut db), s.bind_mut(&mut dc));
//!         // SAFETY: vector_add reads 256 floats of `da` and `db` and writes 256 of `dc`.
//!         unsafe { s.launch(&f, LaunchConfig::for_elements(256), (&da, &db, &mut dc, 256u32))? };
//!         s.copy_to_host(&mut c, &dc)
//!     })??;
//!     assert_eq!(c, vec![3.0; 256]);
//!     Ok(())
//! }
//! ```
//!
//! A stand-in runs on the launching thread, after the work enqueued before it (the checking
//! driver runs each stream's work at once, in issue order); a launch captured into a graph runs
//! its stand-in at each launch of the graph. A stand-in that returns an error or panics fails
//! the launch (`CUDA_ERROR_LAUNCH_FAILED`) and is reported as a violation; a read or write past
//! the end of an allocation is refused and reported too. The runner's table names every kernel
//! that ran without a stand-in (`kernel vector_add ran 1 time(s) without a stand-in`).
//!
//! ## Stand-in cubins
//!
//! A program under the restricted profile ([`Profile`]) loads cubins only
//! ([`InitPhase::load_cubin`]), and a cubin's symbol table names its kernels but not their
//! parameters: under the checking driver, such a program's kernels find their modules, but a
//! stand-in cannot read their arguments. Give the test a **stand-in cubin** instead of the one
//! nvcc wrote: a cubin whose kernels have no code and which carries their PTX declarations in a
//! section `.custack.ptx`, which the checking driver reads as it reads a module's PTX. The
//! profile's checks pass it; a real driver cannot run it, so load it only where the stand-ins
//! are active ([`StandIn::is_active`]) and the real cubin elsewhere.
//!
//! `stand_in_cubin` in the repository's `checkdriver/src/cubin.rs` builds one from the kernels'
//! names and declarations (their signature lines, from the PTX that `nvcc -ptx` writes). It is
//! one file with no dependencies and no tests of its own (they live in the checking driver's
//! crate, `checkdriver/src/tests/cubin.rs`): compile it into your test with `#[path]`, which
//! brings only the builder (a dependency on the checking driver's package would link the
//! checking libcuda's entry points into the test itself). `benches/checking` does so for example 22's kernels (its programs `safety_frame`
//! and `fork`, which the test command runs under the checking driver, so the file and its use
//! there are compiled and run on every test run). The sketch below is not a doc test: the
//! published crate does not ship `checkdriver/`.
//!
//! ```ignore
//! // The path from this file to a checkout of custack.
//! #[path = "../../checkdriver/src/cubin.rs"]
//! mod cubin;
//!
//! use custack::safety::{Budget, Profile, RestrictedContext};
//! use custack::{KernelCall, Stack, StandIn};
//!
//! // scale(float* data, float factor, unsigned n): data[i] *= factor for i < n.
//! const DECLARATIONS: &str = ".version 7.0\n.target sm_90\n.address_size 64\n\
//!     .visible .entry scale(.param .u64 data, .param .f32 factor, .param .u32 n) { ret; }\n";
//!
//! fn scale_on_the_restricted_profile() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//!     let profile = Profile::init(1)?;
//!     let scale = |k: &KernelCall<'_>| {
//!         let (data, factor, n) = (k.arg::<u64>(0)?, k.arg::<f32>(1)?, k.arg::<u32>(2)?);
//!         let v: Vec<f32> = k.read::<f32>(data, n as usize)?.iter().map(|x| x * factor).collect();
//!         k.write(data, &v)?;
//!         Ok(())
//!     };
//!     // SAFETY: as the kernel, it reads and writes n floats of `data` only.
//!     let on_cpu = unsafe { StandIn::register(&profile.driver(), "scale", scale) }?;
//!     let image = if on_cpu.is_active() {
//!         cubin::stand_in_cubin(&["scale"], &[], DECLARATIONS)
//!     } else {
//!         std::fs::read("kernels/scale.cubin")?
//!     };
//!     let budget = Budget::new().modules(1); // what the init phase makes, stated up front
//!     let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
//!     let mut stack = Stack::new()?;
//!     let mut guard = ctx.push(&mut stack)?;
//!     {
//!         let init = guard.init()?;
//!         // SAFETY: a complete cubin, nvcc's or the stand-in one; `scale` (or its stand-in)
//!         // touches n floats of the buffer passed as `data` only.
//!         let _module = unsafe { init.load_cubin(&image) }?;
//!         // ... its kernels, memory and launches, as on a GPU; then `init.seal()`.
//!     }
//!     guard.shutdown()?;
//!     ctx.destroy()?;
//!     Ok(())
//! }
//! ```
//!
//! Declare every kernel the program looks up: the checking driver answers from the
//! declarations, as for a module loaded from PTX, and refuses any other name.
//!
//! # What the checking driver does not model
//!
//! Kernels without a stand-in compute nothing; 2D and 3D copies, peer copies, IPC and virtual
//! memory management move no bytes; textures sample nothing; timing (events report a fixed
//! time); more than one device; conditions: a stand-in cannot set a conditional node's
//! condition (`cudaGraphSetConditional` is device code), so the checking driver runs every body
//! of a conditional node once per launch of its graph, whatever the condition (a WHILE node's
//! body once, both bodies of an IF/ELSE node), which checks what the bodies touch and when, not
//! how often a loop turns. The stand-ins of cuSOLVER, cuSPARSE, cuDNN, cuBLAS and cuBLASLt compute
//! nothing and answer no version, and their work is never pending on a stream; NCCL's moves no
//! data (its collectives are pending on their streams), models no device and no other process,
//! and does not model `ncclSend`, `ncclRecv`, `ncclCommSplit` or `ncclCommInitAll`. A CUDA
//! user object's destructor (a graph's host closure is owned by one) runs at once when its last
//! reference goes, where the real driver runs it later on a thread of its own, with no call that
//! waits for it: a test that counts such drops after a graph is destroyed waits for them.
//! How the checking driver's answers differ from a real driver's, call by call, is measured by
//! the differential run (`docs/validation.md` in the repository).
//! Its fault schedules follow the driver's calls, so a test whose call sequence depends on
//! timing or thread scheduling must run its tests one at a time (the runner does).
//!
//! # An example
//!
//! `examples/checked-app/` in the repository is a small crate that depends on custack by path,
//! as yours would, with three bugs of the kinds that hide on error paths, each beside its fix
//! (`scripts/checked-app.sh` runs `custack-check --cargo` on each and checks what it reports; the
//! fixed twins pass every schedule):
//!
//! 1. A forget on an upload error: `Operands::new_leaky` hands a first device buffer to "a C
//!    library" (`into_raw`) before allocating the second, so a failure of the second allocation
//!    leaks the first. No ordinary test finds it, since the allocation never fails on a test
//!    machine:
//!
//!    ```text
//!    failing schedules (reproduce one: custack-check --fail-at K …/operands-… --include-ignored --exact leaky_operands_add_vectors):
//!      fail-at 10     cuMemAlloc_v2                    exit 101 (error), 1 leak(s)
//!          orphan: DeviceMemory 0x7f0000000000 from call 8 cuMemAlloc_v2 still alive when context 0x10000040 was destroyed
//!      fail-at 11     cuMemcpyHtoD_v2                  exit 101 (error), 1 leak(s)
//!          orphan: DeviceMemory 0x7f0000000000 from call 8 cuMemAlloc_v2 still alive when context 0x10000040 was destroyed
//!    custack-check: FAILED (2 of 51 schedules failing)
//!    ```
//!
//!    Call 10 is the second allocation, call 11 the copy into it: each returns early and leaves
//!    the buffer of call 8 to the context's destruction.
//! 2. A swallowed error: `add_swallowing` drops the stream scope's result (`let _ =`), so a
//!    failed launch or copy returns whatever the output holds. Nothing leaks; only the test's
//!    result check (a stand-in computes the sums) finds it:
//!
//!    ```text
//!      fail-at 15     cuLaunchKernel                   exit 101 (PANIC)
//!          | thread 'swallowing_add_vectors' (14583) panicked at tests/operands.rs:58:5:
//!          | wrong sums: [0.0, 0.0, 0.0, 0.0]
//!    ```
//! 3. A forget on a failed wait, where a kernel's fault surfaces: `add_in_halves` submits two
//!    halves on two streams as owned submissions and waits for each; with `forget_on_failure`,
//!    when the first wait fails it `mem::forget`s the second half. custack leaks the failed
//!    half's payload on purpose (the GPU may still use it) and says so; the forgotten half's
//!    buffers and event are the program's:
//!
//!    ```text
//!      fail-at 29     cuEventSynchronize               exit 101 (error), 4 leak(s)
//!          orphan: Event 0x100001c0 from call 25 cuEventCreate still alive when context 0x10000040 was destroyed
//!          orphan: DeviceMemory 0x7f0000800000 from call 22 cuMemAlloc_v2 still alive when context 0x10000040 was destroyed
//!          orphan: DeviceMemory 0x7f0000600000 from call 20 cuMemAlloc_v2 still alive when context 0x10000040 was destroyed
//!          orphan: DeviceMemory 0x7f0000a00000 from call 24 cuMemAlloc_v2 still alive when context 0x10000040 was destroyed
//!    ```
//!
//! [`StandIn::register`]: crate::StandIn::register
//! [`StandIn::is_active`]: crate::StandIn::is_active
//! [`Profile`]: crate::safety::Profile
//! [`InitPhase::load_cubin`]: crate::safety::InitPhase::load_cubin
//! [`KernelCall`]: crate::KernelCall
//! [`KernelCall::arg`]: crate::KernelCall::arg
//! [`KernelCall::read`]: crate::KernelCall::read
//! [`KernelCall::write`]: crate::KernelCall::write
