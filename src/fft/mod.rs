//! cuFFT under the guard (cargo feature `cufft`): a [`FftPlan`] made by a [`PushedGuard`] with a
//! work area of its own, executed on device memory bound to a [`StreamScope`], every size,
//! stride, distance and batch checked before anything is enqueued.
//!
//! # Plans
//!
//! [`PushedGuard::fft_plan`] makes a plan for the transforms an [`Fft`] describes: 1, 2 or 3
//! dimensions (the last varying fastest), a batch of them, each side contiguous or in an
//! advanced [`Layout`] (storage sizes, stride and distance, as cuFFT's `inembed`, `istride`,
//! `idist` are), out of place or [in place](Fft::in_place). Its type says what it transforms:
//! [`C2c<T>`] (complex to complex, in either [`Direction`]), [`R2c<T>`] (real to complex, the
//! forward transform, `n/2 + 1` complex values in the last dimension) or [`C2r<T>`] (complex
//! to real, the inverse), of `f32` ([`Complex32`]) or `f64` ([`Complex64`]), so an execution
//! takes exactly the element types it transforms. Inverse transforms are not normalized: a
//! forward then an inverse transform multiplies by the product of the sizes.
//!
//! [`FftPlan<'g, T>`](FftPlan) borrows the guard, like the streams and buffers it lends, so the
//! compiler refuses (C25) a plan used after its guard popped, while another context is pushed
//! on top, or on another thread (`!Send`, `!Sync`). It is destroyed when dropped (errors
//! recorded, see [`take_drop_errors`](crate::take_drop_errors)) or by [`FftPlan::destroy`].
//!
//! # Executions
//!
//! Each execution takes the [`StreamScope`] to enqueue on and device memory bound to it: the
//! input as [`ScopedRead`] (`s.bind(&x)`), the output as [`ScopedWrite`] (`s.bind_mut(&mut
//! y)`); in place, one [`ScopedWrite`]. A complex-to-real transform's input is a
//! [`ScopedWrite`] too: cuFFT's documentation says it may overwrite its input, so a read-only
//! binding there fails to compile, as it does for any output. The memory stays borrowed until
//! the scope has waited for its stream.
//!
//! **In place is chosen when the plan is made**, not at the call: make the plan with
//! [`Fft::in_place`] and execute it with [`run_in_place`](FftPlan#method.exec_in_place) (of a
//! `C2c`, `R2c` or `C2r` plan alike), which takes the one exclusive binding. Passing one buffer
//! as both the input and the output of `run` is a plain borrow error (`E0502`: *cannot borrow
//! `x` as mutable because it is also borrowed as immutable*), and an out-of-place plan given to
//! `run_in_place` (or the reverse) is [`ErrorKind::InvalidValue`] before anything is enqueued:
//!
//! ```no_run
//! use custack::fft::{C2c, Complex32, Direction, Fft};
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[4]).in_place())?;
//! let mut x = guard.alloc_from(&[Complex32::new(1.0, 0.0); 4])?;
//! guard.stream()?.scope(|s| plan.run_in_place(s, s.bind_mut(&mut x), Direction::Forward))??;
//! assert_eq!(x.to_vec()?[0], Complex32::new(4.0, 0.0)); // the sum, where the input was
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! [`Complex32`] and [`Complex64`] are [`DeviceCopy`](crate::DeviceCopy) (`#[repr(C)]`, CUDA's
//! `float2` and `double2`), so they are also element types of one's own kernels' buffers in a
//! [`kernel_contract!`](crate::kernel_contract) (`x: &mut [Complex32; n]`), and of copies.
//!
//! ```
//! use custack::fft::Complex32;
//!
//! custack::kernel_contract! {
//!     /// `scale(float2* x, float a, unsigned n)`: `x[i] *= a` for `i < n`.
//!     unsafe kernel ScaleComplex = "scale_complex"(x: &mut [Complex32; n], a: f32, n: u32);
//! }
//! ```
//!
//! What can be checked without the GPU is checked before cuFFT is called:
//!
//! - making the plan: the rank (1 to 3), every size and the batch (at least 1), each layout's
//!   storage sizes (at least the side's sizes: `n/2 + 1` in the last dimension of a complex side
//!   of a real transform), strides (at least 1) and distances, that everything fits cuFFT's
//!   `long long`, and that no two batches write one element of the output, nor of a
//!   complex-to-real transform's input, which cuFFT may overwrite (exactly for one dimension;
//!   for two and three the batches must lie outermost or innermost, which every layout of
//!   cuFFT's documentation does);
//! - each execution: that the bound buffers hold what the plan reaches ([`FftPlan::input_len`],
//!   [`FftPlan::output_len`]; in place, both sides in the one buffer, the real side padded to
//!   `2·(n/2 + 1)` in its last dimension), that both sides are aligned to the complex type (as
//!   cuFFT requires, also of a real side), and that the plan was made for this placement.
//!
//! A refused plan or execution is [`ErrorKind::InvalidValue`], [`ErrorKind::BufferTooShort`] or
//! [`ErrorKind::SizeOverflow`] naming the call and the argument (`cufftExecR2C: output holds 8
//! elements, the plan needs 9; nothing was enqueued`). cuFFT's own results are the `Cufft…`
//! kinds ([`ErrorKind::CufftInvalidSize`], …), whose detail names the call; none is sticky.
//!
//! # Work area and streams
//!
//! Each plan owns the work area its executions use: cuFFT says how much it needs when the plan
//! is made, custack allocates it on the guard (`cufftSetAutoAllocation(0)`,
//! `cufftSetWorkArea`), so executions allocate nothing and the memory is the guard's like any
//! other. Two executions using it at once would corrupt each other, so the executions of one
//! plan run one after another on the GPU, whatever streams they are on, as cuBLAS's calls do
//! (`custack::blas`): on one stream they are ordered by the stream (no extra driver call, and
//! the plan's stream is set only when it changes, `cufftSetStream`); on another stream, the
//! execution first waits, on the GPU, for all work enqueued so far in the context. A plan may
//! be used in a [`Submission`](crate::Submission) too, and dropped while its work is pending:
//! dropping it synchronizes the context (if it ran at all) before destroying it and freeing the
//! work area. Executions inside a graph capture are refused.
//!
//! # Without cuFFT
//!
//! With the feature on but no cuFFT found at build time (`build.rs` warns), the crate still
//! builds and [`PushedGuard::fft_plan`] returns [`ErrorKind::LibraryNotLinked`] saying what to
//! set: `CUSTACK_CUFFT_LIB_DIR` (the directory holding `libcufft.so.12` or `.11`), or install
//! the `nvidia-cufft` Python wheel or the CUDA toolkit.
//!
//! # Examples
//!
//! The spectrum of 8 real samples of a cosine of frequency 1, and back:
//!
//! ```no_run
//! use custack::fft::{C2r, Complex32, Fft, R2c};
//! use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
//!
//! let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let stream = guard.stream()?;
//! let n = 8;
//! let signal: Vec<f32> = (0..n)
//!     .map(|j| (2.0 * std::f32::consts::PI * j as f32 / n as f32).cos())
//!     .collect();
//! let forward = guard.fft_plan::<R2c<f32>>(&Fft::new(&[n]))?;
//! let inverse = guard.fft_plan::<C2r<f32>>(&Fft::new(&[n]))?;
//! let x = guard.alloc_from(&signal)?;
//! let mut spectrum = guard.alloc_zeroed::<Complex32>(n / 2 + 1)?;
//! let mut back = guard.alloc_zeroed::<f32>(n)?;
//! stream.scope(|s| -> custack::Result<()> {
//!     let mut bins = s.bind_mut(&mut spectrum);
//!     forward.run(s, s.bind(&x), &mut bins)?;
//!     // The inverse overwrites its input: it takes the bins exclusively, after the forward.
//!     inverse.run(s, &mut bins, s.bind_mut(&mut back))
//! })??;
//! let back = back.to_vec()?;
//! // Not normalized: n times the signal.
//! assert!(back.iter().zip(&signal).all(|(b, x)| (b / n as f32 - x).abs() < 1e-5));
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/cufft/>

// The files, bottom to top: each uses only files listed before it.
// - `status`: cuFFT's results as errors;
// - `types`: the complex element types, the precisions (`Precision`), the transforms (`C2c`,
//   `R2c`, `C2r`, `Transform`) and the `Direction`;
// - `shape`: the description of a plan (`Fft`, `Layout`);
// - `check`: a plan's parameters and extents, and the checks every execution makes;
// - `plan`: `FftPlan`, its making, executions, order and destruction.
mod check;
mod plan;
mod shape;
mod status;
mod types;

pub use plan::{FftPlan, version};
pub use shape::{Fft, Layout};
pub use types::{C2c, C2r, Complex32, Complex64, Direction, Precision, R2c, Transform};

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::context::stack::PushedGuard;
#[cfg(doc)]
use crate::error::ErrorKind;
#[cfg(doc)]
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
