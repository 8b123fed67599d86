//! cuRAND under the guard (cargo feature `curand`): generators lent by a
//! [`PushedGuard`](crate::PushedGuard), filling a scope's bound memory with every length checked
//! before anything is enqueued.
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/curand/>
