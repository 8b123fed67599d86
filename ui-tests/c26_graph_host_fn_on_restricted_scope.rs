//! C26 CUDA SAFETY 1.1 (no callbacks): a `RestrictedScope` has no `graph_host_fn` either: a host
//! function captured into a graph is a callback the driver runs on a thread of its own at each
//! launch, which NVIDIA's safety subset excludes.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let stream = init.stream()?;
    let graph = init.capture(&stream, (), |s, ()| s.graph_host_fn(|| ()))?; //~ ERROR E0599
    drop(graph);
    Ok(())
}
