//! C23 kernel contracts (R14): in an extent or a condition, `grid_x` (like `grid`, `blocks`,
//! `block`, `pitched` and the other per-axis words) means the launch shape. A parameter of that
//! name would be silently shadowed by it, so the declaration is refused.
//! Positive twin: `two_dimensional_extent_and_preconditions` in `tests/gpu_contract.rs`
//! (`grid_x` as a launch word beside the parameter `width`).

custack::kernel_contract! {
    /// `rows(unsigned* out, unsigned grid_x)`: the kernel calls its width `grid_x`.
    unsafe kernel Rows = "rows"(out: &mut [u32; grid_x], grid_x: u32); //~ ERROR cannot be named `grid_x`
}

fn main() {}
