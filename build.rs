//! Finds the CUDA driver library for the *target* (`CARGO_CFG_TARGET_OS`,
//! `CARGO_CFG_TARGET_ARCH`, never the build machine's) and links it; nothing is loaded at run
//! time (no `dlopen`, no `LoadLibrary`). Which directories are searched, per target OS and
//! architecture and with or without a sysroot, is decided by the pure functions of
//! `build/search.rs`, which `tests/build_search.rs` tests on the host.
//!
//! **Linux** (x86_64, aarch64: Jetson and Grace) and **QNX** (DRIVE OS): the first directory
//! holding `libcuda.so` (preferred) or `libcuda.so.1` for the target's architecture wins:
//! 1. `CUDA_DRIVER_LIB_DIR`: the directory holding libcuda. If it holds neither file (or one
//!    for another architecture), the build fails: the only hard error.
//! 2. `CUDA_LIBRARY_PATH`: a directory, or a `:`-separated list of directories.
//! 3. The toolkit roots `CUDA_PATH`, `CUDA_HOME`, `CUDA_ROOT`, `CUDA_TOOLKIT_ROOT_DIR`, then
//!    `/usr/local/cuda` (QNX: also `/usr/local/cuda-safe`), each with `lib64`, `lib` and
//!    `targets/<t>/lib`: `x86_64-linux`; `aarch64-linux` and `sbsa-linux` on aarch64;
//!    `aarch64-qnx` on QNX.
//! 4. Distro and driver directories: `/usr/lib/<multiarch>`, `/usr/lib64`,
//!    `/usr/lib/<multiarch>/nvidia/current`, on aarch64 the Jetson driver's
//!    `/usr/lib/aarch64-linux-gnu/tegra` (JetPack 5) and `/usr/lib/aarch64-linux-gnu/nvidia`
//!    (JetPack 6), `/usr/local/nvidia/lib64`, `/usr/lib/wsl/lib` (x86_64); QNX:
//!    `/usr/libnvidia`, `/usr/lib`, `/lib`.
//! 5. The loader cache, `ldconfig -p` (native Linux builds only; skipped if it is missing).
//! 6. Last, the toolkit stubs: `<root>/lib64/stubs`, `<root>/targets/<t>/lib/stubs`.
//!    A stub is link-time only, so the build warns; no rpath is ever emitted.
//!
//! Cross builds (cargo's `HOST` differs from `TARGET`): with `CUSTACK_SYSROOT` naming the
//! target's root file system (a Jetson's rootfs, a DRIVE OS target tree), steps 3 to 4 search
//! inside it. Without one, only the build machine's directories that hold the *target's*
//! libraries are searched (the toolkit's `targets/<t>/lib`, Debian's multiarch directory),
//! never the loader cache; and a library whose ELF header names another architecture is
//! skipped wherever it is found, so the build machine's own x86_64 libcuda is never linked.
//!
//! `libcuda.so` is linked as `-l cuda`; a driver-only install with just `libcuda.so.1` is
//! linked by that exact file name (`+verbatim`).
//!
//! **Windows** (x86_64, MSVC and GNU): the driver is `nvcuda.dll`, which the raw layer names
//! with `#[link(name = "nvcuda", kind = "raw-dylib")]` under `cfg(custack_nvcuda_raw_dylib)`:
//! rustc writes the import library itself, so neither the CUDA toolkit nor the DLL is needed
//! at build time. That cfg is set when the driver is found: `nvcuda.dll` in
//! `CUDA_DRIVER_LIB_DIR`, in `%SystemRoot%\System32` (native builds) or in
//! `<CUSTACK_SYSROOT>/Windows/System32`; or, with a warning, when only the toolkit is
//! (`<CUDA_PATH>/lib/x64/cuda.lib`: the driver must then be installed where the program runs).
//! `CUSTACK_REQUIRE_LIBCUDA=1` sets it regardless (a cross build for a Windows machine with a
//! GPU: nothing needs finding).
//!
//! The linked file's path is exported to the crate as `CUSTACK_LIBCUDA_FOUND` (empty when none
//! was found). When nothing is found, on any target, the build only warns, emits no link flags
//! and sets `cfg(custack_no_libcuda)`: the raw layer then defines every entry point to return
//! `CUDA_ERROR_NO_DEVICE`, so tests, examples and programs still link, and say at run time that
//! there is no GPU (with what to do) instead of failing to link or to start. Set
//! `CUSTACK_REQUIRE_LIBCUDA=1` to make a missing libcuda a build error instead (for builds that
//! are meant to run on a GPU).
//!
//! With the cargo feature `nvrtc` (and only then) it also finds and links NVRTC, the run-time
//! CUDA C++ compiler, into the crate, with `cublas` cuBLAS, with `nccl` NCCL, with `cufft`
//! cuFFT, with `curand` cuRAND, with `cublaslt` cuBLASLt, with `cusparse` cuSPARSE, with `cudnn`
//! cuDNN and with `cusolver` cuSOLVER: see
//! [`feature_libraries`]. Without the feature nothing about its library is searched, printed or
//! linked, and `python3` (which finds the Python wheels) never runs: a crate that depends on
//! custack without them searches for libcuda and nothing else.
//!
//! With the cargo feature `nvml` it also finds and links NVML, the driver's `libnvidia-ml.so.1`,
//! searched as libcuda is (it is a driver library, not a toolkit one): see [`nvml_library`].
//!
//! Under docs.rs (`DOCS_RS` set) nothing is searched or linked and `cfg(custack_no_libcuda)` is
//! set, silently: the API and its docs are the same in every build.
//!
//! Under Miri (`cargo miri`, which sets `cfg(miri)` for the target, seen here as `CARGO_CFG_MIRI`)
//! nothing is searched or linked, and `cfg(custack_no_libcuda)` is not set: Miri cannot call a
//! native libcuda, and the tests it runs get the driver's entry points from the do-nothing driver
//! of `checkdriver`, linked as an rlib (`scripts/miri.sh`).

#[path = "build/search.rs"]
mod search;

#[path = "build/install.rs"]
mod install;

use search::{Os, Target};
use std::env;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOOLKIT_ROOTS: [&str; 4] = [
    "CUDA_PATH",
    "CUDA_HOME",
    "CUDA_ROOT",
    "CUDA_TOOLKIT_ROOT_DIR",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/search.rs");
    println!("cargo:rustc-check-cfg=cfg(custack_no_libcuda)");
    println!("cargo:rustc-check-cfg=cfg(custack_nvcuda_raw_dylib)");
    for lib in &FEATURE_LIBRARIES {
        println!("cargo:rustc-check-cfg=cfg({})", lib.missing_cfg);
    }
    // `custack_libraries`: any CUDA library's feature is on (what the libraries share, such as
    // their status type's kind, is then used). Set before any early return: it depends on the
    // features only.
    println!("cargo:rustc-check-cfg=cfg(custack_libraries)");
    println!("cargo:rustc-check-cfg=cfg(custack_no_nvml)");
    // `loom`: set by scripts/loom.sh (`RUSTFLAGS="--cfg loom"`) for the model tests of the
    // process-wide states (src/error/atomics.rs); never by this script.
    println!("cargo:rustc-check-cfg=cfg(loom)");
    if [
        "NVRTC", "CUBLAS", "CUBLASLT", "NCCL", "CUFFT", "CURAND", "CUSPARSE", "CUDNN", "CUSOLVER",
    ]
    .iter()
    .any(|f| env::var_os(format!("CARGO_FEATURE_{f}")).is_some())
    {
        println!("cargo:rustc-cfg=custack_libraries");
    }
    let nvml = env::var_os("CARGO_FEATURE_NVML").is_some();
    if env::var_os("CARGO_CFG_MIRI").is_some() {
        println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
        if nvml {
            nvml_missing("nothing: Miri runs no native library");
        }
        return;
    }
    // docs.rs sets DOCS_RS and builds documentation only: nothing is linked, and its sandbox has
    // no driver. Build as where none is found, without searching or warning, so the docs are the
    // same whatever the builder has installed (`scripts/test.sh` builds them this way).
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    if env::var_os("DOCS_RS").is_some() {
        println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
        println!("cargo:rustc-cfg=custack_no_libcuda");
        if nvml {
            nvml_missing("nothing: docs.rs builds documentation only");
        }
        return;
    }
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target = Target {
        os: Os::from_cfg(&os),
        arch: &arch,
    };
    let cross = search::is_cross(
        &env::var("HOST").unwrap_or_default(),
        &env::var("TARGET").unwrap_or_default(),
    );
    let sysroot = var("CUSTACK_SYSROOT").map(PathBuf::from);
    let sysroot = sysroot.as_deref();
    let roots: Vec<PathBuf> = TOOLKIT_ROOTS
        .iter()
        .filter_map(|name| var(name))
        .map(PathBuf::from)
        .collect();

    match target.os {
        Os::Windows => windows(target, &roots, sysroot, cross),
        Os::Linux | Os::Qnx | Os::Other => unix(target, &roots, sysroot, cross),
    }
    // After libcuda, so that its search path comes first: `-l cuda` never finds a libcuda
    // that happens to lie beside a library of a feature.
    feature_libraries(target.os, &arch, cross);
    if nvml {
        nvml_library(target, &roots, sysroot, cross);
    }
}

/// Linux and QNX (and, finding nothing, every other OS): `libcuda.so` / `libcuda.so.1`.
fn unix(target: Target<'_>, roots: &[PathBuf], sysroot: Option<&Path>, cross: bool) {
    if let Some(dir) = var("CUDA_DRIVER_LIB_DIR") {
        match probe(Path::new(&dir), target) {
            Some(file) => return link(&file),
            None => explicit_setting_is_wrong(&dir, target),
        }
    }
    let roots = search::toolkit_roots(target, roots, sysroot);
    let mut dirs: Vec<PathBuf> = var("CUDA_LIBRARY_PATH")
        .map(|list| env::split_paths(&list).collect())
        .unwrap_or_default();
    dirs.extend(search::toolkit_dirs(target, &roots, sysroot, cross));
    dirs.extend(search::driver_dirs(target, sysroot, cross, None));
    if search::use_ld_cache(target, cross) {
        dirs.extend(ld_cache_dirs(target.arch));
    }
    if let Some(file) = dirs.iter().find_map(|d| probe(d, target)) {
        return link(&file);
    }

    let stubs = search::stub_dirs(target, &roots, sysroot, cross);
    if let Some(file) = stubs.iter().find_map(|d| probe(d, target)) {
        println!(
            "cargo:warning=linking the CUDA toolkit stub {}: it is link-time only; at run time \
             the real driver's libcuda.so.1 must be on the loader path (install the NVIDIA \
             driver, or add its directory to LD_LIBRARY_PATH)",
            file.display()
        );
        return link(&file);
    }

    not_found(target, &dirs, &stubs);
}

/// Windows: `nvcuda.dll`, linked by name with `raw-dylib` when the driver (or, with a warning,
/// the toolkit) is found, or when `CUSTACK_REQUIRE_LIBCUDA` asks for it.
fn windows(target: Target<'_>, roots: &[PathBuf], sysroot: Option<&Path>, cross: bool) {
    if let Some(dir) = var("CUDA_DRIVER_LIB_DIR") {
        match probe(Path::new(&dir), target) {
            Some(file) => return raw_dylib(&file.display().to_string()),
            None => explicit_setting_is_wrong(&dir, target),
        }
    }
    let system_root = var("SystemRoot").map(PathBuf::from);
    let dirs = search::driver_dirs(target, sysroot, cross, system_root.as_deref());
    if let Some(file) = dirs.iter().find_map(|d| probe(d, target)) {
        return raw_dylib(&file.display().to_string());
    }
    if require_libcuda() {
        return raw_dylib("nvcuda.dll");
    }
    let import_libs: Vec<PathBuf> = roots.iter().map(|r| r.join("lib").join("x64")).collect();
    if let Some(lib) = import_libs
        .iter()
        .map(|d| d.join("cuda.lib"))
        .find(|f| f.is_file())
    {
        println!(
            "cargo:warning=no nvcuda.dll (the NVIDIA driver) found, but the CUDA toolkit is \
             ({}): linking nvcuda.dll by name; the program needs the NVIDIA driver installed \
             where it runs",
            lib.display()
        );
        return raw_dylib("nvcuda.dll");
    }
    not_found(target, &dirs, &import_libs);
}

/// Reads an environment variable and tells cargo to rerun when it changes.
fn var(name: &str) -> Option<String> {
    println!("cargo:rerun-if-env-changed={name}");
    env::var(name).ok().filter(|v| !v.is_empty())
}

fn require_libcuda() -> bool {
    var("CUSTACK_REQUIRE_LIBCUDA").is_some_and(|v| v != "0")
}

/// The driver's library file in `dir` for the target, in the order of
/// [`search::library_files`], skipping a file built for another architecture.
fn probe(dir: &Path, target: Target<'_>) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    search::library_files(target.os)
        .iter()
        .map(|name| dir.join(name))
        .find(|file| file.is_file() && elf_machine_matches(file, target.arch) != Some(false))
}

/// [`search::elf_machine_matches`] on the file's first bytes (`None` if it cannot be read).
fn elf_machine_matches(file: &Path, arch: &str) -> Option<bool> {
    let mut header = [0u8; 20];
    std::fs::File::open(file)
        .and_then(|mut f| f.read_exact(&mut header))
        .ok()?;
    search::elf_machine_matches(&header, arch)
}

fn link(file: &Path) {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return;
    };
    println!("cargo:rustc-link-search=native={}", dir.display());
    if name == "libcuda.so" {
        println!("cargo:rustc-link-lib=dylib=cuda");
    } else {
        println!(
            "cargo:rustc-link-lib=dylib:+verbatim={}",
            name.to_string_lossy()
        );
    }
    println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND={}", file.display());
}

/// Windows: the raw layer names `nvcuda.dll` itself (`raw-dylib`); `found` is what was found.
fn raw_dylib(found: &str) {
    println!("cargo:rustc-cfg=custack_nvcuda_raw_dylib");
    println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND={found}");
}

/// Directories of libcuda in the loader cache, for the target's architecture.
fn ld_cache_dirs(arch: &str) -> Vec<PathBuf> {
    let output = ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
        .iter()
        .find_map(|exe| Command::new(exe).arg("-p").output().ok())
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    search::parse_ld_cache(&output, arch)
}

#[allow(
    clippy::panic,
    reason = "the one hard error: an explicit setting that is wrong"
)]
fn explicit_setting_is_wrong(dir: &str, target: Target<'_>) -> ! {
    let files = search::library_files(target.os);
    let listed: Vec<String> = files.iter().map(|f| format!("`{f}`")).collect();
    let state = if !Path::new(dir).is_dir() {
        "does not exist, so holds none of".to_owned()
    } else if files.iter().any(|f| Path::new(dir).join(f).is_file()) {
        format!(
            "holds only a library for another architecture than the target's ({}) of",
            target.arch
        )
    } else {
        "holds none of".to_owned()
    };
    let example = if target.os == Os::Windows {
        "for example C:\\Windows\\System32"
    } else {
        "for example the directory `ldconfig -p | grep libcuda` shows"
    };
    panic!(
        "CUDA_DRIVER_LIB_DIR is set to `{dir}`, but that directory {state} {}. Set \
         CUDA_DRIVER_LIB_DIR to the directory that holds the NVIDIA driver's library for the \
         target ({example}), or unset it to let the build search the usual places.",
        listed.join(", ")
    )
}

fn not_found(target: Target<'_>, dirs: &[PathBuf], more: &[PathBuf]) {
    let mut searched: Vec<String> = dirs
        .iter()
        .chain(more)
        .map(|d| d.display().to_string())
        .collect();
    if searched.is_empty() {
        searched.push(
            "none on the build machine for this target (a cross build: set CUSTACK_SYSROOT to \
             the target's root file system)"
                .to_owned(),
        );
    }
    let (file, searched) = if target.os == Os::Windows {
        (
            "nvcuda.dll",
            format!(
                "searched: CUDA_DRIVER_LIB_DIR (unset), System32, the toolkit's lib/x64/cuda.lib \
                 under CUDA_PATH, CUDA_HOME, CUDA_ROOT and CUDA_TOOLKIT_ROOT_DIR; directories: {}",
                searched.join(", ")
            ),
        )
    } else {
        (
            "libcuda.so.1",
            format!(
                "searched: CUDA_DRIVER_LIB_DIR (unset), CUDA_LIBRARY_PATH, CUSTACK_SYSROOT, the \
                 toolkit roots CUDA_PATH, CUDA_HOME, CUDA_ROOT, CUDA_TOOLKIT_ROOT_DIR and \
                 /usr/local/cuda, the loader cache (ldconfig -p, native Linux builds); \
                 directories: {}",
                searched.join(", ")
            ),
        )
    };
    if require_libcuda() {
        required_but_missing(file, &searched);
    }
    // Look again when a driver is installed later: ldconfig rewrites its cache, and installing
    // a library changes the directory it lands in (only existing paths: cargo would rerun the
    // script on every build for a missing one).
    for path in dirs
        .iter()
        .chain(more)
        .map(PathBuf::as_path)
        .chain([Path::new("/etc/ld.so.cache")])
        .filter(|p| p.exists())
    {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
    println!("cargo:rustc-cfg=custack_no_libcuda");
    // Two lines: what happened and what to do, then the directories searched, which can be
    // long, on a line of their own.
    println!(
        "cargo:warning=custack: no {file} (the NVIDIA driver library) found for the target, so \
         this build has no GPU access: every driver call returns CUDA_ERROR_NO_DEVICE. Install \
         the NVIDIA driver or set CUDA_DRIVER_LIB_DIR to the directory holding {file}."
    );
    println!("cargo:warning=custack: {searched}");
}

#[allow(
    clippy::panic,
    reason = "CUSTACK_REQUIRE_LIBCUDA asks for a hard error"
)]
fn required_but_missing(file: &str, searched: &str) -> ! {
    panic!(
        "CUSTACK_REQUIRE_LIBCUDA is set, but no {file} (the NVIDIA driver library) was found; \
         {searched}. Install the NVIDIA driver, or set CUDA_DRIVER_LIB_DIR to the directory \
         holding {file}."
    )
}

// -------------------------------------------------------------------------------------------
// Where a CUDA library is searched for (the cargo features `nvrtc`, `cublas`, `nccl`, below).
// -------------------------------------------------------------------------------------------

/// How a CUDA library is found.
struct Interop {
    /// The explicit setting: the directory holding the library.
    env: &'static str,
    /// Set for the crate's targets to the linked file's path when found (the examples print
    /// it, so their user knows which directory the loader needs).
    found_env: &'static str,
    /// File names in order of preference: the unversioned development link, then the
    /// versioned names that runtime-only installs (and the Python wheels) ship.
    files: &'static [&'static str],
    /// Directories under a Python `site-packages` where NVIDIA's wheels put the library.
    wheel_dirs: &'static [&'static str],
}

/// The library's file: in its explicit directory, else the usual directories, else the Python
/// wheels (`site_packages` is probed once, on first need, and shared between libraries).
fn find_interop(
    lib: &Interop,
    arch: &str,
    site_packages: &mut Option<Vec<PathBuf>>,
) -> Option<PathBuf> {
    if let Some(dir) = var(lib.env) {
        return match probe_files(Path::new(&dir), lib.files) {
            Some(file) => Some(file),
            None => interop_setting_is_wrong(lib, &dir),
        };
    }
    if let Some(file) = interop_dirs(arch)
        .iter()
        .find_map(|d| probe_files(d, lib.files))
    {
        return Some(file);
    }
    let sites = site_packages.get_or_insert_with(python_site_packages);
    sites
        .iter()
        .flat_map(|site| lib.wheel_dirs.iter().map(move |w| site.join(w)))
        .find_map(|d| probe_files(&d, lib.files))
}

/// The first of `files` in `dir`.
fn probe_files(dir: &Path, files: &[&str]) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    files
        .iter()
        .map(|name| dir.join(name))
        .find(|file| file.is_file())
}

/// Toolkit and distro directories where cuBLAS and NCCL are installed.
fn interop_dirs(arch: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = var("CUDA_LIBRARY_PATH")
        .map(|list| env::split_paths(&list).collect())
        .unwrap_or_default();
    let roots = TOOLKIT_ROOTS
        .iter()
        .filter_map(|name| var(name))
        .chain(["/usr/local/cuda".to_owned()])
        .map(PathBuf::from);
    for root in roots {
        dirs.push(root.join("lib64"));
        dirs.push(root.join("lib"));
        dirs.extend(
            search::toolkit_target_dirs(search::Target {
                os: search::Os::Linux,
                arch,
            })
            .iter()
            .map(|t| root.join("targets").join(t).join("lib")),
        );
    }
    if let Some(conda) = var("CONDA_PREFIX") {
        dirs.push(PathBuf::from(conda).join("lib"));
    }
    dirs.push(PathBuf::from(format!(
        "/usr/lib/{}",
        search::multiarch(arch)
    )));
    dirs.push(PathBuf::from("/usr/lib64"));
    dirs
}

/// The `site-packages` directories of `python3` on `PATH` (a virtual environment's when one is
/// active), or none if there is no `python3`.
fn python_site_packages() -> Vec<PathBuf> {
    println!("cargo:rerun-if-env-changed=VIRTUAL_ENV");
    let script = "import site\n\
                  dirs = site.getsitepackages()\n\
                  dirs.append(site.getusersitepackages())\n\
                  print('\\n'.join(dirs))";
    Command::new("python3")
        .args(["-c", script])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| !l.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default()
}

#[allow(
    clippy::panic,
    reason = "an explicit setting that is wrong is a hard error, as for CUDA_DRIVER_LIB_DIR"
)]
fn interop_setting_is_wrong(lib: &Interop, dir: &str) -> ! {
    panic!(
        "{} is set to `{dir}`, but that directory holds none of {}. Set it to the directory holding the library, for a Python wheel \
         `<site-packages>/{}`, or unset it.",
        lib.env,
        lib.files.join(", "),
        lib.wheel_dirs
            .first()
            .copied()
            .unwrap_or("nvidia/<name>/lib"),
    )
}

// -------------------------------------------------------------------------------------------
// Libraries a cargo feature links into the crate: NVRTC (`nvrtc`)
// -------------------------------------------------------------------------------------------

/// A CUDA library that custack itself links when its cargo feature is on.
struct FeatureLibrary {
    /// What the one-line warning calls it.
    name: &'static str,
    /// The variable cargo sets for the build script when the feature is on.
    feature: &'static str,
    /// Set when the feature is on but the library was not found: the raw layer's entry points
    /// of the library then return an error status, and the safe layer says what to install.
    missing_cfg: &'static str,
    /// The explicit setting, the library file's name, its Python wheel and where the wheels
    /// put it: as for the example-only libraries ([`Interop`]).
    lib: Interop,
    /// How to install it (`build/install.rs`, the sentence the crate's `LibraryNotLinked`
    /// error says too).
    install: &'static str,
}

const FEATURE_LIBRARIES: [FeatureLibrary; 9] = [
    FeatureLibrary {
        name: "NVRTC",
        feature: "CARGO_FEATURE_NVRTC",
        missing_cfg: "custack_no_nvrtc",
        lib: Interop {
            env: "CUSTACK_NVRTC_LIB_DIR",
            found_env: "CUSTACK_NVRTC_FOUND",
            files: &["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"],
            // `nvidia-cuda-nvrtc` 13.x ships `nvidia/cu13/lib`; the CUDA 12 wheel
            // (`nvidia-cuda-nvrtc-cu12`) `nvidia/cuda_nvrtc/lib`.
            wheel_dirs: &["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"],
        },
        install: install::NVRTC,
    },
    FeatureLibrary {
        name: "cuBLAS",
        feature: "CARGO_FEATURE_CUBLAS",
        missing_cfg: "custack_no_cublas",
        lib: Interop {
            env: "CUSTACK_CUBLAS_LIB_DIR",
            found_env: "CUSTACK_CUBLAS_FOUND",
            files: &["libcublas.so", "libcublas.so.13", "libcublas.so.12"],
            // `nvidia-cublas` 13.x ships `nvidia/cu13/lib`; the CUDA 12 wheel
            // (`nvidia-cublas-cu12`) `nvidia/cublas/lib`.
            wheel_dirs: &["nvidia/cu13/lib", "nvidia/cublas/lib"],
        },
        install: install::CUBLAS,
    },
    FeatureLibrary {
        name: "NCCL",
        feature: "CARGO_FEATURE_NCCL",
        missing_cfg: "custack_no_nccl",
        lib: Interop {
            env: "CUSTACK_NCCL_LIB_DIR",
            found_env: "CUSTACK_NCCL_FOUND",
            files: &["libnccl.so", "libnccl.so.2"],
            // `nvidia-nccl-cu13` and `nvidia-nccl-cu12` ship `nvidia/nccl/lib`.
            wheel_dirs: &["nvidia/nccl/lib", "nvidia/cu13/lib"],
        },
        install: install::NCCL,
    },
    FeatureLibrary {
        name: "cuFFT",
        feature: "CARGO_FEATURE_CUFFT",
        missing_cfg: "custack_no_cufft",
        lib: Interop {
            env: "CUSTACK_CUFFT_LIB_DIR",
            found_env: "CUSTACK_CUFFT_FOUND",
            files: &["libcufft.so", "libcufft.so.12", "libcufft.so.11"],
            // `nvidia-cufft` 12.x (CUDA 13) ships `nvidia/cu13/lib`; the CUDA 12 wheel
            // (`nvidia-cufft-cu12`, cuFFT 11.x) `nvidia/cufft/lib`.
            wheel_dirs: &["nvidia/cu13/lib", "nvidia/cufft/lib"],
        },
        install: install::CUFFT,
    },
    FeatureLibrary {
        name: "cuRAND",
        feature: "CARGO_FEATURE_CURAND",
        missing_cfg: "custack_no_curand",
        lib: Interop {
            env: "CUSTACK_CURAND_LIB_DIR",
            found_env: "CUSTACK_CURAND_FOUND",
            files: &["libcurand.so", "libcurand.so.10"],
            // `nvidia-curand` 10.4 (CUDA 13) ships `nvidia/cu13/lib`; the CUDA 12 wheel
            // (`nvidia-curand-cu12`) `nvidia/curand/lib`.
            wheel_dirs: &["nvidia/cu13/lib", "nvidia/curand/lib"],
        },
        install: install::CURAND,
    },
    FeatureLibrary {
        name: "cuBLASLt",
        feature: "CARGO_FEATURE_CUBLASLT",
        missing_cfg: "custack_no_cublaslt",
        lib: Interop {
            env: "CUSTACK_CUBLASLT_LIB_DIR",
            found_env: "CUSTACK_CUBLASLT_FOUND",
            files: &["libcublasLt.so", "libcublasLt.so.13", "libcublasLt.so.12"],
            // cuBLAS's wheels ship it beside libcublas: `nvidia/cu13/lib` (`nvidia-cublas`
            // 13.x), `nvidia/cublas/lib` (`nvidia-cublas-cu12`).
            wheel_dirs: &["nvidia/cu13/lib", "nvidia/cublas/lib"],
        },
        install: install::CUBLASLT,
    },
    FeatureLibrary {
        name: "cuSPARSE",
        feature: "CARGO_FEATURE_CUSPARSE",
        missing_cfg: "custack_no_cusparse",
        lib: Interop {
            env: "CUSTACK_CUSPARSE_LIB_DIR",
            found_env: "CUSTACK_CUSPARSE_FOUND",
            // cuSPARSE 12.x is `.so.12` in both generations (it needs libnvJitLink at run time).
            files: &["libcusparse.so", "libcusparse.so.12"],
            // `nvidia-cusparse` 12.6 (CUDA 13) ships `nvidia/cu13/lib`; the CUDA 12 wheel
            // (`nvidia-cusparse-cu12`) `nvidia/cusparse/lib`.
            wheel_dirs: &["nvidia/cu13/lib", "nvidia/cusparse/lib"],
        },
        install: install::CUSPARSE,
    },
    FeatureLibrary {
        name: "cuDNN",
        feature: "CARGO_FEATURE_CUDNN",
        missing_cfg: "custack_no_cudnn",
        lib: Interop {
            env: "CUSTACK_CUDNN_LIB_DIR",
            found_env: "CUSTACK_CUDNN_FOUND",
            // cuDNN 9 only, by its versioned name (a `libcudnn.so` may be cuDNN 8's):
            // `libcudnn.so.9` is the shim that loads its sub-libraries (`libcudnn_graph`,
            // `_ops`, `_cnn`, `_engines_*`) from its own directory.
            files: &["libcudnn.so.9"],
            // `nvidia-cudnn-cu13` and `nvidia-cudnn-cu12` both ship `nvidia/cudnn/lib`.
            wheel_dirs: &["nvidia/cudnn/lib"],
        },
        install: install::CUDNN,
    },
    FeatureLibrary {
        name: "cuSOLVER",
        feature: "CARGO_FEATURE_CUSOLVER",
        missing_cfg: "custack_no_cusolver",
        lib: Interop {
            env: "CUSTACK_CUSOLVER_LIB_DIR",
            found_env: "CUSTACK_CUSOLVER_FOUND",
            files: &["libcusolver.so", "libcusolver.so.12", "libcusolver.so.11"],
            // `nvidia-cusolver` 12.x (CUDA 13) ships `nvidia/cu13/lib`; the CUDA 12 wheel
            // (`nvidia-cusolver-cu12`, cuSOLVER 11.x) `nvidia/cusolver/lib`.
            wheel_dirs: &["nvidia/cu13/lib", "nvidia/cusolver/lib"],
        },
        install: install::CUSOLVER,
    },
];

/// Finds and links the libraries whose features are on (only on Linux targets), in the order of
/// [`find_interop`]: the explicit directory (a wrong one fails the build), the toolkit roots,
/// `$CONDA_PREFIX/lib`, the distro directories, then the `nvidia/*/lib` directories of the
/// Python wheels (`python3` runs only then, and only with a feature on).
///
/// Found: `rustc-link-search` of its directory and `rustc-link-lib` of the file (`-l nvrtc`
/// for the development link, the versioned file by its exact name, as for libcuda), its path as
/// `CUSTACK_NVRTC_FOUND`. Not found (or not Linux): one `cargo:warning` naming what to install
/// or set, and `cfg(custack_no_nvrtc)`, so the crate still builds; its calls then return an error
/// that says the same. No rpath: at run time the loader must find the library.
fn feature_libraries(os: Os, arch: &str, cross: bool) {
    let mut site_packages: Option<Vec<PathBuf>> = None;
    for lib in &FEATURE_LIBRARIES {
        if env::var_os(lib.feature).is_none() {
            continue;
        }
        // A cross build takes no library of the build machine's Python, and none built for
        // another architecture than the target's.
        let found = if os == Os::Linux {
            if cross {
                site_packages.get_or_insert_with(Vec::new);
            }
            find_interop(&lib.lib, arch, &mut site_packages)
                .filter(|f| elf_machine_matches(f, arch) != Some(false))
        } else {
            None
        };
        let Some((dir, name)) = found
            .as_deref()
            .and_then(|f| Some((f.parent()?, f.file_name()?.to_string_lossy().into_owned())))
        else {
            println!("cargo:rustc-cfg={}", lib.missing_cfg);
            println!("cargo:rustc-env={}=", lib.lib.found_env);
            // Look again when the library is installed later: into one of the directories
            // searched, or a wheel into one of the site-packages (only existing paths: cargo
            // would rerun the script on every build for a missing one).
            let sites = site_packages.clone().unwrap_or_default();
            for path in interop_dirs(arch)
                .iter()
                .chain(&sites)
                .filter(|p| p.exists())
            {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            let what = if os == Os::Linux {
                format!(
                    "install {}, or set {} to the directory holding {}",
                    lib.install,
                    lib.lib.env,
                    lib.lib.files.join(" or ")
                )
            } else {
                "custack links it on Linux targets only".to_owned()
            };
            println!(
                "cargo:warning=custack: feature `{}` is on but no {} library was found, so its \
                 calls return an error: {what}",
                lib.feature
                    .trim_start_matches("CARGO_FEATURE_")
                    .to_ascii_lowercase(),
                lib.name
            );
            continue;
        };
        println!("cargo:rustc-link-search=native={}", dir.display());
        if let Some(stem) = name.strip_prefix("lib").and_then(|n| n.strip_suffix(".so")) {
            println!("cargo:rustc-link-lib=dylib={stem}");
        } else {
            println!("cargo:rustc-link-lib=dylib:+verbatim={name}");
        }
        println!(
            "cargo:rustc-env={}={}",
            lib.lib.found_env,
            dir.join(&name).display()
        );
    }
}

// -------------------------------------------------------------------------------------------
// NVML (`nvml`): the driver's libnvidia-ml, searched as libcuda is.
// -------------------------------------------------------------------------------------------

/// NVML's files, in order of preference: the development link, then what the driver installs.
const NVML_FILES: [&str; 2] = ["libnvidia-ml.so", "libnvidia-ml.so.1"];

/// Finds and links NVML (feature `nvml`, Linux targets): `CUSTACK_NVML_LIB_DIR` (a directory
/// without it fails the build), then `CUDA_LIBRARY_PATH`, the driver's directories of
/// [`search::driver_dirs`] (inside `CUSTACK_SYSROOT` when set), the loader cache (native builds),
/// and last the toolkit's link-only stubs (`<root>/lib64/stubs`, `<root>/targets/<t>/lib/stubs`,
/// with a warning: the driver's library must be on the loader path at run time). Linked as
/// `-l nvidia-ml`, or `libnvidia-ml.so.1` by its exact name; never `dlopen`ed; no rpath.
/// Found: its path as `CUSTACK_NVML_FOUND`. Not found: one `cargo:warning`,
/// `cfg(custack_no_nvml)` and `CUSTACK_NVML_SEARCHED` naming what was searched, which the
/// crate's not-linked error repeats.
fn nvml_library(target: Target<'_>, roots: &[PathBuf], sysroot: Option<&Path>, cross: bool) {
    let probe_nvml = |dir: &Path| {
        probe_files(dir, &NVML_FILES).filter(|f| elf_machine_matches(f, target.arch) != Some(false))
    };
    if let Some(dir) = var("CUSTACK_NVML_LIB_DIR") {
        match probe_nvml(Path::new(&dir)) {
            Some(file) => return link_nvml(&file),
            None => nvml_setting_is_wrong(&dir),
        }
    }
    if target.os != Os::Linux {
        return nvml_missing("nothing: custack links NVML on Linux targets only");
    }
    let mut dirs: Vec<PathBuf> = var("CUDA_LIBRARY_PATH")
        .map(|list| env::split_paths(&list).collect())
        .unwrap_or_default();
    dirs.extend(search::driver_dirs(target, sysroot, cross, None));
    if search::use_ld_cache(target, cross) {
        let output = ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
            .iter()
            .find_map(|exe| Command::new(exe).arg("-p").output().ok())
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
            .unwrap_or_default();
        dirs.extend(search::parse_ld_cache_of(&output, target.arch, &NVML_FILES));
    }
    if let Some(file) = dirs.iter().find_map(|d| probe_nvml(d)) {
        return link_nvml(&file);
    }
    let roots = search::toolkit_roots(target, roots, sysroot);
    let stubs = search::stub_dirs(target, &roots, sysroot, cross);
    if let Some(file) = stubs.iter().find_map(|d| probe_nvml(d)) {
        println!(
            "cargo:warning=linking the CUDA toolkit's NVML stub {}: it is link-time only; at run \
             time the driver's libnvidia-ml.so.1 must be on the loader path",
            file.display()
        );
        return link_nvml(&file);
    }
    for dir in dirs.iter().chain(&stubs).filter(|d| d.exists()) {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    let searched: Vec<String> = dirs
        .iter()
        .chain(&stubs)
        .map(|d| d.display().to_string())
        .collect();
    nvml_missing(&format!(
        "CUSTACK_NVML_LIB_DIR (unset), CUDA_LIBRARY_PATH, the driver's directories, the loader \
         cache and the toolkit stubs: {}",
        searched.join(", ")
    ));
}

fn link_nvml(file: &Path) {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return;
    };
    println!("cargo:rustc-link-search=native={}", dir.display());
    if name == "libnvidia-ml.so" {
        println!("cargo:rustc-link-lib=dylib=nvidia-ml");
    } else {
        println!(
            "cargo:rustc-link-lib=dylib:+verbatim={}",
            name.to_string_lossy()
        );
    }
    println!("cargo:rustc-env=CUSTACK_NVML_FOUND={}", file.display());
    println!("cargo:rustc-env=CUSTACK_NVML_SEARCHED=");
}

/// No NVML: the entry points become stubs, and the crate's error says what was `searched`.
fn nvml_missing(searched: &str) {
    println!("cargo:rustc-cfg=custack_no_nvml");
    println!("cargo:rustc-env=CUSTACK_NVML_FOUND=");
    println!("cargo:rustc-env=CUSTACK_NVML_SEARCHED={searched}");
    if env::var_os("DOCS_RS").is_none() && env::var_os("CARGO_CFG_MIRI").is_none() {
        println!(
            "cargo:warning=custack: feature `nvml` is on but no NVML library was found, so its \
             calls return an error: install {}, or set CUSTACK_NVML_LIB_DIR to the directory \
             holding libnvidia-ml.so.1.",
            install::NVML
        );
        println!("cargo:warning=custack: searched for NVML: {searched}");
    }
}

#[allow(
    clippy::panic,
    reason = "an explicit setting that is wrong is a hard error, as for CUDA_DRIVER_LIB_DIR"
)]
fn nvml_setting_is_wrong(dir: &str) -> ! {
    panic!(
        "CUSTACK_NVML_LIB_DIR is set to `{dir}`, but that directory holds none of {} for the \
         target. Set it to the directory holding the driver's libnvidia-ml.so.1 (for example the \
         one `ldconfig -p | grep libnvidia-ml` shows), or unset it.",
        NVML_FILES.join(", ")
    )
}
