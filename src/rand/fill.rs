//! The fills: [`Rng::uniform`], [`Rng::normal`], [`Rng::log_normal`],
//! [`Rng::poisson`], [`Rng::bits`] and [`Rng::bits64`], each writing every
//! element of an exclusive binding of its scope.

use crate::asynchronous::scope::StreamScope;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::rand::check::{self, Target, Values};
use crate::rand::generator::Rng;
use crate::vocabulary::binding::ScopedWrite;
use crate::vocabulary::plain::DeviceCopy;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types cuRAND fills with real values: `f32` and `f64`, each with its entry
/// points. Sealed.
pub trait Real: DeviceCopy + Into<f64> + sealed::Sealed {
    /// `curandGenerateUniform` or `curandGenerateUniformDouble`.
    #[doc(hidden)]
    const UNIFORM: &'static str;
    /// `curandGenerateNormal` or `curandGenerateNormalDouble`.
    #[doc(hidden)]
    const NORMAL: &'static str;
    /// `curandGenerateLogNormal` or `curandGenerateLogNormalDouble`.
    #[doc(hidden)]
    const LOG_NORMAL: &'static str;

    /// # Safety
    ///
    /// cuRAND's: a live generator; for a device generator, its stream set and `out` device
    /// memory of its context holding `n` elements that nothing else uses until the call's work
    /// is complete; for a host generator, `out` host memory holding `n` elements that nothing
    /// else uses during the call.
    #[doc(hidden)]
    unsafe fn uniform(
        g: ffi::curand::curandGenerator_t,
        out: *mut Self,
        n: usize,
    ) -> ffi::curand::curandStatus_t;

    /// # Safety
    ///
    /// As [`uniform`](Self::uniform).
    #[doc(hidden)]
    unsafe fn normal(
        g: ffi::curand::curandGenerator_t,
        out: *mut Self,
        n: usize,
        mean: Self,
        stddev: Self,
    ) -> ffi::curand::curandStatus_t;

    /// # Safety
    ///
    /// As [`uniform`](Self::uniform).
    #[doc(hidden)]
    unsafe fn log_normal(
        g: ffi::curand::curandGenerator_t,
        out: *mut Self,
        n: usize,
        mean: Self,
        stddev: Self,
    ) -> ffi::curand::curandStatus_t;
}

macro_rules! real {
    ($t:ty, $uniform:ident, $normal:ident, $log_normal:ident) => {
        impl Real for $t {
            const UNIFORM: &'static str = stringify!($uniform);
            const NORMAL: &'static str = stringify!($normal);
            const LOG_NORMAL: &'static str = stringify!($log_normal);
            #[inline]
            unsafe fn uniform(
                g: ffi::curand::curandGenerator_t,
                out: *mut Self,
                n: usize,
            ) -> ffi::curand::curandStatus_t {
                // SAFETY: the caller's.
                unsafe { ffi::curand::$uniform(g, out, n) }
            }
            #[inline]
            unsafe fn normal(
                g: ffi::curand::curandGenerator_t,
                out: *mut Self,
                n: usize,
                mean: Self,
                stddev: Self,
            ) -> ffi::curand::curandStatus_t {
                // SAFETY: the caller's.
                unsafe { ffi::curand::$normal(g, out, n, mean, stddev) }
            }
            #[inline]
            unsafe fn log_normal(
                g: ffi::curand::curandGenerator_t,
                out: *mut Self,
                n: usize,
                mean: Self,
                stddev: Self,
            ) -> ffi::curand::curandStatus_t {
                // SAFETY: the caller's.
                unsafe { ffi::curand::$log_normal(g, out, n, mean, stddev) }
            }
        }
    };
}
real!(
    f32,
    curandGenerateUniform,
    curandGenerateNormal,
    curandGenerateLogNormal
);
real!(
    f64,
    curandGenerateUniformDouble,
    curandGenerateNormalDouble,
    curandGenerateLogNormalDouble
);

/// The two fills of normally distributed values (`normal`, `log_normal`), which differ only in
/// the cuRAND function called.
#[derive(Clone, Copy)]
pub(super) enum NormalFill {
    Normal,
    LogNormal,
}

/// The signature of [`Real::normal`] and [`Real::log_normal`].
pub(super) type NormalFn<T> =
    unsafe fn(ffi::curand::curandGenerator_t, *mut T, usize, T, T) -> ffi::curand::curandStatus_t;

impl NormalFill {
    /// The cuRAND function's name for `T`, and the function: [`Real::normal`] or
    /// [`Real::log_normal`], whose safety contract is [`Real::uniform`]'s.
    pub(super) fn of<T: Real>(self) -> (&'static str, NormalFn<T>) {
        match self {
            Self::Normal => (T::NORMAL, T::normal),
            Self::LogNormal => (T::LOG_NORMAL, T::log_normal),
        }
    }
}

/// A device address as the pointer type cuRAND takes.
fn out_ptr<T>(p: ffi::CUdeviceptr) -> *mut T {
    p as usize as *mut T
}

impl Rng<'_> {
    /// `curandGenerateUniform`/`curandGenerateUniformDouble`—Enqueues filling `out` with
    /// values uniform in (0, 1] (0 excluded, 1 included).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] if `out`'s length is not a
    /// multiple of a quasi-random generator's dimensions. cuRAND's status
    /// (`CurandDoublePrecisionRequired` on a device without doubles); driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::rand::Pseudo;
    /// let rng = guard.rng(Pseudo::Xorwow, 7)?;
    /// let mut u = guard.alloc::<f64>(1000)?;
    /// guard.stream()?.scope(|s| rng.uniform(s, s.bind_mut(&mut u)))??;
    /// assert!(u.to_vec()?.iter().all(|&x| x > 0.0 && x <= 1.0));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateUniform")]
    #[doc(alias = "curandGenerateUniformDouble")]
    pub fn uniform<'scope, T: Real>(
        &self,
        s: &StreamScope<'scope, '_>,
        out: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        let (ptr, n) = out.raw_parts();
        check::length(T::UNIFORM, Target::Device, self.kind(), Values::Single, n)?;
        self.enqueue(s, T::UNIFORM, |g| {
            // SAFETY: writes `n` elements at `ptr` in stream order:
            // - `ptr` is device memory of this context holding `n` elements, an exclusive
            //   binding of the scope (alive until its stream is synchronized);
            // - `n` suits the generator (checked above); the generator is live and its
            //   stream is the scope's (`enqueue`).
            unsafe { T::uniform(g, out_ptr(ptr), n) }
        })
    }

    /// `curandGenerateNormal`/`curandGenerateNormalDouble`—Enqueues filling `out` with
    /// normally distributed values of `mean` and standard deviation `stddev`.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] if `out`'s length is odd for a
    /// generator that makes normal values in pairs
    /// ([`Kind::normals_in_pairs`](crate::rand::Kind::normals_in_pairs)) or not a multiple of a
    /// quasi-random generator's dimensions, or if `mean` is not finite or `stddev` is not a
    /// finite number ≥ 0. cuRAND's status; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateNormal")]
    #[doc(alias = "curandGenerateNormalDouble")]
    pub fn normal<'scope, T: Real>(
        &self,
        s: &StreamScope<'scope, '_>,
        out: impl ScopedWrite<'scope, T>,
        mean: T,
        stddev: T,
    ) -> Result<()> {
        self.normal_fill(s, out, (mean, stddev), NormalFill::Normal)
    }

    /// `curandGenerateLogNormal`/`curandGenerateLogNormalDouble`—Enqueues filling `out` with
    /// log-normally distributed values: their logarithms are normal with `mean` and `stddev`.
    ///
    /// # Errors
    ///
    /// As [`normal`](Self::normal).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateLogNormal")]
    #[doc(alias = "curandGenerateLogNormalDouble")]
    pub fn log_normal<'scope, T: Real>(
        &self,
        s: &StreamScope<'scope, '_>,
        out: impl ScopedWrite<'scope, T>,
        mean: T,
        stddev: T,
    ) -> Result<()> {
        self.normal_fill(s, out, (mean, stddev), NormalFill::LogNormal)
    }

    /// [`normal`](Self::normal) or [`log_normal`](Self::log_normal), as `which` says.
    fn normal_fill<'scope, T: Real>(
        &self,
        s: &StreamScope<'scope, '_>,
        out: impl ScopedWrite<'scope, T>,
        (mean, stddev): (T, T),
        which: NormalFill,
    ) -> Result<()> {
        let (call, fill) = which.of::<T>();
        let (ptr, n) = out.raw_parts();
        check::length(call, Target::Device, self.kind(), Values::Normal, n)?;
        check::normal(call, Target::Device, mean.into(), stddev.into())?;
        self.enqueue(s, call, |g| {
            // SAFETY: as in `uniform`, whose contract `fill` has (`T::normal` or
            // `T::log_normal`); `n` is even for a generator that makes pairs (checked).
            unsafe { fill(g, out_ptr(ptr), n, mean, stddev) }
        })
    }

    /// `curandGeneratePoisson`—Enqueues filling `out` with Poisson-distributed counts of mean
    /// `lambda`.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] if `lambda` is not a finite
    /// number > 0, or `out`'s length not a multiple of a quasi-random generator's dimensions.
    /// cuRAND's status; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGeneratePoisson")]
    pub fn poisson<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        out: impl ScopedWrite<'scope, u32>,
        lambda: f64,
    ) -> Result<()> {
        const CALL: &str = "curandGeneratePoisson";
        let (ptr, n) = out.raw_parts();
        check::length(CALL, Target::Device, self.kind(), Values::Single, n)?;
        check::poisson(CALL, Target::Device, lambda)?;
        self.enqueue(s, CALL, |g| {
            // SAFETY: as in `uniform`, for `u32` elements; `lambda` is finite and positive.
            unsafe { ffi::curand::curandGeneratePoisson(g, out_ptr(ptr), n, lambda) }
        })
    }

    /// `curandGenerate`—Enqueues filling `out` with 32-bit values: every bit uniform for a
    /// pseudo-random generator, the points' coordinates for a quasi-random one.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] if `out`'s length is not a
    /// multiple of a quasi-random generator's dimensions, or the generator makes 64-bit values
    /// (use [`bits64`](Self::bits64)). cuRAND's status; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerate")]
    pub fn bits<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        out: impl ScopedWrite<'scope, u32>,
    ) -> Result<()> {
        const CALL: &str = "curandGenerate";
        let (ptr, n) = out.raw_parts();
        if self.kind().is_64_bit() {
            return Err(width(
                CALL,
                Target::Device,
                "64-bit values; fill `u64` with `bits64`",
            ));
        }
        check::length(CALL, Target::Device, self.kind(), Values::Single, n)?;
        self.enqueue(s, CALL, |g| {
            // SAFETY: as in `uniform`, for `u32` elements of a 32-bit generator.
            unsafe { ffi::curand::curandGenerate(g, out_ptr(ptr), n) }
        })
    }

    /// `curandGenerateLongLong`—Enqueues filling `out` with the 64-bit coordinates of a 64-bit
    /// quasi-random generator's points ([`Quasi::Sobol64`](crate::rand::Quasi::Sobol64) and
    /// its scrambled form).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] for any other generator, or if
    /// `out`'s length is not a multiple of its dimensions. cuRAND's status; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateLongLong")]
    pub fn bits64<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        out: impl ScopedWrite<'scope, u64>,
    ) -> Result<()> {
        const CALL: &str = "curandGenerateLongLong";
        let (ptr, n) = out.raw_parts();
        if !self.kind().is_64_bit() {
            return Err(width(
                CALL,
                Target::Device,
                "32-bit values; only Sobol64 and ScrambledSobol64 make 64-bit ones",
            ));
        }
        check::length(CALL, Target::Device, self.kind(), Values::Single, n)?;
        self.enqueue(s, CALL, |g| {
            // SAFETY: as in `uniform`, for `u64` elements of a 64-bit quasi-random generator.
            unsafe { ffi::curand::curandGenerateLongLong(g, out_ptr(ptr), n) }
        })
    }
}

/// A bits fill refused for the width of the generator's values.
#[cold]
#[inline(never)]
pub(super) fn width(call: &str, target: Target, what: &str) -> Error {
    Error::custack(
        ErrorKind::InvalidValue,
        format!("{call}: this generator makes {what}; {}", target.undone()),
    )
}
