//! What the timing benches share (`fault_to_frame`, `run_phase_tail`; the safety manual's
//! `T_detect` and its evidence in docs/safety.md): the system-wide clock, flag parsing, the
//! environment line, the interference they run under ([`interference`]), the supervisor and
//! worker protocol of `fault_to_frame` ([`restart`]) and the statistics ([`stats`]). Their
//! tests (`benches/tests/timing_*.rs`) include this folder too; nothing here needs a GPU but
//! the GPU interferers.
#![allow(dead_code, reason = "each bench and test uses what it needs")]

pub(crate) mod interference;
pub(crate) mod restart;
pub(crate) mod stats;

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process of the machine, so a time a
/// worker writes and one its supervisor reads can be subtracted.
pub(crate) fn now_ns() -> u64 {
    // SAFETY: `timespec` is plain C data, valid all zeroes.
    let mut t: libc::timespec = unsafe { core::mem::zeroed() };
    // SAFETY: a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &raw mut t) };
    u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
}

/// In a child of a bench: end with the parent (`SIGKILL` when the thread that started us
/// ends), so that no worker, spinner or copier outlives a bench that was killed; and end now if
/// the parent `parent` is gone already (it died before the request took effect).
pub(crate) fn die_with_parent(parent: Option<u32>) {
    // SAFETY: PR_SET_PDEATHSIG with a valid signal number; no pointers.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    // SAFETY: getppid has no preconditions.
    let now = unsafe { libc::getppid() };
    if parent.is_some_and(|p| u32::try_from(now).ok() != Some(p)) {
        // SAFETY: _exit has no preconditions; nothing of ours needs flushing yet.
        unsafe { libc::_exit(3) };
    }
}

/// A scratch folder of this process under the temporary directory, removed when dropped.
pub(crate) struct Scratch(pub(crate) std::path::PathBuf);

impl Scratch {
    /// `custack-NAME-PID`, made now.
    ///
    /// # Errors
    ///
    /// The folder could not be made.
    pub(crate) fn new(name: &str) -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("custack-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Self(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// This process's id, for a child's [`die_with_parent`].
pub(crate) fn pid() -> u32 {
    std::process::id()
}

/// The command line of a bench: `--name value` (or `--name=value`) for the flags it knows,
/// `--name` alone for its switches, and positional words; anything else is an error that says
/// what is known.
#[derive(Debug, Default)]
pub(crate) struct Args {
    values: BTreeMap<String, String>,
    switches: Vec<String>,
    /// The words that are no flag, in order.
    pub(crate) positional: Vec<String>,
}

impl Args {
    /// Parses `args` (the program's name left out) against the `flags` that take a value and
    /// the `switches` that do not.
    ///
    /// # Errors
    ///
    /// An unknown flag, a flag without its value, a flag given twice.
    pub(crate) fn parse(
        args: impl IntoIterator<Item = String>,
        flags: &[&str],
        switches: &[&str],
    ) -> Result<Self, String> {
        let mut out = Self::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                out.positional.push(a);
                continue;
            };
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (name.to_string(), None),
            };
            if switches.contains(&name.as_str()) && inline.is_none() {
                out.switches.push(name);
            } else if flags.contains(&name.as_str()) {
                let value = match inline {
                    Some(v) => v,
                    None => it.next().ok_or(format!("--{name} needs a value"))?,
                };
                if out.values.insert(name.clone(), value).is_some() {
                    return Err(format!("--{name} given twice"));
                }
            } else {
                return Err(format!(
                    "unknown flag --{name} (flags: {}; switches: {})",
                    flags
                        .iter()
                        .map(|f| format!("--{f}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    switches
                        .iter()
                        .map(|f| format!("--{f}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
        }
        Ok(out)
    }

    /// Whether switch `name` was given.
    pub(crate) fn switch(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// Flag `name`'s value as a string, if given.
    pub(crate) fn raw(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Flag `name`'s value parsed, or `default`.
    ///
    /// # Errors
    ///
    /// A value that does not parse, naming the flag.
    pub(crate) fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String>
    where
        T::Err: std::fmt::Display,
    {
        match self.values.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|e| format!("--{name} {v}: {e}")),
        }
    }

    /// Whether any flag or switch was given.
    pub(crate) fn any(&self) -> bool {
        !self.values.is_empty() || !self.switches.is_empty()
    }
}

/// `s` as a JSON string literal.
pub(crate) fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `x` as a JSON number (`null` for NaN and the infinities), with `digits` decimals.
pub(crate) fn json_num(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "null".into()
    }
}

/// The machine a bench ran on, as a JSON object: the GPU's name and driver (from `nvidia-smi`,
/// the driver's own string; "unknown" without it), the CPUs this process may use, the kernel,
/// the load average before the run.
pub(crate) fn environment_json() -> String {
    let smi = std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=name,driver_version", "--format=csv,noheader"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    let (gpu, driver) = match smi.split_once(',') {
        Some((g, d)) => (g.trim().to_string(), d.trim().to_string()),
        None => ("unknown (no nvidia-smi)".to_string(), "unknown".to_string()),
    };
    let read = |p: &str| {
        std::fs::read_to_string(p).map_or_else(|_| "unknown".into(), |s| s.trim().to_string())
    };
    let load = read("/proc/loadavg");
    let load1 = load
        .split_whitespace()
        .next()
        .unwrap_or("unknown")
        .to_string();
    format!(
        "{{\"gpu\":{},\"driver\":{},\"cpus\":{},\"kernel\":{},\"load1_before\":{}}}",
        json_str(&gpu),
        json_str(&driver),
        cpus(),
        json_str(&read("/proc/sys/kernel/osrelease")),
        json_str(&load1)
    )
}

/// The CPUs this process may run on (`std::thread::available_parallelism`).
pub(crate) fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}
