//! C26 through the facade: `name_launches(true)` (NVTX names for every launch, a process-wide
//! switch of the full API) cannot be named by a program that depends on custack-safety alone.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
fn main() -> Result<(), custack_safety::Error> {
    custack_safety::name_launches(true)?; //~ ERROR E0425
    Ok(())
}
