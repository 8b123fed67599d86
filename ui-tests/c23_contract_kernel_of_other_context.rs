//! C23 kernel contracts: a declared kernel looked up under one context cannot be launched while
//! another context is pushed on top of it (in a scope of the other context's stream).
//! Positive twin: `p10_contract_launches` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack, StackTop};

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn main() -> Result<(), custack::Error> {
    let device = Driver::init()?.device(0)?;
    let a = Context::new(device, ContextFlags::empty())?;
    let b = Context::new(device, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(&a)?;
    let module_a = guard_a.load_ptx("")?;
    let add_a = module_a.declared::<AddU32>()?;
    guard_a.with_pushed(&b, |guard_b| {
        //~^ ERROR E0502
        let mut x = guard_b.alloc::<u32>(16)?;
        let stream_b = guard_b.stream()?;
        stream_b.scope(|s| {
            let mut dx = s.bind_mut(&mut x);
            s.run(&add_a, LaunchConfig::for_elements(16), (&mut dx, 2, 16))
        })?
    })??;
    Ok(())
}
