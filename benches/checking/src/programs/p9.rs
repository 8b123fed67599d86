//! The program `p9` (P9): one thread keeps work pending on two contexts at once (NVIDIA's
//! `simpleMultiGPU` shape): submissions parked across a nested push, waited for from another
//! context, ordered on the GPU across contexts, and their memory attached again.

use crate::common::{KERNELS, N, N32};
use custack::{
    Context, DeviceMemory, LaunchConfig, ParkedBuffer, ParkedModule, PushedGuard, Result, Stack,
    StackTop,
};

/// What `enqueue_parked` leaves in flight: its upload buffer, device buffer and download
/// vector, parked.
type InFlight<'c> = custack::ParkedSubmission<
    'c,
    (
        custack::ParkedPinned<'c, u32>,
        ParkedBuffer<'c, u32>,
        Vec<u32>,
        (),
    ),
>;

/// Enqueues on `guard`'s context, in a submission it then parks: `x = k` uploaded from
/// page-locked memory, `x += k` by `add_u32`, downloaded into a vector. The module is parked
/// too (dropping it would synchronize the context), so the work stays in flight when this
/// returns.
fn enqueue_parked<'c>(
    guard: &PushedGuard<'c, '_>,
    k: u32,
) -> Result<(InFlight<'c>, ParkedModule<'c>)> {
    let module = guard.load_ptx(KERNELS)?;
    let add = module.function("add_u32")?;
    let stream = guard.stream()?;
    let mut host = guard.alloc_pinned::<u32>(N)?;
    host.fill(k);
    let payload = (host, guard.alloc::<u32>(N)?, vec![0u32; N], add);
    let work = stream.submit(payload, |s, (host, mut dev, out, add)| {
        s.copy_to_device(&mut dev, host)?;
        // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`, and
        // `dev` holds `n` elements.
        unsafe { s.launch(&add, LaunchConfig::for_elements(N32), (&mut dev, k, N32)) }?;
        s.copy_to_host(out, &dev)
    })?;
    let pending = guard.park_submission(work); // borrows the context only; the stream may go
    Ok((pending, guard.park_module(module)))
}

/// P9: one thread keeps work pending on two contexts at once: enqueue on A, push B
/// and enqueue on B, wait for both (NVIDIA's `simpleMultiGPU` shape). A's pending work is
/// parked (`park_submission`), so A's guard can be frozen under the nested push; B's is parked
/// to leave the nested push; both are waited for while A is current, B's from another context.
/// A third submission on A waits on the GPU for B's work (`wait_parked`, `cuStreamWaitEvent`
/// with B's event), and B copies A's device buffer from A's still-pending work on the GPU
/// (`scope_after`, `copy_from_pending`). What comes back is parked memory, re-attached to its
/// own context's guard.
/// The twin of `ui-tests/c22_*.rs`.
///
/// Returns A's host result (`2 * 3`), B's (`2 * 5`), A's device buffer read back under A's
/// guard (`6`), the ordered third submission's result (`7 + 7`) and B's copy of A's buffer
/// (`6`).
pub(crate) fn p9_two_contexts_in_flight(a: &Context, b: &Context) -> Result<[Vec<u32>; 5]> {
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let (pending_a, module_a) = enqueue_parked(&ga, 3)?;
    let (pending_b, module_b) = ga.with_pushed(b, |gb| enqueue_parked(gb, 5))??;
    // B reads A's device buffer on the GPU once A's work is done there: a peer copy in a scope
    // that waits for A's event first; A's pending work stays borrowed until it has synchronized.
    let peer_copy = ga.with_pushed(b, |gb| -> Result<Vec<u32>> {
        let stream = gb.stream()?;
        let mut copy = gb.alloc::<u32>(N)?;
        stream.scope_after(&pending_a, |s, ((), dev_a, (), ())| {
            s.copy_from_pending(s.bind_mut(&mut copy), dev_a)
        })??;
        copy.to_vec()
    })??;
    // Both in flight. A's stream waits on the GPU for B's work before its own.
    let stream = ga.stream()?;
    stream.wait_parked(&pending_b)?;
    let ordered = stream.submit(vec![0u32; N], |s, host| {
        let mut tmp = s.alloc::<u32>(N)?;
        s.fill_u32(&mut tmp, 14)?;
        s.copy_to_host(host, &tmp)
    })?;
    let (_, dev_a, host_a, ()) = pending_a.wait()?;
    let (_, dev_b, host_b, ()) = pending_b.wait()?; // B's event, A current
    let dev_a = ga.attach(dev_a)?.to_vec()?; // A's memory under A's guard again
    let ordered = ordered.wait()?;
    drop((dev_b, module_b, module_a)); // each pushes its own context
    Ok([host_a, host_b, dev_a, ordered, peer_copy])
}
