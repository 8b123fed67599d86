//! C23 kernel contracts (R12/R14): a factor of an extent is a parameter, an integer literal, a
//! launch word or a parenthesized extent, never an expression evaluated in its own type (a
//! method call could wrap there, or be anything at all): it is refused when the contract is
//! declared.
//! Positive twin: `RowOffsets` in `benches/checking/src/kernels.rs` (the extent `(n + 1)`).

custack::kernel_contract! {
    /// `rows(unsigned* offsets, unsigned char n)`: `n + 1` row offsets.
    unsafe kernel Rows = "rows"(offsets: &mut [u32; 4 * { n.wrapping_add(1) }], n: u8); //~ ERROR cannot be a factor
}

fn main() {}
