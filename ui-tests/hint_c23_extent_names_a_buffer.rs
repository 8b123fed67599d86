//! C23 kernel contracts, the message a user meets: an extent names a buffer parameter (as if it
//! were its length). The declaration is refused with a message that names the parameter as a
//! buffer and asks for the scalar that counts its elements.
//! Positive twin: `VectorAdd` in `examples/01_vector_add.rs` (`c: &mut [f32; n]`).

custack::kernel_contract! {
    /// `copy(float* dst, const float* src)`: as many elements as `src` holds.
    unsafe kernel Copy = "copy"(dst: &mut [f32; src], src: &[f32; 1024]); //~ ERROR is a buffer parameter
}

fn main() {}
