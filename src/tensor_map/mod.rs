//! Tensor maps (`CUtensorMap`) for the Tensor Memory Accelerator: a typed description of a
//! tensor in device memory ([`Tiled`], [`Im2col`]) checked against the driver's documented
//! rules and against the memory it is over before the driver encodes it ([`TensorMap`],
//! [`TensorMapRule`]), bound to a scope for a declared kernel's `tensor_map<T>` parameter
//! ([`ScopedTensorMap`]).

// `rules`: the descriptions, options, element types and every rule checked before encoding.
pub(crate) mod rules;
// `map`: the map over borrowed memory, its encoding, and what a scope's kernels receive of it.
pub(crate) mod map;

pub use map::{ScopedTensorMap, TensorMap, TensorMapHandle};
pub use rules::{
    Im2col, Interleave, L2Promotion, OobFill, Swizzle, TensorElement, TensorMapError,
    TensorMapRule, Tiled,
};
