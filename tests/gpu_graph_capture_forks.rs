//! Captures forked over more than one other stream, on a real device (C28.15): three streams
//! (the origin and two forks) each writing its own part of one replay arena, joined back by
//! custack, the graph replayed with each part's values checked; a fork that the closure's raw
//! calls join to the capture and never join back fails the capture with
//! `CUDA_ERROR_STREAM_CAPTURE_UNJOINED` and leaves no stream of custack's capturing; a failing
//! branch ends the capture; a stream forked twice, or the origin forked, is refused.
//! Positive twin of `ui-tests/c28_16_*`.
mod common;
use common::{KERNELS, context};
use custack::prelude::*;
use custack::{ErrorKind, LaunchConfig, Stack, Stream, ffi};

const N: usize = 1 << 16;
const N32: u32 = N as u32;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// Whether the driver says `stream` is capturing.
fn capturing(stream: &Stream<'_>) -> bool {
    let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE;
    // SAFETY: a live stream of the current context; a valid out-pointer.
    let r = unsafe { ffi::cuStreamIsCapturing(stream.as_raw(), &raw mut status) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    status != ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_capture_forked_over_three_streams_writes_disjoint_parts_of_one_arena_and_replays() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let (stream, a, b) = (
        guard.stream().unwrap(),
        guard.stream().unwrap(),
        guard.stream().unwrap(),
    );
    let arena = guard.replay_arena(4 * N * 4).unwrap();
    let branch = || {
        (
            vec![0u32; N],
            arena.buffer::<u32>(N).unwrap(),
            module.declared::<AddU32>().unwrap(),
            vec![0u32; N],
        )
    };
    let (p, qa, qb) = (branch(), branch(), branch());
    // Three disjoint parts of the one allocation the arena reserved.
    let mut parts = [&p.1, &qa.1, &qb.1].map(|d| (d.as_view().device_ptr(), N as u64 * 4));
    parts.sort_unstable();
    let (base, cap) = (arena.device_ptr(), arena.capacity() as u64);
    assert!(
        parts.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0),
        "{parts:?}"
    );
    assert!(
        parts
            .iter()
            .all(|&(at, len)| at >= base && at + len <= base + cap)
    );

    // Each stream: its input copied into its part, a kernel adding its own constant, the part
    // copied out; the three branches have no order between them.
    let graph = stream
        .capture_forks(
            ((&a, qa), (&b, qb)),
            p,
            |s, (input, mut dev, add, out), (ba, bb)| {
                let cfg = LaunchConfig::for_elements(N32);
                s.copy_to_device(&mut dev, input)?;
                s.run(&add, cfg, (&mut dev, 1, N32))?;
                s.copy_to_host(out, &dev)?;
                ba.run(|t, (input, mut dev, add, out)| {
                    t.copy_to_device(&mut dev, input)?;
                    t.run(&add, cfg, (&mut dev, 20, N32))?;
                    t.copy_to_host(out, &dev)
                })?;
                bb.run(|t, (input, mut dev, add, out)| {
                    t.copy_to_device(&mut dev, input)?;
                    t.run(&add, cfg, (&mut dev, 300, N32))?;
                    t.copy_to_host(out, &dev)
                })
            },
        )
        .unwrap();
    assert_eq!(
        graph.node_count().unwrap(),
        9,
        "three nodes a branch; the forks and joins are edges, not nodes"
    );
    let mut exec = graph.instantiate().unwrap();
    for round in 0..3u32 {
        {
            let ((input, _, _, _), ((input_a, _, _, _), (input_b, _, _, _))) = exec.payload_mut();
            input.fill(round * 1000);
            input_a.fill(round * 1000 + 1);
            input_b.fill(round * 1000 + 2);
        }
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let ((_, dev, _, out), ((_, dev_a, _, out_a), (_, dev_b, _, out_b))) = exec.payload();
        let want = [round * 1000 + 1, round * 1000 + 21, round * 1000 + 302];
        for (i, (dev, out)) in [(dev, out), (dev_a, out_a), (dev_b, out_b)]
            .into_iter()
            .enumerate()
        {
            assert!(
                out.iter().all(|&v| v == want[i]),
                "round {round}, stream {i}"
            );
            let on_device = dev.to_vec().unwrap();
            assert!(
                on_device.iter().all(|&v| v == want[i]),
                "round {round}, part {i}"
            );
        }
    }
    drop(exec);
    assert!(!capturing(&stream) && !capturing(&a) && !capturing(&b));
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_fork_joined_by_raw_calls_and_not_joined_back_fails_the_capture_as_unjoined() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (stream, a) = (guard.stream().unwrap(), guard.stream().unwrap());
    // A stream and an event custack does not know of, and memory for the stray fork's work.
    let (mut extra, mut event, mut mem) = (core::ptr::null_mut(), core::ptr::null_mut(), 0);
    let ok = |r: ffi::CUresult| assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    // SAFETY: a valid out-pointer; the current context is the guard's.
    ok(unsafe { ffi::cuStreamCreate(&raw mut extra, 1) });
    // SAFETY: as above.
    ok(unsafe { ffi::cuEventCreate(&raw mut event, 2) });
    // SAFETY: as above.
    ok(unsafe { ffi::cuMemAlloc_v2(&raw mut mem, N * 4) });
    let failed = stream.capture_forks(
        (&a, guard.alloc::<u32>(N).unwrap()),
        (),
        move |s, (), br| {
            br.run(|t, mut d| t.fill_u32(&mut d, 1))?;
            // SAFETY: live handles of the current context; the stray stream joins the capture by
            // waiting for an event recorded on the capturing stream, works, and never joins back.
            ok(unsafe { ffi::cuEventRecord(event, s.as_raw()) });
            // SAFETY: as above.
            ok(unsafe { ffi::cuStreamWaitEvent(extra, event, 0) });
            // SAFETY: as above; `mem` holds N words.
            ok(unsafe { ffi::cuMemsetD32Async(mem, 7, N, extra) });
            Ok(())
        },
    );
    match failed {
        Err(e) => assert_eq!(e.kind(), ErrorKind::StreamCaptureUnjoined, "{e}"),
        Ok(_) => panic!("a capture with a fork not joined back made a graph"),
    }
    assert!(!capturing(&stream), "the origin left the capture");
    assert!(!capturing(&a), "the fork custack joined left the capture");
    // Both take work again.
    let mut dev = guard.alloc_zeroed::<u32>(N).unwrap();
    a.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 4))
        .unwrap()
        .unwrap();
    stream
        .scope(|s| s.fill_u32(s.bind_mut(&mut dev), 5))
        .unwrap()
        .unwrap();
    assert!(dev.to_vec().unwrap().iter().all(|&v| v == 5));
    // The stray stream's own state after the failed capture is the driver's business, not
    // custack's claim: its cleanup is not asserted.
    // SAFETY: the handles made above, no longer used by any capture; the context is current.
    let _ = unsafe { ffi::cuStreamSynchronize(extra) };
    // SAFETY: as above, destroyed once.
    let _ = unsafe { ffi::cuStreamDestroy_v2(extra) };
    // SAFETY: as above.
    let _ = unsafe { ffi::cuEventDestroy_v2(event) };
    // SAFETY: as above; the stray memset was never enqueued for real (its capture failed).
    ok(unsafe { ffi::cuMemFree_v2(mem) });
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_failing_branch_ends_a_capture_over_three_streams_and_leaves_each_usable() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (stream, a, b) = (
        guard.stream().unwrap(),
        guard.stream().unwrap(),
        guard.stream().unwrap(),
    );
    let buf = || guard.alloc::<u32>(N).unwrap();
    let failed = stream.capture_forks(((&a, buf()), (&b, buf())), buf(), |s, mut x, (ba, bb)| {
        s.fill_u32(&mut x, 1)?;
        ba.run(|t, mut y| t.fill_u32(&mut y, 2))?;
        bb.run(|t, mut z| {
            t.fill_u32(&mut z, 3)?;
            Err(custack::Error::from_kind(ErrorKind::Unknown))
        })
    });
    assert_eq!(failed.unwrap_err().kind(), ErrorKind::Unknown);
    assert!(!capturing(&stream) && !capturing(&a) && !capturing(&b));
    let mut dev = guard.alloc_zeroed::<u32>(N).unwrap();
    for (k, st) in [&stream, &a, &b].into_iter().enumerate() {
        st.scope(|s| s.fill_u32(s.bind_mut(&mut dev), k as u32 + 7))
            .unwrap()
            .unwrap();
        assert!(dev.to_vec().unwrap().iter().all(|&v| v == k as u32 + 7));
    }
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_stream_forked_twice_or_the_origin_forked_is_refused_before_the_capture() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let (stream, a) = (guard.stream().unwrap(), guard.stream().unwrap());
    let twice = stream.capture_forks(((&a, ()), (&a, ())), (), |_, (), _| Ok(()));
    assert_eq!(twice.unwrap_err().kind(), ErrorKind::InvalidValue);
    let origin = stream.capture_forks(((&a, ()), (&stream, ())), (), |_, (), _| Ok(()));
    assert_eq!(origin.unwrap_err().kind(), ErrorKind::InvalidValue);
    let itself = stream.capture_forked(&stream, (), (), |_, _, (), ()| Ok(()));
    assert_eq!(itself.unwrap_err().kind(), ErrorKind::InvalidValue);
    assert!(!capturing(&stream) && !capturing(&a));
    // No capture was begun: both streams take work at once.
    let mut dev = guard.alloc_zeroed::<u32>(N).unwrap();
    a.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 2))
        .unwrap()
        .unwrap();
    assert!(dev.to_vec().unwrap().iter().all(|&v| v == 2));
}
