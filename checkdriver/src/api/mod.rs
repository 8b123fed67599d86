//! The driver API the double exports: one module per `cuda.h` group, as `ffi/` is split (each
//! file opens with the section it models), and the one table of every entry point.
//!
//! Each group file declares its entry points with one `entry_points!` invocation, `fn name(args)
//! { body }` each, in the C names and the C signatures (the exported symbol, `_v2` and all). The
//! macro makes, in that file, the group's `#[no_mangle] unsafe extern "C"` functions, its
//! counters and its `GROUP` (the names, the counters and a lookup by name). [`GROUPS`] below lists
//! every group once, in `cuda.h`'s order: the counters the benchmark reads
//! (`nulldriver_counts`), the lookup `cuGetProcAddress` answers from (`entry_point.rs`) and the
//! dump at exit (`NULLDRIVER_DUMP`) all go through it. A group left out of it is a compile error
//! (its `GROUP` unused: the lints deny warnings).
//!
//! Every entry point, whatever its group, runs the same way: it is counted (while counting is
//! on), then the fault injection may answer it with an error (`check::fault`: a release it
//! answers so is still checked, `check::released_while_failed`), then its body runs, and its
//! result is traced (`trace.rs`). `types.rs` holds the C types and result codes the groups share,
//! `common.rs` the out-parameter writes and small helpers; the state they keep is in the crate's
//! other modules (`check.rs`, `data.rs`, `stack.rs`, `handles.rs`, ...).

use core::ffi::{c_char, c_int, c_void};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// A group's entry points, each `fn name(args) { body }`; a call that releases something names
/// it after its arguments, `fn name(args) releases(kind, handle[, stream]) { body }`, so that a
/// release the fault injection answers with an error is still checked in a poisoned process
/// (`check::released_while_failed`). Makes, in the invoking module, each `#[no_mangle]` entry
/// point, the group's counters, and `GROUP`, which [`GROUPS`] lists.
macro_rules! entry_points {
    ($( fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(releases($kind:expr, $h:expr $(, $st:expr)?))? $body:block )*) => {
        /// The group's entry points, in declaration order: the index of each one's name and
        /// counter.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, clippy::enum_variant_names)]
        #[derive(Clone, Copy)]
        enum Id { $($name,)* }

        /// NUL-terminated entry point names, in `Id` order.
        const NAMES: &[&str] = &[$(concat!(stringify!($name), "\0")),*];
        /// The calls of each entry point, in `Id` order (while counting is on).
        static COUNTS: [core::sync::atomic::AtomicU64; NAMES.len()] =
            [const { core::sync::atomic::AtomicU64::new(0) }; NAMES.len()];

        /// This group's part of the table of every entry point ([`GROUPS`](crate::api::GROUPS)).
        pub(crate) static GROUP: $crate::api::Group = $crate::api::Group {
            names: NAMES,
            counts: &COUNTS,
            lookup: lookup_in_group,
        };

        $(
            #[doc = concat!("`", stringify!($name), "`, as `cuda.h` declares it:")]
            #[doc = "the double's model of the call."]
            #[doc = ""]
            #[doc = "# Safety"]
            #[doc = ""]
            #[doc = concat!("The CUDA documentation's contract for `", stringify!($name), "`:")]
            #[doc = "each pointer argument is null where the call allows it, or valid for what the"]
            #[doc = "call reads or writes through it."]
            #[unsafe(no_mangle)]
            #[allow(
                non_snake_case,
                unused_variables,
                unused_unsafe,
                clippy::multiple_unsafe_ops_per_block,
                reason = "the C name and signature of the entry point, whose body is one \
                          unit under one contract (the call's), in one unsafe block; not every \
                          body uses every argument or needs the block"
            )]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> $crate::api::types::CUresult {
                $crate::api::count(&COUNTS[Id::$name as usize]);
                // The body's `return`s end the closure, so that the trace (`trace.rs`) records
                // every result, a failure injected here included.
                let r = (move || -> $crate::api::types::CUresult {
                    if let Some(e) = $crate::check::fault(stringify!($name)) {
                        $($crate::check::released_while_failed($kind, $h, None $(.or(Some($st)))?, stringify!($name));)?
                        return e;
                    }
                    // SAFETY: the body of this entry point runs under its caller's contract
                    // (`# Safety` above, the CUDA documentation's for the call): it reads and
                    // writes only through the pointers the caller passed, and only what the
                    // call documents for each.
                    unsafe { $body }
                })();
                $crate::trace::record(stringify!($name), r);
                r
            }
        )*

        /// The entry point of this group named `name` (without NUL), as `cuGetProcAddress`
        /// returns it; null if the group has none of that name.
        fn lookup_in_group(name: &[u8]) -> *mut core::ffi::c_void {
            $( if name == stringify!($name).as_bytes() { return $name as *mut core::ffi::c_void; } )*
            core::ptr::null_mut()
        }
    };
}

pub(crate) mod common;
pub(crate) mod types;

mod error;
pub use error::*;
mod init;
pub use init::*;
mod device;
pub use device::*;
mod primary_ctx;
pub use primary_ctx::*;
mod ctx;
pub use ctx::*;
mod module;
pub use module::*;
mod library;
pub use library::*;
mod memory;
pub use memory::*;
mod vmm;
pub use vmm::*;
mod ipc;
pub use ipc::*;
mod stream;
pub use stream::*;
mod event;
pub use event::*;
mod launch;
pub use launch::*;
mod graph;
pub use graph::*;
mod occupancy;
pub use occupancy::*;
mod texture;
pub use texture::*;
mod tensor_map;
pub use tensor_map::*;
mod external;
pub use external::*;
mod peer;
pub use peer::*;
mod entry_point;
pub use entry_point::*;
mod green;
pub use green::*;

/// Every group's entry points, in `cuda.h`'s order: the one table of them all. The counters and
/// their names (`nulldriver_*`) are numbered in this order, group after group.
pub(crate) static GROUPS: [&Group; 21] = [
    &error::GROUP,
    &init::GROUP,
    &device::GROUP,
    &primary_ctx::GROUP,
    &ctx::GROUP,
    &module::GROUP,
    &library::GROUP,
    &memory::GROUP,
    &vmm::GROUP,
    &ipc::GROUP,
    &stream::GROUP,
    &event::GROUP,
    &launch::GROUP,
    &graph::GROUP,
    &occupancy::GROUP,
    &texture::GROUP,
    &tensor_map::GROUP,
    &external::GROUP,
    &peer::GROUP,
    &entry_point::GROUP,
    &green::GROUP,
];

/// One group's part of the table: what `entry_points!` makes for it.
pub(crate) struct Group {
    /// The NUL-terminated names of its entry points.
    pub(crate) names: &'static [&'static str],
    /// The calls of each, in the order of `names`.
    pub(crate) counts: &'static [AtomicU64],
    /// Its entry point of a name, or null.
    pub(crate) lookup: fn(&[u8]) -> *mut c_void,
}

/// Whether calls are counted (`nulldriver_set_counting`, `NULLDRIVER_DUMP`).
static COUNTING: AtomicBool = AtomicBool::new(false);

/// Counts a call on `counter` (one entry point's), while counting is on.
#[inline(always)]
#[allow(
    clippy::inline_always,
    reason = "on every entry point's path: one load and a branch while it is off (timing runs)"
)]
pub(crate) fn count(counter: &AtomicU64) {
    if COUNTING.load(Relaxed) {
        counter.fetch_add(1, Relaxed);
    }
}

/// The entry point named `name` (without NUL), as `cuGetProcAddress` returns it; null if the
/// double has none.
pub(crate) fn lookup(name: &[u8]) -> *mut c_void {
    GROUPS
        .iter()
        .map(|g| (g.lookup)(name))
        .find(|f| !f.is_null())
        .unwrap_or(null_mut())
}

/// Every entry point's name and counter, in table order.
fn counters() -> impl Iterator<Item = (&'static str, &'static AtomicU64)> {
    GROUPS
        .iter()
        .flat_map(|g| g.names.iter().copied().zip(g.counts.iter()))
}

/// Counting starts now (at load, under `NULLDRIVER_DUMP`).
pub(crate) fn start_counting() {
    COUNTING.store(true, Relaxed);
}

// ---------------------------------------------------------------------------------------------
// The counters, for the benchmark.

/// Turns call counting on (`on != 0`) or off.
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_set_counting(on: c_int) {
    COUNTING.store(on != 0, Relaxed);
}

/// The number of entry points (and counters).
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_entry_count() -> usize {
    GROUPS.iter().map(|g| g.names.len()).sum()
}

/// The NUL-terminated name of entry point `i`, or null past the end.
#[unsafe(no_mangle)]
pub extern "C" fn nulldriver_entry_name(i: usize) -> *const c_char {
    // By group, not `counters().nth(i)`: a caller naming every entry point in turn (the checking
    // programs' `calls_seen`) made that quadratic, which under Miri was most of the time of the
    // two programs that count calls most (`contracts`, `restricted_scope`).
    let mut rest = i;
    for group in GROUPS {
        match group.names.get(rest) {
            Some(name) => return name.as_ptr().cast(),
            None => rest -= group.names.len(),
        }
    }
    core::ptr::null()
}

/// Copies up to `cap` call counters into `out`, in entry point order; returns how many exist.
///
/// # Safety
///
/// `out` is null or valid for writes of `cap` counters.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nulldriver_counts(out: *mut u64, cap: usize) -> usize {
    if !out.is_null() {
        for (i, (_, c)) in counters().enumerate().take(cap) {
            // SAFETY: `i < cap`, and `out` holds `cap` counters (this function's contract).
            unsafe { out.wrapping_add(i).write(c.load(Relaxed)) };
        }
    }
    nulldriver_entry_count()
}

/// At exit, under `NULLDRIVER_DUMP`: the non-zero counters, to stderr.
pub(crate) extern "C" fn dump_counts() {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "nulldriver: calls per entry point");
    for (name, c) in counters() {
        let n = c.load(Relaxed);
        if n != 0 {
            let _ = writeln!(err, "{n:>12} {}", name.trim_end_matches('\0'));
        }
    }
}
