//! Host nodes of graphs built node by node on a real device (C28): a Rust closure the driver
//! calls at each launch, in the graph's order, owned by the graph through a user object and
//! dropped once nothing can call it; a panic reported by the context's next wait.
mod common;
use common::{KERNELS, context};
use custack::graph::InstantiateFlags;
use custack::{ErrorKind, LaunchConfig, Stack};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::time::{Duration, Instant};

const N: usize = 1 << 16;
const N32: u32 = N as u32;

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// Counts its drops: held by a host node's closure.
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
fn host_nodes_run_in_the_graph_s_order_once_per_launch_and_are_dropped_after_the_last_exec() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let stream = guard.stream().unwrap();
    // `first` counts launches; `second`, after a kernel that depends on `first`, checks that
    // `first` ran before it in this launch (its count one ahead of the launches it saw).
    let (first, in_order, drops) = (
        Arc::new(AtomicU32::new(0)),
        Arc::new(AtomicU32::new(0)),
        Arc::new(AtomicU32::new(0)),
    );
    let build = |k: u32| {
        let (first, in_order) = (Arc::clone(&first), Arc::clone(&in_order));
        let (t1, t2) = (Token(Arc::clone(&drops)), Token(Arc::clone(&drops)));
        let payload = (
            guard.alloc::<u32>(N).unwrap(),
            module.declared::<AddU32>().unwrap(),
            vec![0u32; N],
        );
        guard
            .build_graph(payload, move |b, (mut x, add, out)| {
                let set = b.fill_u32(&mut x, 1, &[])?;
                let seen = Arc::clone(&first);
                let one = b.host(
                    move || {
                        let _ = &t1;
                        seen.fetch_add(k, SeqCst);
                    },
                    &[set],
                )?;
                let cfg = LaunchConfig::for_elements(N32);
                let added = b.kernel(&add, cfg, (&mut x, k, N32), &[one])?;
                let checked = Arc::clone(&in_order);
                let two = b.host(
                    move || {
                        let _ = &t2;
                        // `first` has run once more than `second` in this launch.
                        if first.load(SeqCst) == checked.load(SeqCst) + k {
                            checked.fetch_add(k, SeqCst);
                        }
                    },
                    &[added],
                )?;
                b.copy_to_host(out, &x, &[two])?;
                Ok(())
            })
            .unwrap()
    };
    let graph = build(1);
    assert_eq!(graph.node_count().unwrap(), 5);
    {
        let shared = graph.instantiate_shared(InstantiateFlags::empty()).unwrap();
        for _ in 0..2 {
            stream
                .scope(|s| {
                    let g = s.bind_shared(&shared);
                    s.launch_graph(&g)
                })
                .unwrap()
                .unwrap();
        }
    }
    let mut exec = graph.instantiate().unwrap();
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(first.load(SeqCst), 3, "one call per launch");
    assert_eq!(
        in_order.load(SeqCst),
        3,
        "the second host node ran after the first, each launch"
    );
    assert!(exec.payload().2.iter().all(|&v| v == 2), "1 + 1 copied out");
    // A whole-graph update runs the new graph's closures (adding 10), the old ones kept by
    // the driver only as long as something could call them.
    drop(exec.update(build(10)).unwrap());
    exec = stream
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(first.load(SeqCst), 13);
    assert_eq!(in_order.load(SeqCst), 13);
    assert!(
        exec.payload().2.iter().all(|&v| v == 11),
        "1 + 10 copied out"
    );
    drop(exec);
    assert_eq!(
        eventually(&drops, 4),
        4,
        "each of the four closures dropped once"
    );
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_panicking_host_node_is_reported_by_the_next_wait_and_the_next_launch_runs() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let calls = Arc::new(AtomicU32::new(0));
    let seen = Arc::clone(&calls);
    let graph = guard
        .build_graph(guard.alloc::<u32>(N).unwrap(), move |b, mut x| {
            let set = b.fill_u32(&mut x, 3, &[])?;
            b.host(
                move || {
                    assert!(
                        seen.fetch_add(1, SeqCst) != 0,
                        "the first launch's host node panics"
                    );
                },
                &[set],
            )?;
            Ok(())
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    let launch = |exec: &mut custack::graph::GraphExec<'_, _>| {
        stream.scope(|s| {
            let g = s.bind_graph(exec);
            s.launch_graph(&g)
        })
    };
    let err = launch(&mut exec).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::HostFunctionPanicked);
    assert!(
        err.to_string()
            .contains("the first launch's host node panics"),
        "{err}"
    );
    // Reported once: the next launch and wait succeed, and the node ran again.
    launch(&mut exec).unwrap().unwrap();
    assert_eq!(calls.load(SeqCst), 2);
}
