//! The layering ARCHITECTURE.md documents, checked against the code: the folders of `src/` are
//! listed there from the bottom up, and a folder may use only the folders listed before it.
//!
//! What counts as a use is every `crate::…` path in code (imports and paths written inline;
//! comments, doc comments and string literals are skipped, `$crate::` in exported macros too).
//! The test fails on:
//! - a path into a folder listed after the file's own folder (an upward import);
//! - a path through a crate-root re-export (`crate::StreamScope` instead of
//!   `crate::asynchronous::scope::StreamScope`), which hides the direction from readers;
//! - a folder of `src/` missing from the table, or a row naming no folder;
//! - an import circle between files of `src/` (a file using a file that uses it back, directly
//!   or through others), `super::` and `self::` paths resolved as well.
//!
//! Needs no GPU and no libcuda; it reads the sources next to `Cargo.toml`.
//!
//! Run: `cargo test --test layers -- --nocapture` prints the order it checked.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folders of `src/` in the order of ARCHITECTURE.md's "Folders of `src/`" table, bottom
/// first: the first cell of each row, "`name/`" (a feature note after it is allowed).
fn documented_order() -> Vec<String> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Folders of `src/`"))
        .expect("ARCHITECTURE.md has a section \"Folders of `src/`\"");
    let mut order = Vec::new();
    for line in section.lines() {
        let Some(first) = line.strip_prefix("| `") else {
            continue;
        };
        if let Some(name) = first.split('`').next().and_then(|n| n.strip_suffix('/')) {
            order.push(name.to_owned());
        }
    }
    assert!(
        !order.is_empty(),
        "no folder rows found in ARCHITECTURE.md's table"
    );
    order
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("readable directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source with comments, string, raw-string and char literals blanked (newlines kept).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        let to = to.min(out.len());
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            let start = i;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            blank(&mut out, start, i);
        } else if b[i] == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let end = b[j + 1..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| j + 1 + p + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            blank(&mut out, start, i);
        } else if b[i] == b'\'' {
            // A char literal ('a', '\n', '\u{..}'), not a lifetime ('a without a closing quote).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p + 1)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 boundaries of ASCII delimiters")
}

/// `src/a/b.rs` is module `a::b`, `src/a/mod.rs` is `a`, `src/lib.rs` the root (no segment).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

/// Every path in `code` that starts with `crate`, `super` or `self` (as written: the segments
/// after it, up to the first non-identifier), with `use` groups expanded one level deep
/// (`use crate::a::{b, c::d}` gives `a::b` and `a::c::d`).
fn paths(code: &str) -> Vec<(usize, String, Vec<String>)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let start_ok = i == 0 || !(ident(b[i - 1]) || b[i - 1] == b'$' || b[i - 1] == b':');
        let head = ["crate", "super", "self"]
            .into_iter()
            .find(|h| b[i..].starts_with(h.as_bytes()) && b[i + h.len()..].starts_with(b"::"));
        let (true, Some(head)) = (start_ok, head) else {
            i += 1;
            continue;
        };
        let mut j = i + head.len();
        let mut segs = Vec::new();
        let mut heads = vec![head.to_owned()];
        while b[j..].starts_with(b"::") {
            j += 2;
            if b[j..].starts_with(b"super") && !ident(b[j + 5]) && head == "super" {
                heads.push("super".into());
                j += 5;
                continue;
            }
            if b.get(j) == Some(&b'{') {
                // A group: each comma-separated item's leading path.
                let close = j + b[j..].iter().position(|&c| c == b'}').unwrap_or(0);
                let group = &code[j + 1..close];
                for item in group.split(',') {
                    let item: Vec<String> = item
                        .trim()
                        .split(" as ")
                        .next()
                        .unwrap_or("")
                        .split("::")
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty() && s.bytes().all(ident))
                        .collect();
                    let mut p = segs.clone();
                    p.extend(item);
                    out.push((i, heads.join("::"), p));
                }
                j = close;
                segs.clear();
                break;
            }
            let s = j;
            while j < b.len() && ident(b[j]) {
                j += 1;
            }
            if s == j {
                break;
            }
            segs.push(code[s..j].to_owned());
        }
        // `crate::name!(..)` invokes an exported macro, which lives at the crate root.
        if !segs.is_empty() && b.get(j) != Some(&b'!') {
            out.push((i, heads.join("::"), segs));
        }
        i = j.max(i + 1);
    }
    out
}

/// The path `head::segs` written in module `me`, `depth` inline modules (`mod tests { .. }`)
/// deep, from the crate root: `self::` is the module it is written in; each `super::` goes one
/// up (a mod.rs is its folder's module, so its `super` is the folder's parent). `None` for a
/// path that stays inside the file (`self::` or fewer `super::`s than inline modules).
fn absolute_path(me: &[String], depth: usize, head: &str, segs: &[String]) -> Option<Vec<String>> {
    if head == "crate" {
        return Some(segs.to_vec());
    }
    let ups = head.split("::").filter(|h| *h == "super").count();
    if ups < depth {
        return None;
    }
    let mut base = me.to_vec();
    for _ in 0..ups - depth {
        base.pop();
    }
    base.extend(segs.iter().cloned());
    Some(base)
}

/// The byte ranges of the bodies of inline modules (`mod name { .. }`) in `code`.
fn inline_modules(code: &str) -> Vec<std::ops::Range<usize>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("mod ") {
        let at = from + p;
        from = at + 4;
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let rest = &code[at + 4..];
        let name_len = rest
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        let after = rest[name_len..].trim_start();
        if name_len == 0 || !after.starts_with('{') {
            continue;
        }
        let open = code.len() - after.len();
        let mut depth = 0usize;
        let mut end = code.len();
        for (i, c) in code[open..].bytes().enumerate() {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push(open..end);
    }
    out
}

#[test]
// One pass over the sources collecting both checks' findings, so every problem is listed at once.
#[allow(clippy::too_many_lines)]
fn folders_use_only_folders_below_them_and_no_file_import_circles() {
    let root = root();
    let src = root.join("src");
    if !src.is_dir() {
        println!("layers: no sources next to this test binary; nothing checked");
        return;
    }
    let order = documented_order();
    let folders: BTreeSet<String> = fs::read_dir(&src)
        .expect("src/")
        .filter_map(Result::ok)
        // A folder that holds Rust sources (git keeps no empty folder, but a copy may).
        .filter(|e| {
            let mut inside = Vec::new();
            e.path().is_dir() && {
                rust_files(&e.path(), &mut inside);
                !inside.is_empty()
            }
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut problems = Vec::new();
    for f in &folders {
        if !order.contains(f) {
            problems.push(format!(
                "src/{f}/ is not in ARCHITECTURE.md's table of folders"
            ));
        }
    }
    for f in &order {
        if !folders.contains(f) {
            problems.push(format!(
                "ARCHITECTURE.md lists `{f}/`, which src/ does not have"
            ));
        }
    }
    let rank = |f: &str| order.iter().position(|o| o == f);

    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .map(|f| (module_of(&src, f), f.clone()))
        .collect();
    // The longest module path that `segs` starts with.
    let resolve = |segs: &[String]| -> Option<Vec<String>> {
        (1..=segs.len())
            .rev()
            .map(|n| segs[..n].to_vec())
            .find(|m| modules.contains_key(m))
    };
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut checked = 0;
    for file in &files {
        let me = module_of(&src, file);
        let Some(folder) = me.first().cloned() else {
            continue; // lib.rs: the root re-exports everything, by design
        };
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        let code = code_only(&fs::read_to_string(file).expect("readable source"));
        let inline = inline_modules(&code);
        for (at, head, segs) in paths(&code) {
            let depth = inline.iter().filter(|r| r.contains(&at)).count();
            let Some(absolute) = absolute_path(&me, depth, &head, &segs) else {
                continue; // a path into this file's own inline modules
            };
            let Some(first) = absolute.first() else {
                continue;
            };
            if first == "ffi" {
                continue;
            }
            checked += 1;
            if head == "crate" && !folders.contains(first) {
                problems.push(format!(
                    "{rel}: `crate::{}` goes through a crate-root re-export: name its folder path",
                    segs.join("::")
                ));
                continue;
            }
            if first != &folder {
                match (rank(&folder), rank(first)) {
                    (Some(mine), Some(theirs)) if theirs > mine => problems.push(format!(
                        "{rel}: uses `{}` from `{first}/`, which ARCHITECTURE.md lists above `{folder}/`",
                        absolute.join("::")
                    )),
                    _ => {}
                }
            }
            if let Some(target) = resolve(&absolute)
                && target != me
            {
                edges.entry(me.clone()).or_default().insert(target);
            }
        }
    }
    // Circles between files: strongly connected components of more than one module.
    for component in circles(&edges) {
        let names: Vec<String> = component
            .iter()
            .map(|m| {
                modules.get(m).map_or_else(
                    || m.join("::"),
                    |p| p.strip_prefix(&root).unwrap_or(p).display().to_string(),
                )
            })
            .collect();
        problems.push(format!(
            "an import circle between files: {}",
            names.join(", ")
        ));
    }
    println!(
        "layers: {checked} paths checked against the order {}",
        order.join(" < ")
    );
    assert!(
        problems.is_empty(),
        "the layering ARCHITECTURE.md documents is not the code's:\n{}",
        problems.join("\n")
    );
}

/// Tarjan's strongly connected components of more than one node.
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<Vec<String>, usize>,
        low: BTreeMap<Vec<String>, usize>,
        stack: Vec<Vec<String>>,
        on: BTreeSet<Vec<String>>,
        next: usize,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit(s: &mut State<'_>, v: &Vec<String>) {
        s.index.insert(v.clone(), s.next);
        s.low.insert(v.clone(), s.next);
        s.next += 1;
        s.stack.push(v.clone());
        s.on.insert(v.clone());
        let targets: Vec<Vec<String>> = s
            .edges
            .get(v)
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        for w in &targets {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(&w);
                let done = &w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    let nodes: Vec<Vec<String>> = edges.keys().cloned().collect();
    for v in &nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn the_path_reader_sees_groups_super_and_skips_comments() {
    let code = code_only(
        "use crate::a::{b, c::D as E};\n// use crate::x::y;\nlet s = \"crate::z::w\";\nuse super::super::q::R;\nfn f() { crate::m::n(); $crate::hidden::x(); crate::a_macro!(); }\n",
    );
    let found: Vec<_> = paths(&code).into_iter().map(|(_, h, s)| (h, s)).collect();
    let want: Vec<(String, Vec<String>)> = vec![
        ("crate".into(), vec!["a".into(), "b".into()]),
        ("crate".into(), vec!["a".into(), "c".into(), "D".into()]),
        ("super::super".into(), vec!["q".into(), "R".into()]),
        ("crate".into(), vec!["m".into(), "n".into()]),
    ];
    assert_eq!(found, want);
}

#[test]
fn super_inside_an_inline_module_stays_in_its_file() {
    let me = vec!["a".to_owned(), "b".to_owned()];
    let x = vec!["X".to_owned()];
    let code = "fn f() {}\nmod tests {\n    use super::f;\n}\n";
    let inline = inline_modules(code);
    assert_eq!(inline.len(), 1);
    let at = code.find("super").unwrap_or(0);
    assert!(inline[0].contains(&at));
    let own = vec!["a".to_owned(), "b".to_owned(), "X".to_owned()];
    assert_eq!(absolute_path(&me, 1, "super", &x), Some(own.clone()));
    assert_eq!(absolute_path(&me, 1, "self", &x), None);
    assert_eq!(
        absolute_path(&me, 1, "super::super", &x),
        Some(vec!["a".to_owned(), "X".to_owned()])
    );
    assert_eq!(
        absolute_path(&me, 0, "super", &x),
        Some(vec!["a".to_owned(), "X".to_owned()])
    );
    assert_eq!(absolute_path(&me, 0, "self", &x), Some(own));
}

#[test]
fn a_circle_is_found_and_a_chain_is_not() {
    let m = |s: &str| vec![s.to_owned()];
    let mut edges = BTreeMap::new();
    edges.insert(m("a"), BTreeSet::from([m("b")]));
    edges.insert(m("b"), BTreeSet::from([m("c")]));
    assert!(circles(&edges).is_empty());
    edges.insert(m("c"), BTreeSet::from([m("a")]));
    assert_eq!(circles(&edges), vec![vec![m("a"), m("b"), m("c")]]);
}
