//! The pure part of `build.rs`'s search for the CUDA driver library: which directories to look
//! in and which files to look for, as functions of the *target* (its OS and architecture, from
//! `CARGO_CFG_TARGET_OS` / `CARGO_CFG_TARGET_ARCH`), of a sysroot, and of whether the build
//! cross-compiles. Nothing here reads the environment or the file system, so the same file is
//! included by `build.rs` and by `tests/build_search.rs`, which runs these functions on the
//! host for every target.
//!
//! The one rule for cross builds: a directory of the build machine is searched only when what
//! it holds is for the target (the toolkit's `targets/<target>/lib`, the target's Debian
//! multiarch directory); every other system directory is searched inside the sysroot, if one is
//! given, and not at all otherwise. `build.rs` also reads the ELF header of the file it finds
//! ([`elf_machine_matches`]) and skips a library built for another architecture, so a cross
//! build never links the build machine's own x86_64 `libcuda`.

// Each binary that includes this file uses a different part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The target's operating system, as far as the search cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Os {
    /// Linux, including Jetson (L4T) and Grace (SBSA): `libcuda.so.1`.
    Linux,
    /// QNX Neutrino (NVIDIA DRIVE OS QNX): `libcuda.so` in `/usr/libnvidia`.
    Qnx,
    /// Windows: `nvcuda.dll` in `System32`, linked with `raw-dylib`.
    Windows,
    /// Anything else (macOS, the BSDs, wasm): no NVIDIA driver exists there; the build is the
    /// GPU-less one.
    Other,
}

impl Os {
    /// From `CARGO_CFG_TARGET_OS`.
    pub(crate) fn from_cfg(target_os: &str) -> Self {
        match target_os {
            "linux" => Self::Linux,
            "nto" => Self::Qnx,
            "windows" => Self::Windows,
            _ => Self::Other,
        }
    }
}

/// What the search is for: the target's OS and architecture (`CARGO_CFG_TARGET_ARCH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    /// The target's OS.
    pub(crate) os: Os,
    /// The target's architecture: `x86_64`, `aarch64`, `powerpc64`.
    pub(crate) arch: &'a str,
}

/// The library files that count as the driver, in order of preference.
///
/// Linux and QNX: `libcuda.so` (the development link), else `libcuda.so.1` (all a driver-only
/// install has). Windows: `nvcuda.dll`, the driver itself (linked by name with `raw-dylib`, so
/// the file only tells that the driver is installed).
pub(crate) fn library_files(os: Os) -> &'static [&'static str] {
    match os {
        Os::Linux | Os::Qnx => &["libcuda.so", "libcuda.so.1"],
        Os::Windows => &["nvcuda.dll"],
        Os::Other => &[],
    }
}

/// Whether the build cross-compiles: cargo's `HOST` and `TARGET` triples differ.
pub(crate) fn is_cross(host: &str, target: &str) -> bool {
    host != target
}

/// The CUDA toolkit's `targets/<name>` directories for the target, in search order.
///
/// x86_64 Linux: `x86_64-linux`; aarch64 Linux: `aarch64-linux` (Jetson, L4T) and
/// `sbsa-linux` (Grace and other server-class Arm); QNX: `aarch64-qnx`. Windows keeps its
/// import libraries in `lib/x64` instead: none.
pub(crate) fn toolkit_target_dirs(target: Target<'_>) -> Vec<String> {
    match (target.os, target.arch) {
        (Os::Linux, "aarch64") => vec!["aarch64-linux".to_owned(), "sbsa-linux".to_owned()],
        (Os::Linux, "powerpc64") => vec!["ppc64le-linux".to_owned()],
        (Os::Linux, arch) => vec![format!("{arch}-linux")],
        (Os::Qnx, arch) => vec![format!("{arch}-qnx")],
        (Os::Windows | Os::Other, _) => Vec::new(),
    }
}

/// The Debian multiarch triplet for a Linux target's architecture.
pub(crate) fn multiarch(arch: &str) -> String {
    match arch {
        "powerpc64" => "powerpc64le-linux-gnu".to_owned(),
        other => format!("{other}-linux-gnu"),
    }
}

/// `dir` (absolute, as on the target) inside `sysroot`, or `dir` itself without one.
pub(crate) fn in_sysroot(sysroot: Option<&Path>, dir: &str) -> PathBuf {
    match sysroot {
        Some(root) => root.join(dir.trim_start_matches('/')),
        None => PathBuf::from(dir),
    }
}

/// The toolkit roots to search: those the user named (`CUDA_PATH`, `CUDA_HOME`, ...), then the
/// default for the target (`/usr/local/cuda` on Linux and QNX, inside the sysroot when there is
/// one; none on Windows, where the installer always sets `CUDA_PATH`).
pub(crate) fn toolkit_roots(
    target: Target<'_>,
    named: &[PathBuf],
    sysroot: Option<&Path>,
) -> Vec<PathBuf> {
    let mut roots = named.to_vec();
    match target.os {
        Os::Linux | Os::Qnx => roots.push(in_sysroot(sysroot, "/usr/local/cuda")),
        Os::Windows | Os::Other => {}
    }
    if target.os == Os::Qnx {
        // DRIVE OS QNX installs its safety-certified toolkit as `cuda-safe`.
        roots.push(in_sysroot(sysroot, "/usr/local/cuda-safe"));
    }
    roots
}

/// The library directories of the toolkit roots, in search order (the stubs come separately,
/// from [`stub_dirs`]).
///
/// Native builds: `<root>/lib64`, `<root>/lib`, `<root>/targets/<t>/lib`. Cross builds: only
/// `<root>/targets/<t>/lib`, which holds the target's libraries whatever the build machine is
/// (NVIDIA's cross-compilation packages install there), unless the root lies inside the
/// sysroot, which is the target's own tree. Windows: none (the driver is not in the toolkit).
pub(crate) fn toolkit_dirs(
    target: Target<'_>,
    roots: &[PathBuf],
    sysroot: Option<&Path>,
    cross: bool,
) -> Vec<PathBuf> {
    let targets = toolkit_target_dirs(target);
    let mut dirs = Vec::new();
    if matches!(target.os, Os::Windows | Os::Other) {
        return dirs;
    }
    for root in roots {
        let targets_own = !cross || sysroot.is_some_and(|s| root.starts_with(s));
        if targets_own {
            dirs.push(root.join("lib64"));
            dirs.push(root.join("lib"));
        }
        dirs.extend(
            targets
                .iter()
                .map(|t| root.join("targets").join(t).join("lib")),
        );
    }
    dirs
}

/// The toolkit's link-only stub directories, searched last: `<root>/lib64/stubs` (native
/// builds, or a root inside the sysroot) and `<root>/targets/<t>/lib/stubs`.
pub(crate) fn stub_dirs(
    target: Target<'_>,
    roots: &[PathBuf],
    sysroot: Option<&Path>,
    cross: bool,
) -> Vec<PathBuf> {
    let targets = toolkit_target_dirs(target);
    let mut dirs = Vec::new();
    if matches!(target.os, Os::Windows | Os::Other) {
        return dirs;
    }
    for root in roots {
        if !cross || sysroot.is_some_and(|s| root.starts_with(s)) {
            dirs.push(root.join("lib64/stubs"));
        }
        dirs.extend(
            targets
                .iter()
                .map(|t| root.join("targets").join(t).join("lib/stubs")),
        );
    }
    dirs
}

/// Where the installed driver keeps its library on the target, in search order: inside the
/// sysroot when there is one; on a cross build without a sysroot only the directories that
/// hold the target architecture's libraries on the build machine (Debian's multiarch
/// directory), never the build machine's own.
///
/// - Linux: `/usr/lib/<multiarch>`, `/usr/lib64`, `/usr/lib/<multiarch>/nvidia/current`
///   (Debian's driver packages), `/usr/local/nvidia/lib64` (containers), and on aarch64 the
///   Jetson driver's `/usr/lib/aarch64-linux-gnu/tegra` (JetPack 5, L4T r35) and
///   `/usr/lib/aarch64-linux-gnu/nvidia` (JetPack 6, L4T r36); on x86_64 `/usr/lib/wsl/lib`
///   (WSL 2).
/// - QNX (DRIVE OS): `/usr/libnvidia`, then `/usr/lib` and `/lib`.
/// - Windows: `<SystemRoot>/System32` (from `SystemRoot` on a Windows build machine, else
///   `Windows/System32` inside the sysroot).
pub(crate) fn driver_dirs(
    target: Target<'_>,
    sysroot: Option<&Path>,
    cross: bool,
    system_root: Option<&Path>,
) -> Vec<PathBuf> {
    match target.os {
        Os::Linux => {
            let m = multiarch(target.arch);
            let mut dirs = vec![in_sysroot(sysroot, &format!("/usr/lib/{m}"))];
            if !cross || sysroot.is_some() {
                dirs.push(in_sysroot(sysroot, "/usr/lib64"));
            }
            dirs.push(in_sysroot(sysroot, &format!("/usr/lib/{m}/nvidia/current")));
            if target.arch == "aarch64" {
                dirs.push(in_sysroot(sysroot, "/usr/lib/aarch64-linux-gnu/tegra"));
                dirs.push(in_sysroot(sysroot, "/usr/lib/aarch64-linux-gnu/nvidia"));
            }
            if !cross || sysroot.is_some() {
                dirs.push(in_sysroot(sysroot, "/usr/local/nvidia/lib64"));
                if target.arch == "x86_64" {
                    dirs.push(in_sysroot(sysroot, "/usr/lib/wsl/lib"));
                }
            }
            dirs
        }
        Os::Qnx => {
            if cross && sysroot.is_none() {
                return Vec::new();
            }
            ["/usr/libnvidia", "/usr/lib", "/lib"]
                .iter()
                .map(|d| in_sysroot(sysroot, d))
                .collect()
        }
        Os::Windows => match (sysroot, system_root) {
            (Some(root), _) => vec![root.join("Windows").join("System32")],
            (None, Some(system)) if !cross => vec![system.join("System32")],
            _ => Vec::new(),
        },
        Os::Other => Vec::new(),
    }
}

/// Whether the loader cache (`ldconfig -p`) describes the target: only on a native Linux build.
pub(crate) fn use_ld_cache(target: Target<'_>, cross: bool) -> bool {
    target.os == Os::Linux && !cross
}

/// The directories of `libcuda.so.1` / `libcuda.so` in `ldconfig -p` output, for the target's
/// architecture, stubs left out. Lines read
/// `\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1`.
pub(crate) fn parse_ld_cache(output: &str, arch: &str) -> Vec<PathBuf> {
    parse_ld_cache_of(output, arch, &["libcuda.so", "libcuda.so.1"])
}

/// As [`parse_ld_cache`], for the library files `names` (NVML's `libnvidia-ml.so.1`, which the
/// driver installs beside libcuda).
pub(crate) fn parse_ld_cache_of(output: &str, arch: &str, names: &[&str]) -> Vec<PathBuf> {
    let tag = match arch {
        "x86_64" => "x86-64",
        "aarch64" => "AArch64",
        _ => "",
    };
    output
        .lines()
        .filter_map(|line| {
            let (lib, path) = line.trim().split_once(" => ")?;
            let (name, flags) = lib.split_once(' ')?;
            let wanted = names.contains(&name) && flags.contains(tag) && !path.contains("/stubs");
            if !wanted {
                return None;
            }
            Path::new(path).parent().map(Path::to_path_buf)
        })
        .collect()
}

/// Whether an ELF file's header (its first 20 bytes or more) is for the target architecture:
/// `Some(false)` for another one (the build machine's x86_64 `libcuda` in a cross build),
/// `None` when `header` is not a 64-bit little-endian ELF header (a linker script, a text
/// stub) or the architecture is one this table does not know: the linker decides then.
pub(crate) fn elf_machine_matches(header: &[u8], arch: &str) -> Option<bool> {
    const EM_PPC64: u16 = 21;
    const EM_X86_64: u16 = 62;
    const EM_AARCH64: u16 = 183;
    if header.len() < 20 || &header[..4] != b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return None;
    }
    let machine = u16::from_le_bytes([header[18], header[19]]);
    let wanted = match arch {
        "x86_64" => EM_X86_64,
        "aarch64" => EM_AARCH64,
        "powerpc64" => EM_PPC64,
        _ => return None,
    };
    Some(machine == wanted)
}
