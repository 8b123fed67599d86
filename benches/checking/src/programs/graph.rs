//! The program `graph` (C18): a capture with copies, a stream-ordered allocation and a launch;
//! instantiated, launched as a submission and twice in a scope, its payload read and written
//! between launches, updated with a second capture, refused an update of another topology (whose
//! graph comes back and runs); a capture inside a scope open on another
//! stream; a capture that fails in its closure.

use crate::common::{KERNELS, N, N32};
use custack::{Context, LaunchConfig, Result, Stack};

/// Graphs: a capture with copies, a stream-ordered allocation and a launch; instantiated,
/// launched as a submission and twice in a scope, its payload read and written between
/// launches, updated with a second capture; a capture inside a scope open on another stream;
/// a capture that fails in its closure.
pub(crate) fn graph(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let stream = guard.stream()?;
    let capture = |k: u32| -> Result<_> {
        let mut input = guard.alloc_pinned::<u32>(N)?;
        input.fill(k);
        let payload = (
            input,
            guard.alloc::<u32>(N)?,
            module.function("add_u32")?,
            vec![0u32; N],
        );
        stream.capture(payload, |s, (input, mut dev, add, out)| {
            s.copy_to_device(&mut dev, input)?;
            let mut scratch = s.alloc::<u32>(N)?;
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
    };
    let graph = capture(1)?;
    let _ = graph.node_count()?;
    let mut exec = graph.instantiate()?;
    let (input, _dev, _add, _out) = exec.payload_mut();
    input.fill(100);
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    stream.scope(|s| {
        let g = s.bind_graph(&mut exec);
        s.launch_graph(&g)?;
        s.launch_graph(&g)
    })??;
    let (_input, _dev, _add, _old_out) = exec
        .update(capture(2)?)
        .map_err(custack::graph::UpdateError::into_error)?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    // Another topology (one copy): refused by the double as by the driver, the graph handed
    // back, which instantiates and runs; the executable graph is unchanged.
    let other = stream.capture(
        (
            guard.alloc_pinned::<u32>(N)?,
            guard.alloc_zeroed::<u32>(N)?,
            module.function("add_u32")?,
            vec![1u32; N],
        ),
        |s, (_input, dev, _add, out)| s.copy_to_host(out, &dev),
    )?;
    let refused = match exec.update(other) {
        Err(e) if e.error().kind() == custack::ErrorKind::GraphExecUpdateFailure => e,
        Err(e) => return Err(e.into_error()),
        Ok(_) => panic!("an update of another topology was taken"),
    };
    assert_eq!(
        refused.result(),
        Some(custack::ffi::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED),
        "{refused:?}"
    );
    let (error, graph) = refused.into_parts();
    let fallback = stream
        .submit(graph.ok_or(error)?.instantiate()?, |s, g| {
            s.launch_graph(&g)
        })?
        .wait()?;
    assert!(
        fallback.payload().3.iter().all(|&v| v == 0),
        "zeros copied out"
    );
    drop(fallback);
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    // A capture inside a scope open on another stream: the scope's copy runs and is complete
    // at its end, so `local` may go; the graph's copy reaches only its payload (the closure is
    // `'static`), written at each launch, long after `local` is freed.
    let other = guard.stream()?;
    let dev = guard.alloc_zeroed::<u32>(N)?;
    let mut local = vec![1u32; N];
    let inner = other.scope(|s2| {
        s2.copy_to_host(s2.bind_host_mut(&mut local), s2.bind(&dev))?;
        stream.capture(
            (guard.alloc_zeroed::<u32>(N)?, vec![1u32; N]),
            move |s, (d, out)| s.copy_to_host(out, &d),
        )
    })??;
    drop(local);
    let inner = stream
        .submit(inner.instantiate()?, |s, g| s.launch_graph(&g))?
        .wait()?;
    drop(inner);
    // Refused during a capture (custack's own error): the capture ends, the payload drops.
    match stream.capture(vec![0u8; 4], |s, _| s.host_fn(|| ())) {
        Err(e) if e.kind() == custack::ErrorKind::NotSupported => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a host function was captured"),
    }
    Ok(exec.payload().3.to_vec())
}
