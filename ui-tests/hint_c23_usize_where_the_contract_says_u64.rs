//! C23 kernel contracts, the message a user meets: a `usize` length passed where the contract
//! (and the kernel, a `size_t`) says `u64` is refused, and the note says to convert it with
//! `as u64` (a scalar takes a value of exactly its declared type).
//! Positive twin: `matrix_mul_drv_port` in `tests/gpu_contract.rs` (`WA as u64`).
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `fill(float* x, size_t n)`: `x[i] = 1` for `i < n`.
    unsafe kernel Fill = "fill"(x: &mut [f32; n], n: u64);
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let fill = module.declared::<Fill>()?;
    let mut x = guard.alloc::<f32>(1024)?;
    let n: usize = 1024;
    guard.stream()?.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        s.run(&fill, LaunchConfig::for_elements(1024), (&mut dx, n)) //~ ERROR E0277
    })??;
    Ok(())
}
