//! `getrf`'s row interchanges as a type of their own: [`Pivots`], which only
//! [`LuPlan::getrf`](crate::solver::LuPlan::getrf) writes and
//! [`LuPlan::getrs`](crate::solver::LuPlan::getrs) reads.
//!
//! cuSOLVER's `getrs` swaps the rows of `B` named by its pivots on the GPU and checks none of
//! them: a pivot outside `1..=n` (a zero, a negative one, one of a larger matrix's
//! factorization) reads and writes device memory at `B`'s address plus that many rows, memory
//! the call was never given (found by an adversarial review on the GPU: another live buffer
//! overwritten, its info word `Success`). So the pivots are not any `i32` buffer: they start
//! as the identity (`1..=count`, no interchange), and nothing but `getrf` of their shape writes
//! them, which writes row numbers of its matrix only. An `i32` buffer of the caller's own is
//! still solved with by [`LuPlan::getrs_unchecked`](crate::solver::LuPlan::getrs_unchecked),
//! which is `unsafe`.

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::ffi;
use crate::memory::{DeviceBuffer, DeviceMemory};
use crate::solver::check;
use crate::solver::types::Matrix;
use crate::vocabulary::binding::{ScopedRead, ScopedSliceMut};

/// The pivots of the LU factorization of an `m × n` matrix: `min(m, n)` 1-based row numbers,
/// each in `1..=m`, on the device. Made by a guard ([`PushedGuard::lu_pivots`]) as the
/// identity, written only by [`LuPlan::getrf`](crate::solver::LuPlan::getrf) of a matrix of
/// `m` rows, read by [`LuPlan::getrs`](crate::solver::LuPlan::getrs) of an `m × m` factor;
/// bound to a scope with [`StreamScope::bind_pivots`].
///
/// No kernel, copy or memset can write them (they are not
/// [`DeviceMemoryMut`](crate::DeviceMemoryMut), and lend no binding a launch takes), so every
/// pivot `getrs` reads names a row of its `B`. Borrows the guard (`'g`); `!Send` and `!Sync`.
///
/// # Examples
///
/// ```no_run
/// use custack::solver::{Matrix, Transpose};
/// use custack::DeviceMemory;
/// # use custack::{Context, ContextFlags, Driver, Stack};
/// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// # let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let lu = guard.lu_plan::<f64>(Matrix::square(2))?;
/// let mut a = guard.alloc_from(&[4.0, 6.0, 3.0, 3.0])?; // column-major [[4, 3], [6, 3]]
/// let mut b = guard.alloc_from(&[10.0, 12.0])?;
/// let mut pivots = guard.lu_pivots(Matrix::square(2))?;
/// let (mut factored, mut solved) = (guard.solver_info()?, guard.solver_info()?);
/// guard.stream()?.scope(|s| {
///     let mut a = s.bind_mut(&mut a);
///     let mut p = s.bind_pivots(&mut pivots);
///     lu.getrf(s, &mut a, &mut p, &mut factored)?;
///     lu.getrs(s, Transpose::No, &a, &p, s.bind_mut(&mut b), Matrix::new(2, 1), &mut solved)
/// })??;
/// factored.ensure_success()?;
/// assert_eq!(b.to_vec()?, [1.0, 2.0]);
/// assert_eq!(pivots.to_vec()?, [2, 2]); // row 2 swapped up first
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
#[doc(alias = "devIpiv")]
pub struct Pivots<'g> {
    device: DeviceBuffer<'g, i32>,
    /// `m`: every pivot is in `1..=rows`.
    rows: usize,
}

static_assertions::assert_not_impl_any!(Pivots<'static>: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAlloc`, `cuMemcpyHtoD`—The pivots of the LU factorization of `a` (an `m × n`
    /// matrix: `min(m, n)` of them), on this guard's context, as the identity (`1..=min(m, n)`:
    /// no row interchanged) until a [`getrf`](crate::solver::LuPlan::getrf) writes them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::SizeOverflow`](crate::ErrorKind::SizeOverflow) for a shape cuSOLVER's
    /// `int` cannot hold; `CUDA_ERROR_OUT_OF_MEMORY`; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>,
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    #[doc(alias = "cuMemAlloc")]
    pub fn lu_pivots(&self, a: Matrix) -> Result<Pivots<'_>> {
        let d = check::matrix("lu_pivots", "A", a)?;
        let identity: Vec<i32> = (1..=d.rows.min(d.cols)).collect();
        Ok(Pivots {
            device: self.alloc_from(&identity)?,
            rows: a.rows,
        })
    }
}

impl Pivots<'_> {
    /// How many pivots: `min(m, n)` of the shape they were made for.
    pub fn len(&self) -> usize {
        self.device.len()
    }

    /// Whether there are none (a shape with no rows or no columns).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `m`, the rows of the matrix they are pivots of: every pivot is in `1..=m`.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `cuMemcpyDtoH`—The pivots, read back (1-based: row `i` was interchanged with row
    /// `pivots[i - 1]`).
    ///
    /// # Errors
    ///
    /// Driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoH")]
    pub fn to_vec(&self) -> Result<Vec<i32>> {
        self.device.to_vec()
    }
}

/// [`Pivots`] bound exclusively to a [`StreamScope`] ([`StreamScope::bind_pivots`]): taken by
/// `&mut` by [`getrf`](crate::solver::LuPlan::getrf), which writes them, and by `&` by
/// [`getrs`](crate::solver::LuPlan::getrs), so one scope can factor and solve with them.
/// Passed to nothing else: no launch, copy or memset takes it.
#[derive(Debug)]
pub struct ScopedPivots<'scope> {
    slice: ScopedSliceMut<'scope, i32>,
    rows: usize,
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds `pivots` exclusively to this scope, for its
    /// [`getrf`](crate::solver::LuPlan::getrf)s and [`getrs`](crate::solver::LuPlan::getrs)s:
    /// nothing outside the scope can read them until it ends.
    pub fn bind_pivots(&self, pivots: &'scope mut Pivots<'_>) -> ScopedPivots<'scope> {
        ScopedPivots {
            rows: pivots.rows,
            slice: self.bind_mut(&mut pivots.device),
        }
    }
}

impl ScopedPivots<'_> {
    /// The device address and count of the pivots, and the rows each is at most.
    pub(crate) fn parts(&self) -> (ffi::CUdeviceptr, usize, usize) {
        let (ptr, len) = (&self.slice).raw_parts();
        (ptr, len, self.rows)
    }
}
