//! Errors, sticky errors, errors from `Drop`, and what happens when the GPU faults.
//!
//! # One error type
//!
//! Every fallible call returns [`Result<T>`](crate::Result), whose [`Error`] keeps:
//!
//! - the raw `CUresult` ([`Error::code`]; `None` for custack's own errors), never mapped to a
//!   catch-all: a code newer than custack is kept as [`ErrorKind::Unlisted`];
//! - its [`ErrorKind`] ([`Error::kind`]): one variant per `CUresult` of CUDA 13.0
//!   (`OutOfMemory`, `IllegalAddress`, …) plus custack's own conditions
//!   (`StackAlreadyTaken`, `ContextMismatch`, `LengthMismatch`, `DriverTooOld`, …);
//! - a [`detail`](crate::Error::detail): the JIT error log of PTX that failed to load, the name that
//!   was not found, both lengths of a copy that disagreed, or, on drivers with error log
//!   management (12.9+), the driver's own message for the failed call.
//!
//! `Display` shows the driver's name and description (`cuGetErrorName`, `cuGetErrorString`),
//! the detail, whether the error is sticky, and a hint for errors that usually come from the
//! machine's setup. `Error` is `Send + Sync + 'static`, so `?` carries it into
//! `Box<dyn std::error::Error + Send + Sync>`. custack itself never panics on an error.
//!
//! ```no_run
//! use custack::{Context, ContextFlags, Driver, ErrorKind, Stack};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     match guard.alloc::<u8>(1 << 50) {
//!         Err(e) if e.kind() == ErrorKind::OutOfMemory => println!("too big: {e}"),
//!         other => drop(other?),
//!     }
//!     let again = guard.alloc::<u8>(1 << 20)?; // out of memory is not sticky (R4)
//!     # drop(again);
//!     Ok(())
//! }
//! ```
//!
//! ## In a library built on custack
//!
//! A crate that builds on custack can keep `custack::Result` as its own result type: it makes
//! errors of custack's kinds with [`Error::new`] (a kind and its detail) or
//! [`Error::from_kind`], replaces a detail with [`Error::with_detail`], and wraps a foreign
//! cause (an `std::io::Error`, a cuBLAS status of its own type) with [`Error::with_source`],
//! which [`source()`](std::error::Error::source) returns. Its callers match on
//! [`Error::kind`] as for custack's own errors, and the `Display` is the same:
//!
//! ```
//! use custack::{Error, ErrorKind};
//!
//! fn shapes(rows: usize, cols: usize, len: usize) -> custack::Result<()> {
//!     if rows * cols == len {
//!         Ok(())
//!     } else {
//!         Err(Error::new(ErrorKind::LengthMismatch, format!("{rows}x{cols} over {len} elements")))
//!     }
//! }
//! let e = shapes(3, 4, 10).unwrap_err();
//! assert_eq!(e.kind(), ErrorKind::LengthMismatch);
//! assert_eq!(e.to_string(), "two lengths that must be equal differ: 3x4 over 10 elements");
//! ```
//!
//! # Errors from earlier, asynchronous work
//!
//! Launches and asynchronous copies return before the GPU runs them. A fault in that work is
//! reported by whichever call on the context next notices it: the scope's synchronization,
//! a [`Submission::wait`](crate::Submission::wait), an event query, but also an unrelated
//! allocation or copy. So almost any call can return an error caused by earlier work.
//! Synchronize (the stream, an event, or [`PushedGuard::synchronize`](crate::PushedGuard::synchronize))
//! where you need to know which piece of work failed. A launch's own return value only covers
//! launching (a block larger than the device allows, too much shared memory); faults inside the
//! kernel surface at the end of the scope:
//!
//! ```text
//! stream.scope(|s| s.run(&f, config, args))??;
//!                  └─ launch errors (and contract refusals): Err from the inner `?`
//!                                             └─ faults while running: Err from the outer `?`
//! ```
//!
//! # Sticky errors: when a kernel faults
//!
//! A kernel that writes to an illegal address, traps, or executes an illegal instruction poisons
//! its context with a *sticky* error ([`Error::is_sticky`], [`ErrorKind::is_sticky`]; `Display`
//! says "sticky"). Then:
//!
//! 1. a submission's (or parked submission's) wait that sees the fault returns it, and leaks
//!    what the submission owns rather than hand it back; a **stream scope** whose end sees it
//!    does not return at all: it takes the process's safe state ([`fail_stop`]: one line on
//!    stderr, exit status [`FAIL_STOP_STATUS`]). A fault in one context does not stop another
//!    context's kernels and copies (measured on an H100: a download into page-locked memory
//!    landed 360 ms after its stream answered the error), so no sticky answer says that the
//!    scope's work is over, and its borrows cannot end;
//! 2. every later call on the context (synchronize, allocate, copy, create a stream) returns the
//!    same sticky error;
//! 3. dropping buffers, streams, modules, guards and the context never panics or aborts, and
//!    releases nothing: every free, unload and destroy is refused and recorded (next section),
//!    what it held leaked until the process ends;
//! 4. the process is done with CUDA. NVIDIA documents that "to continue using CUDA, the process
//!    must be terminated and relaunched", and driver 580 does exactly that: a new context, or a
//!    reset of the primary context, returns the same error.
//!
//! So recovery is a new process: `tests/gpu_faults.rs` runs each fault in a child process,
//! checks all of the above there, and carries on with a fresh context in the parent (R6).
//!
//! ```no_run
//! use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack, take_drop_errors};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     {
//!         let mut stack = Stack::new()?;
//!         let guard = stack.push(&ctx)?;
//!         let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
//!         let illegal_write = module.function("illegal_write")?; // writes through a bad pointer
//!         let stream = guard.stream()?;
//!         // A kernel that faults on purpose has no honest contract: the raw `unsafe` launch,
//!         // which stays for kernels one cannot describe. In a submission, whose wait returns
//!         // the fault (a scope would end the process there).
//!         let pending = stream.submit(illegal_write, |s, f| {
//!             // SAFETY: none; this kernel faults on purpose, which is what this example shows.
//!             unsafe { s.launch(&f, LaunchConfig::for_elements(1), ()) }
//!         })?;
//!         let fault = pending.wait().map(drop).unwrap_err();
//!         assert!(fault.is_sticky());
//!         assert!(guard.synchronize().unwrap_err().is_sticky()); // and every call after it
//!     } // stream, module, guard drop here: no panic; each release refused and recorded
//!     for e in take_drop_errors() {
//!         eprintln!("not released: {e}");
//!     }
//!     let _ = ctx.destroy(); // refused: the process should now end
//!     Ok(())
//! }
//! ```
//!
//! # The poisoned process
//!
//! custack does what the driver does (R20): the first sticky error it observes, on any thread,
//! poisons the whole process. It is recorded once ([`poisoned`] returns it), with its
//! [`Origin`] ([`Error::origin`]):
//!
//! - what observed it ([`Observer`]): the end of a stream scope, a submission's or a parked
//!   submission's wait, a launch, a synchronize, or any other driver call;
//! - the call site: your program's line, through `#[track_caller]` on the public entry points
//!   (the `stream.scope(...)` whose end saw the fault), or custack's line for a driver call made
//!   where the chain does not reach;
//! - the declared kernel ([`kernel_contract!`](crate::kernel_contract)) the observing thread
//!   launched last, where its last launch was one.
//!
//! `Display` says it on a line of its own:
//!
//! ```text
//! CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered (sticky: ...)
//!   first observed by the end of a stream scope at src/main.rs:40:17 (thread main), kernel `saxpy`
//! ```
//!
//! From then on every push (of a guard, or the brief push of a parked value), stream scope,
//! submission, launch, call of a CUDA library (cuBLAS, cuBLASLt, cuFFT, cuRAND, NCCL), wait and
//! synchronize returns that first error, a clone with its origin
//! whose detail says the call was not made, without going to the driver, where it could hang or
//! answer with a misleading error. A scope opened before still waits for its stream at its end:
//! only the driver's success says that the work using its borrows is over, and a sticky answer
//! takes the safe state. Other calls (an allocation) still go to the driver, which answers with
//! a sticky error: custack returns the first one instead. Nothing the GPU could still touch is
//! released: a poisoned wait leaks its payload, as a failed wait does, and every drop and every
//! explicit `free`, `destroy` or `unload` is refused and leaks (a pop still pops: it frees
//! nothing); no drop panics. The check costs one atomic load; a launch runs at the raw call's
//! speed.
//!
//! An error that is not sticky (out of memory, a refused launch) poisons nothing. If a later
//! driver let a faulted process make a new context, custack would still be poisoned: the
//! record is the process's.
//!
//! # Which launch failed
//!
//! The kernel the observing thread launched last is not always the one that faulted: work
//! queued behind the fault, or launched on other streams, comes later. After a sticky error
//! the driver cannot say which launch never finished (every event query answers with the
//! error, even for work complete before the fault). [`name_launches`]`(true)` records every
//! launch with its kernel and call site and follows it with a host function that marks it
//! complete, which the driver never calls after a fault; the origin then names the first
//! launch that never completed ([`Origin::unfinished_launch`]):
//!
//! ```text
//!   first observed by the end of a stream scope at src/main.rs:40:17 (thread main), kernel `scale`;
//!   the first launch that never completed: `saxpy` launched at src/main.rs:37:9
//! ```
//!
//! It costs a host function per launch (about 21 µs on the H100, against 4 µs for the launch:
//! the `overhead` benchmark's row `launch_named`), so it is for finding a faulting kernel, in a
//! test run or a system that can afford it, not for a loop that must run at raw speed. Off, it
//! costs one relaxed load per launch. Host functions are callbacks, outside NVIDIA's safety
//! subset.
//!
//! # Fail-stop, and the supervisor pattern
//!
//! A poisoned process can do nothing more with the GPU, so the program should end, saying why:
//! [`fail_stop`] prints one line on stderr, `custack: fail-stop (exit status 75): ` and the
//! error with its origin, and ends the process at once (`_exit`; within about a second from any
//! thread in any state, taking no lock: stdout is not flushed, so end your last `print!` with a
//! newline or flush it yourself first) with
//! [`FAIL_STOP_STATUS`] (75, `EX_TEMPFAIL`: "retry"). Nothing unwinds through CUDA state, and
//! ending the process is what ends the device's work and frees its memory. It is custack's one
//! safe state: a scope whose end sees a sticky error, and a bounded scope past its deadline with
//! [`Overrun::Exit`](crate::Overrun::Exit), end the process through it too, so a supervisor
//! reads one status and one line for "the GPU is unusable in this process".
//!
//! ```no_run
//! # fn run_job() -> custack::Result<()> { Ok(()) }
//! match run_job() {
//!     Ok(()) => {}
//!     Err(e) if e.is_sticky() => custack::fail_stop(&e), // a supervisor starts a new process
//!     Err(e) => {
//!         eprintln!("{e}");
//!         std::process::exit(1);
//!     }
//! }
//! ```
//!
//! Recovery is then a supervisor's job: a process that runs the GPU work in a worker process,
//! passes it its inputs, takes its results as they are finished, and on [`FAIL_STOP_STATUS`]
//! starts a new worker for what is left. `examples/21_supervisor.rs` is that pattern (the
//! supervisor re-runs its own executable as the worker, inputs on stdin, each finished result
//! on stdout, every wait for a worker bounded), and `tests/gpu_supervisor.rs` runs it on the GPU
//! with a kernel that faults on purpose.
//!
//! # Errors that `Drop` cannot return
//!
//! `Drop` never panics in custack: a panic in a destructor during unwinding aborts the process,
//! and after a sticky error every release call fails. When releasing a handle fails, the error
//! is recorded in a log that belongs to the thread the drop ran on. [`take_drop_errors`]
//! takes them, oldest first; the log keeps the latest 64, and [`dropped_error_count`] counts
//! those it discarded. To get such an error as a return value instead, call the handle's
//! consuming, fallible twin of drop: [`Context::destroy`](crate::Context::destroy),
//! [`PushedGuard::pop`](crate::PushedGuard::pop),
//! [`DeviceBuffer::free`](crate::DeviceBuffer::free),
//! [`Module::unload`](crate::Module::unload), [`Stream::destroy`](crate::Stream::destroy), ….
//!
//! A failed release never frees memory the GPU may still use: a submission whose wait fails
//! leaks its payload, and a scope whose synchronization fails without a sticky error polls the
//! stream, then synchronizes the context, and aborts the process if the driver can confirm
//! neither (see [`Stream::scope`](crate::Stream::scope)).
//!
//! # Panics in host functions
//!
//! A [host function](crate::StreamScope::host_fn) runs on a driver thread; a panic in it is
//! caught before it reaches C and reported, with its message, as
//! [`ErrorKind::HostFunctionPanicked`] by the next wait of that context (a scope's end,
//! `wait`, [`Stream::synchronize`](crate::Stream::synchronize)).
//!
//! # No device, no driver
//!
//! Without a GPU (or without the kernel driver), [`Driver::init`](crate::Driver::init) returns
//! `CUDA_ERROR_NO_DEVICE` with a hint; nothing else can be reached without a `Driver`. With a
//! toolkit stub library on the run-time path it returns `CUDA_ERROR_STUB_LIBRARY`, with a hint
//! to put the driver's `libcuda.so.1` first. A build that found no libcuda at all
//! (`cfg(custack_no_libcuda)`, see `build.rs`) links and runs, and every call returns
//! `CUDA_ERROR_NO_DEVICE` saying so, with what to do. With a driver library but no GPU,
//! [`driver_version`](crate::driver_version) still works. Entry points newer than driver 535 are looked up at run time; on an older
//! driver their use is [`ErrorKind::DriverTooOld`], and
//! [`newer_entry_points`](crate::newer_entry_points) says which ones this driver offers.
//!
//! [`Error`]: crate::Error
//! [`Error::code`]: crate::Error::code
//! [`Error::new`]: crate::Error::new
//! [`Error::from_kind`]: crate::Error::from_kind
//! [`Error::with_detail`]: crate::Error::with_detail
//! [`Error::with_source`]: crate::Error::with_source
//! [`Error::kind`]: crate::Error::kind
//! [`Error::is_sticky`]: crate::Error::is_sticky
//! [`ErrorKind`]: crate::ErrorKind
//! [`ErrorKind::Unlisted`]: crate::ErrorKind::Unlisted
//! [`ErrorKind::is_sticky`]: crate::ErrorKind::is_sticky
//! [`ErrorKind::HostFunctionPanicked`]: crate::ErrorKind::HostFunctionPanicked
//! [`ErrorKind::DriverTooOld`]: crate::ErrorKind::DriverTooOld
//! [`take_drop_errors`]: crate::take_drop_errors
//! [`dropped_error_count`]: crate::dropped_error_count
//! [`poisoned`]: crate::poisoned
//! [`name_launches`]: crate::name_launches
//! [`Origin::unfinished_launch`]: crate::Origin::unfinished_launch
//! [`Origin`]: crate::Origin
//! [`Observer`]: crate::Observer
//! [`Error::origin`]: crate::Error::origin
//! [`fail_stop`]: crate::fail_stop
//! [`FAIL_STOP_STATUS`]: crate::FAIL_STOP_STATUS
