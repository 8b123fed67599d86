//! The interference the timing benches run under, stated and started by the bench itself as
//! separate processes of its own binary (so that what loads the machine is known and nothing
//! else is needed), each killed when the measurement ends:
//!
//! - `cpu`: every CPU busy: one process per CPU this process may use
//!   (`std::thread::available_parallelism`), each spinning on integer arithmetic;
//! - `gpu`: another process's kernels on the same GPU: one process of the full API (its own
//!   context, `SCHED_BLOCKING_SYNC`, so that it does not also spin a CPU), launching `spin`
//!   (`tests/fixtures/spin.ptx`) over every SM (8 blocks of 256 threads an SM), each launch
//!   about `--gpu-kernel-us` long, four to a stream scope, in a loop: the GPU time-slices
//!   between it and the measured context;
//! - `pcie`: another context's copies saturating `PCIe`: one process of the full API copying a
//!   page-locked buffer of `--pcie-mib` MiB to the device on one stream and another from the
//!   device on a second, both directions at once, in a loop.
//!
//! A setting is a `+`-joined set (`cpu+gpu`), `none` for an idle host. Each interferer dies
//! with the bench (`PR_SET_PDEATHSIG`), ends by itself after `--interfere-max-s` in any case,
//! and writes what it did (spins, launches, bytes) to a status file every quarter second,
//! which the bench reads when it stops them: the stated interference comes with its measured
//! size (the kernel work the GPU interferer got done per second, the copy bandwidth the `PCIe`
//! one got).

use super::{cpus, die_with_parent, json_num, json_str, pid};
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROLE_ENV: &str = "CUSTACK_TIMING_INTERFERER";
const STATUS_ENV: &str = "CUSTACK_TIMING_STATUS";
const PARENT_ENV: &str = "CUSTACK_TIMING_PARENT";
const KERNEL_US_ENV: &str = "CUSTACK_TIMING_KERNEL_US";
const PCIE_MIB_ENV: &str = "CUSTACK_TIMING_PCIE_MIB";
const MAX_S_ENV: &str = "CUSTACK_TIMING_MAX_S";

/// One kind of interference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Every CPU busy.
    Cpu,
    /// Another process's kernels on the GPU.
    Gpu,
    /// Another context's copies over `PCIe`.
    Pcie,
}

impl Kind {
    const ALL: [Self; 3] = [Self::Cpu, Self::Gpu, Self::Pcie];

    /// Its name on the command line.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu => "gpu",
            Self::Pcie => "pcie",
        }
    }
}

/// A stated interference: the kinds that run together (none: an idle host).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Setting(pub(crate) Vec<Kind>);

impl Setting {
    /// `none`, or kinds joined by `+` (`cpu+gpu`).
    ///
    /// # Errors
    ///
    /// An unknown kind.
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        if s.trim() == "none" {
            return Ok(Self(Vec::new()));
        }
        let mut kinds = Vec::new();
        for w in s.split('+') {
            let k = Kind::ALL
                .into_iter()
                .find(|k| k.name() == w.trim())
                .ok_or(format!(
                    "unknown interference {w:?} (none, cpu, gpu, pcie, joined by +)"
                ))?;
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        Ok(Self(kinds))
    }

    /// A comma-separated list of settings; `all` is `none,cpu,gpu,pcie`.
    ///
    /// # Errors
    ///
    /// An unknown kind.
    pub(crate) fn parse_list(s: &str) -> Result<Vec<Self>, String> {
        let s = if s == "all" { "none,cpu,gpu,pcie" } else { s };
        s.split(',').map(Self::parse).collect()
    }

    /// Its name in the output.
    pub(crate) fn name(&self) -> String {
        if self.0.is_empty() {
            "none".into()
        } else {
            self.0
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join("+")
        }
    }
}

/// The interferers' sizes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    /// How long each of the GPU interferer's kernels runs, µs (at the SM clock's peak).
    pub(crate) gpu_kernel_us: u64,
    /// The `PCIe` interferer's buffers, MiB (each of four: two page-locked, two on the device).
    pub(crate) pcie_mib: usize,
    /// Every interferer ends by itself after this long.
    pub(crate) max: Duration,
}

/// The interferers of one setting, running; killed when dropped.
pub(crate) struct Running {
    setting: Setting,
    children: Vec<(Kind, PathBuf, PathBuf, Child)>,
    started: Instant,
}

/// Starts `setting`'s interferers, each `me` (this binary) run with `args` and the
/// interferer's role in its environment, and waits until each says it is running (its
/// context made, its first kernel or copy done): at most a minute.
///
/// # Errors
///
/// An interferer that could not start, or ended or stayed silent before it was running (with
/// its stderr).
pub(crate) fn start(
    setting: &Setting,
    options: &Options,
    me: &Path,
    args: &[&str],
    scratch: &Path,
) -> Result<Running, String> {
    let mut running = Running {
        setting: setting.clone(),
        children: Vec::new(),
        started: Instant::now(),
    };
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    for &kind in &setting.0 {
        let count = if kind == Kind::Cpu { cpus() } else { 1 };
        for i in 0..count {
            let status = scratch.join(format!("{}-{i}.status", kind.name()));
            let err_path = scratch.join(format!("{}-{i}.err", kind.name()));
            let _ = std::fs::remove_file(&status);
            let err = std::fs::File::create(&err_path)
                .map_err(|e| format!("{}: {e}", err_path.display()))?;
            let mut child = Command::new(me)
                .args(args)
                .env(ROLE_ENV, kind.name())
                .env(STATUS_ENV, &status)
                .env(PARENT_ENV, pid().to_string())
                .env(KERNEL_US_ENV, options.gpu_kernel_us.to_string())
                .env(PCIE_MIB_ENV, options.pcie_mib.to_string())
                .env(MAX_S_ENV, options.max.as_secs().max(1).to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(err)
                .spawn()
                .map_err(|e| format!("starting the {} interferer: {e}", kind.name()))?;
            // Its line `ready` says it runs (a test harness may print lines before it); the
            // reader ends with the pipe.
            if let Some(out) = child.stdout.take() {
                let tx = ready_tx.clone();
                let n = running.children.len();
                std::thread::spawn(move || {
                    let mut out = std::io::BufReader::new(out);
                    let mut line = String::new();
                    let ready = loop {
                        line.clear();
                        match out.read_line(&mut line) {
                            Ok(0) | Err(_) => break false,
                            Ok(_) if line.trim() == "ready" => break true,
                            Ok(_) => {}
                        }
                    };
                    let _ = tx.send((n, ready));
                    // Keep reading, so that the interferer never blocks on a full pipe.
                    let _ = std::io::copy(&mut out, &mut std::io::sink());
                });
            }
            running.children.push((kind, status, err_path, child));
        }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut ready = 0;
    while ready < running.children.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match ready_rx.recv_timeout(left) {
            Ok((_, true)) => ready += 1,
            Ok((n, false)) => return Err(running.failure(n, "ended before it ran")),
            Err(_) => return Err("an interferer was not running within a minute".into()),
        }
    }
    running.started = Instant::now();
    Ok(running)
}

impl Running {
    fn failure(&mut self, n: usize, what: &str) -> String {
        let (kind, _, err, child) = &mut self.children[n];
        let _ = child.kill();
        let _ = child.wait();
        let stderr = std::fs::read_to_string(err).unwrap_or_default();
        format!("the {} interferer {what}: {}", kind.name(), stderr.trim())
    }

    /// Checks that every interferer still runs.
    ///
    /// # Errors
    ///
    /// One that ended, with its status and stderr: what was measured since was not under
    /// the stated interference.
    pub(crate) fn check(&mut self) -> Result<(), String> {
        for n in 0..self.children.len() {
            if let Ok(Some(status)) = self.children[n].3.try_wait() {
                return Err(self.failure(n, &format!("ended early ({status})")));
            }
        }
        Ok(())
    }

    /// Checks that every interferer still runs, stops them all and says what they did, as a
    /// JSON object: the setting, the seconds they ran, and per kind its processes and figures
    /// (spins per second per process; the GPU interferer's launches per second and the kernel
    /// work they were worth per second, its busy fraction; the copies' GB/s each way).
    ///
    /// # Errors
    ///
    /// As [`check`](Self::check).
    pub(crate) fn stop(mut self) -> Result<String, String> {
        self.check()?;
        let secs = self.started.elapsed().as_secs_f64();
        for (_, _, _, child) in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let mut parts = vec![
            format!("\"setting\":{}", json_str(&self.setting.name())),
            format!("\"seconds\":{}", json_num(secs, 1)),
        ];
        for kind in &self.setting.0 {
            let statuses: Vec<Vec<(String, f64)>> = self
                .children
                .iter()
                .filter(|c| c.0 == *kind)
                .map(|c| read_status(&c.1))
                .collect();
            let sum = |key: &str| -> f64 {
                statuses
                    .iter()
                    .flat_map(|s| s.iter().filter(|(k, _)| k == key).map(|(_, v)| *v))
                    .sum()
            };
            let per = |key: &str| sum(key) / sum("seconds").max(1e-9);
            let figures = match kind {
                Kind::Cpu => format!(
                    "\"processes\":{},\"spins_per_s_per_process\":{}",
                    statuses.len(),
                    json_num(per("spins"), 0)
                ),
                // Kernel work done, in nominal kernel seconds per second: 1 when the GPU ran
                // the interferer's kernels all the time (at the peak clock).
                Kind::Gpu => format!(
                    "\"processes\":1,\"kernel_us\":{},\"launches_per_s\":{},\"busy_fraction\":{}",
                    json_num(sum("kernel_us"), 0),
                    json_num(per("launches"), 0),
                    json_num(per("launches") * sum("kernel_us") / 1e6, 3)
                ),
                Kind::Pcie => format!(
                    "\"processes\":1,\"mib\":{},\"h2d_gbps\":{},\"d2h_gbps\":{}",
                    json_num(sum("mib"), 0),
                    json_num(per("h2d_bytes") / 1e9, 2),
                    json_num(per("d2h_bytes") / 1e9, 2)
                ),
            };
            parts.push(format!("{}:{{{figures}}}", json_str(kind.name())));
        }
        self.children.clear();
        Ok(format!("{{{}}}", parts.join(",")))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        for (_, _, _, child) in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A status file's `key=value` words (those that parse as numbers).
fn read_status(path: &Path) -> Vec<(String, f64)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|w| {
            let (k, v) = w.split_once('=')?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect()
}

/// Writes `line` to `path` whole (a temporary file renamed over it).
fn write_status(path: &Path, line: &str) {
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, line).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// In a process the bench started as an interferer: runs it and ends the process. Returns at
/// once in any other process.
pub(crate) fn interferer_if_asked() {
    let Ok(role) = std::env::var(ROLE_ENV) else {
        return;
    };
    die_with_parent(std::env::var(PARENT_ENV).ok().and_then(|p| p.parse().ok()));
    let status = PathBuf::from(std::env::var_os(STATUS_ENV).unwrap_or_default());
    let num = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let max = Duration::from_secs(num(MAX_S_ENV, 600));
    let outcome = match role.as_str() {
        "cpu" => {
            spin_cpu(&status, max);
            Ok(())
        }
        "gpu" => busy_gpu(&status, max, num(KERNEL_US_ENV, 1000)),
        "pcie" => copy_pcie(
            &status,
            max,
            usize::try_from(num(PCIE_MIB_ENV, 256)).unwrap_or(256),
        ),
        other => Err(custack::Error::new(
            custack::ErrorKind::InvalidValue,
            format!("no interferer {other:?}"),
        )),
    };
    match outcome {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("{role} interferer: {e}");
            std::process::exit(1)
        }
    }
}

/// Says the interferer runs (the bench waits for this line; on a line of its own, as a test
/// harness may have begun one).
fn ready() {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "\nready");
    let _ = out.flush();
}

/// Writes the status every quarter second; whether `max` has passed.
struct Pace {
    started: Instant,
    last: Instant,
    max: Duration,
}

impl Pace {
    fn new(max: Duration) -> Self {
        let now = Instant::now();
        Self {
            started: now,
            last: now,
            max,
        }
    }

    /// Writes `line()` (with the seconds so far) to `path` when a quarter second passed;
    /// false once `max` has passed.
    fn tick(&mut self, path: &Path, line: impl FnOnce() -> String) -> bool {
        if self.last.elapsed() >= Duration::from_millis(250) {
            self.last = Instant::now();
            let secs = self.started.elapsed().as_secs_f64();
            write_status(path, &format!("seconds={secs:.3} {}", line()));
        }
        self.started.elapsed() < self.max
    }
}

fn spin_cpu(status: &Path, max: Duration) {
    ready();
    let mut pace = Pace::new(max);
    let (mut spins, mut x) = (0u64, 1u64);
    loop {
        for _ in 0..100_000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
        }
        std::hint::black_box(x);
        spins += 1;
        if !pace.tick(status, || format!("spins={spins}")) {
            return;
        }
    }
}

const SPIN_PTX: &str = include_str!("../../tests/fixtures/spin.ptx");

fn busy_gpu(status: &Path, max: Duration, kernel_us: u64) -> custack::Result<()> {
    use custack::{Context, ContextFlags, DeviceAttribute, Driver, LaunchConfig, Stack};
    let device = Driver::init()?.device(0)?;
    let sms = u32::try_from(device.attribute(DeviceAttribute::MultiprocessorCount)?).unwrap_or(1);
    let khz = u64::try_from(device.attribute(DeviceAttribute::ClockRate)?).unwrap_or(1);
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(SPIN_PTX)?;
    let spin = module.function("spin")?;
    let stream = guard.stream()?;
    let cycles = khz * kernel_us / 1000;
    let config = LaunchConfig {
        grid: (sms * 8, 1, 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let burst = 4u64;
    let mut launches = 0u64;
    let mut pace = Pace::new(max);
    loop {
        stream.scope(|s| -> custack::Result<()> {
            for _ in 0..burst {
                // SAFETY: `spin(cycles, out)` with a null `out` spins and writes nothing.
                unsafe { s.launch(&spin, config, (cycles, 0u64)) }?;
            }
            Ok(())
        })??;
        launches += burst;
        if launches == burst {
            ready();
        }
        if !pace.tick(status, || {
            format!("launches={launches} kernel_us={kernel_us}")
        }) {
            return Ok(());
        }
    }
}

fn copy_pcie(status: &Path, max: Duration, mib: usize) -> custack::Result<()> {
    use custack::{Context, ContextFlags, Driver, Stack};
    let ctx = Context::new(
        Driver::init()?.device(0)?,
        ContextFlags::SCHED_BLOCKING_SYNC,
    )?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let bytes = mib << 20;
    let up_host = guard.alloc_pinned::<u8>(bytes)?;
    let mut down_host = guard.alloc_pinned::<u8>(bytes)?;
    let mut up_dev = guard.alloc::<u8>(bytes)?;
    let down_dev = guard.alloc::<u8>(bytes)?;
    let (up, down) = (guard.stream()?, guard.stream()?);
    let (mut h2d, mut d2h) = (0u64, 0u64);
    let mut pace = Pace::new(max);
    let mut first = true;
    loop {
        up.scope(|su| {
            down.scope(|sd| -> custack::Result<()> {
                su.copy_to_device(su.bind_mut(&mut up_dev), &up_host)?;
                sd.copy_to_host(&mut down_host, sd.bind(&down_dev))
            })
        })???;
        h2d += bytes as u64;
        d2h += bytes as u64;
        if first {
            ready();
            first = false;
        }
        if !pace.tick(status, || {
            format!("mib={mib} h2d_bytes={h2d} d2h_bytes={d2h}")
        }) {
            return Ok(());
        }
    }
}
