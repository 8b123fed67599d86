//! The tail method of the timing benches (`benches/timing/stats.rs`, printed by
//! `run_phase_tail`) checked on synthetic samples whose distribution is known: the maximum-
//! likelihood fit recovers a generalized Pareto distribution's shape and scale, the goodness-of-
//! fit statistics are small for the right model and large for a wrong one, and the
//! extrapolated level lands near the true one, inside its bootstrap interval. No GPU; seeded,
//! so every run computes the same figures.

#[path = "../timing/stats.rs"]
#[allow(dead_code)]
mod stats;

use stats::{
    Gpd, Rng, Summary, TailMethod, ad_statistic, ks_statistic, nearest_rank, qq_correlation,
};

fn sample(model: Gpd, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| model.sample(&mut rng)).collect()
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

#[test]
fn nearest_rank_quantiles_are_the_textbook_ones() {
    let v: Vec<u64> = (1..=1000).collect();
    assert_eq!(nearest_rank(&v, 0.5), Some(500));
    assert_eq!(nearest_rank(&v, 0.99), Some(990));
    assert_eq!(nearest_rank(&v, 0.999), Some(999));
    assert_eq!(nearest_rank(&v, 1.0), Some(1000));
    assert_eq!(nearest_rank(&v, 0.0), Some(1));
    assert_eq!(nearest_rank::<u64>(&[], 0.5), None);
    // Fewer samples than the quantile resolves: p99.9 of 5 is the maximum.
    let mut five = vec![5.0, 1.0, 4.0, 2.0, 3.0];
    let s = Summary::of(&mut five).unwrap();
    assert_eq!(
        (s.n, s.min, s.p50, s.p99, s.p999, s.max),
        (5, 1.0, 3.0, 5.0, 5.0, 5.0)
    );
    let mut w: Vec<u64> = (1..=1000).rev().collect();
    assert_eq!(stats::nearest_rank_select(&mut w, 0.99), Some(990));
}

#[test]
fn the_distribution_functions_invert_each_other() {
    for model in [
        Gpd {
            xi: 0.3,
            sigma: 2.0,
        },
        Gpd {
            xi: 0.0,
            sigma: 1.5,
        },
        Gpd {
            xi: -0.25,
            sigma: 1.0,
        },
    ] {
        for tail in [0.5, 1e-3, 1e-9] {
            let y = model.upper_quantile(tail);
            let back = 1.0 - model.cdf(y);
            assert!((back / tail - 1.0).abs() < 1e-6, "{model:?} {tail}: {back}");
        }
    }
    // ξ < 0: a bounded tail, ending at σ/|ξ|.
    let bounded = Gpd {
        xi: -0.25,
        sigma: 1.0,
    };
    assert!(bounded.cdf(4.0) >= 1.0);
    assert!(bounded.cdf(3.9) < 1.0);
}

/// KS and AD on samples small enough to write out, against the unit exponential
/// (F(y) = 1 − e^-y): the largest distance may lie on either side of the empirical steps, and
/// AD sums both tails' terms.
#[test]
fn ks_and_ad_are_the_textbook_statistics() {
    let unit = Gpd {
        xi: 0.0,
        sigma: 1.0,
    };
    let f = |y: f64| 1.0 - (-y).exp();
    // Small values: the empirical function is above the model; the distance is 1 − F(0.3).
    let low = ks_statistic(&[0.1, 0.2, 0.3], unit);
    assert!((low - (1.0 - f(0.3))).abs() < 1e-12, "{low}");
    // Large values: below it; the distance is F(2) − 0.
    let high = ks_statistic(&[2.0, 3.0, 4.0], unit);
    assert!((high - f(2.0)).abs() < 1e-12, "{high}");
    // A² = −k − (1/k)·Σ (2i − 1)(ln F(y_i) + ln(1 − F(y_{k+1−i}))), k = 2, y = (0.5, 2):
    // i = 1 pairs F(0.5) with the survival of 2, i = 2 pairs F(2) with that of 0.5.
    let k = 2.0;
    let want = -k - (1.0 * (f(0.5).ln() - 2.0) + 3.0 * (f(2.0).ln() - 0.5)) / k;
    let ad = ad_statistic(&[0.5, 2.0], unit);
    assert!((ad - want).abs() < 1e-12, "{ad} vs {want}");
}

/// The fit recovers (ξ, σ) within about four standard errors of the estimator at n = 4,000
/// (ξ's is about (1 + ξ)/√n ≈ 0.02), for a heavy, an exponential and a bounded tail.
#[test]
fn the_fit_recovers_known_shape_and_scale() {
    for (model, seed) in [
        (
            Gpd {
                xi: 0.2,
                sigma: 1.0,
            },
            1,
        ),
        (
            Gpd {
                xi: 0.0,
                sigma: 1500.0,
            },
            2,
        ),
        (
            Gpd {
                xi: -0.2,
                sigma: 2.0,
            },
            3,
        ),
        (
            Gpd {
                xi: 0.6,
                sigma: 40.0,
            },
            4,
        ),
    ] {
        let y = sample(model, 4000, seed);
        let fit = Gpd::fit(&y).unwrap();
        assert!((fit.xi - model.xi).abs() < 0.08, "{model:?}: {fit:?}");
        assert!(
            (fit.sigma / model.sigma - 1.0).abs() < 0.1,
            "{model:?}: {fit:?}"
        );
        // The fit is a maximum: the true parameters are no likelier.
        assert!(fit.log_likelihood(&y) >= model.log_likelihood(&y));
    }
    // Too few exceedances, or a value that is no excess: no fit.
    assert!(
        Gpd::fit(&sample(
            Gpd {
                xi: 0.1,
                sigma: 1.0
            },
            10,
            5
        ))
        .is_none()
    );
    assert!(Gpd::fit(&[1.0; 40].iter().copied().chain([0.0]).collect::<Vec<_>>()).is_none());
}

/// A sample of two separated humps, which no generalized Pareto distribution describes.
fn two_humps(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let e = -(1.0 - rng.uniform()).ln();
            if i % 2 == 0 { e } else { 10.0 + e }
        })
        .collect()
}

#[test]
fn the_fit_statistics_are_small_for_the_right_model_and_large_for_a_wrong_one() {
    let model = Gpd {
        xi: 0.3,
        sigma: 1.0,
    };
    let y = sorted(sample(model, 2000, 11));
    let fit = Gpd::fit(&y).unwrap();
    // The right model: KS well below its 5 % critical value (1.36/√n ≈ 0.030).
    let ks = ks_statistic(&y, fit);
    assert!(ks < 0.03, "{ks}");
    assert!(ad_statistic(&y, fit) < 2.5, "{}", ad_statistic(&y, fit));
    assert!(
        qq_correlation(&y, fit) > 0.95,
        "{}",
        qq_correlation(&y, fit)
    );
    // The same sample against a wrong model (an exponential of the same mean): far apart.
    let mean = y.iter().sum::<f64>() / 2000.0;
    let exponential = Gpd {
        xi: 0.0,
        sigma: mean,
    };
    assert!(
        ks_statistic(&y, exponential) > 0.05,
        "{}",
        ks_statistic(&y, exponential)
    );
    assert!(ad_statistic(&y, exponential) > 10.0);
    // A sample no GPD fits, against its best fit.
    let humps = sorted(two_humps(2000, 12));
    let bad = Gpd::fit(&humps).unwrap();
    assert!(
        ks_statistic(&humps, bad) > 0.1,
        "{}",
        ks_statistic(&humps, bad)
    );
}

fn method(boot: usize, gof_boot: usize) -> TailMethod {
    TailMethod {
        threshold_q: 0.99,
        p: 1e-6,
        boot,
        gof_boot,
        seed: 2024,
        threads: 4,
    }
}

/// Latencies in whole nanoseconds with a known tail: 5 µs, plus a GPD(0.1, 800 ns) excess;
/// 10^5 of them, 1,000 above the threshold, the level extrapolated four decades below it.
/// Above the 99th percentile u, the excess over u is a GPD with the same ξ and σ + ξ·(u − 5000)
/// (the GPD's threshold stability), so the level exceeded with probability 10^-6 is known:
/// 5000 + 800/0.1·((10^-6)^-0.1 − 1). Four samples (ξ's estimate spreads by about 0.035 at
/// 1,000 exceedances): every estimate within 35 % of the truth, and the truth inside the 95 %
/// interval in at least three of the four.
#[test]
fn the_extrapolated_level_is_near_the_truth_and_inside_its_interval() {
    let model = Gpd {
        xi: 0.1,
        sigma: 800.0,
    };
    let truth = 5000.0 + model.upper_quantile(1e-6);
    let mut covered = 0;
    for seed in 1..=4 {
        let mut rng = Rng::new(seed);
        let samples: Vec<u64> = (0..100_000)
            .map(|_| 5000 + model.sample(&mut rng).ceil() as u64)
            .collect();
        let tail = method(40, 20).estimate(&samples);
        assert_eq!(tail.n, 100_000);
        assert!((950..=1000).contains(&tail.k), "{}", tail.k);
        let fit = tail.fit.as_ref().unwrap();
        assert!((fit.gpd.xi - 0.1).abs() < 0.15, "{fit:?}");
        assert!(
            (fit.level / truth - 1.0).abs() < 0.35,
            "{} vs {truth}",
            fit.level
        );
        assert!(
            fit.level_ci.0 <= fit.level && fit.level <= fit.level_ci.1,
            "{fit:?}"
        );
        covered += usize::from(fit.level_ci.0 <= truth && truth <= fit.level_ci.1);
        // The right model is not rejected.
        assert!(fit.ks.1 > 0.05 && fit.ad.1 > 0.05, "{fit:?}");
        // Beyond the measured maximum: an extrapolation.
        assert!(fit.level > tail.max);
    }
    assert!(
        covered >= 3,
        "the truth {truth} inside {covered} of 4 intervals"
    );
}

/// Two humps above the threshold: the goodness-of-fit p-values reject the GPD.
#[test]
fn the_goodness_of_fit_p_values_reject_a_tail_that_is_no_gpd() {
    let mut rng = Rng::new(9);
    // 99 % at about 1 µs, 1 % in two humps far above it.
    let samples: Vec<u64> = (0..20_000)
        .map(|i| {
            if i % 100 == 0 {
                let e = (-(1.0 - rng.uniform()).ln() * 100.0) as u64;
                if i % 200 == 0 { 5000 + e } else { 20_000 + e }
            } else {
                1000 + (rng.uniform() * 50.0) as u64
            }
        })
        .collect();
    let tail = method(20, 40).estimate(&samples);
    let fit = tail.fit.unwrap();
    assert!(fit.ks.1 < 0.05 && fit.ad.1 < 0.05, "{fit:?}");
    assert!(fit.ks.0 > 0.1, "{fit:?}");
}

/// The figures do not depend on how many threads compute the replicates.
#[test]
fn the_figures_do_not_depend_on_the_threads() {
    let model = Gpd {
        xi: 0.2,
        sigma: 300.0,
    };
    let mut rng = Rng::new(3);
    let samples: Vec<u64> = (0..10_000)
        .map(|_| 2000 + model.sample(&mut rng) as u64)
        .collect();
    let one = TailMethod {
        threads: 1,
        ..method(16, 16)
    }
    .estimate(&samples);
    let three = TailMethod {
        threads: 3,
        ..method(16, 16)
    }
    .estimate(&samples);
    let (a, b) = (one.fit.unwrap(), three.fit.unwrap());
    assert_eq!((a.level_ci, a.ks, a.ad), (b.level_ci, b.ks, b.ad));
}
