//! C33 a batch of the restricted run phase copies only page-locked memory the init phase
//! allocated, as the restricted scope's single copies do: a pageable source does not compile.
//! Positive twin: `restricted_run_phase_batches_do_not_allocate` in `tests/zero_alloc.rs`.
use custack::Stack;
use custack::safety::{Budget, Profile, RestrictedContext};

fn main() -> Result<(), custack::Error> {
    let profile = Profile::init(1)?;
    let mut ctx = RestrictedContext::new(&profile, profile.device(0)?, Budget::page_locked(1 << 20))?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let init = guard.init()?;
    let copies = init.batch_copies()?;
    let stream = init.stream()?;
    let mut dev = init.alloc::<u32>(1024)?;
    let _run = init.seal();
    let pageable = vec![0u32; 1024];
    stream.scope(|s| {
        let mut d = s.bind_mut(&mut dev);
        let mut batch = s.batch::<1>();
        batch.to_device(&mut d, &pageable)?; //~ ERROR E0277
        s.copy_batch(&copies, batch)
    })??;
    Ok(())
}
