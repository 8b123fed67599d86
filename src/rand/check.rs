//! The checks every [`Rng`] and [`HostRng`] call makes before it calls cuRAND: the
//! number of values against what the generator can make in one call, each distribution's
//! parameters, and the ordering against the generator's kind.
//!
//! Pure functions of numbers, so they are tested without a GPU. Each error's detail names the
//! cuRAND call and the argument, and what was left undone (`curandGenerateNormal: n 1001 is
//! odd; …; nothing was enqueued`, or `nothing was written` for a host generator).
//!
//! [`Rng`]: crate::rand::generator::Rng
//! [`HostRng`]: crate::rand::host::HostRng

use crate::error::{Error, ErrorKind, Result};
use crate::rand::kind::{Kind, Ordering};

/// Where a generator makes its values: what a refused fill left undone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// On the device, into device memory, in stream order (`curandCreateGenerator`).
    Device,
    /// On the CPU, into host memory, before the call returns (`curandCreateGeneratorHost`).
    Host,
}

impl Target {
    /// What a refused call left undone.
    pub(crate) fn undone(self) -> &'static str {
        match self {
            Self::Device => "nothing was enqueued",
            Self::Host => "nothing was written",
        }
    }
}

#[cold]
#[inline(never)]
fn refused(call: &str, target: Target, what: &str) -> Error {
    Error::custack(
        ErrorKind::InvalidValue,
        format!("{call}: {what}; {}", target.undone()),
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
pub(crate) fn length(
    call: &str,
    target: Target,
    kind: Kind,
    values: Values,
    n: usize,
) -> Result<()> {
    match kind {
        Kind::Quasi(_, dimensions) => {
            let dims = dimensions as usize;
            if dims != 0 && n % dims != 0 {
                return Err(refused(
                    call,
                    target,
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
                    target,
                    &format!("n {n} is odd; this generator makes normal values in pairs"),
                ));
            }
        }
    }
    Ok(())
}

/// A normal or log-normal distribution's parameters: a finite `mean` and a finite, non-negative
/// `stddev`.
pub(crate) fn normal(call: &str, target: Target, mean: f64, stddev: f64) -> Result<()> {
    if !mean.is_finite() {
        return Err(refused(call, target, &format!("mean {mean} is not finite")));
    }
    if !stddev.is_finite() || stddev < 0.0 {
        return Err(refused(
            call,
            target,
            &format!("stddev {stddev} is not a finite number ≥ 0"),
        ));
    }
    Ok(())
}

/// A Poisson distribution's mean: finite and positive.
pub(crate) fn poisson(call: &str, target: Target, lambda: f64) -> Result<()> {
    if !lambda.is_finite() || lambda <= 0.0 {
        return Err(refused(
            call,
            target,
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

/// An ordering a generator of `kind` made on `target` takes ([`Ordering`]'s table; cuRAND's
/// `CURAND_STATUS_OUT_OF_RANGE` otherwise).
pub(crate) fn ordering(kind: Kind, target: Target, ordering: Ordering) -> Result<()> {
    match ordering.refusal(kind, target == Target::Host) {
        None => Ok(()),
        Some(why) => Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "curandSetGeneratorOrdering: {} for a {kind:?} {} generator: {why}; nothing \
                 was set",
                ordering.name(),
                match target {
                    Target::Device => "device",
                    Target::Host => "host",
                }
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rand::kind::{Ordering, Pseudo, Quasi};

    fn err(r: Result<()>) -> (ErrorKind, String) {
        let e = r.expect_err("must be refused");
        (e.kind(), e.detail().unwrap_or_default().to_owned())
    }

    #[test]
    fn xorwow_and_mrg32k3a_make_normals_in_pairs() {
        let call = "curandGenerateNormal";
        for kind in [Pseudo::Xorwow, Pseudo::Mrg32k3a] {
            let kind = Kind::Pseudo(kind);
            length(call, Target::Device, kind, Values::Normal, 1000).unwrap();
            length(call, Target::Device, kind, Values::Normal, 0).unwrap();
            assert_eq!(
                err(length(call, Target::Device, kind, Values::Normal, 1001)),
                (
                    ErrorKind::InvalidValue,
                    "curandGenerateNormal: n 1001 is odd; this generator makes normal values in \
                     pairs; nothing was enqueued"
                        .to_owned()
                )
            );
            // Single values may be odd in number.
            length(
                "curandGenerateUniform",
                Target::Device,
                kind,
                Values::Single,
                1001,
            )
            .unwrap();
        }
        // The others make any count.
        for kind in [Pseudo::Mtgp32, Pseudo::Mt19937, Pseudo::Philox4x32_10] {
            length(
                call,
                Target::Device,
                Kind::Pseudo(kind),
                Values::Normal,
                1001,
            )
            .unwrap();
        }
    }

    #[test]
    fn quasi_random_values_come_in_whole_points() {
        let kind = Kind::Quasi(Quasi::Sobol32, 3);
        length("curandGenerate", Target::Device, kind, Values::Single, 9).unwrap();
        length(
            "curandGenerateNormal",
            Target::Device,
            kind,
            Values::Normal,
            3,
        )
        .unwrap();
        let (k, detail) = err(length(
            "curandGenerate",
            Target::Device,
            kind,
            Values::Single,
            10,
        ));
        assert_eq!(k, ErrorKind::InvalidValue);
        assert_eq!(
            detail,
            "curandGenerate: n 10 is not a multiple of the generator's 3 dimensions (a \
             quasi-random generator makes whole points); nothing was enqueued"
        );
        // One dimension: any n, odd normals included (no pairs for quasi-random generators).
        length(
            "curandGenerateNormal",
            Target::Device,
            Kind::Quasi(Quasi::ScrambledSobol64, 1),
            Values::Normal,
            7,
        )
        .unwrap();
    }

    #[test]
    fn distribution_parameters_are_finite_and_in_range() {
        normal("curandGenerateNormal", Target::Device, -3.5, 0.0).unwrap();
        normal("curandGenerateNormal", Target::Device, 0.0, 2.0).unwrap();
        assert_eq!(
            err(normal("curandGenerateNormal", Target::Device, 0.0, -1.0)).1,
            "curandGenerateNormal: stddev -1 is not a finite number ≥ 0; nothing was enqueued"
        );
        assert_eq!(
            err(normal(
                "curandGenerateLogNormal",
                Target::Device,
                f64::NAN,
                1.0
            ))
            .1,
            "curandGenerateLogNormal: mean NaN is not finite; nothing was enqueued"
        );
        assert!(normal("x", Target::Device, 0.0, f64::INFINITY).is_err());
        poisson("curandGeneratePoisson", Target::Device, 0.5).unwrap();
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                err(poisson("curandGeneratePoisson", Target::Device, bad)).0,
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

    #[test]
    fn a_host_generator_refuses_with_what_it_left_unwritten() {
        let kind = Kind::Pseudo(Pseudo::Xorwow);
        assert_eq!(
            err(length(
                "curandGenerateNormal",
                Target::Host,
                kind,
                Values::Normal,
                7
            ))
            .1,
            "curandGenerateNormal: n 7 is odd; this generator makes normal values in pairs; \
             nothing was written"
        );
        assert_eq!(
            err(poisson("curandGeneratePoisson", Target::Host, -2.0)).1,
            "curandGeneratePoisson: lambda -2 is not a finite number > 0; nothing was written"
        );
        assert_eq!(
            err(normal("curandGenerateNormal", Target::Host, 0.0, -1.0)).0,
            ErrorKind::InvalidValue
        );
    }

    const PSEUDO: [Pseudo; 5] = [
        Pseudo::Xorwow,
        Pseudo::Mrg32k3a,
        Pseudo::Mtgp32,
        Pseudo::Mt19937,
        Pseudo::Philox4x32_10,
    ];
    const QUASI: [Quasi; 4] = [
        Quasi::Sobol32,
        Quasi::ScrambledSobol32,
        Quasi::Sobol64,
        Quasi::ScrambledSobol64,
    ];
    const ORDERINGS: [Ordering; 6] = [
        Ordering::PseudoBest,
        Ordering::PseudoDefault,
        Ordering::PseudoSeeded,
        Ordering::PseudoLegacy,
        Ordering::PseudoDynamic,
        Ordering::QuasiDefault,
    ];

    /// What cuRAND answered to `curandSetGeneratorOrdering` for each kind and ordering (cuRAND
    /// 10.4 on an H100 for device generators, 10.3.3 and 10.4 for host ones): `true` for
    /// success, `false` for `CURAND_STATUS_OUT_OF_RANGE`. Written out pair by pair, not derived
    /// from the rule under test.
    fn curand_accepts(kind: Kind, target: Target, ordering: Ordering) -> bool {
        use Ordering as O;
        let host = target == Target::Host;
        match kind {
            Kind::Quasi(..) => ordering == O::QuasiDefault,
            Kind::Pseudo(Pseudo::Xorwow) => match ordering {
                O::PseudoBest | O::PseudoDefault | O::PseudoSeeded | O::PseudoLegacy => true,
                O::PseudoDynamic => !host,
                O::QuasiDefault => false,
            },
            Kind::Pseudo(Pseudo::Mt19937) => match ordering {
                O::PseudoDefault | O::PseudoLegacy => true,
                O::PseudoBest => !host,
                O::PseudoSeeded | O::PseudoDynamic | O::QuasiDefault => false,
            },
            Kind::Pseudo(_) => match ordering {
                O::PseudoBest | O::PseudoDefault | O::PseudoLegacy => true,
                O::PseudoDynamic => !host,
                O::PseudoSeeded | O::QuasiDefault => false,
            },
        }
    }

    #[test]
    fn orderings_are_refused_exactly_where_curand_refuses_them() {
        let kinds = PSEUDO
            .into_iter()
            .map(Kind::Pseudo)
            .chain(QUASI.into_iter().map(|q| Kind::Quasi(q, 2)));
        let mut refused = 0;
        for kind in kinds {
            for target in [Target::Device, Target::Host] {
                for o in ORDERINGS {
                    let result = ordering(kind, target, o);
                    assert_eq!(
                        result.is_ok(),
                        curand_accepts(kind, target, o),
                        "{kind:?} {target:?} {o:?}"
                    );
                    if let Err(e) = result {
                        refused += 1;
                        assert_eq!(e.kind(), ErrorKind::InvalidValue);
                        let detail = e.detail().unwrap_or_default();
                        assert!(
                            detail.starts_with("curandSetGeneratorOrdering: "),
                            "{detail}"
                        );
                        assert!(detail.contains(o.name()), "{detail}");
                        assert!(detail.contains(&format!("{kind:?}")), "{detail}");
                        assert!(detail.ends_with("; nothing was set"), "{detail}");
                    }
                }
            }
        }
        // 4 quasi kinds × 5 pseudo orderings × 2 targets, 5 pseudo kinds × QuasiDefault × 2,
        // seeded for the 4 kinds but XORWOW × 2, dynamic for MT19937 (device) and every pseudo
        // kind (host), best for MT19937 (host).
        assert_eq!(refused, 40 + 10 + 8 + 1 + 5 + 1);
    }

    #[test]
    fn an_ordering_refusal_names_the_ordering_the_kind_and_why() {
        assert_eq!(
            err(ordering(
                Kind::Pseudo(Pseudo::Philox4x32_10),
                Target::Device,
                Ordering::PseudoSeeded
            ))
            .1,
            "curandSetGeneratorOrdering: CURAND_ORDERING_PSEUDO_SEEDED for a \
             Pseudo(Philox4x32_10) device generator: only XORWOW takes the seeded ordering; \
             nothing was set"
        );
        assert_eq!(
            err(ordering(
                Kind::Pseudo(Pseudo::Xorwow),
                Target::Host,
                Ordering::PseudoDynamic
            ))
            .1,
            "curandSetGeneratorOrdering: CURAND_ORDERING_PSEUDO_DYNAMIC for a Pseudo(Xorwow) \
             host generator: a host generator takes no dynamic ordering (it has no device to \
             adjust to); nothing was set"
        );
    }
}
