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

/// Two GPUs: a context on each, copies both ways synchronously and in a scope, and peer access
/// enabled, enabled again ("already enabled" is not an error) and disabled. On a machine with
/// one GPU it says it skipped (and checks nothing); with no driver or no device it fails.
#[test]
#[ignore = "needs two CUDA devices"]
fn two_gpus_copies_and_peer_access() {
    const N: usize = 16 << 20; // 64 MiB of u32
    let driver = custack::Driver::init().expect("a CUDA driver");
    let devices = driver.devices().unwrap();
    assert!(!devices.is_empty(), "no CUDA device");
    let [d0, d1, ..] = devices.as_slice() else {
        common::skipped(
            "two_gpus_copies_and_peer_access: SKIPPED: needs two CUDA devices, this machine has 1",
        );
        return;
    };
    let (c0, c1) = (
        Context::new(*d0, ContextFlags::empty()).unwrap(),
        Context::new(*d1, ContextFlags::empty()).unwrap(),
    );
    let peer = d0.can_access_peer(*d1).unwrap();
    println!(
        "{} and {}: peer access {}",
        d0.name().unwrap(),
        d1.name().unwrap(),
        if peer { "possible" } else { "not possible" }
    );
    let mut stack = Stack::new().unwrap();
    let (on_1, mut back_on_1) = stack
        .with_pushed(&c1, |g1| {
            let data: Vec<u32> = (0..N as u32).collect();
            (
                g1.park(g1.alloc_from(&data).unwrap()),
                g1.park(g1.alloc_zeroed::<u32>(N).unwrap()),
            )
        })
        .unwrap();
    {
        let g0 = stack.push(&c0).unwrap();
        let access = peer.then(|| g0.enable_peer_access(&c1).unwrap());
        if peer {
            // Enabled already: Ok, and dropping this second one leaves the first in force.
            drop(g0.enable_peer_access(&c1).unwrap());
        }
        let mut on_0 = g0.alloc::<u32>(N).unwrap();
        g0.copy_from_peer(&mut on_0, &on_1).unwrap();
        let host = on_0.to_vec().unwrap();
        assert!(host.iter().enumerate().all(|(i, &x)| x == i as u32));
        on_0.fill_u32(0xA5A5_A5A5).unwrap();
        let mut again = g0.alloc_zeroed::<u32>(N).unwrap();
        g0.stream()
            .unwrap()
            .scope(|s| {
                s.copy_to_peer(&mut back_on_1, s.bind(&on_0))?;
                s.copy_from_peer(s.bind_mut(&mut again), &on_1)
            })
            .unwrap()
            .unwrap();
        assert_eq!(again.to_vec().unwrap()[N - 1], (N - 1) as u32);
        drop(access);
    }
    stack
        .with_pushed(&c1, |g1| {
            let back = g1.attach(back_on_1).unwrap();
            assert!(back.to_vec().unwrap().iter().all(|&x| x == 0xA5A5_A5A5));
            drop(g1.attach(on_1).unwrap());
        })
        .unwrap();
    assert!(custack::take_drop_errors().is_empty());
}
