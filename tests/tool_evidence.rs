//! `docs/tool-evidence.md`, the tool configuration as evidence (which tool, version or commit,
//! programs and passes, and the commit of the last recorded run back each claim of the safety
//! manual that rests on a tool), stays complete and true:
//!
//! - every row of the contract (`docs/invariants.md`) and every assumption of use of the safety
//!   manual whose evidence cites a tool (`scripts/check-driver.sh` or a checking program: the
//!   checking driver; `scripts/miri.sh`: Miri; `scripts/loom.sh` or a `loom` model test: loom;
//!   `scripts/differential.sh`: the differential run; compute-sanitizer; `scripts/mutants.sh`,
//!   `scripts/coverage.sh`, `scripts/clippy-safety.sh`), and every compile-time row (trybuild),
//!   has a row of the table naming it, for that tool;
//! - the checking driver's rows of a contract row name every checking program that row names;
//! - every program the table names is one of `scripts/check-driver.sh` (the Miri rows': also of
//!   `scripts/miri.sh`), every pass one of its passes, every test a `#[test]` of its file (a
//!   model test where the tool is loom), every row id and assumption one that exists;
//! - every tool is one of a fixed set, each of which the scripts use (checked in the scripts),
//!   and the version of a tool `Cargo.lock` pins is the locked one;
//! - every commit the page names is a commit of this repository (`git cat-file -e`; skipped,
//!   saying so, where there is no `.git`, as in a packaged crate).
//!
//! `a_removed_row_or_a_misspelled_program_is_reported` shows the check failing on a removed
//! row, a misspelled program, an unknown tool and a commit that does not exist.
//!
//! Needs no GPU and no libcuda. A test binary carried to a machine without the pages says so and
//! checks nothing.

mod doc_check;

use doc_check::{Named, Repo, code_spans, named_spans, prose_lines, read, root, table_rows};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

const PAGE: &str = "docs/tool-evidence.md";
const CONTRACT: &str = "docs/invariants.md";
const HEADER: &str = "| claim | tool | version or commit | programs and passes | ran at commit | where the figure is |";

const CHECKING_DRIVER: &str = "the checking driver";
const MIRI: &str = "Miri";
const LOOM: &str = "loom";
const DIFFERENTIAL: &str = "the differential run";
const SANITIZER: &str = "compute-sanitizer";
const TRYBUILD: &str = "trybuild";
const MUTANTS: &str = "cargo-mutants";
const LLVM_COV: &str = "llvm-cov";
const CLIPPY: &str = "Clippy";

/// Each tool the table may name, with what shows that the scripts use it: (file, text it holds).
const TOOLS: [(&str, &[(&str, &str)]); 9] = [
    (
        CHECKING_DRIVER,
        &[
            (
                "scripts/check-driver.sh",
                "--manifest-path checkdriver/Cargo.toml",
            ),
            ("scripts/test.sh", "bash scripts/check-driver.sh"),
        ],
    ),
    (
        MIRI,
        &[
            ("scripts/miri.sh", "cargo +nightly miri"),
            ("scripts/test.sh", "bash scripts/miri.sh"),
        ],
    ),
    (
        LOOM,
        &[
            ("scripts/loom.sh", "--cfg loom"),
            ("scripts/test.sh", "bash scripts/loom.sh"),
            ("Cargo.toml", "loom = "),
        ],
    ),
    (
        DIFFERENTIAL,
        &[
            ("scripts/differential.sh", "custack-differential"),
            ("scripts/check-driver.sh", "bash scripts/differential.sh"),
        ],
    ),
    (SANITIZER, &[("scripts/gpu-bundle.sh", "compute-sanitizer")]),
    (
        TRYBUILD,
        &[
            ("ui-tests/Cargo.toml", "trybuild = "),
            ("scripts/test.sh", "-p custack-ui-tests"),
        ],
    ),
    (MUTANTS, &[("scripts/mutants.sh", "cargo mutants")]),
    (LLVM_COV, &[("scripts/coverage.sh", "llvm-cov")]),
    (
        CLIPPY,
        &[
            ("scripts/test.sh", "cargo clippy --workspace"),
            ("scripts/clippy-safety.sh", "clippy"),
        ],
    ),
];

/// The scripts whose citation in a row's evidence calls for a tool's row.
const CITED: [(&str, &str); 7] = [
    ("scripts/check-driver.sh", CHECKING_DRIVER),
    ("scripts/miri.sh", MIRI),
    ("scripts/loom.sh", LOOM),
    ("scripts/differential.sh", DIFFERENTIAL),
    ("scripts/mutants.sh", MUTANTS),
    ("scripts/coverage.sh", LLVM_COV),
    ("scripts/clippy-safety.sh", CLIPPY),
];

/// The tools whose version `Cargo.lock` pins: the table's version must be the locked one.
const LOCKED: [&str; 2] = [TRYBUILD, LOOM];

/// A contract row id's normal form: `C20 (library half)` is `C20`; a sub-row is `C28.3`.
fn contract_id(cell: &str) -> Option<String> {
    let mut chars = cell.chars();
    let kind = chars.next().filter(|c| matches!(c, 'C' | 'P' | 'R'))?;
    let n: String = chars.take_while(char::is_ascii_digit).collect();
    if n.is_empty() {
        return None;
    }
    let sub: String = cell[1 + n.len()..]
        .strip_prefix('.')
        .map(|after| after.chars().take_while(char::is_ascii_digit).collect())
        .unwrap_or_default();
    Some(if sub.is_empty() {
        format!("{kind}{n}")
    } else {
        format!("{kind}{n}.{sub}")
    })
}

/// The ids a claim of `id` covers: itself, and for a sub-row (`C28.3`) its row (`C28`), whose
/// claim covers every sub-row.
fn covering(id: &str) -> impl Iterator<Item = &str> {
    core::iter::once(id).chain(id.split_once('.').map(|(row, _)| row))
}

/// The contract row ids and assumptions a claim names: `R20`, `R22–R25` (every row between),
/// `CUSTACK-AOU-9`.
fn claimed(claim: &str) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = doc_check::named_assumptions(claim).into_iter().collect();
    let words: Vec<&str> = claim
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '–' || c == '-' || c == '.'))
        .map(|w| w.trim_end_matches('.'))
        .collect();
    for word in words {
        if word.starts_with("CUSTACK") {
            continue;
        }
        if let Some(id) = contract_id(word).filter(|id| id.contains('.') && id.len() == word.len())
        {
            out.insert(id); // a sub-row, `C28.3`; no range of sub-rows
            continue;
        }
        let (from, to) = word.split_once('–').unwrap_or((word, word));
        let (Some(from), Some(to)) = (contract_id(from), contract_id(to)) else {
            continue;
        };
        let (kind, a) = from.split_at(1);
        let (kind_to, b) = to.split_at(1);
        let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) else {
            continue;
        };
        if kind == kind_to {
            out.extend((a..=b).map(|n| format!("{kind}{n}")));
        }
    }
    out
}

/// A row of the contract or of the manual's assumptions: its id, and its evidence (the last
/// cell; the whole line for what the row says of compute-sanitizer).
struct Cited {
    id: String,
    line: String,
    evidence: String,
}

fn contract_rows(contract: &str) -> Vec<Cited> {
    table_rows(contract)
        .into_iter()
        .filter_map(|(_, cells)| {
            let id = contract_id(cells.first()?)?;
            Some(Cited {
                id,
                line: cells.join(" | "),
                evidence: (*cells.last()?).to_owned(),
            })
        })
        .collect()
}

fn assumption_rows(manual: &str) -> Vec<Cited> {
    table_rows(manual)
        .into_iter()
        .filter_map(|(_, cells)| {
            let id = cells.first()?;
            let evidence = cells.last()?;
            id.starts_with("CUSTACK-AOU-").then(|| Cited {
                id: (*id).to_owned(),
                line: cells.join(" | "),
                evidence: (*evidence).to_owned(),
            })
        })
        .collect()
}

/// The tools a row's evidence calls for, and the checking programs it names.
fn tools_cited(
    row: &Cited,
    loom_tests: &BTreeMap<String, String>,
) -> (BTreeSet<&'static str>, BTreeSet<String>) {
    let mut tools = BTreeSet::new();
    let mut programs = BTreeSet::new();
    for (script, tool) in CITED {
        if row.evidence.contains(script) {
            tools.insert(tool);
        }
    }
    for (span, named) in named_spans(&row.evidence) {
        if named == Named::Program {
            tools.insert(CHECKING_DRIVER);
            programs.insert(span.text.to_owned());
        }
        let name = span.text.rsplit("::").next().unwrap_or(span.text);
        if loom_tests.contains_key(name) {
            tools.insert(LOOM);
        }
    }
    if row.line.contains(SANITIZER) {
        tools.insert(SANITIZER);
    }
    if row.id.starts_with('C') && contract_id(&row.id).is_some() {
        tools.insert(TRYBUILD);
    }
    (tools, programs)
}

/// The version `Cargo.lock` pins for `package`.
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let at = lock.find(&format!("\nname = \"{package}\"\n"))?;
    let rest = &lock[at..];
    let line = rest.lines().find(|l| l.starts_with("version = "))?;
    Some(
        line.trim_start_matches("version = ")
            .trim_matches('"')
            .to_owned(),
    )
}

/// Whether `commit` is a commit of the repository at `root`: `Some(answer)`, or `None` where
/// git cannot say (no `.git`, no git).
fn is_commit(root: &Path, commit: &str) -> Option<bool> {
    if !history_holds_page(root) {
        return None;
    }
    let status = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    Some(status.success())
}

/// Whether this checkout's git history is the page's: a `.git` here, and the page as it is
/// here committed at its `HEAD`. A tree carried to another machine beside an older `.git` (the
/// GPU machine's copy) has a history that does not hold the commits the page names, and a page
/// being edited is checked once it is committed (CI checks a clean clone).
fn history_holds_page(root: &Path) -> bool {
    root.join(".git").exists()
        && Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["diff", "--quiet", "HEAD", "--", PAGE])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        && Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["ls-files", "--error-unmatch", PAGE])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

/// What the table says: the (claimed id, tool) pairs of its rows, and the checking programs the
/// checking driver's rows name for each id.
#[derive(Default)]
struct Table {
    covered: BTreeSet<(String, &'static str)>,
    programs_of: BTreeMap<String, BTreeSet<String>>,
}

/// The rows of the contract and the assumptions a claim names, each checked to exist.
fn check_claim(
    repo: &Repo,
    contract_ids: &BTreeSet<String>,
    at: &str,
    claim: &str,
    problems: &mut Vec<String>,
) -> BTreeSet<String> {
    let ids = claimed(claim);
    if ids.is_empty() {
        problems.push(format!(
            "{at}: the claim names no row of the contract and no assumption: {claim}"
        ));
    }
    for id in &ids {
        let exists = if id.starts_with("CUSTACK-AOU-") {
            repo.assumptions.contains(id)
        } else {
            // A row split into sub-rows is claimed whole by its id (`C28`).
            contract_ids.contains(id)
                || contract_ids
                    .iter()
                    .any(|c| c.split_once('.').is_some_and(|(row, _)| row == id))
        };
        if !exists {
            problems.push(format!("{at}: the claim names {id}, which does not exist"));
        }
    }
    ids
}

/// Reads the table of `page` and checks each row on its own; returns what it says.
fn check_table(repo: &mut Repo, page: &str, problems: &mut Vec<String>) -> Table {
    let root = repo.root.clone();
    let contract_ids: BTreeSet<String> = contract_rows(&read(&root, CONTRACT))
        .into_iter()
        .map(|r| r.id)
        .collect();
    let lock = read(&root, "Cargo.lock");
    let loom_tests = doc_check::loom_model_tests(&root);
    let mut table = Table::default();
    let lines = prose_lines(page);
    let Some(start) = lines.iter().position(|(_, l)| l.trim() == HEADER) else {
        problems.push(format!("{PAGE}: no table with the header {HEADER}"));
        return table;
    };
    let rows: Vec<(usize, &str)> = lines[start + 2..]
        .iter()
        .take_while(|(_, l)| l.starts_with('|'))
        .copied()
        .collect();
    if rows.is_empty() {
        problems.push(format!("{PAGE}: the table has no rows"));
    }
    for (no, line) in rows {
        let cells = doc_check::cells(line);
        let at = format!("{PAGE}:{no}");
        let [claim, tool, version, passes, ran_at, figure] = cells.as_slice() else {
            problems.push(format!("{at}: {} cells, not 6", cells.len()));
            continue;
        };
        let Some(tool) = TOOLS.iter().map(|&(t, _)| t).find(|t| t == tool) else {
            problems.push(format!(
                "{at}: the tool \"{tool}\" is none of {:?}",
                TOOLS.map(|(t, _)| t)
            ));
            continue;
        };
        let ids = check_claim(repo, &contract_ids, &at, claim, problems);
        for id in &ids {
            table.covered.insert((id.clone(), tool));
        }
        // Programs, passes, tests, files, assumptions: in every cell.
        for cell in [claim, version, passes, ran_at, figure] {
            problems.extend(repo.check_cell_in(&at, cell, tool == LOOM).0);
        }
        let named: BTreeSet<String> = named_spans(passes)
            .into_iter()
            .filter(|(_, n)| *n == Named::Program)
            .map(|(s, _)| s.text.to_owned())
            .collect();
        match tool {
            MIRI => {
                for p in named.difference(&repo.miri_programs) {
                    problems.push(format!(
                        "{at}: program `{p}` is not a program of {}",
                        doc_check::MIRI
                    ));
                }
            }
            CHECKING_DRIVER => {
                for id in &ids {
                    let of = table.programs_of.entry(id.clone()).or_default();
                    of.extend(named.iter().cloned());
                }
            }
            LOOM => {
                for span in code_spans(passes) {
                    let Some((_, name)) = doc_check::test_reference(span.text) else {
                        continue;
                    };
                    if !loom_tests.contains_key(name) {
                        problems.push(format!("{at}: `{}` is not a loom model test", span.text));
                    }
                }
            }
            _ => {}
        }
        if LOCKED.contains(&tool) {
            let locked = locked_version(&lock, tool);
            if locked.as_deref().is_none_or(|v| !version.starts_with(v)) {
                problems.push(format!(
                    "{at}: {tool}'s version \"{version}\" does not start with the locked {locked:?}"
                ));
            }
        }
        if !figure.contains("](") && !figure.contains("no figure recorded") {
            problems.push(format!(
                "{at}: where the figure is: a link, or \"no figure recorded\""
            ));
        }
    }
    table
}

/// Every tool the table may name is one the scripts use.
fn check_tools_used(repo: &mut Repo, problems: &mut Vec<String>) {
    for (tool, markers) in TOOLS {
        for (file, marker) in markers {
            if !repo.source(file).is_some_and(|s| s.contains(marker)) {
                problems.push(format!(
                    "{tool}: {file} does not hold `{marker}`: do the scripts still use it?"
                ));
            }
        }
    }
}

/// Every row of the contract and every assumption that cites a tool has its rows, naming the
/// checking programs the row names.
fn check_complete(root: &Path, table: &Table, problems: &mut Vec<String>) {
    let contract = read(root, CONTRACT);
    let manual = read(root, doc_check::MANUAL);
    let loom_tests = doc_check::loom_model_tests(root);
    for row in contract_rows(&contract)
        .iter()
        .chain(&assumption_rows(&manual))
    {
        let (wanted, programs) = tools_cited(row, &loom_tests);
        for tool in wanted {
            if !covering(&row.id).any(|id| table.covered.contains(&(id.to_owned(), tool))) {
                problems.push(format!(
                    "{}: its evidence cites {tool}, and no row of {PAGE} claims it with that tool",
                    row.id
                ));
            }
        }
        let named: BTreeSet<String> = covering(&row.id)
            .filter_map(|id| table.programs_of.get(id))
            .flatten()
            .cloned()
            .collect();
        for p in programs.difference(&named) {
            problems.push(format!(
                "{}: {CONTRACT} names program `{p}`, which no row of {PAGE} for it with \
                 {CHECKING_DRIVER} names",
                row.id
            ));
        }
    }
}

/// Every commit the page names (a code span of 7 to 40 lower-case hex digits) is a commit of
/// this repository.
fn check_commits(root: &Path, page: &str, problems: &mut Vec<String>) {
    let lines = prose_lines(page);
    let commits: BTreeSet<&str> = lines
        .iter()
        .flat_map(|(_, l)| code_spans(l))
        .map(|s| s.text)
        .filter(|t| {
            (7..=40).contains(&t.len())
                && t.chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        })
        .collect();
    if commits.is_empty() {
        problems.push(format!("{PAGE}: no commit named"));
    }
    let mut unchecked = false;
    for commit in commits {
        match is_commit(root, commit) {
            Some(true) => {}
            Some(false) => problems.push(format!(
                "{PAGE}: `{commit}` is not a commit of this repository"
            )),
            None => unchecked = true,
        }
    }
    if unchecked {
        eprintln!(
            "tool_evidence: no git history here that holds {PAGE} as it is (no .git, no git, \
             or an older .git beside this tree): the commits were not checked"
        );
    }
}

/// Every problem of `page` (the page's text) against the repository.
fn check(repo: &mut Repo, page: &str) -> Vec<String> {
    let root = repo.root.clone();
    let mut problems = Vec::new();
    let table = check_table(repo, page, &mut problems);
    check_tools_used(repo, &mut problems);
    check_complete(&root, &table, &mut problems);
    check_commits(&root, page, &mut problems);
    problems
}

#[test]
fn every_claim_that_rests_on_a_tool_has_its_row_and_every_row_resolves() {
    let Some(root) = root("tool_evidence", PAGE) else {
        return;
    };
    let mut repo = Repo::new(&root);
    let page = read(&root, PAGE);
    let problems = check(&mut repo, &page);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The check fails when the table goes wrong: a row removed, a program misspelled, a tool the
/// scripts do not use, a commit that does not exist, a version other than the locked one.
#[test]
fn sub_row_ids_are_their_own_and_their_row_covers_them() {
    assert_eq!(contract_id("C28.3").as_deref(), Some("C28.3"));
    assert_eq!(contract_id("C20 (library half)").as_deref(), Some("C20"));
    assert_eq!(contract_id("C28.").as_deref(), Some("C28"));
    assert_eq!(contract_id("row"), None);
    assert_eq!(covering("C28.3").collect::<Vec<_>>(), ["C28.3", "C28"]);
    assert_eq!(covering("R20").collect::<Vec<_>>(), ["R20"]);
    let ids = claimed("C28.3: host nodes; C1–C3, and R20.");
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        ["C1", "C2", "C28.3", "C3", "R20"]
    );
}

#[test]
fn a_removed_row_or_a_misspelled_program_is_reported() {
    let Some(root) = root("tool_evidence", PAGE) else {
        return;
    };
    let mut repo = Repo::new(&root);
    let page = read(&root, PAGE);
    let row = |start: &str, tool: &str| {
        page.lines()
            .find(|l| l.starts_with(start) && l.contains(&format!("| {tool} |")))
            .unwrap_or_else(|| panic!("no row {start}... with {tool}"))
            .to_owned()
    };
    let removed = |line: String| page.replacen(&format!("{line}\n"), "", 1);
    let mut cases: Vec<(String, String)> = vec![
        (
            removed(row("| R25:", CHECKING_DRIVER)),
            format!("R25: its evidence cites {CHECKING_DRIVER}"),
        ),
        (
            removed(row("| R20: the same paths", MIRI)),
            format!("R20: its evidence cites {MIRI}"),
        ),
        (
            removed(row("| C1–C36", TRYBUILD)),
            format!("C1: its evidence cites {TRYBUILD}"),
        ),
        (
            // The row claims C28 whole: without it, its sub-rows' programs are claimed nowhere.
            removed(row("| C28:", CHECKING_DRIVER)),
            format!("C28.1: its evidence cites {CHECKING_DRIVER}"),
        ),
        (
            page.replacen("| C28: graphs", "| C28.99: graphs", 1),
            "the claim names C28.99, which does not exist".to_owned(),
        ),
        (
            page.replacen("| C28: graphs", "| C28.4: graphs", 1),
            format!("C28.1: its evidence cites {CHECKING_DRIVER}"),
        ),
        (
            page.replacen("program `deadlines`", "program `deadline`", 1),
            "program `deadline` is not a program of scripts/check-driver.sh".to_owned(),
        ),
        (
            page.replacen("`fork` (`forked-calls 0`", "`forks` (`forked-calls 0`", 1),
            "program `forks` is not a program".to_owned(),
        ),
        (
            page.replacen("| Miri |", "| Mirri |", 1),
            "the tool \"Mirri\" is none of".to_owned(),
        ),
        (
            page.replacen("| 1.0.119 (", "| 1.0.118 (", 1),
            "trybuild's version".to_owned(),
        ),
        (
            page.replacen(
                "`src/error/safe_state.rs::three_threads_entering_at_once_make_one_first`",
                "`src/error/safe_state.rs::the_safe_state_exits_75_with_one_line`",
                1,
            ),
            "is not a loom model test".to_owned(),
        ),
    ];
    if history_holds_page(&root) {
        cases.push((
            page.replacen("`a94c066`", "`fffffff`", 1),
            "`fffffff` is not a commit of this repository".to_owned(),
        ));
    }
    for (wrong, says) in cases {
        assert_ne!(
            wrong, page,
            "the change to report as {says:?} changed nothing"
        );
        let problems = check(&mut repo, &wrong);
        assert!(
            problems.iter().any(|p| p.contains(&says)),
            "not reported as {says:?}: {problems:#?}"
        );
    }
}
