//! Placeholder: filled in by the library's own commit.
fn main() {}
