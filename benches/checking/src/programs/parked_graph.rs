//! The program `parked_graph` (C18, C22): a launched graph kept in flight across a nested push,
//! parked, polled from another context, attached again and relaunched; idle graphs parked, one
//! attached to the wrong context, one dropped under another.

use crate::common::{KERNELS, N, N32};
use custack::{Context, LaunchConfig, Result, Stack, StackTop};

/// A graph adding `k` to a zeroed buffer and copying it out, owning its module.
type OwningGraph<'g> = custack::graph::GraphExec<
    'g,
    (
        custack::Module<'g>,
        custack::DeviceBuffer<'g, u32>,
        Vec<u32>,
    ),
>;

fn capture_owning<'g>(ga: &'g custack::PushedGuard<'_, '_>, k: u32) -> Result<OwningGraph<'g>> {
    let stream = ga.stream()?;
    let payload = (
        ga.load_ptx(KERNELS)?,
        ga.alloc_zeroed::<u32>(N)?,
        vec![0u32; N],
    );
    let graph = stream.capture(payload, move |s, (module, mut dev, out)| {
        let add = module.function("add_u32")?;
        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n); x holds n elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, k, N32)) }?;
        s.copy_to_host(out, &dev)
    })?;
    graph.instantiate()
}

/// A launched graph kept in flight across a nested push: the graph owns its module
/// (looked up inside the capture), its launch is parked and polled from B, handed back as a
/// `ParkedGraph`, attached to A's guard and launched again; an idle graph parked across a pop;
/// one attached to the wrong context (refused, destroyed in its own); one dropped under B.
/// The twin of `ui-tests/c22_*graph*.rs`; `tests/gpu_in_flight.rs` checks the values.
pub(crate) fn parked_graph(a: &Context, b: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let exec = capture_owning(&ga, 3)?;
    let stream = ga.stream()?;
    let pending = ga.park_submission(stream.submit(exec, |s, g| s.launch_graph(&g))?);
    drop(stream);
    let second = ga.park_graph(capture_owning(&ga, 4)?); // idle, parked
    let parked = ga.with_pushed(b, |gb| -> Result<_> {
        let mine = gb.alloc_from(&[7u32; N])?; // B works while A's graph runs
        let mut pending = pending;
        let parked = loop {
            match pending.try_wait()? {
                Ok(done) => break done,
                Err(again) => pending = again,
            }
        };
        drop(mine);
        // A's idle graph attached to B's guard: refused, and destroyed in A.
        if gb.attach_graph(second).is_ok() {
            return Err(custack::Error::from_kind(
                custack::ErrorKind::ContextMismatch,
            ));
        }
        Ok(parked)
    })??;
    let exec = ga.attach_graph(parked)?;
    let stream = ga.stream()?;
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    // An idle graph parked across a pop, attached to a new guard of A and launched again.
    let idle = ga.park_graph(exec);
    drop(stream);
    drop(ga);
    let ga = stack.push(a)?;
    let exec = ga.attach_graph(idle)?;
    let stream = ga.stream()?;
    let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let out = exec.payload().2.to_vec();
    // Dropped while B is current: destroyed in A, its module unloaded after it.
    let idle = ga.park_graph(exec);
    drop(stream);
    drop(ga);
    let gb = stack.push(b)?;
    drop(idle);
    drop(gb);
    Ok(out)
}
