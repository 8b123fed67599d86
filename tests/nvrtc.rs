//! NVRTC without a GPU: CUDA C++ compiled on the CPU, contracts checked against NVRTC's PTX, the
//! compile log as the error's detail, name expressions, cubins, and the NVRTC/driver pairing
//! this machine has. Needs the feature `nvrtc` and libnvrtc (`scripts/test.sh` fetches it); the
//! GPU half is `tests/gpu_nvrtc.rs`.
#![cfg(feature = "nvrtc")]

use custack::nvrtc::{Arch, Options, Program, loadable};
use custack::{ComputeCapability, ErrorKind, Version};

custack::kernel_contract! {
    /// `timedReduction(const float* input, float* output, long long* timer)` of
    /// `examples/18_nvrtc_clock.rs`.
    unsafe kernel TimedReduction = "timedReduction"(
        input: &[f32; 2 * block], output: &mut [f32; blocks], timer: &mut [i64; 2 * blocks],
    ) shared(block * 8);

    /// The same kernel declared with a parameter too few: the check must refuse it.
    unsafe kernel TimedReductionShort = "timedReduction"(
        input: &[f32; 2 * block], output: &mut [f32; blocks],
    );

    /// `scale<float>(float* x, float a, unsigned long long n)`, by its name expression.
    unsafe kernel ScaleF32 = "scale<float>"(x: &mut [f32; n], a: f32, n: u64);

    /// `scale<double>`, declared with a `f32` factor: 4 bytes where the kernel takes 8.
    unsafe kernel ScaleF64Wrong = "scale<double>"(x: &mut [f64; n], a: f32, n: u64);

    /// `scale<double>`, declared right.
    unsafe kernel ScaleF64 = "scale<double>"(x: &mut [f64; n], a: f64, n: u64);
}

const CLOCK: &str = include_str!("../examples/kernels/clock.cu");

const SCALE: &str = r"
template <typename T>
__global__ void scale(T* x, T a, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}";

fn v(major: u32, minor: u32) -> Version {
    Version { major, minor }
}

#[test]
fn version_is_reported_and_supports_real_architectures() {
    let version = custack::nvrtc::version().unwrap();
    assert!(version.major >= 12, "NVRTC {version}");
    let archs = custack::nvrtc::supported_archs().unwrap();
    assert!(archs.contains(&80), "{archs:?}");
    assert!(archs.windows(2).all(|w| w[0] < w[1]), "{archs:?}");
}

#[test]
fn compiles_the_clock_kernel_and_checks_its_contract() {
    let compiled = Program::new("clock.cu", CLOCK)
        .unwrap()
        .compile(&Options::new().arch(Arch::Virtual(ComputeCapability { major: 7, minor: 5 })))
        .unwrap();
    let ptx = compiled.ptx().unwrap();
    assert!(ptx.contains(".entry timedReduction"), "{ptx}");
    assert!(ptx.contains(".target sm_75"), "{ptx}");
    assert!(
        compiled.cubin().is_none(),
        "a virtual architecture gives no cubin"
    );
    compiled.check::<TimedReduction>().unwrap();
    let e = compiled.check::<TimedReductionShort>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
    assert!(
        e.to_string()
            .contains("takes 3 parameters, the contract declares 2"),
        "{e}"
    );
}

#[test]
fn a_compile_error_carries_the_log_with_file_and_line() {
    let source = "extern \"C\" __global__ void broken(float* x) {\n  x[0] = undeclared;\n}\n";
    let e = Program::new("broken.cu", source)
        .unwrap()
        .compile(&Options::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvrtcCompilation);
    let text = e.to_string();
    assert!(
        text.contains("NVRTC_ERROR_COMPILATION") || text.contains("did not compile"),
        "{text}"
    );
    assert!(text.contains("broken.cu(2)"), "{text}");
    assert!(text.contains("undeclared"), "{text}");
}

#[test]
fn an_unknown_option_is_named() {
    let e = Program::new("noop.cu", "extern \"C\" __global__ void noop() {}")
        .unwrap()
        .compile(&Options::new().option("--no-such-option"))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvrtcInvalidOption, "{e}");
    assert!(e.to_string().contains("no-such-option"), "{e}");
}

#[test]
fn headers_defines_and_standard_reach_the_compiler() {
    let source = "#include \"consts.h\"\n\
                  static_assert(__cplusplus >= 201703L, \"c++17\");\n\
                  extern \"C\" __global__ void fill(float* x) { x[threadIdx.x] = SCALE * WIDTH; }\n";
    let compiled = Program::new("fill.cu", source)
        .unwrap()
        .header("consts.h", "#define WIDTH 4.0f\n")
        .unwrap()
        .compile(&Options::new().define("SCALE", Some("2.0f")).std("c++17"))
        .unwrap();
    let ptx = compiled.ptx().unwrap();
    // 2.0f * 4.0f folded to 8.0f, stored as its bits (0x41000000) or as a float literal.
    assert!(
        ptx.contains("1090519040") || ptx.contains("0f41000000"),
        "{ptx}"
    );
    // Without the define, the same source does not compile, and the log says why.
    let e = Program::new("fill.cu", source)
        .unwrap()
        .header("consts.h", "#define WIDTH 4.0f\n")
        .unwrap()
        .compile(&Options::new().std("c++17"))
        .unwrap_err();
    assert!(e.to_string().contains("SCALE"), "{e}");
}

#[test]
fn name_expressions_name_template_kernels_for_contracts() {
    let compiled = Program::new("scale.cu", SCALE)
        .unwrap()
        .name_expression("scale<float>")
        .unwrap()
        .name_expression("scale<double>")
        .unwrap()
        .compile(&Options::new())
        .unwrap();
    let float = compiled.lowered_name("scale<float>").unwrap();
    let double = compiled.lowered_name("scale<double>").unwrap();
    assert!(float.starts_with("_Z") && double.starts_with("_Z") && float != double);
    assert!(compiled.ptx().unwrap().contains(&format!(".entry {float}")));
    assert_eq!(compiled.lowered_name("scale<int>"), None);
    compiled.check::<ScaleF32>().unwrap();
    compiled.check::<ScaleF64>().unwrap();
    let e = compiled.check::<ScaleF64Wrong>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
    assert!(e.to_string().contains("parameter 1 `a`"), "{e}");
}

#[test]
fn a_name_expression_that_names_nothing_is_an_error() {
    let e = Program::new("scale.cu", SCALE)
        .unwrap()
        .name_expression("scale<no_such_type>")
        .unwrap()
        .compile(&Options::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvrtcCompilation, "{e}");
    assert!(e.to_string().contains("no_such_type"), "{e}");
}

#[test]
fn a_real_architecture_gives_a_cubin() {
    let compiled = Program::new("clock.cu", CLOCK)
        .unwrap()
        .compile(&Options::new().arch(Arch::Real(ComputeCapability { major: 8, minor: 0 })))
        .unwrap();
    let cubin = compiled.cubin().unwrap();
    assert_eq!(cubin.get(..4), Some(&b"\x7fELF"[..]));
    assert!(cubin.len() > 1000, "{} bytes", cubin.len());
}

#[test]
fn a_nul_in_the_source_is_refused_before_nvrtc() {
    let e = Program::new("nul.cu", "__global__ void a() {}\0").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NulInName);
}

/// The pairing this machine has: the NVRTC linked and the driver library loaded (CI: NVRTC 12.2
/// from the `nvidia-cuda-nvrtc-cu12` wheel and Debian's 12.2 driver; the GPU machine: 13.0 and
/// 13.0). PTX from this NVRTC must be loadable by this driver.
#[test]
fn the_linked_nvrtc_and_driver_are_a_loadable_pairing() {
    let nvrtc = custack::nvrtc::version().unwrap();
    let driver = custack::driver_version().unwrap();
    let compiled = Program::new("noop.cu", "extern \"C\" __global__ void noop() {}")
        .unwrap()
        .compile(&Options::new())
        .unwrap();
    assert_eq!(compiled.nvrtc_version(), nvrtc);
    compiled
        .check_driver(driver)
        .unwrap_or_else(|e| panic!("NVRTC {nvrtc} with driver {driver}: {e}"));
}

#[test]
fn versions_decide_what_loads() {
    // PTX: the driver must be at least as new as NVRTC.
    assert!(loadable(v(12, 2), v(12, 2), false).is_ok());
    assert!(loadable(v(12, 2), v(13, 0), false).is_ok());
    let e = loadable(v(13, 5), v(13, 0), false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvrtcNewerThanDriver);
    let text = e.to_string();
    assert!(
        text.contains("NVRTC 13.5") && text.contains("CUDA 13.0"),
        "{text}"
    );
    assert!(text.contains("Options::arch_for"), "{text}");
    assert!(
        text.contains("pip install 'nvidia-cuda-nvrtc==13.0.*'"),
        "{text}"
    );
    // A CUDA 12 driver: the wheel of CUDA 12 is named -cu12, and a 13.x cubin does not help.
    let e = loadable(v(12, 3), v(12, 2), false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvrtcNewerThanDriver);
    assert!(
        e.to_string()
            .contains("pip install 'nvidia-cuda-nvrtc-cu12==12.2.*'"),
        "{e}"
    );
    let e = loadable(v(13, 0), v(12, 2), false).unwrap_err();
    assert!(!e.to_string().contains("arch_for"), "{e}");
    assert!(
        e.to_string().contains("nvidia-cuda-nvrtc-cu12==12.2.*"),
        "{e}"
    );
    // A cubin: the same major version suffices, not an older one.
    assert!(loadable(v(13, 5), v(13, 0), true).is_ok());
    assert!(loadable(v(12, 8), v(12, 2), true).is_ok());
    let e = loadable(v(13, 0), v(12, 2), true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvrtcNewerThanDriver);
    assert!(
        e.to_string()
            .contains("pip install 'nvidia-cuda-nvrtc-cu12==12.2.*'"),
        "{e}"
    );
    let e = loadable(v(14, 0), v(13, 1), true).unwrap_err();
    assert!(
        e.to_string()
            .contains("pip install 'nvidia-cuda-nvrtc==13.1.*'"),
        "{e}"
    );
}

custack::kernel_contract! {
    /// `count_down(handle cond, unsigned* left)` of `tests/fixtures/nvrtc_condition.cu`.
    unsafe kernel CountDown = "count_down"(cond: conditional, left: &mut [u32; 1]);
}

#[test]
fn a_kernel_that_sets_a_condition_compiles_with_the_function_left_to_the_driver() {
    let compiled = Program::new(
        "nvrtc_condition.cu",
        include_str!("fixtures/nvrtc_condition.cu"),
    )
    .unwrap()
    .compile(&Options::new().arch(Arch::Virtual(ComputeCapability { major: 7, minor: 5 })))
    .unwrap();
    let ptx = compiled.ptx().unwrap();
    assert!(ptx.contains(".entry count_down"), "{ptx}");
    // Declared, not defined: the driver resolves it at load (tests/gpu_nvrtc.rs runs it).
    assert!(
        ptx.contains(".extern .func cudaGraphSetConditional"),
        "{ptx}"
    );
    // The handle is one 8-byte parameter, as the contract's `conditional` says.
    compiled.check::<CountDown>().unwrap();
}
