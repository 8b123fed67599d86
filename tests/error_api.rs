//! `Error` as a library built on custack uses it: public constructors of
//! custack kinds with a detail, a foreign error wrapped as the source, matching on kinds, and
//! the same `Display` as custack's own errors. Only the public API; needs no GPU (the driver
//! is asked only for its names of error codes, which needs no `cuInit`).

use custack::{Error, ErrorKind, Stack, ffi};
use std::error::Error as StdError;

/// A downstream library's own error cause, as a foreign error type.
#[derive(Debug)]
struct PlanError {
    stage: &'static str,
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the plan failed at {}", self.stage)
    }
}

impl StdError for PlanError {}

/// A downstream function that returns custack's `Result`, with errors of its own making.
fn plan(inputs: usize, outputs: usize) -> custack::Result<usize> {
    if inputs != outputs {
        return Err(Error::new(
            ErrorKind::LengthMismatch,
            format!("{inputs} inputs, {outputs} outputs"),
        ));
    }
    if inputs == 0 {
        return Err(Error::new(ErrorKind::InvalidValue, "an empty plan")
            .with_source(PlanError { stage: "sizing" }));
    }
    Ok(inputs * 2)
}

/// What a caller does with them: match on the kind, as for custack's own errors.
fn advice(e: &Error) -> &'static str {
    match e.kind() {
        ErrorKind::LengthMismatch => "fix the shapes",
        ErrorKind::InvalidValue => "fix the arguments",
        ErrorKind::StackAlreadyTaken => "pass the stack down",
        k if k.is_sticky() => "restart the process",
        _ => "report it",
    }
}

#[test]
fn a_downstream_error_matches_and_displays_as_custacks_own() {
    assert_eq!(plan(2, 2), Ok(4));

    let e = plan(3, 4).unwrap_err();
    assert_eq!(advice(&e), "fix the shapes");
    assert_eq!(e.code(), None);
    assert_eq!(e.detail(), Some("3 inputs, 4 outputs"));
    assert_eq!(
        e.to_string(),
        "two lengths that must be equal differ: 3 inputs, 4 outputs"
    );
    assert!(e.source().is_none());

    let e = plan(0, 0).unwrap_err();
    assert_eq!(advice(&e), "fix the arguments");
    assert_eq!(e.code(), Some(ffi::CUresult::CUDA_ERROR_INVALID_VALUE));
    // The same text as the driver's own error with that detail, in a build with or without
    // libcuda (the driver's description, or the "no CUDA driver" sentence).
    let drivers =
        Error::from_raw(ffi::CUresult::CUDA_ERROR_INVALID_VALUE).with_detail("an empty plan");
    assert_eq!(e.to_string(), drivers.to_string());
    assert!(e.to_string().ends_with(": an empty plan"), "{e}");
    let cause = e
        .source()
        .and_then(|s| s.downcast_ref::<PlanError>())
        .expect("the wrapped cause");
    assert_eq!(cause.stage, "sizing");
}

#[test]
fn a_custack_error_can_be_remade_and_rewrapped() {
    // A real custack error that needs no GPU: a second Stack on one thread (R1).
    let _stack = Stack::new().expect("the first stack of this test thread");
    let Err(real) = Stack::new() else {
        panic!("a second stack on one thread must be refused")
    };
    assert_eq!(real.kind(), ErrorKind::StackAlreadyTaken);
    assert_eq!(advice(&real), "pass the stack down");

    // Remade from its parts by downstream code: equal, and the same text.
    let remade = Error::new(real.kind(), real.detail().unwrap_or_default());
    assert_eq!(remade, real);
    assert_eq!(remade.to_string(), real.to_string());

    // Given another detail, or wrapped as the source of a downstream error.
    let explained = real
        .clone()
        .with_detail("the engine was created twice on this thread");
    assert_eq!(explained.kind(), ErrorKind::StackAlreadyTaken);
    assert!(
        explained
            .to_string()
            .ends_with(": the engine was created twice on this thread")
    );
    let outer = Error::new(ErrorKind::InvalidValue, "engine setup").with_source(real.clone());
    let inner = outer
        .source()
        .and_then(|s| s.downcast_ref::<Error>())
        .expect("custack's error as the source");
    assert_eq!(inner, &real);

    // Into a boxed error and back, as `?` in an application does.
    let boxed: Box<dyn StdError + Send + Sync> = Box::new(outer);
    let back = boxed.downcast::<Error>().expect("a custack::Error");
    assert_eq!(back.kind(), ErrorKind::InvalidValue);
}

#[test]
fn a_kind_alone_is_an_error() {
    let e = Error::from_kind(ErrorKind::OutOfMemory);
    assert_eq!(e, Error::from_raw(ffi::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
    assert_eq!(e.detail(), None);
    let e = Error::from_kind(ErrorKind::ContextMismatch);
    assert_eq!(e.code(), None);
    assert!(!e.is_sticky());
    assert!(Error::from_kind(ErrorKind::IllegalAddress).is_sticky());
}

/// Must compile: `Error` has no `From` impl but the identity, so `?` can infer the error type
/// of a closure's `Result` (as `stream.scope(|s| { …; Ok(()) })??` needs). A `From<ErrorKind>`
/// for `Error` would make this ambiguous (E0283), which is why `Error::from_kind` is a function.
#[test]
fn question_mark_still_infers_the_closure_error_type() {
    fn run() -> custack::Result<u32> {
        let inner = || custack::Result::Ok(41);
        Ok(inner()? + 1)
    }
    assert_eq!(run(), Ok(42));
}

/// R20 through the public API, with no GPU: errors made or returned while the process is not
/// poisoned have no origin, and `fail_stop` ends the process with its documented status and the
/// error on stderr (in a child process: this test binary run again).
#[test]
fn fail_stop_exits_with_its_status_and_the_error() {
    const CHILD: &str = "CUSTACK_ERROR_API_FAIL_STOP";
    if std::env::var_os(CHILD).is_some() {
        let e = Error::new(ErrorKind::IllegalAddress, "a fault, on purpose");
        custack::fail_stop(&e);
    }
    assert!(custack::poisoned().is_none());
    let e = Error::new(ErrorKind::IllegalAddress, "made, not observed");
    assert!(e.is_sticky() && e.origin().is_none());
    assert!(!e.to_string().contains("first observed"), "{e}");
    assert_eq!(custack::FAIL_STOP_STATUS, 75);
    let out = this_test_binary()
        .args([
            "--exact",
            "fail_stop_exits_with_its_status_and_the_error",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(custack::FAIL_STOP_STATUS),
        "{stderr}"
    );
    assert!(
        stderr.contains("custack: fail-stop (exit status 75): CUDA_ERROR_ILLEGAL_ADDRESS (700)")
            && stderr.contains("a fault, on purpose"),
        "{stderr}"
    );
    // The child ended without finishing its test: no unwinding, no test result.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("test result"));
}

#[test]
fn observers_describe_themselves() {
    use custack::Observer;
    assert_eq!(Observer::ScopeEnd.describe(), "the end of a stream scope");
    assert_eq!(Observer::Launch.describe(), "a launch");
    assert_eq!(Observer::DriverCall.describe(), "a driver call");
}

/// This test binary, to run again in a child process, the way the test runner ran it: under a
/// cross target's emulator (`scripts/platforms.sh` runs the aarch64 tests under qemu-user and
/// sets `CUSTACK_TEST_RUNNER` to its command line), through that emulator.
fn this_test_binary() -> std::process::Command {
    let exe = std::env::current_exe().unwrap();
    let runner = std::env::var("CUSTACK_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut command = std::process::Command::new(program);
            command.args(words).arg(exe);
            command
        }
        None => std::process::Command::new(exe),
    }
}
