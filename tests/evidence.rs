//! `docs/safety.md` is the evidence a safety reviewer follows (ISO 26262, DO-178C): NVIDIA's
//! safety rules answered one by one, and every row of the contract traced to its tests. This
//! checks that it stays true, so that a row cannot lose its evidence without a failure here:
//!
//! - every row id of `docs/invariants.md` (C*, P*, R*) has exactly one line in the page's
//!   traceability table, and no line names a row the contract does not have;
//! - every compile-time row (C*) names its own ui-test prefix (`c10_*`), which matches at least
//!   one `ui-tests/` file, and the count beside it, where there is one, is the number of files
//!   with that prefix; a sub-row (`C28.3`, a row split into one rule each) names its own files
//!   instead (`ui-tests/c28_….rs`, of its row's prefix), each file named by exactly one sub-row;
//!   every `ui-tests/cN_*.rs` belongs to a row with a line;
//! - every P row names at least one twin or test, every R row at least one test or program;
//! - every reference resolves: each file or folder named exists, each test function named
//!   (`tests/x.rs::name`, `::{a, b}`, `::prefix_*`) is a `fn` of that file, each twin a `fn` of
//!   `tests/patterns.rs`, each checking program a `"name" =>` arm of `run` in
//!   `benches/checking/src/main.rs`, each `page.md#anchor` a heading of that page;
//! - the guideline table answers each of NVIDIA's 41 rule ids exactly once, with one of the
//!   five answers, and names evidence of that answer's kind, which resolves the same way;
//! - `docs/invariants.md`'s own evidence column: every file it names exists, every function it
//!   names (`name`, `prefix_…`) is a `fn` of the file named before it, and every test among them
//!   runs: not `#[ignore]`d, except for want of a GPU (`#[ignore = "needs a CUDA device"]`).
//!
//! Needs no GPU and no libcuda, only `std`. It reads the files next to `Cargo.toml`; a test binary
//! carried to a machine without them (the GPU bundle) says so and checks nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const PAGE: &str = "docs/safety.md";
const CONTRACT: &str = "docs/invariants.md";
const TWINS: &str = "tests/patterns.rs";
const PROGRAMS: &str = "benches/checking/src/main.rs";
const TRACEABILITY: &str = "## Traceability";
const GUIDELINES: &str = "## NVIDIA's guidelines";

/// The rule and directive ids of NVIDIA's *CUDA C++ Guidelines for Robust and Safety Critical
/// Programming* v3.0.1, as `docs/safety.md` lists them (its sources are named there).
const GUIDELINE_IDS: [&str; 41] = [
    "CUDA SAFETY 1.1",
    "CUDA SAFETY 1.2",
    "CUDA SAFETY 1.3",
    "CUDA SAFETY 1.4",
    "CUDA SAFETY 1.5",
    "CUDA SAFETY 1.6",
    "CUDA SAFETY 2.1",
    "CUDA SAFETY 3.1",
    "CUDA SAFETY 3.2",
    "CUDA-1.1",
    "CUDA-1.2",
    "CUDA-1.3",
    "CUDA-1.4",
    "CUDA-1.5",
    "CUDA-1.6",
    "CUDA-1.7",
    "CUDA-1.8",
    "CUDA-1.9",
    "CUDA-1.10",
    "CUDA-1.11",
    "CUDA-1.12",
    "CUDA-1.13",
    "CUDA-1.14",
    "CUDA-2.1",
    "CUDA-2.2",
    "CUDA-2.3",
    "CUDA-2.4",
    "CUDA-3.1",
    "CUDA-3.2",
    "CUDA-3.3",
    "CUDA-3.4",
    "CUDA-3.5",
    "CUDA-4.1",
    "CUDA-4.2",
    "CUDA-4.3",
    "CUDA-4.4",
    "CUDA DIRECTIVE 1.1",
    "CUDA DIRECTIVE 1.2",
    "CUDA DIRECTIVE 1.3",
    "CUDA DIRECTIVE 1.4",
    "CUDA DIRECTIVE 1.5",
];

/// The five answers a rule may get.
const ENFORCED_BY_A_TYPE: &str = "enforced by a type";
const REFUSED_AT_COMPILE_TIME: &str = "refused at compile time";
const CHECKED_AT_RUN_TIME: &str = "checked at run time";
const DOCUMENTED_OBLIGATION: &str = "the user's documented obligation";
const NOT_APPLICABLE: &str = "not applicable";
const ANSWERS: [&str; 5] = [
    ENFORCED_BY_A_TYPE,
    REFUSED_AT_COMPILE_TIME,
    CHECKED_AT_RUN_TIME,
    DOCUMENTED_OBLIGATION,
    NOT_APPLICABLE,
];

fn root() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if root.join("README.md").is_file() {
        Some(root)
    } else {
        eprintln!(
            "evidence: no README.md under {} (a carried test binary): nothing checked",
            root.display()
        );
        None
    }
}

fn read(root: &Path, file: &str) -> String {
    fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file} is unreadable: {e}"))
}

/// The page's lines outside fenced code blocks, with their 1-based numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut in_fence = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            out.push((i + 1, line));
        }
    }
    out
}

/// The prose lines of the `## ` section whose heading starts with `heading`, up to the next one.
fn section<'t>(text: &'t str, heading: &str) -> Vec<(usize, &'t str)> {
    let mut inside = false;
    let mut out = Vec::new();
    for (no, line) in prose_lines(text) {
        if line.starts_with("## ") {
            inside = line.starts_with(heading);
            continue;
        }
        if inside {
            out.push((no, line));
        }
    }
    out
}

/// The cells of a table line, trimmed (no cell holds a `|`).
fn cells(line: &str) -> Vec<&str> {
    line.trim()
        .trim_start_matches('|')
        .trim_end_matches('|')
        .split('|')
        .map(str::trim)
        .collect()
}

/// An inline code span: its text, and the text of its cell before and after it.
struct Span<'a> {
    text: &'a str,
    before: &'a str,
    after: &'a str,
}

fn code_spans(cell: &str) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = cell[from..].find('`').map(|i| from + i) {
        let Some(close) = cell[open + 1..].find('`').map(|i| open + 1 + i) else {
            break;
        };
        out.push(Span {
            text: &cell[open + 1..close],
            before: &cell[..open],
            after: &cell[close + 1..],
        });
        from = close + 1;
    }
    out
}

/// GitHub's anchor for a heading (as `tests/doc_pages.rs` computes it).
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn has_anchor(text: &str, anchor: &str) -> bool {
    prose_lines(text).into_iter().any(|(_, line)| {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        (1..=6).contains(&hashes)
            && line[hashes..].starts_with(' ')
            && slug(&line[hashes..]) == anchor
    })
}

/// Whether `source` defines `fn name` (`name*`: a function whose name starts with `name`).
fn defines_fn(source: &str, name: &str) -> bool {
    let (name, prefix) = match name.strip_suffix('*') {
        Some(p) => (p, true),
        None => (name, false),
    };
    let needle = format!("fn {name}");
    source.match_indices(&needle).any(|(at, _)| {
        let next = source[at + needle.len()..].chars().next();
        let starts_word =
            at == 0 || !source[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        starts_word
            && if prefix {
                next.is_some()
            } else {
                matches!(next, Some('(' | '<'))
            }
    })
}

/// The programs of `benches/checking`: the `"name" =>` arms of its `fn run`.
fn programs(root: &Path) -> BTreeSet<String> {
    let source = read(root, PROGRAMS);
    let Some(at) = source.find("fn run(") else {
        return BTreeSet::new();
    };
    source[at..]
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix('"')?;
            let (name, tail) = rest.split_once('"')?;
            tail.trim_start().starts_with("=>").then(|| name.to_owned())
        })
        .collect()
}

/// Every `ui-tests/*.rs` and `ui-tests/<feature>/*.rs`, as its file stem, with the folder for
/// the second kind (`cublas/c25_blas_not_send`). Not `ui-tests/src/` and `ui-tests/tests/`: they
/// are the crate custack-ui-tests (`ui-tests/Cargo.toml`), whose test runs the programs.
fn ui_tests(root: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let Ok(entries) = fs::read_dir(root.join("ui-tests")) else {
        return names;
    };
    for entry in entries.filter_map(Result::ok) {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if entry.path().is_dir() {
            if name == "src" || name == "tests" {
                continue;
            }
            for inner in fs::read_dir(entry.path())
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
            {
                if let Some(stem) = inner
                    .file_name()
                    .to_str()
                    .and_then(|f| f.strip_suffix(".rs"))
                {
                    names.insert(format!("{name}/{stem}"));
                }
            }
        } else if let Some(stem) = name.strip_suffix(".rs") {
            names.insert(stem.to_owned());
        }
    }
    names
}

/// The ui-tests whose file name (without its feature folder) starts with `prefix`.
fn ui_tests_with_prefix<'n>(names: &'n BTreeSet<String>, prefix: &str) -> Vec<&'n String> {
    names
        .iter()
        .filter(|n| n.rsplit('/').next().is_some_and(|f| f.starts_with(prefix)))
        .collect()
}

/// Whether a code span names a path: it holds a `/`, or names a `.rs`, `.sh`, `.md` file.
fn is_path(span: &str) -> bool {
    let path = span.split("::").next().unwrap_or(span);
    let path = path.split('#').next().unwrap_or(path);
    path.contains('/')
        || [".rs", ".sh", ".md", ".toml"]
            .iter()
            .any(|ext| path.ends_with(ext))
}

fn is_identifier(span: &str) -> bool {
    !span.is_empty()
        && span
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// What a resolved reference is, for the checks that need a reference of some kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    UiTest,
    TestFn,
    File,
    Doc,
    Program,
}

/// Everything the references are resolved against, read once.
struct Repo {
    root: PathBuf,
    ui_tests: BTreeSet<String>,
    programs: BTreeSet<String>,
    sources: BTreeMap<String, Option<String>>,
}

impl Repo {
    fn new(root: &Path) -> Self {
        Repo {
            root: root.to_path_buf(),
            ui_tests: ui_tests(root),
            programs: programs(root),
            sources: BTreeMap::new(),
        }
    }

    fn source(&mut self, file: &str) -> Option<&str> {
        let root = &self.root;
        self.sources
            .entry(file.to_owned())
            .or_insert_with(|| fs::read_to_string(root.join(file)).ok())
            .as_deref()
    }

    /// Resolves a path reference: `dir/`, `file`, `file#anchor`, `file::fn`, `file::{a, b}`,
    /// `file::prefix_*`, `dir/prefix_*` (files of `dir` whose name starts with the prefix; for
    /// `ui-tests/`, its feature folders too).
    fn path(&mut self, spec: &str) -> Result<Kind, String> {
        if let Some((file, functions)) = spec.split_once("::") {
            let names: Vec<&str> = functions
                .trim_start_matches('{')
                .trim_end_matches('}')
                .split(',')
                .map(str::trim)
                .collect();
            let Some(source) = self.source(file) else {
                return Err(format!("`{spec}`: no file {file}"));
            };
            let missing: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| n.is_empty() || !defines_fn(source, n))
                .collect();
            return if missing.is_empty() {
                Ok(Kind::TestFn)
            } else {
                // `file::{a, b, ..}` can be long: name the file and what is missing.
                let shown = if names.len() > 1 { "{..}" } else { functions };
                Err(format!(
                    "`{file}::{shown}`: {file} has no `fn {}`",
                    missing.join("`, no `fn ")
                ))
            };
        }
        if let Some((file, anchor)) = spec.split_once('#') {
            let Some(text) = self.source(file) else {
                return Err(format!("`{spec}`: no file {file}"));
            };
            return if has_anchor(text, anchor) {
                Ok(Kind::Doc)
            } else {
                Err(format!(
                    "`{spec}`: {file} has no heading with anchor #{anchor}"
                ))
            };
        }
        if let Some(glob) = spec.strip_suffix('*') {
            let (dir, prefix) = glob.rsplit_once('/').unwrap_or(("", glob));
            if dir == "ui-tests" {
                return if ui_tests_with_prefix(&self.ui_tests, prefix).is_empty() {
                    Err(format!("`{spec}`: no ui-test named {prefix}*"))
                } else {
                    Ok(Kind::UiTest)
                };
            }
            let found = fs::read_dir(self.root.join(dir))
                .into_iter()
                .flatten()
                .any(|e| {
                    e.ok()
                        .is_some_and(|e| e.file_name().to_string_lossy().starts_with(prefix))
                });
            return if found {
                Ok(Kind::File)
            } else {
                Err(format!("`{spec}`: no file in {dir}/ named {prefix}*"))
            };
        }
        if !self.root.join(spec).exists() {
            return Err(format!("`{spec}`: no such file or folder"));
        }
        let extension = Path::new(spec).extension();
        Ok(
            // A program of `ui-tests/`, not the crate custack-ui-tests's own `src/` or `tests/`.
            if spec.starts_with("ui-tests/")
                && !spec.starts_with("ui-tests/src/")
                && !spec.starts_with("ui-tests/tests/")
                && extension.is_some_and(|e| e == "rs")
            {
                Kind::UiTest
            } else if extension.is_some_and(|e| e == "md") {
                Kind::Doc
            } else {
                Kind::File
            },
        )
    }

    fn program(&self, name: &str) -> Result<Kind, String> {
        if self.programs.contains(name) {
            Ok(Kind::Program)
        } else {
            Err(format!(
                "checking program `{name}`: no `\"{name}\" =>` arm in `run` of {PROGRAMS}"
            ))
        }
    }

    fn twin(&mut self, name: &str) -> Result<Kind, String> {
        self.path(&format!("{TWINS}::{name}"))
            .map_err(|_| format!("twin `{name}`: {TWINS} has no `fn {name}`"))
    }
}

/// The row ids of the contract's tables: `C20 (library half)` and `C20 (green half)` are C20;
/// `C28.3` is a sub-row of C28, an id of its own.
fn contract_rows(text: &str) -> BTreeSet<String> {
    prose_lines(text)
        .into_iter()
        .filter_map(|(_, line)| row_id(cells(line).first()?))
        .collect()
}

/// `C10`, `P3`, `R21`, or a sub-row `C28.3` (from the first cell of a table line), or nothing.
fn row_id(cell: &str) -> Option<String> {
    let mut chars = cell.chars();
    let kind = chars.next().filter(|c| matches!(c, 'C' | 'P' | 'R'))?;
    let digits: String = chars.take_while(char::is_ascii_digit).collect();
    let mut rest = &cell[1 + digits.len()..];
    let mut id = format!("{kind}{digits}");
    if let Some(after) = rest.strip_prefix('.') {
        let sub: String = after.chars().take_while(char::is_ascii_digit).collect();
        if sub.is_empty() {
            return None;
        }
        id = format!("{id}.{sub}");
        rest = &after[sub.len()..];
    }
    (!digits.is_empty() && (rest.is_empty() || rest.starts_with(' '))).then_some(id)
}

/// The row a sub-row belongs to (`C28` for `C28.3`), or `None` for a row.
fn parent_row(id: &str) -> Option<&str> {
    id.split_once('.').map(|(row, _)| row)
}

/// The ui-test files a sub-row's compile-fail cell names (`ui-tests/c28_x.rs` is `c28_x`).
fn named_ui_tests(cell: &str) -> Vec<String> {
    code_spans(cell)
        .into_iter()
        .filter_map(|span| {
            let file = span.text.strip_prefix("ui-tests/")?.strip_suffix(".rs")?;
            Some(file.to_owned())
        })
        .collect()
}

/// The traceability table's lines: (line number, row id, cells).
fn traceability(page: &str) -> Vec<(usize, String, Vec<&str>)> {
    section(page, TRACEABILITY)
        .into_iter()
        .filter(|(_, line)| line.starts_with('|'))
        .filter_map(|(no, line)| {
            let cells = cells(line);
            let id = row_id(cells.first()?)?;
            Some((no, id, cells))
        })
        .collect()
}

/// The count written after a ui-test prefix: "`c10_*` (13)" or "`c25_*` (12, in ...)".
fn claimed_count(after: &str) -> Option<usize> {
    let digits: String = after
        .strip_prefix(" (")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Checks one traceability line; returns its problems.
fn check_row(repo: &mut Repo, no: usize, id: &str, cells: &[&str]) -> Vec<String> {
    let at = format!("{PAGE}:{no}: row {id}");
    let mut problems = Vec::new();
    if cells.len() != 5 {
        return vec![format!(
            "{at}: {} cells; a line has 5 (row, compile-fail, twin, tests, programs)",
            cells.len()
        )];
    }
    // A sub-row's ui-tests carry its row's prefix (`c28_` for C28.3), named file by file.
    let sub_row = parent_row(id).is_some();
    let own_prefix = format!("{}_", parent_row(id).unwrap_or(id).to_lowercase());
    let mut own_prefix_found = false;
    let mut twins_and_tests = 0;
    let mut tests_and_programs = 0;
    for (column, cell) in cells.iter().enumerate().skip(1) {
        for span in code_spans(cell) {
            let text = span.text;
            let resolved = if column == 1 && !is_path(text) && text.ends_with("_*") {
                let prefix = text.trim_end_matches('*');
                let files = ui_tests_with_prefix(&repo.ui_tests, prefix);
                if sub_row {
                    problems.push(format!(
                        "{at}: a sub-row names its ui-tests file by file, not the prefix `{text}` \
                         its row's other sub-rows share"
                    ));
                } else if prefix == own_prefix {
                    own_prefix_found = true;
                } else {
                    problems.push(format!(
                        "{at}: ui-test prefix `{text}` is not this row's (`{own_prefix}*`)"
                    ));
                }
                if files.is_empty() {
                    Err(format!(
                        "ui-test prefix `{text}` matches no file in ui-tests/"
                    ))
                } else {
                    match claimed_count(span.after) {
                        Some(n) if n != files.len() => Err(format!(
                            "`{text}` ({n}): ui-tests/ has {} files with that prefix",
                            files.len()
                        )),
                        _ => Ok(Kind::UiTest),
                    }
                }
            } else if is_path(text) {
                if column == 1 && sub_row {
                    let file = text.rsplit('/').next().unwrap_or(text);
                    if text.starts_with("ui-tests/") && file.starts_with(&own_prefix) {
                        own_prefix_found = true;
                    } else {
                        problems.push(format!(
                            "{at}: `{text}` is no ui-test of this row (`ui-tests/{own_prefix}*.rs`)"
                        ));
                    }
                }
                repo.path(text)
            } else if column == 2 && is_identifier(text) {
                repo.twin(text)
            } else if column == 4 && is_identifier(text) {
                repo.program(text)
            } else {
                Err(format!(
                    "`{text}` is neither a file, a test function, a ui-test prefix, a twin nor a program"
                ))
            };
            match resolved {
                Ok(kind) => {
                    if column == 2 || (column == 3 && kind != Kind::UiTest) {
                        twins_and_tests += 1;
                    }
                    if (column == 3 && kind != Kind::UiTest) || column == 4 {
                        tests_and_programs += 1;
                    }
                }
                Err(e) => problems.push(format!("{at}: {e}")),
            }
        }
    }
    match id.chars().next() {
        Some('C') if !own_prefix_found && sub_row => problems.push(format!(
            "{at}: a compile-time sub-row without its ui-tests: name its `ui-tests/{own_prefix}….rs` files in the compile-fail column"
        )),
        Some('C') if !own_prefix_found => problems.push(format!(
            "{at}: a compile-time row without its ui-tests: name `{own_prefix}*` in the compile-fail column"
        )),
        Some('P') if twins_and_tests == 0 => problems.push(format!(
            "{at}: a must-compile row with no twin in {TWINS} and no test"
        )),
        Some('R') if tests_and_programs == 0 => problems.push(format!(
            "{at}: a run-time row with no test and no checking program"
        )),
        _ => {}
    }
    problems
}

#[test]
fn every_row_of_the_contract_has_exactly_one_line() {
    let Some(root) = root() else { return };
    let contract = contract_rows(&read(&root, CONTRACT));
    let page = read(&root, PAGE);
    let lines = traceability(&page);
    assert!(
        contract.len() > 50 && lines.len() > 50,
        "the parsers found {} rows in {CONTRACT} and {} lines in {PAGE}'s traceability table: \
         one of them is broken",
        contract.len(),
        lines.len()
    );
    let mut seen: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (no, id, _) in &lines {
        seen.entry(id).or_default().push(*no);
    }
    let mut problems = Vec::new();
    for row in &contract {
        match seen.get(row.as_str()) {
            None => problems.push(format!(
                "row {row} of {CONTRACT} has no line in {PAGE}'s traceability table: add one with its evidence"
            )),
            Some(nos) if nos.len() > 1 => problems.push(format!(
                "row {row} has {} lines in {PAGE} (lines {nos:?}): keep one",
                nos.len()
            )),
            Some(_) => {}
        }
    }
    for (id, nos) in &seen {
        if !contract.contains(*id) {
            problems.push(format!(
                "{PAGE}:{}: row {id} is not a row of {CONTRACT}",
                nos[0]
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_row_has_evidence_of_its_kind_and_every_reference_resolves() {
    let Some(root) = root() else { return };
    let page = read(&root, PAGE);
    let mut repo = Repo::new(&root);
    assert!(
        repo.programs.len() > 10,
        "found {} programs in {PROGRAMS}'s `run`: the parser is broken",
        repo.programs.len()
    );
    let mut problems = Vec::new();
    for (no, id, cells) in traceability(&page) {
        problems.extend(check_row(&mut repo, no, &id, &cells));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_compile_fail_test_belongs_to_a_row_with_a_line() {
    let Some(root) = root() else { return };
    let page = read(&root, PAGE);
    let lines = traceability(&page);
    let rows: BTreeSet<String> = lines.iter().map(|(_, id, _)| id.clone()).collect();
    // The rows split into sub-rows, and the sub-rows that name each ui-test of theirs.
    let mut split: BTreeSet<&str> = BTreeSet::new();
    let mut named_by: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (_, id, cells) in &lines {
        let Some(row) = parent_row(id) else { continue };
        split.insert(row);
        for file in named_ui_tests(cells.get(1).copied().unwrap_or_default()) {
            named_by.entry(file).or_default().push(id);
        }
    }
    let mut problems = Vec::new();
    for name in ui_tests(&root) {
        let file = name.rsplit('/').next().unwrap_or(&name);
        let Some(row) = file.strip_prefix('c') else {
            continue; // `hint_*`: hints, not rows
        };
        let digits: String = row.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || !row[digits.len()..].starts_with('_') {
            continue;
        }
        let row = format!("C{digits}");
        if split.contains(row.as_str()) {
            match named_by.get(name.as_str()).map(Vec::as_slice) {
                Some([_]) => {}
                Some(several) => problems.push(format!(
                    "ui-tests/{name}.rs is named by {} sub-rows of {row} in {PAGE} ({several:?}): keep one",
                    several.len()
                )),
                None => problems.push(format!(
                    "ui-tests/{name}.rs belongs to row {row}, split into sub-rows, none of which names it in {PAGE}'s traceability table"
                )),
            }
        } else if !rows.contains(&row) {
            problems.push(format!(
                "ui-tests/{name}.rs belongs to row {row}, which has no line in {PAGE}'s traceability table"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_guideline_rule_has_one_answer_and_its_evidence_exists() {
    let Some(root) = root() else { return };
    let page = read(&root, PAGE);
    let mut repo = Repo::new(&root);
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (no, line) in section(&page, GUIDELINES) {
        if !line.starts_with("| CUDA") {
            continue;
        }
        let cells = cells(line);
        let at = format!("{PAGE}:{no}");
        let [rule, _asks, answer, evidence] = cells[..] else {
            problems.push(format!(
                "{at}: {} cells; a rule's line has 4 (rule, what it asks, answer, evidence)",
                cells.len()
            ));
            continue;
        };
        *seen.entry(rule.to_owned()).or_insert(0) += 1;
        let answer = answer.trim_matches('*').trim();
        if !ANSWERS.contains(&answer) {
            problems.push(format!(
                "{at}: {rule}: answer \"{answer}\" is not one of {ANSWERS:?}"
            ));
            continue;
        }
        let mut kinds = Vec::new();
        for span in code_spans(evidence) {
            let resolved = if span.before.ends_with("program ") {
                repo.program(span.text)
            } else if is_path(span.text) {
                repo.path(span.text)
            } else {
                continue; // prose: a type, a call, an error kind
            };
            match resolved {
                Ok(kind) => kinds.push((span.text, kind)),
                Err(e) => problems.push(format!("{at}: {rule}: {e}")),
            }
        }
        let has = |want: &dyn Fn(&str, Kind) -> bool| kinds.iter().any(|&(t, k)| want(t, k));
        let missing = match answer {
            REFUSED_AT_COMPILE_TIME if !has(&|_, k| k == Kind::UiTest) => {
                Some("names no ui-test (`ui-tests/…`) that shows the refusal")
            }
            CHECKED_AT_RUN_TIME
                if !has(&|t, k| {
                    k == Kind::TestFn
                        || k == Kind::Program
                        || t.starts_with("tests/")
                        || t.starts_with("scripts/check-driver")
                }) =>
            {
                Some("names no test or checking program that shows the check")
            }
            ENFORCED_BY_A_TYPE if kinds.is_empty() => {
                Some("names neither the file that holds the type nor a test")
            }
            DOCUMENTED_OBLIGATION if !has(&|t, k| k == Kind::Doc || t.starts_with("src/")) => {
                Some("does not say where it is documented (`docs/….md#anchor` or `src/…`)")
            }
            NOT_APPLICABLE if !(evidence.contains("device code") || evidence.contains("C++")) => {
                Some("does not say why (\"device code\" or \"C++\")")
            }
            _ => None,
        };
        if let Some(missing) = missing {
            problems.push(format!(
                "{at}: {rule} is \"{answer}\" but the line {missing}"
            ));
        }
    }
    for id in GUIDELINE_IDS {
        match seen.get(id) {
            None => problems.push(format!(
                "{PAGE}: rule {id} has no line in the guideline table"
            )),
            Some(1) => {}
            Some(n) => problems.push(format!("{PAGE}: rule {id} has {n} lines")),
        }
    }
    for rule in seen.keys() {
        if !GUIDELINE_IDS.contains(&rule.as_str()) {
            problems.push(format!(
                "{PAGE}: rule \"{rule}\" is not one of NVIDIA's ids this test knows (GUIDELINE_IDS)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checks above can fail: a broken reference of each kind is reported, a sound one is not.
#[test]
fn broken_references_are_reported() {
    let Some(root) = root() else { return };
    let mut repo = Repo::new(&root);
    assert_eq!(
        repo.path("tests/patterns.rs::p1_one_guard_many_handles"),
        Ok(Kind::TestFn)
    );
    assert_eq!(
        repo.path("tests/patterns.rs::{p2_push_pop_push, p3_nested_push}"),
        Ok(Kind::TestFn)
    );
    assert_eq!(repo.path("tests/gpu_faults.rs::r6_*"), Ok(Kind::TestFn));
    assert_eq!(repo.path("ui-tests/c1_*"), Ok(Kind::UiTest));
    // The crate that runs the programs is no program: its test shows no refusal.
    assert_eq!(repo.path("ui-tests/tests/ui.rs"), Ok(Kind::File));
    assert!(
        !repo
            .ui_tests
            .iter()
            .any(|n| n.starts_with("tests/") || n.starts_with("src/")),
        "the crate custack-ui-tests's own files are counted as ui-tests"
    );
    assert_eq!(
        repo.path("docs/invariants.md#checked-at-run-time"),
        Ok(Kind::Doc)
    );
    assert_eq!(repo.program("contracts"), Ok(Kind::Program));
    for broken in [
        "tests/patterns.rs::p1_one_guard",
        "tests/patterns.rs::{p2_push_pop_push, no_such_twin}",
        "tests/no_such_file.rs::f",
        "tests/gpu_faults.rs::zz_*",
        "ui-tests/c99_*",
        "ui-tests/c1_no_such_test.rs",
        "docs/invariants.md#no-such-heading",
    ] {
        assert!(repo.path(broken).is_err(), "`{broken}` resolved");
    }
    assert!(repo.program("no_such_program").is_err());
    assert!(repo.twin("no_such_twin").is_err());
    let mut counted = Repo::new(&root);
    let problems = check_row(
        &mut counted,
        1,
        "C1",
        &["C1", "`c1_*` (999)", "—", "—", "—"],
    );
    assert!(
        problems.iter().any(|p| p.contains("(999)")),
        "a wrong count was not reported: {problems:?}"
    );
    let problems = check_row(&mut counted, 1, "C1", &["C1", "`c2_*`", "—", "—", "—"]);
    assert!(
        problems.iter().any(|p| p.contains("without its ui-tests")),
        "a C row without its own prefix was not reported: {problems:?}"
    );
    let problems = check_row(&mut counted, 1, "R1", &["R1", "—", "—", "—", "—"]);
    assert!(
        problems.iter().any(|p| p.contains("no test")),
        "an R row without evidence was not reported: {problems:?}"
    );
    assert_eq!(row_id("C20 (library half)").as_deref(), Some("C20"));
    assert_eq!(row_id("C28.3").as_deref(), Some("C28.3"));
    assert_eq!(row_id("C28.10 (kept)").as_deref(), Some("C28.10"));
    assert_eq!(row_id("C28."), None);
    assert_eq!(row_id("C28.x"), None);
    assert_eq!(row_id("row"), None);
    assert_eq!(row_id("CUDA-1.1"), None);
    assert_eq!(parent_row("C28.3"), Some("C28"));
    assert_eq!(parent_row("C28"), None);
    // A sub-row names its own row's ui-tests file by file: one of another row, the row's
    // prefix, or none at all is reported.
    let own = "`ui-tests/c28_node_of_one_graph_used_in_another.rs`";
    let problems = check_row(&mut counted, 1, "C28.1", &["C28.1", own, "—", "—", "—"]);
    assert!(problems.is_empty(), "{problems:?}");
    let other = "`ui-tests/c27_alloc_after_seal.rs`";
    let problems = check_row(&mut counted, 1, "C28.1", &["C28.1", other, "—", "—", "—"]);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("no ui-test of this row"))
            && problems
                .iter()
                .any(|p| p.contains("sub-row without its ui-tests")),
        "a sub-row naming another row's ui-test was not reported: {problems:?}"
    );
    let problems = check_row(
        &mut counted,
        1,
        "C28.1",
        &["C28.1", "`c28_*`", "—", "—", "—"],
    );
    assert!(
        problems.iter().any(|p| p.contains("file by file")),
        "a sub-row naming its row's prefix was not reported: {problems:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// docs/invariants.md's own evidence column: every test it names exists, and runs.

/// The only ways a test the contract names may be `#[ignore]`d: it needs a GPU (the GPU run,
/// `.gpu/run.sh`, passes `--include-ignored`).
const GPU_MARKERS: [&str; 2] = [
    "#[ignore = \"needs a CUDA device\"]",
    "#[ignore = \"needs two CUDA devices\"]",
];

/// The functions of `source` named `name` (`name…`: every one whose name starts with `name`),
/// each with its name and the attribute lines (`#[..]`) above it.
fn fn_definitions<'s>(source: &'s str, name: &str) -> Vec<(String, Vec<&'s str>)> {
    let (stem, prefix) = match name.strip_suffix('…') {
        Some(p) => (p, true),
        None => (name, false),
    };
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some(at) = t.find("fn ") else { continue };
        let qualifiers_only = t[..at].split_whitespace().all(|w| {
            matches!(
                w,
                "pub" | "pub(crate)" | "pub(super)" | "async" | "unsafe" | "const" | "extern"
            )
        });
        if !qualifiers_only {
            continue;
        }
        let ident: String = t[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty()
            || !(if prefix {
                ident.starts_with(stem)
            } else {
                ident == stem
            })
        {
            continue;
        }
        let mut attributes = Vec::new();
        for above in lines[..i].iter().rev() {
            let above = above.trim();
            if above.starts_with("#[") {
                attributes.push(above);
            } else if !above.starts_with("//") {
                break;
            }
        }
        out.push((ident, attributes));
    }
    out
}

/// The attribute that keeps a test from running other than for want of a GPU, if any: a bare
/// `#[ignore]`, an `#[ignore = ".."]` with another reason, a `cfg_attr(.., ignore)` other than
/// a library's (`cfg_attr(custack_no_nccl, ignore = "needs NCCL linked")`: ignored only in a
/// build that linked no such library; the test command links every one).
fn ignored_for_another_reason<'a>(attributes: &[&'a str]) -> Option<&'a str> {
    attributes.iter().copied().find(|a| {
        if a.starts_with("#[ignore") {
            !GPU_MARKERS.contains(a)
        } else if a.starts_with("#[cfg_attr(") && a.contains("ignore") {
            !(a.starts_with("#[cfg_attr(custack_no_")
                && a.contains(", ignore = \"needs ")
                && a.ends_with(" linked\")]"))
        } else {
            false
        }
    })
}

/// Checks that `source` (the file `file`) defines `name` (or, for `name…`, at least one
/// function with that prefix), and that every test among them runs; returns the problems and
/// how many tests it found.
fn check_named_fn(file: &str, source: &str, name: &str) -> (Vec<String>, usize) {
    let found = fn_definitions(source, name);
    if found.is_empty() {
        return (vec![format!("{file} has no `fn {name}`")], 0);
    }
    let mut problems = Vec::new();
    let mut tests = 0;
    for (ident, attributes) in &found {
        if !attributes.contains(&"#[test]") {
            continue;
        }
        tests += 1;
        if let Some(attribute) = ignored_for_another_reason(attributes) {
            problems.push(format!(
                "{file}::{ident} is {attribute}: a test the contract cites must run, or be \
                 ignored only with {}",
                GPU_MARKERS[0]
            ));
        }
    }
    (problems, tests)
}

/// Every `.rs` file under `dir`, relative to the root.
fn rust_files(root: &Path, dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![root.join(dir)];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                if let Ok(relative) = path.strip_prefix(root) {
                    out.push(relative.to_string_lossy().into_owned());
                }
            }
        }
    }
    out.sort();
    out
}

/// A code span that names a test or function: lower-case, digits and `_` (with at least one),
/// optionally ending in `…` (a prefix: `r3_…`).
fn is_fn_name(span: &str) -> bool {
    let stem = span.strip_suffix('…').unwrap_or(span);
    stem.contains('_') && is_identifier(stem)
}

/// The evidence column of the contract's tables: (line number, row id, last cell).
fn contract_evidence(text: &str) -> Vec<(usize, String, &str)> {
    prose_lines(text)
        .into_iter()
        .filter(|(_, line)| line.starts_with('|'))
        .filter_map(|(no, line)| {
            let cells = cells(line);
            let id = row_id(cells.first()?)?;
            Some((no, id, *cells.last()?))
        })
        .collect()
}

/// Checks one row's evidence cell: each file or folder it names exists; each function name
/// (`name`, `prefix_…`) is a `fn` of the last `.rs` file named before it in the
/// cell, or of a file under the last folder named, or (P rows, with no file before it) a twin
/// of `tests/patterns.rs`; each test among them runs (not ignored, but for a GPU); each
/// name after "program " is a checking program. Spans with spaces (commands), link texts (checked by
/// `tests/doc_pages.rs`) and spans that are no function name (`Driver::init`, `malloc`) are
/// prose. Returns the problems and the number of tests found.
fn check_contract_cell(repo: &mut Repo, no: usize, id: &str, cell: &str) -> (Vec<String>, usize) {
    check_cell(
        repo,
        &format!("{CONTRACT}:{no}: row {id}"),
        id,
        cell,
        &mut Vec::new(),
    )
}

/// [`check_contract_cell`]'s work for any cell that cites evidence (`at` says where it is, for
/// the problems), also collecting in `gpu_tests` every test it names that runs only on a GPU
/// (`#[ignore = "needs a CUDA device"]`), as (file, function).
fn check_cell(
    repo: &mut Repo,
    at: &str,
    id: &str,
    cell: &str,
    gpu_tests: &mut Vec<(String, String)>,
) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut tests = 0;
    let mut file: Option<String> = None;
    let mut folder: Option<String> = None;
    for span in code_spans(cell) {
        let text = span.text;
        // A link's text is prose (`tests/doc_pages.rs` checks links) unless it names a `.rs`
        // file (`[`tests/x.rs`](../tests/x.rs)`): the file the names after it are in.
        let link_text = span.after.starts_with("](");
        let names_a_rust_file = Path::new(text).extension().is_some_and(|e| e == "rs");
        if (link_text && !names_a_rust_file) || text.chars().any(char::is_whitespace) {
            continue;
        }
        if span.before.ends_with("program ") {
            if let Err(e) = repo.program(text) {
                problems.push(format!("{at}: {e}"));
            }
            continue;
        }
        let (named, names): (&str, Vec<&str>) = if is_path(text) {
            let (path, functions) = text.split_once("::").unwrap_or((text, ""));
            let path = path.split('#').next().unwrap_or(path);
            file = None;
            folder = None;
            let full = repo.root.join(path);
            if !full.exists() {
                problems.push(format!("{at}: `{text}`: no such file or folder"));
                continue;
            }
            if full.is_dir() {
                folder = Some(path.trim_end_matches('/').to_owned());
            } else if Path::new(path).extension().is_some_and(|e| e == "rs") {
                file = Some(path.to_owned());
            }
            let names = functions
                .trim_start_matches('{')
                .trim_end_matches('}')
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .collect();
            (path, names)
        } else if is_fn_name(text) {
            ("", vec![text])
        } else {
            continue;
        };
        for name in names {
            let files: Vec<String> = match (&file, &folder) {
                (Some(f), _) => vec![f.clone()],
                (None, Some(d)) => rust_files(&repo.root, d),
                (None, None) if id.starts_with('P') => vec![TWINS.to_owned()],
                (None, None) => {
                    let place = if named.is_empty() {
                        ""
                    } else {
                        " (not a .rs file)"
                    };
                    problems.push(format!(
                        "{at}: `{name}` names no file{place}: put the file it is in before it"
                    ));
                    continue;
                }
            };
            let mut found = false;
            let mut missing = Vec::new();
            for f in &files {
                let Some(source) = repo.source(f) else {
                    missing.push(format!("{f} is unreadable"));
                    continue;
                };
                let (p, n) = check_named_fn(f, source, name);
                if p.iter().any(|p| p.contains(" has no `fn ")) {
                    missing.extend(p);
                } else {
                    found = true;
                    tests += n;
                    for (ident, attributes) in fn_definitions(source, name) {
                        if attributes.contains(&"#[test]")
                            && attributes.iter().any(|a| GPU_MARKERS.contains(a))
                        {
                            gpu_tests.push((f.clone(), ident));
                        }
                    }
                    problems.extend(p.into_iter().map(|p| format!("{at}: {p}")));
                }
            }
            if !found {
                let place = match (&file, &folder) {
                    (Some(f), _) => f.clone(),
                    (None, Some(d)) => format!("any file under {d}/"),
                    _ => TWINS.to_owned(),
                };
                problems.push(format!("{at}: no `fn {name}` in {place}"));
            }
        }
    }
    (problems, tests)
}

#[test]
fn every_test_the_contract_names_exists_and_runs() {
    let Some(root) = root() else { return };
    let contract = read(&root, CONTRACT);
    let mut repo = Repo::new(&root);
    let rows = contract_evidence(&contract);
    assert!(
        rows.len() > 50,
        "found {} rows in {CONTRACT}: the parser is broken",
        rows.len()
    );
    let mut problems = Vec::new();
    let mut tests = 0;
    for (no, id, cell) in &rows {
        let (p, n) = check_contract_cell(&mut repo, *no, id, cell);
        problems.extend(p);
        tests += n;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The contract cites 67 tests by name (and more by file); far fewer means the parser lost
    // them.
    assert!(
        tests > 50,
        "only {tests} tests found in {CONTRACT}'s evidence: the parser is broken"
    );
}

/// The contract's checks can fail: a missing function, a test ignored for another reason than a
/// GPU, and a name without a file are reported; a GPU test and a library's conditional ignore
/// are not.
#[test]
fn a_missing_or_wrongly_ignored_test_is_reported() {
    let source = "\
#[test]
fn runs() {}

#[test]
#[ignore = \"needs a CUDA device\"]
fn needs_a_gpu() {}

/// Doc.
#[test]
#[ignore]
fn switched_off() {}

#[test]
#[ignore = \"slow\"]
fn slow_one() {}

#[test]
#[cfg_attr(custack_no_nccl, ignore = \"needs NCCL linked\")]
fn with_nccl() {}

#[test]
#[cfg_attr(miri, ignore)]
fn not_under_miri() {}

pub(crate) fn helper_fn() {}
";
    let ok = |name: &str| check_named_fn("f.rs", source, name);
    assert_eq!(ok("runs"), (vec![], 1));
    assert_eq!(ok("needs_a_gpu"), (vec![], 1));
    assert_eq!(ok("with_nccl"), (vec![], 1));
    assert_eq!(ok("helper_fn"), (vec![], 0));
    for (name, why) in [
        ("switched_off", "#[ignore]"),
        ("slow_one", "\"slow\""),
        ("not_under_miri", "miri"),
        ("no_such_test", "has no `fn no_such_test`"),
        ("ru", "has no `fn ru`"),
    ] {
        let (problems, _) = ok(name);
        assert!(
            problems.iter().any(|p| p.contains(why)),
            "`{name}` was not reported ({why}): {problems:?}"
        );
    }
    // A prefix covers every function that starts with it, and each of them must run.
    let (problems, tests) = ok("s…");
    assert_eq!(tests, 2, "{problems:?}");
    assert_eq!(problems.len(), 2, "{problems:?}");
    let Some(root) = root() else { return };
    let mut repo = Repo::new(&root);
    let cell = "`tests/patterns.rs` `r1_second_stack_on_a_thread_is_refused`";
    assert_eq!(check_contract_cell(&mut repo, 1, "R1", cell), (vec![], 1));
    for (cell, why) in [
        (
            "`tests/patterns.rs` (`no_such_test`)",
            "no `fn no_such_test`",
        ),
        ("`tests/no_such_file.rs`", "no such file"),
        (
            "unit test `a_forked_child_refuses_every_checked_call`",
            "names no file",
        ),
        (
            "`benches/checking` program `no_such_program`",
            "no_such_program",
        ),
    ] {
        let (problems, _) = check_contract_cell(&mut repo, 1, "R1", cell);
        assert!(
            problems.iter().any(|p| p.contains(why)),
            "`{cell}` was not reported ({why}): {problems:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// docs/safety-manual.md's assumptions of use, and docs/safety-calls.md's table.

const MANUAL: &str = "docs/safety-manual.md";
const CALLS: &str = "docs/safety-calls.md";
const LISTING: &str = "docs/safety-api.txt";
const AOU: &str = "CUSTACK-AOU-";

/// Whether `source` declares a type or trait `name` (`struct name`, `enum name`, ...).
fn defines_type(source: &str, name: &str) -> bool {
    ["struct ", "enum ", "trait ", "type ", "union "]
        .iter()
        .any(|kind| {
            let needle = format!("{kind}{name}");
            source.match_indices(&needle).any(|(at, _)| {
                let next = source[at + needle.len()..].chars().next();
                let starts_word =
                    at == 0 || !source[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
                starts_word && !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
}

/// Resolves one piece of an assumption's evidence: a test or function (`file::name`, which
/// must run if it is a test), a type (`file::Type`), a file, a folder, a ui-test or a page's
/// heading (`page.md#anchor`). `Ok(false)` for a span that is prose, not a path.
fn resolve_evidence(repo: &mut Repo, span: &str) -> Result<bool, String> {
    if !is_path(span) || span.chars().any(char::is_whitespace) {
        return Ok(false);
    }
    if let Some((file, name)) = span.split_once("::") {
        let Some(source) = repo.source(file) else {
            return Err(format!("`{span}`: no file {file}"));
        };
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return if defines_type(source, name) {
                Ok(true)
            } else {
                Err(format!("`{span}`: {file} declares no type `{name}`"))
            };
        }
        let (problems, _) = check_named_fn(file, source, name);
        return if problems.is_empty() {
            Ok(true)
        } else {
            Err(problems.join("; "))
        };
    }
    repo.path(span).map(|_| true)
}

/// The assumptions of use: (line number, id's number or the id as written, evidence cell).
fn assumptions(page: &str) -> Vec<(usize, Result<usize, String>, String)> {
    prose_lines(page)
        .into_iter()
        .filter(|(_, line)| line.starts_with(&format!("| {AOU}")))
        .map(|(no, line)| {
            let cells = cells(line);
            let id = cells[0];
            let n = id
                .strip_prefix(AOU)
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| id.to_owned());
            (no, n, cells.get(2).copied().unwrap_or("").to_owned())
        })
        .collect()
}

/// Checks the assumptions of `page` (the manual's text); returns the problems.
fn check_assumptions(repo: &mut Repo, page: &str) -> Vec<String> {
    let rows = assumptions(page);
    let mut problems = Vec::new();
    if rows.len() < 5 {
        problems.push(format!(
            "{MANUAL}: {} assumptions of use found ({AOU}n rows): the parser or the page is broken",
            rows.len()
        ));
    }
    for (i, (no, n, evidence)) in rows.iter().enumerate() {
        let at = format!("{MANUAL}:{no}");
        match n {
            Ok(n) if *n == i + 1 => {}
            Ok(n) => problems.push(format!(
                "{at}: {AOU}{n} is the assumption numbered {}: number them 1, 2, ... without gaps",
                i + 1
            )),
            Err(id) => problems.push(format!("{at}: `{id}` is not {AOU}<number>")),
        }
        let mut named = 0;
        for span in code_spans(evidence) {
            match resolve_evidence(repo, span.text) {
                Ok(true) => named += 1,
                Ok(false) => {}
                Err(e) => problems.push(format!("{at}: {e}")),
            }
        }
        if named == 0 {
            problems.push(format!(
                "{at}: {AOU}{} names no evidence: a test (`file::name`), a type (`file::Type`), \
                 a ui-test or a documented review (`page.md#anchor`)",
                n.as_ref().map_or(0, |n| *n)
            ));
        }
    }
    problems
}

#[test]
fn every_assumption_of_use_is_numbered_and_names_evidence_that_exists() {
    let Some(root) = root() else { return };
    let page = read(&root, MANUAL);
    let mut repo = Repo::new(&root);
    let problems = check_assumptions(&mut repo, &page);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The assumptions' checks can fail: a gap in the numbers, an assumption without evidence and
/// evidence that does not exist are each reported.
#[test]
fn a_gap_missing_evidence_or_a_broken_reference_is_reported() {
    let Some(root) = root() else { return };
    let mut repo = Repo::new(&root);
    let good =
        "| CUSTACK-AOU-1 | a | `tests/patterns.rs::r1_second_stack_on_a_thread_is_refused` |";
    let row = |n: usize, evidence: &str| format!("| CUSTACK-AOU-{n} | a | {evidence} |");
    let page = |rows: &[String]| format!("{good}\n{}", rows.join("\n"));
    let cases = [
        (page(&[row(3, "`src/safety/bound.rs`")]), "numbered 2"),
        (page(&[row(2, "a review")]), "names no evidence"),
        (page(&[row(2, "`tests/no_such_file.rs::f`")]), "no file"),
        (
            page(&[row(2, "`src/safety/bound.rs::NoSuchType`")]),
            "no type",
        ),
        (
            page(&[row(2, "`src/safety/bound.rs::no_such_test`")]),
            "no `fn no_such_test`",
        ),
        (
            page(&[row(2, "`docs/safety.md#no-such-heading`")]),
            "no heading",
        ),
    ];
    for (text, why) in cases {
        let problems = check_assumptions(&mut repo, &text);
        assert!(
            problems.iter().any(|p| p.contains(why)),
            "not reported ({why}): {problems:?}\n{text}"
        );
    }
    let fine = page(&[
        row(2, "`src/safety/bound.rs::WaitBound`"),
        row(3, "`ui-tests/c27_alloc_after_seal.rs`"),
        row(4, "`docs/safety.md#the-users-obligations`"),
        row(
            5,
            "`tests/zero_alloc.rs::restricted_run_phase_does_not_allocate`",
        ),
    ]);
    assert_eq!(check_assumptions(&mut repo, &fine), Vec::<String>::new());
}

/// The names of the restricted profile's listing: `Budget`, `Budget::new`, ...
fn listing_names(listing: &str) -> BTreeSet<String> {
    listing
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(": ").map(|(name, _)| name.to_owned()))
        .collect()
}

/// The attribute table's rows: (line number, item, cells).
fn call_rows(page: &str) -> Vec<(usize, String, Vec<&str>)> {
    prose_lines(page)
        .into_iter()
        .filter(|(_, line)| line.starts_with("| `"))
        .filter_map(|(no, line)| {
            let cells = cells(line);
            let item = code_spans(cells.first()?).first()?.text.to_owned();
            Some((no, item, cells))
        })
        .collect()
}

/// Checks the attribute table against the listing; returns the problems.
fn check_calls(listing: &str, page: &str) -> Vec<String> {
    let names = listing_names(listing);
    let mut problems = Vec::new();
    let mut rows: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (no, item, cells) in call_rows(page) {
        if cells.len() != 7 {
            problems.push(format!(
                "{CALLS}:{no}: `{item}` has {} cells; a row has 7 (item, phase, blocks, \
                 allocates, driver calls, threads, safe state)",
                cells.len()
            ));
        } else if cells.iter().any(|c| c.is_empty()) {
            problems.push(format!(
                "{CALLS}:{no}: `{item}` has an empty cell (write — for none)"
            ));
        } else if !["init", "run", "shutdown", "either"].contains(&cells[1]) {
            problems.push(format!(
                "{CALLS}:{no}: `{item}`'s phase \"{}\" is not init, run, shutdown or either",
                cells[1]
            ));
        }
        if !names.contains(&item) {
            problems.push(format!(
                "{CALLS}:{no}: `{item}` is not an item of {LISTING}"
            ));
        }
        rows.entry(item).or_default().push(no);
    }
    for name in &names {
        match rows.get(name).map(Vec::len) {
            None => problems.push(format!(
                "{LISTING}'s `{name}` has no row in {CALLS}: add its phase, blocking, \
                 allocation, driver calls, threads and safe state"
            )),
            Some(1) => {}
            Some(n) => problems.push(format!("`{name}` has {n} rows in {CALLS}")),
        }
    }
    problems
}

#[test]
fn every_item_of_the_restricted_profile_has_one_row_in_the_call_table() {
    let Some(root) = root() else { return };
    let listing = read(&root, LISTING);
    assert!(
        listing_names(&listing).len() > 50,
        "the parser found few names in {LISTING}"
    );
    let problems = check_calls(&listing, &read(&root, CALLS));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The table's check can fail: a missing row, a row for no item, a twice-listed item and a
/// wrong phase are each reported.
#[test]
fn a_missing_extra_or_malformed_call_row_is_reported() {
    let listing = "# comment\nA: pub struct A\nA::f: pub fn f(&self)\nB: pub struct B\n";
    let row = |item: &str, phase: &str| format!("| `{item}` | {phase} | no | no | none | — | — |");
    let table = |rows: &[String]| rows.join("\n");
    let full = [row("A", "run"), row("A::f", "run"), row("B", "either")];
    assert_eq!(check_calls(listing, &table(&full)), Vec::<String>::new());
    for (rows, why) in [
        (vec![row("A", "run"), row("A::f", "run")], "`B` has no row"),
        (
            vec![
                row("A", "run"),
                row("A::f", "run"),
                row("B", "run"),
                row("C", "run"),
            ],
            "`C` is not an item",
        ),
        (
            vec![
                row("A", "run"),
                row("A", "run"),
                row("A::f", "run"),
                row("B", "run"),
            ],
            "2 rows",
        ),
        (
            vec![row("A", "later"), row("A::f", "run"), row("B", "run")],
            "phase",
        ),
        (
            vec![
                row("A", "run"),
                "| `A::f` | run | no |".to_owned(),
                row("B", "run"),
            ],
            "cells",
        ),
    ] {
        let problems = check_calls(listing, &table(&rows));
        assert!(
            problems.iter().any(|p| p.contains(why)),
            "not reported ({why}): {problems:?}"
        );
    }
}

/// The committed GPU reports (`docs/evidence/gpu-report-*.json`), as `.gpu/run.sh` writes them.
const EVIDENCE: &str = "docs/evidence";

/// A JSON value, as much of JSON as the GPU report uses (the report is `json.dumps`'s output).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn list(&self) -> &[Json] {
        match self {
            Json::List(items) => items,
            _ => &[],
        }
    }
}

/// A JSON reader over `s`, at byte `at`: what `parse_json` runs.
struct Reader<'t> {
    s: &'t [u8],
    at: usize,
}
impl Reader<'_> {
    fn space(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.space();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", c as char, self.at))
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            let c = *self.s.get(self.at).ok_or("unterminated string")?;
            self.at += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *self.s.get(self.at).ok_or("unterminated escape")?;
                    self.at += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = self.s.get(self.at..self.at + 4).ok_or("short \\u")?;
                            self.at += 4;
                            let code = u32::from_str_radix(
                                std::str::from_utf8(hex).map_err(|e| e.to_string())?,
                                16,
                            )
                            .map_err(|e| e.to_string())?;
                            let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                            out.extend_from_slice(ch.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
        String::from_utf8(out).map_err(|e| e.to_string())
    }
    fn value(&mut self) -> Result<Json, String> {
        self.space();
        match self.s.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut fields = Vec::new();
                self.space();
                if self.s.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Object(fields));
                }
                loop {
                    let key = self.string()?;
                    self.eat(b':')?;
                    fields.push((key, self.value()?));
                    self.space();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Object(fields));
                        }
                        _ => return Err(format!("expected `,` or `}}` at byte {}", self.at)),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.s.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::List(items));
                }
                loop {
                    items.push(self.value()?);
                    self.space();
                    match self.s.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::List(items));
                        }
                        _ => return Err(format!("expected `,` or `]` at byte {}", self.at)),
                    }
                }
            }
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') if self.s[self.at..].starts_with(b"true") => {
                self.at += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.s[self.at..].starts_with(b"false") => {
                self.at += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.s[self.at..].starts_with(b"null") => {
                self.at += 4;
                Ok(Json::Null)
            }
            Some(_) => {
                let start = self.at;
                while self
                    .s
                    .get(self.at)
                    .is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
                {
                    self.at += 1;
                }
                std::str::from_utf8(&self.s[start..self.at])
                    .ok()
                    .and_then(|n| n.parse().ok())
                    .map(Json::Number)
                    .ok_or_else(|| format!("no JSON value at byte {start}"))
            }
            None => Err("unexpected end".to_owned()),
        }
    }
}

/// Parses `text` as one JSON value; `Err` says where it stopped.
fn parse_json(text: &str) -> Result<Json, String> {
    let mut r = Reader {
        s: text.as_bytes(),
        at: 0,
    };
    let v = r.value()?;
    r.space();
    if r.at == text.len() {
        Ok(v)
    } else {
        Err(format!("trailing bytes at {}", r.at))
    }
}

/// A committed GPU report: its file, commit, whether it ran under the sanitizer, and each
/// test binary's tests with their results (`ok`, `FAILED`, ...).
struct Report {
    file: String,
    commit: String,
    sanitize: bool,
    dirty: bool,
    binaries: BTreeMap<String, (String, Vec<(String, String)>)>,
}

fn reports(root: &Path) -> Vec<Report> {
    let mut out = Vec::new();
    let mut files: Vec<_> = fs::read_dir(root.join(EVIDENCE))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with("gpu-report-")
                && std::path::Path::new(n)
                    .extension()
                    .is_some_and(|e| e == "json")
        })
        .collect();
    files.sort();
    for name in files {
        let file = format!("{EVIDENCE}/{name}");
        let json = parse_json(&read(root, &file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let source = json.get("source");
        let binaries = json
            .get("binaries")
            .map(Json::list)
            .unwrap_or_default()
            .iter()
            .filter_map(|b| {
                let name = b.get("name")?.str()?.to_owned();
                let outcome = b
                    .get("outcome")
                    .and_then(Json::str)
                    .unwrap_or("")
                    .to_owned();
                let tests = b
                    .get("tests")
                    .map(Json::list)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|t| {
                        Some((
                            t.get("name")?.str()?.to_owned(),
                            t.get("result")?.str()?.to_owned(),
                        ))
                    })
                    .collect();
                Some((name, (outcome, tests)))
            })
            .collect();
        out.push(Report {
            commit: source
                .and_then(|s| s.get("commit"))
                .and_then(Json::str)
                .unwrap_or("")
                .to_owned(),
            sanitize: json.get("sanitize") == Some(&Json::Bool(true)),
            dirty: source.and_then(|s| s.get("dirty")) != Some(&Json::Bool(false)),
            file,
            binaries,
        });
    }
    out
}

/// The results `report` holds for the test `ident` of `file` (`tests/x.rs`: the binary
/// `test-x`; a file under `src/`: the library's unit tests, `test-lib`, whose names carry
/// their module path).
fn results_of<'r>(report: &'r Report, file: &str, ident: &str) -> Vec<&'r str> {
    let binary = match file
        .strip_prefix("tests/")
        .and_then(|f| f.strip_suffix(".rs"))
    {
        Some(stem) => format!("test-{stem}"),
        None => "test-lib".to_owned(),
    };
    let Some((_, tests)) = report.binaries.get(&binary) else {
        return Vec::new();
    };
    tests
        .iter()
        .filter(|(name, _)| name == ident || name.ends_with(&format!("::{ident}")))
        .map(|(_, result)| result.as_str())
        .collect()
}

/// Every GPU test the contract (`docs/invariants.md`, its evidence column) and the safety
/// manual's assumptions of use cite, as (where it is cited, file, function).
fn cited_gpu_tests(root: &Path) -> Vec<(String, String, String)> {
    let mut repo = Repo::new(root);
    let mut out = Vec::new();
    let contract = read(root, CONTRACT);
    for (no, id, cell) in contract_evidence(&contract) {
        let mut found = Vec::new();
        let at = format!("{CONTRACT}:{no}: row {id}");
        let _ = check_cell(&mut repo, &at, &id, cell, &mut found);
        out.extend(found.into_iter().map(|(f, t)| (at.clone(), f, t)));
    }
    let manual = read(root, MANUAL);
    for (no, n, evidence) in assumptions(&manual) {
        let mut found = Vec::new();
        let at = format!("{MANUAL}:{no}: {AOU}{}", n.as_ref().map_or(0, |n| *n));
        let _ = check_cell(&mut repo, &at, "AOU", &evidence, &mut found);
        out.extend(found.into_iter().map(|(f, t)| (at.clone(), f, t)));
    }
    out
}

/// The release's GPU evidence holds what the contract claims: one report of a clean commit
/// without the sanitizer (the baseline), and every GPU test that the contract and the manual's
/// assumptions of use cite is `ok` in it: not only a test that exists (checked above), but one
/// that ran and passed on a GPU, for the commit the report names. A report under the
/// sanitizer (`SANITIZE=1`), where there is one, is of the same commit and of a clean tree;
/// its exit statuses are not its verdict (the sanitizer counts every driver error, and the
/// negative tests make them on purpose): its findings are read as `docs/building.md` says. A
/// GPU test newly cited fails here until a GPU run that includes it is committed.
#[test]
fn every_gpu_test_the_contract_cites_passed_in_the_committed_report() {
    let Some(root) = root() else { return };
    let reports = reports(&root);
    let baseline: Vec<&Report> = reports.iter().filter(|r| !r.sanitize).collect();
    assert_eq!(
        baseline.len(),
        1,
        "{EVIDENCE}/ holds {} reports without the sanitizer: keep the release's one",
        baseline.len()
    );
    let baseline = baseline[0];
    assert!(
        !baseline.dirty && baseline.commit.len() == 40,
        "{}: not the report of a clean commit ({:?})",
        baseline.file,
        baseline.commit
    );
    let cited = cited_gpu_tests(&root);
    assert!(
        cited.len() > 40,
        "only {} GPU tests cited: the parser is broken",
        cited.len()
    );
    let mut problems = Vec::new();
    for (at, file, ident) in &cited {
        let results = results_of(baseline, file, ident);
        if results.is_empty() {
            problems.push(format!(
                "{at}: {file}::{ident} did not run in {} (commit {}): run the GPU suite and \
                 commit its report",
                baseline.file, baseline.commit
            ));
        } else if let Some(bad) = results.iter().find(|r| **r != "ok") {
            problems.push(format!(
                "{at}: {file}::{ident} is `{bad}` in {}",
                baseline.file
            ));
        }
    }
    for sanitized in reports.iter().filter(|r| r.sanitize) {
        if sanitized.commit != baseline.commit || sanitized.dirty {
            problems.push(format!(
                "{} is of commit {}{}, the baseline {} of {}",
                sanitized.file,
                sanitized.commit,
                if sanitized.dirty { " (dirty)" } else { "" },
                baseline.file,
                baseline.commit
            ));
        }
        if sanitized.binaries.is_empty() {
            problems.push(format!("{} ran no binary", sanitized.file));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The report's reader: a report's shape, and a cited test missing, failed or passed.
#[test]
fn a_gpu_test_missing_or_failed_in_the_report_is_found() {
    let json = parse_json(
        r#"{"format": 1, "source": {"commit": "abc", "dirty": false}, "sanitize": false,
            "binaries": [{"name": "test-gpu_x", "outcome": "ok", "tests": [
              {"name": "passes", "result": "ok"}, {"name": "fails", "result": "FAILED"}]},
              {"name": "test-lib", "outcome": "ok", "tests": [
              {"name": "safety::image::tests::reads", "result": "ok"}]}],
            "n": -1.5e3, "u": "\u00e9"}"#,
    )
    .unwrap();
    assert_eq!(json.get("n"), Some(&Json::Number(-1500.0)));
    assert_eq!(json.get("u").and_then(Json::str), Some("é"));
    assert!(parse_json("{\"a\": [1, 2,]}").is_err());
    let binaries = json
        .get("binaries")
        .map(Json::list)
        .unwrap_or_default()
        .iter()
        .map(|b| {
            let tests = b
                .get("tests")
                .map(Json::list)
                .unwrap_or_default()
                .iter()
                .map(|t| {
                    (
                        t.get("name").and_then(Json::str).unwrap().to_owned(),
                        t.get("result").and_then(Json::str).unwrap().to_owned(),
                    )
                })
                .collect();
            (
                b.get("name").and_then(Json::str).unwrap().to_owned(),
                ("ok".to_owned(), tests),
            )
        })
        .collect();
    let report = Report {
        file: "r.json".to_owned(),
        commit: "abc".to_owned(),
        sanitize: false,
        dirty: false,
        binaries,
    };
    assert_eq!(results_of(&report, "tests/gpu_x.rs", "passes"), ["ok"]);
    assert_eq!(results_of(&report, "tests/gpu_x.rs", "fails"), ["FAILED"]);
    assert!(results_of(&report, "tests/gpu_x.rs", "absent").is_empty());
    assert!(results_of(&report, "tests/gpu_y.rs", "passes").is_empty());
    assert_eq!(results_of(&report, "src/safety/image.rs", "reads"), ["ok"]);
}
