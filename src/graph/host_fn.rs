//! The closure of a host node and the two functions the driver calls with it: `call` at each
//! launch, `destroy` once nothing can call it. A graph owns a closure through a CUDA user
//! object (`host.rs`); an executable graph owns the closures its updates gave its host nodes
//! itself ([`ExecHostFns`]), and frees them once no launch can call them.

use crate::asynchronous::host::catch;
use crate::ffi;
use core::ffi::c_void;

/// What a graph's user object owns: the closure, and the context whose next wait reports its
/// panics.
pub(super) struct HostNode<F> {
    pub(super) f: F,
    pub(super) ctx: usize,
}

/// The function a host node's parameters (or a captured `cuLaunchHostFunc`) name.
///
/// # Safety
///
/// `data` must point to a live `HostNode<F>` made by `own_by_graph` (`host.rs`) or [`ExecHostFn::new`], which its user object
/// keeps alive while any graph or executable graph can call this.
pub(super) unsafe extern "C" fn call<F: Fn() + Send + Sync + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: a live box, only ever shared (`F: Sync`), so a shared
    // reference is sound even while another launch calls it on another thread.
    let node = unsafe { &*data.cast::<HostNode<F>>() };
    catch(node.ctx, || (node.f)());
}

/// The user object's destructor: drops the box.
///
/// # Safety
///
/// `data` must come from `Box::<HostNode<F>>::into_raw` in `own_by_graph` (`host.rs`) or [`ExecHostFn::new`] and be passed here
/// once (the driver calls a destructor once, when the last reference goes and no launch can
/// call the node any more).
pub(super) unsafe extern "C" fn destroy<F: Fn() + Send + Sync + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: the box, now ours alone (`F: Send`: dropped on the
    // driver's thread).
    let node = unsafe { Box::from_raw(data.cast::<HostNode<F>>()) };
    let ctx = node.ctx;
    catch(ctx, move || drop(node));
}

/// A host node's closure that an executable graph owns, given by an update
/// ([`NodeUpdater::set_host`](crate::graph::NodeUpdater::set_host)): the box `call::<F>` is
/// called with, which only [`ExecHostFns`] frees. Dropping one without [`free`](Self::free)
/// leaks the closure (the safe default for one a launch may still call).
pub(crate) struct ExecHostFn {
    data: *mut c_void,
    destroy: unsafe extern "C" fn(*mut c_void),
}

impl ExecHostFn {
    /// Boxes `f` with the context `ctx` whose next wait reports its panics: the function a host
    /// node's parameters name and the closure, owned by the caller from now on.
    pub(crate) fn new<F: Fn() + Send + Sync + 'static>(
        ctx: usize,
        f: F,
    ) -> (ffi::CUDA_HOST_NODE_PARAMS, Self) {
        let data = Box::into_raw(Box::new(HostNode { f, ctx })).cast::<c_void>();
        let params = ffi::CUDA_HOST_NODE_PARAMS {
            fn_: Some(call::<F>),
            userData: data,
        };
        let owned = ExecHostFn {
            data,
            destroy: destroy::<F>,
        };
        (params, owned)
    }

    /// Drops the closure (on this thread; a panic in its drop is caught and reported by the
    /// context's next wait, as `destroy` does for a graph's).
    ///
    /// # Safety
    ///
    /// Nothing can call it any more: no node of a live executable graph names it, and no
    /// launch that may call it is pending.
    pub(crate) unsafe fn free(self) {
        // SAFETY: `data` is the box `new` made for `destroy`'s `F`, freed once (`self` is
        // consumed); the caller's promise: nothing calls it any more.
        unsafe { (self.destroy)(self.data) };
    }
}

/// The host nodes' closures an executable graph owns, one slot per host node the builder made
/// (by its index among them): what the updates gave each node last. The executable graph frees
/// them once it is destroyed (no launch pending), and an update frees the one it replaces (the
/// updater needs `&mut` on the executable graph: no launch is pending either).
#[derive(Default)]
pub(crate) struct ExecHostFns {
    slots: Vec<Option<ExecHostFn>>,
}

impl core::fmt::Debug for ExecHostFns {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let owned = self.slots.iter().filter(|s| s.is_some()).count();
        f.debug_struct("ExecHostFns")
            .field("owned", &owned)
            .finish()
    }
}

impl ExecHostFns {
    /// Puts `f` in slot `index` (the `index`th host node's), returning the closure it held.
    pub(crate) fn replace(&mut self, index: usize, f: ExecHostFn) -> Option<ExecHostFn> {
        if self.slots.len() <= index {
            self.slots.resize_with(index + 1, || None);
        }
        self.slots.get_mut(index).and_then(|slot| slot.replace(f))
    }

    /// Frees every closure.
    ///
    /// # Safety
    ///
    /// As [`ExecHostFn::free`], for all of them: the executable graph is destroyed (or names
    /// none of them) and no launch of it is pending.
    pub(crate) unsafe fn free_all(&mut self) {
        for f in core::mem::take(&mut self.slots).into_iter().flatten() {
            // SAFETY: the caller's promise.
            unsafe { f.free() };
        }
    }

    /// Leaks every closure: for an executable graph that lives on without this record (parked)
    /// or is left behind, whose launches may still call them.
    pub(crate) fn leak(&mut self) {
        // `ExecHostFn` has no drop: dropping the list leaks each closure.
        drop(core::mem::take(&mut self.slots));
    }
}
