//! C26 through the facade: custack-safety has no library module (`blas`, `blaslt`, `fft`,
//! `rand`, `nccl`), whatever custack's features: the libraries are outside NVIDIA's safety
//! subset of the driver API.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
use custack_safety::blas::Blas; //~ ERROR E0432

fn main() {
    let _ = core::mem::size_of::<Blas<'static>>();
}
