//! Modules and launches on a real device: vector addition end to end, events, R5.
#![allow(
    clippy::many_single_char_names,
    clippy::items_after_statements,
    clippy::cast_precision_loss
)]
mod common;
use common::{KERNELS, context};
use custack::prelude::*;
use custack::{ErrorKind, EventFlags, LaunchConfig, Stack};

#[test]
#[ignore = "needs a CUDA device"]
fn vector_add_end_to_end() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let f = module.function("vector_add").unwrap();
    assert!(f.max_threads_per_block().unwrap() >= 256);
    let stream = guard.stream().unwrap();
    const N: usize = 100_003; // not a multiple of the block size
    let a: Vec<f32> = (0..N).map(|i| f32::from((i % 1000) as u16)).collect();
    let b: Vec<f32> = (0..N).map(|i| 0.5 * f32::from((i % 77) as u16)).collect();
    let (mut da, mut db, mut dc) = (
        guard.alloc::<f32>(N).unwrap(),
        guard.alloc::<f32>(N).unwrap(),
        guard.alloc::<f32>(N).unwrap(),
    );
    let mut c = vec![0f32; N];
    let (start, end) = (
        guard.event(EventFlags::empty()).unwrap(),
        guard.event(EventFlags::empty()).unwrap(),
    );
    stream
        .scope(|s| {
            let (mut da, mut db, mut dc) = (
                s.bind_mut(&mut da),
                s.bind_mut(&mut db),
                s.bind_mut(&mut dc),
            );
            s.copy_to_device(&mut da, &a).unwrap();
            s.copy_to_device(&mut db, &b).unwrap();
            s.record(&start).unwrap();
            // SAFETY: vector_add(const float*, const float*, float*, unsigned n) touches n elements of each.
            unsafe {
                s.launch(
                    &f,
                    LaunchConfig::for_elements(N as u32),
                    (&da, &db, &mut dc, N as u32),
                )
                .unwrap();
            };
            s.record(&end).unwrap();
            s.copy_to_host(&mut c, &dc).unwrap();
        })
        .unwrap();
    let wrong = c
        .iter()
        .zip(a.iter().zip(&b))
        .filter(|(c, (a, b))| c.to_bits() != (*a + *b).to_bits())
        .count();
    assert_eq!(wrong, 0);
    assert!(start.is_complete().unwrap() && end.is_complete().unwrap());
    end.synchronize().unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    assert!(ms >= 0.0);
}

#[test]
#[ignore = "needs a CUDA device"]
fn several_launches_on_one_bound_buffer_run_in_stream_order() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    let mut x = guard.alloc_zeroed::<u32>(4096).unwrap();
    stream
        .scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            for k in 1..=100u32 {
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
                unsafe {
                    s.launch(
                        &add,
                        LaunchConfig::for_elements(4096),
                        (&mut dx, k, 4096u32),
                    )
                    .unwrap();
                };
            }
        })
        .unwrap();
    assert!(x.to_vec().unwrap().iter().all(|&v| v == 5050));
}

/// R5: invalid PTX carries the JIT log; a missing function carries its name.
#[test]
#[ignore = "needs a CUDA device"]
fn r5_bad_modules_and_names_are_errors_with_details() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let bad = ".version 6.0\n.target sm_50\n.address_size 64\n.visible .entry broken() { bogus.instruction; ret; }\n";
    let err = guard.load_ptx(bad).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidPtx | ErrorKind::InvalidImage),
        "{err}"
    );
    let log = err.detail().expect("a JIT error log");
    assert!(
        log.contains("bogus"),
        "JIT log does not mention the bad instruction: {log}"
    );
    assert!(err.to_string().contains("bogus"));

    let err = guard.load_ptx("").unwrap_err();
    assert!(err.code().is_some(), "{err}");
    assert_eq!(
        guard.load_ptx("a\0b").unwrap_err().kind(),
        ErrorKind::NulInName
    );

    let module = guard.load_ptx(KERNELS).unwrap();
    let err = module.function("no_such_kernel").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(err.to_string().contains("no_such_kernel"), "{err}");
    assert_eq!(
        module.function("vector\0add").unwrap_err().kind(),
        ErrorKind::NulInName
    );
    assert_eq!(
        module.global_address("nothing").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    // SAFETY: the image is rejected by custack's header check before the driver sees it.
    let err = unsafe { guard.load_cubin(b"\x7fELF\x02short") }.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidImage);
    // SAFETY: as above.
    let err = unsafe { guard.load_fatbin(&[0u8; 8]) }.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidImage);
    module.unload().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn launch_errors_leave_the_context_usable() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let empty = module.function("empty").unwrap();
    let stream = guard.stream().unwrap();
    let too_big = LaunchConfig {
        grid: (1, 1, 1),
        block: (4096, 1, 1),
        shared_mem_bytes: 0,
    };
    let too_much_shared = LaunchConfig::for_elements(1).with_shared_mem(1 << 30);
    stream
        .scope(|s| {
            // SAFETY: `empty` takes no arguments.
            let e = unsafe { s.launch(&empty, too_big, ()) }.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
            // SAFETY: as above.
            let e = unsafe { s.launch(&empty, too_much_shared, ()) }.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
            // SAFETY: as above.
            unsafe { s.launch(&empty, LaunchConfig::for_elements(1), ()) }.unwrap();
        })
        .unwrap();
    guard.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn module_globals_are_typed_views() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let mut module = guard.load_ptx(KERNELS).unwrap();
    module
        .global_mut::<u32>("counters")
        .unwrap()
        .copy_from_host(&[0, 7, 8, 9])
        .unwrap();
    assert_eq!(module.global::<u32>("counters").unwrap().len(), 4);
    assert_eq!(module.global::<u64>("counters").unwrap().len(), 2);
    assert_eq!(
        module.global::<[u8; 3]>("counters").unwrap_err().kind(),
        ErrorKind::LengthMismatch
    );
    let (_, bytes) = module.global_address("counters").unwrap();
    assert_eq!(bytes, 16);
    let count = module.function("count_threads").unwrap();
    let stream = guard.stream().unwrap();
    stream
        .scope(|s| {
            // SAFETY: count_threads() takes no arguments and adds 1 to counters[0] per thread.
            unsafe { s.launch(&count, LaunchConfig::for_elements(1000), ()) }.unwrap();
        })
        .unwrap();
    // for_elements(1000) launches 4 blocks of 256 threads: 1024 threads.
    assert_eq!(
        module.global::<u32>("counters").unwrap().to_vec().unwrap(),
        [1024, 7, 8, 9]
    );
}

/// A block with more threads than the kernel's register use allows is refused with
/// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`, which is not sticky: the context keeps working.
#[test]
#[ignore = "needs a CUDA device"]
fn launch_out_of_resources_is_an_error_and_the_context_keeps_working() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let hog = module.function("register_hog").unwrap();
    let regs = hog
        .attribute(custack::ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
        .unwrap();
    let max_threads = hog.max_threads_per_block().unwrap();
    println!("register_hog: {regs} registers per thread, at most {max_threads} threads per block");
    assert!(
        max_threads < 1024,
        "the fixture must need more registers than 1024 threads can have"
    );
    let values: Vec<u32> = (1..=128).collect();
    let mut x = guard.alloc_from(&values).unwrap();
    let stream = guard.stream().unwrap();
    stream
        .scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            let too_many = LaunchConfig {
                grid: (1, 1, 1),
                block: (1024, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: register_hog(unsigned* x) reads x[0..128) and thread 0 writes x[0].
            let err = unsafe { s.launch(&hog, too_many, (&mut dx,)) }.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::LaunchOutOfResources, "{err}");
            assert!(!err.is_sticky());
            let fits = LaunchConfig {
                grid: (1, 1, 1),
                block: (max_threads, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: as above.
            unsafe { s.launch(&hog, fits, (&mut dx,)) }.unwrap();
        })
        .unwrap();
    let sum = values.iter().fold(0u32, |a, v| a.wrapping_add(*v));
    let xor = values.iter().fold(0u32, |a, v| a ^ v);
    assert_eq!(x.to_vec().unwrap()[0], sum ^ xor);
}

#[test]
#[ignore = "needs a CUDA device"]
fn kernels_with_checked_signatures() {
    use custack::{DevicePtr, ErrorKind, LaunchConfig, Stack};
    let ctx = common::context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(common::KERNELS).unwrap();
    let add = module
        .kernel::<(DevicePtr<u32>, u32, u32)>("add_u32")
        .unwrap();
    module
        .kernel::<(DevicePtr<f32>, DevicePtr<f32>, DevicePtr<f32>, u32)>("vector_add")
        .unwrap();
    module.kernel::<()>("empty").unwrap();
    let e = module
        .kernel::<(DevicePtr<u32>, u32)>("add_u32")
        .map(drop)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
    println!("{e}");
    let e = module
        .kernel::<(DevicePtr<u32>, u64, u32)>("add_u32")
        .map(drop)
        .unwrap_err();
    assert!(e.to_string().contains("parameter 1"), "{e}");
    // Launched in a scope and, owned, in a submission.
    let stream = guard.stream().unwrap();
    let mut x = guard.alloc_zeroed::<u32>(1000).unwrap();
    stream
        .scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            // SAFETY: add_u32 adds k to x[0..n), and x holds n elements.
            unsafe {
                s.launch_kernel(
                    &add,
                    LaunchConfig::for_elements(1000),
                    (&mut dx, 2u32, 1000u32),
                )
            }
        })
        .unwrap()
        .unwrap();
    let (x, _) = stream
        .submit((x, add), |s, (mut x, add)| {
            // SAFETY: as above.
            unsafe {
                s.launch_kernel(
                    &add,
                    LaunchConfig::for_elements(1000),
                    (&mut x, 3u32, 1000u32),
                )
            }
        })
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![5; 1000]);
}

#[test]
#[ignore = "needs a CUDA device"]
#[allow(clippy::too_many_lines)] // one device session through every launch option
fn attributes_occupancy_clusters_and_cooperative_launches() {
    use custack::{ErrorKind, LaunchAttributes, LaunchConfig, Stack};
    let ctx = common::context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(common::KERNELS).unwrap();
    let add = module.function("add_u32").unwrap();
    let empty = module.function("empty").unwrap();
    let attrs = add.attributes().unwrap();
    println!("add_u32: {attrs:?}");
    assert!(attrs.registers_per_thread > 0);
    assert_eq!(attrs.ptx_version, 50); // the fixtures target the sm_50 virtual architecture
    let cc = guard.device().unwrap().compute_capability().unwrap();
    assert_eq!(attrs.binary_version, cc.major * 10 + cc.minor);

    // Dynamic shared memory above 48 KiB needs the attribute first.
    let stream = guard.stream().unwrap();
    let big = LaunchConfig::for_elements(1).with_shared_mem(64 << 10);
    // SAFETY: `empty()` takes no parameters and touches nothing.
    let refused = stream
        .scope(|s| unsafe { s.launch(&empty, big, ()) })
        .unwrap();
    assert_eq!(refused.unwrap_err().kind(), ErrorKind::InvalidValue);
    empty.set_max_dynamic_shared_mem(64 << 10).unwrap();
    assert_eq!(
        empty.attributes().unwrap().max_dynamic_shared_bytes,
        64 << 10
    );
    // SAFETY: as above.
    stream
        .scope(|s| unsafe { s.launch(&empty, big, ()) })
        .unwrap()
        .unwrap();
    empty.set_preferred_shared_carveout(50).unwrap();
    empty
        .set_cache_config(custack::CacheConfig::PreferShared)
        .unwrap();

    // Occupancy.
    let per_sm = add.max_active_blocks_per_sm(256, 0).unwrap();
    let (min_grid, block) = add.suggested_block_size(0).unwrap();
    let (_, block_with) = add.suggested_block_size_with(&|b| b as usize * 16).unwrap();
    println!(
        "add_u32: {per_sm} blocks of 256 per SM; suggested {block} ({min_grid} blocks), {block_with} with 16 B/thread"
    );
    assert!(per_sm >= 1 && (1..=1024).contains(&block) && (1..=1024).contains(&block_with));
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        add.suggested_block_size_with(&|_| panic!("in the occupancy callback"))
    }));
    assert!(
        panicked.is_err(),
        "the callback's panic is carried on after the driver returns"
    );

    // Thread-block clusters (compute capability 9.0).
    if cc.major >= 9 {
        let cluster_module = guard
            .load_ptx(include_str!("fixtures/cluster.ptx"))
            .unwrap();
        let ids = cluster_module.function("cluster_ids").unwrap();
        let out = guard.alloc_zeroed::<[u32; 2]>(8).unwrap();
        let cfg = LaunchConfig {
            grid: (8, 1, 1),
            block: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        let attrs = LaunchAttributes {
            cluster: Some((2, 1, 1)),
            priority: Some(0),
            ..Default::default()
        };
        let (out, _, host) = stream
            .submit((out, ids, vec![[0u32; 2]; 8]), |s, (mut out, ids, host)| {
                // SAFETY: cluster_ids(uint2* out) writes out[0..grid).
                unsafe { s.launch_with(&ids, cfg, &attrs, (&mut out,)) }?;
                s.copy_to_host(host, &out)
            })
            .unwrap()
            .wait()
            .unwrap();
        drop(out);
        let expected: Vec<[u32; 2]> = (0..8).map(|b| [b % 2, b / 2]).collect();
        assert_eq!(host, expected, "(rank in cluster, cluster) per block");
        // Programmatic stream serialization: two launches in a row that allow it (kernels
        // without `griddepcontrol` behave as ordinary ones).
        let pss = LaunchAttributes {
            programmatic_serialization: true,
            ..Default::default()
        };
        stream
            .scope(|s| {
                // SAFETY: `empty()` takes no parameters.
                unsafe { s.launch_with(&empty, cfg, &pss, ()) }?;
                // SAFETY: as above.
                unsafe { s.launch_with(&empty, cfg, &pss, ()) }
            })
            .unwrap()
            .unwrap();
        // A cluster that does not divide the grid is refused.
        let odd = LaunchAttributes {
            cluster: Some((3, 1, 1)),
            ..Default::default()
        };
        // SAFETY: `empty()` takes no parameters.
        let r = stream
            .scope(|s| unsafe { s.launch_with(&empty, cfg, &odd, ()) })
            .unwrap();
        assert!(r.is_err());
    }

    // Cooperative launches: checked against the device before launching.
    let cfg = LaunchConfig::for_elements_with_block(256 * 4, 256);
    // SAFETY: `empty()` takes no parameters.
    stream
        .scope(|s| unsafe { s.launch_cooperative(&empty, cfg, ()) })
        .unwrap()
        .unwrap();
    let too_many = LaunchConfig {
        grid: (1 << 20, 1, 1),
        block: (1024, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: as above; refused before the driver is asked.
    let err = stream
        .scope(|s| unsafe { s.launch_cooperative(&empty, too_many, ()) })
        .unwrap()
        .unwrap_err();
    println!("{err}");
    assert_eq!(err.kind(), ErrorKind::CooperativeLaunchTooLarge);
}
