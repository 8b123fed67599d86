//! A library type with its own floating context: it pushes that context for each call and pops
//! it before returning, whatever the caller has pushed.
//!
//! `cargo run --release --example 07_library_type`
//!
//! `Scaler` stands for what a crate built on custack would export: it owns a `Context` and a
//! `Library` of code, both `Send + Sync`, so one value serves every thread. Its method takes the
//! caller's stack top as `&mut impl StackTop` (the caller's `Stack`, or the guard on top of it)
//! and runs inside `with_pushed`. The `&mut` borrow freezes the caller's guard and everything it
//! lent for the length of the call. So no handle of the caller's context can be used while the
//! scaler's context is on top, and the scaler cannot leave its context pushed. A buffer the caller
//! keeps across the call is parked first (`guard.park`), which ties it to the context and not to
//! the guard, and attached again afterwards. The example calls the scaler once with the caller's
//! context pushed and once from a second thread with nothing pushed. On an H100 it prints:
//!
//! ```text
//! device 0: NVIDIA H100 80GB HBM3
//! library_type: Scaler (own context, Send + Sync) scaled 1048576 floats over the caller's pushed context and 1048576 from a thread with an empty stack; the caller's context was on top again, its parked buffer re-attached, all results correct
//! ```
use custack::{
    Context, ContextFlags, DeviceBuffer, DeviceMemory, Driver, LaunchConfig, Library, PushedGuard,
    Stack, StackTop,
};
use std::process::ExitCode;

const KERNELS: &str = include_str!("../tests/fixtures/kernels.ptx");
const N: usize = 1 << 20;

custack::kernel_contract! {
    /// `scale_f32(float* x, float a, unsigned n)`: `x[i] *= a` for `i < n`.
    unsafe kernel ScaleF32 = "scale_f32"(x: &mut [f32; n], a: f32, n: u32);
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

/// The scaler's own code: `x[i] *= a` for `i < n`, hand-written like `tests/fixtures/kernels.ptx`
/// (PTX ISA 6.0 for `sm_50`, so any driver from 535 on compiles it for its GPU).
const SCALE_PTX: &str = r"
.version 6.0
.target sm_50
.address_size 64

.visible .entry scale_f32(
    .param .u64 scale_f32_x,
    .param .f32 scale_f32_a,
    .param .u32 scale_f32_n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<7>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [scale_f32_x];
    ld.param.f32 %f1, [scale_f32_a];
    ld.param.u32 %r2, [scale_f32_n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r2;
    @%p1 bra SC_DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r6, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    mul.rn.f32 %f3, %f2, %f1;
    st.global.f32 [%rd4], %f3;
SC_DONE:
    ret;
}
";

/// A GPU routine that owns its context and code: callers need not know which context it uses.
pub struct Scaler {
    // Fields drop in order: the library, then the context.
    library: Library,
    ctx: Context,
}

// What makes it a library type: one value, shared by every thread.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Scaler>();
};

impl Scaler {
    /// A scaler with a new context on `device`.
    ///
    /// # Errors
    ///
    /// The driver's errors.
    pub fn new(driver: Driver, device: custack::Device) -> custack::Result<Self> {
        Ok(Self {
            library: Library::load_ptx(driver, SCALE_PTX)?,
            ctx: Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?,
        })
    }

    /// Multiplies `data` by `factor` on the GPU, in the scaler's own context.
    ///
    /// `top` is the caller's stack top (its `Stack` or the guard on top of it). It is borrowed
    /// mutably for the call, so the caller's handles wait. The scaler's context is pushed on
    /// it for the call and popped before this returns.
    ///
    /// # Errors
    ///
    /// The driver's errors.
    pub fn scale(
        &self,
        top: &mut impl StackTop,
        data: &mut [f32],
        factor: f32,
    ) -> custack::Result<()> {
        let kernel = self.library.kernel("scale_f32")?;
        top.with_pushed(&self.ctx, |guard| -> custack::Result<()> {
            // The kernel in the scaler's context, with its contract.
            let scale = guard.library_function(&kernel)?.declared::<ScaleF32>()?;
            let mut x = guard.alloc_from(data)?;
            let n = data.len() as u32;
            guard.stream()?.scope(|s| {
                let mut dx = s.bind_mut(&mut x);
                s.run(&scale, LaunchConfig::for_elements(n), (&mut dx, factor, n))
            })??;
            x.copy_to_host(data)
        })? // the scaler's context is popped here; the caller's is on top again
    }
}

/// The caller's own work in its own context: adds `k` to every element of `x`.
fn add_in_caller(
    guard: &PushedGuard<'_, '_>,
    x: &mut DeviceBuffer<'_, u32>,
    k: u32,
) -> custack::Result<()> {
    let module = guard.load_ptx(KERNELS)?;
    let add = module.declared::<AddU32>()?;
    let n = x.len() as u32;
    guard.stream()?.scope(|s| {
        let mut dx = s.bind_mut(x);
        s.run(&add, LaunchConfig::for_elements(n), (&mut dx, k, n))
    })?
}

/// Runs the example; returns whether every result was right.
fn run() -> custack::Result<bool> {
    let driver = Driver::init()?;
    let device = driver.device(0)?;
    println!("device 0: {}", device.name()?);
    let scaler = Scaler::new(driver, device)?;

    // The caller: a context of its own, pushed, with work of its own before the call.
    let ctx = Context::new(device, ContextFlags::SCHED_BLOCKING_SYNC)?;
    let mut stack = Stack::new()?;
    let mut guard = stack.push(&ctx)?;
    let mut counts = guard.alloc_zeroed::<u32>(N)?;
    add_in_caller(&guard, &mut counts, 1)?;
    // `counts` borrows `guard`, which the call below borrows mutably: parked, it borrows only
    // `ctx`. (Using `counts` itself across the call does not compile: E0502.)
    let parked = guard.park(counts);

    let mut data: Vec<f32> = (0..N).map(|i| f32::from((i % 1000) as u16)).collect();
    scaler.scale(&mut guard, &mut data, 2.0)?; // pushes the scaler's context over the caller's

    // The caller's context is on top again: its parked buffer comes back, its work goes on.
    let mut counts = guard.attach(parked)?;
    add_in_caller(&guard, &mut counts, 1)?;
    let counts_right = counts.to_vec()?.iter().all(|&c| c == 2);
    drop(counts);
    guard.pop()?; // fails if anyone had left another context on top of the caller's

    // The same value from another thread, whose stack is empty.
    let mut other: Vec<f32> = (0..N).map(|i| f32::from((i % 1000) as u16)).collect();
    std::thread::scope(|s| {
        s.spawn(|| -> custack::Result<()> {
            let mut stack = Stack::new()?; // that thread's own, empty stack
            scaler.scale(&mut stack, &mut other, 0.5)
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })?;

    let scaled_right = data.iter().zip(&other).enumerate().all(|(i, (&d, &o))| {
        let x = f32::from((i % 1000) as u16);
        d.to_bits() == (x * 2.0).to_bits() && o.to_bits() == (x * 0.5).to_bits()
    });
    if counts_right && scaled_right {
        println!(
            "library_type: Scaler (own context, Send + Sync) scaled {N} floats over the caller's pushed context and {N} from a thread with an empty stack; the caller's context was on top again, its parked buffer re-attached, all results correct"
        );
    } else {
        eprintln!(
            "07_library_type: caller's counts right: {counts_right}, scaled values right: {scaled_right}"
        );
    }
    Ok(counts_right && scaled_right)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("07_library_type: a result differs from the expected one");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("07_library_type: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
