//! Imported semaphores ([`ExternalSemaphore`]) and their waits and signals in a stream scope.

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::marker::PhantomData;
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd};

mod kind_sealed {
    pub trait Sealed {}
}

/// What kind of semaphore an [`ExternalSemaphore`] is, and what its waits and signals take:
/// [`Binary`] (nothing) or [`Timeline`] (a `u64` value). Sealed.
pub trait SemaphoreKind: kind_sealed::Sealed + core::fmt::Debug {
    /// What a wait or a signal takes.
    type Value: Copy;
    /// The handle type imported.
    #[doc(hidden)]
    const HANDLE: ffi::CUexternalSemaphoreHandleType;
    /// The fence value a wait or signal passes to the driver.
    #[doc(hidden)]
    fn fence(value: Self::Value) -> u64;
}

/// A binary semaphore (`CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD`, Vulkan's
/// `VK_SEMAPHORE_TYPE_BINARY`): a signal is consumed by one wait.
#[derive(Debug)]
pub enum Binary {}
impl kind_sealed::Sealed for Binary {}
impl SemaphoreKind for Binary {
    type Value = ();
    const HANDLE: ffi::CUexternalSemaphoreHandleType =
        ffi::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
    fn fence((): ()) -> u64 {
        0
    }
}

/// A timeline semaphore (`CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD`, Vulkan's
/// `VK_SEMAPHORE_TYPE_TIMELINE`): a counter that a signal sets and a wait waits to reach.
#[derive(Debug)]
pub enum Timeline {}
impl kind_sealed::Sealed for Timeline {}
impl SemaphoreKind for Timeline {
    type Value = u64;
    const HANDLE: ffi::CUexternalSemaphoreHandleType =
        ffi::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
    fn fence(value: u64) -> u64 {
        value
    }
}

/// A semaphore another API exported, imported into the current context
/// (`CUexternalSemaphore`), lent by a guard; destroyed on drop (`cuDestroyExternalSemaphore`).
///
/// It is waited on and signalled only in a stream scope
/// ([`StreamScope::wait_semaphore`], [`StreamScope::signal_semaphore`]), which borrows it until
/// its work is over: it is never destroyed with a wait or a signal pending.
#[derive(Debug)]
#[doc(alias = "CUexternalSemaphore")]
pub struct ExternalSemaphore<'g, K: SemaphoreKind> {
    raw: ffi::CUexternalSemaphore,
    _marker: PhantomData<(&'g (), *const (), K)>,
}

static_assertions::assert_not_impl_any!(ExternalSemaphore<'static, Timeline>: Send, Sync);

impl<C: ContextKind> PushedGuard<'_, '_, C> {
    /// `cuImportExternalSemaphore`—Imports a semaphore another API exported as `fd` (Vulkan's
    /// `vkGetSemaphoreFdKHR` with `VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT`), a
    /// [`Binary`] or a [`Timeline`] one by `K`, into this guard's context.
    ///
    /// The descriptor is moved in: the driver owns it once the import succeeds; if it fails,
    /// custack closes it (never twice).
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. `fd` is no such semaphore, or of the other kind), with `fd`
    /// closed.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Deadline, Driver, Overrun, Stack, Timeline};
    /// use std::os::fd::OwnedFd;
    /// use std::time::Duration;
    /// # fn exported_by_vulkan() -> OwnedFd { unimplemented!() }
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let semaphore = guard.import_semaphore::<Timeline>(exported_by_vulkan())?;
    /// let stream = guard.stream()?;
    /// let deadline = Deadline::after(Duration::from_secs(10));
    /// stream.scope_by(deadline, Overrun::Exit, |s| {
    ///     s.wait_semaphore(&semaphore, 1)?; // after Vulkan's signal of 1
    ///     // ... CUDA's work ...
    ///     s.signal_semaphore(&semaphore, 2) // Vulkan waits for 2
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXTRES__INTEROP.html>
    #[doc(alias = "cuImportExternalSemaphore")]
    pub fn import_semaphore<K: SemaphoreKind>(
        &self,
        fd: OwnedFd,
    ) -> Result<ExternalSemaphore<'_, K>> {
        crate::error::poison::check()?;
        let desc = ffi::CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
            type_: K::HANDLE,
            handle: ffi::CUDA_EXTERNAL_HANDLE { fd: fd.as_raw_fd() },
            flags: 0,
            reserved: [0; 16],
        };
        let mut raw = core::ptr::null_mut();
        // SAFETY: a valid out-pointer and a fully initialized descriptor whose `fd` is open
        // (owned here until the call returns); this guard's context is current.
        unsafe { ffi::cuImportExternalSemaphore(&raw mut raw, &raw const desc) }.result()?;
        // The driver owns the descriptor now (on failure, `?` above dropped `fd`: closed once).
        let _ = fd.into_raw_fd();
        Ok(ExternalSemaphore {
            raw,
            _marker: PhantomData,
        })
    }
}

impl<K: SemaphoreKind> ExternalSemaphore<'_, K> {
    /// The raw handle, valid while the semaphore lives.
    pub fn as_raw(&self) -> ffi::CUexternalSemaphore {
        self.raw
    }
}

impl<K: SemaphoreKind> Drop for ExternalSemaphore<'_, K> {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(
            Object::ExternalSemaphore,
            self.raw as u64,
            || {
                // SAFETY: a live import of the current context (its guard is on top), destroyed
                // once; no wait or signal is pending: scopes borrow it until their work is over.
                unsafe { ffi::cuDestroyExternalSemaphore(self.raw) }.result()
            },
        );
    }
}

/// Refuses a semaphore's wait or signal inside a capture: the graph would name the semaphore
/// past the scope's borrow of it.
fn refuse_in_capture(what: &str) -> Result<()> {
    if crate::asynchronous::capturing() {
        return Err(Error::custack(
            ErrorKind::NotSupported,
            format!(
                "{what} inside a graph capture: the graph would name the semaphore after the \
                 scope's borrow of it ends; wait and signal in a scope that runs"
            ),
        ));
    }
    Ok(())
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuWaitExternalSemaphoresAsync`—Makes later work in this scope wait until `semaphore`
    /// is signalled (a [`Timeline`] one: until it reaches `value`).
    ///
    /// The scope borrows the semaphore until its end has waited for the stream: that wait is
    /// the host's only one, bounded by the scope's deadline
    /// ([`Stream::scope_by`](crate::Stream::scope_by)): past the deadline, a value the other
    /// API never signals meets the scope's [`Overrun`](crate::Overrun), as any scope's work
    /// that does not end does ([`Overrun::Exit`](crate::Overrun::Exit) ends the process, the
    /// one way to stop a device wait that never ends; nothing the scope borrows is released
    /// before the work is over).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`] inside a graph capture (no driver call); the driver's error.
    ///
    /// # Examples
    ///
    /// See [`PushedGuard::import_semaphore`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXTRES__INTEROP.html>
    #[doc(alias = "cuWaitExternalSemaphoresAsync")]
    pub fn wait_semaphore<K: SemaphoreKind>(
        &self,
        semaphore: &'scope ExternalSemaphore<'_, K>,
        value: K::Value,
    ) -> Result<()> {
        crate::error::poison::check()?;
        refuse_in_capture("a wait on an external semaphore")?;
        let params = ffi::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
            params: ffi::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params {
                fence: ffi::CUDA_EXTERNAL_SEMAPHORE_fence {
                    value: K::fence(value),
                },
                nvSciSync: ffi::CUDA_EXTERNAL_SEMAPHORE_nvSciSync { reserved: 0 },
                keyedMutex: ffi::CUDA_EXTERNAL_SEMAPHORE_WAIT_keyedMutex::default(),
                reserved: [0; 10],
            },
            flags: 0,
            reserved: [0; 16],
        };
        // SAFETY: one live semaphore of the current context (lent by the guard on top) and its
        // parameters, fully initialized; the scope's stream is live; the scope borrows the
        // semaphore until it has waited for the stream.
        unsafe {
            ffi::cuWaitExternalSemaphoresAsync(
                &raw const semaphore.raw,
                &raw const params,
                1,
                self.as_raw(),
            )
        }
        .result()
    }

    /// `cuSignalExternalSemaphoresAsync`—Signals `semaphore` once the work enqueued before in
    /// this scope is done (a [`Timeline`] one: sets it to `value`).
    ///
    /// The scope borrows the semaphore until its end has waited for the stream.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`] inside a graph capture (no driver call); the driver's error.
    ///
    /// # Examples
    ///
    /// See [`PushedGuard::import_semaphore`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXTRES__INTEROP.html>
    #[doc(alias = "cuSignalExternalSemaphoresAsync")]
    pub fn signal_semaphore<K: SemaphoreKind>(
        &self,
        semaphore: &'scope ExternalSemaphore<'_, K>,
        value: K::Value,
    ) -> Result<()> {
        crate::error::poison::check()?;
        refuse_in_capture("a signal of an external semaphore")?;
        let params = ffi::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
            params: ffi::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params {
                fence: ffi::CUDA_EXTERNAL_SEMAPHORE_fence {
                    value: K::fence(value),
                },
                nvSciSync: ffi::CUDA_EXTERNAL_SEMAPHORE_nvSciSync { reserved: 0 },
                keyedMutex: ffi::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_keyedMutex::default(),
                reserved: [0; 12],
            },
            flags: 0,
            reserved: [0; 16],
        };
        // SAFETY: as in `wait_semaphore`.
        unsafe {
            ffi::cuSignalExternalSemaphoresAsync(
                &raw const semaphore.raw,
                &raw const params,
                1,
                self.as_raw(),
            )
        }
        .result()
    }
}

#[cfg(test)]
mod tests {
    use super::refuse_in_capture;
    use crate::asynchronous::{InCapture, IntoGraph};
    use crate::error::ErrorKind;

    #[test]
    fn a_wait_or_signal_is_refused_inside_either_kind_of_capture() {
        assert!(refuse_in_capture("a wait").is_ok(), "outside any capture");
        {
            let _inside = InCapture::enter();
            let e = refuse_in_capture("a wait").err().map(|e| e.kind());
            assert_eq!(e, Some(ErrorKind::NotSupported), "inside a stream capture");
        }
        {
            let _inside = IntoGraph::enter();
            let e = refuse_in_capture("a signal").err().map(|e| e.kind());
            assert_eq!(
                e,
                Some(ErrorKind::NotSupported),
                "inside a capture into a graph"
            );
        }
        assert!(refuse_in_capture("a wait").is_ok(), "after both ended");
    }
}
