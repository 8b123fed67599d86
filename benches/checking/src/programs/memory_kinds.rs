//! The program `memory_kinds` (C21): memory pools, pitched 2D memory and registered host memory, in
//! and out of scopes.

use custack::{Context, DeviceMemory, DeviceMemoryMut, Result, Stack};

/// Memory pools, pitched 2D memory and registered host memory, in and out of scopes.
pub(crate) fn memory_kinds(ctx: &Context) -> Result<Vec<f32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let default_pool = guard.default_mem_pool()?;
    let pool = guard.create_mem_pool()?;
    pool.set_release_threshold(1 << 20)?;
    let _ = (
        pool.release_threshold()?,
        pool.usage()?,
        default_pool.usage()?,
    );
    let (w, h) = (100, 7);
    let mut image = guard.alloc_pitched::<f32>(w, h)?;
    image.copy_from_host(&vec![0.5; w * h])?;
    let rows = image.to_vec()?;
    let mut host = vec![1.0f32; 64];
    let mut vec = guard.register_vec(vec![2.0f32; 64])?;
    let mut back = vec![0.0f32; w * h];
    guard.register_host(&mut host, |registered| {
        stream.scope(|s| -> Result<()> {
            let mut tmp = s.alloc_from_pool::<f32>(&pool, 64)?;
            s.copy_to_device(&mut tmp, &*registered)?;
            s.copy_to_host(&mut *vec, &tmp)?;
            let mut p = s.bind_pitched(&mut image);
            s.copy_to_pitched(&mut p, &rows)?;
            s.copy_from_pitched(&mut back, &p)
        })
    })???;
    // A registration whose value is forgotten: the closure's end unregisters the slice all the
    // same, so the same memory registers again, and the double sees no registration left at
    // the end (C21).
    // (`RegisteredHost` has no `Drop` of its own, on purpose.)
    #[allow(clippy::forget_non_drop)]
    guard.register_host(&mut host, |r| core::mem::forget(r))?;
    guard.register_host(&mut host, |_| ())?;
    // Scratch memory from the pool in a submission: the pool is named when the allocation is
    // enqueued, not borrowed for the submission.
    let scratch = stream
        .submit(vec![0.0f32; 64], |s, host| {
            let mut tmp = s.alloc_from_pool::<f32>(&pool, 64)?;
            s.fill_u32(&mut tmp, 0)?;
            s.copy_to_host(host, &tmp)
        })?
        .wait()?;
    pool.trim_to(0)?;
    // The registered vector and a buffer owned by a submission, parked (it then borrows the
    // context only), polled and waited for.
    let pending = stream.submit((vec, guard.alloc::<f32>(64)?), |s, (host, mut dev)| {
        s.fill_u32(&mut dev, 0)?;
        s.copy_to_host(host, &dev)
    })?;
    let pending = guard.park_submission(pending);
    let _ = pending.is_complete()?;
    let (vec, dev) = pending.wait()?;
    // Synchronous copies and memsets between buffers, the pointer's attributes, the
    // context's free memory, and explicit frees.
    let mut dev = guard.attach(dev)?;
    let mut other = guard.alloc_zeroed::<f32>(64)?;
    other.fill_u16(0x3f80)?;
    dev.copy_from_device(&other)?;
    let _ = (dev.pointer_attributes()?, guard.memory_info()?);
    dev.free()?;
    other.free()?;
    guard.alloc_pinned::<u8>(16)?.free()?;
    let mut out = vec.into_vec()?;
    out.extend_from_slice(&rows);
    out.extend_from_slice(&back);
    out.extend_from_slice(&scratch);
    image.free()?;
    drop((pool, default_pool));
    Ok(out)
}
