//! C28.10 kept graph allocations under the restricted profile: its graph builder
//! (`RestrictedGraphBuilder`) makes no allocation node, so a graph of the init phase keeps no
//! memory that a launch of the run phase would make again, and none that the instantiation
//! (`InitPhase::build_graph`, never with `AUTO_FREE_ON_LAUNCH`) would have to record: keeping an
//! allocation there does not compile.
//! Positive twin: `a_while_graph_built_in_the_init_phase_runs_its_frames_and_takes_kernel_updates_in_the_run_phase` in `tests/gpu_safety_graph.rs`.
use custack::safety::{Budget, Profile, RestrictedContext};
use custack::Stack;

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let stream = init.stream()?;
    let _graph = init.build_graph(&stream, (), |g, ()| {
        let (_made, _x) = g.alloc_kept::<u32>(4, &[])?; //~ ERROR E0599
        Ok(())
    })?;
    Ok(())
}
