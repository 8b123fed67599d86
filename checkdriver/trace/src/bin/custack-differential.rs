//! The comparer of the differential run (`docs/validation.md`, contract row R26): reads, for each
//! program, its run against the checking driver and its run against the real libcuda (the trace
//! of driver calls, the program's output and its exit status) and writes what differs.
//!
//! ```text
//! custack-differential RUNS [--programs FILE] [--json OUT]
//! ```
//!
//! `RUNS/PROGRAM/` holds `double.trace`, `double.out`, `double.rc` and `real.trace`, `real.out`,
//! `real.rc` (`scripts/differential.sh` writes them); `--programs` names the classification
//! (`checkdriver/trace/programs.txt`: `NAME CLASS NOTE...`), whose programs of class `cannot`
//! are reported as not run. Prints a table, one row per program, and the differences by kind and
//! entry point; `--json` writes the same as one JSON report. Exits 0 when the comparison ran
//! (whatever it found), 2 on a usage or reading error.
//!
//! What is compared, per program:
//! - the driver calls of each thread (threads paired by their calls: 0 with 0, the others by
//!   fewest differences), aligned in order: a call only one side makes, or the same call with a
//!   different result code; `cuGetProcAddress*` also by the symbol, version and status asked;
//! - the lines `observe KEY VALUE` the program printed (results read back, query answers);
//! - the outcome: the exit status, and `ok` or the error's kind from the program's last line.
//!
//! Normalized (and counted): the lookups of the checking driver's own extensions
//! (`custackCheckdriver*`: a real driver has none; the interposer answers the few that a program
//! uses) are dropped; the polls (`cuStreamQuery`, `cuEventQuery`), whose number and answers
//! depend on how fast the device runs (the double completes work at once), are merged: a run of
//! one thread's consecutive calls of one query entry point counts as one call with the last
//! answer, and `CUDA_ERROR_NOT_READY` counts as `CUDA_SUCCESS` (any other answer, an error,
//! is compared as it is).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How far ahead the alignment looks for the two sides to meet again after a difference.
const LOOKAHEAD: usize = 64;
/// Lines of context shown before and after a program's first difference.
const CONTEXT: usize = 4;
/// `CUDA_ERROR_NOT_READY`.
const NOT_READY: i32 = 600;

/// One traced driver call.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Call {
    seq: u64,
    thread: String,
    name: String,
    code: i32,
    detail: String,
}

impl Call {
    /// Whether `other` is the same call (the result aside).
    fn same_call(&self, other: &Call) -> bool {
        self.name == other.name && self.lookup() == other.lookup()
    }

    /// What a lookup asked for and was answered (`symbol@version status`), or "".
    fn lookup(&self) -> &str {
        if self.name.starts_with("cuGetProcAddress") {
            &self.detail
        } else {
            ""
        }
    }

    fn describe(&self) -> String {
        let mut s = format!("#{} {} -> {}", self.seq, self.name, self.code);
        if !self.detail.is_empty() {
            let _ = write!(s, " ({})", self.detail);
        }
        s
    }
}

/// Parses a trace (`SEQ THREAD NAME RESULT [DETAIL]`, tab-separated); skips malformed lines.
fn parse_trace(text: &str) -> Vec<Call> {
    let mut calls: Vec<Call> = text
        .lines()
        .filter_map(|line| {
            let mut f = line.splitn(5, '\t');
            let seq = f.next()?.parse().ok()?;
            let thread = f.next()?.to_owned();
            let name = f.next()?.to_owned();
            let code = f.next()?.trim().parse().ok()?;
            let detail = f.next().unwrap_or("").trim().to_owned();
            Some(Call {
                seq,
                thread,
                name,
                code,
                detail,
            })
        })
        .collect();
    // Several threads append in the order their `write`s land, not of their numbers.
    calls.sort_by_key(|c| c.seq);
    calls
}

/// What normalization changed in one side's trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Removed {
    /// Lookups of the checking driver's extensions, dropped.
    extension_lookups: usize,
    /// Polls merged into the one before them (consecutive calls of one query on one thread).
    polls_merged: usize,
    /// Polls answered `CUDA_ERROR_NOT_READY`, compared as `CUDA_SUCCESS`.
    not_ready: usize,
}

fn is_poll(c: &Call) -> bool {
    c.name == "cuStreamQuery" || c.name == "cuEventQuery"
}

/// `calls` as they are compared (the module's doc says what changes and why).
fn normalize(calls: Vec<Call>) -> (Vec<Call>, Removed) {
    let mut removed = Removed::default();
    let mut kept: Vec<Call> = Vec::with_capacity(calls.len());
    // Each thread's last kept call, by index in `kept`.
    let mut last: BTreeMap<String, usize> = BTreeMap::new();
    for c in calls {
        if c.name.starts_with("cuGetProcAddress") && c.detail.starts_with("custackCheckdriver") {
            removed.extension_lookups += 1;
            continue;
        }
        if is_poll(&c)
            && let Some(&i) = last.get(&c.thread)
            && kept[i].name == c.name
        {
            kept[i].code = c.code;
            removed.polls_merged += 1;
            continue;
        }
        last.insert(c.thread.clone(), kept.len());
        kept.push(c);
    }
    for c in &mut kept {
        if is_poll(c) && c.code == NOT_READY {
            c.code = 0;
            removed.not_ready += 1;
        }
    }
    (kept, removed)
}

/// The calls of each thread, by thread number, in order.
fn by_thread(calls: &[Call]) -> BTreeMap<String, Vec<Call>> {
    let mut threads: BTreeMap<String, Vec<Call>> = BTreeMap::new();
    for c in calls {
        threads.entry(c.thread.clone()).or_default().push(c.clone());
    }
    threads
}

/// One step of an alignment.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Equal(usize, usize),
    /// The same call, a different result.
    Code(usize, usize),
    OnlyDouble(usize),
    OnlyReal(usize),
}

impl Step {
    fn is_difference(&self) -> bool {
        !matches!(self, Step::Equal(..))
    }
}

/// Aligns two threads' calls in order: equal calls pair, the same call with another result pairs
/// as a code difference, and where the two part, the nearest place they meet again (within
/// `LOOKAHEAD` calls of each) decides which calls only one side made.
fn align(d: &[Call], r: &[Call]) -> Vec<Step> {
    let (mut i, mut j, mut steps) = (0, 0, Vec::new());
    while i < d.len() && j < r.len() {
        if d[i] == r[j] || (d[i].same_call(&r[j]) && d[i].code == r[j].code) {
            steps.push(Step::Equal(i, j));
            i += 1;
            j += 1;
            continue;
        }
        if d[i].same_call(&r[j]) {
            steps.push(Step::Code(i, j));
            i += 1;
            j += 1;
            continue;
        }
        // The nearest (di + dj smallest) place where the same calls come again.
        let meet = (1..=2 * LOOKAHEAD).find_map(|k| {
            (0..=k.min(LOOKAHEAD)).find_map(|di| {
                let dj = k - di;
                (dj <= LOOKAHEAD
                    && i + di < d.len()
                    && j + dj < r.len()
                    && d[i + di].same_call(&r[j + dj]))
                .then_some((di, dj))
            })
        });
        let (di, dj) = meet.unwrap_or((1, 1));
        steps.extend((i..i + di).map(Step::OnlyDouble));
        steps.extend((j..j + dj).map(Step::OnlyReal));
        i += di;
        j += dj;
    }
    steps.extend((i..d.len()).map(Step::OnlyDouble));
    steps.extend((j..r.len()).map(Step::OnlyReal));
    steps
}

fn differences(steps: &[Step]) -> usize {
    steps.iter().filter(|s| s.is_difference()).count()
}

/// Pairs the threads of the two sides: `0` with `0` (the main thread), then the others by
/// fewest differences (ties: by number). A thread left unpaired pairs with an empty one.
fn pair_threads(
    d: &BTreeMap<String, Vec<Call>>,
    r: &BTreeMap<String, Vec<Call>>,
) -> Vec<(Option<String>, Option<String>)> {
    let mut pairs = Vec::new();
    let mut left_d: Vec<&String> = d.keys().collect();
    let mut left_r: Vec<&String> = r.keys().collect();
    let zero = "0".to_owned();
    if d.contains_key(&zero) && r.contains_key(&zero) {
        pairs.push((Some(zero.clone()), Some(zero.clone())));
        left_d.retain(|t| **t != zero);
        left_r.retain(|t| **t != zero);
    }
    let mut candidates = Vec::new();
    for td in &left_d {
        for tr in &left_r {
            let cost = differences(&align(&d[*td], &r[*tr]));
            candidates.push((
                cost,
                thread_order(td),
                thread_order(tr),
                (*td).clone(),
                (*tr).clone(),
            ));
        }
    }
    candidates.sort();
    for (_, _, _, td, tr) in candidates {
        if left_d.contains(&&td) && left_r.contains(&&tr) {
            left_d.retain(|t| **t != td);
            left_r.retain(|t| **t != tr);
            pairs.push((Some(td), Some(tr)));
        }
    }
    pairs.extend(left_d.into_iter().map(|t| (Some(t.clone()), None)));
    pairs.extend(left_r.into_iter().map(|t| (None, Some(t.clone()))));
    pairs
}

/// Thread numbers sort as numbers (`-`, a call from a thread's destructor, last).
fn thread_order(t: &str) -> u64 {
    t.parse().unwrap_or(u64::MAX)
}

/// A program's outcome: the exit status and its last line's verdict (`ok`, `error KIND`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Outcome {
    status: String,
    verdict: String,
}

fn outcome(program: &str, out: &str, rc: &str) -> Outcome {
    let prefix = format!("{program}: ");
    let verdict = out
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(&prefix))
        .map_or_else(
            || "(no verdict line)".to_owned(),
            |v| {
                if v.starts_with("ok") {
                    "ok".to_owned()
                } else if let Some(e) = v.strip_prefix("error ") {
                    // `error KIND: text (N drop errors)`: the kind; the text may hold addresses.
                    format!("error {}", e.split(':').next().unwrap_or(e))
                } else {
                    v.to_owned()
                }
            },
        );
    Outcome {
        status: rc.trim().to_owned(),
        verdict,
    }
}

/// The `observe KEY VALUE` lines of a program's output, in order.
fn observations(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("observe ")?;
            let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
            Some((key.to_owned(), value.trim().to_owned()))
        })
        .collect()
}

/// One difference found, for the tallies by kind and entry point.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    OnlyDouble(String),
    OnlyReal(String),
    Code {
        name: String,
        double: i32,
        real: i32,
    },
    Observable(String),
    Outcome,
}

impl Kind {
    fn class(&self) -> &'static str {
        match self {
            Kind::OnlyDouble(_) => "only_double",
            Kind::OnlyReal(_) => "only_real",
            Kind::Code { .. } => "code",
            Kind::Observable(_) => "observable",
            Kind::Outcome => "outcome",
        }
    }

    fn describe(&self) -> String {
        match self {
            Kind::OnlyDouble(n) => format!("a call only the double makes: {n}"),
            Kind::OnlyReal(n) => format!("a call only the real driver gets: {n}"),
            Kind::Code { name, double, real } => {
                format!("{name}: the double answers {double}, the real driver {real}")
            }
            Kind::Observable(k) => format!("observable `{k}` differs"),
            Kind::Outcome => "the program's outcome differs".to_owned(),
        }
    }
}

/// What one program's comparison found.
#[derive(Debug, Default)]
struct Comparison {
    calls_double: usize,
    calls_real: usize,
    calls_compared: usize,
    removed_double: Removed,
    removed_real: Removed,
    kinds: Vec<Kind>,
    /// The first difference, described with context.
    first: Option<String>,
    outcome_double: Option<Outcome>,
    outcome_real: Option<Outcome>,
}

impl Comparison {
    fn count(&self, class: &str) -> usize {
        self.kinds.iter().filter(|k| k.class() == class).count()
    }
}

/// `n` lines of `calls` around `at` (before, the line itself marked, after).
fn context(calls: &[Call], at: Option<usize>, end: usize) -> String {
    let at = at.unwrap_or(end);
    let from = at.saturating_sub(CONTEXT);
    let to = (at + CONTEXT + 1).min(calls.len());
    let mut s = String::new();
    for (k, c) in calls.iter().enumerate().take(to).skip(from) {
        let mark = if k == at { ">>" } else { "  " };
        let _ = writeln!(s, "      {mark} {}", c.describe());
    }
    if at >= calls.len() {
        let _ = writeln!(s, "      >> (no more calls)");
    }
    s
}

/// Compares one program's two runs, given their traces, outputs and exit statuses.
fn compare(program: &str, double: (&str, &str, &str), real: (&str, &str, &str)) -> Comparison {
    let (on_double, removed_double) = normalize(parse_trace(double.0));
    let (on_real, removed_real) = normalize(parse_trace(real.0));
    let mut found = Comparison {
        calls_double: on_double.len(),
        calls_real: on_real.len(),
        removed_double,
        removed_real,
        ..Comparison::default()
    };
    compare_calls(&mut found, &by_thread(&on_double), &by_thread(&on_real));
    compare_observations(&mut found, double.1, real.1);
    let (a, b) = (
        outcome(program, double.1, double.2),
        outcome(program, real.1, real.2),
    );
    if a != b {
        found.kinds.push(Kind::Outcome);
        found.first.get_or_insert_with(|| {
            format!(
                "outcome: double exit {} ({}), real exit {} ({})",
                a.status, a.verdict, b.status, b.verdict
            )
        });
    }
    found.outcome_double = Some(a);
    found.outcome_real = Some(b);
    found
}

/// The calls of each pair of threads, aligned: their differences, and the first one.
fn compare_calls(
    found: &mut Comparison,
    threads_double: &BTreeMap<String, Vec<Call>>,
    threads_real: &BTreeMap<String, Vec<Call>>,
) {
    let none = Vec::new();
    for (td, tr) in pair_threads(threads_double, threads_real) {
        let dbl = td.as_ref().map_or(&none, |t| &threads_double[t]);
        let rea = tr.as_ref().map_or(&none, |t| &threads_real[t]);
        let steps = align(dbl, rea);
        for s in &steps {
            match *s {
                Step::Equal(..) => found.calls_compared += 1,
                Step::Code(i, j) => {
                    found.calls_compared += 1;
                    found.kinds.push(Kind::Code {
                        name: dbl[i].name.clone(),
                        double: dbl[i].code,
                        real: rea[j].code,
                    });
                }
                Step::OnlyDouble(i) => found.kinds.push(Kind::OnlyDouble(dbl[i].name.clone())),
                Step::OnlyReal(j) => found.kinds.push(Kind::OnlyReal(rea[j].name.clone())),
            }
        }
        if found.first.is_none()
            && let Some(step) = steps.iter().find(|s| s.is_difference())
        {
            found.first = Some(first_difference(step, &steps, (dbl, rea), (&td, &tr)));
        }
    }
}

/// A difference of an alignment described, with the calls around it on each side.
fn first_difference(
    step: &Step,
    steps: &[Step],
    (dbl, rea): (&[Call], &[Call]),
    (td, tr): (&Option<String>, &Option<String>),
) -> String {
    // Where the other side stands: at its next paired call.
    let next_real = |i: usize| {
        steps.iter().find_map(|s| match s {
            Step::Equal(a, b) | Step::Code(a, b) if *a > i => Some(*b),
            _ => None,
        })
    };
    let next_double = |j: usize| {
        steps.iter().find_map(|s| match s {
            Step::Equal(a, b) | Step::Code(a, b) if *b > j => Some(*a),
            _ => None,
        })
    };
    let (at_d, at_r, what) = match *step {
        Step::Code(i, j) => (
            Some(i),
            Some(j),
            format!(
                "{} answered {} by the double, {} by the real driver",
                dbl[i].name, dbl[i].code, rea[j].code
            ),
        ),
        Step::OnlyDouble(i) => (
            Some(i),
            next_real(i),
            format!("{} made on the double only", dbl[i].describe()),
        ),
        Step::OnlyReal(j) => (
            next_double(j),
            Some(j),
            format!("{} made on the real driver only", rea[j].describe()),
        ),
        Step::Equal(..) => (None, None, String::new()),
    };
    let thread = |t: &Option<String>| t.clone().unwrap_or_else(|| "none".to_owned());
    format!(
        "thread {} (double) / {} (real): {what}\n    double:\n{}    real:\n{}",
        thread(td),
        thread(tr),
        context(dbl, at_d, dbl.len()),
        context(rea, at_r, rea.len()),
    )
}

/// The `observe` lines of the two outputs, key by key (in the order they first appear).
fn compare_observations(found: &mut Comparison, double: &str, real: &str) {
    let (od, or) = (observations(double), observations(real));
    let mut keys: Vec<&String> = Vec::new();
    for (k, _) in od.iter().chain(&or) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for key in keys {
        let vd: Vec<&String> = od
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v)
            .collect();
        let vr: Vec<&String> = or
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v)
            .collect();
        if vd != vr {
            found.kinds.push(Kind::Observable(key.clone()));
            found
                .first
                .get_or_insert_with(|| format!("observable `{key}`: double {vd:?}, real {vr:?}"));
        }
    }
}

/// `checkdriver/trace/programs.txt`: `NAME CLASS NOTE...` per line (`#` comments).
fn read_programs(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut w = l.splitn(3, char::is_whitespace);
            let name = w.next()?.to_owned();
            let class = w.next()?.to_owned();
            let note = w.next().unwrap_or("").trim().to_owned();
            Some((name, class, note))
        })
        .collect()
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads `dir/name`, or "" when missing.
fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

/// One program's row of the report.
struct Row {
    name: String,
    class: String,
    note: String,
    result: Option<Comparison>,
}

fn report(rows: &[Row]) -> (String, String) {
    let mut text = String::new();
    let mut json = String::from("{\n  \"format\": 1,\n  \"programs\": [\n");
    let _ = writeln!(
        text,
        "{:<24} {:<8} {:>7} {:>7} {:>8} {:>6} {:>6} {:>5} {:>5} {:>4}  verdict",
        "program", "class", "double", "real", "compared", "only-d", "only-r", "code", "obs", "exit"
    );
    // Calls compared, then the differences of each kind (`CLASSES` order).
    let mut totals = [0usize; 6];
    let mut tally: BTreeMap<Kind, Vec<String>> = BTreeMap::new();
    let (mut equal, mut different, mut not_run) = (0, 0, 0);
    for (n, row) in rows.iter().enumerate() {
        let comma = if n + 1 == rows.len() { "" } else { "," };
        let Some(c) = &row.result else {
            not_run += 1;
            let _ = writeln!(
                text,
                "{:<24} {:<8} not run: {}",
                row.name, row.class, row.note
            );
            let _ = writeln!(
                json,
                "    {{\"name\": {}, \"class\": {}, \"note\": {}, \"verdict\": \"not run\"}}{comma}",
                json_string(&row.name),
                json_string(&row.class),
                json_string(&row.note)
            );
            continue;
        };
        if c.kinds.is_empty() {
            equal += 1;
        } else {
            different += 1;
        }
        totals[0] += c.calls_compared;
        for (t, class) in totals[1..].iter_mut().zip(CLASSES) {
            *t += c.count(class);
        }
        for k in &c.kinds {
            let programs = tally.entry(k.clone()).or_default();
            if !programs.contains(&row.name) {
                programs.push(row.name.clone());
            }
        }
        text.push_str(&row_text(row, c));
        let _ = writeln!(json, "{}{comma}", row_json(row, c));
    }
    json.push_str("  ],\n  \"differences\": [\n");
    let _ = writeln!(text, "\ndifferences by kind and entry point (programs):");
    for (n, (kind, programs)) in tally.iter().enumerate() {
        let comma = if n + 1 == tally.len() { "" } else { "," };
        let _ = writeln!(text, "  {} [{}]", kind.describe(), programs.join(" "));
        let _ = writeln!(
            json,
            "    {{\"kind\": \"{}\", \"what\": {}, \"programs\": [{}]}}{comma}",
            kind.class(),
            json_string(&kind.describe()),
            programs
                .iter()
                .map(|p| json_string(p))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if tally.is_empty() {
        let _ = writeln!(text, "  none");
    }
    let _ = writeln!(text, "\nfirst difference of each program:");
    for row in rows {
        if let Some(first) = row.result.as_ref().and_then(|c| c.first.as_ref()) {
            let _ = writeln!(text, "  {}: {first}", row.name);
        }
    }
    let [compared, only_d, only_r, code, obs, exit] = totals;
    let summary = format!(
        "{} programs: {equal} equal, {different} different, {not_run} not run; {compared} calls \
         compared; differences: {only_d} only on the double, {only_r} only on the real driver, \
         {code} result codes, {obs} observables, {exit} outcomes",
        rows.len()
    );
    let _ = writeln!(text, "\n{summary}");
    let _ = write!(
        json,
        "  ],\n  \"totals\": {{\"programs\": {}, \"equal\": {equal}, \"different\": {different}, \
         \"not_run\": {not_run}, \"compared\": {compared}, \"only_double\": {only_d}, \
         \"only_real\": {only_r}, \"code\": {code}, \"observable\": {obs}, \"outcome\": {exit}}},\n  \
         \"summary\": {}\n}}\n",
        rows.len(),
        json_string(&summary)
    );
    (text, json)
}

/// The classes of differences, in the report's order.
const CLASSES: [&str; 5] = ["only_double", "only_real", "code", "observable", "outcome"];

/// A compared program's row of the table.
fn row_text(row: &Row, c: &Comparison) -> String {
    let n = CLASSES.map(|class| c.count(class));
    format!(
        "{:<24} {:<8} {:>7} {:>7} {:>8} {:>6} {:>6} {:>5} {:>5} {:>4}  {}\n",
        row.name,
        row.class,
        c.calls_double,
        c.calls_real,
        c.calls_compared,
        n[0],
        n[1],
        n[2],
        n[3],
        n[4],
        if c.kinds.is_empty() {
            "equal"
        } else {
            "different"
        }
    )
}

/// A compared program's object of the JSON report.
fn row_json(row: &Row, c: &Comparison) -> String {
    let n = CLASSES.map(|class| c.count(class));
    let outcome = |o: &Option<Outcome>| {
        o.as_ref().map_or_else(
            || "null".to_owned(),
            |o| {
                format!(
                    "{{\"exit\": {}, \"verdict\": {}}}",
                    json_string(&o.status),
                    json_string(&o.verdict)
                )
            },
        )
    };
    let removed = |r: &Removed| {
        format!(
            "{{\"extension_lookups\": {}, \"polls_merged\": {}, \"not_ready\": {}}}",
            r.extension_lookups, r.polls_merged, r.not_ready
        )
    };
    format!(
        "    {{\"name\": {}, \"class\": {}, \"note\": {}, \"verdict\": \"{}\", \
         \"calls_double\": {}, \"calls_real\": {}, \"compared\": {}, \"only_double\": {}, \
         \"only_real\": {}, \"code\": {}, \"observable\": {}, \"outcome\": {}, \
         \"removed_double\": {}, \"removed_real\": {}, \"outcome_double\": {}, \
         \"outcome_real\": {}, \"first_difference\": {}}}",
        json_string(&row.name),
        json_string(&row.class),
        json_string(&row.note),
        if c.kinds.is_empty() {
            "equal"
        } else {
            "different"
        },
        c.calls_double,
        c.calls_real,
        c.calls_compared,
        n[0],
        n[1],
        n[2],
        n[3],
        n[4],
        removed(&c.removed_double),
        removed(&c.removed_real),
        outcome(&c.outcome_double),
        outcome(&c.outcome_real),
        c.first
            .as_deref()
            .map_or_else(|| "null".to_owned(), json_string),
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: custack-differential RUNS [--programs FILE] [--json OUT]";
    let (mut runs, mut programs, mut json_out) = (None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--programs" => programs = it.next().map(PathBuf::from),
            "--json" => json_out = it.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!("{usage}");
                return ExitCode::SUCCESS;
            }
            _ if runs.is_none() => runs = Some(PathBuf::from(a)),
            _ => {
                eprintln!("{usage}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(runs) = runs else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    // The programs: the classification's order, else the run directory's.
    let listed = if let Some(p) = &programs {
        match std::fs::read_to_string(p) {
            Ok(t) => read_programs(&t),
            Err(e) => {
                eprintln!("custack-differential: {}: {e}", p.display());
                return ExitCode::from(2);
            }
        }
    } else {
        let mut names: Vec<String> = std::fs::read_dir(&runs)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.path().is_dir())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
            .into_iter()
            .map(|n| (n, "-".to_owned(), String::new()))
            .collect()
    };
    let rows: Vec<Row> = listed
        .into_iter()
        .map(|(name, class, note)| {
            let dir = runs.join(&name);
            let result = (class != "cannot" && dir.is_dir()).then(|| {
                let (dt, dout, drc) = (
                    read(&dir, "double.trace"),
                    read(&dir, "double.out"),
                    read(&dir, "double.rc"),
                );
                let (rt, rout, rrc) = (
                    read(&dir, "real.trace"),
                    read(&dir, "real.out"),
                    read(&dir, "real.rc"),
                );
                compare(&name, (&dt, &dout, &drc), (&rt, &rout, &rrc))
            });
            Row {
                name,
                class,
                note,
                result,
            }
        })
        .collect();
    let (text, json) = report(&rows);
    print!("{text}");
    if let Some(path) = json_out
        && let Err(e) = std::fs::write(&path, json)
    {
        eprintln!("custack-differential: {}: {e}", path.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(lines: &[(&str, &str, i32)]) -> String {
        let mut s = String::new();
        for (n, (t, name, code)) in lines.iter().enumerate() {
            let _ = writeln!(s, "{}\t{t}\t{name}\t{code}", n + 1);
        }
        s
    }

    fn calls(names: &[&str]) -> Vec<Call> {
        parse_trace(&trace(
            &names.iter().map(|n| ("0", *n, 0)).collect::<Vec<_>>(),
        ))
    }

    #[test]
    fn traces_parse_in_sequence_order_with_details() {
        let text =
            "2\t1\tcuMemAlloc_v2\t2\n1\t0\tcuGetProcAddress_v2\t500\tcuFoo@12000 1\nbad line\n";
        let c = parse_trace(text);
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].seq, c[0].name.as_str(), c[0].code),
            (1, "cuGetProcAddress_v2", 500)
        );
        assert_eq!(c[0].detail, "cuFoo@12000 1");
        assert_eq!((c[1].thread.as_str(), c[1].code), ("1", 2));
    }

    #[test]
    fn normalization_drops_extension_lookups_and_merges_polls() {
        let text = "1\t0\tcuGetProcAddress_v2\t0\tcustackCheckdriverSetStandIn@12000 0\n\
                    2\t0\tcuGetProcAddress_v2\t0\tcuFuncGetParamInfo@12040 0\n\
                    3\t0\tcuStreamQuery\t600\n\
                    4\t1\tcuMemAlloc_v2\t0\n\
                    5\t0\tcuStreamQuery\t600\n\
                    6\t0\tcuStreamQuery\t0\n\
                    7\t0\tcuEventQuery\t600\n\
                    8\t0\tcuMemFree_v2\t0\n\
                    9\t0\tcuEventQuery\t719\n";
        let (kept, removed) = normalize(parse_trace(text));
        let names: Vec<(&str, &str, i32)> = kept
            .iter()
            .map(|c| (c.thread.as_str(), c.name.as_str(), c.code))
            .collect();
        assert_eq!(
            names,
            [
                ("0", "cuGetProcAddress_v2", 0),
                // Three polls of one thread, another thread's call between: one, ready.
                ("0", "cuStreamQuery", 0),
                ("1", "cuMemAlloc_v2", 0),
                // Not ready: compared as ready.
                ("0", "cuEventQuery", 0),
                ("0", "cuMemFree_v2", 0),
                // An error is compared as it is.
                ("0", "cuEventQuery", 719),
            ]
        );
        assert_eq!(
            removed,
            Removed {
                extension_lookups: 1,
                polls_merged: 2,
                not_ready: 1
            }
        );
        // A poll that found work unfinished on one side only is no difference.
        let (d, _) = normalize(parse_trace("1\t0\tcuEventQuery\t0\n"));
        let (r, _) = normalize(parse_trace(
            "1\t0\tcuEventQuery\t600\n2\t0\tcuEventQuery\t0\n",
        ));
        assert_eq!(differences(&align(&d, &r)), 0);
    }

    #[test]
    fn equal_traces_align_without_differences() {
        let a = calls(&["cuInit", "cuCtxCreate_v2", "cuMemAlloc_v2", "cuMemFree_v2"]);
        let steps = align(&a, &a.clone());
        assert_eq!(differences(&steps), 0);
        assert_eq!(steps.len(), 4);
    }

    #[test]
    fn a_different_result_is_a_code_difference_and_the_rest_aligns() {
        let d = parse_trace(&trace(&[
            ("0", "cuInit", 0),
            ("0", "cuMemAlloc_v2", 0),
            ("0", "cuMemFree_v2", 0),
        ]));
        let r = parse_trace(&trace(&[
            ("0", "cuInit", 0),
            ("0", "cuMemAlloc_v2", 2),
            ("0", "cuMemFree_v2", 0),
        ]));
        assert_eq!(
            align(&d, &r),
            [Step::Equal(0, 0), Step::Code(1, 1), Step::Equal(2, 2)]
        );
    }

    #[test]
    fn calls_only_one_side_makes_are_found_and_the_sides_meet_again() {
        let d = calls(&[
            "cuInit",
            "cuCtxCreate_v2",
            "cuMemAlloc_v2",
            "cuMemFree_v2",
            "cuCtxDestroy_v2",
        ]);
        let r = calls(&[
            "cuInit",
            "cuCtxCreate_v2",
            "cuCtxSynchronize",
            "cuCtxSynchronize",
            "cuMemAlloc_v2",
            "cuCtxDestroy_v2",
        ]);
        let steps = align(&d, &r);
        assert_eq!(
            steps,
            [
                Step::Equal(0, 0),
                Step::Equal(1, 1),
                Step::OnlyReal(2),
                Step::OnlyReal(3),
                Step::Equal(2, 4),
                Step::OnlyDouble(3),
                Step::Equal(4, 5),
            ]
        );
    }

    #[test]
    fn a_tail_only_one_side_has_is_counted() {
        let d = calls(&["cuInit", "cuMemAlloc_v2"]);
        let r = calls(&["cuInit"]);
        assert_eq!(align(&d, &r), [Step::Equal(0, 0), Step::OnlyDouble(1)]);
        assert_eq!(align(&r, &d), [Step::Equal(0, 0), Step::OnlyReal(1)]);
    }

    #[test]
    fn lookups_differ_by_what_they_asked() {
        let d = parse_trace("1\t0\tcuGetProcAddress_v2\t0\tcuCtxCreate@12050 0\n");
        let r = parse_trace("1\t0\tcuGetProcAddress_v2\t0\tcuCtxCreate@12050 0 untraced\n");
        assert_eq!(align(&d, &r), [Step::OnlyDouble(0), Step::OnlyReal(0)]);
    }

    #[test]
    fn threads_pair_by_their_calls_not_their_numbers() {
        // The two workers started in the other order on the real driver.
        let d = parse_trace(&trace(&[
            ("0", "cuInit", 0),
            ("1", "cuMemAlloc_v2", 0),
            ("2", "cuStreamCreate", 0),
            ("2", "cuStreamDestroy_v2", 0),
        ]));
        let r = parse_trace(&trace(&[
            ("0", "cuInit", 0),
            ("1", "cuStreamCreate", 0),
            ("2", "cuMemAlloc_v2", 0),
            ("1", "cuStreamDestroy_v2", 0),
        ]));
        let pairs = pair_threads(&by_thread(&d), &by_thread(&r));
        let s = |a: &str, b: &str| (Some(a.to_owned()), Some(b.to_owned()));
        assert_eq!(pairs, [s("0", "0"), s("1", "2"), s("2", "1")]);
        let c = compare("p", (&trace(&[]), "", "0"), (&trace(&[]), "", "0"));
        assert!(c.kinds.is_empty());
    }

    #[test]
    fn a_whole_comparison_reports_each_kind() {
        let d = trace(&[
            ("0", "cuInit", 0),
            ("0", "cuMemAlloc_v2", 0),
            ("0", "cuMemFree_v2", 0),
        ]);
        let r = trace(&[("0", "cuInit", 0), ("0", "cuMemAlloc_v2", 2)]);
        let c = compare(
            "p",
            (&d, "observe sum 6\np: ok (0 drop errors)\n", "0"),
            (
                &r,
                "observe sum 7\np: error OutOfMemory: no memory (0 drop errors)\n",
                "1",
            ),
        );
        assert_eq!(
            c.kinds,
            [
                Kind::Code {
                    name: "cuMemAlloc_v2".to_owned(),
                    double: 0,
                    real: 2
                },
                Kind::OnlyDouble("cuMemFree_v2".to_owned()),
                Kind::Observable("sum".to_owned()),
                Kind::Outcome,
            ]
        );
        assert_eq!(c.calls_compared, 2);
        let first = c.first.expect("a first difference");
        assert!(
            first.contains("cuMemAlloc_v2 answered 0 by the double, 2 by the real driver"),
            "{first}"
        );
        let (text, json) = report(&[Row {
            name: "p".to_owned(),
            class: "both".to_owned(),
            note: String::new(),
            result: Some(compare("p", (&d, "", "0"), (&d, "", "0"))),
        }]);
        assert!(text.contains("1 programs: 1 equal, 0 different"), "{text}");
        assert!(json.contains("\"equal\": 1"), "{json}");
    }

    #[test]
    fn outcomes_compare_the_kind_not_the_text() {
        let a = outcome(
            "p",
            "p: error OutOfMemory: at 0x7f00 (0 drop errors)\n",
            "1\n",
        );
        let b = outcome(
            "p",
            "p: error OutOfMemory: at 0x5500 (0 drop errors)\n",
            "1",
        );
        assert_eq!(a, b);
        assert_eq!(a.verdict, "error OutOfMemory");
        assert_ne!(a, outcome("p", "p: ok (0 drop errors)\n", "0"));
    }

    #[test]
    fn the_classification_and_json_strings_read_back() {
        let p =
            read_programs("# comment\np1 both\nfork switch real cubin\n\nipc cannot one process\n");
        assert_eq!(
            p[1],
            (
                "fork".to_owned(),
                "switch".to_owned(),
                "real cubin".to_owned()
            )
        );
        assert_eq!(p.len(), 3);
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}
