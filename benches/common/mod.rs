//! What the CUDA libraries' benches share (`blas`, `blaslt`, `fft`, `rand`): each row times
//! the raw library calls, custack's and cudarc's in one process, the order rotating each rep,
//! and prints the medians, their spread (p90 − p10, halved, over the median) and the ratios to
//! raw as one Markdown table row. Nothing asserts a time.
#![allow(dead_code, reason = "each bench uses what it needs")]

use std::time::Instant;

/// `r`'s value, or the process ends saying what failed (a bench has no one to return to).
pub(crate) fn must<T, E: core::fmt::Debug>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{}: {what}: {e:?}", bench_name());
            std::process::exit(1)
        }
    }
}

/// A raw call's status, checked the same way: anything but `success` ends the process.
pub(crate) fn check<S: PartialEq + core::fmt::Debug + Copy>(status: S, success: S, what: &str) {
    if status != success {
        eprintln!("{}: {what}: {status:?}", bench_name());
        std::process::exit(1)
    }
}

/// A driver call's result, checked.
pub(crate) fn cu(r: custack::ffi::CUresult, what: &str) {
    check(r, custack::ffi::CUresult::CUDA_SUCCESS, what);
}

fn bench_name() -> String {
    std::env::args()
        .next()
        .and_then(|p| {
            std::path::Path::new(&p)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

/// The median and the spread ((p90 − p10) / 2, over the median) of `times`.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
pub(crate) fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let median = at(0.5);
    (median, (at(0.9) - at(0.1)) / 2.0 / median)
}

/// One row's figures: (median seconds, spread) for raw, custack and cudarc; `None` where a
/// library has no column.
pub(crate) type Figures = [Option<(f64, f64)>; 3];

/// Times `reps` rounds of the three operations, the one going first rotating each round.
pub(crate) fn rotate(reps: usize, ops: &mut [Option<&mut dyn FnMut()>; 3]) -> Figures {
    let mut times: [Vec<f64>; 3] = Default::default();
    for rep in 0..reps {
        for j in 0..3 {
            let i = (rep + j) % 3;
            if let Some(op) = ops[i].as_mut() {
                let start = Instant::now();
                op();
                times[i].push(start.elapsed().as_secs_f64());
            }
        }
    }
    times.map(|mut t| (!t.is_empty()).then(|| stats(&mut t)))
}

/// The table's header.
pub(crate) fn header() {
    println!("| row | raw | custack | custack/raw | cudarc | cudarc/raw |");
    println!("|---|---|---|---|---|---|");
}

/// One row of the table.
pub(crate) fn print(row: &str, f: &Figures) {
    let cell = |x: Option<(f64, f64)>| {
        x.map_or_else(
            || "n/a".to_owned(),
            |(m, s)| format!("{:.3} ms (±{:.1}%)", m * 1e3, s * 100.0),
        )
    };
    let ratio = |x: Option<(f64, f64)>| match (x, f[0]) {
        (Some((m, _)), Some((r, _))) => format!("{:.3}", m / r),
        _ => "n/a".to_owned(),
    };
    println!(
        "| {row} | {} | {} | {} | {} | {} |",
        cell(f[0]),
        cell(f[1]),
        ratio(f[1]),
        cell(f[2]),
        ratio(f[2])
    );
}

/// The number of reps from the environment variable `var`, 30 by default.
pub(crate) fn reps(var: &str) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

/// `true` when run as a bench (`--bench`); otherwise it says how to run it and the bench
/// exits (as `cargo test --all-targets` runs every bench without arguments).
pub(crate) fn running(how: &str) -> bool {
    if std::env::args().any(|a| a == "--bench") {
        return true;
    }
    println!("{}: run with `{how}` (needs a GPU)", bench_name());
    false
}

/// Takes `reps + 1` samples of raw and custack, alternating which goes first (the first of each
/// is a warm-up, dropped), and prints the row `| name | raw | custack | custack/raw | spreads |`;
/// each closure returns the seconds of `per` operations.
#[allow(clippy::cast_precision_loss)]
pub(crate) fn pair_row(
    name: &str,
    reps: usize,
    per: usize,
    mut raw: impl FnMut() -> f64,
    mut custack: impl FnMut() -> f64,
) {
    let (mut raws, mut cus) = (Vec::new(), Vec::new());
    for rep in 0..=reps {
        let (r, c) = if rep % 2 == 0 {
            let c = custack();
            (raw(), c)
        } else {
            let r = raw();
            (r, custack())
        };
        if rep > 0 {
            raws.push(r / per as f64);
            cus.push(c / per as f64);
        }
    }
    let (raw, raw_spread) = stats(&mut raws);
    let (cu, cu_spread) = stats(&mut cus);
    println!(
        "| {name} | {:.3} µs | {:.3} µs | {:.3} | ±{:.1}% · ±{:.1}% |",
        raw * 1e6,
        cu * 1e6,
        cu / raw,
        raw_spread * 100.0,
        cu_spread * 100.0
    );
}

/// The seconds `f` takes.
pub(crate) fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}
