//! Virtual memory across devices (NVIDIA's `vectorAddMMAP`): one address
//! range striped over the physical memory of every device (up to two), mapped readable and
//! writable for all of them, released right after mapping, and read and written by a kernel on
//! each device through the same pointer, with no peer copy.
//!
//! On a machine with one GPU the same program runs on one device (both contexts on device 0):
//! the one-device path. Run it on two GPUs (`nvidia-h200-x2`) for the striped path; it prints
//! which one it took.
mod common;
use common::KERNELS;
use custack::{
    Access, Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, ErrorKind, LaunchConfig,
    Stack, StackTop,
};

/// Adds `k` to every element of `mapping` with a kernel on `ctx`'s device, through the pointer
/// the mapping has in every context.
fn add_on(
    stack: &mut Stack,
    ctx: &Context,
    mapping: &mut custack::MultiDeviceMapping<'_, u32>,
    k: u32,
) -> custack::Result<()> {
    stack.with_pushed(ctx, |guard| -> custack::Result<()> {
        let module = guard.load_ptx(KERNELS)?;
        let add = module.function("add_u32")?;
        let mut view = guard.lend_mut(mapping)?;
        let n = view.len() as u32;
        guard.stream()?.scope(|s| {
            // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`;
            // the view holds `n` elements, mapped read-write for this device.
            unsafe {
                s.launch(
                    &add,
                    LaunchConfig::for_elements(n),
                    (s.bind_mut(&mut view), k, n),
                )
            }
        })?
    })?
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_vector_striped_over_every_device_is_written_by_a_kernel_on_each() {
    let driver = Driver::init().expect("needs a CUDA device: Driver::init failed");
    let all = driver.devices().unwrap();
    assert!(!all.is_empty(), "needs a CUDA device");
    let devices: Vec<_> = all.iter().copied().take(2).collect();
    // One context per device; on one GPU, two contexts of device 0.
    let ctx0 = Context::new(devices[0], ContextFlags::empty()).unwrap();
    let ctx1 = Context::new(*devices.last().unwrap(), ContextFlags::empty()).unwrap();
    if devices.len() == 2 {
        assert!(
            devices[0].can_access_peer(devices[1]).unwrap()
                && devices[1].can_access_peer(devices[0]).unwrap(),
            "the two devices cannot access each other's memory"
        );
    }
    let mut stack = Stack::new().unwrap();

    // Four pieces, piece i on device i % n, one range; every device reads and writes all of it.
    let (space, pieces, g) = stack
        .with_pushed(&ctx0, |guard| -> custack::Result<_> {
            let g = devices
                .iter()
                .map(|&d| guard.granularity_on(d))
                .try_fold(1usize, |m, g| g.map(|g| m.max(g)))?;
            let pieces = (0..4)
                .map(|i| guard.create_physical_on(devices[i % devices.len()], g))
                .collect::<custack::Result<Vec<_>>>()?;
            Ok((guard.reserve_multi_device(4 * g)?, pieces, g))
        })
        .unwrap()
        .unwrap();
    let homes: Vec<_> = pieces
        .iter()
        .map(custack::MultiDevicePhysicalMemory::device)
        .collect();
    let access: Vec<_> = devices.iter().map(|&d| (d, Access::ReadWrite)).collect();
    let mut striped = space.map_owned::<u32>(0, pieces, &access).unwrap();
    assert_eq!(striped.byte_len(), 4 * g);
    let n = striped.len();

    // Fill from device 0, add 1 on device 0 and 2 on the last device: every element, whatever
    // device holds it, is read and written by both.
    let start: Vec<u32> = (0..n as u32).collect();
    stack
        .with_pushed(&ctx0, |guard| {
            guard.lend_mut(&mut striped)?.copy_from_host(&start)
        })
        .unwrap()
        .unwrap();
    add_on(&mut stack, &ctx0, &mut striped, 1).unwrap();
    add_on(&mut stack, &ctx1, &mut striped, 2).unwrap();
    let back = stack
        .with_pushed(&ctx1, |guard| guard.lend(&striped)?.to_vec())
        .unwrap()
        .unwrap();
    let expected: Vec<u32> = start.iter().map(|x| x + 3).collect();
    assert_eq!(
        back, expected,
        "every element + 1 (device 0) + 2 (the last device)"
    );
    println!(
        "{} device(s): {n} u32 striped over pieces on devices {:?}, one pointer {:#x}",
        devices.len(),
        homes.iter().map(|d| d.as_raw()).collect::<Vec<_>>(),
        striped.device_ptr()
    );

    // A read-only mapping of new memory for the last device only: device 0 may not lend it.
    let (second, mut table) = stack
        .with_pushed(&ctx0, |guard| -> custack::Result<_> {
            Ok((
                guard.reserve_multi_device(g)?,
                guard.create_physical_on(devices[0], g)?,
            ))
        })
        .unwrap()
        .unwrap();
    {
        let mut writer = second
            .map::<u32>(0, [&mut table], &[(devices[0], Access::ReadWrite)])
            .unwrap();
        stack
            .with_pushed(&ctx0, |guard| guard.lend_mut(&mut writer)?.fill_u32(9))
            .unwrap()
            .unwrap();
        let refused = stack
            .with_pushed(&ctx1, |guard| guard.lend_mut(&mut writer).map(drop))
            .unwrap();
        if devices.len() == 2 {
            assert_eq!(refused.unwrap_err().kind(), ErrorKind::PeerAccessNotEnabled);
        }
    }
    let last = *devices.last().unwrap();
    let reader = second.map_read_only::<u32>(0, &[&table], &[last]).unwrap();
    let read = stack
        .with_pushed(&ctx1, |guard| guard.lend_read_only(&reader)?.to_vec())
        .unwrap()
        .unwrap();
    assert!(read.iter().all(|&x| x == 9));
    drop(reader);
    drop(striped);
}

#[test]
#[ignore = "needs a CUDA device"]
fn one_device_map_owned_releases_at_once() {
    let ctx = common::context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let g = guard.allocation_granularity().unwrap();
    let space = guard.reserve(2 * g).unwrap();
    let pieces = vec![
        guard.create_physical(g).unwrap(),
        guard.create_physical(g).unwrap(),
    ];
    let mut mapping = space.map_owned::<u32, _>(&guard, pieces).unwrap();
    mapping.fill_u32(4).unwrap();
    assert!(mapping.to_vec().unwrap().iter().all(|&x| x == 4));
    // Mapping pieces past the end of a multi-device reservation is refused before any driver call.
    let peers = guard.reserve_multi_device(g).unwrap();
    let mut p = guard
        .create_physical_on(guard.device().unwrap(), g)
        .unwrap();
    let err = peers
        .map::<u32>(g, [&mut p], &[(guard.device().unwrap(), Access::ReadWrite)])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfRange);
}
