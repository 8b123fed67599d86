//! C28.10 a restricted graph's nodes touch only its payload: the build's closure is `'static`,
//! so a buffer of the init phase bound by a scope outside it (the graph may be launched long
//! after that scope ends, and the buffer freed) does not compile.
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
    let mut outside = init.alloc::<u32>(4)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut d = s.bind_mut(&mut outside);
        let _graph = init.build_graph(&stream, add, move |g, add| {
            g.kernel(&add, LaunchConfig::for_elements(4), (&mut d, 1u32, 4u32), &[])?; //~ ERROR E0521
            Ok(())
        })?;
        Ok(())
    })??;
    Ok(())
}
