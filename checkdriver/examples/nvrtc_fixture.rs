//! A program for `tests/nvrtc.rs`: NVRTC under the checking driver. `nvrtc_fixture LIBNVRTC`
//! loads `libcuda.so.1` and the NVRTC library at the path it is given with `dlopen` (not the
//! double as an rlib: NVRTC 13 loads `libcuda.so.1` itself, and must find the same library the
//! program uses), then: `cuInit`, `cuCtxCreate`; compiles a kernel with NVRTC for
//! `compute_90` (PTX only, which the double parses); loads the PTX, finds its kernel, unloads it
//! and destroys the context. Every failure is returned (exit 1) after the clean-up; the line
//! `nvrtc MAJOR.MINOR: compiled scale (N bytes of PTX)` says what NVRTC did.

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "a C program in Rust syntax: each block looks up a library's functions, one \
              contract (each type is the function's in its header)"
)]

use core::ffi::{CStr, c_char, c_int, c_void};
use core::ptr::null_mut;
use std::ffi::CString;
use std::process::ExitCode;

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}

/// `RTLD_NOW | RTLD_GLOBAL`.
const RTLD: c_int = 0x2 | 0x100;

const SOURCE: &CStr = c"extern \"C\" __global__ void scale(float* data, float factor, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}";

/// A library opened with `dlopen`.
struct Library(*mut c_void);

impl Library {
    fn open(name: &str) -> Result<Self, String> {
        let c = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: a NUL-terminated file name; the flags are dlopen's.
        let h = unsafe { dlopen(c.as_ptr(), RTLD) };
        if h.is_null() {
            // SAFETY: dlerror's answer is null or a NUL-terminated string.
            let why = unsafe { dlerror() };
            let why = if why.is_null() {
                String::new()
            } else {
                // SAFETY: non-null: NUL-terminated.
                unsafe { CStr::from_ptr(why) }
                    .to_string_lossy()
                    .into_owned()
            };
            return Err(format!("dlopen {name}: {why}"));
        }
        Ok(Self(h))
    }

    /// The function `name`, as the C function pointer type `F`.
    ///
    /// # Safety
    ///
    /// `F` is the function pointer type of the C function `name`.
    unsafe fn get<F: Copy>(&self, name: &CStr) -> Result<F, String> {
        // SAFETY: a live handle, a NUL-terminated name.
        let f = unsafe { dlsym(self.0, name.as_ptr()) };
        if f.is_null() {
            return Err(format!("no symbol {}", name.to_string_lossy()));
        }
        assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
        // SAFETY: `F` is the pointer type of this C function (this function's contract).
        Ok(unsafe { core::mem::transmute_copy::<*mut c_void, F>(&f) })
    }
}

type Init = unsafe extern "C" fn(u32) -> c_int;
type CtxCreate = unsafe extern "C" fn(*mut *mut c_void, u32, c_int) -> c_int;
type CtxDestroy = unsafe extern "C" fn(*mut c_void) -> c_int;
type ModuleLoadData = unsafe extern "C" fn(*mut *mut c_void, *const c_void) -> c_int;
type ModuleGetFunction =
    unsafe extern "C" fn(*mut *mut c_void, *mut c_void, *const c_char) -> c_int;
type ModuleUnload = unsafe extern "C" fn(*mut c_void) -> c_int;
type NvrtcVersion = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
type NvrtcCreate = unsafe extern "C" fn(
    *mut *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type NvrtcCompile = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type NvrtcSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type NvrtcGet = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
type NvrtcDestroy = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

fn ok(what: &str, r: c_int) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{what} failed with {r}"))
    }
}

/// NVRTC's version, and the PTX of `SOURCE` for `compute_90`.
fn compile(nvrtc: &Library) -> Result<((c_int, c_int), Vec<u8>), String> {
    // SAFETY: each type is the function's in nvrtc.h.
    let (version, create, compile, size, get, destroy, log_size, log) = unsafe {
        (
            nvrtc.get::<NvrtcVersion>(c"nvrtcVersion")?,
            nvrtc.get::<NvrtcCreate>(c"nvrtcCreateProgram")?,
            nvrtc.get::<NvrtcCompile>(c"nvrtcCompileProgram")?,
            nvrtc.get::<NvrtcSize>(c"nvrtcGetPTXSize")?,
            nvrtc.get::<NvrtcGet>(c"nvrtcGetPTX")?,
            nvrtc.get::<NvrtcDestroy>(c"nvrtcDestroyProgram")?,
            nvrtc.get::<NvrtcSize>(c"nvrtcGetProgramLogSize")?,
            nvrtc.get::<NvrtcGet>(c"nvrtcGetProgramLog")?,
        )
    };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    ok("nvrtcVersion", unsafe {
        version(&raw mut major, &raw mut minor)
    })?;
    let mut program = null_mut();
    // SAFETY: a valid out-pointer, NUL-terminated source and name, no headers.
    ok("nvrtcCreateProgram", unsafe {
        create(
            &raw mut program,
            SOURCE.as_ptr(),
            c"scale.cu".as_ptr(),
            0,
            core::ptr::null(),
            core::ptr::null(),
        )
    })?;
    let options = [c"-arch=compute_90".as_ptr()];
    // SAFETY: a live program; one NUL-terminated option.
    let compiled = unsafe { compile(program, 1, options.as_ptr()) };
    let result = (|| -> Result<Vec<u8>, String> {
        if compiled != 0 {
            let mut n = 0;
            // SAFETY: a live program, a valid out-pointer.
            ok("nvrtcGetProgramLogSize", unsafe {
                log_size(program, &raw mut n)
            })?;
            let mut text = vec![0u8; n.max(1)];
            // SAFETY: `text` holds the log's size.
            ok("nvrtcGetProgramLog", unsafe {
                log(program, text.as_mut_ptr().cast())
            })?;
            return Err(format!(
                "nvrtcCompileProgram failed with {compiled}: {}",
                String::from_utf8_lossy(&text).trim_end_matches('\0')
            ));
        }
        let mut n = 0;
        // SAFETY: a live, compiled program; a valid out-pointer.
        ok("nvrtcGetPTXSize", unsafe { size(program, &raw mut n) })?;
        let mut ptx = vec![0u8; n];
        // SAFETY: `ptx` holds the PTX's size.
        ok("nvrtcGetPTX", unsafe {
            get(program, ptx.as_mut_ptr().cast())
        })?;
        Ok(ptx)
    })();
    // SAFETY: the live program, destroyed once.
    let _ = unsafe { destroy(&raw mut program) };
    Ok(((major, minor), result?))
}

fn run(nvrtc_path: &str) -> Result<(), String> {
    let cuda = Library::open("libcuda.so.1")?;
    // SAFETY: each type is the function's in cuda.h.
    let (init, ctx_create, ctx_destroy, load, get_function, unload) = unsafe {
        (
            cuda.get::<Init>(c"cuInit")?,
            cuda.get::<CtxCreate>(c"cuCtxCreate_v2")?,
            cuda.get::<CtxDestroy>(c"cuCtxDestroy_v2")?,
            cuda.get::<ModuleLoadData>(c"cuModuleLoadData")?,
            cuda.get::<ModuleGetFunction>(c"cuModuleGetFunction")?,
            cuda.get::<ModuleUnload>(c"cuModuleUnload")?,
        )
    };
    // SAFETY: no preconditions.
    ok("cuInit", unsafe { init(0) })?;
    let mut ctx = null_mut();
    // SAFETY: a valid out-pointer; device 0.
    ok("cuCtxCreate", unsafe { ctx_create(&raw mut ctx, 0, 0) })?;
    let work = (|| -> Result<(), String> {
        let nvrtc = Library::open(nvrtc_path)?;
        let ((major, minor), ptx) = compile(&nvrtc)?;
        let mut module = null_mut();
        // SAFETY: a valid out-pointer; NUL-terminated PTX (NVRTC's, with its NUL).
        ok("cuModuleLoadData", unsafe {
            load(&raw mut module, ptx.as_ptr().cast())
        })?;
        let mut f = null_mut();
        // SAFETY: a live module of the current context; a NUL-terminated name.
        let found = ok("cuModuleGetFunction", unsafe {
            get_function(&raw mut f, module, c"scale".as_ptr())
        });
        // SAFETY: the live module, unloaded once.
        let unloaded = ok("cuModuleUnload", unsafe { unload(module) });
        found?;
        unloaded?;
        println!(
            "nvrtc {major}.{minor}: compiled scale ({} bytes of PTX)",
            ptx.len()
        );
        Ok(())
    })();
    // SAFETY: the live context, current on this thread, destroyed once.
    let destroyed = ok("cuCtxDestroy", unsafe { ctx_destroy(ctx) });
    work?;
    destroyed
}

fn main() -> ExitCode {
    let Some(nvrtc) = std::env::args().nth(1) else {
        eprintln!("usage: nvrtc_fixture LIBNVRTC");
        return ExitCode::from(2);
    };
    match run(&nvrtc) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    }
}
