//! The program `restricted_redundant` (P14, R23, R24, R25; the double reporting 13.0): the
//! redundant kernel (`InitPhase::redundant`) on a primary restricted context's two partitions;
//! replicas that agree return `Ok`, a second replica given another gain returns `ReplicasDiffer`
//! naming the frame and the output. A strict program of the hang pass.

use crate::common::{RESTRICTED_API_LEN, unexpected};
use crate::{differential, pipeline};
use custack::{LaunchConfig, Result, Stack, StandIn};

/// The redundant kernel (`InitPhase::redundant`), under a driver that reports 13.0 (green
/// contexts): a primary restricted context's two partitions of the double's SMs, the stand-in
/// `frame_gain` run once in each on a copy of an uploaded input. A frame whose replicas agree
/// returns `Ok` with both results the CPU's; a frame whose second replica is given another gain
/// returns `ReplicasDiffer` naming the frame and the output, and both results stay readable.
pub(crate) fn restricted_redundant() -> Result<()> {
    use custack::safety::OnMismatch::ReturnError;
    use custack::safety::{Budget, Profile, RestrictedContext, WaitBound};
    const N: usize = RESTRICTED_API_LEN;
    // Two restricted contexts: one of its own (refused partitions), then the primary one.
    let profile = Profile::init(2)?;
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
    let device = profile.device(0)?;
    // A context that is not the device's primary one has no redundant kernel: refused before
    // anything is taken from its budget.
    let mut other = RestrictedContext::new(&profile, device, Budget::new().modules(1))?;
    let mut stack = Stack::new()?;
    let mut guard = other.push(&mut stack)?;
    let refused = guard.init().and_then(|init| {
        // SAFETY: a complete cubin, `differential::frame_cubin`'s (the profile's checks read it).
        let module = unsafe { init.load_cubin(&cubin) }?;
        let kernel = init.redundant::<pipeline::FrameGain, f32>(&module, "data", N, 8, ReturnError);
        match kernel {
            Err(e) if e.kind() == custack::ErrorKind::OutsideProfile => Ok(()),
            Err(e) => Err(e),
            Ok(_) => panic!("restricted_redundant: a redundant kernel outside the primary context"),
        }
    });
    let shutdown = guard.shutdown();
    refused.and(shutdown)?;
    drop(stack);
    other.destroy()?;
    // The primary context: the two replicas' outputs and staging, the input and its upload, and
    // what the refusal of too large partitions took before it (a kernel, two outputs, two
    // staging buffers).
    let bytes = N * size_of::<f32>();
    let budget = Budget::page_locked(5 * bytes)
        .device_bytes(5 * bytes)
        .waits(WaitBound::return_error(std::time::Duration::from_secs(1)))
        .streams(3)
        .partitions(2)
        .events(0)
        .modules(1)
        .kernels(2);
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = restricted_redundant_phases(&mut guard, &cubin);
    let shutdown = guard.shutdown();
    outcome.and(shutdown)?;
    ctx.destroy()
}

#[allow(
    clippy::cast_precision_loss,
    clippy::float_cmp,
    reason = "f32 values below 2^24 and the stand-in's products are exact: the CPU's result \
              and the stand-in's are equal bit for bit"
)]
fn restricted_redundant_phases(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
) -> Result<()> {
    use custack::safety::OnMismatch;
    const N: usize = RESTRICTED_API_LEN;
    let init = guard.init()?;
    // SAFETY: a complete cubin, `differential::frame_cubin`'s (the profile's checks read it).
    let module = unsafe { init.load_cubin(cubin) }?;
    // Refused: an output the kernel does not declare; partitions larger than half the device.
    for (output, sms_each, says) in [
        ("nope", 8, "declares no parameter `nope`"),
        ("data", 100, "not two"),
    ] {
        match init.redundant::<pipeline::FrameGain, f32>(
            &module,
            output,
            N,
            sms_each,
            OnMismatch::ReturnError,
        ) {
            // The refusal (a failed driver call's `InvalidValue` says something else).
            Err(e) if e.to_string().contains(says) => {
                assert_eq!(e.kind(), custack::ErrorKind::InvalidValue, "{e}");
            }
            Err(e) => return Err(e),
            Ok(_) => panic!("restricted_redundant: {output}, {sms_each} SMs each, not refused"),
        }
    }
    let mut twice =
        init.redundant::<pipeline::FrameGain, f32>(&module, "data", N, 8, OnMismatch::ReturnError)?;
    let stream = init.stream()?;
    let mut host = init.alloc_pinned::<f32>(N)?;
    for (i, x) in host.iter_mut().enumerate() {
        *x = i as f32;
    }
    let mut input = init.alloc::<f32>(N)?;
    let _run = init.seal();
    stream.scope(|s| -> Result<()> {
        let mut input = s.bind_mut(&mut input);
        s.copy_to_device(&mut input, &host)
    })??;
    // Replica `r` computes input * gain(r).
    let mut frame = |second_gain: f32| {
        twice.run(&input, |replica, s, gain, out, input| {
            let input = s.bind(input);
            s.copy_device(&mut *out, input)?;
            let k = if replica == 0 { 2.0f32 } else { second_gain };
            s.run(
                gain,
                LaunchConfig::for_elements(N as u32),
                (&mut *out, k, N as u32),
            )
        })
    };
    frame(2.0)?;
    let differ = frame(3.0);
    let want = |i: usize, k: f32| i as f32 * k;
    for (r, k) in [(0, 2.0f32), (1, 3.0)] {
        if let Some(i) = (0..N).find(|&i| twice.replica(r)[i] != want(i, k)) {
            return Err(unexpected(&format!(
                "restricted_redundant: replica {r}, element {i} is {}, expected {}",
                twice.replica(r)[i],
                want(i, k)
            )));
        }
    }
    match differ {
        Err(e) if e.kind() == custack::ErrorKind::ReplicasDiffer => {
            let text = e.to_string();
            assert!(
                text.contains("frame 1") && text.contains("`data`") && text.contains("element 1"),
                "restricted_redundant: {text}"
            );
        }
        // A driver call the schedule failed.
        Err(e) => return Err(e),
        Ok(()) => panic!("restricted_redundant: replicas that differ compared equal"),
    }
    assert_eq!(twice.frames(), 2);
    assert_eq!(twice.output().len(), N);
    let [a, b] = twice.sm_counts();
    assert!(
        a >= 8 && b >= 8,
        "restricted_redundant: partitions of {a} and {b} SMs"
    );
    assert!(format!("{:?}", twice.replicas()).contains("Replicas"));
    Ok(())
}
