//! The JIT compiler and linker: PTX loaded with options and logs, PTX from files, several
//! images linked into one (`cuLink*`), and a module's functions enumerated.
//!
//! A [`Linker`] is lent by a guard; the image it completes is borrowed from it
//! ([`LinkedImage<'l>`]) and can only be loaded while the linker lives, because the driver frees
//! the image with the linker's state.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::kernel::launch::Function;
use crate::kernel::module::Module;
use core::ffi::{c_uint, c_void};
use core::marker::PhantomData;
use std::ffi::CString;

const LOG_BYTES: usize = 16 * 1024;

/// Options for the JIT compiler ([`PushedGuard::load_ptx_with`], [`PushedGuard::linker`]).
/// `Default`: the driver's defaults, logs only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "CUjit_option")]
pub struct JitOptions {
    /// `CU_JIT_OPTIMIZATION_LEVEL`: 0 (none) to 4 (the default, most).
    pub optimization_level: Option<u32>,
    /// `CU_JIT_MAX_REGISTERS`: at most this many registers per thread.
    pub max_registers: Option<u32>,
    /// `CU_JIT_TARGET`: compile for this architecture (`major * 10 + minor`, e.g. 90) rather
    /// than the current context's device.
    pub target: Option<u32>,
    /// `CU_JIT_FALLBACK_STRATEGY`: when no exact binary matches, prefer a compatible binary
    /// (`true`) or compiling PTX (`false`, the default).
    pub prefer_binary: Option<bool>,
    /// `CU_JIT_GENERATE_LINE_INFO`: line information for profilers and debuggers.
    pub line_info: bool,
    /// `CU_JIT_LOG_VERBOSE`: a verbose info log (registers, spills, memory per kernel).
    pub verbose: bool,
}

/// What the JIT compiler or linker said: its info and error logs, and how long it took.
#[derive(Debug, Clone, Default, PartialEq)]
#[doc(alias = "CU_JIT_ERROR_LOG_BUFFER")]
pub struct JitLog {
    /// The info log (e.g. with [`JitOptions::verbose`], each kernel's registers and memory).
    pub info: String,
    /// The error log (empty on success, usually).
    pub error: String,
    /// Wall time the compiler or linker took, in milliseconds.
    pub wall_time_ms: f32,
}

/// An integer option value, passed in a pointer-sized slot.
fn int_value(v: usize) -> *mut c_void {
    core::ptr::without_provenance_mut(v)
}

/// The option and value arrays `cuModuleLoadDataEx` and `cuLink*` take, with the log buffers
/// they point into.
///
/// The buffers are `Vec`s, whose heap blocks stay put while the arrays point at them, and whose
/// pointers (`Vec::as_mut_ptr`, no reference to the elements) stay valid when the `Vec` moves:
/// `RawOptions` moves out of `new` and into a [`Linker`], and the linker's driver keeps writing
/// into them until it is destroyed. Boxes were wrong here: moving a `Box` asserts it
/// is the only pointer to its bytes, which invalidated the driver's pointers (undefined
/// behaviour under Stacked Borrows, found by Miri once the checking driver wrote the logs).
struct RawOptions {
    options: Vec<ffi::CUjit_option>,
    values: Vec<*mut c_void>,
    info: Vec<u8>,
    error: Vec<u8>,
}

impl RawOptions {
    fn new(o: &JitOptions) -> Self {
        use ffi::CUjit_option as J;
        let mut info = vec![0u8; LOG_BYTES];
        let mut error = vec![0u8; LOG_BYTES];
        // Values are pointer-sized: a pointer for a buffer, an integer otherwise; the wall
        // time slot receives a `float`.
        let mut pairs: Vec<(J, *mut c_void)> = vec![
            (J::CU_JIT_INFO_LOG_BUFFER, Vec::as_mut_ptr(&mut info).cast()),
            (J::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, int_value(LOG_BYTES)),
            (
                J::CU_JIT_ERROR_LOG_BUFFER,
                Vec::as_mut_ptr(&mut error).cast(),
            ),
            (J::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, int_value(LOG_BYTES)),
            (J::CU_JIT_WALL_TIME, core::ptr::null_mut()),
        ];
        if let Some(level) = o.optimization_level {
            pairs.push((J::CU_JIT_OPTIMIZATION_LEVEL, int_value(level as usize)));
        }
        if let Some(registers) = o.max_registers {
            pairs.push((J::CU_JIT_MAX_REGISTERS, int_value(registers as usize)));
        }
        if let Some(target) = o.target {
            pairs.push((J::CU_JIT_TARGET, int_value(target as usize)));
        }
        if let Some(binary) = o.prefer_binary {
            let strategy = if binary {
                ffi::CU_PREFER_BINARY
            } else {
                ffi::CU_PREFER_PTX
            };
            pairs.push((J::CU_JIT_FALLBACK_STRATEGY, int_value(strategy as usize)));
        }
        if o.line_info {
            pairs.push((J::CU_JIT_GENERATE_LINE_INFO, int_value(1)));
        }
        if o.verbose {
            pairs.push((J::CU_JIT_LOG_VERBOSE, int_value(1)));
        }
        let (options, values) = pairs.into_iter().unzip();
        Self {
            options,
            values,
            info,
            error,
        }
    }

    fn count(&self) -> c_uint {
        self.options.len() as c_uint
    }

    /// Empties the error log after a linker call failed and its log was reported: the driver
    /// keeps writing into the buffer registered at `cuLinkCreate`, and an input that failed
    /// (and was left out) must not make a later successful link report its error.
    fn clear_error_log(&self) {
        // Through the pointer the driver was given (index 2), not a reference made from the
        // vector: the driver's pointer stays valid for its later writes.
        if let Some(&ptr) = self.values.get(2) {
            // SAFETY: `ptr` points to the first of the `LOG_BYTES` bytes of `self.error`, alive
            // as long as `self`; no driver call runs concurrently (the linker is `!Sync` and
            // borrowed here).
            unsafe { ptr.cast::<u8>().write(0) };
        }
    }

    /// The logs and the wall time the driver wrote back.
    fn log(&self) -> JitLog {
        let text = |buf: &[u8]| {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            String::from_utf8_lossy(buf.get(..end).unwrap_or_default())
                .trim()
                .to_owned()
        };
        // The wall time slot (index 4) holds a `float` in its low bytes.
        let bits = self.values.get(4).map_or(0, |v| *v as usize as u32);
        JitLog {
            info: text(&self.info[..]),
            error: text(&self.error[..]),
            wall_time_ms: f32::from_bits(bits),
        }
    }
}

/// The error for a failed JIT call, with both logs.
fn jit_error(e: Error, log: &JitLog) -> Error {
    let mut parts = Vec::new();
    if !log.error.is_empty() {
        parts.push(format!("JIT error log:\n{}", log.error));
    }
    if !log.info.is_empty() {
        parts.push(format!("JIT info log:\n{}", log.info));
    }
    if parts.is_empty() {
        e
    } else {
        e.with_detail(parts.join("\n"))
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuModuleLoadDataEx`—JIT-compiles PTX with `options` and loads it, returning the
    /// compiler's logs with the module.
    ///
    /// # Errors
    ///
    /// As [`load_ptx`](Self::load_ptx), with both the error and the info log in the detail.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::JitOptions;
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let options = JitOptions { max_registers: Some(32), line_info: true, verbose: true, ..Default::default() };
    /// let (module, log) = guard.load_ptx_with(include_str!("../../tests/fixtures/kernels.ptx"), &options)?;
    /// println!("compiled in {} ms:\n{}", log.wall_time_ms, log.info);
    /// # drop(module);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadDataEx")]
    pub fn load_ptx_with(&self, ptx: &str, options: &JitOptions) -> Result<(Module<'_>, JitLog)> {
        crate::error::poison::check()?;
        let image = c_string(ptx, || "PTX source".to_owned())?;
        let mut raw_options = RawOptions::new(options);
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; `image` is NUL-terminated PTX; the option and value arrays
        // have `count()` entries each, and the log buffers they point to are `LOG_BYTES` long
        // and live (vectors owned by `raw_options`) until after the call; this guard's context is
        // current.
        let r = unsafe {
            ffi::cuModuleLoadDataEx(
                &raw mut raw,
                image.as_ptr().cast(),
                raw_options.count(),
                raw_options.options.as_mut_ptr(),
                raw_options.values.as_mut_ptr(),
            )
        };
        let log = raw_options.log();
        r.result().map_err(|e| jit_error(e, &log))?;
        // SAFETY: the driver returned a live module of this guard's context.
        Ok((unsafe { Module::from_raw(raw) }.with_ptx(image), log))
    }

    /// Reads PTX from `path` and loads it ([`load_ptx`](Self::load_ptx)).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] if the file cannot be read as UTF-8 text (the detail names it); as
    /// [`load_ptx`](Self::load_ptx).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadDataEx")]
    pub fn load_ptx_file(&self, path: impl AsRef<std::path::Path>) -> Result<Module<'_>> {
        let path = path.as_ref();
        let ptx = std::fs::read_to_string(path).map_err(|e| {
            Error::custack(
                ErrorKind::Io,
                format!("reading PTX from {}: {e}", path.display()),
            )
        })?;
        self.load_ptx(&ptx)
    }

    /// `cuLinkCreate`—A JIT linker in this guard's context, with `options` (logs are always
    /// collected).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::JitOptions;
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut linker = guard.linker(&JitOptions::default())?;
    /// linker.add_ptx("kernels.ptx", include_str!("../../tests/fixtures/kernels.ptx"))?;
    /// let (image, log) = linker.complete()?; // borrowed from the linker
    /// let module = guard.load_linked(&image)?;
    /// # let _ = (module, log);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuLinkCreate")]
    pub fn linker(&self, options: &JitOptions) -> Result<Linker<'_>> {
        crate::error::poison::check()?;
        let mut raw_options = RawOptions::new(options);
        let mut state = core::ptr::null_mut();
        // SAFETY: valid out-pointer; arrays of `count()` entries whose buffers live as long as
        // the linker (owned by it, vectors: the driver keeps writing logs there until destroy).
        unsafe {
            ffi::cuLinkCreate_v2(
                raw_options.count(),
                raw_options.options.as_mut_ptr(),
                raw_options.values.as_mut_ptr(),
                &raw mut state,
            )
        }
        .result()?;
        Ok(Linker {
            state,
            options: raw_options,
            _marker: PhantomData,
        })
    }

    /// `cuModuleLoadData`—Loads the image a [`Linker`] completed. Safe: the image is the
    /// driver's own output, and borrowed from a live linker.
    ///
    /// # Errors
    ///
    /// The driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadData")]
    pub fn load_linked(&self, image: &LinkedImage<'_>) -> Result<Module<'_>> {
        crate::error::poison::check()?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; `image` is a complete cubin the driver's linker made, alive
        // while its linker is (borrowed); this guard's context is current.
        unsafe { ffi::cuModuleLoadData(&raw mut raw, image.ptr) }.result()?;
        // SAFETY: the driver returned a live module of this guard's context.
        Ok(unsafe { Module::from_raw(raw) })
    }
}

/// A JIT linker invocation (`cuLinkCreate`), lent by a guard. Add PTX, cubin, fatbin or
/// library inputs, then [`complete`](Self::complete). Destroyed on drop (`cuLinkDestroy`),
/// which frees the image it made.
#[derive(Debug)]
#[doc(alias = "CUlinkState")]
pub struct Linker<'g> {
    state: ffi::CUlinkState,
    // The log buffers the driver writes into until the state is destroyed.
    options: RawOptions,
    _marker: PhantomData<(&'g (), *const ())>,
}

impl core::fmt::Debug for RawOptions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RawOptions")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The image a [`Linker`] completed, borrowed from it: it can be loaded
/// ([`PushedGuard::load_linked`]) only while the linker lives.
#[derive(Debug)]
#[doc(alias = "cuLinkComplete")]
pub struct LinkedImage<'l> {
    ptr: *const c_void,
    len: usize,
    _linker: PhantomData<&'l ()>,
}

impl LinkedImage<'_> {
    /// The image's bytes (a cubin), e.g. to save it.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the driver's linker owns `len` bytes at `ptr` until it is destroyed, which
        // the borrow of the linker prevents while `self` lives.
        unsafe { core::slice::from_raw_parts(self.ptr.cast(), self.len) }
    }
}

/// `bytes` as a C string; [`ErrorKind::NulInName`] naming `what` if they hold a NUL byte.
fn c_string(bytes: impl Into<Vec<u8>>, what: impl FnOnce() -> String) -> Result<CString> {
    CString::new(bytes)
        .map_err(|_| Error::custack(ErrorKind::NulInName, format!("{} holds a NUL byte", what())))
}

impl Linker<'_> {
    /// The raw `CUlinkState`; custack destroys it when this value drops.
    pub fn as_raw(&self) -> ffi::CUlinkState {
        self.state
    }

    /// The result `r` of adding an input, with the linker's logs in an error's detail; after a
    /// failure, the error log is cleared.
    fn added(&mut self, r: ffi::CUresult) -> Result<()> {
        let log = self.options.log();
        if r != ffi::CUresult::CUDA_SUCCESS {
            self.options.clear_error_log();
        }
        r.result().map_err(|e| jit_error(e, &log))
    }

    fn add(&mut self, kind: ffi::CUjitInputType, name: &str, data: &[u8]) -> Result<()> {
        crate::error::poison::check()?;
        let name = c_string(name, || format!("input name {name:?}"))?;
        // SAFETY: a live linker state; `data` is readable for its length (the driver copies it,
        // as `cuLinkAddData` takes the input by value); the name is NUL-terminated; no options.
        let r = unsafe {
            ffi::cuLinkAddData_v2(
                self.state,
                kind,
                data.as_ptr().cast_mut().cast(),
                data.len(),
                name.as_ptr(),
                0,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        };
        self.added(r)
    }

    /// `cuLinkAddData`—Adds PTX source named `name` (for the logs).
    ///
    /// # Errors
    ///
    /// The driver's error, with the linker's logs in the detail.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuLinkAddData")]
    pub fn add_ptx(&mut self, name: &str, ptx: &str) -> Result<()> {
        // PTX is NUL-terminated text for the driver.
        let mut text = ptx.as_bytes().to_vec();
        text.push(0);
        self.add(ffi::CUjitInputType::CU_JIT_INPUT_PTX, name, &text)
    }

    /// `cuLinkAddData`—Adds a cubin, fatbin, object or library image.
    ///
    /// # Safety
    ///
    /// `image` must be a complete, well-formed image of `kind` (the driver trusts its headers).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuLinkAddData")]
    pub unsafe fn add_image(
        &mut self,
        kind: ffi::CUjitInputType,
        name: &str,
        image: &[u8],
    ) -> Result<()> {
        self.add(kind, name, image)
    }

    /// `cuLinkAddFile`—Adds a file (PTX, cubin, fatbin, object or library, by `kind`).
    ///
    /// # Safety
    ///
    /// The file must be a complete, well-formed input of `kind`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuLinkAddFile")]
    pub unsafe fn add_file(
        &mut self,
        kind: ffi::CUjitInputType,
        path: &std::path::Path,
    ) -> Result<()> {
        crate::error::poison::check()?;
        let c = c_string(path.as_os_str().as_encoded_bytes(), || {
            format!("path {}", path.display())
        })?;
        // SAFETY: a live linker state; a NUL-terminated path; no options; the caller vouches
        // for the file.
        let r = unsafe {
            ffi::cuLinkAddFile_v2(
                self.state,
                kind,
                c.as_ptr(),
                0,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        };
        self.added(r)
    }

    /// `cuLinkComplete`—Links the inputs into one image, borrowed from the linker, and the
    /// linker's logs.
    ///
    /// # Errors
    ///
    /// The driver's error (e.g. an undefined symbol), with the linker's logs in the detail;
    /// [`ErrorKind::LinkerErrorLogged`](crate::ErrorKind::LinkerErrorLogged) when the driver
    /// reports success but its error log is not empty (driver 580 has been seen to return an
    /// image for an unresolved symbol after an earlier failed load in the same context; such
    /// an image is not handed out).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuLinkComplete")]
    pub fn complete(&mut self) -> Result<(LinkedImage<'_>, JitLog)> {
        crate::error::poison::check()?;
        let (mut ptr, mut len) = (core::ptr::null_mut(), 0usize);
        // SAFETY: a live linker state; valid out-pointers.
        let r = unsafe { ffi::cuLinkComplete(self.state, &raw mut ptr, &raw mut len) };
        let log = self.options.log();
        r.result().map_err(|e| jit_error(e, &log))?;
        if !log.error.trim().is_empty() {
            return Err(jit_error(
                Error::custack(ErrorKind::LinkerErrorLogged, "cuLinkComplete"),
                &log,
            ));
        }
        Ok((
            LinkedImage {
                ptr: ptr.cast_const(),
                len,
                _linker: PhantomData,
            },
            log,
        ))
    }
}

impl Drop for Linker<'_> {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::Untracked, self.state as u64, || {
            // SAFETY: a live linker state, destroyed once; no image borrowed from it is alive.
            unsafe { ffi::cuLinkDestroy(self.state) }.result()
        });
    }
}

impl Module<'_> {
    /// `cuModuleGetFunctionCount`, `cuModuleEnumerateFunctions`, `cuFuncGetName`—Every function
    /// of the module with its name (CUDA 12.4; looked up).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`] before driver 12.4; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleEnumerateFunctions")]
    pub fn functions(&self) -> Result<Vec<(String, Function<'_>)>> {
        crate::error::poison::check()?;
        let count = crate::driver::lookup::MODULE_GET_FUNCTION_COUNT.get()?;
        let enumerate = crate::driver::lookup::MODULE_ENUMERATE_FUNCTIONS.get()?;
        let get_name = crate::driver::lookup::FUNC_GET_NAME.get()?;
        let mut n: c_uint = 0;
        // SAFETY: valid out-pointer; a live module of the current context.
        unsafe { count(&raw mut n, self.as_raw()) }.result()?;
        let mut raw = vec![core::ptr::null_mut(); n as usize];
        // SAFETY: `raw` holds `n` writable handles; a live module.
        unsafe { enumerate(raw.as_mut_ptr(), n, self.as_raw()) }.result()?;
        raw.into_iter()
            .map(|f| {
                let mut name = core::ptr::null();
                // SAFETY: a live function of this module; valid out-pointer.
                unsafe { get_name(&raw mut name, f) }.result()?;
                let name = if name.is_null() {
                    String::new()
                } else {
                    // SAFETY: the driver returns a NUL-terminated name it owns while the
                    // module is loaded; it is copied at once.
                    unsafe { core::ffi::CStr::from_ptr(name) }
                        .to_string_lossy()
                        .into_owned()
                };
                // SAFETY: a function of this module, which the returned `Function` borrows.
                Ok((name, unsafe { Function::from_raw(f) }))
            })
            .collect()
    }
}
