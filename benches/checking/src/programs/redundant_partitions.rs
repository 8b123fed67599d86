//! The program `redundant_partitions` (R24; the double reporting 13.2): a declared kernel run once
//! in each of two SM partitions per frame and the two compared, two clean frames and one whose
//! second replica differs, found with its first element and count; the green contexts released. A
//! strict program of the hang pass.

use crate::common::SCOPE_LEN;
use crate::{differential, pipeline};
use custack::{LaunchConfig, Result, Stack, StandIn};

/// Redundant execution under the profile (no GPU; the double reports driver 13.2, whose green
/// contexts it models): a declared kernel (the `frame_gain` stand-in) run once in each of two
/// SM partitions per frame, into its own output, the two compared. Three frames: two clean, in
/// which both replicas hold the CPU's result, then one whose second replica is given another
/// gain, which must be found with its first element and count. The partitions' SM counts and
/// the frame count are checked too, and the green contexts' release by the double's report (a
/// leak fails the run).
#[allow(
    clippy::float_cmp,
    reason = "the gains are constants of the frame table, compared as given"
)]
pub(crate) fn redundant_partitions() -> Result<()> {
    use custack::safety::{Budget, OnMismatch, Profile, RestrictedContext, WaitBound};
    let profile = Profile::init(1)?;
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
    let bytes = 3 * SCOPE_LEN * size_of::<f32>();
    let budget = Budget::page_locked(bytes)
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(bytes)
        .streams(2)
        .partitions(2)
        .modules(1)
        .kernels(1);
    let device = profile.device(0)?;
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<()> {
        let init = guard.init()?;
        // SAFETY: a complete cubin made above, whose `frame_gain` (stand-in or kernel) honours
        // its contract.
        let module = unsafe { init.load_cubin(&cubin) }?;
        let mut twice = init.redundant::<pipeline::FrameGain, f32>(
            &module,
            "data",
            SCOPE_LEN,
            16,
            OnMismatch::ReturnError,
        )?;
        let mut src = init.alloc_pinned::<f32>(SCOPE_LEN)?;
        #[allow(clippy::cast_precision_loss)] // below 2^24: exact
        for (i, x) in src.iter_mut().enumerate() {
            *x = i as f32 + 1.0;
        }
        let _run = init.seal();
        let sms = twice.sm_counts();
        assert!(
            sms == [16, 16],
            "restricted_redundant: partitions of {sms:?} SMs, not 16 each"
        );
        let n = SCOPE_LEN as u32;
        let config = LaunchConfig::for_elements(n);
        let gains = [[0.5, 0.5], [0.25, 0.25], [0.5, 2.0]];
        for (frame, [g0, g1]) in gains.into_iter().enumerate() {
            let outcome = twice.run(&src, |replica, s, kernel, out, src| {
                s.copy_to_device(&mut *out, src)?;
                let g = if replica == 0 { g0 } else { g1 };
                s.run(kernel, config, (&mut *out, g, n))
            });
            // A launch's or a copy's error ends the program (the schedule's failure).
            if let Err(e) = &outcome
                && e.kind() != custack::ErrorKind::ReplicasDiffer
            {
                return outcome;
            }
            let want = |g: f32| (0..SCOPE_LEN).map(|i| src[i] * g).collect::<Vec<_>>();
            let (first, second) = (twice.replica(0), twice.replica(1));
            assert!(
                first == want(g0) && second == want(g1),
                "restricted_redundant: frame {frame}: replicas {first:?} and {second:?}"
            );
            match outcome {
                Ok(()) if g0 == g1 => {}
                Err(e) if g0 != g1 && e.kind() == custack::ErrorKind::ReplicasDiffer => {
                    let text = e.to_string();
                    let named = format!(
                        "frame {frame}: the two runs wrote different `data`: element 0 \
                         differs first, {SCOPE_LEN} of {SCOPE_LEN} elements differ"
                    );
                    assert!(text.contains(&named), "restricted_redundant: {text}");
                }
                Err(e) => return Err(e),
                Ok(()) => panic!(
                    "restricted_redundant: frame {frame}: replicas {g0} and {g1} compared equal"
                ),
            }
        }
        let frames = twice.frames();
        assert!(
            frames == 3,
            "restricted_redundant: {frames} frames counted, not 3"
        );
        Ok(())
    })();
    let shutdown = guard.shutdown();
    drop(stack);
    let destroyed = ctx.destroy();
    outcome.and(shutdown).and(destroyed)
}
