//! The host generator, [`HostRng`]: a cuRAND generator whose values the CPU computes into
//! host memory (`curandCreateGeneratorHost`), with no context, no stream and no device memory.
//!
//! It is not built on `LibraryHandle`, the core of the device-side handles: that core holds a
//! guard's context, device memory its calls share and the order of those calls on streams, and
//! releases them after waiting for the context. A host generator has none of these (each call
//! has finished when it returns), so it holds its raw generator and destroys it directly.

use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::rand::check::{self, Target, Values};
use crate::rand::fill::{NormalFill, Real, width};
use crate::rand::generator::{
    not_linked, serialize, set_dimensions, set_offset, set_ordering, set_seed,
};
use crate::rand::kind::{Kind, Ordering, Pseudo, Quasi};
use crate::rand::status::status;

/// A cuRAND generator whose values the CPU computes into host memory
/// (`curandCreateGeneratorHost`); see the [module docs](crate::rand#the-host-generator).
///
/// Needs no context, no guard and no GPU: it is made by [`HostRng::pseudo`] or
/// [`HostRng::quasi`] on any thread, and each fill writes every element of a `&mut` slice
/// before it returns. Every call that reaches cuRAND takes `&mut self`, so one generator is
/// never used by two threads at once; it is `Send` and `Sync`, which cuRAND's thread safety
/// allows (different generators on different threads; MT19937's calls take the lock the device
/// generators' take). Destroyed when dropped (errors recorded, see
/// [`take_drop_errors`](crate::take_drop_errors)) or by [`HostRng::destroy`].
#[doc(alias = "curandCreateGeneratorHost")]
pub struct HostRng {
    /// Live (non-null) until `release` takes it.
    raw: ffi::curand::curandGenerator_t,
    kind: Kind,
}

// SAFETY: a host generator belongs to no context and no thread: its state is host memory that
// cuRAND reads and writes only inside the calls made on it. cuRAND's host API is thread safe for
// different generators on different threads, MT19937 generators excepted (its Host API Overview,
// Thread Safety): every call custack makes on this generator takes `&mut self` or `self` (one
// thread at a time, whichever thread that is) and the MT19937 calls run alone under
// `CURAND_CALLS` (`serialize`).
unsafe impl Send for HostRng {}
// SAFETY: `&HostRng` reaches no cuRAND call (`kind` and `as_raw` read fields only), so
// sharing one between threads lets none of them call cuRAND on it.
unsafe impl Sync for HostRng {}

impl core::fmt::Debug for HostRng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostRng")
            .field("raw", &self.raw)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl HostRng {
    /// `curandCreateGeneratorHost`—Creates a pseudo-random generator whose values the CPU
    /// computes, seeded with `seed` (`curandSetPseudoRandomGeneratorSeed`) and at offset 0
    /// (`curandSetGeneratorOffset`, where the kind has an offset). Needs no context.
    ///
    /// The same kind, seed, offset and ordering give the same sequence as a device generator
    /// (cuRAND's Host API Overview): the same bits and uniform values; normal and log-normal
    /// values may differ slightly (the CPU's transcendental functions are not the GPU's).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LibraryNotLinked`] if custack was built without cuRAND (the detail says
    /// what to set); cuRAND's status (`CurandAllocationFailed`, …).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Philox4x32_10, 42)?;
    /// let mut x = vec![0.0_f64; 1000];
    /// rng.uniform(&mut x)?;
    /// assert!(x.iter().all(|&v| v > 0.0 && v <= 1.0));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/host-api-overview.html>
    #[doc(alias = "curandCreateGeneratorHost")]
    #[doc(alias = "curandSetPseudoRandomGeneratorSeed")]
    pub fn pseudo(kind: Pseudo, seed: u64) -> Result<Self> {
        let mut generator = Self::create(Kind::Pseudo(kind))?;
        generator.set_seed(seed)?;
        if generator.kind.has_offset() {
            generator.set_offset(0)?;
        }
        Ok(generator)
    }

    /// `curandCreateGeneratorHost`—Creates a quasi-random generator whose values the CPU
    /// computes, with `dimensions` (1 to 20,000; `curandSetQuasiRandomGeneratorDimensions`), at
    /// offset 0. Needs no context.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for dimensions out of range, before cuRAND is called; as
    /// [`pseudo`](Self::pseudo).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Quasi};
    ///
    /// // 256 points of the unit square, x coordinates first, then y.
    /// let mut sobol = HostRng::quasi(Quasi::Sobol32, 2)?;
    /// let mut xy = vec![0.0_f32; 512];
    /// sobol.uniform(&mut xy)?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/host-api-overview.html>
    #[doc(alias = "curandCreateGeneratorHost")]
    #[doc(alias = "curandSetQuasiRandomGeneratorDimensions")]
    pub fn quasi(kind: Quasi, dimensions: u32) -> Result<Self> {
        check::dimensions(dimensions)?;
        let mut generator = Self::create(Kind::Quasi(kind, dimensions))?;
        // SAFETY: a live generator (made just above, destroyed only by `release`), used by no
        // other call (`&mut`).
        unsafe { set_dimensions(generator.raw, generator.kind, dimensions) }?;
        generator.set_offset(0)?;
        Ok(generator)
    }

    /// A host generator of `kind`, created; dropped (destroyed) if a later setting fails.
    fn create(kind: Kind) -> Result<Self> {
        crate::error::confinement::full_api("rand::HostRng")?;
        // cuRAND's host generators still reach CUDA (MT19937's): poisoned, forked or inside a
        // driver callback (R20, R22, R35), refused as every library call is.
        crate::error::poison::check()?;
        not_linked()?;
        let mut raw = core::ptr::null_mut();
        let serialized = serialize(kind);
        // SAFETY: `curandCreateGeneratorHost` writes a generator to a valid out-pointer (`raw`,
        // a live local); `kind.raw()` is one of the generator types `curand.h` defines. It needs
        // no context.
        status("curandCreateGeneratorHost", unsafe {
            ffi::curand::curandCreateGeneratorHost(&raw mut raw, kind.raw())
        })?;
        drop(serialized);
        if raw.is_null() {
            return Err(Error::custack(
                ErrorKind::CurandInternalError,
                "curandCreateGeneratorHost returned success and no generator",
            ));
        }
        Ok(Self { raw, kind })
    }

    /// What the generator is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// `curandSetPseudoRandomGeneratorSeed`—Sets the seed of a pseudo-random generator: the
    /// next fill reads the new seed's sequence at the generator's offset, which every fill has
    /// advanced by its count (measured; [`set_offset`](Self::set_offset) sets it).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for a quasi-random generator, which has no seed (nothing is
    /// called); cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Xorwow, 1)?;
    /// let (mut a, mut b) = ([0_u32; 8], [0_u32; 8]);
    /// rng.bits(&mut a)?;
    /// rng.set_seed(2)?;
    /// rng.set_offset(0)?;
    /// rng.bits(&mut b)?;
    /// assert_ne!(a, b);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandSetPseudoRandomGeneratorSeed")]
    pub fn set_seed(&mut self, seed: u64) -> Result<()> {
        // SAFETY: a live generator (released only by `destroy` or the drop, which take `self`),
        // no other call of it meanwhile (`&mut self`).
        unsafe { set_seed(self.raw, self.kind, seed) }
    }

    /// `curandSetGeneratorOffset`—Sets the absolute offset of the generator's sequence: the
    /// next fill starts `offset` values into it (each fill then advances it by its count).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for `Mtgp32` and `Mt19937`, which have no offset (nothing
    /// is called); cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Philox4x32_10, 3)?;
    /// let mut first = [0_u32; 8];
    /// rng.bits(&mut first)?;
    /// // Four values into the sequence again.
    /// rng.set_offset(4)?;
    /// let mut later = [0_u32; 4];
    /// rng.bits(&mut later)?;
    /// assert_eq!(later, first[4..]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandSetGeneratorOffset")]
    pub fn set_offset(&mut self, offset: u64) -> Result<()> {
        // SAFETY: as in `set_seed`.
        unsafe { set_offset(self.raw, self.kind, offset) }
    }

    /// `curandSetGeneratorOrdering`—Sets the order of the generator's results; the next fill
    /// starts the sequence again from the generator's offset in that order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for an ordering a host generator of its kind does not take
    /// (the table of [`Ordering`]: no `PseudoDynamic`, no `PseudoBest` for `Mt19937`; nothing
    /// is called: cuRAND would answer `CURAND_STATUS_OUT_OF_RANGE`); cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Ordering, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Xorwow, 9)?;
    /// rng.set_ordering(Ordering::PseudoSeeded)?;
    /// assert!(rng.set_ordering(Ordering::PseudoDynamic).is_err());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/host-api-overview.html>
    #[doc(alias = "curandSetGeneratorOrdering")]
    pub fn set_ordering(&mut self, ordering: Ordering) -> Result<()> {
        // SAFETY: as in `set_seed`.
        unsafe { set_ordering(self.raw, self.kind, Target::Host, ordering) }
    }

    /// Runs one generation call into `n` elements at `out`, under the kind's hold on
    /// `CURAND_CALLS`.
    fn generate(
        &mut self,
        call: &'static str,
        f: impl FnOnce(ffi::curand::curandGenerator_t) -> ffi::curand::curandStatus_t,
    ) -> Result<()> {
        // As at the creation (R20, R22, R35).
        crate::error::poison::check()?;
        let _serialized = serialize(self.kind);
        status(call, f(self.raw))
    }

    /// `curandGenerateUniform`/`curandGenerateUniformDouble`—Fills `out` with values uniform
    /// in (0, 1] (0 excluded, 1 included).
    ///
    /// # Errors
    ///
    /// Before cuRAND is called: [`ErrorKind::InvalidValue`] if `out`'s length is not a multiple
    /// of a quasi-random generator's dimensions. cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Mrg32k3a, 5)?;
    /// let mut u = [0.0_f32; 100];
    /// rng.uniform(&mut u)?;
    /// assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateUniform")]
    #[doc(alias = "curandGenerateUniformDouble")]
    pub fn uniform<T: Real>(&mut self, out: &mut [T]) -> Result<()> {
        let n = out.len();
        check::length(T::UNIFORM, Target::Host, self.kind, Values::Single, n)?;
        self.generate(T::UNIFORM, |g| {
            // SAFETY: a live host generator writes `n` elements at `out` before it returns:
            // `out` is host memory of `n` elements, borrowed exclusively for the call; `n`
            // suits the generator (checked above).
            unsafe { T::uniform(g, out.as_mut_ptr(), n) }
        })
    }

    /// `curandGenerateNormal`/`curandGenerateNormalDouble`—Fills `out` with normally
    /// distributed values of `mean` and standard deviation `stddev`.
    ///
    /// # Errors
    ///
    /// Before cuRAND is called: [`ErrorKind::InvalidValue`] if `out`'s length is odd for a
    /// generator that makes normal values in pairs
    /// ([`Kind::normals_in_pairs`](crate::rand::Kind::normals_in_pairs)) or not a multiple of a
    /// quasi-random generator's dimensions, or if `mean` is not finite or `stddev` is not a
    /// finite number ≥ 0. cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Philox4x32_10, 2026)?;
    /// let mut x = vec![0.0_f64; 1 << 16];
    /// rng.normal(&mut x, 10.0, 2.0)?;
    /// let mean = x.iter().sum::<f64>() / x.len() as f64;
    /// assert!((mean - 10.0).abs() < 0.1);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateNormal")]
    #[doc(alias = "curandGenerateNormalDouble")]
    pub fn normal<T: Real>(&mut self, out: &mut [T], mean: T, stddev: T) -> Result<()> {
        self.normal_fill(out, (mean, stddev), NormalFill::Normal)
    }

    /// `curandGenerateLogNormal`/`curandGenerateLogNormalDouble`—Fills `out` with
    /// log-normally distributed values: their logarithms are normal with `mean` and `stddev`.
    ///
    /// # Errors
    ///
    /// As [`normal`](Self::normal).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Mtgp32, 8)?;
    /// let mut prices = [0.0_f32; 64];
    /// rng.log_normal(&mut prices, 0.0, 0.25)?;
    /// assert!(prices.iter().all(|&p| p > 0.0));
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateLogNormal")]
    #[doc(alias = "curandGenerateLogNormalDouble")]
    pub fn log_normal<T: Real>(&mut self, out: &mut [T], mean: T, stddev: T) -> Result<()> {
        self.normal_fill(out, (mean, stddev), NormalFill::LogNormal)
    }

    /// [`normal`](Self::normal) or [`log_normal`](Self::log_normal), as `which` says.
    fn normal_fill<T: Real>(
        &mut self,
        out: &mut [T],
        (mean, stddev): (T, T),
        which: NormalFill,
    ) -> Result<()> {
        let (call, fill) = which.of::<T>();
        let n = out.len();
        check::length(call, Target::Host, self.kind, Values::Normal, n)?;
        check::normal(call, Target::Host, mean.into(), stddev.into())?;
        self.generate(call, |g| {
            // SAFETY: as in `uniform`, whose contract `fill` has (`T::normal` or
            // `T::log_normal`); `n` is even for a generator that makes pairs (checked).
            unsafe { fill(g, out.as_mut_ptr(), n, mean, stddev) }
        })
    }

    /// `curandGeneratePoisson`—Fills `out` with Poisson-distributed counts of mean `lambda`.
    ///
    /// # Errors
    ///
    /// Before cuRAND is called: [`ErrorKind::InvalidValue`] if `lambda` is not a finite,
    /// positive number, or `out`'s length not a multiple of a quasi-random generator's
    /// dimensions. cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Xorwow, 11)?;
    /// let mut arrivals = vec![0_u32; 10_000];
    /// rng.poisson(&mut arrivals, 4.0)?;
    /// let mean = arrivals.iter().map(|&k| f64::from(k)).sum::<f64>() / 10_000.0;
    /// assert!((mean - 4.0).abs() < 0.2);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGeneratePoisson")]
    pub fn poisson(&mut self, out: &mut [u32], lambda: f64) -> Result<()> {
        const CALL: &str = "curandGeneratePoisson";
        let n = out.len();
        check::length(CALL, Target::Host, self.kind, Values::Single, n)?;
        check::poisson(CALL, Target::Host, lambda)?;
        self.generate(CALL, |g| {
            // SAFETY: as in `uniform`, for `u32` elements; `lambda` is finite and positive.
            unsafe { ffi::curand::curandGeneratePoisson(g, out.as_mut_ptr(), n, lambda) }
        })
    }

    /// `curandGenerate`—Fills `out` with 32-bit values: every bit uniform for a pseudo-random
    /// generator, the points' coordinates for a quasi-random one.
    ///
    /// # Errors
    ///
    /// Before cuRAND is called: [`ErrorKind::InvalidValue`] if `out`'s length is not a multiple
    /// of a quasi-random generator's dimensions, or the generator makes 64-bit values (use
    /// [`bits64`](Self::bits64)). cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// let mut rng = HostRng::pseudo(Pseudo::Mt19937, 5489)?;
    /// let mut words = [0_u32; 624];
    /// rng.bits(&mut words)?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerate")]
    pub fn bits(&mut self, out: &mut [u32]) -> Result<()> {
        const CALL: &str = "curandGenerate";
        let n = out.len();
        if self.kind.is_64_bit() {
            return Err(width(
                CALL,
                Target::Host,
                "64-bit values; fill `u64` with `bits64`",
            ));
        }
        check::length(CALL, Target::Host, self.kind, Values::Single, n)?;
        self.generate(CALL, |g| {
            // SAFETY: as in `uniform`, for `u32` elements of a 32-bit generator.
            unsafe { ffi::curand::curandGenerate(g, out.as_mut_ptr(), n) }
        })
    }

    /// `curandGenerateLongLong`—Fills `out` with the 64-bit coordinates of a 64-bit
    /// quasi-random generator's points ([`Quasi::Sobol64`] and its scrambled form).
    ///
    /// # Errors
    ///
    /// Before cuRAND is called: [`ErrorKind::InvalidValue`] for any other generator, or if
    /// `out`'s length is not a multiple of its dimensions. cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Quasi};
    ///
    /// let mut sobol = HostRng::quasi(Quasi::Sobol64, 1)?;
    /// let mut points = [0_u64; 4];
    /// sobol.bits64(&mut points)?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandGenerateLongLong")]
    pub fn bits64(&mut self, out: &mut [u64]) -> Result<()> {
        const CALL: &str = "curandGenerateLongLong";
        let n = out.len();
        if !self.kind.is_64_bit() {
            return Err(width(
                CALL,
                Target::Host,
                "32-bit values; only Sobol64 and ScrambledSobol64 make 64-bit ones",
            ));
        }
        check::length(CALL, Target::Host, self.kind, Values::Single, n)?;
        self.generate(CALL, |g| {
            // SAFETY: as in `uniform`, for `u64` elements of a 64-bit quasi-random generator.
            unsafe { ffi::curand::curandGenerateLongLong(g, out.as_mut_ptr(), n) }
        })
    }

    /// The raw generator, for cuRAND functions this module does not wrap. It stays owned by
    /// `self`. Never let a call through it run while another call of this generator runs (they
    /// share its state). Calls made through it do not take the lock this module's calls take
    /// around MT19937 (cuRAND's host API is not thread safe with MT19937 generators in use).
    pub fn as_raw(&self) -> ffi::curand::curandGenerator_t {
        self.raw
    }

    /// `curandDestroyGenerator`—Destroys the generator, returning cuRAND's status. Nothing has
    /// to be waited for: every fill wrote its values before it returned.
    ///
    /// # Errors
    ///
    /// cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{HostRng, Pseudo};
    ///
    /// HostRng::pseudo(Pseudo::Xorwow, 0)?.destroy()?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandDestroyGenerator")]
    pub fn destroy(mut self) -> Result<()> {
        self.release()
    }

    /// Destroys the generator once (later calls return `Ok`).
    fn release(&mut self) -> Result<()> {
        let raw = core::mem::replace(&mut self.raw, core::ptr::null_mut());
        if raw.is_null() {
            return Ok(());
        }
        // A release as every other (R20, R22, R35): refused, the generator is left behind.
        crate::error::left_behind::release(
            crate::error::left_behind::Object::Untracked,
            raw as u64,
        )?;
        let _serialized = serialize(self.kind);
        // SAFETY: `raw` was live and is destroyed once (taken out above); no call of it runs
        // (`&mut self`), and none is pending: a host generator's calls finish before they
        // return.
        status("curandDestroyGenerator", unsafe {
            ffi::curand::curandDestroyGenerator(raw)
        })
    }
}

impl Drop for HostRng {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}

static_assertions::assert_impl_all!(HostRng: Send, Sync);

#[cfg(test)]
mod tests {
    //! The host generator on the CPU alone: these run without a GPU (observed here with cuRAND
    //! 10.3.3 and a driver that has no device), except MT19937, whose host generation answered
    //! `CURAND_STATUS_INTERNAL_ERROR` without a GPU and is left to `tests/gpu_curand.rs`. In a
    //! build without cuRAND they check the not-linked error instead.
    use super::*;

    /// `Ok(generator)`, or `None` in a build without cuRAND (after checking its error).
    fn made(result: Result<HostRng>) -> Option<HostRng> {
        match result {
            Ok(g) => Some(g),
            Err(e) => {
                // Only a build without cuRAND fails here.
                assert_eq!(e.kind(), ErrorKind::LibraryNotLinked, "{e}");
                None
            }
        }
    }

    /// Inside code the driver called (a host function, R35) a host generator is neither made
    /// nor used: cuRAND's host generators still reach CUDA (MT19937's), so the calls are
    /// refused at custack's gate before cuRAND, as in a poisoned process (R20).
    #[test]
    fn a_host_generator_inside_a_driver_callback_is_refused() {
        crate::error::callback::run(|| {
            let made = HostRng::pseudo(Pseudo::Xorwow, 1).map(drop);
            assert_eq!(made.map_err(|e| e.kind()), Err(ErrorKind::NotPermitted));
        });
        let Some(mut rng) = made(HostRng::pseudo(Pseudo::Xorwow, 1)) else {
            return;
        };
        let mut v = [0.5_f32; 4];
        crate::error::callback::run(|| {
            let used = rng.uniform(&mut v).map_err(|e| e.kind());
            assert_eq!(used, Err(ErrorKind::NotPermitted));
        });
        assert!(
            v.iter().all(|x| x.to_bits() == 0.5_f32.to_bits()),
            "nothing generated inside the callback"
        );
        rng.uniform(&mut v).unwrap();
    }

    /// An odd count of normal values from the generators that take one (Philox, MTGP32: not
    /// in pairs, `Kind::normals_in_pairs`) writes exactly that many: the element after them, in
    /// the same allocation, keeps its sentinel, for counts of every remainder by 4 and slices
    /// starting at every offset by 4 (cuRAND writes normals in pairs or fours internally).
    #[test]
    fn an_odd_count_of_normals_writes_no_element_past_it() {
        for kind in [Pseudo::Philox4x32_10, Pseudo::Mtgp32] {
            let Some(mut rng) = made(HostRng::pseudo(kind, 7)) else {
                return;
            };
            for start in 0..4 {
                for n in [1, 2, 3, 5, 999, 1001, 1002, 1003] {
                    let mut v = vec![1.0e30_f32; start + n + 8];
                    rng.normal(&mut v[start..start + n], 0.0, 1.0).unwrap();
                    assert!(
                        v[start..start + n]
                            .iter()
                            .all(|&x| x.to_bits() != 1.0e30_f32.to_bits()),
                        "{kind:?}: every value written"
                    );
                    assert!(
                        v[..start]
                            .iter()
                            .chain(&v[start + n..])
                            .all(|&x| x.to_bits() == 1.0e30_f32.to_bits()),
                        "{kind:?}: {n} normals at {start} wrote outside their slice"
                    );
                    let mut d = vec![1.0e300_f64; start + n + 8];
                    rng.normal(&mut d[start..start + n], 0.0, 1.0).unwrap();
                    assert!(
                        d[..start]
                            .iter()
                            .chain(&d[start + n..])
                            .all(|&x| x.to_bits() == 1.0e300_f64.to_bits()),
                        "{kind:?}: {n} double normals at {start} wrote outside their slice"
                    );
                }
            }
        }
    }

    #[test]
    fn a_host_generator_fills_host_memory_without_a_context() {
        let Some(mut rng) = made(HostRng::pseudo(Pseudo::Philox4x32_10, 1234)) else {
            return;
        };
        assert_eq!(rng.kind(), Kind::Pseudo(Pseudo::Philox4x32_10));
        // Sentinels outside (0, 1]: every element must be written.
        let mut u = vec![-1.0_f32; 4097];
        rng.uniform(&mut u).unwrap();
        assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0));
        let mut d = vec![-1.0_f64; 1001];
        rng.uniform(&mut d).unwrap();
        assert!(d.iter().all(|&x| x > 0.0 && x <= 1.0));
        // The same seed and offset give the same bits; an offset skips ahead in the sequence;
        // every fill advances it (re-seeding alone does not go back to 0).
        let mut a = [0_u32; 64];
        rng.set_seed(7).unwrap();
        rng.set_offset(0).unwrap();
        rng.bits(&mut a).unwrap();
        let mut b = [0_u32; 32];
        rng.set_offset(32).unwrap();
        rng.bits(&mut b).unwrap();
        assert_eq!(b, a[32..]);
        rng.set_seed(7).unwrap();
        rng.bits(&mut b).unwrap();
        assert_ne!(b, a[..32]);
        rng.set_offset(0).unwrap();
        rng.bits(&mut b).unwrap();
        assert_eq!(b, a[..32]);
        rng.set_seed(8).unwrap();
        rng.set_offset(0).unwrap();
        rng.bits(&mut b).unwrap();
        assert_ne!(b, a[..32]);
        rng.destroy().unwrap();
    }

    #[test]
    fn a_refused_fill_writes_nothing() {
        let Some(mut rng) = made(HostRng::pseudo(Pseudo::Xorwow, 1)) else {
            return;
        };
        let mut odd = [5.0_f32; 7];
        let e = rng.normal(&mut odd, 0.0, 1.0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert_eq!(
            e.detail(),
            Some(
                "curandGenerateNormal: n 7 is odd; this generator makes normal values in pairs; \
                 nothing was written"
            )
        );
        assert!(odd.iter().all(|x| x.to_bits() == 5.0_f32.to_bits()));
        let mut counts = [9_u32; 4];
        assert!(rng.poisson(&mut counts, 0.0).is_err());
        assert_eq!(counts, [9; 4]);
        let mut wide = [3_u64; 2];
        let e = rng.bits64(&mut wide).unwrap_err();
        assert!(
            e.detail()
                .unwrap_or_default()
                .ends_with("nothing was written")
        );
        assert_eq!(wide, [3; 2]);
        // Orderings a host generator does not take are refused; those it takes are set.
        assert!(rng.set_ordering(Ordering::PseudoDynamic).is_err());
        assert!(rng.set_ordering(Ordering::QuasiDefault).is_err());
        rng.set_ordering(Ordering::PseudoSeeded).unwrap();
        rng.set_ordering(Ordering::PseudoLegacy).unwrap();
        // An even count of normals, with the ordering just set.
        let mut x = [0.0_f64; 8];
        rng.normal(&mut x, 0.0, 1.0).unwrap();
        assert!(x.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn a_quasi_random_host_generator_makes_whole_points() {
        assert_eq!(
            HostRng::quasi(Quasi::Sobol32, 0).unwrap_err().kind(),
            ErrorKind::InvalidValue
        );
        let Some(mut sobol) = made(HostRng::quasi(Quasi::Sobol64, 2)) else {
            return;
        };
        assert!(sobol.set_seed(1).is_err());
        let mut three = [0_u64; 3];
        assert!(sobol.bits64(&mut three).is_err());
        let mut points = [0_u64; 8];
        sobol.bits64(&mut points).unwrap();
        // Sobol' coordinates of distinct points differ within each dimension.
        assert!(points[..4].windows(2).all(|w| w[0] != w[1]));
        let mut u = [0.0_f32; 4];
        sobol.uniform(&mut u).unwrap();
        assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0));
    }
}
