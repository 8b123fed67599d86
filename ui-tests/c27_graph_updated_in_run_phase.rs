//! C27 the run phase changes no graph: a `RestrictedGraph` has no `update`
//! (`cuGraphExecUpdate`); a graph is captured and instantiated in the init phase and launched
//! as it is.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::safety::{Budget, Profile, RestrictedContext};
use custack::{LaunchConfig, Stack};

custack::kernel_contract! {
    /// `add_u32(uint* x, uint k, uint n)`: `x[i] += k` for `i < n`.
    unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
}

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let stream = init.stream()?;
    let bytes: Vec<u8> = Vec::new();
    // SAFETY: the cubin built for this device ahead of time (the program is only type-checked).
    let module = unsafe { init.load_cubin(&bytes)? };
    let add = init.kernel::<AddU32>(&module)?;
    let mut graph = init.capture(&stream, (init.alloc::<u32>(4)?, add), |s, (mut d, add)| {
        s.run(&add, LaunchConfig::for_elements(4), (&mut d, 1u32, 4u32))
    })?;
    let other = init.capture(&stream, (init.alloc::<u32>(4)?, add), |s, (mut d, add)| {
        s.run(&add, LaunchConfig::for_elements(4), (&mut d, 2u32, 4u32))
    })?;
    let _run = init.seal();
    graph.update(other)?; //~ ERROR E0599
    Ok(())
}
