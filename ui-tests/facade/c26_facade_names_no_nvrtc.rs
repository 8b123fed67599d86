//! C26 CUDA SAFETY 1.2 (no PTX, no JIT) through the facade: custack-safety has no `nvrtc`
//! module, whatever custack's features, so a program that depends on it alone compiles no CUDA
//! C++ at run time.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
fn main() {
    let _program = custack_safety::nvrtc::Program::new("k.cu", "__global__ void k() {}"); //~ ERROR E0433
}
