//! The programs `batch_copies` and `batch_copies_old` (C29, R27): batched copies
//! (`StreamScope::copy_batch`, one `cuMemcpyBatchAsync` at CUDA 12.8's ABI) with the double
//! reporting 12.8: 64 copies of different sizes from the host, a device-to-device batch and a
//! device-to-host batch, values read back, one driver call per batch; batches refused before the
//! driver sees them (a host destination given twice, a host buffer both written and read, a
//! length mismatch) and an empty batch, none calling it. With the double reporting 12.7
//! (`batch_copies_old`, its own process: an entry point's lookup is decided once per process):
//! `DriverTooOld` naming the call and 12.8, no call made.

use crate::common::unexpected;
use crate::double::calls;
use custack::{Context, DeviceMemory, ErrorKind, Result, Stack};

/// Copy `i`'s element count: 1 to 3,970, all different.
fn len_of(i: usize) -> usize {
    1 + i * 63
}

/// The double reporting 12.8 (`run` asks it to): every batch's copies land, each batch one call; the refused and
/// empty batches make none.
pub(crate) fn batch_copies(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let sources: Vec<Vec<u32>> = (0..64)
        .map(|i| (0..len_of(i)).map(|k| (i * 100_000 + k) as u32).collect())
        .collect();
    let mut devs = Vec::new();
    for i in 0..64 {
        devs.push(guard.alloc_zeroed::<u32>(len_of(i))?);
    }
    let mut copies = Vec::new();
    for i in 0..4 {
        copies.push(guard.alloc_zeroed::<u32>(len_of(i))?);
    }
    let mut back: Vec<Vec<u32>> = (0..4).map(|i| vec![0; len_of(i)]).collect();
    calls(
        "one batch of 64 copies",
        "cuMemcpyBatchAsync",
        1,
        false,
        || {
            stream.scope(|s| -> Result<()> {
                let mut batch = s.batch();
                for (d, src) in devs.iter_mut().zip(&sources) {
                    batch.to_device(s.bind_mut(d), &src[..])?;
                }
                s.copy_batch(batch)
            })?
        },
    )?;
    for (i, d) in devs.iter().enumerate() {
        if d.to_vec()? != sources[i] {
            return Err(unexpected("a batched copy to the device did not land"));
        }
    }
    calls(
        "a device and a host batch",
        "cuMemcpyBatchAsync",
        2,
        false,
        || {
            stream.scope(|s| -> Result<()> {
                let mut mids: Vec<_> = copies.iter_mut().map(|c| s.bind_mut(c)).collect();
                let mut across = s.batch();
                for (m, d) in mids.iter_mut().zip(&devs) {
                    across.device(m, s.bind(d))?;
                }
                s.copy_batch(across)?;
                let mut down = s.batch();
                for (b, m) in back.iter_mut().zip(&mids) {
                    down.to_host(&mut b[..], m)?;
                }
                s.copy_batch(down)
            })?
        },
    )?;
    if back.iter().zip(&sources).any(|(b, s)| b != s) {
        return Err(unexpected("a batched copy back did not land"));
    }
    refused(&guard)
}

/// The batches refused before the driver is called, and an empty one: no call at all.
fn refused(guard: &custack::PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let a = guard.alloc_from(&[1u32; 64])?;
    let mut d = guard.alloc_zeroed::<u32>(64)?;
    let mut out = vec![0u32; 64];
    let host = vec![3u32; 65];
    let kinds = calls(
        "refused and empty batches",
        "cuMemcpyBatchAsync",
        0,
        false,
        || {
            stream.scope(|s| {
                let dst = s.bind_host_mut(&mut out[..]);
                let mut twice = s.batch();
                twice.to_host(dst, s.bind(&a))?.to_host(dst, s.bind(&a))?;
                let twice = s.copy_batch(twice).map_err(|e| e.kind());
                let mut d = s.bind_mut(&mut d);
                let mut read_back = s.batch();
                read_back.to_host(dst, s.bind(&a))?.to_device(&mut d, dst)?;
                let read_back = s.copy_batch(read_back).map_err(|e| e.kind());
                let mut short = s.batch();
                let short = short
                    .to_device(&mut d, &host[..])
                    .map(drop)
                    .map_err(|e| e.kind());
                let empty = s.copy_batch(s.batch());
                Ok::<_, custack::Error>((twice, read_back, short, empty))
            })?
        },
    )?;
    let want = (
        Err(ErrorKind::InvalidValue),
        Err(ErrorKind::InvalidValue),
        Err(ErrorKind::LengthMismatch),
    );
    if (kinds.0, kinds.1, kinds.2) != want {
        return Err(unexpected("a batch custack must refuse reached the driver"));
    }
    kinds.3?;
    if out != vec![0; 64] || d.to_vec()? != vec![0; 64] {
        return Err(unexpected("a refused batch copied something"));
    }
    Ok(())
}

/// The double reporting 12.7 (`run` asks it to): the batch is `DriverTooOld`, naming the call and 12.8, and the
/// driver is not called.
pub(crate) fn batch_copies_old(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let host = [1u32; 16];
    let mut d = guard.alloc_zeroed::<u32>(16)?;
    let e = calls(
        "a batch on driver 12.7",
        "cuMemcpyBatchAsync",
        0,
        false,
        || {
            stream.scope(|s| {
                let mut batch = s.batch();
                batch.to_device(s.bind_mut(&mut d), &host[..])?;
                Ok::<_, custack::Error>(s.copy_batch(batch))
            })?
        },
    )?;
    match e {
        Err(e)
            if e.kind() == ErrorKind::DriverTooOld
                && e.to_string()
                    .contains("cuMemcpyBatchAsync needs driver ≥ 12.8") =>
        {
            Ok(())
        }
        Err(e) => Err(e),
        Ok(()) => Err(unexpected("a batch ran on driver 12.7")),
    }
}
