//! The lints of the crates outside the workspace are the workspace's: `checkdriver/`,
//! `checkdriver/trace/` and `benches/checking/` are roots of their own, so they do not inherit
//! the root `Cargo.toml`'s `[workspace.lints]`; each states the same settings in its `[lints]`
//! table, and this keeps the four equal (a lint the workspace adds or drops, and a crate left
//! behind, fails here).

use std::collections::BTreeMap;
use std::path::Path;

/// `section -> key -> value` of the tables of `manifest` whose header starts with `prefix`
/// (`[workspace.lints.rust]` is section `rust` of prefix `workspace.lints`), comments and
/// blanks dropped, each value as written.
fn lint_tables(manifest: &Path, prefix: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(manifest)
        .unwrap_or_else(|e| panic!("{} is readable: {e}", manifest.display()));
    let mut tables = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = header
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix('.'))
                .map(str::to_owned);
            continue;
        }
        if let Some(section) = &current
            && let Some((key, value)) = line.split_once('=')
        {
            tables
                .entry(section.clone())
                .or_insert_with(BTreeMap::new)
                .insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    tables
}

#[test]
fn the_crates_outside_the_workspace_have_its_lints() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = lint_tables(&here.join("../Cargo.toml"), "workspace.lints");
    assert!(
        workspace.contains_key("rust") && workspace.contains_key("clippy"),
        "the root Cargo.toml's [workspace.lints]: {workspace:?}"
    );
    for crate_dir in [".", "trace", "../benches/checking"] {
        let manifest = here.join(crate_dir).join("Cargo.toml");
        assert_eq!(
            lint_tables(&manifest, "lints"),
            workspace,
            "{}'s [lints] are not the workspace's",
            manifest.display()
        );
    }
}
