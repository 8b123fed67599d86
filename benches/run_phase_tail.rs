//! Worst-case timings of the restricted profile's run phase, as measured: each run-phase call
//! timed alone on the host, `SAMPLES` times a repetition (10^4 with `--bench`, 10^5 by hand),
//! `REPS` repetitions in one process; each repetition's median, 99.9th and 99.99th percentiles
//! and maximum, so that the spread from run to run shows; then, over all repetitions, the tail
//! by a stated method (below). Idle, or under interference the bench starts itself
//! (`--interference`: `cpu`, `gpu`, `pcie`, joined with `+`; `benches/timing/interference.rs`).
//! No WCET can be derived for a closed driver: these are measurements, on the hardware and
//! under the load the run states, and the tail figures extrapolate them.
//!
//! The tail (`benches/timing/stats.rs` has the method in full): peaks over threshold. The
//! threshold is the `--threshold-q` quantile (0.99) of a call's samples; a generalized Pareto
//! distribution is fitted to the exceedances by maximum likelihood (shape ξ, scale σ); from it,
//! the level a call exceeds with probability `--p` (10^-9) per call, with a 95 % percentile
//! bootstrap interval (`--boot` replicates, 200, the exceedances resampled); its fit judged by
//! the Kolmogorov–Smirnov and Anderson–Darling statistics with p-values by parametric bootstrap
//! (`--gof-boot`, 100) and the QQ plot's correlation. Seeded (`--seed`): the same samples give
//! the same figures. The level is an extrapolation of measured latencies under the model, never
//! a bound; a small p-value says the model does not describe the tail, and the level means
//! nothing then.
//!
//! ```text
//! bash scripts/gpu-bundle.sh --bench fault_to_frame --bench run_phase_tail   # packs it, here
//! # on the GPU machine: what .gpu/run.sh runs in every GPU run (10^4 samples, 3 repetitions)
//! .gpu/bin/bench-run_phase_tail --bench
//! # by hand (scripts/timing-runs.sh finds or builds the cubin and keeps the log in $OUT):
//! bash scripts/timing-runs.sh run_phase_tail --samples 1000000 --reps 1 --max-s 240
//! bash scripts/timing-runs.sh run_phase_tail --samples 1000000 --reps 1 --max-s 120 --interference cpu
//! bash scripts/timing-runs.sh run_phase_tail --samples 10000000 --reps 1 --max-s 240 --only "scope (empty)"
//! .gpu/bin/bench-run_phase_tail CUBIN 100000 3         # the earlier form: CUBIN SAMPLES REPS
//! # no GPU: the statistics and the output on samples of a known tail
//! cargo bench -p custack-benches --bench run_phase_tail -- --synthetic --samples 1000000 --reps 1
//! ```
//!
//! `--only` keeps the calls whose names contain one of the comma-separated words; a call's
//! loop group (the empty scope; the scope with its launch, copies and fill; the graph, record
//! and wait; each wait or query alone) runs if one of its calls is kept, so a wait left alone
//! has less to wait for. `--max-s` ends the measurement at a time limit with the samples it has.
//! Wall time: one iteration times every call once; the H100's medians of the fourteen calls
//! (docs/safety-manual.md) add up to about 45 µs, and the graph's scope waits for its kernel
//! too: about 60 µs, so
//! 10^6 samples of every call take about a minute and 10^7 about ten (past one command's limit
//! on the GPU machine: take 10^7 of a few calls with `--only`; the empty scope alone is about
//! 1.5 µs an iteration). The statistics: without a GPU (`--synthetic`, 2 cores) 20 s for 14
//! calls of 10^6 samples and 17 s for one call of 10^7 (10^5 exceedances), spread over the
//! CPUs there are; `--boot` and `--gof-boot` lower make them faster. The bench prints what its
//! run took and what 10^6 and 10^7 samples would.
//!
//! Output: one JSON line with the environment and the settings; one line per call and
//! repetition, `tail CALL rep=… median_ns=… p999_ns=… p9999_ns=… max_ns=… calls=…`; a table
//! per call over the repetitions, `tail | CALL | median LO–HI | …`; the run's wall time; one
//! JSON line per call with its order statistics over all repetitions and its tail fit
//! (`"pot"`); a Markdown table of the fits in µs; one JSON line with what the interferers did.
//! Without `--bench` or an argument (as `cargo test --all-targets` runs it) it prints how to
//! run it.

#[cfg(unix)]
#[path = "../examples/22_safety_frame/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;
#[cfg(unix)]
mod timing;

#[cfg(unix)]
fn main() {
    on_unix::main();
}

#[cfg(not(unix))]
fn main() {
    println!(
        "run_phase_tail: measured on Unix only (CLOCK_MONOTONIC, interferer processes, signals)"
    );
}

/// The bench itself: Unix only (`CLOCK_MONOTONIC`, interferer processes, signals).
#[cfg(unix)]
mod on_unix {
    use crate::{pipeline, timing};

    use custack::LaunchConfig;
    use custack::safety::{Budget, Profile, RestrictedContext, WaitBound};
    use std::fmt::Write as _;
    use std::time::{Duration, Instant};
    use timing::interference::{self, Setting};
    use timing::stats::{TailMethod, nearest_rank_select};
    use timing::{Args, json_num, json_str};

    /// Elements of the small buffers the calls work on: one 4 KiB page.
    const N: u32 = 1024;

    /// The calls measured, in the order they are printed.
    const CALLS: [&str; 14] = [
        "scope (empty)",
        "scope + run + wait",
        "run (enqueue)",
        "copy_to_device (enqueue, 4 KiB)",
        "copy_to_host (enqueue, 4 KiB)",
        "fill_bytes (enqueue)",
        "launch_graph (enqueue)",
        "record (enqueue)",
        "wait (enqueue)",
        "RestrictedStream::synchronize",
        "RestrictedStream::is_complete",
        "RestrictedEvent::synchronize",
        "RunPhase::synchronize",
        "RunPhase::memory_info",
    ];

    /// The loop group each call is timed in: a group runs whole if one of its calls is kept.
    const GROUP: [usize; 14] = [0, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 7];
    const GROUPS: usize = 8;

    const FLAGS: &[&str] = &[
        "samples",
        "reps",
        "interference",
        "only",
        "threshold-q",
        "p",
        "boot",
        "gof-boot",
        "seed",
        "gpu-kernel-us",
        "pcie-mib",
        "interfere-max-s",
        "max-s",
    ];

    const USAGE: &str = "run_phase_tail: a benchmark (benches/run_phase_tail.rs says what it measures). On a GPU \
machine, with CUSTACK_FRAME_CUBIN set (.gpu/env.sh) or the cubin as the first argument:
  run_phase_tail --bench                       10^4 samples a call, 3 repetitions, idle (what .gpu/run.sh runs)
  run_phase_tail [CUBIN [SAMPLES [REPS]]] [--samples N] [--reps R] [--interference none|cpu|gpu|pcie|cpu+gpu...]
                 [--only WORD,...] [--threshold-q 0.99] [--p 1e-9] [--boot 200] [--gof-boot 100] [--seed 1]
                 [--gpu-kernel-us 1000] [--pcie-mib 256] [--interfere-max-s 3600]
                 [--max-s S]    (the measurement stops after S seconds, with the samples it has)
  run_phase_tail --synthetic [--samples N] ...   no GPU: the statistics and the output on samples of a known
                                               tail (2 µs + a GPD with ξ = 0.1, σ = 300 ns), labelled synthetic";

    /// Nanoseconds of one call.
    fn ns(d: Duration) -> u64 {
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Median, p99.9, p99.99 and maximum of `v` (reordered here), nearest rank.
    fn figures(v: &mut [u64]) -> [u64; 4] {
        let mut at = |q: f64| nearest_rank_select(v, q).unwrap_or(0);
        [at(0.5), at(0.999), at(0.9999), at(1.0)]
    }

    /// The settings of a run.
    struct Config {
        /// The cubin's path; none for `--synthetic`.
        cubin: Option<String>,
        samples: usize,
        reps: usize,
        setting: Setting,
        want: [bool; 14],
        method: TailMethod,
        /// `--max-s`: the measurement stops after this long, with the samples it has.
        max: Option<Duration>,
        interference: interference::Options,
    }

    fn config() -> Result<Option<Config>, String> {
        let args = Args::parse(std::env::args().skip(1), FLAGS, &["bench", "synthetic"])?;
        if !args.any() && args.positional.is_empty() {
            println!("{USAGE}");
            return Ok(None);
        }
        let bench = args.switch("bench");
        let pos = |i: usize| args.positional.get(i).map(String::as_str);
        let cubin = match pos(0) {
            _ if args.switch("synthetic") => None,
            Some(path) => Some(path.to_string()),
            None => Some(std::env::var("CUSTACK_FRAME_CUBIN").map_err(|_| {
                "give the cubin as the first argument, or set CUSTACK_FRAME_CUBIN (.gpu/env.sh, \
             which .gpu/run.sh writes after building it with nvcc)"
                    .to_string()
            })?),
        };
        let positional = |i: usize, name: &str, default: usize| -> Result<usize, String> {
            match (pos(i), args.raw(name)) {
                (Some(_), Some(_)) => {
                    Err(format!("the {name} given twice (argument and --{name})"))
                }
                (Some(v), None) => v.parse().map_err(|e| format!("{name} {v}: {e}")),
                (None, _) => args.get(name, default),
            }
        };
        let samples = positional(1, "samples", if bench { 10_000 } else { 100_000 })?;
        let reps = positional(2, "reps", 3)?;
        if args.positional.len() > 3 {
            return Err(format!("too many arguments\n{USAGE}"));
        }
        let mut want = [true; 14];
        if let Some(only) = args.raw("only") {
            let words: Vec<&str> = only.split(',').map(str::trim).collect();
            want = CALLS.map(|c| words.iter().any(|w| !w.is_empty() && c.contains(w)));
            if !want.iter().any(|&w| w) {
                return Err(format!(
                    "--only {only:?} keeps no call; the calls: {CALLS:?}"
                ));
            }
        }
        let setting = Setting::parse(args.raw("interference").unwrap_or("none"))?;
        let method = TailMethod {
            threshold_q: args.get("threshold-q", 0.99)?,
            p: args.get("p", 1e-9)?,
            boot: args.get("boot", 200)?,
            gof_boot: args.get("gof-boot", 100)?,
            seed: args.get("seed", 1)?,
            threads: timing::cpus(),
        };
        if samples == 0 || reps == 0 || !(0.5..1.0).contains(&method.threshold_q) {
            return Err("SAMPLES and REPS are at least 1, --threshold-q in [0.5, 1)".into());
        }
        let s = |name: &str, default: u64| args.get(name, default).map(Duration::from_secs);
        Ok(Some(Config {
            cubin,
            samples,
            reps,
            setting,
            want,
            method,
            max: args
                .raw("max-s")
                .map(|_| args.get("max-s", 0.0).map(Duration::from_secs_f64))
                .transpose()?,
            interference: interference::Options {
                gpu_kernel_us: args.get("gpu-kernel-us", 1000)?,
                pcie_mib: args.get("pcie-mib", 256)?,
                max: s("interfere-max-s", 3600)?,
            },
        }))
    }

    pub(crate) fn main() {
        interference::interferer_if_asked();
        match run() {
            Ok(()) => {}
            Err(e) => {
                eprintln!("run_phase_tail: {e}");
                std::process::exit(1)
            }
        }
    }

    fn run() -> Result<(), Box<dyn std::error::Error>> {
        let Some(c) = config()? else {
            return Ok(());
        };
        let cubin = match &c.cubin {
            Some(path) => Some(std::fs::read(path).map_err(|e| format!("{path}: {e}"))?),
            None => None,
        };
        println!(
            "{{\"bench\":\"run_phase_tail\",\"env\":{},\"config\":{{\"synthetic\":{},\"samples\":{},\"reps\":{},\"interference\":{},\"calls\":{},\"threshold_q\":{},\"p\":{:e},\"boot\":{},\"gof_boot\":{},\"seed\":{},\"wait_bound_s\":1}}}}",
            timing::environment_json(),
            c.cubin.is_none(),
            c.samples,
            c.reps,
            json_str(&c.setting.name()),
            CALLS.iter().zip(c.want).filter(|p| p.1).count(),
            c.method.threshold_q,
            c.method.p,
            c.method.boot,
            c.method.gof_boot,
            c.method.seed
        );
        // The interferers first: this process makes no CUDA call before they run, and none of them
        // is forked from a process with a context.
        let scratch = timing::Scratch::new("run_phase_tail")?;
        let mut running = if c.setting.0.is_empty() {
            None
        } else {
            let me = std::env::current_exe()?;
            Some(interference::start(
                &c.setting,
                &c.interference,
                &me,
                &[],
                &scratch.0,
            )?)
        };
        let began = Instant::now();
        let times = match &cubin {
            Some(cubin) => measure(&c, cubin)?,
            None => synthetic(&c),
        };
        let took = began.elapsed().as_secs_f64();
        let interfered = match running.take() {
            Some(r) => Some(r.stop()?),
            None => None,
        };
        drop(scratch);
        report(&c, &times, took);
        if let Some(i) = interfered {
            println!("{{\"bench\":\"run_phase_tail\",\"interference\":{i}}}");
        }
        Ok(())
    }

    /// `--synthetic`: no GPU, samples of a known tail for every kept call (2 µs plus a GPD excess
    /// with ξ = 0.1 and σ = 300 ns, each call its own seeded stream), so that the statistics and
    /// the output can be run, and timed, anywhere. The level exceeded with probability p is then
    /// 2000 + 300/0.1·(p^-0.1 − 1) ns: 21,857 ns for 10^-9.
    fn synthetic(c: &Config) -> Vec<Vec<u64>> {
        use timing::stats::{Gpd, Rng};
        let model = Gpd {
            xi: 0.1,
            sigma: 300.0,
        };
        (0..CALLS.len())
            .map(|k| {
                if !c.want[k] {
                    return Vec::new();
                }
                let mut rng = Rng::derived(c.method.seed, k as u64);
                (0..c.samples * c.reps)
                    .map(|_| 2000 + model.sample(&mut rng).ceil() as u64)
                    .collect()
            })
            .collect()
    }

    /// Every kept call's samples, repetition after repetition (`reps × samples` each, fewer when
    /// `--max-s` ended the loop; empty for a call whose group does not run).
    // One measurement loop, read top to bottom; `i` indexes fourteen series at once.
    #[allow(
        clippy::too_many_lines,
        clippy::needless_range_loop,
        clippy::many_single_char_names
    )]
    fn measure(c: &Config, cubin: &[u8]) -> Result<Vec<Vec<u64>>, Box<dyn std::error::Error>> {
        let mut run_group = [false; GROUPS];
        for (k, &w) in c.want.iter().enumerate() {
            run_group[GROUP[k]] |= w;
        }
        let (calls, reps) = (c.samples, c.reps);
        let mut times: Vec<Vec<u64>> = (0..CALLS.len())
            .map(|k| {
                if run_group[GROUP[k]] {
                    vec![0; calls * reps]
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut done = calls * reps;
        let profile = Profile::init(1)?;
        let page = N as usize * size_of::<f32>();
        let budget = Budget::page_locked(2 * page)
            .device_bytes(2 * page)
            .streams(1)
            .events(1)
            .modules(1)
            .kernels(2)
            .graphs(1)
            .graph_nodes(1)
            .waits(WaitBound::fail_stop(Duration::from_secs(1)));
        let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
        let mut stack = custack::Stack::new()?;
        let mut guard = ctx.push(&mut stack)?;
        {
            let init = guard.init()?;
            // SAFETY: nvcc's cubin of examples/kernels/frame.cu; `frame_gain` writes `n` floats.
            let module = unsafe { init.load_cubin(cubin) }?;
            let gain = init.kernel::<pipeline::FrameGain>(&module)?;
            let graphed = init.kernel::<pipeline::FrameGain>(&module)?;
            let stream = init.stream()?;
            let event = init.event()?;
            let input = init.alloc_pinned::<f32>(N as usize)?;
            let mut output = init.alloc_pinned::<f32>(N as usize)?;
            let mut buf = init.alloc::<f32>(N as usize)?;
            let config = LaunchConfig::for_elements(N);
            let payload = (init.alloc::<f32>(N as usize)?, graphed);
            let mut graph = init.capture(&stream, payload, move |s, (mut b, g)| {
                s.run(&g, config, (&mut b, 1.0f32, N))
            })?;
            let run = init.seal();
            let mut t = |k: usize, at: usize, d: u64| times[k][at] = d;
            let began = Instant::now();
            'all: for r in 0..reps {
                for i in 0..calls {
                    let at = r * calls + i;
                    // `--max-s`: stop at the time limit, keeping the samples taken (a look at the
                    // clock every 1,024 iterations, between the timed calls).
                    if at % 1024 == 0 && c.max.is_some_and(|m| began.elapsed() >= m) {
                        done = at;
                        break 'all;
                    }
                    if run_group[0] {
                        let s = Instant::now();
                        stream.scope(|_| ())?;
                        t(0, at, ns(s.elapsed()));
                    }
                    if run_group[1] {
                        let mut inner = [0u64; 4];
                        let s = Instant::now();
                        stream.scope(|s| -> custack::Result<()> {
                            let mut d = s.bind_mut(&mut buf);
                            let e = Instant::now();
                            s.run(&gain, config, (&mut d, 1.0f32, N))?;
                            inner[0] = ns(e.elapsed());
                            let e = Instant::now();
                            s.copy_to_device(&mut d, &input)?;
                            inner[1] = ns(e.elapsed());
                            let e = Instant::now();
                            s.copy_to_host(&mut output, &d)?;
                            inner[2] = ns(e.elapsed());
                            let e = Instant::now();
                            s.fill_bytes(&mut d, 0)?;
                            inner[3] = ns(e.elapsed());
                            Ok(())
                        })??;
                        t(1, at, ns(s.elapsed()));
                        for (k, v) in inner.iter().enumerate() {
                            t(2 + k, at, *v);
                        }
                    }
                    if run_group[2] {
                        let mut inner = [0u64; 3];
                        stream.scope(|s| -> custack::Result<()> {
                            let (g, _) = s.bind_graph(&mut graph);
                            let e = Instant::now();
                            s.launch_graph(&g)?;
                            inner[0] = ns(e.elapsed());
                            let e = Instant::now();
                            s.record(&event)?;
                            inner[1] = ns(e.elapsed());
                            let e = Instant::now();
                            s.wait(&event)?;
                            inner[2] = ns(e.elapsed());
                            Ok(())
                        })??;
                        for (k, v) in inner.iter().enumerate() {
                            t(6 + k, at, *v);
                        }
                    }
                    if run_group[3] {
                        let s = Instant::now();
                        stream.synchronize()?;
                        t(9, at, ns(s.elapsed()));
                    }
                    if run_group[4] {
                        let s = Instant::now();
                        let _ = stream.is_complete()?;
                        t(10, at, ns(s.elapsed()));
                    }
                    if run_group[5] {
                        let s = Instant::now();
                        event.synchronize()?;
                        t(11, at, ns(s.elapsed()));
                    }
                    if run_group[6] {
                        let s = Instant::now();
                        run.synchronize()?;
                        t(12, at, ns(s.elapsed()));
                    }
                    if run_group[7] {
                        let s = Instant::now();
                        let _ = run.memory_info()?;
                        t(13, at, ns(s.elapsed()));
                    }
                }
            }
            run.synchronize()?;
        }
        guard.shutdown()?;
        ctx.destroy()?;
        for v in &mut times {
            v.truncate(done);
        }
        Ok(times)
    }

    /// Prints every figure (the header says what).
    #[allow(
        clippy::cast_precision_loss,
        reason = "nanoseconds and counts below 2^53"
    )]
    fn report(c: &Config, times: &[Vec<u64>], took: f64) {
        let calls = c.samples;
        let kept: Vec<usize> = (0..CALLS.len()).filter(|&k| c.want[k]).collect();
        let taken = kept.first().map_or(0, |&k| times[k].len());
        let reps = taken.div_ceil(calls);
        if taken < calls * c.reps {
            println!(
                "stopped by --max-s after {taken} of {} samples a call: {reps} repetitions, the last \
             of {} samples",
                calls * c.reps,
                taken - (reps.max(1) - 1) * calls
            );
        }
        // Each repetition's figures, as before.
        let mut scratch = Vec::new();
        let mut per_rep: Vec<Vec<[u64; 4]>> = vec![Vec::new(); CALLS.len()];
        for &k in &kept {
            for (r, chunk) in times[k].chunks(calls).enumerate() {
                scratch.clear();
                scratch.extend_from_slice(chunk);
                let f = figures(&mut scratch);
                println!(
                    "tail {:?} rep={r} median_ns={} p999_ns={} p9999_ns={} max_ns={} calls={}",
                    CALLS[k],
                    f[0],
                    f[1],
                    f[2],
                    f[3],
                    chunk.len()
                );
                per_rep[k].push(f);
            }
        }
        println!(
            "summary ({}; {calls} calls a repetition, {reps} repetitions; LO-HI over the repetitions; µs)",
            c.setting.name()
        );
        for &k in &kept {
            let span = |i: usize| {
                let lo = per_rep[k].iter().map(|f| f[i]).min().unwrap_or(0);
                let hi = per_rep[k].iter().map(|f| f[i]).max().unwrap_or(0);
                format!("{:.1}-{:.1}", lo as f64 / 1000.0, hi as f64 / 1000.0)
            };
            println!(
                "tail | {} | {} | {} | {} | {} |",
                CALLS[k],
                span(0),
                span(1),
                span(2),
                span(3)
            );
        }
        let per_iteration = took / taken.max(1) as f64;
        println!(
            "{} {taken} iterations in {took:.1} s: {:.2} µs an iteration with these calls; \
         10^6 samples a call take about {:.0} s, 10^7 about {:.0} s",
            if c.cubin.is_some() {
                "measured"
            } else {
                "generated (synthetic)"
            },
            per_iteration * 1e6,
            per_iteration * 1e6,
            per_iteration * 1e7
        );
        // The tail of each call over all repetitions.
        let began = Instant::now();
        let mut table = String::new();
        for &k in &kept {
            tail_of(c, k, &times[k], &mut scratch, &mut table);
        }
        println!(
            "tail fits ({}; µs; peaks over the {} quantile, GPD by maximum likelihood; the level \
         exceeded with probability {:e} a call, 95 % bootstrap interval of {} replicates; KS and \
         AD with parametric-bootstrap p-values of {} replicates; {:.1} s):",
            c.setting.name(),
            c.method.threshold_q,
            c.method.p,
            c.method.boot,
            c.method.gof_boot,
            began.elapsed().as_secs_f64()
        );
        println!(
            "| call | n | median | p99.9 | max | threshold | ξ [95 %] | σ | level [95 %] | KS (p) | AD (p) | QQ r |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n{table}"
        );
        println!(
            "The levels extrapolate the measured latencies under the fitted tail: they are no bound, \
         and no worst-case execution time can be derived for a closed driver. A small KS or AD \
         p-value says the model does not describe the tail: its level means nothing then."
        );
    }

    /// One call's order statistics over every repetition and its tail fit: its JSON line, and its
    /// row of the fits' table appended to `table`.
    #[allow(clippy::cast_precision_loss, reason = "nanoseconds below 2^53")]
    fn tail_of(c: &Config, k: usize, all: &[u64], scratch: &mut Vec<u64>, table: &mut String) {
        scratch.clear();
        scratch.extend_from_slice(all);
        let mut q = |p: f64| nearest_rank_select(scratch, p).unwrap_or(0);
        let (median, p99, p999, p9999, max) = (q(0.5), q(0.99), q(0.999), q(0.9999), q(1.0));
        let tail = c.method.estimate(all);
        let us = |x: f64| x / 1000.0;
        let _ = write!(
            table,
            "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            CALLS[k],
            tail.n,
            us(median as f64),
            us(p999 as f64),
            us(max as f64),
            us(tail.threshold)
        );
        let mut pot = "null".to_string();
        if let Some(f) = &tail.fit {
            let _ = writeln!(
                table,
                " {:.3} [{:.3}, {:.3}] | {:.2} | {:.1} [{:.1}, {:.1}] | {:.3} ({:.2}) | {:.2} ({:.2}) | {:.4} |",
                f.gpd.xi,
                f.xi_ci.0,
                f.xi_ci.1,
                us(f.gpd.sigma),
                us(f.level),
                us(f.level_ci.0),
                us(f.level_ci.1),
                f.ks.0,
                f.ks.1,
                f.ad.0,
                f.ad.1,
                f.qq_r
            );
            pot = format!(
                "{{\"threshold_q\":{},\"threshold_ns\":{},\"k\":{},\"xi\":{},\"xi_ci95\":[{},{}],\"sigma_ns\":{},\"p\":{:e},\"level_ns\":{},\"level_ci95_ns\":[{},{}],\"boot\":{},\"boot_failed\":{},\"ks\":{},\"ks_p\":{},\"ad\":{},\"ad_p\":{},\"gof_boot\":{},\"qq_r\":{}}}",
                c.method.threshold_q,
                json_num(tail.threshold, 0),
                tail.k,
                json_num(f.gpd.xi, 4),
                json_num(f.xi_ci.0, 4),
                json_num(f.xi_ci.1, 4),
                json_num(f.gpd.sigma, 1),
                c.method.p,
                json_num(f.level, 0),
                json_num(f.level_ci.0, 0),
                json_num(f.level_ci.1, 0),
                c.method.boot,
                f.boot_failed,
                json_num(f.ks.0, 4),
                json_num(f.ks.1, 3),
                json_num(f.ad.0, 3),
                json_num(f.ad.1, 3),
                c.method.gof_boot,
                json_num(f.qq_r, 5)
            );
        } else {
            let _ = writeln!(table, " no fit ({} exceedances) | | | | | |", tail.k);
        }
        println!(
            "{{\"bench\":\"run_phase_tail\",\"call\":{},\"interference\":{},\"n\":{},\"median_ns\":{median},\"p99_ns\":{p99},\"p999_ns\":{p999},\"p9999_ns\":{p9999},\"max_ns\":{max},\"k\":{},\"pot\":{pot}}}",
            json_str(CALLS[k]),
            json_str(&c.setting.name()),
            all.len(),
            tail.k
        );
    }
}
