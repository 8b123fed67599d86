//! A declared kernel run twice on two SM partitions of one GPU, the results compared
//! (`InitPhase::redundant`, `RedundantKernel::run`): the two runs never share an SM (how
//! long they overlap in time is printed); a clean frame loop finds no difference; a bit flipped in one partition's result is
//! found, with its element, compared on the host and on the device (`custack_replicas_compare`,
//! `CompareOn`), at the first, a middle and the last element too, as is a dropped launch; the
//! compare kernel alone finds one element flipped anywhere, for elements of 1 to 24 bytes and
//! lengths around a warp and a block, under three launch shapes; a redundant frame's cost
//! against a single run, with both comparisons. The cubin is `tests/fixtures/redundancy.cu`, which
//! `scripts/gpu-bundle.sh`'s run.sh builds with nvcc (`CUSTACK_REDUNDANCY_CUBIN`).
//!
//! A process has one restricted primary context per device, so each test runs its scenario in a
//! child process of its own. Without a device every test fails (`Profile::init` errs in the
//! child), never passes.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::cast_lossless,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

use custack::safety::{
    Budget, CompareOn, OnMismatch, Profile, RedundantKernel, RestrictedBuffer, RestrictedContext,
};
use custack::{ErrorKind, LaunchConfig, PinnedBuffer, Stack};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::process::Command;

const CHILD_ENV: &str = "CUSTACK_REDUNDANCY_CHILD";

custack::kernel_contract! {
    /// `smid_time(unsigned long long* out, unsigned count, unsigned long long spin_ns)`:
    /// block `b < count` writes its SM's id and the global timer at its start and end to
    /// `out[3b..3b + 3]`.
    unsafe kernel SmidTime = "smid_time"(out: &mut [u64; 3 * count], count: u32, spin_ns: u64);
    /// `mix(unsigned* out, const unsigned* in, unsigned n, unsigned frame, unsigned flip_at)`:
    /// `out[i]` a hash of `in[i]`, `i` and `frame`; bit `frame % 32` of `out[flip_at]` flipped.
    unsafe kernel Mix = "mix"(out: &mut [u32; n], input: &[u32; n], n: u32, frame: u32, flip_at: u32);
}

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn cubin() -> Vec<u8> {
    let var = "CUSTACK_REDUNDANCY_CUBIN";
    let path = std::env::var(var)
        .unwrap_or_else(|_| panic!("{var}: set by scripts/gpu-bundle.sh's run.sh, with nvcc"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{var}={path}: {e}"))
}

/// Runs `test` again in a child process with `CHILD_ENV` set and requires it to pass.
fn in_child(test: &str) {
    in_child_comparing(test, "");
}

/// The variable that tells a child where to compare (`host`: by the output's size; `device`).
const COMPARE_ENV: &str = "CUSTACK_REDUNDANCY_COMPARE";

/// As `in_child`, the child told where to compare (`COMPARE_ENV`): each comparison in a process
/// of its own, since a process has one restricted primary context per device.
fn in_child_comparing(test: &str, compare: &str) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test,
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .env(COMPARE_ENV, compare)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("--- child stdout\n{stdout}\n--- child stderr\n{stderr}");
    assert!(out.status.success(), "child {test}: {}", out.status);
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test: {stdout}"
    );
}

fn is_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// Runs `test` in two children, one comparing as the output's size says, one on the device.
fn in_children_comparing_both_ways(test: &str) {
    in_child_comparing(test, "host");
    in_child_comparing(test, "device");
}

/// Where this child compares: `None` (as the output's size says) or on the device.
fn child_compares() -> Option<CompareOn> {
    match std::env::var(COMPARE_ENV).as_deref() {
        Ok("device") => Some(CompareOn::Device),
        _ => None,
    }
}

/// SMs per partition: a multiple of 8 (the H100's and H200's partition granularity) that two
/// partitions of the device hold.
fn sms_each(profile: Profile) -> u32 {
    let count = profile
        .device(0)
        .unwrap()
        .attribute(custack::DeviceAttribute::MultiprocessorCount)
        .unwrap();
    (count as u32 / 2) / 8 * 8
}

const BLOCKS: u32 = 512;

#[test]
#[ignore = "needs a CUDA device"]
fn the_two_runs_never_share_an_sm() {
    if !is_child() {
        return in_child("the_two_runs_never_share_an_sm");
    }
    let profile = Profile::init(1).unwrap();
    let each = sms_each(profile);
    let len = 3 * BLOCKS as usize;
    let budget = Budget::page_locked(2 * len * 8)
        .device_bytes(2 * len * 8)
        .streams(2)
        .partitions(2)
        .modules(1)
        .kernels(1);
    let mut ctx = RestrictedContext::primary(&profile, profile.device(0).unwrap(), budget).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    let init = guard.init().unwrap();
    let image = cubin();
    // SAFETY: an nvcc cubin for this device, complete.
    let module = unsafe { init.load_cubin(&image) }.unwrap();
    let mut twice = init
        .redundant::<SmidTime, u64>(&module, "out", len, each, OnMismatch::ReturnError)
        .unwrap();
    let run = init.seal();
    let counts = twice.sm_counts();
    println!("partitions of {counts:?} SMs (asked for {each} each)");
    let cfg = LaunchConfig {
        grid: (BLOCKS, 1, 1),
        block: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    // 2 ms a block: both runs are long enough to be resident together.
    let e = twice
        .run(&(), |_, s, k, out, ()| {
            s.run(k, cfg, (out, BLOCKS, 2_000_000u64))
        })
        .unwrap_err();
    // The SM ids and the times differ between the runs: the comparison says so.
    assert_eq!(e.kind(), ErrorKind::ReplicasDiffer, "{e}");
    let mut sms = [BTreeSet::new(), BTreeSet::new()];
    let mut spans = [(u64::MAX, 0u64), (u64::MAX, 0u64)];
    for r in 0..2 {
        for b in twice.replica(r).chunks_exact(3) {
            sms[r].insert(b[0] as u32);
            spans[r].0 = spans[r].0.min(b[1]);
            spans[r].1 = spans[r].1.max(b[2]);
        }
        println!(
            "replica {r}: {} SMs {:?}, {:.3} ms from first start to last end",
            sms[r].len(),
            sms[r],
            (spans[r].1 - spans[r].0) as f64 / 1e6
        );
        assert!(!sms[r].is_empty());
        assert!(
            sms[r].len() <= counts[r] as usize,
            "replica {r} ran on {} SMs, its partition has {}",
            sms[r].len(),
            counts[r]
        );
    }
    let shared: Vec<_> = sms[0].intersection(&sms[1]).collect();
    assert!(shared.is_empty(), "SMs both runs used: {shared:?}");
    let overlap = spans[0].1.min(spans[1].1) as i128 - spans[0].0.max(spans[1].0) as i128;
    println!(
        "the runs overlapped for {:.3} ms; replica 1 started {:.3} ms after replica 0",
        overlap as f64 / 1e6,
        (spans[1].0 as i128 - spans[0].0 as i128) as f64 / 1e6
    );
    // Printed, not asserted: whether the spans overlap depends on how soon the host enqueues
    // the second replica after the first (an assertion on it failed once on the H100, the
    // second replica enqueued after the first had ended), and no assertion here may depend on
    // the host's speed. The partitions are what the test holds: no SM ran both.
    run.synchronize().unwrap();
    drop(twice);
    // A `RunPhase` has drop glue only with the feature `nvml` (its health watch).
    #[allow(clippy::drop_non_drop)]
    drop(run);
    drop(module);
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
}

const N: usize = 4096;
/// The cost test's largest output, which fills the device (64 MiB of `u32`).
const BIG: usize = 1 << 24;
/// The cost test's outputs, in elements, and the frames timed of each: 16 KiB, 256 KiB
/// (`CompareOn::DEVICE_FROM_BYTES`), 4 MiB and 64 MiB.
const SIZES: [(usize, u32); 4] = [(N, 2000), (1 << 16, 1000), (1 << 20, 300), (BIG, 100)];

/// What replica 1 of a frame of `mix_frames` suffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// Nothing.
    None,
    /// One bit of its result at this element flipped (a kernel argument).
    Flip(u32),
    /// Its launch dropped: its output still holds the previous frame's result.
    Drop,
}

/// What `mix_frames` saw.
struct Frames {
    outcomes: Vec<Result<(), custack::Error>>,
    /// Host allocations of the clean frames.
    clean_allocations: u64,
    compare_on: CompareOn,
    by_event: bool,
}

/// Runs `frames` frames of `mix` over `n` elements twice each, compared where `compare_on` says
/// (or by the output's size, `None`); replica 1 of frame `f` suffers `fault(f)`.
fn mix_frames(
    n: usize,
    frames: u32,
    compare_on: Option<CompareOn>,
    fault: impl Fn(u32) -> Fault,
) -> Frames {
    let profile = Profile::init(1).unwrap();
    let each = sms_each(profile).min(16);
    // The input and two outputs on the device, two page-locked copies (one where the
    // comparison is on the device), and the comparison's kernel, event and verdicts.
    let budget = Budget::page_locked(2 * n * 4 + 16)
        .device_bytes(3 * n * 4 + 16)
        .streams(2)
        .partitions(2)
        .modules(1)
        .kernels(2)
        .events(1);
    let mut ctx = RestrictedContext::primary(&profile, profile.device(0).unwrap(), budget).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    let init = guard.init().unwrap();
    let image = cubin();
    // SAFETY: an nvcc cubin for this device, complete.
    let module = unsafe { init.load_cubin(&image) }.unwrap();
    let input = init.alloc::<u32>(n).unwrap();
    let mut twice = match compare_on {
        None => init.redundant::<Mix, u32>(&module, "out", n, each, OnMismatch::ReturnError),
        Some(on) => init.redundant_compared::<Mix, u32>(
            &module,
            "out",
            n,
            each,
            OnMismatch::ReturnError,
            on,
        ),
    }
    .unwrap();
    let run = init.seal();
    println!(
        "partitions of {:?} SMs, {n} elements compared on the {:?} (ordered by an event: {})",
        twice.sm_counts(),
        twice.compare_on(),
        twice.ordered_by_event()
    );
    let cfg = LaunchConfig::for_elements(n as u32);
    let mut outcomes = Vec::with_capacity(frames as usize);
    let mut clean_allocations = 0;
    let mut previous = vec![0u32; n];
    for frame in 0..frames {
        let fault = fault(frame);
        let before = allocations();
        let outcome = twice.run(&(&input,), |replica, s, k, out, &(input,)| {
            let at = match (replica, fault) {
                (1, Fault::Drop) => return Ok(()),
                (1, Fault::Flip(at)) => at,
                _ => u32::MAX,
            };
            s.run(k, cfg, (out, s.bind(input), n as u32, frame, at))
        });
        if fault == Fault::None {
            clean_allocations += allocations() - before;
        }
        // The output changes every frame: a replica that did not run would be seen.
        assert_ne!(twice.replica(0), &previous[..], "frame {frame}");
        previous.copy_from_slice(twice.replica(0));
        outcomes.push(outcome);
    }
    assert_eq!(twice.frames(), u64::from(frames));
    let (compare_on, by_event) = (twice.compare_on(), twice.ordered_by_event());
    run.synchronize().unwrap();
    drop(twice);
    drop(input);
    // A `RunPhase` has drop glue only with the feature `nvml` (its health watch).
    #[allow(clippy::drop_non_drop)]
    drop(run);
    drop(module);
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
    Frames {
        outcomes,
        clean_allocations,
        compare_on,
        by_event,
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_clean_redundant_frame_loop_finds_no_difference() {
    if !is_child() {
        return in_children_comparing_both_ways("a_clean_redundant_frame_loop_finds_no_difference");
    }
    let frames = std::env::var("CUSTACK_REDUNDANT_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000u32);
    // The small output's default, the host; in a second child the same frames compared on the
    // device.
    {
        let on = child_compares();
        let start = std::time::Instant::now();
        let seen = mix_frames(N, frames, on, |_| Fault::None);
        let elapsed = start.elapsed();
        let mismatches = seen.outcomes.iter().filter(|o| o.is_err()).count();
        println!(
            "{frames} redundant frames compared on the {:?}, {mismatches} mismatches, {} host \
             allocations, {:.1} us a frame",
            seen.compare_on,
            seen.clean_allocations,
            elapsed.as_secs_f64() * 1e6 / f64::from(frames)
        );
        for o in &seen.outcomes {
            o.as_ref().unwrap();
        }
        assert_eq!(mismatches, 0);
        assert_eq!(
            seen.clean_allocations, 0,
            "host allocations in clean frames"
        );
        let expected = on.unwrap_or(CompareOn::Host);
        assert_eq!(seen.compare_on, expected);
    }
}

/// Checks a frame loop where every 10th frame (from frame 3) had one bit flipped at `at(f)` in
/// replica 1: each of those found, naming its frame, `out`, its element and the count; every
/// other frame equal.
fn flips_found(seen: &Frames, n: usize, at: impl Fn(u32) -> u32) -> usize {
    let mut found = 0;
    for (f, outcome) in seen.outcomes.iter().enumerate() {
        let f = f as u32;
        if f % 10 == 3 {
            let e = outcome.as_ref().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ReplicasDiffer, "{e}");
            let text = e.to_string();
            assert!(text.contains(&format!("frame {f}:")), "{text}");
            assert!(
                text.contains(&format!("element {} differs first", at(f))),
                "{text}"
            );
            assert!(
                text.contains(&format!("1 of {n} elements differ")),
                "{text}"
            );
            assert!(text.contains("`out`"), "{text}");
            found += 1;
        } else {
            outcome.as_ref().unwrap();
        }
    }
    found
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_bit_flipped_in_one_partition_is_found_with_its_element() {
    if !is_child() {
        return in_children_comparing_both_ways(
            "a_bit_flipped_in_one_partition_is_found_with_its_element",
        );
    }
    // Every 10th frame, one bit of one element flipped in replica 1 only; compared on the host
    // (the small output's default), and in a second child on the device.
    let at = |f: u32| (f * 977 + 13) % N as u32;
    {
        let on = child_compares();
        let seen = mix_frames(N, 1000, on, |f| {
            if f % 10 == 3 {
                Fault::Flip(at(f))
            } else {
                Fault::None
            }
        });
        let found = flips_found(&seen, N, at);
        println!(
            "compared on the {:?}: {found} of 100 injected faults found, each with its element",
            seen.compare_on
        );
        assert_eq!(found, 100);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_large_output_is_compared_on_the_device_and_its_faults_found() {
    if !is_child() {
        return in_child("a_large_output_is_compared_on_the_device_and_its_faults_found");
    }
    // 4 MiB of `u32`: past CompareOn::DEVICE_FROM_BYTES, so compared on the device by default.
    let n = 1 << 20;
    assert_eq!(CompareOn::for_bytes(4 * n), CompareOn::Device);
    // Every 10th frame from frame 3 one bit flipped far into the output; every 10th from frame
    // 7 replica 1's launch dropped (its output still the previous frame's: nearly every
    // element differs).
    let at = |f: u32| n as u32 - 1 - (f * 7919) % 65_536;
    let seen = mix_frames(n, 500, None, |f| match f % 10 {
        3 => Fault::Flip(at(f)),
        7 => Fault::Drop,
        _ => Fault::None,
    });
    assert_eq!(seen.compare_on, CompareOn::Device);
    println!("ordered by an event: {}", seen.by_event);
    let mut dropped = 0;
    for (f, outcome) in seen.outcomes.iter().enumerate() {
        if f % 10 != 7 {
            continue;
        }
        let e = outcome.as_ref().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ReplicasDiffer, "{e}");
        let text = e.to_string();
        assert!(text.contains(&format!("frame {f}:")), "{text}");
        // The count the verdict gave: all but the (rare) elements whose hash repeats.
        let count: usize = text
            .split("differs first, ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no count in {text}"));
        assert!(count > n * 99 / 100 && count <= n, "{text}");
        assert!(
            text.contains(&format!("{count} of {n} elements differ")),
            "{text}"
        );
        dropped += 1;
    }
    // The flips, each found with its element and the count 1; the clean frames equal.
    let mut found = 0;
    for (f, outcome) in seen.outcomes.iter().enumerate() {
        let f = f as u32;
        match f % 10 {
            3 => {
                let text = outcome.as_ref().unwrap_err().to_string();
                assert!(text.contains(&format!("frame {f}:")), "{text}");
                assert!(
                    text.contains(&format!("element {} differs first", at(f))),
                    "{text}"
                );
                assert!(
                    text.contains(&format!("1 of {n} elements differ")),
                    "{text}"
                );
                found += 1;
            }
            7 => {}
            _ => outcome.as_ref().map(drop).unwrap(),
        }
    }
    println!(
        "{n} elements compared on the device: {found} of 50 flipped bits found with their \
         element, {dropped} of 50 dropped launches found; {} host allocations in the 400 clean \
         frames",
        seen.clean_allocations
    );
    assert_eq!((found, dropped), (50, 50));
    assert_eq!(seen.clean_allocations, 0);
}

/// Microseconds a frame of `f`, over `frames` frames after 10 unmeasured ones.
fn per_frame(frames: u32, mut f: impl FnMut(u32)) -> f64 {
    for frame in 0..10 {
        f(frame);
    }
    let start = std::time::Instant::now();
    for frame in 10..10 + frames {
        f(frame);
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(frames)
}

#[test]
#[ignore = "needs a CUDA device"]
#[allow(clippy::too_many_lines)] // the init phase and both sizes' three loops
fn a_redundant_frame_costs_against_a_single_run() {
    if !is_child() {
        return in_child("a_redundant_frame_costs_against_a_single_run");
    }
    let profile = Profile::init(1).unwrap();
    let each = sms_each(profile);
    // Per size: on the device the single run's output and two per redundant kernel (one
    // compared on the host, one on the device), and the input once; page-locked, the single
    // run's copy, the host-compared kernel's two and the device-compared one's one; and the
    // verdicts.
    let elements: usize = SIZES.iter().map(|&(n, _)| n).sum();
    let budget = Budget::page_locked(4 * 4 * elements + 16 * SIZES.len())
        .device_bytes(4 * 5 * elements + 4 * BIG + 16 * SIZES.len())
        .streams(1 + 4 * SIZES.len())
        .partitions(4 * SIZES.len())
        .modules(1)
        .kernels(1 + 3 * SIZES.len())
        .events(SIZES.len());
    let mut ctx = RestrictedContext::primary(&profile, profile.device(0).unwrap(), budget).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        let image = cubin();
        // SAFETY: an nvcc cubin for this device, complete.
        let module = unsafe { init.load_cubin(&image) }.unwrap();
        let input = init.alloc::<u32>(BIG).unwrap();
        let stream = init.stream().unwrap();
        let twice = |n: usize, on: CompareOn| {
            init.redundant_compared::<Mix, u32>(
                &module,
                "out",
                n,
                each,
                OnMismatch::ReturnError,
                on,
            )
            .unwrap()
        };
        // Per size: the single run's output and its copy, the kernel compared on the host, the
        // one compared on the device, the timed frames.
        let mut sizes: Vec<_> = SIZES
            .iter()
            .map(|&(n, frames)| {
                (
                    init.alloc::<u32>(n).unwrap(),
                    init.alloc_pinned::<u32>(n).unwrap(),
                    twice(n, CompareOn::Host),
                    twice(n, CompareOn::Device),
                    frames,
                )
            })
            .collect();
        let single_kernel = init.kernel::<Mix>(&module).unwrap();
        let run = init.seal();
        // The single run: the same kernel on the whole device, its output copied back and
        // waited for, as replica 0's is.
        let single = |out: &mut RestrictedBuffer<'_, u32>, host: &mut PinnedBuffer<'_, u32>, f| {
            let n = out.len();
            stream
                .scope(|s| {
                    let mut out = s.bind_mut(out);
                    s.run(
                        &single_kernel,
                        LaunchConfig::for_elements(n as u32),
                        (&mut out, s.bind(&input), n as u32, f, u32::MAX),
                    )?;
                    s.copy_to_host(host, &out)
                })
                .unwrap()
                .unwrap();
        };
        let redundant = |twice: &mut RedundantKernel<'_, '_, Mix, u32>, f: u32| {
            let n = twice.output().len();
            let cfg = LaunchConfig::for_elements(n as u32);
            twice
                .run(&(&input,), |_, s, k, out, &(input,)| {
                    s.run(k, cfg, (out, s.bind(input), n as u32, f, u32::MAX))
                })
                .unwrap();
        };
        for (out, host, on_host, on_device, frames) in &mut sizes {
            let frames = *frames;
            // The redundant result is the single run's, in both replicas (on the host) and in
            // replica 0 (on the device, whose replica 1 stays there).
            single(out, host, 7);
            redundant(on_host, 7);
            redundant(on_device, 7);
            assert_eq!(on_host.replica(0), &host[..]);
            assert_eq!(on_host.replica(1), &host[..]);
            assert_eq!(on_device.replica(0), &host[..]);
            assert!(on_device.replica(1).is_empty());
            let one = per_frame(frames, |f| single(out, host, f));
            let two_host = per_frame(frames, |f| redundant(on_host, f));
            let two_device = per_frame(frames, |f| redundant(on_device, f));
            println!(
                "mix of {} elements ({} KiB): single {one:.1} us a frame; redundant compared on \
                 the host {two_host:.1} us ({:.2}x), on the device {two_device:.1} us ({:.2}x; \
                 ordered by an event: {}); partitions of {:?} SMs",
                out.len(),
                out.len() * 4 / 1024,
                two_host / one,
                two_device / one,
                on_device.ordered_by_event(),
                on_device.sm_counts()
            );
        }
        drop(sizes);
        run.synchronize().unwrap();
        // A `RunPhase` has drop glue only with the feature `nvml` (its health watch).
        #[allow(clippy::drop_non_drop)]
        drop(run);
    }
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn partitions_need_the_primary_context_and_the_budget() {
    if !is_child() {
        return in_child("partitions_need_the_primary_context_and_the_budget");
    }
    // Two contexts in this child's life: one of its own, then the primary one.
    let profile = Profile::init(2).unwrap();
    let device = profile.device(0).unwrap();
    let image = cubin();
    let budget = Budget::page_locked(2 * N * 4)
        .device_bytes(2 * N * 4)
        .streams(2)
        .partitions(2)
        .modules(1)
        .kernels(1);
    let mut stack = Stack::new().unwrap();
    // A context of its own: green contexts share neither its memory nor its modules.
    let mut own = RestrictedContext::new(&profile, device, budget).unwrap();
    let mut guard = own.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        // SAFETY: an nvcc cubin for this device, complete.
        let module = unsafe { init.load_cubin(&image) }.unwrap();
        let e = init
            .redundant::<Mix, u32>(&module, "out", N, 16, OnMismatch::ReturnError)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(e.to_string().contains("RestrictedContext::primary"), "{e}");
    }
    guard.shutdown().unwrap();
    assert_eq!(own.used(custack::safety::Resource::Partitions), 0);
    own.destroy().unwrap();
    // The primary context, one partition stated: refused before anything is made.
    let mut primary = RestrictedContext::primary(&profile, device, budget.partitions(1)).unwrap();
    let mut guard = primary.push(&mut stack).unwrap();
    {
        let init = guard.init().unwrap();
        // SAFETY: as above.
        let module = unsafe { init.load_cubin(&image) }.unwrap();
        let e = init
            .redundant::<Mix, u32>(&module, "out", N, 16, OnMismatch::ReturnError)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutsideProfile, "{e}");
        assert!(e.to_string().contains("Budget::partitions"), "{e}");
        // An output the contract does not declare.
        let e = init
            .redundant::<Mix, u32>(&module, "result", N, 16, OnMismatch::ReturnError)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
    }
    guard.shutdown().unwrap();
    for r in [
        custack::safety::Resource::Partitions,
        custack::safety::Resource::Streams,
        custack::safety::Resource::Kernels,
        custack::safety::Resource::DeviceBytes,
    ] {
        assert_eq!(primary.used(r), 0, "{r:?}");
    }
    primary.destroy().unwrap();
    println!("a context of its own and a budget of one partition both refused, nothing taken");
}

/// One bit flipped in replica 1's first, middle or last element of a 1,001-element output (not a
/// whole number of warps or blocks), in turn, every other frame: each found with its element and
/// the count 1, the frames between equal; compared on the host (the output's default) in one
/// child and on the device (`custack_replicas_compare`) in another.
#[test]
#[ignore = "needs a CUDA device"]
fn a_flip_at_the_first_middle_or_last_element_is_found() {
    if !is_child() {
        return in_children_comparing_both_ways(
            "a_flip_at_the_first_middle_or_last_element_is_found",
        );
    }
    let n = 1001;
    let at = |f: u32| [0, n as u32 / 2, n as u32 - 1][(f / 2 % 3) as usize];
    let seen = mix_frames(n, 30, child_compares(), |f| {
        if f % 2 == 1 {
            Fault::Flip(at(f))
        } else {
            Fault::None
        }
    });
    let mut found = BTreeSet::new();
    for (f, outcome) in seen.outcomes.iter().enumerate() {
        let f = f as u32;
        if f % 2 == 0 {
            outcome.as_ref().unwrap();
            continue;
        }
        let e = outcome.as_ref().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ReplicasDiffer, "{e}");
        let text = e.to_string();
        let named = format!(
            "frame {f}: the two runs wrote different `out`: element {} differs first, 1 of {n} \
             elements differ",
            at(f)
        );
        assert!(text.contains(&named), "{text}\nwanted: {named}");
        found.insert(at(f));
    }
    println!(
        "compared on the {:?}: flips at elements {found:?} of {n} each found",
        seen.compare_on
    );
    assert_eq!(found.len(), 3);
}

custack::kernel_contract! {
    /// `custack_replicas_compare`, as `ReplicasCompare` documents it: this test's own contract
    /// (custack's is not public: a contract is a promise about every module it is declared on),
    /// kept by the cubin `cubin()` built from `ReplicasCompare::SOURCE`.
    unsafe kernel Compare = "custack_replicas_compare"(
        first: &[u8; len * size],
        second: &[u8; len * size],
        len: u64,
        size: u64,
        verdict: &mut [u64; 2],
    ) requires(block_x % 32 == 0, block_y == 1, block_z == 1);
}

/// The compare kernel itself (`custack_replicas_compare`, built into the cubin from
/// `src/safety/replicas_compare.cu`), launched on its own over byte images: for elements of 1
/// to 24 bytes (each word width the kernel picks, and sizes no wider word divides) and lengths
/// on both sides of a warp and a block, equal images leave the verdict zero; one bit flipped in
/// the first, a middle or the last element, in its first or its last byte, is found alone and
/// named (`[1, !i]`); a difference just past the compared bytes is not counted. Each case by
/// one warp, by two blocks of 256 (a grid-stride loop over what they do not cover) and by as
/// many blocks of 256 as the elements need.
#[test]
#[ignore = "needs a CUDA device"]
fn the_compare_kernel_finds_one_element_of_any_size_anywhere() {
    const SIZES: [usize; 9] = [1, 2, 3, 4, 6, 8, 12, 16, 24];
    const LENGTHS: [usize; 9] = [1, 31, 32, 33, 255, 256, 257, 1000, 1025];
    // Room for the largest image and one byte past it.
    const CAP: usize = 24 * 1025 + 8;
    if !is_child() {
        return in_child("the_compare_kernel_finds_one_element_of_any_size_anywhere");
    }
    let profile = Profile::init(1).unwrap();
    let budget = Budget::page_locked(2 * CAP + 16)
        .device_bytes(2 * CAP + 16)
        .streams(1)
        .modules(1)
        .kernels(1);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0).unwrap(), budget).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = ctx.push(&mut stack).unwrap();
    let init = guard.init().unwrap();
    let image = cubin();
    // SAFETY: an nvcc cubin for this device, complete.
    let module = unsafe { init.load_cubin(&image) }.unwrap();
    assert_eq!(
        custack::safety::ReplicasCompare::KERNEL,
        <Compare as custack::Contract>::KERNEL
    );
    let compare = init.kernel::<Compare>(&module).unwrap();
    let stream = init.stream().unwrap();
    let (mut a, mut b) = (
        init.alloc::<u8>(CAP).unwrap(),
        init.alloc::<u8>(CAP).unwrap(),
    );
    let mut v = init.alloc::<u64>(2).unwrap();
    let (mut ha, mut hb) = (
        init.alloc_pinned::<u8>(CAP).unwrap(),
        init.alloc_pinned::<u8>(CAP).unwrap(),
    );
    let mut hv = init.alloc_pinned::<u64>(2).unwrap();
    let run = init.seal();
    let mut launches = 0;
    for size in SIZES {
        for len in LENGTHS {
            let bytes = len * size;
            for (j, x) in ha.iter_mut().enumerate() {
                *x = (j * 131 + size) as u8;
            }
            // Each case: the byte flipped (if any), and the verdict it must leave (the elements
            // found equal, and the largest `!i` over the differing ones).
            let all = len as u64;
            let mut cases = vec![(None, [all, 0]), (Some(bytes), [all, 0])];
            for i in [0, len / 2, len - 1] {
                for byte in [0, size - 1] {
                    cases.push((Some(i * size + byte), [all - 1, !(i as u64)]));
                }
            }
            for (flip, want) in cases {
                hb.copy_from_slice(&ha);
                if let Some(j) = flip {
                    hb[j] ^= 0x20;
                }
                let shapes = [(1, 32), (2, 256), (len.div_ceil(256) as u32, 256)];
                for (grid, block) in shapes {
                    let config = LaunchConfig {
                        grid: (grid, 1, 1),
                        block: (block, 1, 1),
                        shared_mem_bytes: 0,
                    };
                    stream
                        .scope(|s| -> custack::Result<()> {
                            let (mut da, mut db) = (s.bind_mut(&mut a), s.bind_mut(&mut b));
                            s.copy_to_device(&mut da, &ha)?;
                            s.copy_to_device(&mut db, &hb)?;
                            let mut dv = s.bind_mut(&mut v);
                            s.fill_bytes(&mut dv, 0)?;
                            let args = (&da, &db, len as u64, size as u64, &mut dv);
                            s.run(&compare, config, args)?;
                            s.copy_to_host(&mut hv, &dv)
                        })
                        .unwrap()
                        .unwrap();
                    launches += 1;
                    assert_eq!(
                        [hv[0], hv[1]],
                        want,
                        "{size}-byte elements, {len} of them, byte {flip:?} flipped, \
                         {grid} blocks of {block}"
                    );
                }
            }
        }
    }
    println!("custack_replicas_compare: {launches} launches, each verdict as wanted");
    drop((a, b, v, ha, hb, hv, stream, compare));
    // A `RunPhase` has drop glue only with the feature `nvml` (its health watch).
    #[allow(clippy::drop_non_drop)]
    drop(run);
    drop(module);
    guard.shutdown().unwrap();
    ctx.destroy().unwrap();
}
