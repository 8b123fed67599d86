//! The README is a front page, and the pages it links hold the long tables.
//! This checks that they stay that way and stay true:
//!
//! - `README.md` has at most 300 lines;
//! - every relative link in `README.md`, `BENCHMARKS.md` and `docs/*.md` names a file or
//!   directory that exists, and every `#anchor` a heading of the page it points into (GitHub's
//!   anchor rules);
//! - `docs/invariants.md` links every `ui-tests/*.rs` from exactly one row, and each row's
//!   "N files:" is the number of ui-tests it links;
//! - every "N compile-fail tests" in those pages is the number of `ui-tests/*.rs`;
//! - the checking driver's program count ("N programs of `benches/checking`") is written on one
//!   page and is the number of programs there, and every range of the contract's rows
//!   ("C1–CN") ends at the catalogue's last row of that kind;
//! - every `examples/*.rs` and `benches/examples/*.rs` has a row in `docs/examples.md`, and every
//!   row an example.
//!
//! Needs no GPU and no libcuda. It reads the files next to `Cargo.toml`; a test binary carried
//! to a machine without them (the GPU bundle) says so and checks nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 300;

fn root() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if root.join("README.md").is_file() {
        Some(root)
    } else {
        eprintln!(
            "doc_pages: no README.md under {} (a carried test binary): nothing checked",
            root.display()
        );
        None
    }
}

/// `README.md`, `BENCHMARKS.md` and every `docs/*.md`, sorted.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![
        root.join("README.md"),
        root.join("BENCHMARKS.md"),
        root.join("ARCHITECTURE.md"),
    ];
    if let Ok(entries) = fs::read_dir(root.join("docs")) {
        let mut docs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        pages.extend(docs);
    }
    pages
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

/// The line with its inline code spans blanked, so `` `a[i](x)` `` is not taken for a link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(c);
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of one line (code spans in the text are
/// fine: only the `](target)` part is read, from the line with code spans blanked).
fn link_targets(line: &str) -> Vec<String> {
    let plain = without_code_spans(line);
    let mut out = Vec::new();
    let mut rest = plain.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        if let Some(end) = after.find(')') {
            out.push(after[..end].to_owned());
            rest = &after[end..];
        } else {
            break;
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, inline-code backticks and punctuation other than
/// `-` and `_` dropped, spaces turned into `-`.
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

/// Every anchor a page defines: its headings' slugs, repeated ones numbered `-1`, `-2`, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

#[test]
fn readme_is_a_front_page() {
    let Some(root) = root() else { return };
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: it is the front page; move \
         long tables and sections into docs/*.md and link them"
    );
}

#[test]
fn every_relative_link_resolves() {
    let Some(root) = root() else { return };
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages(&root) {
        let text = fs::read_to_string(&page).expect("page is readable");
        let dir = page.parent().expect("a page has a directory");
        let name = page
            .strip_prefix(&root)
            .unwrap_or(&page)
            .display()
            .to_string();
        for (line_no, line) in prose_lines(&text) {
            for target in link_targets(line) {
                let target = target.trim();
                if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                    continue;
                }
                checked += 1;
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target, None),
                };
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    dir.join(path)
                };
                if !file.exists() {
                    broken.push(format!("{name}:{line_no}: {target}: no such file"));
                    continue;
                }
                let Some(anchor) = anchor else { continue };
                if file.extension().is_none_or(|e| e != "md") {
                    broken.push(format!(
                        "{name}:{line_no}: {target}: an anchor into a file that is not markdown"
                    ));
                    continue;
                }
                let into = fs::read_to_string(&file).expect("linked page is readable");
                if !anchors(&into).contains(anchor) {
                    broken.push(format!(
                        "{name}:{line_no}: {target}: no heading with anchor #{anchor} there"
                    ));
                }
            }
        }
    }
    eprintln!("doc_pages: {checked} relative links checked");
    assert!(checked > 0, "no relative links found: the parser is broken");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The folders of `ui-tests/` that hold the crate custack-ui-tests, not compile-fail programs.
const UI_CRATE_DIRS: [&str; 2] = ["src", "tests"];

fn ui_tests(root: &Path) -> BTreeSet<String> {
    // `ui-tests/*.rs`, and one level of sub-directories: those of a feature's tests
    // (`ui-tests/nvrtc/`), named `nvrtc/<file>`. Not `src/` and `tests/`: they are the crate
    // custack-ui-tests (`ui-tests/Cargo.toml`), whose test runs the programs.
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(root.join("ui-tests"))
        .expect("ui-tests/ is readable")
        .filter_map(Result::ok)
    {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if entry.path().is_dir() {
            if UI_CRATE_DIRS.contains(&name.as_str()) {
                continue;
            }
            for inner in fs::read_dir(entry.path())
                .expect("a ui-tests/ sub-directory is readable")
                .filter_map(Result::ok)
            {
                if let Some(file) = inner
                    .file_name()
                    .to_str()
                    .and_then(|f| f.strip_suffix(".rs"))
                {
                    names.insert(format!("{name}/{file}"));
                }
            }
        } else if let Some(stem) = name.strip_suffix(".rs") {
            names.insert(stem.to_owned());
        }
    }
    names
}

#[test]
fn invariant_catalogue_lists_every_ui_test_once() {
    let Some(root) = root() else { return };
    let page = root.join("docs/invariants.md");
    let text = fs::read_to_string(&page).expect("docs/invariants.md is readable");
    // The default suite, and the feature-gated suites in subdirectories (`cublas/…`), which
    // the compile-fail counts of the other pages leave out.
    let mut on_disk = ui_tests(&root);
    for feature_dir in ["cublas"] {
        if let Ok(dir) = fs::read_dir(root.join("ui-tests").join(feature_dir)) {
            on_disk.extend(dir.filter_map(Result::ok).filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                Some(format!("{feature_dir}/{}", name.strip_suffix(".rs")?))
            }));
        }
    }
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (line_no, line) in prose_lines(&text) {
        // The C rows, and the row of compiler hints (ui-tests named `hint_*`).
        if !line.starts_with("| C") && !line.starts_with("| hints") {
            continue;
        }
        let links: Vec<String> = link_targets(line)
            .into_iter()
            .filter_map(|t| {
                let name = t.strip_prefix("../ui-tests/")?.strip_suffix(".rs")?;
                Some(name.to_owned())
            })
            .collect();
        for l in &links {
            *listed.entry(l.clone()).or_insert(0) += 1;
        }
        // "| 9 files: [...]" or "| 1 file: [...]"
        let claimed = line.split('|').map(str::trim).find_map(|cell| {
            let (n, rest) = cell.split_once(' ')?;
            let n: usize = n.parse().ok()?;
            (rest.starts_with("files:") || rest.starts_with("file:")).then_some(n)
        });
        match claimed {
            Some(n) if n == links.len() => {}
            Some(n) => wrong.push(format!(
                "docs/invariants.md:{line_no}: says {n} files, links {}",
                links.len()
            )),
            None => wrong.push(format!(
                "docs/invariants.md:{line_no}: a C row without \"N files:\""
            )),
        }
    }
    for name in &on_disk {
        match listed.get(name) {
            None => wrong.push(format!(
                "ui-tests/{name}.rs is in no row of docs/invariants.md: add it to its row"
            )),
            Some(1) => {}
            Some(n) => wrong.push(format!("ui-tests/{name}.rs is linked from {n} rows")),
        }
    }
    for name in listed.keys() {
        if !on_disk.contains(name) {
            wrong.push(format!(
                "docs/invariants.md links ui-tests/{name}.rs, which does not exist"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn compile_fail_counts_are_current() {
    let Some(root) = root() else { return };
    let n = ui_tests(&root).len();
    let mut wrong = Vec::new();
    let mut found = 0;
    for page in pages(&root) {
        let text = fs::read_to_string(&page).expect("page is readable");
        let name = page
            .strip_prefix(&root)
            .unwrap_or(&page)
            .display()
            .to_string();
        for (line_no, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find(" compile-fail tests") {
                let digits: String = rest[..at]
                    .chars()
                    .rev()
                    .take_while(char::is_ascii_digit)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                if let Ok(claimed) = digits.parse::<usize>() {
                    found += 1;
                    if claimed != n {
                        wrong.push(format!(
                            "{name}:{}: says {claimed} compile-fail tests, ui-tests/ has {n}",
                            line_no + 1
                        ));
                    }
                }
                rest = &rest[at + 1..];
            }
        }
    }
    assert!(
        found > 0,
        "no \"N compile-fail tests\" found in README.md or docs/"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn slugs_follow_github() {
    assert_eq!(
        slug("Reliability: every driver call failed in turn"),
        "reliability-every-driver-call-failed-in-turn"
    );
    assert_eq!(
        slug("Handing custack's contexts, streams and memory to other libraries"),
        "handing-custacks-contexts-streams-and-memory-to-other-libraries"
    );
    assert_eq!(
        slug("Miri over the `unsafe` code"),
        "miri-over-the-unsafe-code"
    );
    assert_eq!(
        link_targets("see [`a`](x.md#b) and `[c](no)` and [d](y/)"),
        ["x.md#b", "y/"]
    );
}

#[test]
fn every_example_has_a_row() {
    let Some(root) = root() else { return };
    // custack's examples, and custack-benches' (benches/examples/: those that need tokio).
    let on_disk: BTreeSet<String> = ["examples", "benches/examples"]
        .into_iter()
        .flat_map(|dir| {
            fs::read_dir(root.join(dir))
                .unwrap_or_else(|e| panic!("{dir}/ is readable: {e}"))
                .filter_map(Result::ok)
        })
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            // Cargo's two forms: `examples/NAME.rs`, and `examples/NAME/main.rs` with its modules.
            if e.path().join("main.rs").is_file() {
                return Some(name);
            }
            name.strip_suffix(".rs").map(str::to_owned)
        })
        .collect();
    let text = fs::read_to_string(root.join("docs/examples.md")).expect("docs/examples.md");
    let rows: BTreeSet<String> = prose_lines(&text)
        .into_iter()
        .filter_map(|(_, line)| {
            let name = line.strip_prefix("| `")?.split('`').next()?;
            Some(name.to_owned())
        })
        .collect();
    let missing: Vec<_> = on_disk.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&on_disk).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/examples.md: no row for examples {missing:?}; rows for missing examples {stale:?}"
    );
}

/// The programs of `benches/checking`: the `"name" =>` arms of its `fn run`, read as
/// `tests/evidence.rs` reads them.
fn checking_programs(root: &Path) -> BTreeSet<String> {
    let source = fs::read_to_string(root.join("benches/checking/src/main.rs"))
        .expect("benches/checking/src/main.rs is readable");
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

/// How the checking driver's program count is written: "N programs of `benches/checking`".
const PHRASE: &str = "programs of `benches/checking`";

/// The number written just before `at` in `text` (`"the 36 "` before `programs`), if any.
fn number_before(text: &str, at: usize) -> Option<usize> {
    let digits: String = text[..at]
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

/// How many programs the checking driver runs is written on one page (docs/safety.md, where the
/// measured run is), as "N programs of `benches/checking`", and it is the number of programs
/// there are; the other pages link to it rather than repeat it.
#[test]
fn checking_program_count_is_on_one_page_and_current() {
    let Some(root) = root() else { return };
    let n = checking_programs(&root).len();
    assert!(n > 0, "no programs found in benches/checking/src/main.rs");
    let mut claims = Vec::new();
    for page in pages(&root) {
        let text = fs::read_to_string(&page).expect("page is readable");
        // The phrase may be wrapped across lines.
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let name = page
            .strip_prefix(&root)
            .unwrap_or(&page)
            .display()
            .to_string();
        for (at, _) in text.match_indices(PHRASE) {
            if let Some(claimed) = number_before(&text, at) {
                claims.push((name.clone(), claimed));
            }
        }
    }
    assert_eq!(
        claims.len(),
        1,
        "\"N {PHRASE}\" should be written on exactly one page, the others linking to it: {claims:?}"
    );
    let (page, claimed) = &claims[0];
    assert_eq!(
        *claimed, n,
        "{page} says {claimed} {PHRASE}; its `fn run` has {n} arms"
    );
}

/// Every Rust file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each range of the contract's rows written anywhere a reader meets it ("C1–C27", "R1–R22",
/// "P1–P14" in the pages, `ui-tests/README.md` and the crate's docs) ends at the last row of
/// that kind in docs/invariants.md. The CHANGELOG keeps the ranges of its time.
#[test]
fn catalogue_ranges_end_at_the_last_row() {
    let Some(root) = root() else { return };
    let catalogue =
        fs::read_to_string(root.join("docs/invariants.md")).expect("docs/invariants.md");
    let mut files = pages(&root);
    files.push(root.join("ui-tests/README.md"));
    rust_files(&root.join("src"), &mut files);
    let mut wrong = Vec::new();
    let mut found = 0;
    for kind in ['C', 'P', 'R'] {
        let last = catalogue
            .lines()
            .filter_map(|line| {
                let id = line.strip_prefix("| ")?.strip_prefix(kind)?;
                // A sub-row (`C28.3`) is of its row's number.
                id.split([' ', '.']).next()?.parse::<usize>().ok()
            })
            .max()
            .expect("docs/invariants.md has rows of each kind");
        let start = format!("{kind}1–{kind}");
        for file in &files {
            let text = fs::read_to_string(file).expect("file is readable");
            let name = file
                .strip_prefix(&root)
                .unwrap_or(file)
                .display()
                .to_string();
            for (at, _) in text.match_indices(&start) {
                // Not the tail of a longer name ("AC1–C2").
                if text[..at].ends_with(|c: char| c.is_alphanumeric()) {
                    continue;
                }
                let end: String = text[at + start.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                let Ok(end) = end.parse::<usize>() else {
                    continue;
                };
                found += 1;
                if end != last {
                    let line = text[..at].lines().count().max(1);
                    wrong.push(format!(
                        "{name}:{line}: says {kind}1–{kind}{end}; docs/invariants.md's last {kind} row is {kind}{last}"
                    ));
                }
            }
        }
    }
    assert!(found >= 3, "docs/invariants.md states its ranges (C, P, R)");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
