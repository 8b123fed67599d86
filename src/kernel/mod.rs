//! Kernels: code loaded into a context ([`module`]: PTX, cubin and fatbin modules, their
//! functions and globals; [`image`]: a cubin or fatbin checked before the driver reads it;
//! [`library`]: context-independent libraries; [`jit`]: JIT options and the
//! linker), how a kernel is launched ([`launch`]: functions, typed kernels, launch shapes and
//! arguments) and how it is declared once and launched safely ever after ([`contract`]).

pub(crate) mod contract;
pub(crate) mod image;
pub(crate) mod jit;
pub(crate) mod launch;
pub(crate) mod library;
pub(crate) mod module;
pub(crate) mod naming;
pub(crate) mod ptx;
pub(crate) mod raw_launch;
