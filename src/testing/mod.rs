//! Testing GPU code without a GPU: CPU stand-ins for kernels, which the checking driver runs in
//! their place ([`stand_in`]). What custack tells it of the handles it leaves behind on purpose
//! is `error/left_behind.rs`, beside the poison that decides it.

pub(crate) mod stand_in;

pub(crate) use crate::error::left_behind::extension;
