//! NVRTC under the checking driver: `examples/nvrtc_fixture.rs` compiles a kernel with the
//! NVRTC library of `CUSTACK_NVRTC_LIB_DIR` (the test command's libraries step fetches NVRTC
//! 12.2 there: `scripts/fetch-libraries.sh`) and loads its PTX, once clean and then under every
//! schedule of `custack-check`. NVRTC 13 loads `libcuda.so.1` itself in `nvrtcCompileProgram`
//! and asks it for `cuGetExportTable`: the double answers `CUDA_ERROR_NOT_FOUND` (without the
//! entry point NVRTC 13 read a table it never got and died of SIGSEGV); NVRTC 12.2 loads no
//! libcuda. Ignored without NVRTC: `cargo test --test nvrtc -- --ignored` with the variable set.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    // Examples are built by `cargo test`, into `<target>/<profile>/examples/`; this test runs
    // from `<target>/<profile>/deps/`.
    let exe = std::env::current_exe().expect("the test's own path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("<target>/<profile>");
    let path = profile.join("examples").join("nvrtc_fixture");
    assert!(path.is_file(), "{} is not built", path.display());
    path
}

/// The directory `CUSTACK_NVRTC_LIB_DIR` names, and the NVRTC library in it.
fn nvrtc() -> (PathBuf, PathBuf) {
    let dir = std::env::var_os("CUSTACK_NVRTC_LIB_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .expect("CUSTACK_NVRTC_LIB_DIR names the directory of libnvrtc (this test needs NVRTC)");
    let lib = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no libnvrtc.so[.13|.12] in {}", dir.display()));
    (dir, lib)
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `LD_LIBRARY_PATH` with `first` ahead of NVRTC's directory (NVRTC 13 loads its builtins
/// library from there).
fn library_path(first: Option<&Path>, nvrtc_dir: &Path) -> String {
    let nvrtc_dir = nvrtc_dir.display();
    match first {
        Some(d) => format!("{}:{nvrtc_dir}", d.display()),
        None => nvrtc_dir.to_string(),
    }
}

#[test]
#[ignore = "needs NVRTC: CUSTACK_NVRTC_LIB_DIR (scripts/test.sh's libraries step sets it)"]
fn nvrtc_compiles_under_the_checking_driver_clean_and_under_every_schedule() {
    let (dir, lib) = nvrtc();
    let check = env!("CARGO_BIN_EXE_custack-check");
    let lib_dir = Command::new(check)
        .arg("--lib-dir")
        .output()
        .expect("custack-check --lib-dir runs");
    let lib_dir = PathBuf::from(String::from_utf8_lossy(&lib_dir.stdout).trim());
    // The clean run, by hand: NVRTC compiles, the double parses its PTX and finds the kernel.
    let scratch = std::env::temp_dir().join(format!("nvrtc-test-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let (report, trace) = (scratch.join("report"), scratch.join("trace"));
    let out = Command::new(fixture())
        .arg(&lib)
        .env("LD_LIBRARY_PATH", library_path(Some(&lib_dir), &dir))
        .env("NULLDRIVER_CHECK", "1")
        .env("NULLDRIVER_REPORT", &report)
        .env("NULLDRIVER_TRACE", &trace)
        .output()
        .expect("the fixture runs");
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let version = said
        .lines()
        .find_map(|l| l.strip_prefix("nvrtc "))
        .and_then(|l| l.split(':').next())
        .unwrap_or_else(|| panic!("no NVRTC version in:\n{said}"));
    assert!(said.contains(": compiled scale ("), "{said}");
    let report = std::fs::read_to_string(&report).expect("the double's report");
    assert!(report.contains("violations 0\n"), "{report}");
    assert!(report.contains("leaks 0\n"), "{report}");
    // NVRTC 13 asked the double for its export tables, and was told there are none.
    let trace = std::fs::read_to_string(&trace).expect("the double's trace");
    let major: u32 = version
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .expect("a major version");
    if major >= 13 {
        assert!(trace.contains("\tcuGetExportTable\t500"), "{trace}");
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // Every schedule: each driver call (NVRTC's own `cuInit` among them, for NVRTC 13) failed
    // once, and sticky from it on.
    let out = Command::new(check)
        .args(["--jobs", "2"])
        .arg(fixture())
        .arg(&lib)
        .env("LD_LIBRARY_PATH", library_path(None, &dir))
        .output()
        .expect("custack-check runs");
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "NVRTC {version}:\n{said}");
    assert!(said.contains("custack-check: passed"), "{said}");
    println!("NVRTC {version} from {}:\n{said}", lib.display());
}
