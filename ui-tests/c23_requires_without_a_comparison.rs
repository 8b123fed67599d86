//! C23 kernel contracts (R14): a `requires(..)` condition is a comparison of two extents
//! (`==`, `!=`, `<`, `<=`, `>`, `>=`) or `a % m == 0`; a bare value (C's "non-zero is true") is
//! refused when the contract is declared, with an error that lists the forms.
//! Positive twin: `two_dimensional_extent_and_preconditions` in `tests/gpu_contract.rs`
//! (`requires(width > 0, ..)`).

custack::kernel_contract! {
    /// `fill(unsigned* out, unsigned width)`: one row of `width`.
    unsafe kernel Fill = "fill"(out: &mut [u32; width], width: u32) requires(width); //~ ERROR is not a condition
}

fn main() {}
