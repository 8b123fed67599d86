//! The closure of a host node and the two functions the driver calls with it: `call` at each
//! launch, `destroy` once nothing can call it. A graph owns a closure through a CUDA user
//! object (`host.rs`); an executable graph owns the closures its updates gave its host nodes
//! itself ([`ExecHostFns`]), and frees them once no launch can call them.

use crate::asynchronous::host::{catch, catch_here};
use crate::ffi;
use core::any::TypeId;
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
    kind: &'static Kind,
}

/// What custack needs to know of a `HostNode<F>` once `F` is erased: one per `F`, static.
struct Kind {
    /// `TypeId::of::<HostNode<F>>`: an allocation is reused for the same type only (so of the
    /// same size and alignment, from the same allocator as a `Box` of it).
    ty: fn() -> TypeId,
    /// Drops the `HostNode<F>` in place, leaving its allocation: `drop_node::<F>`.
    drop_in_place: unsafe fn(*mut c_void),
    /// Frees an allocation whose `HostNode<F>` is dropped: `dealloc::<F>`.
    dealloc: unsafe fn(*mut c_void),
}

/// An allocation that held a `HostNode<F>` whose closure is dropped: kept by a slot of
/// [`ExecHostFns`] for the slot's next closure of the same type, so that an update of a host node
/// with a closure of the type it had last makes no allocation and frees none. No node names it.
pub(crate) struct Spare {
    data: *mut c_void,
    kind: &'static Kind,
}

/// # Safety
///
/// `data` must point to a live `HostNode<F>` that nothing can call any more and nothing else
/// drops: dropped here, its allocation left.
unsafe fn drop_node<F: Fn() + Send + Sync + 'static>(data: *mut c_void) {
    let node = data.cast::<HostNode<F>>();
    // SAFETY: the caller's contract: a live `HostNode<F>`, ours alone.
    let ctx = unsafe { (*node).ctx };
    // SAFETY: as above; dropped once (a panic in the closure's drop still drops the rest and
    // leaves the memory uninitialised, never dropped again: a spare is only written or freed).
    catch_here(ctx, move || unsafe { core::ptr::drop_in_place(node) });
}

/// # Safety
///
/// `data` must be an allocation of `Box::<HostNode<F>>::new` whose `HostNode<F>` is dropped,
/// freed once.
unsafe fn dealloc<F: Fn() + Send + Sync + 'static>(data: *mut c_void) {
    // SAFETY: the caller's contract: `MaybeUninit<HostNode<F>>` has `HostNode<F>`'s layout, and
    // dropping it frees the allocation without dropping what it held (already dropped).
    drop(unsafe { Box::from_raw(data.cast::<core::mem::MaybeUninit<HostNode<F>>>()) });
}

impl ExecHostFn {
    /// Boxes `f` with the context `ctx` whose next wait reports its panics: the function a host
    /// node's parameters name and the closure, owned by the caller from now on.
    #[cfg(test)]
    pub(crate) fn new<F: Fn() + Send + Sync + 'static>(
        ctx: usize,
        f: F,
    ) -> (ffi::CUDA_HOST_NODE_PARAMS, Self) {
        Self::new_in(None, ctx, f)
    }

    /// As `new`, in `spare`'s allocation where it was made for a `HostNode<F>` (else in a new
    /// box, `spare` freed).
    #[inline]
    fn new_in<F: Fn() + Send + Sync + 'static>(
        spare: Option<Spare>,
        ctx: usize,
        f: F,
    ) -> (ffi::CUDA_HOST_NODE_PARAMS, Self) {
        let kind: &'static Kind = const {
            &Kind {
                ty: TypeId::of::<HostNode<F>>,
                drop_in_place: drop_node::<F>,
                dealloc: dealloc::<F>,
            }
        };
        let node = HostNode { f, ctx };
        let data = match spare {
            // The same `Kind` first (one compare, the common case: the kinds of one type are
            // one constant), else its type asked (another copy of the constant, or another
            // type). Equal pointers mean one `Kind`, so one `ty`, which returns this type's id:
            // the second test's answer, without its call.
            Some(spare)
                if core::ptr::eq(spare.kind, kind)
                    || (spare.kind.ty)() == TypeId::of::<HostNode<F>>() =>
            {
                let data = spare.data.cast::<HostNode<F>>();
                // SAFETY: an allocation of `Box::<HostNode<F>>::new` (its kind's type is this
                // type) whose `HostNode` is dropped and which no node names (a spare's
                // promise), taken out of its slot: written whole here, it is that box again.
                unsafe { data.write(node) };
                data.cast::<c_void>()
            }
            other => {
                let data = Box::into_raw(Box::new(node)).cast::<c_void>();
                if let Some(spare) = other {
                    // SAFETY: a spare of another type: an allocation whose `HostNode` is
                    // dropped, which no node names; out of its slot, freed once (after the new
                    // box is made, so that the new box is never the spare's memory).
                    unsafe { (spare.kind.dealloc)(spare.data) };
                }
                data
            }
        };
        let params = ffi::CUDA_HOST_NODE_PARAMS {
            fn_: Some(call::<F>),
            userData: data,
        };
        (params, ExecHostFn { data, kind })
    }

    /// Drops the closure (on this thread; a panic in its drop is caught and reported by the
    /// context's next wait, as `destroy` does for a graph's).
    ///
    /// # Safety
    ///
    /// Nothing can call it any more: no node of a live executable graph names it, and no
    /// launch that may call it is pending.
    pub(crate) unsafe fn free(self) {
        // SAFETY: the caller's promise: nothing calls it any more; `self` is consumed, so the
        // closure is dropped once (on this thread, not marked as the driver's callback).
        unsafe { (self.kind.drop_in_place)(self.data) };
        // SAFETY: the allocation `new_in` made for this kind, whose `HostNode` was just
        // dropped, freed once.
        unsafe { (self.kind.dealloc)(self.data) };
    }

    /// Drops the closure as [`free`](Self::free) does, keeping its allocation: a spare for
    /// [`ExecHostFns::keep_spare`].
    ///
    /// # Safety
    ///
    /// As [`free`](Self::free): nothing can call it any more.
    #[inline]
    pub(crate) unsafe fn retire(self) -> Spare {
        // SAFETY: the caller's promise: nothing can call it; `self` is consumed here, so
        // nothing else drops it (`ExecHostFn` has no drop, and its `destroy` is never called).
        unsafe { (self.kind.drop_in_place)(self.data) };
        Spare {
            data: self.data,
            kind: self.kind,
        }
    }
}

/// One host node's: the closure the updates gave it last, and a spare allocation. In `Cell`s:
/// an update reaches its slot through a shared reference (the updater is lent as `&`), and
/// takes or puts whole values only, so no borrow flag is kept or checked (the `&mut` on the
/// executable graph that an update holds already says no one else reaches the slots), and a
/// closure dropped while a slot is in use (the one an update replaces) can reach no borrow of
/// it.
#[derive(Default)]
pub(crate) struct Slot {
    current: core::cell::Cell<Option<ExecHostFn>>,
    spare: core::cell::Cell<Option<Spare>>,
}

impl Slot {
    /// Boxes `f` for this slot's host node with the context `ctx`, in the slot's spare
    /// allocation where it was made for a closure of `f`'s type: the parameters naming it and
    /// the closure, owned by the caller until [`replace`](Self::replace).
    #[inline]
    pub(crate) fn make<F: Fn() + Send + Sync + 'static>(
        &self,
        ctx: usize,
        f: F,
    ) -> (ffi::CUDA_HOST_NODE_PARAMS, ExecHostFn) {
        ExecHostFn::new_in(self.spare.take(), ctx, f)
    }

    /// Puts `f` in this slot, returning the closure it held.
    #[inline]
    pub(crate) fn replace(&self, f: ExecHostFn) -> Option<ExecHostFn> {
        self.current.replace(Some(f))
    }

    /// Keeps `spare` (a closure's allocation, [`ExecHostFn::retire`]'s) as this slot's spare,
    /// freeing the spare it replaces.
    #[inline]
    pub(crate) fn keep_spare(&self, spare: Spare) {
        if let Some(previous) = self.spare.replace(Some(spare)) {
            // SAFETY: a spare (its `HostNode` dropped, no node naming it), out of its slot,
            // freed once.
            unsafe { (previous.kind.dealloc)(previous.data) };
        }
    }
}

/// The host nodes' closures an executable graph owns, one slot per host node the builder made
/// (by its index among them), made with the executable graph: what the updates gave each node
/// last. The executable graph frees them once it is destroyed (no launch pending), and an
/// update drops the one it replaces (the updater needs `&mut` on the executable graph: no
/// launch is pending either), keeping its allocation for the slot's next closure of the same
/// type.
#[derive(Default)]
pub(crate) struct ExecHostFns {
    slots: Vec<Slot>,
}

impl core::fmt::Debug for ExecHostFns {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let owned = self
            .slots
            .iter()
            .filter(|s| {
                // Taken and put back: a `Cell` of a value that is not `Copy` is not read in
                // place.
                let current = s.current.take();
                let some = current.is_some();
                s.current.set(current);
                some
            })
            .count();
        f.debug_struct("ExecHostFns")
            .field("owned", &owned)
            .finish()
    }
}

impl ExecHostFns {
    /// Slots for `hosts` host nodes, all empty (no allocation for none).
    pub(crate) fn with_slots(hosts: usize) -> Self {
        Self {
            slots: core::iter::repeat_with(Slot::default).take(hosts).collect(),
        }
    }

    /// The slot of the `index`th host node; `None` past the host nodes the executable graph
    /// was made with.
    #[inline]
    pub(crate) fn slot(&self, index: usize) -> Option<&Slot> {
        self.slots.get(index)
    }

    /// Frees every closure, and every spare allocation.
    ///
    /// # Safety
    ///
    /// As [`ExecHostFn::free`], for all of them: the executable graph is destroyed (or names
    /// none of them) and no launch of it is pending.
    pub(crate) unsafe fn free_all(&mut self) {
        for slot in core::mem::take(&mut self.slots) {
            if let Some(f) = slot.current.into_inner() {
                // SAFETY: the caller's promise.
                unsafe { f.free() };
            }
            if let Some(spare) = slot.spare.into_inner() {
                // SAFETY: a spare: its `HostNode` dropped, no node naming it; out of the list
                // (taken above), freed once.
                unsafe { (spare.kind.dealloc)(spare.data) };
            }
        }
    }

    /// Forgets every closure without dropping it (an executable graph left behind, whose
    /// launches may still call them); the spare allocations are leaked with them.
    pub(crate) fn leak(&mut self) {
        // `ExecHostFn` and `Spare` have no drop: dropping the list leaks each.
        drop(core::mem::take(&mut self.slots));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

    /// Slot `index` of `fns`, which the test made.
    fn at(fns: &ExecHostFns, index: usize) -> &Slot {
        fns.slot(index).expect("a slot the test made")
    }

    #[test]
    fn an_executable_graph_has_a_slot_per_host_node_and_none_past_them() {
        let fns = ExecHostFns::with_slots(2);
        assert!(fns.slot(0).is_some() && fns.slot(1).is_some());
        assert!(fns.slot(2).is_none(), "no slot past the host nodes");
        assert!(ExecHostFns::default().slot(0).is_none());
        assert_eq!(format!("{fns:?}"), "ExecHostFns { owned: 0 }");
    }

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
        let mut fns = ExecHostFns::with_slots(3);
        let (first, a) = ExecHostFn::new(0, closure(&calls, &drops));
        let (second, b) = ExecHostFn::new(0, closure(&calls, &drops));
        let (third, c) = ExecHostFn::new(0, closure(&calls, &drops));
        for params in [first, second, third] {
            let f = params.fn_.expect("a function");
            // SAFETY: each closure's own box, live (none freed yet).
            unsafe { f(params.userData) };
        }
        assert_eq!(calls.load(SeqCst), 3, "each box calls its closure");
        assert!(at(&fns, 2).replace(a).is_none(), "slot 2 was empty");
        assert!(at(&fns, 0).replace(b).is_none(), "slot 0 was empty");
        let old = at(&fns, 2).replace(c).expect("slot 2's closure, replaced");
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
        let mut fns = ExecHostFns::with_slots(3);
        let (_, f) = ExecHostFn::new(0, closure(&calls, &drops));
        assert!(at(&fns, 0).replace(f).is_none());
        fns.leak();
        // SAFETY: the list is empty after the leak.
        unsafe { fns.free_all() };
        assert_eq!(drops.load(SeqCst), 0, "leaked, not dropped");
    }

    /// What `set_host` does, in its order: the new closure made in the slot's spare, the old
    /// one replaced, then retired (dropped, its allocation kept).
    fn update_in(
        fns: &mut ExecHostFns,
        ctx: usize,
        f: impl Fn() + Send + Sync + 'static,
    ) -> *mut c_void {
        let slot = at(fns, 0);
        let (params, owned) = slot.make(ctx, f);
        if let Some(old) = slot.replace(owned) {
            // SAFETY: nothing names it (no driver here; the test calls only the current one).
            let spare = unsafe { old.retire() };
            slot.keep_spare(spare);
        }
        let f = params.fn_.expect("a function");
        // SAFETY: the slot's current closure, live.
        unsafe { f(params.userData) };
        params.userData
    }

    fn update(fns: &mut ExecHostFns, f: impl Fn() + Send + Sync + 'static) -> *mut c_void {
        update_in(fns, 0, f)
    }

    #[test]
    fn a_closure_of_the_type_replaced_reuses_its_allocation_and_each_is_dropped_once() {
        let (calls, drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
        let mut fns = ExecHostFns::with_slots(3);
        let first = update(&mut fns, closure(&calls, &drops));
        let second = update(&mut fns, closure(&calls, &drops));
        assert_ne!(
            first, second,
            "the first closure was live while the second was made"
        );
        assert_eq!(
            drops.load(SeqCst),
            1,
            "the replaced closure is dropped at once"
        );
        let third = update(&mut fns, closure(&calls, &drops));
        assert_eq!(
            third, first,
            "the third closure is made in the first one's allocation"
        );
        assert_eq!(drops.load(SeqCst), 2);
        let fourth = update(&mut fns, closure(&calls, &drops));
        assert_eq!(fourth, second);
        assert_eq!(calls.load(SeqCst), 4, "each closure called, in its own box");
        assert_eq!(drops.load(SeqCst), 3);
        // SAFETY: nothing names them any more.
        unsafe { fns.free_all() };
        assert_eq!(
            drops.load(SeqCst),
            4,
            "the current closure dropped, the spare only freed"
        );
    }

    #[test]
    fn a_closure_of_another_type_never_lands_in_a_spare_of_the_old_one() {
        let (calls, drops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
        let mut fns = ExecHostFns::with_slots(3);
        update(&mut fns, closure(&calls, &drops));
        update(&mut fns, closure(&calls, &drops));
        // A bigger closure of another type: its box cannot be the spare (of the smaller one).
        let big = [7u64; 16];
        let seen = Arc::clone(&calls);
        update(&mut fns, move || {
            seen.fetch_add(u32::try_from(big.iter().sum::<u64>()).unwrap_or(0), SeqCst);
        });
        assert_eq!(calls.load(SeqCst), 2 + 112, "the big closure called whole");
        assert_eq!(drops.load(SeqCst), 2, "both small closures dropped once");
        update(&mut fns, closure(&calls, &drops));
        assert_eq!(calls.load(SeqCst), 2 + 112 + 1);
        // SAFETY: nothing names them any more.
        unsafe { fns.free_all() };
        assert_eq!(drops.load(SeqCst), 3, "each small closure dropped once");
    }

    #[test]
    fn a_panic_in_a_replaced_closure_s_drop_is_caught_and_its_allocation_still_reused() {
        struct Bomb;
        impl Drop for Bomb {
            fn drop(&mut self) {
                panic!("a host closure's drop panics");
            }
        }
        let mut fns = ExecHostFns::with_slots(3);
        let bomb = || {
            let b = Bomb;
            move || {
                let _ = &b;
            }
        };
        // A context of its own, so that no other test's panics are counted.
        let ctx = 0x7e57_0b0b;
        let first = update_in(&mut fns, ctx, bomb());
        update_in(&mut fns, ctx, bomb());
        let third = update_in(&mut fns, ctx, bomb());
        assert_eq!(
            third, first,
            "the spare is reused after its closure's drop panicked"
        );
        assert_eq!(
            crate::asynchronous::host::take_panics_of(ctx),
            2,
            "each replaced closure's panic is caught and kept for the context's next wait"
        );
        // SAFETY: nothing names them any more.
        unsafe { fns.free_all() };
        assert_eq!(crate::asynchronous::host::take_panics_of(ctx), 1);
    }
}
