//! Empty on purpose: the crate `custack-ui-tests` is its test, `tests/ui.rs`, which runs the
//! compile-fail programs of `ui-tests/` with trybuild.
//!
//! The library exists for the features. trybuild checks each program in a generated crate that
//! depends on this one and turns on the features this crate's test was built with, but it passes
//! them on only through this crate's library (a feature of a crate without one is dropped). With
//! it, `--features cublas` here turns on `custack-ui-tests/cublas` there, which is custack's
//! `cublas` (`ui-tests/Cargo.toml`).
