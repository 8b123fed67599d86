//! Testing GPU code without a GPU: CPU stand-ins for kernels, which the checking driver runs in
//! their place ([`stand_in`]).

pub(crate) mod stand_in;
