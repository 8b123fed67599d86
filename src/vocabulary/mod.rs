//! The vocabulary every folder shares, at the bottom of the crate: plain data ([`DeviceCopy`]),
//! what a kernel argument is ([`KernelArg`], [`DevicePtr`]), and memory bound to a stream scope
//! (the `Scoped*` handles). It uses only `error/` and the raw layer, so any folder may use it
//! without importing upwards (ARCHITECTURE.md, tests/layers.rs).
//!
//! [`DeviceCopy`]: plain::DeviceCopy
//! [`KernelArg`]: argument::KernelArg
//! [`DevicePtr`]: argument::DevicePtr

pub(crate) mod argument;
pub(crate) mod binding;
pub(crate) mod plain;
pub(crate) mod version;
