//! C26 CUDA SAFETY 1.1 through the facade: `Driver::init` registers the driver's log callback;
//! a program that depends on custack-safety alone cannot name `Driver`, so it initializes
//! CUDA with `Profile::init` only.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
fn main() -> Result<(), custack_safety::Error> {
    let _driver = custack_safety::Driver::init()?; //~ ERROR E0433
    Ok(())
}
