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
//! flags: `cargo check`, `cargo doc`, clippy and the compile-fail ui tests need no CUDA.
//!
//! Under Miri (`cargo miri`, which sets `cfg(miri)` for the target, seen here as `CARGO_CFG_MIRI`)
//! nothing is searched or linked: Miri cannot call a native libcuda, and the tests it runs get the
//! driver's entry points from the do-nothing driver of `benches/nulldriver`, linked as an rlib
//! (`scripts/miri.sh`).

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
    if env::var_os("CARGO_CFG_MIRI").is_some() {
        println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
        return;
    }
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();

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
    println!("cargo:rustc-env=CUSTACK_LIBCUDA_FOUND=");
    let searched: Vec<String> = dirs
        .iter()
        .chain(stubs)
        .map(|d| d.display().to_string())
        .collect();
    println!(
        "cargo:warning=libcuda (the CUDA driver library) was not found, so nothing is linked: \
         `cargo check`, `cargo doc`, clippy and the ui tests work, but linking tests, examples \
         or binaries will fail"
    );
    println!(
        "cargo:warning=searched: CUDA_DRIVER_LIB_DIR (unset), CUDA_LIBRARY_PATH, the toolkit roots \
         CUDA_PATH, CUDA_HOME, CUDA_ROOT, CUDA_TOOLKIT_ROOT_DIR and /usr/local/cuda, the loader \
         cache (ldconfig -p); directories: {}",
        searched.join(", ")
    );
    println!(
        "cargo:warning=to fix: set CUDA_DRIVER_LIB_DIR to the directory holding libcuda.so.1, or \
         install the NVIDIA driver, or run `bash scripts/test.sh`, which fetches the driver \
         library into target/cuda-driver and runs the tests against it"
    );
}
