//! A CUDA library's version ([`LibraryVersion`]): what every library module's `version()`
//! returns, decoded from the library's own version code.

/// The version of a CUDA library custack is linked against: `major.minor.patch`, as every
/// library module's `version()` returns it (`custack::blas::version()`, `custack::nccl::version()`,
/// …). Ordered, so `v >= LibraryVersion::new(12, 2, 0)` reads as it should.
///
/// # Examples
///
/// ```
/// use custack::LibraryVersion;
/// let v = LibraryVersion::new(12, 2, 5);
/// assert_eq!(v.to_string(), "12.2.5");
/// assert!(v >= LibraryVersion::new(12, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LibraryVersion {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The patch level.
    pub patch: u32,
}

impl LibraryVersion {
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Self {
            major,
            minor,
            patch,
        }
    }

    /// From a library's version code `major·scale + minor·100 + patch` (`scale` is 10000 for
    /// cuBLAS, cuBLASLt, cuDNN 9 and NCCL from 2.9, 1000 for cuFFT, cuRAND and NCCL before 2.9).
    #[cfg_attr(
        not(any(
            feature = "cublaslt",
            feature = "cufft",
            feature = "curand",
            feature = "nccl",
            feature = "cudnn"
        )),
        allow(dead_code)
    )]
    pub(crate) const fn from_code(code: u32, scale: u32) -> Self {
        Self::new(code / scale, code % scale / 100, code % 100)
    }
}

impl core::fmt::Display for LibraryVersion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::LibraryVersion;

    #[test]
    fn codes_decode_by_their_library_scale() {
        let v = |code, scale| LibraryVersion::from_code(code, scale).to_string();
        assert_eq!(v(130_100, 10_000), "13.1.0"); // cuBLAS 13.1.0
        assert_eq!(v(120_205, 10_000), "12.2.5");
        assert_eq!(v(11_008, 1_000), "11.0.8"); // cuFFT 11.0.8
        assert_eq!(v(10_303, 1_000), "10.3.3"); // cuRAND 10.3.3
        assert_eq!(v(22_809, 10_000), "2.28.9"); // NCCL 2.28.9
        assert_eq!(v(2_804, 1_000), "2.8.4"); // NCCL 2.8.4
        assert!(LibraryVersion::new(2, 28, 9) > LibraryVersion::new(2, 9, 30));
    }
}
