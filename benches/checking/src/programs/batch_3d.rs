//! The programs `batch_3d`, `batch_3d_old` and `managed_batches` (C33, R31): the rest of the
//! batches of a scope. `batch_3d`, the double reporting 12.8: a 3D batch fills a 3D array, a 2D
//! array and a pitched buffer from the host and a second reads them back, one
//! `cuMemcpy3DBatchAsync` each, values checked; a 3D batch naming one host destination twice and
//! an empty one reach no driver call; the managed batches, CUDA 13.0's, are `DriverTooOld` naming
//! 13.0 with no call made. `batch_3d_old`, the double reporting 12.7 (its own process: a lookup
//! is decided once per process): the 3D batch is `DriverTooOld` naming 12.8. `managed_batches`,
//! the double reporting 13.0: one prefetch batch of three ranges, one discard batch and one
//! discard-and-prefetch batch, each one call; the discarded memory reads as the double's
//! "unspecified" bytes (on the double) until rewritten, the memory not discarded keeps its
//! values; a prefetch
//! batch naming one range twice reaches no call.

use crate::common::{context0, unexpected};
use crate::double::{calls, report_driver_version};
use custack::{Context, ErrorKind, Location, Result, Stack};

/// Runs `program` (one of this file's three) with the double reporting its driver version.
pub(crate) fn run(program: &str) -> Result<()> {
    let version = match program {
        "batch_3d" => 12080,
        "batch_3d_old" => 12070,
        _ => 13000,
    };
    report_driver_version(version)?;
    let ctx = context0()?;
    match program {
        "batch_3d" => batch_3d(&ctx),
        "batch_3d_old" => batch_3d_old(&ctx),
        _ => managed_batches(&ctx),
    }
}

/// The double reporting 12.8: 3D batches land, one call each; a refused and an empty batch make
/// none; the 13.0 batches are too new.
pub(crate) fn batch_3d(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let cube: Vec<f32> = (0..6 * 5 * 3u16).map(f32::from).collect();
    let plane: Vec<u32> = (0..9 * 4).map(|i| 500 + i).collect();
    let rows: Vec<u32> = (0..7 * 3).map(|i| 9_000 + i).collect();
    let mut a3 = guard.alloc_array_3d::<f32>(6, 5, 3)?;
    let mut a2 = guard.alloc_array::<u32>(9, 4)?;
    let mut p = guard.alloc_pitched::<u32>(7, 3)?;
    let (mut cube_back, mut plane_back, mut rows_back) = (
        vec![0f32; cube.len()],
        vec![0u32; plane.len()],
        vec![0u32; rows.len()],
    );
    calls(
        "an upload batch and a download batch",
        "cuMemcpy3DBatchAsync",
        2,
        false,
        || {
            stream.scope(|s| -> Result<()> {
                let (mut s3, mut s2, mut sp) = (
                    s.bind_array(&mut a3),
                    s.bind_array(&mut a2),
                    s.bind_pitched(&mut p),
                );
                let mut up = s.batch_3d();
                up.to_array(&mut s3, &cube)?
                    .to_array(&mut s2, &plane)?
                    .to_pitched(&mut sp, &rows)?;
                s.copy_3d_batch(up)?;
                let mut down = s.batch_3d();
                down.from_array(&mut cube_back, &s3)?
                    .from_array(&mut plane_back, &s2)?
                    .from_pitched(&mut rows_back, &sp)?;
                s.copy_3d_batch(down)
            })?
        },
    )?;
    if cube_back != cube || plane_back != plane || rows_back != rows {
        return Err(unexpected("a batched 3D copy did not land"));
    }
    if a3.to_vec()? != cube || a2.to_vec()? != plane || p.to_vec()? != rows {
        return Err(unexpected(
            "a batched 3D copy differs from the synchronous read",
        ));
    }
    let mut out = vec![0u32; 36];
    let refused = calls(
        "a refused and an empty 3D batch",
        "cuMemcpy3DBatchAsync",
        0,
        false,
        || {
            stream.scope(|s| {
                let sa = s.bind_array(&mut a2);
                let dst = s.bind_host_mut(&mut out[..]);
                let mut twice = s.batch_3d();
                twice.from_array(dst, &sa)?.from_array(dst, &sa)?;
                let twice = s.copy_3d_batch(twice).map_err(|e| e.kind());
                s.copy_3d_batch(s.batch_3d())?;
                Ok::<_, custack::Error>(twice)
            })?
        },
    )?;
    if refused != Err(ErrorKind::InvalidValue) || out != vec![0; 36] {
        return Err(unexpected(
            "a 3D batch custack must refuse reached the driver",
        ));
    }
    managed_too_new(&guard)
}

/// On 12.8 every managed batch is `DriverTooOld` naming its call and 13.0, no call made.
fn managed_too_new(guard: &custack::PushedGuard<'_, '_>) -> Result<()> {
    let stream = guard.stream()?;
    let mut m = guard.alloc_managed::<u32>(1024)?;
    let kinds = {
        stream.scope(|s| {
            let mut d = s.bind_mut(&mut m);
            let mut pre = s.prefetch_batch();
            pre.add(&d, Location::Host);
            let pre = s.prefetch_all(pre);
            let mut gone = s.discard_batch();
            gone.add(&mut d);
            let gone = s.discard_all(gone);
            let mut both = s.discard_batch();
            both.add(&mut d);
            let both = s.discard_and_prefetch_all(both, Location::Host);
            Ok::<_, custack::Error>([pre, gone, both])
        })??
    };
    let names = [
        "cuMemPrefetchBatchAsync",
        "cuMemDiscardBatchAsync",
        "cuMemDiscardAndPrefetchBatchAsync",
    ];
    for (r, name) in kinds.into_iter().zip(names) {
        match r {
            Err(e)
                if e.kind() == ErrorKind::DriverTooOld
                    && e.to_string()
                        .contains(&format!("{name} needs driver ≥ 13.0")) => {}
            Err(e) => return Err(e),
            Ok(()) => return Err(unexpected("a CUDA 13.0 batch ran on driver 12.8")),
        }
    }
    if crate::double::calls_seen(|n| names.iter().any(|x| x.as_bytes() == n)) != 0 {
        return Err(unexpected("a managed batch reached the driver on 12.8"));
    }
    Ok(())
}

/// The double reporting 12.7: a 3D batch is `DriverTooOld` naming 12.8, no call made.
pub(crate) fn batch_3d_old(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let stream = guard.stream()?;
    let mut a = guard.alloc_array::<u32>(4, 4)?;
    let host = [1u32; 16];
    let e = calls(
        "a 3D batch on driver 12.7",
        "cuMemcpy3DBatchAsync",
        0,
        false,
        || {
            stream.scope(|s| {
                let mut sa = s.bind_array(&mut a);
                let mut batch = s.batch_3d();
                batch.to_array(&mut sa, &host)?;
                Ok::<_, custack::Error>(s.copy_3d_batch(batch))
            })?
        },
    )?;
    match e {
        Err(e)
            if e.kind() == ErrorKind::DriverTooOld
                && e.to_string()
                    .contains("cuMemcpy3DBatchAsync needs driver ≥ 12.8") =>
        {
            Ok(())
        }
        Err(e) => Err(e),
        Ok(()) => Err(unexpected("a 3D batch ran on driver 12.7")),
    }
}

/// The double reporting 13.0: prefetch, discard and discard-and-prefetch batches, one call
/// each; discarded memory reads as the double's unspecified bytes (0xdb) until rewritten.
pub(crate) fn managed_batches(ctx: &Context) -> Result<()> {
    const N: usize = 4096;
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let device = guard.device()?;
    let stream = guard.stream()?;
    let mut bufs = Vec::new();
    for i in 0..3u32 {
        let mut b = guard.alloc_managed::<u32>(N)?;
        b.fill(i + 1);
        bufs.push(b);
    }
    calls(
        "one prefetch batch",
        "cuMemPrefetchBatchAsync",
        1,
        false,
        || {
            stream.scope(|s| -> Result<()> {
                let mut batch = s.prefetch_batch();
                batch
                    .add(s.bind(&bufs[0]), Location::Device(device))
                    .add(s.bind(&bufs[1]), Location::Device(device))
                    .add(s.bind(&bufs[2]), Location::Host);
                s.prefetch_all(batch)
            })?
        },
    )?;
    for (i, b) in (1u32..).zip(&bufs) {
        if b.iter().any(|&x| x != i) {
            return Err(unexpected("a prefetch changed the contents"));
        }
    }
    let (first, rest) = bufs.split_at_mut(1);
    calls(
        "one discard batch",
        "cuMemDiscardBatchAsync",
        1,
        false,
        || {
            stream.scope(|s| -> Result<()> {
                let mut gone = s.discard_batch();
                gone.add(s.bind_mut(&mut first[0]));
                s.discard_all(gone)
            })?
        },
    )?;
    // The double writes 0xdb over what it discards; a real driver leaves any values (the
    // interposer of the differential run has no `custackCheckdriverLeftBehind`).
    let on_the_double =
        crate::double::checkdriver_extension(c"custackCheckdriverLeftBehind").is_ok();
    if on_the_double && first[0].iter().any(|&x| x != 0xdbdb_dbdb) {
        return Err(unexpected(
            "discarded memory did not read as unspecified on the double",
        ));
    }
    let fresh = vec![77u32; N];
    calls(
        "one discard-and-prefetch batch",
        "cuMemDiscardAndPrefetchBatchAsync",
        1,
        false,
        || {
            stream.scope(|s| -> Result<()> {
                let mut d = s.bind_mut(&mut rest[0]);
                let mut gone = s.discard_batch();
                gone.add(&mut d);
                s.discard_and_prefetch_all(gone, Location::Device(device))?;
                s.copy_to_device(&mut d, &fresh)
            })?
        },
    )?;
    if rest[0].iter().any(|&x| x != 77) || rest[1].iter().any(|&x| x != 3) {
        return Err(unexpected(
            "a rewritten or untouched buffer has the wrong values",
        ));
    }
    let twice = calls(
        "a prefetch batch naming one range twice",
        "cuMemPrefetchBatchAsync",
        0,
        false,
        || {
            stream.scope(|s| {
                let r = s.bind(&bufs[2]);
                let mut batch = s.prefetch_batch();
                batch.add(r, Location::Host).add(r, Location::Host);
                Ok::<_, custack::Error>(s.prefetch_all(batch).map_err(|e| e.kind()))
            })?
        },
    )?;
    if twice != Err(ErrorKind::InvalidValue) {
        return Err(unexpected("overlapping prefetch ranges reached the driver"));
    }
    Ok(())
}
