//! C26 a restricted graph's buffer swapped out of its payload and freed while the graph's nodes
//! still name it: `payload_mut()` lends the `RestrictedBuffer` by shared reference only, so no
//! `mem::swap` (or assignment) can put another buffer in its place. With `&mut`, the program
//! freed the graph's memset target and launched the graph on freed memory (the checking
//! driver's violation, found by a review).
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs` (the payload bound in a scope).
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let budget = Budget::new().device_bytes(8192).streams(1).graphs(1).graph_nodes(4);
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let stream = init.stream()?;
    let mut other = init.alloc::<u32>(1024)?;
    let mut graph = init.capture(&stream, init.alloc::<u32>(1024)?, |s, mut c| {
        s.fill_bytes(&mut c, 7)
    })?;
    let _run = init.seal();
    core::mem::swap(graph.payload_mut(), &mut other); //~ ERROR E0308
    drop(other);
    Ok(())
}
