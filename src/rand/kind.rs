//! What a generator is: a pseudo-random algorithm ([`Pseudo`]) or a quasi-random sequence
//! ([`Quasi`]) with its dimensions, as [`Kind`], and what each can do; the orders its results
//! can come in ([`Ordering`]).

use crate::ffi;

/// A pseudo-random algorithm: a sequence fixed by a seed, read from an offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Pseudo {
    /// `CURAND_RNG_PSEUDO_XORWOW`: xorshift with a Weyl sequence (cuRAND's default).
    Xorwow,
    /// `CURAND_RNG_PSEUDO_MRG32K3A`: L'Ecuyer's combined multiple recursive generator.
    Mrg32k3a,
    /// `CURAND_RNG_PSEUDO_MTGP32`: the Mersenne Twister for GPUs. Has no offset.
    Mtgp32,
    /// `CURAND_RNG_PSEUDO_MT19937`: the Mersenne Twister MT19937. Has no offset.
    Mt19937,
    /// `CURAND_RNG_PSEUDO_PHILOX4_32_10`: the counter-based Philox-4×32 with 10 rounds.
    Philox4x32_10,
}

/// A quasi-random (low-discrepancy) sequence: points of its dimensions, no seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Quasi {
    /// `CURAND_RNG_QUASI_SOBOL32`: Sobol' points of 32 bits.
    Sobol32,
    /// `CURAND_RNG_QUASI_SCRAMBLED_SOBOL32`: scrambled Sobol' points of 32 bits.
    ScrambledSobol32,
    /// `CURAND_RNG_QUASI_SOBOL64`: Sobol' points of 64 bits ([`Rng::bits64`](crate::rand::Rng::bits64)).
    Sobol64,
    /// `CURAND_RNG_QUASI_SCRAMBLED_SOBOL64`: scrambled Sobol' points of 64 bits.
    ScrambledSobol64,
}

/// What a [`Rng`](crate::rand::Rng) is: a pseudo-random algorithm, or a quasi-random sequence with its
/// number of dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A pseudo-random generator.
    Pseudo(Pseudo),
    /// A quasi-random generator and its dimensions (1 to 20,000).
    Quasi(Quasi, u32),
}

impl Kind {
    pub(crate) fn raw(self) -> ffi::curand::curandRngType_t {
        use ffi::curand::curandRngType_t as T;
        match self {
            Self::Pseudo(Pseudo::Xorwow) => T::CURAND_RNG_PSEUDO_XORWOW,
            Self::Pseudo(Pseudo::Mrg32k3a) => T::CURAND_RNG_PSEUDO_MRG32K3A,
            Self::Pseudo(Pseudo::Mtgp32) => T::CURAND_RNG_PSEUDO_MTGP32,
            Self::Pseudo(Pseudo::Mt19937) => T::CURAND_RNG_PSEUDO_MT19937,
            Self::Pseudo(Pseudo::Philox4x32_10) => T::CURAND_RNG_PSEUDO_PHILOX4_32_10,
            Self::Quasi(Quasi::Sobol32, _) => T::CURAND_RNG_QUASI_SOBOL32,
            Self::Quasi(Quasi::ScrambledSobol32, _) => T::CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
            Self::Quasi(Quasi::Sobol64, _) => T::CURAND_RNG_QUASI_SOBOL64,
            Self::Quasi(Quasi::ScrambledSobol64, _) => T::CURAND_RNG_QUASI_SCRAMBLED_SOBOL64,
        }
    }

    /// Whether the generator's offset can be set: not for the two Mersenne Twisters, whose
    /// sequences cuRAND cannot skip ahead in (`CURAND_STATUS_TYPE_ERROR`).
    pub fn has_offset(self) -> bool {
        !matches!(self, Self::Pseudo(Pseudo::Mtgp32 | Pseudo::Mt19937))
    }

    /// Whether it makes normal (and log-normal) values in pairs, so that their number must be
    /// even: XORWOW and MRG32k3a, whose Box–Muller transform cuRAND applies to pairs (cuRAND
    /// answers `CURAND_STATUS_LENGTH_NOT_MULTIPLE` to an odd count from them; measured on
    /// cuRAND 10.4, the MTGP32, MT19937 and Philox generators and the quasi-random ones make any
    /// count).
    pub fn normals_in_pairs(self) -> bool {
        matches!(self, Self::Pseudo(Pseudo::Xorwow | Pseudo::Mrg32k3a))
    }

    /// Whether it makes 64-bit values ([`Rng::bits64`](crate::rand::Rng::bits64)): the 64-bit Sobol' sequences.
    pub fn is_64_bit(self) -> bool {
        matches!(
            self,
            Self::Quasi(Quasi::Sobol64 | Quasi::ScrambledSobol64, _)
        )
    }
}

/// The order of a generator's results in memory (`curandOrdering_t`), set by
/// [`Rng::set_ordering`](crate::rand::Rng::set_ordering) and
/// [`HostRng::set_ordering`](crate::rand::HostRng::set_ordering).
///
/// Which kinds take which ordering, as cuRAND 10.4 answered on an H100 for device generators and
/// cuRAND 10.3 and 10.4 for host generators (any other pair is `CURAND_STATUS_OUT_OF_RANGE`,
/// which custack refuses before calling cuRAND):
///
/// | ordering | device generator | host generator |
/// | --- | --- | --- |
/// | `PseudoDefault`, `PseudoLegacy` | every pseudo-random kind | every pseudo-random kind |
/// | `PseudoBest` | every pseudo-random kind | every pseudo-random kind but `Mt19937` |
/// | `PseudoSeeded` | `Xorwow` | `Xorwow` |
/// | `PseudoDynamic` | every pseudo-random kind but `Mt19937` | none |
/// | `QuasiDefault` | every quasi-random kind | every quasi-random kind |
///
/// A generator starts with its default (`PseudoDefault` or `QuasiDefault`).
///
/// # References
///
/// <https://docs.nvidia.com/cuda/curand/host-api-overview.html>
#[doc(alias = "curandOrdering_t")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Ordering {
    /// `CURAND_ORDERING_PSEUDO_BEST`: the order cuRAND finds best; a later cuRAND may change it
    /// (deterministic for one version).
    PseudoBest,
    /// `CURAND_ORDERING_PSEUDO_DEFAULT`: a pseudo-random generator's default.
    PseudoDefault,
    /// `CURAND_ORDERING_PSEUDO_SEEDED`: a faster seeding of lower quality (`Xorwow` only).
    PseudoSeeded,
    /// `CURAND_ORDERING_PSEUDO_LEGACY`: the same sequence in every cuRAND release.
    PseudoLegacy,
    /// `CURAND_ORDERING_PSEUDO_DYNAMIC`: adjusted to the device it runs on, for speed; the
    /// values may differ between GPU models and cuRAND versions (device generators only).
    PseudoDynamic,
    /// `CURAND_ORDERING_QUASI_DEFAULT`: a quasi-random generator's only order, dimension by
    /// dimension.
    QuasiDefault,
}

impl Ordering {
    pub(crate) fn raw(self) -> ffi::curand::curandOrdering_t {
        use ffi::curand::curandOrdering_t as O;
        match self {
            Self::PseudoBest => O::CURAND_ORDERING_PSEUDO_BEST,
            Self::PseudoDefault => O::CURAND_ORDERING_PSEUDO_DEFAULT,
            Self::PseudoSeeded => O::CURAND_ORDERING_PSEUDO_SEEDED,
            Self::PseudoLegacy => O::CURAND_ORDERING_PSEUDO_LEGACY,
            Self::PseudoDynamic => O::CURAND_ORDERING_PSEUDO_DYNAMIC,
            Self::QuasiDefault => O::CURAND_ORDERING_QUASI_DEFAULT,
        }
    }

    /// cuRAND's name of the ordering (`CURAND_ORDERING_PSEUDO_BEST`, …).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::PseudoBest => "CURAND_ORDERING_PSEUDO_BEST",
            Self::PseudoDefault => "CURAND_ORDERING_PSEUDO_DEFAULT",
            Self::PseudoSeeded => "CURAND_ORDERING_PSEUDO_SEEDED",
            Self::PseudoLegacy => "CURAND_ORDERING_PSEUDO_LEGACY",
            Self::PseudoDynamic => "CURAND_ORDERING_PSEUDO_DYNAMIC",
            Self::QuasiDefault => "CURAND_ORDERING_QUASI_DEFAULT",
        }
    }

    /// Why a generator of `kind` (made on the host if `on_host`) cannot take this ordering, or
    /// `None` if it can (the table above).
    pub(crate) fn refusal(self, kind: Kind, on_host: bool) -> Option<&'static str> {
        let Kind::Pseudo(pseudo) = kind else {
            return (self != Self::QuasiDefault)
                .then_some("a quasi-random generator takes only CURAND_ORDERING_QUASI_DEFAULT");
        };
        let mt19937 = pseudo == Pseudo::Mt19937;
        match self {
            Self::PseudoDefault | Self::PseudoLegacy => None,
            Self::QuasiDefault => Some("a pseudo-random generator takes no quasi-random ordering"),
            Self::PseudoBest => {
                (on_host && mt19937).then_some("an MT19937 host generator takes no best ordering")
            }
            Self::PseudoSeeded => {
                (pseudo != Pseudo::Xorwow).then_some("only XORWOW takes the seeded ordering")
            }
            Self::PseudoDynamic if on_host => {
                Some("a host generator takes no dynamic ordering (it has no device to adjust to)")
            }
            Self::PseudoDynamic => mt19937.then_some("MT19937 takes no dynamic ordering"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_know_their_offsets_and_widths() {
        for p in [Pseudo::Xorwow, Pseudo::Mrg32k3a, Pseudo::Philox4x32_10] {
            assert!(Kind::Pseudo(p).has_offset());
            assert!(!Kind::Pseudo(p).is_64_bit());
        }
        assert!(Kind::Pseudo(Pseudo::Xorwow).normals_in_pairs());
        assert!(Kind::Pseudo(Pseudo::Mrg32k3a).normals_in_pairs());
        for p in [Pseudo::Mtgp32, Pseudo::Mt19937, Pseudo::Philox4x32_10] {
            assert!(!Kind::Pseudo(p).normals_in_pairs());
        }
        assert!(!Kind::Quasi(Quasi::Sobol32, 1).normals_in_pairs());
        assert!(!Kind::Pseudo(Pseudo::Mtgp32).has_offset());
        assert!(!Kind::Pseudo(Pseudo::Mt19937).has_offset());
        assert!(Kind::Quasi(Quasi::Sobol32, 2).has_offset());
        assert!(!Kind::Quasi(Quasi::ScrambledSobol32, 2).is_64_bit());
        assert!(Kind::Quasi(Quasi::Sobol64, 2).is_64_bit());
        assert!(Kind::Quasi(Quasi::ScrambledSobol64, 1).is_64_bit());
        assert_eq!(
            Kind::Pseudo(Pseudo::Philox4x32_10).raw(),
            ffi::curand::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10
        );
    }
}
