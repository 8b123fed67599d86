//! Testing GPU code without a GPU: CPU stand-ins for kernels, which the checking driver runs in
//! their place ([`stand_in`]), and what custack tells it of the handles it leaves behind on
//! purpose ([`left_behind`]).

pub(crate) mod left_behind;
pub(crate) mod stand_in;
