//! The device's graph-memory pool: the memory graphs' allocation nodes take (a stream-ordered
//! allocation captured into a graph becomes one). Its figures (`cuDeviceGetGraphMemAttribute`),
//! its high watermarks reset (`cuDeviceSetGraphMemAttribute`) and the memory it holds but no
//! graph uses given back to the OS (`cuDeviceGraphMemTrim`), on [`Device`].
//!
//! ```text
//!   device.graph_mem(GraphMem::UsedHigh)?              -> u64   cuDeviceGetGraphMemAttribute
//!   device.reset_graph_mem_high(GraphMem::UsedHigh)?            cuDeviceSetGraphMemAttribute (0)
//!   device.graph_mem_trim()?                                    cuDeviceGraphMemTrim
//! ```

use crate::driver::Device;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;

/// A figure of a device's graph-memory pool (`CUgraphMem_attribute`), in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "CUgraphMem_attribute")]
pub enum GraphMem {
    /// Associated with graphs now: an executable graph keeps the memory of its allocation
    /// nodes associated with it while it lives, freed by its free nodes or not.
    Used,
    /// The most ever [`Used`](Self::Used) since the last reset.
    UsedHigh,
    /// Reserved for graphs, in use or not.
    Reserved,
    /// The most ever [`Reserved`](Self::Reserved) since the last reset.
    ReservedHigh,
}

impl GraphMem {
    /// The driver's attribute.
    pub fn as_raw(self) -> ffi::CUgraphMem_attribute {
        match self {
            Self::Used => ffi::CUgraphMem_attribute::CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
            Self::UsedHigh => ffi::CUgraphMem_attribute::CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
            Self::Reserved => ffi::CUgraphMem_attribute::CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT,
            Self::ReservedHigh => ffi::CUgraphMem_attribute::CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
        }
    }
}

impl Device {
    /// `cuDeviceGetGraphMemAttribute`—A figure of the device's graph-memory pool, in bytes.
    ///
    /// # Errors
    ///
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuDeviceGetGraphMemAttribute")]
    pub fn graph_mem(self, figure: GraphMem) -> Result<u64> {
        crate::error::poison::check()?;
        let mut value: u64 = 0;
        // SAFETY: the device is valid (a `Device` exists only after `cuInit`); every attribute
        // of the graph-memory pool is a `cuuint64_t`, written to `value`.
        unsafe {
            ffi::cuDeviceGetGraphMemAttribute(
                self.as_raw(),
                figure.as_raw(),
                (&raw mut value).cast(),
            )
        }
        .result()?;
        Ok(value)
    }

    /// `cuDeviceSetGraphMemAttribute`—Resets a high watermark of the device's graph-memory pool
    /// ([`GraphMem::UsedHigh`] or [`GraphMem::ReservedHigh`]) to the figure it follows, by
    /// setting it to 0 (the only value the driver takes).
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
    /// ([`Profile::init`](crate::safety::Profile::init)): the profile uses no graph memory.
    /// [`ErrorKind::InvalidValue`] for [`GraphMem::Used`] or [`GraphMem::Reserved`], which only
    /// the pool sets (no driver call); the driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuDeviceSetGraphMemAttribute")]
    pub fn reset_graph_mem_high(self, watermark: GraphMem) -> Result<()> {
        crate::error::confinement::full_api("Device::reset_graph_mem_high")?;
        crate::error::poison::check()?;
        if !matches!(watermark, GraphMem::UsedHigh | GraphMem::ReservedHigh) {
            return Err(
                Error::from_kind(ErrorKind::InvalidValue).with_detail(format!(
                    "{watermark:?} is no high watermark: only UsedHigh and ReservedHigh are reset"
                )),
            );
        }
        let mut zero: u64 = 0;
        // SAFETY: the device is valid; the value is the `cuuint64_t` 0, read by the driver.
        unsafe {
            ffi::cuDeviceSetGraphMemAttribute(
                self.as_raw(),
                watermark.as_raw(),
                (&raw mut zero).cast(),
            )
        }
        .result()
    }

    /// `cuDeviceGraphMemTrim`—Gives the memory the device's graph-memory pool reserves but no
    /// graph uses back to the OS. Memory of an executable graph that still lives, or of an
    /// allocation not yet freed, stays.
    ///
    /// # Errors
    ///
    /// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
    /// ([`Profile::init`](crate::safety::Profile::init)): the profile uses no graph memory.
    /// The driver's errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html>
    #[doc(alias = "cuDeviceGraphMemTrim")]
    pub fn graph_mem_trim(self) -> Result<()> {
        crate::error::confinement::full_api("Device::graph_mem_trim")?;
        crate::error::poison::check()?;
        // SAFETY: the device is valid; the call touches only the driver's own pool.
        unsafe { ffi::cuDeviceGraphMemTrim(self.as_raw()) }.result()
    }
}
