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

use crate::asynchronous::payload::{Payload, held_as_itself, sealed as payload_sealed};
use crate::asynchronous::scope::StreamScope;
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::launch::{
    Function, KernelArgs, KernelSignature, LaunchAttributes, LaunchConfig,
};
use crate::kernel::library::LibraryFunction;
use crate::kernel::module::Module;
use crate::kernel::ptx;
use crate::memory::pitched::ScopedPitched;
use crate::texture::{ScopedSurface, ScopedTexture, SurfaceHandle, TextureHandle};
use crate::vocabulary::argument::{DevicePtr, KernelArg, KernelParam};
use crate::vocabulary::binding::{ScopedAlloc, ScopedSlice, ScopedSliceMut};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// A kernel's contract, declared with [`kernel_contract!`](crate::kernel_contract): the kernel's
/// name, its parameter list as a Rust [`KernelSignature`], and (in the [`ContractArgs`] impl the
/// macro writes) the extent of every buffer it reads or writes.
///
/// # Safety
///
/// The kernel named [`KERNEL`](Self::KERNEL) takes exactly the parameters of
/// [`Signature`](Self::Signature), and, launched with arguments that pass the
/// [`ContractArgs`] check, dereferences only addresses within the buffers passed to it (within
/// each buffer's declared extent), writes only buffers declared `&mut`, and never keeps an
/// address past its own run.
pub unsafe trait Contract: 'static {
    /// The kernel's name in its module (the mangled name for C++ kernels not `extern "C"`).
    const KERNEL: &'static str;
    /// The parameters' names, in order, as declared.
    const PARAMS: &'static [&'static str];
    /// The kernel's parameter list: [`DevicePtr<T>`] for a buffer, `T` for a scalar.
    type Signature: KernelSignature;
}

/// A contract whose kernel runs correctly in a plain launch: every contract declared neither
/// `cooperative` nor with a `cluster(..)` shape ([`kernel_contract!`](crate::kernel_contract)),
/// which the macro implements this for. [`StreamScope::run`] and [`run_with`](StreamScope::run_with)
/// take only these (a library kernel's declared function included); a cooperative kernel (one that
/// synchronizes the whole grid) launches with
/// [`run_cooperative`](StreamScope::run_cooperative), which checks that every block can be
/// resident at once, and a kernel written for thread-block clusters with
/// [`run_clustered`](StreamScope::run_clustered), in its declared cluster shape.
///
/// # Safety
///
/// The kernel does not rely on a cooperative launch (no grid-wide barrier, cooperative
/// groups' `grid.sync()`, which in a plain launch may wait for blocks that never run), nor on a
/// cluster shape (no distributed shared memory of other blocks, which a launch with clusters
/// of one block does not have).
#[diagnostic::on_unimplemented(
    message = "the kernel of contract `{Self}` is declared `cooperative` or with a `cluster(..)` shape: it needs that launch",
    label = "a cooperative or clustered kernel",
    note = "launch a `cooperative` kernel with `run_cooperative`, which checks that every block of the grid can be resident at once (a grid-wide barrier waits for all of them), and a `cluster(..)` kernel with `run_clustered`, which launches it in its declared cluster shape"
)]
pub unsafe trait PlainLaunch: Contract {}

/// A contract whose kernel runs correctly in a cooperative launch: every contract without a
/// `cluster(..)` shape ([`kernel_contract!`](crate::kernel_contract) implements it), which
/// [`run_cooperative`](StreamScope::run_cooperative) takes.
///
/// # Safety
///
/// The kernel does not rely on a cluster shape (see [`PlainLaunch`]).
#[diagnostic::on_unimplemented(
    message = "the kernel of contract `{Self}` is declared with a `cluster(..)` shape: it needs a launch in that shape",
    label = "a clustered kernel",
    note = "launch it with `run_clustered`, which launches it in its declared cluster shape"
)]
pub unsafe trait CooperativeLaunch: Contract {}

/// A contract whose kernel is written for thread-block clusters of one shape (distributed
/// shared memory, cluster barriers): declared with `cluster(x, y, z)`
/// ([`kernel_contract!`](crate::kernel_contract)), launched only with
/// [`run_clustered`](StreamScope::run_clustered), in exactly that shape.
///
/// # Safety
///
/// The kernel stays within its contract when launched in clusters of exactly
/// [`CLUSTER`](Self::CLUSTER) blocks (and needs no cooperative launch).
pub unsafe trait ClusterLaunch: Contract {
    /// The cluster shape, in blocks per dimension.
    const CLUSTER: (u32, u32, u32);
}

mod sealed {
    pub trait Kind {}
    pub trait Arg<K> {}
}

/// The kind of a buffer parameter the kernel only reads, of element type `T`: `&[T; extent]`
/// in a contract. Never constructed.
#[derive(Debug)]
pub struct ReadBuffer<T: DeviceCopy>(PhantomData<fn() -> T>);
/// The kind of a buffer parameter the kernel writes (and may read), of element type `T`:
/// `&mut [T; extent]` in a contract. Never constructed.
#[derive(Debug)]
pub struct WriteBuffer<T: DeviceCopy>(PhantomData<fn() -> T>);
/// The kind of a scalar parameter passed by value, of type `T`. Never constructed.
#[derive(Debug)]
pub struct Scalar<T: DeviceCopy>(PhantomData<fn() -> T>);
/// The kind of a texture object parameter the kernel samples (`tex: texture` in a contract):
/// it takes a [`ScopedTexture`], the texture bound to the launching scope, whose resource
/// cannot be written while the scope may run (C21). Never constructed.
#[derive(Debug)]
pub enum TextureParam {}
/// The kind of a surface object parameter the kernel reads and writes (`surf: surface` in a
/// contract): it takes `&mut` a [`ScopedSurface`], the surface bound to the launching scope
/// exclusively. Never constructed.
#[derive(Debug)]
pub enum SurfaceParam {}

/// The kind of one parameter of a contract: [`ReadBuffer<T>`], [`WriteBuffer<T>`],
/// [`Scalar<T>`], [`TextureParam`] or [`SurfaceParam`]. Sealed.
pub trait ParamKind: sealed::Kind + 'static {
    /// The parameter's type in the kernel's [`KernelSignature`].
    type Param: KernelParam;
    /// What an extent reads of an argument of this kind: the value for a scalar, `()` for a
    /// buffer (which cannot be a factor of an extent).
    #[doc(hidden)]
    type Factor;
}
impl<T: DeviceCopy> sealed::Kind for ReadBuffer<T> {}
impl<T: DeviceCopy> ParamKind for ReadBuffer<T> {
    type Param = DevicePtr<T>;
    type Factor = ();
}
impl<T: DeviceCopy> sealed::Kind for WriteBuffer<T> {}
impl<T: DeviceCopy> ParamKind for WriteBuffer<T> {
    type Param = DevicePtr<T>;
    type Factor = ();
}
impl<T: DeviceCopy> sealed::Kind for Scalar<T> {}
impl<T: DeviceCopy> ParamKind for Scalar<T> {
    type Param = T;
    type Factor = T;
}
impl sealed::Kind for TextureParam {}
impl ParamKind for TextureParam {
    type Param = TextureHandle;
    type Factor = ();
}
impl sealed::Kind for SurfaceParam {}
impl ParamKind for SurfaceParam {
    type Param = SurfaceHandle;
    type Factor = ();
}

/// How much memory a buffer argument holds.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Available {
    elements: usize,
    bytes: usize,
}

impl Available {
    fn of<T>(elements: usize) -> Self {
        Self {
            elements,
            bytes: elements.saturating_mul(size_of::<T>()),
        }
    }
    fn bytes<T>(bytes: usize) -> Self {
        Self {
            elements: bytes.checked_div(size_of::<T>()).unwrap_or(0),
            bytes,
        }
    }
}

/// An argument for a parameter of kind `K` in a launch of the scope `'scope`: for
/// [`Scalar<T>`], a `T`; for [`ReadBuffer<T>`], device memory of `T` bound to the scope (a
/// [`ScopedSlice`], a [`ScopedSliceMut`] or `&`/`&mut` one, `&`/`&mut` a [`ScopedAlloc`] or
/// [`ScopedPitched`]); for [`WriteBuffer<T>`], the same but writable: a [`ScopedSliceMut`] or
/// `&mut` one, `&mut` a [`ScopedAlloc`] or [`ScopedPitched`]. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an argument for a `{K}` parameter of this kernel contract",
    note = "a scalar parameter, kind `Scalar<T>`, takes a value of exactly the type `T` (convert with `as`: `n as u64` where the contract says `u64` and `n` is a `usize`); a buffer the contract declares `&[T; extent]` takes memory bound to this scope: `s.bind(&x)` by value, or `&b` of a `s.bind_mut` binding",
    note = "a buffer declared `&mut [T; extent]` is written by the kernel: it takes `&mut b` of `let mut b = s.bind_mut(&mut y);` (or `&mut` a `ScopedAlloc`), never a read-only `s.bind(&x)` binding",
    note = "a `texture` parameter takes `s.bind_texture(&texture)` by value; a `surface` parameter takes `&mut sf` of `let mut sf = s.bind_surface(&mut surface);`"
)]
pub trait ContractArg<'scope, K: ParamKind>:
    KernelArg<'scope, Param = K::Param> + sealed::Arg<K>
{
    /// The argument as a factor of an extent.
    #[doc(hidden)]
    fn scalar(&self) -> K::Factor;
    /// The memory the argument holds (for a scalar: its own size).
    #[doc(hidden)]
    fn available(&self) -> Available;
}

impl<T: DeviceCopy> sealed::Arg<Scalar<T>> for T {}
impl<T: DeviceCopy> ContractArg<'_, Scalar<T>> for T {
    #[inline]
    fn scalar(&self) -> T {
        *self
    }
    #[inline]
    fn available(&self) -> Available {
        Available::of::<T>(1)
    }
}

macro_rules! buffer_arg {
    ($kind:ident: $([$($lt:lifetime)?] $ty:ty => |$b:ident| $available:expr),* $(,)?) => {$(
        impl<$($lt,)? 'scope, T: DeviceCopy> sealed::Arg<$kind<T>> for $ty {}
        impl<$($lt,)? 'scope, T: DeviceCopy> ContractArg<'scope, $kind<T>> for $ty {
            #[inline]
            fn scalar(&self) {}
            #[inline]
            fn available(&self) -> Available {
                let $b = self;
                $available
            }
        }
    )*};
}
buffer_arg!(ReadBuffer:
    [] ScopedSlice<'scope, T> => |b| Available::of::<T>(b.len()),
    [] ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a ScopedAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a ScopedPitched<'scope, T> => |b| Available::bytes::<T>(pitched_bytes(b)),
    ['a] &'a mut ScopedPitched<'scope, T> => |b| Available::bytes::<T>(pitched_bytes(b)),
);
buffer_arg!(WriteBuffer:
    [] ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedSliceMut<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedAlloc<'scope, T> => |b| Available::of::<T>(b.len()),
    ['a] &'a mut ScopedPitched<'scope, T> => |b| Available::bytes::<T>(pitched_bytes(b)),
);

// A texture or surface bound to the scope. The hardware bounds-checks every access through it,
// so it has no extent: its length is never compared.
impl sealed::Arg<TextureParam> for ScopedTexture<'_> {}
impl<'scope> ContractArg<'scope, TextureParam> for ScopedTexture<'scope> {
    #[inline]
    fn scalar(&self) {}
    #[inline]
    fn available(&self) -> Available {
        Available::of::<u8>(0)
    }
}
impl sealed::Arg<SurfaceParam> for &mut ScopedSurface<'_> {}
impl<'scope> ContractArg<'scope, SurfaceParam> for &mut ScopedSurface<'scope> {
    #[inline]
    fn scalar(&self) {}
    #[inline]
    fn available(&self) -> Available {
        Available::of::<u8>(0)
    }
}

/// The bytes of a pitched allocation: `height` rows of `pitch` bytes (allocated, so the product
/// fits; 0 if it did not, which refuses every extent but 0).
fn pitched_bytes<T: DeviceCopy>(b: &ScopedPitched<'_, T>) -> usize {
    b.pitch_bytes().checked_mul(b.height()).unwrap_or(0)
}

/// The arguments of a launch of the contract `C` in the scope `'scope`: a tuple with one
/// [`ContractArg`] per declared parameter, in order. Implemented by
/// [`kernel_contract!`](crate::kernel_contract) for each contract.
///
/// # Safety
///
/// [`check`](Self::check) returns `Ok` only if every buffer argument holds at least its declared
/// extent for `config`, computed without overflow.
#[diagnostic::on_unimplemented(
    message = "`{Self}` are not the arguments of the kernel contract `{C}`",
    label = "expected one argument per parameter `{C}` declares, in order",
    note = "pass a tuple, one argument per declared parameter in the declared order: a scalar of exactly its type, a buffer bound to this scope (`&mut b` where the contract writes)"
)]
pub unsafe trait ContractArgs<'scope, C: Contract>: KernelArgs<'scope> {
    /// Checks every buffer argument against its extent for a launch of shape `config`.
    #[doc(hidden)]
    fn check(&self, config: &LaunchConfig) -> Result<()>;
}

/// An integer that can be a factor of a contract's extent: a scalar parameter of an integer
/// type, or an integer literal.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a factor of a kernel contract's extent",
    note = "an extent is `grid`, `pitched(rows, pitch)`, or a sum of products of integer scalar parameters, integer literals and parenthesized extents (`n`, `rows * cols`, `4 * n`, `n + 1`); a buffer parameter is not a factor"
)]
pub trait ExtentFactor: factor_sealed::Sealed {
    /// The value as a `usize`; `None` if it is negative or does not fit.
    #[doc(hidden)]
    fn to_usize(&self) -> Option<usize>;
}

/// Sealed: the extent check that makes a declared launch safe trusts `to_usize`, so only the
/// integer types implement it (a user's type could report any length).
mod factor_sealed {
    pub trait Sealed {}
}

macro_rules! extent_factor {
    ($($t:ty),*) => {$(
        impl factor_sealed::Sealed for $t {}
        impl ExtentFactor for $t {
            #[inline]
            fn to_usize(&self) -> Option<usize> {
                usize::try_from(*self).ok()
            }
        }
    )*};
}
extent_factor!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

/// What the macro's expansions call; not public API.
#[doc(hidden)]
pub mod __private {
    use super::{Available, ExtentFactor};
    use crate::error::{Error, ErrorKind, Result};
    use crate::kernel::launch::LaunchConfig;

    /// A buffer's extent for one launch: elements, or bytes (pitched); `None` on overflow.
    #[derive(Debug, Clone, Copy)]
    pub enum Required {
        /// Elements of the buffer's type.
        Elements(Option<usize>),
        /// Bytes.
        Bytes(Option<usize>),
    }

    /// The memory each argument holds, in order (typed, so that an empty list is too).
    #[inline]
    pub fn available<const N: usize>(a: [Available; N]) -> core::array::IntoIter<Available, N> {
        a.into_iter()
    }

    /// One factor of an extent.
    #[inline]
    pub fn factor<F: ExtentFactor>(f: &F) -> Option<usize> {
        f.to_usize()
    }

    /// The product of `factors`, `None` if one is or the product overflows.
    #[inline]
    pub fn product(factors: &[Option<usize>]) -> Option<usize> {
        factors
            .iter()
            .try_fold(1usize, |p, f| f.and_then(|f| p.checked_mul(f)))
    }

    /// The sum of `terms`, `None` if one is or the sum overflows.
    #[inline]
    pub fn sum(terms: &[Option<usize>]) -> Option<usize> {
        terms
            .iter()
            .try_fold(0usize, |a, t| t.and_then(|t| a.checked_add(t)))
    }

    /// The number of threads a launch of shape `config` runs.
    #[inline]
    pub fn grid_threads(config: &LaunchConfig) -> Option<usize> {
        let (g, b) = (config.grid, config.block);
        [g.0, g.1, g.2, b.0, b.1, b.2]
            .iter()
            .try_fold(1usize, |p, &d| p.checked_mul(d as usize))
    }

    /// The number of blocks in a launch of shape `config`.
    #[inline]
    pub fn grid_blocks(config: &LaunchConfig) -> Option<usize> {
        let g = config.grid;
        [g.0, g.1, g.2]
            .iter()
            .try_fold(1usize, |p, &d| p.checked_mul(d as usize))
    }

    /// The number of threads in a block of a launch of shape `config`.
    #[inline]
    pub fn block_threads(config: &LaunchConfig) -> Option<usize> {
        let b = config.block;
        [b.0, b.1, b.2]
            .iter()
            .try_fold(1usize, |p, &d| p.checked_mul(d as usize))
    }

    /// One axis of a launch of shape `config` (0 = x, 1 = y, 2 = z): its blocks (`grid_` and
    /// `blocks_`), its threads per block (`grid_` and `block_`), or their product (`grid_`).
    #[inline]
    pub fn axis(config: &LaunchConfig, axis: usize, blocks: bool, threads: bool) -> Option<usize> {
        let (g, b) = (config.grid, config.block);
        let (g, b) = match axis {
            0 => (g.0, b.0),
            1 => (g.1, b.1),
            _ => (g.2, b.2),
        };
        let g = if blocks { g as usize } else { 1 };
        let b = if threads { b as usize } else { 1 };
        g.checked_mul(b)
    }

    /// A comparison of a `requires(..)` condition.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Compare {
        /// `==`
        Eq,
        /// `!=`
        Ne,
        /// `<`
        Lt,
        /// `<=`
        Le,
        /// `>`
        Gt,
        /// `>=`
        Ge,
    }

    impl Compare {
        fn holds(self, l: usize, r: usize) -> bool {
            match self {
                Self::Eq => l == r,
                Self::Ne => l != r,
                Self::Lt => l < r,
                Self::Le => l <= r,
                Self::Gt => l > r,
                Self::Ge => l >= r,
            }
        }
        fn symbol(self) -> &'static str {
            match self {
                Self::Eq => "==",
                Self::Ne => "!=",
                Self::Lt => "<",
                Self::Le => "<=",
                Self::Gt => ">",
                Self::Ge => ">=",
            }
        }
    }

    /// Checks one condition of a contract's `requires(..)`: `lhs op rhs`, both sides computed
    /// in checked `usize` arithmetic (`None`: a side overflowed or a factor was negative).
    #[inline]
    pub fn check_condition(
        kernel: &'static str,
        clause: &'static str,
        lhs: Option<usize>,
        op: Compare,
        rhs: Option<usize>,
    ) -> Result<()> {
        match (lhs, rhs) {
            (Some(l), Some(r)) if op.holds(l, r) => Ok(()),
            (Some(l), Some(r)) => Err(unmet(
                kernel,
                clause,
                &format!("{l} {} {r} is false", op.symbol()),
            )),
            _ => Err(condition_overflow(kernel, clause)),
        }
    }

    /// Checks a `requires(a % m == 0)` condition: `a` is a whole multiple of `m` (never of 0).
    #[inline]
    pub fn check_multiple(
        kernel: &'static str,
        clause: &'static str,
        a: Option<usize>,
        m: Option<usize>,
    ) -> Result<()> {
        match (a, m) {
            (Some(a), Some(m)) if m != 0 && a % m == 0 => Ok(()),
            (Some(a), Some(0)) => Err(unmet(
                kernel,
                clause,
                &format!("{a} is not a multiple of 0"),
            )),
            (Some(a), Some(m)) => Err(unmet(kernel, clause, &format!("{a} % {m} is {}", a % m))),
            _ => Err(condition_overflow(kernel, clause)),
        }
    }

    #[cold]
    #[inline(never)]
    fn condition_overflow(kernel: &str, clause: &str) -> Error {
        Error::custack(
            ErrorKind::SizeOverflow,
            format!(
                "kernel {kernel:?}: its contract's condition `{clause}` overflows (or a factor is \
                 negative); nothing was launched"
            ),
        )
    }

    #[cold]
    #[inline(never)]
    fn unmet(kernel: &str, clause: &str, detail: &str) -> Error {
        Error::custack(
            ErrorKind::PreconditionFailed,
            format!(
                "kernel {kernel:?}: its contract requires `{clause}`, which does not hold for \
                 this launch ({detail}); nothing was launched"
            ),
        )
    }

    /// Checks the launch's dynamic shared memory: `Ok` if `have` bytes hold `required`.
    #[inline]
    pub fn check_shared(
        kernel: &'static str,
        extent: &'static str,
        have: u32,
        required: Option<usize>,
    ) -> Result<()> {
        match required {
            Some(need) if need <= have as usize => Ok(()),
            Some(need) => Err(Error::custack(
                ErrorKind::BufferTooShort,
                format!(
                    "kernel {kernel:?}: the launch has {have} bytes of dynamic shared memory, but \
                     its contract's `shared({extent})` requires {need}; nothing was launched"
                ),
            )),
            None => Err(overflow(kernel, "shared", extent)),
        }
    }

    /// Checks the launch's block against the contract's `max_block(x, y, z)`.
    #[inline]
    pub fn check_max_block(
        kernel: &'static str,
        config: &LaunchConfig,
        max: (u32, u32, u32),
    ) -> Result<()> {
        let b = config.block;
        if b.0 <= max.0 && b.1 <= max.1 && b.2 <= max.2 {
            Ok(())
        } else {
            Err(Error::custack(
                ErrorKind::OutOfRange,
                format!(
                    "kernel {kernel:?}: a block of {b:?} threads exceeds its contract's \
                     max_block{max:?}; nothing was launched"
                ),
            ))
        }
    }

    /// Checks that the grid of `config` is a whole number of clusters of shape `cluster`.
    #[inline]
    pub fn check_cluster(
        kernel: &'static str,
        config: &LaunchConfig,
        cluster: (u32, u32, u32),
    ) -> Result<()> {
        let g = config.grid;
        let whole = |grid: u32, c: u32| c != 0 && grid % c == 0;
        if whole(g.0, cluster.0) && whole(g.1, cluster.1) && whole(g.2, cluster.2) {
            Ok(())
        } else {
            Err(Error::custack(
                ErrorKind::OutOfRange,
                format!(
                    "kernel {kernel:?}: a grid of {g:?} blocks is not a whole number of its \
                     contract's cluster{cluster:?} in every dimension; nothing was launched"
                ),
            ))
        }
    }

    /// Checks one buffer argument: `Ok` if it holds `required`.
    #[inline]
    pub fn check_extent(
        kernel: &'static str,
        param: &'static str,
        extent: &'static str,
        available: Option<Available>,
        required: Required,
    ) -> Result<()> {
        let Some(available) = available else {
            // Every parameter has its argument (the argument types match the contract); an
            // argument without a length is refused rather than launched unchecked.
            return Err(Error::custack(
                ErrorKind::KernelSignatureMismatch,
                format!("kernel `{kernel}`: no length known for parameter `{param}`"),
            ));
        };
        let (need, have, unit) = match required {
            Required::Elements(Some(n)) => (n, available.elements, "elements"),
            Required::Bytes(Some(n)) => (n, available.bytes, "bytes"),
            Required::Elements(None) | Required::Bytes(None) => {
                return Err(overflow(kernel, param, extent));
            }
        };
        if need <= have {
            Ok(())
        } else {
            Err(too_short(kernel, param, extent, have, need, unit))
        }
    }

    #[cold]
    #[inline(never)]
    fn overflow(kernel: &str, param: &str, extent: &str) -> Error {
        Error::custack(
            ErrorKind::SizeOverflow,
            format!(
                "kernel {kernel:?}: the extent `{extent}` of parameter `{param}` overflows \
                 (or a factor is negative); nothing was launched"
            ),
        )
    }

    #[cold]
    #[inline(never)]
    fn too_short(
        kernel: &str,
        param: &str,
        extent: &str,
        have: usize,
        need: usize,
        unit: &str,
    ) -> Error {
        Error::custack(
            ErrorKind::BufferTooShort,
            format!(
                "kernel {kernel:?}: parameter `{param}` holds {have} {unit}, but its extent \
                 `{extent}` requires {need} for this launch; nothing was launched"
            ),
        )
    }
}

/// How a [`Declared`] kernel's parameter list was checked against the kernel when it was looked
/// up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CheckedBy {
    /// Against the driver's parameter information (`cuFuncGetParamInfo`, CUDA 12.4+): the
    /// number of parameters, and each one's offset and size.
    ParamInfo,
    /// Against the `.entry`'s `.param` list in the PTX text the module was loaded from, or, for
    /// a program NVRTC compiled, NVRTC's PTX kept beside its cubin (a driver before CUDA 12.4):
    /// the number of parameters, and each one's size and offset.
    Ptx,
    /// Not checked: the driver cannot tell the kernel's parameters, and custack has no PTX of
    /// the module (a cubin, a fatbin, an adopted module). The declaration is
    /// then its author's word alone.
    Unchecked,
}

mod source_sealed {
    pub trait Sealed {}
}

/// Where a [`Declared`] kernel's function comes from: a [`Module`] ([`FromModule`]) or a
/// [`Library`](crate::Library) ([`FromLibrary`]). Sealed.
pub trait KernelSource: source_sealed::Sealed + 'static {}

/// A [`Declared`] kernel of a [`Module`] ([`Module::declared`]): it travels like a
/// [`Function`], as a payload of submissions and graphs, and parks (its module synchronizes
/// before it unloads or lends a global). Never constructed.
#[derive(Debug)]
pub enum FromModule {}
/// A [`Declared`] kernel of a [`Library`](crate::Library) ([`LibraryFunction::declared`]):
/// like the [`LibraryFunction`] it comes from, it launches in borrowing scopes only, not in
/// submissions or graphs, which could carry it past the library's unload (C20). Never
/// constructed.
#[derive(Debug)]
pub enum FromLibrary {}
impl source_sealed::Sealed for FromModule {}
impl KernelSource for FromModule {}
impl source_sealed::Sealed for FromLibrary {}
impl KernelSource for FromLibrary {}

/// A kernel looked up with its [`Contract`]: launched safely with [`StreamScope::run`],
/// [`run_with`](StreamScope::run_with), [`run_cooperative`](StreamScope::run_cooperative) and
/// [`run_clustered`](StreamScope::run_clustered).
///
/// `S` says where its function comes from: a module ([`FromModule`], the default, from
/// [`Module::declared`]), launched in scopes, submissions and graph captures; or a library
/// ([`FromLibrary`], written [`DeclaredLibrary`], from [`LibraryFunction::declared`]), launched
/// in scopes only (C20).
///
/// `Copy`; borrows its module (or library) like [`Function`], so it cannot outlive it (C9),
/// and is lent under the guard it was looked up with, so it is not launched under another
/// context (C23).
pub struct Declared<'m, C: Contract, S: KernelSource = FromModule> {
    function: Function<'m>,
    checked: CheckedBy,
    _contract: PhantomData<fn() -> (C, S)>,
}

/// A library kernel's function ([`LibraryFunction`]) with its [`Contract`]
/// ([`LibraryFunction::declared`]): a [`Declared`] kernel [`FromLibrary`], launched in
/// borrowing scopes only (C20), under the guard that lent it.
pub type DeclaredLibrary<'a, C> = Declared<'a, C, FromLibrary>;

impl<C: Contract, S: KernelSource> core::fmt::Debug for Declared<'_, C, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Declared")
            .field("kernel", &C::KERNEL)
            .field("function", &self.function)
            .field("checked", &self.checked)
            .finish()
    }
}
impl<C: Contract, S: KernelSource> Clone for Declared<'_, C, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: Contract, S: KernelSource> Copy for Declared<'_, C, S> {}

static_assertions::assert_not_impl_any!(Declared<'static, NoContract>: Send, Sync);
static_assertions::assert_not_impl_any!(DeclaredLibrary<'static, NoContract>: Send, Sync);

/// A contract for the static assertions above.
#[cfg_attr(not(test), allow(dead_code))]
struct NoContract;
// SAFETY: never launched: only named by a static assertion.
unsafe impl Contract for NoContract {
    const KERNEL: &'static str = "";
    const PARAMS: &'static [&'static str] = &[];
    type Signature = ();
}

impl<C: Contract, S: KernelSource> Declared<'_, C, S> {
    /// How the declaration was checked against the kernel at lookup: by the driver's parameter
    /// information, the PTX `.entry` (a module loaded from PTX), or not at all.
    pub fn checked_by(&self) -> CheckedBy {
        self.checked
    }

    /// Checks `C` against `function` and declares it: against the driver's parameter
    /// information, asking for `count` parameters where the driver cannot count them (the
    /// kernel's own `.entry` says so), or where the driver cannot tell at all, against
    /// `from_ptx`, the `.entry` of the PTX its module was loaded from.
    fn check(
        function: Function<'_>,
        from_ptx: Option<Vec<ptx::PtxParam>>,
        count: Option<usize>,
    ) -> Result<Self> {
        let checked = match function.param_layout_of(count) {
            Ok(layout) => {
                compare::<C>("the driver's parameter information", &layout)?;
                CheckedBy::ParamInfo
            }
            Err(e) if e.kind() == ErrorKind::DriverTooOld => match from_ptx {
                Some(params) => {
                    compare::<C>("the PTX .entry", &c_layout(&params))?;
                    CheckedBy::Ptx
                }
                None => CheckedBy::Unchecked,
            },
            Err(e) => return Err(e),
        };
        Ok(Self {
            // SAFETY: the same function; the caller ties the result's lifetime to its module or
            // library.
            function: unsafe { Function::from_raw(function.as_raw()) },
            checked,
            _contract: PhantomData,
        })
    }
}

impl<'m, C: Contract> Declared<'m, C> {
    /// The kernel as an unchecked [`Function`] (for the `unsafe` launches, or its attributes).
    /// Only for a module's kernel: a library's function is not a payload (C20).
    pub fn function(&self) -> Function<'m> {
        self.function
    }

    /// The raw `CUfunction`.
    pub fn as_raw(&self) -> crate::ffi::CUfunction {
        self.function.as_raw()
    }
}

impl Module<'_> {
    /// `cuModuleGetFunction`, `cuFuncGetParamInfo`—The kernel of the contract `C`
    /// ([`kernel_contract!`](crate::kernel_contract)), its parameter list checked against the
    /// kernel once, here: against the driver's parameter information where the driver has it
    /// (CUDA 12.4, looked up), otherwise against the PTX `.entry` if this module was loaded from
    /// PTX by custack ([`load_ptx`](crate::PushedGuard::load_ptx),
    /// [`load_ptx_with`](crate::PushedGuard::load_ptx_with)) or compiled by NVRTC
    /// (`load_compiled`, feature `nvrtc`). Where neither can tell (a cubin
    /// on an older driver), the contract is not checked: [`Declared::checked_by`] says which.
    ///
    /// The check compares the number of parameters and each one's size and offset; it cannot
    /// tell `u32` from `f32`, a pointer from a `u64`, or what the kernel does with its buffers:
    /// that is the declaration's promise.
    ///
    /// No driver call of the check fails, so tools that report API errors (compute-sanitizer
    /// by default) stay quiet: the driver is asked about exactly as many parameters as the
    /// kernel has, counted by the driver (`cuFuncGetParamCount`, CUDA 13.2, looked up) or, on
    /// an older driver, by the PTX `.entry` of a module loaded from PTX. Only a module that is
    /// not (a cubin, a fatbin, an adopted module) on a driver before 13.2 is probed one index
    /// past its last parameter, which the driver refuses with `CUDA_ERROR_INVALID_VALUE` (its
    /// answer, not an error of the program; such a tool shows it).
    ///
    /// # Errors
    ///
    /// As [`function`](Self::function);
    /// [`ErrorKind::KernelSignatureMismatch`] naming the first parameter that differs (R13).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetParamInfo")]
    #[doc(alias = "cuFuncGetParamCount")]
    pub fn declared<C: Contract>(&self) -> Result<Declared<'_, C>> {
        let function = self.function(C::KERNEL)?;
        // The PTX's own parameter list, if custack loaded the module from PTX: where the driver
        // cannot count parameters, it says how many to ask for (so that no query fails).
        let from_ptx = self
            .ptx()
            .and_then(|ptx| ptx::entry_params(ptx, self.symbol(C::KERNEL)));
        let count = from_ptx.as_ref().map(Vec::len);
        Declared::check(function, from_ptx, count)
    }
}

/// Checks `C` against the `.entry` of `symbol` in `ptx` (NVRTC's output, before any module is
/// loaded): [`ErrorKind::NotFound`] if there is no such entry.
#[cfg_attr(not(feature = "nvrtc"), allow(dead_code))]
pub(crate) fn check_ptx<C: Contract>(ptx: &[u8], symbol: &str) -> Result<()> {
    let params = ptx::entry_params(ptx, symbol).ok_or_else(|| {
        Error::custack(
            ErrorKind::NotFound,
            format!("kernel {:?}: no .entry {symbol:?} in the PTX", C::KERNEL),
        )
    })?;
    compare::<C>("the PTX .entry", &c_layout(&params))
}

/// PTX parameters laid out as C lays out a parameter list: `(offset, size)`.
fn c_layout(params: &[ptx::PtxParam]) -> Vec<(usize, usize)> {
    let mut end = 0usize;
    params
        .iter()
        .map(|p| {
            // An alignment of 0 or an overflow (from a malformed PTX) gives an offset no kernel
            // has, so the comparison reports a mismatch instead of panicking.
            let offset = end.checked_next_multiple_of(p.align).unwrap_or(usize::MAX);
            end = offset.saturating_add(p.size);
            (offset, p.size)
        })
        .collect()
}

/// Compares the kernel's `(offset, size)` list, read from `source`, with `C`'s declaration.
fn compare<C: Contract>(source: &str, kernel: &[(usize, usize)]) -> Result<()> {
    let declared = <C::Signature as KernelSignature>::LAYOUT;
    let mismatch = |detail: String| {
        Err(Error::custack(
            ErrorKind::KernelSignatureMismatch,
            format!(
                "kernel {:?} does not match its contract ({source}): {detail}",
                C::KERNEL
            ),
        ))
    };
    if kernel.len() != declared.len() {
        return mismatch(format!(
            "the kernel takes {} parameters, the contract declares {} ({})",
            kernel.len(),
            declared.len(),
            C::PARAMS.join(", ")
        ));
    }
    let types = <C::Signature as KernelSignature>::names();
    for (i, (k, d)) in kernel.iter().zip(declared).enumerate() {
        if k != d {
            let name = C::PARAMS.get(i).copied().unwrap_or("?");
            let ty = types.get(i).copied().unwrap_or("?");
            return mismatch(format!(
                "parameter {i} `{name}` is declared `{ty}`, {} bytes at offset {}, but the \
                 kernel's is {} bytes at offset {}",
                d.1, d.0, k.1, k.0
            ));
        }
    }
    Ok(())
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuLaunchKernel`—Enqueues a launch of a declared kernel: a safe call.
    ///
    /// The compiler checks `args` against the contract (one argument per parameter, in order,
    /// of its type; buffers the kernel writes bound writably); before anything is enqueued,
    /// every buffer's length is checked against its extent for `config`, with integer
    /// arithmetic only.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::BufferTooShort`] naming the parameter, its length and the extent required;
    /// [`ErrorKind::SizeOverflow`] if an extent's arithmetic overflows (R12): then nothing is
    /// enqueued. Launch errors as [`launch`](Self::launch).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
    ///
    /// custack::kernel_contract! {
    ///     /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    ///     pub unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// }
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(include_str!("../../../tests/fixtures/kernels.ptx"))?;
    /// let add = module.declared::<AddU32>()?;
    /// let mut x = guard.alloc_zeroed::<u32>(1024)?;
    /// guard.stream()?.scope(|s| {
    ///     let mut dx = s.bind_mut(&mut x);
    ///     s.run(&add, LaunchConfig::for_elements(1024), (&mut dx, 1, 1024))
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[inline]
    #[allow(clippy::needless_pass_by_value)]
    pub fn run<C: PlainLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        args.check(&config)?;
        // SAFETY: `kernel` is a function of a module (or library) of the current context that
        // outlives the scope (borrowed for 'scope); its contract (`unsafe` to declare) promises
        // it takes exactly `C::Signature`, which `A`'s arguments pass (sealed `ContractArg`s of
        // each parameter's kind), and touches only the buffers passed, within their declared
        // extents, writing only those declared `&mut` (bound writably: the compiler checked);
        // `check` just confirmed each buffer holds its extent for `config`.
        unsafe { self.launch(&kernel.function, config, args) }
    }

    /// `cuLaunchKernelEx`—[`run`](Self::run) with launch attributes (clusters, priority,
    /// programmatic serialization, cooperative).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) and [`launch_with`](Self::launch_with).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernelEx")]
    #[allow(clippy::needless_pass_by_value)]
    pub fn run_with<C: PlainLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        attributes: &LaunchAttributes,
        args: A,
    ) -> Result<()> {
        if attributes.programmatic_serialization {
            // It lets this launch start before the previous kernel on the stream ends, which a
            // contract does not describe (it would need the kernel to wait on the GPU before
            // touching what that kernel writes): the borrows of the scope assume stream order.
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "kernel `{}`: programmatic stream serialization is not part of a kernel contract; launch it with the unsafe `launch_with`",
                    C::KERNEL
                ),
            ));
        }
        args.check(&config)?;
        // SAFETY: as in `run`; the remaining attributes (clusters, priority, cooperative) change
        // how the blocks are scheduled, not which threads run or in which order the stream's
        // work runs (clusters must divide the grid), so the extents checked for `config` hold.
        unsafe { self.launch_with(&kernel.function, config, attributes, args) }
    }

    /// `cuLaunchCooperativeKernel`—[`run`](Self::run) as a cooperative launch (a grid-wide
    /// barrier), the grid checked first as in
    /// [`launch_cooperative`](Self::launch_cooperative). The only safe launch of a contract
    /// declared `cooperative` ([`PlainLaunch`]); any other contract without a cluster shape
    /// may launch so too ([`CooperativeLaunch`]).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) and [`launch_cooperative`](Self::launch_cooperative).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchCooperativeKernel")]
    #[allow(clippy::needless_pass_by_value)]
    pub fn run_cooperative<C: CooperativeLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        args.check(&config)?;
        // SAFETY: as in `run`.
        unsafe { self.launch_cooperative(&kernel.function, config, args) }
    }

    /// `cuLaunchKernelEx`—[`run`](Self::run) for a kernel written for thread-block clusters
    /// (compute capability 9.0): launched in clusters of exactly the shape its contract declares
    /// (`cluster(x, y, z)`, [`ClusterLaunch`]), the only safe launch of such a contract.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`](crate::ErrorKind::OutOfRange) naming the clause if the grid
    /// is not a whole number of clusters in every dimension (nothing is enqueued); as
    /// [`run`](Self::run) and [`launch_with`](Self::launch_with) (a device without clusters
    /// refuses the launch).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernelEx")]
    #[allow(clippy::needless_pass_by_value)]
    pub fn run_clustered<C: ClusterLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        __private::check_cluster(C::KERNEL, &config, C::CLUSTER)?;
        args.check(&config)?;
        let attributes = LaunchAttributes {
            cluster: Some(C::CLUSTER),
            ..LaunchAttributes::default()
        };
        // SAFETY: as in `run`; the launch has the cluster shape the contract declares, and the
        // grid is a whole number of clusters (checked above).
        unsafe { self.launch_with(&kernel.function, config, &attributes, args) }
    }
}

impl<'a> LibraryFunction<'a> {
    /// `cuFuncGetParamInfo`—This function with the contract `C`, its parameter list checked
    /// against the kernel where the driver can tell (CUDA 12.4, looked up); unchecked before
    /// ([`DeclaredLibrary::checked_by`]). `C::KERNEL` is not looked up again: the function is
    /// the kernel it was made from.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::KernelSignatureMismatch`] naming the first parameter that differs; driver
    /// errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuFuncGetParamInfo")]
    pub fn declared<C: Contract>(&self) -> Result<DeclaredLibrary<'a, C>> {
        // SAFETY: the same function, for the same lifetime: its library outlives `'a`.
        let function = unsafe { Function::from_raw(self.as_raw()) };
        // Not checked against the PTX (an older driver leaves it unchecked), but its `.entry`
        // in the library's PTX, found by the name the kernel was looked up with, says how many
        // parameters to ask the driver for.
        Declared::check(function, None, self.entry_param_count())
    }
}

impl<C: Contract> payload_sealed::Sealed for Declared<'_, C> {}
impl<'f, C: Contract> Payload for Declared<'f, C> {
    type Bound<'scope> = Declared<'scope, C>;
    type Access<'a>
        = Declared<'f, C>
    where
        Self: 'a;
    type Read<'a>
        = Declared<'f, C>
    where
        Self: 'a;
    held_as_itself!();
    #[inline]
    unsafe fn bind<'scope>(held: &mut Self) -> Declared<'scope, C> {
        Declared {
            // SAFETY: as for `Function`: the submission or graph holds the declared kernel, and
            // so the borrow of its module, until its work is complete.
            function: unsafe { Function::from_raw(held.function.as_raw()) },
            checked: held.checked,
            _contract: PhantomData,
        }
    }
    #[inline]
    fn access<'a>(held: &'a mut Self) -> Declared<'f, C>
    where
        Self: 'a,
    {
        *held
    }
    #[inline]
    fn read<'a>(held: &'a Self) -> Declared<'f, C>
    where
        Self: 'a,
    {
        *held
    }
}

/// Declares kernel contracts: for each kernel, its name, its parameters in order with Rust
/// types, and for every buffer parameter whether the kernel reads (`&[T; extent]`) or writes
/// (`&mut [T; extent]`) it and how many elements it may touch. Launches of the declared kernel
/// ([`Module::declared`](crate::Module::declared), [`StreamScope::run`](crate::StreamScope::run))
/// are then safe calls.
///
/// ```
/// custack::kernel_contract! {
///     /// `vector_add(const float* a, const float* b, float* c, int n)`: `c[i] = a[i] + b[i]`
///     /// for `i < n`.
///     pub unsafe kernel VectorAdd = "vector_add"(
///         a: &[f32; n],
///         b: &[f32; n],
///         c: &mut [f32; n],
///         n: i32,
///     );
///
///     /// `scale(float* m, unsigned rows, unsigned cols, float k)`: every element of a
///     /// `rows × cols` matrix.
///     pub unsafe kernel Scale = "scale"(m: &mut [f32; rows * cols], rows: u32, cols: u32, k: f32);
///
///     /// `fill_rows(float* img, size_t pitch, unsigned width, unsigned height)`: `height` rows
///     /// of `pitch` bytes.
///     pub unsafe kernel FillRows = "fill_rows"(
///         img: &mut [f32; pitched(height, pitch)],
///         pitch: u64,
///         width: u32,
///         height: u32,
///     );
///
///     /// `iota(unsigned* x)`: `x[i] = i` for every launched thread, no bounds check.
///     unsafe kernel Iota = "iota"(x: &mut [u32; grid]);
///
///     /// `block_sums(const unsigned* x, unsigned n, unsigned* sums)`: one sum per block, through
///     /// one `unsigned` of dynamic shared memory per thread.
///     unsafe kernel BlockSums = "block_sums"(x: &[u32; n], n: u32, sums: &mut [u32; blocks])
///         shared(block * 4);
///
///     /// `normalize(float* x, unsigned n)`: divides by the sum of all of `x`, after a grid-wide
///     /// barrier (cooperative groups): launched only with `run_cooperative`.
///     unsafe kernel Normalize = "normalize"(x: &mut [f32; n], n: u32) cooperative;
///
///     /// `pair_sums(const float* x, float* out)`: each block adds its partner's shared
///     /// memory (distributed shared memory of a cluster of 2): launched only with
///     /// `run_clustered`, in clusters of 2 blocks.
///     unsafe kernel PairSums = "pair_sums"(x: &[f32; grid], out: &mut [f32; blocks]) cluster(2, 1, 1);
/// }
/// ```
///
/// Each declaration is `$vis unsafe kernel Name = "kernel_name"(params);` (or `... (params)
/// shared(bytes);`, with the clauses below) and defines a unit
/// struct `Name` implementing [`Contract`](crate::Contract) (doc comments and attributes go on
/// it). A parameter is `name: T` for a scalar of plain data ([`DeviceCopy`](crate::DeviceCopy)),
/// `name: &[T; extent]` / `name: &mut [T; extent]` for device memory of `T` that the kernel
/// reads / writes, `name: texture` for a texture object it samples, or `name: surface` for a
/// surface object it reads and writes.
///
/// A texture parameter takes the texture bound to the launching scope
/// ([`bind_texture`](crate::StreamScope::bind_texture)), which borrows its array or memory, so
/// nothing writes that resource while a launch may sample it (C21); a surface parameter takes
/// `&mut` the surface bound to the scope ([`bind_surface`](crate::StreamScope::bind_surface),
/// exclusive). Neither has an extent: every access through a texture or surface object is
/// bounds-checked by the hardware. A texture read outside its resource returns what its address
/// mode says (wrap, clamp, mirror or the border color); a surface access outside its array does
/// what the instruction's boundary mode says, none of which touches memory outside the array:
/// `.trap` (the default of CUDA C++'s `surf2Dwrite`) aborts the launch with an error, which is
/// sticky (`CUDA_ERROR_ILLEGAL_ADDRESS` or `LAUNCH_FAILED`: the context is lost, as after any
/// fault), `.clamp` accesses the nearest element inside, and `.zero` drops the write (a read
/// gives 0). So a contract allows every mode; one that may trap is still a kernel bug, only not
/// a memory-safety one.
///
/// An extent is one of:
///
/// | extent | the kernel touches |
/// | --- | --- |
/// | `n` | `n` elements, `n` an integer scalar parameter |
/// | `rows * cols`, `4 * n` | the product of integer scalar parameters and integer literals |
/// | `n + 1`, `(n + 1) * 4` | sums and parenthesized sub-extents of those (CSR row offsets, an exclusive scan's output) |
/// | `pitched(height, pitch)` | `height` rows of `pitch` bytes (a pitched allocation) |
/// | `grid` | one element per launched thread (grid × block), for kernels without a bounds check |
/// | `blocks`, `4 * blocks` | one element (four) per block of the launch, e.g. per-block partial results |
/// | `block` | one element per thread of a block |
/// | `grid_y * width` | one axis of the launch times a parameter: `grid_y` rows of `width` (a 2-D kernel writing `out[y * width + x]`) |
///
/// The launch words are `grid` (threads in the launch, grid × block), `blocks` (blocks in the
/// launch) and `block` (threads per block), and each of them along one axis: `grid_x`, `grid_y`,
/// `grid_z` (threads along the axis: blocks × block size in it), `blocks_x`, `blocks_y`,
/// `blocks_z` and `block_x`, `block_y`, `block_z`. Each may be a factor of a product; none may be
/// a parameter's name (a compile error).
///
/// A kernel whose reach depends on more than the launch's size (a 2-D kernel without bounds
/// checks, a tiled kernel that assumes its block shape or a whole number of tiles) states its
/// preconditions after its parameters, `requires(cond, ...)`: each condition compares two
/// extents with `==`, `!=`, `<`, `<=`, `>` or `>=` (`width > 0`, `grid_x <= width`,
/// `block_x == 32`), or says a factor is a multiple of another (`wa % 32 == 0`). Both sides are
/// computed in checked `usize` like an extent; each launch checks them in order, before the
/// extents, and one that does not hold refuses the launch with
/// [`ErrorKind::PreconditionFailed`](crate::ErrorKind::PreconditionFailed) naming the condition
/// and the values it compared (a side that overflows or a negative factor:
/// [`SizeOverflow`](crate::ErrorKind::SizeOverflow)); nothing is enqueued. NVIDIA's
/// matrixMulDrv kernel, for instance (`tests/gpu_contract.rs`):
///
/// ```text
/// unsafe kernel MatrixMul = "matrix_mul_bs32"(
///     c: &mut [f32; grid_y * wb], a: &[f32; grid_y * wa], b: &[f32; wa * wb], wa: u64, wb: u64,
/// ) requires(
///     block_x == 32, block_y == 32, block_z == 1, blocks_z == 1,
///     wa > 0, wa % 32 == 0, grid_x <= wb,
/// );
/// ```
///
/// A kernel that uses dynamic shared memory declares how much it touches after its
/// parameters (and `requires(..)`), `shared(block * 8)` (bytes, a product as above): a launch
/// with less `shared_mem_bytes` is refused. A kernel that indexes fixed-size (static) shared
/// memory by thread index declares the largest block it takes, `max_block(16, 16, 1)` (after
/// `shared(..)` if both): a launch with a larger block in any dimension is refused. A kernel that synchronizes
/// the whole grid (cooperative groups' `grid.sync()`) ends its declaration with `cooperative`
/// (after the other clauses): it then launches only with
/// [`run_cooperative`](crate::StreamScope::run_cooperative), and `run` and `run_with`
/// refuse it at compile time ([`PlainLaunch`](crate::PlainLaunch)). A kernel
/// written for thread-block clusters (distributed shared memory, cluster barriers) ends its
/// declaration with `cluster(x, y, z)` instead, its cluster shape in blocks: it then launches only
/// with [`run_clustered`](crate::StreamScope::run_clustered), in exactly that shape (a grid that
/// is not a whole number of clusters is refused), and every other launch refuses it at compile
/// time ([`ClusterLaunch`](crate::ClusterLaunch), [`CooperativeLaunch`](crate::CooperativeLaunch)).
///
/// Extents are computed at each launch in checked `usize` arithmetic: every factor is converted
/// to `usize` first (never added or multiplied in its own type, where `255u8 + 1` would wrap), and
/// a negative factor or an overflow refuses the launch. Anything else in an extent or a condition
/// (`-`, `/`, a method call, a cast, a name that is not one of the contract's scalar
/// parameters, a buffer) is a compile error that says what an extent may hold. (The launch
/// words and `pitched` are words of the syntax, not parameter names.)
///
/// # Safety
///
/// `unsafe` is the declaration's promise, for every launch whose shape and arguments meet its
/// `requires(..)` conditions (custack refuses every other): the kernel takes exactly these
/// parameters (checked at lookup where the driver or the PTX can tell:
/// [`CheckedBy`](crate::CheckedBy)), reads and
/// writes only the buffers passed to it, within their extents, writes only those declared
/// `&mut`, dereferences no address it was not passed as a buffer (an integer parameter is
/// never an address; it may read and write its own module's global variables, which the host
/// reaches only through [`Module::global`](crate::Module::global) and
/// [`global_mut`](crate::Module::global_mut): they borrow the module exclusively, so no handle
/// of its kernels lives beside the view, and wait for the context first, so no kernel launched
/// earlier still runs; launches of it may run at once on several streams, so its use of globals
/// must allow that, e.g. atomics), touches no more dynamic shared memory than its `shared(..)` clause
/// (none without one), stays within its static shared memory for every block its `max_block(..)`
/// clause allows (any block without one), unless declared `cooperative`, does not need a
/// cooperative launch (no grid-wide barrier), and, unless declared with `cluster(..)`, does not
/// need a cluster shape (with it: stays within all of the above in clusters of that shape).
#[macro_export]
macro_rules! kernel_contract {
    () => {};
    (
        $(#[$attr:meta])*
        $vis:vis unsafe kernel $name:ident = $kernel:literal ( $($params:tt)* )
            $(requires ( $($req:tt)+ ))?
            $(shared ( $($shared:tt)+ ))?
            $(max_block ( $bx:literal, $by:literal, $bz:literal ))?;
        $($rest:tt)*
    ) => {
        $crate::__kernel_contract_params! {
            [$(#[$attr])* $vis $name $kernel [$($($req)+)?] [$($($shared)+)?] [$($bx, $by, $bz)?]
                plain]
            [] $($params)*
        }
        $crate::kernel_contract! { $($rest)* }
    };
    (
        $(#[$attr:meta])*
        $vis:vis unsafe kernel $name:ident = $kernel:literal ( $($params:tt)* )
            $(requires ( $($req:tt)+ ))?
            $(shared ( $($shared:tt)+ ))?
            $(max_block ( $bx:literal, $by:literal, $bz:literal ))?
            cluster ( $cx:literal, $cy:literal, $cz:literal );
        $($rest:tt)*
    ) => {
        $crate::__kernel_contract_params! {
            [$(#[$attr])* $vis $name $kernel [$($($req)+)?] [$($($shared)+)?] [$($bx, $by, $bz)?]
                (clustered $cx $cy $cz)]
            [] $($params)*
        }
        $crate::kernel_contract! { $($rest)* }
    };
    (
        $(#[$attr:meta])*
        $vis:vis unsafe kernel $name:ident = $kernel:literal ( $($params:tt)* )
            $(requires ( $($req:tt)+ ))?
            $(shared ( $($shared:tt)+ ))?
            $(max_block ( $bx:literal, $by:literal, $bz:literal ))?
            cooperative;
        $($rest:tt)*
    ) => {
        $crate::__kernel_contract_params! {
            [$(#[$attr])* $vis $name $kernel [$($($req)+)?] [$($($shared)+)?] [$($bx, $by, $bz)?]
                cooperative]
            [] $($params)*
        }
        $crate::kernel_contract! { $($rest)* }
    };
}

/// Normalizes a contract's parameters, one at a time, to `(name, kind, [extent])`, then writes
/// the contract. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_params {
    (
        [$(#[$attr:meta])* $vis:vis $name:ident $kernel:literal [$($req:tt)*] [$($shared:tt)*]
            [$($max:tt)*] $launch:tt]
        [$(($p:ident, $kind:ty, [$($e:tt)*], $tag:ident))*]
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        $vis struct $name;

        $crate::__kernel_contract_launch!($launch $name);

        // SAFETY: the `unsafe` of this contract's declaration: its author's promise (see
        // `kernel_contract!`).
        unsafe impl $crate::Contract for $name {
            const KERNEL: &'static str = $kernel;
            const PARAMS: &'static [&'static str] = &[$(stringify!($p)),*];
            type Signature = ($(<$kind as $crate::ParamKind>::Param,)*);
        }

        // SAFETY: `check` refuses any buffer shorter than its declared extent, computed with
        // checked arithmetic.
        #[allow(non_camel_case_types)]
        unsafe impl<'scope, $($p: $crate::ContractArg<'scope, $kind>),*>
            $crate::ContractArgs<'scope, $name> for ($($p,)*)
        {
            #[inline]
            #[allow(unused_variables, unused_mut, clippy::unused_unit)]
            fn check(&self, config: &$crate::LaunchConfig) -> $crate::Result<()> {
                let ($($p,)*) = self;
                let mut available = $crate::__private_contract::available([
                    $($crate::ContractArg::<'scope, $kind>::available($p)),*
                ]);
                $(let $p = $crate::ContractArg::<'scope, $kind>::scalar($p);)*
                $($crate::__kernel_contract_reserved!($p);)*
                $crate::__kernel_contract_names!(($) [$(($p $tag))*]);
                $crate::__kernel_contract_requires!(config, $kernel, [$($req)*]);
                $(
                    $crate::__kernel_contract_check!(
                        config, $kernel, $p, available.next(), [$($e)*]
                    );
                )*
                $crate::__kernel_contract_shared!(config, $kernel, [$($shared)*]);
                $crate::__kernel_contract_max_block!(config, $kernel, [$($max)*]);
                Ok(())
            }
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : &mut [$t:ty; $($e:tt)+] $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::WriteBuffer<$t>, [$($e)+], buffer)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : &[$t:ty; $($e:tt)+] $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::ReadBuffer<$t>, [$($e)+], buffer)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : $(custack ::)? TextureHandle $(, $($rest:tt)*)?) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: declare the texture parameter `", ::core::stringify!($p),
            "` as `", ::core::stringify!($p), ": texture`; it then takes the texture bound to the \
             launching scope, `s.bind_texture(&texture)` (a `TextureHandle` is not plain data)"
        ));
    };
    ($head:tt [$($done:tt)*] $p:ident : $(custack ::)? SurfaceHandle $(, $($rest:tt)*)?) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: declare the surface parameter `", ::core::stringify!($p),
            "` as `", ::core::stringify!($p), ": surface`; it then takes `&mut` the surface bound \
             to the launching scope, `s.bind_surface(&mut surface)` (a `SurfaceHandle` is not \
             plain data)"
        ));
    };
    ($head:tt [$($done:tt)*] $p:ident : texture $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::TextureParam, [], texture)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : surface $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::SurfaceParam, [], surface)] $($($rest)*)?
        }
    };
    ($head:tt [$($done:tt)*] $p:ident : $t:ty $(, $($rest:tt)*)?) => {
        $crate::__kernel_contract_params! {
            $head [$($done)* ($p, $crate::Scalar<$t>, [], scalar)] $($($rest)*)?
        }
    };
}

/// The launches a contract takes: [`PlainLaunch`] and [`CooperativeLaunch`] for a plain one,
/// [`CooperativeLaunch`] for a cooperative one, [`ClusterLaunch`] for a clustered one. Not
/// public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_launch {
    (plain $name:ident) => {
        // SAFETY: the `unsafe` of this contract's declaration, which says neither `cooperative`
        // nor `cluster`: its author's promise that the kernel needs neither launch.
        unsafe impl $crate::PlainLaunch for $name {}
        // SAFETY: as above: no cluster shape.
        unsafe impl $crate::CooperativeLaunch for $name {}
    };
    (cooperative $name:ident) => {
        // SAFETY: the `unsafe` of this contract's declaration, which does not say `cluster`.
        unsafe impl $crate::CooperativeLaunch for $name {}
    };
    ((clustered $cx:literal $cy:literal $cz:literal) $name:ident) => {
        // SAFETY: the `unsafe` of this contract's declaration: its author's promise that the
        // kernel stays within it in clusters of this shape.
        unsafe impl $crate::ClusterLaunch for $name {
            const CLUSTER: (u32, u32, u32) = ($cx, $cy, $cz);
        }
    };
}

/// One parameter's check: nothing for a scalar. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_check {
    ($config:ident, $kernel:expr, $p:ident, $available:expr, []) => {
        let _ = $available;
    };
    ($config:ident, $kernel:expr, $p:ident, $available:expr, [$($e:tt)+]) => {
        $crate::__private_contract::check_extent(
            $kernel,
            stringify!($p),
            stringify!($($e)+),
            $available,
            $crate::__kernel_contract_extent!($config; $($e)+),
        )?
    };
}

/// The dynamic shared memory check. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_shared {
    ($config:ident, $kernel:expr, []) => {};
    ($config:ident, $kernel:expr, [$($e:tt)+]) => {
        $crate::__private_contract::check_shared(
            $kernel,
            stringify!($($e)+),
            $config.shared_mem_bytes,
            $crate::__kernel_contract_sum!($config; $($e)+),
        )?
    };
}

/// The block-shape limit. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_max_block {
    ($config:ident, $kernel:expr, []) => {};
    ($config:ident, $kernel:expr, [$bx:literal, $by:literal, $bz:literal]) => {
        $crate::__private_contract::check_max_block($kernel, $config, ($bx, $by, $bz))?
    };
}

/// Refuses a parameter named like a word of the extent syntax, which an extent would read as
/// the launch shape instead of the parameter. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_reserved {
    (grid) => { $crate::__kernel_contract_reserved!(@word grid) };
    (blocks) => { $crate::__kernel_contract_reserved!(@word blocks) };
    (block) => { $crate::__kernel_contract_reserved!(@word block) };
    (pitched) => { $crate::__kernel_contract_reserved!(@word pitched) };
    (grid_x) => { $crate::__kernel_contract_reserved!(@word grid_x) };
    (grid_y) => { $crate::__kernel_contract_reserved!(@word grid_y) };
    (grid_z) => { $crate::__kernel_contract_reserved!(@word grid_z) };
    (blocks_x) => { $crate::__kernel_contract_reserved!(@word blocks_x) };
    (blocks_y) => { $crate::__kernel_contract_reserved!(@word blocks_y) };
    (blocks_z) => { $crate::__kernel_contract_reserved!(@word blocks_z) };
    (block_x) => { $crate::__kernel_contract_reserved!(@word block_x) };
    (block_y) => { $crate::__kernel_contract_reserved!(@word block_y) };
    (block_z) => { $crate::__kernel_contract_reserved!(@word block_z) };
    (@word $w:ident) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: a parameter cannot be named `", ::core::stringify!($w), "`: in an \
             extent or a condition it is a word of the launch shape; rename the parameter"
        ))
    };
    ($p:ident) => {};
}

/// Defines, inside a contract's check, the macro that turns a name in an extent or condition
/// into its value: a scalar parameter's, or a compile error that says what the name is (a
/// buffer, a texture or surface, or nothing of this contract) instead of rustc's "cannot find
/// value", which suggests any parameter of a similar name. `$d` is a `$` token. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_names {
    (($d:tt) [$(($p:ident $tag:ident))*]) => {
        #[allow(unused_macros)]
        macro_rules! __kernel_contract_param {
            $( ($p) => { $crate::__kernel_contract_param_of!($tag $p) }; )*
            ($d other:ident) => {
                ::core::compile_error!(::core::concat!(
                    "kernel_contract!: `", ::core::stringify!($d other), "` is not a parameter of \
                     this contract nor a launch word: an extent or a condition names the \
                     contract's own integer scalar parameters, integer literals and the launch \
                     words (`grid`, `blocks`, `block`, `grid_x`, `blocks_y`, `block_z`, ...); \
                     a size the kernel reaches that is not a parameter is written through the \
                     launch shape (`grid_y * width`) or stated with `requires(..)`"
                ))
            };
        }
    };
}

/// A name in an extent or condition, by the kind of the parameter it names. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_param_of {
    (scalar $p:ident) => {
        $crate::__private_contract::factor(&$p)
    };
    (buffer $p:ident) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `",
            ::core::stringify!($p),
            "` is a buffer parameter, not a \
             factor of an extent: name the integer scalar parameter that counts its elements"
        ))
    };
    ($other:ident $p:ident) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `",
            ::core::stringify!($p),
            "` is a ",
            ::core::stringify!($other),
            " parameter, not a factor of an extent"
        ))
    };
}

/// The `requires(..)` clause: each comma-separated condition checked in order. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_requires {
    ($config:ident, $kernel:expr, []) => {};
    ($config:ident, $kernel:expr, [$($c:tt)+]) => {
        $crate::__kernel_contract_requires!(@split $config, $kernel, [] $($c)+)
    };
    (@split $config:ident, $kernel:expr, [$($cur:tt)+] , $($rest:tt)*) => {
        $crate::__kernel_contract_condition!($config, $kernel; [$($cur)+]);
        $crate::__kernel_contract_requires!(@split $config, $kernel, [] $($rest)*)
    };
    (@split $config:ident, $kernel:expr, [] , $($rest:tt)*) => {
        ::core::compile_error!("kernel_contract!: `requires(..)` has an empty condition (two commas, or one first)")
    };
    (@split $config:ident, $kernel:expr, [$($cur:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__kernel_contract_requires!(@split $config, $kernel, [$($cur)* $t] $($rest)*)
    };
    (@split $config:ident, $kernel:expr, [$($cur:tt)+]) => {
        $crate::__kernel_contract_condition!($config, $kernel; [$($cur)+])
    };
    (@split $config:ident, $kernel:expr, []) => {};
}

/// One condition of a `requires(..)` clause: two extents compared (`==`, `!=`, `<`, `<=`, `>`,
/// `>=`), or `a % m == 0` of two factors. Both sides are evaluated in checked `usize`
/// arithmetic like an extent. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_condition {
    ($config:ident, $kernel:expr; [$a:tt % $m:tt == 0]) => {
        $crate::__private_contract::check_multiple(
            $kernel,
            ::core::stringify!($a % $m == 0),
            $crate::__kernel_contract_factor!($config; $a),
            $crate::__kernel_contract_factor!($config; $m),
        )?
    };
    ($config:ident, $kernel:expr; [$($c:tt)+]) => {
        $crate::__kernel_contract_condition!(@cmp $config, $kernel, [$($c)+] [] $($c)+)
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] == $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Eq [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] != $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Ne [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] <= $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Le [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] >= $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Ge [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] < $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Lt [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)+] > $($r:tt)+) => {
        $crate::__kernel_contract_condition!(@check $config, $kernel, [$($all)+] Gt [$($l)+] [$($r)+])
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__kernel_contract_condition!(@cmp $config, $kernel, [$($all)+] [$($l)* $t] $($rest)*)
    };
    (@cmp $config:ident, $kernel:expr, [$($all:tt)+] [$($l:tt)*]) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `", ::core::stringify!($($all)+), "` is not a condition: a \
             condition of `requires(..)` compares two extents with `==`, `!=`, `<`, `<=`, `>` or \
             `>=` (`width > 0`, `grid_x <= width`, `block_x == 16`), or says that a factor is a \
             multiple of another (`n % 32 == 0`), all in checked `usize` arithmetic"
        ))
    };
    (@check $config:ident, $kernel:expr, [$($all:tt)+] $op:ident [$($l:tt)+] [$($r:tt)+]) => {
        $crate::__private_contract::check_condition(
            $kernel,
            ::core::stringify!($($all)+),
            $crate::__kernel_contract_sum!($config; $($l)+),
            $crate::__private_contract::Compare::$op,
            $crate::__kernel_contract_sum!($config; $($r)+),
        )?
    };
}

/// An extent for one launch. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_extent {
    ($config:ident; pitched($rows:tt, $pitch:tt)) => {
        $crate::__private_contract::Required::Bytes($crate::__private_contract::product(&[
            $crate::__kernel_contract_factor!($config; $rows),
            $crate::__kernel_contract_factor!($config; $pitch),
        ]))
    };
    ($config:ident; $($e:tt)+) => {
        $crate::__private_contract::Required::Elements(
            $crate::__kernel_contract_sum!($config; $($e)+),
        )
    };
}

/// An extent's value: a sum (`+`) of products, in checked `usize` arithmetic, `None` on
/// overflow. Splits at each `+` outside parentheses. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_sum {
    (@split $config:ident [$($terms:tt)*] [$($cur:tt)+] + $($rest:tt)+) => {
        $crate::__kernel_contract_sum!(@split $config [$($terms)* [$($cur)+]] [] $($rest)+)
    };
    (@split $config:ident [$($terms:tt)*] [$($cur:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__kernel_contract_sum!(@split $config [$($terms)*] [$($cur)* $t] $($rest)*)
    };
    (@split $config:ident [$([$($term:tt)+])*] [$($cur:tt)+]) => {
        $crate::__private_contract::sum(&[
            $($crate::__kernel_contract_product!($config; $($term)+),)*
            $crate::__kernel_contract_product!($config; $($cur)+)
        ])
    };
    (@split $config:ident [$($terms:tt)*] [$($cur:tt)*]) => {
        ::core::compile_error!("kernel_contract!: an extent has an empty term (a `+` with nothing on one side)")
    };
    ($config:ident; $($e:tt)+) => {
        $crate::__kernel_contract_sum!(@split $config [] [] $($e)+)
    };
}

/// A product (`*`) of factors, `None` on overflow. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_product {
    ($config:ident; $first:tt $(* $rest:tt)*) => {
        $crate::__private_contract::product(&[
            $crate::__kernel_contract_factor!($config; $first)
            $(, $crate::__kernel_contract_factor!($config; $rest))*
        ])
    };
    ($config:ident; $($other:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `", ::core::stringify!($($other)*), "` is not an extent: an extent \
             is a sum (`+`) of products (`*`) of integer scalar parameters, integer literals, \
             the launch words (`grid`, `blocks`, `block` and per axis `grid_x`, `blocks_y`, \
             `block_z`, ...) and parenthesized extents, computed in checked `usize` arithmetic \
             (no `-`, `/` or other operators)"
        ))
    };
}

/// One factor: a word of the launch shape, a scalar parameter, an integer literal, or a
/// parenthesized extent. Anything else (a method call, a cast, a block) is refused: a factor is
/// never evaluated in its own type, where it could wrap. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_contract_factor {
    ($config:ident; grid) => {
        $crate::__private_contract::grid_threads($config)
    };
    ($config:ident; blocks) => {
        $crate::__private_contract::grid_blocks($config)
    };
    ($config:ident; block) => {
        $crate::__private_contract::block_threads($config)
    };
    ($config:ident; grid_x) => {
        $crate::__private_contract::axis($config, 0, true, true)
    };
    ($config:ident; grid_y) => {
        $crate::__private_contract::axis($config, 1, true, true)
    };
    ($config:ident; grid_z) => {
        $crate::__private_contract::axis($config, 2, true, true)
    };
    ($config:ident; blocks_x) => {
        $crate::__private_contract::axis($config, 0, true, false)
    };
    ($config:ident; blocks_y) => {
        $crate::__private_contract::axis($config, 1, true, false)
    };
    ($config:ident; blocks_z) => {
        $crate::__private_contract::axis($config, 2, true, false)
    };
    ($config:ident; block_x) => {
        $crate::__private_contract::axis($config, 0, false, true)
    };
    ($config:ident; block_y) => {
        $crate::__private_contract::axis($config, 1, false, true)
    };
    ($config:ident; block_z) => {
        $crate::__private_contract::axis($config, 2, false, true)
    };
    ($config:ident; ($($inner:tt)+)) => {
        $crate::__kernel_contract_sum!($config; $($inner)+)
    };
    ($config:ident; $f:ident) => {
        __kernel_contract_param!($f)
    };
    ($config:ident; $f:literal) => {
        $crate::__private_contract::factor(&$f)
    };
    ($config:ident; $other:tt) => {
        ::core::compile_error!(::core::concat!(
            "kernel_contract!: `", ::core::stringify!($other), "` cannot be a factor of an \
             extent: a factor is an integer scalar parameter, an integer literal, a launch word \
             (`grid`, `blocks`, `block`, or one axis of them: `grid_x`, `blocks_y`, `block_z`, \
             ...) or a parenthesized extent"
        ))
    };
}

#[cfg(test)]
mod tests {
    use super::__private::{Required, check_extent, grid_threads, product};
    use super::{Available, Contract, compare};
    use crate::error::ErrorKind;
    use crate::kernel::launch::LaunchConfig;

    crate::kernel_contract! {
        /// For the tests.
        unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
        /// No parameters.
        unsafe kernel Empty = "empty"();
    }

    #[test]
    fn extents_are_checked_arithmetic() {
        assert_eq!(product(&[Some(3), Some(4)]), Some(12));
        assert_eq!(product(&[Some(usize::MAX), Some(2)]), None);
        assert_eq!(product(&[Some(3), None]), None);
        let cfg = LaunchConfig {
            grid: (u32::MAX, u32::MAX, u32::MAX),
            block: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        assert_eq!(grid_threads(&cfg), None);
        assert_eq!(grid_threads(&LaunchConfig::for_elements(1000)), Some(1024));
    }

    #[test]
    fn sums_are_checked_arithmetic() {
        use super::__private::sum;
        assert_eq!(sum(&[Some(255), Some(1)]), Some(256));
        assert_eq!(sum(&[Some(usize::MAX), Some(1)]), None);
        assert_eq!(sum(&[Some(1), None]), None);
        assert_eq!(sum(&[]), Some(0));
    }

    crate::kernel_contract! {
        /// Extents with sums: evaluated in `usize`, never in the parameters' own types.
        unsafe kernel Offsets = "offsets"(
            rows: &mut [u32; (n + 1)],
            scan: &mut [u32; n + 1 + 2 * n],
            n: u8,
        );
    }

    #[test]
    fn a_sum_in_an_extent_does_not_wrap_in_the_parameters_type() {
        use super::ContractArgs;
        use crate::vocabulary::binding::ScopedSliceMut;
        let cfg = LaunchConfig::for_elements(1);
        // Never launched or dereferenced: only the lengths are checked.
        let slice = |ptr: u64, len: usize| {
            // SAFETY: the handle only carries a length here; nothing reaches its address.
            unsafe { ScopedSliceMut::<u32>::from_raw_parts(ptr, len) }
        };
        let (one, big) = (slice(0x1000, 1), slice(0x2000, 1024));
        // 255u8 + 1 would wrap to 0 in `u8`: the extent is 256 elements, and one is too short.
        let e = <_ as ContractArgs<'_, Offsets>>::check(&(one, big, 255u8), &cfg).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        assert!(
            e.to_string().contains(
                "parameter `rows` holds 1 elements, but its extent `(n + 1)` requires 256"
            ),
            "{e}"
        );
        let (mut rows, short, scan) = (slice(0x1000, 256), slice(0x2000, 765), slice(0x2000, 766));
        let e =
            <_ as ContractArgs<'_, Offsets>>::check(&(&mut rows, short, 255u8), &cfg).unwrap_err();
        assert!(
            e.to_string()
                .contains("`scan` holds 765 elements, but its extent `n + 1 + 2 * n` requires 766"),
            "{e}"
        );
        assert!(<_ as ContractArgs<'_, Offsets>>::check(&(&mut rows, scan, 255u8), &cfg).is_ok());
    }

    #[test]
    fn shared_memory_and_block_limits() {
        use super::__private::{check_max_block, check_shared};
        assert!(check_shared("k", "block * 8", 2048, Some(2048)).is_ok());
        let e = check_shared("k", "block * 8", 1024, Some(2048)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        assert!(
            e.to_string().contains("`shared(block * 8)` requires 2048"),
            "{e}"
        );
        let cfg = LaunchConfig {
            grid: (1, 1, 1),
            block: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        assert!(check_max_block("k", &cfg, (16, 16, 1)).is_ok());
        let e = check_max_block("k", &LaunchConfig::for_elements(1000), (16, 16, 1)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
    }

    #[test]
    fn a_short_buffer_is_named() {
        let have = Some(Available::of::<u32>(999));
        let e =
            check_extent("add_u32", "x", "n", have, Required::Elements(Some(1000))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BufferTooShort);
        assert!(
            e.to_string()
                .contains("parameter `x` holds 999 elements, but its extent `n` requires 1000"),
            "{e}"
        );
        assert!(check_extent("add_u32", "x", "n", have, Required::Elements(Some(999))).is_ok());
        let e = check_extent("k", "x", "a * b", have, Required::Elements(None)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
        assert!(
            e.to_string().contains("`a * b` of parameter `x` overflows"),
            "{e}"
        );
    }

    #[test]
    fn a_declaration_that_disagrees_is_named() {
        assert_eq!(AddU32::KERNEL, "add_u32");
        assert_eq!(AddU32::PARAMS, ["x", "k", "n"]);
        assert!(compare::<Empty>("t", &[]).is_ok());
        assert!(compare::<AddU32>("t", &[(0, 8), (8, 4), (12, 4)]).is_ok());
        let e = compare::<AddU32>("t", &[(0, 8), (8, 8), (16, 4)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
        assert!(
            e.to_string().contains("parameter 1 `k` is declared `u32`"),
            "{e}"
        );
        let e = compare::<AddU32>("t", &[(0, 8), (8, 4)]).unwrap_err();
        assert!(
            e.to_string()
                .contains("the kernel takes 2 parameters, the contract declares 3 (x, k, n)"),
            "{e}"
        );
    }

    crate::kernel_contract! {
        /// NVIDIA's matrixMulDrv kernel shape: `c[(by*32 + ty) * wb + bx*32 + tx]`, no bounds
        /// checks, 32 × 32 blocks and static shared tiles of that size.
        unsafe kernel MatrixMul = "matrix_mul_bs32"(
            c: &mut [f32; grid_y * wb],
            a: &[f32; grid_y * wa],
            b: &[f32; wa * wb],
            wa: u64,
            wb: u64,
        ) requires(
            block_x == 32, block_y == 32, block_z == 1, blocks_z == 1,
            wa > 0, wa % 32 == 0, grid_x <= wb,
        ) max_block(32, 32, 1);
        /// Every comparison, and a trailing-comma-free clause.
        unsafe kernel Compares = "compares"(n: u32, m: i32)
            requires(n != 3, n < 100, n >= 1, (n + 1) * 2 <= blocks_x * 4, m >= 0, n % (m) == 0);
    }

    /// A 2-D launch of `bx × by` blocks of 32 × 32 threads.
    fn grid_2d(bx: u32, by: u32) -> LaunchConfig {
        LaunchConfig {
            grid: (bx, by, 1),
            block: (32, 32, 1),
            shared_mem_bytes: 0,
        }
    }

    #[test]
    fn axis_words_read_one_axis_of_the_launch() {
        use super::__private::axis;
        let cfg = LaunchConfig {
            grid: (2, 3, 4),
            block: (5, 6, 7),
            shared_mem_bytes: 0,
        };
        let all = |b, t| [0, 1, 2].map(|a| axis(&cfg, a, b, t));
        assert_eq!(all(true, true), [Some(10), Some(18), Some(28)]); // grid_x/y/z
        assert_eq!(all(true, false), [Some(2), Some(3), Some(4)]); // blocks_x/y/z
        assert_eq!(all(false, true), [Some(5), Some(6), Some(7)]); // block_x/y/z
        let huge = LaunchConfig {
            grid: (u32::MAX, 1, 1),
            block: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // u32::MAX * 1024 fits a 64-bit usize; it never wraps in u32.
        assert_eq!(axis(&huge, 0, true, true), Some(u32::MAX as usize * 1024));
    }

    #[test]
    fn a_2d_kernel_is_checked_per_axis_and_by_its_preconditions() {
        use super::ContractArgs;
        use crate::vocabulary::binding::ScopedSliceMut;
        // Never launched or dereferenced: only the lengths are checked (a writable handle
        // serves as a read-only argument too).
        // SAFETY: the handles only carry a length here; nothing reaches their addresses.
        let out = |len| unsafe { ScopedSliceMut::<f32>::from_raw_parts(0x1000, len) };
        let inp = out;
        let check = |cfg: &LaunchConfig, c: usize, a: usize, b: usize, wa: u64, wb: u64| {
            <_ as ContractArgs<'_, MatrixMul>>::check(&(out(c), inp(a), inp(b), wa, wb), cfg)
        };
        // The sample's sizes (hA = wA = 10·32, wB = 20·32).
        let (ha, wa, wb) = (320usize, 320u64, 640u64);
        let cfg = grid_2d(640 / 32, 320 / 32);
        let (c, a, b) = (ha * 640, ha * 320, 320 * 640);
        assert!(check(&cfg, c, a, b, wa, wb).is_ok());
        // One element short in each buffer.
        for (c2, a2, b2, name) in [
            (c - 1, a, b, "`c` holds"),
            (c, a - 1, b, "`a` holds"),
            (c, a, b - 1, "`b` holds"),
        ] {
            let e = check(&cfg, c2, a2, b2, wa, wb).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(e.to_string().contains(name), "{e}");
        }
        // The issue's example: a 64 × 64 grid of 8 × 8 blocks passes `width * height` on a
        // 512-float buffer. Here the block shape is a precondition, and so is the grid's reach.
        let small = LaunchConfig {
            grid: (64, 64, 1),
            block: (8, 8, 1),
            shared_mem_bytes: 0,
        };
        let e = check(&small, c, a, b, wa, wb).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PreconditionFailed);
        assert!(
            e.to_string().contains(
                "requires `block_x == 32`, which does not hold for this launch (8 == 32 is false)"
            ),
            "{e}"
        );
        // A grid wider than B: its x threads would write past each row of C.
        let e = check(&grid_2d(21, 10), c, a, b, wa, wb).unwrap_err();
        assert!(e.to_string().contains("`grid_x <= wb`"), "{e}");
        assert!(e.to_string().contains("672 <= 640 is false"), "{e}");
        // wA = 0 would make the kernel's loop run ~2^64 times; wA not a multiple of 32 would
        // read past a row of A.
        let e = check(&cfg, c, a, b, 0, wb).unwrap_err();
        assert!(e.to_string().contains("`wa > 0`"), "{e}");
        let e = check(&cfg, c, a, b, 330, wb).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::PreconditionFailed);
        assert!(e.to_string().contains("`wa % 32 == 0`"), "{e}");
        assert!(e.to_string().contains("330 % 32 is 10"), "{e}");
        // A third grid axis the kernel ignores: its blocks would write the same elements.
        let deep = LaunchConfig {
            grid: (20, 10, 2),
            ..cfg
        };
        let e = check(&deep, c, a, b, wa, wb).unwrap_err();
        assert!(e.to_string().contains("`blocks_z == 1`"), "{e}");
        // Preconditions are checked before extents; overflow in one is SizeOverflow.
        let e = check(&cfg, c, a, b, u64::MAX, u64::MAX).unwrap_err();
        assert!(e.to_string().contains("`wa % 32 == 0`"), "{e}");
        let e = check(&cfg, c, a, b, 1 << 62, 1 << 62).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
        assert!(
            e.to_string()
                .contains("the extent `grid_y * wb` of parameter `c` overflows"),
            "{e}"
        );
    }

    #[test]
    fn every_comparison_and_a_negative_factor() {
        use super::ContractArgs;
        let cfg = LaunchConfig {
            grid: (10, 1, 1),
            block: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        let check = |n: u32, m: i32| <_ as ContractArgs<'_, Compares>>::check(&(n, m), &cfg);
        assert!(check(4, 2).is_ok());
        for (n, m, clause) in [
            (3, 1, "`n != 3`"),
            (100, 1, "`n < 100`"),
            (0, 1, "`n >= 1`"),
            (20, 1, "`(n + 1) * 2 <= blocks_x * 4`"),
            (4, 3, "`n % (m) == 0`"),
            (4, 0, "`n % (m) == 0`"),
        ] {
            let e = check(n, m).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::PreconditionFailed, "{e}");
            assert!(e.to_string().contains(clause), "{n} {m}: {e}");
        }
        // A negative factor is never compared as a wrapped value.
        let e = check(4, -1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
        assert!(
            e.to_string().contains("condition `m >= 0` overflows"),
            "{e}"
        );
    }
}
