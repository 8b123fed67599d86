//! The process confined to the restricted profile, or not: one process-wide [`Latch`] whose
//! state is *fresh* (nothing decided), *full* (an entry to the full API was made, and which was
//! the first) or *confined* ([`Profile::init`](crate::safety::Profile::init) entered the
//! profile). It moves once, from fresh, and never back, like the process poison beside it.
//!
//! - Every entry to the full API calls [`full_api`] first: fresh becomes full (the entry is
//!   remembered), full stays full, and confined refuses with [`ErrorKind::OutsideProfile`]
//!   before the driver or a library is reached, whoever calls it: the application, a
//!   dependency, another thread.
//! - `Profile::init` calls [`confine`] first: fresh becomes confined, confined stays confined,
//!   and full refuses, naming the process's first full entry: what that entry made (a driver
//!   with its log callback, a context, a pushed guard, a library) would keep reaching the
//!   driver outside the safety subset beside the profile's values, so the process cannot enter
//!   the profile. "Call `Profile::init` first" (the safety manual's AOU-8) is checked.
//!
//! An entry counts once it has asked, whatever became of it: a `Driver::init` that failed
//! (`CUDA_ERROR_NO_DEVICE`, a failed log registration) still used the full API, and the process
//! cannot enter the profile after it.
//!
//! Every interleaving of two threads gives one linear answer: the state is one atomic, moved
//! from fresh by a compare-exchange, so either the full entry's move came first (it passes,
//! and `Profile::init` refuses) or the confinement's did (the entry refuses, `Profile::init`
//! goes on); no full entry passes its check after the process was confined, and no
//! `Profile::init` succeeds after a full entry passed. Every access is sequentially
//! consistent: `name_launches(true)` passes this check before it stores its switch, so a
//! switch that is on was turned on in a process that `Profile::init` then refuses.
//!
//! The restricted types reach the same driver calls as the full entries (`cuCtxCreate`,
//! `cuCtxPushCurrent`, ...) through their own crate-private paths, which do not ask.
//!
//! # Which public functions ask (the audit)
//!
//! The latch holds what the profile promises ("once `Profile::init` has returned `Ok`, nothing
//! in the process reaches the driver outside the subset") because every value that reaches the
//! driver outside the subset is made by a function that asks, or from a value such a function
//! made: a [`Context`](crate::Context) (and through it a `PushedGuard` and everything a guard
//! lends: memory, streams, modules, graphs, IPC opens, the CUDA libraries' handles, NCCL's
//! communicators), a [`GreenContext`](crate::GreenContext), a [`Library`](crate::Library), a
//! host generator. The public functions of safe code that reach libcuda, or a
//! CUDA library, *without* a value made that way, and what each does:
//!
//! | function | reaches | here |
//! | --- | --- | --- |
//! | `Driver::init` | `cuInit`, the log callback | asks |
//! | `Context::new`, `with_sm_count`, `primary`, `from_raw` | context creation, retain, adoption | ask |
//! | `Stack::push` (and `StackTop::with_pushed` of a `Context`, which only the entries above make) | `cuCtxPushCurrent` | asks |
//! | `Device::sm_resource`, `GreenContext::new` | green contexts | ask |
//! | `Device::set_primary_context_flags` | `cuDevicePrimaryCtxSetFlags` | asks |
//! | `Device::graph_mem_trim`, `Device::reset_graph_mem_high` | the device's graph-memory pool, which the profile never uses (no allocation nodes) | ask |
//! | `Library::load_ptx`, `SharedLibrary::load_ptx` | `cuLibraryLoadData` of PTX | ask |
//! | `name_launches(true)` | a host function per launch | asks |
//! | `nvrtc::Program::compile`, `nvrtc::version`, `nvrtc::supported_archs` | NVRTC (`Program::new` only keeps the source) | ask |
//! | `rand::HostRng::pseudo`, `quasi`; `rand::version` | cuRAND | ask |
//! | `nccl::unique_id`, `nccl::version` | NCCL | ask |
//! | `blas::version`, `blaslt::version`, `fft::version` | cuBLAS, cuBLASLt, cuFFT | ask |
//! | `sparse::version` | cuSPARSE | asks |
//! | `dnn::version` | cuDNN | asks |
//! | `solver::version` | cuSOLVER | asks |
//! | `Profile::init` | `cuInit` without callbacks | the profile ([`confine`]) |
//! | `Profile::driver`'s `Driver`: `version`, `device_count`, `device`, `devices`; `driver_version` | `cuDriverGetVersion`, `cuDeviceGetCount`, `cuDeviceGet` | in the subset: queries that make and register nothing (the profile's own `Profile::device`) |
//! | `Profile::device`'s `Device`: `name`, `uuid`, `pci_bus_id`, `total_memory`, `attribute`, `compute_capability`, `supports_sm_count_affinity`, `primary_context_state`, `graph_mem`, `can_access_peer`; `nvrtc::Options::arch_for` (a compute-capability query) | `cuDeviceGet*` queries | in the subset: queries (the profile's own checks ask the same: an image's architecture, the health pre-flight's PCI bus id) |
//! | `newer_entry_points` | `cuDriverGetVersion`, `cuGetProcAddress_v2` | in the subset: the lookups the profile's own calls make |
//! | `Error`'s `Display` and `Debug` | `cuGetErrorName`, `cuGetErrorString` | in the subset: error descriptions |
//! | `health::Health::open` and its reads (feature `nvml`) | NVML, `cuDeviceGetPCIBusId` | in the subset: the profile's own `InitPhase::watch_health` makes the same calls |
//! | `StandIn::register` (`unsafe`) | the checking driver's extension, looked up with `cuGetProcAddress_v2` (a real driver has none) | in the subset: test machinery, a lookup |
//! | `Stack::new`, `Profile::driver`, `poisoned`, `take_drop_errors`, `take_orphaned_drop_errors`, `fail_stop`, `launches_named`, `name_launches(false)`, plain data | nothing | no driver call |
//!
//! The raw layer (`custack::ffi`) is `unsafe` and outside this claim: code that calls libcuda
//! itself is the safety manual's AOU-9.
//!
//! A leaf of `error/`.

use crate::error::atomics::Atomic;
use crate::error::{Error, ErrorKind, Result};
use core::sync::atomic::{AtomicU8, Ordering};

/// The name of every entry to the full API that asks ([`full_api`]'s argument), so that the
/// latch keeps the first one as an index (one atomic holds the state and the entry). A name
/// missing here is kept as [`UNNAMED`]; a unit test checks that every `full_api("...")` of the
/// crate's sources is listed.
const ENTRIES: [&str; 26] = [
    "Driver::init",
    "Context::new",
    "Context::with_sm_count",
    "Context::primary",
    "Context::from_raw",
    "Stack::push",
    "Device::sm_resource",
    "GreenContext::new",
    "Device::set_primary_context_flags",
    "Device::graph_mem_trim",
    "Device::reset_graph_mem_high",
    "Library::load_ptx",
    "name_launches(true)",
    "nvrtc::Program::compile",
    "nvrtc::version",
    "nvrtc::supported_archs",
    "rand::HostRng",
    "rand::version",
    "nccl::unique_id",
    "nccl::version",
    "blas::version",
    "blaslt::version",
    "fft::version",
    "sparse::version",
    "dnn::version",
    "solver::version",
];

/// What an entry not listed in [`ENTRIES`] is called in a refusal.
const UNNAMED: &str = "an entry of the full API";

/// The latch's states: fresh, confined, and full with the first entry's index from [`FULL`].
const FRESH: u8 = 0;
const CONFINED: u8 = 1;
const FULL: u8 = 2;
const _: () = assert!(ENTRIES.len() < (u8::MAX - FULL) as usize);

/// The process's state with respect to the profile: fresh, full (with the first full entry) or
/// confined, moved once from fresh and never again (see the module). The process has one,
/// [`PROCESS`]; tests make fresh ones.
/// Generic over its atomic for the model tests (`error/atomics.rs`); the crate's is `core`'s.
#[derive(Debug)]
pub(crate) struct Latch<A = AtomicU8> {
    state: A,
}

/// The process's latch.
static PROCESS: Latch = Latch::new();

/// The state read from a latch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Fresh,
    Confined,
    /// The full API was entered; the first entry's name.
    Full(&'static str),
}

impl State {
    fn of(raw: u8) -> Self {
        match raw {
            FRESH => Self::Fresh,
            CONFINED => Self::Confined,
            full => Self::Full(
                ENTRIES
                    .get(usize::from(full - FULL))
                    .copied()
                    .unwrap_or(UNNAMED),
            ),
        }
    }
}

/// The state that records `entry` as the first full one.
fn full_state(entry: &'static str) -> u8 {
    let index = ENTRIES.iter().position(|&e| e == entry);
    // Every index of `ENTRIES` fits (the assertion above); an unlisted entry is one past them.
    let index = index.unwrap_or(ENTRIES.len());
    FULL + u8::try_from(index).unwrap_or(u8::MAX - FULL)
}

impl Latch {
    /// A fresh latch: nothing entered.
    pub(crate) const fn new() -> Self {
        Self {
            state: AtomicU8::new(FRESH),
        }
    }
}

impl<A: Atomic<Value = u8>> Latch<A> {
    /// A fresh latch over the atomic `A` (the model tests').
    #[cfg(all(test, loom))]
    fn fresh() -> Self {
        Self {
            state: A::make(FRESH),
        }
    }

    fn state(&self) -> State {
        State::of(self.state.load(Ordering::SeqCst))
    }

    /// Moves fresh to `to`; the state it found otherwise (unchanged then).
    fn leave_fresh(&self, to: u8) -> State {
        match self
            .state
            .compare_exchange(FRESH, to, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => State::of(to),
            Err(found) => State::of(found),
        }
    }

    /// An entry to the full API: `Ok` (the latch is full now, remembering the first entry), or
    /// the refusal of `entry` once confined. One load when the latch is full already.
    #[inline]
    pub(crate) fn enter_full(&self, entry: &'static str) -> Result<()> {
        let state = match self.state() {
            State::Fresh => self.leave_fresh(full_state(entry)),
            state => state,
        };
        match state {
            State::Full(_) => Ok(()),
            // `leave_fresh` never answers fresh: the latch was moved, by it or by another.
            State::Confined | State::Fresh => Err(refused(entry)),
        }
    }

    /// The profile's entry: `Ok` (the latch is confined now, or was), or the refusal naming
    /// the first full entry once the full API was used.
    pub(crate) fn confine(&self) -> Result<()> {
        let state = match self.state() {
            State::Fresh => self.leave_fresh(CONFINED),
            state => state,
        };
        match state {
            State::Confined => Ok(()),
            State::Full(first) => Err(used_before(first)),
            State::Fresh => Err(used_before(UNNAMED)),
        }
    }

    /// Whether the latch is confined.
    pub(crate) fn is_confined(&self) -> bool {
        self.state() == State::Confined
    }
}

/// Confines the process to the profile, for good, or refuses (`OutsideProfile`, naming the
/// process's first entry to the full API) where the full API was used before. See [`Latch`].
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` where the full API was entered before.
pub(crate) fn confine() -> Result<()> {
    PROCESS.confine()
}

/// Whether `Profile::init` has confined this process.
#[inline]
pub(crate) fn confined() -> bool {
    PROCESS.is_confined()
}

/// An entry to the full API: `Err(OutsideProfile)` naming `entry` once the process is
/// confined; `Ok` otherwise, and from then on `Profile::init` refuses (one atomic load, and a
/// compare-exchange the first time).
#[inline]
pub(crate) fn full_api(entry: &'static str) -> Result<()> {
    PROCESS.enter_full(entry)
}

#[cold]
#[inline(never)]
fn refused(entry: &'static str) -> Error {
    Error::custack(
        ErrorKind::OutsideProfile,
        format!(
            "{entry} is outside the restricted profile, and this process entered it \
             (custack::safety::Profile::init): from then on every entry to the full API is \
             refused, whoever calls it; make what the program needs with the profile's types"
        ),
    )
}

#[cold]
#[inline(never)]
fn used_before(first: &'static str) -> Error {
    Error::custack(
        ErrorKind::OutsideProfile,
        format!(
            "{first} was used before Profile::init (the process's first entry to the full API, \
             whatever it returned): what the full API made would keep reaching the driver \
             outside the safety subset, so this process cannot enter the restricted profile. \
             Call Profile::init first, before any full-API call, in every thread and dependency"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_entry_and_the_profile() {
        let e = refused("Context::new");
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        let detail = e.detail().unwrap_or_default();
        assert!(
            detail.starts_with("Context::new is outside the restricted profile"),
            "{detail}"
        );
        assert!(detail.contains("Profile::init"), "{detail}");
    }

    #[test]
    fn a_confined_latch_refuses_every_full_entry_and_stays_confined() {
        let latch = Latch::new();
        assert!(!latch.is_confined());
        latch.confine().unwrap();
        assert!(latch.is_confined());
        for entry in ENTRIES {
            let e = latch.enter_full(entry).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutsideProfile);
            let detail = e.detail().unwrap_or_default();
            assert!(
                detail.starts_with(&format!("{entry} is outside the restricted profile")),
                "{detail}"
            );
        }
        // A second Profile::init of the process: still confined, not refused.
        latch.confine().unwrap();
        assert!(latch.is_confined());
    }

    #[test]
    fn the_profile_is_refused_after_a_full_entry_naming_the_first_one() {
        for (k, first) in ENTRIES.into_iter().enumerate() {
            let latch = Latch::new();
            latch.enter_full(first).unwrap();
            // Later entries pass and leave the first one named.
            latch.enter_full(ENTRIES[(k + 1) % ENTRIES.len()]).unwrap();
            for _ in 0..2 {
                let e = latch.confine().unwrap_err();
                assert_eq!(e.kind(), ErrorKind::OutsideProfile);
                let detail = e.detail().unwrap_or_default();
                assert!(
                    detail.starts_with(&format!("{first} was used before Profile::init")),
                    "{detail}"
                );
                assert!(
                    detail.contains("Call Profile::init first, before any full-API call"),
                    "{detail}"
                );
                assert!(!latch.is_confined());
            }
            // Refused, the profile confined nothing: the full API still passes.
            latch.enter_full("Stack::push").unwrap();
        }
    }

    #[test]
    fn an_unlisted_entry_still_counts() {
        let latch = Latch::new();
        latch.enter_full("not::listed").unwrap();
        let e = latch.confine().unwrap_err();
        let detail = e.detail().unwrap_or_default();
        assert!(detail.starts_with(UNNAMED), "{detail}");
    }

    /// Two threads race `Profile::init` against a full entry on a fresh latch, many times:
    /// exactly one of them passes, never both, never neither.
    #[test]
    fn a_racing_profile_and_full_entry_never_both_pass() {
        let rounds = if cfg!(miri) { 20 } else { 2000 };
        let (mut profiles, mut entries) = (0, 0);
        for _ in 0..rounds {
            let latch = Latch::new();
            let start = std::sync::Barrier::new(2);
            let (confined, entered) = std::thread::scope(|t| {
                let profile = t.spawn(|| {
                    start.wait();
                    latch.confine().is_ok()
                });
                let entry = t.spawn(|| {
                    start.wait();
                    latch.enter_full("Driver::init").is_ok()
                });
                (profile.join().unwrap(), entry.join().unwrap())
            });
            assert!(
                confined != entered,
                "confined {confined}, entered {entered}"
            );
            assert_eq!(latch.is_confined(), confined);
            profiles += usize::from(confined);
            entries += usize::from(entered);
        }
        assert_eq!(profiles + entries, rounds);
    }

    /// Every `full_api("...")` in the crate's sources names an entry of `ENTRIES`, so that a
    /// refused `Profile::init` names it.
    #[test]
    #[cfg(not(miri))]
    fn every_full_entry_of_the_sources_is_listed() {
        fn visit(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    visit(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for call in text.split("full_api(\"").skip(1) {
                        let name = call.split('"').next().unwrap_or_default();
                        found.push(name.to_owned());
                    }
                }
            }
        }
        let mut found = Vec::new();
        visit(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        // This file's own examples are in `ENTRIES`' doc and tests, not calls.
        found.retain(|name| !name.contains('.'));
        assert!(found.len() >= 15, "{found:?}");
        for name in &found {
            assert!(
                ENTRIES.contains(&name.as_str()),
                "full_api(\"{name}\") is not in ENTRIES"
            );
        }
    }
}

/// The latch under every interleaving (`loom`; `scripts/loom.sh`): the real `enter_full` and
/// `confine` over `loom`'s atomic.
#[cfg(all(test, loom))]
mod model {
    use super::{ENTRIES, Latch};
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicU8;

    /// A full entry racing `Profile::init`: exactly one passes, and what comes after agrees
    /// with it (a later entry refused once confined; a later `Profile::init` refused, naming
    /// the entry, once full).
    #[test]
    fn a_full_entry_and_the_profile_never_both_pass() {
        loom::model(|| {
            let latch = Arc::new(Latch::<AtomicU8>::fresh());
            let other = Arc::clone(&latch);
            let entry = loom::thread::spawn(move || other.enter_full("Driver::init").is_ok());
            let confined = latch.confine();
            let entered = entry.join().unwrap();
            assert_ne!(confined.is_ok(), entered);
            if entered {
                let detail = latch
                    .confine()
                    .unwrap_err()
                    .detail()
                    .unwrap_or_default()
                    .to_owned();
                assert!(
                    detail.starts_with("Driver::init was used before"),
                    "{detail}"
                );
            } else {
                assert!(latch.is_confined());
                assert!(latch.enter_full("Context::new").is_err());
            }
        });
    }

    /// Two full entries and `Profile::init` on three threads: the profile passes only if both
    /// entries were refused; an entry that passed leaves the profile refused, naming the first
    /// entry that passed, one of the two.
    #[test]
    fn two_entries_and_the_profile_give_one_linear_answer() {
        loom::model(|| {
            let latch = Arc::new(Latch::<AtomicU8>::fresh());
            let entries: Vec<_> = [ENTRIES[0], ENTRIES[5]]
                .into_iter()
                .map(|entry| {
                    let latch = Arc::clone(&latch);
                    loom::thread::spawn(move || latch.enter_full(entry).is_ok())
                })
                .collect();
            let confined = latch.confine().is_ok();
            let passed: Vec<bool> = entries.into_iter().map(|t| t.join().unwrap()).collect();
            if confined {
                assert!(passed.iter().all(|&p| !p), "{passed:?}");
            } else {
                assert!(passed.iter().any(|&p| p), "{passed:?}");
                let e = latch.confine().unwrap_err();
                let detail = e.detail().unwrap_or_default();
                let named = [ENTRIES[0], ENTRIES[5]]
                    .into_iter()
                    .zip(&passed)
                    .any(|(entry, &p)| p && detail.starts_with(entry));
                assert!(named, "{detail}");
            }
        });
    }
}
