//! Batched copies on a real device (`StreamScope::copy_batch`, `cuMemcpyBatchAsync`, C29, R27):
//! many copies of different sizes in one call, every direction, values read back, and the
//! refusal of overlapping destinations before the driver runs anything. They need driver 12.8
//! or newer (they fail on an older one, naming the version, as they fail without a device).
mod common;
use common::context;
use custack::{DeviceMemory, ErrorKind, Stack, Version};

/// Driver 12.8 at least, or the test fails saying why (never passes without the entry point).
fn needs_12_8() {
    let v = custack::driver_version().expect("needs a CUDA driver");
    assert!(
        v >= Version {
            major: 12,
            minor: 8
        },
        "cuMemcpyBatchAsync needs driver ≥ 12.8; this driver is {v}"
    );
}

/// The element count of copy `i` of 64: sizes from 1 to 4,033 elements, all different.
fn len_of(i: usize) -> usize {
    1 + i * i
}

#[test]
#[ignore = "needs a CUDA device"]
fn sixty_four_host_to_device_copies_of_different_sizes_run_as_one_batch() {
    let ctx = context();
    needs_12_8();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    // Pageable sources for the even copies, page-locked for the odd ones.
    let sources: Vec<Vec<u32>> = (0..64)
        .map(|i| (0..len_of(i)).map(|k| (i * 10_000 + k) as u32).collect())
        .collect();
    let mut pinned = Vec::new();
    for (i, s) in sources.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
        let mut p = guard.alloc_pinned::<u32>(s.len()).unwrap();
        p.copy_from_slice(s);
        pinned.push((i, p));
    }
    let mut devs: Vec<_> = (0..64)
        .map(|i| guard.alloc_zeroed::<u32>(len_of(i)).unwrap())
        .collect();
    stream
        .scope(|s| -> custack::Result<()> {
            let mut batch = s.batch();
            let mut pinned_at = pinned.iter();
            for (i, d) in devs.iter_mut().enumerate() {
                if i % 2 == 0 {
                    batch.to_device(s.bind_mut(d), &sources[i][..])?;
                } else {
                    let (_, p) = pinned_at.next().expect("a pinned source per odd copy");
                    batch.to_device(s.bind_mut(d), &p[..])?;
                }
            }
            assert_eq!(batch.len(), 64);
            s.copy_batch(batch)
        })
        .unwrap()
        .unwrap();
    for (i, d) in devs.iter().enumerate() {
        assert_eq!(d.len(), len_of(i));
        assert_eq!(d.to_vec().unwrap(), sources[i], "copy {i}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_device_to_device_batch_then_a_device_to_host_batch_copy_every_value() {
    let ctx = context();
    needs_12_8();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let lens = [1usize, 7, 256, 1000, 4096, 65_537];
    let srcs: Vec<_> = lens
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let v: Vec<u64> = (0..n as u64).map(|k| k * 3 + i as u64).collect();
            guard.alloc_from(&v).unwrap()
        })
        .collect();
    let mut mids: Vec<_> = lens
        .iter()
        .map(|&n| guard.alloc_zeroed::<u64>(n).unwrap())
        .collect();
    let mut outs: Vec<Vec<u64>> = lens.iter().map(|&n| vec![0; n]).collect();
    stream
        .scope(|s| -> custack::Result<()> {
            let mut mids: Vec<_> = mids.iter_mut().map(|m| s.bind_mut(m)).collect();
            let mut across = s.batch();
            for (m, src) in mids.iter_mut().zip(&srcs) {
                across.device(m, s.bind(src))?;
            }
            s.copy_batch(across)?;
            let mut down = s.batch();
            for (out, m) in outs.iter_mut().zip(&mids) {
                down.to_host(&mut out[..], m)?;
            }
            s.copy_batch(down)
        })
        .unwrap()
        .unwrap();
    for (i, out) in outs.iter().enumerate() {
        let want: Vec<u64> = (0..lens[i] as u64).map(|k| k * 3 + i as u64).collect();
        assert_eq!(*out, want, "copy {i}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn overlapping_destinations_are_refused_and_nothing_is_copied() {
    let ctx = context();
    needs_12_8();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let a = guard.alloc_from(&[1u32; 512]).unwrap();
    let b = guard.alloc_from(&[2u32; 512]).unwrap();
    let mut out = vec![0u32; 512];
    let mut dev = guard.alloc_from(&[9u32; 512]).unwrap();
    let host = vec![5u32; 512];
    let mut other = guard.alloc_zeroed::<u32>(512).unwrap();
    let (refused, overlapping_source) = stream
        .scope(|s| {
            // One host destination twice (`ScopedHostMut` is `Copy`).
            let dst = s.bind_host_mut(&mut out[..]);
            let mut batch = s.batch();
            batch.to_host(dst, s.bind(&a)).unwrap();
            batch.to_host(dst, s.bind(&b)).unwrap();
            let refused = s.copy_batch(batch).unwrap_err();
            // A host destination that another copy of the batch reads (a `ScopedHostMut`
            // converts into a `ScopedHost`). Device sides cannot overlap: the batch borrows
            // them, so `&mut` and `&` of one binding in one batch do not compile (C29).
            let mut d = s.bind_mut(&mut dev);
            let mut o = s.bind_mut(&mut other);
            let mut batch = s.batch();
            batch.to_device(&mut d, &host).unwrap();
            batch.to_host(dst, s.bind(&a)).unwrap();
            batch.to_device(&mut o, dst).unwrap();
            let overlapping_source = s.copy_batch(batch).unwrap_err();
            (refused, overlapping_source)
        })
        .unwrap();
    for e in [&refused, &overlapping_source] {
        assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
        assert!(e.to_string().contains("nothing was enqueued"), "{e}");
    }
    assert!(
        overlapping_source
            .to_string()
            .contains("the destination of copy 1 (host"),
        "{overlapping_source}"
    );
    assert!(
        overlapping_source
            .to_string()
            .contains("overlaps the source of copy 2 (host"),
        "{overlapping_source}"
    );
    // Nothing ran: the host destination and the device one are as they were.
    assert_eq!(out, vec![0; 512]);
    assert_eq!(dev.to_vec().unwrap(), vec![9; 512]);
    assert_eq!(other.to_vec().unwrap(), vec![0; 512]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_length_mismatch_is_refused_as_the_copy_is_added() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let mut dev = guard.alloc_zeroed::<u32>(16).unwrap();
    let host = vec![1u32; 17];
    let e = stream
        .scope(|s| {
            let mut batch = s.batch();
            let e = batch.to_device(s.bind_mut(&mut dev), &host).unwrap_err();
            assert!(batch.is_empty());
            e
        })
        .unwrap();
    assert_eq!(e.kind(), ErrorKind::LengthMismatch, "{e}");
    assert_eq!(dev.to_vec().unwrap(), vec![0; 16]);
}
