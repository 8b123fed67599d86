//! The raw layer against the real library: every function `ffi/` declares must be exported by
//! the libcuda this test binary is linked against and has loaded.
//!
//! Needs no GPU: `cuDriverGetVersion` works without a device, so this runs in CI against Debian's
//! driver 535 library (`bash scripts/test.sh` fetches it) and on GPU hosts against their driver.
#![cfg(target_os = "linux")]

mod common;

use std::ffi::{CStr, CString, c_int};

/// The `ffi/` sources, embedded so the binary runs without the source tree beside it.
const FFI_SOURCES: [(&str, &str); 16] = [
    ("types.rs", include_str!("../ffi/types.rs")),
    ("error.rs", include_str!("../ffi/error.rs")),
    ("init.rs", include_str!("../ffi/init.rs")),
    ("device.rs", include_str!("../ffi/device.rs")),
    ("primary_ctx.rs", include_str!("../ffi/primary_ctx.rs")),
    ("ctx.rs", include_str!("../ffi/ctx.rs")),
    ("module.rs", include_str!("../ffi/module.rs")),
    ("memory.rs", include_str!("../ffi/memory.rs")),
    ("stream.rs", include_str!("../ffi/stream.rs")),
    ("event.rs", include_str!("../ffi/event.rs")),
    ("launch.rs", include_str!("../ffi/launch.rs")),
    ("library.rs", include_str!("../ffi/library.rs")),
    ("texture.rs", include_str!("../ffi/texture.rs")),
    ("occupancy.rs", include_str!("../ffi/occupancy.rs")),
    ("graph.rs", include_str!("../ffi/graph.rs")),
    ("entry_point.rs", include_str!("../ffi/entry_point.rs")),
];

/// Every `fn cu…(` declared in `ffi/` (`pub fn`, `pub unsafe fn` or `pub safe fn`), skipping
/// comment lines, in file order.
fn declared_symbols() -> Vec<&'static str> {
    let mut names = Vec::new();
    for (_, source) in FFI_SOURCES {
        for line in source.lines().map(str::trim_start) {
            if line.starts_with("//") {
                continue;
            }
            let mut rest = line;
            while let Some(at) = rest.find("fn cu") {
                let after = &rest[at + 3..];
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                let is_word = at == 0 || rest[..at].ends_with(char::is_whitespace);
                if is_word && after[end..].starts_with('(') {
                    names.push(&after[..end]);
                }
                rest = &after[end..];
            }
        }
    }
    names
}

/// The path of the loaded libcuda, from this process's memory map (`/proc/self/maps`).
fn loaded_libcuda(maps: &str) -> Option<&str> {
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            path.rsplit('/')
                .next()
                .is_some_and(|file| file.starts_with("libcuda.so"))
        })
}

fn dlerror() -> String {
    // SAFETY: `dlerror` returns null or a NUL-terminated string that stays valid until the
    // next dl* call on this thread; it is copied out at once.
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        return "no dlerror message".to_owned();
    }
    // SAFETY: non-null, NUL-terminated, live until the next dl* call (see above).
    unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn every_declared_symbol_is_exported_by_the_linked_libcuda() {
    let declared = declared_symbols();
    assert!(
        declared.len() > 50,
        "found only {} `fn cu…(` declarations in ffi/: is the scan broken?",
        declared.len()
    );
    let mut unique = declared.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        declared.len(),
        "a symbol is declared twice in ffi/"
    );
    if cfg!(custack_no_libcuda) {
        common::skipped(
            "every_declared_symbol_is_exported_by_the_linked_libcuda: SKIPPED the symbol check: \
             this build linked no libcuda (bash scripts/test.sh fetches one)",
        );
        return;
    }

    let mut version: c_int = 0;
    // SAFETY: `cuDriverGetVersion` writes one int through a valid pointer; it needs no
    // `cuInit` and no device. Calling it also makes the dynamic loader map libcuda.
    let status = unsafe { custack::ffi::cuDriverGetVersion(&raw mut version) };
    assert_eq!(status.0, 0, "cuDriverGetVersion failed");

    let maps = std::fs::read_to_string("/proc/self/maps").expect("read /proc/self/maps");
    let path = loaded_libcuda(&maps).expect("libcuda.so* is not in /proc/self/maps");
    let c_path = CString::new(path).expect("path holds a NUL byte");
    // SAFETY: `c_path` is NUL-terminated; RTLD_NOLOAD only returns a handle to a library that
    // is already loaded (it is: it appears in /proc/self/maps), running no initialisers.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
    assert!(
        !handle.is_null(),
        "dlopen({path}, RTLD_NOLOAD): {}",
        dlerror()
    );

    let missing: Vec<&str> = declared
        .iter()
        .copied()
        .filter(|name| {
            let c_name = CString::new(*name).expect("symbol name holds a NUL byte");
            // SAFETY: `handle` is a live handle from `dlopen`; `c_name` is NUL-terminated.
            unsafe { libc::dlsym(handle, c_name.as_ptr()) }.is_null()
        })
        .collect();
    // SAFETY: `handle` came from a successful `dlopen` and is closed once; NOLOAD took a
    // reference, so closing it does not unload the library the binary links against.
    unsafe { libc::dlclose(handle) };

    println!(
        "libcuda: {path} (linked by build.rs: {}), cuDriverGetVersion: {version}, \
         symbols checked: {}",
        env!("CUSTACK_LIBCUDA_FOUND"),
        declared.len()
    );
    assert!(
        missing.is_empty(),
        "{} of the {} symbols ffi/ declares are not exported by {path} (driver {version}): {}",
        missing.len(),
        declared.len(),
        missing.join(", ")
    );
}

#[test]
fn the_scan_finds_declarations_and_skips_comments() {
    let names = declared_symbols();
    assert!(names.contains(&"cuDriverGetVersion"));
    assert!(names.contains(&"cuCtxPushCurrent_v2"));
    assert!(names.iter().all(|n| n.starts_with("cu")));
}

/// The do-nothing driver of `checkdriver` exports every entry point `ffi/` declares, or
/// `scripts/bench-nulldriver.sh` cannot link custack against it (it is built only there, so
/// this checks its source: the group files of `checkdriver/src/api/`, which declare them).
#[test]
fn every_declared_symbol_is_in_the_null_driver() {
    const NULL: [&str; 19] = [
        include_str!("../checkdriver/src/api/error.rs"),
        include_str!("../checkdriver/src/api/init.rs"),
        include_str!("../checkdriver/src/api/device.rs"),
        include_str!("../checkdriver/src/api/primary_ctx.rs"),
        include_str!("../checkdriver/src/api/ctx.rs"),
        include_str!("../checkdriver/src/api/module.rs"),
        include_str!("../checkdriver/src/api/library.rs"),
        include_str!("../checkdriver/src/api/memory.rs"),
        include_str!("../checkdriver/src/api/vmm.rs"),
        include_str!("../checkdriver/src/api/ipc.rs"),
        include_str!("../checkdriver/src/api/stream.rs"),
        include_str!("../checkdriver/src/api/event.rs"),
        include_str!("../checkdriver/src/api/launch.rs"),
        include_str!("../checkdriver/src/api/graph.rs"),
        include_str!("../checkdriver/src/api/occupancy.rs"),
        include_str!("../checkdriver/src/api/texture.rs"),
        include_str!("../checkdriver/src/api/peer.rs"),
        include_str!("../checkdriver/src/api/entry_point.rs"),
        include_str!("../checkdriver/src/api/green.rs"),
    ];
    let missing: Vec<&str> = declared_symbols()
        .into_iter()
        .filter(|name| {
            !NULL
                .iter()
                .any(|group| group.contains(&format!("fn {name}(")))
        })
        .collect();
    assert!(missing.is_empty(), "checkdriver lacks: {missing:?}");
}
