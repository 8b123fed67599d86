//! The statistics of the timing benches: order statistics of measured times, and the tail
//! method of `run_phase_tail` (peaks over threshold): a generalized Pareto distribution (GPD)
//! fitted by maximum likelihood to the exceedances over a high threshold, the quantile it
//! extrapolates to a small exceedance probability with a bootstrap confidence interval, and
//! its goodness of fit (Kolmogorov–Smirnov and Anderson–Darling statistics with p-values by
//! parametric bootstrap, and the QQ correlation). No dependency: a seeded generator of our own,
//! so that every figure is reproducible from its seed.
//!
//! What the extrapolation is: a statement about the measured latencies' distribution, under
//! the assumption that their tail above the threshold is a GPD and stays one beyond the data.
//! It is not a worst-case execution time: no bound can be derived for a closed driver.
//!
//! The method, as `run_phase_tail` prints it:
//! 1. the threshold `u` is the sample's `q`-quantile (nearest rank; `q` = 0.99 by default); the
//!    exceedances are the samples above it, `k` of the `n`;
//! 2. the samples are whole nanoseconds: each exceedance is `x − u − U`, `U` uniform in
//!    [0, 1) from the seeded generator, so that ties do not distort the fit or the statistics
//!    (a measured value stands for a time in the nanosecond below it);
//! 3. (ξ, σ) maximize the GPD likelihood of the exceedances: the likelihood profiled over
//!    θ = ξ/σ (for a given θ the maximizing ξ is the mean of ln(1 + θy), and σ = ξ/θ), θ found
//!    by a grid over its whole admissible range, then a golden-section search;
//! 4. the level exceeded with probability `p` (per sample) is
//!    `u + σ/ξ · ((k/(n·p))^ξ − 1)` (ξ = 0: `u + σ·ln(k/(n·p))`);
//! 5. its 95 % interval: the percentile interval over bootstrap replicates, each the `k`
//!    exceedances drawn again with replacement and refitted (`k/n` and `u` held fixed);
//! 6. the fit's goodness: the KS and AD statistics of the exceedances against the fitted GPD,
//!    their p-values by parametric bootstrap (samples of `k` drawn from the fitted GPD, each
//!    refitted, its statistics computed the same way: the parameters are estimated, so the
//!    statistics' textbook tables do not apply), and the correlation of the QQ plot.

/// `SplitMix64` (Steele, Lea and Flood's generator, as `java.util.SplittableRandom` has it):
/// small, fast and good enough for resampling; seeded, so every figure is reproducible.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub(crate) const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// A generator for replicate `index` of a computation seeded `seed`: the same stream
    /// whichever thread computes the replicate.
    pub(crate) fn derived(seed: u64, index: u64) -> Self {
        let mut r = Self(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    #[allow(clippy::cast_precision_loss, reason = "53 bits: exact")]
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (`n` > 0), by multiplication (the bias is below 2^-32 for the sizes
    /// resampled here).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The `q`-quantile of sorted `v` by nearest rank: the smallest value with at least a
/// fraction `q` of the sample at or below it (`v[⌈q·n⌉ − 1]`). `None` for an empty sample.
#[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
pub(crate) fn nearest_rank<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let rank = (q.clamp(0.0, 1.0) * n as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, n) - 1])
}

/// The same, on an unsorted sample, by selection (the sample is reordered): O(n).
pub(crate) fn nearest_rank_select<T: Copy + Ord>(v: &mut [T], q: f64) -> Option<T> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    #[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
    let rank = (q.clamp(0.0, 1.0) * n as f64).ceil() as usize;
    let (_, at, _) = v.select_nth_unstable(rank.clamp(1, n) - 1);
    Some(*at)
}

/// A measured distribution's order statistics: what the timing benches print for each
/// series (nearest rank, so p99.9 of 1,000 samples is the 999th smallest, and of fewer than
/// 1,000 it is the maximum).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Summary {
    /// Samples.
    pub(crate) n: usize,
    /// The smallest.
    pub(crate) min: f64,
    /// The median (nearest rank).
    pub(crate) p50: f64,
    /// The 99th percentile.
    pub(crate) p99: f64,
    /// The 99.9th percentile.
    pub(crate) p999: f64,
    /// The largest.
    pub(crate) max: f64,
}

impl Summary {
    /// The summary of `v` (sorted here); `None` for an empty sample.
    pub(crate) fn of(v: &mut [f64]) -> Option<Self> {
        v.sort_by(f64::total_cmp);
        Some(Self {
            n: v.len(),
            min: *v.first()?,
            p50: nearest_rank(v, 0.5)?,
            p99: nearest_rank(v, 0.99)?,
            p999: nearest_rank(v, 0.999)?,
            max: *v.last()?,
        })
    }
}

/// A generalized Pareto distribution of excesses over zero: `P(Y ≤ y) = 1 − (1 + ξy/σ)^(−1/ξ)`
/// (ξ = 0: `1 − e^(−y/σ)`), for `y ≥ 0` (and `y ≤ −σ/ξ` when ξ < 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gpd {
    /// The shape ξ: 0 an exponential tail, above 0 a heavy one, below 0 a bounded one.
    pub(crate) xi: f64,
    /// The scale σ (> 0).
    pub(crate) sigma: f64,
}

/// |ξ| below this is taken as 0 (the exponential), where the general formulas lose precision.
const XI_ZERO: f64 = 1e-9;

impl Gpd {
    /// `P(Y ≤ y)`.
    pub(crate) fn cdf(self, y: f64) -> f64 {
        if y <= 0.0 {
            return 0.0;
        }
        if self.xi.abs() < XI_ZERO {
            return -(-y / self.sigma).exp_m1();
        }
        let t = 1.0 + self.xi * y / self.sigma;
        if t <= 0.0 {
            return 1.0; // beyond a bounded tail's end
        }
        -((-1.0 / self.xi) * t.ln()).exp_m1()
    }

    /// The level exceeded with probability `tail` (in (0, 1]): the `1 − tail` quantile,
    /// computed from `tail` itself, so that a tail of 10^-12 keeps its precision.
    pub(crate) fn upper_quantile(self, tail: f64) -> f64 {
        if self.xi.abs() < XI_ZERO {
            -self.sigma * tail.ln()
        } else {
            self.sigma / self.xi * ((-self.xi * tail.ln()).exp_m1())
        }
    }

    /// A sample, by inversion.
    pub(crate) fn sample(self, rng: &mut Rng) -> f64 {
        // 1 − U is in (0, 1]: never ln(0).
        self.upper_quantile(1.0 - rng.uniform())
    }

    /// The log-likelihood of `y` (−∞ where a value lies outside the support).
    #[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
    pub(crate) fn log_likelihood(self, y: &[f64]) -> f64 {
        let k = y.len() as f64;
        if self.xi.abs() < XI_ZERO {
            return -k * self.sigma.ln() - y.iter().sum::<f64>() / self.sigma;
        }
        let mut s = 0.0;
        for &v in y {
            let t = self.xi * v / self.sigma;
            if t <= -1.0 {
                return f64::NEG_INFINITY;
            }
            s += t.ln_1p();
        }
        -k * self.sigma.ln() - (1.0 + 1.0 / self.xi) * s
    }

    /// The maximum-likelihood fit to the excesses `y` (all > 0) over ξ > −1, or `None` when
    /// there are fewer than [`MIN_EXCEEDANCES`] or a value is no excess. (For ξ ≤ −1 the
    /// likelihood grows without bound towards the largest value: no estimate; a sample that
    /// wants it gets its best fit with ξ > −1, which the goodness-of-fit figures then judge.)
    ///
    /// Profile likelihood in θ = ξ/σ (Grimshaw 1993's reduction): for a fixed θ the best ξ is
    /// `mean(ln(1 + θy))` and σ = ξ/θ, leaving one dimension. θ ranges over
    /// (−1/max(y), ∞); searched as θ = (e^t − 1)/max(y) over a grid of t in [−40, 40] (step
    /// 1: bounded tails up to the largest value, heavy ones well beyond any measured), then by
    /// golden section between the best grid point's neighbours.
    #[allow(
        clippy::many_single_char_names,
        reason = "the golden section's textbook names"
    )]
    pub(crate) fn fit(y: &[f64]) -> Option<Self> {
        if y.len() < MIN_EXCEEDANCES || y.iter().any(|&v| !(v > 0.0 && v.is_finite())) {
            return None;
        }
        let ymax = y.iter().copied().fold(0.0, f64::max);
        let mean = mean(y);
        let theta = |t: f64| t.exp_m1() / ymax;
        let profile = |t: f64| profile_at(y, theta(t), mean, ymax);
        let (mut best_t, mut best) = (0.0, f64::NEG_INFINITY);
        let mut t = -40.0;
        while t <= 40.0 {
            let l = profile(t);
            if l > best {
                (best_t, best) = (t, l);
            }
            t += 1.0;
        }
        if !best.is_finite() {
            return None;
        }
        // Golden section on [best − step, best + step].
        let (mut a, mut b) = (best_t - 1.0, best_t + 1.0);
        let g = (5f64.sqrt() - 1.0) / 2.0;
        let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
        let (mut fc, mut fd) = (profile(c), profile(d));
        for _ in 0..50 {
            if fc >= fd {
                (b, d, fd) = (d, c, fc);
                c = b - g * (b - a);
                fc = profile(c);
            } else {
                (a, c, fc) = (c, d, fd);
                d = a + g * (b - a);
                fd = profile(d);
            }
        }
        let t = if fc.max(fd) >= best {
            f64::midpoint(a, b)
        } else {
            best_t
        };
        let th = theta(t);
        let fit = if (th * ymax).abs() < 1e-9 {
            Self {
                xi: 0.0,
                sigma: mean,
            }
        } else {
            let xi = mean_ln_1p(y, th);
            Self { xi, sigma: xi / th }
        };
        (fit.xi > -1.0 && fit.sigma > 0.0 && fit.sigma.is_finite()).then_some(fit)
    }
}

/// The fewest exceedances a fit is attempted on.
pub(crate) const MIN_EXCEEDANCES: usize = 30;

#[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
fn mean(y: &[f64]) -> f64 {
    y.iter().sum::<f64>() / y.len() as f64
}

#[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
fn mean_ln_1p(y: &[f64], theta: f64) -> f64 {
    y.iter().map(|&v| (theta * v).ln_1p()).sum::<f64>() / y.len() as f64
}

/// The profile log-likelihood at θ, over the number of exceedances:
/// `−(ln(ξ(θ)/θ) + ξ(θ) + 1)`, its limit `−(ln(mean) + 1)` at θ = 0; −∞ outside the range
/// and where ξ(θ) ≤ −1.
fn profile_at(y: &[f64], theta: f64, mean: f64, ymax: f64) -> f64 {
    if theta * ymax <= -1.0 || !theta.is_finite() {
        return f64::NEG_INFINITY;
    }
    if (theta * ymax).abs() < 1e-9 {
        return -(mean.ln() + 1.0);
    }
    let xi = mean_ln_1p(y, theta);
    let ratio = xi / theta;
    // ξ ≤ −1 is left out: there the likelihood grows without bound towards the largest value
    // (a tail ending at the sample's maximum), which is no estimate.
    if xi <= -1.0 || !(ratio > 0.0 && ratio.is_finite()) {
        return f64::NEG_INFINITY;
    }
    -(ratio.ln() + xi + 1.0)
}

/// The Kolmogorov–Smirnov statistic of sorted `y` against `model`: the largest distance
/// between the empirical and the model's distribution functions.
#[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
pub(crate) fn ks_statistic(sorted: &[f64], model: Gpd) -> f64 {
    let k = sorted.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &v) in sorted.iter().enumerate() {
        let f = model.cdf(v);
        d = d.max(f - i as f64 / k).max((i + 1) as f64 / k - f);
    }
    d
}

/// The Anderson–Darling statistic of sorted `y` against `model` (weights the tails more
/// than KS): `−k − (1/k)·Σ (2i − 1)·(ln F(y_i) + ln(1 − F(y_{k+1−i})))`, with F kept off 0
/// and 1 so that a value outside the model's support gives a large, finite statistic.
#[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
pub(crate) fn ad_statistic(sorted: &[f64], model: Gpd) -> f64 {
    let k = sorted.len();
    let clamp = |f: f64| f.clamp(1e-300, 1.0 - 1e-16);
    let mut s = 0.0;
    for i in 0..k {
        let lo = clamp(model.cdf(sorted[i]));
        let hi = clamp(model.cdf(sorted[k - 1 - i]));
        s += (2 * i + 1) as f64 * (lo.ln() + (1.0 - hi).ln());
    }
    -(k as f64) - s / k as f64
}

/// The correlation of the QQ plot: sorted `y` against the model's quantiles at the plotting
/// positions `(i − 0.5)/k`. 1 for a perfect fit.
#[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
pub(crate) fn qq_correlation(sorted: &[f64], model: Gpd) -> f64 {
    let k = sorted.len() as f64;
    let q: Vec<f64> = (0..sorted.len())
        .map(|i| model.upper_quantile(1.0 - (i as f64 + 0.5) / k))
        .collect();
    correlation(sorted, &q)
}

#[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    sab / (saa * sbb).sqrt()
}

/// The settings of one tail estimate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TailMethod {
    /// The threshold's quantile (0.99: the exceedances are the top 1 %).
    pub(crate) threshold_q: f64,
    /// The exceedance probability whose level is extrapolated (10^-9).
    pub(crate) p: f64,
    /// Bootstrap replicates for the confidence interval.
    pub(crate) boot: usize,
    /// Parametric-bootstrap replicates for the goodness-of-fit p-values.
    pub(crate) gof_boot: usize,
    /// The seed of every random draw (jitter, both bootstraps).
    pub(crate) seed: u64,
    /// Threads the replicates are spread over (the result does not depend on it).
    pub(crate) threads: usize,
}

/// One tail estimate: what `run_phase_tail` prints for a call. Times in the samples' unit.
#[derive(Clone, Debug)]
pub(crate) struct Tail {
    /// Samples.
    pub(crate) n: usize,
    /// The threshold u.
    pub(crate) threshold: f64,
    /// Exceedances over it.
    pub(crate) k: usize,
    /// The largest sample.
    pub(crate) max: f64,
    /// The fit; `None` with too few exceedances or no interior maximum.
    pub(crate) fit: Option<TailFit>,
}

/// The fitted tail and its figures.
#[derive(Clone, Debug)]
pub(crate) struct TailFit {
    /// ξ and σ.
    pub(crate) gpd: Gpd,
    /// The level exceeded with probability `p` per sample.
    pub(crate) level: f64,
    /// Its bootstrap 95 % interval.
    pub(crate) level_ci: (f64, f64),
    /// ξ's bootstrap 95 % interval.
    pub(crate) xi_ci: (f64, f64),
    /// Bootstrap replicates whose refit failed (left out of the intervals).
    pub(crate) boot_failed: usize,
    /// The KS statistic and its parametric-bootstrap p-value.
    pub(crate) ks: (f64, f64),
    /// The AD statistic and its parametric-bootstrap p-value.
    pub(crate) ad: (f64, f64),
    /// The QQ correlation.
    pub(crate) qq_r: f64,
}

impl TailMethod {
    /// The level exceeded with probability `self.p`, from a fit over threshold `u` with `k`
    /// of `n` samples above it.
    #[allow(clippy::cast_precision_loss, reason = "sample sizes below 2^53")]
    pub(crate) fn level(&self, gpd: Gpd, u: f64, k: usize, n: usize) -> f64 {
        u + gpd.upper_quantile((self.p * n as f64 / k as f64).min(1.0))
    }

    /// The tail estimate of `samples` (any order; whole units, as the benches measure them).
    #[allow(
        clippy::many_single_char_names,
        reason = "the method's names: n, k, u, y"
    )]
    pub(crate) fn estimate(&self, samples: &[u64]) -> Tail {
        let n = samples.len();
        let mut v = samples.to_vec();
        let threshold = nearest_rank_select(&mut v, self.threshold_q).unwrap_or(0);
        let max = v.iter().copied().max().unwrap_or(0);
        let mut jitter = Rng::new(self.seed);
        #[allow(clippy::cast_precision_loss, reason = "nanoseconds below 2^53")]
        let mut y: Vec<f64> = v
            .iter()
            .filter(|&&x| x > threshold)
            .map(|&x| (x - threshold) as f64 - jitter.uniform())
            .collect();
        y.sort_by(f64::total_cmp);
        #[allow(clippy::cast_precision_loss, reason = "nanoseconds below 2^53")]
        let (u, max) = (threshold as f64, max as f64);
        let k = y.len();
        let fit = Gpd::fit(&y).map(|gpd| self.figures(&y, gpd, u, n));
        Tail {
            n,
            threshold: u,
            k,
            max,
            fit,
        }
    }

    /// The figures of a fit `gpd` to the sorted excesses `y` over `u` (of `n` samples).
    fn figures(&self, y: &[f64], gpd: Gpd, u: f64, n: usize) -> TailFit {
        let k = y.len();
        // Nonparametric bootstrap of the exceedances: the interval of the level and of ξ.
        let boot = par_map(self.boot, self.threads, |b| {
            let mut rng = Rng::derived(self.seed ^ 0xB007, b as u64);
            let draw: Vec<f64> = (0..k).map(|_| y[rng.below(k)]).collect();
            Gpd::fit(&draw).map(|g| (g.xi, self.level(g, u, k, n)))
        });
        let ok: Vec<(f64, f64)> = boot.iter().flatten().copied().collect();
        let interval = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            (
                nearest_rank(&v, 0.025).unwrap_or(f64::NAN),
                nearest_rank(&v, 0.975).unwrap_or(f64::NAN),
            )
        };
        let level_ci = interval(ok.iter().map(|p| p.1).collect());
        let xi_ci = interval(ok.iter().map(|p| p.0).collect());
        // Parametric bootstrap of the goodness-of-fit statistics.
        let (ks, ad) = (ks_statistic(y, gpd), ad_statistic(y, gpd));
        let gof = par_map(self.gof_boot, self.threads, |b| {
            let mut rng = Rng::derived(self.seed ^ 0x6F0F, b as u64);
            let mut draw: Vec<f64> = (0..k).map(|_| gpd.sample(&mut rng)).collect();
            draw.sort_by(f64::total_cmp);
            // A draw of exactly 0 (probability 2^-53) is outside the fit's domain.
            draw.retain(|&v| v > 0.0);
            Gpd::fit(&draw).map(|g| (ks_statistic(&draw, g), ad_statistic(&draw, g)))
        });
        let done: Vec<(f64, f64)> = gof.iter().flatten().copied().collect();
        #[allow(clippy::cast_precision_loss, reason = "replicate counts below 2^53")]
        let p_value = |at: f64, pick: fn(&(f64, f64)) -> f64| {
            (1 + done.iter().filter(|r| pick(r) >= at).count()) as f64 / (1 + done.len()) as f64
        };
        TailFit {
            gpd,
            level: self.level(gpd, u, k, n),
            level_ci,
            xi_ci,
            boot_failed: boot.len() - ok.len(),
            ks: (ks, p_value(ks, |r| r.0)),
            ad: (ad, p_value(ad, |r| r.1)),
            qq_r: qq_correlation(y, gpd),
        }
    }
}

/// `f(0..count)` over `threads` scoped threads, in index order: each replicate draws from its
/// own seeded generator, so the result does not depend on the number of threads.
pub(crate) fn par_map<T: Send>(
    count: usize,
    threads: usize,
    f: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, count.max(1));
    let chunk = count.div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || -> Vec<T> {
                    (t * chunk..((t + 1) * chunk).min(count)).map(f).collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| -> Vec<T> { h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)) })
            .collect()
    })
}
