//! JIT errors and how to read them: broken PTX, PTX calling a function nothing defines, a
//! missing kernel, a kernel looked up with the wrong signature. Each is rejected with an error
//! that says what went wrong.
//!
//! `cargo run --release --example 08_jit_errors`
//!
//! Every `custack::Error` has three parts to read:
//! - `kind()`, an `ErrorKind` to match on (`InvalidPtx`, `UnsupportedPtxVersion`, `NotFound`,
//!   `KernelSignatureMismatch`, ...);
//! - `code()`, the driver's raw `CUresult`, or `None` where custack itself refused (then no
//!   driver call was made);
//! - `detail()`: the JIT compiler's error log, the name that was not found, or the
//!   parameter that differs.
//!
//! `Display` (`{e}`) shows all three and the driver's own description. Here each error is printed
//! compactly: kind, code, and the first line of its detail that says what is wrong. None of these
//! errors is sticky: the context keeps working, which the example shows by loading good code
//! after the bad. On an H100 (driver 580, PTX ISA 9.0) it prints:
//!
//! ```text
//! device 0: NVIDIA H100 80GB HBM3
//!   an unknown instruction: InvalidPtx (CUDA_ERROR_INVALID_PTX = 218): ptxas application ptx input, line 4; error   : Unknown modifier '.instruction'
//!   a branch to no label: InvalidPtx (CUDA_ERROR_INVALID_PTX = 218): ptxas application ptx input, line 4; error   : Unknown symbol 'NOWHERE'
//!   an unresolved function: InvalidPtx (CUDA_ERROR_INVALID_PTX = 218): ptxas fatal   : Unresolved extern function 'plus_one'
//!   a PTX version newer than the driver: UnsupportedPtxVersion (CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222): ptxas application ptx input, line 1; fatal   : Unsupported .version 99.0; current version is '9.0'
//!   PTX holding a NUL byte: NulInName (no driver call): PTX source holds a NUL byte
//!   a kernel name that does not exist: NotFound (CUDA_ERROR_NOT_FOUND = 500): function "add_u64"
//!   a kernel signature that does not match: KernelSignatureMismatch (no driver call): kernel "add_u32": parameter 1 is 4 bytes at offset 8 in the kernel, but `u64` is 8 bytes at offset 8
//! jit_errors: 7 broken inputs rejected, each with its kind, its driver code where there is one, and a detail to read; good code loaded after them
//! ```
use custack::{Context, ContextFlags, DevicePtr, Driver, Stack};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
/// A kernel calling `plus_one`, which only `tests/fixtures/link_lib.ptx` defines.
const LINK_MAIN: &str = include_str!("../tests/fixtures/link_main.ptx");

/// The same header as the fixtures: PTX ISA 6.0 for `sm_50`.
const HEADER: &str = ".version 6.0\n.target sm_50\n.address_size 64\n";

/// The line of a detail that says what is wrong: the JIT log's first error line, else its
/// first line.
fn key_line(detail: &str) -> &str {
    let mut lines = detail
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.ends_with("log:"));
    let first = lines.clone().next().unwrap_or("");
    lines.find(|l| l.contains("error")).unwrap_or(first)
}

/// Prints how `result` failed; returns whether it did.
fn rejected<T>(what: &str, result: custack::Result<T>) -> bool {
    match result {
        Ok(_) => {
            eprintln!("08_jit_errors: {what}: accepted, but it should have failed");
            false
        }
        Err(e) => {
            let code = e.code().map_or_else(
                || "no driver call".to_owned(),
                |c| format!("{} = {}", e.kind().name(), c.0),
            );
            let detail = e.detail().map_or("(no detail)", key_line);
            println!("  {what}: {:?} ({code}): {detail}", e.kind());
            true
        }
    }
}

/// Loads each broken input; returns how many were rejected, and how many were tried.
fn run() -> custack::Result<(usize, usize)> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let ctx = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;

    // `load_ptx` JIT-compiles PTX for this device; a failure carries the compiler's error log.
    let unknown_instruction =
        format!("{HEADER}.visible .entry broken() {{ bogus.instruction; ret; }}\n");
    let undeclared_label = format!("{HEADER}.visible .entry broken() {{ bra NOWHERE; ret; }}\n");
    // PTX written by a newer compiler than this driver knows.
    let newer_ptx =
        ".version 99.0\n.target sm_50\n.address_size 64\n.visible .entry k() { ret; }\n";
    let mut outcomes = vec![
        rejected(
            "an unknown instruction",
            guard.load_ptx(&unknown_instruction),
        ),
        rejected("a branch to no label", guard.load_ptx(&undeclared_label)),
        // A kernel calling `plus_one`, declared `.extern`: only a link with link_lib.ptx
        // (`guard.linker`) resolves it.
        rejected("an unresolved function", guard.load_ptx(LINK_MAIN)),
        rejected(
            "a PTX version newer than the driver",
            guard.load_ptx(newer_ptx),
        ),
        // custack refuses this one itself: the driver reads PTX up to the first NUL.
        rejected("PTX holding a NUL byte", guard.load_ptx("\0")),
    ];

    // A correct module: the context still works after the errors above.
    let module = guard.load_ptx(KERNELS)?;
    outcomes.push(rejected(
        "a kernel name that does not exist",
        module.function("add_u64"),
    ));
    // add_u32(unsigned* x, unsigned k, unsigned n), looked up as if `k` were a u64. The check
    // needs `cuFuncGetParamInfo` (driver 12.4+); before that the driver cannot tell.
    let checkable = module.function("add_u32")?.param_layout().is_ok();
    if checkable {
        outcomes.push(rejected(
            "a kernel signature that does not match",
            module.kernel::<(DevicePtr<u32>, u64, u32)>("add_u32"),
        ));
    } else {
        println!(
            "  a kernel signature that does not match: not checked, this driver is older than 12.4"
        );
    }

    let rejected = outcomes.iter().filter(|&&r| r).count();
    if rejected == outcomes.len() {
        module.kernel::<(DevicePtr<u32>, u32, u32)>("add_u32")?; // the right signature
        println!(
            "jit_errors: {rejected} broken inputs rejected, each with its kind, its driver code where there is one, and a detail to read; good code loaded after them"
        );
    }
    Ok((rejected, outcomes.len()))
}

fn main() -> ExitCode {
    match run() {
        Ok((rejected, tried)) if rejected == tried => ExitCode::SUCCESS,
        Ok((rejected, tried)) => {
            eprintln!("08_jit_errors: only {rejected} of {tried} broken inputs were rejected");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("08_jit_errors: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
