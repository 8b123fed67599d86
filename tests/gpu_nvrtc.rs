//! NVRTC on a real device: CUDA C++ compiled at run time, loaded by a guard (a cubin for the
//! device's architecture, or PTX the driver JITs), kernels found by name or name expression and
//! launched safely by their contracts, results read back. The CPU half (compile errors, logs,
//! the check against NVRTC's PTX, versions) is `tests/nvrtc.rs`. Without a device every test
//! fails (`Driver::init` errs), never passes.
#![cfg(feature = "nvrtc")]
mod common;
use common::{context, device};
use custack::nvrtc::{Arch, Options, Program};
use custack::{CheckedBy, ComputeCapability, ErrorKind, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `timedReduction` of `examples/kernels/clock.cu`.
    unsafe kernel TimedReduction = "timedReduction"(
        input: &[f32; 2 * block], output: &mut [f32; blocks], timer: &mut [i64; 2 * blocks],
    ) shared(block * 8);
    /// `scale<float>`, by its name expression.
    unsafe kernel ScaleF32 = "scale<float>"(x: &mut [f32; n], a: f32, n: u64);
    /// `scale<double>`, by its name expression.
    unsafe kernel ScaleF64 = "scale<double>"(x: &mut [f64; n], a: f64, n: u64);
}

const CLOCK: &str = include_str!("../examples/kernels/clock.cu");
const SCALE: &str = r"
template <typename T>
__global__ void scale(T* x, T a, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}";

#[test]
#[ignore = "needs a CUDA device"]
fn a_cubin_for_the_device_runs_the_clock_kernel() {
    let compiled = Program::new("clock.cu", CLOCK)
        .unwrap()
        .compile(&Options::new().arch_for(device()).unwrap())
        .unwrap();
    assert!(compiled.cubin().is_some());
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_compiled(&compiled).unwrap();
    let kernel = module.declared::<TimedReduction>().unwrap();
    let input: Vec<f32> = (0..512u16).map(|i| f32::from(i) - 100.0).collect();
    let dinput = guard.alloc_from(&input).unwrap();
    let mut out = guard.alloc::<f32>(8).unwrap();
    let mut timer = guard.alloc::<i64>(16).unwrap();
    let (mut host_out, mut host_timer) = (vec![0f32; 8], vec![0i64; 16]);
    let config = LaunchConfig {
        grid: (8, 1, 1),
        block: (256, 1, 1),
        shared_mem_bytes: 2048,
    };
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let (i, mut o, mut t) = (
                s.bind(&dinput),
                s.bind_mut(&mut out),
                s.bind_mut(&mut timer),
            );
            // Too little shared memory for 256 threads: refused, nothing enqueued.
            let short = LaunchConfig {
                shared_mem_bytes: 1024,
                ..config
            };
            let e = s.run(&kernel, short, (i, &mut o, &mut t)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort, "{e}");
            s.run(&kernel, config, (i, &mut o, &mut t)).unwrap();
            s.copy_to_host(&mut host_out, &o).unwrap();
            s.copy_to_host(&mut host_timer, &t).unwrap();
        })
        .unwrap();
    assert!(
        host_out.iter().all(|m| m.to_bits() == (-100f32).to_bits()),
        "{host_out:?}"
    );
    let (starts, ends) = host_timer.split_at(8);
    assert!(
        starts.iter().zip(ends).all(|(s, e)| e > s),
        "{host_timer:?}"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn template_kernels_by_name_expression_from_ptx() {
    let compiled = Program::new("scale.cu", SCALE)
        .unwrap()
        .name_expression("scale<float>")
        .unwrap()
        .name_expression("scale<double>")
        .unwrap()
        .compile(&Options::new().arch(Arch::Virtual(ComputeCapability { major: 7, minor: 5 })))
        .unwrap();
    assert!(compiled.cubin().is_none(), "PTX only: the driver JITs it");
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_compiled(&compiled).unwrap();
    let float = module.declared::<ScaleF32>().unwrap();
    let double = module.declared::<ScaleF64>().unwrap();
    // Driver 580 (13.0) has cuFuncGetParamInfo; the PTX is the check before 12.4.
    assert_ne!(float.checked_by(), CheckedBy::Unchecked);
    // The lowered name finds the same kernel; the bare template name finds none.
    let lowered = compiled.lowered_name("scale<float>").unwrap();
    assert_eq!(
        module.function(lowered).unwrap().as_raw(),
        module.function("scale<float>").unwrap().as_raw()
    );
    assert_eq!(
        module.function("scale").unwrap_err().kind(),
        ErrorKind::NotFound
    );

    let mut xf = guard.alloc_from(&[1.0f32, 2.0, 3.0, 4.0, 5.0]).unwrap();
    let mut xd = guard.alloc_from(&[1.5f64, -2.0, 0.25]).unwrap();
    let (mut hf, mut hd) = (vec![0f32; 5], vec![0f64; 3]);
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            let (mut f, mut d) = (s.bind_mut(&mut xf), s.bind_mut(&mut xd));
            // Only the first 4 floats: the fifth stays.
            s.run(
                &float,
                LaunchConfig::for_elements(4),
                (&mut f, 0.5f32, 4u64),
            )
            .unwrap();
            s.run(
                &double,
                LaunchConfig::for_elements(3),
                (&mut d, 4.0f64, 3u64),
            )
            .unwrap();
            // n larger than the buffer: refused before launch.
            let e = s
                .run(
                    &double,
                    LaunchConfig::for_elements(4),
                    (&mut d, 4.0f64, 4u64),
                )
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort, "{e}");
            s.copy_to_host(&mut hf, &f).unwrap();
            s.copy_to_host(&mut hd, &d).unwrap();
        })
        .unwrap();
    assert_eq!(hf, [0.5, 1.0, 1.5, 2.0, 5.0]);
    assert_eq!(hd, [6.0, -8.0, 1.0]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn nvrtc_and_driver_versions_on_this_machine() {
    let nvrtc = custack::nvrtc::version().unwrap();
    let driver = custack::driver_version().unwrap();
    println!("NVRTC {nvrtc}, driver {driver}");
    device();
    let compiled = Program::new("noop.cu", "extern \"C\" __global__ void noop() {}")
        .unwrap()
        .compile(&Options::new())
        .unwrap();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    // The pairing this machine has must load; a newer NVRTC must be refused before the driver.
    match compiled.check_driver(driver) {
        Ok(()) => {
            guard.load_compiled(&compiled).unwrap();
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::NvrtcNewerThanDriver);
            let refused = guard.load_compiled(&compiled).unwrap_err();
            assert_eq!(refused.kind(), ErrorKind::NvrtcNewerThanDriver);
        }
    }
}

/// A kernel that sets a conditional node's condition, for NVRTC: it declares
/// `cudaGraphSetConditional` itself (`tests/fixtures/nvrtc_condition.cu` says why).
const COUNT_DOWN: &str = include_str!("fixtures/nvrtc_condition.cu");

custack::kernel_contract! {
    /// `count_down(handle cond, unsigned* left)` of [`COUNT_DOWN`], compiled with NVRTC.
    unsafe kernel CountDown = "count_down"(cond: conditional, left: &mut [u32; 1]);
}

/// How many times a WHILE node whose body is the NVRTC-compiled `count_down`, counting down
/// from `from`, ran its body, for the image `options` asks NVRTC for.
fn nvrtc_count_down(options: &Options, from: u32) -> (bool, u32) {
    let compiled = Program::new("count_down.cu", COUNT_DOWN)
        .unwrap()
        .compile(options)
        .unwrap();
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_compiled(&compiled).unwrap();
    let payload = (
        guard.alloc::<u32>(1).unwrap(),
        module.declared::<CountDown>().unwrap(),
        vec![0u32; 1],
    );
    let graph = guard
        .build_graph(payload, move |g, (mut left, down, out)| {
            let start = g.fill_u32(&mut left, from, &[])?;
            let cond = g.condition(1, true)?;
            let handle = cond.handle();
            let one = LaunchConfig::for_elements(1);
            let looped = g.while_loop(cond, &[start], |body| {
                body.kernel(&down, one, (handle, &mut left), &[])?;
                Ok(())
            })?;
            g.copy_to_host(out, &left, &[looped])?;
            Ok(())
        })
        .unwrap();
    let exec = graph.instantiate().unwrap();
    let exec = guard
        .stream()
        .unwrap()
        .submit(exec, |s, g| s.launch_graph(&g))
        .unwrap()
        .wait()
        .unwrap();
    (compiled.cubin().is_some(), from - exec.payload().2[0])
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_kernel_compiled_by_nvrtc_sets_a_while_node_s_condition_from_a_cubin_and_from_ptx() {
    let cc = device().compute_capability().unwrap();
    // A cubin for the device: the body runs until the kernel clears the condition.
    let (cubin, runs) = nvrtc_count_down(&Options::new().arch(Arch::Real(cc)), 5);
    assert!(cubin, "a real architecture gives a cubin");
    assert_eq!(
        runs, 5,
        "the body ran until count_down cleared the condition"
    );
    // PTX the driver JITs, `.extern .func cudaGraphSetConditional` resolved at load.
    let (cubin, runs) = nvrtc_count_down(&Options::new().arch(Arch::Virtual(cc)), 3);
    assert!(!cubin, "a virtual architecture gives PTX only");
    assert_eq!(runs, 3);
}
