//! custack's checking driver: a CUDA driver library, `libcuda.so` (soname `libcuda.so.1`), that
//! needs no GPU. It serves two purposes:
//!
//! - **Testing programs without a GPU** (the checking mode, `NULLDRIVER_CHECK=1`, `check.rs`):
//!   it records every context, stream, allocation and pending operation, fails driver call k
//!   (`NULLDRIVER_FAIL_AT=k`) or every call from k on (`NULLDRIVER_STICKY_AT=k`: a sticky error;
//!   `NULLDRIVER_REPEAT_AT=k`: the same error that is not sticky, for ever;
//!   `NULLDRIVER_LOST_AT=k`: a lost device, `CUDA_ERROR_DEVICE_UNAVAILABLE` for ever and its
//!   pending work never completing), makes the first asynchronous enqueue at or after call k
//!   never complete (`NULLDRIVER_HANG_AT=k`: a blocking wait on it ends the process with status
//!   [`HUNG_EXIT`] and a `hung` line in the report), corrupts one replica of a redundant kernel (`NULLDRIVER_INJECT=SEED`, `inject.rs`:
//!   bits flipped in what a launch on a second partition's stream wrote, or the launch dropped),
//!   and reports wrong-context calls, double frees, leaks and memory freed under pending work. The runner `custack-check` (`src/bin/custack-check`) runs a program, or a
//!   test binary, under every such schedule (`--hangs`: one hang per enqueue of the clean run):
//!
//!   ```text
//!   cargo run --release --manifest-path <custack>/checkdriver/Cargo.toml --bin custack-check -- --cargo [-- test filter]
//!   cargo run --release --manifest-path <custack>/checkdriver/Cargo.toml --bin custack-check -- <test binary> [test filter]
//!   cargo run --release --manifest-path <custack>/checkdriver/Cargo.toml --bin custack-check -- --hangs <test binary> [test filter]
//!   ```
//!
//!   `custack-check --lib-dir` prints the directory holding this library as `libcuda.so` and
//!   `libcuda.so.1`. A program built against custack loads it at run time when that directory
//!   leads `LD_LIBRARY_PATH` (custack's build emits no rpath); on a machine with no libcuda at
//!   all, build with `CUDA_DRIVER_LIB_DIR` set to it, so that custack links it. The guide page
//!   "Testing GPU code without a GPU" (`custack::guide::testing`) shows the whole workflow.
//! - **Measuring what a wrapper costs by itself** (the default mode): every entry point returns
//!   at once.
//!
//! Every entry point that custack's raw layer declares, and every one that the benchmark's cudarc
//! calls, returns `CUDA_SUCCESS` at once. Out-parameters get plausible values: non-null handles, a
//! device count of 1, driver version 12020 (or the version `NULLDRIVER_DRIVER_VERSION` or
//! `custackCheckdriverSetDriverVersion` sets), compute capability 9.0, 132 SMs and memory pools
//! supported (as an H100 reports), real page-locked host memory from `posix_memalign` (wrappers write to it).
//! The per-thread context stack is kept for real, because wrappers check what they pop.
//!
//! Calls are counted per entry point while counting is on (relaxed atomics; off by default, so
//! timing runs pay one load and a branch per call):
//! - `nulldriver_set_counting(1)` turns it on, `nulldriver_counts(buf, cap)` copies the counters,
//!   `nulldriver_entry_count()` and `nulldriver_entry_name(i)` name them (the benchmark finds
//!   these with `dlsym`, which is also how it tells the null driver from a real one);
//! - with `NULLDRIVER_DUMP=1` in the environment, counting starts at load and the non-zero
//!   counters are printed to stderr at exit.
//!
//! `cuGetProcAddress` and `cuGetProcAddress_v2` resolve names from the same table (trying the
//! `_v2` symbol first, as the real driver does for the API versions the benchmark asks for;
//! `cuCtxCreate` at 12.5 is `_v4`); an entry point newer than 12.2 is found only from its
//! version on (`NEWER`).
//! cudarc 0.19 itself resolves each entry point with `dlsym` on first use and never asks for it.
//!
//! [`cubin`] builds a minimal cubin (an ELF image whose symbol table names its kernels, and
//! references undefined symbols) for tests that load binary images without nvcc; in the
//! checking mode, `cuModuleGetFunction` on a module loaded from a cubin answers from its
//! symbol table ([`function_names`]). [`stand_in_cubin`] builds one that also carries its
//! kernels' PTX declarations ([`DECLARATIONS_SECTION`]), for a program that loads cubins only
//! and gives its kernels CPU stand-ins: the checking mode then reads their parameters from it.
//!
//! For the differential run against the real libcuda (`docs/validation.md`), `NULLDRIVER_TRACE=path`
//! writes a line per driver call (`trace.rs`), `NULLDRIVER_DRIVER_VERSION_MAX` caps the version a
//! program may ask for, and `custackCheckdriverFailNext` fails the next call as a real driver will.
//!
//! Built by `scripts/bench-nulldriver.sh`, `scripts/check-driver.sh` and `cargo run --bin
//! custack-check`; not part of custack's package.
//!
//! # Layout
//!
//! - `api/`: the driver API the double exports, one module per `cuda.h` group as `ffi/` is split
//!   (`error.rs`, `init.rs`, `device.rs`, `primary_ctx.rs`, `ctx.rs`, `module.rs`, `library.rs`,
//!   `memory.rs`, `vmm.rs`, `ipc.rs`, `stream.rs`, `event.rs`, `launch.rs`, `graph.rs`,
//!   `occupancy.rs`, `texture.rs`, `peer.rs`, `entry_point.rs`, `green.rs`), each declaring its
//!   entry points with `entry_points!`; `api/mod.rs` holds that macro, the one table of every
//!   entry point (`GROUPS`: the counters, `cuGetProcAddress`'s lookup) and the counters' C
//!   functions.
//! - The state the entry points keep: `check.rs` (the checking mode's record of every handle,
//!   pending work, violations, leaks, the fault schedules and the report), `stack.rs` (the
//!   per-thread context stack), `handles.rs` (fake handles and device addresses), `data.rs`
//!   (device memory's bytes), `work.rs` (work a stream runs), `standin.rs` (kernels' CPU
//!   stand-ins), `user_object.rs`, `share.rs` (exported allocations), `inject.rs` (replica
//!   faults), `trace.rs` (the differential run's trace), `mode.rs` (what all of them share).
//! - `extensions.rs`: the double's own entry points, which a real driver does not have;
//!   `load.rs`: what happens at load and at exit; `cubin.rs`, `ptx.rs`: kernel images.
//! - `tests/`: the double's own tests, one file per topic.

mod api;
mod callback;
mod check;
mod cubin;
mod data;
mod extensions;
mod handles;
mod inject;
mod library_handles;
mod load;
mod mode;
mod node_kinds;
mod ptx;
mod share;
mod stack;
mod standin;
#[cfg(test)]
mod tests;
mod trace;
mod user_object;
mod work;

pub use api::*;
pub use cubin::{
    DECLARATIONS_SECTION, EM_CUDA, cubin, declarations, function_names, stand_in_cubin,
};
pub use extensions::{
    custackCheckdriverCalls, custackCheckdriverLeftBehind, custackCheckdriverSetDriverVersion,
};
pub use library_handles::{
    custackCheckdriverLibraryAbort, custackCheckdriverLibraryCall, custackCheckdriverLibraryCreate,
    custackCheckdriverLibraryDescriptorUse, custackCheckdriverLibraryDestroy,
    custackCheckdriverLibraryEnqueue, custackCheckdriverLibraryRelease,
    custackCheckdriverLibrarySetStream, custackCheckdriverLibraryUse,
};
pub use standin::{DropFn, StandInFn, StandInLaunch, custackCheckdriverSetStandIn};
pub use trace::{custackCheckdriverFailCall, custackCheckdriverFailNext};

use core::ffi::c_int;

/// The exit status of a process that blocked on hung work (`NULLDRIVER_HANG_AT`): a blocking
/// wait that could never return in a real process ends it with this status, after the report
/// (with its `hung` line) is written. Not 0, 1, 101 (a test harness's failure), 2 (the
/// runner's own), nor 128 + a signal.
pub const HUNG_EXIT: c_int = 86;

// ---------------------------------------------------------------------------------------------
// The checking mode from Rust: for a program that links the double as an rlib (`extern crate
// cuda as _;` or a renamed dependency) instead of loading `libcuda.so`, as under Miri, where
// the environment is isolated (and `cargo miri run` replays the environment of the build).

/// Turns the checking mode on, as `NULLDRIVER_CHECK=1` does at load, failing call `fail_at`
/// and turning sticky from call `sticky_at` on (0: never), as `NULLDRIVER_FAIL_AT` and
/// `NULLDRIVER_STICKY_AT` do.
pub fn start_checking(fail_at: u64, sticky_at: u64) {
    check::start(fail_at, sticky_at, 0);
}

/// [`start_checking`] with no call failed, and the first asynchronous enqueue at or after call
/// `hang_at` never completing, as `NULLDRIVER_HANG_AT` does.
pub fn start_hanging(hang_at: u64) {
    check::start(0, 0, hang_at);
}

/// The report `NULLDRIVER_REPORT` receives at exit: `calls`, `failed`, `violations`, `leaks`,
/// `stacks`, `orphans`, `left`, then one line per violation, orphan, leak and handle left
/// behind, then `enqueues` (the call numbers of the asynchronous enqueues), `hang-at` (under
/// `NULLDRIVER_HANG_AT`) and `hung` (a blocking wait on hung work ended the process).
pub fn report() -> String {
    check::report()
}

/// Reads the environment as loading `libcuda.so` does (`NULLDRIVER_CHECK`, `NULLDRIVER_FAIL_AT`,
/// `NULLDRIVER_STICKY_AT`, `NULLDRIVER_REPEAT_AT`, `NULLDRIVER_LOST_AT`, `NULLDRIVER_FAIL_CODE`,
/// `NULLDRIVER_HANG_AT`, `NULLDRIVER_REPORT`, `NULLDRIVER_DUMP`), for a program that links the
/// double as an rlib, so that `custack-check` can run it. Only the first call (or the load)
/// acts.
pub fn start_from_env() {
    load::on_load();
}

/// The number of violations recorded so far (0 when checking is off).
pub fn violation_count() -> usize {
    mode::violation_count()
}
