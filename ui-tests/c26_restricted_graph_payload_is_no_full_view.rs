//! C26 a restricted graph's payload lends no view of the full API: `payload()` gives the
//! `RestrictedBuffer` itself, which only a `RestrictedScope` reads or writes. The full API's
//! `DeviceView::to_vec` would allocate on the host and copy synchronously, waiting without a
//! bound, in the run phase.
//! Positive twin: `p14_safety_profile_frame` in `tests/patterns.rs` (the payload bound in a scope).
use custack::Stack;
#[allow(unused_imports)] // with the traits that lend `to_vec` to device memory in scope
use custack::prelude::*;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let stream = init.stream()?;
    let buffer = init.alloc::<u32>(1024)?;
    let graph = init.capture(&stream, buffer, |_s, _b| Ok(()))?;
    let _run = init.seal();
    let host: Vec<u32> = graph.payload().to_vec()?; //~ ERROR E0599
    assert_eq!(host.len(), 1024);
    Ok(())
}
