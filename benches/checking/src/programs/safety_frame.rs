//! The program `safety_frame` (P14, C27, R22, R23, R25): example 22's init and run phases under the
//! restricted profile, with its kernels' stand-ins and a stand-in cubin: three frames checked
//! against the CPU; then a second context's one init phase, and the refusal of every later one. A
//! strict program of the hang pass.

use crate::{differential, pipeline};
use custack::{Result, Stack, StandIn};

/// Example 22's init and run phases under the restricted profile (P14), with its kernels'
/// stand-ins and a stand-in cubin carrying their PTX declarations (`cubin::stand_in_cubin`; the
/// profile's own checks pass it): three frames, each checked against the CPU. Then a second context's
/// one init phase, and the refusal of every later one (C27).
pub(crate) fn safety_frame() -> Result<()> {
    // Two restricted contexts: the pipeline's, then `one_init_phase`'s.
    let profile = custack::safety::Profile::init(2)?;
    let w = pipeline::WIDTH as usize;
    // SAFETY: as the kernel, the stand-in reads width * height floats of `input` and writes as
    // many of `output`.
    let _blur = unsafe {
        StandIn::register(&profile.driver(), "frame_blur", move |call| {
            let (input, output) = (call.arg::<u64>(0)?, call.arg::<u64>(1)?);
            let n = call.arg::<u32>(2)? as usize * call.arg::<u32>(3)? as usize;
            let frame = call.read::<f32>(input, n)?;
            let blurred: Vec<f32> = (0..n)
                .map(|i| {
                    let (row, x) = (i / w * w, i % w);
                    let at = |x: usize| frame[row + x];
                    (at(x.saturating_sub(1)) + at(x) + at((x + 1).min(w - 1))) / 3.0
                })
                .collect();
            call.write(output, &blurred)?;
            Ok(())
        })
    }?;
    // SAFETY: as the kernel, the stand-in reads and writes n floats of `data`.
    let _gain = unsafe {
        StandIn::register(&profile.driver(), "frame_gain", |call| {
            let (data, gain, n) = (
                call.arg::<u64>(0)?,
                call.arg::<f32>(1)?,
                call.arg::<u32>(2)?,
            );
            let mut v = call.read::<f32>(data, n as usize)?;
            for x in &mut v {
                *x *= gain;
            }
            call.write(data, &v)?;
            Ok(())
        })
    }?;
    let cubin = differential::frame_cubin();
    let outcome = pipeline::run(profile, &cubin, |run, frame| {
        for _ in 0..3 {
            frame()?;
        }
        run.synchronize()?;
        Ok(())
    });
    match outcome {
        Ok(()) => one_init_phase(profile),
        Err(pipeline::FrameError::Cuda(e)) => Err(e),
        Err(mismatch) => panic!("safety_frame: {mismatch}"),
    }
}

/// C27's run-time part: a restricted context opens one init phase in its life; the same guard
/// after the run phase (a frame loop's next frame) and the guard of a later push are refused,
/// before any driver call.
fn one_init_phase(profile: custack::safety::Profile) -> Result<()> {
    let refused = |r: Result<custack::safety::InitPhase<'_>>| match r {
        Err(e) if e.kind() == custack::ErrorKind::OutsideProfile => {}
        other => panic!("safety_frame: a second init phase was not refused: {other:?}"),
    };
    let budget = custack::safety::Budget::new().streams(1);
    let mut ctx = custack::safety::RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    {
        let init = guard.init()?;
        let stream = init.stream()?;
        let run = init.seal();
        stream.synchronize()?;
        run.synchronize()?;
    }
    refused(guard.init());
    guard.shutdown()?;
    let mut guard = ctx.push(&mut stack)?;
    refused(guard.init());
    guard.shutdown()?;
    ctx.destroy()
}
