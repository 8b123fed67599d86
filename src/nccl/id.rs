//! The id of a clique ([`UniqueId`], made by [`unique_id`]) and NCCL's version.

use super::status::{not_linked, status};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::version::LibraryVersion;
use core::ffi::{c_char, c_int};

/// The id every rank of one clique is made with (`ncclUniqueId`): 128 plain bytes, made once
/// by one rank ([`unique_id`]) and sent to the others.
#[derive(Clone, Copy)]
#[doc(alias = "ncclUniqueId")]
pub struct UniqueId {
    pub(super) raw: ffi::nccl::ncclUniqueId,
}

impl core::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("UniqueId(..)") // opaque: NCCL's address and a random magic
    }
}

impl UniqueId {
    /// Its 128 bytes, to send to the other ranks.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.raw.internal.map(|b| b as u8)
    }
    /// An id from its 128 bytes.
    pub fn from_bytes(bytes: [u8; 128]) -> Self {
        Self {
            raw: ffi::nccl::ncclUniqueId {
                internal: bytes.map(|b| b as c_char),
            },
        }
    }
    /// An id from bytes received from another rank.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] unless `bytes` holds exactly 128.
    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        let bytes: [u8; 128] = bytes.try_into().map_err(|_| {
            Error::custack(
                ErrorKind::InvalidValue,
                format!("an NCCL unique id is 128 bytes, not {}", bytes.len()),
            )
        })?;
        Ok(Self::from_bytes(bytes))
    }
}

/// `ncclGetUniqueId`—A new id for a clique: call it on one rank and send it to the others.
///
/// # Errors
///
/// [`ErrorKind::LibraryNotLinked`] in a build without NCCL; NCCL's status (no network
/// interface NCCL can use is `NcclSystemError` or `NcclInternalError`).
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetuniqueid>
#[doc(alias = "ncclGetUniqueId")]
pub fn unique_id() -> Result<UniqueId> {
    crate::error::confinement::full_api("nccl::unique_id")?;
    not_linked()?;
    crate::error::poison::check()?;
    let mut raw = ffi::nccl::ncclUniqueId { internal: [0; 128] };
    // SAFETY: a valid out-pointer to 128 writable bytes.
    status("ncclGetUniqueId", core::ptr::null_mut(), unsafe {
        ffi::nccl::ncclGetUniqueId(&raw mut raw)
    })?;
    Ok(UniqueId { raw })
}

/// From `NCCL_VERSION_CODE`: `major·1000 + minor·100 + patch` up to 2.8,
/// `major·10000 + minor·100 + patch` after.
fn decode(code: u32) -> LibraryVersion {
    LibraryVersion::from_code(code, if code >= 10_000 { 10_000 } else { 1_000 })
}

/// `ncclGetVersion`—The version of the NCCL this build is linked against.
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without NCCL.
///
/// # References
///
/// <https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html#ncclgetversion>
#[doc(alias = "ncclGetVersion")]
pub fn version() -> Result<LibraryVersion> {
    crate::error::confinement::full_api("nccl::version")?;
    not_linked()?;
    crate::error::poison::check()?;
    let mut code: c_int = 0;
    // SAFETY: a valid out-pointer.
    status("ncclGetVersion", core::ptr::null_mut(), unsafe {
        ffi::nccl::ncclGetVersion(&raw mut code)
    })?;
    Ok(decode(code.unsigned_abs()))
}

static_assertions::assert_impl_all!(UniqueId: Send, Sync);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_decode_both_encodings() {
        assert_eq!(decode(22_707).to_string(), "2.27.7");
        assert_eq!(decode(2_804).to_string(), "2.8.4");
        assert_eq!(decode(23_203).to_string(), "2.32.3");
    }

    #[test]
    fn unique_ids_round_trip_and_refuse_other_lengths() {
        let mut bytes = [0u8; 128];
        bytes[0] = 0xfe;
        bytes[127] = 7;
        assert_eq!(UniqueId::from_bytes(bytes).to_bytes(), bytes);
        assert_eq!(UniqueId::from_slice(&bytes).unwrap().to_bytes(), bytes);
        let e = UniqueId::from_slice(&bytes[..127]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.detail().unwrap().contains("not 127"));
    }
}
