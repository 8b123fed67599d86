//! C23 kernel contracts: a declared kernel launches only with its arguments in the declared
//! order (here the buffer comes last).
//! Positive twin: `p10_contract_launches` in `tests/patterns.rs`.
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let add = module.declared::<AddU32>()?;
    let stream = guard.stream()?;
    let mut x = guard.alloc::<u32>(16)?;
    stream.scope(|s| {
        let mut dx = s.bind_mut(&mut x);
        s.run(&add, LaunchConfig::for_elements(16), (2u32, 16u32, &mut dx)) //~ ERROR E0277
    })??;
    Ok(())
}
