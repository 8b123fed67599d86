//! cuBLASLt under the guard (cargo feature `cublaslt`): a handle lent by a
//! [`PushedGuard`](crate::PushedGuard), matmuls with checked layouts and epilogues on a scope's
//! bound memory.
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/cublas/#using-the-cublaslt-api>
