//! A kernel run redundantly on two SM partitions (`InitPhase::redundant_compared`,
//! `RedundantKernel::run`: both runs, then the comparison on the host (both outputs copied back
//! and compared there) or on the device (`custack_replicas_compare`, its 16-byte verdict and
//! replica 0's output copied back)) timed against a single run of the same kernel on the whole
//! device (the launch, its output copied back, waited for), in one process, alternately, under
//! the restricted profile. Two sizes:
//! a small frame (64 x 64 pixels: 16 blocks, far less than half the device) and a 3840 x 2160
//! frame (32,400 blocks of 256 threads, filling the device). The kernel is `frame_blur` of
//! `examples/kernels/frame.cu`, from the cubin `CUSTACK_FRAME_CUBIN` names (`.gpu/run.sh`
//! builds it with nvcc and sets it).
//!
//! `redundant CUBIN REPS`, or `--bench` (as `.gpu/run.sh` runs benches). Prints one line per
//! repetition and size and a final line per size: `redundant pixels=… single_us=… host_us=…
//! host_ratio=… device_us=… device_ratio=… by_event=… partitions=[…] host_allocs_per_frame=…`
//! (medians of the repetitions). Figures only: nothing is asserted.

use custack::safety::{
    Budget, CompareOn, OnMismatch, Profile, RedundantKernel, RestrictedBuffer, RestrictedContext,
};
use custack::{DeviceAttribute, LaunchConfig, PinnedBuffer, Stack};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

custack::kernel_contract! {
    /// `frame_blur(const float* in, float* out, unsigned width, unsigned height)`: a 3-tap
    /// horizontal box blur, edges clamped.
    unsafe kernel FrameBlur = "frame_blur"(
        input: &[f32; width * height],
        output: &mut [f32; width * height],
        width: u32,
        height: u32,
    );
}

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

/// The two frames: (width, height, timed frames per repetition).
const SIZES: [(u32, u32, u32); 2] = [(64, 64, 2000), (3840, 2160, 50)];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// What one size needs: its input, the single run's output and its page-locked copy, the
/// redundant kernels compared on the host and on the device (each holds both replicas' outputs
/// and its page-locked copies).
struct Size<'g, 'm> {
    width: u32,
    height: u32,
    frames: u32,
    input: RestrictedBuffer<'g, f32>,
    out: RestrictedBuffer<'g, f32>,
    host: PinnedBuffer<'g, f32>,
    on_host: RedundantKernel<'g, 'm, FrameBlur, f32>,
    on_device: RedundantKernel<'g, 'm, FrameBlur, f32>,
}

#[allow(clippy::too_many_lines)] // the init phase and both sizes' loops
fn bench(cubin: &[u8], reps: usize) -> custack::Result<()> {
    let profile = Profile::init(1)?;
    let device = profile.device(0)?;
    let sms = u32::try_from(device.attribute(DeviceAttribute::MultiprocessorCount)?).unwrap_or(0);
    // Half the device's SMs each, rounded down to 8 (the H100's partition granularity).
    let sms_each = (sms / 2 / 8 * 8).max(8);
    // Per size: the input, the single output, two redundant kernels' two replicas' outputs on
    // the device; the input's, the single output's and the replicas' page-locked copies (two
    // compared on the host, one on the device) on the host; and each device comparison's
    // verdict (16 bytes each side), kernel lookup and event.
    let floats: usize = SIZES.iter().map(|&(w, h, _)| 6 * (w * h) as usize).sum();
    let bytes = floats * size_of::<f32>() + 16 * SIZES.len();
    let budget = Budget::page_locked(bytes)
        .device_bytes(bytes)
        .streams(1 + 4 * SIZES.len())
        .partitions(4 * SIZES.len())
        .modules(1)
        .kernels(1 + 3 * SIZES.len())
        .events(SIZES.len());
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> custack::Result<()> {
        let init = guard.init()?;
        // SAFETY: `cubin` is `examples/kernels/frame.cu` compiled by nvcc for this device,
        // complete; `frame_blur` reads `width * height` floats of its input and writes as many
        // of its output, nothing else.
        let module = unsafe { init.load_cubin(cubin) }?;
        let blur = init.kernel::<FrameBlur>(&module)?;
        let stream = init.stream()?;
        let mut sizes = Vec::with_capacity(SIZES.len());
        let mut uploads = Vec::with_capacity(SIZES.len());
        for (width, height, frames) in SIZES {
            let n = (width * height) as usize;
            let mut host_in = init.alloc_pinned::<f32>(n)?;
            for (i, p) in host_in.iter_mut().enumerate() {
                *p = f32::from(u16::try_from(i % 1024).unwrap_or(0)) / 1024.0;
            }
            uploads.push(host_in);
            sizes.push(Size {
                width,
                height,
                frames,
                input: init.alloc::<f32>(n)?,
                out: init.alloc::<f32>(n)?,
                host: init.alloc_pinned::<f32>(n)?,
                on_host: init.redundant_compared::<FrameBlur, f32>(
                    &module,
                    "output",
                    n,
                    sms_each,
                    OnMismatch::ReturnError,
                    CompareOn::Host,
                )?,
                on_device: init.redundant_compared::<FrameBlur, f32>(
                    &module,
                    "output",
                    n,
                    sms_each,
                    OnMismatch::ReturnError,
                    CompareOn::Device,
                )?,
            });
        }
        let run = init.seal();
        for (size, host_in) in sizes.iter_mut().zip(&uploads) {
            stream.scope(|s| s.copy_to_device(s.bind_mut(&mut size.input), host_in))??;
        }
        for size in &mut sizes {
            let Size {
                width,
                height,
                frames,
                input,
                out,
                host,
                on_host,
                on_device,
            } = size;
            let (width, height, frames) = (*width, *height, *frames);
            let config = LaunchConfig::for_elements(width * height);
            let mut single = || -> custack::Result<()> {
                stream.scope(|s| -> custack::Result<()> {
                    let mut out = s.bind_mut(out);
                    s.run(&blur, config, (s.bind(input), &mut out, width, height))?;
                    s.copy_to_host(&mut *host, &out)
                })?
            };
            let redundant = |twice: &mut RedundantKernel<'_, '_, FrameBlur, f32>| {
                twice.run(&(&*input,), |_, s, k, out, &(input,)| {
                    s.run(k, config, (s.bind(input), out, width, height))
                })
            };
            for _ in 0..20 {
                single()?;
                redundant(on_host)?;
                redundant(on_device)?;
            }
            let mut ones = Vec::with_capacity(reps);
            let (mut hosts, mut devices) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
            // Only the timed loops are counted: not the printing, nor the bench's own vectors.
            let mut allocs = 0;
            for rep in 0..reps {
                let allocations = ALLOCATIONS.load(Ordering::Relaxed);
                let start = Instant::now();
                for _ in 0..frames {
                    single()?;
                }
                let one = start.elapsed().as_secs_f64() * 1e6 / f64::from(frames);
                let start = Instant::now();
                for _ in 0..frames {
                    redundant(on_host)?;
                }
                let two_host = start.elapsed().as_secs_f64() * 1e6 / f64::from(frames);
                let start = Instant::now();
                for _ in 0..frames {
                    redundant(on_device)?;
                }
                let two_device = start.elapsed().as_secs_f64() * 1e6 / f64::from(frames);
                allocs += ALLOCATIONS.load(Ordering::Relaxed) - allocations;
                println!(
                    "redundant rep={rep} pixels={} single_us={one:.1} host_us={two_host:.1} \
                     host_ratio={:.2} device_us={two_device:.1} device_ratio={:.2}",
                    width * height,
                    two_host / one,
                    two_device / one
                );
                ones.push(one);
                hosts.push(two_host);
                devices.push(two_device);
            }
            let one = median(&mut ones);
            let (two_host, two_device) = (median(&mut hosts), median(&mut devices));
            let timed = 3 * u64::from(frames) * reps as u64;
            println!(
                "redundant pixels={} single_us={one:.1} host_us={two_host:.1} host_ratio={:.2} \
                 device_us={two_device:.1} device_ratio={:.2} by_event={} partitions={:?} \
                 sms={sms} reps={reps} frames={frames} host_allocs_per_frame={} \
                 host_allocs={allocs}",
                width * height,
                two_host / one,
                two_device / one,
                on_device.ordered_by_event(),
                on_device.sm_counts(),
                allocs / timed.max(1)
            );
        }
        run.synchronize()?;
        drop(sizes);
        // A `RunPhase` has drop glue only with the feature `nvml` (its health watch).
        #[allow(clippy::drop_non_drop)]
        drop(run);
        Ok(())
    })();
    let shutdown = guard.shutdown();
    outcome?;
    shutdown?;
    ctx.destroy()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bench_flag = std::env::args().any(|a| a == "--bench");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if !bench_flag && args.is_empty() {
        // `cargo test --all-targets` runs benches without arguments: nothing to test here.
        println!(
            "redundant: a benchmark; run it on a GPU machine with `cargo bench -p \
             custack-benches --bench redundant` (and CUSTACK_FRAME_CUBIN)"
        );
        return Ok(());
    }
    let path = match args.first() {
        Some(path) => path.clone(),
        None => std::env::var("CUSTACK_FRAME_CUBIN")
            .map_err(|_| "redundant: give CUBIN REPS, or set CUSTACK_FRAME_CUBIN")?,
    };
    let reps: usize = args.get(1).map_or(Ok(5), |a| a.parse())?;
    let cubin = std::fs::read(&path)?;
    bench(&cubin, reps)?;
    Ok(())
}
