//! Captures over two streams and host functions inside a capture, on a real device (C18): a
//! fork joined into a capture and back by custack, its branches replayed with the right
//! results; a captured host function called once per launch and dropped after the last
//! executable graph; a panic in one reported by the launch's wait.
mod common;
use common::{KERNELS, context};
use custack::{DeviceMemory, ErrorKind, LaunchConfig, Stack};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::time::{Duration, Instant};

const N: usize = 1 << 16;
const N32: u32 = N as u32;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// Counts its drops: held by a captured host function's closure.
struct Token(Arc<AtomicU32>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// Waits (at most 10 s) for `counter` to reach `want`: the driver runs a user object's
/// destructor on its own thread, at a time of its choosing once the last reference went.
fn eventually(counter: &AtomicU32, want: u32) -> u32 {
    let start = Instant::now();
    while counter.load(SeqCst) != want && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1));
    }
    counter.load(SeqCst)
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_capture_forked_over_two_streams_joins_back_and_replays_both_branches_three_times() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let (stream, side) = (guard.stream().unwrap(), guard.stream().unwrap());
    let branch = || {
        (
            vec![0u32; N],
            guard.alloc::<u32>(N).unwrap(),
            module.declared::<AddU32>().unwrap(),
            vec![0u32; N],
        )
    };
    // Each branch: its input copied in, a kernel over it, the result copied out; the two
    // kernels have no order between them.
    let graph = stream
        .capture_forked(
            &side,
            branch(),
            branch(),
            |s, t, (input, mut dev, add, out), (input2, mut dev2, add2, out2)| {
                let cfg = LaunchConfig::for_elements(N32);
                s.copy_to_device(&mut dev, input)?;
                t.copy_to_device(&mut dev2, input2)?;
                s.run(&add, cfg, (&mut dev, 1, N32))?;
                t.run(&add2, cfg, (&mut dev2, 2, N32))?;
                s.copy_to_host(out, &dev)?;
                t.copy_to_host(out2, &dev2)
            },
        )
        .unwrap();
    assert_eq!(
        graph.node_count().unwrap(),
        6,
        "three nodes a branch; the fork and the join are edges, not nodes"
    );
    let mut exec = graph.instantiate().unwrap();
    for round in 0..3u32 {
        {
            let ((input, _, _, _), (input2, _, _, _)) = exec.payload_mut();
            input.fill(round * 100);
            input2.fill(round * 1000);
        }
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        let ((_, _, _, out), (_, _, _, out2)) = exec.payload();
        assert!(out.iter().all(|&v| v == round * 100 + 1), "round {round}");
        assert!(out2.iter().all(|&v| v == round * 1000 + 2), "round {round}");
    }
    drop(exec);

    // A closure that fails after enqueuing on both streams: the capture ends (nothing ran) and
    // neither stream is left capturing; both take work again.
    let failed = stream.capture_forked(
        &side,
        guard.alloc::<u32>(N).unwrap(),
        guard.alloc::<u32>(N).unwrap(),
        |s, t, mut a, mut b| {
            s.fill_u32(&mut a, 1)?;
            t.fill_u32(&mut b, 2)?;
            Err(custack::Error::from_kind(ErrorKind::Unknown))
        },
    );
    assert_eq!(failed.unwrap_err().kind(), ErrorKind::Unknown);
    for st in [&stream, &side] {
        let mut status = custack::ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE;
        // SAFETY: a live stream of the current context; valid out-pointer.
        let r = unsafe { custack::ffi::cuStreamIsCapturing(st.as_raw(), &raw mut status) };
        assert_eq!(r, custack::ffi::CUresult::CUDA_SUCCESS);
        assert_eq!(
            status,
            custack::ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
        );
    }
    let mut dev = guard.alloc_zeroed::<u32>(N).unwrap();
    side.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 9))
        .unwrap()
        .unwrap();
    assert!(dev.to_vec().unwrap().iter().all(|&v| v == 9));
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_captured_host_function_runs_once_per_launch_and_is_dropped_after_the_last_exec() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    let (calls, drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let (seen, token) = (Arc::clone(&calls), Token(Arc::clone(&drops)));
    let payload = (
        guard.alloc_zeroed::<u32>(N).unwrap(),
        module.declared::<AddU32>().unwrap(),
        vec![0u32; N],
    );
    let graph = stream
        .capture(payload, move |s, (mut x, add, out)| {
            s.run(&add, LaunchConfig::for_elements(N32), (&mut x, 1, N32))?;
            let mut launches = 0u32;
            // FnMut: the closure keeps its own count across the graph's launches.
            s.graph_host_fn(move || {
                let _ = &token;
                launches += 1;
                seen.store(launches, SeqCst);
            })?;
            s.copy_to_host(out, &x)
        })
        .unwrap();
    assert_eq!(graph.node_count().unwrap(), 3, "kernel, host node, copy");
    let mut exec = graph.instantiate().unwrap();
    for launch in 1..=3u32 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(calls.load(SeqCst), launch, "one call per launch");
        assert!(exec.payload().2.iter().all(|&v| v == launch));
    }
    assert_eq!(
        drops.load(SeqCst),
        0,
        "kept while an executable graph lives"
    );
    drop(exec);
    assert_eq!(
        eventually(&drops, 1),
        1,
        "dropped once, after the last exec"
    );

    // A panicking one: reported by the launch's wait, and called again at the next launch.
    let tries = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&tries);
    let exec = stream
        .capture((), move |s, ()| {
            s.graph_host_fn(move || {
                counted.fetch_add(1, SeqCst);
                panic!("a captured host function panicked");
            })
        })
        .unwrap()
        .instantiate()
        .unwrap();
    let mut exec = exec;
    for launch in 1..=2u32 {
        let launched = stream.scope(|s| {
            let g = s.bind_graph(&mut exec);
            s.launch_graph(&g)
        });
        match launched {
            Err(e) => assert_eq!(e.kind(), ErrorKind::HostFunctionPanicked, "{e}"),
            Ok(r) => panic!("the panic was not reported: {r:?}"),
        }
        assert_eq!(
            tries.load(SeqCst),
            launch,
            "called again at the next launch"
        );
    }
}
