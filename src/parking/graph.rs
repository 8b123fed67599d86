//! Executable graphs that borrow only their context: a launched graph kept pending across a
//! nested push, and an idle one kept across pops.
//!
//! An executable graph's kernel nodes name its module's functions for as long as the graph
//! exists, and it is launched again later (that is why one keeps it). So a graph parks only
//! when its payload *owns* everything its nodes use, the [`Module`](crate::Module) included:
//! move the module into the capture's payload and look its functions up inside the capture
//! closure ([`Payload`] binds a module as `&'scope Module<'scope>`, so they cannot leave it).
//! [`ParkWithGraph`] is that rule as a trait: every payload that parks, but a kernel
//! [`Function`](crate::Function) or [`Kernel`](crate::Kernel) (they borrow a module the graph
//! does not own).
//!
//! Then the executable graph parks like any other payload ([`Park`]): as a [`ParkedGraph`]
//! whose payload is in its parked form (the module as a [`ParkedModule`](crate::ParkedModule),
//! buffers as [`ParkedBuffer`](crate::ParkedBuffer)s), inside a
//! [`ParkedSubmission`](crate::ParkedSubmission) while a launch is pending
//! ([`PushedGuard::park_submission`]), or by itself when idle ([`PushedGuard::park_graph`]).
//! [`PushedGuard::attach_graph`] takes it back under a guard of its context (the pointer
//! compare of [`PushedGuard::attach`], then each part attached in turn: [`Unpark`]). One
//! model: the same parking and payload machinery, nothing tracked at run time.

use super::submission::{Park, ParkedPayload, PendingView, sealed};
use crate::asynchronous::payload::Payload;
use crate::context::Context;
use crate::context::raw::release_in;
use crate::context::stack::{ContextKind, Floating, PushedGuard};
use crate::error::left_behind::{Object, left_behind};
use crate::error::{Error, ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::graph::GraphExec;
use crate::graph::host_fn::ExecHostFns;
use crate::graph::kept::record::Kept;
use crate::kernel::module::Module;
use crate::memory::registered::RegisteredVec;
use crate::memory::{DeviceBuffer, PinnedBuffer};
use crate::parking::buffer::ParkedBuffer;
use crate::parking::host::{ParkedPinned, ParkedRegisteredVec};
use crate::parking::module::ParkedModule;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;

/// A parked payload that a guard of its context takes back into the form that guard lends
/// (the inverse of [`Park`]): a [`ParkedBuffer`] as a [`DeviceBuffer`], a
/// [`ParkedModule`] as a [`Module`], a [`ParkedPinned`] as a [`PinnedBuffer`], a
/// [`ParkedRegisteredVec`] as a [`RegisteredVec`]; host vectors and boxes as themselves;
/// tuples element by element. What [`PushedGuard::attach_graph`] does to a parked graph's
/// payload. Sealed.
pub trait Unpark<'ctx, K: ContextKind = Floating>: ParkedPayload {
    /// The attached form, lent by a guard for `'g`.
    type Attached<'g>: Payload
    where
        'ctx: 'g,
        K: 'g;

    /// Attaches every part with the guard's checked `attach_*` call.
    #[doc(hidden)]
    fn unpark<'g>(
        held: Self::Held,
        guard: &'g PushedGuard<'ctx, '_, K>,
    ) -> Result<<Self::Attached<'g> as Payload>::Held>;
}

impl<'ctx, T: DeviceCopy, K: ContextKind> Unpark<'ctx, K> for ParkedBuffer<'ctx, T, K> {
    type Attached<'g>
        = DeviceBuffer<'g, T>
    where
        'ctx: 'g,
        K: 'g;
    #[inline]
    fn unpark<'g>(held: Self, guard: &'g PushedGuard<'ctx, '_, K>) -> Result<DeviceBuffer<'g, T>> {
        guard.attach(held)
    }
}

impl<'ctx, K: ContextKind> Unpark<'ctx, K> for ParkedModule<'ctx, K> {
    type Attached<'g>
        = Module<'g>
    where
        'ctx: 'g,
        K: 'g;
    #[inline]
    fn unpark<'g>(held: Self, guard: &'g PushedGuard<'ctx, '_, K>) -> Result<Module<'g>> {
        guard.attach_module(held)
    }
}

impl<'ctx, T: DeviceCopy> Unpark<'ctx> for ParkedPinned<'ctx, T> {
    type Attached<'g>
        = PinnedBuffer<'g, T>
    where
        'ctx: 'g;
    #[inline]
    fn unpark<'g>(held: Self, guard: &'g PushedGuard<'ctx, '_>) -> Result<PinnedBuffer<'g, T>> {
        guard.attach_pinned(held)
    }
}

impl<'ctx, T: DeviceCopy> Unpark<'ctx> for ParkedRegisteredVec<'ctx, T> {
    type Attached<'g>
        = RegisteredVec<'g, T>
    where
        'ctx: 'g;
    #[inline]
    fn unpark<'g>(held: Self, guard: &'g PushedGuard<'ctx, '_>) -> Result<RegisteredVec<'g, T>> {
        guard.attach_registered(held)
    }
}

impl<'ctx, K: ContextKind, T: DeviceCopy> Unpark<'ctx, K> for Vec<T> {
    type Attached<'g>
        = Vec<T>
    where
        'ctx: 'g,
        K: 'g;
    #[inline]
    fn unpark(held: Vec<T>, _: &PushedGuard<'ctx, '_, K>) -> Result<Vec<T>> {
        Ok(held)
    }
}

impl<'ctx, K: ContextKind, T: DeviceCopy> Unpark<'ctx, K> for Box<[T]> {
    // Held as a `Vec<T>` parked and attached alike (see `Payload`).
    type Attached<'g>
        = Box<[T]>
    where
        'ctx: 'g,
        K: 'g;
    #[inline]
    fn unpark(held: Vec<T>, _: &PushedGuard<'ctx, '_, K>) -> Result<Vec<T>> {
        Ok(held)
    }
}

impl<'ctx, K: ContextKind> Unpark<'ctx, K> for () {
    type Attached<'g>
        = ()
    where
        'ctx: 'g,
        K: 'g;
    #[inline]
    fn unpark((): (), _: &PushedGuard<'ctx, '_, K>) -> Result<()> {
        Ok(())
    }
}

/// A [`Payload`] whose executable graph can park ([`PushedGuard::park_graph`], or
/// [`PushedGuard::park_submission`] of a pending launch): one that owns everything the
/// graph's nodes use. Every payload that parks ([`Park`]) but a kernel
/// [`Function`](crate::Function) or [`Kernel`](crate::Kernel), which borrow a module the graph
/// does not own (move the [`Module`] itself into the graph's payload and look its functions up
/// inside the capture closure), or an executable graph. Sealed.
#[diagnostic::on_unimplemented(
    message = "an executable graph whose payload holds `{Self}` cannot be parked",
    label = "the graph's nodes use a module this payload does not own",
    note = "a `Function` or `Kernel` borrows its module, which a parked graph could not keep loaded: move the `Module` itself into the capture's payload and look the function up inside the capture closure (`|s, (module, buf)| {{ let f = module.function(\"name\")?; … }}`)"
)]
pub trait ParkWithGraph<'ctx, K: ContextKind = Floating>:
    Park<'ctx, K, Parked: Unpark<'ctx, K>>
{
}

impl<T: DeviceCopy, K: ContextKind> ParkWithGraph<'_, K> for DeviceBuffer<'_, T> {}
impl<K: ContextKind> ParkWithGraph<'_, K> for Module<'_> {}
impl<T: DeviceCopy> ParkWithGraph<'_> for PinnedBuffer<'_, T> {}
impl<T: DeviceCopy> ParkWithGraph<'_> for RegisteredVec<'_, T> {}
impl<K: ContextKind, T: DeviceCopy> ParkWithGraph<'_, K> for Vec<T> {}
impl<K: ContextKind, T: DeviceCopy> ParkWithGraph<'_, K> for Box<[T]> {}
impl<K: ContextKind> ParkWithGraph<'_, K> for () {}

/// An executable graph set aside so it borrows only its [`Context`], its payload in the parked
/// form `Q` ([`Park::Parked`]): what a [`ParkedSubmission`](crate::ParkedSubmission) of a graph
/// launch hands back, or what [`PushedGuard::park_graph`] makes of an idle graph. It cannot be
/// launched or reached until [`PushedGuard::attach_graph`] takes it back under a guard of its
/// context (checked by a pointer compare), which gives the [`GraphExec`] to launch again.
///
/// Dropping it pushes its context briefly to destroy the executable graph
/// (`cuGraphExecDestroy`), then drops the payload (each parked part frees itself in its
/// context: the module is unloaded only after the graph is gone). Leaking it is sound (R11).
///
/// `K` is the kind of context: `Send` and `Sync` for a [`Floating`] one when its payload is,
/// neither for a [`Green`](crate::Green) one.
///
/// # Examples
///
/// A graph launched on A stays in flight while B is pushed and works; A launches it again
/// afterwards:
///
/// ```no_run
/// use custack::prelude::*;
/// use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
/// let driver = Driver::init()?;
/// let (a, b) = (
///     Context::new(driver.device(0)?, ContextFlags::empty())?,
///     Context::new(driver.device(0)?, ContextFlags::empty())?,
/// );
/// let mut stack = Stack::new()?;
/// let mut ga = stack.push(&a)?;
/// let module = ga.load_ptx(include_str!("../../tests/fixtures/kernels.ptx"))?;
/// let stream = ga.stream()?;
/// // The graph owns the module: its kernels are looked up inside the capture.
/// let exec = stream
///     .capture((module, ga.alloc_zeroed::<u32>(1024)?), |s, (module, mut x)| {
///         let add = module.function("add_u32")?;
///         // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
///         unsafe { s.launch(&add, LaunchConfig::for_elements(1024), (&mut x, 1u32, 1024u32)) }
///     })?
///     .instantiate()?;
/// let pending = ga.park_submission(stream.submit(exec, |s, g| s.launch_graph(&g))?);
/// drop(stream);
/// ga.with_pushed(&b, |gb| -> custack::Result<()> {
///     let _mine = gb.alloc_from(&[7u32; 256])?; // B works while A's graph runs
///     Ok(())
/// })??;
/// let exec = ga.attach_graph(pending.wait()?)?; // a `GraphExec` of A again
/// let stream = ga.stream()?;
/// let exec = stream.submit(exec, |s, g| s.launch_graph(&g))?.wait()?;
/// let (_module, x) = exec.payload();
/// assert_eq!(x.to_vec()?, vec![2u32; 1024]);
/// # Ok::<(), custack::Error>(())
/// ```
#[must_use = "dropping a parked graph destroys it; attach it to a guard of its context to launch it again"]
#[doc(alias = "CUgraphExec")]
pub struct ParkedGraph<'ctx, Q: ParkedPayload, K: ContextKind = Floating> {
    ctx: ffi::CUcontext,
    raw: ffi::CUgraphExec,
    payload: ManuallyDrop<Q::Held>,
    /// The graph's kept allocations (`GraphBuilder::alloc_kept`), handed back on attach.
    kept: Option<Box<Kept>>,
    /// Whether a node was disabled when it parked: a whole-graph update after it is attached
    /// is refused (the node would stay disabled, with no node lent to enable it).
    disabled: bool,
    /// The closures its host nodes' updates gave it (`NodeUpdater::set_host`): its launches may
    /// call them, so they are freed once it is destroyed, and handed back on attach.
    host_fns: ExecHostFns,
    _marker: PhantomData<(&'ctx Context, K)>,
}

// SAFETY: an executable graph of a floating context belongs to the context, not a thread; a
// parked graph offers no access until attached to a guard of its context (checked), and its
// drop pushes that context itself. Its payload's parked parts cross threads as they would
// alone, and its host nodes' closures are `Send + Sync` (`Slot::make`'s bound), freed by
// whichever thread drops it. Not for a green context (its parked parts are `!Send`, and so is
// this).
unsafe impl<Q: ParkedPayload> Send for ParkedGraph<'_, Q, Floating> where Q::Held: Send {}
// SAFETY: `&ParkedGraph` offers the raw handles only.
unsafe impl<Q: ParkedPayload> Sync for ParkedGraph<'_, Q, Floating> where Q::Held: Sync {}

static_assertions::assert_impl_all!(ParkedGraph<'static, (ParkedModule<'static>, ParkedBuffer<'static, u32>)>: Send, Sync);
static_assertions::assert_not_impl_any!(ParkedGraph<'static, (), crate::context::stack::Green>: Send, Sync);

impl<Q: ParkedPayload, K: ContextKind> core::fmt::Debug for ParkedGraph<'_, Q, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ParkedGraph")
            .field("ctx", &self.ctx)
            .field("raw", &self.raw)
            .finish_non_exhaustive()
    }
}

impl<Q: ParkedPayload, K: ContextKind> ParkedGraph<'_, Q, K> {
    /// The raw context the graph belongs to.
    pub fn context_raw(&self) -> ffi::CUcontext {
        self.ctx
    }

    /// The raw `CUgraphExec` (usable only while its context is current).
    pub fn as_raw(&self) -> ffi::CUgraphExec {
        self.raw
    }

    fn into_parts(
        self,
    ) -> (
        ffi::CUgraphExec,
        Q::Held,
        Option<Box<Kept>>,
        bool,
        ExecHostFns,
    ) {
        let mut this = ManuallyDrop::new(self);
        let kept = this.kept.take();
        let host_fns = core::mem::take(&mut this.host_fns);
        // SAFETY: taken once; `this` never drops.
        let payload = unsafe { ManuallyDrop::take(&mut this.payload) };
        (this.raw, payload, kept, this.disabled, host_fns)
    }
}

/// Destroys an executable graph of the current context.
fn destroy_exec(raw: ffi::CUgraphExec) -> Result<()> {
    // SAFETY: a live executable graph of the current context (the callers'), destroyed once,
    // with no launch pending.
    unsafe { ffi::cuGraphExecDestroy(raw) }.result()
}

impl<Q: ParkedPayload, K: ContextKind> Drop for ParkedGraph<'_, Q, K> {
    fn drop(&mut self) {
        let raw = self.raw;
        let kept = self.kept.take();
        let mut host_fns = core::mem::take(&mut self.host_fns);
        let destroy = || {
            let destroyed = destroy_exec(raw);
            // What a launch kept and nobody took is not freed by the destroy: freed here, in
            // the graph's context (no launch pending, as below).
            if let Some(kept) = &kept {
                kept.free_untaken_in_drop();
            }
            match &destroyed {
                // SAFETY: the executable graph is destroyed and no launch of it is pending (as
                // below): nothing calls its host nodes' closures any more.
                Ok(()) => unsafe { host_fns.free_all() },
                // Not destroyed: its launches could still call them.
                Err(_) => host_fns.leak(),
            }
            destroyed
        };
        // SAFETY: `ctx` is alive (borrowed for `'ctx`); the closure leaves the stack as it was.
        // No launch is pending: a pending launch is a parked submission's, which drops its
        // payload (this) only after its work is complete.
        if let Err(e) = unsafe { release_in(self.ctx, Object::GraphExec, raw as u64, destroy) } {
            // The graph is leaked if the push failed; it is never launched again, so freeing
            // its payload below is still sound.
            record_drop_error(e);
        }
        // Where the push failed, what a launch kept is left with the graph.
        if let Some(kept) = &kept {
            kept.left_behind();
        }
        // SAFETY: dropped once, after the graph (or with it leaked and never launched again).
        unsafe { ManuallyDrop::drop(&mut self.payload) };
    }
}

impl<Q: ParkedPayload, K: ContextKind> sealed::Sealed for ParkedGraph<'_, Q, K> {}
impl<Q: ParkedPayload, K: ContextKind> ParkedPayload for ParkedGraph<'_, Q, K> {
    type Held = Self;
    #[inline]
    fn release(held: Self) -> Self {
        held
    }
    unsafe fn left_behind(held: &Self) {
        left_behind(Object::GraphExec, held.raw as u64);
        if let Some(kept) = &held.kept {
            kept.left_behind();
        }
        // SAFETY: the caller leaks `held`, and so the payload inside it.
        unsafe { Q::left_behind(&held.payload) };
    }
}

impl<Q: ParkedPayload, K: ContextKind> PendingView for ParkedGraph<'_, Q, K> {
    // A graph's memory is not lent while its launch may be pending.
    type View<'p> = ();
    #[inline]
    unsafe fn pending_view<'p>(_: &Self) -> Self::View<'p> {}
}

impl<'ctx, K: ContextKind, P: ParkWithGraph<'ctx, K>> Park<'ctx, K> for GraphExec<'_, P> {
    type Parked = ParkedGraph<'ctx, P::Parked, K>;
    #[inline]
    unsafe fn park(held: Self, ctx: ffi::CUcontext) -> ParkedGraph<'ctx, P::Parked, K> {
        let (raw, payload, kept, disabled, host_fns) = held.into_parts();
        ParkedGraph {
            ctx,
            raw,
            kept,
            disabled,
            host_fns,
            // SAFETY: the graph and its payload belong to `ctx`, alive for `'ctx` (the
            // caller's promise); the payload owns everything the graph's nodes use
            // (`ParkWithGraph`), so nothing it needs is released by parking.
            payload: ManuallyDrop::new(unsafe { P::park(payload, ctx) }),
            _marker: PhantomData,
        }
    }
}

impl<'ctx, K: ContextKind> PushedGuard<'ctx, '_, K> {
    /// Parks an idle executable graph of this guard's context: it no longer borrows the guard,
    /// only the context, so it survives the pop and nested pushes (as
    /// [`park_module`](Self::park_module) does for a module). Its payload must own everything
    /// its nodes use ([`ParkWithGraph`]). No driver call. See [`ParkedGraph`].
    ///
    /// A pending launch parks with [`park_submission`](Self::park_submission), which hands the
    /// `ParkedGraph` back from its wait.
    pub fn park_graph<P: ParkWithGraph<'ctx, K>>(
        &self,
        exec: GraphExec<'_, P>,
    ) -> ParkedGraph<'ctx, P::Parked, K> {
        // SAFETY: the executable graph is lent by a guard of this thread, and only the guard on
        // top can be used: this one, whose context (of kind `K`) lives for `'ctx`.
        unsafe { <GraphExec<'_, P> as Park<'ctx, K>>::park(exec, self.as_raw()) }
    }

    /// Re-attaches a parked executable graph to this guard, its payload attached part by part
    /// ([`Unpark`]), so it can be launched again. Checked without calling the driver.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ContextMismatch`] if it belongs to another context; the parked graph is
    /// then dropped, which destroys it in its own context.
    pub fn attach_graph<Q: Unpark<'ctx, K>>(
        &self,
        parked: ParkedGraph<'ctx, Q, K>,
    ) -> Result<GraphExec<'_, Q::Attached<'_>>> {
        if parked.ctx != self.as_raw() {
            return Err(Error::custack(
                ErrorKind::ContextMismatch,
                format!(
                    "executable graph parked from context {:p} attached to a guard of {:p}",
                    parked.ctx,
                    self.as_raw()
                ),
            ));
        }
        let parked_ctx = parked.ctx;
        let (raw, payload, kept, disabled, host_fns) = parked.into_parts();
        match Q::unpark(payload, self) {
            // SAFETY: a live executable graph of this guard's context (checked above), with no
            // launch pending (a parked graph is handed back only after its launch's wait), whose
            // nodes use only what the attached payload owns (`ParkWithGraph` when it parked),
            // and whose updated host nodes' closures `host_fns` owns.
            Ok(held) => Ok(unsafe { GraphExec::from_parts(raw, held, kept, disabled, host_fns) }),
            Err(e) => {
                // Not reached: every part was parked from this context. Should it be, the parts
                // already went (dropped, no launch pending); the graph goes too, destroyed by
                // the drop of a parked graph that owns nothing else.
                drop(ParkedGraph::<'ctx, (), K> {
                    ctx: parked_ctx,
                    raw,
                    payload: ManuallyDrop::new(()),
                    kept,
                    disabled,
                    host_fns,
                    _marker: PhantomData,
                });
                Err(e)
            }
        }
    }
}
