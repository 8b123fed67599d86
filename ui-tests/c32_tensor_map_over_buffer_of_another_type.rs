//! C32 tensor maps: a contract's `map: tensor_map<T> over buf` names a buffer of the same
//! element type; a map of `f32` over a buffer of `u32` is refused where the contract is declared.
//! Positive twin: `TmaTiles` in `tests/gpu_tensor_map.rs`.

custack::kernel_contract! {
    /// A map of f32 declared over a buffer of u32.
    unsafe kernel Mixed = "mixed"(
        map: tensor_map<f32> over src,
        src: &[u32; n],
        n: u32,
    );
}

fn main() {}
