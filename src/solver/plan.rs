//! The plans: one cuSOLVER handle each ([`PushedGuard::lu_plan`], ...), with the workspace its
//! calls need (asked of cuSOLVER, `*_bufferSize`, and allocated when the plan is made), the
//! order its calls run in, and its destruction; and the calls themselves, each checked, each
//! writing its info word into a [`SolverInfo`].

use crate::asynchronous::library_handle::{LibraryHandle, RawHandle};
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::ffi::cusolver::{cublasSideMode_t, cusolverDnHandle_t, cusolverStatus_t};
use crate::memory::DeviceMemory;
use crate::solver::check::{self, Dims};
use crate::solver::info::Meaning;
use crate::solver::infos::InfoOut;
use crate::solver::pivots::ScopedPivots;
use crate::solver::status::status;
use crate::solver::types::{Fill, Matrix, Scalar, Transpose, Vectors};
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use crate::vocabulary::version::LibraryVersion;
use core::ffi::{c_char, c_int};
use core::marker::PhantomData;

/// A live cuSOLVER dense handle, destroyed by `cusolverDnDestroy`.
#[derive(Clone, Copy, Debug)]
struct RawSolver(cusolverDnHandle_t);

impl RawHandle for RawSolver {
    unsafe fn destroy(self) -> Result<()> {
        // SAFETY: the caller's guarantee: a live handle of the current context, destroyed
        // once, no call of it still running.
        status("cusolverDnDestroy", unsafe {
            ffi::cusolver::cusolverDnDestroy(self.0)
        })
    }
}

/// `Err` in a build that found no cuSOLVER.
fn not_linked() -> Result<()> {
    crate::error::not_linked::not_linked(&crate::error::not_linked::CUSOLVER)
}

/// `cusolverGetProperty`—The version of the cuSOLVER linked (e.g. 11.5.2, 12.0.9); needs no
/// handle and no GPU.
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
/// ([`Profile::init`](crate::safety::Profile::init)): the library is outside it.
/// [`ErrorKind::LibraryNotLinked`] in a build without cuSOLVER; cuSOLVER's status.
///
/// # Examples
///
/// ```no_run
/// println!("cuSOLVER {}", custack::solver::version()?);
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cusolver/#cusolvergetproperty>
#[doc(alias = "cusolverGetProperty")]
#[doc(alias = "cusolverGetVersion")]
pub fn version() -> Result<LibraryVersion> {
    use ffi::cusolver::libraryPropertyType as P;
    crate::error::confinement::full_api("solver::version")?;
    not_linked()?;
    let part = |which: P, name: &str| -> Result<u32> {
        let mut v: c_int = 0;
        // SAFETY: `cusolverGetProperty` writes an int through a valid out-pointer (a live
        // local); `which` is one of the three properties `library_types.h` defines.
        status(name, unsafe {
            ffi::cusolver::cusolverGetProperty(which, &raw mut v)
        })?;
        Ok(v.unsigned_abs())
    };
    Ok(LibraryVersion::new(
        part(P::MAJOR_VERSION, "cusolverGetProperty(MAJOR_VERSION)")?,
        part(P::MINOR_VERSION, "cusolverGetProperty(MINOR_VERSION)")?,
        part(P::PATCH_LEVEL, "cusolverGetProperty(PATCH_LEVEL)")?,
    ))
}

/// A device address as the pointer type cuSOLVER takes.
fn ptr<E>(p: ffi::CUdeviceptr) -> *mut E {
    p as usize as *mut E
}

/// The handle, its workspace and the order of its calls: what every plan is made of.
struct Core<'g, T: Scalar> {
    /// The handle, the workspace every call of it uses (`lwork` elements of `T`, then what a
    /// call needs besides, such as `gesvd`'s `rwork`) and the order of its calls, which never
    /// overlap on the GPU (they share the workspace); released in the one sound sequence
    /// (`LibraryHandle::release`): wait, then destroy and free, or leak.
    handle: LibraryHandle<'g, RawSolver>,
    /// The workspace cuSOLVER asked for, in elements of `T`, as cuSOLVER takes it back.
    lwork: c_int,
    _t: PhantomData<T>,
}

impl<T: Scalar> core::fmt::Debug for Core<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Core")
            .field("raw", &self.handle.raw())
            .field("lwork", &self.lwork)
            .field("workspace_bytes", &self.handle.memory_bytes())
            .finish_non_exhaustive()
    }
}

impl<'g, T: Scalar> Core<'g, T> {
    /// Makes a handle of `guard`'s context (`cusolverDnCreate`), asks `query` for the workspace
    /// sizes of its calls (in elements, each checked), and allocates the largest, plus `extra`
    /// elements, on the guard.
    fn create<K: ContextKind>(
        guard: &'g PushedGuard<'_, '_, K>,
        plan: &str,
        extra: usize,
        query: impl FnOnce(cusolverDnHandle_t) -> Result<Vec<usize>>,
    ) -> Result<Self> {
        crate::error::poison::check()?;
        not_linked()?;
        let handle = LibraryHandle::create(guard, 0, || {
            let mut raw = core::ptr::null_mut();
            // SAFETY: `cusolverDnCreate` writes a handle through a valid out-pointer (a live
            // local) and binds it to the current context, this guard's (the top of this
            // thread's stack while the guard is reachable).
            status("cusolverDnCreate", unsafe {
                ffi::cusolver::cusolverDnCreate(&raw mut raw)
            })?;
            Ok(RawSolver(raw))
        })?;
        let raw = handle.raw().map_or(core::ptr::null_mut(), |r| r.0);
        // From here the core destroys the handle when dropped, also on the errors below.
        let mut core = Self {
            handle,
            lwork: 0,
            _t: PhantomData,
        };
        let sizes = query(raw)?;
        let (most, lwork) = check::largest(plan, &sizes)?;
        let elements = most.checked_add(extra).ok_or_else(|| overflow(plan))?;
        let bytes = elements
            .checked_mul(size_of::<T>())
            .ok_or_else(|| overflow(plan))?;
        if bytes > 0 {
            core.handle.own_memory(guard.alloc::<u8>(bytes)?);
        }
        core.lwork = lwork;
        Ok(core)
    }

    /// The workspace's address and, `offset` elements in, the address of what follows it.
    fn workspace(&self, offset: usize) -> (ffi::CUdeviceptr, ffi::CUdeviceptr) {
        let base = self.handle.memory().map_or(0, DeviceMemory::device_ptr);
        let after = if base == 0 {
            0
        } else {
            base + (offset * size_of::<T>()) as ffi::CUdeviceptr
        };
        (base, after)
    }

    /// Runs one call on the scope's stream, ordered after the handle's previous one
    /// (`CallOrder`: on the previous call's stream nothing is set; on another, the stream
    /// waits for everything before it and becomes the handle's, `cusolverDnSetStream`), then
    /// enqueues the copy of its info word to the info's host word, on the same stream.
    #[inline]
    fn enqueue<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        call: &'static str,
        info: impl InfoOut<'scope>,
        meaning: Meaning,
        f: impl FnOnce(cusolverDnHandle_t, *mut c_int) -> cusolverStatus_t,
    ) -> Result<()> {
        let Some(RawSolver(raw)) = self.handle.raw() else {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("{call}: the plan was destroyed; nothing was enqueued"),
            ));
        };
        info.enqueue_with(s, call, meaning, |dinfo| {
            self.handle.order().enqueue(
                call,
                s,
                |stream| {
                    // SAFETY: `cusolverDnSetStream` needs a live handle and a stream of its
                    // context: the handle is live (released only by `destroy` or the drop, which
                    // take `self`); the stream is a scope's, live for the scope, of the current
                    // context, which is the handle's: the plan borrows the guard shared, so no
                    // other context can be pushed above it while it is reachable.
                    status("cusolverDnSetStream", unsafe {
                        ffi::cusolver::cusolverDnSetStream(raw, stream)
                    })
                },
                || status(call, f(raw, ptr(dinfo))),
            )
        })
    }

    fn release(&mut self) -> Result<()> {
        self.handle.release()
    }
}

#[cold]
#[inline(never)]
fn overflow(plan: &str) -> Error {
    Error::custack(
        ErrorKind::SizeOverflow,
        format!("{plan}: the workspace's bytes overflow usize"),
    )
}

/// A query's workspace, in elements, checked.
fn asked<T: Scalar>(call: &str, f: impl FnOnce(*mut c_int) -> cusolverStatus_t) -> Result<usize> {
    let mut lwork: c_int = 0;
    status(call, f(&raw mut lwork))?;
    check::workspace(call, lwork, size_of::<T>())
}

macro_rules! plan_common {
    ($plan:ident, $what:literal) => {
        static_assertions::assert_not_impl_any!($plan<'static, f32>: Send, Sync);

        impl<T: Scalar> core::fmt::Debug for $plan<'_, T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($plan))
                    .field("core", &self.core)
                    .finish_non_exhaustive()
            }
        }

        impl<T: Scalar> $plan<'_, T> {
            /// The bytes of the plan's workspace (cuSOLVER's `*_bufferSize`, allocated when
            /// the plan was made; 0 when it needs none).
            pub fn workspace_bytes(&self) -> usize {
                self.core.handle.memory_bytes()
            }

            /// The raw handle, for cuSOLVER functions this module does not wrap (`None` only
            /// while it is being destroyed). It stays owned by `self`; asking for it makes the
            /// next call order itself after everything and set its stream again. Never let a
            /// call through it overlap this plan's own calls (they share its workspace).
            pub fn as_raw(&self) -> Option<cusolverDnHandle_t> {
                self.core.handle.order().forget_stream();
                self.core.handle.raw().map(|r| r.0)
            }

            #[doc = concat!("`cusolverDnDestroy`—Waits until none of the ", $what, "'s calls can")]
            /// still run, then destroys its handle and frees its workspace, returning the
            /// first error.
            ///
            /// # Errors
            ///
            /// The error of the wait (the first error of the context's work, or a sticky
            /// error); if it fails, the handle and the workspace are leaked rather than freed
            /// while the GPU may still use them. cuSOLVER's status; the workspace's free.
            ///
            /// # References
            ///
            /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdndestroy>
            #[doc(alias = "cusolverDnDestroy")]
            pub fn destroy(mut self) -> Result<()> {
                self.core.release()
            }
        }
    };
}

/// An LU factorization plan of the guard's context, for `m × n` matrices of `T` (`getrf`)
/// and, square, their solves (`getrs`); see the [module docs](crate::solver).
#[doc(alias = "cusolverDnHandle_t")]
pub struct LuPlan<'g, T: Scalar> {
    core: Core<'g, T>,
    a: Matrix,
    dims: Dims,
    _guard: PhantomData<(&'g (), *const ())>,
}
plan_common!(LuPlan, "plan");

/// A Cholesky factorization plan of the guard's context, for `n × n` symmetric
/// positive-definite matrices of `T` read from one triangle (`potrf`), and their solves
/// (`potrs`); see the [module docs](crate::solver).
#[doc(alias = "cusolverDnHandle_t")]
pub struct CholeskyPlan<'g, T: Scalar> {
    core: Core<'g, T>,
    fill: Fill,
    dims: Dims,
    _guard: PhantomData<(&'g (), *const ())>,
}
plan_common!(CholeskyPlan, "plan");

/// A QR factorization plan of the guard's context, for `m × n` matrices of `T` (`geqrf`),
/// and the product of their `Q` (or `Qᵀ`) with `m × p` matrices (`ormqr`); see the
/// [module docs](crate::solver).
#[doc(alias = "cusolverDnHandle_t")]
pub struct QrPlan<'g, T: Scalar> {
    core: Core<'g, T>,
    a: Dims,
    c: Dims,
    /// The reflectors: `min(m, n)`.
    k: c_int,
    /// `A` as `ormqr` reads it: its first `k` columns.
    a_k: Dims,
    _guard: PhantomData<(&'g (), *const ())>,
}
plan_common!(QrPlan, "plan");

/// A symmetric eigendecomposition plan of the guard's context, for `n × n` matrices of `T`
/// read from one triangle (`syevd`): eigenvalues in ascending order and, with
/// [`Vectors::Yes`], the eigenvectors in place of the matrix; see the
/// [module docs](crate::solver).
#[doc(alias = "cusolverDnHandle_t")]
pub struct EigenPlan<'g, T: Scalar> {
    core: Core<'g, T>,
    fill: Fill,
    vectors: Vectors,
    dims: Dims,
    _guard: PhantomData<(&'g (), *const ())>,
}
plan_common!(EigenPlan, "plan");

/// A singular value decomposition plan of the guard's context, for `m × n` matrices of `T`
/// with `m ≥ n` (`gesvd`); see the [module docs](crate::solver).
#[doc(alias = "cusolverDnHandle_t")]
pub struct SvdPlan<'g, T: Scalar> {
    core: Core<'g, T>,
    dims: Dims,
    /// Where `rwork` starts in the workspace: after cuSOLVER's `lwork`.
    rwork_at: usize,
    _guard: PhantomData<(&'g (), *const ())>,
}
plan_common!(SvdPlan, "plan");

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cusolverDnCreate`, `cusolverDn<t>getrf_bufferSize`—Makes an LU plan of this guard's
    /// context for `a`'s shape, with the workspace `getrf` needs.
    ///
    /// # Errors
    ///
    /// Before cuSOLVER is called: [`ErrorKind::InvalidValue`] for a shape with no element or a
    /// leading dimension below its rows, [`ErrorKind::SizeOverflow`] for a number beyond a C
    /// `int`. Then [`ErrorKind::LibraryNotLinked`] if custack was built without cuSOLVER;
    /// cuSOLVER's status; `CUDA_ERROR_OUT_OF_MEMORY` for the workspace; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::solver::Matrix;
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let lu = guard.lu_plan::<f64>(Matrix::square(1024))?;
    /// println!("{} bytes of workspace", lu.workspace_bytes());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    #[doc(alias = "cusolverDnCreate")]
    #[doc(alias = "cusolverDnSgetrf_bufferSize")]
    #[doc(alias = "cusolverDnDgetrf_bufferSize")]
    pub fn lu_plan<T: Scalar>(&self, a: Matrix) -> Result<LuPlan<'_, T>> {
        let call = format!("{}_bufferSize", T::GETRF);
        let dims = check::matrix(&call, "A", a)?;
        let core = Core::create(self, &call, 0, |h| {
            Ok(vec![asked::<T>(&call, |lwork| {
                // SAFETY: `getrf_bufferSize` reads the dimensions (checked) and writes the
                // size through a valid out-pointer; it does not read `A` (null).
                unsafe { T::getrf_buffer_size(h, dims.rows, dims.cols, ptr(0), dims.ld, lwork) }
            })?])
        })?;
        Ok(LuPlan {
            core,
            a,
            dims,
            _guard: PhantomData,
        })
    }

    /// `cusolverDnCreate`, `cusolverDn<t>potrf_bufferSize`—Makes a Cholesky plan of this
    /// guard's context for the square `a`, reading and writing its `fill` triangle.
    ///
    /// # Errors
    ///
    /// As [`lu_plan`](Self::lu_plan), and [`ErrorKind::InvalidValue`] for a shape that is not
    /// square.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrf>
    #[doc(alias = "cusolverDnSpotrf_bufferSize")]
    #[doc(alias = "cusolverDnDpotrf_bufferSize")]
    pub fn cholesky_plan<T: Scalar>(&self, a: Matrix, fill: Fill) -> Result<CholeskyPlan<'_, T>> {
        let call = format!("{}_bufferSize", T::POTRF);
        let dims = check::square(&call, "A", a)?;
        let core = Core::create(self, &call, 0, |h| {
            Ok(vec![asked::<T>(&call, |lwork| {
                // SAFETY: as in `lu_plan`: checked dimensions, a valid out-pointer, `A` unread.
                unsafe { T::potrf_buffer_size(h, fill.raw(), dims.rows, ptr(0), dims.ld, lwork) }
            })?])
        })?;
        Ok(CholeskyPlan {
            core,
            fill,
            dims,
            _guard: PhantomData,
        })
    }

    /// `cusolverDnCreate`, `cusolverDn<t>geqrf_bufferSize`, `cusolverDn<t>ormqr_bufferSize`—
    /// Makes a QR plan of this guard's context for `a`'s shape (`m × n`), whose `ormqr`
    /// multiplies `Q` or `Qᵀ` (`m × m`, from the left) with matrices of `c`'s shape (`m × p`),
    /// with the workspace the largest of the three calls needs.
    ///
    /// # Errors
    ///
    /// As [`lu_plan`](Self::lu_plan) for `a` and `c`, and [`ErrorKind::InvalidValue`] when
    /// `c`'s rows are not `a`'s.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-geqrf>
    #[doc(alias = "cusolverDnSgeqrf_bufferSize")]
    #[doc(alias = "cusolverDnDgeqrf_bufferSize")]
    #[doc(alias = "cusolverDnSormqr_bufferSize")]
    #[doc(alias = "cusolverDnDormqr_bufferSize")]
    pub fn qr_plan<T: Scalar>(&self, a: Matrix, c: Matrix) -> Result<QrPlan<'_, T>> {
        let call = format!("{}_bufferSize", T::GEQRF);
        let ad = check::matrix(&call, "A", a)?;
        let cd = check::rhs(&call, a.rows, c)?;
        let k = a.rows.min(a.cols);
        let a_k = check::matrix(&call, "A", Matrix { cols: k, ..a })?;
        let core = Core::create(self, &call, 0, |h| {
            let mut sizes = vec![asked::<T>(&call, |lwork| {
                // SAFETY: as in `lu_plan`: checked dimensions, a valid out-pointer, `A` unread.
                unsafe { T::geqrf_buffer_size(h, ad.rows, ad.cols, ptr(0), ad.ld, lwork) }
            })?];
            let ormqr = format!("{}_bufferSize", T::ORMQR);
            for trans in [Transpose::No, Transpose::Yes] {
                sizes.push(asked::<T>(&ormqr, |lwork| {
                    // SAFETY: checked dimensions (`k ≤ m`, `ldc ≥ m`), a valid out-pointer;
                    // the query reads none of `A`, `tau`, `C` (null).
                    unsafe {
                        T::ormqr_buffer_size(
                            h,
                            cublasSideMode_t::CUBLAS_SIDE_LEFT,
                            trans.raw(),
                            cd.rows,
                            cd.cols,
                            a_k.cols,
                            ptr(0),
                            ad.ld,
                            ptr(0),
                            ptr(0),
                            cd.ld,
                            lwork,
                        )
                    }
                })?);
            }
            Ok(sizes)
        })?;
        Ok(QrPlan {
            core,
            a: ad,
            c: cd,
            k: a_k.cols,
            a_k,
            _guard: PhantomData,
        })
    }

    /// `cusolverDnCreate`, `cusolverDn<t>syevd_bufferSize`—Makes a symmetric
    /// eigendecomposition plan of this guard's context for the square `a`, reading its `fill`
    /// triangle, computing eigenvectors too with [`Vectors::Yes`].
    ///
    /// # Errors
    ///
    /// As [`cholesky_plan`](Self::cholesky_plan).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-syevd>
    #[doc(alias = "cusolverDnSsyevd_bufferSize")]
    #[doc(alias = "cusolverDnDsyevd_bufferSize")]
    pub fn eigen_plan<T: Scalar>(
        &self,
        a: Matrix,
        fill: Fill,
        vectors: Vectors,
    ) -> Result<EigenPlan<'_, T>> {
        let call = format!("{}_bufferSize", T::SYEVD);
        let dims = check::square(&call, "A", a)?;
        let core = Core::create(self, &call, 0, |h| {
            Ok(vec![asked::<T>(&call, |lwork| {
                // SAFETY: as in `lu_plan`: checked dimensions, a valid out-pointer, `A` and `W`
                // unread (null).
                unsafe {
                    T::syevd_buffer_size(
                        h,
                        vectors.raw(),
                        fill.raw(),
                        dims.rows,
                        ptr(0),
                        dims.ld,
                        ptr(0),
                        lwork,
                    )
                }
            })?])
        })?;
        Ok(EigenPlan {
            core,
            fill,
            vectors,
            dims,
            _guard: PhantomData,
        })
    }

    /// `cusolverDnCreate`, `cusolverDn<t>gesvd_bufferSize`—Makes a singular value
    /// decomposition plan of this guard's context for `a`'s shape, `m ≥ n` (cuSOLVER's
    /// `gesvd` supports no other: decompose `Aᵀ` instead), with the workspace `gesvd` needs
    /// and room for its `rwork` (`min(m, n) − 1` elements, where the unconverged
    /// superdiagonal is left).
    ///
    /// # Errors
    ///
    /// As [`lu_plan`](Self::lu_plan), and [`ErrorKind::InvalidValue`] for `m < n`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-gesvd>
    #[doc(alias = "cusolverDnSgesvd_bufferSize")]
    #[doc(alias = "cusolverDnDgesvd_bufferSize")]
    pub fn svd_plan<T: Scalar>(&self, a: Matrix) -> Result<SvdPlan<'_, T>> {
        let call = format!("{}_bufferSize", T::GESVD);
        let dims = check::matrix(&call, "A", a)?;
        if a.rows < a.cols {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "{call}: A is {} × {}: gesvd needs rows ≥ columns (decompose the transpose)",
                    a.rows, a.cols
                ),
            ));
        }
        let mut lwork = 0;
        let core = Core::create(self, &call, a.cols, |h| {
            lwork = asked::<T>(&call, |lwork| {
                // SAFETY: `gesvd_bufferSize` reads the dimensions (checked) and writes the
                // size through a valid out-pointer.
                unsafe { T::gesvd_buffer_size(h, dims.rows, dims.cols, lwork) }
            })?;
            Ok(vec![lwork])
        })?;
        Ok(SvdPlan {
            core,
            dims,
            rwork_at: lwork,
            _guard: PhantomData,
        })
    }
}

impl<T: Scalar> LuPlan<'_, T> {
    /// `cusolverDn<t>getrf`—Enqueues the LU factorization with partial pivoting of `a` in
    /// place (`P·A = L·U`, `L` unit lower below the diagonal, `U` on and above), the pivots
    /// (1-based row interchanges, `min(m, n)` of them, each in `1..=m`) into `ipiv`
    /// ([`Pivots`](crate::solver::Pivots) of this plan's shape, bound with
    /// [`bind_pivots`](crate::StreamScope::bind_pivots)), and the info into `info`:
    /// [`Info::Singular`](crate::solver::Info::Singular) with the first zero pivot when `U` is
    /// singular, read after the scope.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] for `a` shorter than the
    /// plan's shape reaches; [`ErrorKind::InvalidValue`] for pivots made for another shape
    /// (other rows, or other than `min(m, n)` of them). `CUDA_ERROR_NOT_SUPPORTED` inside a
    /// graph capture; cuSOLVER's status; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::solver::Matrix;
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let lu = guard.lu_plan::<f64>(Matrix::square(2))?;
    /// let mut a = guard.alloc_from(&[1.0, 2.0, 2.0, 4.0])?; // singular
    /// let mut ipiv = guard.lu_pivots(Matrix::square(2))?;
    /// let mut info = guard.solver_info()?;
    /// guard.stream()?.scope(|s| lu.getrf(s, s.bind_mut(&mut a), &mut s.bind_pivots(&mut ipiv), &mut info))??;
    /// assert_eq!(info.ensure_success().unwrap_err().kind(), custack::ErrorKind::SingularMatrix);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    #[doc(alias = "cusolverDnSgetrf")]
    #[doc(alias = "cusolverDnDgetrf")]
    pub fn getrf<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedWrite<'scope, T>,
        ipiv: &mut ScopedPivots<'scope>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let a = a.raw_parts();
        let (ipiv, count, made_rows) = ipiv.parts();
        let d = self.dims;
        check::holds(T::GETRF, "A", a.1, d.reach)?;
        let pivots = self.a.rows.min(self.a.cols);
        check::pivots(T::GETRF, (count, made_rows), self.a.rows, pivots)?;
        let (work, _) = self.core.workspace(0);
        self.core
            .enqueue(s, T::GETRF, info, Meaning::Pivot, |h, dinfo| {
                // SAFETY: cuSOLVER reads and writes `A`, writes `ipiv` and the info, and uses the
                // workspace, in stream order:
                // - `A` holds what the checked shape reaches, `ipiv` `min(m, n)` ints of a
                //   matrix of `m` rows (checked), into which cuSOLVER writes row numbers of `A`,
                //   `1..=m`, so the pivots' invariant holds after the call;
                // - both are exclusive bindings of device memory of this context, alive until the
                //   scope's stream is synchronized, so they alias nothing else the scope reaches;
                // - the info word is the info's device word, borrowed for the scope;
                // - the workspace holds the `lwork` elements `getrf_bufferSize` asked for this
                //   shape, and no other call of the plan overlaps this one (`CallOrder`).
                unsafe {
                    T::getrf(
                        h,
                        d.rows,
                        d.cols,
                        ptr(a.0),
                        d.ld,
                        ptr(work),
                        ptr(ipiv),
                        dinfo,
                    )
                }
            })
    }

    /// `cusolverDn<t>getrs`—Enqueues the solve of `op(A)·X = B` with `getrf`'s factors `a`
    /// and pivots `ipiv` (a square plan), overwriting `b` (of shape `b_shape`: `n × nrhs`)
    /// with `X`. Its info reports only an illegal parameter.
    ///
    /// The pivots are [`Pivots`](crate::solver::Pivots) of this plan's shape: cuSOLVER
    /// interchanges the rows of `B` they name without checking them, so only pivots that
    /// nothing but `getrf` wrote are taken (an `i32` buffer of the caller's:
    /// [`getrs_unchecked`](Self::getrs_unchecked)).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::InvalidValue`] for a plan that is not square,
    /// pivots made for another shape, or `b_shape` whose rows are not `n` (or with no element,
    /// or `ld` below its rows); [`ErrorKind::BufferTooShort`] for `a` or `b` shorter than what
    /// the call reaches; [`ErrorKind::SizeOverflow`]. As [`getrf`](Self::getrf) after.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrs>
    #[doc(alias = "cusolverDnSgetrs")]
    #[doc(alias = "cusolverDnDgetrs")]
    #[allow(clippy::too_many_arguments)]
    pub fn getrs<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        trans: Transpose,
        a: impl ScopedRead<'scope, T>,
        ipiv: &ScopedPivots<'scope>,
        b: impl ScopedWrite<'scope, T>,
        b_shape: Matrix,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let (pivots, count, made_rows) = ipiv.parts();
        check::square(T::GETRS, "A", self.a)?;
        check::pivots(T::GETRS, (count, made_rows), self.a.rows, self.a.rows)?;
        // SAFETY: `ipiv` is `Pivots` of `n` rows, `n` of them (checked): each is in `1..=n`,
        // as made (the identity) and as only `getrf` of a matrix of `n` rows writes them.
        unsafe { self.solve(s, trans, a, (pivots, count), b, b_shape, info) }
    }

    /// `cusolverDn<t>getrs` with pivots in any `i32` buffer: as [`getrs`](Self::getrs), the
    /// pivots' `n` checked for length only.
    ///
    /// # Safety
    ///
    /// When the call runs on the GPU, each of the first `n` pivots is in `1..=n` (cuSOLVER
    /// interchanges the rows of `B` they name, unchecked: any other reads and writes device
    /// memory outside `B`).
    ///
    /// # Errors
    ///
    /// As [`getrs`](Self::getrs), and [`ErrorKind::BufferTooShort`] for `ipiv` shorter than `n`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrs>
    #[doc(alias = "cusolverDnSgetrs")]
    #[doc(alias = "cusolverDnDgetrs")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn getrs_unchecked<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        trans: Transpose,
        a: impl ScopedRead<'scope, T>,
        ipiv: impl ScopedRead<'scope, i32>,
        b: impl ScopedWrite<'scope, T>,
        b_shape: Matrix,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let ipiv = ipiv.raw_parts();
        check::holds(T::GETRS, "ipiv", ipiv.1, self.a.rows)?;
        // SAFETY: the caller's promise: each of the first `n` pivots is in `1..=n`.
        unsafe { self.solve(s, trans, a, ipiv, b, b_shape, info) }
    }

    /// `getrs` itself, the pivots' length checked by the caller.
    ///
    /// # Safety
    ///
    /// `ipiv` holds at least `n` pivots, each of the first `n` in `1..=n` when the call runs.
    #[allow(clippy::too_many_arguments)]
    unsafe fn solve<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        trans: Transpose,
        a: impl ScopedRead<'scope, T>,
        ipiv: (ffi::CUdeviceptr, usize),
        b: impl ScopedWrite<'scope, T>,
        b_shape: Matrix,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let (a, b) = (a.raw_parts(), b.raw_parts());
        let d = check::square(T::GETRS, "A", self.a)?;
        let bd = check::rhs(T::GETRS, self.a.rows, b_shape)?;
        check::holds(T::GETRS, "A", a.1, d.reach)?;
        check::holds(T::GETRS, "B", b.1, bd.reach)?;
        self.core
            .enqueue(s, T::GETRS, info, Meaning::ParametersOnly, |h, dinfo| {
                // SAFETY: cuSOLVER reads `A` and `ipiv` and overwrites `B`, in stream order:
                // - each holds what the checked shapes reach, and every pivot names a row of
                //   `B` (the caller's promise), so the interchanges stay inside `B`;
                // - `A` and `ipiv` are bindings of this context's device memory, `B` an exclusive
                //   one, so `B` aliases neither; all alive until the scope's stream is synchronized;
                // - the info word is the info's device word; `getrs` needs no workspace.
                unsafe {
                    T::getrs(
                        h,
                        trans.raw(),
                        d.rows,
                        bd.cols,
                        ptr(a.0),
                        d.ld,
                        ptr(ipiv.0),
                        ptr(b.0),
                        bd.ld,
                        dinfo,
                    )
                }
            })
    }
}

impl<T: Scalar> CholeskyPlan<'_, T> {
    /// `cusolverDn<t>potrf`—Enqueues the Cholesky factorization of `a` in place (`L·Lᵀ` in
    /// the lower triangle, or `Uᵀ·U` in the upper, as the plan's [`Fill`]), the info into
    /// `info`: [`Info::NotPositiveDefinite`](crate::solver::Info::NotPositiveDefinite) with
    /// the order of the first leading minor that is not, read after the scope.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] for `a` shorter than the
    /// plan's shape reaches. As [`LuPlan::getrf`] after.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrf>
    #[doc(alias = "cusolverDnSpotrf")]
    #[doc(alias = "cusolverDnDpotrf")]
    pub fn potrf<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedWrite<'scope, T>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let a = a.raw_parts();
        let d = self.dims;
        check::holds(T::POTRF, "A", a.1, d.reach)?;
        let (work, _) = self.core.workspace(0);
        let (fill, lwork) = (self.fill.raw(), self.core.lwork);
        self.core
            .enqueue(s, T::POTRF, info, Meaning::Minor, |h, dinfo| {
                // SAFETY: as in `getrf`: `A` an exclusive binding holding the checked shape's
                // reach; the workspace holds the `lwork` elements `potrf_bufferSize` asked for.
                unsafe { T::potrf(h, fill, d.rows, ptr(a.0), d.ld, ptr(work), lwork, dinfo) }
            })
    }

    /// `cusolverDn<t>potrs`—Enqueues the solve of `A·X = B` with `potrf`'s factor `a`,
    /// overwriting `b` (of shape `b_shape`: `n × nrhs`) with `X`. Its info reports only an
    /// illegal parameter.
    ///
    /// # Errors
    ///
    /// As [`LuPlan::getrs`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-potrs>
    #[doc(alias = "cusolverDnSpotrs")]
    #[doc(alias = "cusolverDnDpotrs")]
    pub fn potrs<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedRead<'scope, T>,
        b: impl ScopedWrite<'scope, T>,
        b_shape: Matrix,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let (a, b) = (a.raw_parts(), b.raw_parts());
        let d = self.dims;
        let bd = check::rhs(T::POTRS, d.rows as usize, b_shape)?;
        check::holds(T::POTRS, "A", a.1, d.reach)?;
        check::holds(T::POTRS, "B", b.1, bd.reach)?;
        let fill = self.fill.raw();
        self.core
            .enqueue(s, T::POTRS, info, Meaning::ParametersOnly, |h, dinfo| {
                // SAFETY: as in `getrs`: `A` read, `B` an exclusive binding, both holding the
                // checked shapes' reach; `potrs` needs no workspace.
                unsafe {
                    T::potrs(
                        h,
                        fill,
                        d.rows,
                        bd.cols,
                        ptr(a.0),
                        d.ld,
                        ptr(b.0),
                        bd.ld,
                        dinfo,
                    )
                }
            })
    }
}

impl<T: Scalar> QrPlan<'_, T> {
    /// `cusolverDn<t>geqrf`—Enqueues the QR factorization of `a` in place: `R` on and above
    /// the diagonal, the Householder reflectors below it and their scalars in `tau`
    /// (`min(m, n)` of them). Its info reports only an illegal parameter.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] for `a` or `tau` shorter
    /// than the call reaches. As [`LuPlan::getrf`] after.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-geqrf>
    #[doc(alias = "cusolverDnSgeqrf")]
    #[doc(alias = "cusolverDnDgeqrf")]
    pub fn geqrf<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedWrite<'scope, T>,
        tau: impl ScopedWrite<'scope, T>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let (a, tau) = (a.raw_parts(), tau.raw_parts());
        let d = self.a;
        check::holds(T::GEQRF, "A", a.1, d.reach)?;
        check::holds(T::GEQRF, "tau", tau.1, self.k as usize)?;
        let (work, _) = self.core.workspace(0);
        let lwork = self.core.lwork;
        self.core
            .enqueue(s, T::GEQRF, info, Meaning::ParametersOnly, |h, dinfo| {
                // SAFETY: as in `getrf`: `A` and `tau` exclusive bindings holding what the call
                // reaches (checked); the workspace holds at least `geqrf_bufferSize`'s `lwork`.
                unsafe {
                    T::geqrf(
                        h,
                        d.rows,
                        d.cols,
                        ptr(a.0),
                        d.ld,
                        ptr(tau.0),
                        ptr(work),
                        lwork,
                        dinfo,
                    )
                }
            })
    }

    /// `cusolverDn<t>ormqr`—Enqueues `C ← op(Q)·C` with `geqrf`'s reflectors (`a`, `tau`),
    /// `Q` (`Transpose::No`) or `Qᵀ` (`Transpose::Yes`) from the left, overwriting `c` (of the
    /// plan's `C` shape). Its info reports only an illegal parameter.
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] for `a` (its first
    /// `min(m, n)` columns), `tau` or `c` shorter than the call reaches. As
    /// [`LuPlan::getrf`] after.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-ormqr>
    #[doc(alias = "cusolverDnSormqr")]
    #[doc(alias = "cusolverDnDormqr")]
    pub fn ormqr<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        trans: Transpose,
        a: impl ScopedRead<'scope, T>,
        tau: impl ScopedRead<'scope, T>,
        c: impl ScopedWrite<'scope, T>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let (a, tau, c) = (a.raw_parts(), tau.raw_parts(), c.raw_parts());
        let (ak, cd, k) = (self.a_k, self.c, self.k);
        check::holds(T::ORMQR, "A", a.1, ak.reach)?;
        check::holds(T::ORMQR, "tau", tau.1, k as usize)?;
        check::holds(T::ORMQR, "C", c.1, cd.reach)?;
        let (work, _) = self.core.workspace(0);
        let lwork = self.core.lwork;
        self.core
            .enqueue(s, T::ORMQR, info, Meaning::ParametersOnly, |h, dinfo| {
                // SAFETY: cuSOLVER reads `A`'s first `k` columns and `tau`, overwrites `C` and
                // uses the workspace, in stream order: each holds what the checked shapes reach;
                // `C` is an exclusive binding, so it aliases neither input; the workspace holds at
                // least `ormqr_bufferSize`'s `lwork` for this side, either `trans` and `C`'s shape.
                unsafe {
                    T::ormqr(
                        h,
                        cublasSideMode_t::CUBLAS_SIDE_LEFT,
                        trans.raw(),
                        cd.rows,
                        cd.cols,
                        k,
                        ptr(a.0),
                        ak.ld,
                        ptr(tau.0),
                        ptr(c.0),
                        cd.ld,
                        ptr(work),
                        lwork,
                        dinfo,
                    )
                }
            })
    }
}

impl<T: Scalar> EigenPlan<'_, T> {
    /// `cusolverDn<t>syevd`—Enqueues the eigendecomposition of the symmetric `a` (its plan's
    /// triangle): the eigenvalues in ascending order into `w` (`n`), and with
    /// [`Vectors::Yes`] the orthonormal eigenvectors into `a`'s columns (otherwise `a` is
    /// destroyed). The info: [`Info::NotConverged`](crate::solver::Info::NotConverged).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] for `a` or `w` shorter than
    /// the call reaches. As [`LuPlan::getrf`] after.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-syevd>
    #[doc(alias = "cusolverDnSsyevd")]
    #[doc(alias = "cusolverDnDsyevd")]
    pub fn syevd<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedWrite<'scope, T>,
        w: impl ScopedWrite<'scope, T>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let (a, w) = (a.raw_parts(), w.raw_parts());
        let d = self.dims;
        check::holds(T::SYEVD, "A", a.1, d.reach)?;
        check::holds(T::SYEVD, "W", w.1, d.rows as usize)?;
        let (work, _) = self.core.workspace(0);
        let (jobz, fill, lwork) = (self.vectors.raw(), self.fill.raw(), self.core.lwork);
        self.core
            .enqueue(s, T::SYEVD, info, Meaning::Unconverged, |h, dinfo| {
                // SAFETY: as in `getrf`: `A` and `W` exclusive bindings holding what the call
                // reaches (checked); the workspace holds `syevd_bufferSize`'s `lwork` for this
                // `jobz`, triangle and shape.
                unsafe {
                    T::syevd(
                        h,
                        jobz,
                        fill,
                        d.rows,
                        ptr(a.0),
                        d.ld,
                        ptr(w.0),
                        ptr(work),
                        lwork,
                        dinfo,
                    )
                }
            })
    }
}

/// `gesvd`'s job: `'N'` (no vectors) or `'A'` (all of them).
const JOB_NONE: c_char = b'N' as c_char;
const JOB_ALL: c_char = b'A' as c_char;

impl<T: Scalar> SvdPlan<'_, T> {
    /// `cusolverDn<t>gesvd`—Enqueues the singular values of `a` (destroyed), in descending
    /// order, into `sv` (`n`), without vectors. The info:
    /// [`Info::NotConverged`](crate::solver::Info::NotConverged).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] for `a` or `sv` shorter
    /// than the call reaches. As [`LuPlan::getrf`] after.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-gesvd>
    #[doc(alias = "cusolverDnSgesvd")]
    #[doc(alias = "cusolverDnDgesvd")]
    pub fn gesvd<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedWrite<'scope, T>,
        sv: impl ScopedWrite<'scope, T>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        self.svd(s, a.raw_parts(), sv.raw_parts(), None, info)
    }

    /// `cusolverDn<t>gesvd`—Enqueues the full decomposition `A = U·Σ·Vᵀ`: the singular values
    /// into `sv` (`n`), `U` into `u` (`m × m`, `ld = m`), `Vᵀ` into `vt` (`n × n`, `ld = n`);
    /// `a` is destroyed.
    ///
    /// # Errors
    ///
    /// As [`gesvd`](Self::gesvd), and [`ErrorKind::BufferTooShort`] for `u` or `vt`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-gesvd>
    #[doc(alias = "cusolverDnSgesvd")]
    #[doc(alias = "cusolverDnDgesvd")]
    pub fn gesvd_vectors<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedWrite<'scope, T>,
        sv: impl ScopedWrite<'scope, T>,
        u: impl ScopedWrite<'scope, T>,
        vt: impl ScopedWrite<'scope, T>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let vectors = (u.raw_parts(), vt.raw_parts());
        self.svd(s, a.raw_parts(), sv.raw_parts(), Some(vectors), info)
    }

    fn svd<'scope>(
        &self,
        scope: &StreamScope<'scope, '_>,
        a: (ffi::CUdeviceptr, usize),
        sv: (ffi::CUdeviceptr, usize),
        vectors: Option<((ffi::CUdeviceptr, usize), (ffi::CUdeviceptr, usize))>,
        info: impl InfoOut<'scope>,
    ) -> Result<()> {
        let d = self.dims;
        let (rows, cols) = (d.rows as usize, d.cols as usize);
        check::holds(T::GESVD, "A", a.1, d.reach)?;
        check::holds(T::GESVD, "S", sv.1, cols)?;
        let (job, u, vt) = match vectors {
            None => (JOB_NONE, 0, 0),
            Some((left, right)) => {
                let (mm, nn) = (
                    square_len(T::GESVD, "U", rows)?,
                    square_len(T::GESVD, "VT", cols)?,
                );
                check::holds(T::GESVD, "U", left.1, mm)?;
                check::holds(T::GESVD, "VT", right.1, nn)?;
                (JOB_ALL, left.0, right.0)
            }
        };
        let (work, rwork) = self.core.workspace(self.rwork_at);
        let lwork = self.core.lwork;
        self.core
            .enqueue(scope, T::GESVD, info, Meaning::Unconverged, |h, dinfo| {
                // SAFETY: cuSOLVER destroys `A`, writes `S` (and `U`, `VT` with job 'A'), uses the
                // workspace and `rwork`, in stream order:
                // - each binding holds what the call reaches (checked: `A` its shape, `S` `n`,
                //   `U` `m·m` with `ldu = m`, `VT` `n·n` with `ldvt = n`), `m ≥ n` (the plan);
                // - all are exclusive bindings of this context's device memory, alive until the
                //   scope's stream is synchronized; with job 'N' `U` and `VT` are not referenced;
                // - the workspace holds `gesvd_bufferSize`'s `lwork` elements, then `n ≥
                //   min(m, n) − 1` elements for `rwork`.
                unsafe {
                    T::gesvd(
                        h,
                        job,
                        job,
                        d.rows,
                        d.cols,
                        ptr(a.0),
                        d.ld,
                        ptr(sv.0),
                        ptr(u),
                        d.rows,
                        ptr(vt),
                        d.cols,
                        ptr(work),
                        lwork,
                        ptr(rwork),
                        dinfo,
                    )
                }
            })
    }
}

/// The elements of an `n × n` output, `None`-free: overflow is [`ErrorKind::SizeOverflow`].
fn square_len(call: &str, name: &str, n: usize) -> Result<usize> {
    n.checked_mul(n).ok_or_else(|| {
        Error::custack(
            ErrorKind::SizeOverflow,
            format!("{call}: {name}'s {n} × {n} elements overflow usize; nothing was enqueued"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::not_linked::assert_says_what_to_set;

    #[test]
    fn a_build_without_cusolver_says_what_to_set() {
        // Both builds are checked: with cuSOLVER linked this must be `Ok`, without (the
        // feature on, no library found) an error naming the variable and the wheel.
        let (missing, env, wheel) = (
            cfg!(custack_no_cusolver),
            "CUSTACK_CUSOLVER_LIB_DIR",
            "nvidia-cusolver",
        );
        assert_says_what_to_set(not_linked(), missing, env, wheel);
    }

    #[test]
    fn square_outputs_overflowing_usize_are_refused() {
        assert_eq!(square_len("x", "U", 3).unwrap(), 9);
        let e = square_len("x", "U", usize::MAX / 2).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
    }
}
