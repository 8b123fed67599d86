//! A matmul prepared once and run many times, [`MatmulPlan`]: its descriptors, layouts and the
//! heuristic's algorithm, made by [`BlasLt::matmul_plan`]; its runs on a scope's bound memory
//! ([`MatmulPlan::run`], [`MatmulPlan::run_in_place`]) with the epilogue's buffers
//! ([`Bias`], [`Aux`], [`BiasAux`]).

use crate::asynchronous::scope::StreamScope;
use crate::blas::status::status;
use crate::blaslt::check::{self, Extents, MATMUL, MATRIX_ALIGN, Operand};
use crate::blaslt::handle::BlasLt;
use crate::blaslt::matmul::{Epilogue, Matmul};
use crate::blaslt::types::{MatmulInput, MatmulOutput};
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::ffi::cublaslt as lt;
use crate::memory::DeviceMemory;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

/// The bias vector of a run whose epilogue adds one ([`Epilogue::has_bias`]): `m` elements of
/// `D`'s type, read.
#[derive(Debug)]
pub struct Bias<B>(pub B);
/// The auxiliary matrix of a run whose epilogue stores one ([`Epilogue::has_aux`]): written.
#[derive(Debug)]
pub struct Aux<X>(pub X);
/// The bias and the auxiliary matrix of a run whose epilogue takes both
/// ([`Epilogue::GeluAuxBias`]).
#[derive(Debug)]
pub struct BiasAux<B, X>(pub B, pub X);

mod sealed {
    pub trait Sealed {}
}

/// What a run gives its epilogue besides `A`, `B`, `C` and `D`: `()` (nothing), [`Bias`],
/// [`Aux`] or [`BiasAux`] of bindings of the scope. Sealed.
pub trait Extras<'scope, T: crate::vocabulary::plain::DeviceCopy>: sealed::Sealed {
    /// The bias and the auxiliary matrix, `(address, length)` each, if given.
    #[doc(hidden)]
    fn parts(self) -> (Option<Operand>, Option<Operand>);
}

impl sealed::Sealed for () {}
impl<T: crate::vocabulary::plain::DeviceCopy> Extras<'_, T> for () {
    fn parts(self) -> (Option<Operand>, Option<Operand>) {
        (None, None)
    }
}
impl<B> sealed::Sealed for Bias<B> {}
impl<'scope, T: crate::vocabulary::plain::DeviceCopy, B: ScopedRead<'scope, T>> Extras<'scope, T>
    for Bias<B>
{
    fn parts(self) -> (Option<Operand>, Option<Operand>) {
        (Some(self.0.raw_parts()), None)
    }
}
impl<X> sealed::Sealed for Aux<X> {}
impl<'scope, T: crate::vocabulary::plain::DeviceCopy, X: ScopedWrite<'scope, T>> Extras<'scope, T>
    for Aux<X>
{
    fn parts(self) -> (Option<Operand>, Option<Operand>) {
        (None, Some(self.0.raw_parts()))
    }
}
impl<B, X> sealed::Sealed for BiasAux<B, X> {}
impl<'scope, T, B, X> Extras<'scope, T> for BiasAux<B, X>
where
    T: crate::vocabulary::plain::DeviceCopy,
    B: ScopedRead<'scope, T>,
    X: ScopedWrite<'scope, T>,
{
    fn parts(self) -> (Option<Operand>, Option<Operand>) {
        (Some(self.0.raw_parts()), Some(self.1.raw_parts()))
    }
}

/// A matmul prepared on a [`BlasLt`] handle, for inputs of type `A` and outputs of type `D`:
/// its descriptor and matrix layouts, and the algorithm the heuristic chose for the handle's
/// workspace. Made once ([`BlasLt::matmul_plan`]), run many times: a run creates, allocates
/// and asks nothing, only checks the buffers and calls `cublasLtMatmul`.
///
/// Borrows the handle (`'lt`), so it cannot outlive it, nor the guard the handle borrows;
/// `!Send` and `!Sync`.
#[doc(alias = "cublasLtMatmulDesc_t")]
pub struct MatmulPlan<'lt, 'g, A: MatmulInput, D: MatmulOutput<A>> {
    lt: &'lt BlasLt<'g>,
    desc: lt::cublasLtMatmulDesc_t,
    /// The layouts of A, B, and of C and D: one layout for both, so that a run in place is
    /// `C == D` with `Cdesc == Ddesc`, as cuBLASLt's in-place matmul asks.
    layouts: [lt::cublasLtMatrixLayout_t; 3],
    algo: lt::cublasLtMatmulAlgo_t,
    /// The workspace the algorithm needs, at most the handle's.
    algo_workspace: usize,
    extents: Extents,
    epilogue: Epilogue,
    alpha: f32,
    beta: f32,
    _types: PhantomData<(A, D, *const ())>,
}

static_assertions::assert_not_impl_any!(MatmulPlan<'static, 'static, f32, f32>: Send, Sync);

impl<A: MatmulInput, D: MatmulOutput<A>> core::fmt::Debug for MatmulPlan<'_, '_, A, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MatmulPlan")
            .field("extents", &self.extents)
            .field("epilogue", &self.epilogue)
            .field("algo_workspace", &self.algo_workspace)
            .finish_non_exhaustive()
    }
}

/// `attr`'s value `v` set on the matmul descriptor `desc`.
///
/// # Safety
///
/// `desc` is a live matmul descriptor, and `V` is the type cuBLASLt documents for `attr`.
unsafe fn set_desc<V>(
    desc: lt::cublasLtMatmulDesc_t,
    attr: lt::cublasLtMatmulDescAttributes_t,
    v: &V,
) -> Result<()> {
    // SAFETY: cuBLASLt copies `size_of::<V>()` bytes from `v`, a live reference; the caller
    // promises the descriptor and the type.
    status("cublasLtMatmulDescSetAttribute", unsafe {
        lt::cublasLtMatmulDescSetAttribute(
            desc,
            attr,
            core::ptr::from_ref(v).cast::<c_void>(),
            size_of::<V>(),
        )
    })
}

/// `attr`'s value `v` set on the matrix layout `layout`.
///
/// # Safety
///
/// As [`set_desc`], for a live matrix layout.
unsafe fn set_layout<V>(
    layout: lt::cublasLtMatrixLayout_t,
    attr: lt::cublasLtMatrixLayoutAttribute_t,
    v: &V,
) -> Result<()> {
    // SAFETY: as in `set_desc`.
    status("cublasLtMatrixLayoutSetAttribute", unsafe {
        lt::cublasLtMatrixLayoutSetAttribute(
            layout,
            attr,
            core::ptr::from_ref(v).cast::<c_void>(),
            size_of::<V>(),
        )
    })
}

/// A matmul preference, destroyed when dropped (null: its create failed, nothing to destroy).
struct Preference(lt::cublasLtMatmulPreference_t);

impl Drop for Preference {
    fn drop(&mut self) {
        if self.0.is_null() {
            return;
        }
        crate::error::left_behind::destroy_in_drop(Object::Untracked, self.0 as u64, || {
            // SAFETY: a live preference, destroyed once; a host object no GPU work uses.
            status("cublasLtMatmulPreferenceDestroy", unsafe {
                lt::cublasLtMatmulPreferenceDestroy(self.0)
            })
        });
    }
}

impl<'g> BlasLt<'g> {
    /// `cublasLtMatmulAlgoGetHeuristic`—Prepares `matmul` for inputs `A` and outputs `D`: its
    /// descriptor (`f32` arithmetic, or TF32 for [`fast_tf32`](Matmul::fast_tf32), `f32`
    /// scalars, the transposes, the epilogue), the layouts of its matrices (one for C and D,
    /// and the batch), and the algorithm cuBLASLt's heuristic chooses for this handle's
    /// workspace and operands starting on 256-byte boundaries.
    ///
    /// # Errors
    ///
    /// Before cuBLASLt is called: cuBLAS's shape errors ([`ErrorKind::InvalidValue`] for a
    /// leading dimension below its minimum, [`ErrorKind::SizeOverflow`]), a batch of 0 or whose
    /// `D`s share an element, an auxiliary leading dimension not a multiple of 8 at least `m`,
    /// TF32 arithmetic asked for 16-bit inputs.
    /// [`ErrorKind::CublasNotSupported`] when the heuristic has no algorithm for it (with this
    /// workspace, on this device); [`ErrorKind::InvalidValue`] if the algorithm it proposes
    /// needs more workspace than the handle has. cuBLASLt's status.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::blas::{F16, Gemm};
    /// use custack::blaslt::{Bias, Epilogue, Matmul};
    /// let lt = guard.blas_lt()?;
    /// let layer = lt.matmul_plan::<F16, F16>(
    ///     &Matmul::new(Gemm::new(256, 64, 512)).epilogue(Epilogue::ReluBias),
    /// )?;
    /// let (w, x) = (guard.alloc_zeroed::<F16>(256 * 512)?, guard.alloc_zeroed::<F16>(512 * 64)?);
    /// let bias = guard.alloc_zeroed::<F16>(256)?;
    /// let mut y = guard.alloc_zeroed::<F16>(256 * 64)?;
    /// guard.stream()?.scope(|s| {
    ///     layer.run_in_place(s, s.bind(&w), s.bind(&x), s.bind_mut(&mut y), Bias(s.bind(&bias)))
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmulalgogetheuristic>
    #[doc(alias = "cublasLtMatmulDescCreate")]
    #[doc(alias = "cublasLtMatrixLayoutCreate")]
    #[doc(alias = "cublasLtMatmulAlgoGetHeuristic")]
    pub fn matmul_plan<A: MatmulInput, D: MatmulOutput<A>>(
        &self,
        matmul: &Matmul,
    ) -> Result<MatmulPlan<'_, 'g, A, D>> {
        // After a sticky error (or in a forked child), no library call (R20, R22).
        crate::error::poison::check()?;
        let extents = check::plan(matmul)?;
        let compute = if matmul.tf32 {
            if A::DATA_TYPE != ffi::cublas::cudaDataType::CUDA_R_32F {
                return Err(Error::custack(
                    ErrorKind::InvalidValue,
                    "cublasLtMatmul: TF32 arithmetic is for f32 inputs; no plan was made",
                ));
            }
            ffi::cublas::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
        } else {
            ffi::cublas::cublasComputeType_t::CUBLAS_COMPUTE_32F
        };
        crate::blaslt::handle::not_linked()?;
        let g = &matmul.gemm;
        let mut plan = MatmulPlan {
            lt: self,
            desc: core::ptr::null_mut(),
            layouts: [core::ptr::null_mut(); 3],
            algo: lt::cublasLtMatmulAlgo_t::default(),
            algo_workspace: 0,
            extents,
            epilogue: matmul.epilogue,
            alpha: g.alpha,
            beta: g.beta,
            _types: PhantomData,
        };
        // From here the plan destroys what it has made when dropped, also on the errors below.
        // SAFETY: `cublasLtMatmulDescCreate` writes a descriptor through a valid out-pointer
        // (a field of the live local `plan`); the compute and scale types are `cublasLt.h`'s.
        status("cublasLtMatmulDescCreate", unsafe {
            lt::cublasLtMatmulDescCreate(
                &raw mut plan.desc,
                compute,
                ffi::cublas::cudaDataType::CUDA_R_32F,
            )
        })?;
        let d = plan.desc;
        {
            use lt::cublasLtMatmulDescAttributes_t as At;
            // `d` is the live descriptor made above; TRANSA/TRANSB take a `cublasOperation_t`
            // (an int), EPILOGUE a `cublasLtEpilogue_t` (an int), the aux leading dimension
            // and batch stride an `int64_t`: `set_desc`'s contract, for each call below.
            // SAFETY: `d` is live; TRANSA takes a `cublasOperation_t`, the int passed.
            unsafe { set_desc(d, At::CUBLASLT_MATMUL_DESC_TRANSA, &g.transa.raw().0) }?;
            // SAFETY: `d` is live; TRANSB takes a `cublasOperation_t`, the int passed.
            unsafe { set_desc(d, At::CUBLASLT_MATMUL_DESC_TRANSB, &g.transb.raw().0) }?;
            // SAFETY: `d` is live; EPILOGUE takes a `cublasLtEpilogue_t`, the int passed.
            unsafe {
                set_desc(
                    d,
                    At::CUBLASLT_MATMUL_DESC_EPILOGUE,
                    &matmul.epilogue.raw().0,
                )
            }?;
            if matmul.epilogue.has_aux() {
                // SAFETY: `d` is live; EPILOGUE_AUX_LD takes an `int64_t`, as `aux_ld` is.
                unsafe { set_desc(d, At::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &extents.aux_ld) }?;
                if extents.batched {
                    let attr = At::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE;
                    // SAFETY: `d` is live; EPILOGUE_AUX_BATCH_STRIDE takes an `int64_t`, as
                    // `aux_stride` is.
                    unsafe { set_desc(d, attr, &extents.aux_stride) }?;
                }
            }
        }
        // The stored shapes: A is m × k (k × m transposed), B k × n (n × k), C and D m × n.
        let args = extents.args;
        let stored = |t: crate::blas::shape::Transpose, rows: c_int, cols: c_int| match t {
            crate::blas::shape::Transpose::No => (rows, cols),
            crate::blas::shape::Transpose::Yes => (cols, rows),
        };
        let shapes = [
            (A::DATA_TYPE, stored(g.transa, args.m, args.k), args.lda, 0),
            (A::DATA_TYPE, stored(g.transb, args.k, args.n), args.ldb, 1),
            (D::DATA_TYPE, (args.m, args.n), args.ldc, 2),
        ];
        for (slot, (ty, (rows, cols), ld, stride)) in plan.layouts.iter_mut().zip(shapes) {
            // SAFETY: `cublasLtMatrixLayoutCreate` writes a layout through a valid out-pointer
            // (a field of `plan`); the sizes are checked, non-negative C ints.
            status("cublasLtMatrixLayoutCreate", unsafe {
                lt::cublasLtMatrixLayoutCreate(slot, ty, rows as u64, cols as u64, i64::from(ld))
            })?;
            if extents.batched {
                use lt::cublasLtMatrixLayoutAttribute_t as La;
                let stride = extents.strides.get(stride).copied().unwrap_or(0);
                // `*slot` is the live layout made above; BATCH_COUNT takes an `int32_t`,
                // STRIDED_BATCH_OFFSET an `int64_t`: `set_layout`'s contract.
                // SAFETY: `*slot` is live; BATCH_COUNT takes an `int32_t`, as `count` is.
                unsafe {
                    set_layout(
                        *slot,
                        La::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                        &extents.count,
                    )
                }?;
                let attr = La::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET;
                // SAFETY: `*slot` is live; STRIDED_BATCH_OFFSET takes an `int64_t`, as `stride` is.
                unsafe { set_layout(*slot, attr, &stride) }?;
            }
        }
        plan.placeholders(matmul.epilogue)?;
        plan.choose_algorithm()?;
        Ok(plan)
    }
}

impl<A: MatmulInput, D: MatmulOutput<A>> MatmulPlan<'_, '_, A, D> {
    /// Sets the bias and auxiliary pointers the epilogue takes to a placeholder address on
    /// exactly [`MATRIX_ALIGN`]: `cublasLt.h` says the heuristic does not dereference them but
    /// takes from their values the alignment it may count on, and a null pointer (the default)
    /// is aligned to everything. Every run replaces them with its buffers' addresses, checked
    /// to be on that alignment, before `cublasLtMatmul`.
    fn placeholders(&mut self, epilogue: Epilogue) -> Result<()> {
        use lt::cublasLtMatmulDescAttributes_t as At;
        let placeholder = MATRIX_ALIGN as *const c_void;
        if epilogue.has_bias() {
            // SAFETY: the plan's live descriptor; BIAS_POINTER takes a `void*` value
            // (`set_desc`'s contract), which nothing reads before a run replaces it.
            unsafe {
                set_desc(
                    self.desc,
                    At::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                    &placeholder,
                )
            }?;
        }
        if epilogue.has_aux() {
            let attr = At::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER;
            // SAFETY: as for the bias.
            unsafe { set_desc(self.desc, attr, &placeholder) }?;
        }
        Ok(())
    }

    /// Asks the heuristic for one algorithm, limited to the handle's workspace and to operands
    /// on [`MATRIX_ALIGN`].
    fn choose_algorithm(&mut self) -> Result<()> {
        let workspace = self.lt.workspace_bytes();
        let mut pref = Preference(core::ptr::null_mut());
        // SAFETY: writes a preference through a valid out-pointer (a field of a live local).
        status("cublasLtMatmulPreferenceCreate", unsafe {
            lt::cublasLtMatmulPreferenceCreate(&raw mut pref.0)
        })?;
        let max = workspace as u64;
        let align = MATRIX_ALIGN as u32;
        for (attr, value) in [
            (1, None),
            (5, Some(align)),
            (6, Some(align)),
            (7, Some(align)),
            (8, Some(align)),
        ] {
            let attr = lt::cublasLtMatmulPreferenceAttributes_t(attr);
            // A live preference; MAX_WORKSPACE_BYTES (1) takes a `uint64_t`, the
            // MIN_ALIGNMENT_{A,B,C,D}_BYTES (5 to 8, the same in cuBLASLt 12.2 and 13) a
            // `uint32_t`; cuBLASLt copies the value from the live local it points to.
            let r = match value {
                // SAFETY: `pref.0` is live; MAX_WORKSPACE_BYTES takes a `uint64_t`, read from
                // `max`.
                None => unsafe {
                    lt::cublasLtMatmulPreferenceSetAttribute(
                        pref.0,
                        attr,
                        (&raw const max).cast(),
                        size_of::<u64>(),
                    )
                },
                // SAFETY: `pref.0` is live; MIN_ALIGNMENT_*_BYTES take a `uint32_t`, read from `v`.
                Some(v) => unsafe {
                    lt::cublasLtMatmulPreferenceSetAttribute(
                        pref.0,
                        attr,
                        (&raw const v).cast(),
                        size_of::<u32>(),
                    )
                },
            };
            status("cublasLtMatmulPreferenceSetAttribute", r)?;
        }
        let mut result = lt::cublasLtMatmulHeuristicResult_t {
            algo: lt::cublasLtMatmulAlgo_t::default(),
            workspaceSize: 0,
            state: ffi::cublas::cublasStatus_t::CUBLAS_STATUS_SUCCESS,
            wavesCount: 0.0,
            reserved: [0; 4],
        };
        let mut found: c_int = 0;
        let [la, lb, lcd] = self.layouts;
        // SAFETY: `cublasLtMatmulAlgoGetHeuristic` reads the live handle, descriptor, layouts
        // and preference, and writes up to 1 result (a live local) and the count found.
        status("cublasLtMatmulAlgoGetHeuristic", unsafe {
            lt::cublasLtMatmulAlgoGetHeuristic(
                self.lt.as_raw(),
                self.desc,
                la,
                lb,
                lcd,
                lcd,
                pref.0,
                1,
                &raw mut result,
                &raw mut found,
            )
        })?;
        if found < 1 {
            return Err(Error::custack(
                ErrorKind::CublasNotSupported,
                format!(
                    "cublasLtMatmulAlgoGetHeuristic: no algorithm for this matmul with {workspace} \
                     bytes of workspace on this device; no plan was made"
                ),
            ));
        }
        status("cublasLtMatmulAlgoGetHeuristic", result.state)?;
        if result.workspaceSize > workspace {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "cublasLtMatmulAlgoGetHeuristic: the algorithm needs {} bytes of workspace, \
                     the handle has {workspace}; no plan was made",
                    result.workspaceSize
                ),
            ));
        }
        self.algo = result.algo;
        self.algo_workspace = result.workspaceSize;
        Ok(())
    }

    /// The workspace the chosen algorithm needs (at most the handle's).
    pub fn algorithm_workspace(&self) -> usize {
        self.algo_workspace
    }

    /// `cublasLtMatmul`—Enqueues `D = epilogue(alpha·op(A)·op(B) + beta·C)` on the scope's
    /// stream, with the epilogue's buffers in `extras` (`()`, [`Bias`], [`Aux`] or
    /// [`BiasAux`]).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] naming the operand shorter
    /// than the plan's extent (`a`, `b`, `c`, `d`, `bias`, `aux`); [`ErrorKind::InvalidValue`]
    /// for `A`, `B`, `C` or `D` not starting on a 256-byte boundary (the alignment the algorithm
    /// was chosen for), a bias or auxiliary matrix not on it either, or `extras` that are not
    /// what the plan's epilogue takes. cuBLASLt's status; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmul>
    #[doc(alias = "cublasLtMatmul")]
    #[allow(
        clippy::many_single_char_names,
        reason = "the matmul's own names: s, a, b, c, d"
    )]
    pub fn run<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedRead<'scope, A>,
        b: impl ScopedRead<'scope, A>,
        c: impl ScopedRead<'scope, D>,
        d: impl ScopedWrite<'scope, D>,
        extras: impl Extras<'scope, D>,
    ) -> Result<()> {
        let d = d.raw_parts();
        self.enqueue(s, [a.raw_parts(), b.raw_parts(), c.raw_parts(), d], extras)
    }

    /// `cublasLtMatmul`—[`run`](Self::run) in place: `C` is `D` (`beta` scales `D`'s old
    /// contents), one exclusive binding.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cublas/#cublasltmatmul>
    #[doc(alias = "cublasLtMatmul")]
    pub fn run_in_place<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedRead<'scope, A>,
        b: impl ScopedRead<'scope, A>,
        d: impl ScopedWrite<'scope, D>,
        extras: impl Extras<'scope, D>,
    ) -> Result<()> {
        let d = d.raw_parts();
        self.enqueue(s, [a.raw_parts(), b.raw_parts(), d, d], extras)
    }

    /// Checks the operands, then enqueues the matmul through the handle's order.
    #[allow(
        clippy::many_single_char_names,
        reason = "the matmul's own names: s, a, b, c, d"
    )]
    fn enqueue<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        ops: [Operand; 4],
        extras: impl Extras<'scope, D>,
    ) -> Result<()> {
        let (bias, aux) = extras.parts();
        check::run(&self.extents, ops, bias, aux)?;
        let [(a, _), (b, _), (c, _), (d, _)] = ops;
        let (ws, ws_bytes) = self.lt.workspace().map_or((core::ptr::null_mut(), 0), |w| {
            (w.device_ptr() as usize as *mut c_void, w.len())
        });
        // cuBLASLt takes the stream with each call: nothing to set when it changes.
        self.lt.order().enqueue(
            MATMUL,
            s,
            |_| Ok(()),
            || {
                use lt::cublasLtMatmulDescAttributes_t as At;
                // The plan's live descriptor; the pointers are `void*` values (`set_desc`'s
                // contract). The descriptor is the plan's own, read by cuBLASLt only when a
                // matmul is enqueued (its kernels take their arguments by value), and the plan
                // is `!Sync`, so no other run reads it meanwhile.
                if let Some((p, _)) = bias {
                    // SAFETY: the plan's live descriptor; BIAS_POINTER takes a `void*`, the device
                    // address.
                    unsafe { set_desc(self.desc, At::CUBLASLT_MATMUL_DESC_BIAS_POINTER, &p) }?;
                }
                if let Some((p, _)) = aux {
                    let attr = At::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER;
                    // SAFETY: the plan's live descriptor; EPILOGUE_AUX_POINTER takes a `void*`, the
                    // address.
                    unsafe { set_desc(self.desc, attr, &p) }?;
                }
                let [la, lb, lcd] = self.layouts;
                // SAFETY: `cublasLtMatmul` reads `alpha`, `beta` on the host and A, B, C (and
                // the bias) in stream order, and writes D (and the auxiliary matrix):
                // - the handle, descriptor, layouts and algorithm are live and the plan's; the
                //   algorithm was chosen by the heuristic for these descriptors;
                // - every operand holds the plan's extent and starts on the alignment the
                //   algorithm was chosen for (checked above); all are device memory of this
                //   context bound to the scope, alive until its stream is synchronized;
                // - D (and the auxiliary matrix) are exclusive bindings, aliasing no input
                //   (in place, C is D itself, with one layout, as cuBLASLt allows);
                // - the workspace is the handle's, at least the algorithm's need, and no other
                //   matmul of the handle runs at once (`order`); `alpha`, `beta` are fields of
                //   `self`, read before the call returns (host pointer mode, the default).
                status(MATMUL, unsafe {
                    lt::cublasLtMatmul(
                        self.lt.as_raw(),
                        self.desc,
                        (&raw const self.alpha).cast(),
                        a as usize as *const c_void,
                        la,
                        b as usize as *const c_void,
                        lb,
                        (&raw const self.beta).cast(),
                        c as usize as *const c_void,
                        lcd,
                        d as usize as *mut c_void,
                        lcd,
                        &raw const self.algo,
                        ws,
                        ws_bytes,
                        s.as_raw(),
                    )
                })
            },
        )
    }
}

impl<A: MatmulInput, D: MatmulOutput<A>> Drop for MatmulPlan<'_, '_, A, D> {
    fn drop(&mut self) {
        if !crate::error::left_behind::release_in_drop(Object::Untracked, self.desc as u64) {
            return;
        }
        // Host objects: a matmul already enqueued has taken what it needs from them.
        for layout in self.layouts {
            if !layout.is_null() {
                // SAFETY: a live layout made by `matmul_plan`, destroyed once.
                if let Err(e) = status("cublasLtMatrixLayoutDestroy", unsafe {
                    lt::cublasLtMatrixLayoutDestroy(layout)
                }) {
                    record_drop_error(e);
                }
            }
        }
        if !self.desc.is_null() {
            // SAFETY: the live descriptor made by `matmul_plan`, destroyed once.
            if let Err(e) = status("cublasLtMatmulDescDestroy", unsafe {
                lt::cublasLtMatmulDescDestroy(self.desc)
            }) {
                record_drop_error(e);
            }
        }
    }
}
