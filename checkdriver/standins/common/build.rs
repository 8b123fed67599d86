//! The build script of every stand-in (`build = "../common/build.rs"`): gives the library its
//! soname, and writes its entry points (`entry_points.rs` in `OUT_DIR`, which
//! `common/standin.rs` expands) from custack's own declaration of them, `ffi/<library>.rs`:
//! every function its `link_or_stub!` block declares is exported, so that a program linked
//! against the stand-in loads (Rust binaries bind every symbol at load), whatever custack
//! declares next. Which library is the package's name's last word (`custack-standin-cusolver`).
//!
//! Each entry point gets a kind, from its name and arguments: the handle's `create`, `destroy`
//! and `set_stream`; a workspace query (`*_bufferSize`, its size written through its last
//! argument, an `int` or a `size_t`); a descriptor's create or destroy (any other `…Create…` or
//! `…Destroy…` whose first argument is an out-pointer or a descriptor); the error string; any
//! other call with the handle first (`not_supported`); or one without (`no_handle`). A library
//! may define some entry points itself (`by_hand`: cuDNN's descriptor sets and shape queries,
//! which answer values): those are not written.
use std::fmt::Write as _;
use std::path::PathBuf;

/// Per library: its ffi file, soname, and the names of its handle's lifecycle (`set_stream` ""
/// for a library that takes the stream with each call, cuBLASLt).
struct Library {
    ffi: &'static str,
    soname: &'static str,
    create: &'static str,
    destroy: &'static str,
    set_stream: &'static str,
    handle_type: &'static str,
    /// Entry points the stand-in's `src/lib.rs` defines itself (cuDNN's descriptor sets and
    /// queries, answered with values; cuBLAS's handle settings, answered with success): none is
    /// written here.
    by_hand: &'static [&'static str],
}

const LIBRARIES: [(&str, Library); 5] = [
    (
        "cusolver",
        Library {
            ffi: "cusolver.rs",
            soname: "libcusolver.so.12",
            create: "cusolverDnCreate",
            destroy: "cusolverDnDestroy",
            set_stream: "cusolverDnSetStream",
            handle_type: "cusolverDnHandle_t",
            by_hand: &[],
        },
    ),
    (
        "cusparse",
        Library {
            ffi: "cusparse.rs",
            soname: "libcusparse.so.12",
            create: "cusparseCreate",
            destroy: "cusparseDestroy",
            set_stream: "cusparseSetStream",
            handle_type: "cusparseHandle_t",
            by_hand: &[],
        },
    ),
    (
        "cudnn",
        Library {
            ffi: "cudnn.rs",
            soname: "libcudnn.so.9",
            create: "cudnnCreate",
            destroy: "cudnnDestroy",
            set_stream: "cudnnSetStream",
            handle_type: "cudnnHandle_t",
            by_hand: &[
                "cudnnGetVersion",
                "cudnnSetTensor4dDescriptorEx",
                "cudnnSetFilter4dDescriptor",
                "cudnnSetActivationDescriptor",
                "cudnnSetConvolution2dDescriptor",
                "cudnnSetConvolutionMathType",
                "cudnnGetConvolution2dForwardOutputDim",
                "cudnnGetConvolutionForwardAlgorithm_v7",
                "cudnnGetConvolutionForwardWorkspaceSize",
                "cudnnBackendCreateDescriptor",
                "cudnnBackendSetAttribute",
                "cudnnBackendFinalize",
                "cudnnBackendGetAttribute",
                "cudnnBackendExecute",
            ],
        },
    ),
    (
        "cublas",
        Library {
            ffi: "cublas.rs",
            soname: "libcublas.so.12",
            create: "cublasCreate_v2",
            destroy: "cublasDestroy_v2",
            set_stream: "cublasSetStream_v2",
            handle_type: "cublasHandle_t",
            by_hand: &["cublasSetPointerMode_v2", "cublasSetWorkspace_v2"],
        },
    ),
    (
        "cublaslt",
        Library {
            ffi: "cublaslt.rs",
            soname: "libcublasLt.so.12",
            create: "cublasLtCreate",
            destroy: "cublasLtDestroy",
            // None: `cublasLtMatmul` takes its stream as an argument.
            set_stream: "",
            handle_type: "cublasLtHandle_t",
            by_hand: &[
                "cublasLtGetVersion",
                "cublasLtMatmul",
                "cublasLtMatrixLayoutSetAttribute",
                "cublasLtMatmulDescSetAttribute",
                "cublasLtMatmulPreferenceSetAttribute",
                "cublasLtMatmulAlgoGetHeuristic",
            ],
        },
    ),
];

fn main() {
    println!("cargo:rerun-if-changed=../common/build.rs");
    let package = std::env::var("CARGO_PKG_NAME").expect("set by cargo");
    let which = package.rsplit('-').next().unwrap_or_default();
    let (_, lib) = LIBRARIES
        .iter()
        .find(|(name, _)| *name == which)
        .unwrap_or_else(|| panic!("no stand-in library named {which}"));
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{}", lib.soname);
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let ffi = manifest.join("../../../ffi").join(lib.ffi);
    println!("cargo:rerun-if-changed={}", ffi.display());
    let text = std::fs::read_to_string(&ffi)
        .unwrap_or_else(|e| panic!("{}: {e} (the stand-in reads custack's ffi)", ffi.display()));
    let Some((_, block)) = text.split_once("link_or_stub! {") else {
        panic!("{} declares no link_or_stub! block", lib.ffi);
    };
    let mut out = String::new();
    let mut lifecycle = 0;
    let mut by_hand = 0;
    for decl in block.split("pub fn ").skip(1) {
        let (name, rest) = decl.split_once('(').expect("`pub fn NAME(`");
        if lib.by_hand.contains(&name) {
            by_hand += 1;
            continue;
        }
        let (args, rest) = rest.split_once(')').expect("`(ARGS)`");
        let returns_text = rest.trim_start().starts_with("-> *const c_char");
        let args: Vec<(String, String)> = args
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| {
                let (arg, ty) = a.split_once(':').expect("`arg: type`");
                (arg.trim().to_owned(), ty.trim().to_owned())
            })
            .collect();
        let first = args.first().map_or("", |(_, t)| t.as_str());
        let final_ty = args.last().map_or("", |(_, t)| t.as_str());
        let kind = if name == lib.create {
            "create"
        } else if name == lib.destroy {
            "destroy"
        } else if name == lib.set_stream {
            "set_stream"
        } else if returns_text {
            "error_string"
        } else if name.ends_with("_bufferSize") && final_ty == "*mut usize" {
            "buffer_size_usize"
        } else if name.ends_with("_bufferSize") {
            "buffer_size"
        } else if first == lib.handle_type {
            "not_supported"
        } else if name.contains("Create") && first.starts_with("*mut ") {
            "descriptor_create"
        } else if name.contains("Destroy") && !first.starts_with('*') && args.len() == 1 {
            "descriptor_destroy"
        } else {
            "no_handle"
        };
        if matches!(kind, "create" | "destroy" | "set_stream") {
            lifecycle += 1;
        }
        let list: Vec<String> = args
            .iter()
            .map(|(a, t)| format!("{a}: {}", c_type(t, lib.handle_type)))
            .collect();
        let final_arg = args.last().map_or("", |(a, _)| a.as_str());
        let _ = writeln!(
            out,
            "entry_point!({kind} {name}({}) last {final_arg});",
            list.join(", ")
        );
    }
    // The create, the destroy, and the set-stream of a library that has one ("" for none).
    let expected = if lib.set_stream.is_empty() { 2 } else { 3 };
    assert_eq!(
        lifecycle, expected,
        "{} declares {}, {} and {}",
        lib.ffi, lib.create, lib.set_stream, lib.destroy
    );
    // A name the stand-in defines by hand that custack no longer declares is a stale list.
    assert_eq!(
        by_hand,
        lib.by_hand.len(),
        "{} declares each of {:?}",
        lib.ffi,
        lib.by_hand
    );
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(dest.join("entry_points.rs"), out).expect("OUT_DIR is writable");
}

/// The C type of an argument as the stand-in takes it: what is passed by value at the same
/// place (`repr(transparent)` enums are `c_int`), handles, descriptors and pointers untyped.
fn c_type(ty: &str, handle_type: &str) -> String {
    match ty {
        t if t == handle_type || t == "CUstream" => "Handle".to_owned(),
        "c_int" | "c_char" | "f32" | "f64" | "i64" | "u64" | "usize" | "c_longlong" => {
            ty.to_owned()
        }
        t if t.starts_with("*const") => "*const c_void".to_owned(),
        t if t.starts_with("*mut") => "*mut c_void".to_owned(),
        // Descriptors (`cusparseDnVecDescr_t`, ...): opaque pointers.
        t if t.ends_with("Descr_t") || t.ends_with("Descriptor_t") => "*mut c_void".to_owned(),
        // cuBLASLt's descriptors, named otherwise.
        "cublasLtMatmulDesc_t" | "cublasLtMatrixLayout_t" | "cublasLtMatmulPreference_t" => {
            "*mut c_void".to_owned()
        }
        // cublasFillMode_t, cusparseOrder_t, cudaDataType, libraryPropertyType, ...:
        // `repr(transparent)` over `c_int`.
        _ => "c_int".to_owned(),
    }
}
