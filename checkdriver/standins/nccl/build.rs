//! Gives NCCL's stand-in NCCL's soname. Its entry points are written by hand (`src/lib.rs`):
//! NCCL's calls take their communicator last or not at all, which `../common/build.rs`'s
//! kinds do not describe; `tests/exports.rs` checks that every one custack declares is there.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnccl.so.2");
}
