//! The error of a library a build did not find (cuBLAS, cuBLASLt, cuDNN, cuFFT, cuRAND, cuSOLVER,
//! cuSPARSE, NCCL, NVML, NVRTC):
//! [`ErrorKind::LibraryNotLinked`], saying what `build.rs` looked for and how to install it,
//! written once for every library from its [`Link`].

use crate::error::{Error, ErrorKind, Result};

/// How to install each library: `build/install.rs`, which build.rs reads too, so that its
/// warning and this error say the same.
#[allow(dead_code, unreachable_pub)] // a library whose feature is off has no `Link`
mod install {
    include!("../../build/install.rs");
}

/// Where a library comes from: what `build.rs` looked for, and how to install it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Link {
    /// The library's name (`cuBLAS`).
    pub(crate) name: &'static str,
    /// The cargo feature that adds it (`cublas`).
    pub(crate) feature: &'static str,
    /// The file `build.rs` looked for (`libcublas`).
    pub(crate) file: &'static str,
    /// The variable naming the directory that holds it (`CUSTACK_CUBLAS_LIB_DIR`).
    pub(crate) env: &'static str,
    /// The shared objects it would link (`libcublas.so.13 (or .12)`).
    pub(crate) sonames: &'static str,
    /// How to install it, ending in the wheels for each driver generation.
    pub(crate) install: &'static str,
    /// Whether this build found it.
    pub(crate) linked: bool,
}

/// Each library's [`Link`], one line of facts and its install hint: `NAME = "name", "feature",
/// "file", "shared objects", missing-cfg, install hint;`.
macro_rules! links {
    ($($(#[$doc:meta])* $id:ident = $name:literal, $feature:literal, $file:literal, $sonames:literal, $missing:ident, $install:expr;)*) => {$(
        $(#[$doc])*
        pub(crate) const $id: Link = Link {
            name: $name, feature: $feature, file: $file,
            env: concat!("CUSTACK_", stringify!($id), "_LIB_DIR"),
            sonames: $sonames, install: $install, linked: !cfg!($missing),
        };
    )*};
}

links! {
    /// cuBLAS (feature `cublas`).
    #[cfg(feature = "cublas")]
    CUBLAS = "cuBLAS", "cublas", "libcublas", "libcublas.so.13 (or .12)", custack_no_cublas,
        install::CUBLAS;
    /// cuBLASLt (feature `cublaslt`), shipped with cuBLAS.
    #[cfg(feature = "cublaslt")]
    CUBLASLT = "cuBLASLt", "cublaslt", "libcublasLt", "libcublasLt.so.13 (or .12)", custack_no_cublaslt,
        install::CUBLASLT;
    /// cuFFT (feature `cufft`).
    #[cfg(feature = "cufft")]
    CUFFT = "cuFFT", "cufft", "libcufft", "libcufft.so.12 (or .11)", custack_no_cufft,
        install::CUFFT;
    /// cuRAND (feature `curand`).
    #[cfg(feature = "curand")]
    CURAND = "cuRAND", "curand", "libcurand", "libcurand.so.10", custack_no_curand,
        install::CURAND;
    /// cuSPARSE (feature `cusparse`).
    #[cfg(feature = "cusparse")]
    CUSPARSE = "cuSPARSE", "cusparse", "libcusparse", "libcusparse.so.12", custack_no_cusparse,
        install::CUSPARSE;
    /// cuDNN 9 (feature `cudnn`).
    #[cfg(feature = "cudnn")]
    CUDNN = "cuDNN", "cudnn", "libcudnn", "libcudnn.so.9", custack_no_cudnn,
        install::CUDNN;
    /// cuSOLVER (feature `cusolver`).
    #[cfg(feature = "cusolver")]
    CUSOLVER = "cuSOLVER", "cusolver", "libcusolver", "libcusolver.so.12 (or .11)", custack_no_cusolver,
        install::CUSOLVER;
    /// NCCL (feature `nccl`).
    #[cfg(feature = "nccl")]
    NCCL = "NCCL", "nccl", "libnccl", "libnccl.so.2", custack_no_nccl,
        install::NCCL;
    /// NVML (feature `nvml`), the driver's management library.
    #[cfg(feature = "nvml")]
    NVML = "NVML", "nvml", "libnvidia-ml", "libnvidia-ml.so.1", custack_no_nvml,
        install::NVML;
    /// NVRTC (feature `nvrtc`).
    #[cfg(feature = "nvrtc")]
    NVRTC = "NVRTC", "nvrtc", "libnvrtc", "libnvrtc.so", custack_no_nvrtc,
        install::NVRTC;
}

/// `Err(LibraryNotLinked)` in a build that did not find `link`'s library, saying what to set
/// or install; `Ok` where it is linked.
pub(crate) fn not_linked(link: &Link) -> Result<()> {
    if link.linked {
        return Ok(());
    }
    Err(not_linked_error(link))
}

#[cold]
#[inline(never)]
fn not_linked_error(link: &Link) -> Error {
    Error::custack(
        ErrorKind::LibraryNotLinked,
        format!(
            "{} (feature `{}`): build.rs found no {} when custack was built. Set {} to the \
             directory holding {}, or install {}, and build again (`cargo clean -p custack` if \
             the build does not notice)",
            link.name, link.feature, link.file, link.env, link.sonames, link.install
        ),
    )
}

/// The test of each library's `not_linked`, in both builds: `Ok` where the library is linked
/// (`missing` false), else [`ErrorKind::LibraryNotLinked`] with a message naming the variable
/// `env` and the `wheel`.
#[cfg(all(
    test,
    any(
        feature = "cublas",
        feature = "cufft",
        feature = "curand",
        feature = "cusparse",
        feature = "cudnn",
        feature = "cusolver"
    )
))]
pub(crate) fn assert_says_what_to_set(result: Result<()>, missing: bool, env: &str, wheel: &str) {
    assert_eq!(result.is_err(), missing);
    if let Err(e) = result {
        assert_eq!(e.kind(), ErrorKind::LibraryNotLinked);
        let text = e.to_string();
        assert!(text.contains(env), "{text}");
        assert!(text.contains(wheel), "{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_names_its_feature_its_variable_and_how_to_install_it() {
        let link = Link {
            name: "cuFoo",
            feature: "cufoo",
            file: "libcufoo",
            env: "CUSTACK_CUFOO_LIB_DIR",
            sonames: "libcufoo.so.1",
            install: "the `nvidia-cufoo` wheel",
            linked: false,
        };
        let e = not_linked(&link).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LibraryNotLinked);
        assert_eq!(
            e.detail(),
            Some(
                "cuFoo (feature `cufoo`): build.rs found no libcufoo when custack was built. Set \
                 CUSTACK_CUFOO_LIB_DIR to the directory holding libcufoo.so.1, or install the \
                 `nvidia-cufoo` wheel, and build again (`cargo clean -p custack` if the build \
                 does not notice)"
            )
        );
        assert!(
            not_linked(&Link {
                linked: true,
                ..link
            })
            .is_ok()
        );
    }
}
