//! What `tests/failure_analysis.rs` and `tests/tool_evidence.rs` share: reading a page's tables
//! and code spans, and resolving what a cell names (a test function, a `loom` model test, a
//! checking program, a file, an assumption of use) against the repository.
//!
//! Needs no GPU and no libcuda, only `std`.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The script whose program list and passes are the checking driver's.
pub(crate) const CHECK_DRIVER: &str = "scripts/check-driver.sh";
/// The script whose program list is Miri's.
pub(crate) const MIRI: &str = "scripts/miri.sh";
/// The safety manual, whose table numbers the assumptions of use.
pub(crate) const MANUAL: &str = "docs/safety-manual.md";
/// The attribute of a test that needs a GPU, and the mark a page puts after it.
pub(crate) const GPU_IGNORE: &str = "#[ignore = \"needs a CUDA device\"]";
pub(crate) const GPU_MARK: &str = " (GPU)";

/// The repository root, if the pages are there (a test binary carried to a machine without
/// them, the GPU bundle, checks nothing and says so).
pub(crate) fn root(who: &str, page: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if root.join(page).is_file() {
        Some(root)
    } else {
        eprintln!(
            "{who}: no {page} under {} (a carried test binary): nothing checked",
            root.display()
        );
        None
    }
}

pub(crate) fn read(root: &Path, file: &str) -> String {
    fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file} is unreadable: {e}"))
}

/// The page's lines outside fenced code blocks, with their 1-based numbers.
pub(crate) fn prose_lines(text: &str) -> Vec<(usize, &str)> {
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

/// The cells of a table line, trimmed (no cell holds a `|`).
pub(crate) fn cells(line: &str) -> Vec<&str> {
    line.trim()
        .trim_start_matches('|')
        .trim_end_matches('|')
        .split('|')
        .map(str::trim)
        .collect()
}

/// The table lines of `text` (outside code blocks) that are neither a header's separator nor
/// empty: (line number, cells).
pub(crate) fn table_rows(text: &str) -> Vec<(usize, Vec<&str>)> {
    prose_lines(text)
        .into_iter()
        .filter(|(_, l)| l.trim_start().starts_with('|'))
        .map(|(no, l)| (no, cells(l)))
        .filter(|(_, c)| !c.iter().all(|c| c.chars().all(|ch| ch == '-' || ch == ' ')))
        .collect()
}

/// An inline code span: its text, the text of its cell between the previous span (or the
/// cell's start) and it, and the text after it.
#[derive(Debug)]
pub(crate) struct Span<'a> {
    pub(crate) text: &'a str,
    pub(crate) gap: &'a str,
    pub(crate) after: &'a str,
}

pub(crate) fn code_spans(cell: &str) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = cell[from..].find('`').map(|i| from + i) {
        let Some(close) = cell[open + 1..].find('`').map(|i| open + 1 + i) else {
            break;
        };
        out.push(Span {
            text: &cell[open + 1..close],
            gap: &cell[from..open],
            after: &cell[close + 1..],
        });
        from = close + 1;
    }
    out
}

/// What a bare identifier in a cell names, by the words before it: `program `a``,
/// `programs `a`, `b` and `c``; `pass `x``, `passes `x` and `y``. A list goes on only through
/// `, `, ` and ` and `, and `.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Named {
    Program,
    Pass,
    Other,
}

/// Each span of `cell` with what it names.
pub(crate) fn named_spans(cell: &str) -> Vec<(Span<'_>, Named)> {
    let mut out = Vec::new();
    let mut last = Named::Other;
    for span in code_spans(cell) {
        let gap = span.gap;
        let named = if gap.ends_with("program ") || gap.ends_with("programs ") {
            Named::Program
        } else if gap.ends_with("pass ") || gap.ends_with("passes ") {
            Named::Pass
        } else if matches!(gap, ", " | " and " | ", and ") {
            last
        } else {
            Named::Other
        };
        let named = if is_identifier(span.text) {
            named
        } else {
            Named::Other
        };
        last = named;
        out.push((span, named));
    }
    out
}

/// Lower case, digits and `_`, starting with a letter.
pub(crate) fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// A path of the repository (`src/x.rs`, `scripts/y.sh`): no spaces, a `/`, a known extension.
pub(crate) fn is_path(s: &str) -> bool {
    s.contains('/')
        && !s.contains(' ')
        && !s.contains('{')
        && [".rs", ".sh", ".md", ".toml", ".cu", ".txt", ".json"]
            .iter()
            .any(|e| s.ends_with(e))
}

/// `file::function` where `file` is a path of the repository.
pub(crate) fn test_reference(s: &str) -> Option<(&str, &str)> {
    let (file, name) = s.split_once("::")?;
    let rust = Path::new(file).extension().is_some_and(|e| e == "rs");
    (is_path(file) && rust && is_identifier(name)).then_some((file, name))
}

/// The default program list of `scripts/check-driver.sh` (`programs=(${CHECK_PROGRAMS:-...})`),
/// and the programs its passes run by name (`"$bin" name`, the injection pass's).
pub(crate) fn checking_programs(script: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(at) = script.find("programs=(${CHECK_PROGRAMS:-") {
        let list = &script[at + "programs=(${CHECK_PROGRAMS:-".len()..];
        let list = &list[..list.find("})").unwrap_or(0)];
        out.extend(list.split_whitespace().map(str::to_owned));
    }
    for call in script.split("\"$bin\" ").skip(1) {
        let name: String = call
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// The program list of `scripts/miri.sh` (`programs=(...)`).
pub(crate) fn miri_programs(script: &str) -> BTreeSet<String> {
    let Some(at) = script.find("\nprograms=(") else {
        return BTreeSet::new();
    };
    let list = &script[at + "\nprograms=(".len()..];
    let list = &list[..list.find(')').unwrap_or(0)];
    list.split_whitespace().map(str::to_owned).collect()
}

/// The passes of `scripts/check-driver.sh` (`passes=" ${CHECK_PASSES:-...} "`).
pub(crate) fn checking_passes(script: &str) -> BTreeSet<String> {
    let Some(at) = script.find("${CHECK_PASSES:-") else {
        return BTreeSet::new();
    };
    let list = &script[at + "${CHECK_PASSES:-".len()..];
    let list = &list[..list.find('}').unwrap_or(0)];
    list.split_whitespace().map(str::to_owned).collect()
}

/// The numbers of the assumptions of use the manual's table holds (`| CUSTACK-AOU-N |`).
pub(crate) fn assumptions(manual: &str) -> BTreeSet<String> {
    prose_lines(manual)
        .into_iter()
        .filter_map(|(_, l)| {
            let id = l.strip_prefix("| CUSTACK-AOU-")?;
            let n: String = id.chars().take_while(char::is_ascii_digit).collect();
            (!n.is_empty()).then(|| format!("CUSTACK-AOU-{n}"))
        })
        .collect()
}

/// Every `CUSTACK-AOU-N` a text names.
pub(crate) fn named_assumptions(text: &str) -> Vec<String> {
    text.match_indices("CUSTACK-AOU-")
        .filter_map(|(at, m)| {
            let n: String = text[at + m.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (!n.is_empty()).then(|| format!("CUSTACK-AOU-{n}"))
        })
        .collect()
}

/// A test function's definition: whether it is a `#[test]`, whether it needs a GPU, whether it
/// is ignored for another reason, and whether it is a `loom` model test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)] // four independent facts of one definition
pub(crate) struct TestFn {
    pub(crate) is_test: bool,
    pub(crate) needs_gpu: bool,
    pub(crate) ignored_otherwise: bool,
    pub(crate) loom: bool,
}

/// The byte ranges of `source`'s `loom` models: a `mod` right after `#[cfg(all(test, loom))]`,
/// to its closing brace.
fn loom_ranges(source: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (at, m) in source.match_indices("#[cfg(all(test, loom))]") {
        let rest = &source[at + m.len()..];
        let trimmed = rest.trim_start();
        if !trimmed.starts_with("mod ") {
            continue;
        }
        let Some(open) = rest.find('{') else { continue };
        let start = at + m.len() + open;
        let mut depth = 0usize;
        for (i, c) in source[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((start, start + i));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The definitions of `fn name` in `source`.
pub(crate) fn test_fns(source: &str, name: &str) -> Vec<TestFn> {
    let models = loom_ranges(source);
    let mut out = Vec::new();
    let lines: Vec<(usize, &str)> = source
        .split_inclusive('\n')
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        })
        .collect();
    for (i, &(offset, line)) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some(at) = t.find("fn ") else { continue };
        let qualifiers_only = t[..at]
            .split_whitespace()
            .all(|w| matches!(w, "pub" | "pub(crate)" | "pub(super)" | "async" | "unsafe"));
        if !qualifiers_only {
            continue;
        }
        let ident: String = t[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident != name {
            continue;
        }
        let mut attributes = Vec::new();
        for &(_, above) in lines[..i].iter().rev() {
            let above = above.trim();
            if above.starts_with("#[") {
                attributes.push(above);
            } else if !above.starts_with("//") {
                break;
            }
        }
        out.push(TestFn {
            is_test: attributes.contains(&"#[test]"),
            needs_gpu: attributes.contains(&GPU_IGNORE),
            ignored_otherwise: attributes
                .iter()
                .any(|a| a.starts_with("#[ignore") && *a != GPU_IGNORE),
            loom: models.iter().any(|&(s, e)| (s..e).contains(&offset)),
        });
    }
    out
}

/// Every `loom` model test of the `.rs` files under `src/`: name to file.
pub(crate) fn loom_model_tests(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut pending = vec![root.join("src")];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let Ok(source) = fs::read_to_string(&path) else {
                continue;
            };
            for (start, end) in loom_ranges(&source) {
                for chunk in source[start..end].split("#[test]").skip(1) {
                    let Some(at) = chunk.find("fn ") else {
                        continue;
                    };
                    let name: String = chunk[at + 3..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let file = path.strip_prefix(root).unwrap_or(&path);
                    out.insert(name, file.to_string_lossy().into_owned());
                }
            }
        }
    }
    out
}

/// The repository as the checks read it: files, read once.
pub(crate) struct Repo {
    pub(crate) root: PathBuf,
    files: BTreeMap<String, Option<String>>,
    pub(crate) programs: BTreeSet<String>,
    pub(crate) miri_programs: BTreeSet<String>,
    pub(crate) passes: BTreeSet<String>,
    pub(crate) assumptions: BTreeSet<String>,
}

impl Repo {
    pub(crate) fn new(root: &Path) -> Self {
        let script = read(root, CHECK_DRIVER);
        Self {
            root: root.to_path_buf(),
            files: BTreeMap::new(),
            programs: checking_programs(&script),
            miri_programs: miri_programs(&read(root, MIRI)),
            passes: checking_passes(&script),
            assumptions: assumptions(&read(root, MANUAL)),
        }
    }

    pub(crate) fn source(&mut self, file: &str) -> Option<&str> {
        let root = &self.root;
        self.files
            .entry(file.to_owned())
            .or_insert_with(|| fs::read_to_string(root.join(file)).ok())
            .as_deref()
    }

    /// Checks one span that names a test (`file::name`): the file holds exactly one `fn name`,
    /// a `#[test]`, ignored only for want of a GPU; a model test is said to be one (`loom`
    /// before it, or a row about loom: `loom_row`) and only a model test is; a GPU test is marked ` (GPU)` after it and only a
    /// GPU test is.
    pub(crate) fn check_test(&mut self, at: &str, span: &Span<'_>, loom_row: bool) -> Vec<String> {
        let Some((file, name)) = test_reference(span.text) else {
            return Vec::new();
        };
        let Some(source) = self.source(file) else {
            return vec![format!("{at}: `{}`: no file {file}", span.text)];
        };
        let found = test_fns(source, name);
        let [f] = found.as_slice() else {
            return vec![format!(
                "{at}: `{}`: {file} defines `fn {name}` {} times, not once",
                span.text,
                found.len()
            )];
        };
        let mut problems = Vec::new();
        let what = format!("{at}: `{}`", span.text);
        if !f.is_test {
            problems.push(format!("{what} is not a #[test]"));
        }
        if f.ignored_otherwise {
            problems.push(format!("{what} is ignored for another reason than a GPU"));
        }
        let says_loom = loom_row || span.gap.ends_with("loom ");
        if f.loom != says_loom {
            problems.push(if f.loom {
                format!("{what} is a loom model test: write `loom` before it")
            } else {
                format!("{what} is not a loom model test, yet `loom` is written before it")
            });
        }
        let says_gpu = span.after.starts_with(GPU_MARK);
        if f.needs_gpu != says_gpu {
            problems.push(if f.needs_gpu {
                format!("{what} needs a GPU: mark it `{GPU_MARK}` after it")
            } else {
                format!("{what} needs no GPU, yet is marked `{GPU_MARK}`")
            });
        }
        problems
    }

    /// Checks every span and assumption of a cell: tests resolve, programs are the checking
    /// driver's, passes its passes, paths exist, assumptions are the manual's. Returns the
    /// problems and how many references resolved.
    pub(crate) fn check_cell(&mut self, at: &str, cell: &str) -> (Vec<String>, usize) {
        self.check_cell_in(at, cell, false)
    }

    /// [`check_cell`](Self::check_cell) for a cell of a table row about loom (`loom_row`),
    /// whose every test is a model test without `loom` written before it.
    pub(crate) fn check_cell_in(
        &mut self,
        at: &str,
        cell: &str,
        loom_row: bool,
    ) -> (Vec<String>, usize) {
        let mut problems = Vec::new();
        let mut resolved = 0;
        for (span, named) in named_spans(cell) {
            match named {
                Named::Program => {
                    if self.programs.contains(span.text) {
                        resolved += 1;
                    } else {
                        problems.push(format!(
                            "{at}: program `{}` is not a program of {CHECK_DRIVER}",
                            span.text
                        ));
                    }
                }
                Named::Pass => {
                    if !self.passes.contains(span.text) {
                        problems.push(format!(
                            "{at}: pass `{}` is not a pass of {CHECK_DRIVER} ({:?})",
                            span.text, self.passes
                        ));
                    }
                }
                Named::Other => {
                    if test_reference(span.text).is_some() {
                        let found = self.check_test(at, &span, loom_row);
                        if found.is_empty() {
                            resolved += 1;
                        }
                        problems.extend(found);
                    } else if is_path(span.text) {
                        if self.root.join(span.text).exists() {
                            resolved += 1;
                        } else {
                            problems.push(format!("{at}: no file `{}`", span.text));
                        }
                    }
                }
            }
        }
        for aou in named_assumptions(cell) {
            if !self.assumptions.contains(&aou) {
                problems.push(format!("{at}: {aou} is not an assumption of {MANUAL}"));
            }
        }
        (problems, resolved)
    }
}
