//! Faults injected into one replica of a redundant kernel, in checking mode
//! (`NULLDRIVER_INJECT=SEED`, a non-zero seed): custack's `RedundantKernel` runs a kernel once on
//! a stream of each of two green contexts, and the double corrupts what the second one's launches
//! do, as a transient fault in its SMs would. The launches it acts on are those on a stream of
//! a green context created second, fourth, … in the process (`cuGreenCtxCreate`'s order: the
//! second partition of each redundant kernel), counted per stream from 0. Launch `k` of such a
//! stream is left alone when `k` is even; when `k` is odd it is corrupted as `(k / 2) % 5` says:
//! 0, 1 and 2 flip 1, 8 and 64 distinct random bits (xorshift64*, seeded) of the bytes its
//! stand-in wrote; 3 drops the launch (accepted, never run: its output keeps what it held); 4
//! flips 64 bits and drops the next 16-byte copy to the host on a stream of the partition
//! created just before (the other replica's: a comparison on the device copies its 16-byte
//! verdict back there), as a fault that loses that copy would (accepted, never run: the host
//! memory keeps what it held). A
//! program that launches once per replica per frame therefore knows which frames were hit:
//! the odd ones. The report counts what was done (`injected N`, `injected-flips B`).
//!
//! Only a launch that runs when enqueued is corrupted (not one a capture keeps); a flip needs
//! a stand-in that writes at least as many bits as it flips.

use crate::data;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The seed (`NULLDRIVER_INJECT`); 0: no injection.
static SEED: AtomicU64 = AtomicU64::new(0);
/// Launches corrupted, and bits flipped, so far.
static INJECTED: AtomicU64 = AtomicU64::new(0);
static FLIPPED: AtomicU64 = AtomicU64::new(0);
/// Copies to the host dropped so far.
static LOST_COPIES: AtomicU64 = AtomicU64::new(0);

#[derive(Default)]
struct State {
    /// Green contexts created so far.
    greens: u64,
    /// The green contexts created at an even position (second, fourth, …), each with its pair's
    /// number (0 for the first two green contexts, 1 for the next two, …).
    second: BTreeMap<usize, u64>,
    /// The green contexts created at an odd position (first, third, …), with their pair's.
    first: BTreeMap<usize, u64>,
    /// Each stream of a second green context: its launches so far, and its pair.
    streams: BTreeMap<usize, (u64, u64)>,
    /// Each stream of a first green context: its pair.
    first_streams: BTreeMap<usize, u64>,
    /// The pairs whose next 16-byte copy to the host, on a first green context's stream, is
    /// dropped.
    lose_copy: BTreeSet<u64>,
    /// The random generator's state.
    rng: u64,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn state() -> MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

thread_local! {
    /// While a corrupted launch runs: its stand-in's writes (device address, bytes).
    static WRITES: RefCell<Option<Vec<(u64, usize)>>> = const { RefCell::new(None) };
}

/// Reads `NULLDRIVER_INJECT` (at load).
pub(crate) fn init() {
    let seed = std::env::var("NULLDRIVER_INJECT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    SEED.store(seed, Relaxed);
}

fn on() -> bool {
    SEED.load(Relaxed) != 0 && crate::mode::CHECK.load(Relaxed)
}

/// `cuGreenCtxCreate` made `green`.
pub(crate) fn green_created(green: usize) {
    if !on() {
        return;
    }
    let mut s = state();
    let s = s.get_or_insert_with(State::default);
    let pair = s.greens / 2;
    s.greens += 1;
    if s.greens.is_multiple_of(2) {
        s.second.insert(green, pair);
    } else {
        s.first.insert(green, pair);
    }
}

/// `cuGreenCtxStreamCreate` made `stream` in `green`.
pub(crate) fn green_stream_created(stream: usize, green: usize) {
    if !on() {
        return;
    }
    let mut s = state();
    let s = s.get_or_insert_with(State::default);
    if let Some(&pair) = s.second.get(&green) {
        s.streams.insert(stream, (0, pair));
    } else if let Some(&pair) = s.first.get(&green) {
        s.first_streams.insert(stream, pair);
    }
}

/// What happens to a launch on `stream`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// It runs as enqueued.
    Run,
    /// It runs, then this many distinct bits of what it wrote are flipped.
    Flip(u32),
    /// It never runs.
    Drop,
}

/// The action for the next launch on `stream` (and counts it).
pub(crate) fn next_launch(stream: usize) -> Action {
    if !on() {
        return Action::Run;
    }
    let mut s = state();
    let Some(s) = s.as_mut() else {
        return Action::Run;
    };
    let Some((k, pair)) = s.streams.get_mut(&stream) else {
        return Action::Run;
    };
    let (launch, pair) = (*k, *pair);
    *k += 1;
    if launch.is_multiple_of(2) {
        return Action::Run;
    }
    INJECTED.fetch_add(1, Relaxed);
    match (launch / 2) % 5 {
        0 => Action::Flip(1),
        1 => Action::Flip(8),
        2 => Action::Flip(64),
        3 => Action::Drop,
        _ => {
            s.lose_copy.insert(pair);
            Action::Flip(64)
        }
    }
}

/// Whether a copy of `bytes` to the host on `stream` is dropped (and counts it): the next
/// 16-byte one on a first green context's stream after its pair's launch was corrupted so.
pub(crate) fn drops_copy_to_host(stream: usize, bytes: usize) -> bool {
    if !on() || bytes != 16 {
        return false;
    }
    let mut s = state();
    let Some(s) = s.as_mut() else {
        return false;
    };
    let dropped = s
        .first_streams
        .get(&stream)
        .is_some_and(|pair| s.lose_copy.remove(pair));
    if dropped {
        LOST_COPIES.fetch_add(1, Relaxed);
    }
    dropped
}

/// Starts recording the calling thread's stand-in writes (a launch to be flipped runs next).
pub(crate) fn record_writes() {
    WRITES.with(|w| *w.borrow_mut() = Some(Vec::new()));
}

/// A stand-in wrote `bytes` bytes at `device`: recorded while a corrupted launch runs.
pub(crate) fn wrote(device: u64, bytes: usize) {
    WRITES.with(|w| {
        if let Some(v) = w.borrow_mut().as_mut() {
            v.push((device, bytes));
        }
    });
}

fn next_random(s: &mut State) -> u64 {
    if s.rng == 0 {
        s.rng = SEED.load(Relaxed) | 1;
    }
    s.rng ^= s.rng >> 12;
    s.rng ^= s.rng << 25;
    s.rng ^= s.rng >> 27;
    s.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// Ends the recording and flips `bits` distinct random bits of what the launch wrote (fewer
/// where it wrote fewer bits).
pub(crate) fn flip_written(bits: u32) {
    let writes = WRITES.with(|w| w.borrow_mut().take()).unwrap_or_default();
    let total: u64 = writes.iter().map(|&(_, b)| b as u64 * 8).sum();
    if total == 0 {
        return;
    }
    let mut chosen = BTreeSet::new();
    {
        let mut s = state();
        let s = s.get_or_insert_with(State::default);
        while (chosen.len() as u64) < u64::from(bits).min(total) {
            chosen.insert(next_random(s) % total);
        }
    }
    for bit in chosen {
        // The write that holds bit `bit` of all that the launch wrote.
        let mut at = bit;
        for &(device, bytes) in &writes {
            let size = bytes as u64 * 8;
            if at < size {
                let addr = device + at / 8;
                let mut byte = [0u8];
                if data::read(addr, &mut byte).unwrap_or(false) {
                    byte[0] ^= 1 << (at % 8);
                    let _ = data::write(addr, &byte);
                    FLIPPED.fetch_add(1, Relaxed);
                }
                break;
            }
            at -= size;
        }
    }
}

/// The report's lines: `injected N` (launches corrupted), `injected-flips B` (bits flipped) and
/// `injected-lost-copies C` (copies to the host dropped), when injection is on.
pub(crate) fn report_lines() -> String {
    if SEED.load(Relaxed) == 0 {
        return String::new();
    }
    format!(
        "injected {}\ninjected-flips {}\ninjected-lost-copies {}\n",
        INJECTED.load(Relaxed),
        FLIPPED.load(Relaxed),
        LOST_COPIES.load(Relaxed)
    )
}
