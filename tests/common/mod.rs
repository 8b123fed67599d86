//! Fixtures shared by the GPU tests.
#![allow(dead_code)]

use custack::{Context, ContextFlags, Device, Driver};

/// Hand-written PTX: `vector_add`, `add_u32`, `empty`, `empty_ptr`, `illegal_write`,
/// `trap_kernel`, `count_threads`, `register_hog` and the global `counters: [u32; 4]`.
pub(crate) const KERNELS: &str = include_str!("../fixtures/kernels.ptx");

/// Device 0 of an initialized driver. Fails (so GPU tests fail, never pass) without a device.
pub(crate) fn device() -> Device {
    let driver = Driver::init().expect("needs a CUDA device: Driver::init failed");
    driver.device(0).expect("needs a CUDA device: no device 0")
}

/// A fresh created context on device 0.
pub(crate) fn context() -> Context {
    Context::new(device(), ContextFlags::empty()).expect("creating a context on device 0")
}

/// The context current on this thread according to the driver (null if none).
pub(crate) fn current_raw() -> custack::ffi::CUcontext {
    let mut cur = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { custack::ffi::cuCtxGetCurrent(&raw mut cur) };
    assert_eq!(r, custack::ffi::CUresult::CUDA_SUCCESS);
    cur
}

/// Drives a future on this thread, parking until its waker unparks it, for at most `limit`:
/// its output and how many polls it took, or `None` if `limit` passed first (a future whose
/// wakeup never comes fails the test instead of hanging it).
pub(crate) fn block_on_within<F: std::future::Future>(
    f: F,
    limit: std::time::Duration,
) -> Option<(F::Output, usize)> {
    use std::sync::Arc;
    use std::task::{Context as TaskContext, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut f = std::pin::pin!(f);
    let deadline = std::time::Instant::now() + limit;
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(v) = f.as_mut().poll(&mut TaskContext::from_waker(&waker)) {
            return Some((v, polls));
        }
        let now = std::time::Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::park_timeout(deadline - now);
    }
}

/// Whether this build linked no libcuda: build.rs found none, so `cfg(custack_no_libcuda)` is
/// set and every driver call returns `CUDA_ERROR_NO_DEVICE` (plain `cargo test` on a machine
/// without the NVIDIA driver). A test that compares with the driver library's own answers then
/// checks what such a build promises instead, and says so here; `bash scripts/test.sh` fetches a
/// driver library and runs the comparison.
pub(crate) fn built_without_libcuda(test: &str) -> bool {
    let without = cfg!(custack_no_libcuda);
    if without {
        skipped(&format!(
            "{test}: SKIPPED the comparison with the driver library: this build linked no \
             libcuda (bash scripts/test.sh fetches one); checked what a build without one \
             promises instead"
        ));
    }
    without
}

/// Says what a passing test skipped, where `cargo test` shows it: written to the process's
/// stderr directly, which the test harness does not capture (it captures `print!`).
pub(crate) fn skipped(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Runs the test `name` of this binary again, alone in a child process, and asserts that it
/// passed; returns `true` in that child, where the test does its work. For the restricted
/// profile: `Profile::init` must come before any `Driver::init` of its process (which registers
/// the driver's log callback), and the other tests of a binary call `Driver::init` in an order
/// the harness chooses.
pub(crate) fn alone_in_a_process(name: &str) -> bool {
    const CHILD: &str = "CUSTACK_TEST_ALONE";
    if std::env::var(CHILD).as_deref() == Ok(name) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut command = match std::env::var("CUSTACK_TEST_RUNNER") {
        Ok(runner) if !runner.is_empty() => {
            let mut words = runner.split_whitespace();
            let mut c = std::process::Command::new(words.next().unwrap_or_default());
            c.args(words).arg(exe);
            c
        }
        _ => std::process::Command::new(exe),
    };
    let status = command
        .args(["--exact", name, "--include-ignored", "--nocapture"])
        .env(CHILD, name)
        .status()
        .expect("running the test binary again");
    assert!(
        status.success(),
        "{name}, alone in a child process: {status}"
    );
    false
}
