//! The cuFFT plan, [`FftPlan`]: its making by a guard ([`PushedGuard::fft_plan`]) with a work area
//! of its own, its executions on a scope's bound memory, the order they run in, and its
//! destruction.

use crate::asynchronous::library_handle::{LibraryHandle, RawHandle};
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::fft::check::{self, PLAN, Params};
use crate::fft::shape::Fft;
use crate::fft::status::status;
use crate::fft::types::{C2c, C2r, Direction, Precision, R2c, Transform};
use crate::memory::DeviceMemory;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::version::LibraryVersion;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

/// A cuFFT plan of the guard's context for transforms of kind `T` ([`C2c`], [`R2c`] or [`C2r`]
/// of `f32` or `f64`); see the [module docs](crate::fft).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while another
/// context is pushed on top (C25); `!Send` and `!Sync`, as custack's guards are per thread.
#[doc(alias = "cufftHandle")]
pub struct FftPlan<'g, T: Transform> {
    /// The plan, the work area cuFFT's kernels use (given to the plan, `cufftSetWorkArea`)
    /// and the order of its executions, which never overlap on the GPU (they share the work
    /// area); released in the one sound sequence (`LibraryHandle::release`). The wait comes
    /// first: destroying frees what cuFFT allocated for the plan, which a pending execution
    /// still reads, and cuFFT documents no wait of its own.
    core: LibraryHandle<'g, RawPlan>,
    params: Params,
    // Borrowed from the guard; the plan is of the guard's context, current on this thread only:
    // `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const (), T)>,
}

static_assertions::assert_not_impl_any!(FftPlan<'static, C2c<f32>>: Send, Sync);

impl<T: Transform> core::fmt::Debug for FftPlan<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FftPlan")
            .field("raw", &self.core.raw())
            .field("params", &self.params)
            .field("work_bytes", &self.core.memory_bytes())
            .finish_non_exhaustive()
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cufftMakePlanMany64`—Makes a plan of this guard's context for `shape`'s transforms of
    /// kind `T`, with a work area of its own (allocated here, as cuFFT asks for it:
    /// `cufftSetAutoAllocation(0)`, `cufftSetWorkArea`).
    ///
    /// # Errors
    ///
    /// Before cuFFT is called: [`ErrorKind::InvalidValue`] for a rank other than 1 to 3, a size
    /// or batch of 0, a layout whose storage sizes are too small, a stride of 0, or an output
    /// layout that lets two batches write one element; [`ErrorKind::SizeOverflow`]. Then
    /// [`ErrorKind::LibraryNotLinked`] if custack was built without cuFFT; cuFFT's result
    /// (`CufftInvalidSize`, `CufftAllocFailed`, …); `CUDA_ERROR_OUT_OF_MEMORY` for the work
    /// area; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::fft::{C2c, Fft};
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// // 100 transforms of 4096 complex points.
    /// let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[4096]).batch(100))?;
    /// println!("cuFFT {}, {} bytes of work area", custack::fft::version()?, plan.work_bytes());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftmakeplanmany64>
    #[doc(alias = "cufftCreate")]
    #[doc(alias = "cufftMakePlanMany64")]
    #[doc(alias = "cufftSetWorkArea")]
    pub fn fft_plan<T: Transform>(&self, shape: &Fft) -> Result<FftPlan<'_, T>> {
        crate::error::poison::check()?;
        let params = check::params(T::SIDES, shape)?;
        not_linked()?;
        let core = LibraryHandle::create(self, 0, || {
            let mut raw: ffi::cufft::cufftHandle = 0;
            // SAFETY: `cufftCreate` writes a handle through a valid out-pointer (a live local).
            status("cufftCreate", unsafe {
                ffi::cufft::cufftCreate(&raw mut raw)
            })?;
            Ok(RawPlan(raw))
        })?;
        let raw = core.raw().map_or(0, |r| r.0);
        // From here the plan destroys the handle when dropped, also on the errors below.
        let mut plan = FftPlan {
            core,
            params,
            _guard: PhantomData,
        };
        // SAFETY: a live handle, not made into a plan yet (as the call requires).
        status("cufftSetAutoAllocation", unsafe {
            ffi::cufft::cufftSetAutoAllocation(raw, 0)
        })?;
        let (mut n, mut inembed, mut onembed) = (params.n, params.inembed, params.onembed);
        let mut work_bytes = 0usize;
        // SAFETY: `cufftMakePlanMany64` reads `rank` values of each array and writes the work
        // size through a valid out-pointer:
        // - the three arrays are live locals of 3 values, `rank` ≤ 3 (checked);
        // - every size, stride and distance was checked and converted (`check::params`);
        // - `T::TYPE` is one of the plan types `cufft.h` defines;
        // - this guard's context is current, so cuFFT makes the plan in it.
        status(PLAN, unsafe {
            ffi::cufft::cufftMakePlanMany64(
                raw,
                params.rank,
                n.as_mut_ptr(),
                inembed.as_mut_ptr(),
                params.istride,
                params.idist,
                onembed.as_mut_ptr(),
                params.ostride,
                params.odist,
                T::TYPE,
                params.batch,
                &raw mut work_bytes,
            )
        })?;
        if work_bytes > 0 {
            let work = self.alloc::<u8>(work_bytes)?;
            // SAFETY: `cufftSetWorkArea` needs device memory of the plan's context of the size
            // the plan asked for, alive and used by nothing else while executions may run:
            // - `work` is a `cuMemAlloc` allocation of this guard's context of `work_bytes`;
            // - the plan owns it and frees it only once no execution can run (`release`), and
            //   its executions never overlap (`order`).
            status("cufftSetWorkArea", unsafe {
                ffi::cufft::cufftSetWorkArea(raw, work.device_ptr() as usize as *mut c_void)
            })?;
            plan.core.own_memory(work);
        }
        Ok(plan)
    }
}

/// A live cuFFT plan, destroyed by `cufftDestroy`.
#[derive(Clone, Copy, Debug)]
struct RawPlan(ffi::cufft::cufftHandle);

impl RawHandle for RawPlan {
    unsafe fn destroy(self) -> Result<()> {
        // SAFETY: the caller's guarantee: a live plan of the current context, destroyed once,
        // no execution of it still running.
        status("cufftDestroy", unsafe { ffi::cufft::cufftDestroy(self.0) })
    }
}

/// `Err` in a build that found no cuFFT.
fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::CUFFT)
}

/// `cufftGetVersion`—The version of the cuFFT linked (e.g. 12.0.0, 11.0.8).
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without cuFFT; cuFFT's result.
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cufft/#cufftgetversion>
#[doc(alias = "cufftGetVersion")]
pub fn version() -> Result<LibraryVersion> {
    crate::error::confinement::full_api("fft::version")?;
    not_linked()?;
    let mut v: c_int = 0;
    // SAFETY: `cufftGetVersion` writes an int through a valid out-pointer (a live local).
    status("cufftGetVersion", unsafe {
        ffi::cufft::cufftGetVersion(&raw mut v)
    })?;
    Ok(LibraryVersion::from_code(v.unsigned_abs(), 1_000))
}

/// A device address as the pointer type cuFFT takes.
fn ptr<E>(p: ffi::CUdeviceptr) -> *mut E {
    p as usize as *mut E
}

impl<T: Transform> FftPlan<'_, T> {
    /// The bytes of the plan's work area (0 when cuFFT needs none).
    pub fn work_bytes(&self) -> usize {
        self.core.memory_bytes()
    }

    /// The elements of the input's type that one execution reads: what the input (or, in
    /// place, the one buffer) must hold at least.
    pub fn input_len(&self) -> usize {
        self.params.in_extent
    }

    /// The elements of the output's type that one execution writes.
    pub fn output_len(&self) -> usize {
        self.params.out_extent
    }

    /// The raw plan handle, for cuFFT functions this module does not wrap (`None` only while
    /// it is being destroyed). It stays owned by `self`. This module's executions set the
    /// plan's stream only when it differs from the previous execution's; asking for the raw
    /// handle makes the next one set it again. Never let a call through it overlap this plan's
    /// own executions (they share its work area).
    pub fn as_raw(&self) -> Option<ffi::cufft::cufftHandle> {
        self.core.order().forget_stream();
        self.core.raw().map(|r| r.0)
    }

    /// Runs one execution on the scope's stream after the checks, ordered after the plan's
    /// previous one (`CallOrder`): on the previous execution's stream nothing is set and no
    /// driver call is made; on another, the stream waits for everything before it and becomes
    /// the plan's (`cufftSetStream`).
    #[inline]
    fn enqueue(
        &self,
        s: &StreamScope<'_, '_>,
        f: impl FnOnce(ffi::cufft::cufftHandle) -> ffi::cufft::cufftResult,
    ) -> Result<()> {
        let Some(RawPlan(raw)) = self.core.raw() else {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("{}: the plan was destroyed; nothing was enqueued", T::EXEC),
            ));
        };
        self.core.order().enqueue(
            T::EXEC,
            s,
            |stream| {
                // SAFETY: `cufftSetStream` needs a live plan and a stream of its context:
                // - `raw` is live (released only by `destroy` or the drop, which take `self`);
                // - the stream is a scope's, live for the scope, of the current context, which
                //   is the plan's: it borrows the guard shared, so no other context can be
                //   pushed above it while it is reachable (push takes the guard mutably).
                status("cufftSetStream", unsafe {
                    ffi::cufft::cufftSetStream(raw, stream)
                })
            },
            || status(T::EXEC, f(raw)),
        )
    }

    /// An out-of-place execution of the raw call `f` on `input` and `output`, checked.
    fn out_of_place(
        &self,
        s: &StreamScope<'_, '_>,
        (input, in_len): (ffi::CUdeviceptr, usize),
        (output, out_len): (ffi::CUdeviceptr, usize),
        align: usize,
        f: impl FnOnce(ffi::cufft::cufftHandle) -> ffi::cufft::cufftResult,
    ) -> Result<()> {
        check::out_of_place(
            T::EXEC,
            &self.params,
            (input, in_len),
            (output, out_len),
            align,
        )?;
        self.enqueue(s, f)
    }

    /// An in-place execution of the raw call `f` on `data`, checked.
    fn in_place(
        &self,
        s: &StreamScope<'_, '_>,
        (data, len): (ffi::CUdeviceptr, usize),
        align: usize,
        f: impl FnOnce(ffi::cufft::cufftHandle) -> ffi::cufft::cufftResult,
    ) -> Result<()> {
        let sizes = (size_of::<T::Input>(), size_of::<T::Output>());
        check::in_place(T::EXEC, &self.params, (data, len), sizes, align)?;
        self.enqueue(s, f)
    }

    /// `cufftDestroy`—Waits until none of the plan's executions can still run, then destroys
    /// it and frees its work area, returning the first error.
    ///
    /// # Errors
    ///
    /// The error of the wait (the first error of the context's work, or a sticky error); if it
    /// fails without a sticky error, the plan and its work area are leaked rather than freed
    /// while the GPU may still use them. cuFFT's result; the work area's free.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftdestroy>
    #[doc(alias = "cufftDestroy")]
    pub fn destroy(mut self) -> Result<()> {
        self.core.release()
    }
}

impl<R: Precision> FftPlan<'_, C2c<R>> {
    /// `cufftExecC2C`/`cufftExecZ2Z`—Enqueues the plan's complex-to-complex transforms of
    /// `input` into `output`, in `direction` (an inverse transform is not normalized).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] naming the side shorter than
    /// the plan's extent ([`input_len`](Self::input_len), [`output_len`](Self::output_len));
    /// [`ErrorKind::InvalidValue`] for a plan made in place. cuFFT's result; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::fft::{C2c, Complex32, Direction, Fft};
    /// let plan = guard.fft_plan::<C2c<f32>>(&Fft::new(&[4]))?;
    /// let x = guard.alloc_from(&[Complex32::new(1.0, 0.0); 4])?;
    /// let mut y = guard.alloc_zeroed::<Complex32>(4)?;
    /// guard.stream()?.scope(|s| plan.run(s, s.bind(&x), s.bind_mut(&mut y), Direction::Forward))??;
    /// assert_eq!(y.to_vec()?[0], Complex32::new(4.0, 0.0)); // the sum
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2c-and-cufftexecz2z>
    #[doc(alias = "cufftExecC2C")]
    #[doc(alias = "cufftExecZ2Z")]
    pub fn run<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        input: impl ScopedRead<'scope, R::Complex>,
        output: impl ScopedWrite<'scope, R::Complex>,
        direction: Direction,
    ) -> Result<()> {
        let (i, o) = (input.raw_parts(), output.raw_parts());
        let align = align_of::<R::Complex>();
        self.out_of_place(s, i, o, align, |plan| {
            // SAFETY: cuFFT reads the input and writes the output in stream order:
            // - both hold the plan's extents and are aligned to the complex type (checked);
            // - both are device memory of this context bound to the scope (alive until its
            //   stream is synchronized); the output is an exclusive binding, so it aliases
            //   neither the input nor anything else the scope reaches;
            // - a complex-to-complex transform out of place leaves its input as it was;
            // - the plan is live, its stream is the scope's and its work area is set.
            unsafe { R::c2c(plan, ptr(i.0), ptr(o.0), direction.raw()) }
        })
    }

    /// `cufftExecC2C`/`cufftExecZ2Z`—Enqueues the transforms of a plan made
    /// [in place](crate::fft::Fft::in_place), overwriting `data`.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run), for a plan made out of place.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2c-and-cufftexecz2z>
    #[doc(alias = "cufftExecC2C")]
    #[doc(alias = "cufftExecZ2Z")]
    pub fn run_in_place<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        data: impl ScopedWrite<'scope, R::Complex>,
        direction: Direction,
    ) -> Result<()> {
        let d = data.raw_parts();
        self.in_place(s, d, align_of::<R::Complex>(), |plan| {
            // SAFETY: as in `run`, with one exclusive binding holding the extent as both
            // sides (checked), which cuFFT transforms in place.
            unsafe { R::c2c(plan, ptr(d.0), ptr(d.0), direction.raw()) }
        })
    }
}

impl<R: Precision> FftPlan<'_, R2c<R>> {
    /// `cufftExecR2C`/`cufftExecD2Z`—Enqueues the plan's real-to-complex (forward) transforms
    /// of `input` into `output`, which gets `n/2 + 1` complex values in the last dimension (the
    /// others follow from Hermitian symmetry).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] naming the side shorter than
    /// the plan's extent; [`ErrorKind::InvalidValue`] for an input not aligned to the complex
    /// type (a view starting at an odd element, cuFFT requires it) or a plan made in place.
    /// cuFFT's result; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecr2c-and-cufftexecd2z>
    #[doc(alias = "cufftExecR2C")]
    #[doc(alias = "cufftExecD2Z")]
    pub fn run<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        input: impl ScopedRead<'scope, R>,
        output: impl ScopedWrite<'scope, R::Complex>,
    ) -> Result<()> {
        let (i, o) = (input.raw_parts(), output.raw_parts());
        self.out_of_place(s, i, o, align_of::<R::Complex>(), |plan| {
            // SAFETY: as in `C2c::run`: both sides hold the plan's extents, aligned to the
            // complex type (checked); a real-to-complex transform out of place leaves its
            // input as it was.
            unsafe { R::r2c(plan, ptr(i.0), ptr(o.0)) }
        })
    }

    /// `cufftExecR2C`/`cufftExecD2Z`—Enqueues the transforms of a plan made
    /// [in place](crate::fft::Fft::in_place): `data` holds the real input padded to
    /// `2·(n/2 + 1)` in the last dimension, and the complex output replaces it.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run), for a plan made out of place.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecr2c-and-cufftexecd2z>
    #[doc(alias = "cufftExecR2C")]
    #[doc(alias = "cufftExecD2Z")]
    pub fn run_in_place<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        data: impl ScopedWrite<'scope, R>,
    ) -> Result<()> {
        let d = data.raw_parts();
        self.in_place(s, d, align_of::<R::Complex>(), |plan| {
            // SAFETY: as in `C2c::exec_in_place`: the binding holds the padded reals and, in
            // bytes, the complex output (checked), aligned to the complex type.
            unsafe { R::r2c(plan, ptr(d.0), ptr(d.0)) }
        })
    }
}

impl<R: Precision> FftPlan<'_, C2r<R>> {
    /// `cufftExecC2R`/`cufftExecZ2D`—Enqueues the plan's complex-to-real (inverse)
    /// transforms of `input` (`n/2 + 1` complex values in the last dimension) into `output`,
    /// not normalized.
    ///
    /// The input is an exclusive binding: cuFFT's documentation says that a complex-to-real
    /// transform may overwrite its input, out of place too, so its contents are undefined
    /// afterwards.
    ///
    /// # Errors
    ///
    /// As [`R2c::run`](FftPlan::run) (an output not aligned to the complex type, a plan made in
    /// place).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2r-and-cufftexecz2d>
    #[doc(alias = "cufftExecC2R")]
    #[doc(alias = "cufftExecZ2D")]
    pub fn run<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        input: impl ScopedWrite<'scope, R::Complex>,
        output: impl ScopedWrite<'scope, R>,
    ) -> Result<()> {
        let (i, o) = (input.raw_parts(), output.raw_parts());
        self.out_of_place(s, i, o, align_of::<R::Complex>(), |plan| {
            // SAFETY: as in `C2c::run`, both sides exclusive bindings (cuFFT may write the
            // input), holding the plan's extents, aligned to the complex type (checked).
            unsafe { R::c2r(plan, ptr(i.0), ptr(o.0)) }
        })
    }

    /// `cufftExecC2R`/`cufftExecZ2D`—Enqueues the transforms of a plan made
    /// [in place](crate::fft::Fft::in_place): `data` holds the complex input, and the real
    /// output (padded to `2·(n/2 + 1)` in the last dimension) replaces it.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run), for a plan made out of place.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cufft/#cufftexecc2r-and-cufftexecz2d>
    #[doc(alias = "cufftExecC2R")]
    #[doc(alias = "cufftExecZ2D")]
    pub fn run_in_place<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        data: impl ScopedWrite<'scope, R::Complex>,
    ) -> Result<()> {
        let d = data.raw_parts();
        self.in_place(s, d, align_of::<R::Complex>(), |plan| {
            // SAFETY: as in `C2c::exec_in_place`.
            unsafe { R::c2r(plan, ptr(d.0), ptr(d.0)) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::not_linked::assert_says_what_to_set;

    #[test]
    fn a_build_without_cufft_says_what_to_set() {
        // Both builds are checked: with cuFFT linked this must be `Ok`, without (the feature
        // on, no library found) an error naming the variable and the wheel.
        let (missing, env, wheel) = (
            cfg!(custack_no_cufft),
            "CUSTACK_CUFFT_LIB_DIR",
            "nvidia-cufft",
        );
        assert_says_what_to_set(not_linked(), missing, env, wheel);
    }
}
