//! Two contexts at once: copies between their memory (synchronous and in a scope) and peer
//! access. On one device the two contexts are peers of the same GPU; the bandwidth of a copy
//! between two GPUs is a benchmark for a two-GPU machine.
mod common;
use common::device;
use custack::prelude::*;
use custack::{Context, ContextFlags, Stack};

#[test]
#[ignore = "needs a CUDA device"]
fn copies_between_two_contexts() {
    let device = device();
    println!(
        "device can access itself as a peer: {}",
        device.can_access_peer(device).unwrap()
    );
    let a = Context::new(device, ContextFlags::empty()).unwrap();
    let b = Context::new(device, ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    // B's memory, parked so it can sit beside A's guard.
    let (in_b, mut out_b) = stack
        .with_pushed(&b, |guard_b| {
            let data: Vec<u32> = (0..1 << 20).collect();
            (
                guard_b.park(guard_b.alloc_from(&data).unwrap()),
                guard_b.park(guard_b.alloc_zeroed::<u32>(1 << 20).unwrap()),
            )
        })
        .unwrap();
    {
        let guard_a = stack.push(&a).unwrap();
        let mut mine = guard_a.alloc::<u32>(1 << 20).unwrap();
        guard_a.copy_from_peer(&mut mine, &in_b).unwrap();
        assert_eq!(mine.to_vec().unwrap()[12345], 12345);
        mine.fill_u32(9).unwrap();
        // In a scope: both ways, the parked buffers borrowed until the scope waits.
        let mut other = guard_a.alloc::<u32>(1 << 20).unwrap();
        guard_a
            .stream()
            .unwrap()
            .scope(|s| {
                s.copy_to_peer(&mut out_b, s.bind(&mine))?;
                s.copy_from_peer(s.bind_mut(&mut other), &in_b)
            })
            .unwrap()
            .unwrap();
        assert_eq!(other.to_vec().unwrap()[777], 777);
        assert!(
            guard_a
                .copy_from_peer(&mut guard_a.alloc::<u32>(3).unwrap(), &in_b)
                .is_err(),
            "lengths differ"
        );
        // Peer access to a context of the same device: the driver's answer, either way.
        match guard_a.enable_peer_access(&b) {
            Ok(access) => {
                println!("peer access enabled");
                drop(access);
            }
            Err(e) => println!("peer access: {e}"),
        }
    }
    // Back in B: what A copied there.
    stack
        .with_pushed(&b, |guard_b| {
            let out = guard_b.attach(out_b).unwrap();
            assert!(out.to_vec().unwrap().iter().all(|&x| x == 9));
            drop(guard_b.attach(in_b).unwrap());
        })
        .unwrap();
}
