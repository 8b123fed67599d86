//! cuRAND under the guard (cargo feature `curand`): a [`Rng`] lent by a [`PushedGuard`],
//! seeded and offset explicitly, filling device memory bound to a [`StreamScope`], every length
//! checked before anything is enqueued; and a [`HostRng`], which needs no context and
//! fills host memory on the CPU.
//!
//! # The generator
//!
//! [`PushedGuard::rng`] creates a pseudo-random generator ([`Pseudo`]: XORWOW, MRG32k3a,
//! MTGP32, MT19937, Philox) with its seed; [`PushedGuard::quasi_rng`] a quasi-random one
//! ([`Quasi`]: Sobol' and scrambled Sobol', 32 or 64 bits) with its dimensions, and no seed.
//! Both use `curandCreateGenerator`, so the numbers are made on the device, into device memory,
//! and set the offset to 0 explicitly where the kind has one ([`Rng::set_offset`]
//! changes it; the two Mersenne Twisters have none). Nothing is left to cuRAND's defaults but
//! the ordering of results, cuRAND's default for each kind until
//! [`Rng::set_ordering`] sets another [`Ordering`]; one the kind does not take (a
//! quasi-random ordering for a pseudo-random generator, `PseudoSeeded` but for XORWOW,
//! `PseudoDynamic` for MT19937, …: the table is on [`Ordering`]) is refused before cuRAND is
//! called.
//!
//! [`Rng<'g>`](Rng) borrows the guard, like the streams and buffers it lends, so the
//! compiler refuses (C25) a generator used after its guard popped, while another context is
//! pushed on top, or on another thread (`!Send`, `!Sync`). It is destroyed when dropped (errors
//! recorded, see [`take_drop_errors`](crate::take_drop_errors)) or by
//! [`Rng::destroy`].
//!
//! # Fills
//!
//! Each fill takes the [`StreamScope`] to enqueue on and an exclusive binding of device memory
//! (`s.bind_mut(&mut out)`, `&mut alloc`), and writes every element of it (bind a view to fill
//! part of a buffer): [`uniform`](Rng::uniform) in (0, 1], [`normal`](Rng::normal),
//! [`log_normal`](Rng::log_normal) (of `f32` or `f64`), [`poisson`](Rng::poisson)
//! and [`bits`](Rng::bits) (of `u32`), [`bits64`](Rng::bits64) (of `u64`, 64-bit
//! Sobol' only). A read-only binding cannot be passed: that fails to compile. The memory stays
//! borrowed until the scope has waited for its stream.
//!
//! Before anything is enqueued, the length and the parameters are checked, so that cuRAND is
//! never given what it would refuse: XORWOW and MRG32k3a make normal and log-normal values in
//! pairs (the Box–Muller transform), so their length must be even (measured on cuRAND 10.4,
//! which refuses an odd length from these two only; see [`Kind::normals_in_pairs`]); a
//! quasi-random
//! generator makes whole points, so every length must be a multiple of its dimensions; a
//! distribution's mean must be finite, its standard deviation a finite number ≥ 0, Poisson's
//! `lambda` a finite number > 0. A refused call is [`ErrorKind::InvalidValue`] naming the call
//! and the argument (`curandGenerateNormal: n 1001 is odd; this generator makes normal values
//! in pairs; nothing was enqueued`). cuRAND's own statuses are the `Curand…` kinds
//! ([`ErrorKind::CurandLengthNotMultiple`], …), whose detail names the call; none is sticky.
//!
//! # State and streams
//!
//! The generator's state lives on the device, and every call reads and advances it. So the
//! calls of one generator run one after another on the GPU, whatever streams they are on, as
//! cuBLAS's do (`custack::blas`): calls on one stream are ordered by the stream (no extra driver
//! call, and the generator's stream is set only when it changes, `curandSetStream`); a call on
//! another stream first waits, on the GPU, for all work enqueued so far in the context. A
//! generator may be used in a [`Submission`](crate::Submission) too, and dropped while its work
//! is pending: dropping it synchronizes the context (if it made any call) before destroying
//! it. Calls inside a graph capture are refused.
//!
//! cuRAND's host API is thread safe for different generators on different threads, which is
//! all custack allows (a generator is `!Send` and `!Sync`), but not with MT19937 generators
//! (its Host API Overview, Thread Safety). So every cuRAND call custack makes for a generator
//! (creation, seed, offset, stream, fill, destruction) takes one process-wide lock: an MT19937
//! generator's call alone, the other kinds' calls shared with each other (an uncontended read
//! of a lock, tens of nanoseconds).
//!
//! # The host generator
//!
//! [`HostRng::pseudo`] and [`HostRng::quasi`] (`curandCreateGeneratorHost`) make a
//! generator whose values the CPU computes into host memory: each fill takes a `&mut [T]` and
//! has written every element when it returns. It needs no guard and no context (none is made
//! current or activated by its calls, measured on an H100), so it is no borrow of anything; it
//! takes the same kinds, settings ([`set_seed`](HostRng::set_seed),
//! [`set_offset`](HostRng::set_offset), [`set_ordering`](HostRng::set_ordering),
//! but no `PseudoDynamic`, and no `PseudoBest` for MT19937) and fills, refused by the same
//! checks (`…; nothing was written`), and its cuRAND calls take the same MT19937 lock. It is
//! destroyed when dropped (errors recorded) or by [`HostRng::destroy`]; there is nothing
//! to wait for. Each cuRAND call takes `&mut self`, so no two threads use one generator at
//! once, which is all cuRAND's thread safety asks besides the MT19937 lock: it is `Send` and
//! `Sync`.
//!
//! For the same kind, seed, offset and ordering it makes the device generator's sequence
//! (cuRAND's Host API Overview): the same bits and uniform values; normal and log-normal values
//! may differ slightly, the CPU's transcendental functions not being the GPU's. On a machine
//! without a GPU (a driver with no device) it ran with cuRAND 10.3.3 for every kind but
//! MT19937, whose fills answered `CURAND_STATUS_INTERNAL_ERROR` there; with a GPU, MT19937 ran
//! too. A host generator's calls do not go through the poison check (R20): they compute on the
//! CPU.
//!
//! ```no_run
//! use custack::rand::{HostRng, Pseudo};
//!
//! let mut rng = HostRng::pseudo(Pseudo::Philox4x32_10, 2026)?;
//! let mut x = vec![0.0_f32; 1 << 16];
//! rng.normal(&mut x, 2.0, 0.5)?;
//! let mean = x.iter().map(|&v| f64::from(v)).sum::<f64>() / x.len() as f64;
//! assert!((mean - 2.0).abs() < 0.05);
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # Without cuRAND
//!
//! With the feature on but no cuRAND found at build time (`build.rs` warns), the crate still
//! builds and [`PushedGuard::rng`] (and [`HostRng::pseudo`]) returns
//! [`ErrorKind::LibraryNotLinked`] saying what to set:
//! `CUSTACK_CURAND_LIB_DIR` (the directory holding `libcurand.so.10`), or install the
//! `nvidia-curand` Python wheel or the CUDA toolkit.
//!
//! # Examples
//!
//! A million normal values of mean 2 and standard deviation 0.5, their mean checked on the host:
//!
//! ```no_run
//! use custack::rand::Pseudo;
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let rng = guard.rng(Pseudo::Philox4x32_10, 2026)?;
//! let mut x = guard.alloc::<f32>(1 << 20)?;
//! guard
//!     .stream()?
//!     .scope(|s| rng.normal(s, s.bind_mut(&mut x), 2.0, 0.5))??;
//! let host = x.to_vec()?;
//! let mean = host.iter().map(|&v| f64::from(v)).sum::<f64>() / host.len() as f64;
//! assert!((mean - 2.0).abs() < 0.01);
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/curand/>

// The files, bottom to top: each uses only files listed before it.
// - `status`: cuRAND's statuses as results;
// - `kind`: what a generator is (`Pseudo`, `Quasi`, `Kind`) and what each kind can do;
// - `check`: the checks every call makes before it enqueues anything;
// - `generator`: `Rng`, its creation, seed, offset, call order (`enqueue`) and
//   destruction;
// - `fill`: the fills and the element types they take (`Real`);
// - `host`: `HostRng`, made and filled on the CPU, with the settings and checks above.
mod check;
mod fill;
mod generator;
mod host;
mod kind;
mod status;

pub use fill::Real;
pub use generator::{Rng, version};
pub use host::HostRng;
pub use kind::{Kind, Ordering, Pseudo, Quasi};

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::context::stack::PushedGuard;
#[cfg(doc)]
use crate::error::ErrorKind;
