//! The layering ARCHITECTURE.md documents, checked against the code: the folders of `src/` are
//! listed there from the bottom up, and a folder may use only the folders listed before it.
//!
//! What counts as a use is every path in code that starts with `crate::`, `super::` or
//! `self::`, or with the name of a child module of the file (`use handle::Blas;` in a `mod.rs`),
//! in imports (`use` groups expanded at every depth) and paths written inline. Comments, doc
//! comments and string literals are skipped, `$crate::` in exported macros and visibilities
//! (`pub(in crate::a)`) too, and `ffi`, the raw layer below every folder. A path is resolved to
//! the file that defines its item: through child modules, and through every `use` at a module's
//! top level (a `mod.rs` that writes `pub use b::X` sends `super::X` to `b.rs`). The test fails
//! on:
//! - a path into a folder listed after the file's own folder (an upward import);
//! - a path that reaches the crate root and names anything but a folder (`crate::StreamScope`,
//!   `super::super::StreamScope`, or `super::X` in a `mod.rs`, instead of
//!   `crate::asynchronous::scope::StreamScope`): it goes through a crate-root re-export, which
//!   hides the direction from readers;
//! - a folder of `src/` missing from the table, or a row naming no folder;
//! - a row whose sentence "It uses …" is missing, or does not name exactly the folders that its
//!   folder's files write paths into, by the path's first folder as written (a path through
//!   `testing/`'s re-export of an item of `error/` uses `testing/`). Each row says it in the concept cell, from
//!   "It uses" to the sentence's end (a full stop, a semicolon or the cell's end), naming folders
//!   as "`name/`"; a folder that uses no other says "It uses nothing …". A folder named but not
//!   used fails, and so does one used but not named;
//! - an import circle between files of `src/` (a file using a file that uses it back, directly
//!   or through others). A path is an edge to the file that defines its item; a top-level
//!   `pub use` (a re-export) is not an edge of the file that writes it unless that file's own
//!   code names what it re-exports: whoever uses the item through it gets the edge instead.
//!   `src/lib.rs` re-exports everything, by design, and gets no edges.
//!
//! The checks run on a tree given as text ([`check`]), so the tests below plant each kind of
//! violation in a tiny tree of their own and see it reported; the real tree is read from disk.
//! Needs no GPU and no libcuda; it reads the sources next to `Cargo.toml`.
//!
//! Run: `cargo test --test layers -- --nocapture` prints the order it checked.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files of a `src/` by their path under it (`asynchronous/scope.rs`), with their text.
type Sources = BTreeMap<String, String>;

/// A module path from the crate root (`["asynchronous", "scope"]`; the root is empty).
type Module = Vec<String>;

/// One row of ARCHITECTURE.md's "Folders of `src/`" table: the folder and, where the row has a
/// sentence "It uses …", the folders that sentence names.
struct Row {
    folder: String,
    uses: Option<BTreeSet<String>>,
}

/// The rows of ARCHITECTURE.md's "Folders of `src/`" table, bottom first: the first cell of
/// each row is "`name/`" (a feature note after it is allowed). `None` without that section.
fn documented_rows(architecture: &str) -> Option<Vec<Row>> {
    let section = architecture
        .split("\n## ")
        .find(|s| s.starts_with("Folders of `src/`"))?;
    let mut rows = Vec::new();
    for line in section.lines() {
        let Some(first) = line.strip_prefix("| `") else {
            continue;
        };
        let Some(folder) = first.split('`').next().and_then(|n| n.strip_suffix('/')) else {
            continue;
        };
        let uses = line.find("It uses ").map(|at| {
            let sentence = &line[at..];
            let end = [". ", ";", " |"]
                .iter()
                .filter_map(|e| sentence.find(e))
                .min()
                .unwrap_or(sentence.len());
            sentence[..end]
                .split('`')
                .skip(1)
                .step_by(2)
                .filter_map(|quoted| quoted.strip_suffix('/'))
                .filter(|name| !name.is_empty() && !name.contains('/'))
                .map(str::to_owned)
                .collect()
        });
        rows.push(Row {
            folder: folder.to_owned(),
            uses,
        });
    }
    Some(rows)
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

/// `a/b.rs` is module `a::b`, `a/mod.rs` is `a`, `lib.rs` the root (no segment).
fn module_of(file: &str) -> Module {
    let mut parts: Vec<String> = file.split('/').map(str::to_owned).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// One leaf of a `use` tree: its path as written (head included: `crate`, `super`, `self` or a
/// name) and the name it brings into scope (`None` for a glob or `as _`).
#[derive(Debug, PartialEq)]
struct Leaf {
    segs: Vec<String>,
    name: Option<String>,
}

fn skip_ws(s: &[u8], i: &mut usize) {
    while s.get(*i).is_some_and(u8::is_ascii_whitespace) {
        *i += 1;
    }
}

/// The leaves of the `use` tree at `s[*i..]` under `prefix`, groups expanded at every depth:
/// `crate::a::{b, c::{self, D as E}, f::*}` gives `crate::a::b` (b), `crate::a::c` (c),
/// `crate::a::c::D` (E) and `crate::a::f` (a glob).
fn use_leaves(s: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Leaf>) {
    let mut segs = prefix;
    loop {
        skip_ws(s, i);
        match s.get(*i) {
            Some(b'{') => {
                *i += 1;
                loop {
                    skip_ws(s, i);
                    match s.get(*i) {
                        Some(b'}') => {
                            *i += 1;
                            return;
                        }
                        Some(b',') => *i += 1,
                        Some(_) => {
                            let before = *i;
                            use_leaves(s, i, segs.clone(), out);
                            if *i == before {
                                return; // not a use tree: stop rather than loop
                            }
                        }
                        None => return,
                    }
                }
            }
            Some(b'*') => {
                *i += 1;
                out.push(Leaf { segs, name: None });
                return;
            }
            _ => {}
        }
        let start = *i;
        while s.get(*i).is_some_and(|&c| is_ident(c) || c == b'$') {
            *i += 1;
        }
        if start == *i {
            return;
        }
        let id = String::from_utf8_lossy(&s[start..*i]).into_owned();
        skip_ws(s, i);
        if s[*i..].starts_with(b"::") {
            *i += 2;
            segs.push(id);
            continue;
        }
        let mut name = if id == "self" {
            segs.last().cloned()
        } else {
            Some(id.clone())
        };
        if s[*i..].starts_with(b"as") && !s.get(*i + 2).copied().is_some_and(is_ident) {
            *i += 2;
            skip_ws(s, i);
            let from = *i;
            while s.get(*i).copied().is_some_and(is_ident) {
                *i += 1;
            }
            let alias = String::from_utf8_lossy(&s[from..*i]).into_owned();
            name = (alias != "_").then_some(alias);
        }
        if id != "self" {
            segs.push(id);
        }
        out.push(Leaf { segs, name });
        return;
    }
}

/// A `use` declaration: where it starts, where it ends (its `;`), whether it is a re-export
/// (`pub`, `pub(crate)`, …) and its leaves.
struct UseDecl {
    at: usize,
    end: usize,
    reexport: bool,
    leaves: Vec<Leaf>,
}

/// Every `use` declaration in `code` (comments and literals already blanked).
fn use_decls(code: &str) -> Vec<UseDecl> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("use") {
        let at = from + p;
        from = at + 3;
        if (at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':'))
            || !b.get(at + 3).is_some_and(u8::is_ascii_whitespace)
        {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|e| at + e) else {
            break;
        };
        let before = code[..at].trim_end();
        let reexport = before.ends_with("pub")
            || (before.ends_with(')') && {
                let open = before.rfind('(').unwrap_or(0);
                before[..open].trim_end().ends_with("pub")
            });
        let tree = &b[at + 3..end];
        let mut leaves = Vec::new();
        let mut i = 0;
        skip_ws(tree, &mut i);
        // `use ::name::…` names an external crate.
        if !tree[i..].starts_with(b"::") {
            use_leaves(tree, &mut i, Vec::new(), &mut leaves);
        }
        out.push(UseDecl {
            at,
            end,
            reexport,
            leaves,
        });
        from = end;
    }
    out
}

/// Every path outside `use` declarations (the ranges in `skip`) that starts with `crate::`,
/// `super::` or `self::`, or with one of `children` (the file's child modules, at `code`'s top
/// level only): its offset and its segments as written, up to the first non-identifier.
fn inline_paths(
    code: &str,
    skip: &[std::ops::Range<usize>],
    children: &BTreeSet<String>,
    top_level: impl Fn(usize) -> bool,
) -> Vec<(usize, Vec<String>)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // `skip` is in order: the next range that does not end before `i`.
    let mut next = 0;
    while i < b.len() {
        while skip.get(next).is_some_and(|r| r.end <= i) {
            next += 1;
        }
        if let Some(r) = skip.get(next).filter(|r| r.contains(&i)) {
            i = r.end;
            continue;
        }
        let start_ok = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b'$' || b[i - 1] == b':');
        let len = b[i..].iter().take_while(|&&c| is_ident(c)).count();
        if !start_ok || len == 0 {
            i += 1;
            continue;
        }
        let head = &code[i..i + len];
        let known =
            matches!(head, "crate" | "super" | "self") || (children.contains(head) && top_level(i));
        if !known || !b[i + len..].starts_with(b"::") {
            i += len;
            continue;
        }
        let mut segs = vec![head.to_owned()];
        let mut j = i + len;
        while b[j..].starts_with(b"::") {
            let seg = j + 2;
            let seg_len = b[seg..].iter().take_while(|&&c| is_ident(c)).count();
            if seg_len == 0 {
                break;
            }
            segs.push(code[seg..seg + seg_len].to_owned());
            j = seg + seg_len;
        }
        // `crate::name!(..)` invokes an exported macro, which lives at the crate root.
        // `pub(in crate::a)` restricts visibility; it uses nothing.
        let visibility = code[..i]
            .trim_end()
            .strip_suffix("in")
            .is_some_and(|v| v.trim_end().ends_with('('));
        if segs.len() > 1 && b.get(j) != Some(&b'!') && !visibility {
            out.push((i, segs));
        }
        i = j.max(i + 1);
    }
    out
}

/// The path `segs` (head included) written in module `me`, `depth` inline modules
/// (`mod tests { .. }`) deep, from the crate root: `self::` is the module it is written in; each
/// `super::` goes one up (a mod.rs is its folder's module, so its `super` is the folder's
/// parent); a child module's name is `self::` that name. `None` for a path that stays inside the
/// file (`self::` or fewer `super::`s than inline modules) or names something outside the crate.
fn absolute_path(
    me: &[String],
    depth: usize,
    segs: &[String],
    children: &BTreeSet<String>,
) -> Option<Module> {
    let head = segs.first()?;
    if head == "crate" {
        return Some(segs[1..].to_vec());
    }
    if depth == 0 && children.contains(head) {
        let mut base = me.to_vec();
        base.extend(segs.iter().cloned());
        return Some(base);
    }
    if head != "super" && head != "self" {
        return None;
    }
    let heads = segs
        .iter()
        .take_while(|s| *s == "super" || *s == "self")
        .count();
    let ups = segs[..heads].iter().filter(|h| *h == "super").count();
    if ups < depth {
        return None;
    }
    let mut base = me.to_vec();
    for _ in 0..ups - depth {
        base.pop()?;
    }
    base.extend(segs[heads..].iter().cloned());
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
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let rest = &code[at + 4..];
        let name_len = rest.bytes().take_while(|c| is_ident(*c)).count();
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

/// A path a file writes: where, as written, from the crate root, and whether it is an edge of
/// the file (everything but a re-export that the file's own code does not name).
struct Use {
    file: String,
    at: usize,
    written: String,
    absolute: Module,
    edge: bool,
}

/// What [`check`] found: the documented order, how many paths it checked, and the problems.
struct Findings {
    order: Vec<String>,
    checked: usize,
    problems: Vec<String>,
}

/// Checks the tree `sources` (the files of `src/`) against the text of ARCHITECTURE.md.
// One pass over the sources collecting every check's findings, so every problem is listed at once.
#[allow(clippy::too_many_lines)]
fn check(architecture: &str, sources: &Sources) -> Findings {
    let mut problems = Vec::new();
    let rows = documented_rows(architecture).unwrap_or_else(|| {
        problems.push("ARCHITECTURE.md has no section \"Folders of `src/`\"".to_owned());
        Vec::new()
    });
    let order: Vec<String> = rows.iter().map(|r| r.folder.clone()).collect();
    if order.is_empty() {
        problems.push("no folder rows found in ARCHITECTURE.md's table".to_owned());
    }
    let folders: BTreeSet<String> = sources
        .keys()
        .filter_map(|f| f.split_once('/').map(|(folder, _)| folder.to_owned()))
        .collect();
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

    let modules: BTreeMap<Module, &String> = sources.keys().map(|f| (module_of(f), f)).collect();
    let children_of = |me: &Module| -> BTreeSet<String> {
        modules
            .keys()
            .filter(|m| m.len() == me.len() + 1 && m.starts_with(me))
            .filter_map(|m| m.last().cloned())
            .collect()
    };

    // First every file's paths and every module's top-level names (`use … as name`).
    let mut aliases: BTreeMap<Module, BTreeMap<String, Module>> = BTreeMap::new();
    let mut uses = Vec::new();
    for (file, text) in sources {
        let me = module_of(file);
        let children = children_of(&me);
        let code = code_only(text);
        let inline = inline_modules(&code);
        let depth_at = |at: usize| inline.iter().filter(|r| r.contains(&at)).count();
        // Braces before `at`, to tell a module's top level from a function body's.
        let braces: Vec<usize> = std::iter::once(0)
            .chain(code.bytes().scan(0usize, |open, c| {
                match c {
                    b'{' => *open += 1,
                    b'}' => *open = open.saturating_sub(1),
                    _ => {}
                }
                Some(*open)
            }))
            .collect();
        let braces_at = |at: usize| braces[at];
        let decls = use_decls(&code);
        let skip: Vec<_> = decls.iter().map(|d| d.at..d.end).collect();
        let inline_code: String = {
            let mut own = code.clone().into_bytes();
            for r in skip.iter().chain(&inline) {
                own[r.clone()].fill(b' ');
            }
            String::from_utf8(own).unwrap_or_default()
        };
        // Whether this file's own top-level code names `name` outside its `use` declarations.
        let names = |name: &str| {
            inline_code.match_indices(name).any(|(at, _)| {
                let b = inline_code.as_bytes();
                let before = at.checked_sub(1).map(|p| b[p]);
                !before.is_some_and(|c| is_ident(c) || c == b'.' || c == b':')
                    && !b.get(at + name.len()).copied().is_some_and(is_ident)
            })
        };
        for decl in &decls {
            let depth = depth_at(decl.at);
            let top = braces_at(decl.at) == 0;
            for leaf in &decl.leaves {
                let Some(absolute) = absolute_path(&me, depth, &leaf.segs, &children) else {
                    continue;
                };
                if top && let Some(name) = &leaf.name {
                    aliases
                        .entry(me.clone())
                        .or_default()
                        .insert(name.clone(), absolute.clone());
                }
                let reexport = decl.reexport && top && depth == 0;
                uses.push(Use {
                    file: file.clone(),
                    at: decl.at,
                    written: leaf.segs.join("::"),
                    absolute,
                    edge: !reexport || leaf.name.as_deref().is_none_or(names),
                });
            }
        }
        for (at, segs) in inline_paths(&code, &skip, &children, |at| depth_at(at) == 0) {
            let Some(absolute) = absolute_path(&me, depth_at(at), &segs, &children) else {
                continue; // a path into this file's own inline modules
            };
            uses.push(Use {
                file: file.clone(),
                at,
                written: segs.join("::"),
                absolute,
                edge: true,
            });
        }
    }
    uses.sort_by(|a, b| (&a.file, a.at).cmp(&(&b.file, b.at)));

    // The module that defines the item a path names: its longest prefix that is a module, and
    // on through the names that module brings into scope.
    let resolve = |path: &Module| -> Module {
        let mut path = path.clone();
        let mut module = Vec::new();
        for _ in 0..32 {
            module = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|m| m.is_empty() || modules.contains_key(m))
                .unwrap_or_default();
            let Some(next) = path.get(module.len()) else {
                break;
            };
            let Some(target) = aliases.get(&module).and_then(|a| a.get(next)) else {
                break;
            };
            let mut onward = target.clone();
            onward.extend(path[module.len() + 1..].iter().cloned());
            path = onward;
        }
        module
    };

    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    // For each folder, the folders its files write paths into, with the first such path.
    let mut used: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut checked = 0;
    for u in &uses {
        let me = module_of(&u.file);
        let Some(folder) = me.first() else {
            continue; // lib.rs: the root re-exports everything, by design
        };
        let Some(first) = u.absolute.first() else {
            continue;
        };
        if first == "ffi" {
            continue;
        }
        checked += 1;
        let rel = format!("src/{}", u.file);
        if !folders.contains(first) {
            problems.push(format!(
                "{rel}: `{}` goes through a crate-root re-export: name its folder path",
                u.written
            ));
            continue;
        }
        if first != folder {
            used.entry(folder.clone())
                .or_default()
                .entry(first.clone())
                .or_insert_with(|| format!("{rel}: `{}`", u.written));
            if let (Some(mine), Some(theirs)) = (rank(folder), rank(first))
                && theirs > mine
            {
                problems.push(format!(
                    "{rel}: uses `{}` from `{first}/`, which ARCHITECTURE.md lists above `{folder}/`",
                    u.absolute.join("::")
                ));
            }
        }
        let target = resolve(&u.absolute);
        if u.edge && target != me && !target.is_empty() {
            edges.entry(me.clone()).or_default().insert(target);
        }
    }

    // Each row's sentence "It uses …" against the folders its code uses.
    for row in &rows {
        let code_uses = used.get(&row.folder).cloned().unwrap_or_default();
        let Some(stated) = &row.uses else {
            problems.push(format!(
                "ARCHITECTURE.md's row `{}/` does not say what its folder uses (\"It uses …\")",
                row.folder
            ));
            continue;
        };
        for name in stated {
            if !code_uses.contains_key(name) {
                problems.push(format!(
                    "ARCHITECTURE.md's row `{}/` names `{name}/`, which src/{}/ does not use",
                    row.folder, row.folder
                ));
            }
        }
        for (name, example) in &code_uses {
            if !stated.contains(name) {
                problems.push(format!(
                    "src/{}/ uses `{name}/` ({example}), which ARCHITECTURE.md's row `{}/` does not name",
                    row.folder, row.folder
                ));
            }
        }
    }

    // Circles between files: strongly connected components of more than one module.
    for component in circles(&edges) {
        let names: Vec<String> = component
            .iter()
            .map(|m| {
                modules
                    .get(m)
                    .map_or_else(|| m.join("::"), |f| format!("src/{f}"))
            })
            .collect();
        problems.push(format!(
            "an import circle between files: {}",
            names.join(", ")
        ));
    }
    Findings {
        order,
        checked,
        problems,
    }
}

#[test]
fn folders_use_only_folders_below_them_and_no_file_import_circles() {
    let root = root();
    let src = root.join("src");
    if !src.is_dir() {
        println!("layers: no sources next to this test binary; nothing checked");
        return;
    }
    let architecture = fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let sources: Sources = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).expect("under src/");
            let key: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            (
                key.join("/"),
                fs::read_to_string(f).expect("readable source"),
            )
        })
        .collect();
    let found = check(&architecture, &sources);
    println!(
        "layers: {} paths checked against the order {}",
        found.checked,
        found.order.join(" < ")
    );
    assert!(
        found.problems.is_empty(),
        "the layering ARCHITECTURE.md documents is not the code's:\n{}",
        found.problems.join("\n")
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
fn use_trees_expand_groups_at_every_depth() {
    let code = code_only(
        "use crate::a::{b, c::{self, D as E}, f::*, g as _};\n// use crate::x::y;\npub(crate) use super::super::q::R;\nfn f() { use ffi::X as Raw; }\nuse ::ext::Y;\n",
    );
    let decls = use_decls(&code);
    let leaf = |segs: &str, name: Option<&str>| Leaf {
        segs: segs.split("::").map(str::to_owned).collect(),
        name: name.map(str::to_owned),
    };
    let found: Vec<(bool, &Vec<Leaf>)> = decls.iter().map(|d| (d.reexport, &d.leaves)).collect();
    assert_eq!(
        found,
        vec![
            (
                false,
                &vec![
                    leaf("crate::a::b", Some("b")),
                    leaf("crate::a::c", Some("c")),
                    leaf("crate::a::c::D", Some("E")),
                    leaf("crate::a::f", None),
                    leaf("crate::a::g", None),
                ]
            ),
            (true, &vec![leaf("super::super::q::R", Some("R"))]),
            (false, &vec![leaf("ffi::X", Some("Raw"))]),
            (false, &vec![]),
        ]
    );
}

#[test]
fn inline_paths_skip_comments_macros_visibility_and_imports() {
    let code = code_only(
        "use crate::a::b;\n// crate::x::y\nlet s = \"crate::z::w\";\npub(in crate::v) fn f() { crate::m::n(); $crate::hidden::x(); crate::a_macro!(); handle::Blas::new(); other::X; }\n",
    );
    let skip: Vec<_> = use_decls(&code).iter().map(|d| d.at..d.end).collect();
    let children = BTreeSet::from(["handle".to_owned()]);
    let found: Vec<String> = inline_paths(&code, &skip, &children, |_| true)
        .into_iter()
        .map(|(_, segs)| segs.join("::"))
        .collect();
    assert_eq!(found, ["crate::m::n", "handle::Blas::new"]);
}

#[test]
fn super_inside_an_inline_module_stays_in_its_file() {
    let me = vec!["a".to_owned(), "b".to_owned()];
    let p = |s: &str| -> Vec<String> { s.split("::").map(str::to_owned).collect() };
    let none = BTreeSet::new();
    let code = "fn f() {}\nmod tests {\n    use super::f;\n}\n";
    let inline = inline_modules(code);
    assert_eq!(inline.len(), 1);
    let at = code.find("super").unwrap_or(0);
    assert!(inline[0].contains(&at));
    assert_eq!(
        absolute_path(&me, 1, &p("super::X"), &none),
        Some(p("a::b::X"))
    );
    assert_eq!(absolute_path(&me, 1, &p("self::X"), &none), None);
    assert_eq!(
        absolute_path(&me, 1, &p("super::super::X"), &none),
        Some(p("a::X"))
    );
    assert_eq!(
        absolute_path(&me, 0, &p("super::X"), &none),
        Some(p("a::X"))
    );
    assert_eq!(
        absolute_path(&me, 0, &p("self::X"), &none),
        Some(p("a::b::X"))
    );
    assert_eq!(
        absolute_path(&me, 0, &p("super::super::X"), &none),
        Some(p("X"))
    );
    assert_eq!(
        absolute_path(&me, 0, &p("super::super::super::X"), &none),
        None
    );
    let children = BTreeSet::from(["c".to_owned()]);
    assert_eq!(
        absolute_path(&me, 0, &p("c::X"), &children),
        Some(p("a::b::c::X"))
    );
    assert_eq!(absolute_path(&me, 1, &p("c::X"), &children), None);
    assert_eq!(absolute_path(&me, 0, &p("std::X"), &children), None);
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

/// ARCHITECTURE.md of a tiny tree: `low/` below `high/`, each row saying what it uses.
fn tiny_architecture(low: &str, high: &str) -> String {
    format!(
        "# Architecture\n\n## Folders of `src/`\n\nBottom up.\n\n| folder | concept | main types |\n| --- | --- | --- |\n| `low/` | the bottom. {low} | `Shared` |\n| `high/` | the top. {high} | `StreamScope` |\n\n## Next\n"
    )
}

/// A tiny tree that keeps every rule: `low/mod.rs` re-exports `b.rs`'s `Shared`, `a.rs` uses it
/// through `super::`, `high/scope.rs` uses it by its folder path, the root re-exports both
/// folders. `changes` replace files or add them.
fn tiny_tree(changes: &[(&str, &str)]) -> Sources {
    let mut files: Sources = [
        (
            "lib.rs",
            "mod high;\nmod low;\npub use high::scope::StreamScope;\npub use low::Shared;\n",
        ),
        (
            "low/mod.rs",
            "mod a;\nmod b;\npub use b::Shared;\npub(crate) fn make() {}\n",
        ),
        (
            "low/a.rs",
            "use super::Shared;\npub struct Thing(Shared);\n",
        ),
        ("low/b.rs", "pub struct Shared;\n"),
        ("high/mod.rs", "pub mod scope;\n"),
        (
            "high/scope.rs",
            "use crate::low::Shared;\npub struct StreamScope(Shared);\n",
        ),
    ]
    .into_iter()
    .map(|(f, t)| (f.to_owned(), t.to_owned()))
    .collect();
    for (f, t) in changes {
        files.insert((*f).to_owned(), (*t).to_owned());
    }
    files
}

const LOW: &str = "It uses nothing of the crate";
const HIGH: &str = "It uses only `low/`";

fn problems(architecture: &str, changes: &[(&str, &str)]) -> Vec<String> {
    check(architecture, &tiny_tree(changes)).problems
}

#[test]
fn the_tiny_tree_keeps_every_rule() {
    let found = check(&tiny_architecture(LOW, HIGH), &tiny_tree(&[]));
    assert_eq!(found.problems, Vec::<String>::new());
    assert_eq!(found.order, ["low", "high"]);
    // `b::Shared`, `super::Shared` and `crate::low::Shared`; the root's re-exports are not checked.
    assert_eq!(found.checked, 3);
}

#[test]
fn a_super_path_into_a_root_reexport_is_found() {
    let arch = tiny_architecture(LOW, HIGH);
    let planted = "use super::super::StreamScope;\nuse super::Shared;\npub struct Thing(Shared);\n";
    assert_eq!(
        problems(&arch, &[("low/a.rs", planted)]),
        [
            "src/low/a.rs: `super::super::StreamScope` goes through a crate-root re-export: name its folder path"
        ]
    );
    // From a mod.rs one `super::` is the root.
    let planted = "mod a;\nmod b;\npub use b::Shared;\npub(crate) fn make() {}\nfn f(_: super::StreamScope) {}\n";
    assert_eq!(
        problems(&arch, &[("low/mod.rs", planted)]),
        [
            "src/low/mod.rs: `super::StreamScope` goes through a crate-root re-export: name its folder path"
        ]
    );
    // Named by its folder path, the same item is an upward import, which the row does not name.
    let planted = "use super::super::high::scope::StreamScope;\nuse super::Shared;\npub struct Thing(Shared);\n";
    assert_eq!(
        problems(&arch, &[("low/a.rs", planted)]),
        [
            "src/low/a.rs: uses `high::scope::StreamScope` from `high/`, which ARCHITECTURE.md lists above `low/`",
            "src/low/ uses `high/` (src/low/a.rs: `super::super::high::scope::StreamScope`), which ARCHITECTURE.md's row `low/` does not name",
        ]
    );
}

#[test]
fn a_circle_through_a_mod_rs_reexport_is_found() {
    let arch = tiny_architecture(LOW, HIGH);
    // `a.rs` reaches `b.rs` through `mod.rs`'s `pub use b::Shared`; `b.rs` uses `a.rs` back.
    let b_uses_a = "pub struct Shared;\nfn f(_: super::a::Thing) {}\n";
    assert_eq!(
        problems(&arch, &[("low/b.rs", b_uses_a)]),
        ["an import circle between files: src/low/a.rs, src/low/b.rs"]
    );
    // The same through the folder path of the re-export.
    let a_by_crate = "use crate::low::Shared;\npub struct Thing(Shared);\n";
    assert_eq!(
        problems(&arch, &[("low/b.rs", b_uses_a), ("low/a.rs", a_by_crate)]),
        ["an import circle between files: src/low/a.rs, src/low/b.rs"]
    );
    // `b.rs` using `mod.rs` is no circle while `mod.rs` only re-exports `Shared`...
    let b_uses_mod = "pub struct Shared;\nfn f() { super::make() }\n";
    assert_eq!(
        problems(&arch, &[("low/b.rs", b_uses_mod)]),
        Vec::<String>::new()
    );
    // ... and one once `mod.rs`'s own code names it.
    let mod_names_it =
        "mod a;\nmod b;\npub use b::Shared;\npub(crate) fn make() -> Shared { Shared }\n";
    assert_eq!(
        problems(
            &arch,
            &[("low/b.rs", b_uses_mod), ("low/mod.rs", mod_names_it)]
        ),
        ["an import circle between files: src/low/mod.rs, src/low/b.rs"]
    );
}

#[test]
fn each_rows_it_uses_sentence_is_checked_against_the_code() {
    // Named but not used.
    let high_alone = "pub struct StreamScope;\n";
    assert_eq!(
        problems(
            &tiny_architecture(LOW, HIGH),
            &[("high/scope.rs", high_alone)]
        ),
        ["ARCHITECTURE.md's row `high/` names `low/`, which src/high/ does not use"]
    );
    // Used but not named.
    assert_eq!(
        problems(&tiny_architecture(LOW, "It uses nothing of the crate"), &[]),
        [
            "src/high/ uses `low/` (src/high/scope.rs: `crate::low::Shared`), which ARCHITECTURE.md's row `high/` does not name"
        ]
    );
    // Not said at all.
    assert_eq!(
        problems(&tiny_architecture(LOW, "It is built on the bottom"), &[]),
        ["ARCHITECTURE.md's row `high/` does not say what its folder uses (\"It uses …\")"]
    );
    // The sentence ends at a semicolon or a full stop: what follows names no use.
    let after = "It uses only `low/`; `other/` is a crate it leaves alone. So does `more/`";
    assert_eq!(
        problems(&tiny_architecture(LOW, after), &[]),
        Vec::<String>::new()
    );
}
