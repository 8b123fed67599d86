//! Work on the device's data that a stream runs (`DataOp`): copies and memsets, which move
//! bytes in `data.rs`, and kernel launches, whose CPU stand-ins (`standin.rs`) run. `check.rs`
//! runs each when it is enqueued, or keeps it in a capture and runs it at each launch of the
//! graph.

use crate::mode::data_violation;
use crate::{data, standin};

/// Work on the device's data, done when enqueued, or kept by a capture and done at each launch
/// of its graph.
#[derive(Clone)]
pub(crate) enum DataOp {
    /// A copy from host memory (read when the work runs).
    FromHost {
        dst: u64,
        src: *const u8,
        bytes: usize,
    },
    /// A copy between device addresses.
    Copy { dst: u64, src: u64, bytes: usize },
    /// A memset: `count` elements of the pattern's width.
    Fill {
        dst: u64,
        pattern: Vec<u8>,
        count: usize,
    },
    /// A kernel launch: its stand-in runs.
    Launch(standin::Launch),
    /// A host node: `f(data)`, on the thread that runs the work.
    HostFn {
        f: unsafe extern "C" fn(*mut core::ffi::c_void),
        data: *mut core::ffi::c_void,
    },
}

// SAFETY: the host pointer of `FromHost` is read only when the work runs, as the device would
// read it, from whichever thread runs it; the program promised it valid until then. A
// `HostFn`'s function and argument are called from whichever thread runs the work, as the
// driver's own thread would call them.
unsafe impl Send for DataOp {}

impl DataOp {
    /// Does the work; a fault is recorded as a violation of `what`. Returns the driver result
    /// (non-zero: a stand-in failed).
    pub(crate) fn run(&self, what: &str) -> i32 {
        let r = match self {
            // SAFETY: the enqueuing program promised `src` valid for `bytes` until the copy
            // completes, and it has not completed before it ran.
            DataOp::FromHost { dst, src, bytes } => unsafe { data::from_host(*dst, *src, *bytes) },
            DataOp::Copy { dst, src, bytes } => data::copy(*dst, *src, *bytes),
            DataOp::Fill {
                dst,
                pattern,
                count,
            } => data::fill(*dst, pattern, *count).map(drop),
            DataOp::Launch(l) => return standin::run(l).err().unwrap_or(0),
            DataOp::HostFn { f, data } => {
                // SAFETY: the function and argument the program gave `cuGraphAddHostNode`,
                // which it keeps valid (a user object of the graph) while the graph launches.
                crate::callback::in_callback(|| unsafe { f(*data) });
                Ok(())
            }
        };
        match r {
            Ok(()) => 0,
            Err(e) => {
                data_violation(what, &e);
                0
            }
        }
    }
}
