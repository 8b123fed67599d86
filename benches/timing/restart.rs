//! `fault_to_frame`'s supervisor and worker: the fault-tolerant time interval measured from a
//! fault in a worker process to the first correct frame of the worker that replaces it.
//!
//! The supervisor (the bench's own process, which never touches CUDA) starts a worker, this
//! binary again with its orders in the environment ([`Order`]). The worker writes one line on
//! its stdout at each step, each with the `CLOCK_MONOTONIC` instant it was reached
//! ([`crate::timing::now_ns`]: one clock for every process, so the supervisor can subtract):
//! `@ftf start T` first thing in `main`, `@ftf init T` once its init phase is done, `@ftf frame
//! K T` after each frame whose result it checked, `@ftf fault T` just before the fault. The
//! faults ([`Scenario`]): a kernel that never ends, past the `WaitBound` (the safe state, exit
//! status 75); a kernel that traps (a sticky error, the safe state); the worker stopped by
//! `SIGSTOP` (its heartbeat stops; the supervisor's watchdog kills it). The supervisor waits on
//! the worker's stdout and on a pidfd of the worker at once (`ppoll`), so it reads the exit at
//! the instant `waitpid` would see it, and each line as it comes (a line is a heartbeat). On
//! the worker's end it starts the next worker at once, whose first correct frame closes the
//! run; that worker then faults in turn, so `runs` faults take `runs + 1` workers.
//!
//! A CPU worker ([`cpu_worker`]) runs the same protocol without CUDA (a frame computed on the
//! host, the faults standing in: a sleep of the bound then `custack::fail_stop`, `fail_stop` at
//! once, `SIGSTOP`): it measures the process-restart part on any machine and lets the tests
//! check the supervisor without a GPU.

use super::now_ns;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// Set in a worker: `gpu` or `cpu`.
pub(crate) const WORKER_ENV: &str = "CUSTACK_FTF_WORKER";
const SCENARIO_ENV: &str = "CUSTACK_FTF_SCENARIO";
const FAULT_AT_ENV: &str = "CUSTACK_FTF_FAULT_AT";
const FRAMES_ENV: &str = "CUSTACK_FTF_FRAMES";
const BOUND_ENV: &str = "CUSTACK_FTF_BOUND_US";
const SPIN_ENV: &str = "CUSTACK_FTF_SPIN_MS";
const PARENT_ENV: &str = "CUSTACK_FTF_PARENT";
/// How each protocol line starts (anywhere in a line: a test harness may have begun one).
const TAG: &str = "@ftf ";

/// What goes wrong in a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scenario {
    /// A kernel that never ends (it spins for `--spin-s`), found by the bounded wait.
    Hung,
    /// A kernel that traps: a sticky error, found by the next wait.
    Sticky,
    /// The worker stopped (`SIGSTOP`): its heartbeat stops, the supervisor's watchdog kills it.
    Watchdog,
}

impl Scenario {
    /// Every scenario, in the order they are measured.
    pub(crate) const ALL: [Self; 3] = [Self::Hung, Self::Sticky, Self::Watchdog];

    /// Its name on the command line and in the output.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Hung => "hung",
            Self::Sticky => "sticky",
            Self::Watchdog => "watchdog",
        }
    }

    /// A comma-separated list of names (`all`: every one).
    ///
    /// # Errors
    ///
    /// An unknown name.
    pub(crate) fn parse_list(s: &str) -> Result<Vec<Self>, String> {
        if s == "all" {
            return Ok(Self::ALL.to_vec());
        }
        s.split(',')
            .map(|w| {
                Self::ALL
                    .into_iter()
                    .find(|k| k.name() == w.trim())
                    .ok_or(format!(
                        "unknown scenario {w:?} (hung, sticky, watchdog, all)"
                    ))
            })
            .collect()
    }
}

/// What a worker is told to do, through its environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Order {
    /// The fault it is to have.
    pub(crate) scenario: Scenario,
    /// The frame it faults at (from 1; frames before it run normally), or none.
    pub(crate) fault_at: Option<u32>,
    /// Without a fault: the frames it runs, then it exits 0.
    pub(crate) frames: u32,
    /// Its `WaitBound`.
    pub(crate) bound: Duration,
    /// How long the never-ending kernel spins at the most (so that no mistake leaves a GPU
    /// busy for ever).
    pub(crate) spin: Duration,
}

impl Order {
    /// Puts the order, and this process as the worker's parent, into `command`'s environment.
    pub(crate) fn apply(&self, command: &mut Command) {
        command
            .env(SCENARIO_ENV, self.scenario.name())
            .env(FRAMES_ENV, self.frames.to_string())
            .env(BOUND_ENV, self.bound.as_micros().to_string())
            .env(SPIN_ENV, self.spin.as_millis().to_string())
            .env(PARENT_ENV, super::pid().to_string());
        match self.fault_at {
            Some(k) => command.env(FAULT_AT_ENV, k.to_string()),
            None => command.env_remove(FAULT_AT_ENV),
        };
    }

    /// In a worker: its order and the worker kind (`gpu`, `cpu`); `None` in any other process.
    ///
    /// # Errors
    ///
    /// An environment that is not a whole order.
    pub(crate) fn from_env() -> Option<Result<(String, Self), String>> {
        let kind = std::env::var(WORKER_ENV).ok()?;
        let var = |name: &str| std::env::var(name).map_err(|_| format!("a worker without {name}"));
        let num = |name: &str| -> Result<u64, String> {
            var(name)?.parse().map_err(|e| format!("{name}: {e}"))
        };
        let order = (|| {
            let scenario = Scenario::parse_list(&var(SCENARIO_ENV)?)?
                .first()
                .copied()
                .ok_or("no scenario")?;
            let fault_at = match std::env::var(FAULT_AT_ENV) {
                Ok(v) => Some(v.parse().map_err(|e| format!("{FAULT_AT_ENV}: {e}"))?),
                Err(_) => None,
            };
            Ok(Self {
                scenario,
                fault_at,
                frames: u32::try_from(num(FRAMES_ENV)?).map_err(|e| e.to_string())?,
                bound: Duration::from_micros(num(BOUND_ENV)?),
                spin: Duration::from_millis(num(SPIN_ENV)?),
            })
        })();
        Some(order.map(|o| (kind, o)))
    }

    /// The worker's parent, as the supervisor wrote it.
    pub(crate) fn parent() -> Option<u32> {
        std::env::var(PARENT_ENV).ok()?.parse().ok()
    }
}

/// A worker's protocol lines, on its stdout, each flushed at once.
pub(crate) struct Reporter {
    out: std::io::Stdout,
}

impl Reporter {
    /// The reporter; writes `@ftf start T` with `start`, the instant `main` began.
    pub(crate) fn new(start: u64) -> Self {
        let mut r = Self {
            out: std::io::stdout(),
        };
        r.write(&format!("start {start}"));
        r
    }

    /// Writes `@ftf WHAT T`, T the instant now.
    pub(crate) fn mark(&mut self, what: &str) {
        let t = now_ns();
        self.write(&format!("{what} {t}"));
    }

    fn write(&mut self, line: &str) {
        use std::io::Write as _;
        // A failed write (the supervisor gone) ends the worker: nobody is measuring.
        let mut out = self.out.lock();
        if writeln!(out, "\n{TAG}{line}")
            .and_then(|()| out.flush())
            .is_err()
        {
            std::process::exit(3);
        }
    }
}

/// The worker's life after its init phase: frames until the order's fault (marked just before
/// it by `fault`, which returns only if the fault did not end the process), or its frame count.
/// `frame` runs one frame and checks its result.
///
/// # Errors
///
/// A frame's error; what `fault` returned (the fault did not end the process).
pub(crate) fn frames(
    order: &Order,
    out: &mut Reporter,
    frame: &mut dyn FnMut() -> Result<(), String>,
    fault: &mut dyn FnMut(&mut Reporter) -> String,
) -> Result<(), String> {
    out.mark("init");
    let mut k = 1;
    loop {
        if order.fault_at == Some(k) {
            if order.scenario == Scenario::Watchdog {
                out.mark("fault");
                // SAFETY: raise with a valid signal; the process stops until killed.
                unsafe { libc::raise(libc::SIGSTOP) };
                return Err("the worker went on after SIGSTOP".into());
            }
            return Err(fault(out));
        }
        frame()?;
        out.mark(&format!("frame {k}"));
        if order.fault_at.is_none() && k >= order.frames {
            return Ok(());
        }
        k += 1;
    }
}

/// The CPU worker: the protocol with the GPU left out. Its init phase is nothing; a frame is
/// the example's blur and gain over 640 × 480 floats on the host, checked; the hung kernel is a
/// sleep of the bound followed by the safe state (`custack::fail_stop` with
/// `DeadlinePassed`), the sticky fault the safe state at once (`LaunchFailed`), the watchdog
/// `SIGSTOP`. Never returns.
pub(crate) fn cpu_worker(order: &Order, start: u64) -> ! {
    let mut out = Reporter::new(start);
    let (w, h) = (640usize, 480usize);
    #[allow(clippy::cast_precision_loss, reason = "below 1024: exact")]
    let input: Vec<f32> = (0..w * h)
        .map(|i| ((i * 7919) % 1024) as f32 / 1024.0)
        .collect();
    let mut output = vec![0.0f32; w * h];
    let mut frame = || -> Result<(), String> {
        for (i, o) in output.iter_mut().enumerate() {
            let (row, x) = (i / w * w, i % w);
            let at = |x: usize| input[row + x];
            *o = (at(x.saturating_sub(1)) + at(x) + at((x + 1).min(w - 1))) / 3.0 * 0.5;
        }
        let i = w + 1;
        let want = (input[i - 1] + input[i] + input[i + 1]) / 3.0 * 0.5;
        if (output[i] - want).abs() > 1e-6 {
            return Err(format!("pixel {i}: {}, expected {want}", output[i]));
        }
        std::hint::black_box(&output);
        Ok(())
    };
    let bound = order.bound;
    let mut fault = |out: &mut Reporter| -> String {
        use custack::{Error, ErrorKind};
        out.mark("fault");
        let e = match order.scenario {
            Scenario::Hung => {
                std::thread::sleep(bound);
                Error::new(
                    ErrorKind::DeadlinePassed,
                    "the CPU worker's stand-in for a kernel past its bound",
                )
            }
            _ => Error::new(
                ErrorKind::LaunchFailed,
                "the CPU worker's stand-in for a trap",
            ),
        };
        custack::fail_stop(&e)
    };
    match frames(order, &mut out, &mut frame, &mut fault) {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("cpu worker: {e}");
            std::process::exit(1)
        }
    }
}

/// How long the supervisor waits, each from the worker's last line (its heartbeat).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// From the worker's start to its init line.
    pub(crate) init: Duration,
    /// The watchdog's deadline in the watchdog scenario: a worker silent this long is killed.
    pub(crate) watchdog: Duration,
    /// Everywhere else (the hung and sticky scenarios, where the worker's own bounded wait is
    /// what is measured; and after the kill): a worker silent this long is killed (and the run
    /// counted unexpected).
    pub(crate) stuck: Duration,
}

/// One worker's life as the supervisor saw it; instants on `CLOCK_MONOTONIC`, nanoseconds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Life {
    /// Just before the supervisor started it.
    pub(crate) spawned: u64,
    /// The worker's own lines.
    pub(crate) start: Option<u64>,
    pub(crate) init: Option<u64>,
    pub(crate) first_frame: Option<u64>,
    pub(crate) frames: u32,
    pub(crate) fault: Option<u64>,
    /// When the supervisor's watchdog killed it.
    pub(crate) killed: Option<u64>,
    /// When the supervisor saw it end (its pidfd became readable, as `waitpid` would return).
    pub(crate) exited: u64,
    /// How it ended.
    pub(crate) status: Option<ExitStatus>,
}

impl Life {
    fn line(&mut self, line: &str) {
        let Some(at) = line.find(TAG) else { return };
        let words: Vec<&str> = line[at + TAG.len()..].split_whitespace().collect();
        let t = words.last().and_then(|w| w.parse::<u64>().ok());
        match (words.first().copied(), t) {
            (Some("start"), Some(t)) => self.start = Some(t),
            (Some("init"), Some(t)) => self.init = Some(t),
            (Some("frame"), Some(t)) => {
                self.frames += 1;
                self.first_frame.get_or_insert(t);
            }
            (Some("fault"), Some(t)) => self.fault = Some(t),
            _ => {}
        }
    }

    /// The exit status in words.
    pub(crate) fn ended(&self) -> String {
        match self.status {
            Some(s) if s.code().is_some() => format!("exit status {}", s.code().unwrap_or(0)),
            Some(s) => format!("signal {}", s.signal().unwrap_or(0)),
            None => "unknown".into(),
        }
    }
}

/// `pidfd_open(pid)`: a descriptor that becomes readable when the process ends.
fn pidfd(pid: u32) -> Result<OwnedFd, String> {
    // SAFETY: the raw syscall with a pid and no flags; returns a new descriptor or −1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return Err(format!(
            "pidfd_open: {} (Linux 5.3 or later is needed)",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: a descriptor the kernel just opened for us, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Watches `child` (started at `spawned`, its stdout piped) until it ends: reads its lines as
/// they come, kills it when silent past the limit in force (see [`Limits`]), and notes the
/// instant it ended.
///
/// # Errors
///
/// No pidfd; a worker that outlives its `SIGKILL` by [`Limits::stuck`]; a failed poll.
pub(crate) fn observe(
    mut child: Child,
    spawned: u64,
    scenario: Scenario,
    limits: Limits,
) -> Result<Life, String> {
    let mut life = Life {
        spawned,
        ..Life::default()
    };
    let exit_fd = match pidfd(child.id()) {
        Ok(fd) => fd,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    let stdout = child
        .stdout
        .take()
        .ok_or("a worker without a stdout pipe")?;
    let mut out_open = true;
    let mut pending = Vec::new();
    let mut last = spawned;
    let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    loop {
        let limit =
            if life.killed.is_some() || life.init.is_some() && scenario != Scenario::Watchdog {
                limits.stuck
            } else if life.init.is_none() {
                limits.init
            } else {
                limits.watchdog
            };
        let now = now_ns();
        let deadline = last.saturating_add(ns(limit));
        if now >= deadline {
            if life.killed.is_some() {
                return Err(format!("a worker still alive {limit:?} after SIGKILL"));
            }
            life.killed = Some(now);
            let _ = child.kill();
            last = now;
            continue;
        }
        let wait = deadline - now;
        let ts = libc::timespec {
            tv_sec: (wait / 1_000_000_000) as libc::time_t,
            tv_nsec: (wait % 1_000_000_000) as libc::c_long,
        };
        let mut fds = [
            libc::pollfd {
                fd: if out_open { stdout.as_raw_fd() } else { -1 },
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: exit_fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfd entries (a negative fd is ignored), a valid timeout, no
        // signal mask.
        let r = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &raw const ts, core::ptr::null()) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(format!("ppoll: {e}"));
        }
        if fds[0].revents != 0 {
            let read = read_some(stdout.as_raw_fd(), &mut pending);
            if read == 0 {
                out_open = false;
            }
            last = now_ns();
            lines(&mut pending, &mut life);
        }
        if fds[1].revents != 0 {
            life.exited = now_ns();
            break;
        }
    }
    // What it wrote before it ended: the pipe's writer is gone, so reads end.
    while out_open && read_some(stdout.as_raw_fd(), &mut pending) > 0 {}
    lines(&mut pending, &mut life);
    life.status = Some(
        child
            .wait()
            .map_err(|e| format!("waiting for a worker: {e}"))?,
    );
    Ok(life)
}

/// One `read` into `buf`; the bytes read (0 at the end or on an error).
fn read_some(fd: i32, buf: &mut Vec<u8>) -> usize {
    let mut chunk = [0u8; 4096];
    // SAFETY: a valid buffer of its length; `fd` is an open pipe's read end.
    let n = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
    let n = usize::try_from(n).unwrap_or(0);
    buf.extend_from_slice(&chunk[..n]);
    n
}

/// Hands each whole line of `buf` to `life`, keeping a partial last one.
fn lines(buf: &mut Vec<u8>, life: &mut Life) {
    while let Some(end) = buf.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = buf.drain(..=end).collect();
        life.line(&String::from_utf8_lossy(&line));
    }
}

/// One run's phases, nanoseconds.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Run {
    /// The fault (the worker's mark just before it) to the supervisor seeing the worker end.
    pub(crate) fault_to_exit: u64,
    /// That end to the new worker's `main`: the supervisor's reaction, `fork`, `exec`, the
    /// loader.
    pub(crate) exit_to_start: u64,
    /// The new worker's `main` to its init phase done (for the GPU worker: the profile, the
    /// context, two cubins, the kernels, memory).
    pub(crate) start_to_init: u64,
    /// Init done to its first frame done and checked.
    pub(crate) init_to_frame: u64,
    /// The fault to that first correct frame.
    pub(crate) total: u64,
    /// The watchdog scenario: the fault to the supervisor's kill.
    pub(crate) fault_to_kill: Option<u64>,
    /// The sticky scenario: the worker's bounded wait took the safe state (its deadline
    /// passed) before the driver reported the trap ([`Ended::ByBound`]).
    pub(crate) by_bound: bool,
}

/// The phases' names, in [`Run::phases`]'s order.
pub(crate) const PHASES: [&str; 6] = [
    "fault_to_exit",
    "exit_to_start",
    "start_to_init",
    "init_to_frame",
    "total",
    "fault_to_kill",
];

impl Run {
    /// The phases in [`PHASES`]' order (`fault_to_kill` only where there was a kill).
    pub(crate) fn phases(&self) -> [Option<u64>; 6] {
        [
            Some(self.fault_to_exit),
            Some(self.exit_to_start),
            Some(self.start_to_init),
            Some(self.init_to_frame),
            Some(self.total),
            self.fault_to_kill,
        ]
    }
}

/// The line that keeps one run's phases (ns, [`PHASES`]' order, empty where absent), so that
/// the runs of several processes can be pooled (`fault_to_frame --merge`):
/// `run SCENARIO INTERFERENCE WORKER ns=A,B,C,D,E,F`, and ` by=bound` after it for a run whose
/// safe state the bounded wait took ([`Run::by_bound`]; the logs before it have no such word).
pub(crate) fn run_line(
    scenario: &str,
    setting: &str,
    worker: &str,
    phases: &[Option<u64>; 6],
    by_bound: bool,
) -> String {
    let ns: Vec<String> = phases
        .iter()
        .map(|p| p.map(|v| v.to_string()).unwrap_or_default())
        .collect();
    let by = if by_bound { " by=bound" } else { "" };
    format!("run {scenario} {setting} {worker} ns={}{by}", ns.join(","))
}

/// A run's scenario, interference, worker, phases and whether the bounded wait took its safe
/// state: what [`run_line`] wrote.
pub(crate) type RunRecord<'a> = (&'a str, &'a str, &'a str, [Option<u64>; 6], bool);

/// `line` read back as [`run_line`] wrote it; `None` for a line that is no run line.
///
/// # Errors
///
/// A line that starts as a run line but is not one, quoted.
pub(crate) fn parse_run_line(line: &str) -> Result<Option<RunRecord<'_>>, String> {
    let Some(rest) = line.strip_prefix("run ") else {
        return Ok(None);
    };
    let bad = || format!("not a run line: {line}");
    let words: Vec<&str> = rest.split(' ').collect();
    let (scenario, setting, worker, ns, by_bound) = match words[..] {
        [scenario, setting, worker, ns] => (scenario, setting, worker, ns, false),
        [scenario, setting, worker, ns, "by=bound"] => (scenario, setting, worker, ns, true),
        _ => return Err(bad()),
    };
    let ns = ns.strip_prefix("ns=").ok_or_else(bad)?;
    let values: Vec<&str> = ns.split(',').collect();
    let mut phases = [None; 6];
    if values.len() != phases.len() {
        return Err(bad());
    }
    for (p, v) in phases.iter_mut().zip(values) {
        if !v.is_empty() {
            *p = Some(v.parse::<u64>().map_err(|_| bad())?);
        }
    }
    Ok(Some((scenario, setting, worker, phases, by_bound)))
}

/// How a faulted worker ended, where it ended as its scenario says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// In the safe state by the detector its scenario names: the bounded wait's deadline for
    /// the hung kernel, the sticky error for the trap; or killed by the watchdog.
    AsNamed,
    /// The trap's worker in the safe state by its bounded wait's deadline, the driver not yet
    /// having reported the trap: the wait's bound is the detector of a fault that stays
    /// silent past it (measured on the H100 with another process's kernels on the GPU, and
    /// with every CPU busy on a host of four GPUs). The same safe state, the same status.
    ByBound,
}

/// Whether `faulted` (a worker that marked its fault) ended as its scenario says it must: in
/// the safe state (exit status 75, one report line on `stderr`, naming the deadline for the
/// hung kernel, and a sticky error or the deadline for the trap: [`Ended::ByBound`]), or
/// killed by the watchdog.
///
/// # Errors
///
/// What differs.
pub(crate) fn ended_as_expected(
    scenario: Scenario,
    faulted: &Life,
    stderr: &str,
) -> Result<Ended, String> {
    let report: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("custack: fail-stop (exit status 75)"))
        .collect();
    let code = faulted.status.and_then(|s| s.code());
    match scenario {
        Scenario::Hung | Scenario::Sticky => {
            if faulted.killed.is_some() {
                return Err(format!("killed by the watchdog ({})", faulted.ended()));
            }
            if code != Some(custack::FAIL_STOP_STATUS) || report.len() != 1 {
                return Err(format!(
                    "{}, {} report lines; stderr: {}",
                    faulted.ended(),
                    report.len(),
                    stderr.trim()
                ));
            }
            // `ErrorKind::DeadlinePassed`'s description, and a sticky error's.
            let deadline = report[0].contains("deadline passed");
            match scenario {
                Scenario::Hung if deadline => Ok(Ended::AsNamed),
                Scenario::Sticky if report[0].contains("sticky") => Ok(Ended::AsNamed),
                Scenario::Sticky if deadline => Ok(Ended::ByBound),
                Scenario::Hung => Err(format!(
                    "the report does not say deadline passed: {}",
                    report[0]
                )),
                _ => Err(format!(
                    "the report says neither sticky nor deadline passed: {}",
                    report[0]
                )),
            }
        }
        Scenario::Watchdog => {
            if faulted.killed.is_some()
                && faulted.status.and_then(|s| s.signal()) == Some(libc::SIGKILL)
            {
                Ok(Ended::AsNamed)
            } else {
                Err(format!("not killed by the watchdog: {}", faulted.ended()))
            }
        }
    }
}

/// One (scenario, interference) cell's measurement.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cell {
    /// The fault.
    pub(crate) scenario: Scenario,
    /// Faults measured.
    pub(crate) runs: usize,
    /// The frame each worker faults at (frames before it run normally).
    pub(crate) fault_frame: u32,
    /// The workers' `WaitBound`.
    pub(crate) bound: Duration,
    /// The never-ending kernel's longest spin.
    pub(crate) spin: Duration,
    /// The supervisor's limits.
    pub(crate) limits: Limits,
    /// No new fault after this long: the cell ends with the runs it has (the open one closed).
    pub(crate) max_wall: Option<Duration>,
}

/// What a cell measured.
#[derive(Clone, Debug, Default)]
pub(crate) struct Measured {
    /// The runs that went as the scenario says, in order.
    pub(crate) runs: Vec<Run>,
    /// The runs that did not, each with what went wrong.
    pub(crate) unexpected: Vec<String>,
    /// Workers that ended before their fault (not runs), each with what happened.
    pub(crate) failed_before_fault: Vec<String>,
    /// The first faulted worker's report line (the safe state's), if any.
    pub(crate) report: Option<String>,
    /// Workers started.
    pub(crate) workers: usize,
}

/// Measures `cell`: starts workers with `spawn(order)` (a command for this binary as a worker;
/// stdout is piped here, stderr goes to a file in `scratch`), one after the other, each
/// faulting at `cell.fault_frame`, the last one only running a frame, until `cell.runs` faults
/// happened or `cell.max_wall` passed. Stops early after three workers in a row that ended
/// before their fault.
///
/// # Errors
///
/// A worker that could not be started or watched; three failures in a row (with the last
/// worker's stderr).
pub(crate) fn measure(
    cell: &Cell,
    spawn: &mut dyn FnMut(&Order) -> Command,
    scratch: &std::path::Path,
) -> Result<Measured, String> {
    let mut m = Measured::default();
    let began = std::time::Instant::now();
    let mut faults = 0;
    let mut failed_in_a_row = 0;
    // The worker that faulted last, and its stderr's file, until its successor closes its run.
    let mut open: Option<(Life, std::path::PathBuf)> = None;
    // A run its successor closed, evaluated once the next worker is started: nothing but the
    // start of a worker comes between one's end and the next one's start.
    let mut to_close: Option<(Life, std::path::PathBuf, Life)> = None;
    loop {
        let closing = faults == cell.runs || cell.max_wall.is_some_and(|w| began.elapsed() >= w);
        if closing && open.is_none() {
            break;
        }
        let order = Order {
            scenario: cell.scenario,
            fault_at: (!closing).then_some(cell.fault_frame),
            frames: 1,
            bound: cell.bound,
            spin: cell.spin,
        };
        // Three files in turn: a faulted worker's is read after its successor's successor
        // started.
        let err_path = scratch.join(format!("worker-{}.err", m.workers % 3));
        let err =
            std::fs::File::create(&err_path).map_err(|e| format!("{}: {e}", err_path.display()))?;
        let mut command = spawn(&order);
        order.apply(&mut command);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(err);
        let spawned = now_ns();
        let child = command
            .spawn()
            .map_err(|e| format!("starting a worker: {e}"))?;
        m.workers += 1;
        if let Some((faulted, faulted_err, next)) = to_close.take() {
            let stderr = std::fs::read_to_string(&faulted_err).unwrap_or_default();
            close_run(cell.scenario, &faulted, &stderr, &next, &mut m);
        }
        let life = observe(child, spawned, cell.scenario, cell.limits)?;
        if let Some((faulted, faulted_err)) = open.take() {
            to_close = Some((faulted, faulted_err, life.clone()));
        }
        if closing {
            break;
        }
        if life.fault.is_some() {
            faults += 1;
            failed_in_a_row = 0;
            open = Some((life, err_path));
        } else {
            let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
            let why = format!(
                "a worker ended before its fault ({}, {} frames): {}",
                life.ended(),
                life.frames,
                stderr.trim()
            );
            m.failed_before_fault.push(why.clone());
            failed_in_a_row += 1;
            if failed_in_a_row == 3 {
                return Err(format!(
                    "three workers in a row ended before their fault; the last: {why}"
                ));
            }
        }
    }
    if let Some((faulted, faulted_err, next)) = to_close.take() {
        let stderr = std::fs::read_to_string(&faulted_err).unwrap_or_default();
        close_run(cell.scenario, &faulted, &stderr, &next, &mut m);
    }
    Ok(m)
}

/// Closes the run `faulted` opened, with its successor `next`'s first frame.
fn close_run(scenario: Scenario, faulted: &Life, stderr: &str, next: &Life, m: &mut Measured) {
    if m.report.is_none() {
        m.report = stderr
            .lines()
            .find(|l| l.starts_with("custack: "))
            .map(str::to_string);
    }
    let ended = match ended_as_expected(scenario, faulted, stderr) {
        Ok(ended) => ended,
        Err(why) => {
            m.unexpected.push(why);
            return;
        }
    };
    let (Some(fault), Some(start), Some(init), Some(frame)) =
        (faulted.fault, next.start, next.init, next.first_frame)
    else {
        m.unexpected.push(format!(
            "the new worker gave no correct frame ({}, lines: start {:?} init {:?} frame {:?})",
            next.ended(),
            next.start,
            next.init,
            next.first_frame
        ));
        return;
    };
    let d = |a: u64, b: u64| b.saturating_sub(a);
    m.runs.push(Run {
        fault_to_exit: d(fault, faulted.exited),
        exit_to_start: d(faulted.exited, start),
        start_to_init: d(start, init),
        init_to_frame: d(init, frame),
        total: d(fault, frame),
        fault_to_kill: faulted.killed.map(|k| d(fault, k)),
        by_bound: ended == Ended::ByBound,
    });
}
