//! The program `p1` (P1): one guard, many handles: a module, two streams, an event, page-locked and
//! device memory, two scopes open at once with copies and launches.

use crate::common::{KERNELS, N, N32};
use custack::{Context, EventFlags, LaunchConfig, Result, Stack};

pub(crate) fn p1_one_guard_many_handles(ctx: &Context) -> Result<(Vec<f32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let vector_add = module.function("vector_add")?;
    let add_u32 = module.function("add_u32")?;
    let empty = module.function("empty")?;
    let (one, two) = (guard.stream()?, guard.stream()?);
    let done = guard.event(EventFlags::DISABLE_TIMING)?;

    let mut a_host = guard.alloc_pinned::<f32>(N)?;
    let mut b_host = guard.alloc_pinned::<f32>(N)?;
    let mut c_host = guard.alloc_pinned::<f32>(N)?;
    for (i, (a, b)) in a_host.iter_mut().zip(b_host.iter_mut()).enumerate() {
        *a = f32::from(i as u16);
        *b = 2.0 * f32::from(i as u16);
    }
    let (mut a, mut b, mut c) = (
        guard.alloc::<f32>(N)?,
        guard.alloc::<f32>(N)?,
        guard.alloc::<f32>(N)?,
    );
    let mut x = guard.alloc_from(&vec![7u32; N])?;
    let mut x_host = vec![0u32; N];
    let cfg = LaunchConfig::for_elements(N32);

    one.scope(|s1| {
        let (mut a, mut b, mut c) = (
            s1.bind_mut(&mut a),
            s1.bind_mut(&mut b),
            s1.bind_mut(&mut c),
        );
        two.scope(|s2| -> Result<()> {
            let mut x = s2.bind_mut(&mut x);
            s1.copy_to_device(&mut a, &a_host)?;
            s1.copy_to_device(&mut b, &b_host)?;
            // SAFETY: `vector_add(const float* a, const float* b, float* c, unsigned n)` reads
            // `n` floats of `a` and `b` and writes `n` of `c`; each holds `n`.
            unsafe { s1.launch(&vector_add, cfg, (&a, &b, &mut c, N32)) }?;
            s1.copy_to_host(&mut c_host, &c)?;
            // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)`; `x` holds `n` elements.
            unsafe { s2.launch(&add_u32, cfg, (&mut x, 5u32, N32)) }?;
            // SAFETY: `empty()` takes no parameters and touches no memory.
            unsafe { s2.launch(&empty, LaunchConfig::for_elements(1), ()) }?;
            s2.record(&done)?;
            s2.copy_to_host(&mut x_host, &x)
        })?
    })??;
    done.synchronize()?;
    Ok((c_host.to_vec(), x_host))
}
