//! Finds the CUDA driver library, `libcuda`, and links it (no `dlopen`). At run time the
//! loader resolves `libcuda.so.1`, as for any CUDA program.
//!
//! Search order; the first directory holding `libcuda.so` (preferred) or `libcuda.so.1` wins:
//! 1. `CUDA_DRIVER_LIB_DIR`: the directory holding libcuda. If it holds neither file, the
//!    build fails: this is the only hard error.
//! 2. `CUDA_LIBRARY_PATH`: a directory, or a `:`-separated list of directories.
//! 3. The toolkit roots `CUDA_PATH`, `CUDA_HOME`, `CUDA_ROOT`, `CUDA_TOOLKIT_ROOT_DIR`, each
//!    with `lib64`, `lib` and `targets/<arch>-linux/lib` (`sbsa` too on aarch64).
//! 4. `/usr/local/cuda`, with the same subdirectories.
//! 5. Distro and driver directories: `/usr/lib/<multiarch>`, `/usr/lib64`,
//!    `/usr/lib/<multiarch>/nvidia/current`, `/usr/local/nvidia/lib64`, `/usr/lib/wsl/lib`.
//! 6. The loader cache, `ldconfig -p` (skipped if `ldconfig` is missing).
//! 7. Last, the toolkit stubs: `<root>/lib64/stubs`, `<root>/targets/<arch>-linux/lib/stubs`.
//!    A stub is link-time only, so the build warns; no rpath is ever emitted.
//!
//! `libcuda.so` is linked as `-l cuda`; a driver-only install with just `libcuda.so.1` is
//! linked by that exact file name (`+verbatim`). The linked file's path is exported to the crate
//! as `CUSTACK_LIBCUDA_FOUND` (empty when none was found). When nothing is found the build only warns and emits no link
//! flags and sets `cfg(custack_no_libcuda)`: the raw layer then defines every entry point to
//! return `CUDA_ERROR_NO_DEVICE`, so tests, examples and programs still link, and say at run
//! time that there is no GPU (with what to do) instead of failing to link. Set
//! `CUSTACK_REQUIRE_LIBCUDA=1` to make a missing libcuda a build error instead (for builds that
//! are meant to run on a GPU).
//!
//! With the cargo feature `interop` (and only then) it also looks for cuBLAS and NCCL, which
//! only the examples `11_cublas` and `12_nccl` use (they require the feature): see
//! [`interop_libraries`] at the end of this file. A crate that depends on custack does not
//! enable it, so its build searches for libcuda and nothing else, and never runs `python3`.
//!
//! Under docs.rs (`DOCS_RS` set) nothing is searched or linked and `cfg(custack_no_libcuda)` is
//! set, silently: the API and its docs are the same in every build.
//!
//! Under Miri (`cargo miri`, which sets `cfg(miri)` for the target, seen here as `CARGO_CFG_MIRI`)
//! nothing is searched or linked, and `cfg(custack_no_libcuda)` is not set: Miri cannot call a
//! native libcuda, and the tests it runs get the driver's entry points from the do-nothing driver
//! of `checkdriver`, linked as an rlib (`scripts/miri.sh`).

use std::env;
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
    println!("cargo:rustc-check-cfg=cfg(custack_no_libcuda)");
    if env::var_os("CARGO_CFG_MIRI").is_some() {
        println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
        return;
    }
    // docs.rs sets DOCS_RS and builds documentation only: nothing is linked, and its sandbox has
    // no driver. Build as where none is found, without searching or warning, so the docs are the
    // same whatever the builder has installed (`scripts/test.sh` builds them this way).
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    if env::var_os("DOCS_RS").is_some() {
        println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
        println!("cargo:rustc-cfg=custack_no_libcuda");
        return;
    }
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    interop_libraries(&arch);

    if let Some(dir) = var("CUDA_DRIVER_LIB_DIR") {
        match probe(Path::new(&dir)) {
            Some(file) => return link(&file),
            None => explicit_setting_is_wrong(&dir),
        }
    }

    let roots: Vec<PathBuf> = TOOLKIT_ROOTS
        .iter()
        .filter_map(|name| var(name))
        .chain(["/usr/local/cuda".to_owned()])
        .map(PathBuf::from)
        .collect();
    let targets = target_dirs(&arch);
    let multiarch = multiarch(&arch);

    let mut dirs: Vec<PathBuf> = var("CUDA_LIBRARY_PATH")
        .map(|list| env::split_paths(&list).collect())
        .unwrap_or_default();
    for root in &roots {
        dirs.push(root.join("lib64"));
        dirs.push(root.join("lib"));
        dirs.extend(
            targets
                .iter()
                .map(|t| root.join("targets").join(t).join("lib")),
        );
    }
    dirs.extend(
        [
            format!("/usr/lib/{multiarch}"),
            "/usr/lib64".to_owned(),
            format!("/usr/lib/{multiarch}/nvidia/current"),
            "/usr/local/nvidia/lib64".to_owned(),
            "/usr/lib/wsl/lib".to_owned(),
        ]
        .map(PathBuf::from),
    );
    dirs.extend(ld_cache_dirs(&arch));

    if let Some(file) = dirs.iter().find_map(|d| probe(d)) {
        return link(&file);
    }

    let mut stubs = Vec::new();
    for root in &roots {
        stubs.push(root.join("lib64/stubs"));
        stubs.extend(
            targets
                .iter()
                .map(|t| root.join("targets").join(t).join("lib/stubs")),
        );
    }
    if let Some(file) = stubs.iter().find_map(|d| probe(d)) {
        println!(
            "cargo:warning=linking the CUDA toolkit stub {}: it is link-time only; at run time \
             the real driver's libcuda.so.1 must be on the loader path (install the NVIDIA \
             driver, or add its directory to LD_LIBRARY_PATH)",
            file.display()
        );
        return link(&file);
    }

    not_found(&dirs, &stubs);
}

/// Reads an environment variable and tells cargo to rerun when it changes.
fn var(name: &str) -> Option<String> {
    println!("cargo:rerun-if-env-changed={name}");
    env::var(name).ok().filter(|v| !v.is_empty())
}

/// The library file in `dir`: `libcuda.so` if present, else `libcuda.so.1`.
fn probe(dir: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    ["libcuda.so", "libcuda.so.1"]
        .iter()
        .map(|name| dir.join(name))
        .find(|file| file.is_file())
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

/// The toolkit's `targets/<dir>` names for the target architecture.
fn target_dirs(arch: &str) -> Vec<String> {
    match arch {
        "aarch64" => vec!["aarch64-linux".to_owned(), "sbsa-linux".to_owned()],
        "powerpc64" => vec!["ppc64le-linux".to_owned()],
        other => vec![format!("{other}-linux")],
    }
}

/// The Debian multiarch triplet for the target architecture.
fn multiarch(arch: &str) -> String {
    match arch {
        "powerpc64" => "powerpc64le-linux-gnu".to_owned(),
        other => format!("{other}-linux-gnu"),
    }
}

/// Directories of `libcuda.so.1` / `libcuda.so` in the loader cache, for the target's
/// architecture. Lines read `\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/.../libcuda.so.1`.
fn ld_cache_dirs(arch: &str) -> Vec<PathBuf> {
    let tag = match arch {
        "x86_64" => "x86-64",
        "aarch64" => "AArch64",
        _ => "",
    };
    let output = ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
        .iter()
        .find_map(|exe| Command::new(exe).arg("-p").output().ok())
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    output
        .lines()
        .filter_map(|line| {
            let (lib, path) = line.trim().split_once(" => ")?;
            let (name, flags) = lib.split_once(' ')?;
            let wanted = matches!(name, "libcuda.so" | "libcuda.so.1")
                && flags.contains(tag)
                && !path.contains("/stubs");
            if !wanted {
                return None;
            }
            Path::new(path).parent().map(Path::to_path_buf)
        })
        .collect()
}

#[allow(
    clippy::panic,
    reason = "the one hard error: an explicit setting that is wrong"
)]
fn explicit_setting_is_wrong(dir: &str) -> ! {
    let state = if Path::new(dir).is_dir() {
        "holds neither"
    } else {
        "does not exist, so holds neither"
    };
    panic!(
        "CUDA_DRIVER_LIB_DIR is set to `{dir}`, but that directory {state} `libcuda.so` \
         nor `libcuda.so.1` (looked for `{dir}/libcuda.so` and `{dir}/libcuda.so.1`). Set \
         CUDA_DRIVER_LIB_DIR to the directory that holds the NVIDIA driver's libcuda (for example \
         the directory `ldconfig -p | grep libcuda` shows), or unset it to let the build search \
         the usual places."
    )
}

fn not_found(dirs: &[PathBuf], stubs: &[PathBuf]) {
    let searched: Vec<String> = dirs
        .iter()
        .chain(stubs)
        .map(|d| d.display().to_string())
        .collect();
    let searched = format!(
        "searched: CUDA_DRIVER_LIB_DIR (unset), CUDA_LIBRARY_PATH, the toolkit roots CUDA_PATH, \
         CUDA_HOME, CUDA_ROOT, CUDA_TOOLKIT_ROOT_DIR and /usr/local/cuda, the loader cache \
         (ldconfig -p); directories: {}",
        searched.join(", ")
    );
    if var("CUSTACK_REQUIRE_LIBCUDA").is_some_and(|v| v != "0") {
        required_but_missing(&searched);
    }
    // Look again when a driver is installed later: ldconfig rewrites its cache, and installing
    // a library changes the directory it lands in (only existing paths: cargo would rerun the
    // script on every build for a missing one).
    for path in dirs
        .iter()
        .chain(stubs)
        .map(PathBuf::as_path)
        .chain([Path::new("/etc/ld.so.cache")])
        .filter(|p| p.exists())
    {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
    println!("cargo:rustc-cfg=custack_no_libcuda");
    println!(
        "cargo:warning=custack: no libcuda (the NVIDIA driver library) found, so this build has no \
         GPU access: every driver call returns CUDA_ERROR_NO_DEVICE. Install the NVIDIA driver or \
         set CUDA_DRIVER_LIB_DIR to the directory holding libcuda.so.1 ({searched})"
    );
}

#[allow(
    clippy::panic,
    reason = "CUSTACK_REQUIRE_LIBCUDA asks for a hard error"
)]
fn required_but_missing(searched: &str) -> ! {
    panic!(
        "CUSTACK_REQUIRE_LIBCUDA is set, but no libcuda (the NVIDIA driver library) was found; \
         {searched}. Install the NVIDIA driver, or set CUDA_DRIVER_LIB_DIR to the directory \
         holding libcuda.so.1."
    )
}

// -------------------------------------------------------------------------------------------
// Example-only libraries: cuBLAS (examples/11_cublas.rs) and NCCL (examples/12_nccl.rs)
// -------------------------------------------------------------------------------------------

/// A library that only an example links.
struct Interop {
    /// The cfg set when the library is found (`custack_cublas`); `<cfg>_lib` is set to the file
    /// name linked, which picks the example's `#[link]` attribute.
    cfg: &'static str,
    /// The explicit setting: the directory holding the library.
    env: &'static str,
    /// Set for the crate's targets to the linked file's path when found (the example prints
    /// it, so its user knows which directory the loader needs).
    found_env: &'static str,
    /// File names in order of preference: the unversioned development link, then the
    /// versioned names that runtime-only installs (and the Python wheels) ship.
    files: &'static [&'static str],
    /// Directories under a Python `site-packages` where NVIDIA's wheels put the library.
    wheel_dirs: &'static [&'static str],
}

const INTEROP: [Interop; 2] = [
    Interop {
        cfg: "custack_cublas",
        env: "CUSTACK_CUBLAS_LIB_DIR",
        found_env: "CUSTACK_CUBLAS_FOUND",
        files: &["libcublas.so", "libcublas.so.13", "libcublas.so.12"],
        // `nvidia-cublas` 13.x ships `nvidia/cu13/lib`; the CUDA 12 wheels `nvidia/cublas/lib`.
        wheel_dirs: &["nvidia/cu13/lib", "nvidia/cublas/lib", "nvidia/cu12/lib"],
    },
    Interop {
        cfg: "custack_nccl",
        env: "CUSTACK_NCCL_LIB_DIR",
        found_env: "CUSTACK_NCCL_FOUND",
        files: &["libnccl.so", "libnccl.so.2"],
        wheel_dirs: &["nvidia/nccl/lib", "nvidia/cu13/lib"],
    },
];

/// Finds cuBLAS and NCCL for the interop examples; never needed by the library itself, so only
/// with the feature `interop`, which those two examples require (`required-features`).
///
/// For each: the explicit directory (`CUSTACK_CUBLAS_LIB_DIR`, `CUSTACK_NCCL_LIB_DIR`; the
/// build fails if it holds none of the files), else the CUDA toolkit roots and distro
/// directories, `$CONDA_PREFIX/lib`, and last the `nvidia/*/lib` directories of the Python
/// `site-packages` that `python3` reports (one cheap probe, only if nothing else was found).
///
/// When found: `cargo:rustc-cfg=custack_cublas` plus `custack_cublas_lib="<file>"`, the file's
/// path as `CUSTACK_CUBLAS_FOUND` (`CUSTACK_NCCL_FOUND`) for `env!`, and the
/// directory as a linker search path for the examples only (`rustc-link-arg-examples=-L…`),
/// so neither the library, its tests nor a dependent crate's link sees it. The example's own
/// `#[link]` attribute names the library, as a user's code would. No rpath: at run time the
/// loader must find the library (`LD_LIBRARY_PATH`). When not found, nothing is emitted but
/// the cfg declarations, and the example only prints how to build it.
fn interop_libraries(arch: &str) {
    // Cargo sets this for the build script when the feature is on (and reruns the script when
    // the features change). Off, the build says nothing about these libraries: only the two
    // examples use their cfgs, and they are not built without the feature.
    if env::var_os("CARGO_FEATURE_INTEROP").is_none() {
        return;
    }
    let mut site_packages: Option<Vec<PathBuf>> = None;
    for lib in &INTEROP {
        let values: Vec<String> = lib.files.iter().map(|f| format!("\"{f}\"")).collect();
        println!("cargo:rustc-check-cfg=cfg({})", lib.cfg);
        println!(
            "cargo:rustc-check-cfg=cfg({}_lib, values({}))",
            lib.cfg,
            values.join(", ")
        );
        let Some(found) = find_interop(lib, arch, &mut site_packages) else {
            continue;
        };
        let (Some(dir), Some(name)) = (found.parent(), found.file_name()) else {
            continue;
        };
        println!("cargo:rustc-cfg={}", lib.cfg);
        println!(
            "cargo:rustc-cfg={}_lib=\"{}\"",
            lib.cfg,
            name.to_string_lossy()
        );
        println!("cargo:rustc-link-arg-examples=-L{}", dir.display());
        println!("cargo:rustc-env={}={}", lib.found_env, found.display());
    }
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
            target_dirs(arch)
                .iter()
                .map(|t| root.join("targets").join(t).join("lib")),
        );
    }
    if let Some(conda) = var("CONDA_PREFIX") {
        dirs.push(PathBuf::from(conda).join("lib"));
    }
    dirs.push(PathBuf::from(format!("/usr/lib/{}", multiarch(arch))));
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
        "{} is set to `{dir}`, but that directory holds none of {} (only the examples use this \
         library). Set it to the directory holding the library, for a Python wheel \
         `<site-packages>/{}`, or unset it.",
        lib.env,
        lib.files.join(", "),
        lib.wheel_dirs
            .first()
            .copied()
            .unwrap_or("nvidia/<name>/lib"),
    )
}
