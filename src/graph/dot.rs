//! The DOT output of a graph (`cuGraphDebugDotPrint`): [`Graph::write_dot`] writes the graph
//! as a Graphviz file, with the detail [`DotFlags`] asks for.

use super::owned::Graph;
use crate::asynchronous::payload::Payload;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;

bitflags::bitflags! {
    /// What [`Graph::write_dot`] writes beyond the nodes and their edges
    /// (`CUgraphDebugDot_flags`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    #[doc(alias = "CUgraphDebugDot_flags")]
    pub struct DotFlags: u32 {
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE`: every parameter the driver can print.
        const VERBOSE = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES`: each node's runtime (`cuda*`) type.
        const RUNTIME_TYPES = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS`: kernel nodes' parameters.
        const KERNEL_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS`: memcpy nodes' parameters.
        const MEMCPY_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_MEMSET_NODE_PARAMS`: memset nodes' parameters.
        const MEMSET_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_MEMSET_NODE_PARAMS;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_HOST_NODE_PARAMS`: host nodes' parameters.
        const HOST_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_HOST_NODE_PARAMS;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_EVENT_NODE_PARAMS`: event nodes' parameters.
        const EVENT_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_EVENT_NODE_PARAMS;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_ATTRIBUTES`: kernel nodes' launch attributes.
        const KERNEL_NODE_ATTRIBUTES = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_ATTRIBUTES;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES`: the node and graph handles.
        const HANDLES = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_MEM_ALLOC_NODE_PARAMS`: memory allocation nodes' parameters.
        const MEM_ALLOC_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_MEM_ALLOC_NODE_PARAMS;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_MEM_FREE_NODE_PARAMS`: memory free nodes' parameters.
        const MEM_FREE_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_MEM_FREE_NODE_PARAMS;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_EXTRA_TOPO_INFO`: the edges numbered.
        const EXTRA_TOPO_INFO = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_EXTRA_TOPO_INFO;
        /// `CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS`: conditional nodes' parameters
        /// (CUDA 12.3; an older driver refuses the flag with `CUDA_ERROR_INVALID_VALUE`).
        const CONDITIONAL_NODE_PARAMS = ffi::CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS;
    }
}

impl<P: Payload> Graph<'_, P> {
    /// `cuGraphDebugDotPrint`—Writes the graph as a DOT file at `path` (Graphviz's format:
    /// render it with `dot -Tsvg`), with the detail `flags` asks for.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (no driver call) if `path`
    /// is not valid UTF-8 or holds a NUL byte; the driver's errors (e.g. a file it cannot
    /// write).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn f(graph: &custack::graph::Graph<'_, ()>) -> custack::Result<()> {
    /// use custack::graph::DotFlags;
    /// graph.write_dot("graph.dot", DotFlags::VERBOSE)?; // then: dot -Tsvg graph.dot
    /// # Ok(()) }
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuGraphDebugDotPrint")]
    pub fn write_dot(&self, path: impl AsRef<std::path::Path>, flags: DotFlags) -> Result<()> {
        crate::error::poison::check()?;
        let path = path
            .as_ref()
            .to_str()
            .and_then(|p| std::ffi::CString::new(p).ok())
            .ok_or_else(|| {
                Error::custack(
                    ErrorKind::InvalidValue,
                    "a DOT file's path must be UTF-8 without NUL bytes".to_owned(),
                )
            })?;
        // SAFETY: a live graph; `path` is a NUL-terminated string live for the call, which
        // only reads the graph's nodes and writes the file.
        unsafe { ffi::cuGraphDebugDotPrint(self.as_raw(), path.as_ptr(), flags.bits()) }.result()
    }
}
