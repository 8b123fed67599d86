//! C23 a kernel declared `cooperative` (a grid-wide barrier) launches only cooperatively: `run`
//! refuses its contract at compile time, since a plain launch does not keep every block resident.
//! Positive twin: `contracts` in `benches/checking/src/programs/contracts.rs` (`run_cooperative`).
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `normalize(float* x, unsigned n)`: divides by the sum of all of `x`, after a grid-wide
    /// barrier.
    unsafe kernel Normalize = "normalize"(x: &mut [f32; n], n: u32) cooperative;
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx(".version 8.0\n.target sm_70\n.address_size 64\n")?;
    let normalize = module.declared::<Normalize>()?;
    let mut x = guard.alloc_zeroed::<f32>(1024)?;
    guard.stream()?.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        s.run(&normalize, LaunchConfig::for_elements(1024), (&mut dx, 1024)) //~ ERROR E0277
    })??;
    Ok(())
}
