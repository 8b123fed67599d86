//! cuFFT under the guard (cargo feature `cufft`): plans lent by a
//! [`PushedGuard`](crate::PushedGuard), executed on a scope's bound memory with every size checked
//! before anything is enqueued.
//!
//! # References
//!
//! <https://docs.nvidia.com/cuda/cufft/>
