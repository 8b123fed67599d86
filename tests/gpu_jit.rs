//! The JIT compiler and linker on a device: PTX with options and logs, PTX from a file, two PTX
//! files linked into one image, and a module's functions enumerated.
mod common;
use common::{KERNELS, context};
use custack::prelude::*;
use custack::{ErrorKind, JitOptions, LaunchConfig, Stack};

const LINK_LIB: &str = include_str!("fixtures/link_lib.ptx");
const LINK_MAIN: &str = include_str!("fixtures/link_main.ptx");

/// Set in the child that [`jit_options_logs_files_and_enumeration`] starts.
const COLD_CACHE_ENV: &str = "CUSTACK_TEST_JIT_COLD_CACHE";

/// The driver keeps JIT results in a cache across processes (`~/.nv/ComputeCache`): a PTX
/// compiled before, by any process of the machine, loads from there and its verbose compile has
/// no info log. So the test runs in a child process with the cache off (`CUDA_CACHE_DISABLE=1`,
/// read by the driver at `cuInit`, which a process cannot change for itself once threads run):
/// found on two H200s where four lanes of the suite JIT-compiled the same PTX at once.
#[test]
#[ignore = "needs a CUDA device"]
fn jit_options_logs_files_and_enumeration() {
    if std::env::var_os(COLD_CACHE_ENV).is_none() {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "jit_options_logs_files_and_enumeration",
                "--include-ignored",
                "--nocapture",
            ])
            .env(COLD_CACHE_ENV, "1")
            .env("CUDA_CACHE_DISABLE", "1")
            .status()
            .unwrap();
        assert!(
            status.success(),
            "the child with the JIT cache off: {status}"
        );
        return;
    }
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let options = JitOptions {
        optimization_level: Some(3),
        max_registers: Some(32),
        line_info: true,
        verbose: true,
        ..Default::default()
    };
    let (module, log) = guard.load_ptx_with(KERNELS, &options).unwrap();
    println!("JIT in {} ms; info log:\n{}", log.wall_time_ms, log.info);
    assert!(!log.info.is_empty(), "a verbose compile has an info log");
    assert!(log.wall_time_ms >= 0.0);
    let hog = module.function("register_hog").unwrap();
    assert!(hog.attributes().unwrap().registers_per_thread <= 32);

    // A failure carries both logs.
    let err = guard
        .load_ptx_with(".version 6.0\n.target sm_50\nnot ptx", &options)
        .map(drop)
        .unwrap_err();
    assert!(
        err.detail().unwrap_or_default().contains("JIT error log"),
        "{err}"
    );

    // From a file, and a file that is not there.
    let path = std::env::temp_dir().join(format!("custack-jit-{}.ptx", std::process::id()));
    std::fs::write(&path, KERNELS).unwrap();
    let from_file = guard.load_ptx_file(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    from_file.function("add_u32").unwrap();
    let err = guard.load_ptx_file(&path).map(drop).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);

    // Every function, by name.
    let mut names: Vec<String> = module
        .functions()
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    names.sort();
    println!("{names:?}");
    for expected in ["add_u32", "empty", "vector_add", "register_hog"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_ptx_files_linked_into_one_image() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    // Alone, the kernel's call to `plus_one` is unresolved.
    assert!(guard.load_ptx(LINK_MAIN).is_err());
    let mut linker = guard.linker(&JitOptions::default()).unwrap();
    linker.add_ptx("link_lib.ptx", LINK_LIB).unwrap();
    linker.add_ptx("link_main.ptx", LINK_MAIN).unwrap();
    let (image, log) = linker.complete().unwrap();
    println!(
        "linked {} bytes in {} ms",
        image.as_bytes().len(),
        log.wall_time_ms
    );
    assert!(image.as_bytes().starts_with(b"\x7fELF"));
    // The driver's own cubin passes custack's checks of every section and segment extent, and
    // loads as a cubin; the same bytes one short are refused before the driver reads them.
    // SAFETY: a complete cubin the driver's linker just wrote.
    let again = unsafe { guard.load_cubin(image.as_bytes()) }.unwrap();
    drop(again);
    let short = &image.as_bytes()[..image.as_bytes().len() - 1];
    // SAFETY: refused by the extent checks before the driver sees it (asserted); and the byte
    // cut off is still the linker's live image, so no read could leave valid memory.
    let refused = unsafe { guard.load_cubin(short) }.map(drop).unwrap_err();
    assert_eq!(
        refused.kind(),
        custack::ErrorKind::InvalidImage,
        "{refused}"
    );
    println!("{refused}");
    let module = guard.load_linked(&image).unwrap();
    drop(linker); // the module no longer needs the linker's image
    let f = module.function("call_plus_one").unwrap();
    let stream = guard.stream().unwrap();
    let (x, _) = stream
        .submit((guard.alloc_from(&[41u32]).unwrap(), f), |s, (mut x, f)| {
            // SAFETY: call_plus_one(unsigned* x) increments x[0]; `x` holds one element.
            unsafe { s.launch(&f, LaunchConfig::for_elements(1), (&mut x,)) }
        })
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), [42]);

    // Linking without the definition fails, with the linker's log naming what is missing.
    let mut linker = guard.linker(&JitOptions::default()).unwrap();
    linker.add_ptx("link_main.ptx", LINK_MAIN).unwrap();
    let err = linker.complete().map(drop).unwrap_err();
    println!("{err}");
    assert!(err.to_string().contains("plus_one"), "{err}");
}

/// After a load fails (a PTX version newer than the driver), linking PTX with an undefined
/// symbol must still fail: driver 580 was seen to return success and an image there while its
/// error log named the symbol (found by `examples/08_jit_errors`). custack reports
/// `LinkerErrorLogged` (or the driver's own error) and hands out no image.
#[test]
#[ignore = "needs a CUDA device"]
fn undefined_symbol_fails_to_link_after_a_failed_load() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let too_new = ".version 99.0\n.target sm_50\n.address_size 64\n";
    let err = guard.load_ptx(too_new).map(drop).unwrap_err();
    println!("too new: {:?}", err.kind());
    let mut linker = guard.linker(&JitOptions::default()).unwrap();
    linker.add_ptx("link_main.ptx", LINK_MAIN).unwrap();
    let err = linker.complete().map(drop).unwrap_err();
    println!("link: {:?}: {err}", err.kind());
    assert!(err.to_string().contains("plus_one"), "{err}");
}

/// An input the linker rejected is left out, and its error must not fail the link of the good
/// inputs added after it (the error log buffer outlives each call; custack empties it after a
/// failed one).
#[test]
#[ignore = "needs a CUDA device"]
fn a_rejected_input_does_not_fail_a_later_link() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let mut linker = guard.linker(&JitOptions::default()).unwrap();
    let bad = ".version 6.0\n.target sm_50\n.address_size 64\nthis is not ptx;\n";
    let err = linker.add_ptx("bad.ptx", bad).unwrap_err();
    println!("rejected: {err}");
    linker.add_ptx("link_lib.ptx", LINK_LIB).unwrap();
    linker.add_ptx("link_main.ptx", LINK_MAIN).unwrap();
    let (image, log) = linker.complete().unwrap();
    assert!(log.error.is_empty(), "{}", log.error);
    guard.load_linked(&image).unwrap();
}
