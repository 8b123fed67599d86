//! Models `cuda.h` "Module Management" (`group__CUDA__MODULE`): modules loaded from PTX or a cubin
//! (whose declarations or symbol table name its kernels), their functions and globals, the function
//! enumeration of 12.4, and the JIT linker (`cuLink*`, with its logs).

use super::common::{checking, name_of, new_handle, out, out_str, read_field};
use super::types::{
    CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NO_BINARY_FOR_GPU,
    CUDA_ERROR_NOT_FOUND, CUDA_SUCCESS, CUdeviceptr, CUresult, Handle,
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
    fn cuModuleLoadFatBinary(module: *mut Handle, image: *const c_void) { load_module(module, image) }
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

/// What `cuLinkComplete` hands out: a CUDA ELF64 image for `sm_90` with a section table of two
/// sections (the null one and the section names) and no symbol table, whose functions are
/// therefore unknown (anything goes); an image the double's own load accepts.
static LINKED_IMAGE: [u8; 193] = {
    let mut h = [0u8; 193];
    let ident = *b"\x7fELF\x02\x01\x01\x33\x07"; // ELF64, LE, v1, ELFOSABI_CUDA, V1
    let mut i = 0;
    while i < ident.len() {
        h[i] = ident[i];
        i += 1;
    }
    h[0x10] = 2; // ET_EXEC
    h[0x12] = 190; // EM_CUDA
    h[0x14] = 1; // EV_CURRENT
    h[0x28] = 64; // e_shoff
    let flags = 0x5a_u32 | 0x100 | 0x400 | (0x5a << 16); // sm_90 (the V1 ABI's low byte)
    let f = flags.to_le_bytes();
    h[0x30] = f[0];
    h[0x31] = f[1];
    h[0x32] = f[2];
    h[0x33] = f[3];
    h[0x34] = 64; // e_ehsize
    h[0x3a] = 64; // e_shentsize
    h[0x3c] = 2; // e_shnum
    h[0x3e] = 1; // e_shstrndx
    // Section 1, `.shstrtab` (SHT_STRTAB) at 192: the one NUL byte after the table.
    h[128 + 4] = 3;
    h[128 + 0x18] = 192;
    h[128 + 0x20] = 1;
    h
};

/// A module loaded from `image` (`cuModuleLoadData*`): refused when the driver refuses it (see
/// [`image_check`]), otherwise recorded with what its image declares, and written to `module`.
///
/// # Safety
///
/// `module` is null or valid for a write of a handle; `image` is null or a complete image
/// (`check::module_loaded`'s contract, the driver's for a loaded image).
unsafe fn load_module(module: *mut Handle, image: *const c_void) -> CUresult {
    // SAFETY: `image` is null or a complete image (this function's contract).
    if let Err(refused) = unsafe { image_check(image) } {
        return refused;
    }
    let new = handle();
    check::created(Kind::Module, new as usize, 0);
    // SAFETY: as above.
    unsafe { check::module_loaded(new as usize, image) };
    // SAFETY: `module` is null or valid for the write (this function's contract).
    unsafe { out(module, new) };
    CUDA_SUCCESS
}

/// What the driver says of an image before loading it, as far as the double can tell from its
/// header (the H200 run, driver 580):
///
/// - an ELF image that is not a little-endian ELF64 of `EM_CUDA` with a section table is no
///   image: `CUDA_ERROR_INVALID_IMAGE` (a bare 64-byte ELF header was refused so);
/// - a cubin for another SM than the device's has no code for it: `CUDA_ERROR_NO_BINARY_FOR_GPU`.
///   Its SM is where its ELF ABI version puts it: `e_flags`' low byte in the first version (7,
///   nvcc before 12.8, and the double's own images), bits 8 to 15 from version 8 on (what CUDA
///   13's nvcc writes for every target: a low byte set to another SM there changes nothing,
///   which the run showed); an SM of 0 is taken as the device's;
/// - a fatbin (either magic) whose header says it holds nothing past itself is no image:
///   `CUDA_ERROR_INVALID_IMAGE` (the second differential run, H100, driver 580; the double
///   answered 209 before). One with entries is taken as holding the device's code.
///
/// PTX text is compiled by the double as it is (`ptx.rs`).
///
/// # Safety
///
/// `image` is null or the start of a complete image, at least 4 bytes, of a whole ELF header
/// when it starts with the ELF magic and of a whole fatbin header (16 bytes) when it starts with
/// a fatbin magic (the driver's contract for a loaded image).
unsafe fn image_check(image: *const c_void) -> Result<(), CUresult> {
    if image.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: a non-null `image` holds at least 4 bytes (this function's contract).
    let magic = unsafe { read_field::<[u8; 4]>(image, 0) };
    if u32::from_le_bytes(magic) == 0xBA55_ED50 || u32::from_le_bytes(magic) == 0x466B_F4B8 {
        // SAFETY: a fatbin's 16-byte header (this function's contract): the size of what
        // follows the header at 8.
        let rest = unsafe { read_field::<u64>(image, 8) };
        return if rest == 0 {
            Err(CUDA_ERROR_INVALID_IMAGE)
        } else {
            Ok(())
        };
    }
    if magic != *b"\x7fELF" {
        return Ok(());
    }
    // SAFETY: an image with the ELF magic holds a whole ELF header (this function's contract).
    let header = unsafe { read_field::<[u8; 64]>(image, 0) };
    let machine = u16::from_le_bytes([header[0x12], header[0x13]]);
    let sections = u16::from_le_bytes([header[0x3c], header[0x3d]]);
    if header[4] != 2 || header[5] != 1 || machine != EM_CUDA || sections == 0 {
        return Err(CUDA_ERROR_INVALID_IMAGE);
    }
    let flags = u32::from_le_bytes([header[0x30], header[0x31], header[0x32], header[0x33]]);
    let sm = if header[8] == ABI_VERSION_V1 {
        flags & 0xff
    } else {
        (flags >> 8) & 0xff
    };
    if sm != 0 && sm != DEVICE_SM {
        return Err(CUDA_ERROR_NO_BINARY_FOR_GPU);
    }
    Ok(())
}

/// `ELFABIVERSION_CUDA_V1` (`e_ident[EI_ABIVERSION]`): the ABI whose `e_flags` keep the SM in
/// their low byte; the later ones keep it in bits 8 to 15.
const ABI_VERSION_V1: u8 = 7;

/// The SM of the double's device (compute capability 9.0: an H100).
const DEVICE_SM: u32 = 90;
