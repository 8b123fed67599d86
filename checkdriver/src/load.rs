//! What happens at load and at exit: `on_load` (from `.init_array`) marks the load where the
//! runner asks (`NULLDRIVER_LOADED`), reads the environment (`NULLDRIVER_CHECK` and the
//! schedules, `NULLDRIVER_TRACE`, `NULLDRIVER_DRIVER_VERSION`, `NULLDRIVER_DUMP`), the report
//! is written at exit, and a blocking wait on hung work ends the process at once (`hang_exit`).

use crate::api::dump_counts;
use crate::extensions::custackCheckdriverSetDriverVersion;
use crate::{HUNG_EXIT, check, trace};
use core::ffi::c_int;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

unsafe extern "C" {
    fn atexit(f: extern "C" fn()) -> c_int;
    fn _exit(status: c_int) -> !;
}

/// `what`, a blocking wait, waits for hung work (`NULLDRIVER_HANG_AT`): in a real process it
/// would never return (or the hang watchdog found no progress for `NULLDRIVER_HANG_IDLE_SECS`).
/// The report is written with the line `hung <what>`, and the process ends at once with
/// `HUNG_EXIT` (no destructor, no other exit handler: the program is still in the middle of
/// its work).
pub(crate) fn hang_exit(what: String) -> ! {
    // Once: a second thread blocking (or the watchdog) must not rewrite the report while the
    // first one's `_exit` ends the process; it waits for that end, as it would wait forever.
    if HANG_EXITING.swap(true, Relaxed) {
        loop {
            std::thread::park();
        }
    }
    check::blocked(what);
    write_report_now();
    // SAFETY: `_exit` has no preconditions; it ends the process without running handlers.
    unsafe { _exit(HUNG_EXIT) }
}

/// Set by the first `hang_exit`: the process is ending with the report it writes.
static HANG_EXITING: AtomicBool = AtomicBool::new(false);

/// At exit: the report, unless a hang's exit is writing it.
extern "C" fn write_report() {
    // A forked child's exit writes none: the report is the parent's, which counts the calls its
    // forked children made (`forked-calls`).
    if !HANG_EXITING.load(Relaxed) && !check::in_forked_child() {
        write_report_now();
    }
}

fn write_report_now() {
    use std::io::Write;
    let text = check::report();
    match std::env::var_os("NULLDRIVER_REPORT") {
        Some(path) if !path.is_empty() => {
            let _ = std::fs::write(path, text);
        }
        _ => {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
}

pub(crate) extern "C" fn on_load() {
    // Once: a program that links the double as an rlib may also call `start_from_env`.
    static LOADED: AtomicBool = AtomicBool::new(false);
    if LOADED.swap(true, Relaxed) {
        return;
    }
    // The runner's sign that the program loaded this library (`NULLDRIVER_LOADED`, a path):
    // written now, so that a program that then dies without its exit handlers (a crash, a
    // signal, `_exit`) is told apart from one that never loaded the checking driver.
    if let Some(path) = std::env::var_os("NULLDRIVER_LOADED").filter(|p| !p.is_empty()) {
        let _ = std::fs::write(path, format!("{}\n", std::process::id()));
    }
    trace::init();
    if check::init() {
        // SAFETY: registers a function with no preconditions.
        unsafe { atexit(write_report) };
        check::watch_forks();
    }
    if let Some(v) = std::env::var("NULLDRIVER_DRIVER_VERSION")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        let _ = custackCheckdriverSetDriverVersion(v);
    }
    if std::env::var_os("NULLDRIVER_DUMP").is_some_and(|v| !v.is_empty() && v != "0") {
        crate::api::start_counting();
        // SAFETY: registers a function with no preconditions.
        unsafe { atexit(dump_counts) };
    }
}

#[used]
#[unsafe(link_section = ".init_array")]
static ON_LOAD: extern "C" fn() = on_load;
