//! C26 the safety subset has no managed memory, also through the facade: `ManagedBuffer`
//! cannot be named by a program that depends on custack-safety alone, and its init phase has
//! no `alloc_managed`.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
use custack_safety::ManagedBuffer; //~ ERROR E0432

fn keep(_buffer: ManagedBuffer<'_, f32>) {}

fn main() {
    let _ = keep;
}
