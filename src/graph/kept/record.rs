//! The record of an executable graph's kept allocations (allocation nodes no free node frees,
//! made by `GraphBuilder::alloc_kept`, `mod.rs`): per allocation, its memory and element type,
//! and whether a launch made it and nobody took it since. Every launch sets that mark, the take
//! (`GraphExec::take_kept`) clears it; a launch while one is set is refused before the driver
//! (which would fail it: the memory's address is fixed, so it cannot be made twice).
//!
//! Such a graph is never instantiated with `AUTO_FREE_ON_LAUNCH` (nor `DEVICE_LAUNCH`):
//! [`refuse_instantiate_flags`], which every instantiation of one calls before the driver. The
//! taken buffer borrows the executable graph, but safe code can end that borrow while the
//! buffer lives (parked, moved into a parked submission or into another graph's payload, or
//! leaked with `mem::forget`); without the flag, the driver itself refuses any launch while an
//! allocation of the previous launch is unfreed, so no relaunch frees or makes again memory
//! that a value of the program owns, whatever became of that value.
//!
//! The record sits below the graph and its executable form (`owned.rs`), which keep it and
//! launch through it; the methods that make and take kept allocations sit above both
//! (`mod.rs`).

use crate::asynchronous::refuse_inside_capture;
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
}

/// Refuses, before the driver, the instantiation flags an executable graph of a graph that keeps
/// allocations must not have:
///
/// - `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`: each launch would free what the previous
///   one made and make it again at the same address, also memory the program took and still
///   owns through a value whose borrow of the executable graph ended (parked, moved into a
///   parked submission or graph, leaked). Without it, the driver refuses such a launch (see
///   [`Kept::before_launch`]);
/// - `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`: a launch from the device would pass by this
///   record (the marks only host launches set), and the driver takes for device launch only
///   graphs of kernel, memcpy and memset nodes.
///
/// # Errors
///
/// [`ErrorKind::InvalidValue`] (custack's, no driver code) naming the flag and why.
pub(crate) fn refuse_instantiate_flags(flags: u64) -> Result<()> {
    if flags & ffi::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH != 0 {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            "a graph that keeps allocations (GraphBuilder::alloc_kept) is not instantiated with \
             AUTO_FREE_ON_LAUNCH: a relaunch would free and make again, at the same address, \
             memory the program took (GraphExec::take_kept) and may still own through a \
             parked, moved or leaked buffer; without the flag the driver refuses that relaunch"
                .to_owned(),
        ));
    }
    if flags & ffi::CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH != 0 {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            "a graph that keeps allocations (GraphBuilder::alloc_kept) is not instantiated with \
             DEVICE_LAUNCH: a launch from the device would pass by the record of what each \
             launch made, and the driver launches from the device only graphs of kernel, \
             memcpy and memset nodes"
                .to_owned(),
        ));
    }
    Ok(())
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
        let (a, made) = self.get::<T>(k)?;
        if !made.replace(false) {
            return Err(refused(format!(
                "kept allocation {k} was not made by a launch since it was last taken"
            )));
        }
        Ok((a.ptr, a.len))
    }

    /// Kept allocation `k` as elements of `T`, with its mark (made by a launch and not taken).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] if there is no allocation `k` or its element type is not `T`.
    pub(crate) fn get<T: DeviceCopy>(&self, k: usize) -> Result<(&KeptAlloc, &Cell<bool>)> {
        let (a, made) = self
            .allocs
            .get(k)
            .ok_or_else(|| refused(format!("the graph keeps no allocation {k}")))?;
        typed::<T>(a, k)?;
        Ok((a, made))
    }

    /// Which kept allocation a taken buffer of `len` elements of `T` at `ptr` is, for its free
    /// in stream order: its number, if the memory is exactly one of this graph's kept
    /// allocations, of element type `T`, and taken (its mark clear: no launch made it since the
    /// take, so the buffer is its one owner).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] naming why otherwise.
    pub(crate) fn taken<T: DeviceCopy>(&self, ptr: ffi::CUdeviceptr, len: usize) -> Result<usize> {
        let (k, (a, made)) = self
            .allocs
            .iter()
            .enumerate()
            .find(|(_, (a, _))| a.ptr == ptr)
            .ok_or_else(|| {
                refused(format!(
                    "device memory {ptr:#x} is none of this executable graph's kept allocations"
                ))
            })?;
        typed::<T>(a, k)?;
        if a.len != len {
            return Err(refused(format!(
                "kept allocation {k} holds {} elements, the buffer {len}",
                a.len
            )));
        }
        if made.get() {
            return Err(refused(format!(
                "kept allocation {k} is not taken (`GraphExec::take_kept`): the executable graph \
                 owns it"
            )));
        }
        Ok(k)
    }

    /// The kept allocations of a graph, instantiated without `AUTO_FREE_ON_LAUNCH` and
    /// `DEVICE_LAUNCH` ([`refuse_instantiate_flags`]); `None` if there are none.
    pub(crate) fn of(allocs: Vec<KeptAlloc>) -> Option<Box<Self>> {
        if allocs.is_empty() {
            return None;
        }
        Some(Box::new(Self {
            allocs: allocs.into_iter().map(|a| (a, Cell::new(false))).collect(),
        }))
    }

    /// Refuses a launch that would make an allocation a previous launch made and nobody took,
    /// and a launch inside a capture's closure (no allocation would be made, so nothing could
    /// be taken).
    ///
    /// An allocation taken and still alive (a buffer, parked, moved or leaked) is not marked
    /// here: the driver refuses that launch itself. `cuGraphLaunch`: "If any allocations
    /// created by `hGraphExec` remain unfreed (from a previous launch) and `hGraphExec` was not
    /// instantiated with `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`, the launch will fail
    /// with `CUDA_ERROR_INVALID_VALUE`" (CUDA Driver API, Graph Management), and no executable
    /// graph of a graph that keeps allocations has that flag ([`refuse_instantiate_flags`]).
    /// The driver knows what is allocated whatever became of the value that owns it, which a
    /// record of custack's could not: the refusal is the driver's word, checked on the GPU by
    /// the route tests of `tests/gpu_graph_build.rs`.
    /// The thread's capture mark is not the whole answer: a stream joined to another thread's
    /// capture is not marked on the thread that launches; the launch asks the stream itself
    /// ([`refuse_capturing`], `StreamScope::launch_graph`).
    pub(crate) fn before_launch(&self) -> Result<()> {
        refuse_inside_capture("a launch of a graph that keeps allocations")?;
        if self.allocs.iter().any(|(_, made)| made.get()) {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "a graph launched again before the allocations its previous launch kept are \
                 taken (`GraphExec::take_kept`)"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// A launch was enqueued (the driver returned success: only then, so that a refused or
    /// failed launch leaves every mark as it was, all clear after `before_launch`) on a stream
    /// that does not capture (`launch_graph` asks it, [`refuse_capturing`]): it makes every
    /// kept allocation. A mark set for memory a failed launch did not make would have
    /// the drop free memory nobody allocated, or another value's; a mark missed only leaks.
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

/// Refuses `what` on `stream` while it captures (`cuStreamIsCapturing`, whatever thread began
/// the capture): a free there would be a free node of the captured graph, run at each of its
/// launches; a launch there a node of it, which makes nothing now.
///
/// # Errors
///
/// [`ErrorKind::NotSupported`] naming `what`; the driver's error of `cuStreamIsCapturing`.
pub(crate) fn refuse_capturing(stream: ffi::CUstream, what: &str) -> Result<()> {
    let mut status = ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: a live stream of the current context (the caller's scope's); valid out-pointer.
    unsafe { ffi::cuStreamIsCapturing(stream, &raw mut status) }.result()?;
    if status == ffi::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
        return Ok(());
    }
    Err(Error::custack(ErrorKind::NotSupported, what.to_owned()))
}

/// custack's refusal (`InvalidValue`) of a kept allocation's take, view or free.
fn refused(what: String) -> Error {
    Error::custack(ErrorKind::InvalidValue, what)
}

/// Refuses kept allocation `k`, `a`, as elements of any type but its own.
fn typed<T: DeviceCopy>(a: &KeptAlloc, k: usize) -> Result<()> {
    if a.elem == TypeId::of::<T>() {
        return Ok(());
    }
    Err(refused(format!(
        "kept allocation {k} holds {}, not {}",
        a.elem_name,
        core::any::type_name::<T>()
    )))
}

/// Kept allocation `k` of a graph's (not yet executable) list, as elements of `T`.
///
/// # Errors
///
/// [`ErrorKind::InvalidValue`] if there is no allocation `k` or its element type is not `T`.
pub(crate) fn kept_of<T: DeviceCopy>(allocs: &[KeptAlloc], k: usize) -> Result<&KeptAlloc> {
    let a = allocs
        .get(k)
        .ok_or_else(|| refused(format!("the graph keeps no allocation {k}")))?;
    typed::<T>(a, k)?;
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_kept() -> Kept {
        let a = KeptAlloc {
            ptr: 0x1000,
            len: 4,
            elem: TypeId::of::<u32>(),
            elem_name: "u32",
        };
        *Kept::of(vec![a]).unwrap()
    }

    #[test]
    fn auto_free_and_device_launch_are_refused_for_a_graph_that_keeps_allocations() {
        for flags in [
            ffi::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,
            ffi::CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH,
            ffi::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
                | ffi::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY,
        ] {
            let e = refuse_instantiate_flags(flags).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue, "{flags:#x}");
            // custack's refusal, which says why (a driver's error has no such detail).
            let flag = if flags & ffi::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH != 0 {
                "AUTO_FREE_ON_LAUNCH"
            } else {
                "DEVICE_LAUNCH"
            };
            let said = e.detail().unwrap_or_default();
            assert!(
                said.contains(flag) && said.contains("keeps allocations"),
                "{e:?}"
            );
        }
        refuse_instantiate_flags(0).unwrap();
        refuse_instantiate_flags(ffi::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY).unwrap();
    }

    #[test]
    fn a_launch_marks_every_allocation_made_and_the_take_clears_it_once() {
        assert!(Kept::of(Vec::new()).is_none());
        let kept = one_kept();
        assert_eq!(kept.len(), 1);
        // Nothing made yet: no take; a launch may start.
        assert_eq!(
            kept.take::<u32>(0).unwrap_err().kind(),
            ErrorKind::InvalidValue
        );
        kept.before_launch().unwrap();
        kept.launched();
        // Made and not taken: the next launch is refused before the driver.
        assert_eq!(
            kept.before_launch().unwrap_err().kind(),
            ErrorKind::InvalidValue
        );
        assert_eq!(
            kept.take::<f32>(0).unwrap_err().kind(),
            ErrorKind::InvalidValue
        );
        assert_eq!(
            kept.take::<u32>(1).unwrap_err().kind(),
            ErrorKind::InvalidValue
        );
        // The refused takes left the mark: taken once, then refused.
        assert_eq!(kept.take::<u32>(0).unwrap(), (0x1000, 4));
        assert_eq!(
            kept.take::<u32>(0).unwrap_err().kind(),
            ErrorKind::InvalidValue
        );
        // Taken: custack lets the launch go to the driver, which refuses it while the taken
        // memory is unfreed (no AUTO_FREE_ON_LAUNCH).
        kept.before_launch().unwrap();
        // Nothing made and nobody's: the drop would free nothing (no driver call here).
        kept.free_untaken_in_drop();
    }

    #[test]
    fn a_free_in_stream_order_takes_only_the_graph_s_own_allocation_once_taken() {
        let kept = one_kept();
        let refused = |r: Result<usize>, says: &str| {
            let e = r.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue);
            assert!(e.detail().unwrap_or_default().contains(says), "{e:?}");
        };
        kept.before_launch().unwrap();
        kept.launched();
        // Made and not taken: the executable graph's, no buffer's.
        refused(kept.taken::<u32>(0x1000, 4), "not taken");
        assert_eq!(kept.take::<u32>(0).unwrap(), (0x1000, 4));
        // Taken: the buffer's, freed as allocation 0.
        assert_eq!(kept.taken::<u32>(0x1000, 4).unwrap(), 0);
        // Not this graph's memory, not its element type, not its length.
        refused(
            kept.taken::<u32>(0x2000, 4),
            "none of this executable graph's",
        );
        refused(kept.taken::<f32>(0x1000, 4), "holds u32");
        refused(kept.taken::<u32>(0x1000, 3), "4 elements");
        // The view's lookup: typed, and the mark as it is (clear after the take).
        let (a, made) = kept.get::<u32>(0).unwrap();
        assert_eq!((a.ptr, a.len, made.get()), (0x1000, 4, false));
        assert!(kept.get::<f32>(0).is_err() && kept.get::<u32>(1).is_err());
        assert_eq!(kept_of::<u32>(&[*a], 0).unwrap().ptr, 0x1000);
        assert!(kept_of::<f32>(&[*a], 0).is_err() && kept_of::<u32>(&[*a], 1).is_err());
    }
}
