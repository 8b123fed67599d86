//! Context-independent libraries (`cuLibrary*`): code loaded once, for every context, whose
//! kernels give a function for whichever context is current.
//!
//! A [`Library`] is owned and `Send + Sync`, like a [`Context`](crate::Context); its
//! [`LibraryKernel`]s are `Copy`, `Send + Sync` handles. A kernel becomes a function of one
//! context only through that context's guard ([`PushedGuard::library_function`]), which lends
//! it like every handle: it cannot be used after the pop, under another context, or on
//! another thread (C20). And it launches only in a borrowing [`Stream::scope`](crate::Stream::scope)
//! (`StreamScope::launch_library`): it is not a [`Payload`](crate::Payload), so no submission or
//! graph can carry it past the library's unload, even leaked.

use crate::StreamScope;
use crate::driver::Driver;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::launch::{Function, KernelArgs, LaunchConfig};
use crate::stack::{ContextKind, PushedGuard};
use core::marker::PhantomData;
use std::ffi::CString;

/// Code loaded for every context of the process (`cuLibraryLoadData`); unloaded on drop
/// (`cuLibraryUnload`). Owned, `Send + Sync`.
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, Library, LaunchConfig, Stack};
/// let driver = Driver::init()?;
/// let library = Library::load_ptx(driver, include_str!("../tests/fixtures/kernels.ptx"))?;
/// let add = library.kernel("add_u32")?; // context-independent
/// let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let f = guard.library_function(&add)?; // this context's function, lent by the guard
/// let mut x = guard.alloc_zeroed::<u32>(256)?;
/// guard.stream()?.scope(|s| {
///     // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
///     unsafe { s.launch_library(&f, LaunchConfig::for_elements(256), (s.bind_mut(&mut x), 1u32, 256u32)) }
/// })??;
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
#[doc(alias = "CUlibrary")]
pub struct Library {
    raw: ffi::CUlibrary,
}

// SAFETY: a library is context-independent process state: the driver API is thread-safe and
// its library calls take no current context (Library Management). `Library` offers no
// operation that assumes a context is current; per-context functions come only through a guard.
unsafe impl Send for Library {}
// SAFETY: `&Library` allows looking up kernels (thread-safe driver calls) only.
unsafe impl Sync for Library {}

/// A kernel of a [`Library`] (`CUkernel`): context-independent, `Copy`, `Send + Sync`; borrows
/// the library.
#[derive(Debug, Clone, Copy)]
#[doc(alias = "CUkernel")]
pub struct LibraryKernel<'l> {
    raw: ffi::CUkernel,
    _library: PhantomData<&'l Library>,
}

// SAFETY: a `CUkernel` is a context-independent handle; using it needs a guard (for the
// per-context function) or nothing.
unsafe impl Send for LibraryKernel<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for LibraryKernel<'_> {}

/// A library kernel's function in the current context, lent by its guard
/// ([`PushedGuard::library_function`]); launched with
/// [`StreamScope::launch_library`]. Not a [`Payload`](crate::Payload).
#[derive(Debug, Clone, Copy)]
#[doc(alias = "cuKernelGetFunction")]
pub struct LibraryFunction<'a> {
    function: Function<'a>,
}

static_assertions::assert_not_impl_any!(LibraryFunction<'static>: Send, Sync);

impl LibraryKernel<'_> {
    /// The raw `CUkernel` (context-independent; custack's [`Library`] owns it).
    pub fn as_raw(&self) -> ffi::CUkernel {
        self.raw
    }
}

impl Library {
    /// `cuLibraryLoadData`—Loads PTX for every context (compiled for each context's device when
    /// first used there).
    ///
    /// # Errors
    ///
    /// The driver's error (`CUDA_ERROR_INVALID_PTX`, ...); [`ErrorKind::NulInName`] for a NUL
    /// byte in the PTX.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    #[doc(alias = "cuLibraryLoadData")]
    pub fn load_ptx(_driver: Driver, ptx: &str) -> Result<Self> {
        let code = CString::new(ptx)
            .map_err(|_| Error::custack(ErrorKind::NulInName, "PTX source holds a NUL byte"))?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; NUL-terminated PTX; no options; the driver is initialized
        // (`Driver` is the proof).
        unsafe {
            ffi::cuLibraryLoadData(
                &raw mut raw,
                code.as_ptr().cast(),
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                0,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                0,
            )
        }
        .result()?;
        Ok(Self { raw })
    }

    /// `cuLibraryGetKernel`—The kernel `name`.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_FOUND` with the name in the detail; [`ErrorKind::NulInName`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    #[doc(alias = "cuLibraryGetKernel")]
    pub fn kernel(&self, name: &str) -> Result<LibraryKernel<'_>> {
        let c = CString::new(name).map_err(|_| {
            Error::custack(
                ErrorKind::NulInName,
                format!("kernel name {name:?} holds a NUL byte"),
            )
        })?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a live library; a NUL-terminated name.
        unsafe { ffi::cuLibraryGetKernel(&raw mut raw, self.raw, c.as_ptr()) }
            .result()
            .map_err(|e| e.with_detail(format!("kernel {name:?}")))?;
        Ok(LibraryKernel {
            raw,
            _library: PhantomData,
        })
    }

    /// The raw `CUlibrary`.
    pub fn as_raw(&self) -> ffi::CUlibrary {
        self.raw
    }

    /// `cuLibraryUnload`—Unloads the library, returning the driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    #[doc(alias = "cuLibraryUnload")]
    pub fn unload(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: a live library, unloaded once; no kernel handle borrows it, and its functions
        // launch only in scopes, which wait before the borrows end.
        unsafe { ffi::cuLibraryUnload(this.raw) }.result()
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: as in `unload`.
        if let Err(e) = unsafe { ffi::cuLibraryUnload(self.raw) }.result() {
            record_drop_error(e);
        }
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuKernelGetFunction`—`kernel`'s function in this guard's context, lent by the guard (so
    /// usable only while this context is current, on this thread) and borrowing the library.
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. the library's code cannot run on this context's device).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    #[doc(alias = "cuKernelGetFunction")]
    pub fn library_function<'a>(
        &'a self,
        kernel: &LibraryKernel<'a>,
    ) -> Result<LibraryFunction<'a>> {
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a live kernel (its library is borrowed); this guard's
        // context is current.
        unsafe { ffi::cuKernelGetFunction(&raw mut raw, kernel.raw) }.result()?;
        Ok(LibraryFunction {
            // SAFETY: the function belongs to the library, borrowed for 'a.
            function: unsafe { Function::from_raw(raw) },
        })
    }
}

impl LibraryFunction<'_> {
    /// The raw `CUfunction` (of the context current when it was made).
    pub fn as_raw(&self) -> ffi::CUfunction {
        self.function.as_raw()
    }

    /// `cuFuncGetAttribute`—Its attributes ([`Function::attributes`]).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetAttribute")]
    pub fn attributes(&self) -> Result<crate::FunctionAttributes> {
        self.function.attributes()
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuLaunchKernel`—Enqueues a launch of a library kernel's function, as
    /// [`launch`](Self::launch) does for a module's.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # Errors
    ///
    /// As [`launch`](Self::launch).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[inline]
    pub unsafe fn launch_library<A: KernelArgs<'scope>>(
        &self,
        function: &LibraryFunction<'scope>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        // SAFETY: the caller's promise; the library outlives the scope (borrowed for 'scope).
        unsafe { self.launch(&function.function, config, args) }
    }
}
