//! User objects (`cuUserObjectCreate`) and the references graphs and executable graphs hold
//! to them, as the driver keeps them: a graph's references are copied to each executable graph
//! made from it and to each clone, an update replaces an executable graph's with the new
//! graph's, a child graph node copies the child's to its parent, and a destroyed graph or
//! executable graph drops its own. When an object's last reference goes, its destructor runs
//! (here at once, on the calling thread: the double's launches are complete when they return).
//! Kept whether or not the double is checking, so a destructor always runs and a program's
//! memory is not leaked under Miri.

use core::ffi::c_void;
use std::collections::HashMap;
use std::sync::Mutex;

type Destroy = unsafe extern "C" fn(*mut c_void);

/// The pointer a user object owns, passed back to its destructor only.
#[derive(Clone, Copy)]
struct Ptr(*mut c_void);

// SAFETY: the double never reads through it: it is handed to the object's destructor once,
// which the program made to run on any thread (the driver runs destructors on its own).
unsafe impl Send for Ptr {}

#[derive(Default)]
struct Objects {
    /// Each live object: its pointer, destructor and reference count.
    live: HashMap<usize, (Ptr, Destroy, u32)>,
    /// The references each graph or executable graph holds, one entry per reference.
    held: HashMap<usize, Vec<usize>>,
}

static OBJECTS: Mutex<Option<Objects>> = Mutex::new(None);

fn with<R>(f: impl FnOnce(&mut Objects) -> R) -> R {
    let mut g = OBJECTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(g.get_or_insert_with(Objects::default))
}

/// Drops `count` references to `object`; returns the destructor to run if that was the last.
fn release_locked(o: &mut Objects, object: usize, count: u32) -> Option<(Ptr, Destroy)> {
    let entry = o.live.get_mut(&object)?;
    entry.2 = entry.2.saturating_sub(count);
    if entry.2 > 0 {
        return None;
    }
    o.live
        .remove(&object)
        .map(|(ptr, destroy, _)| (ptr, destroy))
}

/// Runs the destructors, outside the lock (a destructor may call back into the double).
fn run(destroyed: Vec<(Ptr, Destroy)>) {
    for (ptr, destroy) in destroyed {
        // SAFETY: the destructor and pointer the program gave `cuUserObjectCreate`, called
        // once, when the object's last reference went.
        crate::callback::in_callback(|| unsafe { destroy(ptr.0) });
    }
}

/// `cuUserObjectCreate`: object `object` owns `ptr`, with `count` references of the caller's.
pub(crate) fn created(object: usize, ptr: *mut c_void, destroy: Destroy, count: u32) {
    with(|o| o.live.insert(object, (Ptr(ptr), destroy, count)));
}

/// `cuUserObjectRelease`: `count` of the caller's references go. False: no such object.
pub(crate) fn released(object: usize, count: u32) -> bool {
    let (known, destroyed) = with(|o| {
        let known = o.live.contains_key(&object);
        (known, release_locked(o, object, count))
    });
    run(destroyed.into_iter().collect());
    known
}

/// `cuGraphRetainUserObject`: `graph` holds `count` more references (moved from the caller's
/// or new). False: no such object.
pub(crate) fn retained(graph: usize, object: usize, count: u32, moved: bool) -> bool {
    with(|o| {
        let Some(entry) = o.live.get_mut(&object) else {
            return false;
        };
        if !moved {
            entry.2 += count;
        }
        let held = o.held.entry(graph).or_default();
        held.extend(core::iter::repeat_n(object, count as usize));
        true
    })
}

/// `to` (an executable graph made from `from`, a clone of it, or a parent of the child graph
/// `from`) holds references of its own to every object `from` holds; `replace` drops what
/// `to` held before (an executable graph updated from `from`).
pub(crate) fn copied(from: usize, to: usize, replace: bool) {
    let destroyed = with(|o| {
        let refs = o.held.get(&from).cloned().unwrap_or_default();
        for object in &refs {
            if let Some(entry) = o.live.get_mut(object) {
                entry.2 += 1;
            }
        }
        let old = if replace {
            o.held.remove(&to).unwrap_or_default()
        } else {
            Vec::new()
        };
        o.held.entry(to).or_default().extend(refs);
        old.into_iter()
            .filter_map(|object| release_locked(o, object, 1))
            .collect::<Vec<_>>()
    });
    run(destroyed);
}

/// `owner`, a graph or executable graph, was destroyed: its references go.
pub(crate) fn owner_destroyed(owner: usize) {
    let destroyed = with(|o| {
        let refs = o.held.remove(&owner).unwrap_or_default();
        refs.into_iter()
            .filter_map(|object| release_locked(o, object, 1))
            .collect::<Vec<_>>()
    });
    run(destroyed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

    static DESTROYED: AtomicU32 = AtomicU32::new(0);

    unsafe extern "C" fn count(data: *mut c_void) {
        // SAFETY: the box `references_follow_graphs_and_the_last_one_destroys` made.
        drop(unsafe { Box::from_raw(data.cast::<u32>()) });
        DESTROYED.fetch_add(1, SeqCst);
    }

    /// The driver's rule: a graph's references are copied to an executable graph and a clone,
    /// an update replaces the executable graph's, and the destructor runs once, at the last.
    #[test]
    fn references_follow_graphs_and_the_last_one_destroys() {
        let (object, other) = (0x7000_0001, 0x7000_0002);
        let (graph, clone, exec, newer) = (0x7100_0001, 0x7100_0002, 0x7100_0003, 0x7100_0004);
        created(object, Box::into_raw(Box::new(1u32)).cast(), count, 1);
        assert!(retained(graph, object, 1, true));
        created(other, Box::into_raw(Box::new(2u32)).cast(), count, 1);
        assert!(retained(newer, other, 1, true));
        copied(graph, clone, false);
        copied(graph, exec, false);
        owner_destroyed(graph);
        owner_destroyed(clone);
        assert_eq!(
            DESTROYED.load(SeqCst),
            0,
            "the executable graph still holds it"
        );
        copied(newer, exec, true);
        assert_eq!(
            DESTROYED.load(SeqCst),
            1,
            "the update dropped the old object's last reference"
        );
        owner_destroyed(newer);
        assert_eq!(DESTROYED.load(SeqCst), 1);
        owner_destroyed(exec);
        assert_eq!(DESTROYED.load(SeqCst), 2);
        assert!(!released(object, 1), "a destroyed object is unknown");
    }
}
