//! The NCCL stand-in exports every entry point custack declares for NCCL (`ffi/nccl.rs`) and,
//! without the checking driver, answers `ncclSystemError` (2) and makes nothing
//! (`../../common/exports.rs`, whose "create" is `ncclGetUniqueId` here).

#[path = "../../common/exports.rs"]
mod exports;

use core::ffi::c_int;

#[test]
fn every_declared_entry_point_is_exported_and_answers_without_the_double() {
    let find = exports::check(&exports::StandIn {
        file: "libnccl.so",
        ffi: "nccl.rs",
        at_least: 20,
        lifecycle: ["ncclGetUniqueId", "ncclCommAbort", "ncclCommDestroy"],
        not_initialized: 2,
    });
    // A group call outside a group is NCCL's invalid usage, with or without the double.
    let end = find("ncclGroupEnd");
    // SAFETY: the stand-in's `ncclGroupEnd`, whose signature this is (NCCL's).
    let end: unsafe extern "C" fn() -> c_int = unsafe { core::mem::transmute(end) };
    // SAFETY: takes no argument.
    assert_eq!(unsafe { end() }, 5);
}
