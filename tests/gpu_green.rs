//! Green contexts on an H100: the device's SMs split in two, a green context over each group,
//! each pushed on its own thread with the ordinary `Stack` machinery, running a kernel at the
//! same time as the other; the SM ids the kernels report fall in disjoint sets no larger than
//! their groups.
mod common;
use common::device;
use custack::{GreenContext, LaunchConfig, Stack};
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
