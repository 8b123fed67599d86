//! C26 a restricted graph copies no host memory: the restricted builder has no
//! `copy_to_host` (a payload may hold pageable memory, which a node cannot tell from
//! page-locked); page-locked copies are the scope's, around the launch.
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
    let payload = (init.alloc::<u32>(4)?, add, vec![0u32; 4]);
    let _graph = init.build_graph(&stream, payload, |g, (mut d, add, out)| {
        let n = g.kernel(&add, LaunchConfig::for_elements(4), (&mut d, 1u32, 4u32), &[])?;
        g.copy_to_host(out, &d, &[n])?; //~ ERROR E0599
        Ok(())
    })?;
    Ok(())
}
