//! The checks a declared launch runs before anything is enqueued: each buffer's extent, each
//! `requires(..)` condition, the dynamic shared memory, the block and cluster shapes, all in
//! checked `usize` arithmetic. What [`kernel_contract!`](crate::kernel_contract)'s expansions
//! call is re-exported as `__private` (not public API).

use crate::error::{Error, ErrorKind, Result};
use crate::kernel::contract::kinds::{Available, ContractArg, ParamKind, TensorMapOver};
use crate::kernel::launch::LaunchConfig;

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

/// The product of a launch's dimensions, `None` if it overflows.
fn dims_product(dims: &[u32]) -> Option<usize> {
    dims.iter()
        .try_fold(1usize, |p, &d| p.checked_mul(d as usize))
}

/// The number of threads a launch of shape `config` runs.
#[inline]
pub fn grid_threads(config: &LaunchConfig) -> Option<usize> {
    let (g, b) = (config.grid, config.block);
    dims_product(&[g.0, g.1, g.2, b.0, b.1, b.2])
}

/// The number of blocks in a launch of shape `config`.
#[inline]
pub fn grid_blocks(config: &LaunchConfig) -> Option<usize> {
    let g = config.grid;
    dims_product(&[g.0, g.1, g.2])
}

/// The number of threads in a block of a launch of shape `config`.
#[inline]
pub fn block_threads(config: &LaunchConfig) -> Option<usize> {
    let b = config.block;
    dims_product(&[b.0, b.1, b.2])
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

/// Checks a `map: tensor_map<T> over buf` parameter: every byte the map reaches lies within the
/// memory bound to `buf` in this launch. The element types are one `T`, so a map over memory of
/// another type is refused at compile time; two buffers of one type are told apart here, by
/// address.
#[inline]
pub fn check_over<'scope, M, B, P, Q>(
    kernel: &'static str,
    map_param: &'static str,
    buffer_param: &'static str,
    map: &P,
    buffer: &Q,
) -> Result<()>
where
    M: TensorMapOver<B>,
    B: ParamKind,
    P: ContractArg<'scope, M>,
    Q: ContractArg<'scope, B>,
{
    let (base, reach) = map.range().unwrap_or((0, usize::MAX));
    let (start, bytes) = buffer.range().unwrap_or((0, 0));
    let end = start.checked_add(bytes as u64);
    let map_end = base.checked_add(reach as u64);
    match (end, map_end) {
        (Some(end), Some(map_end)) if base >= start && map_end <= end => Ok(()),
        _ => Err(Error::custack(
            ErrorKind::TensorMapMismatch,
            format!(
                "kernel `{kernel}`: tensor map parameter `{map_param}` reaches {reach} bytes at \
                 {base:#x}, which is not within the {bytes} bytes at {start:#x} bound to \
                 `{buffer_param}`, the buffer its contract says it is over"
            ),
        )),
    }
}

/// Checks a `map: tensor_map<T> box(b0, b1, ..)` parameter: the map's box is exactly the
/// declared one (elements per dimension, innermost first; for an im2col map, channels per pixel
/// and pixels per column), which the kernel's shared memory is sized for. Nothing is declared:
/// any box (the kernel takes any).
#[inline]
pub fn check_box<'scope, M: ParamKind, P: ContractArg<'scope, M>>(
    kernel: &'static str,
    map_param: &'static str,
    map: &P,
    declared: &[u32],
) -> Result<()> {
    let actual = map.tensor_box().unwrap_or(&[]);
    if declared.is_empty() || actual == declared {
        return Ok(());
    }
    Err(Error::custack(
        ErrorKind::TensorMapMismatch,
        format!(
            "kernel `{kernel}`: tensor map parameter `{map_param}` has the box {actual:?}, but its \
             contract declares box{declared:?}, the box its shared memory holds"
        ),
    ))
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
pub(super) fn check_cluster(
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

#[cfg(test)]
mod tests {
    use super::{Required, check_extent, grid_threads, product};
    use crate::error::ErrorKind;
    use crate::kernel::contract::kinds::Available;
    use crate::kernel::launch::LaunchConfig;

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
        use super::sum;
        assert_eq!(sum(&[Some(255), Some(1)]), Some(256));
        assert_eq!(sum(&[Some(usize::MAX), Some(1)]), None);
        assert_eq!(sum(&[Some(1), None]), None);
        assert_eq!(sum(&[]), Some(0));
    }

    #[test]
    fn shared_memory_and_block_limits() {
        use super::{check_max_block, check_shared};
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
    fn axis_words_read_one_axis_of_the_launch() {
        use super::axis;
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
}
