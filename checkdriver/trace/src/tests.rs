//! The interposer's list against custack's declarations: every entry point `ffi/` links or
//! looks up is traced with its number of arguments, every erased argument is of the integer
//! class (the ABI note of `lib.rs`), and the version emulation's table is the checking driver's.

use super::{ARITIES, LOOKED_UP, NAMES, NEWER};
use std::collections::{BTreeMap, BTreeSet};

const FFI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ffi");
/// The checking driver's `cuGetProcAddress`, which holds its `NEWER`.
const DOUBLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../src/api/entry_point.rs");

/// The entry points declared by hand in `lib.rs` (not in `entries.rs`).
const BY_HAND: &[&str] = &[
    "cuGetProcAddress_v2",
    "cuDriverGetVersion",
    "cuIpcOpenMemHandle_v2",
    "cuIpcOpenEventHandle",
];

/// Every `ffi/*.rs` file's text.
fn ffi_sources() -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(FFI)
        .expect("ffi/ is readable")
        .map(|e| e.expect("an entry of ffi/").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("an ffi/ file is readable");
            (p.display().to_string(), text)
        })
        .collect()
}

/// `(name, argument types)` of each `fn` in the `link_or_stub! { libcuda; .. }` blocks.
fn linked(sources: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for (_, text) in sources {
        let mut rest = text.as_str();
        while let Some(at) = rest.find("link_or_stub! {") {
            rest = &rest[at + "link_or_stub! {".len()..];
            let block = &rest[..rest.find("\n}").expect("a link_or_stub! block ends")];
            if !block.trim_start().starts_with("libcuda;") {
                continue;
            }
            for (name, args) in functions(block, "pub fn ") {
                out.insert(name, args);
            }
        }
    }
    out
}

/// `(name, argument types)` of each `pub type PFN_name = unsafe extern "C" fn(..)`.
fn looked_up(sources: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for (_, text) in sources {
        for (name, args) in functions(text, "pub type PFN_") {
            out.insert(name, args);
        }
    }
    out
}

/// Each declaration starting with `marker` in `text`: its name and its argument types.
fn functions(text: &str, marker: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        rest = &rest[at + marker.len()..];
        let name_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .expect("a name ends");
        let name = rest[..name_end].to_owned();
        let open = rest.find('(').expect("an argument list");
        // The argument list: up to the matching parenthesis.
        let mut depth = 0;
        let mut close = open;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let list = &rest[open + 1..close];
        let args = split_top_level(list)
            .into_iter()
            .filter(|a| !a.trim().is_empty())
            .map(|a| {
                let (_, ty) = a.split_once(':').expect("an argument `name: type`");
                ty.split_whitespace().collect::<Vec<_>>().join(" ")
            })
            .collect();
        out.push((name, args));
        rest = &rest[close..];
    }
    out
}

/// `list` split at the commas outside angle brackets and parentheses.
fn split_top_level(list: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in list.chars() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

#[test]
fn entries_match_ffi() {
    let sources = ffi_sources();
    let linked = linked(&sources);
    let looked = looked_up(&sources);
    assert!(
        linked.len() > 150,
        "ffi/ declares {} linked entry points",
        linked.len()
    );
    let arities: BTreeMap<&str, usize> = ARITIES.iter().copied().collect();
    let mut problems = Vec::new();
    for (name, args) in linked.iter().chain(&looked) {
        if BY_HAND.contains(&name.as_str()) {
            continue;
        }
        let want = (0..args.len())
            .map(|i| format!("a{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        match arities.get(name.as_str()) {
            Some(&n) if n == args.len() => {}
            Some(&n) => problems.push(format!(
                "{name}: {n} arguments in entries.rs, ffi/ declares {}",
                args.len()
            )),
            None => problems.push(format!(
                "{name} is not traced: add `{name}({want});` to entries.rs"
            )),
        }
    }
    let declared: BTreeSet<&str> = linked
        .keys()
        .chain(looked.keys())
        .map(String::as_str)
        .collect();
    for (name, _) in ARITIES {
        if !declared.contains(name) {
            problems.push(format!(
                "{name} is in entries.rs but ffi/ no longer declares it"
            ));
        }
    }
    for name in BY_HAND {
        assert!(
            linked.contains_key(*name),
            "{name} (declared by hand) is linked by ffi/"
        );
    }
    // Each looked-up entry point is asked for by its unversioned name (`cuCtxCreate`).
    for (entry, asked) in LOOKED_UP {
        let unversioned = match entry.rsplit_once("_v") {
            Some((base, n)) if n.chars().all(|c| c.is_ascii_digit()) => base,
            _ => entry,
        };
        assert_eq!(
            *asked, unversioned,
            "{entry} is looked up as its unversioned name"
        );
        assert!(
            looked.contains_key(*entry),
            "{entry} has a PFN_ type in ffi/"
        );
    }
    assert!(
        problems.is_empty(),
        "entries.rs differs from ffi/:\n{}",
        problems.join("\n")
    );
    assert_eq!(NAMES.len(), ARITIES.len() + BY_HAND.len());
}

/// Where `name` is defined in `ffi/`: whether its values travel as one integer-class eightbyte.
fn integer_class(name: &str, sources: &[(String, String)], seen: &mut BTreeSet<String>) -> bool {
    let name = name
        .trim_start_matches("super::types::")
        .trim_start_matches("super::launch::")
        .trim_start_matches("core::ffi::");
    if name.starts_with('*') || name.starts_with("Option<unsafe extern \"C\" fn") {
        return true;
    }
    if matches!(
        name,
        "c_int"
            | "c_uint"
            | "c_uchar"
            | "c_ushort"
            | "c_ulonglong"
            | "c_longlong"
            | "usize"
            | "u64"
            | "u32"
            | "i32"
    ) {
        return true;
    }
    if !seen.insert(name.to_owned()) {
        return false;
    }
    for (_, text) in sources {
        // `pub type NAME = ...;`
        if let Some(at) = text.find(&format!("pub type {name} =")) {
            let rhs = &text[at + format!("pub type {name} =").len()..];
            let rhs = rhs[..rhs.find(';').expect("a type alias ends")].trim();
            let rhs = rhs
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .replace("< ", "<");
            return integer_class(&rhs, sources, seen);
        }
        // An opaque handle (`opaque! { NAME_st => NAME; }`): a pointer.
        if text.contains(&format!("_st => {name};")) {
            return true;
        }
        // A C enum (`c_enum! { NAME { .. } }`) or a newtype of `c_int`.
        if text.contains(&format!("pub struct {name}(pub c_int);")) {
            return true;
        }
        for (i, _) in text.match_indices(&format!("    {name} {{\n")) {
            let before = &text[..i];
            let opened = before.rfind("c_enum! {").unwrap_or(0);
            let closed = before.rfind("\n}").unwrap_or(0);
            if opened > closed {
                return true;
            }
        }
    }
    false
}

#[test]
fn erased_arguments_are_integer_class() {
    let sources = ffi_sources();
    let mut all = linked(&sources);
    all.extend(looked_up(&sources));
    let mut problems = Vec::new();
    for (name, args) in &all {
        if BY_HAND.contains(&name.as_str()) {
            continue;
        }
        for ty in args {
            if !integer_class(ty, &sources, &mut BTreeSet::new()) {
                problems.push(format!("{name}: argument type {ty}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "arguments that may not travel as one integer-class eightbyte (declare the function \
         exactly in lib.rs, as cuIpcOpenMemHandle_v2 is):\n{}",
        problems.join("\n")
    );
    // The check itself: a by-value struct is refused, a pointer to one is not.
    assert!(!integer_class(
        "CUipcMemHandle",
        &sources,
        &mut BTreeSet::new()
    ));
    assert!(integer_class(
        "*mut CUipcMemHandle",
        &sources,
        &mut BTreeSet::new()
    ));
    assert!(integer_class(
        "CUdevice_attribute",
        &sources,
        &mut BTreeSet::new()
    ));
    assert!(integer_class("CUstream", &sources, &mut BTreeSet::new()));
    assert!(integer_class("CUhostFn", &sources, &mut BTreeSet::new()));
    assert!(!integer_class("f32", &sources, &mut BTreeSet::new()));
}

#[test]
fn newer_matches_the_double() {
    let text =
        std::fs::read_to_string(DOUBLE).expect("checkdriver/src/api/entry_point.rs is readable");
    let start = text
        .find("const NEWER: &[(&[u8], c_int)] = &[")
        .expect("the double's NEWER");
    let block = &text[start..start + text[start..].find("];").expect("NEWER ends")];
    let theirs: Vec<(String, i32)> = block
        .lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("(b\"")?;
            let (name, rest) = l.split_once("\", ")?;
            let version = rest.trim_end_matches("),").parse().ok()?;
            Some((name.to_owned(), version))
        })
        .collect();
    let ours: Vec<(String, i32)> = NEWER
        .iter()
        .map(|(n, v)| (String::from_utf8_lossy(n).into_owned(), *v))
        .collect();
    assert!(!theirs.is_empty());
    assert_eq!(
        ours, theirs,
        "the interposer's NEWER is the checking driver's"
    );
}

#[test]
fn emulation_hides_what_the_version_lacks() {
    use super::{EMULATED, emulation_hides};
    use core::sync::atomic::Ordering::Relaxed;
    EMULATED.store(0, Relaxed);
    assert!(
        !emulation_hides(b"cuCtxCreate"),
        "no emulation: nothing hidden"
    );
    EMULATED.store(12050, Relaxed);
    assert!(!emulation_hides(b"cuCtxCreate"), "cuCtxCreate_v4 is 12.5");
    assert!(
        emulation_hides(b"cuLogsRegisterCallback"),
        "12.9 is hidden at 12.5"
    );
    assert!(!emulation_hides(b"cuFuncGetParamInfo"));
    EMULATED.store(12040, Relaxed);
    assert!(
        emulation_hides(b"cuCtxCreate"),
        "cuCtxCreate_v4 is hidden at 12.4"
    );
    EMULATED.store(0, Relaxed);
}
