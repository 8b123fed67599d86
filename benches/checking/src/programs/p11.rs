//! The program `p11` (P11): staging between two contexts through page-locked host memory, which
//! crosses the nested push parked (`park_pinned`, `park_registered`).

use crate::common::{KERNELS, N, N32};
use custack::{Context, DeviceMemory, LaunchConfig, Result, Stack, StackTop};

/// P11: staging between two contexts through page-locked host memory. A downloads
/// into its page-locked buffer; under a nested push B reads it (synchronously, then in its own
/// stream scope asynchronously), adds it to itself on the GPU and writes the result back into
/// another of A's page-locked buffers; A reads it as a slice and uploads it again. Page-locked
/// memory crosses the nested push parked (`park_pinned`, `park_registered`), as device memory
/// does. The twin of `ui-tests/c11_parked_pinned_*.rs`,
/// `c5_context_dropped_while_pinned_parked.rs` and `c22_parked_pinned_is_no_payload.rs`.
///
/// `a` and `b` may be contexts of one device or of two (no peer access is needed).
pub(crate) fn p11_staging_through_pinned(
    a: &Context,
    b: &Context,
) -> Result<(f32, Vec<f32>, Vec<f32>)> {
    let values: Vec<f32> = (0..N).map(|i| f32::from(i as u16)).collect();
    let mut stack = Stack::new()?;
    let mut ga = stack.push(a)?;
    let src = ga.alloc_from(&values)?;
    let mut staging = ga.park_pinned(ga.alloc_pinned::<f32>(N)?);
    src.copy_to_host(&mut staging)?;
    drop(src); // A's device memory stays with A's guard (or is parked, as in P3)
    let total = ga.with_pushed(b, |gb| -> Result<f32> {
        let dst = gb.alloc_from(&staging)?; // B reads A's page-locked memory
        Ok(dst.to_vec()?.iter().sum())
    })??;

    // Asynchronous copies under B from and to A's page-locked memory, borrowed by B's scope.
    let mut back = ga.park_pinned(ga.alloc_pinned::<f32>(N)?);
    let mut registered = ga.park_registered(ga.register_vec(vec![0f32; N])?);
    ga.with_pushed(b, |gb| -> Result<()> {
        let module = gb.load_ptx(KERNELS)?;
        let vector_add = module.function("vector_add")?;
        let stream = gb.stream()?;
        let (mut once, mut twice, mut thrice) = (
            gb.alloc::<f32>(N)?,
            gb.alloc::<f32>(N)?,
            gb.alloc::<f32>(N)?,
        );
        let cfg = LaunchConfig::for_elements(N32);
        stream.scope(|s| -> Result<()> {
            let (mut once, mut twice, mut thrice) = (
                s.bind_mut(&mut once),
                s.bind_mut(&mut twice),
                s.bind_mut(&mut thrice),
            );
            s.copy_to_device(&mut once, &staging)?;
            // SAFETY: `vector_add(const float* a, const float* b, float* c, unsigned n)` reads
            // `n` floats of `a` and `b` and writes `n` of `c`; each holds `n`.
            unsafe { s.launch(&vector_add, cfg, (&once, &once, &mut twice, N32)) }?; // 2 * i
            s.copy_to_host(&mut back, &twice)?;
            // SAFETY: as above.
            unsafe { s.launch(&vector_add, cfg, (&twice, &once, &mut thrice, N32)) }?; // 3 * i
            s.copy_to_host(&mut registered, &thrice)
        })?
    })??;
    staging[0] = -1.0; // the host's own again once B's scope is over
    let round_trip = ga.attach(ga.park(ga.alloc_from(&back)?))?.to_vec()?;
    let registered = ga.attach_registered(registered)?.into_vec()?;
    let _ = ga.attach_pinned(staging)?; // freed in A, its guard current
    Ok((total, round_trip, registered))
}
