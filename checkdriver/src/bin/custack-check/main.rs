//! `custack-check`: runs a program (a test binary, or one test of it) under the checking driver,
//! once clean to count its driver calls, then once per call with that call failed and once with
//! a sticky fault from that call on, in parallel, and prints what each schedule did.
//!
//! ```text
//! custack-check [--jobs N] [--timeout SECS] [--no-sticky] [--context-stays-current] PROGRAM [ARGS...]
//! custack-check --fail-at K PROGRAM [ARGS...]     one schedule, the program's output shown
//! custack-check --sticky-at K PROGRAM [ARGS...]
//! custack-check --hangs [--strict-hangs] [--hang-sample N] [--hang-idle SECS] PROGRAM [ARGS...]
//! custack-check --hang-at K PROGRAM [ARGS...]
//! custack-check --lib-dir                          the directory of the checking libcuda
//! custack-check --cargo [CARGO ARGS...] [-- ARGS...]
//! ```
//!
//! `--hangs` runs the hang schedules instead of the fault schedules: the clean run's report
//! lists the call numbers of its asynchronous enqueues, and one run per enqueue k (or an
//! evenly spaced sample of `--hang-sample N` of them) makes it never complete
//! (`NULLDRIVER_HANG_AT=k`). A run that then exits by itself (a wait's deadline ended it, or it
//! never waited for that work) is judged as any schedule; one that blocks in a wait with no
//! deadline is ended by the checking driver (status 86, a `hung` line naming the wait; a
//! program that makes no progress for `--hang-idle` seconds, default 10, once the hang began,
//! waits where the driver cannot see it: it is ended too) and
//! counted as such: a documented outcome, a failure only with `--strict-hangs` (every wait of
//! the program has a deadline) or with a violation. A test harness stops at the first test
//! that blocks: run a test alone (a filter) to hang every enqueue of each.
//!
//! `--cargo` is the one command for a crate: it builds the crate's tests against the checking
//! driver (`cargo test --no-run` with `CUDA_DRIVER_LIB_DIR` set, into `target/custack-check`, or
//! `$CARGO_TARGET_DIR/custack-check`: never into the user's own build), then runs every schedule
//! of each test harness (an artifact built with `profile.test`) that loads the driver, with
//! `ARGS` (a test filter, `--include-ignored`, ...).
//!
//! Exit status: 0 when every schedule passed, 1 when one had a violation, a leak, a panic or an
//! abort, 2 when the program could not be checked (it failed without faults, never loaded the
//! checking driver, or crashed in its clean run). A run that leaves no report is told apart by
//! the mark the driver writes at load (`NULLDRIVER_LOADED`, a file of the runner's): a program
//! that crashed (a signal) after it loaded the checking driver is reported as a crash under it,
//! not as a build without it. See the guide page "Testing GPU code without a GPU" of custack.

mod json;
mod judge;

use judge::{Allow, Evidence, Exit, Outcome, Report, Schedule, Verdict, judge, no_report, tail};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: custack-check [OPTIONS] PROGRAM [ARGS...]
       custack-check [OPTIONS] --cargo [CARGO ARGS...] [-- ARGS...]
       custack-check [--context-stays-current] (--fail-at K | --sticky-at K | --hang-at K) PROGRAM [ARGS...]
       custack-check --lib-dir
options: --jobs N, --timeout SECS, --no-sticky (no sticky schedules), --context-stays-current
         (the program keeps a context current on purpose: a context left on a thread's stack
         at exit is not reported), --hangs (hang each enqueue in turn instead of failing each
         call), --hang-sample N (hang N evenly spaced enqueues), --hang-idle SECS (a hang run
         with no progress for SECS, default 10, waits with no deadline), --strict-hangs (implies
         --hangs: a wait with no deadline that blocks is a failure), --fail-code N (each failed
         call returns CUresult N, not its entry point's typical code)";

/// The CUDA libraries' stand-ins (`checkdriver/standins/`): the file cargo builds, and the
/// sonames a program built against the real library asks the loader for.
const STAND_INS: [(&str, &[&str]); 6] = [
    (
        "libcusolver.so",
        &["libcusolver.so.12", "libcusolver.so.11"],
    ),
    ("libcusparse.so", &["libcusparse.so.12"]),
    ("libcudnn.so", &["libcudnn.so.9"]),
    ("libcublas.so", &["libcublas.so.12", "libcublas.so.13"]),
    (
        "libcublasLt.so",
        &["libcublasLt.so.12", "libcublasLt.so.13"],
    ),
    ("libnccl.so", &["libnccl.so.2"]),
];

/// The directory, beside this executable, that holds the checking driver as `libcuda.so` and
/// `libcuda.so.1`: what `CUDA_DRIVER_LIB_DIR` (custack's build) and `LD_LIBRARY_PATH` (the
/// loader) are set to.
fn lib_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let here = exe.parent().unwrap_or(Path::new("."));
    // `cargo build`/`cargo run` put the library beside the executable; `cargo test` leaves it
    // in `deps/`.
    let (built, target) = if here.join("libcuda.so").is_file() {
        (here.join("libcuda.so"), "../libcuda.so")
    } else {
        (here.join("deps/libcuda.so"), "../deps/libcuda.so")
    };
    if !built.is_file() {
        return Err(format!(
            "{} is missing: run custack-check with `cargo run --release --manifest-path \
             <custack>/checkdriver/Cargo.toml --bin custack-check -- ...`, which builds the \
             checking libcuda beside it",
            built.display()
        ));
    }
    let dir = here.join("custack-checkdriver");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut links = vec![
        ("libcuda.so", target.to_owned()),
        ("libcuda.so.1", target.to_owned()),
    ];
    // The CUDA libraries' stand-ins, where they were built (`cargo build` of the checkdriver
    // workspace builds them beside the double), under their sonames.
    for (file, sonames) in STAND_INS {
        let built = if here.join(file).is_file() {
            Some(format!("../{file}"))
        } else if here.join("deps").join(file).is_file() {
            Some(format!("../deps/{file}"))
        } else {
            None
        };
        if let Some(stand_in) = built {
            for name in core::iter::once(file).chain(sonames.iter().copied()) {
                links.push((name, stand_in.clone()));
            }
        }
    }
    for (name, target) in links {
        let link = dir.join(name);
        if link.symlink_metadata().is_err() {
            match std::os::unix::fs::symlink(&target, &link) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("{}: {e}", link.display())),
            }
        }
    }
    Ok(dir)
}

#[allow(
    clippy::struct_excessive_bools,
    reason = "one field per command-line switch, as the usage names them"
)]
struct Options {
    jobs: usize,
    timeout: Duration,
    sticky: bool,
    /// `--context-stays-current`: the program keeps a context current on purpose (as a crate
    /// that binds its context to the thread once does), so a thread that ends with a context on
    /// its stack is no violation. Leaks and orphans still count.
    context_stays_current: bool,
    /// `--hangs`: the hang schedules, not the fault schedules.
    hangs: bool,
    /// `--strict-hangs`: blocking in a wait with no deadline is a failure.
    strict_hangs: bool,
    /// `--hang-sample N`: at most N enqueues are hung, evenly spaced (0: all).
    hang_sample: usize,
    /// `--hang-idle SECS`: `NULLDRIVER_HANG_IDLE_SECS` (None: the driver's default).
    hang_idle: Option<u64>,
    /// `--fail-code N`: the code a failed call returns (`NULLDRIVER_FAIL_CODE`) instead of its
    /// entry point's typical one; a non-sticky code keeps the process unpoisoned, so what the
    /// program does after a failed call is judged in a process that still releases.
    fail_code: Option<u64>,
    one: Option<Schedule>,
    program: OsString,
    args: Vec<OsString>,
}

impl Options {
    fn allow(&self) -> Allow {
        Allow {
            context_stays_current: self.context_stays_current,
            strict_hangs: self.strict_hangs,
        }
    }
}

/// At most `n` of `all`, evenly spaced, the first and the last among them (all if `n` is 0 or
/// at least their number).
fn sample(all: &[u64], n: usize) -> Vec<u64> {
    if n == 0 || all.len() <= n {
        return all.to_vec();
    }
    if n == 1 {
        return all.first().copied().into_iter().collect();
    }
    (0..n)
        .filter_map(|i| all.get(i * (all.len() - 1) / (n - 1)).copied())
        .collect()
}

enum Parsed {
    Run(Options),
    /// `--cargo`: the options (no program yet), cargo's arguments, the test binaries' arguments.
    Cargo(Options, Vec<OsString>, Vec<OsString>),
    LibDir,
}

fn parse(mut argv: impl Iterator<Item = OsString>) -> Result<Parsed, String> {
    let mut jobs = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut timeout = Duration::from_mins(5);
    let mut sticky = true;
    let mut context_stays_current = false;
    let (mut hangs, mut strict_hangs, mut hang_sample) = (false, false, 0);
    let mut hang_idle = None;
    let mut fail_code = None;
    let mut one = None;
    let number = |v: Option<OsString>, what: &str| -> Result<u64, String> {
        v.and_then(|v| v.to_str().and_then(|v| v.parse().ok()))
            .ok_or(format!("{what} takes a number\n{USAGE}"))
    };
    while let Some(arg) = argv.next() {
        match arg.to_str() {
            Some("--lib-dir") => return Ok(Parsed::LibDir),
            Some("--jobs" | "-j") => jobs = number(argv.next(), "--jobs")?.max(1) as usize,
            Some("--timeout") => timeout = Duration::from_secs(number(argv.next(), "--timeout")?),
            Some("--no-sticky") => sticky = false,
            Some("--context-stays-current") => context_stays_current = true,
            Some("--hangs") => hangs = true,
            Some("--strict-hangs") => (hangs, strict_hangs) = (true, true),
            Some("--hang-sample") => {
                hang_sample = number(argv.next(), "--hang-sample")? as usize;
            }
            Some("--hang-idle") => hang_idle = Some(number(argv.next(), "--hang-idle")?),
            Some("--fail-code") => fail_code = Some(number(argv.next(), "--fail-code")?),
            Some("--hang-at") => one = Some(Schedule::HangAt(number(argv.next(), "--hang-at")?)),
            Some("--fail-at") => one = Some(Schedule::FailAt(number(argv.next(), "--fail-at")?)),
            Some("--sticky-at") => {
                one = Some(Schedule::StickyAt(number(argv.next(), "--sticky-at")?));
            }
            Some("--help" | "-h") => return Err(USAGE.to_owned()),
            Some("--cargo") => {
                let mut cargo = Vec::new();
                let mut args = Vec::new();
                let mut after = false;
                for a in argv.by_ref() {
                    if !after && a == "--" {
                        after = true;
                    } else if after {
                        args.push(a);
                    } else {
                        cargo.push(a);
                    }
                }
                let opts = Options {
                    jobs,
                    timeout,
                    sticky,
                    context_stays_current,
                    hangs,
                    strict_hangs,
                    hang_sample,
                    hang_idle,
                    fail_code,
                    one: None,
                    program: OsString::new(),
                    args: Vec::new(),
                };
                return Ok(Parsed::Cargo(opts, cargo, args));
            }
            Some("--") => {
                let program = argv.next().ok_or(USAGE)?;
                return Ok(Parsed::Run(Options {
                    jobs,
                    timeout,
                    sticky,
                    context_stays_current,
                    hangs,
                    strict_hangs,
                    hang_sample,
                    hang_idle,
                    fail_code,
                    one,
                    program,
                    args: argv.collect(),
                }));
            }
            Some(a) if a.starts_with('-') => return Err(format!("unknown option {a}\n{USAGE}")),
            _ => {
                return Ok(Parsed::Run(Options {
                    jobs,
                    timeout,
                    sticky,
                    context_stays_current,
                    hangs,
                    strict_hangs,
                    hang_sample,
                    hang_idle,
                    fail_code,
                    one,
                    program: arg,
                    args: argv.collect(),
                }));
            }
        }
    }
    Err(USAGE.to_owned())
}

/// One run of the program: how it ended, its output (stdout and stderr together) and the
/// driver's report, or, without one, whether the program loaded the driver (its mark at load,
/// `NULLDRIVER_LOADED`).
struct Run {
    exit: Exit,
    output: String,
    report: Option<Report>,
    loaded: bool,
}

impl Run {
    fn evidence(&self) -> Evidence<'_> {
        match (&self.report, self.loaded) {
            (Some(r), _) => Evidence::Report(r),
            (None, true) => Evidence::Loaded,
            (None, false) => Evidence::NotLoaded,
        }
    }
}

/// Runs the program once under `schedule`, its output into `work` (or shown, if `show`).
fn run(opts: &Options, lib: &Path, work: &Path, n: usize, schedule: Schedule, show: bool) -> Run {
    let report_path = work.join(format!("report-{n}"));
    let out_path = work.join(format!("output-{n}"));
    let loaded_path = work.join(format!("loaded-{n}"));
    let _ = std::fs::remove_file(&report_path);
    let _ = std::fs::remove_file(&loaded_path);
    let mut cmd = Command::new(&opts.program);
    cmd.args(&opts.args);
    let mut path = OsString::from(lib);
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(old);
    }
    cmd.env("LD_LIBRARY_PATH", path)
        .env("NULLDRIVER_CHECK", "1")
        .env("NULLDRIVER_REPORT", &report_path)
        .env("NULLDRIVER_LOADED", &loaded_path)
        .env_remove("NULLDRIVER_FAIL_AT")
        .env_remove("NULLDRIVER_STICKY_AT")
        .env_remove("NULLDRIVER_REPEAT_AT")
        .env_remove("NULLDRIVER_LOST_AT")
        .env_remove("NULLDRIVER_FAIL_CODE")
        .env_remove("NULLDRIVER_HANG_AT")
        .env_remove("NULLDRIVER_HANG_IDLE_SECS")
        // One test at a time, in the same order each run: the k-th driver call is the same call.
        .env("RUST_TEST_THREADS", "1");
    match schedule {
        Schedule::Clean => {}
        Schedule::FailAt(k) => {
            cmd.env("NULLDRIVER_FAIL_AT", k.to_string());
            if let Some(code) = opts.fail_code {
                cmd.env("NULLDRIVER_FAIL_CODE", code.to_string());
            }
        }
        Schedule::StickyAt(k) => {
            cmd.env("NULLDRIVER_STICKY_AT", k.to_string());
        }
        Schedule::HangAt(k) => {
            cmd.env("NULLDRIVER_HANG_AT", k.to_string());
            if let Some(secs) = opts.hang_idle {
                cmd.env("NULLDRIVER_HANG_IDLE_SECS", secs.to_string());
            }
        }
    }
    // The output is always kept, so that one judge sees it whether it is shown (one schedule)
    // or not (the table).
    let files = std::fs::File::create(&out_path).and_then(|f| Ok((f.try_clone()?, f)));
    match files {
        Ok((a, b)) => {
            cmd.stdout(a).stderr(b);
        }
        Err(_) => {
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
        }
    }
    if !show {
        cmd.stdin(Stdio::null());
    }
    let start = Instant::now();
    let exit = match cmd.spawn() {
        Err(e) => Exit::NotStarted(e.to_string()),
        Ok(mut child) => loop {
            match child.try_wait() {
                Ok(Some(status)) => break Exit::from(status),
                Ok(None) if start.elapsed() > opts.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Exit::TimedOut(opts.timeout.as_secs());
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => break Exit::NotStarted(e.to_string()),
            }
        },
    };
    let output = std::fs::read(&out_path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    if show {
        print!("{output}");
    }
    let report = std::fs::read_to_string(&report_path)
        .ok()
        .map(|t| Report::parse(&t));
    Run {
        exit,
        output,
        report,
        loaded: loaded_path.is_file(),
    }
}

fn shown(program: &OsString, args: &[OsString]) -> String {
    let mut s = program.to_string_lossy().into_owned();
    for a in args {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

fn main() -> ExitCode {
    let opts = match parse(std::env::args_os().skip(1)) {
        Ok(Parsed::LibDir) => {
            return match lib_dir() {
                Ok(dir) => {
                    println!("{}", dir.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("custack-check: {e}");
                    ExitCode::from(2)
                }
            };
        }
        Ok(Parsed::Run(o)) => o,
        Ok(Parsed::Cargo(o, cargo, args)) => return cargo_mode(o, &cargo, args),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let lib = match lib_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("custack-check: {e}");
            return ExitCode::from(2);
        }
    };
    let work = std::env::temp_dir().join(format!("custack-check-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&work) {
        eprintln!("custack-check: {}: {e}", work.display());
        return ExitCode::from(2);
    }
    let code = if let Some(schedule) = opts.one {
        one(&opts, &lib, &work, schedule)
    } else {
        match all(&opts, &lib, &work, false) {
            Checked::Passed => ExitCode::SUCCESS,
            Checked::Failed => ExitCode::FAILURE,
            Checked::Unchecked | Checked::NotLoaded => ExitCode::from(2),
        }
    };
    let _ = std::fs::remove_dir_all(&work);
    code
}

/// `--cargo`: builds the tests against the checking driver, then checks each test binary that
/// loads it.
fn cargo_mode(mut opts: Options, cargo_args: &[OsString], args: Vec<OsString>) -> ExitCode {
    let lib = match lib_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("custack-check: {e}");
            return ExitCode::from(2);
        }
    };
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args([
        "test",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ])
    .args(cargo_args)
    .env("CUDA_DRIVER_LIB_DIR", &lib)
    // Where a stand-in is there, custack's feature for its library links it (and nothing else
    // is searched); without it the variable would fail custack's build.
    .envs(
        [
            ("libcusolver.so", "CUSTACK_CUSOLVER_LIB_DIR"),
            ("libcusparse.so", "CUSTACK_CUSPARSE_LIB_DIR"),
            ("libcudnn.so", "CUSTACK_CUDNN_LIB_DIR"),
            ("libcublas.so", "CUSTACK_CUBLAS_LIB_DIR"),
            ("libcublasLt.so", "CUSTACK_CUBLASLT_LIB_DIR"),
            ("libnccl.so", "CUSTACK_NCCL_LIB_DIR"),
        ]
        .into_iter()
        .filter(|(file, _)| lib.join(file).exists())
        .map(|(_, var)| (var, lib.clone())),
    )
    .stderr(Stdio::inherit());
    // Its own target directory, always (`own_target_dir`): switching custack's build between
    // the checking libcuda and the real one would also rebuild custack and its dependents.
    cmd.arg("--target-dir")
        .arg(own_target_dir(std::env::var_os("CARGO_TARGET_DIR")));
    let out = match cmd.output() {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            eprintln!("custack-check: cargo test --no-run failed ({})", o.status);
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("custack-check: cannot run cargo: {e}");
            return ExitCode::from(2);
        }
    };
    let binaries = test_executables(&String::from_utf8_lossy(&out.stdout));
    if binaries.is_empty() {
        eprintln!("custack-check: cargo built no test binary");
        return ExitCode::from(2);
    }
    let work = std::env::temp_dir().join(format!("custack-check-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&work) {
        eprintln!("custack-check: {}: {e}", work.display());
        return ExitCode::from(2);
    }
    opts.args = args;
    let mut worst = 0;
    for bin in binaries {
        opts.program = bin.into();
        let code = match all(&opts, &lib, &work, true) {
            Checked::Passed => 0,
            Checked::NotLoaded => {
                println!(
                    "custack-check: {} loads no libcuda (skipped)",
                    opts.program.to_string_lossy()
                );
                0
            }
            Checked::Failed => 1,
            Checked::Unchecked => 2,
        };
        worst = worst.max(code);
    }
    let _ = std::fs::remove_dir_all(&work);
    ExitCode::from(worst)
}

/// The test executables of `cargo test --no-run --message-format=json` output: the
/// `compiler-artifact` messages whose *profile* is a test profile (`"profile":{"test":true}`)
/// and that have an executable. A bin target's ordinary artifact says `"test":true` too, in its
/// `target` (the target has tests), with a non-test profile: it is the program, not a test
/// harness, and is not run with the harness's arguments.
fn test_executables(messages: &str) -> Vec<String> {
    messages
        .lines()
        .filter_map(json::parse)
        .filter(|m| m.get("reason").and_then(json::Value::as_str) == Some("compiler-artifact"))
        .filter(|m| {
            m.get("profile")
                .and_then(|p| p.get("test"))
                .and_then(json::Value::as_bool)
                == Some(true)
        })
        .filter_map(|m| m.get("executable")?.as_str().map(str::to_owned))
        .collect()
}

/// Where `--cargo` builds: a directory of the runner's own, inside the crate's target directory
/// (`CARGO_TARGET_DIR`, or `target`). The build links the checking libcuda: in the user's own
/// directory it would relink their build, and their next `cargo run` would load the double (or
/// find no `libcuda.so.1`).
fn own_target_dir(cargo_target_dir: Option<OsString>) -> PathBuf {
    cargo_target_dir
        .filter(|d| !d.is_empty())
        .map_or_else(|| PathBuf::from("target"), PathBuf::from)
        .join("custack-check")
}

/// One schedule, the program's output shown, then the driver's report and the verdict.
fn one(opts: &Options, lib: &Path, work: &Path, schedule: Schedule) -> ExitCode {
    let r = run(opts, lib, work, 0, schedule, true);
    let v = judge(schedule, &r.exit, &r.output, r.evidence(), opts.allow());
    if let Some(rep) = &r.report {
        eprintln!(
            "custack-check: the driver's report:\n{}",
            rep.text.trim_end()
        );
    } else {
        eprintln!("custack-check: no report: {}", no_report(&r.exit, r.loaded));
    }
    eprintln!("custack-check: {} {}", schedule, v.summary());
    if v.bad() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// How checking a program ended.
enum Checked {
    Passed,
    /// A violation, a leak, a panic or an abort.
    Failed,
    /// It fails without a fault, or did not load the checking driver.
    Unchecked,
    /// It did not load the checking driver, and passed (`--cargo`: skipped).
    NotLoaded,
}

/// What to say of a clean run that left no report. Only a program that exited by itself
/// without ever loading the driver is blamed on its build; a crash, or an end without exit
/// handlers after the load, is the program's.
fn without_report(program: &str, clean: &Run, lib: &Path) -> String {
    let advice = match clean.exit {
        Exit::Code(c) if c != 134 && !clean.loaded => format!(
            " Build it against the checking driver, e.g. `CUDA_DRIVER_LIB_DIR={} cargo test \
             --no-run` (a build that found no libcuda links none).",
            lib.display()
        ),
        _ => String::new(),
    };
    format!(
        "custack-check: {program} wrote no report: {}.{advice}\n{}",
        no_report(&clean.exit, clean.loaded),
        tail(&clean.output, 10)
    )
}

/// The clean run, then every schedule in parallel, then the table. `skip_unloaded`: a program
/// that did not load the checking driver and exits 0 is `NotLoaded`, not an error.
fn all(opts: &Options, lib: &Path, work: &Path, skip_unloaded: bool) -> Checked {
    let program = shown(&opts.program, &opts.args);
    let clean = run(opts, lib, work, 0, Schedule::Clean, false);
    if skip_unloaded
        && clean.report.is_none()
        && !clean.loaded
        && matches!(clean.exit, Exit::Code(0))
    {
        return Checked::NotLoaded;
    }
    let Some(report) = &clean.report else {
        eprintln!("{}", without_report(&program, &clean, lib));
        return Checked::Unchecked;
    };
    if !matches!(clean.exit, Exit::Code(0)) {
        // A kernel that ran without a stand-in did nothing: a result check then fails.
        let mut missing = String::new();
        for (name, n) in &report.without_stand_in {
            let _ = writeln!(
                missing,
                "  kernel {name} ran {n} time(s) without a stand-in (it did nothing): register \
                 one with custack::StandIn::register, or the results it should have made are \
                 not there"
            );
        }
        eprintln!(
            "custack-check: {program} fails without any fault ({}): fix that first.\n{}{missing}",
            clean.exit,
            tail(&clean.output, 10)
        );
        return Checked::Unchecked;
    }
    let calls = report.calls;
    let mut schedules = vec![Schedule::Clean];
    if opts.hangs {
        let points = sample(&report.enqueues, opts.hang_sample);
        schedules.extend(points.into_iter().map(Schedule::HangAt));
    } else {
        for k in 1..=calls {
            schedules.push(Schedule::FailAt(k));
            if opts.sticky {
                schedules.push(Schedule::StickyAt(k));
            }
        }
    }
    let next = AtomicUsize::new(1);
    let results: Mutex<Vec<(usize, Verdict)>> = Mutex::new(vec![(
        0,
        judge(
            Schedule::Clean,
            &clean.exit,
            &clean.output,
            Evidence::Report(report),
            opts.allow(),
        ),
    )]);
    let missing_stand_ins = report.without_stand_in.clone();
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.min(schedules.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Relaxed);
                    let Some(&schedule) = schedules.get(i) else {
                        break;
                    };
                    let r = run(opts, lib, work, i, schedule, false);
                    let v = judge(schedule, &r.exit, &r.output, r.evidence(), opts.allow());
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((i, v));
                }
            });
        }
    });
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(i, _)| *i);
    let verdicts: Vec<&Verdict> = results.iter().map(|(_, v)| v).collect();
    let text = if opts.hangs {
        hang_table(&program, report.enqueues.len(), &verdicts)
    } else {
        table(&program, calls, opts.sticky, &verdicts, &missing_stand_ins)
    };
    print!("{text}");
    if verdicts.iter().any(|v| v.bad()) {
        Checked::Failed
    } else {
        Checked::Passed
    }
}

/// The summary table, the failing schedules, and the kernels that ran without a stand-in.
fn table(
    program: &str,
    calls: u64,
    sticky: bool,
    verdicts: &[&Verdict],
    missing: &[(String, u64)],
) -> String {
    let count = |f: &dyn Fn(&Verdict) -> bool| verdicts.iter().filter(|v| f(v)).count();
    let mut t = String::new();
    let _ = writeln!(t, "custack-check: {program}");
    let _ = writeln!(t, "  driver calls in the clean run        {calls:>6}");
    let _ = writeln!(
        t,
        "  schedules run                        {:>6}  (1 clean, {calls} with one call failed{})",
        verdicts.len(),
        if sticky {
            format!(", {calls} sticky from a call on")
        } else {
            String::new()
        }
    );
    let faulted = |v: &Verdict| v.schedule != Schedule::Clean;
    let rows: [(&str, usize); 7] = [
        (
            "failure reached the program as error",
            count(&|v| faulted(v) && v.outcome == Outcome::Error),
        ),
        (
            "failure absorbed (program succeeded)",
            count(&|v| faulted(v) && v.outcome == Outcome::Passed),
        ),
        ("panics", count(&|v| v.outcome == Outcome::Panic)),
        ("aborts", count(&|v| v.outcome == Outcome::Abort)),
        (
            "safe state (status 75, one line)",
            count(&|v| v.outcome == Outcome::SafeState),
        ),
        (
            "schedules with violations",
            count(&|v| !v.violations.is_empty()),
        ),
        ("schedules with leaks", count(&|v| !v.leaks.is_empty())),
    ];
    for (name, n) in rows {
        let _ = writeln!(t, "  {name:<36} {n:>6}");
    }
    let bad: Vec<&&Verdict> = verdicts.iter().filter(|v| v.bad()).collect();
    if !bad.is_empty() {
        let _ = writeln!(
            t,
            "failing schedules (reproduce one: custack-check --fail-at K {program}):"
        );
        for v in &bad {
            let _ = writeln!(t, "  {:<14} {}", v.schedule.to_string(), v.summary());
            for p in v.violations.iter().chain(&v.leaks).take(6) {
                let _ = writeln!(t, "      {p}");
            }
            t.push_str(&v.output_tail);
        }
    }
    for (name, n) in missing {
        let _ = writeln!(
            t,
            "  kernel {name} ran {n} time(s) without a stand-in (it did nothing)"
        );
    }
    let _ = writeln!(
        t,
        "custack-check: {} ({} of {} schedules failing)",
        if bad.is_empty() { "passed" } else { "FAILED" },
        bad.len(),
        verdicts.len()
    );
    t
}

/// The summary of the hang schedules (`--hangs`), and the failing ones.
fn hang_table(program: &str, enqueues: usize, verdicts: &[&Verdict]) -> String {
    let count = |f: &dyn Fn(&Verdict) -> bool| verdicts.iter().filter(|v| f(v)).count();
    let hung = |v: &Verdict| v.schedule != Schedule::Clean;
    let mut t = String::new();
    let _ = writeln!(t, "custack-check: {program} (hangs)");
    let _ = writeln!(t, "  enqueues in the clean run            {enqueues:>6}");
    let _ = writeln!(
        t,
        "  schedules run                        {:>6}  (1 clean, {} with one enqueue hung)",
        verdicts.len(),
        verdicts.len().saturating_sub(1)
    );
    let rows: [(&str, usize); 7] = [
        (
            "ended by a deadline or normally",
            count(&|v| {
                hung(v) && matches!(v.outcome, Outcome::Passed | Outcome::Error) && !v.bad()
            }),
        ),
        (
            "blocked in a wait with no deadline",
            count(&|v| v.outcome == Outcome::Blocked),
        ),
        ("panics", count(&|v| v.outcome == Outcome::Panic)),
        ("aborts", count(&|v| v.outcome == Outcome::Abort)),
        (
            "safe state (status 75, one line)",
            count(&|v| v.outcome == Outcome::SafeState),
        ),
        (
            "schedules with violations",
            count(&|v| !v.violations.is_empty()),
        ),
        ("schedules with leaks", count(&|v| !v.leaks.is_empty())),
    ];
    for (name, n) in rows {
        let _ = writeln!(t, "  {name:<36} {n:>6}");
    }
    let bad: Vec<&&Verdict> = verdicts.iter().filter(|v| v.bad()).collect();
    if !bad.is_empty() {
        let _ = writeln!(
            t,
            "failing schedules (reproduce one: custack-check --hang-at K {program}):"
        );
        for v in &bad {
            let _ = writeln!(t, "  {:<14} {}", v.schedule.to_string(), v.summary());
            for p in v.violations.iter().chain(&v.leaks).take(6) {
                let _ = writeln!(t, "      {p}");
            }
            t.push_str(&v.output_tail);
        }
    }
    let _ = writeln!(
        t,
        "custack-check: {} ({} of {} schedules failing)",
        if bad.is_empty() { "passed" } else { "FAILED" },
        bad.len(),
        verdicts.len()
    );
    t
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hang_sample_is_evenly_spaced_and_keeps_both_ends() {
        let all: Vec<u64> = (10..30).collect();
        assert_eq!(super::sample(&all, 0), all);
        assert_eq!(super::sample(&all, 50), all);
        assert_eq!(super::sample(&all, 1), [10]);
        assert_eq!(super::sample(&all, 2), [10, 29]);
        assert_eq!(super::sample(&all, 4), [10, 16, 22, 29]);
    }

    #[test]
    fn test_executables_are_read_from_cargo_json() {
        let json = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"app"},"profile":{"test":false},"executable":"/t/debug/app"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"ops"},"profile":{"opt_level":"0","test":true},"executable":"/t/debug/deps/ops-1a"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"lib"},"profile":{"test":true},"executable":null}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(super::test_executables(json), ["/t/debug/deps/ops-1a"]);
    }

    /// Real `cargo test --no-run --message-format=json` output of a crate with a lib, a bin
    /// (whose ordinary artifact's *target* says `"test":true`) and an integration test, its
    /// paths made neutral: three test harnesses, and not the program itself.
    #[test]
    fn a_crate_with_a_bin_runs_only_its_test_harnesses() {
        let messages = include_str!("cargo-messages.json");
        let found = super::test_executables(messages);
        let names: Vec<&str> = found
            .iter()
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .map(|f| f.split('-').next().unwrap_or(f))
            .collect();
        assert_eq!(names, ["it", "mini", "mini"], "{found:?}");
        assert!(
            found.iter().all(|p| p.contains("/deps/")),
            "the bin's own executable (target/debug/mini) is no test harness: {found:?}"
        );
    }

    #[test]
    fn the_build_goes_to_a_directory_of_its_own() {
        use std::path::PathBuf;
        assert_eq!(
            super::own_target_dir(None),
            PathBuf::from("target/custack-check")
        );
        assert_eq!(
            super::own_target_dir(Some("".into())),
            PathBuf::from("target/custack-check")
        );
        assert_eq!(
            super::own_target_dir(Some("/build/app".into())),
            PathBuf::from("/build/app/custack-check"),
            "with CARGO_TARGET_DIR set, the user's build there is left alone"
        );
    }
}
