//! Kernel contracts: a kernel declared once, with its parameters and the memory it may touch,
//! and launched safely ever after.
//!
//! [`kernel_contract!`](crate::kernel_contract) declares a kernel: its name, its parameters in
//! order with Rust types, and for each buffer parameter whether the kernel reads it (`&[T; e]`)
//! or writes it (`&mut [T; e]`) and how many elements it may touch, `e`, an expression of the
//! kernel's scalar parameters and of the launch shape (as a whole or per axis). The declaration
//! is the one `unsafe`: its author promises that the kernel touches nothing beyond what it says.
//! Every launch of it is then a safe call ([`StreamScope::run`]):
//!
//! - the compiler checks the arguments' number, order and types, and that a buffer the kernel
//!   writes is bound writably ([`ContractArgs`], [`ContractArg`]);
//! - custack checks the declaration's preconditions (`requires(..)`: a block shape, a grid that
//!   fits a row, a width that is a whole number of tiles) and every buffer's length against its
//!   extent before anything is enqueued, with integer arithmetic only (no driver call, no
//!   allocation): a condition that does not hold is an error naming it, a buffer that is too
//!   short, or an extent whose arithmetic overflows, an error naming the parameter;
//! - the declaration is checked against the kernel when it is looked up ([`Module::declared`]):
//!   against the driver's parameter information (`cuFuncGetParamInfo`, CUDA 12.4), or, on older
//!   drivers, against the PTX `.entry` of a module custack loaded from PTX ([`CheckedBy`]).
//!
//! A kernel one cannot describe this way (one that follows pointers stored in memory, or indexes
//! by data) is still launched with the `unsafe` [`StreamScope::launch`].

// `kinds`: the `Contract` trait, the launches it allows, the parameter kinds and their arguments.
mod kinds;
// `extent`: the checks a launch runs (extents, conditions, shapes), `__private` below.
mod extent;
// `declared`: `Declared`, looked up from a module or a library and checked against the kernel.
mod declared;
// `run`: the safe launches of a `Declared` kernel.
mod run;
// `macros`, `syntax`: `kernel_contract!` and the macros it expands to (extents, conditions).
mod macros;
mod syntax;

#[cfg(doc)]
use crate::asynchronous::scope::StreamScope;
#[cfg(doc)]
use crate::kernel::module::Module;

#[cfg(feature = "nvrtc")]
pub(crate) use declared::check_ptx;
pub use declared::{CheckedBy, Declared, DeclaredLibrary, FromLibrary, FromModule, KernelSource};
pub use extent::ExtentFactor;
pub use kinds::{
    ClusterLaunch, ConditionalParam, Contract, ContractArg, ContractArgs, CooperativeLaunch,
    ParamKind, PlainLaunch, ReadBuffer, Scalar, SurfaceParam, TensorMapOver, TensorMapParam,
    TextureParam, WriteBuffer,
};

/// What the macro's expansions call; not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::kernel::contract::extent::{
        Compare, Required, available, axis, block_threads, check_box, check_condition,
        check_extent, check_max_block, check_multiple, check_over, check_shared, factor,
        grid_blocks, grid_threads, product, sum,
    };
}
