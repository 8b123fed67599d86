// What a stand-in whose calls take descriptors shares (`include!`d after `standin.rs`): the
// double's `custackCheckdriverLibraryDescriptorUse`, which checks that each descriptor is one the
// double made for the call's library and not yet destroyed (and the handle, if any, as
// `use_handle` does). cuDNN's and cuBLASLt's stand-ins include it.

/// `custackCheckdriverLibraryDescriptorUse`.
type DescriptorUseFn = unsafe extern "C" fn(*const c_char, u64, *const u64, usize) -> c_int;

/// Asks the double about a call that takes `descriptors` (and handle `h`, null for none):
/// `answer` once it accepted them.
fn use_descriptors(
    name: &core::ffi::CStr,
    h: Handle,
    descriptors: &[Handle],
    answer: impl FnOnce() -> c_int,
) -> c_int {
    static EXTENSION: OnceLock<Option<DescriptorUseFn>> = OnceLock::new();
    let extension = EXTENSION.get_or_init(|| {
        let f = find(c"custackCheckdriverLibraryDescriptorUse")?;
        // SAFETY: the checking driver defines the extension with this signature
        // (`library_handles.rs`); a function pointer from `dlsym` has a pointer's size.
        Some(unsafe { core::mem::transmute::<*mut c_void, DescriptorUseFn>(f) })
    });
    let (Some(f), Some(_)) = (extension, double()) else {
        return NOT_INITIALIZED;
    };
    let addresses: Vec<u64> = descriptors.iter().map(|d| d.addr() as u64).collect();
    // SAFETY: a NUL-terminated name, and `addresses.len()` values at `addresses`; the handles
    // are passed by value, never dereferenced.
    match unsafe {
        f(
            name.as_ptr(),
            h.addr() as u64,
            addresses.as_ptr(),
            addresses.len(),
        )
    } {
        0 => answer(),
        code => status(code),
    }
}
