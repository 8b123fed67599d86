//! Every CUDA library's `version()` without a GPU: one shape (`custack::LibraryVersion`) for
//! all, read from the library the build linked (the test command links the CUDA 12.2
//! generation's wheels), or `LibraryNotLinked` naming what to set in a build that found none.
//! Each check runs only with its library's feature.

use custack::{ErrorKind, LibraryVersion};

/// The linked library's version is at least `least`, or the build says it linked none.
#[allow(dead_code, reason = "each library's check is under its own feature")]
fn linked_at_least(name: &str, version: custack::Result<LibraryVersion>, least: LibraryVersion) {
    match version {
        Ok(v) => {
            assert!(v >= least, "{name} {v} is older than {least}");
            assert_eq!(
                v.to_string(),
                format!("{}.{}.{}", v.major, v.minor, v.patch)
            );
            eprintln!("{name} {v}");
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::LibraryNotLinked, "{name}: {e}");
            eprintln!("SKIPPED {name}: this build linked none");
        }
    }
}

#[cfg(feature = "cublas")]
#[test]
fn cublas_reports_its_version_without_a_handle() {
    linked_at_least(
        "cuBLAS",
        custack::blas::version(),
        LibraryVersion::new(12, 0, 0),
    );
}

#[cfg(feature = "cublaslt")]
#[test]
fn cublaslt_reports_its_version() {
    linked_at_least(
        "cuBLASLt",
        custack::blaslt::version(),
        LibraryVersion::new(12, 0, 0),
    );
}

#[cfg(feature = "cufft")]
#[test]
fn cufft_reports_its_version() {
    linked_at_least(
        "cuFFT",
        custack::fft::version(),
        LibraryVersion::new(11, 0, 0),
    );
}

#[cfg(feature = "cusparse")]
#[test]
fn cusparse_reports_its_version() {
    linked_at_least(
        "cuSPARSE",
        custack::sparse::version(),
        LibraryVersion::new(12, 0, 0),
    );
}

#[cfg(feature = "cusolver")]
#[test]
fn cusolver_reports_its_version() {
    linked_at_least(
        "cuSOLVER",
        custack::solver::version(),
        LibraryVersion::new(11, 0, 0),
    );
}

#[cfg(feature = "curand")]
#[test]
fn curand_reports_its_version() {
    linked_at_least(
        "cuRAND",
        custack::rand::version(),
        LibraryVersion::new(10, 0, 0),
    );
}

#[cfg(feature = "nccl")]
#[test]
fn nccl_reports_its_version() {
    linked_at_least(
        "NCCL",
        custack::nccl::version(),
        LibraryVersion::new(2, 18, 0),
    );
}
