//! Context-independent libraries (`cuLibrary*`): code loaded once, for every context, whose
//! kernels give a function for whichever context is current.
//!
//! A [`Library`] is owned and `Send + Sync`, like a [`Context`](crate::Context); its
//! [`LibraryKernel`]s are `Copy`, `Send + Sync` handles. A kernel becomes a function of one
//! context only through that context's guard ([`PushedGuard::library_function`]), which lends
//! it like every handle: it cannot be used after the pop, under another context, or on
//! another thread (C20). And it launches only in a borrowing [`Stream::scope`](crate::Stream::scope)
//! (safely through its contract, `LibraryFunction::declared` then `StreamScope::run`; or
//! `StreamScope::launch_library`, `unsafe`): it is not a [`Payload`](crate::Payload), so no
//! submission or graph can carry it past the library's unload, even leaked.
//!
//! A kernel borrows its library, so the two cannot sit side by side in one struct. A type that
//! lives long and holds both (an engine, a model) uses a [`SharedLibrary`] instead: the library
//! behind an `Arc`, whose [`SharedKernel`]s each hold a share of it, so the struct owns
//! everything without `unsafe` or a leak, and the library is unloaded when the last of them
//! drops. [`SharedKernel::kernel`] lends the plain [`LibraryKernel`], and from there the model is
//! unchanged: the function comes from a guard and is checked against its context.

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Driver;
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::kernel::launch::{Function, KernelArgs, LaunchConfig};
use crate::kernel::ptx::entry_params;
use core::marker::PhantomData;
use std::ffi::CString;
use std::sync::Arc;

/// Code loaded for every context of the process (`cuLibraryLoadData`); unloaded on drop
/// (`cuLibraryUnload`). Owned, `Send + Sync`.
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, Library, LaunchConfig, Stack};
/// let driver = Driver::init()?;
/// let library = Library::load_ptx(driver, include_str!("../../tests/fixtures/kernels.ptx"))?;
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
    /// The PTX text it was loaded from: its kernels' `.entry` parameter lists say how many
    /// parameters each takes, where the driver cannot count them. (`None` only once
    /// [`unload`](Self::unload) has taken it, so that it is freed.)
    ptx: Option<CString>,
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
    /// How many parameters its `.entry` in the library's PTX declares (`None`: unreadable).
    params: Option<usize>,
    /// The name it was looked up with, borrowed from the library's PTX (which holds it: the
    /// driver found the kernel by it), so that a contract is attached only to the kernel it
    /// names ([`LibraryFunction::declared`]).
    name: Option<&'l str>,
    _library: PhantomData<&'l Library>,
}

// SAFETY: a `CUkernel` is a context-independent handle; using it needs a guard (for the
// per-context function) or nothing.
unsafe impl Send for LibraryKernel<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for LibraryKernel<'_> {}

static_assertions::assert_impl_all!(Library: Send, Sync);
static_assertions::assert_impl_all!(LibraryKernel<'static>: Send, Sync, Copy);

/// A library kernel's function in the current context, lent by its guard
/// ([`PushedGuard::library_function`]); launched safely as a declared kernel
/// ([`declared`](Self::declared), then [`StreamScope::run`]), or with the `unsafe`
/// [`StreamScope::launch_library`]. Not a [`Payload`](crate::Payload).
#[derive(Debug, Clone, Copy)]
#[doc(alias = "cuKernelGetFunction")]
pub struct LibraryFunction<'a> {
    function: Function<'a>,
    /// As its [`LibraryKernel`]'s.
    params: Option<usize>,
    /// As its [`LibraryKernel`]'s.
    name: Option<&'a str>,
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
        crate::error::confinement::full_api("Library::load_ptx")?;
        crate::error::poison::check()?;
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
        Ok(Self {
            raw,
            ptx: Some(code),
        })
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
        crate::error::poison::check()?;
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
            params: self
                .ptx
                .as_ref()
                .and_then(|ptx| entry_params(ptx.as_bytes(), name))
                .map(|p| p.len()),
            name: self.name_span(name).and_then(|span| self.name_at(span)),
            _library: PhantomData,
        })
    }

    /// Where the bytes of `name` first stand in the library's PTX (`None` for an empty name,
    /// or bytes the PTX does not hold).
    fn name_span(&self, name: &str) -> Option<(usize, usize)> {
        let (ptx, wanted) = (self.ptx.as_ref()?.as_bytes(), name.as_bytes());
        if wanted.is_empty() {
            return None;
        }
        let at = ptx.windows(wanted.len()).position(|w| w == wanted)?;
        Some((at, wanted.len()))
    }

    /// The name at `span` of the library's PTX ([`name_span`](Self::name_span)), borrowed
    /// from the library.
    fn name_at(&self, (at, len): (usize, usize)) -> Option<&str> {
        let bytes = self
            .ptx
            .as_ref()?
            .as_bytes()
            .get(at..at.checked_add(len)?)?;
        core::str::from_utf8(bytes).ok()
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
        let mut this = core::mem::ManuallyDrop::new(self);
        // Freed here: `this` is never dropped.
        drop(this.ptx.take());
        crate::error::left_behind::release(Object::Library, this.raw as u64)?;
        // SAFETY: a live library, unloaded once; no kernel handle borrows it, and its functions
        // launch only in scopes, which wait before the borrows end.
        unsafe { ffi::cuLibraryUnload(this.raw) }.result()
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        if !crate::error::left_behind::release_in_drop(Object::Library, self.raw as u64) {
            return;
        }
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
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a live kernel (its library is borrowed); this guard's
        // context is current.
        unsafe { ffi::cuKernelGetFunction(&raw mut raw, kernel.raw) }.result()?;
        Ok(LibraryFunction {
            // SAFETY: the function belongs to the library, borrowed for 'a.
            function: unsafe { Function::from_raw(raw) },
            params: kernel.params,
            name: kernel.name,
        })
    }
}

impl LibraryFunction<'_> {
    /// The raw `CUfunction` (of the context current when it was made).
    pub fn as_raw(&self) -> ffi::CUfunction {
        self.function.as_raw()
    }

    /// How many parameters its kernel's `.entry` declares in the library's PTX.
    pub(crate) fn entry_param_count(&self) -> Option<usize> {
        self.params
    }

    /// The name its kernel was looked up with (`None` if the library's PTX does not hold it).
    pub(crate) fn kernel_name(&self) -> Option<&str> {
        self.name
    }

    /// `cuFuncGetAttribute`—Its attributes ([`Function::attributes`]).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetAttribute")]
    pub fn attributes(&self) -> Result<crate::kernel::launch::FunctionAttributes> {
        self.function.attributes()
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuLaunchKernel`—Enqueues a launch of a library kernel's function, as
    /// [`launch`](Self::launch) does for a module's: `unsafe`, nothing checks the arguments.
    ///
    /// **A kernel with a contract launches safely with [`run`](Self::run)**, as a module's
    /// does: declare it once with [`kernel_contract!`](crate::kernel_contract), take the
    /// function's [`declared`](LibraryFunction::declared) form and pass that to `s.run` (or
    /// `run_with`, `run_cooperative`, `run_clustered`). `s.run` also replaces the removed
    /// `run_library`; a declared kernel passed here is a type error (`expected
    /// LibraryFunction`), since this takes the undeclared function.
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, LaunchConfig, Library, Stack};
    ///
    /// custack::kernel_contract! {
    ///     /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    ///     unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// }
    ///
    /// let driver = Driver::init()?;
    /// let library = Library::load_ptx(driver, include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let add = library.kernel("add_u32")?;
    /// let ctx = Context::new(driver.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let add = guard.library_function(&add)?.declared::<AddU32>()?; // checked where it can be
    /// let mut x = guard.alloc_zeroed::<u32>(256)?;
    /// guard.stream()?.scope(|s| {
    ///     let mut x = s.bind_mut(&mut x);
    ///     s.run(&add, LaunchConfig::for_elements(256), (&mut x, 1, 256)) // no `unsafe`
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
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
    #[track_caller]
    pub unsafe fn launch_library<A: KernelArgs<'scope>>(
        &self,
        function: &LibraryFunction<'scope>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        // SAFETY: the caller's promise; the library outlives the scope (borrowed for 'scope).
        unsafe { self.launch(&function.function, config, args) }
    }

    /// Not a method: `run_library` was removed before 0.1.0, and
    /// [`run`](Self::run) launches a library's declared kernel as it does a module's. It is
    /// kept, hidden and never callable (its bound has no implementation), so that a port of
    /// older code is told where the launch went instead of the compiler's nearest name,
    /// `launch_library`, which is `unsafe` and unchecked.
    #[doc(hidden)]
    #[allow(clippy::needless_pass_by_value, clippy::unused_self)]
    pub fn run_library<K: RunLibraryIsRun, A>(
        &self,
        _kernel: K,
        _config: LaunchConfig,
        _args: A,
    ) -> Result<()> {
        Err(Error::custack(
            ErrorKind::InvalidValue,
            "`run_library` was removed: launch a library's declared kernel with `s.run`",
        ))
    }
}

/// The bound of the removed [`StreamScope::run_library`]: implemented by nothing, so that a
/// call of it fails to compile with a message that names its replacement.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`run_library` was removed: a library's declared kernel launches with `s.run(&kernel, config, args)`",
    label = "`run_library` is `run` now",
    note = "take the kernel's declared form with `guard.library_function(&kernel)?.declared::<Contract>()?`, then call `s.run(&declared, config, args)`, as for a module's kernel"
)]
pub trait RunLibraryIsRun {}

/// A [`Library`] shared by the [`SharedKernel`]s looked up in it: an `Arc<Library>`, `Clone`,
/// `Send + Sync`. For a long-lived type that owns a library and its kernels in one struct
/// (a [`LibraryKernel`] borrows its library, so it cannot sit beside it). The library is
/// unloaded (`cuLibraryUnload`) when the last `SharedLibrary` and `SharedKernel` of it drop;
/// [`into_library`](Self::into_library) takes it back to unload it with its error.
///
/// # Examples
///
/// An engine that owns its code and kernels, `Send + Sync`, without `unsafe` or a leak; each
/// call gets the kernel's function from the caller's guard, so it is checked against the
/// context current there (as every [`LibraryFunction`]):
///
/// ```no_run
/// use custack::prelude::*;
/// use custack::{DeviceBuffer, Driver, LaunchConfig, PushedGuard, SharedKernel, SharedLibrary};
///
/// struct Engine {
///     library: SharedLibrary,
///     add: SharedKernel,
/// }
///
/// impl Engine {
///     fn new(driver: Driver) -> custack::Result<Self> {
///         let library = SharedLibrary::load_ptx(driver, include_str!("../../tests/fixtures/kernels.ptx"))?;
///         let add = library.kernel("add_u32")?;
///         Ok(Self { library, add })
///     }
///
///     /// Adds `k` to every element, under whatever context `guard` has pushed.
///     fn add(&self, guard: &PushedGuard<'_, '_>, x: &mut DeviceBuffer<'_, u32>, k: u32) -> custack::Result<()> {
///         let f = guard.library_function(&self.add.kernel())?; // this context's function
///         let n = x.len() as u32;
///         guard.stream()?.scope(|s| {
///             // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
///             unsafe { s.launch_library(&f, LaunchConfig::for_elements(n), (s.bind_mut(x), k, n)) }
///         })?
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct SharedLibrary {
    library: Arc<Library>,
}

/// A kernel of a [`SharedLibrary`] that holds a share of it: owned, `Clone`, `Send + Sync`, and
/// keeps the library loaded. [`kernel`](Self::kernel) lends it as a [`LibraryKernel`] for
/// [`PushedGuard::library_function`].
#[derive(Debug, Clone)]
#[doc(alias = "CUkernel")]
pub struct SharedKernel {
    raw: ffi::CUkernel,
    /// As [`LibraryKernel`]'s.
    params: Option<usize>,
    /// Where its name stands in the library's PTX (as [`LibraryKernel`]'s name).
    name: Option<(usize, usize)>,
    library: Arc<Library>,
}

// SAFETY: as for `LibraryKernel`: a `CUkernel` is a context-independent handle, valid while its
// library is loaded, which the `Arc<Library>` beside it guarantees; using it needs a guard (for
// the per-context function) or nothing.
unsafe impl Send for SharedKernel {}
// SAFETY: as for `Send`; `&SharedKernel` only lends the handle.
unsafe impl Sync for SharedKernel {}

static_assertions::assert_impl_all!(SharedLibrary: Send, Sync, Clone);
static_assertions::assert_impl_all!(SharedKernel: Send, Sync, Clone);

impl SharedLibrary {
    /// `cuLibraryLoadData`—Loads PTX for every context, as [`Library::load_ptx`], to be shared.
    ///
    /// # Errors
    ///
    /// As [`Library::load_ptx`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    #[doc(alias = "cuLibraryLoadData")]
    pub fn load_ptx(driver: Driver, ptx: &str) -> Result<Self> {
        crate::error::poison::check()?;
        Library::load_ptx(driver, ptx).map(Self::from)
    }

    /// `cuLibraryGetKernel`—The kernel `name`, holding a share of the library.
    ///
    /// # Errors
    ///
    /// As [`Library::kernel`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__LIBRARY.html>
    #[doc(alias = "cuLibraryGetKernel")]
    pub fn kernel(&self, name: &str) -> Result<SharedKernel> {
        crate::error::poison::check()?;
        let kernel = self.library.kernel(name)?;
        let (raw, params) = (kernel.raw, kernel.params);
        Ok(SharedKernel {
            raw,
            params,
            name: self.library.name_span(name),
            library: Arc::clone(&self.library),
        })
    }

    /// The library, to look up kernels that borrow it ([`Library::kernel`]).
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// The library back, if this is its last share (no other `SharedLibrary` or
    /// [`SharedKernel`] of it is alive), for example to [`unload`](Library::unload) it and see
    /// the driver's error; otherwise `self` back.
    pub fn into_library(self) -> core::result::Result<Library, Self> {
        Arc::try_unwrap(self.library).map_err(|library| Self { library })
    }
}

impl From<Library> for SharedLibrary {
    fn from(library: Library) -> Self {
        Self {
            library: Arc::new(library),
        }
    }
}

impl SharedKernel {
    /// The kernel as a [`LibraryKernel`] borrowing this share of the library, for
    /// [`PushedGuard::library_function`].
    pub fn kernel(&self) -> LibraryKernel<'_> {
        LibraryKernel {
            raw: self.raw,
            params: self.params,
            name: self.name.and_then(|span| self.library.name_at(span)),
            _library: PhantomData,
        }
    }

    /// The library this kernel belongs to.
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// The raw `CUkernel` (context-independent; valid while this value lives).
    pub fn as_raw(&self) -> ffi::CUkernel {
        self.raw
    }
}
