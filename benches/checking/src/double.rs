//! What the programs ask of the checking driver itself, never of a real one: its call counters
//! (`nulldriver_*`, found because this program links the double), its extensions found
//! through `cuGetProcAddress_v2` (`custackCheckdriver*`: the driver version it reports, the
//! calls made so far), and the counts of a closure's calls by entry point.

use custack::Result;

// The double's call counters (`benches/nulldriver`): this program only runs linked to it.
unsafe extern "C" {
    fn nulldriver_set_counting(on: core::ffi::c_int);
    fn nulldriver_entry_count() -> usize;
    fn nulldriver_entry_name(i: usize) -> *const core::ffi::c_char;
    fn nulldriver_counts(out: *mut u64, cap: usize) -> usize;
}

/// How many kernel launches of any kind have reached the driver since counting began.
pub(crate) fn launches_seen() -> u64 {
    calls_seen(|name| name.starts_with(b"cuLaunch"))
}

/// How many calls of the entry points `which` names have reached the driver since counting
/// began (this call turns counting on).
pub(crate) fn calls_seen(which: impl Fn(&[u8]) -> bool) -> u64 {
    // SAFETY: the double's counter functions take no pointer (this one) or a buffer of `cap`
    // counters (below).
    unsafe { nulldriver_set_counting(1) };
    let names = entry_names();
    let mut counts = vec![0u64; names.len()];
    // SAFETY: `counts` holds `names.len()` counters.
    unsafe { nulldriver_counts(counts.as_mut_ptr(), counts.len()) };
    names
        .iter()
        .zip(counts)
        .filter(|(name, _)| which(name))
        .map(|(_, count)| count)
        .sum()
}

/// The double's entry point names, in its counters' order, read once: the programs that count
/// calls most (`contracts`, `restricted_scope`) ask before and after nearly every call, and
/// naming every entry point each time (a `strlen` each, interpreted under Miri) was most of
/// their time there.
fn entry_names() -> &'static [&'static [u8]] {
    static NAMES: std::sync::OnceLock<Vec<&'static [u8]>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        // SAFETY: takes nothing, returns the number of entry points.
        let n = unsafe { nulldriver_entry_count() };
        (0..n)
            .map(|i| {
                // SAFETY: a NUL-terminated static name of the double, or null past the end.
                let name = unsafe { nulldriver_entry_name(i) };
                if name.is_null() {
                    &[][..]
                } else {
                    // SAFETY: checked non-null: a NUL-terminated name the double keeps in a
                    // static for the whole process.
                    unsafe { core::ffi::CStr::from_ptr(name) }.to_bytes()
                }
            })
            .collect()
    })
}

/// The checking double's extension `name`, found with the driver's `cuGetProcAddress_v2`
/// (`NotFound` on any other driver).
pub(crate) fn checkdriver_extension(name: &core::ffi::CStr) -> Result<*mut core::ffi::c_void> {
    use custack::ffi;
    let mut pfn: *mut core::ffi::c_void = core::ptr::null_mut();
    let mut status = ffi::CU_GET_PROC_ADDRESS_SUCCESS;
    // SAFETY: the symbol is NUL-terminated; both out-pointers are valid.
    let r = unsafe {
        ffi::cuGetProcAddress_v2(
            name.as_ptr(),
            &raw mut pfn,
            12000,
            ffi::CU_GET_PROC_ADDRESS_DEFAULT,
            &raw mut status,
        )
    };
    if r != ffi::CUresult::CUDA_SUCCESS || pfn.is_null() {
        return Err(custack::Error::new(
            custack::ErrorKind::NotFound,
            "not the checking driver",
        ));
    }
    Ok(pfn)
}

/// The double's count of driver calls so far (`custackCheckdriverCalls`).
pub(crate) fn driver_calls() -> Result<u64> {
    type Calls = unsafe extern "C" fn() -> u64;
    let pfn = checkdriver_extension(c"custackCheckdriverCalls")?;
    // SAFETY: the double's `custackCheckdriverCalls`, of exactly this signature.
    let calls: Calls = unsafe { core::mem::transmute::<*mut core::ffi::c_void, Calls>(pfn) };
    // SAFETY: takes nothing, reads an atomic counter.
    Ok(unsafe { calls() })
}

/// Asks the checking driver to report driver `version` (its extension, found through
/// `cuGetProcAddress_v2`; not a driver call, so neither counted nor failed).
pub(crate) fn report_driver_version(version: core::ffi::c_int) -> Result<()> {
    use custack::ffi;
    type SetVersion = unsafe extern "C" fn(core::ffi::c_int) -> ffi::CUresult;
    let pfn = checkdriver_extension(c"custackCheckdriverSetDriverVersion")?;
    // SAFETY: only the checking driver defines this symbol, with the signature `SetVersion`
    // (`checkdriver/src/extensions.rs`); function and data pointers have one size.
    let set = unsafe { core::mem::transmute::<*mut core::ffi::c_void, SetVersion>(pfn) };
    // SAFETY: takes an integer.
    match unsafe { set(version) } {
        ffi::CUresult::CUDA_SUCCESS => Ok(()),
        // The checking driver's own extension, which no custack wrapper calls.
        #[allow(
            clippy::disallowed_methods,
            reason = "a raw call outside custack's wrappers"
        )]
        r => Err(custack::Error::from_raw(r)),
    }
}

/// Panics unless `f` made exactly `n` calls of the entry points `prefix` names (`at_least`: `n`
/// or more), naming `what`.
pub(crate) fn calls<R>(
    what: &str,
    prefix: &str,
    n: u64,
    at_least: bool,
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    let (r, made) = counting(prefix, f)?;
    assert!(
        made == n || at_least && made > n,
        "restricted_scope: {what} made {made} calls of {prefix}*, not {}{n}",
        if at_least { "at least " } else { "" }
    );
    Ok(r)
}

/// The calls of the driver entry points whose names start with `prefix` so far.
pub(crate) fn calls_of(prefix: &str) -> u64 {
    calls_seen(|name| name.starts_with(prefix.as_bytes()))
}

/// `f`'s result and how many calls of the entry points named by `prefix` it made.
pub(crate) fn counting<R>(prefix: &str, f: impl FnOnce() -> Result<R>) -> Result<(R, u64)> {
    let before = calls_of(prefix);
    let r = f()?;
    Ok((r, calls_of(prefix) - before))
}
