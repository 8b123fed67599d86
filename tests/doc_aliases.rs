//! Documentation coverage of the safe layer: every public function of `src/` that calls the
//! driver carries a `#[doc(alias = "cu…")]`, so searching the docs for a driver function finds
//! its wrapper.
//!
//! "Calls the driver" means the function's body names a linked symbol (`ffi::cu…`), a looked-up
//! entry point (`lookup::NAME.get()`), or a private helper of `src/` that does either (followed
//! to a fixed point, by name). Trait methods and trait impls are not counted: a trait's docs
//! name the driver calls of its methods. The parser is a small tokenizer (comments, strings,
//! raw strings and char literals are skipped, braces matched), so it needs nothing beyond std.
//!
//! Following calls by name over-approximates: `Self::new(` inside `impl Error` matches every
//! public `new` that calls the driver. Where library code makes such a call, it is written as
//! the natural call and named in [`NOT_DRIVER_CALLS`], one fn and one callee name at a time; an
//! entry that suppresses nothing fails the test, so the list cannot outlive the code it excuses.
//! `DOC_ALIASES_VERBOSE=1` prints every fn found to reach the driver and the callee it reached
//! it through, which is what an entry names.
//!
//! Needs no GPU and no libcuda at run time. It reads the sources next to `Cargo.toml`; a test
//! binary carried to a machine without them (the GPU bundle) says so and checks nothing.
//!
//! Run: `cargo test --test doc_aliases -- --nocapture` prints the count of wrappers it checked.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// One `fn` item of `src/`: where it is, whether it is `pub`, what precedes it (its docs and
/// attributes) and its body.
struct FnItem {
    file: String,
    /// The file stem, the module a path to its private helpers names.
    module: String,
    line: usize,
    name: String,
    public: bool,
    prefix: String,
    body: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source with comments, string literals and char literals blanked out (kept as spaces, so
/// byte offsets and line numbers survive), for finding `fn` items and matching braces.
fn code_only(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (rest.starts_with(b"r\"") || rest.starts_with(b"r#"))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let start = i + 2 + hashes;
            let end = b[start..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |n| start + n + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, (j + 1).min(b.len()));
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime ('a), which is kept.
            let len = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|n| n + 3)
            } else {
                let ch = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            match len {
                Some(len) => {
                    blank(&mut out, i, i + len);
                    i += len;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The `{` opening the body of the fn whose signature starts at `from`; `None` at a `;` (a
/// declaration without a body).
fn body_start(code: &[u8], from: usize) -> Option<usize> {
    let mut nesting = 0i32;
    for (at, &c) in code.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => nesting += 1,
            b')' | b']' => nesting -= 1,
            b'{' if nesting == 0 => return Some(at),
            b';' if nesting == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The `}` matching the `{` at `open` (the end of `code` if it is unbalanced).
fn matching_brace(code: &[u8], open: usize) -> usize {
    let mut nesting = 0usize;
    for (at, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => nesting += 1,
            b'}' => {
                nesting -= 1;
                if nesting == 0 {
                    return at;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// Every `fn` with a body in `src`, with its visibility, the docs and attributes above it, and
/// whether it sits in a trait or a trait impl (where `pub` is not written).
fn fn_items(file: &str, src: &str) -> Vec<FnItem> {
    let code = code_only(src);
    let mut items = Vec::new();
    // Braces that open a trait (`true` if `pub trait`) or a trait impl (`false`): the default
    // methods of a `pub trait` are public; fns of trait impls are skipped (documented at the
    // trait, and `drop`/`fmt` are no helpers).
    let mut trait_depths: Vec<(usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let mut last_item_end = 0; // where the text before the next item starts
    while i < code.len() {
        let c = code[i];
        if c == b'{' {
            // Is this the body of `trait X` or `impl X for Y`? Look at the header before it.
            let header_start = code[..i]
                .iter()
                .rposition(|&c| c == b';' || c == b'}' || c == b'{')
                .map_or(0, |n| n + 1);
            let header = String::from_utf8_lossy(&code[header_start..i]);
            let words: Vec<&str> = header
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let is_trait = words.contains(&"trait");
            let is_trait_impl = (words.first() == Some(&"impl") && words.contains(&"for"))
                || (words.starts_with(&["unsafe", "impl"]) && words.contains(&"for"));
            depth += 1;
            if is_trait {
                let public = words.first() == Some(&"pub") && !header.contains("pub(");
                trait_depths.push((depth, public));
            } else if is_trait_impl {
                trait_depths.push((depth, false));
            }
            last_item_end = i + 1;
            i += 1;
            continue;
        }
        if c == b'}' {
            if trait_depths.last().is_some_and(|&(d, _)| d == depth) {
                trait_depths.pop();
            }
            depth = depth.saturating_sub(1);
            last_item_end = i + 1;
            i += 1;
            continue;
        }
        if c == b';' {
            last_item_end = i + 1;
            i += 1;
            continue;
        }
        let at_word = i == 0 || !is_ident(code[i - 1]);
        if !(at_word && code[i..].starts_with(b"fn ")) {
            i += 1;
            continue;
        }
        // `fn name`: the qualifiers before it on the same item decide visibility.
        let name_start = i + 3;
        let name_end = name_start
            + code[name_start..]
                .iter()
                .take_while(|&&c| is_ident(c))
                .count();
        let name = String::from_utf8_lossy(&code[name_start..name_end]).into_owned();
        let head = String::from_utf8_lossy(&code[last_item_end..i]).into_owned();
        // The qualifiers are the words after the last attribute, e.g. `pub const unsafe`.
        let quals = head.rsplit(']').next().unwrap_or("").trim().to_owned();
        let pub_trait = trait_depths
            .last()
            .and_then(|&(d, p)| (d == depth).then_some(p));
        let public = quals.split_whitespace().next() == Some("pub") || pub_trait == Some(true);
        // The body: from the first `{` after the signature (or none, at a `;`).
        let Some(open) = body_start(&code, name_end) else {
            i = code[name_end..]
                .iter()
                .position(|&c| c == b';')
                .map_or(code.len(), |n| name_end + n + 1);
            last_item_end = i;
            continue;
        };
        let close = matching_brace(&code, open);
        if pub_trait != Some(false) {
            items.push(FnItem {
                file: file.to_owned(),
                module: Path::new(file)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                line: src[..i].lines().count().max(1),
                name,
                public,
                prefix: src[last_item_end..i].to_owned(),
                body: src[open..=close.min(src.len() - 1)].to_owned(),
            });
        }
        i = close + 1;
        last_item_end = i;
    }
    items
}

/// Whether `body` calls a linked or looked-up driver function directly.
fn calls_driver_directly(body: &str) -> bool {
    body.contains("ffi::cu") || (body.contains("lookup::") && body.contains(".get()"))
}

/// Whether `body` calls the private helper `name` of `module` (a file stem of `src/`): as
/// `name(` or `name::<`, unqualified, as a method (`.name(`), or through a path of this crate
/// (`self::`, `super::`, `crate::`, `Self::`, `module::`). `core::mem::take(` is not `take(`.
fn calls(body: &str, name: &str, module: &str) -> bool {
    call_sites(body, name).any(|start| {
        let path_start = body[..start]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |n| n + 1);
        let path = &body[path_start..start];
        path.is_empty()
            || ["self::", "super::", "crate::", "Self::"]
                .iter()
                .any(|p| path.starts_with(p))
            || path.starts_with(&format!("{module}::"))
    })
}

/// Where `name` is called in `body`: the byte offset of each whole-word `name` followed by
/// `(` or `::<`.
fn call_sites<'a>(body: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    body.match_indices(name).filter_map(move |(start, _)| {
        let after = &body[start + name.len()..];
        let whole_word = start == 0 || !is_ident(body.as_bytes()[start - 1]);
        (whole_word && (after.starts_with('(') || after.starts_with("::<"))).then_some(start)
    })
}

/// Whether `body` calls the method `name` on `self` or a field of it (`self.name(`,
/// `self.field.name(`, `self.name::<`), or as `Self::name(`.
fn calls_on_self(body: &str, name: &str) -> bool {
    call_sites(body, name).any(|start| {
        let receiver_start = body[..start]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == ':'))
            .map_or(0, |n| n + 1);
        let receiver = &body[receiver_start..start];
        // `self.name(`, or `self.field.name(` unless `name` is also a common std method (the
        // field may be an array, an `Option` or a `Vec`: `self.raw.map(` is no driver call).
        let fields = receiver.matches('.').count();
        let std_name = [
            "map", "get", "push", "len", "is_empty", "take", "insert", "iter",
        ];
        receiver == "Self::"
            || receiver == "self."
            || (receiver.starts_with("self.") && fields == 2 && !std_name.contains(&name))
    })
}

/// Calls the name-following heuristic would take for a call of the crate's driver-reaching fn
/// of that name, but which are not: `(file, fn, callee, why)` says that inside `fn` of `file`
/// (each fn of that name in the file) a call named `callee` reaches no driver function.
/// Each entry excuses every call of that one name in that one fn, so keep a fn that needs an
/// entry short, and never list a callee that does reach the driver.
///
/// Every entry must excuse a call the heuristic would otherwise follow: one that no longer
/// does (the fn was renamed, moved, or no longer makes the call) fails
/// `every_not_driver_call_entry_excuses_a_call`, so delete it.
///
/// Calls the heuristic does not follow need no entry: a path call on another type
/// (`CString::new(`, `Vec::push(`), a public method called on a local (`bytes.push(`).
const NOT_DRIVER_CALLS: &[(&str, &str, &str, &str)] = &[
    (
        "src/kernel/library.rs",
        "name_at",
        "get",
        "`Library::name_at` slices the library's own PTX (`.get(range)` of a byte slice) for the \
         name a kernel was looked up with; the heuristic matches `.get(` to the public `get` of \
         a looked-up entry point",
    ),
    (
        "src/graph/params.rs",
        "nth",
        "get",
        "`KernelNodes::nth` and `DataNodes::nth` index their own `Vec`s (`.get(i)` of a slice); \
         the heuristic matches `.get(` to the public `get` of a looked-up entry point and of a \
         memory pool's attribute",
    ),
    (
        "src/error/failure.rs",
        "custack",
        "new",
        "`Self::new` in `impl Error` is `Error::new`, which builds a value; the heuristic matches \
         `Self::new(` to every public `new` that calls the driver (`Context::new`, `Stack::new`)",
    ),
    (
        "src/nccl/batch.rs",
        "all_reduce",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/nccl/batch.rs",
        "all_reduce_in_place",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/nccl/batch.rs",
        "broadcast",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/nccl/batch.rs",
        "reduce",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/nccl/batch.rs",
        "all_gather",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/nccl/batch.rs",
        "reduce_scatter",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/nccl/batch.rs",
        "send",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/nccl/batch.rs",
        "recv",
        "record",
        "`self.record(` in a `Batch` is the batch's own private `record`, which pushes the checked \
         call (NCCL sees nothing before `issue`); the heuristic matches it to the public \
         `record` of a graph builder, which adds an event node",
    ),
    (
        "src/safety/redundant.rs",
        "compare",
        "settle",
        "`settle` here is the module's own: the mismatch's policy (return or fail-stop), no \
         driver call; the heuristic matches it to NCCL's `Comm::settle`",
    ),
    (
        "src/safety/redundant.rs",
        "check",
        "settle",
        "`settle` here is the module's own: the mismatch's policy (return or fail-stop), no \
         driver call; the heuristic matches it to NCCL's `Comm::settle`",
    ),
    (
        "src/safety/redundant.rs",
        "due",
        "get",
        "`self.every.get()` is `NonZeroU64::get`; the heuristic matches it to the entry-point \
         lookup's `get`",
    ),
    (
        "src/solver/infos.rs",
        "call",
        "get",
        "`SolverInfos::call` indexes its own slots (`.get(i)` of a slice, `Cell::get`); the \
         heuristic matches `.get(` to the entry-point lookup's `get`",
    ),
    (
        "src/solver/infos.rs",
        "calls",
        "get",
        "`InfoBatch::calls` is `Cell::get` of its count; the heuristic matches it to the \
         entry-point lookup's `get`",
    ),
];

/// The entry of [`NOT_DRIVER_CALLS`] excusing calls named `callee` in `f`, if any.
fn excused(f: &FnItem, callee: &str) -> Option<usize> {
    NOT_DRIVER_CALLS
        .iter()
        .position(|&(file, name, c, _)| f.file == file && f.name == name && c == callee)
}

/// How a fn reaches the driver.
#[derive(Clone, Copy)]
enum Reach<'a> {
    /// It names a linked or looked-up driver function itself.
    Directly,
    /// It calls the fn of this name, which reaches the driver.
    Through(&'a str),
}

impl std::fmt::Display for Reach<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reach::Directly => f.write_str("directly"),
            Reach::Through(h) => write!(f, "through {h}"),
        }
    }
}

/// Which fns of `items` reach the driver (to a fixed point) and how; and, for each entry of
/// [`NOT_DRIVER_CALLS`], whether it excused a call. A fn reaches the driver directly; through a private helper (by name; names shared
/// with a public fn are left out of the helpers, since a call by that name may be the public
/// one); or through a public method called on `self` (`self.alloc(`,
/// `self.function.attributes(`, `Self::new(`).
fn reach(items: &[FnItem]) -> (Vec<Option<Reach<'_>>>, Vec<bool>) {
    let public_names: BTreeSet<&str> = items
        .iter()
        .filter(|f| f.public)
        .map(|f| f.name.as_str())
        .collect();
    let mut via: Vec<Option<Reach<'_>>> = vec![None; items.len()];
    let mut excuses_used = vec![false; NOT_DRIVER_CALLS.len()];
    loop {
        let mut changed = false;
        for (i, f) in items.iter().enumerate() {
            if via[i].is_some() {
                continue;
            }
            let mut found = calls_driver_directly(&f.body).then_some(Reach::Directly);
            let reached = items.iter().zip(&via).filter(|(_, v)| v.is_some());
            for (g, _) in reached {
                let follows = if g.public {
                    calls_on_self(&f.body, &g.name)
                } else {
                    !public_names.contains(g.name.as_str()) && calls(&f.body, &g.name, &g.module)
                };
                if !follows {
                    continue;
                }
                if let Some(entry) = excused(f, &g.name) {
                    excuses_used[entry] = true;
                } else {
                    found = Some(Reach::Through(&g.name));
                    break;
                }
            }
            if found.is_some() {
                via[i] = found;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (via, excuses_used)
}

/// The items of `src/` as parsed, or `None` where the sources are not beside the binary.
fn source_items() -> Option<Vec<FnItem>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    if !root.is_dir() {
        eprintln!("{} not found: nothing checked", root.display());
        return None;
    }
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut items = Vec::new();
    for path in &files {
        let src = fs::read_to_string(path).unwrap();
        let rel = path.strip_prefix(root.parent().unwrap()).unwrap();
        items.extend(fn_items(&rel.display().to_string(), &src));
    }
    assert!(
        items.len() > 300,
        "the parser found only {} fns",
        items.len()
    );
    Some(items)
}

/// The CUDA libraries whose functions start with `cu`, by the prefix of their names, and the
/// documentation their wrappers link (the driver's functions link the driver API's pages).
const LIBRARY_PAGES: &[(&str, &str)] = &[
    ("cublas", "<https://docs.nvidia.com/cuda/cublas/"),
    ("cufft", "<https://docs.nvidia.com/cuda/cufft/"),
    ("curand", "<https://docs.nvidia.com/cuda/curand/"),
    ("cusparse", "<https://docs.nvidia.com/cuda/cusparse/"),
    ("cudnn", "<https://docs.nvidia.com/deeplearning/cudnn/"),
    ("cusolver", "<https://docs.nvidia.com/cuda/cusolver/"),
];

/// Every fn that names a driver function in a doc alias links NVIDIA's page for that
/// function's group (a `# References` section: the pages are per group, not per function);
/// one that names a function of a CUDA library (cuBLAS and cuBLASLt, cuFFT, cuRAND, cuSOLVER) links that
/// library's documentation.
#[test]
fn every_doc_alias_links_nvidias_page() {
    let Some(items) = source_items() else {
        return;
    };
    let missing: Vec<String> = items
        .iter()
        .filter(|f| f.prefix.contains("doc(alias = \"cu"))
        .filter(|f| {
            // The CUDA libraries' wrappers link their library's own pages instead.
            let page = LIBRARY_PAGES
                .iter()
                .find(|(prefix, _)| f.prefix.contains(&format!("doc(alias = \"{prefix}")))
                .map_or(
                    "<https://docs.nvidia.com/cuda/cuda-driver-api/group__",
                    |&(_, page)| page,
                );
            !f.prefix.contains(page)
        })
        .map(|f| format!("{}:{}: fn {}", f.file, f.line, f.name))
        .collect();
    assert!(
        missing.is_empty(),
        "{} fns with a driver doc alias link no NVIDIA page:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn every_public_driver_wrapper_has_a_doc_alias() {
    let Some(items) = source_items() else {
        return;
    };

    let (via, _) = reach(&items);

    let verbose = std::env::var_os("DOC_ALIASES_VERBOSE").is_some();
    if verbose {
        for (f, via) in items.iter().zip(&via) {
            if let Some(via) = via {
                println!(
                    "reaches the driver {via}: {}:{}: {}",
                    f.file, f.line, f.name
                );
            }
        }
    }
    let mut checked = 0;
    let mut missing = Vec::new();
    for (f, via) in items.iter().zip(&via).filter(|(f, _)| f.public) {
        let has_alias = f.prefix.contains("doc(alias");
        let Some(via) = via else {
            if verbose && !has_alias {
                println!("no driver call: {}:{}: {}", f.file, f.line, f.name);
            }
            continue;
        };
        checked += 1;
        if !has_alias {
            missing.push(format!(
                "{}:{}: pub fn {}{}",
                f.file,
                f.line,
                f.name,
                match via {
                    Reach::Directly => String::new(),
                    Reach::Through(_) => format!(" ({via})"),
                }
            ));
        }
    }
    assert!(
        checked > 100,
        "the parser found only {checked} driver wrappers"
    );
    println!(
        "{checked} public fns call the driver; {} lack #[doc(alias)]",
        missing.len()
    );
    assert!(
        missing.is_empty(),
        "{} public fns call the driver but have no #[doc(alias = \"cu…\")]:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// Every entry of [`NOT_DRIVER_CALLS`] excuses a call the heuristic would otherwise follow
/// into a driver-reaching fn; an entry that excuses nothing is stale and must go.
#[test]
fn every_not_driver_call_entry_excuses_a_call() {
    let Some(items) = source_items() else {
        return;
    };
    let (_, used) = reach(&items);
    let stale: Vec<String> = NOT_DRIVER_CALLS
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|((file, name, callee, _), _)| format!("({file:?}, {name:?}, {callee:?})"))
        .collect();
    println!(
        "{} of {} NOT_DRIVER_CALLS entries excuse a call",
        used.iter().filter(|u| **u).count(),
        NOT_DRIVER_CALLS.len()
    );
    assert!(
        stale.is_empty(),
        "{} NOT_DRIVER_CALLS entries excuse no call the heuristic follows (no such fn, or it no \
         longer makes that call, or the callee reaches no driver function): delete them:\n{}",
        stale.len(),
        stale.join("\n")
    );
}
