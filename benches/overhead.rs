//! custack's overhead, measured: every operation three ways in one process, through the raw
//! driver calls of `custack::ffi` (the floor), through custack's safe API, and through cudarc
//! used as its documentation recommends.
//!
//! ```text
//! cargo bench -p custack-benches --bench overhead  # on a GPU machine; about 5 minutes
//! bash scripts/gpu-bundle.sh --bench overhead  # packs it; on the GPU machine: bash .gpu/run.sh
//! bash scripts/bench-nulldriver.sh  # against the do-nothing driver (checkdriver)
//! ```
//!
//! Without `--bench` (as `cargo test --all-targets` runs it) it prints how to run it and exits.
//!
//! How it measures (BENCHMARKS.md has the whole method):
//! - the parent process never touches CUDA; it re-executes itself, so every number comes from
//!   fresh processes: `CUSTACK_BENCH_PROCS` (default 6) processes run every row, and the
//!   process-start row spawns `CUSTACK_BENCH_STARTS` (default 10) more per library;
//! - in a row, the three libraries take turns sample by sample (the order rotates), after a
//!   warm-up; a sample is a batch of iterations sized to about 2 ms (or the row's fixed batch:
//!   100,000 launches, one 256 MiB copy), and its time per iteration is one sample;
//! - reported: the median of all samples of all processes, the p10-p90 spread, and the range of
//!   the per-process medians;
//! - the first process also counts heap allocations per operation (a counting global
//!   allocator) and, against the null driver, the driver calls per operation;
//! - `--callgrind` (null driver, valgrind installed) runs each row and library under callgrind,
//!   collecting only inside `custack_bench_measured`, and reports instructions per operation.
//!
//! All three libraries use the device's primary context, so they work on the same context.
//! Results go to stdout and, when `OUT` is set, to `$OUT/bench.md`. Nothing here asserts a time.

// Benchmark code, not library code: these pedantic lints are noise here.
#![allow(
    clippy::cast_precision_loss,    // nanosecond counts and sample counts become f64 for statistics
    clippy::too_many_lines,         // each row's setup reads best in one place
    clippy::items_after_statements, // closures and helpers sit next to the row that uses them
    clippy::inline_always           // the measured loops must inline their operation
)]

use core::ffi::{c_char, c_int, c_void};
use cudarc::driver::{CudaContext, LaunchConfig as CuLaunchConfig, PushKernelArg, sys as cusys};
use cudarc::nvrtc::Ptx;
use custack::prelude::*;
use custack::{Context, Deadline, Driver, EventFlags, LaunchConfig, Overrun, Stack, ffi};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::fmt::{Debug, Write as _};
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");

// ---------------------------------------------------------------------------------------------
// Heap allocations: counted (all threads) only while `COUNT_ALLOCS` is on.

struct CountingAlloc;

static COUNT_ALLOCS: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

fn note_alloc() {
    if COUNT_ALLOCS.load(Relaxed) {
        ALLOCS.fetch_add(1, Relaxed);
    }
}

// SAFETY: forwards every call to the system allocator with the same arguments; only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc();
        // SAFETY: `ptr` came from `System` through this allocator, with this layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

// ---------------------------------------------------------------------------------------------
// Failing: a benchmark that hits an error reports it and stops; it never measures past one.

#[cold]
#[inline(never)]
fn fail(what: &str, error: &dyn Debug) -> ! {
    eprintln!("overhead: {what} failed: {error:?}");
    std::process::exit(1)
}

#[inline(always)]
fn must<T, E: Debug>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => fail(what, &e),
    }
}

/// Checks a raw driver call's result, as any raw caller must.
#[inline(always)]
fn ok(r: ffi::CUresult, what: &str) {
    if r != ffi::CUresult::CUDA_SUCCESS {
        fail(what, &r.0);
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// ---------------------------------------------------------------------------------------------
// The null driver's counters, found with dlsym: present only when the null driver is loaded.

struct NullDriver {
    set_counting: unsafe extern "C" fn(c_int),
    counts: unsafe extern "C" fn(*mut u64, usize) -> usize,
    names: Vec<String>,
}

impl NullDriver {
    fn find() -> Option<Self> {
        #[cfg(unix)]
        fn sym(name: &core::ffi::CStr) -> Option<*mut c_void> {
            // SAFETY: `name` is NUL-terminated; RTLD_DEFAULT searches the global scope, which
            // holds the libcuda this binary links.
            let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
            (!p.is_null()).then_some(p)
        }
        // The null driver is a `libcuda.so` double (checkdriver): there is none to find elsewhere.
        #[cfg(not(unix))]
        fn sym(_name: &core::ffi::CStr) -> Option<*mut c_void> {
            None
        }
        let set = sym(c"nulldriver_set_counting")?;
        let counts = sym(c"nulldriver_counts")?;
        let entry_count = sym(c"nulldriver_entry_count")?;
        let entry_name = sym(c"nulldriver_entry_name")?;
        // SAFETY: checkdriver defines these symbols with exactly these signatures.
        let set_counting =
            unsafe { core::mem::transmute::<*mut c_void, unsafe extern "C" fn(c_int)>(set) };
        // SAFETY: as above.
        let counts = unsafe {
            core::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut u64, usize) -> usize>(
                counts,
            )
        };
        // SAFETY: as above.
        let entry_count =
            unsafe { core::mem::transmute::<*mut c_void, extern "C" fn() -> usize>(entry_count) };
        // SAFETY: as above.
        let entry_name = unsafe {
            core::mem::transmute::<*mut c_void, extern "C" fn(usize) -> *const c_char>(entry_name)
        };
        let names = (0..entry_count())
            .map(|i| {
                let p = entry_name(i);
                if p.is_null() {
                    return String::new();
                }
                // SAFETY: the null driver returns static NUL-terminated names.
                unsafe { core::ffi::CStr::from_ptr(p) }
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        Some(Self {
            set_counting,
            counts,
            names,
        })
    }

    fn snapshot(&self) -> Vec<u64> {
        let mut v = vec![0u64; self.names.len()];
        // SAFETY: `v` holds `names.len()` counters, the capacity passed.
        unsafe { (self.counts)(v.as_mut_ptr(), v.len()) };
        v
    }

    fn counting(&self, on: bool) {
        // SAFETY: no preconditions.
        unsafe { (self.set_counting)(c_int::from(on)) };
    }
}

// ---------------------------------------------------------------------------------------------
// Rows.

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Lib {
    Raw,
    Custack,
    Cudarc,
}

const LIBS: [Lib; 3] = [Lib::Raw, Lib::Custack, Lib::Cudarc];

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Raw => "raw",
            Lib::Custack => "custack",
            Lib::Cudarc => "cudarc",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        LIBS.into_iter().find(|l| l.name() == s)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Batch {
    /// Iterations per sample chosen so a sample takes about `TARGET`.
    Calibrate,
    /// This many iterations per sample (the row's definition).
    Fixed(u64),
}

struct Row {
    id: &'static str,
    label: &'static str,
    batch: Batch,
    /// A big copy (`CUSTACK_BENCH_BIG_MIB` per iteration): the bandwidth is reported too.
    big: bool,
    /// The enqueue-only row derived from the same batches, if any.
    enqueue: Option<(&'static str, &'static str)>,
}

const LAUNCHES: u64 = 100_000;
/// The deadline of the bounded waits' rows (¹¹): far beyond an empty kernel's few microseconds,
/// so every wait ends by the work completing, as the unbounded one does.
const WAIT_BOUND: std::time::Duration = std::time::Duration::from_secs(10);

custack::kernel_contract! {
    /// `empty_ptr(unsigned* x)`: touches nothing; declared as touching one element per launched
    /// thread, so that each launch pays a real extent check.
    unsafe kernel EmptyPtr = "empty_ptr"(x: &[u32; grid]);
    /// `index_2d(unsigned* out, unsigned width)` (`tests/fixtures/contracts.ptx`):
    /// `out[y * width + x] = y * width + x` per launched thread, no bounds check.
    unsafe kernel Index2d = "index_2d"(out: &mut [u32; grid_y * width], width: u32)
        requires(width > 0, grid_x <= width, blocks_z == 1);
}

const CONTRACTS: &str = include_str!("../tests/fixtures/contracts.ptx");
/// The 2-D row's launch: 2 × 2 blocks of 32 × 1 threads, rows of 64.
const GRID_2D: (u32, u32, u32) = (2, 2, 1);
const BLOCK_2D: (u32, u32, u32) = (32, 1, 1);
const WIDTH_2D: u32 = 64;
const ELEMENTS_2D: usize = 128;

const ROWS: &[Row] = &[
    Row {
        id: "push_pop",
        label: "context push + pop ¹",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "stream",
        label: "stream create + destroy ²",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "events",
        label: "2 event records + synchronize + elapsed",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "htod4",
        label: "4 B host→device, synchronous ³",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "htod4_async",
        label: "4 B host→device, async + stream sync",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "htod_pinned",
        label: "BIG host→device, page-locked ⁴",
        batch: Batch::Fixed(1),
        big: true,
        enqueue: None,
    },
    Row {
        id: "htod_pageable",
        label: "BIG host→device, pageable ⁴",
        batch: Batch::Fixed(1),
        big: true,
        enqueue: None,
    },
    Row {
        id: "dtoh_pinned",
        label: "BIG device→host, page-locked ⁴",
        batch: Batch::Fixed(1),
        big: true,
        enqueue: None,
    },
    Row {
        id: "dtoh_pageable",
        label: "BIG device→host, pageable ⁴",
        batch: Batch::Fixed(1),
        big: true,
        enqueue: None,
    },
    Row {
        id: "launch_empty",
        label: "empty kernel, 100,000 launches + 1 sync, per launch",
        batch: Batch::Fixed(LAUNCHES),
        big: false,
        enqueue: Some(("launch_empty_enqueue", "empty kernel, launch enqueue only")),
    },
    Row {
        id: "launch_ptr",
        label: "1-buffer kernel, 100,000 launches + 1 sync, per launch",
        batch: Batch::Fixed(LAUNCHES),
        big: false,
        enqueue: Some(("launch_ptr_enqueue", "1-buffer kernel, launch enqueue only")),
    },
    Row {
        id: "launch_checked",
        label: "1-buffer kernel, checked signature, 100,000 launches + 1 sync, per launch ⁸",
        batch: Batch::Fixed(LAUNCHES),
        big: false,
        enqueue: Some((
            "launch_checked_enqueue",
            "1-buffer kernel, checked signature, launch enqueue only ⁸",
        )),
    },
    Row {
        id: "launch_contract",
        label: "1-buffer kernel, contract launch (safe), 100,000 launches + 1 sync, per launch ⁹",
        batch: Batch::Fixed(LAUNCHES),
        big: false,
        enqueue: Some((
            "launch_contract_enqueue",
            "1-buffer kernel, contract launch (safe), launch enqueue only ⁹",
        )),
    },
    Row {
        id: "launch_named",
        label: "1-buffer kernel, contract launch, launches named, 10,000 launches + 1 sync, per launch ¹²",
        batch: Batch::Fixed(LAUNCHES / 10),
        big: false,
        enqueue: Some((
            "launch_named_enqueue",
            "1-buffer kernel, contract launch, launches named, launch enqueue only ¹²",
        )),
    },
    Row {
        id: "launch_contract_2d",
        label: "2-D kernel, contract launch (safe), 100,000 launches + 1 sync, per launch ¹⁰",
        batch: Batch::Fixed(LAUNCHES),
        big: false,
        enqueue: Some((
            "launch_contract_2d_enqueue",
            "2-D kernel, contract launch (safe), launch enqueue only ¹⁰",
        )),
    },
    Row {
        id: "launch_sync",
        label: "empty kernel, launch + stream sync",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "launch_sync_deadline",
        label: "empty kernel, launch + stream sync, scope with a deadline ¹¹",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "submission_sync",
        label: "empty kernel, submission + wait ¹¹",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "submission_sync_deadline",
        label: "empty kernel, submission + wait with a deadline ¹¹",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "alloc",
        label: "alloc + free 1 MiB ⁵",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
    Row {
        id: "alloc_async",
        label: "alloc + free 1 MiB, stream-ordered ⁶",
        batch: Batch::Calibrate,
        big: false,
        enqueue: None,
    },
];

const FIRST_CONTEXT: (&str, &str) = ("first_context", "process start → first context ⁷");

const FOOTNOTES: &str = "\
¹ cudarc has no push/pop: its column is `CudaContext::bind_to_thread()` with the context already \
current, the check that cudarc's safe API makes before almost every driver call.\n\
² custack: `guard.stream()` (CU_STREAM_DEFAULT); cudarc: `ctx.new_stream()` (non-blocking) while \
another stream of the context is alive (with none alive, `new_stream` adds a context synchronize).\n\
³ cudarc has no blocking copy: its column is `default_stream().memcpy_htod` + `synchronize()`.\n\
⁴ raw and custack: the synchronous copy (`cuMemcpyHtoD`/`DtoH`); cudarc: `memcpy_htod`/`dtoh` on \
its stream + `synchronize()`. Page-locked memory from `cuMemHostAlloc` with flags 0 for all three \
(cudarc: `alloc_pinned_with_flags(len, 0)`; its `alloc_pinned` would add write-combining).\n\
⁵ raw and custack: `cuMemAlloc` + `cuMemFree`; cudarc allocates stream-ordered whenever the device \
supports memory pools (the H100 and the null driver do): its column is `default_stream().alloc` + drop.\n\
⁶ raw: `cuMemAllocAsync` + `cuMemFreeAsync` on a stream, one synchronize per batch; custack: \
`StreamScope::alloc` + drop inside one `Stream::scope`, whose end is the synchronize; cudarc: `stream.alloc` + drop on its stream, one synchronize per batch.\n\
⁷ spawn of this same binary until it reports its first context current (raw: cuInit, cuDeviceGet, \
cuDevicePrimaryCtxRetain, cuCtxPushCurrent; custack: `Driver::init`, `Context::primary`, \
`Stack::push`; cudarc: `CudaContext::new(0)`), over fresh processes taken in turn.\n\
⁸ the same launch as the 1-buffer row; custack's column launches a `Kernel` whose signature \
`Module::kernel` checked once against `cuFuncGetParamInfo` (`StreamScope::launch_kernel`), raw \
and cudarc launch as in that row: the check costs nothing per launch.\n\
⁹ the same launch as the 1-buffer row, without `unsafe`: custack's column launches a kernel \
declared with `kernel_contract!` (`StreamScope::run`), which checks the buffer's length against \
its extent (`grid`: one element per launched thread, six checked multiplications and a compare) \
before each launch; raw and cudarc launch as in that row.\n\
¹⁰ `index_2d(out, width)` (`tests/fixtures/contracts.ptx`, writes `out[y * width + x]` with no \
bounds check) on 2 × 2 blocks of 32 × 1 threads, rows of 64, 128 elements; raw: \
`cuLaunchKernel`; custack: `StreamScope::run` of its contract, which checks \
`requires(width > 0, grid_x <= width, blocks_z == 1)` and the extent `grid_y * width` before \
each launch; cudarc: its launch builder with the same two arguments.\n\
¹¹ the bounded waits (R19) beside the unbounded ones, all launching `empty()`: raw and cudarc as in \
the launch + stream sync row; custack: `Stream::scope_by` (deadline 10 s, `Overrun::KeepWaiting`), \
whose end asks `cuStreamQuery` until the stream is idle; `Stream::submit` (`cuEventRecord`, the \
submission's event created once per submission) + `Submission::wait` (`cuEventSynchronize`) or \
`wait_by` (`cuEventQuery` until complete).\n\
¹² the contract launch of row ⁹ with launches named (`custack::name_launches(true)`): each launch \
also records its kernel and call site and is followed by a host function (`cuLaunchHostFunc`) \
that marks it complete; raw and cudarc launch as in row ⁹.\n";

/// What one batch measured.
#[derive(Clone, Copy)]
struct Timing {
    total: Duration,
    /// Launch rows: the time to enqueue the launches, before the final synchronize.
    enqueue: Option<Duration>,
}

impl Timing {
    fn total(total: Duration) -> Self {
        Self {
            total,
            enqueue: None,
        }
    }
}

/// Times `n` iterations of `f`.
#[inline(always)]
fn time_loop(n: u64, mut f: impl FnMut()) -> Timing {
    let t0 = Instant::now();
    for _ in 0..n {
        f();
    }
    Timing::total(t0.elapsed())
}

type Op<'a> = &'a mut dyn FnMut(u64) -> Timing;

/// The loop that callgrind counts (`--toggle-collect=custack_bench_measured`).
// Unmangled only so that callgrind can name it; nothing calls it from C.
#[allow(clippy::no_mangle_with_rust_abi)]
#[unsafe(no_mangle)]
#[inline(never)]
fn custack_bench_measured(op: &mut dyn FnMut(u64) -> Timing, n: u64) -> Timing {
    op(std::hint::black_box(n))
}

// ---------------------------------------------------------------------------------------------
// Child: runs the rows and prints results, one line each, for the parent.
//   S <row> <lib> <ns per iteration, comma-separated>
//   C <row> <lib> <iterations> <entry=count;...>   (null driver: driver calls in the batch)
//   A <row> <lib> <iterations> <heap allocations>
//   I <key> <value>

enum Mode {
    Time { counts: bool },
    Ir { row: String, lib: Lib, iters: u64 },
}

struct Runner {
    mode: Mode,
    null: Option<NullDriver>,
    target: Duration,
    filter: Option<Vec<String>>,
    out: std::io::StdoutLock<'static>,
}

impl Runner {
    fn wants(&self, id: &str) -> bool {
        match &self.mode {
            Mode::Ir { row, .. } => row == id,
            Mode::Time { .. } => self
                .filter
                .as_ref()
                .is_none_or(|f| f.iter().any(|x| x == id)),
        }
    }

    fn emit(&mut self, line: &str) {
        if writeln!(self.out, "{line}").is_err() {
            std::process::exit(1);
        }
    }

    fn row(&mut self, row: &Row, raw: Op<'_>, custack: Option<Op<'_>>, cudarc: Op<'_>) {
        let mut ops: Vec<(Lib, Op<'_>)> = vec![(Lib::Raw, raw)];
        if let Some(c) = custack {
            ops.push((Lib::Custack, c));
        }
        ops.push((Lib::Cudarc, cudarc));
        match &self.mode {
            Mode::Ir { row, lib, iters } => {
                let (row, lib, iters) = (row.clone(), *lib, *iters);
                if let Some((_, op)) = ops.iter_mut().find(|(l, _)| *l == lib) {
                    op(16); // warm-up: cudarc resolves each entry point on first use
                    let t = custack_bench_measured(&mut **op, iters);
                    std::hint::black_box(t.total);
                    self.emit(&format!("I ir_done {row}"));
                }
            }
            &Mode::Time { counts } => {
                self.time_row(row, &mut ops);
                if counts {
                    self.count_row(row, &mut ops);
                }
            }
        }
    }

    /// A row's batch here: against the null driver a single big copy is too quick to time
    /// alone, so those rows are calibrated like the others.
    fn batch(&self, row: &Row) -> Batch {
        match row.batch {
            Batch::Fixed(1) if self.null.is_some() => Batch::Calibrate,
            b => b,
        }
    }

    fn time_row(&mut self, row: &Row, ops: &mut [(Lib, Op<'_>)]) {
        let batch = self.batch(row);
        let iters = match batch {
            Batch::Fixed(n) => n,
            Batch::Calibrate => {
                let Some((_, first)) = ops.first_mut() else {
                    return;
                };
                let mut n = 1u64;
                loop {
                    let t = first(n).total;
                    if t >= self.target || n >= 1 << 24 {
                        break;
                    }
                    // Aim straight at the target once a batch takes measurable time.
                    let grow = if t > Duration::from_micros(50) {
                        (self.target.as_secs_f64() / t.as_secs_f64()).clamp(1.1, 16.0)
                    } else {
                        8.0
                    };
                    n = ((n as f64 * grow).ceil() as u64).max(n + 1);
                }
                n
            }
        };
        // Warm-up: rounds of one batch each, for at least 30 ms (at most 10 rounds); the slowest
        // batch sets the number of samples for fixed batches.
        let mut slowest = Duration::ZERO;
        let warm = Instant::now();
        for round in 0..10 {
            if round > 0 && warm.elapsed() > Duration::from_millis(30) {
                break;
            }
            for (_, op) in ops.iter_mut() {
                slowest = slowest.max(op(iters).total);
            }
        }
        let samples = match batch {
            Batch::Calibrate => 15,
            Batch::Fixed(_) => {
                let budget = Duration::from_millis(400).as_secs_f64();
                ((budget / slowest.as_secs_f64().max(1e-9)) as usize).clamp(3, 15)
            }
        };
        let k = ops.len();
        let mut totals: Vec<Vec<f64>> = vec![Vec::new(); k];
        let mut enqueues: Vec<Vec<f64>> = vec![Vec::new(); k];
        for s in 0..samples {
            for j in 0..k {
                let i = (s + j) % k;
                let (Some((_, op)), Some(tot), Some(enq)) =
                    (ops.get_mut(i), totals.get_mut(i), enqueues.get_mut(i))
                else {
                    continue;
                };
                let t = op(iters);
                tot.push(t.total.as_nanos() as f64 / iters as f64);
                if let Some(e) = t.enqueue {
                    enq.push(e.as_nanos() as f64 / iters as f64);
                }
            }
        }
        for (((lib, _), tot), enq) in ops.iter().zip(&totals).zip(&enqueues) {
            self.emit(&format!("S {} {} {}", row.id, lib.name(), join(tot)));
            if let Some((id, _)) = row.enqueue {
                self.emit(&format!("S {id} {} {}", lib.name(), join(enq)));
            }
        }
    }

    fn count_row(&mut self, row: &Row, ops: &mut [(Lib, Op<'_>)]) {
        let n = match self.batch(row) {
            Batch::Fixed(n) => n,
            Batch::Calibrate => 1000,
        };
        for (lib, op) in ops.iter_mut() {
            op(n.min(3));
            let before = self.null.as_ref().map(NullDriver::snapshot);
            ALLOCS.store(0, Relaxed);
            COUNT_ALLOCS.store(true, Relaxed);
            if let Some(nd) = &self.null {
                nd.counting(true);
            }
            op(n);
            if let Some(nd) = &self.null {
                nd.counting(false);
            }
            COUNT_ALLOCS.store(false, Relaxed);
            let allocs = ALLOCS.load(Relaxed);
            self.emit(&format!("A {} {} {n} {allocs}", row.id, lib.name()));
            if let (Some(nd), Some(before)) = (&self.null, before) {
                let after = nd.snapshot();
                let calls: Vec<String> = nd
                    .names
                    .iter()
                    .zip(after.iter().zip(&before))
                    .filter(|(_, (a, b))| a > b)
                    .map(|(name, (a, b))| format!("{name}={}", a - b))
                    .collect();
                let calls = if calls.is_empty() {
                    "-".to_owned()
                } else {
                    calls.join(";")
                };
                self.emit(&format!("C {} {} {n} {calls}", row.id, lib.name()));
            }
        }
    }
}

fn join(v: &[f64]) -> String {
    let s: Vec<String> = v.iter().map(|x| format!("{x:.3}")).collect();
    if s.is_empty() {
        "-".to_owned()
    } else {
        s.join(",")
    }
}

fn row_def(id: &str) -> Option<&'static Row> {
    ROWS.iter().find(|r| r.id == id)
}

/// Runs every row (or the one `Mode::Ir` names) in this process.
fn run_rows(mut r: Runner) {
    let big = usize::try_from(env_u64("CUSTACK_BENCH_BIG_MIB", 256)).unwrap_or(256) << 20;
    let null = r.null.is_some();

    // Everyone's context: the device's primary context.
    let driver = must(Driver::init(), "Driver::init");
    let device = must(driver.device(0), "device 0");
    r.emit(&format!("I device {}", must(device.name(), "device name")));
    r.emit(&format!(
        "I driver {}",
        must(driver.version(), "driver version")
    ));
    r.emit(&format!(
        "I compute {}",
        must(device.compute_capability(), "compute capability")
    ));
    let ctx = must(Context::primary(device), "Context::primary");
    let raw_ctx = ctx.as_raw();

    let cu = must(CudaContext::new(0), "CudaContext::new");
    let cu_stream = must(cu.new_stream(), "cudarc new_stream");
    let cu_default = cu.default_stream();
    let cu_module = must(cu.load_module(Ptx::from_src(KERNELS)), "cudarc load_module");
    let cu_empty = must(cu_module.load_function("empty"), "cudarc load_function");
    let cu_empty_ptr = must(cu_module.load_function("empty_ptr"), "cudarc load_function");
    let cu_cfg = CuLaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };

    let mut stack = must(Stack::new(), "Stack::new");

    // ---- context push + pop: custack needs the stack free, so this row comes first.
    if r.wants("push_pop") {
        let mut raw = |n| {
            time_loop(n, || {
                // SAFETY: `raw_ctx` is the live primary context, held by `ctx`.
                ok(unsafe { ffi::cuCtxPushCurrent_v2(raw_ctx) }, "push");
                let mut popped = core::ptr::null_mut();
                // SAFETY: valid out-pointer; balanced with the push just above.
                ok(unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) }, "pop");
            })
        };
        let mut cs = |n| {
            time_loop(n, || {
                drop(must(stack.push(&ctx), "Stack::push"));
            })
        };
        let mut cr = |n| time_loop(n, || must(cu.bind_to_thread(), "bind_to_thread"));
        r.row(row(ROWS, "push_pop"), &mut raw, Some(&mut cs), &mut cr);
    }

    let guard = must(stack.push(&ctx), "Stack::push");
    let module = must(guard.load_ptx(KERNELS), "load_ptx");
    let cs_empty = must(module.function("empty"), "function empty");
    let cs_empty_ptr = must(module.function("empty_ptr"), "function empty_ptr");
    let (raw_empty, raw_empty_ptr) = (cs_empty.as_raw(), cs_empty_ptr.as_raw());
    let cs_cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let cs_stream = must(guard.stream(), "guard.stream");
    let mut raw_stream: ffi::CUstream = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the primary context is current (the guard).
    ok(
        unsafe { ffi::cuStreamCreate(&raw mut raw_stream, 0) },
        "cuStreamCreate",
    );
    let rs = raw_stream;

    // Small device buffers: 4 bytes each.
    let mut raw_d4: ffi::CUdeviceptr = 0;
    // SAFETY: valid out-pointer; the context is current.
    ok(
        unsafe { ffi::cuMemAlloc_v2(&raw mut raw_d4, 4) },
        "cuMemAlloc",
    );
    let mut cs_d4 = must(guard.alloc::<u32>(1), "guard.alloc");
    let mut cu_d4_default = must(cu_default.alloc_zeros::<u32>(1), "cudarc alloc_zeros");
    let mut cu_d4 = must(cu_stream.alloc_zeros::<u32>(1), "cudarc alloc_zeros");
    let host4: [u32; 1] = [0x1234_5678];

    if r.wants("stream") {
        let mut raw = |n| {
            time_loop(n, || {
                let mut s = core::ptr::null_mut();
                // SAFETY: valid out-pointer; the context is current.
                ok(
                    unsafe { ffi::cuStreamCreate(&raw mut s, 0) },
                    "cuStreamCreate",
                );
                // SAFETY: `s` was just created and is destroyed once.
                ok(unsafe { ffi::cuStreamDestroy_v2(s) }, "cuStreamDestroy");
            })
        };
        let mut cs = |n| time_loop(n, || drop(must(guard.stream(), "guard.stream")));
        let mut cr = |n| time_loop(n, || drop(must(cu.new_stream(), "cudarc new_stream")));
        r.row(row(ROWS, "stream"), &mut raw, Some(&mut cs), &mut cr);
    }

    if r.wants("events") {
        let mut raw_ev = [core::ptr::null_mut(); 2];
        for e in &mut raw_ev {
            // SAFETY: valid out-pointer; the context is current.
            ok(unsafe { ffi::cuEventCreate(e, 0) }, "cuEventCreate");
        }
        let [re0, re1] = raw_ev;
        let cs_e0 = must(guard.event(EventFlags::empty()), "guard.event");
        let cs_e1 = must(guard.event(EventFlags::empty()), "guard.event");
        let flags = Some(cusys::CUevent_flags::CU_EVENT_DEFAULT);
        let cu_e0 = must(cu.new_event(flags), "cudarc new_event");
        let cu_e1 = must(cu.new_event(flags), "cudarc new_event");
        let mut raw = |n| {
            time_loop(n, || {
                // SAFETY: live events and stream of the current context.
                ok(unsafe { ffi::cuEventRecord(re0, rs) }, "cuEventRecord");
                // SAFETY: as above.
                ok(unsafe { ffi::cuEventRecord(re1, rs) }, "cuEventRecord");
                // SAFETY: live event.
                ok(
                    unsafe { ffi::cuEventSynchronize(re1) },
                    "cuEventSynchronize",
                );
                let mut ms = 0f32;
                // SAFETY: valid out-pointer; both events recorded and complete.
                ok(
                    unsafe { ffi::cuEventElapsedTime(&raw mut ms, re0, re1) },
                    "cuEventElapsedTime",
                );
                std::hint::black_box(ms);
            })
        };
        let mut cs = |n| {
            time_loop(n, || {
                must(cs_stream.record(&cs_e0), "record");
                must(cs_stream.record(&cs_e1), "record");
                must(cs_e1.synchronize(), "event synchronize");
                std::hint::black_box(must(cs_e0.elapsed_ms(&cs_e1), "elapsed_ms"));
            })
        };
        let mut cr = |n| {
            time_loop(n, || {
                must(cu_e0.record(&cu_stream), "cudarc record");
                must(cu_e1.record(&cu_stream), "cudarc record");
                must(cu_e1.synchronize(), "cudarc event synchronize");
                std::hint::black_box(must(cu_e0.elapsed_ms(&cu_e1), "cudarc elapsed_ms"));
            })
        };
        r.row(row(ROWS, "events"), &mut raw, Some(&mut cs), &mut cr);
        for e in raw_ev {
            // SAFETY: live events, destroyed once.
            ok(unsafe { ffi::cuEventDestroy_v2(e) }, "cuEventDestroy");
        }
    }

    if r.wants("htod4") {
        let mut raw = |n| {
            time_loop(n, || {
                // SAFETY: 4 readable host bytes; 4 bytes of live device memory.
                ok(
                    unsafe { ffi::cuMemcpyHtoD_v2(raw_d4, host4.as_ptr().cast(), 4) },
                    "cuMemcpyHtoD",
                );
            })
        };
        let mut cs = |n| time_loop(n, || must(cs_d4.copy_from_host(&host4), "copy_from_host"));
        let mut cr = |n| {
            time_loop(n, || {
                must(
                    cu_default.memcpy_htod(&host4, &mut cu_d4_default),
                    "memcpy_htod",
                );
                must(cu_default.synchronize(), "cudarc synchronize");
            })
        };
        r.row(row(ROWS, "htod4"), &mut raw, Some(&mut cs), &mut cr);
    }

    if r.wants("htod4_async") {
        let mut raw = |n| {
            time_loop(n, || {
                // SAFETY: 4 readable host bytes, alive until the synchronize below; 4 bytes of
                // live device memory; a live stream.
                ok(
                    unsafe { ffi::cuMemcpyHtoDAsync_v2(raw_d4, host4.as_ptr().cast(), 4, rs) },
                    "cuMemcpyHtoDAsync",
                );
                // SAFETY: live stream.
                ok(
                    unsafe { ffi::cuStreamSynchronize(rs) },
                    "cuStreamSynchronize",
                );
            })
        };
        let mut cs = |n| {
            time_loop(n, || {
                let r = cs_stream.scope(|s| s.copy_to_device(s.bind_mut(&mut cs_d4), &host4));
                must(must(r, "scope"), "copy_to_device");
            })
        };
        let mut cr = |n| {
            time_loop(n, || {
                must(cu_stream.memcpy_htod(&host4, &mut cu_d4), "memcpy_htod");
                must(cu_stream.synchronize(), "cudarc synchronize");
            })
        };
        r.row(row(ROWS, "htod4_async"), &mut raw, Some(&mut cs), &mut cr);
    }

    // ---- big copies
    let want_big = [
        "htod_pinned",
        "htod_pageable",
        "dtoh_pinned",
        "dtoh_pageable",
    ]
    .iter()
    .any(|id| r.wants(id));
    if want_big {
        let pattern = |i: usize| (i ^ (i >> 9)) as u8;
        let fill = |s: &mut [u8]| s.iter_mut().enumerate().for_each(|(i, b)| *b = pattern(i));

        let mut raw_dev: ffi::CUdeviceptr = 0;
        // SAFETY: valid out-pointer; the context is current.
        ok(
            unsafe { ffi::cuMemAlloc_v2(&raw mut raw_dev, big) },
            "cuMemAlloc",
        );
        let mut raw_pinned_p: *mut c_void = core::ptr::null_mut();
        // SAFETY: valid out-pointer; the context is current.
        ok(
            unsafe { ffi::cuMemHostAlloc(&raw mut raw_pinned_p, big, 0) },
            "cuMemHostAlloc",
        );
        // SAFETY: `cuMemHostAlloc` returned `big` writable bytes, freed below after their last use.
        let raw_pinned = unsafe { core::slice::from_raw_parts_mut(raw_pinned_p.cast::<u8>(), big) };
        fill(raw_pinned);
        let mut raw_pageable = vec![0u8; big];
        fill(&mut raw_pageable);

        let mut cs_dev = must(guard.alloc::<u8>(big), "guard.alloc");
        let mut cs_pinned = must(guard.alloc_pinned::<u8>(big), "alloc_pinned");
        fill(&mut cs_pinned);
        let mut cs_pageable = vec![0u8; big];
        fill(&mut cs_pageable);

        let mut cu_dev = must(cu_stream.alloc_zeros::<u8>(big), "cudarc alloc_zeros");
        // SAFETY: uninitialized page-locked memory, filled right below before any read.
        let mut cu_pinned = must(
            unsafe { cu.alloc_pinned_with_flags::<u8>(big, 0) },
            "cudarc alloc_pinned",
        );
        fill(must(cu_pinned.as_mut_slice(), "cudarc as_mut_slice"));
        let mut cu_pageable = vec![0u8; big];
        fill(&mut cu_pageable);

        if r.wants("htod_pinned") {
            let rp = raw_pinned.as_ptr();
            let mut raw = |n| {
                time_loop(n, || {
                    // SAFETY: `big` readable host bytes; `big` bytes of live device memory.
                    ok(
                        unsafe { ffi::cuMemcpyHtoD_v2(raw_dev, rp.cast(), big) },
                        "cuMemcpyHtoD",
                    );
                })
            };
            let mut cs = |n| {
                time_loop(n, || {
                    must(cs_dev.copy_from_host(&cs_pinned), "copy_from_host");
                })
            };
            let mut cr = |n| {
                time_loop(n, || {
                    must(
                        cu_stream.memcpy_htod(&cu_pinned, &mut cu_dev),
                        "memcpy_htod",
                    );
                    must(cu_stream.synchronize(), "cudarc synchronize");
                })
            };
            r.row(row(ROWS, "htod_pinned"), &mut raw, Some(&mut cs), &mut cr);
        }
        if r.wants("htod_pageable") {
            let rp = raw_pageable.as_ptr();
            let mut raw = |n| {
                time_loop(n, || {
                    // SAFETY: `big` readable host bytes; `big` bytes of live device memory.
                    ok(
                        unsafe { ffi::cuMemcpyHtoD_v2(raw_dev, rp.cast(), big) },
                        "cuMemcpyHtoD",
                    );
                })
            };
            let mut cs = |n| {
                time_loop(n, || {
                    must(cs_dev.copy_from_host(&cs_pageable), "copy_from_host");
                })
            };
            let mut cr = |n| {
                time_loop(n, || {
                    must(
                        cu_stream.memcpy_htod(&cu_pageable, &mut cu_dev),
                        "memcpy_htod",
                    );
                    must(cu_stream.synchronize(), "cudarc synchronize");
                })
            };
            r.row(row(ROWS, "htod_pageable"), &mut raw, Some(&mut cs), &mut cr);
        }
        // Device→host: the device buffers hold the pattern now; the host buffers are poisoned
        // first and checked after (on a real device), so every copy is shown to have happened.
        let check = !null && (r.wants("htod_pinned") || r.wants("htod_pageable"));
        let poison = |s: &mut [u8]| s.fill(0xEE);
        let verify = |what: &str, s: &[u8]| {
            if check {
                let bad = s
                    .iter()
                    .enumerate()
                    .filter(|(i, b)| **b != pattern(*i))
                    .count();
                if bad != 0 {
                    fail(
                        what,
                        &format!("{bad} of {} bytes differ after the round trip", s.len()),
                    );
                }
            }
        };
        if r.wants("dtoh_pinned") {
            poison(raw_pinned);
            poison(&mut cs_pinned);
            poison(must(cu_pinned.as_mut_slice(), "cudarc as_mut_slice"));
            let rp = raw_pinned.as_mut_ptr();
            let mut raw = |n| {
                time_loop(n, || {
                    // SAFETY: `big` writable host bytes; `big` bytes of live device memory.
                    ok(
                        unsafe { ffi::cuMemcpyDtoH_v2(rp.cast(), raw_dev, big) },
                        "cuMemcpyDtoH",
                    );
                })
            };
            let mut cs = |n| {
                time_loop(n, || {
                    must(cs_dev.copy_to_host(&mut cs_pinned), "copy_to_host");
                })
            };
            let mut cr = |n| {
                time_loop(n, || {
                    must(
                        cu_stream.memcpy_dtoh(&cu_dev, &mut cu_pinned),
                        "memcpy_dtoh",
                    );
                    must(cu_stream.synchronize(), "cudarc synchronize");
                })
            };
            r.row(row(ROWS, "dtoh_pinned"), &mut raw, Some(&mut cs), &mut cr);
            verify("raw page-locked round trip", raw_pinned);
            verify("custack page-locked round trip", &cs_pinned);
            verify(
                "cudarc page-locked round trip",
                must(cu_pinned.as_slice(), "cudarc as_slice"),
            );
        }
        if r.wants("dtoh_pageable") {
            poison(&mut raw_pageable);
            poison(&mut cs_pageable);
            poison(&mut cu_pageable);
            let rp = raw_pageable.as_mut_ptr();
            let mut raw = |n| {
                time_loop(n, || {
                    // SAFETY: `big` writable host bytes; `big` bytes of live device memory.
                    ok(
                        unsafe { ffi::cuMemcpyDtoH_v2(rp.cast(), raw_dev, big) },
                        "cuMemcpyDtoH",
                    );
                })
            };
            let mut cs = |n| {
                time_loop(n, || {
                    must(cs_dev.copy_to_host(&mut cs_pageable), "copy_to_host");
                })
            };
            let mut cr = |n| {
                time_loop(n, || {
                    must(
                        cu_stream.memcpy_dtoh(&cu_dev, &mut cu_pageable),
                        "memcpy_dtoh",
                    );
                    must(cu_stream.synchronize(), "cudarc synchronize");
                })
            };
            r.row(row(ROWS, "dtoh_pageable"), &mut raw, Some(&mut cs), &mut cr);
            verify("raw pageable round trip", &raw_pageable);
            verify("custack pageable round trip", &cs_pageable);
            verify("cudarc pageable round trip", &cu_pageable);
        }
        if check {
            r.emit("I check big copies round-tripped intact for all three");
        }
        // SAFETY: allocated above by `cuMemHostAlloc` / `cuMemAlloc`, freed once, no longer used.
        ok(unsafe { ffi::cuMemFreeHost(raw_pinned_p) }, "cuMemFreeHost");
        // SAFETY: as above.
        ok(unsafe { ffi::cuMemFree_v2(raw_dev) }, "cuMemFree");
    }

    // ---- launches
    let cs_contract = must(module.declared::<EmptyPtr>(), "Module::declared");
    let cs_checked = must(
        module.kernel::<(custack::DevicePtr<u32>,)>("empty_ptr"),
        "Module::kernel",
    );
    for (id, ptr, checked, contract) in [
        ("launch_empty", false, false, false),
        ("launch_ptr", true, false, false),
        ("launch_checked", true, true, false),
        ("launch_contract", true, false, true),
        ("launch_named", true, false, true),
    ] {
        let named = id == "launch_named";
        if !r.wants(id) {
            continue;
        }
        let raw_f = if ptr { raw_empty_ptr } else { raw_empty };
        let cs_f = if ptr { &cs_empty_ptr } else { &cs_empty };
        let cu_f = if ptr { &cu_empty_ptr } else { &cu_empty };
        let mut raw = |n| {
            let mut arg: ffi::CUdeviceptr = raw_d4;
            let mut params = [(&raw mut arg).cast::<c_void>()];
            let params = if ptr {
                params.as_mut_ptr()
            } else {
                core::ptr::null_mut()
            };
            let t0 = Instant::now();
            for _ in 0..n {
                // SAFETY: a live function of a loaded module; `params` holds one pointer to a
                // device address for `empty_ptr(u64)`, none for `empty()`; a live stream.
                let r = unsafe {
                    ffi::cuLaunchKernel(
                        raw_f,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        0,
                        rs,
                        params,
                        core::ptr::null_mut(),
                    )
                };
                ok(r, "cuLaunchKernel");
            }
            let t1 = Instant::now();
            // SAFETY: live stream.
            ok(
                unsafe { ffi::cuStreamSynchronize(rs) },
                "cuStreamSynchronize",
            );
            Timing {
                total: t0.elapsed(),
                enqueue: Some(t1 - t0),
            }
        };
        let mut cs = |n| {
            must(custack::name_launches(named), "name_launches");
            let t0 = Instant::now();
            let t1 = cs_stream.scope(|s| {
                if contract {
                    let b = s.bind(&cs_d4);
                    for _ in 0..n {
                        must(s.run(&cs_contract, cs_cfg, (b,)), "run");
                    }
                } else if checked {
                    let b = s.bind(&cs_d4);
                    for _ in 0..n {
                        // SAFETY: `empty_ptr(u64)` takes one device pointer (checked when the
                        // kernel was looked up) and touches nothing.
                        must(
                            unsafe { s.launch_kernel(&cs_checked, cs_cfg, (b,)) },
                            "launch",
                        );
                    }
                } else if ptr {
                    let b = s.bind(&cs_d4);
                    for _ in 0..n {
                        // SAFETY: `empty_ptr(u64)` takes one device pointer and touches nothing.
                        must(unsafe { s.launch(cs_f, cs_cfg, (b,)) }, "launch");
                    }
                } else {
                    for _ in 0..n {
                        // SAFETY: `empty()` takes no parameters and touches nothing.
                        must(unsafe { s.launch(cs_f, cs_cfg, ()) }, "launch");
                    }
                }
                Instant::now()
            });
            let total = t0.elapsed();
            must(custack::name_launches(false), "name_launches");
            let t1 = must(t1, "scope");
            Timing {
                total,
                enqueue: Some(t1 - t0),
            }
        };
        let mut cr = |n| {
            let t0 = Instant::now();
            for _ in 0..n {
                let mut b = cu_stream.launch_builder(cu_f);
                if ptr {
                    b.arg(&cu_d4);
                }
                // SAFETY: the kernels take no parameter / one device pointer, as passed.
                must(unsafe { b.launch(cu_cfg) }, "cudarc launch");
            }
            let t1 = Instant::now();
            must(cu_stream.synchronize(), "cudarc synchronize");
            Timing {
                total: t0.elapsed(),
                enqueue: Some(t1 - t0),
            }
        };
        r.row(row(ROWS, id), &mut raw, Some(&mut cs), &mut cr);
    }

    if r.wants("launch_contract_2d") {
        let shapes = must(guard.load_ptx(CONTRACTS), "load_ptx contracts");
        let index_2d = must(shapes.declared::<Index2d>(), "Module::declared");
        let raw_index_2d = index_2d.as_raw();
        let cu_shapes = must(
            cu.load_module(Ptx::from_src(CONTRACTS)),
            "cudarc load_module",
        );
        let cu_index_2d = must(cu_shapes.load_function("index_2d"), "cudarc load_function");
        let mut raw_out: ffi::CUdeviceptr = 0;
        // SAFETY: valid out-pointer; the context is current.
        ok(
            unsafe { ffi::cuMemAlloc_v2(&raw mut raw_out, ELEMENTS_2D * 4) },
            "cuMemAlloc",
        );
        let mut cs_out = must(guard.alloc_zeroed::<u32>(ELEMENTS_2D), "guard.alloc");
        let mut cu_out = must(
            cu_stream.alloc_zeros::<u32>(ELEMENTS_2D),
            "cudarc alloc_zeros",
        );
        let cs_cfg_2d = LaunchConfig {
            grid: GRID_2D,
            block: BLOCK_2D,
            shared_mem_bytes: 0,
        };
        let cu_cfg_2d = CuLaunchConfig {
            grid_dim: GRID_2D,
            block_dim: BLOCK_2D,
            shared_mem_bytes: 0,
        };
        let mut raw = |n| {
            let (mut out, mut width) = (raw_out, WIDTH_2D);
            let mut params = [
                (&raw mut out).cast::<c_void>(),
                (&raw mut width).cast::<c_void>(),
            ];
            let t0 = Instant::now();
            for _ in 0..n {
                // SAFETY: a live function of a loaded module; `params` points to a device
                // address of 128 u32 and a width of 64: 2 rows of 64 for this 2 × 2 × (32 × 1)
                // grid; a live stream.
                let r = unsafe {
                    ffi::cuLaunchKernel(
                        raw_index_2d,
                        GRID_2D.0,
                        GRID_2D.1,
                        GRID_2D.2,
                        BLOCK_2D.0,
                        BLOCK_2D.1,
                        BLOCK_2D.2,
                        0,
                        rs,
                        params.as_mut_ptr(),
                        core::ptr::null_mut(),
                    )
                };
                ok(r, "cuLaunchKernel");
            }
            let t1 = Instant::now();
            // SAFETY: live stream.
            ok(
                unsafe { ffi::cuStreamSynchronize(rs) },
                "cuStreamSynchronize",
            );
            Timing {
                total: t0.elapsed(),
                enqueue: Some(t1 - t0),
            }
        };
        let mut cs = |n| {
            let t0 = Instant::now();
            let t1 = cs_stream.scope(|s| {
                let mut b = s.bind_mut(&mut cs_out);
                for _ in 0..n {
                    must(s.run(&index_2d, cs_cfg_2d, (&mut b, WIDTH_2D)), "run");
                }
                Instant::now()
            });
            let t1 = must(t1, "scope");
            Timing {
                total: t0.elapsed(),
                enqueue: Some(t1 - t0),
            }
        };
        let mut cr = |n| {
            let t0 = Instant::now();
            for _ in 0..n {
                let mut b = cu_stream.launch_builder(&cu_index_2d);
                b.arg(&mut cu_out);
                b.arg(&WIDTH_2D);
                // SAFETY: as raw's: 128 u32 and a width of 64 for this grid.
                must(unsafe { b.launch(cu_cfg_2d) }, "cudarc launch");
            }
            let t1 = Instant::now();
            must(cu_stream.synchronize(), "cudarc synchronize");
            Timing {
                total: t0.elapsed(),
                enqueue: Some(t1 - t0),
            }
        };
        r.row(
            row(ROWS, "launch_contract_2d"),
            &mut raw,
            Some(&mut cs),
            &mut cr,
        );
        // Every launch wrote its own index into each element (the null driver runs nothing).
        if !null {
            let want: Vec<u32> = (0..ELEMENTS_2D as u32).collect();
            let mut raw_host = vec![0u32; ELEMENTS_2D];
            // SAFETY: `raw_host` holds ELEMENTS_2D u32; `raw_out` as many of live memory.
            ok(
                unsafe {
                    ffi::cuMemcpyDtoH_v2(raw_host.as_mut_ptr().cast(), raw_out, ELEMENTS_2D * 4)
                },
                "cuMemcpyDtoH",
            );
            let cs_host = must(cs_out.to_vec(), "to_vec");
            let cu_host = must(cu_stream.clone_dtoh(&cu_out), "cudarc clone_dtoh");
            for (what, host) in [
                ("raw", &raw_host),
                ("custack", &cs_host),
                ("cudarc", &cu_host),
            ] {
                if *host != want {
                    fail(&format!("{what} index_2d"), &"wrong output");
                }
            }
            r.emit("I check index_2d's output for all three");
        }
        // SAFETY: allocated above by `cuMemAlloc`, freed once, no longer used.
        ok(unsafe { ffi::cuMemFree_v2(raw_out) }, "cuMemFree");
    }

    if r.wants("launch_sync") {
        let mut raw = |n| {
            time_loop(n, || {
                // SAFETY: `empty()` takes no parameters; live function and stream.
                let r = unsafe {
                    ffi::cuLaunchKernel(
                        raw_empty,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        0,
                        rs,
                        core::ptr::null_mut(),
                        core::ptr::null_mut(),
                    )
                };
                ok(r, "cuLaunchKernel");
                // SAFETY: live stream.
                ok(
                    unsafe { ffi::cuStreamSynchronize(rs) },
                    "cuStreamSynchronize",
                );
            })
        };
        let mut cs = |n| {
            time_loop(n, || {
                // SAFETY: `empty()` takes no parameters and touches nothing.
                let r = cs_stream.scope(|s| unsafe { s.launch(&cs_empty, cs_cfg, ()) });
                must(must(r, "scope"), "launch");
            })
        };
        let mut cr = |n| {
            time_loop(n, || {
                // SAFETY: `empty()` takes no parameters.
                must(
                    unsafe { cu_stream.launch_builder(&cu_empty).launch(cu_cfg) },
                    "cudarc launch",
                );
                must(cu_stream.synchronize(), "cudarc synchronize");
            })
        };
        r.row(row(ROWS, "launch_sync"), &mut raw, Some(&mut cs), &mut cr);
    }

    // R19: the scope's and the submission's waits with and without a deadline, each against
    // the same raw launch + cuStreamSynchronize and cudarc's launch + synchronize.
    for id in [
        "launch_sync_deadline",
        "submission_sync",
        "submission_sync_deadline",
    ] {
        if !r.wants(id) {
            continue;
        }
        let mut raw = |n| {
            time_loop(n, || {
                // SAFETY: `empty()` takes no parameters; live function and stream.
                let r = unsafe {
                    ffi::cuLaunchKernel(
                        raw_empty,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        0,
                        rs,
                        core::ptr::null_mut(),
                        core::ptr::null_mut(),
                    )
                };
                ok(r, "cuLaunchKernel");
                // SAFETY: live stream.
                ok(
                    unsafe { ffi::cuStreamSynchronize(rs) },
                    "cuStreamSynchronize",
                );
            })
        };
        let mut scope_by = |n| {
            time_loop(n, || {
                let by = Deadline::after(WAIT_BOUND);
                // SAFETY: `empty()` takes no parameters and touches nothing.
                let r = cs_stream.scope_by(by, Overrun::KeepWaiting, |s| unsafe {
                    s.launch(&cs_empty, cs_cfg, ())
                });
                must(must(r, "scope_by"), "launch");
            })
        };
        let mut submission = |n| {
            time_loop(n, || {
                // SAFETY: `empty()` takes no parameters and touches nothing.
                let r = cs_stream.submit(cs_empty, |s, f| unsafe { s.launch(&f, cs_cfg, ()) });
                must(must(r, "submit").wait(), "wait");
            })
        };
        let mut submission_by = |n| {
            time_loop(n, || {
                // SAFETY: `empty()` takes no parameters and touches nothing.
                let r = cs_stream.submit(cs_empty, |s, f| unsafe { s.launch(&f, cs_cfg, ()) });
                if let Err(late) = must(
                    must(r, "submit").wait_by(Deadline::after(WAIT_BOUND)),
                    "wait_by",
                ) {
                    fail("wait_by", &late.abandon());
                }
            })
        };
        let mut cr = |n| {
            time_loop(n, || {
                // SAFETY: `empty()` takes no parameters.
                must(
                    unsafe { cu_stream.launch_builder(&cu_empty).launch(cu_cfg) },
                    "cudarc launch",
                );
                must(cu_stream.synchronize(), "cudarc synchronize");
            })
        };
        let cs: Op<'_> = match id {
            "launch_sync_deadline" => &mut scope_by,
            "submission_sync" => &mut submission,
            _ => &mut submission_by,
        };
        r.row(row(ROWS, id), &mut raw, Some(cs), &mut cr);
    }

    const MIB: usize = 1 << 20;
    if r.wants("alloc") {
        let mut raw = |n| {
            time_loop(n, || {
                let mut p: ffi::CUdeviceptr = 0;
                // SAFETY: valid out-pointer; the context is current.
                ok(unsafe { ffi::cuMemAlloc_v2(&raw mut p, MIB) }, "cuMemAlloc");
                // SAFETY: allocated just above, freed once.
                ok(unsafe { ffi::cuMemFree_v2(p) }, "cuMemFree");
            })
        };
        let mut cs = |n| time_loop(n, || drop(must(guard.alloc::<u8>(MIB), "guard.alloc")));
        let mut cr = |n| {
            time_loop(n, || {
                // SAFETY: uninitialized device memory that is never read.
                drop(must(unsafe { cu_default.alloc::<u8>(MIB) }, "cudarc alloc"));
            })
        };
        r.row(row(ROWS, "alloc"), &mut raw, Some(&mut cs), &mut cr);
    }

    if r.wants("alloc_async") {
        let mut raw = |n| {
            let t = time_loop(n, || {
                let mut p: ffi::CUdeviceptr = 0;
                // SAFETY: valid out-pointer; a live stream of the current context.
                ok(
                    unsafe { ffi::cuMemAllocAsync(&raw mut p, MIB, rs) },
                    "cuMemAllocAsync",
                );
                // SAFETY: allocated just above on the same stream, freed once.
                ok(unsafe { ffi::cuMemFreeAsync(p, rs) }, "cuMemFreeAsync");
            });
            let t0 = Instant::now();
            // SAFETY: live stream.
            ok(
                unsafe { ffi::cuStreamSynchronize(rs) },
                "cuStreamSynchronize",
            );
            Timing::total(t.total + t0.elapsed())
        };
        let mut cr = |n| {
            let t = time_loop(n, || {
                // SAFETY: uninitialized device memory that is never read.
                drop(must(unsafe { cu_stream.alloc::<u8>(MIB) }, "cudarc alloc"));
            });
            let t0 = Instant::now();
            must(cu_stream.synchronize(), "cudarc synchronize");
            Timing::total(t.total + t0.elapsed())
        };
        // custack: stream-ordered allocations live in a stream scope, whose end is the one
        // synchronize of the batch (the same calls as the raw loop).
        let mut cs = |n| {
            let t0 = Instant::now();
            let r = cs_stream.scope(|s| {
                for _ in 0..n {
                    drop(must(s.alloc::<u8>(MIB), "s.alloc"));
                }
            });
            must(r, "scope");
            Timing::total(t0.elapsed())
        };
        r.row(row(ROWS, "alloc_async"), &mut raw, Some(&mut cs), &mut cr);
    }

    // Raw leftovers; custack's and cudarc's handles drop in order after this.
    // SAFETY: allocated above, freed once.
    ok(unsafe { ffi::cuMemFree_v2(raw_d4) }, "cuMemFree");
    // SAFETY: created above, destroyed once; all its work was synchronized.
    ok(unsafe { ffi::cuStreamDestroy_v2(rs) }, "cuStreamDestroy");
    drop((cs_d4, cs_stream, module));
    must(guard.pop(), "PushedGuard::pop");
    if let Some(e) = custack::take_drop_errors().first() {
        fail("a custack drop", e);
    }
}

fn row<'a>(rows: &'a [Row], id: &str) -> &'a Row {
    rows.iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| fail("row lookup", &id))
}

/// Child: makes the first context current, reports it, exits.
fn first_context(lib: Lib) {
    match lib {
        Lib::Raw => {
            // SAFETY: no preconditions.
            ok(unsafe { ffi::cuInit(0) }, "cuInit");
            let mut dev: ffi::CUdevice = 0;
            // SAFETY: valid out-pointer; the driver is initialized.
            ok(unsafe { ffi::cuDeviceGet(&raw mut dev, 0) }, "cuDeviceGet");
            let mut ctx = core::ptr::null_mut();
            // SAFETY: valid out-pointer; `dev` is a device of the initialized driver.
            ok(
                unsafe { ffi::cuDevicePrimaryCtxRetain(&raw mut ctx, dev) },
                "cuDevicePrimaryCtxRetain",
            );
            // SAFETY: `ctx` is the live primary context just retained.
            ok(unsafe { ffi::cuCtxPushCurrent_v2(ctx) }, "cuCtxPushCurrent");
            report_ready();
        }
        Lib::Custack => {
            let driver = must(Driver::init(), "Driver::init");
            let ctx = must(
                Context::primary(must(driver.device(0), "device")),
                "primary",
            );
            let mut stack = must(Stack::new(), "Stack::new");
            let guard = must(stack.push(&ctx), "push");
            report_ready();
            drop(guard);
        }
        Lib::Cudarc => {
            let ctx = must(CudaContext::new(0), "CudaContext::new");
            report_ready();
            drop(ctx);
        }
    }
}

fn report_ready() {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "ready").and_then(|()| out.flush()).is_err() {
        std::process::exit(1);
    }
}

// ---------------------------------------------------------------------------------------------
// Parent: spawns the children, gathers, prints.

#[derive(Default)]
struct Samples {
    all: Vec<f64>,
    /// One median per process.
    per_proc: Vec<f64>,
}

#[derive(Default)]
struct Gathered {
    info: BTreeMap<String, String>,
    samples: BTreeMap<(String, Lib), Samples>,
    calls: BTreeMap<(String, Lib), (u64, String)>,
    allocs: BTreeMap<(String, Lib), (u64, u64)>,
    checks: Vec<String>,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let (Some(a), Some(b)) = (sorted.get(lo), sorted.get(hi)) else {
        return f64::NAN;
    };
    a + (b - a) * (pos - lo as f64)
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

fn fmt_time(ns: f64) -> String {
    if !ns.is_finite() {
        "n/a".to_owned()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn fmt_delta(ns: f64) -> String {
    if !ns.is_finite() {
        return "n/a".to_owned();
    }
    let sign = if ns < 0.0 { "−" } else { "+" };
    format!("{sign}{}", fmt_time(ns.abs()))
}

fn self_exe() -> std::path::PathBuf {
    must(std::env::current_exe(), "current_exe")
}

fn spawn_rows(g: &mut Gathered, proc_index: u64, counts: bool) {
    let mut child = must(
        Command::new(self_exe())
            .env("CUSTACK_BENCH_CHILD", "rows")
            .env("CUSTACK_BENCH_COUNTS", if counts { "1" } else { "0" })
            .env("CUSTACK_BENCH_PROC", proc_index.to_string())
            .stdout(Stdio::piped())
            .spawn(),
        "spawning a benchmark process",
    );
    let Some(stdout) = child.stdout.take() else {
        fail("child stdout", &"missing");
    };
    for line in BufReader::new(stdout).lines() {
        let line = must(line, "reading a benchmark process");
        let mut f = line.splitn(5, ' ');
        match (f.next(), f.next(), f.next(), f.next(), f.next()) {
            (Some("S"), Some(row), Some(lib), Some(values), None) => {
                let Some(lib) = Lib::parse(lib) else { continue };
                let v: Vec<f64> = values.split(',').filter_map(|x| x.parse().ok()).collect();
                let s = g.samples.entry((row.to_owned(), lib)).or_default();
                s.per_proc.push(quantile(&sorted(&v), 0.5));
                s.all.extend(v);
            }
            (Some("C"), Some(row), Some(lib), Some(n), Some(calls)) => {
                if let (Some(lib), Ok(n)) = (Lib::parse(lib), n.parse()) {
                    g.calls.insert((row.to_owned(), lib), (n, calls.to_owned()));
                }
            }
            (Some("A"), Some(row), Some(lib), Some(n), Some(a)) => {
                if let (Some(lib), Ok(n), Ok(a)) = (Lib::parse(lib), n.parse(), a.parse()) {
                    g.allocs.insert((row.to_owned(), lib), (n, a));
                }
            }
            (Some("I"), Some("check"), ..) => {
                let text = line.trim_start_matches("I check ").to_owned();
                if !g.checks.contains(&text) {
                    g.checks.push(text);
                }
            }
            (Some("I"), Some(key), Some(_), ..) => {
                let value = line.splitn(3, ' ').nth(2).unwrap_or_default().to_owned();
                g.info.insert(key.to_owned(), value);
            }
            _ => eprintln!("overhead: unexpected line from a child: {line}"),
        }
    }
    let status = must(child.wait(), "waiting for a benchmark process");
    if !status.success() {
        fail("a benchmark process", &status);
    }
}

fn spawn_first_context(lib: Lib) -> f64 {
    let t0 = Instant::now();
    let mut child = must(
        Command::new(self_exe())
            .env("CUSTACK_BENCH_CHILD", "first-context")
            .env("CUSTACK_BENCH_LIB", lib.name())
            .stdout(Stdio::piped())
            .spawn(),
        "spawning a first-context process",
    );
    let Some(stdout) = child.stdout.take() else {
        fail("child stdout", &"missing");
    };
    let mut line = String::new();
    let read = BufReader::new(stdout).read_line(&mut line);
    let elapsed = t0.elapsed();
    let status = must(child.wait(), "waiting for a first-context process");
    if !status.success() || must(read, "reading a first-context process") == 0 {
        fail("a first-context process", &status);
    }
    elapsed.as_nanos() as f64
}

struct Report {
    text: String,
}

impl Report {
    fn line(&mut self, s: &str) {
        println!("{s}");
        self.text.push_str(s);
        self.text.push('\n');
    }
}

fn all_rows() -> Vec<(&'static str, String)> {
    let big = env_u64("CUSTACK_BENCH_BIG_MIB", 256);
    let mut v = Vec::new();
    for r in ROWS {
        v.push((r.id, r.label.replace("BIG", &format!("{big} MiB"))));
        if let Some((id, label)) = r.enqueue {
            v.push((id, label.to_owned()));
        }
    }
    v.push((FIRST_CONTEXT.0, FIRST_CONTEXT.1.to_owned()));
    v
}

fn time_tables(rep: &mut Report, g: &Gathered, null: bool) {
    let stat = |row: &str, lib: Lib| -> Option<(f64, f64, f64, f64, f64)> {
        let s = g.samples.get(&(row.to_owned(), lib))?;
        let all = sorted(&s.all);
        let procs = sorted(&s.per_proc);
        Some((
            quantile(&all, 0.5),
            quantile(&all, 0.1),
            quantile(&all, 0.9),
            procs.first().copied().unwrap_or(f64::NAN),
            procs.last().copied().unwrap_or(f64::NAN),
        ))
    };
    let med = |row: &str, lib: Lib| stat(row, lib).map_or(f64::NAN, |s| s.0);
    rep.line(
        "| operation | raw | custack | cudarc | custack/raw | cudarc/raw | custack − raw | spread (p10–p90 ÷ 2, raw · custack · cudarc) |",
    );
    rep.line("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    for (id, label) in all_rows() {
        if !LIBS
            .iter()
            .any(|&l| g.samples.contains_key(&(id.to_owned(), l)))
        {
            continue;
        }
        let (r, c, d) = (
            med(id, Lib::Raw),
            med(id, Lib::Custack),
            med(id, Lib::Cudarc),
        );
        let ratio = |x: f64| {
            if x.is_finite() && r > 0.0 {
                format!("{:.2}", x / r)
            } else {
                "n/a".to_owned()
            }
        };
        let spread: Vec<String> = LIBS
            .iter()
            .map(|&l| {
                stat(id, l).map_or("n/a".to_owned(), |(m, p10, p90, _, _)| {
                    format!("±{:.1}%", (p90 - p10) / 2.0 / m * 100.0)
                })
            })
            .collect();
        rep.line(&format!(
            "| {label} | {} | {} | {} | {} | {} | {} | {} |",
            fmt_time(r),
            fmt_time(c),
            fmt_time(d),
            ratio(c),
            ratio(d),
            fmt_delta(c - r),
            spread.join(" · ")
        ));
    }
    rep.line("");
    for note in FOOTNOTES.lines() {
        rep.line(note);
        rep.line("");
    }
    rep.line("");
    let big = env_u64("CUSTACK_BENCH_BIG_MIB", 256) as f64 * 1_048_576.0;
    if !null {
        let mut bw = Vec::new();
        for r in ROWS.iter().filter(|r| r.big) {
            let per: Vec<String> = LIBS
                .iter()
                .map(|&l| {
                    let m = med(r.id, l);
                    format!("{} {:.1}", l.name(), big / m)
                })
                .collect();
            if g.samples.contains_key(&(r.id.to_owned(), Lib::Raw)) {
                bw.push(format!("{}: {}", r.id, per.join(", ")));
            }
        }
        if !bw.is_empty() {
            rep.line(&format!("Bandwidth, GB/s (medians): {}.", bw.join("; ")));
            rep.line("");
        }
    }
    rep.line("<details><summary>per library: median, p10, p90, range of per-process medians, samples</summary>");
    rep.line("");
    rep.line("| operation | library | median | p10 | p90 | process medians | samples |");
    rep.line("| --- | --- | ---: | ---: | ---: | --- | ---: |");
    for (id, label) in all_rows() {
        for lib in LIBS {
            let Some((m, p10, p90, lo, hi)) = stat(id, lib) else {
                continue;
            };
            let n = g
                .samples
                .get(&(id.to_owned(), lib))
                .map_or(0, |s| s.all.len());
            rep.line(&format!(
                "| {label} | {} | {} | {} | {} | {} – {} | {n} |",
                lib.name(),
                fmt_time(m),
                fmt_time(p10),
                fmt_time(p90),
                fmt_time(lo),
                fmt_time(hi)
            ));
        }
    }
    rep.line("");
    rep.line("</details>");
    rep.line("");
}

/// `count` per `n` iterations, exactly: `×2`, or `×1/100000` when not a whole number per iteration.
fn per_iteration(count: u64, n: u64) -> String {
    if n != 0 && count.is_multiple_of(n) {
        format!("×{}", count / n)
    } else {
        format!("×{count}/{n}")
    }
}

fn count_tables(rep: &mut Report, g: &Gathered) {
    if !g.calls.is_empty() {
        rep.line(
            "Driver calls per operation (null driver; ×a/b: a calls in a batch of b operations):",
        );
        rep.line("");
        rep.line("| operation | raw | custack | cudarc | custack vs raw |");
        rep.line("| --- | --- | --- | --- | --- |");
        for r in ROWS {
            let cell = |lib: Lib| -> Option<(BTreeMap<String, u64>, String)> {
                let (n, calls) = g.calls.get(&(r.id.to_owned(), lib))?;
                let map: BTreeMap<String, u64> = calls
                    .split(';')
                    .filter_map(|kv| {
                        let (k, v) = kv.split_once('=')?;
                        Some((k.to_owned(), v.parse().ok()?))
                    })
                    .collect();
                let text = map
                    .iter()
                    .map(|(k, v)| format!("{k} {}", per_iteration(*v, *n)))
                    .collect::<Vec<_>>()
                    .join(", ");
                Some((
                    map,
                    if text.is_empty() {
                        "none".to_owned()
                    } else {
                        text
                    },
                ))
            };
            let (raw, cs, cu) = (cell(Lib::Raw), cell(Lib::Custack), cell(Lib::Cudarc));
            if raw.is_none() {
                continue;
            }
            let verdict = match (&raw, &cs) {
                (Some((a, _)), Some((b, _))) if a == b => "same calls".to_owned(),
                (Some(_), Some(_)) => "**different**".to_owned(),
                _ => "n/a (custack has no such operation)".to_owned(),
            };
            let text = |c: &Option<(BTreeMap<String, u64>, String)>| {
                c.as_ref().map_or("n/a".to_owned(), |(_, t)| t.clone())
            };
            rep.line(&format!(
                "| {} | {} | {} | {} | {verdict} |",
                r.label.replace("BIG", "big"),
                text(&raw),
                text(&cs),
                text(&cu)
            ));
        }
        rep.line("");
    }
    if !g.allocs.is_empty() {
        rep.line("Heap allocations per operation (counting global allocator, Rust code of this process):");
        rep.line("");
        rep.line("| operation | raw | custack | cudarc |");
        rep.line("| --- | ---: | ---: | ---: |");
        for r in ROWS {
            let cell = |lib: Lib| {
                g.allocs
                    .get(&(r.id.to_owned(), lib))
                    .map_or("n/a".to_owned(), |(n, a)| {
                        if *a == 0 {
                            "0".to_owned()
                        } else {
                            per_iteration(*a, *n).trim_start_matches('×').to_owned()
                        }
                    })
            };
            if !g.allocs.contains_key(&(r.id.to_owned(), Lib::Raw)) {
                continue;
            }
            rep.line(&format!(
                "| {} | {} | {} | {} |",
                r.label.replace("BIG", "big"),
                cell(Lib::Raw),
                cell(Lib::Custack),
                cell(Lib::Cudarc)
            ));
        }
        rep.line("");
    }
}

/// `--callgrind`: instructions per operation, from one valgrind run per row and library.
fn callgrind_table(rep: &mut Report) {
    let iters = env_u64("CUSTACK_BENCH_IR_ITERS", 2000);
    // The null driver copies nothing and no wrapper touches the bytes, so big-copy rows run on
    // small buffers here: filling 256 MiB under valgrind takes minutes.
    let big_mib = env_u64("CUSTACK_BENCH_IR_BIG_MIB", 1);
    let dir = std::env::temp_dir().join(format!("custack-bench-cg-{}", std::process::id()));
    must(
        std::fs::create_dir_all(&dir),
        "creating a temporary directory",
    );
    let run = |row: &str, lib: Lib| -> f64 {
        let file = dir.join(format!("{row}.{}.out", lib.name()));
        let out = must(
            Command::new("valgrind")
                .arg("--tool=callgrind")
                .arg(format!("--callgrind-out-file={}", file.display()))
                .arg("--collect-atstart=no")
                .arg("--toggle-collect=custack_bench_measured")
                .arg(self_exe())
                .env("CUSTACK_BENCH_CHILD", "ir")
                .env("CUSTACK_BENCH_ROW", row)
                .env("CUSTACK_BENCH_LIB", lib.name())
                .env("CUSTACK_BENCH_ITERS", iters.to_string())
                .env("CUSTACK_BENCH_BIG_MIB", big_mib.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output(),
            "running valgrind (is it installed?)",
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !stdout.contains("ir_done") {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
            fail(
                &format!("callgrind run of {row}/{}", lib.name()),
                &out.status,
            );
        }
        let text = must(std::fs::read_to_string(&file), "reading callgrind output");
        let total = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("totals:")
                    .or_else(|| l.strip_prefix("summary:"))
            })
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok());
        total.unwrap_or_else(|| fail("parsing callgrind output", &file))
    };
    let base = run("baseline", Lib::Raw);
    rep.line(&format!(
        "Instructions per operation (callgrind Ir inside the measured loop, {iters} iterations, minus an empty loop's {base:.0}; null driver; big copies of {big_mib} MiB):"
    ));
    rep.line("");
    rep.line("| operation | raw | custack | cudarc | custack − raw | cudarc − raw |");
    rep.line("| --- | ---: | ---: | ---: | ---: | ---: |");
    for r in ROWS {
        let mut v = [f64::NAN; 3];
        for (slot, lib) in v.iter_mut().zip(LIBS) {
            eprintln!("callgrind: {} / {}", r.id, lib.name());
            *slot = (run(r.id, lib) - base) / iters as f64;
        }
        let [a, b, c] = v;
        let cell = |x: f64| {
            if x.is_finite() {
                format!("{x:.1}")
            } else {
                "n/a".to_owned()
            }
        };
        let label = if r.enqueue.is_some() {
            r.label.replace("100,000", &format!("{iters}"))
        } else {
            r.label.replace("BIG", "big")
        };
        rep.line(&format!(
            "| {label} | {} | {} | {} | {} | {} |",
            cell(a),
            cell(b),
            cell(c),
            cell(b - a),
            cell(c - a)
        ));
    }
    rep.line("");
    let _ = std::fs::remove_dir_all(&dir);
}

fn parent(args: &[String]) {
    let bench = args.iter().any(|a| a == "--bench");
    let callgrind = args.iter().any(|a| a == "--callgrind");
    if !bench && !callgrind {
        println!(
            "overhead: a benchmark; nothing to test. Run it with `cargo bench -p custack-benches --bench overhead` \
             (on a GPU machine) or `bash scripts/bench-nulldriver.sh` (anywhere)."
        );
        return;
    }
    let null = NullDriver::find().is_some();
    let mut rep = Report {
        text: String::new(),
    };
    let started = Instant::now();
    if bench {
        let procs = env_u64("CUSTACK_BENCH_PROCS", 6).max(1);
        let starts = env_u64("CUSTACK_BENCH_STARTS", if null { 30 } else { 10 });
        // Time bounds, so a slow machine still finishes in about 5 minutes: the row processes
        // stop once 200 s have gone (at least 2 run), the process starts once 60 s more have.
        let rows_budget = Duration::from_secs(env_u64("CUSTACK_BENCH_ROWS_BUDGET_S", 200));
        let starts_budget = Duration::from_secs(env_u64("CUSTACK_BENCH_STARTS_BUDGET_S", 60));
        let mut g = Gathered::default();
        let mut ran = 0;
        for p in 0..procs {
            let t = Instant::now();
            eprintln!("overhead: benchmark process {}/{procs}", p + 1);
            spawn_rows(&mut g, p, p == 0);
            ran += 1;
            let per_proc = t.elapsed();
            if p + 1 < procs && p >= 1 && started.elapsed() + per_proc > rows_budget {
                eprintln!("overhead: stopping after {ran} processes (time budget)");
                break;
            }
        }
        let mut started_procs = 0;
        if starts > 0 {
            eprintln!("overhead: up to {starts} fresh processes per library to first context");
            let t_starts = Instant::now();
            let mut per: BTreeMap<Lib, Vec<f64>> = BTreeMap::new();
            for i in 0..starts {
                if i >= 3 && t_starts.elapsed() > starts_budget {
                    eprintln!("overhead: stopping process starts after {i} rounds (time budget)");
                    break;
                }
                started_procs += 1;
                for j in 0..3 {
                    let Some(&lib) = LIBS.get(((i + j) % 3) as usize) else {
                        continue;
                    };
                    per.entry(lib).or_default().push(spawn_first_context(lib));
                }
            }
            for (lib, v) in per {
                g.samples.insert(
                    (FIRST_CONTEXT.0.to_owned(), lib),
                    Samples {
                        per_proc: v.clone(),
                        all: v,
                    },
                );
            }
        }
        let info = |k: &str| g.info.get(k).map_or("?", String::as_str).to_owned();
        rep.line(&format!(
            "## {} — device: {} (compute {}), driver API {}",
            if null { "Null driver" } else { "Device" },
            info("device"),
            info("compute"),
            info("driver")
        ));
        rep.line("");
        rep.line(&format!(
            "{ran} fresh processes × every row, plus {started_procs} process starts per library; \
             medians over all samples; spread is half the p10–p90 range over the median. \
             custack {}, cudarc 0.19 (driver, cuda-12020, dynamic-loading).",
            env!("CARGO_PKG_VERSION")
        ));
        rep.line("");
        for c in &g.checks {
            rep.line(&format!("Check: {c}."));
            rep.line("");
        }
        time_tables(&mut rep, &g, null);
        count_tables(&mut rep, &g);
    }
    if callgrind {
        if !null {
            fail(
                "--callgrind",
                &"needs the null driver (scripts/bench-nulldriver.sh)",
            );
        }
        callgrind_table(&mut rep);
    }
    rep.line(&format!(
        "(whole run: {:.0} s)",
        started.elapsed().as_secs_f64()
    ));
    if let Some(out) = std::env::var_os("OUT") {
        let path = std::path::Path::new(&out).join("bench.md");
        let mut text = rep.text;
        let _ = writeln!(text);
        must(std::fs::write(&path, text), "writing $OUT/bench.md");
        eprintln!("overhead: wrote {}", path.display());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let child = std::env::var("CUSTACK_BENCH_CHILD").unwrap_or_default();
    let null = NullDriver::find();
    let target = Duration::from_micros(env_u64("CUSTACK_BENCH_TARGET_US", 2000));
    let filter = std::env::var("CUSTACK_BENCH_ROWS")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    let runner = |mode| Runner {
        mode,
        null,
        target,
        filter,
        out: std::io::stdout().lock(),
    };
    match child.as_str() {
        "" => parent(&args),
        "rows" => run_rows(runner(Mode::Time {
            counts: std::env::var("CUSTACK_BENCH_COUNTS").is_ok_and(|v| v == "1"),
        })),
        "ir" => {
            let row = std::env::var("CUSTACK_BENCH_ROW").unwrap_or_default();
            let lib = std::env::var("CUSTACK_BENCH_LIB")
                .ok()
                .and_then(|l| Lib::parse(&l))
                .unwrap_or_else(|| fail("CUSTACK_BENCH_LIB", &"raw, custack or cudarc"));
            let iters = env_u64("CUSTACK_BENCH_ITERS", 2000);
            if row == "baseline" {
                let mut empty = |n| time_loop(n, || {});
                std::hint::black_box(custack_bench_measured(&mut empty, iters).total);
                println!("I ir_done baseline");
                return;
            }
            if row_def(&row).is_none() {
                fail("CUSTACK_BENCH_ROW", &row);
            }
            run_rows(runner(Mode::Ir { row, lib, iters }));
        }
        "first-context" => {
            let lib = std::env::var("CUSTACK_BENCH_LIB")
                .ok()
                .and_then(|l| Lib::parse(&l))
                .unwrap_or_else(|| fail("CUSTACK_BENCH_LIB", &"raw, custack or cudarc"));
            first_context(lib);
        }
        other => fail("CUSTACK_BENCH_CHILD", &other),
    }
}
