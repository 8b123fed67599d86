//! The cuBLAS handle, [`Blas`]: its creation by a guard ([`PushedGuard::blas`]), its
//! workspace, the order its calls run in (`enqueue`, which every call goes through), and its
//! destruction. The calls themselves are in `level1.rs`, `level2.rs` and `level3.rs`.

use crate::asynchronous::library_handle::{LibraryHandle, RawHandle};
use crate::asynchronous::scope::StreamScope;
use crate::blas::status::status;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::ffi;
use crate::memory::DeviceMemory;
use crate::vocabulary::version::LibraryVersion;
use core::cell::Cell;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

/// The workspace below compute capability 9.0: cuBLAS's default pool size.
const WORKSPACE_BYTES: usize = 4 << 20;
/// The workspace from compute capability 9.0 (Hopper) on.
const WORKSPACE_BYTES_SM90: usize = 32 << 20;

/// The workspace a cuBLAS or cuBLASLt handle of `guard`'s device gets by default: 32 MiB from
/// compute capability 9.0 on, 4 MiB (cuBLAS's default pool) before.
pub(crate) fn default_workspace_bytes<K: ContextKind>(
    guard: &PushedGuard<'_, '_, K>,
) -> Result<usize> {
    Ok(if guard.device()?.compute_capability()?.major >= 9 {
        WORKSPACE_BYTES_SM90
    } else {
        WORKSPACE_BYTES
    })
}

/// A cuBLAS handle of the guard's context; see the [module docs](crate::blas).
///
/// Borrows the guard that lent it (`'g`), so it cannot outlive the pop or be used while
/// another context is pushed on top (C25); `!Send` and `!Sync`, as cuBLAS binds a handle to a
/// context and custack's guards are per thread.
#[doc(alias = "cublasHandle_t")]
pub struct Blas<'g> {
    /// The handle, its workspace (given to cuBLAS with each stream the handle is set to) and
    /// the order of its calls, which never overlap on the GPU (they share the workspace);
    /// released in the one sound sequence (`LibraryHandle::release`).
    core: LibraryHandle<'g, RawBlas>,
    /// The pointer mode set in cuBLAS, `None` when not known: set only when a call needs
    /// another.
    mode: Cell<Option<ffi::cublas::cublasPointerMode_t>>,
    // Borrowed from the guard; the handle is bound to the guard's context, current on this
    // thread only: `!Send`, `!Sync`.
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(Blas<'static>: Send, Sync);

impl core::fmt::Debug for Blas<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Blas")
            .field("raw", &self.handle())
            .field("workspace_bytes", &self.core.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// A live cuBLAS handle, destroyed by `cublasDestroy_v2`.
#[derive(Clone, Copy, Debug)]
struct RawBlas(ffi::cublas::cublasHandle_t);

impl RawHandle for RawBlas {
    unsafe fn destroy(self) -> Result<()> {
        // SAFETY: the caller's guarantee: a live handle of the current context, destroyed once,
        // no call of it still running. (`cublasDestroy_v2` synchronizes the device too, by its
        // documentation; custack does not rely on that.)
        status("cublasDestroy_v2", unsafe {
            ffi::cublas::cublasDestroy_v2(self.0)
        })
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cublasCreate_v2`—Creates a cuBLAS handle of this guard's context, with a workspace of
    /// the size cuBLAS recommends for the device (32 MiB from compute capability 9.0 on, 4 MiB
    /// before; see the [module docs](crate::blas)).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LibraryNotLinked`](crate::ErrorKind::LibraryNotLinked) if custack was built without cuBLAS (the detail says
    /// what to set); [`ErrorKind::CublasNotInitialized`](crate::ErrorKind::CublasNotInitialized) if cuBLAS could not initialize; `CUDA_ERROR_OUT_OF_MEMORY` for the
    /// workspace; [`ErrorKind::CublasAllocFailed`](crate::ErrorKind::CublasAllocFailed); driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let blas = guard.blas()?;
    /// println!("cuBLAS {}", custack::blas::version()?);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublascreate>
    #[doc(alias = "cublasCreate_v2")]
    #[doc(alias = "cublasCreate")]
    pub fn blas(&self) -> Result<Blas<'_>> {
        not_linked()?;
        self.blas_with_workspace(default_workspace_bytes(self)?)
    }

    /// `cublasCreate_v2`—Creates a cuBLAS handle of this guard's context with a workspace of
    /// `bytes` (0: none, so cuBLAS picks algorithms that need none).
    ///
    /// # Errors
    ///
    /// As [`blas`](Self::blas).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublassetworkspace>
    #[doc(alias = "cublasCreate_v2")]
    #[doc(alias = "cublasSetWorkspace_v2")]
    pub fn blas_with_workspace(&self, bytes: usize) -> Result<Blas<'_>> {
        crate::error::poison::check()?;
        not_linked()?;
        let core = LibraryHandle::create(self, bytes, || {
            let mut raw = core::ptr::null_mut();
            // SAFETY: `cublasCreate_v2` writes a handle to a valid out-pointer and binds it to
            // the current context:
            // - `raw` is a live local;
            // - this guard's context is current (it is the top of this thread's stack while
            //   the guard is reachable).
            status("cublasCreate_v2", unsafe {
                ffi::cublas::cublasCreate_v2(&raw mut raw)
            })?;
            Ok(RawBlas(raw))
        })?;
        Ok(Blas {
            core,
            mode: Cell::new(None),
            _guard: PhantomData,
        })
    }
}

/// `Err` in a build that found no cuBLAS.
fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::CUBLAS)
}

/// `cublasGetProperty`—The version of the cuBLAS linked (e.g. 13.1.0); needs no handle and
/// no GPU.
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`](crate::ErrorKind::LibraryNotLinked) in a build without
/// cuBLAS; cuBLAS's status.
///
/// # Examples
///
/// ```no_run
/// println!("cuBLAS {}", custack::blas::version()?);
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cublas/#cublasgetproperty>
#[doc(alias = "cublasGetProperty")]
#[doc(alias = "cublasGetVersion_v2")]
pub fn version() -> Result<LibraryVersion> {
    use ffi::cublas::libraryPropertyType as P;
    crate::error::confinement::full_api("blas::version")?;
    not_linked()?;
    let part = |which: P, name: &str| -> Result<u32> {
        let mut v: c_int = 0;
        // SAFETY: `cublasGetProperty` writes an int through a valid out-pointer (a live local);
        // `which` is one of the three properties `library_types.h` defines.
        status(name, unsafe {
            ffi::cublas::cublasGetProperty(which, &raw mut v)
        })?;
        Ok(v.unsigned_abs())
    };
    Ok(LibraryVersion::new(
        part(P::MAJOR_VERSION, "cublasGetProperty(MAJOR_VERSION)")?,
        part(P::MINOR_VERSION, "cublasGetProperty(MINOR_VERSION)")?,
        part(P::PATCH_LEVEL, "cublasGetProperty(PATCH_LEVEL)")?,
    ))
}

/// A device address as the pointer type cuBLAS takes.
pub(super) fn dptr<T>(p: ffi::CUdeviceptr) -> *const T {
    p as usize as *const T
}
pub(super) fn dptr_mut<T>(p: ffi::CUdeviceptr) -> *mut T {
    p as usize as *mut T
}

impl Blas<'_> {
    /// The raw handle, for cuBLAS functions this module does not wrap. It stays owned by
    /// `self`. This module's calls set the handle's stream, workspace and pointer mode only
    /// when they differ from what the previous call set; asking for the raw handle makes the
    /// next call set all three again, so use it right after asking, set the stream you need
    /// yourself, and never let a call through it overlap this handle's own calls (they share
    /// its workspace).
    pub fn as_raw(&self) -> ffi::cublas::cublasHandle_t {
        self.core.order().forget_stream();
        self.mode.set(None);
        self.handle()
    }

    /// The live handle (null only once released, which takes `self`).
    fn handle(&self) -> ffi::cublas::cublasHandle_t {
        self.core.raw().map_or(core::ptr::null_mut(), |r| r.0)
    }

    /// Runs one cuBLAS call on the scope's stream, ordered after the handle's previous call
    /// (`CallOrder`): on the previous call's stream nothing is set and no driver call is made;
    /// on another, the stream waits for everything before it, and the handle gets the
    /// scope's stream and its workspace (`cublasSetStream_v2` resets the workspace). The
    /// pointer mode is set when the call needs another than the previous one.
    #[inline]
    pub(super) fn enqueue(
        &self,
        s: &StreamScope<'_, '_>,
        call: &'static str,
        mode: ffi::cublas::cublasPointerMode_t,
        f: impl FnOnce(ffi::cublas::cublasHandle_t) -> ffi::cublas::cublasStatus_t,
    ) -> Result<()> {
        let raw = self.handle();
        self.core.order().enqueue(
            call,
            s,
            |stream| self.set_stream(stream),
            || {
                if self.mode.get() != Some(mode) {
                    self.mode.set(None);
                    // SAFETY: a live handle; `mode` is one of the two values of the enum.
                    status("cublasSetPointerMode_v2", unsafe {
                        ffi::cublas::cublasSetPointerMode_v2(raw, mode)
                    })?;
                    self.mode.set(Some(mode));
                }
                status(call, f(raw))
            },
        )
    }

    /// Makes `stream` the handle's, with the workspace.
    #[cold]
    #[inline(never)]
    fn set_stream(&self, stream: ffi::CUstream) -> Result<()> {
        let raw = self.handle();
        let (ws, ws_bytes) = self.core.memory().map_or((core::ptr::null_mut(), 0), |w| {
            (dptr_mut::<c_void>(w.device_ptr()), w.len())
        });
        // SAFETY: `cublasSetStream_v2` needs a live handle and a live stream of its context:
        // - the handle is live (released only by `destroy` or the drop, which take `self`);
        // - the stream is a scope's, live for the scope, of the current context, which is this
        //   handle's: the handle borrows the guard shared, so no other context can be pushed
        //   above it while the handle is reachable (push takes the guard mutably).
        status("cublasSetStream_v2", unsafe {
            ffi::cublas::cublasSetStream_v2(raw, stream)
        })?;
        // SAFETY: `cublasSetWorkspace_v2` needs device memory of the handle's context, 256-byte
        // aligned, live and used by nothing else while the handle's calls may run:
        // - the workspace is a `cuMemAlloc` allocation (256-byte aligned) of the guard's
        //   context, owned by `self` and freed only once no call of the handle can run;
        // - the calls of this handle never overlap on the GPU (`order`), and nothing else
        //   reaches the buffer (it is private).
        status("cublasSetWorkspace_v2", unsafe {
            ffi::cublas::cublasSetWorkspace_v2(raw, ws, ws_bytes)
        })
    }

    /// `cublasDestroy_v2`—Destroys the handle, waits until none of its calls can still run,
    /// and frees its workspace, returning the first error.
    ///
    /// # Errors
    ///
    /// The error of the wait (the first error of the context's work, or a sticky error); if
    /// it fails without a sticky error, the handle and the workspace are leaked rather than
    /// freed while the GPU may still use them. cuBLAS's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasdestroy>
    #[doc(alias = "cublasDestroy_v2")]
    pub fn destroy(mut self) -> Result<()> {
        self.core.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::not_linked::assert_says_what_to_set;

    #[test]
    fn a_build_without_cublas_says_what_to_set() {
        // Both builds are checked: with cuBLAS linked this must be `Ok`, without (the feature
        // on, no library found) an error naming the variable and the wheel.
        let (missing, env, wheel) = (
            cfg!(custack_no_cublas),
            "CUSTACK_CUBLAS_LIB_DIR",
            "nvidia-cublas",
        );
        assert_says_what_to_set(not_linked(), missing, env, wheel);
    }
}
