//! A camera-frame filter run redundantly under the restricted safety profile: each frame's blur
//! and gain (`examples/kernels/frame.cu`, as in example 22) run twice, on two partitions of the
//! GPU's SMs that share no SM (`InitPhase::redundant`, `RedundantKernel::run`), and the two
//! results are compared bit for bit, on the device (the frame's 1.2 MB output is past
//! `CompareOn::DEVICE_FROM_BYTES`: `custack_replicas_compare`, which `frame.cu` includes, its
//! verdict and replica 0's result copied back); every `N`th frame a known-answer self-test (`KnownAnswer`)
//! runs the same kernels on a test pattern whose result the CPU computed in the init phase; with
//! the feature `nvml`, the GPU's health events are polled every frame (`RunPhase::poll_health`).
//!
//! It prints what it measured: frames run, mismatches between the replicas, self-tests run and
//! passed and the time of one, the time of a redundant frame against a single run of the same kernels on the whole
//! device (measured in this process, just before), the host allocations per frame (a counting
//! global allocator) and, with `nvml`, the poll's cost.
//!
//! ```text
//! nvcc -cubin -arch=sm_90 examples/kernels/frame.cu -o frame.cubin
//! cargo run --release [--features nvml] --example 25_safety_redundant -- frame.cubin [FRAMES] [N]
//! ```
//!
//! The cubin may also come from `CUSTACK_FRAME_CUBIN`. Without a driver or a device it says so
//! in one line and exits with 1; without a cubin, with 2.

use custack::safety::{Budget, KnownAnswer, OnMismatch, Profile, RestrictedContext, WaitBound};
use custack::{DeviceAttribute, ErrorKind, LaunchConfig, Stack};
use std::alloc::{GlobalAlloc, Layout, System};
use std::num::NonZeroU64;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

custack::kernel_contract! {
    /// `frame_blur(const float* in, float* out, unsigned width, unsigned height)`: a 3-tap
    /// horizontal box blur, edges clamped.
    unsafe kernel FrameBlur = "frame_blur"(
        input: &[f32; width * height],
        output: &mut [f32; width * height],
        width: u32,
        height: u32,
    );
    /// `frame_gain(float* data, float gain, unsigned n)`: `data[i] *= gain` for `i < n`.
    unsafe kernel FrameGain = "frame_gain"(data: &mut [f32; n], gain: f32, n: u32);
}

/// The camera frame: 640 x 480 floats, as in example 22.
const WIDTH: u32 = 640;
const HEIGHT: u32 = 480;
const PIXELS: usize = (WIDTH * HEIGHT) as usize;
/// The self-test's pattern: 64 x 4 floats.
const TEST_WIDTH: u32 = 64;
const TEST_HEIGHT: u32 = 4;
const TEST_PIXELS: usize = (TEST_WIDTH * TEST_HEIGHT) as usize;
/// The self-test's gain.
const TEST_GAIN: f32 = 0.5;
/// Pixels of each frame's result checked against the CPU's.
const CHECKED: usize = 16;
/// The bound of every wait: past it the GPU is hung, and the process ends in the safe state.
const WAIT: Duration = Duration::from_secs(1);
/// Frames run before either loop is timed.
const WARM_UP: u32 = 10;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The camera's pixel `i` (the same in every frame, as in example 22).
#[allow(clippy::cast_precision_loss)] // below 1024: exact in an f32
fn pixel(i: usize) -> f32 {
    ((i * 7919) % 1024) as f32 / 1024.0
}

/// The self-test pattern's pixel `i`.
#[allow(clippy::cast_precision_loss)] // below 256: exact in an f32
fn test_pixel(i: usize) -> f32 {
    ((i * 31 + 7) % 256) as f32 / 256.0
}

/// The gain of frame `frame`: it changes every frame, so a replica that did not run, or ran
/// a frame late, leaves a result that differs from the other's.
#[allow(clippy::cast_precision_loss)] // below 8: exact
fn gain(frame: u32) -> f32 {
    0.25 + (frame % 8) as f32 / 8.0
}

/// Pixel `i` of the blur of `image` (`width` wide) times `gain`, computed on the CPU the way
/// the kernels compute it, so that it is the same bit for bit.
fn filtered(image: impl Fn(usize) -> f32, width: usize, i: usize, gain: f32) -> f32 {
    let (row, x) = (i / width * width, i % width);
    let at = |x: usize| image(row + x);
    (at(x.saturating_sub(1)) + at(x) + at((x + 1).min(width - 1))) / 3.0 * gain
}

/// What the run measured.
#[derive(Default)]
struct Figures {
    frames: u32,
    mismatches: u32,
    first_mismatch: Option<String>,
    self_tests: u32,
    self_tests_passed: u32,
    self_test_time: Duration,
    first_self_test_failure: Option<String>,
    cpu_check_failures: u32,
    single: Duration,
    single_allocations: u64,
    redundant: Duration,
    loop_time: Duration,
    loop_allocations: u64,
    polls: u32,
    poll: Duration,
    sm_counts: [u32; 2],
    every: u64,
}

fn run(profile: Profile, cubin: &[u8], frames: u32, every: NonZeroU64) -> custack::Result<Figures> {
    let device = profile.device(0)?;
    // Half the device's SMs each, rounded down to 8 (the H100's partition granularity).
    let sms = u32::try_from(device.attribute(DeviceAttribute::MultiprocessorCount)?).unwrap_or(0);
    let sms_each = (sms / 2 / 8 * 8).max(8);
    // Every resource, stated before the context is made: the frame's input, the single run's
    // output and the two replicas' outputs, each on the device and page-locked on the host; the
    // self-test's pattern and result, the same; a stream for the upload, the single run and the
    // self-test, and one per partition; two partitions; the module and four kernel lookups
    // (the redundant blur's, the blur's, the gain's, and custack_replicas_compare: the frame's
    // 1.2 MB output is compared on the device, CompareOn::for_bytes), with the comparison's
    // event and its 16-byte verdict on each side.
    let floats = 4 * PIXELS + 2 * TEST_PIXELS;
    let bytes = floats * size_of::<f32>() + 16;
    let budget = Budget::page_locked(bytes)
        .waits(WaitBound::fail_stop(WAIT))
        .device_bytes(bytes)
        .streams(3)
        .partitions(2)
        .events(1)
        .modules(1)
        .kernels(4);
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = phases(&mut guard, cubin, frames, every, sms_each);
    let shutdown = guard.shutdown();
    let figures = outcome?;
    shutdown?;
    ctx.destroy()?;
    Ok(figures)
}

#[allow(clippy::too_many_lines)] // the init phase, the single loop and the redundant loop
fn phases(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
    frames: u32,
    every: NonZeroU64,
    sms_each: u32,
) -> custack::Result<Figures> {
    #[cfg_attr(not(feature = "nvml"), allow(unused_mut))]
    let mut init = guard.init()?;
    // SAFETY: `cubin` is `examples/kernels/frame.cu` compiled by nvcc for this device, complete,
    // and its two kernels honour the contracts above: they touch only `width * height` (or `n`)
    // floats of the buffers passed, writing only those declared `&mut`.
    let module = unsafe { init.load_cubin(cubin) }?;
    let mut twice = init.redundant::<FrameBlur, f32>(
        &module,
        "output",
        PIXELS,
        sms_each,
        OnMismatch::ReturnError,
    )?;
    let blur = init.kernel::<FrameBlur>(&module)?;
    let gain_kernel = init.kernel::<FrameGain>(&module)?;
    let stream = init.stream()?;
    let mut camera = init.alloc_pinned::<f32>(PIXELS)?;
    for (i, p) in camera.iter_mut().enumerate() {
        *p = pixel(i);
    }
    let mut input = init.alloc::<f32>(PIXELS)?;
    let mut single_out = init.alloc::<f32>(PIXELS)?;
    let mut single_host = init.alloc_pinned::<f32>(PIXELS)?;
    let mut pattern = init.alloc_pinned::<f32>(TEST_PIXELS)?;
    for (i, p) in pattern.iter_mut().enumerate() {
        *p = test_pixel(i);
    }
    let mut test_in = init.alloc::<f32>(TEST_PIXELS)?;
    let mut test_out = init.alloc::<f32>(TEST_PIXELS)?;
    let mut test_host = init.alloc_pinned::<f32>(TEST_PIXELS)?;
    // The known answer, computed on the CPU now: the run phase allocates nothing.
    let known: Vec<f32> = (0..TEST_PIXELS)
        .map(|i| filtered(test_pixel, TEST_WIDTH as usize, i, TEST_GAIN))
        .collect();
    let self_test = KnownAnswer::of::<FrameBlur>(every, OnMismatch::ReturnError);
    #[cfg(feature = "nvml")]
    {
        let preflight = init.watch_health()?;
        println!("25_safety_redundant: health pre-flight: {preflight:?}");
    }
    let run = init.seal();

    let mut figures = Figures {
        sm_counts: twice.sm_counts(),
        every: every.get(),
        ..Figures::default()
    };
    let config = LaunchConfig::for_elements(WIDTH * HEIGHT);
    let test_config = LaunchConfig::for_elements(TEST_WIDTH * TEST_HEIGHT);
    let n = WIDTH * HEIGHT;

    // The single run: the frame uploaded, the blur and the gain on the whole device, the result
    // copied back, all waited for in one scope.
    let mut single = |frame: u32| -> custack::Result<()> {
        stream.scope(|s| -> custack::Result<()> {
            let mut input = s.bind_mut(&mut input);
            let mut out = s.bind_mut(&mut single_out);
            s.copy_to_device(&mut input, &camera)?;
            s.run(&blur, config, (&input, &mut out, WIDTH, HEIGHT))?;
            s.run(&gain_kernel, config, (&mut out, gain(frame), n))?;
            s.copy_to_host(&mut single_host, &out)
        })?
    };
    for frame in 0..WARM_UP {
        single(frame)?;
    }
    let allocations = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    for frame in 0..frames {
        single(frame)?;
    }
    figures.single = start.elapsed();
    figures.single_allocations = ALLOCATIONS.load(Ordering::Relaxed) - allocations;

    // The redundant frame: the frame uploaded (and waited for), then the blur and the gain in
    // each partition into that replica's output, compared on the device, replica 0's copied back.
    let mut frame_at = |frame: u32, figures: &mut Figures| -> custack::Result<()> {
        stream.scope(|s| s.copy_to_device(s.bind_mut(&mut input), &camera))??;
        let g = gain(frame);
        let start = Instant::now();
        let outcome = twice.run(
            &(&input, &gain_kernel),
            |_replica, s, blur, out, &(input, gain_kernel)| {
                s.run(blur, config, (s.bind(input), &mut *out, WIDTH, HEIGHT))?;
                s.run(gain_kernel, config, (&mut *out, g, n))
            },
        );
        figures.redundant += start.elapsed();
        match outcome {
            Ok(()) => {
                // Spot checks against the CPU: the replicas agreeing is not enough.
                let result = twice.replica(0);
                for k in 0..CHECKED {
                    let i = (k * 19_391 + frame as usize * 7) % PIXELS;
                    let want = filtered(pixel, WIDTH as usize, i, g);
                    if (result[i] - want).abs() > 1e-5 * want.abs().max(1.0) {
                        figures.cpu_check_failures += 1;
                        break;
                    }
                }
            }
            Err(e) if e.kind() == ErrorKind::ReplicasDiffer => {
                figures.mismatches += 1;
                figures.first_mismatch.get_or_insert_with(|| e.to_string());
            }
            Err(e) => return Err(e),
        }
        if self_test.due(u64::from(frame)) {
            let start = Instant::now();
            stream.scope(|s| -> custack::Result<()> {
                let mut test_in = s.bind_mut(&mut test_in);
                let mut out = s.bind_mut(&mut test_out);
                s.copy_to_device(&mut test_in, &pattern)?;
                let dims = (TEST_WIDTH, TEST_HEIGHT);
                s.run(&blur, test_config, (&test_in, &mut out, dims.0, dims.1))?;
                s.run(
                    &gain_kernel,
                    test_config,
                    (&mut out, TEST_GAIN, dims.0 * dims.1),
                )?;
                s.copy_to_host(&mut test_host, &out)
            })??;
            let checked = self_test.check(u64::from(frame), &known, &test_host);
            figures.self_test_time += start.elapsed();
            figures.self_tests += 1;
            match checked {
                Ok(()) => figures.self_tests_passed += 1,
                Err(e) if e.kind() == ErrorKind::SelfTestFailed => {
                    figures
                        .first_self_test_failure
                        .get_or_insert_with(|| e.to_string());
                }
                Err(e) => return Err(e),
            }
        }
        #[cfg(feature = "nvml")]
        {
            let start = Instant::now();
            run.poll_health()?;
            figures.poll += start.elapsed();
            figures.polls += 1;
        }
        Ok(())
    };
    let mut warm = Figures::default();
    for frame in 0..WARM_UP {
        frame_at(frame, &mut warm)?;
    }
    let allocations = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    for frame in 0..frames {
        frame_at(frame, &mut figures)?;
        figures.frames += 1;
    }
    figures.loop_time = start.elapsed();
    figures.loop_allocations = ALLOCATIONS.load(Ordering::Relaxed) - allocations;
    run.synchronize()?;
    figures.mismatches += warm.mismatches;
    Ok(figures)
}

fn micros(total: Duration, count: u32) -> f64 {
    total.as_secs_f64() * 1e6 / f64::from(count.max(1))
}

fn report(f: &Figures) {
    let frames = f.frames;
    let single = micros(f.single, frames);
    let redundant = micros(f.redundant, frames);
    println!(
        "25_safety_redundant: {frames} frames of {WIDTH}x{HEIGHT}, blur and gain run on two \
         partitions of {:?} SMs: {} mismatches between the replicas; {} pixel spot checks \
         against the CPU failed",
        f.sm_counts, f.mismatches, f.cpu_check_failures
    );
    println!(
        "25_safety_redundant: known-answer self-test every {} frames: {} run, {} passed; \
         {:.1} us a self-test (the pattern's upload, both kernels, the copy back, the check)",
        f.every,
        f.self_tests,
        f.self_tests_passed,
        micros(f.self_test_time, f.self_tests)
    );
    println!(
        "25_safety_redundant: a frame: single run {single:.1} us (upload, kernels, copy back, \
         on the whole device), redundant {redundant:.1} us (its upload not counted), \
         {:.2}x; the whole redundant frame (upload, self-test, poll) {:.1} us",
        redundant / single,
        micros(f.loop_time, frames)
    );
    println!(
        "25_safety_redundant: host allocations per frame: single {}, redundant {} ({} and {} \
         in all)",
        f.single_allocations / u64::from(frames.max(1)),
        f.loop_allocations / u64::from(frames.max(1)),
        f.single_allocations,
        f.loop_allocations
    );
    if f.polls > 0 {
        println!(
            "25_safety_redundant: health poll: {:.0} ns a frame over {} polls",
            f.poll.as_secs_f64() * 1e9 / f64::from(f.polls),
            f.polls
        );
    } else {
        println!("25_safety_redundant: no health poll (built without the feature `nvml`)");
    }
    for first in [&f.first_mismatch, &f.first_self_test_failure]
        .into_iter()
        .flatten()
    {
        println!("25_safety_redundant: first: {first}");
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let every = args
        .get(2)
        .and_then(|a| a.parse().ok())
        .and_then(NonZeroU64::new)
        .unwrap_or(NonZeroU64::MIN.saturating_add(99));
    let profile = match Profile::init(1) {
        Ok(profile) => profile,
        Err(e) => {
            eprintln!("25_safety_redundant: no GPU work done: no CUDA driver or device: {e}");
            return ExitCode::FAILURE;
        }
    };
    let Some(path) = args
        .first()
        .cloned()
        .or_else(|| std::env::var("CUSTACK_FRAME_CUBIN").ok())
    else {
        eprintln!(
            "25_safety_redundant: no cubin given. Build one for your GPU with nvcc \
             (nvcc -cubin -arch=sm_XY examples/kernels/frame.cu -o frame.cubin) and pass its \
             path, or set CUSTACK_FRAME_CUBIN"
        );
        return ExitCode::from(2);
    };
    let cubin = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("25_safety_redundant: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match run(profile, &cubin, frames, every) {
        Ok(figures) => {
            report(&figures);
            if figures.mismatches + figures.cpu_check_failures > 0
                || figures.self_tests_passed != figures.self_tests
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("25_safety_redundant: {e}");
            ExitCode::FAILURE
        }
    }
}
