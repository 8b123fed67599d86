//! Contexts, the per-thread stack, and guards.
//!
//! # The driver's model
//!
//! A CUDA *context* holds everything a process has on one device: memory, loaded modules,
//! streams, events. The driver keeps, for each OS thread, a stack of contexts, and almost every
//! call (allocate, copy, load a module, create a stream, launch) acts on the context on top of
//! the calling thread's stack, the *current* context. A handle made in one context is meant
//! to be used only while that context is current. In C nothing checks this.
//!
//! # custack's model
//!
//! | value | made by | what it is | threads |
//! | --- | --- | --- | --- |
//! | [`Driver`] | [`Driver::init`] (`cuInit`) | proof that the driver is initialized; the only way to a [`Device`] | `Copy`, `Send + Sync` |
//! | [`Device`] | [`Driver::device`] (`cuDeviceGet`) | a device ordinal with its queries ([`Device::name`], [`Device::attribute`], …) | `Copy`, `Send + Sync` |
//! | [`Context`] | [`Context::new`] (`cuCtxCreate`, destroyed on drop) or [`Context::primary`] (`cuDevicePrimaryCtxRetain`, released on drop) | an owned context, *floating*: current on no thread | `Send + Sync` |
//! | [`Stack`] | [`Stack::new`] | this thread's stack token; a second one on the same thread is [`ErrorKind::StackAlreadyTaken`] | `!Send`, `!Sync` |
//! | [`PushedGuard`] | [`Stack::push`] (`cuCtxPushCurrent`) | a context current on this thread; pops it on drop (`cuCtxPopCurrent`) | `!Send`, `!Sync` |
//!
//! Everything that needs its context current is *lent* by the guard, with the lifetime of a
//! borrow of the guard: streams ([`PushedGuard::stream`]), events, modules and their functions
//! ([`PushedGuard::load_ptx`]), device memory ([`PushedGuard::alloc`]), page-locked host
//! memory ([`PushedGuard::alloc_pinned`]), and the context's own queries
//! ([`PushedGuard::synchronize`], [`PushedGuard::memory_info`], …).
//!
//! ```no_run
//! use custack::prelude::*; // DeviceMemory, DeviceMemoryMut, StackTop
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let driver = Driver::init()?;                               // cuInit
//!     let device = driver.device(0)?;                             // cuDeviceGet
//!     let ctx = Context::new(device, ContextFlags::empty())?;     // cuCtxCreate, then popped
//!     let mut stack = Stack::new()?;                              // this thread's stack
//!     let guard = stack.push(&ctx)?;                              // cuCtxPushCurrent
//!
//!     let mut buf = guard.alloc::<u32>(1024)?;                    // cuMemAlloc, lent by `guard`
//!     buf.copy_from_host(&[7; 1024])?;                            // cuMemcpyHtoD
//!     assert_eq!(buf.to_vec()?, vec![7; 1024]);                   // cuMemcpyDtoH
//!     println!("{} of {} bytes free", guard.memory_info()?.0, guard.memory_info()?.1);
//!     Ok(())
//! } // buf (cuMemFree), guard (cuCtxPopCurrent), stack, ctx (cuCtxDestroy): reverse order
//! ```
//!
//! The types are the size of the raw handles (a guard is one `CUcontext`), and a method makes
//! the driver call it names: the borrows prove the context is current, so custack checks
//! nothing at run time for it.
//!
//! # The rules, as the borrow checker sees them
//!
//! | rule | because | row |
//! | --- | --- | --- |
//! | A lent handle cannot be used after its guard is dropped or popped, nor returned or stored beyond it. | it borrows the guard | C1, C2 |
//! | A thread has one top-level guard at a time; to push another context on top, use [`with_pushed`](crate::StackTop::with_pushed). | [`Stack::push`] takes `&mut Stack` | C3 |
//! | Inside `with_pushed`, the outer guard and everything it lent are unusable. | `with_pushed` takes `&mut` of the outer guard, and lent handles borrow it | C3, C4 |
//! | A `Context` cannot be dropped, destroyed, moved or [reset](crate::Context::reset) while a guard of it lives, on any thread. | guards borrow it; `reset` takes `&mut self` | C5 |
//! | A guard, its handles and the `Stack` stay on their thread. | they are `!Send` and `!Sync` | C6, C7, C8 |
//!
//! The catalogue in the repository's `docs/invariants.md` lists all rows, each with its trybuild
//! tests in `ui-tests/`
//! (which pin the compiler's message) and a positive twin in `tests/patterns.rs`.
//!
//! # What fails to compile
//!
//! A buffer used after its guard is dropped (C1, `ui-tests/c1_use_after_pop_buffer.rs`): the
//! buffer borrows the guard, so the guard cannot be moved into `drop` while the buffer is
//! still used (`E0505`).
//!
//! ```compile_fail,E0505
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let buffer = guard.alloc::<u32>(16)?;
//!     drop(guard); // error[E0505]: cannot move out of `guard` because it is borrowed
//!     let _ = buffer.to_vec()?;
//!     Ok(())
//! }
//! ```
//!
//! The same program with the last use before the pop compiles:
//!
//! ```no_run
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     let buffer = guard.alloc::<u32>(16)?;
//!     let _ = buffer.to_vec()?;
//!     drop(buffer);
//!     drop(guard);
//!     Ok(())
//! }
//! ```
//!
//! The outer guard used while another context is pushed on top of it (C3,
//! `ui-tests/c3_outer_guard_used_while_inner_live.rs`): `with_pushed` borrows `guard_a`
//! mutably for the whole closure, so the closure cannot also use it (`E0502`). In C this is the
//! classic bug: a call meant for context A runs in context B.
//!
//! ```compile_fail,E0502
//! use custack::{Context, ContextFlags, Driver, Stack, StackTop};
//!
//! fn main() -> custack::Result<()> {
//!     let device = Driver::init()?.device(0)?;
//!     let a = Context::new(device, ContextFlags::empty())?;
//!     let b = Context::new(device, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let mut guard_a = stack.push(&a)?;
//!     guard_a.with_pushed(&b, |_guard_b| {
//!         guard_a.synchronize() // error[E0502]: `guard_a` is borrowed mutably by `with_pushed`
//!     })??;
//!     Ok(())
//! }
//! ```
//!
//! A guard sent to another thread (C6, `ui-tests/c6_guard_not_send.rs`): the stack is per
//! thread, so a guard is `!Send` (`E0277`).
//!
//! ```compile_fail,E0277
//! use custack::{Context, ContextFlags, Driver, Stack};
//!
//! fn main() -> custack::Result<()> {
//!     let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let guard = stack.push(&ctx)?;
//!     std::thread::scope(|s| {
//!         s.spawn(move || guard.synchronize()); // error[E0277]: cannot be sent between threads
//!     });
//!     Ok(())
//! }
//! ```
//!
//! What *is* shared between threads is the [`Context`]: each thread takes its own [`Stack`] and
//! pushes it (see [`parking`](super::parking#one-context-many-threads)).
//!
//! # Nesting: `with_pushed`
//!
//! [`StackTop::with_pushed`] pushes another context, runs a closure with its guard, and pops it,
//! also when the closure panics. It is the only way to nest, because a closure cannot be leaked:
//! the outer guard can never be used again while the inner context is still on top. It is
//! implemented by [`Stack`] too, so a function that needs "some context of mine current,
//! whatever the caller has" takes `&mut impl StackTop`
//! (see [`parking`](super::parking#a-library-with-its-own-context)).
//!
//! ```no_run
//! use custack::{Context, ContextFlags, Driver, Stack, StackTop};
//!
//! fn main() -> custack::Result<()> {
//!     let device = Driver::init()?.device(0)?;
//!     let a = Context::new(device, ContextFlags::empty())?;
//!     let b = Context::new(device, ContextFlags::empty())?;
//!     let mut stack = Stack::new()?;
//!     let mut guard_a = stack.push(&a)?;
//!     let (free_b, _) = guard_a.with_pushed(&b, |guard_b| guard_b.memory_info())??;
//!     guard_a.synchronize()?; // A is on top again
//!     # let _ = free_b;
//!     Ok(())
//! }
//! ```
//!
//! `with_pushed` returns `Result<R>`: the outer `Result` is the push's or the pop's, `R` is
//! the closure's value, often a `Result` itself, hence the `??`.
//!
//! # Leaks are sound
//!
//! `mem::forget` of a top-level guard is allowed and harmless: it lent nothing that is still
//! alive (lent handles borrow it), and its context simply stays on the thread's stack beneath
//! whatever is pushed later (R9). An inner guard cannot be leaked: it lives inside its
//! `with_pushed` closure, which pops it.
//!
//! # Popping, explicitly
//!
//! Dropping a guard pops its context; a failure is recorded for
//! [`take_drop_errors`](crate::take_drop_errors) rather than panicking. [`PushedGuard::pop`]
//! returns it instead. custack pops only its own context: if foreign code left another
//! context on top, `pop` puts that one back and returns [`ErrorKind::ForeignContextOnTop`]
//! (R3). Every owned handle has such a consuming, fallible twin of its drop:
//! [`Context::destroy`], [`DeviceBuffer::free`](crate::DeviceBuffer::free),
//! [`Module::unload`](crate::Module::unload), [`Stream::destroy`](crate::Stream::destroy), ….
//!
//! After a nested push ([`StackTop::with_pushed`](crate::StackTop::with_pushed)) or a parked
//! value's release, a pop the driver fails is retried once while the pushed context is still
//! on top, and custack then reads back the context that must be on top again; where the driver
//! cannot confirm it, the process takes the safe state ([`fail_stop`](crate::fail_stop))
//! rather than hand back a guard whose handles would reach another context. Neither pushes a
//! context over itself: where it is current already, nothing is pushed or popped. A top-level
//! guard whose pop fails leaves its context on the stack, as a leaked guard does
//! (docs/failure-analysis.md, STACK-1 to STACK-6).
//!
//! # Primary contexts
//!
//! [`Context::primary`] retains the device's primary context, the one the CUDA runtime API
//! (and so cuBLAS, cuDNN, …) uses. custack hands out one `Context` value per device for it
//! ([`ErrorKind::PrimaryContextInUse`] for a second), which is what makes
//! [`Context::reset`] sound: it takes `&mut self`, so no guard, buffer or stream of the context
//! can be alive.
//!
//! # Raw handles
//!
//! Handles have `as_raw` (memory: `device_ptr`), and [`ffi`](crate::ffi) declares the
//! driver functions, for calls custack does not wrap. A raw call made through a guard's
//! context must leave the thread's stack as it found it.
//!
//! [`Driver`]: crate::Driver
//! [`Driver::init`]: crate::Driver::init
//! [`Driver::device`]: crate::Driver::device
//! [`Device`]: crate::Device
//! [`Device::name`]: crate::Device::name
//! [`Device::attribute`]: crate::Device::attribute
//! [`Context`]: crate::Context
//! [`Context::new`]: crate::Context::new
//! [`Context::primary`]: crate::Context::primary
//! [`Context::reset`]: crate::Context::reset
//! [`Context::destroy`]: crate::Context::destroy
//! [`Stack`]: crate::Stack
//! [`Stack::new`]: crate::Stack::new
//! [`Stack::push`]: crate::Stack::push
//! [`StackTop::with_pushed`]: crate::StackTop::with_pushed
//! [`PushedGuard`]: crate::PushedGuard
//! [`PushedGuard::pop`]: crate::PushedGuard::pop
//! [`PushedGuard::stream`]: crate::PushedGuard::stream
//! [`PushedGuard::load_ptx`]: crate::PushedGuard::load_ptx
//! [`PushedGuard::alloc`]: crate::PushedGuard::alloc
//! [`PushedGuard::alloc_pinned`]: crate::PushedGuard::alloc_pinned
//! [`PushedGuard::synchronize`]: crate::PushedGuard::synchronize
//! [`PushedGuard::memory_info`]: crate::PushedGuard::memory_info
//! [`ErrorKind::StackAlreadyTaken`]: crate::ErrorKind::StackAlreadyTaken
//! [`ErrorKind::ForeignContextOnTop`]: crate::ErrorKind::ForeignContextOnTop
//! [`ErrorKind::PrimaryContextInUse`]: crate::ErrorKind::PrimaryContextInUse
