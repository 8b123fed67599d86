//! The plans, [`SpMvPlan`] and [`SpMmPlan`]: each a cuSPARSE handle of its own with the
//! workspace its calls need (queried with `cusparseSpMV_bufferSize`/`cusparseSpMM_bufferSize`
//! when the plan is made, and again before each call, which is refused if the workspace is
//! too small), the order of its calls, and its destruction (`LibraryHandle`).

use crate::asynchronous::library_handle::{LibraryHandle, RawHandle};
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::ffi::cusparse as raw;
use crate::memory::DeviceMemory;
use crate::sparse::check;
use crate::sparse::matrix::SparseMatrix;
use crate::sparse::status::not_linked;
use crate::sparse::status::status;
use crate::sparse::types::{Dense, Operation, SpMmAlg, SpMvAlg, SparseIndex, SparseScalar};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::version::LibraryVersion;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

/// `cusparseGetProperty`—The version of the cuSPARSE linked (e.g. 12.6.3); needs no handle
/// and no GPU.
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without cuSPARSE; cuSPARSE's status.
///
/// # Examples
///
/// ```no_run
/// println!("cuSPARSE {}", custack::sparse::version()?);
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cusparse/#cusparsegetproperty>
#[doc(alias = "cusparseGetProperty")]
pub fn version() -> Result<LibraryVersion> {
    use raw::libraryPropertyType as P;
    crate::error::confinement::full_api("sparse::version")?;
    not_linked()?;
    let part = |which: P, name: &str| -> Result<u32> {
        let mut v: c_int = 0;
        // SAFETY: `cusparseGetProperty` writes an int through a valid out-pointer (a live
        // local); `which` is one of the three properties `library_types.h` defines.
        status(name, unsafe { raw::cusparseGetProperty(which, &raw mut v) })?;
        Ok(v.unsigned_abs())
    };
    Ok(LibraryVersion::new(
        part(P::MAJOR_VERSION, "cusparseGetProperty(MAJOR_VERSION)")?,
        part(P::MINOR_VERSION, "cusparseGetProperty(MINOR_VERSION)")?,
        part(P::PATCH_LEVEL, "cusparseGetProperty(PATCH_LEVEL)")?,
    ))
}

/// A live cuSPARSE handle, destroyed by `cusparseDestroy`.
#[derive(Clone, Copy, Debug)]
struct RawSparse(raw::cusparseHandle_t);

impl RawHandle for RawSparse {
    unsafe fn destroy(self) -> Result<()> {
        // SAFETY: the caller's guarantee: a live handle of the current context, destroyed
        // once, no call of it still running.
        status("cusparseDestroy", unsafe { raw::cusparseDestroy(self.0) })
    }
}

/// A plan's core: its handle, workspace and call order.
struct Core<'g> {
    handle: LibraryHandle<'g, RawSparse>,
}

impl<'g> Core<'g> {
    /// `cusparseCreate`, then `query` (the workspace the plan's operands need, asked of the
    /// new handle) and a workspace of that size.
    fn new<K: ContextKind>(
        guard: &'g PushedGuard<'_, '_, K>,
        query: impl FnOnce(raw::cusparseHandle_t) -> Result<usize>,
    ) -> Result<Self> {
        crate::error::poison::check()?;
        not_linked()?;
        let mut handle = LibraryHandle::create(guard, 0, || {
            let mut h = core::ptr::null_mut();
            // SAFETY: `cusparseCreate` writes a handle through a valid out-pointer (a live
            // local) and binds it to the current context, this guard's.
            status("cusparseCreate", unsafe { raw::cusparseCreate(&raw mut h) })?;
            Ok(RawSparse(h))
        })?;
        let raw = handle.raw().map_or(core::ptr::null_mut(), |r| r.0);
        let bytes = query(raw)?;
        if bytes > 0 {
            handle.own_memory(guard.alloc::<u8>(bytes)?);
        }
        Ok(Self { handle })
    }

    fn raw(&self) -> raw::cusparseHandle_t {
        self.handle.raw().map_or(core::ptr::null_mut(), |r| r.0)
    }

    fn workspace_bytes(&self) -> usize {
        self.handle.memory_bytes()
    }

    /// The workspace as cuSPARSE takes it, after checking that it holds `need` bytes.
    fn workspace(&self, call: &str, need: usize) -> Result<*mut c_void> {
        let have = self.workspace_bytes();
        if need > have {
            return Err(check::refused(
                call,
                ErrorKind::BufferTooShort,
                &format!(
                    "the plan's workspace holds {have} bytes, these operands need {need}; make a plan for them"
                ),
            ));
        }
        Ok(self.handle.memory().map_or(core::ptr::null_mut(), |w| {
            w.device_ptr() as usize as *mut c_void
        }))
    }

    /// Runs one call on the scope's stream, ordered after the plan's previous call.
    fn enqueue(
        &self,
        s: &StreamScope<'_, '_>,
        call: &'static str,
        f: impl FnOnce(raw::cusparseHandle_t) -> raw::cusparseStatus_t,
    ) -> Result<()> {
        let h = self.raw();
        self.handle.order().enqueue(
            call,
            s,
            |stream| {
                // SAFETY: `cusparseSetStream` needs a live handle and a live stream of its
                // context: the plan borrows its guard (so its context is current and no other
                // is pushed above it), and the stream is the scope's, live for the scope.
                status("cusparseSetStream", unsafe {
                    raw::cusparseSetStream(h, stream)
                })
            },
            || status(call, f(h)),
        )
    }
}

/// A dense vector or matrix descriptor, made for one call and destroyed after it (a host-only
/// call: the kernels enqueued keep the array pointers, not the descriptor).
struct DenseDescr<D: Copy> {
    raw: D,
    destroy: unsafe extern "C" fn(D) -> raw::cusparseStatus_t,
    call: &'static str,
}

impl<D: Copy> Drop for DenseDescr<D> {
    fn drop(&mut self) {
        // SAFETY: a live descriptor made by the matching create call, destroyed once.
        if let Err(e) = status(self.call, unsafe { (self.destroy)(self.raw) }) {
            record_drop_error(e);
        }
    }
}

type VecDescr = DenseDescr<raw::cusparseConstDnVecDescr_t>;
type MatDescr = DenseDescr<raw::cusparseConstDnMatDescr_t>;

fn dptr(p: ffi::CUdeviceptr) -> *mut c_void {
    p as usize as *mut c_void
}

/// A dense vector of `size` elements at `at` (device memory bound to the scope that holds
/// them: checked by the caller).
fn dn_vec<T: SparseScalar>(size: i64, at: ffi::CUdeviceptr) -> Result<VecDescr> {
    let mut d = core::ptr::null_mut();
    // SAFETY: a host-only call writing a descriptor through a live local; it stores the
    // pointer and size, reading nothing.
    status("cusparseCreateDnVec", unsafe {
        raw::cusparseCreateDnVec(&raw mut d, size, dptr(at), T::DATA_TYPE)
    })?;
    Ok(DenseDescr {
        raw: d.cast_const(),
        destroy: raw::cusparseDestroyDnVec,
        call: "cusparseDestroyDnVec",
    })
}

/// A dense matrix `[rows, cols, ld]` at `at` (checked by the caller).
fn dn_mat<T: SparseScalar>(
    d: Dense,
    [rows, cols, ld]: [i64; 3],
    at: ffi::CUdeviceptr,
) -> Result<MatDescr> {
    let mut m = core::ptr::null_mut();
    // SAFETY: a host-only call writing a descriptor through a live local.
    status("cusparseCreateDnMat", unsafe {
        raw::cusparseCreateDnMat(
            &raw mut m,
            rows,
            cols,
            ld,
            dptr(at),
            T::DATA_TYPE,
            d.order.raw(),
        )
    })?;
    Ok(DenseDescr {
        raw: m.cast_const(),
        destroy: raw::cusparseDestroyDnMat,
        call: "cusparseDestroyDnMat",
    })
}

/// An `SpMV`, `y = alpha·op(A)·x + beta·y`: the operation, the scalars (given to cuSPARSE by
/// host pointer, read before the call returns) and the algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "cusparseSpMV")]
pub struct SpMv<T: SparseScalar> {
    /// `op(A)`.
    pub op: Operation,
    /// `alpha`.
    pub alpha: T,
    /// `beta` (0: `y` is only written).
    pub beta: T,
    /// The algorithm.
    pub alg: SpMvAlg,
}

impl<T: SparseScalar> SpMv<T> {
    /// `y = alpha·A·x + beta·y` with the default algorithm.
    pub fn new(alpha: T, beta: T) -> Self {
        Self {
            op: Operation::NonTranspose,
            alpha,
            beta,
            alg: SpMvAlg::Default,
        }
    }
    /// With `op(A)` = `op`.
    #[must_use]
    pub fn op(self, op: Operation) -> Self {
        Self { op, ..self }
    }
    /// With the algorithm `alg`.
    #[must_use]
    pub fn alg(self, alg: SpMvAlg) -> Self {
        Self { alg, ..self }
    }
}

/// An `SpMM`, `C = alpha·op(A)·op(B) + beta·C`: the operations, the dense operands' shapes, the
/// scalars and the algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "cusparseSpMM")]
pub struct SpMm<T: SparseScalar> {
    /// `op(A)`.
    pub op_a: Operation,
    /// `op(B)`.
    pub op_b: Operation,
    /// `B` as stored.
    pub b: Dense,
    /// `C`: `op(A)`'s rows × `op(B)`'s columns.
    pub c: Dense,
    /// `alpha`.
    pub alpha: T,
    /// `beta`.
    pub beta: T,
    /// The algorithm.
    pub alg: SpMmAlg,
}

impl<T: SparseScalar> SpMm<T> {
    /// `C = alpha·A·B + beta·C` for `B` and `C` of these shapes, default algorithm.
    pub fn new(b: Dense, c: Dense, alpha: T, beta: T) -> Self {
        Self {
            op_a: Operation::NonTranspose,
            op_b: Operation::NonTranspose,
            b,
            c,
            alpha,
            beta,
            alg: SpMmAlg::Default,
        }
    }
    /// With `op(A)` = `op_a` and `op(B)` = `op_b`.
    #[must_use]
    pub fn ops(self, op_a: Operation, op_b: Operation) -> Self {
        Self { op_a, op_b, ..self }
    }
    /// With the algorithm `alg`.
    #[must_use]
    pub fn alg(self, alg: SpMmAlg) -> Self {
        Self { alg, ..self }
    }
}

/// An `SpMV` plan: a cuSPARSE handle of the guard's context and the workspace its calls need;
/// see the [module docs](crate::sparse). Borrows its guard (C25); `!Send`, `!Sync`.
#[doc(alias = "cusparseHandle_t")]
pub struct SpMvPlan<'g, T: SparseScalar> {
    core: Core<'g>,
    _marker: PhantomData<(&'g (), *const T)>,
}

/// An `SpMM` plan: a cuSPARSE handle and the workspace its calls need. Borrows its guard (C25);
/// `!Send`, `!Sync`.
#[doc(alias = "cusparseHandle_t")]
pub struct SpMmPlan<'g, T: SparseScalar> {
    core: Core<'g>,
    _marker: PhantomData<(&'g (), *const T)>,
}

static_assertions::assert_not_impl_any!(SpMvPlan<'static, f32>: Send, Sync);
static_assertions::assert_not_impl_any!(SpMmPlan<'static, f32>: Send, Sync);

impl<T: SparseScalar> core::fmt::Debug for SpMvPlan<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.core.debug("SpMvPlan", f)
    }
}

impl<T: SparseScalar> core::fmt::Debug for SpMmPlan<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.core.debug("SpMmPlan", f)
    }
}

/// What an `SpMV` and an `SpMM` do differently; the rest (checking the operands and describing
/// them, asking the workspace's size, checking the plan's, enqueueing the call in the plan's
/// order) is one path for both: `plan` and `Core::run`.
trait Product<T: SparseScalar> {
    /// The dense operands' descriptor: a vector's or a matrix's.
    type Dense;
    /// The size query's name, which a plan's errors give.
    const BUFFER_SIZE: &'static str;
    /// The call's name, which a run's errors give.
    const CALL: &'static str;

    /// The dense operands `x` and `y` (`B` and `C`), checked against `a` and the product's
    /// shapes, then described.
    fn operands<I: SparseIndex>(
        &self,
        call: &str,
        a: &SparseMatrix<'_, T, I>,
        x: (ffi::CUdeviceptr, usize),
        y: (ffi::CUdeviceptr, usize),
    ) -> Result<(Self::Dense, Self::Dense)>;

    /// The size query (`cusparseSpMV_bufferSize`, `cusparseSpMM_bufferSize`) for
    /// [`Last::Size`], the call (`cusparseSpMV`, `cusparseSpMM`), enqueued on `h`'s stream, for
    /// [`Last::Workspace`]: the two take the same arguments but the last.
    ///
    /// # Safety
    ///
    /// `h` is a live handle, `a` a live sparse descriptor, `x` and `y` descriptors made by
    /// [`operands`](Self::operands). For the size query, its pointer is valid for a write. For
    /// the call: `a`'s structure is valid and its arrays, like `x`'s, are bound to the scope
    /// for reading; `y`'s array is an exclusive binding of the scope, aliasing neither;
    /// [`operands`](Self::operands) checked them; the workspace holds the bytes the size query
    /// asked for these operands, is private to the plan, used by no other call at once and
    /// freed only once no call can run.
    unsafe fn call(
        &self,
        h: raw::cusparseHandle_t,
        a: raw::cusparseConstSpMatDescr_t,
        operands: (&Self::Dense, &Self::Dense),
        last: Last,
    ) -> raw::cusparseStatus_t;
}

/// The one argument in which a size query and its call differ.
#[derive(Clone, Copy)]
enum Last {
    /// The size query's out-pointer.
    Size(*mut usize),
    /// The call's workspace.
    Workspace(*mut c_void),
}

/// `cusparseSpMV_bufferSize` or `cusparseSpMV`: the same parameters but the last.
type SpMvFn<L> = unsafe extern "C" fn(
    raw::cusparseHandle_t,
    raw::cusparseOperation_t,
    *const c_void,
    raw::cusparseConstSpMatDescr_t,
    raw::cusparseConstDnVecDescr_t,
    *const c_void,
    raw::cusparseDnVecDescr_t,
    raw::cudaDataType,
    raw::cusparseSpMVAlg_t,
    L,
) -> raw::cusparseStatus_t;

/// `cusparseSpMM_bufferSize` or `cusparseSpMM`: the same parameters but the last.
type SpMmFn<L> = unsafe extern "C" fn(
    raw::cusparseHandle_t,
    raw::cusparseOperation_t,
    raw::cusparseOperation_t,
    *const c_void,
    raw::cusparseConstSpMatDescr_t,
    raw::cusparseConstDnMatDescr_t,
    *const c_void,
    raw::cusparseDnMatDescr_t,
    raw::cudaDataType,
    raw::cusparseSpMMAlg_t,
    L,
) -> raw::cusparseStatus_t;

impl<T: SparseScalar> SpMv<T> {
    /// `f` with these operands and `last`.
    ///
    /// # Safety
    ///
    /// As [`Product::call`], for `f` the size query or the call.
    #[allow(
        clippy::many_single_char_names,
        reason = "the product's own names: the call f, the handle h, the operands a, x, y"
    )]
    unsafe fn with<L>(
        &self,
        f: SpMvFn<L>,
        h: raw::cusparseHandle_t,
        a: raw::cusparseConstSpMatDescr_t,
        (x, y): (&VecDescr, &VecDescr),
        last: L,
    ) -> raw::cusparseStatus_t {
        let (alpha, beta) = (
            (&raw const self.alpha).cast(),
            (&raw const self.beta).cast(),
        );
        // SAFETY: the caller's (`Product::call`); the scalars are fields of `self`, read on the
        // host before the call returns (host pointer mode, cuSPARSE's default, which this
        // module never changes).
        unsafe {
            f(
                h,
                self.op.raw(),
                alpha,
                a,
                x.raw,
                beta,
                y.raw.cast_mut(),
                T::DATA_TYPE,
                self.alg.raw(),
                last,
            )
        }
    }
}

impl<T: SparseScalar> Product<T> for SpMv<T> {
    type Dense = VecDescr;
    const BUFFER_SIZE: &'static str = "cusparseSpMV_bufferSize";
    const CALL: &'static str = "cusparseSpMV";

    #[allow(clippy::many_single_char_names, reason = "the product's own names")]
    fn operands<I: SparseIndex>(
        &self,
        call: &str,
        a: &SparseMatrix<'_, T, I>,
        (x, x_len): (ffi::CUdeviceptr, usize),
        (y, y_len): (ffi::CUdeviceptr, usize),
    ) -> Result<(VecDescr, VecDescr)> {
        let (k, m) = check::spmv(call, self.op, (a.rows(), a.cols()), x_len, y_len)?;
        Ok((dn_vec::<T>(k, x)?, dn_vec::<T>(m, y)?))
    }

    unsafe fn call(
        &self,
        h: raw::cusparseHandle_t,
        a: raw::cusparseConstSpMatDescr_t,
        xy: (&VecDescr, &VecDescr),
        last: Last,
    ) -> raw::cusparseStatus_t {
        match last {
            // SAFETY: the caller's: a host-only query with live descriptors, writing the size
            // through a valid pointer.
            Last::Size(bytes) => unsafe {
                self.with(raw::cusparseSpMV_bufferSize, h, a, xy, bytes)
            },
            // SAFETY: the caller's. `cusparseSpMV` reads A and x and writes y in stream order:
            // A's structure is valid and its arrays bound for reading; x holds op(A)'s columns
            // and y its rows (checked by `operands`); y is an exclusive binding, aliasing
            // neither x nor A's arrays (both bound shared); the workspace holds what cuSPARSE
            // asked for these operands, private to the plan and used in its call order.
            Last::Workspace(ws) => unsafe { self.with(raw::cusparseSpMV, h, a, xy, ws) },
        }
    }
}

impl<T: SparseScalar> SpMm<T> {
    /// `f` with these operands and `last`.
    ///
    /// # Safety
    ///
    /// As [`Product::call`], for `f` the size query or the call.
    #[allow(
        clippy::many_single_char_names,
        reason = "the product's own names: the call f, the handle h, the operands a, b, c"
    )]
    unsafe fn with<L>(
        &self,
        f: SpMmFn<L>,
        h: raw::cusparseHandle_t,
        a: raw::cusparseConstSpMatDescr_t,
        (b, c): (&MatDescr, &MatDescr),
        last: L,
    ) -> raw::cusparseStatus_t {
        let (alpha, beta) = (
            (&raw const self.alpha).cast(),
            (&raw const self.beta).cast(),
        );
        let ops = (self.op_a.raw(), self.op_b.raw());
        // SAFETY: as for `SpMv::with`.
        unsafe {
            f(
                h,
                ops.0,
                ops.1,
                alpha,
                a,
                b.raw,
                beta,
                c.raw.cast_mut(),
                T::DATA_TYPE,
                self.alg.raw(),
                last,
            )
        }
    }
}

impl<T: SparseScalar> Product<T> for SpMm<T> {
    type Dense = MatDescr;
    const BUFFER_SIZE: &'static str = "cusparseSpMM_bufferSize";
    const CALL: &'static str = "cusparseSpMM";

    fn operands<I: SparseIndex>(
        &self,
        call: &str,
        a: &SparseMatrix<'_, T, I>,
        (b, b_len): (ffi::CUdeviceptr, usize),
        (c, c_len): (ffi::CUdeviceptr, usize),
    ) -> Result<(MatDescr, MatDescr)> {
        let (bd, cd) = check::spmm(
            call,
            (self.op_a, self.op_b),
            (a.rows(), a.cols()),
            (self.b, b_len),
            (self.c, c_len),
        )?;
        Ok((dn_mat::<T>(self.b, bd, b)?, dn_mat::<T>(self.c, cd, c)?))
    }

    unsafe fn call(
        &self,
        h: raw::cusparseHandle_t,
        a: raw::cusparseConstSpMatDescr_t,
        bc: (&MatDescr, &MatDescr),
        last: Last,
    ) -> raw::cusparseStatus_t {
        match last {
            // SAFETY: as for `SpMv`: a host-only query with live descriptors.
            Last::Size(bytes) => unsafe {
                self.with(raw::cusparseSpMM_bufferSize, h, a, bc, bytes)
            },
            // SAFETY: as for `SpMv`, with B and C dense matrices whose layouts span at most
            // their buffers (checked by `operands`), C an exclusive binding of the scope.
            Last::Workspace(ws) => unsafe { self.with(raw::cusparseSpMM, h, a, bc, ws) },
        }
    }
}

/// The size query of `d` for these operands.
#[allow(
    clippy::many_single_char_names,
    reason = "the product's own names: the handle h, the description d, the operands a, x, y"
)]
fn buffer_size<T: SparseScalar, I: SparseIndex, P: Product<T>>(
    h: raw::cusparseHandle_t,
    d: &P,
    a: &SparseMatrix<'_, T, I>,
    (x, y): (&P::Dense, &P::Dense),
) -> Result<usize> {
    let mut bytes = 0usize;
    // SAFETY: `h` is a handle of the plan (or the one being made), live while it is borrowed;
    // `a` borrowed, so its descriptor is live; `x` and `y` made by `operands`, live locals of
    // the caller; `bytes` a live local.
    status(P::BUFFER_SIZE, unsafe {
        d.call(h, a.as_raw(), (x, y), Last::Size(&raw mut bytes))
    })?;
    Ok(bytes)
}

/// `cusparseCreate`, then the workspace `d` needs for these operands, asked of the new handle.
fn plan<'g, K: ContextKind, T: SparseScalar, I: SparseIndex, P: Product<T>>(
    guard: &'g PushedGuard<'_, '_, K>,
    d: &P,
    a: &SparseMatrix<'_, T, I>,
    x: (ffi::CUdeviceptr, usize),
    y: (ffi::CUdeviceptr, usize),
) -> Result<Core<'g>> {
    let (dx, dy) = d.operands(P::BUFFER_SIZE, a, x, y)?;
    Core::new(guard, |h| buffer_size(h, d, a, (&dx, &dy)))
}

#[allow(
    clippy::many_single_char_names,
    reason = "the product's own names: the scope s, the description d, the operands a, x, y"
)]
impl Core<'_> {
    /// `Debug` for a plan named `name`.
    fn debug(&self, name: &str, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(name)
            .field("workspace_bytes", &self.workspace_bytes())
            .finish_non_exhaustive()
    }

    /// Checks `d`'s operands and the workspace they need against the plan's, then enqueues
    /// the call on the scope's stream, after the plan's previous call.
    fn run<'scope, T: SparseScalar, I: SparseIndex, P: Product<T>>(
        &self,
        s: &StreamScope<'scope, '_>,
        d: &P,
        a: &SparseMatrix<'scope, T, I>,
        x: (ffi::CUdeviceptr, usize),
        y: (ffi::CUdeviceptr, usize),
    ) -> Result<()> {
        let (dx, dy) = d.operands(P::CALL, a, x, y)?;
        let need = buffer_size(self.raw(), d, a, (&dx, &dy))?;
        let ws = self.workspace(P::CALL, need)?;
        self.enqueue(s, P::CALL, |h| {
            // SAFETY: `Product::call`'s contract for the call:
            // - `h` is the plan's live handle (`enqueue` hands it over) and `a` is borrowed;
            // - `a` is bound to this scope for reading (its lifetime is the scope's, from a
            //   checked pattern or the unsafe constructor's guarantee), and so is `x`
            //   (`ScopedRead`); `y` is an exclusive binding of this scope (`ScopedWrite`), so it
            //   aliases neither;
            // - `operands` checked them against `a` and `d`'s shapes just above;
            // - `ws` holds `need` bytes (checked just above), the plan's own workspace, used
            //   by no other call at once (the plan's call order) and freed only once no call
            //   can run (`LibraryHandle`).
            unsafe { d.call(h, a.as_raw(), (&dx, &dy), Last::Workspace(ws)) }
        })
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cusparseCreate` + `cusparseSpMV_bufferSize`—A plan for `SpMV`s of these operands (the
    /// same shapes, format and algorithm), with the workspace they need, allocated on this
    /// guard. The operands are only described to cuSPARSE: nothing is read or enqueued.
    ///
    /// # Errors
    ///
    /// As [`SpMvPlan::run`] for the operands' lengths;
    /// [`ErrorKind::LibraryNotLinked`] in a build without cuSPARSE; cuSPARSE's status (an
    /// algorithm that does not fit the format); `CUDA_ERROR_OUT_OF_MEMORY`.
    ///
    /// # Examples
    ///
    /// See the [module docs](crate::sparse).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmv>
    #[doc(alias = "cusparseCreate")]
    #[doc(alias = "cusparseSpMV_bufferSize")]
    pub fn spmv_plan<'scope, T: SparseScalar, I: SparseIndex>(
        &self,
        d: &SpMv<T>,
        a: &SparseMatrix<'scope, T, I>,
        x: impl ScopedRead<'scope, T>,
        y: impl ScopedRead<'scope, T>,
    ) -> Result<SpMvPlan<'_, T>> {
        Ok(SpMvPlan {
            core: plan(self, d, a, x.raw_parts(), y.raw_parts())?,
            _marker: PhantomData,
        })
    }

    /// `cusparseCreate` + `cusparseSpMM_bufferSize`—A plan for `SpMM`s of these operands, with
    /// the workspace they need. Nothing is read or enqueued.
    ///
    /// # Errors
    ///
    /// As [`SpMmPlan::run`] for the shapes and lengths; as [`spmv_plan`](Self::spmv_plan)
    /// otherwise.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmm>
    #[doc(alias = "cusparseSpMM_bufferSize")]
    pub fn spmm_plan<'scope, T: SparseScalar, I: SparseIndex>(
        &self,
        d: &SpMm<T>,
        a: &SparseMatrix<'scope, T, I>,
        b: impl ScopedRead<'scope, T>,
        c: impl ScopedRead<'scope, T>,
    ) -> Result<SpMmPlan<'_, T>> {
        Ok(SpMmPlan {
            core: plan(self, d, a, b.raw_parts(), c.raw_parts())?,
            _marker: PhantomData,
        })
    }
}

#[allow(
    clippy::many_single_char_names,
    reason = "the product's own names: the scope s, the description d, the operands a, x, y"
)]
impl<T: SparseScalar> SpMvPlan<'_, T> {
    /// `cusparseSpMV`—Enqueues `y = alpha·op(A)·x + beta·y` on the scope's stream, after the
    /// plan's previous call.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] for `x` shorter than
    /// `op(A)`'s columns or `y` than its rows, or for a workspace smaller than these operands
    /// need (make a plan for them); inside a graph capture `CUDA_ERROR_NOT_SUPPORTED`.
    /// cuSPARSE's status; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmv>
    #[doc(alias = "cusparseSpMV")]
    pub fn run<'scope, I: SparseIndex>(
        &self,
        s: &StreamScope<'scope, '_>,
        d: &SpMv<T>,
        a: &SparseMatrix<'scope, T, I>,
        x: impl ScopedRead<'scope, T>,
        y: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        self.core.run(s, d, a, x.raw_parts(), y.raw_parts())
    }

    /// The bytes of the plan's workspace.
    pub fn workspace_bytes(&self) -> usize {
        self.core.workspace_bytes()
    }

    /// `cusparseDestroy`—Waits until none of the plan's calls can still run, then destroys
    /// its handle and frees its workspace, returning the first error.
    ///
    /// # Errors
    ///
    /// The wait's error (the handle and workspace are then leaked rather than freed while
    /// the GPU may use them); cuSPARSE's status.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsedestroy>
    #[doc(alias = "cusparseDestroy")]
    pub fn destroy(mut self) -> Result<()> {
        self.core.handle.release()
    }
}

#[allow(
    clippy::many_single_char_names,
    reason = "the product's own names: the scope s, the description d, the operands a, b, c"
)]
impl<T: SparseScalar> SpMmPlan<'_, T> {
    /// `cusparseSpMM`—Enqueues `C = alpha·op(A)·op(B) + beta·C` on the scope's stream, after
    /// the plan's previous call.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] for shapes that do not agree
    /// (`op(B)` not `k × n`, `C` not `m × n`) or a leading dimension below its minimum;
    /// [`ErrorKind::BufferTooShort`] for a buffer shorter than its layout spans or a workspace
    /// smaller than these operands need; [`ErrorKind::SizeOverflow`]. cuSPARSE's status;
    /// driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsespmm>
    #[doc(alias = "cusparseSpMM")]
    pub fn run<'scope, I: SparseIndex>(
        &self,
        s: &StreamScope<'scope, '_>,
        d: &SpMm<T>,
        a: &SparseMatrix<'scope, T, I>,
        b: impl ScopedRead<'scope, T>,
        c: impl ScopedWrite<'scope, T>,
    ) -> Result<()> {
        self.core.run(s, d, a, b.raw_parts(), c.raw_parts())
    }

    /// The bytes of the plan's workspace.
    pub fn workspace_bytes(&self) -> usize {
        self.core.workspace_bytes()
    }

    /// `cusparseDestroy`—As [`SpMvPlan::destroy`].
    ///
    /// # Errors
    ///
    /// As [`SpMvPlan::destroy`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusparse/#cusparsedestroy>
    #[doc(alias = "cusparseDestroy")]
    pub fn destroy(mut self) -> Result<()> {
        self.core.handle.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::not_linked::assert_says_what_to_set;

    #[test]
    fn a_build_without_cusparse_says_what_to_set() {
        let (missing, env, wheel) = (
            cfg!(custack_no_cusparse),
            "CUSTACK_CUSPARSE_LIB_DIR",
            "nvidia-cusparse",
        );
        assert_says_what_to_set(not_linked(), missing, env, wheel);
    }
}
