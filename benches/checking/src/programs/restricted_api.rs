//! The program `restricted_api` (P14, R23; the double reporting 13.0): the restricted API's calls
//! no other program makes, the run phase's synchronize on the init phase's idle event, `kernel`'s
//! `cuFuncLoad`, a module's bounded unload, a captured graph with restricted payload, the budget
//! used exactly as stated. A strict program of the hang pass.

use crate::common::{RESTRICTED_API_LEN, unexpected};
use crate::{differential, pipeline};
use custack::{LaunchConfig, Result, Stack, StandIn};

/// The restricted API's calls no other program makes, under a driver that reports 13.0: the run
/// phase's synchronize then waits on the init phase's idle event (`cuCtxRecordEvent`), `kernel`
/// loads its function (`cuFuncLoad`), and a module's drop unloads within the bound. A primary
/// restricted context; a graph captured with a restricted buffer and kernel as its payload (a
/// launch and a device-to-device copy); a scope that binds page-locked memory both ways, fills,
/// records and waits on an event, launches the graph; the result checked against the CPU, and
/// the budget used exactly as stated.
pub(crate) fn restricted_api() -> Result<()> {
    use custack::safety::{Budget, Profile, Resource, RestrictedContext, WaitBound};
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
    let bytes = RESTRICTED_API_LEN * size_of::<f32>();
    let budget = Budget::page_locked(2 * bytes)
        .device_bytes(3 * bytes)
        .waits(WaitBound::return_error(std::time::Duration::from_secs(1)))
        .streams(1)
        .events(2)
        .modules(1)
        .kernels(1)
        .graphs(1)
        .graph_nodes(2)
        // Past the double's 1024 bytes: the init phase reserves it (`cuCtxSetLimit`).
        .local_memory(2048);
    let device = profile.device(0)?;
    let mut ctx = RestrictedContext::primary(&profile, device, budget)?;
    assert_eq!(ctx.device().ordinal(), device.ordinal());
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome =
        restricted_api_phases(&mut guard, &cubin, &differential::frame_cubin_wrong_arch());
    let shutdown = guard.shutdown();
    outcome.and(shutdown)?;
    let used = Resource::ALL.map(|r| (r, ctx.used(r), ctx.budget().stated(r)));
    let page_locked = ctx.page_locked_used();
    ctx.destroy()?;
    assert!(
        used.iter().all(|&(_, used, stated)| used == stated),
        "restricted_api: the budget was not used as stated: {used:?}"
    );
    assert_eq!(page_locked, 2 * bytes, "restricted_api: page-locked bytes");
    Ok(())
}

#[allow(
    clippy::cast_precision_loss,
    clippy::float_cmp,
    reason = "f32 values below 2^24 and the stand-in's products are exact: the CPU's result \
              and the stand-in's are equal bit for bit"
)]
fn restricted_api_phases(
    guard: &mut custack::safety::RestrictedGuard<'_, '_>,
    cubin: &[u8],
    other_arch: &[u8],
) -> Result<()> {
    const N: usize = RESTRICTED_API_LEN;
    let init = guard.init()?;
    // The same kernels built for sm_80 (`differential::frame_cubin_wrong_arch`: nvcc's on a GPU,
    // the stand-in with its SM changed on the double): no code for sm_90, refused with the fix
    // (and the module it would have been not counted against the budget).
    // SAFETY: as below: a complete cubin, only its architecture differs.
    match unsafe { init.load_cubin(other_arch) } {
        // Where the schedule failed the device's query, the refusal says so: returned.
        Err(e)
            if e.code() == Some(custack::ffi::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU)
                && e.to_string()
                    .contains("holds no code for sm_90: build it for this device") => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("restricted_api: a cubin for sm_80 loaded on an sm_90 device"),
    }
    // SAFETY: a complete cubin, `differential::frame_cubin`'s (the profile's checks read it).
    let module = unsafe { init.load_cubin(cubin) }?;
    let gain = init.kernel::<pipeline::FrameGain>(&module)?;
    let described = format!("{gain:?} {:?}", gain.checked_by());
    assert!(described.contains("RestrictedKernel"), "{described}");
    let stream = init.stream()?;
    let (done, later) = (init.event()?, init.event()?);
    let mut input = init.alloc_pinned::<f32>(N)?;
    let mut output = init.alloc_pinned::<f32>(N)?;
    for (i, x) in input.iter_mut().enumerate() {
        *x = i as f32;
    }
    let mut staged = init.alloc::<f32>(N)?;
    assert!(staged.len() == N && !staged.is_empty());
    let payload = (init.alloc::<f32>(N)?, init.alloc::<f32>(N)?, gain);
    // The graph: x *= 2, then y = x.
    let mut graph = init.capture(&stream, payload, |s, (mut x, mut y, gain)| {
        s.run(
            &gain,
            LaunchConfig::for_elements(N as u32),
            (&mut x, 2.0f32, N as u32),
        )?;
        s.copy_device(&mut y, &x)
    })?;
    let (x, y, _) = graph.payload();
    assert!(x.len() == N && y.len() == N);
    let (x, _, _) = graph.payload_mut();
    assert!(!x.is_empty());
    let described = format!("{graph:?}");
    assert!(described.contains("RestrictedGraph"), "{described}");
    let run = init.seal();
    // staged = 0, then input.
    stream.scope(|s| -> Result<()> {
        assert!(format!("{s:?}").contains("RestrictedScope"));
        let mut staged = s.bind_mut(&mut staged);
        s.fill_bytes(&mut staged, 0)?;
        s.copy_to_device(&mut staged, &mut input)?;
        s.record(&done)
    })??;
    // x = staged; the graph doubles x into y; output = y; x = output (the same values).
    stream.scope(|s| -> Result<()> {
        let (bound, (mut x, y, gain)) = s.bind_graph(&mut graph);
        let again = Some(&gain).copied();
        assert!(again.is_some_and(|k| k.checked_by() == gain.checked_by()));
        let staged = s.bind(&staged);
        let host_in = s.bind_host(&input);
        let host_out = s.bind_host_mut(&mut output);
        assert!(host_in.len() == N && !host_in.is_empty());
        assert!(host_out.len() == N && !host_out.is_empty());
        s.wait(&done)?;
        s.copy_device(&mut x, staged)?;
        s.launch_graph(&bound)?;
        s.copy_to_host(host_out, &y)?;
        s.copy_to_device(&mut x, host_out)?;
        s.record(&later)
    })??;
    later.synchronize()?;
    run.synchronize()?;
    for (i, &got) in output.iter().enumerate() {
        let want = 2.0 * i as f32;
        if got != want {
            return Err(unexpected(&format!(
                "restricted_api: element {i} is {got}, expected {want}"
            )));
        }
    }
    Ok(())
}
