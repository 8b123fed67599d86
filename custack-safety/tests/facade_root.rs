//! Every public item of `custack::safety` is at the facade's root too, so that a program that
//! depends on `custack-safety` alone finds `WaitBound`, `OnOverrun`, `Resource`, ... where the
//! docs and the safety manual name them (`use custack_safety::WaitBound`), not only under
//! `custack_safety::safety`.

use std::collections::BTreeSet;

/// The names a `pub use` list of `path` re-exports, from the first line that starts with
/// `prefix` to its closing `;`.
fn names(source: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find(prefix) {
        let list = &rest[at + prefix.len()..];
        let end = list.find(';').expect("a `pub use` ends with `;`");
        let items = &list[..end];
        let items = items
            .split_once('{')
            .map_or(items, |(_, inner)| inner.trim_end().trim_end_matches('}'));
        for item in items.split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let item = item.rsplit("::").next().unwrap_or(item);
            found.insert(item.to_owned());
        }
        rest = &list[end..];
    }
    found
}

#[test]
fn every_item_of_custack_safety_is_at_the_facade_root() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let safety = std::fs::read_to_string(format!("{dir}/../src/safety/mod.rs")).unwrap();
    let facade = std::fs::read_to_string(format!("{dir}/src/lib.rs")).unwrap();
    let in_safety: BTreeSet<String> = safety
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
        .split("\npub use ")
        .skip(1)
        .flat_map(|list| names(&format!("pub use {list}"), "pub use "))
        .collect();
    let at_root = names(&facade, "pub use custack::safety::{");
    assert!(in_safety.len() > 10, "{in_safety:?}");
    let missing: Vec<_> = in_safety.difference(&at_root).collect();
    assert!(
        missing.is_empty(),
        "not at custack_safety's root: {missing:?}"
    );
    // And they resolve: a program naming them through the facade alone compiles.
    let _: Option<(
        custack_safety::WaitBound,
        custack_safety::OnOverrun,
        custack_safety::Resource,
    )> = None;
}
