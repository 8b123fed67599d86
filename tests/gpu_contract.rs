//! Kernel contracts on a real device: each extent shape (parameter, product, pitched,
//! grid) launched safely on a real kernel and its result read back; a buffer one element short
//! refused with the memory untouched (R12); a declaration that disagrees with the kernel refused
//! at lookup (R13); a 2-D kernel's per-axis extents and preconditions, and NVIDIA's matrixMulDrv
//! ported with them, each refused launch naming its clause (R14); launches in a submission, a
//! graph capture, with attributes and cooperative.
//!
//! The kernels are hand-written PTX (`tests/fixtures/kernels.ptx`, `contracts.ptx`; ISA 6.0,
//! `sm_50`), and matrixMulDrv's compiled by nvcc (`matrix_mul.cu`, `.ptx`). Without a device every test fails (`Driver::init` errs), never passes.
mod common;
use common::{KERNELS, context};
use custack::prelude::*;
use custack::{CheckedBy, ErrorKind, LaunchAttributes, LaunchConfig, Stack};

const CONTRACTS: &str = include_str!("fixtures/contracts.ptx");

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// The same kernel declared with a 64-bit `k`: the kernel takes 32 bits.
    unsafe kernel AddU32Wide = "add_u32"(x: &mut [u32; n], k: u64, n: u32);
    /// The same kernel declared without its count.
    unsafe kernel AddU32Short = "add_u32"(x: &mut [u32; 16], k: u32);
    /// `scale_u32(unsigned* x, unsigned rows, unsigned cols, unsigned k)`: `x[i] *= k` for
    /// `i < rows * cols`.
    unsafe kernel ScaleU32 = "scale_u32"(x: &mut [u32; rows * cols], rows: u32, cols: u32, k: u32);
    /// `fill_rows(unsigned* img, size_t pitch, unsigned width, unsigned height, unsigned v)`:
    /// `v` to element `x` of row `y` for `x < width`, `y < height`, skipping every `x` whose
    /// 4 bytes pass the pitch (the kernel compares `4 * x + 4` with `pitch` itself): `height`
    /// rows of `pitch` bytes for any `width`, so unlike the usual pitched kernel of
    /// `kernel_contract!`'s docs it needs no `requires(width * 4 <= pitch)`.
    unsafe kernel FillRows = "fill_rows"(
        img: &mut [u32; pitched(height, pitch)],
        pitch: u64,
        width: u32,
        height: u32,
        value: u32,
    );
    /// `iota(unsigned* x)`: `x[i] = i` for every launched thread, no bounds check.
    unsafe kernel Iota = "iota"(x: &mut [u32; grid]);
    /// `count_threads()`: adds 1 to the module's global `counters[0]` per thread.
    unsafe kernel CountThreads = "count_threads"();
    /// `row_offsets(unsigned* offsets, unsigned char n)`: `offsets[i] = i` for `i <= n`.
    unsafe kernel RowOffsets = "row_offsets"(offsets: &mut [u32; (n + 1)], n: u8);
    /// `cluster_ids(uint2* out)`: block `b` writes its rank in its cluster and its cluster's
    /// index to `out[b]`: written for clusters of 2 blocks.
    unsafe kernel ClusterIds = "cluster_ids"(out: &mut [[u32; 2]; blocks]) cluster(2, 1, 1);
    /// `index_2d(unsigned* out, unsigned width)`: `out[y * width + x] = y * width + x` for
    /// every launched thread, no bounds check: `grid_y` rows of `width` while the grid's x
    /// threads fit a row, one layer of blocks.
    unsafe kernel Index2d = "index_2d"(out: &mut [u32; grid_y * width], width: u32)
        requires(width > 0, grid_x <= width, blocks_z == 1);
    /// NVIDIA's matrixMulDrv kernel (`tests/fixtures/matrix_mul.cu`), `matrixMul<32, size_t>`:
    /// `C = A * B`, A `wa` wide, B `wb` wide, one 32 × 32 block per 32 × 32 tile of C, no
    /// bounds checks. Block `(bx, by)` reads rows `32 by ..` of A over its whole width (whole
    /// tiles only: `wa` a multiple of 32, and not 0, or its loop never ends), a 32-column band of
    /// B over all `wa` rows, and writes its tile of C: so A holds `grid_y` rows of `wa`, B `wa`
    /// rows of `wb`, C `grid_y` rows of `wb`, while the grid's x threads fit a row of B and C.
    /// Its static shared tiles are 32 × 32 and it indexes by `block_size`, not `blockDim`: the
    /// block is exactly 32 × 32 × 1.
    unsafe kernel MatrixMul = "matrix_mul_bs32"(
        c: &mut [f32; grid_y * wb],
        a: &[f32; grid_y * wa],
        b: &[f32; wa * wb],
        wa: u64,
        wb: u64,
    ) requires(
        block_x == 32, block_y == 32, block_z == 1, blocks_z == 1,
        wa > 0, wa % 32 == 0, grid_x <= wb,
    );
}

const MATRIX_MUL: &str = include_str!("fixtures/matrix_mul.ptx");

const N: usize = 1000;
const N32: u32 = N as u32;

#[test]
#[ignore = "needs a CUDA device"]
fn parameter_extent() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.declared::<AddU32>().unwrap();
    let mut x = guard.alloc_from(&vec![1u32; N]).unwrap();
    let cfg = LaunchConfig::for_elements(N32);
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            s.run(&add, cfg, (&mut dx, 41, N32)).unwrap();
            // One element short: refused, nothing enqueued.
            let e = s.run(&add, cfg, (&mut dx, 1000, N32 + 1)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(
                e.to_string().contains(
                    "parameter `x` holds 1000 elements, but its extent `n` requires 1001"
                ),
                "{e}"
            );
        })
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![42; N]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn sum_extent_is_computed_in_usize() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(CONTRACTS).unwrap();
    let offsets = module.declared::<RowOffsets>().unwrap();
    let mut one = guard.alloc_from(&[7u32]).unwrap();
    let mut all = guard.alloc_zeroed::<u32>(256).unwrap();
    let cfg = LaunchConfig::for_elements(256);
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            // 255u8 + 1 wraps to 0 in u8; the extent is 256 elements, computed in usize.
            let e = s
                .run(&offsets, cfg, (s.bind_mut(&mut one), 255u8))
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(
                e.to_string().contains(
                    "parameter `offsets` holds 1 elements, but its extent `(n + 1)` requires 256"
                ),
                "{e}"
            );
            s.run(&offsets, cfg, (s.bind_mut(&mut all), 255u8)).unwrap();
        })
        .unwrap();
    assert_eq!(
        one.to_vec().unwrap(),
        vec![7],
        "the refused launch wrote nothing"
    );
    assert_eq!(all.to_vec().unwrap(), (0..256).collect::<Vec<u32>>());
}

#[test]
#[ignore = "needs a CUDA device"]
fn clustered_contract_runs_in_its_cluster_shape() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let cc = guard.device().unwrap().compute_capability().unwrap();
    if cc.major < 9 {
        println!("skipped: thread-block clusters need compute capability 9.0, this is {cc:?}");
        return;
    }
    let module = guard
        .load_ptx(include_str!("fixtures/cluster.ptx"))
        .unwrap();
    let ids = module.declared::<ClusterIds>().unwrap();
    let mut out = guard.alloc_zeroed::<[u32; 2]>(8).unwrap();
    let eight = LaunchConfig {
        grid: (8, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let mut d = s.bind_mut(&mut out);
            s.run_clustered(&ids, eight, (&mut d,)).unwrap();
            let seven = LaunchConfig {
                grid: (7, 1, 1),
                ..eight
            };
            let e = s.run_clustered(&ids, seven, (&mut d,)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutOfRange);
            assert!(e.to_string().contains("cluster(2, 1, 1)"), "{e}");
        })
        .unwrap();
    // Block b is rank b % 2 of cluster b / 2: the launch had the contract's shape.
    let expected: Vec<[u32; 2]> = (0..8).map(|b| [b % 2, b / 2]).collect();
    assert_eq!(out.to_vec().unwrap(), expected);
}

#[test]
#[ignore = "needs a CUDA device"]
fn product_extent() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(CONTRACTS).unwrap();
    let scale = module.declared::<ScaleU32>().unwrap();
    let (rows, cols) = (25u32, 40u32);
    let mut x = guard.alloc_from(&(0..N32).collect::<Vec<u32>>()).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            let cfg = LaunchConfig::for_elements(rows * cols);
            s.run(&scale, cfg, (&mut dx, rows, cols, 3)).unwrap();
            let e = s
                .run(&scale, cfg, (&mut dx, rows + 1, cols, 3))
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(e.to_string().contains("`rows * cols` requires 1040"), "{e}");
        })
        .unwrap();
    assert_eq!(
        x.to_vec().unwrap(),
        (0..N32).map(|i| 3 * i).collect::<Vec<_>>()
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn pitched_extent() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(CONTRACTS).unwrap();
    let fill = module.declared::<FillRows>().unwrap();
    let (width, height) = (100usize, 37usize);
    let mut image = guard.alloc_pitched::<u32>(width, height).unwrap();
    image.copy_from_host(&vec![0u32; width * height]).unwrap();
    let pitch = image.pitch_bytes() as u64;
    assert!(pitch >= 400);
    let cfg = LaunchConfig {
        grid: (4, height as u32, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let mut img = s.bind_pitched(&mut image);
            s.run(
                &fill,
                cfg,
                (&mut img, pitch, width as u32, height as u32, 7),
            )
            .unwrap();
            // One row too many: refused.
            let e = s
                .run(
                    &fill,
                    cfg,
                    (&mut img, pitch, width as u32, height as u32 + 1, 7),
                )
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(e.to_string().contains("`pitched(height, pitch)`"), "{e}");
        })
        .unwrap();
    assert_eq!(image.to_vec().unwrap(), vec![7; width * height]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn grid_extent() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(CONTRACTS).unwrap();
    let iota = module.declared::<Iota>().unwrap();
    let mut x = guard.alloc_zeroed::<u32>(1024).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            s.run(&iota, LaunchConfig::for_elements(1024), (&mut dx,))
                .unwrap();
            // 1001 elements in blocks of 256 launch 1024 threads: refused for a 1000-element
            // buffer, accepted for this 1024-element one.
            s.run(&iota, LaunchConfig::for_elements(1001), (&mut dx,))
                .unwrap();
            let e = s
                .run(&iota, LaunchConfig::for_elements(1025), (&mut dx,))
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(e.to_string().contains("extent `grid` requires 1280"), "{e}");
        })
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), (0..1024).collect::<Vec<u32>>());
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_dimensional_extent_and_preconditions() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(CONTRACTS).unwrap();
    let index = module.declared::<Index2d>().unwrap();
    let (width, height) = (96u32, 7u32);
    let mut out = guard
        .alloc_zeroed::<u32>((width * height) as usize)
        .unwrap();
    let mut short = guard
        .alloc_from(&vec![5u32; (width * height) as usize - 1])
        .unwrap();
    let rows = |blocks_x, blocks_z| LaunchConfig {
        grid: (blocks_x, height, blocks_z),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let mut o = s.bind_mut(&mut out);
            s.run(&index, rows(3, 1), (&mut o, width)).unwrap();
            // A grid one block wider than a row: its last block would write into the next row
            // and, on the last row, past the buffer. Refused by the precondition.
            let e = s.run(&index, rows(4, 1), (&mut o, width)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::PreconditionFailed);
            assert!(
                e.to_string()
                    .contains("requires `grid_x <= width`, which does not hold for this launch (128 <= 96 is false)"),
                "{e}"
            );
            let e = s.run(&index, rows(3, 2), (&mut o, width)).unwrap_err();
            assert!(e.to_string().contains("`blocks_z == 1`"), "{e}");
            let e = s.run(&index, rows(3, 1), (&mut o, 0)).unwrap_err();
            assert!(e.to_string().contains("`width > 0`"), "{e}");
            // One element short of grid_y * width.
            let e = s
                .run(&index, rows(3, 1), (s.bind_mut(&mut short), width))
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(
                e.to_string()
                    .contains("holds 671 elements, but its extent `grid_y * width` requires 672"),
                "{e}"
            );
        })
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        (0..width * height).collect::<Vec<u32>>()
    );
    assert_eq!(
        short.to_vec().unwrap(),
        vec![5; (width * height) as usize - 1],
        "the refused launch wrote nothing"
    );
}

/// NVIDIA's matrixMulDrv sample ported as a user would, with no `unsafe` beyond the declaration:
/// its sizes (A 4·32 wide and 6·32 high, B 4·32 wide), A all 1.0 and B all 0.01, its launch
/// (a grid of `WC / 32 × HC / 32` blocks of 32 × 32 threads, with the sample's
/// `2 · 32 · 32 · 4` bytes of dynamic shared memory) and its check: every element of C within
/// 1e-5 of `WA · 0.01`.
#[test]
#[ignore = "needs a CUDA device"]
fn matrix_mul_drv_port() {
    const BLOCK: usize = 32;
    const WA: usize = 4 * BLOCK;
    const HA: usize = 6 * BLOCK;
    const WB: usize = 4 * BLOCK;
    const HB: usize = WA;
    const WC: usize = WB;
    const HC: usize = HA;
    const VAL_B: f32 = 0.01;
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(MATRIX_MUL).unwrap();
    let matrix_mul = module.declared::<MatrixMul>().unwrap();
    let a = guard.alloc_from(&vec![1.0f32; WA * HA]).unwrap();
    let b = guard.alloc_from(&vec![VAL_B; WB * HB]).unwrap();
    let mut c = guard.alloc_from(&vec![-1.0f32; WC * HC]).unwrap();
    let launch = |grid: (usize, usize), block: u32| LaunchConfig {
        grid: (grid.0 as u32, grid.1 as u32, 1),
        block: (block, block, 1),
        shared_mem_bytes: (2 * BLOCK * BLOCK * size_of::<f32>()) as u32,
    };
    let sample = launch((WC / BLOCK, HC / BLOCK), BLOCK as u32);
    let stream = guard.stream().unwrap();
    // Launches the sample's kernel could not survive, refused before the driver: C untouched.
    stream
        .scope(|s| {
            let (da, db, mut dc) = (s.bind(&a), s.bind(&b), s.bind_mut(&mut c));
            let args = |wa: usize, wb: usize| (wa as u64, wb as u64);
            let (wa, wb) = args(WA, WB);
            for (config, wa, wb, clause) in [
                // One block too many in x: the last would write past each row of C.
                (
                    launch((WC / BLOCK + 1, HC / BLOCK), 32),
                    wa,
                    wb,
                    "`grid_x <= wb`",
                ),
                // 16 × 16 blocks: the kernel indexes its tiles by 32, not by the block.
                (launch((WC / 16, HC / 16), 16), wa, wb, "`block_x == 32`"),
                // A width that is not whole tiles: the last tile reads past a row of A.
                (sample, wa - 1, wb, "`wa % 32 == 0`"),
                (sample, 0, wb, "`wa > 0`"),
            ] {
                let e = s
                    .run(&matrix_mul, config, (&mut dc, da, db, wa, wb))
                    .unwrap_err();
                assert_eq!(e.kind(), ErrorKind::PreconditionFailed, "{e}");
                assert!(e.to_string().contains(clause), "{clause}: {e}");
            }
            // Claiming C is wider than it is: its extent `grid_y * wb` exceeds it.
            let e = s
                .run(&matrix_mul, sample, (&mut dc, da, db, wa, wb + 32))
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort, "{e}");
        })
        .unwrap();
    stream.synchronize().unwrap();
    assert!(
        c.to_vec()
            .unwrap()
            .iter()
            .all(|x| x.to_bits() == (-1.0f32).to_bits()),
        "a refused launch wrote C"
    );
    stream
        .scope(|s| {
            let (da, db, mut dc) = (s.bind(&a), s.bind(&b), s.bind_mut(&mut c));
            s.run(&matrix_mul, sample, (&mut dc, da, db, WA as u64, WB as u64))
        })
        .unwrap()
        .unwrap();
    let h_c = c.to_vec().unwrap();
    let reference = f32::from(u16::try_from(WA).unwrap()) * VAL_B;
    let wrong = h_c
        .iter()
        .filter(|&&x| (x - reference).abs() > 1e-5)
        .count();
    assert_eq!(
        wrong,
        0,
        "{wrong} of {} elements differ from {reference}",
        WC * HC
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn declarations_are_checked_at_lookup() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.declared::<AddU32>().unwrap();
    let by_driver = custack::driver_version().unwrap()
        >= custack::Version {
            major: 12,
            minor: 4,
        };
    let expected = if by_driver {
        CheckedBy::ParamInfo
    } else {
        CheckedBy::Ptx
    };
    assert_eq!(add.checked_by(), expected);
    let e = module.declared::<AddU32Wide>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
    assert!(
        e.to_string().contains("parameter 1 `k` is declared `u64`"),
        "{e}"
    );
    let e = module.declared::<AddU32Short>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
    assert!(
        e.to_string()
            .contains("the kernel takes 3 parameters, the contract declares 2 (x, k)"),
        "{e}"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn submissions_graphs_attributes_and_cooperative_launches() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(KERNELS).unwrap();
    let add = module.declared::<AddU32>().unwrap();
    let stream = guard.stream().unwrap();
    let cfg = LaunchConfig::for_elements(N32);
    let x = guard.alloc_zeroed::<u32>(N).unwrap();
    let (x, add) = stream
        .submit((x, add), |s, (mut x, add)| {
            s.run(&add, cfg, (&mut x, 1, N32))?;
            s.run_with(&add, cfg, &LaunchAttributes::default(), (&mut x, 2, N32))
        })
        .unwrap()
        .wait()
        .unwrap();
    let graph = stream
        .capture((x, add), move |s, (mut x, add)| {
            s.run(&add, cfg, (&mut x, 10, N32))
        })
        .unwrap();
    let mut exec = graph.instantiate().unwrap();
    for _ in 0..2 {
        exec = stream
            .submit(exec, |s, g| s.launch_graph(&g))
            .unwrap()
            .wait()
            .unwrap();
    }
    assert_eq!(exec.payload().0.to_vec().unwrap(), vec![23; N]);
    let (mut x, _) = exec.payload_mut();
    // A cooperative launch: four blocks are resident at once on any device that has them.
    let small = LaunchConfig::for_elements(N32);
    let cooperative = stream.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        s.run_cooperative(&add, small, (&mut dx, 100, N32))
    });
    match cooperative.unwrap() {
        Ok(()) => assert_eq!(x.to_vec().unwrap(), vec![123; N]),
        Err(e) => assert_eq!(e.kind(), ErrorKind::NotSupported, "{e}"),
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn declared_library_function() {
    let library = custack::Library::load_ptx(custack::Driver::init().unwrap(), KERNELS).unwrap();
    let kernel = library.kernel("add_u32").unwrap();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let add = guard
        .library_function(&kernel)
        .unwrap()
        .declared::<AddU32>()
        .unwrap();
    let e = guard
        .library_function(&kernel)
        .unwrap()
        .declared::<AddU32Wide>();
    if add.checked_by() == CheckedBy::ParamInfo {
        assert_eq!(e.unwrap_err().kind(), ErrorKind::KernelSignatureMismatch);
    }
    // A contract holds for the kernel it names: `illegal_write` takes no parameter, as
    // `count_threads` does, so only the name tells them apart (refused before the driver).
    let other = library.kernel("illegal_write").unwrap();
    let e = guard
        .library_function(&other)
        .unwrap()
        .declared::<CountThreads>()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch, "{e}");
    assert!(e.to_string().contains("\"illegal_write\""), "{e}");
    let mut x = guard.alloc_zeroed::<u32>(N).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            s.run(&add, LaunchConfig::for_elements(N32), (&mut dx, 5, N32))
                .unwrap();
            let e = s
                .run(&add, LaunchConfig::for_elements(N32), (&mut dx, 5, N32 + 1))
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        })
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![5; N]);
}

/// C24 with R11: a submission launching a declared kernel that writes the module's global, on a
/// non-blocking stream, is leaked (`mem::forget`), which ends its borrow of the module; the
/// global read afterwards still waits for the kernel (the context's synchronize), so it sees
/// every thread's count.
#[test]
#[ignore = "needs a CUDA device"]
fn a_global_read_waits_for_a_leaked_kernel() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard
        .stream_with(custack::StreamFlags::NON_BLOCKING, 0)
        .unwrap();
    let mut module = guard.load_ptx(KERNELS).unwrap();
    module
        .global_mut::<u32>("counters")
        .unwrap()
        .fill_u32(0)
        .unwrap();
    let count = module.declared::<CountThreads>().unwrap();
    let threads = 1u32 << 26;
    let pending = stream
        .submit(count, |s, count| {
            for _ in 0..8 {
                s.run(&count, LaunchConfig::for_elements(threads), ())?;
            }
            Ok(())
        })
        .unwrap();
    core::mem::forget(pending);
    let counters = module.global::<u32>("counters").unwrap().to_vec().unwrap();
    assert_eq!(counters[0], 8 * threads, "the read waited for every launch");
}
