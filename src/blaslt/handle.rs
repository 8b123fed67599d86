//! The cuBLASLt handle, [`BlasLt`]: its creation by a guard ([`PushedGuard::blas_lt`]), its
//! workspace, the order of its matmuls, and its destruction. Plans and runs are in `plan.rs`.

use crate::asynchronous::call_order::CallOrder;
use crate::asynchronous::library_handle::{LibraryHandle, RawHandle};
use crate::blas::handle::default_workspace_bytes;
use crate::blas::status::status;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::ffi;
use crate::memory::DeviceBuffer;
use crate::vocabulary::version::LibraryVersion;
use core::marker::PhantomData;

/// A cuBLASLt handle of the guard's context, with the workspace its matmuls use; see the
/// [module docs](crate::blaslt).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while another
/// context is pushed on top (C25); `!Send` and `!Sync`, as custack's guards are per thread.
#[doc(alias = "cublasLtHandle_t")]
pub struct BlasLt<'g> {
    /// The handle, the workspace every matmul is given, and the order of its matmuls, which
    /// never overlap on the GPU (they share the workspace); released in the one sound
    /// sequence (`LibraryHandle::release`).
    core: LibraryHandle<'g, RawBlasLt>,
    // Borrowed from the guard; the handle is bound to the guard's context, current on this
    // thread only: `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(BlasLt<'static>: Send, Sync);

impl core::fmt::Debug for BlasLt<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlasLt")
            .field("raw", &self.as_raw())
            .field("workspace_bytes", &self.workspace_bytes())
            .finish_non_exhaustive()
    }
}

/// A live cuBLASLt handle, destroyed by `cublasLtDestroy`.
#[derive(Clone, Copy, Debug)]
struct RawBlasLt(ffi::cublaslt::cublasLtHandle_t);

impl RawHandle for RawBlasLt {
    unsafe fn destroy(self) -> Result<()> {
        // SAFETY: the caller's guarantee: a live handle of the current context, destroyed once,
        // no matmul of it still running.
        status("cublasLtDestroy", unsafe {
            ffi::cublaslt::cublasLtDestroy(self.0)
        })
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cublasLtCreate`—Creates a cuBLASLt handle of this guard's context, with a workspace of
    /// the size cuBLAS recommends for the device (32 MiB from compute capability 9.0 on, 4 MiB
    /// before), as [`blas`](Self::blas) does.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LibraryNotLinked`](crate::ErrorKind::LibraryNotLinked) if custack was built without cuBLASLt (the detail says
    /// what to set); `CUDA_ERROR_OUT_OF_MEMORY` for the workspace; cuBLASLt's status; driver
    /// errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let lt = guard.blas_lt()?;
    /// println!("cuBLASLt {}, {} bytes of workspace", custack::blaslt::version()?, lt.workspace_bytes());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltcreate>
    #[doc(alias = "cublasLtCreate")]
    pub fn blas_lt(&self) -> Result<BlasLt<'_>> {
        not_linked()?;
        self.blas_lt_with_workspace(default_workspace_bytes(self)?)
    }

    /// `cublasLtCreate`—Creates a cuBLASLt handle of this guard's context with a workspace of
    /// `bytes` (0: none, so plans choose algorithms that need none).
    ///
    /// # Errors
    ///
    /// As [`blas_lt`](Self::blas_lt).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltcreate>
    #[doc(alias = "cublasLtCreate")]
    pub fn blas_lt_with_workspace(&self, bytes: usize) -> Result<BlasLt<'_>> {
        crate::error::poison::check()?;
        not_linked()?;
        let core = LibraryHandle::create(self, bytes, || {
            let mut raw = core::ptr::null_mut();
            // SAFETY: `cublasLtCreate` writes a handle to a valid out-pointer (a live local)
            // and binds it to the current context, this guard's.
            status("cublasLtCreate", unsafe {
                ffi::cublaslt::cublasLtCreate(&raw mut raw)
            })?;
            Ok(RawBlasLt(raw))
        })?;
        Ok(BlasLt {
            core,
            _guard: PhantomData,
        })
    }
}

/// `Err` in a build that found no cuBLASLt.
pub(super) fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::CUBLASLT)
}

/// `cublasLtGetVersion`—The version of the cuBLASLt linked (e.g. 13.1.0).
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`](crate::ErrorKind::LibraryNotLinked) in a build without
/// cuBLASLt.
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cublas/#cublasltgetversion>
#[doc(alias = "cublasLtGetVersion")]
pub fn version() -> Result<LibraryVersion> {
    crate::error::confinement::full_api("blaslt::version")?;
    not_linked()?;
    // SAFETY: `cublasLtGetVersion` takes nothing and returns a number.
    let code = unsafe { ffi::cublaslt::cublasLtGetVersion() };
    Ok(LibraryVersion::from_code(
        u32::try_from(code).unwrap_or(u32::MAX),
        10_000,
    ))
}

impl BlasLt<'_> {
    /// The raw handle, for cuBLASLt functions this module does not wrap. It stays owned by
    /// `self`; never let a call through it overlap this handle's own matmuls if it uses their
    /// workspace.
    pub fn as_raw(&self) -> ffi::cublaslt::cublasLtHandle_t {
        self.core.raw().map_or(core::ptr::null_mut(), |r| r.0)
    }

    /// The bytes of the workspace its matmuls may use.
    pub fn workspace_bytes(&self) -> usize {
        self.core.memory_bytes()
    }

    /// The workspace its matmuls use, if any.
    pub(super) fn workspace(&self) -> Option<&DeviceBuffer<'_, u8>> {
        self.core.memory()
    }

    /// The order of its matmuls.
    pub(super) fn order(&self) -> &CallOrder<'_> {
        self.core.order()
    }

    /// `cublasLtDestroy`—Waits until none of the handle's matmuls can still run, then destroys
    /// it and frees its workspace, returning the first error. Its plans borrow it, so none is
    /// left.
    ///
    /// # Errors
    ///
    /// The error of the wait (the first error of the context's work, or a sticky error); if it
    /// fails without a sticky error, the handle and the workspace are leaked rather than freed
    /// while the GPU may still use them. cuBLASLt's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltdestroy>
    #[doc(alias = "cublasLtDestroy")]
    pub fn destroy(mut self) -> Result<()> {
        self.core.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::not_linked::assert_says_what_to_set;

    #[test]
    fn a_build_without_cublaslt_says_what_to_set() {
        let (missing, env, wheel) = (
            cfg!(custack_no_cublaslt),
            "CUSTACK_CUBLASLT_LIB_DIR",
            "nvidia-cublas",
        );
        assert_says_what_to_set(not_linked(), missing, env, wheel);
    }
}
