//! C23 kernel contracts (R12/R14): an extent is computed in checked `usize` arithmetic, so it
//! holds only what that path evaluates: sums and products of integer scalar parameters, integer
//! literals, the launch words and parenthesized extents. A subtraction (which could go below
//! zero) is refused when the contract is declared, with an error that says what an extent holds.
//! Positive twin: `RowOffsets` in `benches/checking/src/kernels.rs` (the extent `(n + 1)`).

custack::kernel_contract! {
    /// `scan(unsigned* out, unsigned n)`: `n - 1` partial sums.
    unsafe kernel Scan = "scan"(out: &mut [u32; n - 1], n: u32); //~ ERROR is not an extent
}

fn main() {}
