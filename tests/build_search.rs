//! `build.rs`'s search for the driver library, per target OS and architecture and with or
//! without a sysroot: its pure functions (`build/search.rs`, included here as `build.rs`
//! includes it), run on the host for every target custack supports.

#[path = "../build/search.rs"]
mod search;

use search::{Os, Target};
use std::path::{Path, PathBuf};

const LINUX_X86: Target<'static> = Target {
    os: Os::Linux,
    arch: "x86_64",
};
const LINUX_ARM: Target<'static> = Target {
    os: Os::Linux,
    arch: "aarch64",
};
const QNX: Target<'static> = Target {
    os: Os::Qnx,
    arch: "aarch64",
};
const WINDOWS: Target<'static> = Target {
    os: Os::Windows,
    arch: "x86_64",
};

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

#[test]
fn target_os_comes_from_cargo_cfg_target_os() {
    assert_eq!(Os::from_cfg("linux"), Os::Linux);
    assert_eq!(Os::from_cfg("nto"), Os::Qnx);
    assert_eq!(Os::from_cfg("windows"), Os::Windows);
    assert_eq!(Os::from_cfg("macos"), Os::Other);
    assert_eq!(
        search::library_files(Os::Linux),
        ["libcuda.so", "libcuda.so.1"]
    );
    assert_eq!(
        search::library_files(Os::Qnx),
        ["libcuda.so", "libcuda.so.1"]
    );
    assert_eq!(search::library_files(Os::Windows), ["nvcuda.dll"]);
    assert!(search::library_files(Os::Other).is_empty());
}

#[test]
fn cross_means_host_and_target_triples_differ() {
    assert!(!search::is_cross(
        "x86_64-unknown-linux-gnu",
        "x86_64-unknown-linux-gnu"
    ));
    assert!(search::is_cross(
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu"
    ));
    assert!(search::is_cross(
        "x86_64-unknown-linux-gnu",
        "x86_64-pc-windows-gnu"
    ));
}

/// The native x86_64 Linux search is unchanged: the same directories in the same order.
#[test]
fn native_x86_64_linux_searches_what_it_always_did() {
    let roots = search::toolkit_roots(LINUX_X86, &paths(&["/opt/cuda"]), None);
    assert_eq!(roots, paths(&["/opt/cuda", "/usr/local/cuda"]));
    assert_eq!(
        search::toolkit_dirs(LINUX_X86, &roots, None, false),
        paths(&[
            "/opt/cuda/lib64",
            "/opt/cuda/lib",
            "/opt/cuda/targets/x86_64-linux/lib",
            "/usr/local/cuda/lib64",
            "/usr/local/cuda/lib",
            "/usr/local/cuda/targets/x86_64-linux/lib",
        ])
    );
    assert_eq!(
        search::driver_dirs(LINUX_X86, None, false, None),
        paths(&[
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
            "/usr/lib/x86_64-linux-gnu/nvidia/current",
            "/usr/local/nvidia/lib64",
            "/usr/lib/wsl/lib",
        ])
    );
    assert_eq!(
        search::stub_dirs(LINUX_X86, &roots[1..], None, false),
        paths(&[
            "/usr/local/cuda/lib64/stubs",
            "/usr/local/cuda/targets/x86_64-linux/lib/stubs",
        ])
    );
    assert!(search::use_ld_cache(LINUX_X86, false));
}

/// Native aarch64 (a Jetson, a Grace server): the Jetson driver's directories and the
/// toolkit's `aarch64-linux` (L4T) and `sbsa-linux` (server) targets.
#[test]
fn native_aarch64_linux_searches_jetson_and_sbsa() {
    assert_eq!(
        search::toolkit_target_dirs(LINUX_ARM),
        ["aarch64-linux", "sbsa-linux"]
    );
    let roots = search::toolkit_roots(LINUX_ARM, &[], None);
    let toolkit = search::toolkit_dirs(LINUX_ARM, &roots, None, false);
    assert!(toolkit.contains(&PathBuf::from("/usr/local/cuda/targets/sbsa-linux/lib")));
    assert!(toolkit.contains(&PathBuf::from("/usr/local/cuda/lib64")));
    let driver = search::driver_dirs(LINUX_ARM, None, false, None);
    assert_eq!(
        driver,
        paths(&[
            "/usr/lib/aarch64-linux-gnu",
            "/usr/lib64",
            "/usr/lib/aarch64-linux-gnu/nvidia/current",
            "/usr/lib/aarch64-linux-gnu/tegra",
            "/usr/lib/aarch64-linux-gnu/nvidia",
            "/usr/local/nvidia/lib64",
        ])
    );
    assert!(search::use_ld_cache(LINUX_ARM, false));
}

/// Cross-compiling for aarch64 on an x86_64 machine without a sysroot: only directories that
/// hold aarch64 libraries (Debian multiarch, the toolkit's cross targets), never the build
/// machine's `lib64`, container or WSL directories, never the loader cache.
#[test]
fn cross_build_without_sysroot_never_searches_the_build_machines_libraries() {
    let roots = search::toolkit_roots(LINUX_ARM, &paths(&["/opt/cuda"]), None);
    let toolkit = search::toolkit_dirs(LINUX_ARM, &roots, None, true);
    assert_eq!(
        toolkit,
        paths(&[
            "/opt/cuda/targets/aarch64-linux/lib",
            "/opt/cuda/targets/sbsa-linux/lib",
            "/usr/local/cuda/targets/aarch64-linux/lib",
            "/usr/local/cuda/targets/sbsa-linux/lib",
        ])
    );
    let driver = search::driver_dirs(LINUX_ARM, None, true, None);
    for dir in &driver {
        assert!(
            dir.starts_with("/usr/lib/aarch64-linux-gnu"),
            "{}",
            dir.display()
        );
    }
    let stubs = search::stub_dirs(LINUX_ARM, &roots, None, true);
    assert!(
        stubs
            .iter()
            .all(|d| d.components().any(|c| c.as_os_str() == "targets"))
    );
    assert!(!search::use_ld_cache(LINUX_ARM, true));
}

/// With `CUSTACK_SYSROOT` (a Jetson's root file system), every system directory is searched
/// inside it, and the default toolkit root too, with all its subdirectories.
#[test]
fn cross_build_with_sysroot_searches_inside_it() {
    let sysroot = Path::new("/srv/jetson-rootfs");
    let roots = search::toolkit_roots(LINUX_ARM, &[], Some(sysroot));
    assert_eq!(roots, paths(&["/srv/jetson-rootfs/usr/local/cuda"]));
    let toolkit = search::toolkit_dirs(LINUX_ARM, &roots, Some(sysroot), true);
    assert!(toolkit.contains(&PathBuf::from("/srv/jetson-rootfs/usr/local/cuda/lib64")));
    let driver = search::driver_dirs(LINUX_ARM, Some(sysroot), true, None);
    assert!(driver.contains(&PathBuf::from(
        "/srv/jetson-rootfs/usr/lib/aarch64-linux-gnu/tegra"
    )));
    assert!(driver.contains(&PathBuf::from(
        "/srv/jetson-rootfs/usr/lib/aarch64-linux-gnu/nvidia"
    )));
    assert!(driver.iter().all(|d| d.starts_with(sysroot)));
    assert_eq!(
        search::in_sysroot(Some(sysroot), "/usr/lib"),
        PathBuf::from("/srv/jetson-rootfs/usr/lib")
    );
    assert_eq!(
        search::in_sysroot(None, "/usr/lib"),
        PathBuf::from("/usr/lib")
    );
}

/// DRIVE OS QNX: `/usr/libnvidia` in the target tree, the toolkit's `aarch64-qnx` target and
/// the safety toolkit `cuda-safe`.
#[test]
fn qnx_searches_drive_os_directories() {
    let sysroot = Path::new("/drive/qnx-target");
    assert_eq!(search::toolkit_target_dirs(QNX), ["aarch64-qnx"]);
    let roots = search::toolkit_roots(QNX, &[], None);
    assert_eq!(roots, paths(&["/usr/local/cuda", "/usr/local/cuda-safe"]));
    let toolkit = search::toolkit_dirs(QNX, &roots, None, true);
    assert_eq!(
        toolkit,
        paths(&[
            "/usr/local/cuda/targets/aarch64-qnx/lib",
            "/usr/local/cuda-safe/targets/aarch64-qnx/lib",
        ])
    );
    assert_eq!(
        search::driver_dirs(QNX, Some(sysroot), true, None),
        paths(&[
            "/drive/qnx-target/usr/libnvidia",
            "/drive/qnx-target/usr/lib",
            "/drive/qnx-target/lib",
        ])
    );
    // A QNX build is always a cross build: without the target tree, no system directory.
    assert!(search::driver_dirs(QNX, None, true, None).is_empty());
    assert!(!search::use_ld_cache(QNX, true));
}

/// Windows: `nvcuda.dll` in `System32` (native: `SystemRoot`; cross: inside the sysroot), no
/// toolkit directories, no loader cache.
#[test]
fn windows_searches_system32() {
    let system_root = Path::new("C:\\Windows");
    assert_eq!(
        search::driver_dirs(WINDOWS, None, false, Some(system_root)),
        [system_root.join("System32")]
    );
    assert_eq!(
        search::driver_dirs(WINDOWS, Some(Path::new("/mnt/c")), true, None),
        paths(&["/mnt/c/Windows/System32"])
    );
    // A cross build from Linux with no sysroot: nothing (SystemRoot, if set, is not the target's).
    assert!(search::driver_dirs(WINDOWS, None, true, Some(system_root)).is_empty());
    assert!(search::toolkit_dirs(WINDOWS, &paths(&["C:\\CUDA"]), None, false).is_empty());
    assert!(search::toolkit_target_dirs(WINDOWS).is_empty());
    assert!(!search::use_ld_cache(WINDOWS, false));
}

#[test]
fn other_targets_search_nothing() {
    let mac = Target {
        os: Os::Other,
        arch: "aarch64",
    };
    assert!(search::driver_dirs(mac, None, false, None).is_empty());
    assert!(search::toolkit_dirs(mac, &paths(&["/usr/local/cuda"]), None, false).is_empty());
}

#[test]
fn loader_cache_lines_for_the_target_architecture_only() {
    let output = "\
1234 libs found in cache `/etc/ld.so.cache'
\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1
\tlibcuda.so.1 (libc6,AArch64) => /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1
\tlibcuda.so (libc6,x86-64) => /usr/local/cuda/lib64/stubs/libcuda.so
\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so.12
";
    assert_eq!(
        search::parse_ld_cache(output, "x86_64"),
        paths(&["/usr/lib/x86_64-linux-gnu"])
    );
    assert_eq!(
        search::parse_ld_cache(output, "aarch64"),
        paths(&["/usr/lib/aarch64-linux-gnu/tegra"])
    );
}

fn elf_header(machine: u16) -> Vec<u8> {
    let mut h = vec![0u8; 64];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 2; // ELFCLASS64
    h[5] = 1; // little endian
    h[18..20].copy_from_slice(&machine.to_le_bytes());
    h
}

/// A cross build skips the build machine's x86_64 libcuda by its ELF header.
#[test]
fn elf_header_tells_the_architecture() {
    let x86 = elf_header(62);
    let arm = elf_header(183);
    assert_eq!(search::elf_machine_matches(&x86, "x86_64"), Some(true));
    assert_eq!(search::elf_machine_matches(&x86, "aarch64"), Some(false));
    assert_eq!(search::elf_machine_matches(&arm, "aarch64"), Some(true));
    assert_eq!(search::elf_machine_matches(&arm, "x86_64"), Some(false));
    // Not an ELF file (a linker script), too short, or an unknown arch: no verdict.
    assert_eq!(
        search::elf_machine_matches(b"/* GNU ld script */", "x86_64"),
        None
    );
    assert_eq!(search::elf_machine_matches(&x86[..10], "x86_64"), None);
    assert_eq!(search::elf_machine_matches(&x86, "riscv64"), None);
}

/// The library the build machine links in this very test run passes its own check.
#[test]
fn the_host_library_matches_the_host() {
    let Ok(found) = std::env::var("CUDA_DRIVER_LIB_DIR") else {
        return;
    };
    let file = Path::new(&found).join("libcuda.so.1");
    let Ok(bytes) = std::fs::read(&file) else {
        return;
    };
    assert_eq!(
        search::elf_machine_matches(&bytes[..64], std::env::consts::ARCH),
        Some(true)
    );
}
