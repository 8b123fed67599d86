//! The checks every [`Generator`] call makes before it enqueues anything: the number of values
//! against what the generator can make in one call, and each distribution's parameters.
//!
//! Pure functions of numbers, so they are tested without a GPU. Each error's detail names the
//! cuRAND call and the argument (`curandGenerateNormal: n 1001 is odd; …; nothing was
//! enqueued`).
//!
//! [`Generator`]: crate::rand::generator::Generator

use crate::error::{Error, ErrorKind, Result};
use crate::rand::kind::Kind;

#[cold]
#[inline(never)]
fn refused(call: &str, what: &str) -> Error {
    Error::custack(
        ErrorKind::InvalidValue,
        format!("{call}: {what}; nothing was enqueued"),
    )
}

/// What a generation call makes of its `n` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Values {
    /// Values each of which stands alone: bits, uniform, Poisson.
    Single,
    /// Normal and log-normal values, which XORWOW and MRG32k3a make in pairs (the Box–Muller
    /// transform) and a quasi-random generator by inverting the distribution function.
    Normal,
}

/// `n` values of a generator of `kind`: a quasi-random generator makes whole points, so `n` must
/// be a multiple of its dimensions; XORWOW and MRG32k3a make normal values in pairs
/// ([`Kind::normals_in_pairs`]), so `n` must be even for them (cuRAND's
/// `CURAND_STATUS_LENGTH_NOT_MULTIPLE` otherwise).
pub(crate) fn length(call: &str, kind: Kind, values: Values, n: usize) -> Result<()> {
    match kind {
        Kind::Quasi(_, dimensions) => {
            let dims = dimensions as usize;
            if dims != 0 && n % dims != 0 {
                return Err(refused(
                    call,
                    &format!(
                        "n {n} is not a multiple of the generator's {dims} dimensions (a \
                         quasi-random generator makes whole points)"
                    ),
                ));
            }
        }
        Kind::Pseudo(_) => {
            if values == Values::Normal && kind.normals_in_pairs() && n % 2 != 0 {
                return Err(refused(
                    call,
                    &format!("n {n} is odd; this generator makes normal values in pairs"),
                ));
            }
        }
    }
    Ok(())
}

/// A normal or log-normal distribution's parameters: a finite `mean` and a finite, non-negative
/// `stddev`.
pub(crate) fn normal(call: &str, mean: f64, stddev: f64) -> Result<()> {
    if !mean.is_finite() {
        return Err(refused(call, &format!("mean {mean} is not finite")));
    }
    if !stddev.is_finite() || stddev < 0.0 {
        return Err(refused(
            call,
            &format!("stddev {stddev} is not a finite number ≥ 0"),
        ));
    }
    Ok(())
}

/// A Poisson distribution's mean: finite and positive.
pub(crate) fn poisson(call: &str, lambda: f64) -> Result<()> {
    if !lambda.is_finite() || lambda <= 0.0 {
        return Err(refused(
            call,
            &format!("lambda {lambda} is not a finite number > 0"),
        ));
    }
    Ok(())
}

/// Dimensions of a quasi-random generator: 1 to 20,000 (cuRAND's range).
pub(crate) fn dimensions(dimensions: u32) -> Result<()> {
    if !(1..=MAX_DIMENSIONS).contains(&dimensions) {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "curandSetQuasiRandomGeneratorDimensions: {dimensions} dimensions, not 1 to \
                 {MAX_DIMENSIONS}; no generator was made"
            ),
        ));
    }
    Ok(())
}

/// The most dimensions cuRAND's quasi-random generators have.
pub(crate) const MAX_DIMENSIONS: u32 = 20_000;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rand::kind::{Pseudo, Quasi};

    fn err(r: Result<()>) -> (ErrorKind, String) {
        let e = r.expect_err("must be refused");
        (e.kind(), e.detail().unwrap_or_default().to_owned())
    }

    #[test]
    fn xorwow_and_mrg32k3a_make_normals_in_pairs() {
        let call = "curandGenerateNormal";
        for kind in [Pseudo::Xorwow, Pseudo::Mrg32k3a] {
            let kind = Kind::Pseudo(kind);
            length(call, kind, Values::Normal, 1000).unwrap();
            length(call, kind, Values::Normal, 0).unwrap();
            assert_eq!(
                err(length(call, kind, Values::Normal, 1001)),
                (
                    ErrorKind::InvalidValue,
                    "curandGenerateNormal: n 1001 is odd; this generator makes normal values in \
                     pairs; nothing was enqueued"
                        .to_owned()
                )
            );
            // Single values may be odd in number.
            length("curandGenerateUniform", kind, Values::Single, 1001).unwrap();
        }
        // The others make any count.
        for kind in [Pseudo::Mtgp32, Pseudo::Mt19937, Pseudo::Philox4x32_10] {
            length(call, Kind::Pseudo(kind), Values::Normal, 1001).unwrap();
        }
    }

    #[test]
    fn quasi_random_values_come_in_whole_points() {
        let kind = Kind::Quasi(Quasi::Sobol32, 3);
        length("curandGenerate", kind, Values::Single, 9).unwrap();
        length("curandGenerateNormal", kind, Values::Normal, 3).unwrap();
        let (k, detail) = err(length("curandGenerate", kind, Values::Single, 10));
        assert_eq!(k, ErrorKind::InvalidValue);
        assert_eq!(
            detail,
            "curandGenerate: n 10 is not a multiple of the generator's 3 dimensions (a \
             quasi-random generator makes whole points); nothing was enqueued"
        );
        // One dimension: any n, odd normals included (no pairs for quasi-random generators).
        length(
            "curandGenerateNormal",
            Kind::Quasi(Quasi::ScrambledSobol64, 1),
            Values::Normal,
            7,
        )
        .unwrap();
    }

    #[test]
    fn distribution_parameters_are_finite_and_in_range() {
        normal("curandGenerateNormal", -3.5, 0.0).unwrap();
        normal("curandGenerateNormal", 0.0, 2.0).unwrap();
        assert_eq!(
            err(normal("curandGenerateNormal", 0.0, -1.0)).1,
            "curandGenerateNormal: stddev -1 is not a finite number ≥ 0; nothing was enqueued"
        );
        assert_eq!(
            err(normal("curandGenerateLogNormal", f64::NAN, 1.0)).1,
            "curandGenerateLogNormal: mean NaN is not finite; nothing was enqueued"
        );
        assert!(normal("x", 0.0, f64::INFINITY).is_err());
        poisson("curandGeneratePoisson", 0.5).unwrap();
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                err(poisson("curandGeneratePoisson", bad)).0,
                ErrorKind::InvalidValue
            );
        }
    }

    #[test]
    fn dimensions_are_one_to_twenty_thousand() {
        dimensions(1).unwrap();
        dimensions(MAX_DIMENSIONS).unwrap();
        assert_eq!(
            err(dimensions(0)).1,
            "curandSetQuasiRandomGeneratorDimensions: 0 dimensions, not 1 to 20000; no \
             generator was made"
        );
        assert!(dimensions(MAX_DIMENSIONS + 1).is_err());
    }
}
