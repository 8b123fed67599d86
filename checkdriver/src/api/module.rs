//! Models `cuda.h` "Module Management" (`group__CUDA__MODULE`): modules loaded from PTX or a cubin
//! (whose declarations or symbol table name its kernels), their functions and globals, the function
//! enumeration of 12.4, and the JIT linker (`cuLink*`, with its logs).

use super::common::{checking, name_of, new_handle, out, out_str, read_field};
use super::types::{
    CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NOT_FOUND, CUDA_SUCCESS,
    CUdeviceptr, CUresult, Handle,
};
use crate::check::{self, Kind};
use crate::cubin::EM_CUDA;
use crate::handles::{device_address, handle};
use crate::{data, standin};
use core::ffi::{CStr, c_char, c_int, c_uint, c_void};
use core::ptr::null_mut;

entry_points! {
    fn cuModuleLoad(module: *mut Handle, path: *const c_char) { new_handle(module, Kind::Module) }
    fn cuModuleLoadData(module: *mut Handle, image: *const c_void) { load_module(module, image) }
    fn cuModuleLoadDataEx(
        module: *mut Handle,
        image: *const c_void,
        n: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
    ) {
        let r = load_module(module, image);
        // As the real compiler does: the logs into the caller's buffers, the bytes written and
        // the wall time back into the value array.
        let logs = JitLogs::read(n, options, values);
        logs.write(c"info: compiled by the checking double", r != CUDA_SUCCESS);
        logs.write_back(values, 0.25);
        r
    }
    fn cuModuleLoadFatBinary(module: *mut Handle, image: *const c_void) { new_handle(module, Kind::Module) }
    fn cuModuleUnload(module: Handle) releases(Kind::Module, module as usize) {
        check::unloading(module as usize, "cuModuleUnload");
        let _ = check::destroyed(Kind::Module, module as usize, "cuModuleUnload");
        CUDA_SUCCESS
    }
    fn cuModuleGetFunction(f: *mut Handle, module: Handle, name: *const c_char) {
        check::used(Kind::Module, module as usize, "cuModuleGetFunction");
        let name = name_of(name);
        let params = match check::entry(module as usize, &name) {
            check::Lookup::Missing => return CUDA_ERROR_NOT_FOUND,
            check::Lookup::Found(p) => Some(p),
            check::Lookup::Unknown => None,
        };
        out(f, module_function(module, &name, params));
        CUDA_SUCCESS
    }
    fn cuModuleGetGlobal_v2(ptr: *mut CUdeviceptr, bytes: *mut usize, module: Handle, name: *const c_char) {
        check::used(Kind::Module, module as usize, "cuModuleGetGlobal");
        let size = match check::global(module as usize, &name_of(name)) {
            check::Lookup::Missing => return CUDA_ERROR_NOT_FOUND,
            check::Lookup::Found(size) => size,
            check::Lookup::Unknown => 256,
        };
        let p = device_address(size);
        check::created_sized(Kind::Global, p as usize, module as usize, size as u64);
        data::allocated(p, size);
        out(ptr, p);
        out(bytes, size);
        CUDA_SUCCESS
    }
    // A module's entries, where it was loaded from PTX (none otherwise).
    fn cuModuleGetFunctionCount(count: *mut c_uint, module: Handle) {
        check::used(Kind::Module, module as usize, "cuModuleGetFunctionCount");
        let n = check::entry_names(module as usize).map_or(0, |names| names.len());
        out(count, c_uint::try_from(n).unwrap_or(c_uint::MAX));
        CUDA_SUCCESS
    }
    fn cuModuleEnumerateFunctions(functions: *mut Handle, n: c_uint, module: Handle) {
        check::used(Kind::Module, module as usize, "cuModuleEnumerateFunctions");
        if functions.is_null() && n != 0 {
            return CUDA_ERROR_INVALID_VALUE;
        }
        let names = check::entry_names(module as usize).unwrap_or_default();
        for (i, name) in names.iter().take(n as usize).enumerate() {
            let params = match check::entry(module as usize, name) {
                check::Lookup::Found(p) => Some(p),
                _ => None,
            };
            functions.add(i).write(module_function(module, name, params));
        }
        CUDA_SUCCESS
    }
    fn cuLinkCreate_v2(n: c_uint, options: *mut c_int, values: *mut *mut c_void, state: *mut Handle) {
        let h = handle();
        // The real linker keeps the log buffers of `cuLinkCreate` and writes into them at every
        // later call on the state, until `cuLinkDestroy`.
        let logs = JitLogs::read(n, options, values);
        logs.write(c"info: linker created", false);
        logs.write_back(values, 0.0);
        LINKERS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((h.addr(), logs));
        out(state, h);
        CUDA_SUCCESS
    }
    fn cuLinkAddData_v2(
        state: Handle,
        kind: c_int,
        data: *mut c_void,
        size: usize,
        name: *const c_char,
        n: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
    ) {
        linker_logs(state, c"info: input added");
        CUDA_SUCCESS
    }
    fn cuLinkAddFile_v2(
        state: Handle,
        kind: c_int,
        path: *const c_char,
        n: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
    ) {
        linker_logs(state, c"info: file added");
        CUDA_SUCCESS
    }
    fn cuLinkComplete(state: Handle, image: *mut *mut c_void, size: *mut usize) {
        linker_logs(state, c"info: linked");
        out(image, (&raw const LINKED_IMAGE).cast_mut().cast());
        out(size, LINKED_IMAGE.len());
        CUDA_SUCCESS
    }
    fn cuLinkDestroy(state: Handle) {
        LINKERS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|(h, _)| *h != state.addr());
        CUDA_SUCCESS
    }
}

/// The names `cuFuncGetName` returns, one per function handle (checking mode only): interned,
/// NUL-terminated and never freed, as the driver keeps a name while its module is loaded.
pub(crate) static FUNCTION_NAMES: std::sync::Mutex<Vec<(usize, &'static CStr)>> =
    std::sync::Mutex::new(Vec::new());

/// Function `f` is named `name` (for `cuFuncGetName`).
fn function_named(f: Handle, name: &str) {
    if !checking() {
        return;
    }
    let mut names = FUNCTION_NAMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let interned = names
        .iter()
        .map(|(_, n)| *n)
        .find(|n| n.to_bytes() == name.as_bytes());
    let interned = match interned {
        Some(n) => n,
        None => match std::ffi::CString::new(name) {
            Ok(c) => Box::leak(c.into_boxed_c_str()),
            Err(_) => return,
        },
    };
    names.push((f.addr(), interned));
}

/// A new function of `module` named `name` (with its parameters, where the module's PTX gives
/// them): `cuModuleGetFunction`, `cuModuleEnumerateFunctions`.
pub(crate) unsafe fn module_function(
    module: Handle,
    name: &str,
    params: Option<check::Params>,
) -> Handle {
    let h = handle();
    check::created(Kind::Function, h as usize, module as usize);
    standin::named(h as usize, name);
    function_named(h, name);
    if let Some(p) = params {
        check::function_params(h as usize, p);
    }
    h
}

/// The log buffers of a JIT option array (`cuModuleLoadDataEx`, `cuLink*`): each buffer with
/// its size in bytes, and the index of its size slot in the value array.
#[derive(Clone, Copy)]
struct JitLogs {
    info: (*mut c_char, usize, Option<usize>),
    error: (*mut c_char, usize, Option<usize>),
    wall_time: Option<usize>,
}

// SAFETY: the buffers are the caller's, written only during its calls on the linker state
// (which the caller serializes, as the real driver requires).
unsafe impl Send for JitLogs {}

/// Linker states and the log buffers given to `cuLinkCreate`.
static LINKERS: std::sync::Mutex<Vec<(usize, JitLogs)>> = std::sync::Mutex::new(Vec::new());

impl JitLogs {
    /// Reads the log options of an option array (the sizes are pointer-sized integers).
    ///
    /// # Safety
    ///
    /// `options` and `values` are null or hold `n` options and values (the JIT options'
    /// contract).
    unsafe fn read(n: c_uint, options: *mut c_int, values: *mut *mut c_void) -> Self {
        let mut logs = Self {
            info: (null_mut(), 0, None),
            error: (null_mut(), 0, None),
            wall_time: None,
        };
        if options.is_null() || values.is_null() {
            return logs;
        }
        for i in 0..n as usize {
            // SAFETY: `i < n`, and `values` holds `n` values (this function's contract).
            let value = unsafe { values.wrapping_add(i).read() };
            // SAFETY: as above, for `options`.
            match unsafe { options.wrapping_add(i).read() } {
                2 => logs.wall_time = Some(i),
                3 => logs.info.0 = value.cast(),
                4 => logs.info = (logs.info.0, value.addr(), Some(i)),
                5 => logs.error.0 = value.cast(),
                6 => logs.error = (logs.error.0, value.addr(), Some(i)),
                _ => {}
            }
        }
        logs
    }

    /// Writes `info` into the info log and, for a failed call, a line into the error log (an
    /// empty error log otherwise), NUL-terminated, through the caller's pointers.
    ///
    /// # Safety
    ///
    /// Each log buffer is null or valid for writes of its size (the JIT options' contract:
    /// the caller's buffers, during its call).
    unsafe fn write(&self, info: &CStr, failed: bool) {
        let (buf, len, _) = self.info;
        // SAFETY: the info buffer holds `len` bytes (this function's contract).
        unsafe { out_str(buf, c_int::try_from(len).unwrap_or(c_int::MAX), info) };
        let error = if failed {
            c"error: the checking double failed this call"
        } else {
            c""
        };
        let (buf, len, _) = self.error;
        // SAFETY: the error buffer holds `len` bytes (this function's contract).
        unsafe { out_str(buf, c_int::try_from(len).unwrap_or(c_int::MAX), error) };
    }

    /// The bytes written to each log, and the wall time in milliseconds (a `float` in the low
    /// bytes of its slot), back into the value array.
    ///
    /// # Safety
    ///
    /// `values` is the value array these logs were read from, valid for writes; each log
    /// buffer holds a NUL-terminated string (`write` wrote it).
    unsafe fn write_back(&self, values: *mut *mut c_void, wall_time_ms: f32) {
        for (buf, len, slot) in [self.info, self.error] {
            if let (Some(i), false) = (slot, buf.is_null() || len == 0) {
                // SAFETY: a non-empty log buffer holds a NUL-terminated string (this
                // function's contract).
                let written = unsafe { CStr::from_ptr(buf) }.to_bytes().len();
                let at = values.wrapping_add(i);
                // SAFETY: slot `i` is in the value array `read` read it from (this
                // function's contract).
                unsafe { at.write(core::ptr::without_provenance_mut(written)) };
            }
        }
        if let Some(i) = self.wall_time {
            let bits = wall_time_ms.to_bits() as usize;
            let at = values.wrapping_add(i);
            // SAFETY: as above.
            unsafe { at.write(core::ptr::without_provenance_mut(bits)) };
        }
    }
}

/// Writes `info` into the logs `cuLinkCreate` was given for `state`.
///
/// # Safety
///
/// The log buffers given to `cuLinkCreate` for `state` are still valid for writes of their
/// sizes (the linker's contract: they live as long as the linker state).
unsafe fn linker_logs(state: Handle, info: &CStr) {
    let logs = LINKERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .find(|(h, _)| *h == state.addr())
        .map(|(_, logs)| *logs);
    if let Some(logs) = logs {
        // SAFETY: the linker state's buffers are valid (this function's contract).
        unsafe { logs.write(info, false) };
    }
}

/// What `cuLinkComplete` hands out: an ELF64 header (64 bytes, as a loaded ELF image must
/// have: the checking mode reads it) of an image with no sections, whose functions are
/// therefore unknown (anything goes).
static LINKED_IMAGE: [u8; 64] = {
    let mut h = [0u8; 64];
    h[0] = 0x7f;
    h[1] = b'E';
    h[2] = b'L';
    h[3] = b'F';
    h[4] = 2; // ELFCLASS64
    h[5] = 1; // ELFDATA2LSB
    h[6] = 1; // EV_CURRENT
    h
};

/// A module loaded from `image` (`cuModuleLoadData*`): refused when it is a cubin for
/// another SM, otherwise recorded with what its image declares, and written to `module`.
///
/// # Safety
///
/// `module` is null or valid for a write of a handle; `image` is null or a complete image
/// (`check::module_loaded`'s contract, the driver's for a loaded image).
unsafe fn load_module(module: *mut Handle, image: *const c_void) -> CUresult {
    // Like the driver: a cubin built for another architecture than the device's has no code
    // for it (an sm_80 cubin on the H100; a header that states none is taken as the device's).
    // SAFETY: `image` is null or a complete image (this function's contract).
    if unsafe { cubin_sm(image) }.is_some_and(|sm| sm != 0 && sm != DEVICE_SM) {
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    let new = handle();
    check::created(Kind::Module, new as usize, 0);
    // SAFETY: as above.
    unsafe { check::module_loaded(new as usize, image) };
    // SAFETY: `module` is null or valid for the write (this function's contract).
    unsafe { out(module, new) };
    CUDA_SUCCESS
}

/// The SM a cubin is built for, for an ELF image of `e_machine` `EM_CUDA`; `None` for anything
/// else. Where it sits in `e_flags` depends on the image's ELF ABI version (`EI_ABIVERSION`,
/// byte 8): the low byte up to version 7 (CUDA 12.x's cubins: NVRTC 12.2 writes `0x5a055a` for
/// `sm_90`), the second byte from version 8 on (CUDA 13's: NVRTC 13.0 writes `0x6005a04` for
/// `sm_90`, `EI_OSABI` 0x41).
///
/// # Safety
///
/// `image` is null or the start of a complete image, at least 4 bytes, and of a whole ELF
/// header when it starts with the ELF magic (the driver's contract for a loaded image).
unsafe fn cubin_sm(image: *const c_void) -> Option<u8> {
    if image.is_null() {
        return None;
    }
    // SAFETY: a non-null `image` holds at least 4 bytes (this function's contract).
    if unsafe { read_field::<[u8; 4]>(image, 0) } != *b"\x7fELF" {
        return None;
    }
    // SAFETY: an image with the ELF magic holds a whole ELF header (this function's
    // contract), whose `e_machine` is at 0x12 and `e_flags` at 0x30.
    let machine = u16::from_le_bytes(unsafe { read_field::<[u8; 2]>(image, 0x12) });
    // SAFETY: as above (`EI_ABIVERSION` is byte 8 of the header).
    let abi = unsafe { read_field::<u8>(image, 8) };
    // SAFETY: as above.
    let flags = u32::from_le_bytes(unsafe { read_field::<[u8; 4]>(image, 0x30) });
    let shift = if abi >= 8 { 8 } else { 0 };
    (machine == EM_CUDA).then_some((flags >> shift) as u8)
}

/// The SM of the double's device (compute capability 9.0: an H100).
const DEVICE_SM: u8 = 90;
