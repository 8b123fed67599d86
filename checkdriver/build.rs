//! Gives the library the soname of the real driver, so that a binary linked against it asks the
//! loader for `libcuda.so.1`, as one linked against the NVIDIA driver does.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
}
