//! The frame pipeline of example 22 under the restricted safety profile: the init phase that
//! makes everything and the run phase's frame. Shared, as this one file, by the example
//! (`main.rs`), the benchmark against C (`benches/safety_frame.rs`), the checking driver's
//! program `safety_frame` (no GPU, under Miri too) and the must-compile row P14
//! (`tests/patterns.rs`).

use custack::safety::{Budget, Profile, Resource, RestrictedContext, RunPhase, WaitBound};
use custack::{LaunchConfig, Stack};

/// The frame's width, in pixels (smaller under Miri, which runs the kernels' CPU stand-ins in
/// its interpreter).
pub(crate) const WIDTH: u32 = if cfg!(miri) { 16 } else { 640 };
/// The frame's height, in pixels.
pub(crate) const HEIGHT: u32 = if cfg!(miri) { 4 } else { 480 };
/// Pixels per frame.
pub(crate) const PIXELS: usize = (WIDTH * HEIGHT) as usize;
/// The gain the second kernel applies.
pub(crate) const GAIN: f32 = 0.5;
/// The longest any wait of the pipeline may take: a frame's scope, its stream's and its
/// event's waits. A frame takes about 0.1 ms on an H100; past a second the GPU is hung, and the
/// process ends in the safe state (exit status 75) for a supervisor to start a new one.
pub(crate) const WAIT: std::time::Duration = std::time::Duration::from_secs(1);
/// Pixels each frame's result is checked at (against the CPU's).
pub(crate) const CHECKED: usize = 16;

custack::kernel_contract! {
    /// `frame_blur(const float* in, float* out, unsigned width, unsigned height)`
    /// (`examples/kernels/frame.cu`): a 3-tap horizontal box blur, edges clamped.
    pub(crate) unsafe kernel FrameBlur = "frame_blur"(
        input: &[f32; width * height],
        output: &mut [f32; width * height],
        width: u32,
        height: u32,
    );
    /// `frame_gain(float* data, float gain, unsigned n)`: `data[i] *= gain` for `i < n`.
    pub(crate) unsafe kernel FrameGain = "frame_gain"(data: &mut [f32; n], gain: f32, n: u32);
}

/// The camera's pixel `i` (the same in every frame, as in `benches/safety_frame.c`).
#[allow(clippy::cast_precision_loss)] // below 1024: exact in an f32
pub(crate) fn pixel(i: usize) -> f32 {
    ((i * 7919) % 1024) as f32 / 1024.0
}

/// Pixel `i` of a frame's result, computed on the CPU: the blur, then the gain.
pub(crate) fn expected(i: usize) -> f32 {
    let w = WIDTH as usize;
    let (row, x) = (i / w * w, i % w);
    let at = |x: usize| pixel(row + x);
    (at(x.saturating_sub(1)) + at(x) + at((x + 1).min(w - 1))) / 3.0 * GAIN
}

/// What a frame can fail with.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// A CUDA call failed (custack's error, with the call's detail).
    Cuda(custack::Error),
    /// A pixel of the result differs from the CPU's.
    Mismatch {
        /// The frame, from 1.
        frame: u64,
        /// The pixel's index.
        pixel: usize,
        /// What the GPU computed.
        got: f32,
        /// What the CPU computed.
        want: f32,
    },
    /// The init phase made less of a resource than [`budget`] states: the statement is meant
    /// to be exact, so a figure that drifted (a kernel, a graph node more or less) is caught.
    Unused {
        /// The resource.
        resource: Resource,
        /// What the init phase made of it.
        used: usize,
        /// What the budget states.
        stated: usize,
    },
}

impl From<custack::Error> for FrameError {
    fn from(e: custack::Error) -> Self {
        Self::Cuda(e)
    }
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Cuda(e) => write!(f, "{e}"),
            Self::Mismatch {
                frame,
                pixel,
                got,
                want,
            } => write!(f, "frame {frame}, pixel {pixel}: {got}, expected {want}"),
            Self::Unused {
                resource,
                used,
                stated,
            } => write!(
                f,
                "the budget states {stated} of {resource:?}, the init phase made {used}"
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// One frame: what the run phase does, again and again.
pub(crate) type Frame<'a> = dyn FnMut() -> Result<(), FrameError> + 'a;

/// Every resource the init phase makes, stated before the context is made (nothing is made
/// past it): the frame's two page-locked buffers and two device buffers, one stream, no event,
/// one module, its two kernels, one graph of one node (the blur's launch); and the bound of
/// every wait, [`WAIT`], past which the process ends in the safe state.
pub(crate) const fn budget() -> Budget {
    let frame_bytes = PIXELS * size_of::<f32>();
    Budget::page_locked(2 * frame_bytes)
        .waits(WaitBound::fail_stop(WAIT))
        .device_bytes(2 * frame_bytes)
        .streams(1)
        .events(0)
        .modules(1)
        .kernels(2)
        .graphs(1)
        .graph_nodes(1)
}

/// Runs the pipeline: the init phase (the cubin loaded, its two kernels looked up, a stream,
/// page-locked and device memory, the blur captured into a graph and instantiated), sealed;
/// then `drive` with the run phase and a closure that processes one frame (upload, the graph,
/// the gain launched directly, download, [`CHECKED`] pixels compared with the CPU's); then the
/// shutdown; then the init phase's figures are compared with [`budget`]'s, which they must
/// equal. `cubin` is `examples/kernels/frame.cu` compiled by nvcc for the device.
///
/// # Errors
///
/// The first error of the init phase, the shutdown, or `drive`'s; [`FrameError::Unused`].
pub(crate) fn run<R>(
    profile: Profile,
    cubin: &[u8],
    drive: impl FnOnce(&RunPhase<'_>, &mut Frame<'_>) -> Result<R, FrameError>,
) -> Result<R, FrameError> {
    let budget = budget();
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = phases(&mut guard, cubin, drive);
    // Also after a failed phase: the context synchronized, drop errors surfaced, popped.
    let shutdown = guard.shutdown();
    let outcome = outcome?;
    shutdown?;
    // The init phase made exactly what the budget states (over the context's life: what was
    // freed since stays counted).
    let used = Resource::ALL.map(|r| (r, ctx.used(r), ctx.budget().stated(r)));
    ctx.destroy()?;
    match used.into_iter().find(|&(_, used, stated)| used != stated) {
        Some((resource, used, stated)) => Err(FrameError::Unused {
            resource,
            used,
            stated,
        }),
        None => Ok(outcome),
    }
}

fn phases<R>(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
    drive: impl FnOnce(&RunPhase<'_>, &mut Frame<'_>) -> Result<R, FrameError>,
) -> Result<R, FrameError> {
    // The context's one init phase (C27): a second `init`, here or on another push, is refused.
    let init = guard.init()?;
    // SAFETY: `cubin` is a complete cubin that nvcc wrote (the caller's), and its two kernels
    // honour the contracts above: they touch only `width * height` (or `n`) floats of the
    // buffers passed, writing only those declared `&mut`.
    let module = unsafe { init.load_cubin(cubin) }?;
    let blur = init.kernel::<FrameBlur>(&module)?;
    let gain = init.kernel::<FrameGain>(&module)?;
    let stream = init.stream()?;
    let mut input = init.alloc_pinned::<f32>(PIXELS)?;
    let mut output = init.alloc_pinned::<f32>(PIXELS)?;
    for (i, p) in input.iter_mut().enumerate() {
        *p = pixel(i);
    }
    let payload = (init.alloc::<f32>(PIXELS)?, init.alloc::<f32>(PIXELS)?, blur);
    let mut graph = init.capture(&stream, payload, |s, (frame, mut blurred, blur)| {
        let config = LaunchConfig::for_elements(WIDTH * HEIGHT);
        s.run(&blur, config, (&frame, &mut blurred, WIDTH, HEIGHT))
    })?;
    let run = init.seal();

    let mut count = 0u64;
    let mut frame = || -> Result<(), FrameError> {
        stream.scope(|s| -> custack::Result<()> {
            let (graph, (mut frame, mut blurred, _)) = s.bind_graph(&mut graph);
            s.copy_to_device(&mut frame, &input)?;
            s.launch_graph(&graph)?;
            let config = LaunchConfig::for_elements(WIDTH * HEIGHT);
            s.run(&gain, config, (&mut blurred, GAIN, WIDTH * HEIGHT))?;
            s.copy_to_host(&mut output, &blurred)
        })??;
        count += 1;
        for k in 0..CHECKED {
            let i = (k * 19_391 + count as usize * 7) % PIXELS;
            let (got, want) = (output[i], expected(i));
            if (got - want).abs() > 1e-5 * want.abs().max(1.0) {
                return Err(FrameError::Mismatch {
                    frame: count,
                    pixel: i,
                    got,
                    want,
                });
            }
        }
        Ok(())
    };
    let outcome = drive(&run, &mut frame);
    run.synchronize()?;
    outcome
}
