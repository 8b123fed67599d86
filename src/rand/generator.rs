//! The cuRAND generator, [`Rng`]: its creation by a guard
//! ([`PushedGuard::rng`], [`PushedGuard::quasi_rng`]), its seed and offset, the order its calls
//! run in (`enqueue`, which every fill goes through), and its destruction. The fills are in
//! `fill.rs`.

use crate::asynchronous::library_handle::{LibraryHandle, RawHandle};
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::rand::check::{self, Target};
use crate::rand::kind::{Kind, Ordering, Pseudo, Quasi};
use crate::rand::status::status;
use crate::vocabulary::version::LibraryVersion;
use core::ffi::c_int;
use core::marker::PhantomData;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Held around every cuRAND call custack makes for a generator: exclusively by an MT19937
/// generator's calls, shared by every other kind's. cuRAND's Host API Overview (Thread Safety)
/// makes the host API thread safe for different generators on different threads (all custack
/// allows: a generator is `!Send`, `!Sync`) only while no MT19937 generator is involved, so an
/// MT19937 call runs alone, and the other kinds' calls only run alongside each other. This
/// orders host calls into the library; it tracks no work.
static CURAND_CALLS: RwLock<()> = RwLock::new(());

/// What a cuRAND call holds of [`CURAND_CALLS`] while it runs.
pub(super) enum Serialized {
    /// An MT19937 generator's call: no other cuRAND call at once.
    Alone(#[allow(dead_code, reason = "held, not read")] RwLockWriteGuard<'static, ()>),
    /// Any other kind's: alongside other kinds' calls, never an MT19937 one.
    Shared(#[allow(dead_code, reason = "held, not read")] RwLockReadGuard<'static, ()>),
}

/// The hold for one cuRAND call of a generator of `kind` (device or host generator alike). A
/// panic while it was held (none in this module) leaves nothing to repair: the lock is taken
/// again.
pub(super) fn serialize(kind: Kind) -> Serialized {
    if matches!(kind, Kind::Pseudo(Pseudo::Mt19937)) {
        Serialized::Alone(CURAND_CALLS.write().unwrap_or_else(PoisonError::into_inner))
    } else {
        Serialized::Shared(CURAND_CALLS.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A cuRAND generator of the guard's context, its state on the device; see the
/// [module docs](crate::rand).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while another
/// context is pushed on top (C25); `!Send` and `!Sync`, as custack's guards are per thread.
#[doc(alias = "curandGenerator_t")]
pub struct Rng<'g> {
    /// The generator and the order of its calls, which never overlap on the GPU (they share
    /// its state); released in the one sound sequence (`LibraryHandle::release`). The wait
    /// comes first: destroying frees the state on the device, which a pending call may still
    /// use, and cuRAND documents no wait of its own.
    core: LibraryHandle<'g, RawGenerator>,
    kind: Kind,
    // Borrowed from the guard; the generator is of the guard's context, current on this thread
    // only: `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(Rng<'static>: Send, Sync);

impl core::fmt::Debug for Rng<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Generator")
            .field("raw", &self.handle())
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `curandCreateGenerator`—Creates a pseudo-random generator of this guard's context,
    /// its state made on the device, seeded with `seed` (`curandSetPseudoRandomGeneratorSeed`)
    /// and at offset 0 (`curandSetGeneratorOffset`, where the kind has an offset).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LibraryNotLinked`] if custack was built without cuRAND (the detail says
    /// what to set); cuRAND's status (`CurandAllocationFailed`, `CurandInitializationFailed`,
    /// …); driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::Pseudo;
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let rng = guard.rng(Pseudo::Philox4x32_10, 42)?;
    /// let mut noise = guard.alloc::<f32>(1 << 20)?;
    /// guard.stream()?.scope(|s| rng.normal(s, s.bind_mut(&mut noise), 0.0, 1.0))??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/host-api-overview.html>
    #[doc(alias = "curandCreateGenerator")]
    #[doc(alias = "curandSetPseudoRandomGeneratorSeed")]
    pub fn rng(&self, kind: Pseudo, seed: u64) -> Result<Rng<'_>> {
        let mut generator = self.generator(Kind::Pseudo(kind))?;
        generator.set_seed(seed)?;
        if generator.kind.has_offset() {
            generator.set_offset(0)?;
        }
        Ok(generator)
    }

    /// `curandCreateGenerator`—Creates a quasi-random generator of this guard's context with
    /// `dimensions` (1 to 20,000; `curandSetQuasiRandomGeneratorDimensions`), at offset 0.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for dimensions out of range, before cuRAND is called; as
    /// [`rng`](Self::rng).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/host-api-overview.html>
    #[doc(alias = "curandCreateGenerator")]
    #[doc(alias = "curandSetQuasiRandomGeneratorDimensions")]
    pub fn quasi_rng(&self, kind: Quasi, dimensions: u32) -> Result<Rng<'_>> {
        crate::error::poison::check()?;
        check::dimensions(dimensions)?;
        let mut generator = self.generator(Kind::Quasi(kind, dimensions))?;
        // SAFETY: a live generator (made just above, destroyed only by `release`), used by no
        // other call yet.
        unsafe { set_dimensions(generator.handle(), generator.kind, dimensions) }?;
        generator.set_offset(0)?;
        Ok(generator)
    }

    /// A generator of `kind`, created; dropped (destroyed) if a later setting fails.
    fn generator(&self, kind: Kind) -> Result<Rng<'_>> {
        crate::error::poison::check()?;
        not_linked()?;
        let core = LibraryHandle::create(self, 0, || {
            let mut raw = core::ptr::null_mut();
            // Held while cuRAND creates it (released once created).
            let _serialized = serialize(kind);
            // SAFETY: `curandCreateGenerator` writes a generator to a valid out-pointer and
            // makes its state in the current context:
            // - `raw` is a live local;
            // - `kind.raw()` is one of the generator types `curand.h` defines;
            // - this guard's context is current (it is the top of this thread's stack while
            //   the guard is reachable).
            status("curandCreateGenerator", unsafe {
                ffi::curand::curandCreateGenerator(&raw mut raw, kind.raw())
            })?;
            Ok(RawGenerator { raw, kind })
        })?;
        Ok(Rng {
            core,
            kind,
            _guard: PhantomData,
        })
    }
}

/// A live cuRAND generator, destroyed by `curandDestroyGenerator` (with its kind's hold on
/// `CURAND_CALLS`).
#[derive(Clone, Copy, Debug)]
struct RawGenerator {
    raw: ffi::curand::curandGenerator_t,
    kind: Kind,
}

impl RawHandle for RawGenerator {
    unsafe fn destroy(self) -> Result<()> {
        let _serialized = serialize(self.kind);
        // SAFETY: the caller's guarantee: a live generator of the current context, destroyed
        // once, no call of it still running.
        status("curandDestroyGenerator", unsafe {
            ffi::curand::curandDestroyGenerator(self.raw)
        })
    }
}

/// `Err` in a build that found no cuRAND.
pub(super) fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::CURAND)
}

/// `curandGetVersion`—The version of the cuRAND linked (e.g. 10.4.0).
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without cuRAND; cuRAND's status.
///
/// # References
///
/// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
#[doc(alias = "curandGetVersion")]
pub fn version() -> Result<LibraryVersion> {
    crate::error::confinement::full_api("rand::version")?;
    not_linked()?;
    let mut v: c_int = 0;
    // SAFETY: `curandGetVersion` writes an int through a valid out-pointer (a live local).
    status("curandGetVersion", unsafe {
        ffi::curand::curandGetVersion(&raw mut v)
    })?;
    Ok(LibraryVersion::from_code(v.unsigned_abs(), 1_000))
}

/// `curandSetPseudoRandomGeneratorSeed` for a generator of `kind`, refused (nothing called) for
/// a quasi-random one, under the kind's hold on `CURAND_CALLS`.
///
/// # Safety
///
/// `raw` is a live generator of `kind` that no other call uses meanwhile.
pub(super) unsafe fn set_seed(
    raw: ffi::curand::curandGenerator_t,
    kind: Kind,
    seed: u64,
) -> Result<()> {
    if let Kind::Quasi(kind, _) = kind {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "curandSetPseudoRandomGeneratorSeed: a quasi-random generator ({kind:?}) has no \
                 seed; nothing was set"
            ),
        ));
    }
    let _serialized = serialize(kind);
    // SAFETY: the caller's: a live generator, no other call of it meanwhile.
    status("curandSetPseudoRandomGeneratorSeed", unsafe {
        ffi::curand::curandSetPseudoRandomGeneratorSeed(raw, seed)
    })
}

/// `curandSetGeneratorOffset` for a generator of `kind`, refused (nothing called) for the two
/// Mersenne Twisters, under the kind's hold on `CURAND_CALLS`.
///
/// # Safety
///
/// As [`set_seed`].
pub(super) unsafe fn set_offset(
    raw: ffi::curand::curandGenerator_t,
    kind: Kind,
    offset: u64,
) -> Result<()> {
    if !kind.has_offset() {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "curandSetGeneratorOffset: a {kind:?} generator has no offset (cuRAND cannot \
                 skip ahead in its sequence); nothing was set"
            ),
        ));
    }
    let _serialized = serialize(kind);
    // SAFETY: the caller's: a live generator, no other call of it meanwhile.
    status("curandSetGeneratorOffset", unsafe {
        ffi::curand::curandSetGeneratorOffset(raw, offset)
    })
}

/// `curandSetQuasiRandomGeneratorDimensions` for a quasi-random generator of `kind`, with
/// `dimensions` already checked (`check::dimensions`), under the kind's hold on `CURAND_CALLS`.
///
/// # Safety
///
/// As [`set_seed`].
pub(super) unsafe fn set_dimensions(
    raw: ffi::curand::curandGenerator_t,
    kind: Kind,
    dimensions: u32,
) -> Result<()> {
    let _serialized = serialize(kind);
    // SAFETY: the caller's: a live generator, no other call of it meanwhile.
    status("curandSetQuasiRandomGeneratorDimensions", unsafe {
        ffi::curand::curandSetQuasiRandomGeneratorDimensions(raw, dimensions)
    })
}

/// `curandSetGeneratorOrdering` for a generator of `kind` made on `target`, refused (nothing
/// called) for an ordering it does not take, under the kind's hold on `CURAND_CALLS`.
///
/// # Safety
///
/// As [`set_seed`].
pub(super) unsafe fn set_ordering(
    raw: ffi::curand::curandGenerator_t,
    kind: Kind,
    target: Target,
    ordering: Ordering,
) -> Result<()> {
    check::ordering(kind, target, ordering)?;
    let _serialized = serialize(kind);
    // SAFETY: the caller's: a live generator, no other call of it meanwhile; the ordering is
    // one of those `curand.h` defines, and one the kind takes (checked above).
    status("curandSetGeneratorOrdering", unsafe {
        ffi::curand::curandSetGeneratorOrdering(raw, ordering.raw())
    })
}

impl Rng<'_> {
    /// What the generator is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// `curandSetPseudoRandomGeneratorSeed`—Sets the seed of a pseudo-random generator; its
    /// sequence starts again from the generator's offset at the next call.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for a quasi-random generator, which has no seed (nothing is
    /// called); cuRAND's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandSetPseudoRandomGeneratorSeed")]
    pub fn set_seed(&mut self, seed: u64) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live generator (released only by `destroy` or the drop, which take `self`).
        // Setting the seed changes host-side state that cuRAND applies at the next generation
        // call, which is ordered after every earlier one (`order`).
        unsafe { set_seed(self.handle(), self.kind, seed) }
    }

    /// `curandSetGeneratorOffset`—Sets the absolute offset of the generator's sequence: the
    /// next call starts `offset` values into it (for the same seed, the same values).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for `Mtgp32` and `Mt19937`, which have no offset (nothing
    /// is called; cuRAND would answer `CURAND_STATUS_TYPE_ERROR`); cuRAND's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandSetGeneratorOffset")]
    pub fn set_offset(&mut self, offset: u64) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live generator; as in `set_seed`, applied at the next generation call.
        unsafe { set_offset(self.handle(), self.kind, offset) }
    }

    /// `curandSetGeneratorOrdering`—Sets the order of the generator's results in memory; the
    /// next call starts the sequence again from the generator's offset in that order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for an ordering the generator's kind does not take (the
    /// table of [`Ordering`]; nothing is called: cuRAND would answer
    /// `CURAND_STATUS_OUT_OF_RANGE`); cuRAND's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::rand::{Ordering, Pseudo};
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut rng = guard.rng(Pseudo::Philox4x32_10, 42)?;
    /// // The same values in every cuRAND release.
    /// rng.set_ordering(Ordering::PseudoLegacy)?;
    /// // Quasi-random orderings are for quasi-random generators: refused before cuRAND is called.
    /// assert!(rng.set_ordering(Ordering::QuasiDefault).is_err());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/host-api-overview.html>
    #[doc(alias = "curandSetGeneratorOrdering")]
    pub fn set_ordering(&mut self, ordering: Ordering) -> Result<()> {
        crate::error::poison::check()?;
        // SAFETY: a live generator; as in `set_seed`, applied at the next generation call.
        unsafe { set_ordering(self.handle(), self.kind, Target::Device, ordering) }
    }

    /// The raw generator, for cuRAND functions this module does not wrap. It stays owned by
    /// `self`. This module's calls set the generator's stream only when it differs from the
    /// previous call's; asking for the raw generator makes the next call set it again. Never
    /// let a call through it overlap this generator's own calls (they share its state). Calls
    /// made through it do not take the lock this module's calls take around MT19937 (cuRAND's
    /// host API is not thread safe with MT19937 generators in use).
    pub fn as_raw(&self) -> ffi::curand::curandGenerator_t {
        self.core.order().forget_stream();
        self.handle()
    }

    /// The live generator (null only once released, which takes `self`).
    fn handle(&self) -> ffi::curand::curandGenerator_t {
        self.core.raw().map_or(core::ptr::null_mut(), |r| r.raw)
    }

    /// Runs one generation call on the scope's stream, ordered after the generator's previous
    /// call (`CallOrder`): on the previous call's stream nothing is set and no driver call is
    /// made; on another, the stream waits for everything before it and becomes the
    /// generator's (`curandSetStream`).
    #[inline]
    pub(super) fn enqueue(
        &self,
        s: &StreamScope<'_, '_>,
        call: &'static str,
        f: impl FnOnce(ffi::curand::curandGenerator_t) -> ffi::curand::curandStatus_t,
    ) -> Result<()> {
        // Each cuRAND call holds its share of `CURAND_CALLS`, not the ordering's driver calls
        // between them (a wait there must not hold up other threads' cuRAND calls).
        let raw = self.handle();
        self.core.order().enqueue(
            call,
            s,
            |stream| {
                let _serialized = serialize(self.kind);
                // SAFETY: `curandSetStream` needs a live generator and a stream of its context:
                // - `raw` is live (released only by `destroy` or the drop, which take `self`);
                // - the stream is a scope's, live for the scope, of the current context, which
                //   is the generator's: it borrows the guard shared, so no other context can be
                //   pushed above it while it is reachable (push takes the guard mutably).
                status("curandSetStream", unsafe {
                    ffi::curand::curandSetStream(raw, stream)
                })
            },
            || {
                let _serialized = serialize(self.kind);
                status(call, f(raw))
            },
        )
    }

    /// `curandDestroyGenerator`—Waits until none of the generator's calls can still run, then
    /// destroys it, returning the first error.
    ///
    /// # Errors
    ///
    /// The error of the wait (the first error of the context's work, or a sticky error); if
    /// it fails without a sticky error, the generator is leaked rather than destroyed while
    /// the GPU may still use its state. cuRAND's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/curand/group__HOST.html>
    #[doc(alias = "curandDestroyGenerator")]
    pub fn destroy(mut self) -> Result<()> {
        self.core.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::not_linked::assert_says_what_to_set;

    #[test]
    fn an_mt19937_call_runs_alone_and_the_others_alongside_each_other() {
        use crate::rand::kind::Quasi;
        let others = [
            Kind::Pseudo(Pseudo::Xorwow),
            Kind::Pseudo(Pseudo::Mrg32k3a),
            Kind::Pseudo(Pseudo::Mtgp32),
            Kind::Pseudo(Pseudo::Philox4x32_10),
            Kind::Quasi(Quasi::Sobol32, 1),
        ];
        // The other kinds' calls hold the lock shared: all at once, no MT19937 call meanwhile.
        let held: Vec<_> = others.into_iter().map(serialize).collect();
        assert!(held.iter().all(|h| matches!(h, Serialized::Shared(_))));
        assert!(CURAND_CALLS.try_write().is_err());
        drop(held);
        // An MT19937 call holds it alone: no other call, of any kind, meanwhile.
        let alone = serialize(Kind::Pseudo(Pseudo::Mt19937));
        assert!(matches!(alone, Serialized::Alone(_)));
        assert!(CURAND_CALLS.try_read().is_err());
        drop(alone);
        assert!(matches!(
            serialize(Kind::Pseudo(Pseudo::Xorwow)),
            Serialized::Shared(_)
        ));
    }

    #[test]
    fn a_build_without_curand_says_what_to_set() {
        // Both builds are checked: with cuRAND linked this must be `Ok`, without (the feature
        // on, no library found) an error naming the variable and the wheel.
        let (missing, env, wheel) = (
            cfg!(custack_no_curand),
            "CUSTACK_CURAND_LIB_DIR",
            "nvidia-curand",
        );
        assert_says_what_to_set(not_linked(), missing, env, wheel);
    }
}
