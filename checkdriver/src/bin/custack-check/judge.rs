//! What one run of a schedule means: how the program ended (passed, returned an error,
//! panicked, aborted) and what the driver's report holds against it (violations, leaks).
//!
//! The rules are those `scripts/check-driver.sh` applies to custack's own programs: a leak
//! counts unless the failed call was itself the free or destroy (the driver kept the handle), or
//! the fault was sticky (every free fails from then on; the context's destruction, or the
//! process's end, is the clean-up), and so does a handle left for its context's destruction (an
//! orphan). What custack leaves behind on purpose (a failed wait's payload, which work may still
//! use) it names to the driver, which reports it apart ("left-behind"), never as an orphan: any
//! other handle left on that path is the program's.
//!
//! A hang schedule (`--hangs`: one enqueue never completes) ends in one of three ways: the
//! program exits by itself (a wait with a deadline ended, or it never waited for the hung work),
//! judged as any run; the driver's hung exit (status 86 and a `hung` line: the program blocked
//! in a wait with no deadline), a documented outcome, counted, and a failure only under
//! `--strict-hangs` or with a violation (leaks, orphans and stacks mean nothing in a process
//! stopped in the middle of its work); anything else (a panic, a signal, a time-out) fails.

use std::fmt;
use std::fmt::Write as _;
use std::process::ExitStatus;

/// Which driver call fails: none, call k once, or every call from k on; or which enqueue
/// never completes: the first at or after call k.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Schedule {
    Clean,
    FailAt(u64),
    StickyAt(u64),
    HangAt(u64),
}

/// The exit status of a process the checking driver ended because it blocked on hung work
/// (the library's `HUNG_EXIT`).
pub(crate) const HUNG_EXIT: i32 = 86;

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Clean => f.write_str("clean"),
            Schedule::FailAt(k) => write!(f, "fail-at {k}"),
            Schedule::StickyAt(k) => write!(f, "sticky-at {k}"),
            Schedule::HangAt(k) => write!(f, "hang-at {k}"),
        }
    }
}

/// How a run ended.
#[derive(Debug)]
pub(crate) enum Exit {
    Code(i32),
    Signal(i32),
    TimedOut(u64),
    NotStarted(String),
}

impl From<ExitStatus> for Exit {
    fn from(s: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (s.code(), s.signal()) {
            (Some(c), _) => Exit::Code(c),
            (None, Some(sig)) => Exit::Signal(sig),
            (None, None) => Exit::Signal(0),
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit {c}"),
            Exit::Signal(s) => match signal_name(*s) {
                Some(name) => write!(f, "signal {s}, {name}"),
                None => write!(f, "signal {s}"),
            },
            Exit::TimedOut(t) => write!(f, "timed out after {t} s"),
            Exit::NotStarted(e) => write!(f, "not started: {e}"),
        }
    }
}

/// The name of the signals a crash or an abort ends a process with (Linux's numbers).
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// Why a run left no report, in words: the checking driver writes its report at exit, and a
/// mark at load (`NULLDRIVER_LOADED`, `loaded`), so a program that loaded it and then died
/// without its exit handlers (a crash, a signal, `_exit`) is told apart from one that never
/// loaded it (a build that linked another libcuda, or none).
pub(crate) fn no_report(exit: &Exit, loaded: bool) -> String {
    match (exit, loaded) {
        (Exit::Signal(_) | Exit::Code(134), true) => format!(
            "the program crashed ({exit}) while it ran under the checking driver, before its \
             end, where the driver writes its report: the crash is the program's or a library's \
             it loaded (NVRTC, cuBLAS, ...), not the build's"
        ),
        (Exit::Signal(_) | Exit::Code(134), false) => format!(
            "the program crashed ({exit}) before it loaded the checking driver (before main, or \
             before a dlopen of libcuda)"
        ),
        (Exit::TimedOut(_), true) => format!(
            "the program {exit} under the checking driver, before its end, where the driver \
             writes its report"
        ),
        (Exit::TimedOut(_), false) => {
            format!("the program {exit} and did not load the checking driver")
        }
        (Exit::NotStarted(_), _) => format!("the program was {exit}"),
        (Exit::Code(_), true) => format!(
            "the program loaded the checking driver but ended ({exit}) without the exit \
             handlers that write its report (`_exit`, or an exec)"
        ),
        (Exit::Code(_), false) => "the program did not load the checking driver".to_owned(),
    }
}

/// What the checking driver left of a run: its report (written at exit), or, where there is
/// none, whether the program loaded the driver at all (its mark at load).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Evidence<'a> {
    /// The report.
    Report(&'a Report),
    /// No report, but the mark: the program loaded the checking driver, then ended without
    /// its exit handlers.
    Loaded,
    /// Neither: the program never loaded the checking driver.
    NotLoaded,
}

impl<'a> Evidence<'a> {
    /// The report, if any.
    pub(crate) fn report(self) -> Option<&'a Report> {
        match self {
            Evidence::Report(r) => Some(r),
            Evidence::Loaded | Evidence::NotLoaded => None,
        }
    }
}

/// The checking driver's report (`NULLDRIVER_REPORT`).
#[derive(Default, Debug)]
pub(crate) struct Report {
    pub(crate) text: String,
    pub(crate) calls: u64,
    /// The entry point that was failed (the first, for a sticky fault), if any.
    pub(crate) failed: Option<String>,
    pub(crate) stacks: u64,
    pub(crate) violations: Vec<String>,
    pub(crate) leaks: Vec<String>,
    pub(crate) orphans: Vec<String>,
    /// Handles the program said it left behind on purpose (custack's failed waits).
    pub(crate) left: Vec<String>,
    /// Kernels launched without a CPU stand-in, and how often.
    pub(crate) without_stand_in: Vec<(String, u64)>,
    /// The call numbers of the asynchronous enqueues (`enqueues`).
    pub(crate) enqueues: Vec<u64>,
    /// The enqueue that hung (`hang-at`: its number and entry point).
    pub(crate) hang_at: Option<String>,
    /// The blocking wait that would never have returned (`hung`), with what follows it.
    pub(crate) hung: Option<String>,
}

impl Report {
    pub(crate) fn parse(text: &str) -> Self {
        let mut r = Report {
            text: text.to_owned(),
            ..Report::default()
        };
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let key = words.next().unwrap_or("");
            let value = words.next().unwrap_or("");
            match key {
                "calls" => r.calls = value.parse().unwrap_or(0),
                "failed" if value != "-" => r.failed = Some(value.to_owned()),
                "stacks" => r.stacks = value.parse().unwrap_or(0),
                "violation:" => r.violations.push(line.to_owned()),
                "leak:" => r.leaks.push(line.to_owned()),
                "orphan:" => r.orphans.push(line.to_owned()),
                "left-behind:" => r.left.push(line.to_owned()),
                "no-stand-in" => r.without_stand_in.push((
                    value.to_owned(),
                    words.next().unwrap_or("0").parse().unwrap_or(0),
                )),
                "enqueues" => {
                    r.enqueues = line
                        .split_whitespace()
                        .skip(1)
                        .filter_map(|n| n.parse().ok())
                        .collect();
                }
                "hang-at" if value != "-" => {
                    r.hang_at = line.strip_prefix("hang-at ").map(str::to_owned);
                }
                "hung" => r.hung = line.strip_prefix("hung ").map(str::to_owned),
                _ => {}
            }
        }
        r
    }
}

/// How the program ended, judged.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Outcome {
    /// Exit status 0.
    Passed,
    /// Any other exit status without a panic: the failure reached the program as an error
    /// (a `main` returning `Err`, a test returning `Err`).
    Error,
    /// "panicked at" in its output (whether it then unwound or aborted).
    Panic,
    /// A signal (`abort`, a crash), a time-out, or no start.
    Abort,
    /// The checking driver ended it: it blocked in a wait on hung work with no deadline.
    Blocked,
    /// custack's one safe state (R20): exit status 75 and exactly one line
    /// `custack: fail-stop (exit status 75): ` naming a sticky error (a scope that cannot end
    /// its borrows) or a bounded scope's `Overrun::Exit`. The process ends at once (`_exit`),
    /// so the driver writes no report: a documented outcome of a fault schedule.
    SafeState,
}

/// The start of the one line of custack's safe state (`custack::fail_stop`).
const SAFE_STATE_LINE: &str = "custack: fail-stop (exit status 75): ";

/// Whether `output` is a safe state's: exactly one report line, naming a sticky error or an
/// `Overrun::Exit`.
fn is_safe_state(output: &str) -> bool {
    let mut lines = output.lines().filter(|l| l.contains(SAFE_STATE_LINE));
    match (lines.next(), lines.next()) {
        (Some(line), None) => line.contains("(sticky: ") || line.contains("(Overrun::Exit)"),
        _ => false,
    }
}

/// One schedule's verdict.
#[derive(Debug)]
pub(crate) struct Verdict {
    pub(crate) schedule: Schedule,
    pub(crate) outcome: Outcome,
    pub(crate) exit: String,
    pub(crate) failed: Option<String>,
    pub(crate) violations: Vec<String>,
    pub(crate) leaks: Vec<String>,
    /// The last lines of the program's output, for a failing schedule.
    pub(crate) output_tail: String,
    /// `--strict-hangs`: blocking in a wait with no deadline is a failure.
    pub(crate) blocked_fails: bool,
}

impl Verdict {
    /// A violation, a leak, a panic or an abort; a clean run must also pass.
    pub(crate) fn bad(&self) -> bool {
        !self.violations.is_empty()
            || !self.leaks.is_empty()
            || matches!(self.outcome, Outcome::Panic | Outcome::Abort)
            || (self.outcome == Outcome::Blocked && self.blocked_fails)
            || (self.schedule == Schedule::Clean && self.outcome != Outcome::Passed)
    }

    /// One line: the failed call, how the program ended, what the report holds against it.
    pub(crate) fn summary(&self) -> String {
        let what = match self.outcome {
            Outcome::Passed => "passed",
            Outcome::Error => "error",
            Outcome::Panic => "PANIC",
            Outcome::Abort => "ABORT",
            Outcome::Blocked if self.blocked_fails => "BLOCKED with no deadline",
            Outcome::Blocked => "blocked with no deadline",
            Outcome::SafeState => "safe state",
        };
        let mut s = format!(
            "{:<32} {} ({what})",
            self.failed.as_deref().unwrap_or("-"),
            self.exit
        );
        if !self.violations.is_empty() {
            let _ = write!(s, ", {} violation(s)", self.violations.len());
        }
        if !self.leaks.is_empty() {
            let _ = write!(s, ", {} leak(s)", self.leaks.len());
        }
        s
    }
}

/// Entry points whose failure leaves the handle they were given alive, by the driver's
/// contract: a leak after one of them failed is the driver's, not the program's.
const RELEASES: [&str; 15] = [
    "cuMemFree",
    "cuStreamDestroy",
    "cuEventDestroy",
    "cuModuleUnload",
    "cuCtxDestroy",
    "cuCtxPopCurrent",
    "cuDevicePrimaryCtxRelease",
    "cuGraphDestroy",
    "cuGraphExecDestroy",
    "cuLibraryUnload",
    "cuMemPoolDestroy",
    "cuMemHostUnregister",
    "cuLinkDestroy",
    // The libraries' stand-ins (`checkdriver/standins/`): a handle's or a descriptor's destroy.
    "cusolverDnDestroy",
    "cusparseDestroy",
];

/// Calls whose failure may leave a context on a thread's stack: the stack calls, and a failed
/// `cuCtxDestroy`, which leaves the context where it was (a new context is created pushed).
const STACK_CALLS: [&str; 4] = [
    "cuCtxPopCurrent",
    "cuCtxPushCurrent",
    "cuCtxSetCurrent",
    "cuCtxDestroy",
];

fn is_one_of(failed: Option<&str>, names: &[&str]) -> bool {
    failed.is_some_and(|f| names.iter().any(|n| f.starts_with(n)))
}

/// What the program may do that the rules would otherwise count against it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Allow {
    /// It keeps a context current on purpose (`--context-stays-current`): a thread ending with a
    /// context on its stack is not a violation.
    pub(crate) context_stays_current: bool,
    /// `--strict-hangs`: every wait of the program has a deadline, so blocking in one on hung
    /// work is a failure.
    pub(crate) strict_hangs: bool,
}

/// Judges one run: `exit` and `output` are the program's, `evidence` what the driver left (its
/// report, or whether the program loaded it).
pub(crate) fn judge(
    schedule: Schedule,
    exit: &Exit,
    output: &str,
    evidence: Evidence<'_>,
    allow: Allow,
) -> Verdict {
    let report = evidence.report();
    let blocked = matches!(schedule, Schedule::HangAt(_))
        && matches!(exit, Exit::Code(HUNG_EXIT))
        && report.is_some_and(|r| r.hung.is_some());
    let outcome = if output.contains("panicked at") {
        Outcome::Panic
    } else if blocked {
        Outcome::Blocked
    } else {
        match exit {
            Exit::Code(0) => Outcome::Passed,
            // 134: a shell's report of SIGABRT.
            Exit::Code(134) | Exit::Signal(_) | Exit::TimedOut(_) | Exit::NotStarted(_) => {
                Outcome::Abort
            }
            Exit::Code(75) if schedule != Schedule::Clean && is_safe_state(output) => {
                Outcome::SafeState
            }
            Exit::Code(_) => Outcome::Error,
        }
    };
    let mut violations = Vec::new();
    let mut leaks = Vec::new();
    // A hang schedule's column names the enqueue that hung, and the wait that blocked on it.
    let failed = match (schedule, report) {
        (Schedule::HangAt(_), Some(r)) => r.hang_at.as_ref().map(|h| match &r.hung {
            Some(w) => format!("{h} -> {w}"),
            None => h.clone(),
        }),
        (_, r) => r.and_then(|r| r.failed.clone()),
    };
    match report {
        None if outcome != Outcome::Abort && outcome != Outcome::SafeState => {
            let loaded = matches!(evidence, Evidence::Loaded);
            violations.push(format!("no report: {}", no_report(exit, loaded)));
        }
        None => {}
        // Stopped in the middle of its work: only what it did wrong up to there counts.
        Some(r) if outcome == Outcome::Blocked => violations.extend(r.violations.iter().cloned()),
        Some(r) => {
            violations.extend(r.violations.iter().cloned());
            let f = r.failed.as_deref();
            if r.stacks > 0 && !allow.context_stays_current && !is_one_of(f, &STACK_CALLS) {
                violations.push(format!(
                    "violation: {} thread(s) ended with a context on their stack",
                    r.stacks
                ));
            }
            let sticky = matches!(schedule, Schedule::StickyAt(_));
            if !sticky && !is_one_of(f, &RELEASES) {
                leaks.extend(r.leaks.iter().cloned());
                leaks.extend(r.orphans.iter().cloned());
            }
        }
    }
    let mut v = Verdict {
        schedule,
        outcome,
        exit: exit.to_string(),
        failed,
        violations,
        leaks,
        output_tail: String::new(),
        blocked_fails: allow.strict_hangs,
    };
    if v.bad() {
        v.output_tail = cause(output);
    }
    v
}

/// What to show of a failing run's output: a panic's `panicked at FILE:LINE:COL:` line and its
/// message (the test harness's summary after it says nothing more), otherwise the last lines.
fn cause(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    match lines.iter().position(|l| l.contains("panicked at")) {
        Some(i) => {
            let mut shown: Vec<&str> = vec![lines[i]];
            // The message: the lines up to the backtrace note or the next blank line.
            shown.extend(
                lines[i + 1..]
                    .iter()
                    .take_while(|l| !l.trim().is_empty() && !l.starts_with("note: "))
                    .take(4),
            );
            let mut out = String::new();
            for l in shown {
                out.push_str("      | ");
                out.push_str(l);
                out.push('\n');
            }
            out
        }
        None => tail(output, 4),
    }
}

/// The last `n` lines of `text`, indented.
pub(crate) fn tail(text: &str, n: usize) -> String {
    use fmt::Write as _;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = String::new();
    for l in &lines[lines.len().saturating_sub(n)..] {
        let _ = writeln!(out, "      | {l}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(text: &str) -> Report {
        Report::parse(text)
    }

    const CLEAN: &str = "calls 5\nfailed -\nviolations 0\nleaks 0\nstacks 0\norphans 0\n";

    #[test]
    fn outcomes() {
        let r = report(CLEAN);
        let j = |exit, out: &str| {
            judge(
                Schedule::FailAt(1),
                &exit,
                out,
                Evidence::Report(&r),
                Allow::default(),
            )
            .outcome
        };
        assert_eq!(j(Exit::Code(0), ""), Outcome::Passed);
        assert_eq!(j(Exit::Code(1), "Error: out of memory"), Outcome::Error);
        assert_eq!(j(Exit::Code(101), "test t ... FAILED"), Outcome::Error);
        assert_eq!(
            j(Exit::Code(101), "thread 't' panicked at src/lib.rs:1:1"),
            Outcome::Panic
        );
        assert_eq!(j(Exit::Signal(6), ""), Outcome::Abort);
        assert_eq!(j(Exit::TimedOut(1), ""), Outcome::Abort);
        let safe = "test t ... custack: fail-stop (exit status 75): CUDA_ERROR_LAUNCH_FAILED \
                    (719): x (sticky: CUDA is unusable); first observed by the end of a scope";
        assert_eq!(j(Exit::Code(75), safe), Outcome::SafeState);
        // Not the safe state: two lines, no sticky error, another status, a clean run.
        assert_eq!(
            j(Exit::Code(75), &format!("{safe}\n{safe}")),
            Outcome::Error
        );
        assert_eq!(
            j(
                Exit::Code(75),
                "custack: fail-stop (exit status 75): InvalidValue"
            ),
            Outcome::Error
        );
        assert_eq!(j(Exit::Code(1), safe), Outcome::Error);
        let clean = judge(
            Schedule::Clean,
            &Exit::Code(75),
            safe,
            Evidence::Report(&r),
            Allow::default(),
        );
        assert_eq!(clean.outcome, Outcome::Error);
        assert!(clean.bad());
        // Without a report (the process `_exit`ed): no violation for that.
        let v = judge(
            Schedule::FailAt(1),
            &Exit::Code(75),
            safe,
            Evidence::Loaded,
            Allow::default(),
        );
        assert_eq!(v.outcome, Outcome::SafeState);
        assert!(!v.bad(), "{v:?}");
    }

    #[test]
    fn leaks_count_unless_the_release_failed_or_the_fault_is_sticky() {
        let text = "calls 5\nfailed cuMemAlloc_v2\nviolations 0\nleaks 1\nstacks 0\norphans 0\n\
                    leak: DeviceMemory 0x7f0000000000 of context 0x10000040\n";
        let r = report(text);
        assert_eq!(r.failed.as_deref(), Some("cuMemAlloc_v2"));
        let v = judge(
            Schedule::FailAt(3),
            &Exit::Code(1),
            "",
            Evidence::Report(&r),
            Allow::default(),
        );
        assert_eq!(v.leaks.len(), 1);
        assert!(v.bad());
        let v = judge(
            Schedule::StickyAt(3),
            &Exit::Code(1),
            "",
            Evidence::Report(&r),
            Allow::default(),
        );
        assert!(v.leaks.is_empty() && !v.bad());
        let r = report(&text.replace("cuMemAlloc_v2", "cuMemFree_v2"));
        assert!(
            !judge(
                Schedule::FailAt(3),
                &Exit::Code(0),
                "",
                Evidence::Report(&r),
                Allow::default()
            )
            .bad()
        );
    }

    #[test]
    fn violations_and_stacks_always_count() {
        let r = report(
            "calls 5\nfailed -\nviolations 1\nleaks 0\nstacks 1\norphans 0\n\
             violation: thread 1: cuMemFree: DeviceMemory 0x7f already destroyed or freed\n",
        );
        let v = judge(
            Schedule::StickyAt(2),
            &Exit::Code(0),
            "",
            Evidence::Report(&r),
            Allow::default(),
        );
        assert_eq!(v.violations.len(), 2);
        assert!(v.bad());
    }

    #[test]
    fn no_report_is_a_violation_and_a_failed_clean_run_is_bad() {
        let v = judge(
            Schedule::FailAt(1),
            &Exit::Code(0),
            "",
            Evidence::NotLoaded,
            Allow::default(),
        );
        assert!(v.bad());
        assert_eq!(
            v.violations,
            ["no report: the program did not load the checking driver"]
        );
        // It loaded the driver, then ended without its exit handlers.
        let v = judge(
            Schedule::FailAt(1),
            &Exit::Code(3),
            "",
            Evidence::Loaded,
            Allow::default(),
        );
        assert!(v.bad());
        assert!(
            v.violations[0].contains("loaded the checking driver but ended (exit 3)"),
            "{v:?}"
        );
        let r = report(CLEAN);
        assert!(
            judge(
                Schedule::Clean,
                &Exit::Code(1),
                "",
                Evidence::Report(&r),
                Allow::default()
            )
            .bad()
        );
        assert!(
            !judge(
                Schedule::FailAt(1),
                &Exit::Code(1),
                "",
                Evidence::Report(&r),
                Allow::default()
            )
            .bad()
        );
    }

    #[test]
    fn orphans_count_after_a_failed_wait_but_what_custack_left_does_not() {
        let text = "calls 9\nfailed cuEventSynchronize\nviolations 0\nleaks 0\nstacks 0\norphans 1\nleft 1\n\
                    orphan: DeviceMemory 0x7f0000001000 from call 4 cuMemAlloc_v2 still alive when context 0x10 was destroyed\n\
                    left-behind: DeviceMemory 0x7f0000000000 from call 3 cuMemAlloc_v2, released with context 0x10 (left on purpose)\n";
        let r = report(text);
        assert_eq!(r.left.len(), 1);
        let v = judge(
            Schedule::FailAt(7),
            &Exit::Code(1),
            "",
            Evidence::Report(&r),
            Allow::default(),
        );
        assert_eq!(v.leaks.len(), 1, "the program's orphan, not custack's");
        assert!(
            v.leaks[0].contains("from call 4 cuMemAlloc_v2"),
            "{:?}",
            v.leaks
        );
        let clean = report(
            &text
                .replace("orphans 1", "orphans 0")
                .lines()
                .filter(|l| !l.starts_with("orphan:"))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        assert!(
            !judge(
                Schedule::FailAt(7),
                &Exit::Code(1),
                "",
                Evidence::Report(&clean),
                Allow::default()
            )
            .bad()
        );
    }

    #[test]
    fn a_panic_shows_where_and_why() {
        let out = "running 1 test\n\nthread 't' panicked at tests/ops.rs:31:5:\nwrong sums: [0.0, 0.0]\nnote: run with `RUST_BACKTRACE=1`\ntest t ... FAILED\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed";
        let v = judge(
            Schedule::FailAt(5),
            &Exit::Code(101),
            out,
            Evidence::Report(&report(CLEAN)),
            Allow::default(),
        );
        assert_eq!(v.outcome, Outcome::Panic);
        assert_eq!(
            v.output_tail,
            "      | thread 't' panicked at tests/ops.rs:31:5:\n      | wrong sums: [0.0, 0.0]\n"
        );
    }

    #[test]
    fn kernels_without_a_stand_in_are_read() {
        let r = report(&format!("{CLEAN}no-stand-in add_u32 3\n"));
        assert_eq!(r.without_stand_in, vec![("add_u32".to_owned(), 3)]);
    }
}

#[cfg(test)]
mod allow_tests {
    use super::*;

    #[test]
    fn a_context_kept_current_on_purpose_is_no_violation() {
        let r = Report::parse("calls 5\nfailed -\nviolations 0\nleaks 0\nstacks 1\norphans 0\n");
        assert!(
            judge(
                Schedule::FailAt(2),
                &Exit::Code(0),
                "",
                Evidence::Report(&r),
                Allow::default()
            )
            .bad()
        );
        let allow = Allow {
            context_stays_current: true,
            strict_hangs: false,
        };
        assert!(
            !judge(
                Schedule::FailAt(2),
                &Exit::Code(0),
                "",
                Evidence::Report(&r),
                allow
            )
            .bad()
        );
    }
}

#[cfg(test)]
mod hang_tests {
    use super::*;

    const HUNG: &str = "calls 7\nfailed -\nviolations 0\nleaks 3\nstacks 1\norphans 0\nleft 0\n\
                        leak: Stream 0x10000080 from call 3 cuStreamCreate of context 0x10000040\n\
                        enqueues 5 6\nhang-at 5 cuMemsetD8Async\nhung cuStreamSynchronize\n";

    #[test]
    fn the_hang_lines_are_read() {
        let r = Report::parse(HUNG);
        assert_eq!(r.enqueues, [5, 6]);
        assert_eq!(r.hang_at.as_deref(), Some("5 cuMemsetD8Async"));
        assert_eq!(r.hung.as_deref(), Some("cuStreamSynchronize"));
        let clean = Report::parse("calls 7\nfailed -\nenqueues\n");
        assert!(clean.enqueues.is_empty() && clean.hang_at.is_none() && clean.hung.is_none());
    }

    #[test]
    fn blocking_with_no_deadline_counts_but_fails_only_when_strict() {
        let r = Report::parse(HUNG);
        let exit = Exit::Code(HUNG_EXIT);
        let v = judge(
            Schedule::HangAt(5),
            &exit,
            "",
            Evidence::Report(&r),
            Allow::default(),
        );
        assert_eq!(v.outcome, Outcome::Blocked);
        assert!(v.leaks.is_empty() && v.violations.is_empty(), "{v:?}");
        assert!(!v.bad());
        assert_eq!(
            v.failed.as_deref(),
            Some("5 cuMemsetD8Async -> cuStreamSynchronize")
        );
        let strict = Allow {
            strict_hangs: true,
            ..Allow::default()
        };
        assert!(judge(Schedule::HangAt(5), &exit, "", Evidence::Report(&r), strict).bad());
        // A violation before it blocked is one.
        let r = Report::parse(&format!("{HUNG}violation: thread 1: cuMemFree: freed\n"));
        assert!(
            judge(
                Schedule::HangAt(5),
                &exit,
                "",
                Evidence::Report(&r),
                Allow::default()
            )
            .bad()
        );
        // The status alone, without the driver's `hung` line, is the program's own error.
        let r = Report::parse("calls 7\nfailed -\nviolations 0\nleaks 0\nstacks 0\norphans 0\n");
        let v = judge(
            Schedule::HangAt(5),
            &exit,
            "",
            Evidence::Report(&r),
            Allow::default(),
        );
        assert_eq!(v.outcome, Outcome::Error);
    }

    #[test]
    fn a_crash_is_told_apart_from_a_program_that_never_loaded_the_driver() {
        let segv = Exit::Signal(11);
        assert_eq!(segv.to_string(), "signal 11, SIGSEGV");
        let crashed = no_report(&segv, true);
        assert!(
            crashed.starts_with(
                "the program crashed (signal 11, SIGSEGV) while it ran under the checking driver"
            ),
            "{crashed}"
        );
        assert!(!crashed.contains("did not load"), "{crashed}");
        let early = no_report(&segv, false);
        assert!(
            early.starts_with("the program crashed (signal 11, SIGSEGV) before it loaded"),
            "{early}"
        );
        // A shell's report of an abort is a crash too.
        assert!(no_report(&Exit::Code(134), true).contains("crashed (exit 134)"));
        assert_eq!(
            no_report(&Exit::Code(0), false),
            "the program did not load the checking driver"
        );
        assert!(no_report(&Exit::Code(75), true).contains("without the exit handlers"));
        assert!(no_report(&Exit::TimedOut(5), true).contains("under the checking driver"));
        // A crash is an abort, whatever the driver left.
        let v = judge(
            Schedule::Clean,
            &segv,
            "",
            Evidence::Loaded,
            Allow::default(),
        );
        assert_eq!(v.outcome, Outcome::Abort);
        assert!(v.bad());
    }
}
