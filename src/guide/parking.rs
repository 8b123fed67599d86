//! Handles that outlive a guard, and programs with several contexts or threads.
//!
//! Everything a guard lends borrows that guard, so it dies with it (see
//! [`stack`](super::stack)). That is the right default, and it is exactly what gets in the way
//! when one thread works with two contexts, or when a buffer must survive a pop. *Parking* is
//! the way out.
//!
//! # Park and attach
//!
//! [`PushedGuard::park`] turns a [`DeviceBuffer`] into a [`ParkedBuffer`] and
//! [`PushedGuard::park_module`] a [`Module`] into a [`ParkedModule`]. A parked handle borrows
//! only the [`Context`], not the guard, so it survives the guard's pop and nested pushes; it is
//! `Send` and `Sync`, and it offers no operation that needs its context current. To use it
//! again, attach it to a guard of its context: [`PushedGuard::attach`],
//! [`PushedGuard::attach_module`]. Attaching compares the context pointer and calls no driver
//! function; attaching to a guard of another context is [`ErrorKind::ContextMismatch`] (the
//! parked handle is then dropped, which frees it in its own context).
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let device = Driver::init()?.device(0)?;
//!     let (a, b) = (
//!         Context::new(device, ContextFlags::empty())?,
//!         Context::new(device, ContextFlags::empty())?,
//!     );
//!     let mut stack = Stack::new()?;
//!     let parked_a = {
//!         let guard = stack.push(&a)?;
//!         guard.park(guard.alloc_from(&[1u32; 4])?)
//!     }; // A popped; its buffer lives on, parked
//!     let parked_b = {
//!         let guard = stack.push(&b)?;
//!         guard.park(guard.alloc_from(&[2u32; 4])?)
//!     };
//!     let guard = stack.push(&a)?;
//!     assert_eq!(guard.attach(parked_a)?.to_vec()?, [1; 4]);
//!     drop(guard);
//!     let guard = stack.push(&b)?;
//!     assert_eq!(guard.attach(parked_b)?.to_vec()?, [2; 4]);
//!     Ok(())
//! }
//! ```
//!
//! Dropping a parked handle frees it: it pushes its context briefly on the dropping thread,
//! frees, and pops. A parked buffer cannot outlive its context (it borrows it, C5). Only
//! resources of a floating [`Context`] park: a [`GreenContext`](crate::GreenContext) may be
//! current on one thread at a time, and a parked handle may be dropped on any thread.
//!
//! A parked buffer is not device memory to a kernel or a copy (C15): nothing says its context
//! is current. Where the driver takes both contexts explicitly, it is usable as is: peer copies
//! ([`PushedGuard::copy_from_peer`], [`PushedGuard::copy_to_peer`], and in scopes
//! [`StreamScope::copy_from_peer`](crate::StreamScope::copy_from_peer), `cuMemcpyPeer`) take
//! the other side as a `ParkedBuffer`.
//!
//! # Two contexts on one thread
//!
//! With [`StackTop::with_pushed`] the outer guard is frozen while the inner context is on top,
//! so the outer context's handles are parked before, and attached after:
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let device = Driver::init()?.device(0)?;
//!     let (a, b) = (
//!         Context::new(device, ContextFlags::empty())?,
//!         Context::new(device, ContextFlags::empty())?,
//!     );
//!     let mut stack = Stack::new()?;
//!     let mut guard_a = stack.push(&a)?;
//!     let parked = guard_a.park(guard_a.alloc_from(&[1u32; 1024])?);
//!
//!     let from_b = guard_a.with_pushed(&b, |guard_b| guard_b.alloc_from(&[10u32; 1024])?.to_vec())??;
//!
//!     let mut buffer_a = guard_a.attach(parked)?; // A is on top again
//!     buffer_a.copy_from_host(&from_b)?;
//!     Ok(())
//! }
//! ```
//!
//! A thread that alternates between two contexts for a long time keeps each context's
//! long-lived buffers and modules parked, and pushes each context in turn
//! (`stack.with_pushed(&a, |g| …)`, attach, work, park again): pattern P8 in
//! `tests/patterns.rs`.
//!
//! Using an outer context's buffer inside the nested push does not compile (C4,
//! `ui-tests/c4_outer_buffer_used_inside_nested_push.rs`): the buffer borrows `guard_a`, which
//! `with_pushed` holds mutably (`E0502`).
//!
//! ```compile_fail,E0502
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let device = Driver::init()?.device(0)?;
//!     let (a, b) = (
//!         Context::new(device, ContextFlags::empty())?,
//!         Context::new(device, ContextFlags::empty())?,
//!     );
//!     let mut stack = Stack::new()?;
//!     let mut guard_a = stack.push(&a)?;
//!     let buffer_a = guard_a.alloc_from(&[1u32; 1024])?;
//!     guard_a.with_pushed(&b, |_guard_b| buffer_a.to_vec())??; // error[E0502]
//!     Ok(())
//! }
//! ```
//!
//! # Staging through page-locked memory
//!
//! Page-locked host memory is lent by a guard too ([`PushedGuard::alloc_pinned`]): the driver
//! frees it with its context. It crosses a nested push parked as well
//! ([`PushedGuard::park_pinned`], [`ParkedPinned`]; registered vectors:
//! [`PushedGuard::park_registered`]), but a parked page-locked buffer stays what it is to the
//! host, a slice, under any context, and every context's stream scopes copy from and to it
//! (it is allocated portable: page-locked for every context). That is how two contexts, or
//! two GPUs without peer access, hand data over through the host (P11 in
//! `tests/patterns.rs`):
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let driver = Driver::init()?;
//!     let a = Context::new(driver.device(0)?, ContextFlags::empty())?;
//!     let b = Context::new(driver.device(driver.device_count()? - 1)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let mut ga = stack.push(&a)?;
//!     let mut staging = ga.park_pinned(ga.alloc_pinned::<f32>(4096)?);
//!     ga.alloc_from(&vec![0.5f32; 4096])?.copy_to_host(&mut staging)?;
//!     let total = ga.with_pushed(&b, |gb| -> custack::Result<f32> {
//!         let stream = gb.stream()?;
//!         let mut dst = gb.alloc::<f32>(4096)?;
//!         // B's asynchronous copy borrows A's staging buffer until the scope has synchronized.
//!         stream.scope(|s| s.copy_to_device(s.bind_mut(&mut dst), &staging))??;
//!         Ok(dst.to_vec()?.iter().sum())
//!     })??;
//!     staging.fill(0.0); // the host's again
//!     assert_eq!(total, 2048.0);
//!     Ok(())
//! }
//! ```
//!
//! A parked page-locked buffer is not a [`Payload`](crate::Payload): a submission of another
//! context could be leaked (R11) and outlive the allocating context, whose destruction frees
//! the pages. Attach it to its own context's guard ([`PushedGuard::attach_pinned`]) to hand it
//! to a submission there.
//!
//! # One context, many threads
//!
//! A [`Context`] is `Send + Sync`: share it by reference ([`std::thread::scope`]) or in an
//! `Arc`, and let each thread take its own [`Stack`] and push it. A context may be current on
//! several threads at once; everything a guard lends stays on its thread (C6, C7).
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let sums = std::thread::scope(|t| {
//!         let workers: Vec<_> = (0..4u32)
//!             .map(|i| {
//!                 let ctx = &ctx;
//!                 t.spawn(move || -> custack::Result<u32> {
//!                     let mut stack = Stack::new()?; // one per thread
//!                     let guard = stack.push(ctx)?;
//!                     Ok(guard.alloc_from(&[i; 16])?.to_vec()?.iter().sum())
//!                 })
//!             })
//!             .collect();
//!         workers.into_iter().map(|w| w.join().unwrap()).collect::<custack::Result<Vec<_>>>()
//!     })?;
//!     assert_eq!(sums, [0, 16, 32, 48]);
//!     Ok(())
//! }
//! ```
//!
//! One thread per device is the same program with one context per device (P5). The context
//! cannot be dropped while any thread's guard of it is alive: the scoped threads borrow it
//! (C5).
//!
//! # A library with its own context
//!
//! A library type can own a floating [`Context`] and push it on each call, *whatever the caller
//! has current*, by taking the top of the caller's stack as `&mut impl StackTop`. The caller's
//! context (if any) is current again when the call returns, and the caller's handles are
//! frozen while the library runs (P6):
//!
//! ```no_run
//! use custack::prelude::*;
//! use custack::{Context, ContextFlags, Device, Driver, Stack};
//!
//! struct Doubler {
//!     ctx: Context,
//! }
//!
//! impl Doubler {
//!     fn new(device: Device) -> custack::Result<Self> {
//!         Ok(Self { ctx: Context::new(device, ContextFlags::empty())? })
//!     }
//!
//!     fn run(&self, top: &mut impl StackTop, input: &[u32]) -> custack::Result<Vec<u32>> {
//!         top.with_pushed(&self.ctx, |guard| {
//!             let doubled: Vec<u32> = input.iter().map(|x| 2 * x).collect();
//!             guard.alloc_from(&doubled)?.to_vec()
//!         })?
//!     }
//! }
//!
//! fn main() -> custack::Result<()> {
//!     let device = Driver::init()?.device(0)?;
//!     let doubler = Doubler::new(device)?;
//!     let mut stack = Stack::new()?;
//!     doubler.run(&mut stack, &[1, 2, 3])?;      // nothing current: the bare stack
//!     let mine = Context::new(device, ContextFlags::empty())?;
//!     let mut guard = stack.push(&mine)?;
//!     doubler.run(&mut guard, &[4, 5, 6])?;      // on top of the caller's context
//!     guard.synchronize()?;                      // the caller's context is current again
//!     Ok(())
//! }
//! ```
//!
//! Code loaded once for *every* context is a [`Library`](crate::Library)
//! (`cuLibraryLoadData`): owned, `Send + Sync` like a `Context`, its kernels turned into a
//! function per context by [`PushedGuard::library_function`](crate::PushedGuard::library_function).
//! A type that owns the library *and* its kernels in one struct holds a
//! [`SharedLibrary`](crate::SharedLibrary) and its [`SharedKernel`](crate::SharedKernel)s
//! (each keeps a share of the library loaded), and lends a kernel per call with
//! [`SharedKernel::kernel`](crate::SharedKernel::kernel); see the engine in `SharedLibrary`'s
//! docs.
//!
//! [`PushedGuard::park`]: crate::PushedGuard::park
//! [`PushedGuard::alloc_pinned`]: crate::PushedGuard::alloc_pinned
//! [`PushedGuard::park_pinned`]: crate::PushedGuard::park_pinned
//! [`PushedGuard::attach_pinned`]: crate::PushedGuard::attach_pinned
//! [`PushedGuard::park_registered`]: crate::PushedGuard::park_registered
//! [`ParkedPinned`]: crate::ParkedPinned
//! [`PushedGuard::park_module`]: crate::PushedGuard::park_module
//! [`PushedGuard::attach`]: crate::PushedGuard::attach
//! [`PushedGuard::attach_module`]: crate::PushedGuard::attach_module
//! [`PushedGuard::copy_from_peer`]: crate::PushedGuard::copy_from_peer
//! [`PushedGuard::copy_to_peer`]: crate::PushedGuard::copy_to_peer
//! [`DeviceBuffer`]: crate::DeviceBuffer
//! [`ParkedBuffer`]: crate::ParkedBuffer
//! [`Module`]: crate::Module
//! [`ParkedModule`]: crate::ParkedModule
//! [`Context`]: crate::Context
//! [`Stack`]: crate::Stack
//! [`StackTop::with_pushed`]: crate::StackTop::with_pushed
//! [`ErrorKind::ContextMismatch`]: crate::ErrorKind::ContextMismatch
