//! The driver's CUDA version (`cuDriverGetVersion`): what the installed driver supports, known
//! before and without `cuInit`.

use crate::error::Result;
use crate::ffi;
use core::ffi::c_int;

/// A CUDA version number as the driver reports it (`12020` is 12.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[doc(alias = "cuDriverGetVersion")]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl Version {
    pub(crate) fn from_raw(raw: u32) -> Self {
        Self {
            major: raw / 1000,
            minor: (raw % 1000) / 10,
        }
    }
}

impl core::fmt::Display for Version {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// `cuDriverGetVersion`—The latest CUDA version the installed driver supports.
///
/// Works before and without [`Driver::init`](crate::Driver::init), and on a machine with a driver library but no GPU.
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VERSION.html>
#[doc(alias = "cuDriverGetVersion")]
pub fn driver_version() -> Result<Version> {
    crate::error::poison::check()?;
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid, writable `int` for the duration of the call.
    unsafe { ffi::cuDriverGetVersion(&raw mut v) }.result()?;
    Ok(Version::from_raw(v as u32))
}
