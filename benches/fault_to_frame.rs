//! The fault-tolerant time interval, measured end to end: from a fault in a GPU worker process
//! to the first correct frame of the worker that replaces it, as distributions over many runs,
//! idle and under stated interference (the safety manual's `T_detect` and the restart it
//! leaves to the supervisor; docs/safety.md, "Fault to restarted frame").
//!
//! The supervisor is this bench's process (it never touches CUDA); each worker is this binary
//! started again (`benches/timing/restart.rs` has the protocol). A GPU worker runs the
//! restricted profile: `Profile::init`, one restricted context whose `WaitBound` is `--bound-ms`
//! (20 ms), the frame cubin's `frame_blur` and `frame_gain` (`examples/kernels/frame.cu`,
//! `CUSTACK_FRAME_CUBIN`) and the fault cubin's `spin` and `trap_kernel`
//! (`tests/fixtures/restricted_process.cu`, `CUSTACK_PROCESS_CUBIN`; `.gpu/run.sh` builds both
//! with nvcc), a stream, page-locked and device memory for one 640 × 480 frame; then frames
//! (upload, blur, gain, download, 16 pixels checked against the CPU's) back to back, each a
//! heartbeat line to the supervisor, and at frame `--fault-frame` (3) the fault:
//!
//! - `hung`: `spin` for at least `--spin-s` (10 s) in a scope: the scope's bounded end passes
//!   the `WaitBound` and takes the safe state (exit status 75, the report saying the deadline
//!   passed);
//! - `sticky`: `trap_kernel` in a scope: its end sees the sticky error (719) and takes the
//!   safe state (exit status 75, the report saying sticky);
//! - `watchdog`: the worker stops itself (`SIGSTOP`): its heartbeat stops, and the
//!   supervisor's watchdog kills it `--watchdog-ms` (50 ms) after its last line.
//!
//! The supervisor sees the end (a pidfd, the instant `waitpid` would return), starts the next
//! worker at once, and the run ends at that worker's first correct frame. Phases, each from
//! `CLOCK_MONOTONIC` instants the worker and the supervisor take (one clock for both):
//! `fault_to_exit` (the worker's mark just before the faulting launch, or before `SIGSTOP`, to
//! the supervisor seeing the end), `exit_to_start` (to the new worker's `main`: `fork`, `exec`,
//! the loader), `start_to_init` (the profile, the context, the cubins, memory), `init_to_frame`
//! (its first frame, checked), `total`; and `fault_to_kill` for the watchdog. A run whose worker
//! did not end as its scenario says (another status, no report line, killed when it should
//! have fail-stopped) is counted as unexpected and left out of the distributions. A trap's
//! worker that took the safe state by its bounded wait, the driver not yet having reported the
//! trap (`by_bound`: seen with another process's kernels on the GPU), ended as it must: it is
//! a run, marked ` by=bound` on its run line and counted in the cell's `by_bound`, and the cell's
//! table adds each group's rows (`sticky/error`, `sticky/bound`) where there are both.
//!
//! Interference (`--interference`, a comma-separated list of settings, each measured in turn;
//! `benches/timing/interference.rs`): `none`; `cpu` (one spinning process per CPU); `gpu` (a
//! process of the full API launching a kernel over every SM in a loop on its own context);
//! `pcie` (a process copying `--pcie-mib` MiB page-locked buffers to and from the device at
//! once, in a loop); joined with `+` to combine. Each is started by the bench, waited for until
//! it runs, checked after every cell, and killed at the end (and dies with the bench).
//!
//! Output: one JSON line with the environment and the settings, then per (scenario,
//! interference) one `run SCENARIO INTERFERENCE WORKER ns=…` line per run (its phases in ns, so
//! that runs of several processes pool: `--merge LOG...` prints the pooled distributions, for
//! counts past one command's time limit on the GPU machine) and one JSON line with each phase's distribution in µs (`n`, `min`, `p50`, `p99`,
//! `p999`, `max`; nearest rank, so p99.9 of fewer than 1,000 runs is the maximum), the counts,
//! the cell's wall time and the first worker's report line; a Markdown table per cell; one
//! JSON line per interference setting with what the interferers did. Exits non-zero if a run
//! was unexpected or an interferer died.
//!
//! ```text
//! bash scripts/gpu-bundle.sh --bench fault_to_frame --bench run_phase_tail   # packs it, here
//! # on the GPU machine: what .gpu/run.sh runs in every GPU run (3 runs of each scenario, idle)
//! .gpu/bin/bench-fault_to_frame --bench
//! # by hand (scripts/timing-runs.sh finds or builds the cubins and keeps the log in $OUT):
//! bash scripts/timing-runs.sh fault_to_frame --runs 1000 --cell-max-s 240       # idle
//! bash scripts/timing-runs.sh fault_to_frame --runs 300 --interference cpu,gpu,pcie --cell-max-s 60
//! bash scripts/timing-runs.sh fault_to_frame --runs 20 --worker cpu   # the restart alone
//! cargo bench -p custack-benches --bench fault_to_frame -- --worker cpu --runs 100   # no GPU
//! ```
//!
//! Under `gpu` interference a frame's scope may wait for the other context's time slice: if
//! frames before the fault end in the safe state (`failed_before_fault`), give a longer
//! `--bound-ms`.
//!
//! Wall time: per run, the detection (the bound for `hung`, 20 ms; the watchdog's deadline for
//! `watchdog`, 50 ms; a trap is seen at once), plus the restart (`exit_to_start`), plus the new
//! worker's init phase (context creation dominates: the GPU run measures it, `start_to_init`),
//! plus `--fault-frame` frames. Without a GPU, the CPU worker (`--worker cpu`: the restart
//! alone, no CUDA in the worker) took per 1,000 runs 25 s (hung), 4 s (sticky) and 55 s
//! (watchdog) on the 2-core development machine, exit to new `main` 1.6–2.1 ms at the median;
//! with a GPU add 1,000 GPU init phases to each. Each cell prints its wall time and seconds per
//! run, so the `--bench` run's figures give the estimate for any count; `--cell-max-s` ends a
//! cell at a time limit with the runs it has.
//! Without `--bench` or a flag (as `cargo test --all-targets` runs it) it prints how to run it.

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
        "fault_to_frame: measured on Unix only (fork and exec of workers, pidfd, ppoll, signals)"
    );
}

/// The bench itself: Unix only (fork and exec of workers, pidfd, ppoll, signals).
#[cfg(unix)]
mod on_unix {
    use crate::{pipeline, timing};

    use std::fmt::Write as _;
    use std::process::Command;
    use std::time::{Duration, Instant};
    use timing::interference::{self, Setting};
    use timing::restart::{self, Cell, Limits, Order, PHASES, Reporter, Scenario};
    use timing::stats::Summary;
    use timing::{Args, json_num, json_str, now_ns};

    custack::kernel_contract! {
        /// `spin(unsigned long long cycles, unsigned* out, unsigned n)`
        /// (`tests/fixtures/restricted_process.cu`): spins for `cycles` SM clock cycles, then
        /// writes `out[0]` if `n > 0`.
        unsafe kernel Spin = "spin"(cycles: u64, out: &mut [u32; n], n: u32);
        /// `trap_kernel(unsigned n)`: traps (a sticky fault) if `n > 0`.
        unsafe kernel Trap = "trap_kernel"(n: u32);
    }

    const FLAGS: &[&str] = &[
        "runs",
        "scenarios",
        "interference",
        "worker",
        "bound-ms",
        "watchdog-ms",
        "stuck-s",
        "init-s",
        "fault-frame",
        "spin-s",
        "gpu-kernel-us",
        "pcie-mib",
        "interfere-max-s",
        "cell-max-s",
    ];

    const USAGE: &str = "fault_to_frame: a benchmark (benches/fault_to_frame.rs says what it measures). On a GPU \
machine, with CUSTACK_FRAME_CUBIN and CUSTACK_PROCESS_CUBIN set (.gpu/env.sh):
  fault_to_frame --bench                      3 runs of each scenario, idle (what .gpu/run.sh runs)
  fault_to_frame --runs N [--scenarios hung,sticky,watchdog] [--interference none,cpu,gpu,pcie,cpu+gpu,...]
                 [--worker gpu|cpu] [--bound-ms 20] [--watchdog-ms 50] [--fault-frame 3] [--spin-s 10]
                 [--gpu-kernel-us 1000] [--pcie-mib 256] [--stuck-s 10] [--init-s 60] [--interfere-max-s 3600]
                 [--cell-max-s S]   (each cell ends after S seconds with the runs it has)
  --worker cpu needs no GPU: the restart alone.
  fault_to_frame --merge LOG...               pools the runs of earlier logs (their `run` lines)
                                              and prints each cell's distributions";

    pub(crate) fn main() {
        let start = now_ns();
        if let Some(order) = Order::from_env() {
            worker(order, start);
        }
        interference::interferer_if_asked();
        match supervise() {
            Ok(true) => {}
            Ok(false) => std::process::exit(1),
            Err(e) => {
                eprintln!("fault_to_frame: {e}");
                std::process::exit(2)
            }
        }
    }

    /// In a worker: its life, then the end of the process.
    fn worker(order: Result<(String, Order), String>, start: u64) -> ! {
        timing::die_with_parent(Order::parent());
        let (kind, order) = match order {
            Ok(o) => o,
            Err(e) => {
                eprintln!("fault_to_frame worker: {e}");
                std::process::exit(1)
            }
        };
        if kind == "cpu" {
            restart::cpu_worker(&order, start);
        }
        let mut out = Reporter::new(start);
        match gpu_worker(&order, &mut out) {
            Ok(()) => std::process::exit(0),
            Err(e) => {
                eprintln!("fault_to_frame gpu worker: {e}");
                std::process::exit(1)
            }
        }
    }

    /// A cubin named by `var`.
    fn cubin(var: &str) -> Result<Vec<u8>, String> {
        let path = std::env::var(var).map_err(|_| {
        format!("{var} is not set: .gpu/run.sh builds the cubins with nvcc and writes them to .gpu/env.sh")
    })?;
        std::fs::read(&path).map_err(|e| format!("{var}={path}: {e}"))
    }

    /// The GPU worker: the init phase, then frames until its fault (see the header).
    fn gpu_worker(order: &Order, out: &mut Reporter) -> Result<(), String> {
        use custack::safety::{Budget, Profile, RestrictedContext, WaitBound};
        use custack::{DeviceAttribute, LaunchConfig, Stack};
        use pipeline::{
            CHECKED, FrameBlur, FrameGain, GAIN, HEIGHT, PIXELS, WIDTH, expected, pixel,
        };
        let e = |e: custack::Error| e.to_string();
        let frame_cubin = cubin("CUSTACK_FRAME_CUBIN")?;
        let fault_cubin = cubin("CUSTACK_PROCESS_CUBIN")?;
        let profile = Profile::init(1).map_err(e)?;
        let device = profile.device(0).map_err(e)?;
        let khz = device.attribute(DeviceAttribute::ClockRate).map_err(e)?;
        let cycles = u64::try_from(khz).unwrap_or(2_000_000)
            * u64::try_from(order.spin.as_millis()).unwrap_or(10_000);
        let bytes = PIXELS * size_of::<f32>();
        let budget = Budget::page_locked(2 * bytes)
            .device_bytes(2 * bytes + size_of::<u32>())
            .streams(1)
            .modules(2)
            .kernels(4)
            .waits(WaitBound::fail_stop(order.bound));
        let mut ctx = RestrictedContext::new(&profile, device, budget).map_err(e)?;
        let mut stack = Stack::new().map_err(e)?;
        let mut guard = ctx.push(&mut stack).map_err(e)?;
        {
            let init = guard.init().map_err(e)?;
            // SAFETY: nvcc's cubin of examples/kernels/frame.cu, whose kernels honour the
            // contracts of examples/22_safety_frame/pipeline.rs.
            let frames_module = unsafe { init.load_cubin(&frame_cubin) }.map_err(e)?;
            let blur = init.kernel::<FrameBlur>(&frames_module).map_err(e)?;
            let gain = init.kernel::<FrameGain>(&frames_module).map_err(e)?;
            // SAFETY: nvcc's cubin of tests/fixtures/restricted_process.cu: `spin` writes out[0]
            // only, and only when n > 0; `trap_kernel` touches no memory.
            let fault_module = unsafe { init.load_cubin(&fault_cubin) }.map_err(e)?;
            let spin = init.kernel::<Spin>(&fault_module).map_err(e)?;
            let trap = init.kernel::<Trap>(&fault_module).map_err(e)?;
            let stream = init.stream().map_err(e)?;
            let mut input = init.alloc_pinned::<f32>(PIXELS).map_err(e)?;
            for (i, p) in input.iter_mut().enumerate() {
                *p = pixel(i);
            }
            let mut output = init.alloc_pinned::<f32>(PIXELS).map_err(e)?;
            let mut frame_dev = init.alloc::<f32>(PIXELS).map_err(e)?;
            let mut blurred = init.alloc::<f32>(PIXELS).map_err(e)?;
            let mut word = init.alloc::<u32>(1).map_err(e)?;
            let run = init.seal();
            let config = LaunchConfig::for_elements(WIDTH * HEIGHT);
            let mut count = 0usize;
            let mut frame = || -> Result<(), String> {
                stream
                    .scope(|s| -> custack::Result<()> {
                        let mut f = s.bind_mut(&mut frame_dev);
                        let mut b = s.bind_mut(&mut blurred);
                        s.copy_to_device(&mut f, &input)?;
                        s.run(&blur, config, (&f, &mut b, WIDTH, HEIGHT))?;
                        s.run(&gain, config, (&mut b, GAIN, WIDTH * HEIGHT))?;
                        s.copy_to_host(&mut output, &b)
                    })
                    .map_err(e)?
                    .map_err(e)?;
                count += 1;
                for k in 0..CHECKED {
                    let i = (k * 19_391 + count * 7) % PIXELS;
                    let (got, want) = (output[i], expected(i));
                    if (got - want).abs() > 1e-5 * want.abs().max(1.0) {
                        return Err(format!("frame {count}, pixel {i}: {got}, expected {want}"));
                    }
                }
                Ok(())
            };
            let scenario = order.scenario;
            let mut fault = |out: &mut Reporter| -> String {
                let one = LaunchConfig::for_elements(1);
                let returned = stream.scope(|s| -> custack::Result<()> {
                    if scenario == Scenario::Hung {
                        let mut w = s.bind_mut(&mut word);
                        out.mark("fault");
                        s.run(&spin, one, (cycles, &mut w, 1u32))
                    } else {
                        out.mark("fault");
                        s.run(&trap, one, (1u32,))
                    }
                });
                // Only a scope that returned gets here: the fault did not end the process. A
                // sticky error that reaches this code ends it as the application would.
                match returned {
                    Err(err) | Ok(Err(err)) if err.is_sticky() => custack::fail_stop(&err),
                    other => format!("the faulting scope returned: {other:?}"),
                }
            };
            restart::frames(order, out, &mut frame, &mut fault)?;
            run.synchronize().map_err(e)?;
        }
        guard.shutdown().map_err(e)?;
        ctx.destroy().map_err(e)
    }

    /// The settings of a supervisor run.
    struct Config {
        runs: usize,
        scenarios: Vec<Scenario>,
        settings: Vec<Setting>,
        worker: String,
        fault_frame: u32,
        bound: Duration,
        spin: Duration,
        limits: Limits,
        cell_max: Option<Duration>,
        interference: interference::Options,
    }

    fn config() -> Result<Option<Config>, String> {
        let args = Args::parse(std::env::args().skip(1), FLAGS, &["bench", "merge"])?;
        if !args.any() {
            println!("{USAGE}");
            return Ok(None);
        }
        if args.switch("merge") {
            if args.positional.is_empty() {
                return Err(format!("--merge needs the logs to pool\n{USAGE}"));
            }
            merge(&args.positional)?;
            return Ok(None);
        }
        if let Some(p) = args.positional.first() {
            return Err(format!("unexpected argument {p:?}\n{USAGE}"));
        }
        let bench = args.switch("bench");
        let worker = args.get("worker", "gpu".to_string())?;
        if worker != "gpu" && worker != "cpu" {
            return Err(format!("--worker {worker}: gpu or cpu"));
        }
        let ms = |name: &str, default: u64| args.get(name, default).map(Duration::from_millis);
        let s = |name: &str, default: u64| args.get(name, default).map(Duration::from_secs);
        let c = Config {
            runs: args.get("runs", if bench { 3 } else { 1000 })?,
            scenarios: Scenario::parse_list(args.raw("scenarios").unwrap_or("all"))?,
            settings: Setting::parse_list(args.raw("interference").unwrap_or("none"))?,
            worker,
            fault_frame: args.get("fault-frame", 3)?,
            bound: ms("bound-ms", 20)?,
            spin: s("spin-s", 10)?,
            limits: Limits {
                init: s("init-s", 60)?,
                watchdog: ms("watchdog-ms", 50)?,
                stuck: s("stuck-s", 10)?,
            },
            cell_max: args
                .raw("cell-max-s")
                .map(|_| s("cell-max-s", 0))
                .transpose()?,
            interference: interference::Options {
                gpu_kernel_us: args.get("gpu-kernel-us", 1000)?,
                pcie_mib: args.get("pcie-mib", 256)?,
                max: s("interfere-max-s", 3600)?,
            },
        };
        if c.runs == 0 || c.fault_frame == 0 {
            return Err("--runs and --fault-frame are at least 1".into());
        }
        if c.worker == "gpu" {
            // Say now, before any worker, what a GPU worker would fail on.
            cubin("CUSTACK_FRAME_CUBIN")?;
            cubin("CUSTACK_PROCESS_CUBIN")?;
        }
        Ok(Some(c))
    }

    /// The supervisor: every (interference, scenario) cell, printed as it ends. Whether every run
    /// went as its scenario says.
    fn supervise() -> Result<bool, String> {
        let Some(c) = config()? else {
            return Ok(true);
        };
        let me = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
        // Removed when dropped, after the interferers (declared later, dropped first).
        let scratch = timing::Scratch::new("fault_to_frame")?;
        println!(
            "{{\"bench\":\"fault_to_frame\",\"env\":{},\"config\":{{\"runs\":{},\"worker\":{},\"bound_ms\":{},\"watchdog_ms\":{},\"fault_frame\":{},\"spin_s\":{},\"gpu_kernel_us\":{},\"pcie_mib\":{}}}}}",
            timing::environment_json(),
            c.runs,
            json_str(&c.worker),
            c.bound.as_millis(),
            c.limits.watchdog.as_millis(),
            c.fault_frame,
            c.spin.as_secs(),
            c.interference.gpu_kernel_us,
            c.interference.pcie_mib
        );
        let mut all_expected = true;
        for setting in &c.settings {
            let mut running = if setting.0.is_empty() {
                None
            } else {
                Some(interference::start(
                    setting,
                    &c.interference,
                    &me,
                    &[],
                    &scratch.0,
                )?)
            };
            for &scenario in &c.scenarios {
                let cell = Cell {
                    scenario,
                    runs: c.runs,
                    fault_frame: c.fault_frame,
                    bound: c.bound,
                    spin: c.spin,
                    limits: c.limits,
                    max_wall: c.cell_max,
                };
                let began = Instant::now();
                let mut spawn = |_: &Order| {
                    let mut command = Command::new(&me);
                    command.env(restart::WORKER_ENV, &c.worker);
                    command
                };
                let measured = restart::measure(&cell, &mut spawn, &scratch.0)?;
                let wall = began.elapsed().as_secs_f64();
                print_cell(&c, setting, &cell, &measured, wall);
                all_expected &= measured.unexpected.is_empty();
                if let Some(r) = running.as_mut() {
                    r.check()?;
                }
            }
            if let Some(r) = running.take() {
                println!(
                    "{{\"bench\":\"fault_to_frame\",\"interference\":{}}}",
                    r.stop()?
                );
            }
        }
        Ok(all_expected)
    }

    /// Each phase's distribution over `runs` (phases in [`PHASES`]' order, ns): the JSON object's
    /// members and the Markdown table's rows (ms) for the cell `scenario` under `setting`.
    #[allow(clippy::cast_precision_loss, reason = "nanoseconds below 2^53")]
    fn phase_tables(scenario: &str, setting: &str, runs: &[[Option<u64>; 6]]) -> (String, String) {
        let mut phases = String::new();
        let mut table = String::new();
        for (i, name) in PHASES.iter().enumerate() {
            let mut us: Vec<f64> = runs
                .iter()
                .filter_map(|r| r[i])
                .map(|ns| ns as f64 / 1e3)
                .collect();
            let Some(s) = Summary::of(&mut us) else {
                continue;
            };
            if !phases.is_empty() {
                phases.push(',');
            }
            let _ = write!(
                phases,
                "{}:{{\"n\":{},\"min\":{},\"p50\":{},\"p99\":{},\"p999\":{},\"max\":{}}}",
                json_str(name),
                s.n,
                json_num(s.min, 1),
                json_num(s.p50, 1),
                json_num(s.p99, 1),
                json_num(s.p999, 1),
                json_num(s.max, 1)
            );
            let ms = |x: f64| format!("{:.2}", x / 1e3);
            let _ = writeln!(
                table,
                "| {scenario} | {setting} | {name} | {} | {} | {} | {} | {} | {} |",
                s.n,
                ms(s.min),
                ms(s.p50),
                ms(s.p99),
                ms(s.p999),
                ms(s.max)
            );
        }
        (phases, table)
    }

    /// A cell's distributions over all its runs (each with whether its bounded wait took the
    /// safe state, [`restart::Run::by_bound`]): [`phase_tables`]' JSON members and table, the
    /// table followed, where some runs but not all were ended by the bound, by the two groups'
    /// own rows (`SCENARIO/error`, `SCENARIO/bound`); and how many the bound ended.
    fn cell_tables(
        scenario: &str,
        setting: &str,
        runs: &[([Option<u64>; 6], bool)],
    ) -> (String, String, usize) {
        let all: Vec<[Option<u64>; 6]> = runs.iter().map(|(r, _)| *r).collect();
        let (phases, mut table) = phase_tables(scenario, setting, &all);
        let by_bound = runs.iter().filter(|(_, b)| *b).count();
        if by_bound > 0 && by_bound < runs.len() {
            for (group, bound) in [("error", false), ("bound", true)] {
                let some: Vec<[Option<u64>; 6]> = runs
                    .iter()
                    .filter(|(_, b)| *b == bound)
                    .map(|(r, _)| *r)
                    .collect();
                table.push_str(&phase_tables(&format!("{scenario}/{group}"), setting, &some).1);
            }
        }
        (phases, table, by_bound)
    }

    /// `--merge LOG...`: pools the `run` lines of earlier logs by (scenario, interference,
    /// worker) and prints each pool's distributions as a cell does, with how many logs and
    /// runs went in. Lines that are not run lines are skipped; a malformed run line is an error.
    fn merge(paths: &[String]) -> Result<(), String> {
        /// A cell's runs pooled: (scenario, interference, worker), the runs, the logs they came from.
        type Pool = (
            (String, String, String),
            Vec<([Option<u64>; 6], bool)>,
            std::collections::BTreeSet<usize>,
        );
        let mut pools: Vec<Pool> = Vec::new();
        for (f, path) in paths.iter().enumerate() {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            for (l, line) in text.lines().enumerate() {
                let Some((scenario, setting, worker, phases, by_bound)) =
                    restart::parse_run_line(line).map_err(|e| format!("{path}:{}: {e}", l + 1))?
                else {
                    continue;
                };
                let key = (
                    scenario.to_string(),
                    setting.to_string(),
                    worker.to_string(),
                );
                match pools.iter_mut().find(|(k, _, _)| *k == key) {
                    Some((_, runs, files)) => {
                        runs.push((phases, by_bound));
                        files.insert(f);
                    }
                    None => pools.push((key, vec![(phases, by_bound)], [f].into_iter().collect())),
                }
            }
        }
        if pools.is_empty() {
            return Err(format!("no run lines in {}", paths.join(", ")));
        }
        for ((scenario, setting, worker), runs, files) in &pools {
            let (phases, table, by_bound) = cell_tables(scenario, setting, runs);
            println!(
                "{{\"bench\":\"fault_to_frame\",\"merged\":true,\"scenario\":{},\"interference\":{},\"worker\":{},\"ok\":{},\"by_bound\":{by_bound},\"logs\":{},\"phases_us\":{{{phases}}}}}",
                json_str(scenario),
                json_str(setting),
                json_str(worker),
                runs.len(),
                files.len()
            );
            println!(
                "{scenario} under {setting} ({worker} worker), pooled from {} of {} logs: {} runs; ms:\n\
         | scenario | interference | phase | n | min | median | p99 | p99.9 | max |\n\
         |---|---|---|---|---|---|---|---|---|\n{table}",
                files.len(),
                paths.len(),
                runs.len()
            );
        }
        Ok(())
    }

    #[allow(clippy::cast_precision_loss, reason = "seconds and counts below 2^53")]
    fn print_cell(c: &Config, setting: &Setting, cell: &Cell, m: &restart::Measured, wall: f64) {
        let runs: Vec<([Option<u64>; 6], bool)> =
            m.runs.iter().map(|r| (r.phases(), r.by_bound)).collect();
        for (r, by_bound) in &runs {
            println!(
                "{}",
                restart::run_line(
                    cell.scenario.name(),
                    &setting.name(),
                    &c.worker,
                    r,
                    *by_bound
                )
            );
        }
        let (phases, table, by_bound) = cell_tables(cell.scenario.name(), &setting.name(), &runs);
        let per_run = wall / (m.runs.len() + m.unexpected.len()).max(1) as f64;
        println!(
            "{{\"bench\":\"fault_to_frame\",\"scenario\":{},\"interference\":{},\"worker\":{},\"runs\":{},\"ok\":{},\"by_bound\":{by_bound},\"unexpected\":{},\"failed_before_fault\":{},\"workers\":{},\"bound_ms\":{},\"watchdog_ms\":{},\"wall_s\":{},\"s_per_run\":{},\"phases_us\":{{{phases}}},\"report\":{}}}",
            json_str(cell.scenario.name()),
            json_str(&setting.name()),
            json_str(&c.worker),
            cell.runs,
            m.runs.len(),
            m.unexpected.len(),
            m.failed_before_fault.len(),
            m.workers,
            cell.bound.as_millis(),
            cell.limits.watchdog.as_millis(),
            json_num(wall, 2),
            json_num(per_run, 3),
            json_str(m.report.as_deref().unwrap_or(""))
        );
        let bound_note = if by_bound > 0 {
            format!(
                " ({by_bound} in the safe state by the {} ms bound before the driver reported the trap)",
                cell.bound.as_millis()
            )
        } else {
            String::new()
        };
        println!(
            "{} under {}: {} of {} runs as expected{bound_note}, {wall:.1} s ({:.0} s per 1,000 runs); ms:\n\
         | scenario | interference | phase | n | min | median | p99 | p99.9 | max |\n\
         |---|---|---|---|---|---|---|---|---|\n{table}",
            cell.scenario.name(),
            setting.name(),
            m.runs.len(),
            cell.runs,
            per_run * 1000.0
        );
        for why in m.unexpected.iter().chain(&m.failed_before_fault).take(5) {
            eprintln!(
                "fault_to_frame: {} under {}: {why}",
                cell.scenario.name(),
                setting.name()
            );
        }
    }
}
