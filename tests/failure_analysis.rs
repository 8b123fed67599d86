//! `docs/failure-analysis.md` (the failure analysis of custack's own safety mechanisms, and the
//! dependent-failure analysis of the GPU process, its supervisor and a monitor) stays true:
//!
//! - every row of its tables has an id (`LATCH-1`), unique, and an evidence cell (the last);
//! - every evidence cell names evidence that resolves, says "outside custack" with an
//!   assumption of use, or says "no test";
//! - every test it names (`file::function`) is the one `#[test]` of that name in that file,
//!   ignored only for want of a GPU; a `loom` model test is written `loom file::function`, and
//!   only a model test is; a GPU test is marked " (GPU)" after it, and only a GPU test is;
//! - every checking program it names (`program `x``, `programs `x` and `y``) is one of
//!   `scripts/check-driver.sh`, every file it names exists, every `CUSTACK-AOU-N` is a row of
//!   the safety manual;
//! - every mechanism's source file is named on the page;
//! - the list of gaps names exactly the rows whose evidence says "no test".
//!
//! Needs no GPU and no libcuda. A test binary carried to a machine without the pages says so and
//! checks nothing.

mod doc_check;

use doc_check::{Repo, read, root, table_rows};
use std::collections::BTreeSet;

const PAGE: &str = "docs/failure-analysis.md";
const GAPS: &str = "## Failure modes without a test";

/// The files of the mechanisms the page analyses: each must exist and be named on the page.
const MECHANISMS: [&str; 17] = [
    "src/error/confinement.rs",
    "src/safety/profile.rs",
    "src/safety/image.rs",
    "src/kernel/image.rs",
    "src/deadline/mod.rs",
    "src/asynchronous/mod.rs",
    "src/safety/bound.rs",
    "src/error/safe_state.rs",
    "src/error/poison.rs",
    "src/error/left_behind.rs",
    "src/error/fork.rs",
    "src/health/",
    "src/safety/redundant.rs",
    "src/safety/partitioned.rs",
    "src/safety/replicas_compare.cu",
    "src/context/stack.rs",
    "src/context/raw.rs",
];

/// A row id: upper-case letters, a `-`, digits.
fn row_id(cell: &str) -> Option<&str> {
    let (word, n) = cell.split_once('-')?;
    (!word.is_empty()
        && word.chars().all(|c| c.is_ascii_uppercase())
        && !n.is_empty()
        && n.chars().all(|c| c.is_ascii_digit()))
    .then_some(cell)
}

/// The ids the gaps section lists (`` - `ID`: ... ``).
fn gap_ids(page: &str) -> BTreeSet<String> {
    let Some(at) = page.find(GAPS) else {
        return BTreeSet::new();
    };
    let section = &page[at + GAPS.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once('`'))
        .filter_map(|(id, _)| row_id(id).map(str::to_owned))
        .collect()
}

/// Every problem of `page` (the page's text) against the repository.
fn check(repo: &mut Repo, page: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut ids = BTreeSet::new();
    let mut without_test = BTreeSet::new();
    let mut rows = 0;
    for (no, cells) in table_rows(page) {
        let Some(id) = cells.first().and_then(|c| row_id(c)) else {
            continue;
        };
        rows += 1;
        let at = format!("{PAGE}:{no} ({id})");
        if !ids.insert(id.to_owned()) {
            problems.push(format!("{at}: the id {id} is used twice"));
        }
        let evidence = cells.last().copied().unwrap_or_default();
        let (found, resolved) = repo.check_cell(&at, evidence);
        problems.extend(found);
        for cell in &cells[1..cells.len().saturating_sub(1)] {
            problems.extend(repo.check_cell(&at, cell).0);
        }
        let no_test = evidence.contains("no test");
        let outside = evidence.contains("outside custack: CUSTACK-AOU-");
        if no_test {
            without_test.insert(id.to_owned());
        }
        if resolved == 0 && !no_test && !outside {
            problems.push(format!(
                "{at}: the evidence names nothing that resolves, and says neither \"no test\" nor \
                 \"outside custack: CUSTACK-AOU-N\": {evidence}"
            ));
        }
    }
    if rows == 0 {
        problems.push(format!("{PAGE}: no table row with an id"));
    }
    let listed = gap_ids(page);
    for id in without_test.difference(&listed) {
        problems.push(format!(
            "{PAGE}: {id} says \"no test\" and is not listed under \"{GAPS}\""
        ));
    }
    for id in listed.difference(&without_test) {
        problems.push(format!(
            "{PAGE}: \"{GAPS}\" lists {id}, which is no row, or a row with a test"
        ));
    }
    for file in MECHANISMS {
        if !repo.root.join(file).exists() {
            problems.push(format!(
                "{PAGE}: the mechanism's file {file} does not exist"
            ));
        }
        if !page.contains(&format!("`{file}")) {
            problems.push(format!("{PAGE}: the mechanism's file {file} is not named"));
        }
    }
    problems
}

#[test]
fn every_row_names_evidence_that_exists_and_every_gap_is_listed() {
    let Some(root) = root("failure_analysis", PAGE) else {
        return;
    };
    let mut repo = Repo::new(&root);
    let page = read(&root, PAGE);
    let problems = check(&mut repo, &page);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The check fails when the page goes wrong: a gap no longer listed, a misspelled test, a GPU
/// test unmarked, a model test not said to be one, a program that does not exist, an assumption
/// that does not exist.
#[test]
fn a_wrong_page_is_reported() {
    let Some(root) = root("failure_analysis", PAGE) else {
        return;
    };
    let mut repo = Repo::new(&root);
    let page = read(&root, PAGE);
    let cases: [(&str, &str, &str); 7] = [
        (
            "- `REDUNDANT-17`:",
            "- REDUNDANT-17:",
            "REDUNDANT-17 says \"no test\" and is not listed",
        ),
        (
            "`src/error/safe_state.rs::the_safe_state_exits_while_another_thread_holds_stdout`",
            "`src/error/safe_state.rs::the_safe_state_exits_while_another_thread_holds_stdou`",
            "defines `fn the_safe_state_exits_while_another_thread_holds_stdou` 0 times",
        ),
        (
            "`tests/confinement.rs::a_full_guard_pushed_before_refuses_profile_init` (GPU)",
            "`tests/confinement.rs::a_full_guard_pushed_before_refuses_profile_init`",
            "needs a GPU: mark it",
        ),
        (
            "loom `src/error/safe_state.rs::three_threads_entering_at_once_make_one_first`",
            "`src/error/safe_state.rs::three_threads_entering_at_once_make_one_first`",
            "is a loom model test: write `loom` before it",
        ),
        (
            "program `profile_first`",
            "program `profile_firts`",
            "program `profile_firts` is not a program of scripts/check-driver.sh",
        ),
        (
            "outside custack: CUSTACK-AOU-9 (",
            "outside custack: CUSTACK-AOU-99 (",
            "CUSTACK-AOU-99 is not an assumption",
        ),
        ("| COUNT-6 |", "| COUNT-5 |", "the id COUNT-5 is used twice"),
    ];
    for (from, to, says) in cases {
        assert!(page.contains(from), "the page no longer holds {from:?}");
        let wrong = page.replacen(from, to, 1);
        let problems = check(&mut repo, &wrong);
        assert!(
            problems.iter().any(|p| p.contains(says)),
            "{from:?} -> {to:?} was not reported as {says:?}: {problems:#?}"
        );
    }
}
