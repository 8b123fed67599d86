//! The program `restricted_scope` (R23, R25; the double reporting 13.0): the restricted run-phase
//! API method by method, each method reaching the driver entry point its documentation names (the
//! double counts the calls) and moving the data it says; the module's unload bounded (12.5+). A
//! strict program of the hang pass.

use crate::common::SCOPE_LEN;
use crate::double::{calls, calls_of, counting};
use crate::{differential, pipeline};
use custack::{LaunchConfig, Result, Stack, StandIn};

/// The restricted profile's run-phase API, method by method (no GPU): every method of
/// [`RestrictedScope`](custack::safety::RestrictedScope), of a restricted stream, event and
/// buffer, and the bound host memory, is used once, and each must reach the driver entry point
/// its documentation names (the double counts the calls) and move the data it says (the double
/// copies and fills the bytes and runs the `frame_gain` stand-in). A method that returned
/// without its call, a length or a wait's answer made up, is a panic, which
/// `scripts/check-driver.sh` counts as a failure under every schedule. Run with the double
/// reporting driver 13.0, so that the module's unload takes its bounded path (12.5+);
/// `safety_frame` runs the 12.2 path.
pub(crate) fn restricted_scope() -> Result<()> {
    use custack::safety::{Budget, Profile, RestrictedContext, WaitBound};
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
    let bytes = SCOPE_LEN * size_of::<f32>();
    let budget = Budget::page_locked(2 * bytes)
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .device_bytes(3 * bytes)
        .streams(1)
        .events(2)
        .modules(1)
        .kernels(1)
        .graphs(1)
        .graph_nodes(1);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = restricted_scope_run(&mut guard, &cubin);
    let shutdown = guard.shutdown();
    drop(stack);
    let destroyed = ctx.destroy();
    outcome.and(shutdown).and(destroyed)
}

#[allow(
    clippy::float_cmp,
    reason = "f32 values below 2^24 and the stand-in's products are exact: the CPU's result \
              and the stand-in's are equal bit for bit"
)]
#[allow(
    clippy::too_many_lines,
    reason = "a checking scenario, its steps read top to bottom"
)]
fn restricted_scope_run(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
) -> Result<()> {
    let n = SCOPE_LEN as u32;
    let config = LaunchConfig::for_elements(n);
    calls_of("cu"); // counting starts
    let init = guard.init()?;
    // SAFETY: a complete cubin made above, whose `frame_gain` (stand-in or kernel) honours its
    // contract.
    let module = unsafe { init.load_cubin(cubin) }?;
    let gain = init.kernel::<pipeline::FrameGain>(&module)?;
    let stream = init.stream()?;
    let (start, end) = (init.event()?, init.event()?);
    let mut a = init.alloc::<f32>(SCOPE_LEN)?;
    let mut b = init.alloc::<f32>(SCOPE_LEN)?;
    let mut src = init.alloc_pinned::<f32>(SCOPE_LEN)?;
    let mut dst = init.alloc_pinned::<f32>(SCOPE_LEN)?;
    #[allow(clippy::cast_precision_loss)] // below 2^24: exact
    for (i, x) in src.iter_mut().enumerate() {
        *x = i as f32 + 1.0;
    }
    let payload = (init.alloc::<f32>(SCOPE_LEN)?, gain);
    let mut graph = init.capture(&stream, payload, move |s, (mut c, gain)| {
        s.run(&gain, config, (&mut c, pipeline::GAIN, n))
    })?;
    let _run = init.seal();
    assert!(
        (a.len(), a.is_empty()) == (SCOPE_LEN, false),
        "restricted_scope: a buffer of {SCOPE_LEN} says {} and empty {}",
        a.len(),
        a.is_empty()
    );
    for (what, text) in [
        ("RestrictedKernel", format!("{gain:?}")),
        ("RestrictedGraph", format!("{graph:?}")),
    ] {
        assert!(
            text.starts_with(what),
            "restricted_scope: {what}'s Debug is {text:?}"
        );
    }
    let filled = f32::from_bits(0x3F3F_3F3F);
    let want = |i: usize| src[i] * pipeline::GAIN;
    // A fill, a copy to the device, an event recorded and waited for, a launch; a copy back.
    stream.scope(|s| -> Result<()> {
        let text = format!("{s:?}");
        assert!(
            text.starts_with("RestrictedScope"),
            "restricted_scope: Debug {text:?}"
        );
        let (from, to) = (s.bind_host(&src), s.bind_host_mut(&mut dst));
        for (len, empty) in [(from.len(), from.is_empty()), (to.len(), to.is_empty())] {
            assert!(
                (len, empty) == (SCOPE_LEN, false),
                "restricted_scope: bound host memory of {SCOPE_LEN} says {len} and empty {empty}"
            );
        }
        let (mut a, mut b) = (s.bind_mut(&mut a), s.bind_mut(&mut b));
        calls("fill_bytes", "cuMemset", 1, false, || {
            s.fill_bytes(&mut b, 0x3F)
        })?;
        calls("copy_to_device", "cuMemcpyHtoD", 1, false, || {
            s.copy_to_device(&mut a, from)
        })?;
        calls("record", "cuEventRecord", 1, false, || s.record(&start))?;
        calls("wait", "cuStreamWaitEvent", 1, false, || s.wait(&start))?;
        calls("run", "cuLaunch", 1, false, || {
            s.run(&gain, config, (&mut a, pipeline::GAIN, n))
        })?;
        s.record(&end)?;
        calls("copy_to_host", "cuMemcpyDtoH", 1, false, || {
            s.copy_to_host(to, &b)
        })
    })??;
    if let Some(i) = (0..SCOPE_LEN).find(|&i| dst[i].to_bits() != filled.to_bits()) {
        panic!(
            "restricted_scope: byte fill, then copy to the host: element {i} is {}",
            dst[i]
        );
    }
    // The events' host waits and queries, and their time.
    calls("the event's synchronize", "cuEventQuery", 1, true, || {
        end.synchronize()
    })?;
    let deadline = custack::Deadline::after(std::time::Duration::from_secs(1));
    calls(
        "the event's synchronize_by",
        "cuEventQuery",
        1,
        true,
        || end.synchronize_by(deadline),
    )?;
    let done = calls("the event's is_complete", "cuEventQuery", 1, false, || {
        end.is_complete()
    })?;
    assert!(
        done,
        "restricted_scope: an event waited for is not complete"
    );
    let ms = calls("elapsed_ms", "cuEventElapsedTime", 1, false, || {
        start.elapsed_ms(&end)
    })?;
    assert!(
        ms > 0.0 && ms < 1.0,
        "restricted_scope: the double's 1 us reads {ms} ms"
    );
    // A copy between device buffers (and the launch's result), given a deadline an hour away:
    // the context's bound (1 s, fail-stop) still ends the wait, so in the hang pass a hung
    // enqueue here ends the process in the safe state within the bound (a scope_by that let
    // the later deadline lengthen the bound polls past the double's idle limit instead).
    let later = custack::Deadline::after(std::time::Duration::from_hours(1));
    stream.scope_by(later, |s| -> Result<()> {
        let (a, mut b) = (s.bind(&a), s.bind_mut(&mut b));
        calls("copy_device", "cuMemcpyDtoD", 1, false, || {
            s.copy_device(&mut b, a)
        })?;
        s.copy_to_host(&mut dst, &b)
    })??;
    if let Some(i) = (0..SCOPE_LEN).find(|&i| dst[i] != want(i)) {
        panic!(
            "restricted_scope: launch, then device copy: element {i} is {}, not {}",
            dst[i],
            want(i)
        );
    }
    // The graph, launched on memory copied into it; its result copied out.
    stream.scope(|s| -> Result<()> {
        let (graph, (mut c, _)) = s.bind_graph(&mut graph);
        s.copy_to_device(&mut c, &src)?;
        calls("launch_graph", "cuGraphLaunch", 1, false, || {
            s.launch_graph(&graph)
        })?;
        s.copy_to_host(&mut dst, &c)
    })??;
    if let Some(i) = (0..SCOPE_LEN).find(|&i| dst[i] != want(i)) {
        panic!(
            "restricted_scope: the graph: element {i} is {}, not {}",
            dst[i],
            want(i)
        );
    }
    // The stream's host waits and query.
    calls("the stream's synchronize", "cuStreamQuery", 1, true, || {
        stream.synchronize()
    })?;
    calls(
        "the stream's synchronize_by",
        "cuStreamQuery",
        1,
        true,
        || stream.synchronize_by(deadline),
    )?;
    let done = calls(
        "the stream's is_complete",
        "cuStreamQuery",
        1,
        false,
        || stream.is_complete(),
    )?;
    assert!(
        done,
        "restricted_scope: a stream waited for is not complete"
    );
    // The module's unload (driver 12.5+, as the double reports 13.0 here): its wait for the
    // context's work is bounded, an event recorded on the context and queried, never the
    // unbounded `cuCtxSynchronize`.
    drop((graph, gain));
    let synchronized = calls_of("cuCtxSynchronize");
    let ((), recorded) = counting("cuCtxRecordEvent", || {
        drop(module);
        Ok(())
    })?;
    let synchronized = calls_of("cuCtxSynchronize") - synchronized;
    // A failed call on the way (the drops record it) reaches the program as its error.
    if let Some(e) = custack::take_drop_errors().into_iter().next() {
        return Err(e);
    }
    assert!(
        (recorded, synchronized) == (1, 0),
        "restricted_scope: the module's unload made {recorded} cuCtxRecordEvent and \
         {synchronized} cuCtxSynchronize, not 1 and 0"
    );
    Ok(())
}
