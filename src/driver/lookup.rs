//! Entry points newer than the linked baseline (driver 535, CUDA 12.2), reached through the
//! driver's own `cuGetProcAddress_v2` rather than linked or loaded with `dlopen`.
//!
//! Each is resolved on first use, once per process, and cached in a [`OnceLock`]: after that a
//! use costs one atomic load, no lock. On a driver older than the entry point's CUDA version the
//! use is an [`ErrorKind::DriverTooOld`] error, "needs driver ≥ X.Y (this driver: A.B)",
//! decided from `cuDriverGetVersion` without asking for the symbol. [`newer_entry_points`] says
//! which of them this driver offers.

use crate::driver::version::{Version, driver_version};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::ffi::{CStr, c_int, c_void};
use std::sync::OnceLock;

/// An entry point looked up by name, with the CUDA version that introduced it.
pub(crate) struct Lookup<F: Copy + 'static> {
    /// The name `cuGetProcAddress_v2` takes: the unversioned one (`cuCtxCreate`), whose ABI
    /// `version` selects (`cuCtxCreate_v4` at 12.5).
    symbol: &'static CStr,
    /// The name custack reports (the versioned one where it differs).
    name: &'static str,
    version: c_int,
    // Set once the answer is known for good: the pointer, or `None` (too old, or not found).
    // A lookup that failed for a reason that may pass (no `cuInit` yet) is not cached.
    cell: OnceLock<Option<F>>,
}

impl<F: Copy + 'static> Lookup<F> {
    /// An entry point whose versioned and unversioned names are the same.
    pub(crate) const fn new(name: &'static CStr, version: c_int) -> Self {
        Self::versioned(name, name, version)
    }

    /// An entry point looked up as `symbol` at `version`, reported as `name`.
    pub(crate) const fn versioned(
        name: &'static CStr,
        symbol: &'static CStr,
        version: c_int,
    ) -> Self {
        let name = match name.to_str() {
            Ok(name) => name,
            Err(_) => "?",
        };
        Self {
            symbol,
            name,
            version,
            cell: OnceLock::new(),
        }
    }

    /// The function pointer, resolving it on first use.
    #[inline]
    pub(crate) fn get(&self) -> Result<F> {
        match self.cell.get() {
            Some(Some(f)) => Ok(*f),
            _ => self.resolve(),
        }
    }

    /// The entry point's name (without the NUL).
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// The CUDA version that introduced it.
    pub(crate) fn version(&self) -> Version {
        Version::from_raw(self.version as u32)
    }

    #[cold]
    #[inline(never)]
    fn resolve(&self) -> Result<F> {
        const {
            assert!(size_of::<F>() == size_of::<*mut c_void>());
        }
        let driver = driver_version()?;
        if driver < self.version() {
            let _ = self.cell.set(None);
            return Err(self.too_old(driver));
        }
        let mut pfn: *mut c_void = core::ptr::null_mut();
        let mut status = ffi::CU_GET_PROC_ADDRESS_SUCCESS;
        // SAFETY: `symbol` is NUL-terminated; both out-pointers are valid.
        unsafe {
            ffi::cuGetProcAddress_v2(
                self.symbol.as_ptr(),
                &raw mut pfn,
                self.version,
                ffi::CU_GET_PROC_ADDRESS_DEFAULT,
                &raw mut status,
            )
        }
        .result()?;
        if status != ffi::CU_GET_PROC_ADDRESS_SUCCESS || pfn.is_null() {
            let _ = self.cell.set(None);
            return Err(Error::custack(
                ErrorKind::DriverTooOld,
                format!(
                    "{} (CUDA {}): cuGetProcAddress_v2 did not find it (status {status}) in driver {driver}",
                    self.name(),
                    self.version()
                ),
            ));
        }
        // SAFETY: the driver returned the entry point `symbol` for API version `version`,
        // whose C signature is `F` (declared from cuda.h in `ffi::entry_point`); function
        // pointers and data pointers have the same size here (checked above).
        let f = unsafe { core::mem::transmute_copy::<*mut c_void, F>(&pfn) };
        let _ = self.cell.set(Some(f));
        Ok(f)
    }

    fn too_old(&self, driver: Version) -> Error {
        Error::custack(
            ErrorKind::DriverTooOld,
            format!(
                "{} needs driver ≥ {} (this driver: {driver})",
                self.name(),
                self.version()
            ),
        )
    }
}

/// The driver-log callback's registration (`crate::error::driver_log`).
pub(crate) static LOGS_REGISTER_CALLBACK: Lookup<ffi::PFN_cuLogsRegisterCallback> = Lookup::new(
    c"cuLogsRegisterCallback",
    ffi::PFN_cuLogsRegisterCallback_VERSION,
);

pub(crate) static FUNC_GET_PARAM_INFO: Lookup<ffi::PFN_cuFuncGetParamInfo> =
    Lookup::new(c"cuFuncGetParamInfo", ffi::PFN_cuFuncGetParamInfo_VERSION);
/// Loading a function now, where the driver loads lazily (the restricted profile's init phase).
pub(crate) static FUNC_LOAD: Lookup<ffi::PFN_cuFuncLoad> =
    Lookup::new(c"cuFuncLoad", ffi::PFN_cuFuncLoad_VERSION);
pub(crate) static FUNC_GET_PARAM_COUNT: Lookup<ffi::PFN_cuFuncGetParamCount> =
    Lookup::new(c"cuFuncGetParamCount", ffi::PFN_cuFuncGetParamCount_VERSION);
pub(crate) static CTX_CREATE_V4: Lookup<ffi::PFN_cuCtxCreate_v4> = Lookup::versioned(
    c"cuCtxCreate_v4",
    c"cuCtxCreate",
    ffi::PFN_cuCtxCreate_v4_VERSION,
);
pub(crate) static CTX_RECORD_EVENT: Lookup<ffi::PFN_cuCtxRecordEvent> =
    Lookup::new(c"cuCtxRecordEvent", ffi::PFN_cuCtxRecordEvent_VERSION);
pub(crate) static CTX_WAIT_EVENT: Lookup<ffi::PFN_cuCtxWaitEvent> =
    Lookup::new(c"cuCtxWaitEvent", ffi::PFN_cuCtxWaitEvent_VERSION);

pub(crate) static DEVICE_GET_DEV_RESOURCE: Lookup<ffi::PFN_cuDeviceGetDevResource> = Lookup::new(
    c"cuDeviceGetDevResource",
    ffi::PFN_cuDeviceGetDevResource_VERSION,
);
pub(crate) static CTX_GET_DEV_RESOURCE: Lookup<ffi::PFN_cuCtxGetDevResource> =
    Lookup::new(c"cuCtxGetDevResource", ffi::PFN_cuCtxGetDevResource_VERSION);
pub(crate) static DEV_SM_RESOURCE_SPLIT_BY_COUNT: Lookup<ffi::PFN_cuDevSmResourceSplitByCount> =
    Lookup::new(
        c"cuDevSmResourceSplitByCount",
        ffi::PFN_cuDevSmResourceSplitByCount_VERSION,
    );
pub(crate) static DEV_RESOURCE_GENERATE_DESC: Lookup<ffi::PFN_cuDevResourceGenerateDesc> =
    Lookup::new(
        c"cuDevResourceGenerateDesc",
        ffi::PFN_cuDevResourceGenerateDesc_VERSION,
    );
pub(crate) static GREEN_CTX_CREATE: Lookup<ffi::PFN_cuGreenCtxCreate> =
    Lookup::new(c"cuGreenCtxCreate", ffi::PFN_cuGreenCtxCreate_VERSION);
pub(crate) static GREEN_CTX_DESTROY: Lookup<ffi::PFN_cuGreenCtxDestroy> =
    Lookup::new(c"cuGreenCtxDestroy", ffi::PFN_cuGreenCtxDestroy_VERSION);
pub(crate) static CTX_FROM_GREEN_CTX: Lookup<ffi::PFN_cuCtxFromGreenCtx> =
    Lookup::new(c"cuCtxFromGreenCtx", ffi::PFN_cuCtxFromGreenCtx_VERSION);
pub(crate) static GREEN_CTX_STREAM_CREATE: Lookup<ffi::PFN_cuGreenCtxStreamCreate> = Lookup::new(
    c"cuGreenCtxStreamCreate",
    ffi::PFN_cuGreenCtxStreamCreate_VERSION,
);

pub(crate) static MODULE_GET_FUNCTION_COUNT: Lookup<ffi::PFN_cuModuleGetFunctionCount> =
    Lookup::new(
        c"cuModuleGetFunctionCount",
        ffi::PFN_cuModuleGetFunctionCount_VERSION,
    );
pub(crate) static MODULE_ENUMERATE_FUNCTIONS: Lookup<ffi::PFN_cuModuleEnumerateFunctions> =
    Lookup::new(
        c"cuModuleEnumerateFunctions",
        ffi::PFN_cuModuleEnumerateFunctions_VERSION,
    );
pub(crate) static FUNC_GET_NAME: Lookup<ffi::PFN_cuFuncGetName> =
    Lookup::new(c"cuFuncGetName", ffi::PFN_cuFuncGetName_VERSION);

/// Adds a node of any type (custack: conditional nodes), as CUDA 12.2 declared it.
pub(crate) static GRAPH_ADD_NODE: Lookup<ffi::PFN_cuGraphAddNode> =
    Lookup::new(c"cuGraphAddNode", ffi::PFN_cuGraphAddNode_VERSION);
/// A conditional node's handle (`crate::graph::conditional`).
pub(crate) static GRAPH_CONDITIONAL_HANDLE_CREATE: Lookup<ffi::PFN_cuGraphConditionalHandleCreate> =
    Lookup::new(
        c"cuGraphConditionalHandleCreate",
        ffi::PFN_cuGraphConditionalHandleCreate_VERSION,
    );

/// A capture into an existing graph (`GraphBuilder::capture`).
pub(crate) static STREAM_BEGIN_CAPTURE_TO_GRAPH: Lookup<ffi::PFN_cuStreamBeginCaptureToGraph> =
    Lookup::new(
        c"cuStreamBeginCaptureToGraph",
        ffi::PFN_cuStreamBeginCaptureToGraph_VERSION,
    );

/// A batch of copies in one call (`crate::asynchronous::batch`), with CUDA 12.8's signature
/// (`failIdx`): asked for at 12080, so a CUDA 13 driver returns that ABI, not `_v2`'s.
pub(crate) static MEMCPY_BATCH_ASYNC: Lookup<ffi::PFN_cuMemcpyBatchAsync> =
    Lookup::new(c"cuMemcpyBatchAsync", ffi::PFN_cuMemcpyBatchAsync_VERSION);
/// A batch of 3D copies in one call (`crate::texture::batch`), with CUDA 12.8's signature
/// (`failIdx`): asked for at 12080, so a CUDA 13 driver returns that ABI, not `_v2`'s.
pub(crate) static MEMCPY_3D_BATCH_ASYNC: Lookup<ffi::PFN_cuMemcpy3DBatchAsync> = Lookup::new(
    c"cuMemcpy3DBatchAsync",
    ffi::PFN_cuMemcpy3DBatchAsync_VERSION,
);
/// Batched prefetches of managed memory (`crate::asynchronous::managed_batch`), CUDA 13.0.
pub(crate) static MEM_PREFETCH_BATCH_ASYNC: Lookup<ffi::PFN_cuMemPrefetchBatchAsync> = Lookup::new(
    c"cuMemPrefetchBatchAsync",
    ffi::PFN_cuMemPrefetchBatchAsync_VERSION,
);
/// Batched discards of managed memory, CUDA 13.0.
pub(crate) static MEM_DISCARD_BATCH_ASYNC: Lookup<ffi::PFN_cuMemDiscardBatchAsync> = Lookup::new(
    c"cuMemDiscardBatchAsync",
    ffi::PFN_cuMemDiscardBatchAsync_VERSION,
);
/// Batched discards with prefetches of managed memory, CUDA 13.0.
pub(crate) static MEM_DISCARD_AND_PREFETCH_BATCH_ASYNC: Lookup<
    ffi::PFN_cuMemDiscardAndPrefetchBatchAsync,
> = Lookup::new(
    c"cuMemDiscardAndPrefetchBatchAsync",
    ffi::PFN_cuMemDiscardAndPrefetchBatchAsync_VERSION,
);

/// An entry point custack looks up rather than links, and whether this driver offers it.
#[derive(Debug)]
#[doc(alias = "cuGetProcAddress")]
pub struct EntryPointStatus {
    /// The driver API name, e.g. `"cuCtxRecordEvent"`.
    pub name: &'static str,
    /// The CUDA version that introduced it.
    pub needs: Version,
    /// `Ok` if this driver offers it; otherwise why not
    /// ([`ErrorKind::DriverTooOld`]: "needs driver ≥ X.Y (this driver: A.B)").
    pub available: Result<()>,
}

/// The entry points custack reaches through `cuGetProcAddress_v2` (newer than driver 535), and
/// whether this driver offers each: a diagnostic, and what the API that uses them will answer.
///
/// Works before [`Driver::init`](crate::Driver::init) on an older driver (the version decides);
/// on a newer one the lookup itself needs the driver initialized.
///
/// ```no_run
/// for entry in custack::newer_entry_points() {
///     match entry.available {
///         Ok(()) => println!("{}: available", entry.name),
///         Err(e) => println!("{}: {e}", entry.name),
///     }
/// }
/// ```
///
/// # References
///
/// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DRIVER__ENTRY__POINT.html>
#[doc(alias = "cuGetProcAddress")]
pub fn newer_entry_points() -> Vec<EntryPointStatus> {
    fn status<F: Copy + 'static>(l: &Lookup<F>) -> EntryPointStatus {
        EntryPointStatus {
            name: l.name(),
            needs: l.version(),
            available: l.get().map(drop),
        }
    }
    vec![
        status(&FUNC_GET_PARAM_INFO),
        status(&FUNC_GET_PARAM_COUNT),
        status(&CTX_CREATE_V4),
        status(&CTX_RECORD_EVENT),
        status(&CTX_WAIT_EVENT),
        status(&DEVICE_GET_DEV_RESOURCE),
        status(&CTX_GET_DEV_RESOURCE),
        status(&DEV_SM_RESOURCE_SPLIT_BY_COUNT),
        status(&DEV_RESOURCE_GENERATE_DESC),
        status(&GREEN_CTX_CREATE),
        status(&GREEN_CTX_DESTROY),
        status(&CTX_FROM_GREEN_CTX),
        status(&GREEN_CTX_STREAM_CREATE),
        status(&LOGS_REGISTER_CALLBACK),
        status(&MODULE_GET_FUNCTION_COUNT),
        status(&MODULE_ENUMERATE_FUNCTIONS),
        status(&FUNC_GET_NAME),
        status(&FUNC_LOAD),
        status(&GRAPH_ADD_NODE),
        status(&GRAPH_CONDITIONAL_HANDLE_CREATE),
        status(&STREAM_BEGIN_CAPTURE_TO_GRAPH),
        status(&MEMCPY_BATCH_ASYNC),
        status(&MEMCPY_3D_BATCH_ASYNC),
        status(&MEM_PREFETCH_BATCH_ASYNC),
        status(&MEM_DISCARD_BATCH_ASYNC),
        status(&MEM_DISCARD_AND_PREFETCH_BATCH_ASYNC),
    ]
}
