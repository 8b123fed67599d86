//! C27 the run phase builds no graph: a `RunPhase` has no `build_graph`; a graph is built,
//! instantiated and uploaded in the init phase, then only launched (and its kernel nodes
//! updated).
//! Positive twin: `a_while_graph_built_in_the_init_phase_runs_its_frames_and_takes_kernel_updates_in_the_run_phase` in `tests/gpu_safety_graph.rs`.
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
    let buf = init.alloc::<u32>(4)?;
    let run = init.seal();
    let _graph = run.build_graph(&stream, (buf, add), |g, (mut d, add)| { //~ ERROR E0599
        g.kernel(&add, LaunchConfig::for_elements(4), (&mut d, 1u32, 4u32), &[])?;
        Ok(())
    })?;
    Ok(())
}
