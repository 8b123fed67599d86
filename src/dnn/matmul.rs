//! The batched matrix product through cuDNN's graph (backend) API: its description
//! [`Matmul`], its checks, and [`MatmulPlan`], which owns every backend descriptor it makes.
//!
//! The legacy API the convolution uses has no matmul; cuDNN 9 offers one only as an operation
//! of its graph API (`CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR`). The checks the module docs
//! give for choosing the legacy API still hold here, because the graph is one operation whose
//! every tensor custack describes itself: three packed row-major tensors, each with its uid,
//! dimensions, strides and alignment computed and checked by custack, and the variant pack of
//! each run is built from the three buffers checked against those tensors' extents.

use crate::asynchronous::library_handle::LibraryHandle;
use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::dnn::check::{ALIGN, Bound, bound};
use crate::dnn::plan::{RawDnn, not_linked, ptr};
use crate::dnn::status::status;
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::ffi::cudnn::{
    cudnnBackendAttributeName_t as Name, cudnnBackendAttributeType_t as Type,
    cudnnBackendDescriptor_t, cudnnBackendDescriptorType_t as Kind, cudnnBackendHeurMode_t,
    cudnnBackendNumericalNote_t as Note, cudnnDataType_t, cudnnHandle_t,
};
use crate::memory::DeviceMemory;
use crate::vocabulary::binding::{ScopedRead, ScopedWrite};
use core::ffi::c_void;
use core::marker::PhantomData;

/// The call named by errors of making a plan.
const PLAN: &str = "cudnnBackendFinalize";
/// The call named by errors of a run.
const RUN: &str = "cudnnBackendExecute";
/// The uids of `A`, `B` and `C` in the graph and in each run's variant pack.
const UIDS: [i64; 3] = [1, 2, 3];
/// The engine configurations asked of cuDNN's heuristics, tried best first.
const CONFIGS: usize = 16;
/// The bytes of one element (`f32`).
const ELEMENT: i64 = 4;
/// The numerical notes one engine can report at most (`CUDNN_NUMERICAL_NOTE_TYPE_COUNT`).
const NOTES: usize = 10;
/// Every tensor's alignment in bytes, [`ALIGN`] as cuDNN's `int64_t`.
const ALIGNMENT: i64 = 16;
const _: () = assert!(ALIGNMENT as u64 == ALIGN);

/// A batched matrix product of `f32` matrices, `C[i] = A[i] · B[i]` for `i < batch`: `A` is
/// `batch × m × k`, `B` `batch × k × n`, `C` `batch × m × n`, each packed row-major (the last
/// dimension fastest, the matrices one after another).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Matmul {
    pub(crate) batch: usize,
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) k: usize,
    pub(crate) tf32: bool,
}

impl Matmul {
    /// `batch` products of an `m × k` by a `k × n` matrix; full `f32` precision (engines with
    /// tensor cores or converting their inputs are not chosen).
    pub fn new(batch: usize, m: usize, n: usize, k: usize) -> Self {
        Self {
            batch,
            m,
            n,
            k,
            tf32: false,
        }
    }

    /// Whether cuDNN may choose an engine that uses tensor cores (TF32 for `f32` on Ampere
    /// and newer: inputs rounded to 10 bits of mantissa, about 3 decimal digits) or converts
    /// its inputs to a narrower type; by default it may not.
    #[must_use]
    pub fn tf32(mut self, allowed: bool) -> Self {
        self.tf32 = allowed;
        self
    }
}

/// A matmul's tensors, checked: each one's dimensions and strides as cuDNN takes them, and
/// its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MatmulParams {
    /// `A`, `B`, `C`: dimensions `[batch, rows, columns]` and packed strides.
    pub(crate) tensors: [([i64; 3], [i64; 3]); 3],
    /// The elements of `A`, `B`, `C`.
    pub(crate) lens: [usize; 3],
    pub(crate) tf32: bool,
}

fn refused(kind: ErrorKind, what: &str) -> Error {
    Error::custack(kind, format!("{PLAN}: {what}; no plan was made"))
}

/// Checks a matmul and computes its tensors' strides and elements, every product checked.
///
/// # Errors
///
/// [`ErrorKind::InvalidValue`] for a size of 0; [`ErrorKind::SizeOverflow`] for a tensor
/// whose elements or bytes exceed an `i64` (cuDNN's `int64_t`) or a `usize`.
pub(crate) fn params(mm: &Matmul) -> Result<MatmulParams> {
    let sizes = [
        (mm.batch, "the batch"),
        (mm.m, "M"),
        (mm.n, "N"),
        (mm.k, "K"),
    ];
    let mut v = [0i64; 4];
    for (out, (size, name)) in v.iter_mut().zip(sizes) {
        if size == 0 {
            return Err(refused(ErrorKind::InvalidValue, &format!("{name} is 0")));
        }
        *out = i64::try_from(size).map_err(|_| {
            refused(
                ErrorKind::SizeOverflow,
                &format!("{name} exceeds cuDNN's int64_t"),
            )
        })?;
    }
    let [batch, m, n, k] = v;
    let mut tensors = [([0; 3], [0; 3]); 3];
    let mut lens = [0; 3];
    for ((t, len), (rows, cols, name)) in
        tensors
            .iter_mut()
            .zip(lens.iter_mut())
            .zip([(m, k, "A"), (k, n, "B"), (m, n, "C")])
    {
        let too_big = || {
            refused(
                ErrorKind::SizeOverflow,
                &format!("{name}'s {batch} × {rows} × {cols} elements of 4 bytes exceed an i64"),
            )
        };
        let matrix = rows.checked_mul(cols).ok_or_else(too_big)?;
        let elements = matrix.checked_mul(batch).ok_or_else(too_big)?;
        elements.checked_mul(ELEMENT).ok_or_else(too_big)?;
        *t = ([batch, rows, cols], [matrix, cols, 1]);
        *len = usize::try_from(elements).map_err(|_| too_big())?;
    }
    Ok(MatmulParams {
        tensors,
        lens,
        tf32: mm.tf32,
    })
}

/// Checks the buffers bound to one run: each holds its tensor's elements and starts at an
/// address aligned to [`ALIGN`] (the alignment the tensors are described with).
///
/// # Errors
///
/// [`ErrorKind::BufferTooShort`] naming the first buffer shorter than its tensor;
/// [`ErrorKind::InvalidValue`] naming the first misaligned one. Nothing was enqueued.
pub(crate) fn buffers(p: &MatmulParams, a: Bound, b: Bound, c: Bound) -> Result<()> {
    bound(
        RUN,
        &[
            ("A", a, p.lens[0]),
            ("B", b, p.lens[1]),
            ("the output C", c, p.lens[2]),
        ],
        "its tensor is described",
    )
}

/// A value cuDNN's attribute calls take, of the C type [`Attr::TYPE`] names.
///
/// # Safety
///
/// `Self` has the size and layout of that C type, so that `n` values of `Self` are `n` values
/// of it.
unsafe trait Attr: Copy {
    const TYPE: Type;
}

// SAFETY: `int64_t`.
unsafe impl Attr for i64 {
    const TYPE: Type = Type::CUDNN_TYPE_INT64;
}
// SAFETY: `repr(transparent)` over `c_int`, the C enum's size.
unsafe impl Attr for cudnnDataType_t {
    const TYPE: Type = Type::CUDNN_TYPE_DATA_TYPE;
}
// SAFETY: as above.
unsafe impl Attr for cudnnBackendHeurMode_t {
    const TYPE: Type = Type::CUDNN_TYPE_HEUR_MODE;
}
// SAFETY: as above.
unsafe impl Attr for Note {
    const TYPE: Type = Type::CUDNN_TYPE_NUMERICAL_NOTE;
}

/// A live descriptor, to set, finalize or read, or as an attribute's value. Invariant: made
/// only by [`Desc::by_ref`] (or [`Graph::make`]), of a descriptor a [`Graph`] owns, and used
/// only while that graph holds it (the plan's graph lives as long as the plan; a descriptor
/// destroyed early, a failed execution plan's, is never used again).
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
struct DescRef(cudnnBackendDescriptor_t);
// SAFETY: `repr(transparent)` over `cudnnBackendDescriptor_t`.
unsafe impl Attr for DescRef {
    const TYPE: Type = Type::CUDNN_TYPE_BACKEND_DESCRIPTOR;
}

impl DescRef {
    /// `cudnnBackendSetAttribute` of `values`.
    fn set_attribute<T: Attr>(self, name: Name, values: &[T]) -> Result<()> {
        let count = i64::try_from(values.len())
            .map_err(|_| refused(ErrorKind::SizeOverflow, "an attribute's values"))?;
        // SAFETY: a live descriptor (`DescRef`'s invariant); `values` holds `count` values of
        // the C type `T::TYPE` names (`Attr`'s contract), read during the call only. A
        // `DescRef` among them is live (its invariant), a `HandleRef` the plan's live handle.
        status("cudnnBackendSetAttribute", unsafe {
            ffi::cudnn::cudnnBackendSetAttribute(
                self.0,
                name,
                T::TYPE,
                count,
                values.as_ptr().cast(),
            )
        })
    }

    /// `cudnnBackendFinalize`.
    fn finalize(self) -> Result<()> {
        // SAFETY: a live descriptor (`DescRef`'s invariant).
        status(PLAN, unsafe { ffi::cudnn::cudnnBackendFinalize(self.0) })
    }

    /// `cudnnBackendGetAttribute` into `out`: the count cuDNN reports, never more than
    /// `out.len()` of which were written.
    fn get<T: Attr>(self, name: Name, out: &mut [T]) -> Result<usize> {
        let requested = i64::try_from(out.len())
            .map_err(|_| refused(ErrorKind::SizeOverflow, "an attribute's values"))?;
        let mut count: i64 = 0;
        // SAFETY: a live descriptor (`DescRef`'s invariant; cuDNN checks it is finalized);
        // `out` is valid for writes of `requested` values of `T::TYPE`'s C type (`Attr`); the
        // count through a valid out-pointer. For descriptors, `out` holds live descriptors
        // (`DescRef`s) of the type asked, made by the caller, which cuDNN fills.
        status("cudnnBackendGetAttribute", unsafe {
            ffi::cudnn::cudnnBackendGetAttribute(
                self.0,
                name,
                T::TYPE,
                requested,
                &raw mut count,
                out.as_mut_ptr().cast(),
            )
        })?;
        Ok(usize::try_from(count).unwrap_or(0).min(out.len()))
    }
}

/// A live cuDNN handle as an attribute's value: only the plan's own, made in `matmul_plan`,
/// which outlives every descriptor given it (the plan destroys them first).
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
struct HandleRef(cudnnHandle_t);
// SAFETY: `repr(transparent)` over `cudnnHandle_t`.
unsafe impl Attr for HandleRef {
    const TYPE: Type = Type::CUDNN_TYPE_HANDLE;
}

/// A device address (or null) as an attribute's value.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
struct DevPtr(*mut c_void);
// SAFETY: `repr(transparent)` over `void *`.
unsafe impl Attr for DevPtr {
    const TYPE: Type = Type::CUDNN_TYPE_VOID_PTR;
}

/// One backend descriptor, live from `cudnnBackendCreateDescriptor` until destroyed, exactly
/// once: by [`Desc::destroy`] or when dropped (errors recorded). Not `Clone`.
#[derive(Debug)]
struct Desc(cudnnBackendDescriptor_t);

impl Desc {
    /// `cudnnBackendCreateDescriptor`.
    fn new(kind: Kind) -> Result<Self> {
        let mut raw: cudnnBackendDescriptor_t = core::ptr::null_mut();
        // SAFETY: a valid out-pointer (a live local); a type cuDNN 9 defines.
        status("cudnnBackendCreateDescriptor", unsafe {
            ffi::cudnn::cudnnBackendCreateDescriptor(kind, &raw mut raw)
        })?;
        if raw.is_null() {
            return Err(refused(
                ErrorKind::InvalidValue,
                "cudnnBackendCreateDescriptor returned success and no descriptor",
            ));
        }
        Ok(Self(raw))
    }

    fn by_ref(&self) -> DescRef {
        DescRef(self.0)
    }

    /// `cudnnBackendDestroyDescriptor`, once.
    fn destroy(self) -> Result<()> {
        let raw = self.0;
        core::mem::forget(self);
        // An execution plan's descriptor may own modules cuDNN compiled: a release as every
        // other (R20, R22, R35), refused and left behind in a poisoned process.
        crate::error::left_behind::release(
            crate::error::left_behind::Object::Untracked,
            raw as u64,
        )?;
        // SAFETY: a live descriptor, destroyed once (`self` is consumed, its drop forgotten);
        // a host object no pending GPU work reads (the plan waited for its runs first).
        status("cudnnBackendDestroyDescriptor", unsafe {
            ffi::cudnn::cudnnBackendDestroyDescriptor(raw)
        })
    }
}

impl Drop for Desc {
    fn drop(&mut self) {
        // As `destroy`: refused (recorded), the descriptor is left behind.
        if !crate::error::left_behind::release_in_drop(
            crate::error::left_behind::Object::Untracked,
            self.0 as u64,
        ) {
            return;
        }
        // SAFETY: as `destroy`: live, and this is its one destruction (`destroy` forgets).
        let r = unsafe { ffi::cudnn::cudnnBackendDestroyDescriptor(self.0) };
        if let Err(e) = status("cudnnBackendDestroyDescriptor", r) {
            record_drop_error(e);
        }
    }
}

/// Every descriptor of a plan (or of a run's variant pack), in the order made, destroyed in
/// the reverse order: when dropped, also on an error midway through making them.
#[derive(Debug, Default)]
struct Graph(Vec<Desc>);

impl Graph {
    /// Makes a descriptor that `self` owns from now on.
    fn make(&mut self, kind: Kind) -> Result<DescRef> {
        let d = Desc::new(kind)?;
        let r = d.by_ref();
        self.0.push(d);
        Ok(r)
    }

    /// Destroys every descriptor, last made first, returning the first error.
    fn destroy(&mut self) -> Result<()> {
        let mut first = Ok(());
        while let Some(d) = self.0.pop() {
            first = first.and(d.destroy());
        }
        first
    }

    /// Leaks every descriptor: what a plan does when it cannot know its runs are over.
    fn leak(&mut self) {
        core::mem::forget(core::mem::take(&mut self.0));
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if let Err(e) = self.destroy() {
            record_drop_error(e);
        }
    }
}

/// A finalized tensor of `f32`: `uid`, dimensions, strides, aligned to [`ALIGN`].
fn tensor(g: &mut Graph, uid: i64, (dims, strides): ([i64; 3], [i64; 3])) -> Result<DescRef> {
    let t = g.make(Kind::CUDNN_BACKEND_TENSOR_DESCRIPTOR)?;
    t.set_attribute(
        Name::CUDNN_ATTR_TENSOR_DATA_TYPE,
        &[cudnnDataType_t::CUDNN_DATA_FLOAT],
    )?;
    t.set_attribute(Name::CUDNN_ATTR_TENSOR_DIMENSIONS, &dims)?;
    t.set_attribute(Name::CUDNN_ATTR_TENSOR_STRIDES, &strides)?;
    t.set_attribute(Name::CUDNN_ATTR_TENSOR_UNIQUE_ID, &[uid])?;
    t.set_attribute(Name::CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, &[ALIGNMENT])?;
    t.finalize()?;
    Ok(t)
}

/// The host-side part of the graph, no handle: the tensors, the matmul descriptor (compute in
/// `f32`) and the operation `C = A · B`, each finalized.
fn operation(g: &mut Graph, params: &MatmulParams) -> Result<DescRef> {
    let [ua, ub, uc] = UIDS;
    let [ta, tb, tc] = params.tensors;
    let (a, b, c) = (tensor(g, ua, ta)?, tensor(g, ub, tb)?, tensor(g, uc, tc)?);
    let mm = g.make(Kind::CUDNN_BACKEND_MATMUL_DESCRIPTOR)?;
    mm.set_attribute(
        Name::CUDNN_ATTR_MATMUL_COMP_TYPE,
        &[cudnnDataType_t::CUDNN_DATA_FLOAT],
    )?;
    mm.finalize()?;
    let op = g.make(Kind::CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR)?;
    op.set_attribute(Name::CUDNN_ATTR_OPERATION_MATMUL_ADESC, &[a])?;
    op.set_attribute(Name::CUDNN_ATTR_OPERATION_MATMUL_BDESC, &[b])?;
    op.set_attribute(Name::CUDNN_ATTR_OPERATION_MATMUL_CDESC, &[c])?;
    op.set_attribute(Name::CUDNN_ATTR_OPERATION_MATMUL_DESC, &[mm])?;
    op.finalize()?;
    Ok(op)
}

/// Whether an engine's numerical notes allow it where TF32 is not: neither tensor cores nor
/// inputs converted to a narrower type.
fn full_precision(notes: &[Note]) -> bool {
    !notes.iter().any(|n| {
        *n == Note::CUDNN_NUMERICAL_NOTE_TENSOR_CORE
            || *n == Note::CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS
    })
}

/// Whether the engine of configuration `cfg` is allowed by `p` (any, with TF32).
fn allowed(g: &mut Graph, cfg: DescRef, p: &MatmulParams) -> Result<bool> {
    if p.tf32 {
        return Ok(true);
    }
    let engine = g.make(Kind::CUDNN_BACKEND_ENGINE_DESCRIPTOR)?;
    cfg.get(Name::CUDNN_ATTR_ENGINECFG_ENGINE, &mut [engine])?;
    let mut notes = [Note(-1); NOTES];
    let n = engine.get(Name::CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, &mut notes)?;
    Ok(full_precision(notes.get(..n).unwrap_or(&notes)))
}

/// The graph on `handle`, cuDNN's heuristics (mode A), and the execution plan of the first
/// engine configuration that `p` allows and that finalizes: the plan and its workspace bytes.
fn execution_plan(
    g: &mut Graph,
    handle: cudnnHandle_t,
    op: DescRef,
    p: &MatmulParams,
) -> Result<(DescRef, usize)> {
    let h = HandleRef(handle);
    let graph = g.make(Kind::CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR)?;
    graph.set_attribute(Name::CUDNN_ATTR_OPERATIONGRAPH_HANDLE, &[h])?;
    graph.set_attribute(Name::CUDNN_ATTR_OPERATIONGRAPH_OPS, &[op])?;
    graph.finalize()?;
    let heur = g.make(Kind::CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR)?;
    heur.set_attribute(Name::CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, &[graph])?;
    heur.set_attribute(
        Name::CUDNN_ATTR_ENGINEHEUR_MODE,
        &[cudnnBackendHeurMode_t::CUDNN_HEUR_MODE_A],
    )?;
    heur.finalize()?;
    let mut cfgs = Vec::with_capacity(CONFIGS);
    for _ in 0..CONFIGS {
        cfgs.push(g.make(Kind::CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)?);
    }
    let listed = heur.get(Name::CUDNN_ATTR_ENGINEHEUR_RESULTS, &mut cfgs)?;
    let mut last = None;
    for &cfg in cfgs.iter().take(listed) {
        if !allowed(g, cfg, p)? {
            continue;
        }
        let before = g.0.len();
        let plan = g.make(Kind::CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)?;
        plan.set_attribute(Name::CUDNN_ATTR_EXECUTION_PLAN_HANDLE, &[h])?;
        plan.set_attribute(Name::CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, &[cfg])?;
        match plan.finalize() {
            Ok(()) => {
                let mut bytes = [0i64];
                plan.get(Name::CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, &mut bytes)?;
                let bytes = usize::try_from(bytes[0]).map_err(|_| {
                    refused(
                        ErrorKind::InvalidValue,
                        &format!("cuDNN asks for a workspace of {} bytes", bytes[0]),
                    )
                })?;
                return Ok((plan, bytes));
            }
            Err(e) => {
                // This engine cannot run the graph: its plan is destroyed now.
                while g.0.len() > before {
                    if let Some(d) = g.0.pop() {
                        d.destroy()?;
                    }
                }
                last = Some(e);
            }
        }
    }
    Err(last.unwrap_or_else(|| {
        refused(
            ErrorKind::InvalidValue,
            &format!(
                "none of the {listed} engine configurations cuDNN's heuristics listed is \
                 allowed{}",
                if p.tf32 {
                    ""
                } else {
                    " at full f32 precision (Matmul::tf32(true) allows tensor cores)"
                }
            ),
        )
    }))
}

/// A cuDNN batched matmul of `f32` of the guard's context, for one [`Matmul`]: its handle,
/// every graph-API descriptor (tensors, operation, graph, heuristics, engine configurations,
/// the execution plan) and the workspace the plan asks for; see the
/// [module docs](crate::dnn).
///
/// Borrows the guard that lent it (`'g`), as [`ConvPlan`](crate::dnn::ConvPlan) does (C25);
/// `!Send` and `!Sync`.
#[doc(alias = "cudnnBackendDescriptor_t")]
pub struct MatmulPlan<'g> {
    /// The handle, the workspace and the order of the runs (which never overlap: they share
    /// the workspace).
    core: LibraryHandle<'g, RawDnn>,
    /// Every descriptor, the execution plan among them; destroyed after the runs are over,
    /// before the handle (`MatmulPlan::release`).
    graph: Graph,
    plan: DescRef,
    params: MatmulParams,
    _guard: PhantomData<(&'g (), *const ())>,
}

static_assertions::assert_not_impl_any!(MatmulPlan<'static>: Send, Sync);

impl core::fmt::Debug for MatmulPlan<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MatmulPlan")
            .field("raw", &self.core.raw())
            .field("params", &self.params)
            .field("descriptors", &self.graph.0.len())
            .field("workspace_bytes", &self.core.memory_bytes())
            .finish_non_exhaustive()
    }
}

impl MatmulPlan<'_> {
    /// Releases the plan once (later calls return `Ok`): waits until none of its runs can
    /// still run, then destroys every descriptor (last made first, while the handle they were
    /// made with is alive), then the handle, and frees the workspace; the first error. If the
    /// wait fails, a run may still use the execution plan's kernels and workspace: the
    /// descriptors are leaked, and the handle and workspace too (`LibraryHandle::release`).
    fn release(&mut self) -> Result<()> {
        // Released already (by `destroy`, whatever it answered: the handle is taken out either
        // way): the drop that follows makes no call, waits for nothing and records nothing, so
        // an error `destroy` returned is not reported a second time.
        if self.core.raw().is_none() {
            return Ok(());
        }
        match self.core.order().wait_idle() {
            Ok(()) => {
                let destroyed = self.graph.destroy();
                let released = self.core.release();
                destroyed.and(released)
            }
            Err(e) => {
                self.graph.leak();
                // Waits again: leaks the handle and workspace unless that wait succeeds.
                self.core.release().and(Err(e))
            }
        }
    }
}

impl Drop for MatmulPlan<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error(e);
        }
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cudnnBackendFinalize` of a matmul's execution plan—Makes a cuDNN handle of this
    /// guard's context and, through cuDNN's graph API, the tensors `A`, `B`, `C` and the
    /// operation `C = A · B` of `mm`, its graph, cuDNN's heuristics (mode A), and the
    /// execution plan of the first engine configuration they list that `mm` allows and that
    /// finalizes, with the workspace it asks for (`CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE`),
    /// allocated here and owned by the plan.
    ///
    /// Every descriptor made is owned as soon as it exists: a failure midway destroys each
    /// one made so far, once.
    ///
    /// # Errors
    ///
    /// Before cuDNN is called: [`ErrorKind::InvalidValue`] for a size of 0;
    /// [`ErrorKind::SizeOverflow`] for a tensor whose elements (or bytes) exceed an `i64`.
    /// Then [`ErrorKind::LibraryNotLinked`] if custack was built without cuDNN; cuDNN's status
    /// (`CudnnBadParam`, `CudnnNotSupported`, …, the last engine's when none finalizes);
    /// [`ErrorKind::InvalidValue`] when no engine listed is allowed;
    /// `CUDA_ERROR_OUT_OF_MEMORY` for the workspace; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::dnn::Matmul;
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// // 32 products of 512 × 512 matrices, tensor cores allowed.
    /// let plan = guard.matmul_plan(&Matmul::new(32, 512, 512, 512).tf32(true))?;
    /// assert_eq!(plan.c_len(), 32 * 512 * 512);
    /// println!("{} bytes of workspace", plan.workspace_bytes());
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackendfinalize>
    #[doc(alias = "cudnnBackendCreateDescriptor")]
    #[doc(alias = "cudnnBackendSetAttribute")]
    #[doc(alias = "cudnnBackendFinalize")]
    #[doc(alias = "cudnnBackendGetAttribute")]
    #[doc(alias = "CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR")]
    pub fn matmul_plan(&self, mm: &Matmul) -> Result<MatmulPlan<'_>> {
        crate::error::poison::check()?;
        let params = params(mm)?;
        not_linked()?;
        let mut graph = Graph::default();
        let op = operation(&mut graph, &params)?;
        let core = LibraryHandle::create(self, 0, || {
            let mut raw: cudnnHandle_t = core::ptr::null_mut();
            // SAFETY: `cudnnCreate` writes a handle through a valid out-pointer (a live local);
            // it binds the handle to the current context, this guard's.
            status("cudnnCreate", unsafe {
                ffi::cudnn::cudnnCreate(&raw mut raw)
            })?;
            Ok(RawDnn(raw))
        })?;
        let raw = core.raw().map_or(core::ptr::null_mut(), |r| r.0);
        // From here the plan destroys every descriptor, then the handle, when dropped, also on
        // the errors below.
        let mut plan = MatmulPlan {
            core,
            graph,
            plan: DescRef(core::ptr::null_mut()),
            params,
            _guard: PhantomData,
        };
        let (exec, bytes) = execution_plan(&mut plan.graph, raw, op, &params)?;
        plan.plan = exec;
        if bytes > 0 {
            // The workspace the execution plan asked for, of this guard's context, passed to
            // every run; the plan frees it only once no run can still use it.
            plan.core.own_memory(self.alloc::<u8>(bytes)?);
        }
        Ok(plan)
    }
}

impl MatmulPlan<'_> {
    /// The sizes `[batch, m, n, k]`.
    pub fn dims(&self) -> [usize; 4] {
        let [a, b, _] = self.params.tensors;
        [a.0[0], a.0[1], b.0[2], a.0[2]].map(|v| usize::try_from(v).unwrap_or(0))
    }

    /// The elements of `A` one run reads: what `a` must hold at least (`batch·m·k`).
    pub fn a_len(&self) -> usize {
        self.params.lens[0]
    }

    /// The elements of `B` one run reads: what `b` must hold at least (`batch·k·n`).
    pub fn b_len(&self) -> usize {
        self.params.lens[1]
    }

    /// The elements of `C` one run writes: what `c` must hold at least (`batch·m·n`).
    pub fn c_len(&self) -> usize {
        self.params.lens[2]
    }

    /// The bytes of the plan's workspace (0 when the engine needs none).
    pub fn workspace_bytes(&self) -> usize {
        self.core.memory_bytes()
    }

    /// `cudnnBackendExecute`—Enqueues `C[i] = A[i] · B[i]` for every matrix of the batch on
    /// the scope's stream, `a`, `b` and `c` bound to the scope; each run makes, finalizes and
    /// destroys its own variant pack (the three addresses and the workspace's).
    ///
    /// # Errors
    ///
    /// Before anything is enqueued: [`ErrorKind::BufferTooShort`] naming the buffer shorter
    /// than its tensor ([`a_len`](Self::a_len), [`b_len`](Self::b_len),
    /// [`c_len`](Self::c_len)); [`ErrorKind::InvalidValue`] for a buffer not aligned to 16
    /// bytes (a view starting elsewhere) or a destroyed plan; `CUDA_ERROR_NOT_SUPPORTED` inside
    /// a graph capture. cuDNN's status; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::dnn::Matmul;
    /// // One 1 × 2 by 2 × 1 product: 1·3 + 2·4.
    /// let plan = guard.matmul_plan(&Matmul::new(1, 1, 1, 2))?;
    /// let a = guard.alloc_from(&[1.0f32, 2.0])?;
    /// let b = guard.alloc_from(&[3.0f32, 4.0])?;
    /// let mut c = guard.alloc_zeroed::<f32>(1)?;
    /// guard.stream()?.scope(|s| plan.run(s, s.bind(&a), s.bind(&b), s.bind_mut(&mut c)))??;
    /// assert_eq!(c.to_vec()?, [11.0]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackendexecute>
    #[doc(alias = "cudnnBackendExecute")]
    #[doc(alias = "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR")]
    #[allow(
        clippy::many_single_char_names,
        reason = "the matmul's own names: a, b, c, and the scope s as every library's run"
    )]
    pub fn run<'scope>(
        &self,
        s: &StreamScope<'scope, '_>,
        a: impl ScopedRead<'scope, f32>,
        b: impl ScopedRead<'scope, f32>,
        c: impl ScopedWrite<'scope, f32>,
    ) -> Result<()> {
        let (a, b, c) = (a.raw_parts(), b.raw_parts(), c.raw_parts());
        buffers(&self.params, a, b, c)?;
        let Some(RawDnn(raw)) = self.core.raw() else {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!("{RUN}: the plan was destroyed; nothing was enqueued"),
            ));
        };
        let work = self
            .core
            .memory()
            .map_or(core::ptr::null_mut(), |m| ptr(m.device_ptr()));
        let exec = self.plan;
        self.core.order().enqueue(
            RUN,
            s,
            |stream| {
                // SAFETY: as `ConvPlan::run`'s: a live handle; the scope's stream, of the
                // current context, the handle's.
                status("cudnnSetStream", unsafe {
                    ffi::cudnn::cudnnSetStream(raw, stream)
                })
            },
            || {
                let mut pack = Graph::default();
                let v = pack.make(Kind::CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)?;
                v.set_attribute(Name::CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, &UIDS)?;
                v.set_attribute(
                    Name::CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                    &[DevPtr(ptr(a.0)), DevPtr(ptr(b.0)), DevPtr(ptr(c.0))],
                )?;
                v.set_attribute(Name::CUDNN_ATTR_VARIANT_PACK_WORKSPACE, &[DevPtr(work)])?;
                v.finalize()?;
                // SAFETY: cuDNN reads `A` and `B` and writes `C` in stream order, with the
                // workspace:
                // - each buffer holds its tensor's elements and is aligned to 16 bytes, the
                //   alignment its tensor is described with (checked above); the tensors are
                //   custack's, packed row-major from the checked sizes, matched to the
                //   pointers by uid in the same order;
                // - all three are device memory of this context bound to the scope (alive
                //   until its stream is synchronized); `c` is an exclusive binding, so it
                //   aliases neither input nor anything else the scope reaches;
                // - the workspace is the size the execution plan asked for, owned by the
                //   plan, whose runs never overlap on the GPU (`order`);
                // - the handle is live, its stream is the scope's; the execution plan is a
                //   finalized descriptor the plan owns; the variant pack is finalized, and a
                //   host object cuDNN reads during the call only (destroyed after it).
                status(RUN, unsafe {
                    ffi::cudnn::cudnnBackendExecute(raw, exec.0, v.0)
                })
            },
        )
    }

    /// `cudnnBackendDestroyDescriptor`—Waits until none of the plan's runs can still run, then
    /// destroys every descriptor, its handle (`cudnnDestroy`) and frees its workspace,
    /// returning the first error.
    ///
    /// # Errors
    ///
    /// The error of the wait (the first error of the context's work, or a sticky error); if it
    /// fails, the handle, its workspace and the descriptors are leaked rather than freed while
    /// the GPU may still use them. cuDNN's status; the workspace's free.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html#cudnnbackenddestroydescriptor>
    #[doc(alias = "cudnnBackendDestroyDescriptor")]
    pub fn destroy(mut self) -> Result<()> {
        self.release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backend descriptor's release passes the gate (R20, R35): inside code the driver
    /// called it is refused before cuDNN and left behind, by `destroy` and by the drop, whose
    /// refusal goes to the orphaned drop log (not the thread's own). (Without the gate cuDNN would be asked, and answer another
    /// error, or in a build without it the not-linked one.)
    #[test]
    fn a_descriptor_is_not_destroyed_inside_a_driver_callback() {
        let _ = crate::error::take_drop_errors();
        let _ = crate::error::drop_log::orphaned_here();
        crate::error::callback::run(|| {
            let destroyed = Desc(core::ptr::null_mut()).destroy().map_err(|e| e.kind());
            assert_eq!(destroyed, Err(ErrorKind::NotPermitted));
            drop(Desc(core::ptr::null_mut()));
        });
        assert!(crate::error::take_drop_errors().is_empty());
        assert_eq!(
            crate::error::drop_log::orphaned_here(),
            [ErrorKind::NotPermitted]
        );
    }

    #[test]
    fn tensors_are_packed_row_major_batch_first() {
        let p = params(&Matmul::new(3, 64, 80, 48)).unwrap();
        assert_eq!(p.tensors[0], ([3, 64, 48], [64 * 48, 48, 1]));
        assert_eq!(p.tensors[1], ([3, 48, 80], [48 * 80, 80, 1]));
        assert_eq!(p.tensors[2], ([3, 64, 80], [64 * 80, 80, 1]));
        assert_eq!(p.lens, [3 * 64 * 48, 3 * 48 * 80, 3 * 64 * 80]);
        assert!(!p.tf32);
        let p = params(&Matmul::new(1, 7, 5, 3).tf32(true)).unwrap();
        assert_eq!(p.lens, [21, 15, 35]);
        assert!(p.tf32);
    }

    #[test]
    fn zero_sizes_are_refused() {
        for (mm, name) in [
            (Matmul::new(0, 2, 3, 4), "the batch is 0"),
            (Matmul::new(1, 0, 3, 4), "M is 0"),
            (Matmul::new(1, 2, 0, 4), "N is 0"),
            (Matmul::new(1, 2, 3, 0), "K is 0"),
        ] {
            let e = params(&mm).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{mm:?}");
            assert!(e.to_string().contains(name), "{e}");
        }
    }

    #[test]
    fn tensors_beyond_an_i64_are_refused() {
        let big = 1usize << 32;
        for (mm, names) in [
            // A's elements: 2^32 · 2^32 overflow an i64 in the matrix already.
            (Matmul::new(1, big, 1, big), "A's"),
            // B's: 2^31 · 2^31 · 2 elements.
            (Matmul::new(2, 1, 1 << 31, 1 << 31), "B's"),
            // C's bytes: 2^61 elements of 4 bytes; A and B fit.
            (Matmul::new(1 << 21, 1 << 20, 1 << 20, 1), "C's"),
        ] {
            let e = params(&mm).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::SizeOverflow, "{mm:?}: {e}");
            assert!(e.to_string().contains(names), "{e}");
        }
        // Just fitting: 2^60 elements of 4 bytes are 2^62 bytes.
        let p = params(&Matmul::new(1 << 20, 1 << 20, 1, 1 << 20)).unwrap();
        assert_eq!(p.lens[0], 1 << 60);
    }

    #[test]
    fn every_buffer_must_hold_its_tensor_and_be_aligned() {
        let p = params(&Matmul::new(2, 3, 5, 4)).unwrap();
        let ok = |len| (0x1000, len);
        buffers(&p, ok(24), ok(40), ok(30)).unwrap();
        buffers(&p, ok(25), ok(99), ok(31)).unwrap();
        for (result, says) in [
            (
                buffers(&p, ok(23), ok(40), ok(30)),
                "A holds 23 elements, the plan needs 24",
            ),
            (
                buffers(&p, ok(24), ok(39), ok(30)),
                "B holds 39 elements, the plan needs 40",
            ),
            (
                buffers(&p, ok(24), ok(40), ok(29)),
                "the output C holds 29 elements, the plan needs 30",
            ),
        ] {
            let e = result.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(e.to_string().contains(says), "{e}");
            assert!(e.to_string().contains("nothing was enqueued"), "{e}");
        }
        let off = (0x1004, 99);
        for (result, names) in [
            (buffers(&p, off, ok(40), ok(30)), "A starts"),
            (buffers(&p, ok(24), off, ok(30)), "B starts"),
            (buffers(&p, ok(24), ok(40), off), "the output C starts"),
        ] {
            let e = result.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue);
            assert!(e.to_string().contains(names), "{e}");
        }
    }

    #[test]
    fn engines_with_tensor_cores_or_narrower_inputs_are_not_full_precision() {
        assert!(full_precision(&[]));
        assert!(full_precision(&[Note(2), Note(5)]));
        assert!(!full_precision(&[
            Note(2),
            Note::CUDNN_NUMERICAL_NOTE_TENSOR_CORE
        ]));
        assert!(!full_precision(&[
            Note::CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS
        ]));
    }

    /// The tensors, the matmul descriptor and the operation are host objects: where cuDNN is
    /// linked they are made, set and finalized without a GPU, so cuDNN itself accepts the
    /// attributes' names, types and values custack declares; and each is destroyed once.
    #[cfg(not(custack_no_cudnn))]
    #[test]
    fn cudnn_finalizes_the_operation_custack_describes() {
        for mm in [Matmul::new(3, 64, 80, 48), Matmul::new(1, 7, 5, 3)] {
            let p = params(&mm).unwrap();
            let mut g = Graph::default();
            operation(&mut g, &p).unwrap_or_else(|e| panic!("{mm:?}: {e}"));
            assert_eq!(g.0.len(), 5);
            g.destroy().unwrap();
            assert!(g.0.is_empty());
        }
        assert!(crate::error::take_drop_errors().is_empty());
    }

    /// An operation cuDNN refuses (`B` of 4 rows where `A` has 3 columns: shapes custack's
    /// checks never make) fails its finalize with cuDNN's status, and the five descriptors
    /// made by then are destroyed by the graph's drop, each once, without an error.
    #[cfg(not(custack_no_cudnn))]
    #[test]
    fn a_refused_operation_destroys_what_was_made() {
        let mut p = params(&Matmul::new(1, 7, 5, 3)).unwrap();
        p.tensors[1] = ([1, 4, 5], [20, 5, 1]);
        let mut g = Graph::default();
        let e = operation(&mut g, &p).unwrap_err();
        assert!(e.library_status().is_some(), "{e}");
        assert!(e.to_string().contains(PLAN), "{e}");
        assert_eq!(g.0.len(), 5);
        drop(g);
        assert!(crate::error::take_drop_errors().is_empty());
    }
}
