//! The program `contracts` (C23, P10, R12, R13, R14): kernel contracts, every shape launched safely
//! in a scope, a submission and a graph capture; a buffer one element short and an overflowing
//! extent refused with no launch reaching the driver (R12); a declaration that disagrees with the
//! PTX refused at lookup (R13); a precondition that does not hold refused (R14). The positive twin
//! of `ui-tests/c23_*.rs` (`run_cooperative`, `run_clustered`, the extent `(n + 1)`).

use crate::common::{KERNELS, N, N32, refused};
use crate::double::launches_seen;
use crate::kernels::{
    AddU32, AddU32Wide, CONTRACT_KERNELS, ClusterIds, CountThreads, FillRows, Index2d, Iota,
    IotaClauses, IotaCooperative, RowOffsets, ScaleU32, ScaleU32Strict,
};
use custack::{Context, DeviceMemory, Driver, LaunchConfig, Result, Stack, StandIn};

/// `index_2d` on the CPU, indexing exactly as the kernel does, past the buffer too if a launch
/// let it: the checking driver then reports the write outside its allocation.
fn index_2d_on_cpu(
    call: &custack::KernelCall<'_>,
) -> core::result::Result<(), custack::StandInError> {
    let (out, width) = (call.arg::<u64>(0)?, u64::from(call.arg::<u32>(1)?));
    let (grid, block) = (call.grid(), call.block());
    let threads = |axis: usize| u64::from(grid[axis]) * u64::from(block[axis]);
    for _layer in 0..threads(2) {
        for y in 0..threads(1) {
            let row: Vec<u32> = (0..threads(0)).map(|x| (y * width + x) as u32).collect();
            call.write(out + 4 * y * width, &row)?;
        }
    }
    Ok(())
}

#[allow(
    clippy::too_many_lines,
    reason = "a checking scenario, its steps read top to bottom"
)]
pub(crate) fn contracts(ctx: &Context) -> Result<Vec<u32>> {
    use custack::{CheckedBy, ErrorKind};
    launches_seen(); // counting on
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let module = guard.load_ptx(KERNELS)?;
    let shapes = guard.load_ptx(CONTRACT_KERNELS)?;
    let add = module.declared::<AddU32>()?;
    // The double is driver 12.2, without cuFuncGetParamInfo: checked against the PTX.
    assert_eq!(add.checked_by(), CheckedBy::Ptx);
    match module.declared::<AddU32Wide>() {
        Err(e) if e.kind() == ErrorKind::KernelSignatureMismatch => {
            assert!(e.to_string().contains("parameter 1 `k`"), "{e}");
        }
        Err(e) => return Err(e),
        Ok(_) => panic!("a declaration disagreeing with the PTX was accepted"),
    }
    let scale = shapes.declared::<ScaleU32>()?;
    let strict = shapes.declared::<ScaleU32Strict>()?;
    let fill = shapes.declared::<FillRows>()?;
    let iota = shapes.declared::<Iota>()?;
    let iota_clauses = shapes.declared::<IotaClauses>()?;
    let iota_cooperative = shapes.declared::<IotaCooperative>()?;
    let row_offsets = shapes.declared::<RowOffsets>()?;
    let index_2d = shapes.declared::<Index2d>()?;
    // SAFETY: as the kernel, the stand-in writes out[y * width + x] for every launched thread.
    let _index_2d_on_cpu =
        unsafe { StandIn::register(&Driver::init()?, "index_2d", index_2d_on_cpu) }?;
    let mut rows2d = guard.alloc_zeroed::<u32>(96 * 7)?;
    let clusters = guard.load_ptx(include_str!("../../../../tests/fixtures/cluster.ptx"))?;
    let cluster_ids = clusters.declared::<ClusterIds>()?;
    let mut ids = guard.alloc_zeroed::<[u32; 2]>(8)?;
    let stream = guard.stream()?;
    let cfg = LaunchConfig::for_elements(N32);
    let mut x = guard.alloc_zeroed::<u32>(N)?;
    let mut grid = guard.alloc_zeroed::<u32>(1024)?;
    let mut image = guard.alloc_pitched::<u32>(100, 7)?;
    let pitch = image.pitch_bytes() as u64;
    stream.scope(|s| -> Result<()> {
        let mut dx = s.bind_mut(&mut x);
        let mut dg = s.bind_mut(&mut grid);
        let mut img = s.bind_pitched(&mut image);
        s.run(&add, cfg, (&mut dx, 1, N32))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&add, cfg, (&mut dx, 1, N32 + 1))
        });
        s.run(&scale, cfg, (&mut dx, 10, 100, 3))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&scale, cfg, (&mut dx, 10, 101, 3))
        });
        refused(ErrorKind::SizeOverflow, || {
            s.run(&strict, cfg, (&mut dx, u32::MAX, u32::MAX, u32::MAX))
        });
        let rows = LaunchConfig {
            grid: (1, 7, 1),
            block: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        s.run(&fill, rows, (&mut img, pitch, 100, 7, 9))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&fill, rows, (&mut img, pitch, 100, 8, 9))
        });
        s.run(&iota, LaunchConfig::for_elements(1024), (&mut dg,))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&iota, LaunchConfig::for_elements(1025), (&mut dg,))
        });
        let huge = LaunchConfig {
            grid: (u32::MAX, u32::MAX, u32::MAX),
            block: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        refused(ErrorKind::SizeOverflow, || s.run(&iota, huge, (&mut dg,)));
        let with_shared = LaunchConfig::for_elements(1024).with_shared_mem(1024);
        s.run(&iota_clauses, with_shared, (&mut dg,))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&iota_clauses, LaunchConfig::for_elements(1024), (&mut dg,))
        });
        let big_block = LaunchConfig::for_elements_with_block(1024, 512).with_shared_mem(2048);
        refused(ErrorKind::OutOfRange, || {
            s.run(&iota_clauses, big_block, (&mut dg,))
        });
        s.run_cooperative(
            &iota_cooperative,
            LaunchConfig::for_elements(1024),
            (&mut dg,),
        )?;
        refused(ErrorKind::OutOfRange, || {
            s.run_cooperative(&iota_cooperative, big_block, (&mut dg,))
        });
        // `(n + 1)` with n = 255u8 is 256 elements, computed in usize: in `u8` it would wrap to
        // 0 and pass any buffer. (scripts/check-driver.sh builds this program in the release
        // profile, where overflow checks are off.)
        let mut one = s.alloc::<u32>(1)?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(
                &row_offsets,
                LaunchConfig::for_elements(256),
                (&mut one, 255u8),
            )
        });
        s.run(
            &row_offsets,
            LaunchConfig::for_elements(256),
            (&mut dg, 255u8),
        )?;
        // Two axes: grid_y rows of `width`, while the grid's x threads fit a row (R14). The
        // stand-in writes where the kernel would: out of bounds, the checking driver says so.
        let mut r2 = s.bind_mut(&mut rows2d);
        let shape = |blocks_x, blocks_z| LaunchConfig {
            grid: (blocks_x, 7, blocks_z),
            block: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        s.run(&index_2d, shape(3, 1), (&mut r2, 96))?;
        refused(ErrorKind::PreconditionFailed, || {
            s.run(&index_2d, shape(4, 1), (&mut r2, 96))
        });
        refused(ErrorKind::PreconditionFailed, || {
            s.run(&index_2d, shape(3, 2), (&mut r2, 96))
        });
        refused(ErrorKind::PreconditionFailed, || {
            s.run(&index_2d, shape(3, 1), (&mut r2, 0))
        });
        refused(ErrorKind::BufferTooShort, || {
            s.run(&index_2d, shape(3, 1), (&mut r2, 97))
        });
        // A clustered kernel: launched in its clusters of 2; a grid of 7 blocks is refused.
        let mut di = s.bind_mut(&mut ids);
        let eight = LaunchConfig {
            grid: (8, 1, 1),
            block: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        s.run_clustered(&cluster_ids, eight, (&mut di,))?;
        let seven = LaunchConfig {
            grid: (7, 1, 1),
            ..eight
        };
        refused(ErrorKind::OutOfRange, || {
            s.run_clustered(&cluster_ids, seven, (&mut di,))
        });
        Ok(())
    })??;
    // Whenever every call succeeded, the stand-in wrote each element once, where the kernel would.
    let want: Vec<u32> = (0..96 * 7).collect();
    assert_eq!(rows2d.to_vec()?, want, "index_2d's stand-in");
    // A submission that owns the buffer and the declared kernel.
    let pending = stream.submit((x, add), |s, (mut x, add)| {
        s.run(&add, cfg, (&mut x, 2, N32))
    })?;
    let (x, add) = pending.wait()?;
    // A graph capture: the declared kernel is part of the graph's payload.
    let graph = stream.capture((x, add, vec![0u32; N]), move |s, (mut x, add, out)| {
        s.run(&add, cfg, (&mut x, 1, N32))?;
        s.copy_to_host(out, &x)
    })?;
    let mut exec = graph.instantiate()?;
    exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
    let (_x, _add, out) = exec.payload();
    let out = out.to_vec();
    drop(exec);
    // A library kernel's function with its contract (scopes only), and a launch with
    // attributes.
    let library = custack::Library::load_ptx(Driver::init()?, KERNELS)?;
    let kernel = library.kernel("add_u32")?;
    let lib_add = guard.library_function(&kernel)?.declared::<AddU32>()?;
    assert_eq!(lib_add.checked_by(), CheckedBy::Unchecked); // no PTX kept, driver 12.2
    // A contract holds for the kernel it names: another kernel of the library is refused
    // before the driver, whatever its parameters (`illegal_write`, which stores to address 8,
    // takes none, as `count_threads` does; at driver 12.2 no layout is compared at all).
    let other = guard.library_function(&library.kernel("illegal_write")?)?;
    refused(ErrorKind::KernelSignatureMismatch, || {
        other.declared::<AddU32>().map(drop)
    });
    refused(ErrorKind::KernelSignatureMismatch, || {
        other.declared::<CountThreads>().map(drop)
    });
    let mut y = guard.alloc_zeroed::<u32>(N)?;
    stream.scope(|s| -> Result<()> {
        let mut dy = s.bind_mut(&mut y);
        // `run` takes a library's declared function as well.
        s.run(&lib_add, cfg, (&mut dy, 1, N32))?;
        refused(ErrorKind::BufferTooShort, || {
            s.run(&lib_add, cfg, (&mut dy, 1, N32 + 1))
        });
        s.run_with(
            &add,
            cfg,
            &custack::LaunchAttributes::default(),
            (&mut dy, 1, N32),
        )?;
        // Programmatic serialization lets the launch overlap the kernel before it, which no
        // contract describes: refused before the driver, only the unsafe `launch_with` has it.
        let overlapping = custack::LaunchAttributes {
            programmatic_serialization: true,
            ..custack::LaunchAttributes::default()
        };
        refused(ErrorKind::InvalidValue, || {
            s.run_with(&add, cfg, &overlapping, (&mut dy, 1, N32))
        });
        // A cooperative launch: the grid checked against the device first.
        s.run_cooperative(&add, cfg, (&mut dy, 1, N32))
    })??;
    y.free()?;
    library.unload()?;
    Ok(out)
}
