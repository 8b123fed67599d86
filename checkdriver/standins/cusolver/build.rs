//! Gives the stand-in cuSOLVER 12's soname, and writes its entry points (`entry_points.rs` in
//! `OUT_DIR`) from custack's own declaration of them, `ffi/cusolver.rs`: every function its
//! `link_or_stub!` block declares is exported, so that a program linked against the stand-in
//! loads (Rust binaries bind every symbol at load), whatever custack declares next. Only the
//! handle's lifecycle (`cusolverDnCreate`, `cusolverDnSetStream`, `cusolverDnDestroy`) and
//! the workspace queries (`*_bufferSize`) are modelled; every other entry point answers
//! `CUSOLVER_STATUS_NOT_SUPPORTED` (src/lib.rs).
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcusolver.so.12");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let ffi = manifest.join("../../../ffi/cusolver.rs");
    println!("cargo:rerun-if-changed={}", ffi.display());
    let text = std::fs::read_to_string(&ffi)
        .unwrap_or_else(|e| panic!("{}: {e} (the stand-in reads custack's ffi)", ffi.display()));
    let block = text
        .split_once("link_or_stub! {")
        .map(|(_, b)| b)
        .expect("ffi/cusolver.rs declares its entry points in a link_or_stub! block");
    let mut out = String::new();
    let mut n = 0;
    for decl in block.split("pub fn ").skip(1) {
        let (name, rest) = decl.split_once('(').expect("`pub fn NAME(`");
        let (args, _) = rest.split_once(')').expect("`(ARGS)`");
        let args: Vec<(String, String)> = args
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| {
                let (arg, ty) = a.split_once(':').expect("`arg: type`");
                (arg.trim().to_owned(), c_type(ty.trim()))
            })
            .collect();
        let list: Vec<String> = args.iter().map(|(a, t)| format!("{a}: {t}")).collect();
        let kind = if name == "cusolverDnCreate" {
            "create"
        } else if name == "cusolverDnDestroy" {
            "destroy"
        } else if name == "cusolverDnSetStream" {
            "set_stream"
        } else if name.ends_with("_bufferSize") {
            "buffer_size"
        } else if args.first().is_some_and(|(_, t)| t == "Handle") {
            "not_supported"
        } else {
            "no_handle"
        };
        let final_arg = args.last().map_or("", |(a, _)| a.as_str());
        let _ = writeln!(
            out,
            "entry_point!({kind} {name}({}) last {final_arg});",
            list.join(", ")
        );
        n += 1;
    }
    assert!(n >= 3, "ffi/cusolver.rs declares {n} entry points");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(dest.join("entry_points.rs"), out).expect("OUT_DIR is writable");
}

/// The C type of an argument as the stand-in takes it: what it passes by value at the same
/// place in registers (`repr(transparent)` enums are `c_int`), pointers untyped.
fn c_type(ty: &str) -> String {
    match ty {
        "cusolverDnHandle_t" | "CUstream" => "Handle".to_owned(),
        "c_int" | "c_char" | "f32" | "f64" => ty.to_owned(),
        t if t.starts_with("*const") => "*const c_void".to_owned(),
        t if t.starts_with("*mut") => "*mut c_void".to_owned(),
        // cublasFillMode_t, cusolverEigMode_t, libraryPropertyType, ...: `repr(transparent)`
        // over `c_int`.
        _ => "c_int".to_owned(),
    }
}
