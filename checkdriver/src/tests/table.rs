//! The double's own tests. The table of every entry point (`api/mod.rs`): each name in it once,
//! numbered as the counters are, found by `cuGetProcAddress`'s lookup, and each call counted on
//! its own entry point's counter.

use super::*;
use crate::api::{GROUPS, lookup};

/// The index of entry point `name` in the counters.
fn index_of(name: &str) -> usize {
    (0..nulldriver_entry_count())
        .find(|&i| {
            // SAFETY: the name of an index below the count: a NUL-terminated static.
            unsafe { CStr::from_ptr(nulldriver_entry_name(i)) }.to_bytes() == name.as_bytes()
        })
        .unwrap_or_else(|| panic!("{name} is not in the table"))
}

#[test]
fn every_entry_point_is_in_the_table_once_and_found_by_name() {
    let names: Vec<&str> = GROUPS
        .iter()
        .flat_map(|g| g.names.iter().copied())
        .collect();
    assert_eq!(names.len(), nulldriver_entry_count());
    let mut seen = std::collections::BTreeSet::new();
    for (i, name) in names.iter().enumerate() {
        let bare = name.strip_suffix('\0').expect("a NUL-terminated name");
        assert!(seen.insert(bare), "{bare} is in the table twice");
        assert!(!lookup(bare.as_bytes()).is_null(), "{bare} is not found");
        // SAFETY: `i` is below the count: a NUL-terminated static name.
        let numbered = unsafe { CStr::from_ptr(nulldriver_entry_name(i)) };
        assert_eq!(numbered.to_str(), Ok(bare), "entry point {i}");
    }
    assert!(nulldriver_entry_name(names.len()).is_null());
    assert!(lookup(b"cuNoSuchEntryPoint").is_null());
    // The lookup answers each name with its own function. (Function addresses are compared
    // natively only: Miri gives each cast its own.)
    #[cfg(not(miri))]
    {
        assert_eq!(lookup(b"cuInit"), cuInit as *mut c_void);
        assert_eq!(lookup(b"cuMemAlloc_v2"), cuMemAlloc_v2 as *mut c_void);
        assert_eq!(lookup(b"cuGreenCtxCreate"), cuGreenCtxCreate as *mut c_void);
    }
}

#[test]
fn each_call_is_counted_on_its_own_counter() {
    let _serial = serial();
    let n = nulldriver_entry_count();
    let counts = || {
        let mut v = vec![0u64; n];
        // SAFETY: `v` holds `n` counters, the capacity passed.
        assert_eq!(unsafe { nulldriver_counts(v.as_mut_ptr(), n) }, n);
        v
    };
    let (init, version) = (index_of("cuInit"), index_of("cuDriverGetVersion"));
    nulldriver_set_counting(1);
    let before = counts();
    let mut v = 0;
    // SAFETY: `cuInit` takes flags; `v` is a valid out-parameter.
    unsafe {
        let _ = cuInit(0);
        let _ = cuInit(0);
        let _ = cuDriverGetVersion(&raw mut v);
    }
    let after = counts();
    nulldriver_set_counting(0);
    let off = counts();
    // SAFETY: as above.
    let _ = unsafe { cuInit(0) };
    assert_eq!(after[init] - before[init], 2, "cuInit's counter");
    assert_eq!(
        after[version] - before[version],
        1,
        "cuDriverGetVersion's counter"
    );
    assert_eq!(counts()[init], off[init], "counting off: nothing counted");
}
