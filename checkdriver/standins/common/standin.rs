// The code every stand-in shares (`include!`d by each `src/lib.rs`, after its status constants
// `SUCCESS`, `NOT_INITIALIZED`, `ALLOC_FAILED`, `INVALID_VALUE`, `INTERNAL_ERROR`,
// `NOT_SUPPORTED`, its `WORKSPACE` and `ERROR_STRING`): the double's extensions, found with
// `dlsym`, and the macro that defines each kind of entry point `build.rs` lists.

use core::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

/// Handles, streams and descriptors: pointers the stand-in never dereferences.
type Handle = *mut c_void;

unsafe extern "C" {
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

/// `custackCheckdriverLibraryCreate`.
type CreateFn = unsafe extern "C" fn(*const c_char, *mut u64) -> c_int;
/// `custackCheckdriverLibrarySetStream`.
type SetStreamFn = unsafe extern "C" fn(*const c_char, u64, u64) -> c_int;
/// `custackCheckdriverLibraryUse` and `custackCheckdriverLibraryDestroy`.
type HandleFn = unsafe extern "C" fn(*const c_char, u64) -> c_int;

/// The double's extensions (`checkdriver/src/library_handles.rs`).
struct Double {
    create: CreateFn,
    set_stream: SetStreamFn,
    #[allow(dead_code, reason = "cuBLASLt's stand-in checks its handle with a stream or descriptors")]
    use_: HandleFn,
    destroy: HandleFn,
}

/// The address of the double's extension `name` in the process's global scope, if loaded.
fn find(name: &core::ffi::CStr) -> Option<*mut c_void> {
    // SAFETY: `RTLD_DEFAULT` (null) searches the global scope; the name is NUL-terminated.
    let p = unsafe { dlsym(core::ptr::null_mut(), name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// The double's extensions, if the process has loaded the checking driver.
fn double() -> Option<&'static Double> {
    static DOUBLE: OnceLock<Option<Double>> = OnceLock::new();
    DOUBLE
        .get_or_init(|| {
            let (c, s, u, d) = (
                find(c"custackCheckdriverLibraryCreate")?,
                find(c"custackCheckdriverLibrarySetStream")?,
                find(c"custackCheckdriverLibraryUse")?,
                find(c"custackCheckdriverLibraryDestroy")?,
            );
            // SAFETY: the checking driver defines each extension with its signature here
            // (`library_handles.rs`); a function pointer from `dlsym` has a pointer's size.
            let create = unsafe { core::mem::transmute::<*mut c_void, CreateFn>(c) };
            // SAFETY: as above.
            let set_stream = unsafe { core::mem::transmute::<*mut c_void, SetStreamFn>(s) };
            // SAFETY: as above.
            let use_ = unsafe { core::mem::transmute::<*mut c_void, HandleFn>(u) };
            // SAFETY: as above.
            let destroy = unsafe { core::mem::transmute::<*mut c_void, HandleFn>(d) };
            Some(Double {
                create,
                set_stream,
                use_,
                destroy,
            })
        })
        .as_ref()
}

/// The library's status for the driver's answer `code` to a scheduled call.
fn status(code: c_int) -> c_int {
    match code {
        0 => SUCCESS,
        2 => ALLOC_FAILED, // CUDA_ERROR_OUT_OF_MEMORY
        _ => INTERNAL_ERROR,
    }
}

/// A handle of the current context (or a descriptor), from the double, written to `out`.
fn create(name: &core::ffi::CStr, out: *mut c_void) -> c_int {
    let Some(d) = double() else {
        return NOT_INITIALIZED;
    };
    if out.is_null() {
        return INVALID_VALUE;
    }
    let mut h = 0u64;
    // SAFETY: a NUL-terminated name and a valid out-pointer (a local).
    let code = unsafe { (d.create)(name.as_ptr(), &raw mut h) };
    if code == 0 {
        let handle: Handle = core::ptr::without_provenance_mut(h as usize);
        // SAFETY: `out` is the caller's non-null out-pointer for a handle (the library's
        // contract).
        unsafe { out.cast::<Handle>().write(handle) };
    }
    status(code)
}

/// A call that takes handle `h` and stream `stream`.
fn set_stream(name: &core::ffi::CStr, h: Handle, stream: Handle) -> c_int {
    let Some(d) = double() else {
        return NOT_INITIALIZED;
    };
    // SAFETY: a NUL-terminated name; the handles are passed by value, never dereferenced.
    status(unsafe { (d.set_stream)(name.as_ptr(), h.addr() as u64, stream.addr() as u64) })
}

/// A call that takes handle `h` (checked): `answer` once the double accepted it.
#[allow(dead_code, reason = "cuBLASLt's stand-in checks its handle with a stream or descriptors")]
fn use_handle(name: &core::ffi::CStr, h: Handle, answer: impl FnOnce() -> c_int) -> c_int {
    let Some(d) = double() else {
        return NOT_INITIALIZED;
    };
    // SAFETY: a NUL-terminated name; the handle is passed by value, never dereferenced.
    match unsafe { (d.use_)(name.as_ptr(), h.addr() as u64) } {
        0 => answer(),
        code => status(code),
    }
}

/// The handle's (or a descriptor's) destroy.
fn destroy(name: &core::ffi::CStr, h: Handle) -> c_int {
    let Some(d) = double() else {
        return NOT_INITIALIZED;
    };
    // SAFETY: a NUL-terminated name; the handle is passed by value, never dereferenced.
    status(unsafe { (d.destroy)(name.as_ptr(), h.addr() as u64) })
}

/// Defines one exported entry point of each kind `build.rs` writes.
macro_rules! entry_point {
    (create $name:ident($h:ident: $t:ty) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: a handle of the current context.")]
        ///
        /// # Safety
        ///
        /// The argument is null or valid for a write of a handle.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($h: $t) -> c_int {
            create(cname!($name), $h)
        }
    };
    (destroy $name:ident($h:ident: $t:ty) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: destroys a handle.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name($h: $t) -> c_int {
            destroy(cname!($name), $h)
        }
    };
    (set_stream $name:ident(handle: $t:ty, $s:ident: $st:ty) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: gives a handle a stream.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(handle: $t, $s: $st) -> c_int {
            set_stream(cname!($name), handle, $s)
        }
    };
    (buffer_size $name:ident(handle: Handle $(, $a:ident: $t:ty)*) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: answers [`WORKSPACE`] elements.")]
        ///
        /// # Safety
        ///
        /// The last argument is null or valid for a write of a `c_int`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(handle: Handle $(, $a: $t)*) -> c_int {
            use_handle(cname!($name), handle, || {
                let lwork: *mut c_void = $last;
                if lwork.is_null() {
                    return INVALID_VALUE;
                }
                // SAFETY: the caller's out-pointer for the size (cuSOLVER's contract).
                unsafe { lwork.cast::<c_int>().write(WORKSPACE) };
                SUCCESS
            })
        }
    };
    (not_supported $name:ident(handle: Handle $(, $a:ident: $t:ty)*) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: checks the handle, computes nothing: ")]
        #[doc = "`CUSOLVER_STATUS_NOT_SUPPORTED`."]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(handle: Handle $(, $a: $t)*) -> c_int {
            use_handle(cname!($name), handle, || NOT_SUPPORTED)
        }
    };
    (buffer_size_usize $name:ident(handle: Handle $(, $a:ident: $t:ty)*) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: answers [`WORKSPACE`] bytes.")]
        ///
        /// # Safety
        ///
        /// The last argument is null or valid for a write of a `size_t`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(handle: Handle $(, $a: $t)*) -> c_int {
            use_handle(cname!($name), handle, || {
                let size: *mut c_void = $last;
                if size.is_null() {
                    return INVALID_VALUE;
                }
                // SAFETY: the caller's out-pointer for the size (the library's contract).
                unsafe { size.cast::<usize>().write(WORKSPACE as usize) };
                SUCCESS
            })
        }
    };
    (descriptor_create $name:ident($out:ident: $o:ty $(, $a:ident: $t:ty)*) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: a descriptor the double tracks.")]
        ///
        /// # Safety
        ///
        /// The first argument is null or valid for a write of a descriptor.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($out: $o $(, $a: $t)*) -> c_int {
            create(cname!($name), $out)
        }
    };
    (descriptor_destroy $name:ident($d:ident: $t:ty) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: destroys a descriptor.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name($d: $t) -> c_int {
            destroy(cname!($name), $d)
        }
    };
    (error_string $name:ident($($a:ident: $t:ty),*) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: the stand-in's one string.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name($($a: $t),*) -> *const c_char {
            ERROR_STRING.as_ptr()
        }
    };
    (no_handle $name:ident($($a:ident: $t:ty),*) last $last:ident) => {
        #[doc = concat!("`", stringify!($name), "`: `CUSOLVER_STATUS_NOT_SUPPORTED`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name($($a: $t),*) -> c_int {
            if double().is_some() { NOT_SUPPORTED } else { NOT_INITIALIZED }
        }
    };
}

/// The entry point's name, NUL-terminated.
macro_rules! cname {
    ($name:ident) => {
        match core::ffi::CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => c"?",
        }
    };
}

