//! C23 kernel contracts, the message a user meets: an extent names `ha`, the height of A in
//! matrixMulDrv, which is not a parameter of the kernel. The declaration is refused with a
//! message that says what an extent may name and how to write a size the kernel reaches through
//! its launch shape, instead of rustc's "cannot find value" suggesting a buffer of a similar
//! name.
//! Positive twin: `MatrixMul` in `tests/gpu_contract.rs` (`c: &mut [f32; grid_y * wb]`).

custack::kernel_contract! {
    /// `matrix_mul_bs32(float* c, const float* a, const float* b, size_t wa, size_t wb)`.
    unsafe kernel MatrixMul = "matrix_mul_bs32"( //~ ERROR is not a parameter of this contract
        c: &mut [f32; wb * ha],
        a: &[f32; ha * wa],
        b: &[f32; wa * wb],
        wa: u64,
        wb: u64,
    );
}

fn main() {}
