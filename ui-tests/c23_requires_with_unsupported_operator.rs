//! C23 kernel contracts (R14): a `requires(..)` condition compares two extents, each computed in
//! checked `usize` arithmetic like a buffer's extent, so a side holds only what that path
//! evaluates. A subtraction (which could go below zero and wrap) is refused when the contract is
//! declared, with an error that says what an extent holds.
//! Positive twin: `two_dimensional_extent_and_preconditions` in `tests/gpu_contract.rs`
//! (`requires(width > 0, grid_x <= width, blocks_z == 1)`).

custack::kernel_contract! {
    /// `diff(unsigned* out, unsigned n)`: `out[i] = x[i + 1] - x[i]` for `i < n - 1`.
    unsafe kernel Diff = "diff"(out: &mut [u32; n], n: u32) requires(n - 1 > 0); //~ ERROR is not an extent
}

fn main() {}
