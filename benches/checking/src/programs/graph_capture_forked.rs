//! The program `graph_capture_forked` (C18): captures over two streams
//! (`Stream::capture_forked`) and host functions inside a capture (`StreamScope::graph_host_fn`).

use crate::common::{KERNELS, N, N32, Unwind};
use custack::{Context, ErrorKind, LaunchConfig, Result, Stack};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

/// Counts its drops: a captured host function's closure holds one.
struct Token(Arc<AtomicU32>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A capture forked over two streams, each branch a copy in and a launch on its own payload and
/// a copy out, with a host function on the fork; launched three times; a fork scope's panic and
/// a closure's error end the capture and leave both streams usable; a captured host function's
/// panic is reported by the launch's wait; every closure is dropped with the last graph.
#[allow(
    clippy::too_many_lines,
    reason = "a checking scenario, its steps read top to bottom"
)]
pub(crate) fn graph_capture_forked(ctx: &Context) -> Result<()> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<Unwind>() {
            quiet(info);
        }
    }));
    let (calls, drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let (stream, side) = (guard.stream()?, guard.stream()?);
    let branch = |k: u32| -> Result<_> {
        let mut input = guard.alloc_pinned::<u32>(N)?;
        input.fill(k);
        Ok((
            input,
            guard.alloc::<u32>(N)?,
            module.function("add_u32")?,
            vec![0u32; N],
        ))
    };
    let (seen, token) = (Arc::clone(&calls), Token(Arc::clone(&drops)));
    let graph = stream.capture_forked(
        &side,
        branch(1)?,
        branch(10)?,
        move |s, t, (input, mut dev, add, out), (input2, mut dev2, add2, out2)| {
            s.copy_to_device(&mut dev, input)?;
            t.copy_to_device(&mut dev2, input2)?;
            // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); each holds n elements.
            unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, 1u32, N32)) }?;
            // SAFETY: as above.
            unsafe {
                t.launch(
                    &add2,
                    LaunchConfig::for_elements(N32),
                    (&mut dev2, 2u32, N32),
                )
            }?;
            t.graph_host_fn(move || {
                let _ = &token;
                seen.fetch_add(1, SeqCst);
            })?;
            s.copy_to_host(out, &dev)?;
            t.copy_to_host(out2, &dev2)
        },
    )?;
    let _ = graph.node_count()?;
    let mut exec = graph.instantiate()?;
    for _ in 0..3 {
        exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    }
    assert_eq!(calls.load(SeqCst), 3, "one call per launch");
    drop(exec);

    // A fork's closure that fails, and one that panics: the capture ends, both streams leave
    // it and take work again.
    let failed = stream.capture_forked(&side, (), guard.alloc::<u32>(N)?, |_, t, (), mut d| {
        t.fill_u32(&mut d, 3)?;
        Err(custack::Error::from_kind(ErrorKind::Unknown))
    });
    match failed {
        Err(e) if e.kind() == ErrorKind::Unknown => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a failed closure's capture made a graph"),
    }
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stream.capture_forked(&side, (), guard.alloc::<u32>(N)?, |_, t, (), mut d| {
            t.fill_u32(&mut d, 3)?;
            std::panic::panic_any(Unwind)
        })
    }));
    match panicked {
        Err(_) => {}
        Ok(r) => {
            r?;
            panic!("a panicking closure's capture made a graph");
        }
    }
    let mut dev = guard.alloc::<u32>(N)?;
    side.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 4))??;
    stream.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 5))??;
    match stream.capture_forked(&stream, (), (), |_, _, (), ()| Ok(())) {
        Err(e) if e.kind() == ErrorKind::InvalidValue => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a stream forked from itself"),
    }

    // A captured host function that panics: reported by the launch's wait, each time.
    let exec = stream
        .capture((), |s, ()| {
            s.graph_host_fn(|| std::panic::panic_any(Unwind))
        })?
        .instantiate()?;
    match stream.submit(exec, |s, g| s.launch_graph(&g))?.wait() {
        Err(e) if e.kind() == ErrorKind::HostFunctionPanicked => {}
        Err(e) => return Err(e),
        Ok(_) => panic!("a captured host function's panic was not reported"),
    }
    // Outside a capture, a graph host function is called once.
    stream.scope(|s| {
        let seen = Arc::clone(&calls);
        s.graph_host_fn(move || {
            seen.fetch_add(1, SeqCst);
        })
    })??;
    assert_eq!(calls.load(SeqCst), 4);
    // The closure dropped with the last executable graph (under the double at once), unless a
    // destroy failed and left its graph behind.
    match custack::take_drop_errors().into_iter().next() {
        None => {
            assert_eq!(drops.load(SeqCst), 1, "the captured closure dropped once");
            Ok(())
        }
        Some(e) => Err(e),
    }
}
