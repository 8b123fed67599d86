//! Green contexts on an H100: the device's SMs split in two, a green context over each group,
//! each pushed on its own thread with the ordinary `Stack` machinery, running a kernel at the
//! same time as the other; the SM ids the kernels report fall in disjoint sets no larger than
//! their groups. And P9's green variant: one thread keeps work pending on both green contexts
//! at once (parked submissions of kind `Green`).
mod common;
use common::device;
use custack::prelude::*;
use custack::{
    Green, GreenContext, LaunchConfig, ParkedBuffer, ParkedModule, ParkedSubmission, Result, Stack,
};
use std::collections::BTreeSet;
use std::sync::Barrier;

const GREEN_PTX: &str = include_str!("fixtures/green.ptx");
const BLOCKS: u32 = 1024;

#[test]
#[ignore = "needs a CUDA device"]
fn two_green_contexts_run_at_once_on_disjoint_sms() {
    let device = device();
    let sms = device.sm_resource().unwrap();
    println!("device: {} SMs", sms.sm_count());
    let split = sms.split(2, 16).unwrap();
    assert_eq!(split.groups.len(), 2, "two groups of at least 16 SMs");
    for g in &split.groups {
        assert!(g.sm_count() >= 16, "{}", g.sm_count());
    }
    let total: u32 = split
        .groups
        .iter()
        .map(custack::SmPartition::sm_count)
        .sum::<u32>()
        + split.remaining.sm_count();
    assert_eq!(total, sms.sm_count());
    let barrier = Barrier::new(2);
    let seen: Vec<(u32, BTreeSet<u32>)> = std::thread::scope(|t| {
        let runs: Vec<_> = split
            .groups
            .iter()
            .map(|partition| {
                let barrier = &barrier;
                t.spawn(move || {
                    // Made on the thread that uses it: a green context never leaves its thread.
                    let green = GreenContext::new(partition).unwrap();
                    let mut stack = Stack::new().unwrap();
                    let guard = stack.push_green(&green).unwrap();
                    let module = guard.load_ptx(GREEN_PTX).unwrap();
                    let f = module.function("smid_spin").unwrap();
                    let stream = guard.stream().unwrap();
                    let out = guard.alloc_zeroed::<u32>(BLOCKS as usize).unwrap();
                    barrier.wait(); // both launch now, and run at the same time
                    let cfg = LaunchConfig {
                        grid: (BLOCKS, 1, 1),
                        block: (128, 1, 1),
                        shared_mem_bytes: 0,
                    };
                    let done = stream
                        .submit(
                            (out, f, vec![0u32; BLOCKS as usize]),
                            |s, (mut out, f, host)| {
                                // SAFETY: smid_spin(unsigned* out, long long spin) writes out[0..grid).
                                unsafe { s.launch(&f, cfg, (&mut out, 2_000_000i64)) }?;
                                s.copy_to_host(host, &out)
                            },
                        )
                        .unwrap();
                    let (_, _, ids) = done.wait().unwrap();
                    (green.sm_count(), ids.into_iter().collect::<BTreeSet<u32>>())
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for (count, ids) in &seen {
        println!(
            "green context of {count} SMs ran on {} SMs: {ids:?}",
            ids.len()
        );
        assert!(!ids.is_empty());
        assert!(
            ids.len() as u32 <= *count,
            "{} SMs used, {count} in the partition",
            ids.len()
        );
    }
    assert!(
        seen[0].1.is_disjoint(&seen[1].1),
        "the two green contexts shared SMs"
    );
}

/// `smid_spin`'s parked work on a green context: the SM ids on the device, the `()` of the
/// kernel function, the SM ids copied to the host.
type GreenInFlight<'g> = ParkedSubmission<'g, (ParkedBuffer<'g, u32, Green>, (), Vec<u32>)>;

/// Pushes `green`, enqueues `smid_spin` there and pops it again, leaving the work in flight:
/// the submission and the module are parked (`!Send`, kind `Green`), borrowing only `green`.
fn enqueue_green<'g>(
    stack: &mut Stack,
    green: &'g GreenContext<'_>,
) -> Result<(GreenInFlight<'g>, ParkedModule<'g, Green>)> {
    let guard = stack.push_green(green)?;
    let module = guard.load_ptx(GREEN_PTX)?;
    let f = module.function("smid_spin")?;
    let stream = guard.stream()?; // may be dropped while its work runs
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
        unsafe { s.launch(&f, cfg, (&mut out, 2_000_000i64)) }?;
        s.copy_to_host(host, &out)
    })?;
    Ok((guard.park_submission(work), guard.park_module(module)))
}

/// Re-attaches a green context's parked buffer under a guard of that green context, reads it.
fn read_back<'g>(
    stack: &mut Stack,
    green: &'g GreenContext<'_>,
    parked: ParkedBuffer<'g, u32, Green>,
) -> Result<Vec<u32>> {
    let guard = stack.push_green(green)?;
    guard.attach(parked)?.to_vec()
}

/// P9, green variant: one thread keeps work pending on two green contexts of one
/// GPU at once: push A, enqueue, park, pop; push B, enqueue, park, pop; wait for both with no
/// context current. Then A's device result is re-attached under a guard of A (the parked
/// buffer is of kind `Green`, so only a green guard takes it) and read back. The twin of
/// `ui-tests/c20_green_parked_work_result_sent_to_thread.rs`.
///
/// Returns, per green context, the SM ids copied to the host and those read back on the device.
fn p9_two_green_contexts_in_flight(
    a: &GreenContext<'_>,
    b: &GreenContext<'_>,
) -> Result<[(Vec<u32>, Vec<u32>); 2]> {
    let mut stack = Stack::new()?;
    let (pending_a, module_a) = enqueue_green(&mut stack, a)?;
    let (pending_b, module_b) = enqueue_green(&mut stack, b)?; // both in flight now
    let (dev_a, (), host_a) = pending_a.wait()?;
    let (dev_b, (), host_b) = pending_b.wait()?;
    let dev_a = read_back(&mut stack, a, dev_a)?;
    let dev_b = read_back(&mut stack, b, dev_b)?;
    drop((module_a, module_b)); // each pushes its own green context, on this thread
    Ok([(host_a, dev_a), (host_b, dev_b)])
}

#[test]
#[ignore = "needs a CUDA device"]
fn p9_two_green_contexts_in_flight_from_one_thread() {
    let sms = device().sm_resource().unwrap();
    let split = sms.split(2, 16).unwrap();
    assert_eq!(split.groups.len(), 2, "two groups of at least 16 SMs");
    let a = GreenContext::new(&split.groups[0]).unwrap();
    let b = GreenContext::new(&split.groups[1]).unwrap();
    let [(host_a, dev_a), (host_b, dev_b)] = p9_two_green_contexts_in_flight(&a, &b).unwrap();
    assert_eq!(
        host_a, dev_a,
        "A's host copy and its re-attached device buffer"
    );
    assert_eq!(
        host_b, dev_b,
        "B's host copy and its re-attached device buffer"
    );
    let seen_a: BTreeSet<u32> = host_a.into_iter().collect();
    let seen_b: BTreeSet<u32> = host_b.into_iter().collect();
    println!("one thread: A ran on {seen_a:?}, B on {seen_b:?}");
    assert!(seen_a.len() as u32 <= a.sm_count(), "{seen_a:?}");
    assert!(seen_b.len() as u32 <= b.sm_count(), "{seen_b:?}");
    assert!(
        seen_a.is_disjoint(&seen_b),
        "the two green contexts shared SMs"
    );
}

/// A cooperative grid is checked against the SMs of the green context it runs on, not the
/// device's. Found by review: a grid that fits 132 SMs, captured into a graph on a green context
/// of 8, passed custack's check and never finished (the driver refuses such a launch made
/// directly, but not in a graph, whose launch it does not check again). The largest grid that
/// fits the partition runs; one block more is refused before the driver is asked, directly and
/// while capturing.
#[test]
#[ignore = "needs a CUDA device"]
fn a_cooperative_grid_is_checked_against_the_green_contexts_sms() {
    use custack::ErrorKind;
    let device = device();
    let sms = device.sm_resource().unwrap();
    let split = sms.split(1, 8).unwrap();
    let green = GreenContext::new(&split.groups[0]).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push_green(&green).unwrap();
    let module = guard.load_ptx(common::KERNELS).unwrap();
    let empty = module.function("empty").unwrap();
    let per_sm = empty.max_active_blocks_per_sm(256, 0).unwrap();
    let fits = per_sm * green.sm_count();
    println!(
        "green context of {} SMs (device {}): {per_sm} blocks per SM, {fits} fit",
        green.sm_count(),
        sms.sm_count()
    );
    assert!(
        fits < per_sm * sms.sm_count(),
        "the device would take one more"
    );
    let cfg = |blocks| LaunchConfig {
        grid: (blocks, 1, 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let stream = guard.stream().unwrap();
    // SAFETY: `empty()` takes no parameters.
    stream
        .scope(|s| unsafe { s.launch_cooperative(&empty, cfg(fits), ()) })
        .unwrap()
        .unwrap();
    let too_many = cfg(fits + 1);
    // SAFETY: as above; refused before the driver is asked.
    let err = stream
        .scope(|s| unsafe { s.launch_cooperative(&empty, too_many, ()) })
        .unwrap()
        .unwrap_err();
    println!("direct: {err}");
    assert_eq!(err.kind(), ErrorKind::CooperativeLaunchTooLarge, "{err}");
    assert!(
        err.to_string()
            .contains(&format!("x {} SMs of this context", green.sm_count())),
        "{err}"
    );
    let captured = stream.capture(empty, move |s, f| {
        // SAFETY: as above.
        unsafe { s.launch_cooperative(&f, too_many, ()) }
    });
    let err = captured.map(drop).unwrap_err();
    println!("captured: {err}");
    assert_eq!(err.kind(), ErrorKind::CooperativeLaunchTooLarge, "{err}");
}

/// Set in the child process of
/// `the_primary_context_is_not_reset_while_a_green_context_lives`.
const RESET_CHILD: &str = "CUSTACK_GREEN_RESET_CHILD";

/// C5: a green context's memory is its device's primary context's, and its guard's handles do
/// not borrow the primary `Context`: `Context::reset` is refused (`PrimaryContextInUse`, no
/// driver call) while a green context of the device lives, the green guard's buffer intact;
/// once none lives, the reset runs and the context is usable. In a child process: the other
/// tests of this binary make green contexts on their threads, which would refuse this test's
/// last reset.
#[test]
#[ignore = "needs a CUDA device"]
fn the_primary_context_is_not_reset_while_a_green_context_lives() {
    if std::env::var_os(RESET_CHILD).is_some() {
        let device = device();
        let mut primary = custack::Context::primary(device).unwrap();
        let sms = device.sm_resource().unwrap();
        let split = sms.split(1, 16).unwrap();
        let green = GreenContext::new(&split.groups[0]).unwrap();
        let mut stack = Stack::new().unwrap();
        {
            let g = stack.push_green(&green).unwrap();
            let buf = g.alloc_from(&[7u32; 1024]).unwrap();
            let e = primary.reset().unwrap_err();
            assert_eq!(e.kind(), custack::ErrorKind::PrimaryContextInUse, "{e}");
            assert_eq!(buf.to_vec().unwrap(), vec![7u32; 1024]);
        }
        green.destroy().unwrap();
        primary.reset().unwrap();
        let g = stack.push(&primary).unwrap();
        assert_eq!(
            g.alloc_from(&[1u32; 4]).unwrap().to_vec().unwrap(),
            vec![1u32; 4]
        );
        println!("green-reset-child: done");
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "the_primary_context_is_not_reset_while_a_green_context_lives",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(RESET_CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}\n{stdout}\n{stderr}", out.status);
    assert!(
        stdout.contains("green-reset-child: done"),
        "{stdout}\n{stderr}"
    );
}
