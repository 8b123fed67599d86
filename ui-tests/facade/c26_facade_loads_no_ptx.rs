//! C26 CUDA SAFETY 1.2 (no PTX, no JIT) through the facade: `Library::load_ptx` (and
//! `Module`, `Linker`, `JitOptions`) cannot be named by a program that depends on
//! custack-safety alone; it loads cubins with `InitPhase::load_cubin` only.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
use custack_safety::Profile;

fn main() -> Result<(), custack_safety::Error> {
    let profile = Profile::init(1)?;
    let ptx = ".version 6.0\n.target sm_50\n.address_size 64\n";
    let _library = custack_safety::Library::load_ptx(profile.driver(), ptx)?; //~ ERROR E0433
    Ok(())
}
