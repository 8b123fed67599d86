//! NVRTC: CUDA C++ compiled at run time (cargo feature `nvrtc`).
//!
//! A [`Program`] is CUDA C++ source with its in-memory headers and the name expressions of the
//! template kernels it should instantiate; [`Program::compile`] runs NVRTC on the CPU (no GPU,
//! no context) with [`Options`] and gives a [`Compiled`] program: its PTX, its cubin where it
//! was compiled for a real architecture, NVRTC's log and the lowered (mangled) names of the
//! name expressions. A guard loads it ([`PushedGuard::load_compiled`]) like any module, so the
//! kernels in it are lent by the guard, looked up by name or name expression, and launched
//! safely by their contracts ([`kernel_contract!`](crate::kernel_contract)); the contract is
//! checked against NVRTC's PTX already at compile time, without a device
//! ([`Compiled::check`]).
//!
//! That check proves what a PTX `.entry` declares: the number of parameters, and each one's
//! size and offset (laid out from each `.param`'s size and alignment, so an alignment that
//! moves a parameter is caught). It proves nothing about the types behind the bytes: PTX
//! declares `float*`, `const unsigned*` and `unsigned long long` alike as `.u64`, and the check
//! reads only sizes, so an `f32` passes for a `u32`. The pointee type, constness (a buffer the
//! contract declares read-only that the kernel writes) and the extents stay the contract's
//! promise, the `unsafe` of `kernel_contract!`.
//!
//! ```no_run
//! use custack::nvrtc::{Options, Program};
//! use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
//!
//! custack::kernel_contract! {
//!     /// `scale<float>(float* x, float a, unsigned long long n)`: `x[i] *= a` for `i < n`.
//!     unsafe kernel ScaleF32 = "scale<float>"(x: &mut [f32; n], a: f32, n: u64);
//! }
//!
//! const SOURCE: &str = r#"
//! template <typename T>
//! __global__ void scale(T* x, T a, unsigned long long n) {
//!     unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
//!     if (i < n) x[i] *= a;
//! }"#;
//!
//! let device = Driver::init()?.device(0)?;
//! let compiled = Program::new("scale.cu", SOURCE)?
//!     .name_expression("scale<float>")?
//!     .compile(&Options::new().arch_for(device)?.std("c++17"))?;
//! compiled.check::<ScaleF32>()?; // against NVRTC's PTX: no GPU needed
//!
//! let ctx = Context::new(device, ContextFlags::empty())?;
//! let mut stack = Stack::new()?;
//! let guard = stack.push(&ctx)?;
//! let module = guard.load_compiled(&compiled)?;
//! let scale = module.declared::<ScaleF32>()?; // found by its name expression
//! let mut x = guard.alloc_from(&[1.0f32, 2.0, 3.0])?;
//! guard.stream()?.scope(|s| {
//!     let mut x = s.bind_mut(&mut x);
//!     s.run(&scale, LaunchConfig::for_elements(3), (&mut x, 2.0f32, 3u64))
//! })??;
//! # Ok::<(), custack::Error>(())
//! ```
//!
//! # Versions
//!
//! NVRTC emits PTX of its own ISA version, which only a driver of at least its CUDA version can
//! JIT: PTX from NVRTC 13.5 fails on a 13.0 driver with `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`. A
//! cubin (compiled for the device's real architecture, [`Options::arch_for`]) loads on any
//! driver of the same major version (CUDA's minor-version compatibility). custack checks this
//! before loading: [`ErrorKind::NvrtcNewerThanDriver`] names both versions and the fix.
//!
//! # Linking
//!
//! `build.rs` links libnvrtc (no `dlopen`): `CUSTACK_NVRTC_LIB_DIR`, else the CUDA toolkit,
//! conda, the distro, else the `nvidia-cuda-nvrtc` Python wheel's directory. A build with the
//! feature where none was found warns and returns [`ErrorKind::LibraryNotLinked`] from every
//! call here. At run time the loader must find the library (`LD_LIBRARY_PATH`).

use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::{ComputeCapability, Device, Version};
use crate::error::{Error, ErrorKind, LibraryStatus, Result};
use crate::ffi::nvrtc as ffi;
use crate::kernel::contract::{self, Contract};
use crate::kernel::module::{Module, Source};
use core::ffi::{CStr, c_char, c_int};
use std::ffi::CString;

/// The error of an NVRTC call that returned `code`, naming the call.
fn error(call: &str, code: ffi::nvrtcResult) -> Error {
    let kind = code.kind();
    let detail = if kind == ErrorKind::NvrtcUnlisted {
        // SAFETY: `nvrtcGetErrorString` takes any value.
        let text = unsafe { ffi::nvrtcGetErrorString(code) };
        // SAFETY: it returns a static NUL-terminated string for every value ("NVRTC_ERROR
        // unknown" for one it does not know).
        let text = unsafe { CStr::from_ptr(text) };
        format!("{call} returned {} ({})", code.0, text.to_string_lossy())
    } else {
        format!("{call} failed")
    };
    Error::library(code, detail)
}

/// `Ok` for `NVRTC_SUCCESS`, else the error of `call`.
fn check(call: &str, code: ffi::nvrtcResult) -> Result<()> {
    if code == ffi::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(error(call, code))
    }
}

/// `Err(LibraryNotLinked)` in a build whose libnvrtc was not found, before any NVRTC call.
fn linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::NVRTC)
}

fn c_text(what: &str, text: &str) -> Result<CString> {
    CString::new(text).map_err(|_| {
        Error::custack(
            ErrorKind::NulInName,
            format!("{what} {:?} holds a NUL byte", truncate(text)),
        )
    })
}

/// The first line of `text`, at most 60 characters, for error messages.
fn truncate(text: &str) -> &str {
    let line = text.lines().next().unwrap_or_default();
    line.char_indices()
        .nth(60)
        .and_then(|(i, _)| line.split_at_checked(i))
        .map_or(line, |(head, _)| head)
}

/// `nvrtcVersion`—The version of the linked NVRTC (13.0 for CUDA 13.0's).
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): NVRTC is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without libnvrtc.
///
/// # Examples
///
/// ```no_run
/// let v = custack::nvrtc::version()?;
/// println!("NVRTC {v}, driver {}", custack::driver_version()?);
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__query>
#[doc(alias = "nvrtcVersion")]
pub fn version() -> Result<Version> {
    crate::error::confinement::full_api("nvrtc::version")?;
    linked()?;
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: two valid, writable ints.
    check("nvrtcVersion", unsafe {
        ffi::nvrtcVersion(&raw mut major, &raw mut minor)
    })?;
    Ok(Version {
        major: major as u32,
        minor: minor as u32,
    })
}

/// `nvrtcGetSupportedArchs`—The real architectures the linked NVRTC compiles for (`89` for
/// `sm_89`), in ascending order.
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): NVRTC is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without libnvrtc.
///
/// # References
///
/// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__query>
#[doc(alias = "nvrtcGetSupportedArchs")]
#[doc(alias = "nvrtcGetNumSupportedArchs")]
pub fn supported_archs() -> Result<Vec<u32>> {
    crate::error::confinement::full_api("nvrtc::supported_archs")?;
    linked()?;
    let mut count: c_int = 0;
    // SAFETY: a valid, writable int.
    check("nvrtcGetNumSupportedArchs", unsafe {
        ffi::nvrtcGetNumSupportedArchs(&raw mut count)
    })?;
    let mut archs: Vec<c_int> = vec![0; usize::try_from(count).unwrap_or(0)];
    if !archs.is_empty() {
        // SAFETY: `archs` holds `count` writable ints, as many as NVRTC just said it writes.
        check("nvrtcGetSupportedArchs", unsafe {
            ffi::nvrtcGetSupportedArchs(archs.as_mut_ptr())
        })?;
    }
    Ok(archs.into_iter().map(|a| a as u32).collect())
}

/// NVRTC's compile options: the architecture, defines, include paths, the C++ standard, and
/// any other option NVRTC documents ([`option`](Self::option)).
///
/// Without [`arch`](Self::arch) NVRTC compiles to PTX for its default virtual architecture.
///
/// # References
///
/// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__options>
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    args: Vec<String>,
}

/// What NVRTC compiles for: PTX of a virtual architecture (`compute_75`), which the driver
/// JIT-compiles for whatever device loads it, or a cubin of a real one (`sm_90`), which loads
/// without JIT on that device only (and, unlike PTX, on an older driver of the same major
/// version).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// `--gpu-architecture=compute_XY`: PTX only.
    Virtual(ComputeCapability),
    /// `--gpu-architecture=sm_XY`: a cubin (and, on NVRTC versions that still emit it, PTX).
    Real(ComputeCapability),
}

impl Options {
    /// No options.
    pub fn new() -> Self {
        Self::default()
    }

    /// `--gpu-architecture`: PTX for a virtual architecture or a cubin for a real one.
    #[must_use]
    pub fn arch(self, arch: Arch) -> Self {
        let (kind, cc) = match arch {
            Arch::Virtual(cc) => ("compute", cc),
            Arch::Real(cc) => ("sm", cc),
        };
        self.option(&format!(
            "--gpu-architecture={kind}_{}{}",
            cc.major, cc.minor
        ))
    }

    /// `--gpu-architecture=sm_XY` for `device`'s compute capability: a cubin that loads on it
    /// without JIT, and on a driver older than NVRTC within the same major version.
    ///
    /// # Errors
    ///
    /// The driver's error reading the device's compute capability.
    pub fn arch_for(self, device: Device) -> Result<Self> {
        Ok(self.arch(Arch::Real(device.compute_capability()?)))
    }

    /// `--define-macro=NAME` or `--define-macro=NAME=VALUE`.
    #[must_use]
    pub fn define(self, name: &str, value: Option<&str>) -> Self {
        match value {
            Some(v) => self.option(&format!("--define-macro={name}={v}")),
            None => self.option(&format!("--define-macro={name}")),
        }
    }

    /// `--include-path=DIR`: a directory searched for `#include`s that the program's own
    /// headers ([`Program::header`]) do not satisfy.
    #[must_use]
    pub fn include_path(self, dir: &str) -> Self {
        self.option(&format!("--include-path={dir}"))
    }

    /// `--std=`: `"c++17"`, `"c++20"`, ...
    #[must_use]
    pub fn std(self, standard: &str) -> Self {
        self.option(&format!("--std={standard}"))
    }

    /// Any other option, exactly as NVRTC takes it (`"--use_fast_math"`, `"-lineinfo"`). NVRTC
    /// refuses one it does not know: [`ErrorKind::NvrtcInvalidOption`] with its log.
    #[must_use]
    pub fn option(mut self, option: &str) -> Self {
        self.args.push(option.to_owned());
        self
    }

    /// The options, in order, as NVRTC gets them.
    pub fn as_args(&self) -> &[String] {
        &self.args
    }
}

/// CUDA C++ source to compile with NVRTC: a name (used in its messages), the source, the
/// headers it includes (kept in memory, not read from disk) and the name expressions of the
/// template kernels to instantiate.
///
/// Plain data (`Send + Sync`): NVRTC's program object exists only inside
/// [`compile`](Self::compile), which creates and destroys it, so programs compile on any
/// thread, several at once (NVRTC's API is thread-safe for distinct programs).
#[derive(Debug)]
#[doc(alias = "nvrtcProgram")]
pub struct Program {
    name: CString,
    source: CString,
    headers: Vec<(CString, CString)>,
    expressions: Vec<CString>,
}

impl Program {
    /// A program named `name` (as NVRTC's log calls it, e.g. `"saxpy.cu"`) of `source`.
    ///
    /// Nothing is compiled yet: NVRTC is called by [`compile`](Self::compile).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NulInName`] if either holds a NUL byte.
    pub fn new(name: &str, source: &str) -> Result<Self> {
        Ok(Self {
            name: c_text("program name", name)?,
            source: c_text("program source", source)?,
            headers: Vec::new(),
            expressions: Vec::new(),
        })
    }

    /// A header the source may `#include "include_name"`, given in memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NulInName`] if either holds a NUL byte.
    pub fn header(mut self, include_name: &str, contents: &str) -> Result<Self> {
        self.headers.push((
            c_text("header name", include_name)?,
            c_text("header", contents)?,
        ));
        Ok(self)
    }

    /// `nvrtcAddNameExpression`—Asks NVRTC to instantiate and name `expression`, a kernel
    /// template's instantiation (`"scale<float>"`, `"&reduce<int, 256>"`) or any `__global__`
    /// function's name. After compiling, [`Compiled::lowered_name`] gives its mangled name,
    /// and a module loaded from the program finds the kernel by the expression itself, so a
    /// contract names it: `unsafe kernel ScaleF32 = "scale<float>"(..)`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NulInName`] if it holds a NUL byte.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    #[doc(alias = "nvrtcAddNameExpression")]
    pub fn name_expression(mut self, expression: &str) -> Result<Self> {
        self.expressions
            .push(c_text("name expression", expression)?);
        Ok(self)
    }

    /// `nvrtcCreateProgram`, `nvrtcCompileProgram`—Compiles the program with `options`, on
    /// the CPU: no device or context is involved.
    ///
    /// # Errors
    ///
    /// - [`ErrorKind::NvrtcCompilation`] when the source does not compile, and
    ///   [`ErrorKind::NvrtcInvalidOption`] for an option NVRTC does not know: the detail holds
    ///   NVRTC's compile log (each error with its file and line);
    /// - a name expression that names no kernel of the source is a compile error too
    ///   ([`ErrorKind::NvrtcCompilation`], the log naming it);
    /// - [`ErrorKind::LibraryNotLinked`] in a build without libnvrtc; NVRTC's other errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/nvrtc/index.html#group__compilation>
    #[doc(alias = "nvrtcCompileProgram")]
    #[doc(alias = "nvrtcCreateProgram")]
    pub fn compile(&self, options: &Options) -> Result<Compiled> {
        crate::error::confinement::full_api("nvrtc::Program::compile")?;
        linked()?;
        let program = Handle::create(self)?;
        for expression in &self.expressions {
            // SAFETY: a live program; a NUL-terminated expression, copied by NVRTC.
            check("nvrtcAddNameExpression", unsafe {
                ffi::nvrtcAddNameExpression(program.0, expression.as_ptr())
            })?;
        }
        let args = options
            .args
            .iter()
            .map(|a| c_text("option", a))
            .collect::<Result<Vec<_>>>()?;
        let pointers: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        let count = c_int::try_from(pointers.len())
            .map_err(|_| Error::custack(ErrorKind::SizeOverflow, "more options than a C int"))?;
        // SAFETY: a live program; `pointers` holds `count` NUL-terminated options, alive (in
        // `args`) for the call.
        let compiled = unsafe { ffi::nvrtcCompileProgram(program.0, count, pointers.as_ptr()) };
        let log = program.log()?;
        if compiled != ffi::nvrtcResult::NVRTC_SUCCESS {
            let name = self.name.to_string_lossy();
            let e = error("nvrtcCompileProgram", compiled);
            let call = e.detail().unwrap_or_default().to_owned();
            return Err(if log.is_empty() {
                e.with_detail(format!("{name}: {call}"))
            } else {
                e.with_detail(format!("{name}: {call}; compile log:\n{log}"))
            });
        }
        let mut lowered = Vec::with_capacity(self.expressions.len());
        for expression in &self.expressions {
            lowered.push((
                expression.to_string_lossy().into(),
                program.lowered_name(expression)?.into(),
            ));
        }
        Ok(Compiled {
            ptx: program.text("nvrtcGetPTX", ffi::nvrtcGetPTXSize, ffi::nvrtcGetPTX)?,
            cubin: program.output("nvrtcGetCUBIN", ffi::nvrtcGetCUBINSize, ffi::nvrtcGetCUBIN)?,
            log,
            lowered,
            nvrtc: version()?,
        })
    }
}

/// A created `nvrtcProgram`, destroyed on drop; lives within one `compile` call.
struct Handle(ffi::nvrtcProgram);

static_assertions::assert_impl_all!(Program: Send, Sync);
static_assertions::assert_impl_all!(Compiled: Send, Sync);

impl Handle {
    fn create(program: &Program) -> Result<Self> {
        let count = c_int::try_from(program.headers.len())
            .map_err(|_| Error::custack(ErrorKind::SizeOverflow, "more headers than a C int"))?;
        let contents: Vec<*const c_char> = program.headers.iter().map(|h| h.1.as_ptr()).collect();
        let names: Vec<*const c_char> = program.headers.iter().map(|h| h.0.as_ptr()).collect();
        // NULL for no headers, as nvrtc.h documents (not an empty vector's dangling pointer).
        let (contents, names) = if count == 0 {
            (core::ptr::null(), core::ptr::null())
        } else {
            (contents.as_ptr(), names.as_ptr())
        };
        let mut raw = core::ptr::null_mut();
        // SAFETY:
        // - `raw` is a valid out-pointer;
        // - source and name are NUL-terminated, alive for the call (NVRTC copies them);
        // - `contents` and `names` point to `count` NUL-terminated strings each, alive for the
        //   call (NVRTC copies them), or are NULL with `count` 0.
        check("nvrtcCreateProgram", unsafe {
            ffi::nvrtcCreateProgram(
                &raw mut raw,
                program.source.as_ptr(),
                program.name.as_ptr(),
                count,
                contents,
                names,
            )
        })?;
        Ok(Self(raw))
    }

    /// NVRTC's log of the last compilation (empty when it logged nothing).
    fn log(&self) -> Result<String> {
        Ok(self
            .text(
                "nvrtcGetProgramLog",
                ffi::nvrtcGetProgramLogSize,
                ffi::nvrtcGetProgramLog,
            )?
            .map(|log| log.to_string_lossy().trim_end().to_owned())
            .unwrap_or_default())
    }

    /// An output NVRTC sizes with `size` and copies with `get`, as NVRTC wrote it (text with
    /// its trailing NUL): `None` where NVRTC has none (a size of 0, or
    /// `NVRTC_ERROR_INVALID_INPUT`, its answer for a cubin of a virtual architecture).
    fn output(
        &self,
        call: &str,
        size: unsafe extern "C" fn(ffi::nvrtcProgram, *mut usize) -> ffi::nvrtcResult,
        get: unsafe extern "C" fn(ffi::nvrtcProgram, *mut c_char) -> ffi::nvrtcResult,
    ) -> Result<Option<Vec<u8>>> {
        let mut bytes = 0usize;
        // SAFETY: a live program; a valid out-pointer.
        let r = unsafe { size(self.0, &raw mut bytes) };
        if r == ffi::nvrtcResult::NVRTC_ERROR_INVALID_INPUT {
            return Ok(None);
        }
        check(call, r)?;
        if bytes == 0 {
            return Ok(None);
        }
        let mut buffer = vec![0u8; bytes];
        // SAFETY: a live program; `buffer` holds the `bytes` bytes NVRTC just said it writes.
        check(call, unsafe { get(self.0, buffer.as_mut_ptr().cast()) })?;
        Ok(Some(buffer))
    }

    /// A text output (the log, PTX) up to its NUL; `None` where NVRTC has none or it is empty.
    fn text(
        &self,
        call: &str,
        size: unsafe extern "C" fn(ffi::nvrtcProgram, *mut usize) -> ffi::nvrtcResult,
        get: unsafe extern "C" fn(ffi::nvrtcProgram, *mut c_char) -> ffi::nvrtcResult,
    ) -> Result<Option<CString>> {
        Ok(self.output(call, size, get)?.and_then(|mut bytes| {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            bytes.truncate(end);
            (!bytes.is_empty())
                .then(|| CString::new(bytes).ok())
                .flatten()
        }))
    }

    /// `nvrtcGetLoweredName` of `expression`, copied out.
    fn lowered_name(&self, expression: &CStr) -> Result<String> {
        let mut name: *const c_char = core::ptr::null();
        // SAFETY: a live, compiled program; a NUL-terminated expression that was added before
        // compiling; a valid out-pointer.
        check("nvrtcGetLoweredName", unsafe {
            ffi::nvrtcGetLoweredName(self.0, expression.as_ptr(), &raw mut name)
        })
        .map_err(|e| {
            let detail = format!(
                "{} for name expression {:?}",
                e.detail().unwrap_or_default(),
                expression.to_string_lossy()
            );
            e.with_detail(detail)
        })?;
        if name.is_null() {
            return Err(Error::custack(
                ErrorKind::NvrtcNameExpressionNotValid,
                format!(
                    "name expression {:?}: NVRTC gave no lowered name",
                    expression.to_string_lossy()
                ),
            ));
        }
        // SAFETY: on success NVRTC stored a NUL-terminated string owned by the program, which
        // lives until it is destroyed (after this copy).
        Ok(unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned())
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // Poisoned or forked (R20, R22): leaked, as every library's handle is.
        let object = crate::error::left_behind::Object::Untracked;
        crate::error::left_behind::destroy_in_drop(object, self.0 as u64, || {
            // SAFETY: a live program, destroyed once; NVRTC sets `self.0` to null.
            let r = unsafe { ffi::nvrtcDestroyProgram(&raw mut self.0) };
            check("nvrtcDestroyProgram", r)
        });
    }
}

/// A program NVRTC compiled: its PTX, its cubin where it was compiled for a real architecture,
/// NVRTC's log (warnings; empty when it had nothing to say), the lowered names of its name
/// expressions and the NVRTC version that made it. Loaded by
/// [`PushedGuard::load_compiled`]; plain data, `Send` and `Sync`.
///
/// Its outputs cannot be changed: a cubin in it is the one NVRTC wrote, which is why loading it
/// is safe where [`load_cubin`](PushedGuard::load_cubin) of arbitrary bytes is not.
#[derive(Clone)]
pub struct Compiled {
    ptx: Option<CString>,
    cubin: Option<Vec<u8>>,
    log: String,
    lowered: Vec<(Box<str>, Box<str>)>,
    nvrtc: Version,
}

/// The sizes of the outputs, not their bytes.
impl core::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Compiled")
            .field("ptx_bytes", &self.ptx.as_ref().map(|p| p.as_bytes().len()))
            .field("cubin_bytes", &self.cubin.as_ref().map(Vec::len))
            .field("log", &self.log)
            .field("lowered", &self.lowered)
            .field("nvrtc", &self.nvrtc)
            .finish()
    }
}

impl Compiled {
    /// The PTX, where NVRTC emitted it (always for a virtual architecture).
    pub fn ptx(&self) -> Option<&str> {
        self.ptx.as_deref().and_then(|p| p.to_str().ok())
    }

    /// The cubin, for a program compiled for a real architecture ([`Arch::Real`]).
    pub fn cubin(&self) -> Option<&[u8]> {
        self.cubin.as_deref()
    }

    /// NVRTC's log of the compilation: its warnings (empty when it had nothing to say).
    pub fn log(&self) -> &str {
        &self.log
    }

    /// `nvrtcGetLoweredName`—The lowered (mangled) name of a name expression the program was
    /// compiled with ([`Program::name_expression`]); `None` for any other.
    #[doc(alias = "nvrtcGetLoweredName")]
    pub fn lowered_name(&self, expression: &str) -> Option<&str> {
        self.lowered
            .iter()
            .find(|(e, _)| &**e == expression)
            .map(|(_, lowered)| &**lowered)
    }

    /// The version of the NVRTC that compiled it.
    pub fn nvrtc_version(&self) -> Version {
        self.nvrtc
    }

    /// Checks the contract `C` against the kernel's `.entry` in the PTX (found by its name
    /// expression or its name): the same check as [`Module::declared`] makes where the driver
    /// cannot tell a kernel's parameters, made here without a device, so a kernel written in
    /// CUDA C++ and declared in Rust is checked as soon as it is compiled (in a test on a
    /// machine without a GPU, for instance).
    ///
    /// It proves the number of parameters and each one's size and offset (the offsets laid out
    /// from the `.param`s' sizes and alignments), not pointee types or constness: PTX declares
    /// every pointer as a `.u64`, so `const float*` passes for `&mut [u32; n]`. Those, and the
    /// extents, stay the contract's promise.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::KernelSignatureMismatch`] naming the first parameter that differs;
    /// [`ErrorKind::NotFound`] if the PTX has no such kernel, or NVRTC emitted no PTX (a
    /// program compiled for a real architecture by an NVRTC that emits only the cubin).
    pub fn check<C: Contract>(&self) -> Result<()> {
        let ptx = self.ptx.as_deref().ok_or_else(|| {
            Error::custack(
                ErrorKind::NotFound,
                format!(
                    "kernel {:?}: NVRTC emitted no PTX to check it against (an option such as \
                     -dlto asked for other output)",
                    C::KERNEL
                ),
            )
        })?;
        contract::check_ptx::<C>(ptx.to_bytes(), self.symbol(C::KERNEL))
    }

    /// The lowered name of `name` if it is a name expression, else `name`.
    fn symbol<'a>(&'a self, name: &'a str) -> &'a str {
        self.lowered_name(name).unwrap_or(name)
    }

    /// Whether a driver of version `driver` can load this program: [`loadable`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NvrtcNewerThanDriver`] naming both versions and the fix.
    pub fn check_driver(&self, driver: Version) -> Result<()> {
        loadable(self.nvrtc, driver, self.cubin.is_some())
    }
}

/// Whether a driver of version `driver` loads what NVRTC `nvrtc` emitted: a cubin (`cubin`)
/// when both have the same major version or the driver is newer (CUDA's minor-version
/// compatibility); PTX only when the driver is at least as new as NVRTC, since PTX carries the
/// ISA version of the NVRTC that wrote it and a driver JITs only the ISA versions it knows.
///
/// # Errors
///
/// [`ErrorKind::NvrtcNewerThanDriver`] naming both versions and the fix.
///
/// # Examples
///
/// ```
/// use custack::{ErrorKind, Version, nvrtc::loadable};
/// let v = |major, minor| Version { major, minor };
/// assert!(loadable(v(13, 0), v(13, 0), false).is_ok());
/// assert!(loadable(v(13, 5), v(13, 0), true).is_ok()); // a cubin: same major version
/// let e = loadable(v(13, 5), v(13, 0), false).unwrap_err(); // PTX of ISA 9.x for 13.5
/// assert_eq!(e.kind(), ErrorKind::NvrtcNewerThanDriver);
/// assert!(e.to_string().contains("NVRTC 13.5") && e.to_string().contains("supports CUDA 13.0"));
/// ```
pub fn loadable(nvrtc: Version, driver: Version, cubin: bool) -> Result<()> {
    let newer = (nvrtc.major, nvrtc.minor) > (driver.major, driver.minor);
    if !newer || (cubin && nvrtc.major == driver.major) {
        return Ok(());
    }
    let detail = if cubin {
        format!(
            "NVRTC {nvrtc} compiled a cubin for CUDA {}, but the installed driver supports CUDA \
             {driver}, an older major version, which cannot load it. Use NVRTC of the driver's \
             CUDA version ({}), or update the NVIDIA driver",
            nvrtc.major,
            wheel(driver)
        )
    } else {
        format!(
            "NVRTC {nvrtc} emits PTX of a newer ISA than the installed driver, which supports \
             CUDA {driver}, can JIT (it would fail with CUDA_ERROR_UNSUPPORTED_PTX_VERSION). \
             {}use NVRTC of the driver's CUDA version ({}), or update the NVIDIA driver",
            if nvrtc.major == driver.major {
                format!(
                    "Compile for the device's real architecture instead (Options::arch_for: a \
                     cubin, which a CUDA {}.x driver loads), ",
                    driver.major
                )
            } else {
                String::new()
            },
            wheel(driver)
        )
    };
    Err(Error::custack(ErrorKind::NvrtcNewerThanDriver, detail))
}

/// The pip command for the NVRTC wheel of CUDA `version`: NVIDIA names CUDA 12's (and older)
/// `nvidia-cuda-nvrtc-cu12`, CUDA 13's and later `nvidia-cuda-nvrtc`.
fn wheel(version: Version) -> String {
    let Version { major, minor } = version;
    if major <= 12 {
        format!("pip install 'nvidia-cuda-nvrtc-cu{major}=={major}.{minor}.*'")
    } else {
        format!("pip install 'nvidia-cuda-nvrtc=={major}.{minor}.*'")
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuModuleLoadDataEx`—Loads a program NVRTC compiled as a module of this guard's
    /// context: its cubin where it has one (no JIT), else its PTX. The module keeps the PTX and
    /// the name expressions' lowered names, so [`Module::function`], [`Module::kernel`] and
    /// [`Module::declared`] find a kernel by its name expression (`"scale<float>"`), and a
    /// contract is checked against the PTX where the driver cannot tell a kernel's parameters.
    ///
    /// Safe, unlike [`load_cubin`](Self::load_cubin): a [`Compiled`] program's cubin is the
    /// one NVRTC wrote, unchanged.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NvrtcNewerThanDriver`] (checked first, [`loadable`]) naming both versions
    /// and the fix; the driver's errors as for [`load_ptx`](Self::load_ptx).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// use custack::nvrtc::{Options, Program};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let program = Program::new("noop.cu", r#"extern "C" __global__ void noop() {}"#)?;
    /// let module = guard.load_compiled(&program.compile(&Options::new())?)?;
    /// let noop = module.function("noop")?;
    /// # let _ = noop;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html>
    #[doc(alias = "cuModuleLoadDataEx")]
    pub fn load_compiled(&self, compiled: &Compiled) -> Result<Module<'_>> {
        compiled.check_driver(crate::driver::driver_version()?)?;
        let module = match (&compiled.cubin, &compiled.ptx) {
            // SAFETY: the cubin NVRTC wrote for this program, unchanged (`Compiled` offers no
            // way to change it): a complete, well-formed image.
            (Some(cubin), _) => unsafe { self.load_cubin(cubin) }?,
            (None, Some(ptx)) => self.load_ptx(&ptx.to_string_lossy())?,
            (None, None) => {
                return Err(Error::custack(
                    ErrorKind::InvalidImage,
                    "NVRTC emitted neither PTX nor a cubin for this program",
                ));
            }
        };
        Ok(module.with_source(Source::new(compiled.ptx.clone(), compiled.lowered.clone())))
    }
}
