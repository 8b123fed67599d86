//! The cuBLASLt handle, [`BlasLt`]: its creation by a guard ([`PushedGuard::blas_lt`]), its
//! workspace, the order of its matmuls, and its destruction. Plans and runs are in `plan.rs`.

use crate::asynchronous::call_order::CallOrder;
use crate::blas::handle::default_workspace_bytes;
use crate::blas::status::status;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::memory::{DeviceBuffer, DeviceMemory};
use core::marker::PhantomData;

/// A cuBLASLt handle of the guard's context, with the workspace its matmuls use; see the
/// [module docs](crate::blaslt).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while another
/// context is pushed on top (C25); `!Send` and `!Sync`, as custack's guards are per thread.
#[doc(alias = "cublasLtHandle_t")]
pub struct BlasLt<'g> {
    raw: ffi::cublaslt::cublasLtHandle_t,
    /// Given to every matmul; freed only once none can still run (`order.wait_idle`), or leaked
    /// when that cannot be confirmed. `None` once released, or for a workspace of 0 bytes.
    pub(super) workspace: Option<DeviceBuffer<'g, u8>>,
    /// The handle's matmuls never overlap on the GPU (they share the workspace): on one stream
    /// they are ordered by it, on another the stream waits for everything before.
    pub(super) order: CallOrder<'g>,
    // Borrowed from the guard; the handle is bound to the guard's context, current on this
    // thread only: `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(BlasLt<'static>: Send, Sync);

impl core::fmt::Debug for BlasLt<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlasLt")
            .field("raw", &self.raw)
            .field("workspace_bytes", &self.workspace_bytes())
            .finish_non_exhaustive()
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cublasLtCreate`—Creates a cuBLASLt handle of this guard's context, with a workspace of
    /// the size cuBLAS recommends for the device (32 MiB from compute capability 9.0 on, 4 MiB
    /// before), as [`blas`](Self::blas) does.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LibraryNotLinked`] if custack was built without cuBLASLt (the detail says
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
        let workspace = if bytes == 0 {
            None
        } else {
            Some(self.alloc::<u8>(bytes)?)
        };
        let order = CallOrder::new(self)?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: `cublasLtCreate` writes a handle to a valid out-pointer (a live local) and
        // binds it to the current context, this guard's.
        status("cublasLtCreate", unsafe {
            ffi::cublaslt::cublasLtCreate(&raw mut raw)
        })?;
        Ok(BlasLt {
            raw,
            workspace,
            order,
            _guard: PhantomData,
        })
    }
}

/// `Err` in a build that found no cuBLASLt.
pub(super) fn not_linked() -> Result<()> {
    if cfg!(custack_no_cublaslt) {
        return Err(Error::custack(
            ErrorKind::LibraryNotLinked,
            "cuBLASLt (feature `cublaslt`): build.rs found no libcublasLt when custack was \
             built. Set CUSTACK_CUBLASLT_LIB_DIR to the directory holding libcublasLt.so.13 (or \
             .12), or install the CUDA toolkit or cuBLAS's Python wheel of the driver's CUDA \
             version, which holds it (`pip install 'nvidia-cublas==13.*'` for a 13.x driver, \
             `'nvidia-cublas-cu12==12.2.*'` for 12.2), and build again (`cargo clean -p \
             custack` if the build does not notice)",
        ));
    }
    Ok(())
}

/// `cublasLtGetVersion`—The cuBLASLt version linked, as major·10000 + minor·100 + patch (e.g.
/// 130100 for 13.1.0).
///
/// # Errors
///
/// [`ErrorKind::LibraryNotLinked`] in a build without cuBLASLt.
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cublas/#cublasltgetversion>
#[doc(alias = "cublasLtGetVersion")]
pub fn version() -> Result<usize> {
    not_linked()?;
    // SAFETY: `cublasLtGetVersion` takes nothing and returns a number.
    Ok(unsafe { ffi::cublaslt::cublasLtGetVersion() })
}

impl BlasLt<'_> {
    /// The raw handle, for cuBLASLt functions this module does not wrap. It stays owned by
    /// `self`; never let a call through it overlap this handle's own matmuls if it uses their
    /// workspace.
    pub fn as_raw(&self) -> ffi::cublaslt::cublasLtHandle_t {
        self.raw
    }

    /// The bytes of the workspace its matmuls may use.
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.as_ref().map_or(0, DeviceMemory::len)
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
        self.release()
    }

    /// Waits, destroys the handle and releases the workspace, once; `Drop` and `destroy` call
    /// it.
    fn release(&mut self) -> Result<()> {
        let raw = core::mem::replace(&mut self.raw, core::ptr::null_mut());
        if raw.is_null() {
            return Ok(());
        }
        let waited = self.order.wait_idle();
        let workspace = self.workspace.take();
        if waited.is_err() {
            // Not known to be finished (after a sticky error, work of another context may
            // still run, R20; in a forked child nothing is the child's): leak the handle and
            // the workspace rather than free what the GPU may still use.
            core::mem::forget(workspace);
            return waited;
        }
        // Finished.
        // SAFETY: `cublasLtDestroy` needs a live handle of the current context:
        // - `raw` was live and is destroyed once (replaced by null above);
        // - the handle borrows its guard, so the guard's context is current here.
        let destroyed = status("cublasLtDestroy", unsafe {
            ffi::cublaslt::cublasLtDestroy(raw)
        });
        let freed = workspace.map_or(Ok(()), DeviceBuffer::free);
        waited.and(destroyed).and(freed)
    }
}

impl Drop for BlasLt<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_without_cublaslt_says_what_to_set() {
        let result = not_linked();
        assert_eq!(result.is_err(), cfg!(custack_no_cublaslt));
        if let Err(e) = result {
            assert_eq!(e.kind(), ErrorKind::LibraryNotLinked);
            let text = e.to_string();
            assert!(text.contains("CUSTACK_CUBLASLT_LIB_DIR"), "{text}");
            assert!(text.contains("nvidia-cublas"), "{text}");
        }
    }
}
