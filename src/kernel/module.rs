//! Modules (PTX, cubin, fatbin loaded from memory) and the functions and globals in them.

use crate::asynchronous::payload::{Payload, held_as_itself, sealed as payload_sealed};
use crate::context::current::{idle_by, idle_by_event};
use crate::context::stack::{ContextKind, PushedGuard};
use crate::deadline::{Abandon, Deadline, TimedOut, passed};
use crate::error::left_behind::{Object, left_behind};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::kernel::image::{check_elf, check_fatbin};
use crate::kernel::launch::{Function, Kernel, KernelSignature};
use crate::memory::{DeviceView, DeviceViewMut};
use crate::vocabulary::plain::DeviceCopy;
use core::ffi::{c_uint, c_void};
use core::marker::PhantomData;
use core::time::Duration;
use std::ffi::CString;

/// A loaded module of the current context, lent by a guard. Unloaded on drop.
///
/// Functions borrow the module, so none outlives it (C9).
#[derive(Debug)]
#[doc(alias = "CUmodule")]
pub struct Module<'g> {
    raw: ffi::CUmodule,
    source: Source,
    _marker: PhantomData<(&'g (), *const ())>,
}

/// What custack keeps of what a module was loaded from, for kernel lookups.
#[derive(Debug, Default)]
pub(crate) struct Source {
    // The PTX text of the module (the NUL-terminated copy made for the driver, kept rather than
    // freed; for a program NVRTC compiled, its PTX kept beside the cubin that was loaded): what
    // a kernel contract is checked against where the driver cannot tell a kernel's parameters
    // (before CUDA 12.4). `None` for images and adopted modules.
    ptx: Option<CString>,
    // NVRTC's name expressions and their lowered (mangled) names, for a module compiled at run
    // time: a kernel is looked up by either (`scale<float>` or `_Z5scaleIfEvPT_S0_y`).
    lowered: Vec<(Box<str>, Box<str>)>,
}

impl Source {
    /// A source of `ptx` text and NVRTC's `lowered` names.
    #[cfg_attr(not(any(feature = "nvrtc", test)), allow(dead_code))]
    pub(crate) fn new(ptx: Option<CString>, lowered: Vec<(Box<str>, Box<str>)>) -> Self {
        Self { ptx, lowered }
    }

    /// The symbol of the kernel `name`: the lowered name where `name` is one of the NVRTC name
    /// expressions, else `name` itself.
    fn symbol<'a>(&'a self, name: &'a str) -> &'a str {
        self.lowered
            .iter()
            .find(|(expression, _)| &**expression == name)
            .map_or(name, |(_, lowered)| lowered)
    }
}

static_assertions::assert_eq_size!(
    Module<'static>,
    (ffi::CUmodule, Option<CString>, Vec<(Box<str>, Box<str>)>)
);
static_assertions::assert_not_impl_any!(Module<'static>: Send, Sync);

const LOG_BYTES: usize = 16 * 1024;

fn name_cstring(what: &str, name: &str) -> Result<CString> {
    CString::new(name).map_err(|_| {
        Error::custack(
            ErrorKind::NulInName,
            format!("{what} name {name:?} holds a NUL byte"),
        )
    })
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuModuleLoadDataEx`—JIT-compiles and loads PTX source.
    ///
    /// # Errors
    ///
    /// The driver's error (`CUDA_ERROR_INVALID_PTX`, `CUDA_ERROR_INVALID_IMAGE`, ...) with the
    /// JIT compiler's error log as [`Error::detail`] (R5); [`ErrorKind::NulInName`] if the PTX
    /// holds a NUL byte.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(".version 6.0\n.target sm_50\n.address_size 64\n.visible .entry noop() { ret; }")?;
    /// let noop = module.function("noop")?;
    /// # let _ = noop;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadDataEx")]
    pub fn load_ptx(&self, ptx: &str) -> Result<Module<'_>> {
        let image = name_cstring("PTX source", ptx)
            .map_err(|_| Error::custack(ErrorKind::NulInName, "PTX source holds a NUL byte"))?;
        // SAFETY: `image` is NUL-terminated text, which is how the driver delimits PTX.
        let mut module = unsafe { self.load_image(image.as_ptr().cast()) }?;
        module.source.ptx = Some(image);
        Ok(module)
    }

    /// `cuModuleLoadDataEx`—Loads a cubin image.
    ///
    /// # Safety
    ///
    /// `image` must be a complete, well-formed cubin (ELF) image: the driver gets only a
    /// pointer and reads as many bytes as the image's own structures say.
    ///
    /// custack checks, before the driver sees it, everything the ELF format says about where
    /// the image's bytes lie: the ELF64 header, the section and program header tables, and
    /// every section's and segment's bytes within `image`. So a truncated image, a wrong slice
    /// or a file that is not a cubin is an error, not a read past the slice. It stays `unsafe`
    /// because that is not the whole image: inside its sections the driver parses symbol and
    /// relocation tables and NVIDIA's `.nv.info` attribute records, whose own counts and
    /// lengths it trusts, in a format NVIDIA does not publish, so custack cannot check that a
    /// crafted image keeps them within their sections. An image from nvcc, the driver's linker
    /// ([`LinkedImage::as_bytes`](crate::LinkedImage::as_bytes)) or a file they wrote meets
    /// the requirement; PTX, which the driver reads up to its NUL, loads safely
    /// ([`load_ptx`](Self::load_ptx)).
    ///
    /// # Errors
    ///
    /// As [`load_ptx`](Self::load_ptx); `CUDA_ERROR_INVALID_IMAGE` naming what lies beyond the
    /// image (no driver call).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadDataEx")]
    pub unsafe fn load_cubin(&self, image: &[u8]) -> Result<Module<'_>> {
        check_elf(image)?;
        // SAFETY: the caller guarantees a well-formed image within `image`.
        unsafe { self.load_image(image.as_ptr().cast()) }
    }

    /// `cuModuleLoadFatBinary`—Loads a fatbin image (as `nvcc -fatbin` writes).
    ///
    /// # Safety
    ///
    /// `image` must be a complete, well-formed fatbin: the driver reads as many bytes as its
    /// header says. custack checks the header's size lies within `image`; the entries inside
    /// (cubins, PTX, possibly compressed) follow a layout NVIDIA does not publish, and each
    /// embedded cubin has the unchecked inner structures of [`load_cubin`](Self::load_cubin),
    /// so a fatbin cannot be validated against the slice: the load stays `unsafe`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadFatBinary")]
    pub unsafe fn load_fatbin(&self, image: &[u8]) -> Result<Module<'_>> {
        check_fatbin(image)?;
        // SAFETY: the caller guarantees a well-formed image within `image`.
        unsafe { self.load_image(image.as_ptr().cast()) }
    }

    /// # Safety
    ///
    /// `image` must point to a complete PTX (NUL-terminated), cubin or fatbin image.
    // `&self` is the proof that this guard's context is current, and the module borrows it.
    #[allow(clippy::unused_self)]
    unsafe fn load_image(&self, image: *const c_void) -> Result<Module<'_>> {
        crate::error::poison::check()?;
        let mut log = [0u8; LOG_BYTES];
        let mut options = [
            ffi::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            ffi::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // Option values are pointer-sized: a pointer for the buffer, the size as an integer (a
        // pointer without provenance, not an integer cast: the driver never dereferences it).
        let mut values: [*mut c_void; 2] = [
            log.as_mut_ptr().cast(),
            core::ptr::without_provenance_mut(LOG_BYTES),
        ];
        let mut raw = core::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; `image` is valid (caller); `options` and
        // `values` hold 2 entries each; `log` is writable for `LOG_BYTES` bytes, as declared.
        let r = unsafe {
            ffi::cuModuleLoadDataEx(
                &raw mut raw,
                image,
                options.len() as c_uint,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if let Err(e) = r.result() {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            let text = String::from_utf8_lossy(log.get(..end).unwrap_or_default())
                .trim()
                .to_owned();
            return Err(if text.is_empty() {
                e
            } else {
                e.with_detail(format!("JIT error log:\n{text}"))
            });
        }
        Ok(Module {
            raw,
            source: Source::default(),
            _marker: PhantomData,
        })
    }
}

impl Module<'_> {
    /// # Safety
    ///
    /// `raw` must be a live module of the current context, owned by the returned value.
    pub(crate) unsafe fn from_raw(raw: ffi::CUmodule) -> Self {
        Self {
            raw,
            source: Source::default(),
            _marker: PhantomData,
        }
    }

    /// Keeps the PTX text the module was loaded from, for kernel contracts' checks.
    pub(crate) fn with_ptx(mut self, ptx: CString) -> Self {
        self.source.ptx = Some(ptx);
        self
    }

    /// Keeps what the module was loaded from: its PTX text and NVRTC's lowered names.
    #[cfg_attr(not(feature = "nvrtc"), allow(dead_code))]
    pub(crate) fn with_source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// # Safety
    ///
    /// `raw` is a live module of the current context, owned by nothing else, loaded from
    /// `source` (its PTX, where that is `Some`), and live for the returned lifetime.
    pub(crate) unsafe fn from_parts<'g>(raw: ffi::CUmodule, source: Source) -> Module<'g> {
        Module {
            raw,
            source,
            _marker: PhantomData,
        }
    }

    /// The raw module and what it was loaded from, given up without unloading it.
    pub(crate) fn into_parts(mut self) -> (ffi::CUmodule, Source) {
        let source = core::mem::take(&mut self.source);
        (core::mem::ManuallyDrop::new(self).raw, source)
    }

    /// The PTX text the module was loaded from, if it was loaded from PTX by custack.
    pub(crate) fn ptx(&self) -> Option<&[u8]> {
        self.source.ptx.as_deref().map(core::ffi::CStr::to_bytes)
    }

    /// The symbol of the kernel `name`: the lowered name where `name` is one of the NVRTC name
    /// expressions the module was compiled with, else `name` itself.
    pub(crate) fn symbol<'a>(&'a self, name: &'a str) -> &'a str {
        self.source.symbol(name)
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// Adopts a module loaded elsewhere (`cuModuleLoad*` by raw code or another library): the
    /// returned [`Module`] is lent by this guard like one it loaded, its functions borrow it,
    /// and it is unloaded when dropped (`cuModuleUnload`). [`Module::into_raw`] is the way
    /// back.
    ///
    /// # Safety
    ///
    /// - `raw` is a live module loaded in this guard's context;
    /// - ownership passes to custack: nothing else unloads it, and nothing uses it or its
    ///   functions after the returned `Module` is dropped or unloaded.
    #[inline]
    pub unsafe fn module_from_raw(&self, raw: ffi::CUmodule) -> Module<'_> {
        Module {
            raw,
            source: Source::default(),
            _marker: PhantomData,
        }
    }

    /// Borrows a kernel function of a module custack does not own (`cuModuleGetFunction` or
    /// `cuLibraryGetKernel` + `cuKernelGetFunction` by other code), lent by this guard, to
    /// launch it in scopes and submissions.
    ///
    /// # Safety
    ///
    /// - `raw` is a function of a module (or library) loaded in this guard's context;
    /// - that module stays loaded while this guard lives: the returned [`Function`] is `Copy`,
    ///   so its copies may live as long as the borrow of the guard, and a submission owning
    ///   one may still run until it is waited for or dropped.
    #[inline]
    pub unsafe fn function_from_raw(&self, raw: ffi::CUfunction) -> Function<'_> {
        // SAFETY: the caller guarantees the module outlives the borrow of this guard.
        unsafe { Function::from_raw(raw) }
    }
}

impl Module<'_> {
    /// The raw `CUmodule`.
    pub fn as_raw(&self) -> ffi::CUmodule {
        self.raw
    }

    /// Gives up ownership: returns the raw `CUmodule` without unloading it. Adopt it again
    /// with [`PushedGuard::module_from_raw`].
    #[must_use = "the module is no longer unloaded by custack"]
    pub fn into_raw(mut self) -> ffi::CUmodule {
        drop(core::mem::take(&mut self.source));
        core::mem::ManuallyDrop::new(self).raw
    }

    /// `cuModuleGetFunction`—The kernel named `name` (its mangled name for C++ kernels not
    /// declared `extern "C"`, or, in a module compiled by NVRTC, one of its name expressions:
    /// `scale<float>`).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_FOUND` with the name as [`Error::detail`] (R5);
    /// [`ErrorKind::NulInName`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let add = module.function("add_u32")?; // borrows `module`: it cannot be unloaded first
    /// let missing = module.function("no_such_kernel").unwrap_err();
    /// assert_eq!(missing.kind(), custack::ErrorKind::NotFound);
    /// # drop(add);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleGetFunction")]
    pub fn function(&self, name: &str) -> Result<Function<'_>> {
        crate::error::poison::check()?;
        let c = name_cstring("function", self.symbol(name))?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; live module of the current context; NUL-terminated name.
        unsafe { ffi::cuModuleGetFunction(&raw mut raw, self.raw, c.as_ptr()) }
            .result()
            .map_err(|e| e.with_detail(format!("function {name:?}")))?;
        // SAFETY: the driver returned a live function of this module.
        Ok(unsafe { Function::from_raw(raw) })
    }

    /// `cuModuleGetFunction`, `cuFuncGetParamInfo`—The kernel `name` with the Rust signature
    /// `S`, checked once, here: the kernel must take as many parameters as `S` has, each at the
    /// offset and of the size C gives `S`'s type there ([`DevicePtr<T>`](crate::DevicePtr) for
    /// a pointer to device memory). Launches of the returned [`Kernel`] accept only arguments
    /// of that signature and check nothing more.
    ///
    /// On a driver without `cuFuncGetParamInfo` (before CUDA 12.4) the kernel cannot tell its
    /// parameters, and the check is skipped: the signature is then the caller's word, as with
    /// [`function`](Self::function).
    ///
    /// # Errors
    ///
    /// As [`function`](Self::function);
    /// [`ErrorKind::KernelSignatureMismatch`](crate::ErrorKind::KernelSignatureMismatch) naming
    /// the first parameter that differs.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DevicePtr, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// // add_u32(unsigned* x, unsigned k, unsigned n)
    /// let add = module.kernel::<(DevicePtr<u32>, u32, u32)>("add_u32")?;
    /// // module.kernel::<(DevicePtr<u32>, u64)>("add_u32") fails: 2 parameters, not 3
    /// # let _ = add;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetParamInfo")]
    pub fn kernel<S: KernelSignature>(&self, name: &str) -> Result<Kernel<'_, S>> {
        Kernel::check(self.function(name)?, self.symbol(name), self.ptx())
    }

    /// `cuModuleGetGlobal`—The device address and size in bytes of the global `name`.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NOT_FOUND` with the name as detail; [`ErrorKind::NulInName`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleGetGlobal")]
    pub fn global_address(&self, name: &str) -> Result<(ffi::CUdeviceptr, usize)> {
        crate::error::poison::check()?;
        let c = name_cstring("global", name)?;
        let (mut ptr, mut bytes) = (0, 0usize);
        // SAFETY: valid out-pointers; live module of the current context; NUL-terminated name.
        unsafe { ffi::cuModuleGetGlobal_v2(&raw mut ptr, &raw mut bytes, self.raw, c.as_ptr()) }
            .result()
            .map_err(|e| e.with_detail(format!("global {name:?}")))?;
        Ok((ptr, bytes))
    }

    /// `cuCtxSynchronize`, `cuModuleGetGlobal`—The global `name` as a read-only view of `T`s,
    /// once no kernel of this module can still run; borrows the module mutably.
    ///
    /// A kernel may read and write its own module's globals (a declared kernel too: its
    /// contract covers them), so the host reaches a global only while no kernel of the module
    /// can run (C24): the view borrows the module exclusively, so no [`Function`],
    /// [`Kernel`] or [`Declared`](crate::Declared) of it can be launched (or even held) while
    /// the view lives, and the context is synchronized first, because a kernel launched
    /// earlier may still run without borrowing the module: in a parked or leaked submission
    /// (as for [`unload`](Self::unload)). The common program reads a global once the
    /// kernels that accumulate into it are done with:
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, LaunchConfig, Stack};
    /// custack::kernel_contract! {
    ///     /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    ///     unsafe kernel CountThreads = "count_threads"();
    /// }
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let count = module.declared::<CountThreads>()?;
    /// guard.stream()?.scope(|s| s.run(&count, LaunchConfig::for_elements(256), ()))??;
    /// // `count` is not used after this point: the global may be read.
    /// let counters = module.global::<u32>("counters")?.to_vec()?;
    /// # let _ = counters;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The synchronization's error (an earlier asynchronous error, or
    /// `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` during a capture): then no view is lent. As
    /// [`global_address`](Self::global_address); [`ErrorKind::LengthMismatch`] if the global's
    /// size is not a whole number of `T`s.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleGetGlobal")]
    pub fn global<T: DeviceCopy>(&mut self, name: &str) -> Result<DeviceView<'_, T>> {
        let (ptr, len) = self.idle_global::<T>(name)?;
        // SAFETY: the driver returned a global of this module, live while the module is
        // loaded, which the view's borrow of `self` guarantees; it is readable as plain data,
        // and no kernel that may write it can run while the view lives (`idle_global`).
        Ok(unsafe { DeviceView::from_raw_parts(ptr, len) })
    }

    /// `cuCtxSynchronize`, `cuModuleGetGlobal`—The global `name` as an exclusive view of `T`s,
    /// once no kernel of this module can still run; borrows the module mutably (so no kernel
    /// of it can be launched while the view lives). As [`global`](Self::global), which says why
    /// the context is synchronized first.
    ///
    /// The mutable borrow also means that `global_mut` is refused (E0502) while any
    /// [`Function`](crate::Function) of the module is still used later on, even when no kernel
    /// is pending: a `Function` is `Copy` and a [payload](crate::Payload), so custack cannot tell
    /// a function handle kept for later from one a pending submission still runs, whose kernel
    /// may read the global. It is the price of that, and there are two ways through: write the
    /// globals *before* looking functions up, or stop using the function handles, write the
    /// global, and look the functions up again (`cuModuleGetFunction` is a hash lookup in the
    /// driver, no JIT).
    ///
    /// # Errors
    ///
    /// As [`global`](Self::global).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, LaunchConfig, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let stream = guard.stream()?;
    /// let mut module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// // 1. Globals first, then the functions.
    /// module.global_mut::<u32>("counters")?.copy_from_host(&[0; 4])?;
    /// let count = module.function("count_threads")?;
    /// // SAFETY: count_threads() takes no arguments and adds 1 to counters[0] per thread.
    /// stream.scope(|s| unsafe { s.launch(&count, LaunchConfig::for_elements(256), ()) })??;
    /// // 2. `count` is not used any more: write the global, then look the function up again.
    /// module.global_mut::<u32>("counters")?.copy_from_host(&[0; 4])?;
    /// let count = module.function("count_threads")?;
    /// // SAFETY: as above.
    /// stream.scope(|s| unsafe { s.launch(&count, LaunchConfig::for_elements(256), ()) })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// What is refused: a global written while a function handle is still to be used.
    ///
    /// ```compile_fail,E0502
    /// # use custack::{Context, ContextFlags, DeviceMemoryMut, Driver, LaunchConfig, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// # let stream = guard.stream()?;
    /// let mut module = guard.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let count = module.function("count_threads")?;
    /// module.global_mut::<u32>("counters")?.copy_from_host(&[0; 4])?; // E0502
    /// // SAFETY: count_threads() takes no arguments and adds 1 to counters[0] per thread.
    /// stream.scope(|s| unsafe { s.launch(&count, LaunchConfig::for_elements(256), ()) })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleGetGlobal")]
    pub fn global_mut<T: DeviceCopy>(&mut self, name: &str) -> Result<DeviceViewMut<'_, T>> {
        let (ptr, len) = self.idle_global::<T>(name)?;
        // SAFETY: as in `global`; `&mut self` excludes every other view and function of it.
        Ok(unsafe { DeviceViewMut::from_raw_parts(ptr, len) })
    }

    /// The global `name` as `T`s, after waiting until no kernel of this module can run: the
    /// callers hold `&mut self`, so none is launched (or held) from now on, and the context's
    /// synchronize covers those still pending without a borrow (parked or leaked submissions).
    fn idle_global<T: DeviceCopy>(&mut self, name: &str) -> Result<(ffi::CUdeviceptr, usize)> {
        let found = self.global_len::<T>(name)?;
        // SAFETY: a context is current: the module's, lent by its guard.
        unsafe { ffi::cuCtxSynchronize() }.result()?;
        Ok(found)
    }

    fn global_len<T: DeviceCopy>(&self, name: &str) -> Result<(ffi::CUdeviceptr, usize)> {
        let (ptr, bytes) = self.global_address(name)?;
        let size = size_of::<T>();
        if size == 0 || bytes % size != 0 {
            return Err(Error::custack(
                ErrorKind::LengthMismatch,
                format!(
                    "global {name:?} holds {bytes} bytes, not a whole number of {size}-byte elements"
                ),
            ));
        }
        Ok((ptr, bytes / size))
    }

    /// `cuCtxSynchronize`, `cuModuleUnload`—Waits for the context's work, then unloads the
    /// module, returning the driver's first error.
    ///
    /// The wait is a backstop for leaked work: a scope or a live [`Submission`](crate::Submission)
    /// that launched one of the module's kernels borrows the module, so it cannot be unloaded
    /// before that work is complete (C9); but a submission leaked with `mem::forget` no longer
    /// does, and a kernel must never run from unloaded code. Unloading is rare; the wait costs
    /// nothing when the GPU is idle.
    ///
    /// # Errors
    ///
    /// The first error of the wait or of the unload; after a sticky error, typically that error.
    /// The module is consumed either way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleUnload")]
    pub fn unload(mut self) -> Result<()> {
        drop(core::mem::take(&mut self.source));
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: a live module of the current context, unloaded once (`this` never drops); no
        // function borrows it.
        unsafe { unload_raw(this.raw) }
    }
}

impl Module<'_> {
    /// `cuCtxRecordEvent`, `cuEventQuery`, `cuModuleUnload`—[`unload`](Self::unload) with its
    /// wait for the context's work bounded by `deadline` ([R19](crate::Deadline); CUDA 12.5,
    /// looked up, not linked).
    ///
    /// A kernel must never run from unloaded code, and a leaked submission may still run one
    /// of this module's kernels: the module is unloaded only once the context is idle. Past the
    /// deadline, `Ok(Err(late))` hands the module back, loaded, with
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) naming this call site:
    /// unload it again later, or keep it.
    ///
    /// # Errors
    ///
    /// The unload's error; the work's error or a sticky one. Any error of the wait, a sticky
    /// one included (another context's fault does not stop this context's kernels, R20),
    /// leaves the module loaded for good rather than unloaded under work that may run it,
    /// including
    /// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) before driver 12.5, which
    /// cannot ask whether a context is idle without blocking: use [`unload`](Self::unload)
    /// there.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleUnload")]
    #[track_caller]
    pub fn unload_by(self, deadline: Deadline) -> Result<core::result::Result<(), TimedOut<Self>>> {
        let site = core::panic::Location::caller();
        // SAFETY: `ctx` is the current context (`unload_when_idle`'s promise), live while
        // its guard lends this module.
        self.unload_when_idle(site, |ctx| unsafe { idle_by(ctx, deadline, site) })
    }

    /// [`unload_by`](Self::unload_by) with an event made before (the restricted profile's,
    /// made in its init phase, so that the unload after the seal creates nothing, C27): records
    /// `event` after everything enqueued in the context and polls it until `deadline`.
    ///
    /// # Errors
    ///
    /// As [`unload_by`](Self::unload_by).
    ///
    /// # Safety
    ///
    /// `event` is a live event of this module's context.
    #[track_caller]
    pub(crate) unsafe fn unload_by_event(
        self,
        event: ffi::CUevent,
        deadline: Deadline,
    ) -> Result<core::result::Result<(), TimedOut<Self>>> {
        let site = core::panic::Location::caller();
        // SAFETY: `ctx` is the current context (`unload_when_idle`'s promise), and `event` a
        // live event of it (this function's caller's).
        self.unload_when_idle(site, |ctx| unsafe {
            idle_by_event(ctx, event, deadline, site)
        })
    }

    /// Unloads the module once `idle`, given the current context, says that the context is
    /// idle; past its deadline the module comes back; any error leaves it loaded for good.
    fn unload_when_idle(
        self,
        site: &'static core::panic::Location<'static>,
        idle: impl FnOnce(ffi::CUcontext) -> Result<core::result::Result<(), Duration>>,
    ) -> Result<core::result::Result<(), TimedOut<Self>>> {
        if let Err(poisoned) = crate::error::poison::check() {
            // Poisoned (R20): no call to the driver; the module stays loaded, never unloaded
            // under work that may run it.
            self.abandon();
            return Err(poisoned);
        }
        let mut ctx = core::ptr::null_mut();
        // SAFETY: valid out-pointer; the module's context is current (lent by its guard).
        let current = unsafe { ffi::cuCtxGetCurrent(&raw mut ctx) }.result();
        let idle = current.and_then(|()| idle(ctx));
        match idle {
            Ok(Err(waited)) => {
                return Ok(Err(TimedOut::new(
                    self,
                    passed(
                        format_args!("the work before the module unloaded at {site}"),
                        waited,
                    ),
                )));
            }
            Ok(Ok(())) => {}
            Err(e) => {
                // Not known to be idle (a sticky error is no evidence either: another
                // context's fault does not stop this context's kernels, R20): left loaded
                // rather than unloaded under its kernels.
                self.abandon();
                return Err(e);
            }
        }
        let mut this = core::mem::ManuallyDrop::new(self);
        drop(core::mem::take(&mut this.source));
        // SAFETY: a live module of the current context, unloaded once (`this` never drops); no
        // function borrows it, and no work that may run its kernels is pending (above).
        let unloaded = unsafe { ffi::cuModuleUnload(this.raw) }.result();
        if unloaded.is_err() {
            // The driver keeps a module it failed to unload.
            left_behind(Object::Module, this.raw as u64);
        }
        unloaded.map(Ok)
    }
}

impl Abandon for Module<'_> {
    /// Gives up on unloading the module: it stays loaded until its context is destroyed (named
    /// to the checking driver as left behind), so no kernel of it can ever run from unloaded
    /// code. For a module whose kernels may never finish (a hung launch).
    fn abandon(self) {
        let mut this = core::mem::ManuallyDrop::new(self);
        drop(core::mem::take(&mut this.source));
        left_behind(Object::Module, this.raw as u64);
    }
}

/// Waits for the current context's work, then unloads `raw`. Work launched with the module's
/// functions may still be pending (a parked or leaked submission's), so the unload happens only
/// once the context is known to run none of it: its synchronize succeeded. A sticky error is
/// no such evidence (another context's fault makes this context answer it while its kernels
/// still run, R20): the module is leaked. A synchronize that failed otherwise says nothing
/// about the work either (during a stream capture the driver refuses it with
/// `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`), so it is tried once more; if that fails too, the
/// module is leaked rather than unloaded under work that may run it. The first error is
/// returned either way.
///
/// # Safety
///
/// `raw` must be a live module of the current context, unloaded once.
pub(crate) unsafe fn unload_raw(raw: ffi::CUmodule) -> Result<()> {
    // Poisoned or forked (R20, R22): no call at all; the module stays loaded.
    crate::error::left_behind::release(Object::Module, raw as u64)?;
    // SAFETY: a context is current (the caller's promise).
    let waited = unsafe { ffi::cuCtxSynchronize() }.result();
    let idle = match &waited {
        Ok(()) => true,
        Err(e) if e.is_sticky() => false,
        // SAFETY: as above.
        Err(_) => unsafe { ffi::cuCtxSynchronize() }.result().is_ok(),
    };
    // A sticky error from the wait poisoned the process: another context's work may still run,
    // so nothing is released (R20).
    if !idle || crate::error::poison::may_release().is_err() {
        // Its kernels may still run: the module is left, never unloaded under them.
        left_behind(Object::Module, raw as u64);
        return waited;
    }
    // SAFETY: the caller's promise; no work that may use the module is pending (above).
    let unloaded = unsafe { ffi::cuModuleUnload(raw) }.result();
    if unloaded.is_err() {
        // The driver keeps a module it failed to unload.
        left_behind(Object::Module, raw as u64);
    }
    waited.and(unloaded)
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // SAFETY: live module of the current context, unloaded once; functions borrow the
        // module, so none is alive.
        if let Err(e) = unsafe { unload_raw(self.raw) } {
            record_drop_error(e);
        }
    }
}

impl payload_sealed::Sealed for Module<'_> {}
/// A module moved into a submission or graph: what lets an executable graph own the code its
/// kernel nodes run, and so park ([`ParkWithGraph`](crate::ParkWithGraph)). Bound to a scope
/// (and so inside a capture) as `&'scope Module<'scope>`: functions looked up there cannot
/// leave the closure (work launched with them elsewhere is waited for by the module's unload,
/// which synchronizes its context first). Its [`Access`](Payload::Access) and
/// [`Read`](Payload::Read) forms are `&Module`.
impl<'m> Payload for Module<'m> {
    type Bound<'scope> = &'scope Module<'scope>;
    type Access<'a>
        = &'a Module<'m>
    where
        Self: 'a;
    type Read<'a>
        = &'a Module<'m>
    where
        Self: 'a;
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> &'scope Module<'scope> {
        // SAFETY: the lifetime is the caller's `'scope`, which may be longer than `'m`: sound
        // because `bind` is called only by `capture`, `submit` and `submit_after`, whose
        // closures take every `'scope` (`for<'scope>`), so nothing bound can leave them, and
        // nothing `Module` lends through `&self` lives longer than that borrow. The reference
        // points into the held payload, which those callers do not move until the closure has
        // returned. Functions looked up through it stay valid while the module is loaded: the
        // submission or graph owns it until its work is complete, and work launched with them
        // elsewhere is waited for by the unload (`Module`'s drop synchronizes its context
        // first, and leaks the module if it cannot).
        unsafe { &*core::ptr::from_mut(held).cast::<Module<'scope>>() }
    }
    #[inline]
    fn access<'a>(held: &'a mut Self) -> &'a Module<'m>
    where
        Self: 'a,
    {
        held
    }
    #[inline]
    fn read<'a>(held: &'a Self) -> &'a Module<'m>
    where
        Self: 'a,
    {
        held
    }
    unsafe fn left_behind(held: &Self) {
        left_behind(Object::Module, held.as_raw() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::Source;

    #[test]
    fn name_expressions_resolve_to_their_lowered_names_only() {
        let source = Source::new(
            None,
            vec![
                ("scale<float>".into(), "_Z5scaleIfEvPT_S0_y".into()),
                ("scale<double>".into(), "_Z5scaleIdEvPT_S0_y".into()),
            ],
        );
        assert_eq!(source.symbol("scale<float>"), "_Z5scaleIfEvPT_S0_y");
        assert_eq!(source.symbol("scale<double>"), "_Z5scaleIdEvPT_S0_y");
        // Anything else is looked up as written: an extern "C" name, a mangled name.
        assert_eq!(source.symbol("scale<int>"), "scale<int>");
        assert_eq!(source.symbol("_Z5scaleIfEvPT_S0_y"), "_Z5scaleIfEvPT_S0_y");
        assert_eq!(Source::default().symbol("vector_add"), "vector_add");
    }
}
