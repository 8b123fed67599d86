//! The record of an executable graph's kept allocations (allocation nodes no free node frees,
//! made by `GraphBuilder::alloc_kept`): per allocation, its memory and element type, and
//! whether a launch made it and nobody took it since. Every launch sets that mark, the take
//! (`GraphExec::take_kept`) clears it; a launch while one is set is refused before the driver
//! (which would fail it: the memory's address is fixed, so it cannot be made twice).

use crate::error::left_behind::{Object, left_behind};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::free_device_in_drop;
use crate::vocabulary::plain::DeviceCopy;
use core::any::TypeId;
use core::cell::Cell;

/// One allocation a graph keeps: its memory (fixed when its node was made) and element type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeptAlloc {
    pub(crate) ptr: ffi::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) elem: TypeId,
    pub(crate) elem_name: &'static str,
}

/// The kept allocations of an executable graph, each with whether a launch made it and it
/// was not taken since (set by every launch, cleared by the take). Boxed in the executable
/// graph, so that the graph's launches (`ScopedGraph`) reach it
/// wherever the executable graph moves.
#[derive(Debug)]
pub(crate) struct Kept {
    allocs: Vec<(KeptAlloc, Cell<bool>)>,
    /// Instantiated with `AUTO_FREE_ON_LAUNCH`: a launch frees what the previous one left.
    auto_free: bool,
}

impl Kept {
    /// How many allocations the graph keeps.
    pub(crate) fn len(&self) -> usize {
        self.allocs.len()
    }

    /// Takes kept allocation `k` as elements of `T`: its address and length, once per launch.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (nothing taken) if there is no allocation `k`, if its element
    /// type is not `T`, or if no launch made it since it was last taken.
    pub(crate) fn take<T: DeviceCopy>(&self, k: usize) -> Result<(ffi::CUdeviceptr, usize)> {
        let refuse = |what: String| Error::custack(ErrorKind::InvalidValue, what);
        let (a, made) = self
            .allocs
            .get(k)
            .ok_or_else(|| refuse(format!("the graph keeps no allocation {k}")))?;
        if a.elem != TypeId::of::<T>() {
            return Err(refuse(format!(
                "kept allocation {k} holds {}, not {}",
                a.elem_name,
                core::any::type_name::<T>()
            )));
        }
        if !made.replace(false) {
            return Err(refuse(format!(
                "kept allocation {k} was not made by a launch since it was last taken"
            )));
        }
        Ok((a.ptr, a.len))
    }

    /// The kept allocations of a graph instantiated with `flags`; `None` if there are none.
    pub(crate) fn of(allocs: Vec<KeptAlloc>, flags: u64) -> Option<Box<Self>> {
        if allocs.is_empty() {
            return None;
        }
        Some(Box::new(Self {
            allocs: allocs.into_iter().map(|a| (a, Cell::new(false))).collect(),
            auto_free: flags & ffi::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH != 0,
        }))
    }

    /// Refuses a launch that would make an allocation a previous launch made and nobody took
    /// (the driver fails it with `CUDA_ERROR_INVALID_VALUE`; with `AUTO_FREE_ON_LAUNCH` the
    /// launch frees it first), and a launch inside a capture's closure (no allocation would be
    /// made, so nothing could be taken).
    pub(crate) fn before_launch(&self) -> Result<()> {
        super::refuse_inside_capture("a launch of a graph that keeps allocations")?;
        if !self.auto_free && self.allocs.iter().any(|(_, made)| made.get()) {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a graph launched again before the allocations its previous launch kept are \
                 taken (`GraphExec::take_kept`)"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// A launch was enqueued: it makes every kept allocation.
    pub(crate) fn launched(&self) {
        for (_, made) in &self.allocs {
            made.set(true);
        }
    }

    /// Frees, in a drop, every allocation a launch made and nobody took (the current context's;
    /// no launch pending).
    pub(crate) fn free_untaken_in_drop(&self) {
        for (a, made) in &self.allocs {
            if made.replace(false) {
                // SAFETY: memory a completed launch of the graph allocated and nobody took
                // (`made`), of the current context, which the driver frees with `cuMemFree`;
                // freed once (`made` cleared), and no launch is pending (the caller's).
                unsafe { free_device_in_drop(a.ptr) };
            }
        }
    }

    /// Names every allocation a launch made and nobody took as left behind on purpose (its
    /// executable graph is, too).
    pub(crate) fn left_behind(&self) {
        for (a, made) in &self.allocs {
            if made.get() {
                left_behind(Object::DeviceMemory, a.ptr);
            }
        }
    }
}
