//! The cuSOLVER stand-in exports every entry point custack declares for cuSOLVER (`ffi/cusolver.rs`) and,
//! without the checking driver, answers `NOT_INITIALIZED` (1) and makes no handle
//! (`../../common/exports.rs`).

#[path = "../../common/exports.rs"]
mod exports;

#[test]
fn every_declared_entry_point_is_exported_and_answers_without_the_double() {
    let _ = exports::check(&exports::StandIn {
        file: "libcusolver.so",
        ffi: "cusolver.rs",
        at_least: 30,
        lifecycle: [
            "cusolverDnCreate",
            "cusolverDnSetStream",
            "cusolverDnDestroy",
        ],
        not_initialized: 1,
    });
}
