//! Testing GPU code without a GPU: CPU stand-ins for kernels, which the checking driver runs in
//! their place ([`stand_in`]). What custack tells it of the handles it leaves behind on purpose
//! is `error/left_behind.rs`, beside the poison that decides it.

pub(crate) mod stand_in;
// `alone`: unit tests that fork, each run alone in a process of its own.
#[cfg(test)]
pub(crate) mod alone;

pub(crate) use crate::error::left_behind::extension;
