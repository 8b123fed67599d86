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
    #[inline]
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

    /// Counts its drops: held by a closure.
    struct Token(Arc<AtomicU32>);

    impl Drop for Token {
        fn drop(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
    }

    /// A closure that adds 1 to `calls` and holds a token counting into `drops`.
    fn closure(calls: &Arc<AtomicU32>, drops: &Arc<AtomicU32>) -> impl Fn() + Send + Sync + use<> {
        let (calls, token) = (Arc::clone(calls), Token(Arc::clone(drops)));
        move || {
            let _ = &token;
            calls.fetch_add(1, SeqCst);
        }
    }

    #[test]
    fn a_slot_keeps_the_last_closure_and_hands_back_the_one_it_replaces() {
        let (calls, drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
        let mut fns = ExecHostFns::default();
        let (first, a) = ExecHostFn::new(0, closure(&calls, &drops));
        let (second, b) = ExecHostFn::new(0, closure(&calls, &drops));
        let (third, c) = ExecHostFn::new(0, closure(&calls, &drops));
        for params in [first, second, third] {
            let f = params.fn_.expect("a function");
            // SAFETY: each closure's own box, live (none freed yet).
            unsafe { f(params.userData) };
        }
        assert_eq!(calls.load(SeqCst), 3, "each box calls its closure");
        assert!(fns.replace(2, a).is_none(), "slot 2 was empty");
        assert!(fns.replace(0, b).is_none(), "slot 0 was empty");
        let old = fns.replace(2, c).expect("slot 2's closure, replaced");
        assert_eq!(
            drops.load(SeqCst),
            0,
            "a replaced closure is the caller's, not dropped"
        );
        // SAFETY: nothing names it (this test called it directly, and no longer does).
        unsafe { old.free() };
        assert_eq!(drops.load(SeqCst), 1);
        // SAFETY: as above, for the two left.
        unsafe { fns.free_all() };
        assert_eq!(drops.load(SeqCst), 3, "each closure dropped once");
        // SAFETY: nothing left: freeing again drops nothing.
        unsafe { fns.free_all() };
        assert_eq!(drops.load(SeqCst), 3);
    }

    #[test]
    #[cfg_attr(miri, ignore = "leaks on purpose, which Miri's leak check reports")]
    fn a_leaked_closure_is_never_dropped() {
        let (calls, drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
        let mut fns = ExecHostFns::default();
        let (_, f) = ExecHostFn::new(0, closure(&calls, &drops));
        assert!(fns.replace(0, f).is_none());
        fns.leak();
        // SAFETY: the list is empty after the leak.
        unsafe { fns.free_all() };
        assert_eq!(drops.load(SeqCst), 0, "leaked, not dropped");
    }
}
