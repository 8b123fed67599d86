//! C26 only declared kernels launch under the profile: a `RestrictedScope` has no raw
//! `launch` (a function and an unchecked argument tuple); `run` launches a `RestrictedKernel`
//! with its contract checked against the arguments and the launch's error returned.
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
    let mut buf = init.alloc::<u32>(1024)?;
    let bytes: Vec<u8> = Vec::new();
    // SAFETY: the cubin built for this device ahead of time (the program is only type-checked).
    let module = unsafe { init.load_cubin(&bytes)? };
    let add = init.kernel::<AddU32>(&module)?;
    let _run = init.seal();
    let cfg = LaunchConfig::for_elements(1024);
    stream.scope(|s| {
        let d = s.bind_mut(&mut buf);
        s.launch(&add, cfg, (d, 1u32, 1024u32)) //~ ERROR E0599
    })??;
    Ok(())
}
