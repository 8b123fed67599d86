//! What a generator is: a pseudo-random algorithm ([`Pseudo`]) or a quasi-random sequence
//! ([`Quasi`]) with its dimensions, as [`Kind`], and what each can do.

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
    /// `CURAND_RNG_QUASI_SOBOL64`: Sobol' points of 64 bits ([`Generator::bits64`](crate::rand::Generator::bits64)).
    Sobol64,
    /// `CURAND_RNG_QUASI_SCRAMBLED_SOBOL64`: scrambled Sobol' points of 64 bits.
    ScrambledSobol64,
}

/// What a [`Generator`](crate::rand::Generator) is: a pseudo-random algorithm, or a quasi-random sequence with its
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

    /// Whether it makes 64-bit values ([`Generator::bits64`](crate::rand::Generator::bits64)): the 64-bit Sobol' sequences.
    pub fn is_64_bit(self) -> bool {
        matches!(
            self,
            Self::Quasi(Quasi::Sobol64 | Quasi::ScrambledSobol64, _)
        )
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
