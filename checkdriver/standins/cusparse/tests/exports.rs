//! The cuSPARSE stand-in exports every entry point custack declares for cuSPARSE (`ffi/cusparse.rs`) and,
//! without the checking driver, answers `NOT_INITIALIZED` (1) and makes no handle
//! (`../../common/exports.rs`).

#[path = "../../common/exports.rs"]
mod exports;

#[test]
fn every_declared_entry_point_is_exported_and_answers_without_the_double() {
    let _ = exports::check(&exports::StandIn {
        file: "libcusparse.so",
        ffi: "cusparse.rs",
        at_least: 15,
        lifecycle: ["cusparseCreate", "cusparseSetStream", "cusparseDestroy"],
        not_initialized: 1,
    });
}
