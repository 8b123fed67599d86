//! The program `green` (C20; the double reporting 13.2): green contexts from one thread, P9's green
//! variant (`tests/gpu_green.rs`) and the partitions of `guide::in_flight`; the device's primary
//! context refused a reset while a green context lives (C5: a green context's memory is the
//! primary context's), with no `cuDevicePrimaryCtxReset` call, and reset once none does; then a
//! kernel's parameters counted (`cuFuncGetParamCount`) and a declaration checked against them.

use crate::common::{KERNELS, N, unexpected};
use crate::double::{calls_seen, counting};
use crate::kernels::AddU32;
use custack::{
    Context, DeviceMemory, Driver, LaunchConfig, ParkedBuffer, ParkedModule, Result, Stack,
};

/// The double reporting 13.2, which counts a kernel's parameters (`cuFuncGetParamCount`):
/// `param_layout` asks for exactly that many, so no query fails, and a declaration is checked
/// against them.
pub(crate) fn counted_params(ctx: &Context) -> Result<()> {
    use custack::CheckedBy;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let calls = || {
        (
            calls_seen(|name| name == b"cuFuncGetParamCount"),
            calls_seen(|name| name == b"cuFuncGetParamInfo"),
        )
    };
    let before = calls();
    if add.param_layout()? != [(0, 8), (8, 4), (12, 4)] {
        return Err(unexpected("add_u32's parameter layout"));
    }
    let after = calls();
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (1, 3),
        "one count, 3 queries"
    );
    if module.declared::<AddU32>()?.checked_by() != CheckedBy::ParamInfo {
        return Err(unexpected("not checked by cuFuncGetParamInfo"));
    }
    Ok(())
}

const GREEN_PTX: &str = include_str!("../../../../tests/fixtures/green.ptx");

const BLOCKS: u32 = 256;

/// `smid_spin`'s parked work on a green context: the SM ids on the device, the kernel's `()`,
/// the SM ids copied to the host.
type GreenInFlight<'g> =
    custack::ParkedSubmission<'g, (ParkedBuffer<'g, u32, custack::Green>, (), Vec<u32>)>;

/// Pushes `green`, enqueues `smid_spin` there and pops it, leaving the work in flight: the
/// submission and the module parked (`!Send`, kind `Green`).
fn enqueue_green<'g>(
    stack: &mut Stack,
    green: &'g custack::GreenContext<'_>,
) -> Result<(GreenInFlight<'g>, ParkedModule<'g, custack::Green>)> {
    let guard = stack.push_green(green)?;
    let module = guard.load_ptx(GREEN_PTX)?;
    let f = module.function("smid_spin")?;
    let stream = guard.stream()?;
    let cfg = LaunchConfig {
        grid: (BLOCKS, 1, 1),
        block: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    let payload = (
        guard.alloc_zeroed::<u32>(BLOCKS as usize)?,
        f,
        vec![0u32; BLOCKS as usize],
    );
    let work = stream.submit(payload, |s, (mut out, f, host)| {
        // SAFETY: smid_spin(unsigned* out, long long spin) writes out[0..grid), and `out`
        // holds `grid` elements.
        unsafe { s.launch(&f, cfg, (&mut out, 1000i64)) }?;
        s.copy_to_host(host, &out)
    })?;
    Ok((guard.park_submission(work), guard.park_module(module)))
}

/// A cooperative grid one block past what `green`'s SMs hold (8 blocks per SM, the double's
/// occupancy), which the whole device's 132 SMs would hold: refused before the driver, in a
/// scope and in a capture (found by review: checked against the device's SMs, such a grid was
/// captured on a green context of 8 SMs and never finished on the GPU).
fn cooperative_grid_of_the_partition(
    stack: &mut Stack,
    green: &custack::GreenContext<'_>,
) -> Result<()> {
    use crate::kernels::{CONTRACT_KERNELS, IotaCooperative};
    let guard = stack.push_green(green)?;
    let module = guard.load_ptx(CONTRACT_KERNELS)?;
    let iota = module.declared::<IotaCooperative>()?;
    let blocks = 8 * green.sm_count() + 1;
    let too_many = LaunchConfig::for_elements_with_block(blocks * 256, 256);
    let stream = guard.stream()?;
    let expect_refused = |r: Result<()>, how: &str| match r {
        Err(e) if e.kind() == custack::ErrorKind::CooperativeLaunchTooLarge => Ok(()),
        Err(e) => Err(e),
        Ok(()) => Err(unexpected(&format!(
            "a cooperative grid past the green context's SMs was launched ({how})"
        ))),
    };
    let mut x = guard.alloc_zeroed::<u32>((blocks * 256) as usize)?;
    expect_refused(
        stream.scope(|s| s.run_cooperative(&iota, too_many, (s.bind_mut(&mut x),)))?,
        "in a scope",
    )?;
    let captured = stream.capture((iota, x), move |s, (iota, mut x)| {
        s.run_cooperative(&iota, too_many, (&mut x,))
    });
    expect_refused(captured.map(drop), "captured")
}

/// The device's SMs split in two groups and the rest, a green context over each. P9's green
/// variant: work parked on A, then on B while A's is in flight, both waited for with no context
/// current, each result re-attached under a guard of its own green context. Then the guide's
/// partitions: a fill parked on the rest while A's guard allocates and reads, a stream parked
/// and re-attached, the fill's buffer re-attached; two destroyed explicitly, one by drop.
pub(crate) fn green() -> Result<()> {
    use custack::GreenContext;
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    let (Some(pa), Some(pb)) = (split.groups.first(), split.groups.get(1)) else {
        return Err(unexpected("fewer than two groups of 16 SMs"));
    };
    let a = GreenContext::new(pa)?;
    let b = GreenContext::new(pb)?;
    let rest = GreenContext::new(&split.remaining)?;
    let mut stack = Stack::new()?;
    let (pending_a, module_a) = enqueue_green(&mut stack, &a)?;
    let (pending_b, module_b) = enqueue_green(&mut stack, &b)?; // both in flight now
    let (dev_a, (), _host_a) = pending_a.wait()?;
    let (dev_b, (), _host_b) = pending_b.wait()?;
    let _ = stack.push_green(&a)?.attach(dev_a)?.to_vec()?;
    let _ = stack.push_green(&b)?.attach(dev_b)?.to_vec()?;
    drop((module_a, module_b)); // each pushes its own green context
    cooperative_grid_of_the_partition(&mut stack, &a)?;
    let (pending, parked_stream) = {
        let g = stack.push_green(&rest)?;
        let stream = g.stream()?;
        let work = stream.submit((g.alloc::<u32>(N)?,), |s, (mut x,)| s.fill_bytes(&mut x, 1))?;
        (g.park_submission(work), g.park_stream(stream))
    }; // popped, the fill still pending on the rest of the SMs
    {
        let g = stack.push_green(&a)?;
        let _ = g.alloc_from(&[1u32; 256])?.to_vec()?; // the small partition's work, meanwhile
    }
    let (filled,) = pending.wait()?;
    {
        let g = stack.push_green(&rest)?;
        let stream = g.attach_stream(parked_stream)?;
        let mut filled = g.attach(filled)?;
        stream.scope(|s| s.fill_u32(s.bind_mut(&mut filled), 2))??;
        let _ = filled.to_vec()?;
    }
    // The primary context's reset, refused while a green context of the device lives: its
    // memory is the primary context's, and its guard's handles do not borrow the `Context`.
    let mut primary = Context::primary(Driver::init()?.device(0)?)?;
    let buf = {
        let g = stack.push_green(&a)?;
        g.park(g.alloc_zeroed::<u32>(N)?)
    };
    let (refused, resets) = counting("cuDevicePrimaryCtxReset", || Ok(primary.reset()))?;
    match refused {
        Err(e) if e.kind() == custack::ErrorKind::PrimaryContextInUse && resets == 0 => {}
        Err(e) => return Err(e),
        Ok(()) => {
            return Err(unexpected(
                "the primary context was reset under a live green context",
            ));
        }
    }
    // The green context's memory is still there.
    let _ = stack.push_green(&a)?.attach(buf)?.to_vec()?;
    a.destroy()?;
    b.destroy()?;
    drop(rest);
    // No green context lives: the reset runs.
    let ((), resets) = counting("cuDevicePrimaryCtxReset", || primary.reset())?;
    if resets != 1 {
        return Err(unexpected("the reset made no cuDevicePrimaryCtxReset call"));
    }
    Ok(())
}
