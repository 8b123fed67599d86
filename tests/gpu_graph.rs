//! Graphs on a real device: capture, instantiate, launch as submissions and in scopes, host
//! access between launches, update, stream-ordered allocations in a graph, and the errors.
mod common;
use common::{KERNELS, context};
use custack::prelude::*;
use custack::{ErrorKind, LaunchConfig, Stack, take_drop_errors};

const N: usize = 1 << 16;
const N32: u32 = N as u32;

#[test]
#[ignore = "needs a CUDA device"]
fn a_captured_graph_runs_again_and_again_on_the_memory_it_owns() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    let mut input = guard.alloc_pinned::<u32>(N).unwrap();
    input.fill(10);
    let payload = (input, guard.alloc::<u32>(N).unwrap(), add, vec![0u32; N]);
    let graph = stream
        .capture(payload, |s, (input, mut dev, add, out)| {
            s.copy_to_device(&mut dev, input)?;
            let mut scratch = s.alloc::<u32>(N)?; // becomes the graph's own alloc/free nodes
            s.copy_device(&mut scratch, &dev)?;
            // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); both hold n elements.
            unsafe {
                s.launch(
                    &add,
                    LaunchConfig::for_elements(N32),
                    (&mut scratch, 5u32, N32),
                )
            }?;
            s.copy_device(&mut dev, &scratch)?;
            s.copy_to_host(out, &dev)
        })
        .unwrap();
    assert!(
        graph.node_count().unwrap() >= 5,
        "{}",
        graph.node_count().unwrap()
    );
    let mut exec = graph.instantiate().unwrap();
    // Nothing ran during capture.
    assert!(exec.payload().3.iter().all(|&x| x == 0));
    for round in 1..=3u32 {
        // New input between launches, through the access form (slices and views only).
        let (input, _dev, _add, _out) = exec.payload_mut();
        input.fill(round * 100);
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
        assert!(
            exec.payload().3.iter().all(|&x| x == round * 100 + 5),
            "round {round}"
        );
    }
    // Launched twice in one scope: the driver orders the launches.
    stream
        .scope(|s| {
            let g = s.bind_graph(&mut exec);
            s.launch_graph(&g)?;
            s.launch_graph(&g)
        })
        .unwrap()
        .unwrap();
    assert!(exec.payload().3.iter().all(|&x| x == 305));
    drop(exec);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn update_swaps_the_payload_and_a_refused_update_leaves_the_graph_working() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    let capture = |k: u32| {
        let dev = guard.alloc_from(&vec![k; N]).unwrap();
        stream
            .capture((dev, add, vec![0u32; N]), |s, (mut dev, add, out)| {
                // SAFETY: as above.
                unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 1u32, N32)) }?;
                s.copy_to_host(out, &dev)
            })
            .unwrap()
    };
    let mut exec = capture(0).instantiate().unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&x| x == 1));
    // Same topology over other memory: the executable graph now works on that.
    let (old_dev, _, old_out) = exec.update(capture(1000)).unwrap();
    assert!(old_out.iter().all(|&x| x == 1));
    assert_eq!(old_dev.to_vec().unwrap(), vec![1; N]);
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&x| x == 1001));
    // Another topology: refused, and the executable graph is unchanged.
    let other = stream
        .capture(
            (guard.alloc::<u32>(N).unwrap(), add, vec![0u32; N]),
            |s, (mut dev, _add, out)| {
                s.fill_bytes(&mut dev, 0)?;
                s.copy_to_host(out, &dev)
            },
        )
        .unwrap();
    let err = exec.update(other).map(|_| ()).unwrap_err();
    assert_eq!(
        err.error().kind(),
        ErrorKind::GraphExecUpdateFailure,
        "{err}"
    );
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&x| x == 1002));
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_refused_update_hands_the_graph_back_which_instantiates_and_runs_and_the_exec_is_unchanged() {
    use custack::ffi::CUgraphExecUpdateResult;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    // One kernel node and a copy: `dev` starts at `k`, each launch adds 1 and copies it out.
    let one = |k: u32| {
        let dev = guard.alloc_from(&vec![k; N]).unwrap();
        stream
            .capture((dev, add, vec![0u32; N]), |s, (mut dev, add, out)| {
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); dev holds n elements.
                unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 1u32, N32)) }?;
                s.copy_to_host(out, &dev)
            })
            .unwrap()
    };
    // Two kernel nodes and a copy: another topology (one more node), each launch adds 2.
    let two = |k: u32| {
        let dev = guard.alloc_from(&vec![k; N]).unwrap();
        stream
            .capture((dev, add, vec![0u32; N]), |s, (mut dev, add, out)| {
                let cfg = LaunchConfig::for_elements(N32);
                // SAFETY: as above.
                unsafe { s.launch(&add, cfg, (&mut dev, 1u32, N32)) }?;
                // SAFETY: as above.
                unsafe { s.launch(&add, cfg, (&mut dev, 1u32, N32)) }?;
                s.copy_to_host(out, &dev)
            })
            .unwrap()
    };
    let mut exec = one(0).instantiate().unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&x| x == 1));
    // Refused by the driver: the error says why, and the graph comes back with its payload.
    let refused = exec.update(two(100)).map(drop).unwrap_err();
    assert_eq!(
        refused.error().kind(),
        ErrorKind::GraphExecUpdateFailure,
        "{refused}"
    );
    assert_eq!(
        refused.result(),
        Some(CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED),
        "{refused:?}"
    );
    let graph = refused.into_graph().expect("a refused graph comes back");
    assert_eq!(graph.node_count().unwrap(), 3);
    // The executable graph is unchanged: it adds 1 to its own memory.
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&x| x == 2));
    // The graph handed back instantiates and runs over its own payload (100 + 2).
    let mut fallback = graph.instantiate().unwrap();
    fallback = stream
        .submit(fallback, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(fallback.payload().2.iter().all(|&x| x == 102));
    // A refusal leaked with `mem::forget` leaks the graph and its payload, nothing else: the
    // executable graph still launches on its own memory.
    core::mem::forget(exec.update(two(500)).map(drop).unwrap_err());
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&x| x == 3));
    // Refused and turned into its `Error` (the graph dropped with its payload, nothing of it in
    // use), then a graph of the same topology is still taken.
    let err = exec.update(two(7)).map(drop).unwrap_err().into_error();
    assert_eq!(err.kind(), ErrorKind::GraphExecUpdateFailure);
    let (old_dev, _, _) = exec.update(one(1000)).unwrap();
    assert_eq!(old_dev.to_vec().unwrap(), vec![3; N]);
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert!(exec.payload().2.iter().all(|&x| x == 1001));
    drop((exec, fallback));
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn failed_captures_end_the_capture_and_host_functions_are_refused() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    // The closure's own error: the capture ends, the stream works normally afterwards.
    let err = stream
        .capture(
            (guard.alloc::<u32>(4).unwrap(), vec![0u32; 8]),
            |s, (dev, out)| s.copy_to_host(out, &dev),
        )
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LengthMismatch);
    let r = stream.capture(vec![0u8; 4], |s, _| s.host_fn(|| ()));
    assert_eq!(r.map(|_| ()).unwrap_err().kind(), ErrorKind::NotSupported);
    let done = stream
        .submit(
            (guard.alloc::<u32>(4).unwrap(), vec![1u32; 4]),
            |s, (mut dev, out)| {
                s.fill_bytes(&mut dev, 0)?;
                s.copy_to_host(out, &dev)
            },
        )
        .unwrap();
    assert_eq!(done.wait().unwrap().1, vec![0; 4]);
    assert!(take_drop_errors().is_empty());
}

/// A capture's closure is `'static`: it reaches a stream only through a leaked guard. A scope or
/// a submission opened there is refused, nothing enqueued: its work would become nodes of the
/// graph, while the scope's synchronize or the submission's event stood for work that ran.
#[test]
#[ignore = "needs a CUDA device"]
fn a_scope_or_submission_inside_a_capture_is_refused() {
    let ctx: &'static custack::Context = Box::leak(Box::new(context()));
    let stack: &'static mut Stack = Box::leak(Box::new(Stack::new().unwrap()));
    let guard = Box::leak(Box::new(stack.push(ctx).unwrap()));
    let stream: &'static custack::Stream<'static> = Box::leak(Box::new(guard.stream().unwrap()));
    let graph = stream
        .capture((), move |_s, ()| {
            let e = stream.scope(|_| ()).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NotSupported);
            assert!(
                e.to_string()
                    .contains("a stream scope inside a graph capture's closure"),
                "{e}"
            );
            let e = stream.submit(vec![0u32; 4], |_, _| Ok(())).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NotSupported);
            assert!(
                e.to_string()
                    .contains("a submission inside a graph capture's closure"),
                "{e}"
            );
            Ok(())
        })
        .unwrap();
    assert_eq!(graph.node_count().unwrap(), 0, "nothing was captured");
    drop(graph);
    // Outside the capture, the same stream opens scopes again.
    stream.scope(|_| ()).unwrap();
}
