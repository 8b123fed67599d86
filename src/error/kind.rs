//! [`ErrorKind`]: every code of CUDA 13.0 and custack's own conditions, generated from one
//! table with their names, sentences and stickiness.

use crate::ffi;

/// What every error says in a build without libcuda (`cfg(custack_no_libcuda)`), where each
/// driver call returns `CUDA_ERROR_NO_DEVICE` and the driver describes nothing.
pub(super) const NOT_LINKED: &str = "no CUDA driver: custack was built where no libcuda was found";
#[cfg(not(windows))]
const NOT_LINKED_HINT: &str = "build.rs found no libcuda.so.1 (the NVIDIA driver library), so \
     this program was built without GPU access: install the NVIDIA driver, or set \
     CUDA_DRIVER_LIB_DIR to the directory holding libcuda.so.1, and rebuild \
     (CUSTACK_REQUIRE_LIBCUDA=1 makes that a build error)";
#[cfg(windows)]
const NOT_LINKED_HINT: &str = "build.rs found no nvcuda.dll (the NVIDIA driver), so this program \
     was built without GPU access: install the NVIDIA driver and rebuild, or build with \
     CUSTACK_REQUIRE_LIBCUDA=1 to link nvcuda.dll by name for a machine that has it";

/// Generates [`ErrorKind`] and its mappings from one table, so that no code or name is written
/// twice: `Variant = CUDA_ERROR_NAME;` for the driver's codes (the value comes from the
/// `ffi::CUresult` constant of that name); `Variant = "CUSTACK_NAME", "sentence";` for
/// custack's own conditions; then each library's statuses under the cfg of its feature and its
/// status type, `Variant = STATUS_NAME, "sentence";` (the value comes from the status type's
/// constant of that name), ending with the variant for a status the table does not list. A
/// library's statuses are listed here only: its module asks [`LibraryStatus::kind`].
macro_rules! error_kinds {
    (
        driver { $( $(#[$ddoc:meta])* $dv:ident = $dc:ident; )* }
        custack { $( $(#[$cdoc:meta])* $cv:ident = $cname:literal, $sentence:literal; )* }
        library { $(
            [$cfg:meta] $status:ty {
                $( $(#[$ldoc:meta])* $lv:ident = $lc:ident, $lsentence:literal; )*
            }
            $(#[$udoc:meta])* $uv:ident = $uname:literal, $usentence:literal;
        )* }
    ) => {
        /// What went wrong, by name.
        ///
        /// One variant for every `CUresult` that CUDA 13.0's `cuda.h` defines (except
        /// `CUDA_SUCCESS`), [`Unlisted`](Self::Unlisted) for any other code (the value is kept),
        /// then custack's own conditions, which have no driver code, then the statuses of each
        /// CUDA library whose cargo feature is on (`nvrtc`, `cublas`, `nccl`, `cufft`,
        /// `curand`, `cusolver`), named after them; a build without a library's feature has none of its
        /// variants. A library error keeps the library's raw status
        /// ([`Error::library_status`](crate::Error::library_status)).
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[doc(alias = "CUresult")]
        #[doc(alias = "cudaError_enum")]
        pub enum ErrorKind {
            $( $(#[$ddoc])* $dv, )*
            /// A driver code this version of custack does not list (for example one added by a
            /// newer driver); the value is kept. `CUDA_SUCCESS` maps here as `Unlisted(0)`, which
            /// custack itself never produces.
            Unlisted(i32),
            $( $(#[$cdoc])* $cv, )*
            $(
                $( #[cfg($cfg)] $(#[$ldoc])* $lv, )*
                #[cfg($cfg)] $(#[$udoc])* $uv,
            )*
        }

        impl ErrorKind {
            /// The kind of a raw driver code.
            ///
            /// Codes that CUDA 13.0 does not define become [`Unlisted`](Self::Unlisted) with the
            /// value kept. `CUDA_SUCCESS` is not an error; custack never builds an error from it,
            /// and it maps to `Unlisted(0)`.
            pub fn from_code(code: ffi::CUresult) -> Self {
                match code {
                    $( ffi::CUresult::$dc => Self::$dv, )*
                    other => Self::Unlisted(other.0),
                }
            }

            /// The driver code of a driver kind (`Unlisted(v)` gives `v`), `None` for custack's
            /// own kinds and the libraries' (whose raw status an error keeps:
            /// [`Error::library_status`](crate::Error::library_status)).
            pub fn code(self) -> Option<ffi::CUresult> {
                match self {
                    $( Self::$dv => Some(ffi::CUresult::$dc), )*
                    Self::Unlisted(v) => Some(ffi::CUresult(v)),
                    $( Self::$cv )|* => None,
                    $(
                        $( #[cfg($cfg)] Self::$lv => None, )*
                        #[cfg($cfg)] Self::$uv => None,
                    )*
                }
            }

            /// The C name: `"CUDA_ERROR_INVALID_VALUE"` for a driver kind,
            /// `"CUDA_ERROR_UNLISTED"` for [`Unlisted`](Self::Unlisted), a `"CUSTACK_…"`
            /// name such as `"CUSTACK_STACK_ALREADY_TAKEN"` for custack's own kinds, and a
            /// library's own name for its statuses (`"CUBLAS_STATUS_NOT_SUPPORTED"`,
            /// `"ncclRemoteError"`).
            pub fn name(self) -> &'static str {
                match self {
                    $( Self::$dv => stringify!($dc), )*
                    Self::Unlisted(_) => "CUDA_ERROR_UNLISTED",
                    $( Self::$cv => $cname, )*
                    $(
                        $( #[cfg($cfg)] Self::$lv => stringify!($lc), )*
                        #[cfg($cfg)] Self::$uv => $uname,
                    )*
                }
            }

            /// The sentence `Display` shows for custack's own kinds and the libraries'; `None`
            /// for driver kinds.
            pub(super) fn custack_sentence(self) -> Option<&'static str> {
                match self {
                    $( Self::$cv => Some($sentence), )*
                    $(
                        $( #[cfg($cfg)] Self::$lv => Some($lsentence), )*
                        #[cfg($cfg)] Self::$uv => Some($usentence),
                    )*
                    _ => None,
                }
            }
        }

        $(
            #[cfg($cfg)]
            impl LibraryStatus for $status {
                const UNLISTED: ErrorKind = ErrorKind::$uv;
                fn kind(self) -> ErrorKind {
                    match self {
                        $( <$status>::$lc => ErrorKind::$lv, )*
                        _ => ErrorKind::$uv,
                    }
                }
                fn raw(self) -> i32 {
                    self.0
                }
            }
        )*

        /// Every driver kind of the table, in table order.
        #[cfg(test)]
        pub(super) const DRIVER_KINDS: &[ErrorKind] = &[ $( ErrorKind::$dv, )* ];
        /// Every custack kind of the table.
        #[cfg(test)]
        pub(super) const CUSTACK_KINDS: &[ErrorKind] = &[ $( ErrorKind::$cv, )* ];
        /// Every library kind of this build (its features' libraries), in table order.
        #[cfg(test)]
        #[allow(
            unused_mut,
            clippy::vec_init_then_push,
            reason = "each push is under its own feature's cfg"
        )]
        pub(super) fn library_kinds() -> Vec<ErrorKind> {
            let mut kinds = Vec::new();
            $(
                $( #[cfg($cfg)] kinds.push(ErrorKind::$lv); )*
                #[cfg($cfg)] kinds.push(ErrorKind::$uv);
            )*
            kinds
        }
    };
}

/// A CUDA library's status type (`cublasStatus_t`, `ncclResult_t`, …), never its success value:
/// its [`ErrorKind`] from the one table, and the raw value the error keeps.
#[cfg_attr(not(custack_libraries), allow(dead_code))]
pub(crate) trait LibraryStatus: Copy {
    /// The kind named after the status; the library's `…Unlisted` kind for a status the table
    /// does not list.
    fn kind(self) -> ErrorKind;
    /// The library's `…Unlisted` kind.
    #[cfg_attr(
        not(any(
            feature = "cublas",
            feature = "nccl",
            feature = "cufft",
            feature = "curand",
            feature = "cusparse",
            feature = "cudnn",
            feature = "cusolver"
        )),
        allow(dead_code)
    )]
    const UNLISTED: ErrorKind;
    /// The status as the library returned it.
    fn raw(self) -> i32;

    /// How the detail of a call that returned the status begins: `"{call} returned {name}
    /// ({value})"`, the status named by its kind, or by `word` (`"status"`, `"result"`) where
    /// the table does not list it.
    #[cfg_attr(
        not(any(
            feature = "cublas",
            feature = "nccl",
            feature = "cufft",
            feature = "curand",
            feature = "cusparse",
            feature = "cudnn",
            feature = "cusolver"
        )),
        allow(dead_code)
    )]
    fn returned(self, call: &str, word: &str) -> String {
        let kind = self.kind();
        let name = if kind == Self::UNLISTED {
            word
        } else {
            kind.name()
        };
        format!("{call} returned {name} ({})", self.raw())
    }
}

error_kinds! {
    driver {
        /// `CUDA_ERROR_INVALID_VALUE` (1): a parameter is not within an acceptable range of values.
        InvalidValue = CUDA_ERROR_INVALID_VALUE;
        /// `CUDA_ERROR_OUT_OF_MEMORY` (2): the driver could not allocate enough memory or other
        /// resources.
        OutOfMemory = CUDA_ERROR_OUT_OF_MEMORY;
        /// `CUDA_ERROR_NOT_INITIALIZED` (3): the driver has not been initialized with `cuInit`, or
        /// initialization failed.
        NotInitialized = CUDA_ERROR_NOT_INITIALIZED;
        /// `CUDA_ERROR_DEINITIALIZED` (4): the driver is shutting down.
        Deinitialized = CUDA_ERROR_DEINITIALIZED;
        /// `CUDA_ERROR_PROFILER_DISABLED` (5): the profiler is not initialized for this run (an
        /// external profiler is attached).
        ProfilerDisabled = CUDA_ERROR_PROFILER_DISABLED;
        /// `CUDA_ERROR_PROFILER_NOT_INITIALIZED` (6): deprecated since CUDA 5.0: profiler not
        /// initialized.
        ProfilerNotInitialized = CUDA_ERROR_PROFILER_NOT_INITIALIZED;
        /// `CUDA_ERROR_PROFILER_ALREADY_STARTED` (7): deprecated since CUDA 5.0: profiler already
        /// started.
        ProfilerAlreadyStarted = CUDA_ERROR_PROFILER_ALREADY_STARTED;
        /// `CUDA_ERROR_PROFILER_ALREADY_STOPPED` (8): deprecated since CUDA 5.0: profiler already
        /// stopped.
        ProfilerAlreadyStopped = CUDA_ERROR_PROFILER_ALREADY_STOPPED;
        /// `CUDA_ERROR_STUB_LIBRARY` (34): the loaded libcuda is a stub library, not a real driver.
        StubLibrary = CUDA_ERROR_STUB_LIBRARY;
        /// `CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER` (36): the call needs a newer CUDA driver than
        /// the one installed.
        CallRequiresNewerDriver = CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER;
        /// `CUDA_ERROR_DEVICE_UNAVAILABLE` (46): the device is unavailable now (exclusive-process
        /// or prohibited compute mode).
        DeviceUnavailable = CUDA_ERROR_DEVICE_UNAVAILABLE;
        /// `CUDA_ERROR_NO_DEVICE` (100): the driver detected no CUDA-capable device.
        NoDevice = CUDA_ERROR_NO_DEVICE;
        /// `CUDA_ERROR_INVALID_DEVICE` (101): the device ordinal is not a valid device, or the
        /// action is invalid for it.
        InvalidDevice = CUDA_ERROR_INVALID_DEVICE;
        /// `CUDA_ERROR_DEVICE_NOT_LICENSED` (102): the Grid license is not applied.
        DeviceNotLicensed = CUDA_ERROR_DEVICE_NOT_LICENSED;
        /// `CUDA_ERROR_INVALID_IMAGE` (200): the kernel image or module is invalid.
        InvalidImage = CUDA_ERROR_INVALID_IMAGE;
        /// `CUDA_ERROR_INVALID_CONTEXT` (201): no context is current, or the context handle is
        /// invalid or destroyed.
        InvalidContext = CUDA_ERROR_INVALID_CONTEXT;
        /// `CUDA_ERROR_CONTEXT_ALREADY_CURRENT` (202): deprecated since CUDA 3.2: the context is
        /// already current.
        ContextAlreadyCurrent = CUDA_ERROR_CONTEXT_ALREADY_CURRENT;
        /// `CUDA_ERROR_MAP_FAILED` (205): a map or register operation failed.
        MapFailed = CUDA_ERROR_MAP_FAILED;
        /// `CUDA_ERROR_UNMAP_FAILED` (206): an unmap or unregister operation failed.
        UnmapFailed = CUDA_ERROR_UNMAP_FAILED;
        /// `CUDA_ERROR_ARRAY_IS_MAPPED` (207): the array is mapped and cannot be destroyed.
        ArrayIsMapped = CUDA_ERROR_ARRAY_IS_MAPPED;
        /// `CUDA_ERROR_ALREADY_MAPPED` (208): the resource is already mapped.
        AlreadyMapped = CUDA_ERROR_ALREADY_MAPPED;
        /// `CUDA_ERROR_NO_BINARY_FOR_GPU` (209): no kernel image in the module suits the device.
        NoBinaryForGpu = CUDA_ERROR_NO_BINARY_FOR_GPU;
        /// `CUDA_ERROR_ALREADY_ACQUIRED` (210): the resource has already been acquired.
        AlreadyAcquired = CUDA_ERROR_ALREADY_ACQUIRED;
        /// `CUDA_ERROR_NOT_MAPPED` (211): the resource is not mapped.
        NotMapped = CUDA_ERROR_NOT_MAPPED;
        /// `CUDA_ERROR_NOT_MAPPED_AS_ARRAY` (212): the mapped resource cannot be accessed as an
        /// array.
        NotMappedAsArray = CUDA_ERROR_NOT_MAPPED_AS_ARRAY;
        /// `CUDA_ERROR_NOT_MAPPED_AS_POINTER` (213): the mapped resource cannot be accessed as a
        /// pointer.
        NotMappedAsPointer = CUDA_ERROR_NOT_MAPPED_AS_POINTER;
        /// `CUDA_ERROR_ECC_UNCORRECTABLE` (214): an uncorrectable ECC error was detected during
        /// execution (treated as sticky).
        EccUncorrectable = CUDA_ERROR_ECC_UNCORRECTABLE;
        /// `CUDA_ERROR_UNSUPPORTED_LIMIT` (215): the `CUlimit` is not supported by the device.
        UnsupportedLimit = CUDA_ERROR_UNSUPPORTED_LIMIT;
        /// `CUDA_ERROR_CONTEXT_ALREADY_IN_USE` (216): the context is already bound to another CPU
        /// thread.
        ContextAlreadyInUse = CUDA_ERROR_CONTEXT_ALREADY_IN_USE;
        /// `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` (217): peer access is not supported between the
        /// devices.
        PeerAccessUnsupported = CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
        /// `CUDA_ERROR_INVALID_PTX` (218): PTX JIT compilation failed.
        InvalidPtx = CUDA_ERROR_INVALID_PTX;
        /// `CUDA_ERROR_INVALID_GRAPHICS_CONTEXT` (219): an OpenGL or DirectX context error.
        InvalidGraphicsContext = CUDA_ERROR_INVALID_GRAPHICS_CONTEXT;
        /// `CUDA_ERROR_NVLINK_UNCORRECTABLE` (220): an uncorrectable `NVLink` error was detected
        /// during execution.
        NvlinkUncorrectable = CUDA_ERROR_NVLINK_UNCORRECTABLE;
        /// `CUDA_ERROR_JIT_COMPILER_NOT_FOUND` (221): the PTX JIT compiler library was not found.
        JitCompilerNotFound = CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
        /// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` (222): the PTX was compiled with an unsupported
        /// toolchain.
        UnsupportedPtxVersion = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
        /// `CUDA_ERROR_JIT_COMPILATION_DISABLED` (223): PTX JIT compilation is disabled.
        JitCompilationDisabled = CUDA_ERROR_JIT_COMPILATION_DISABLED;
        /// `CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY` (224): the execution affinity type is not
        /// supported by the device.
        UnsupportedExecAffinity = CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
        /// `CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC` (225): the code to JIT-compile calls
        /// `cudaDeviceSynchronize`, which is unsupported.
        UnsupportedDevsideSync = CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC;
        /// `CUDA_ERROR_CONTAINED` (226): a device exception was contained by the GPU's error
        /// containment (sticky).
        Contained = CUDA_ERROR_CONTAINED;
        /// `CUDA_ERROR_INVALID_SOURCE` (300): the device kernel source is invalid.
        InvalidSource = CUDA_ERROR_INVALID_SOURCE;
        /// `CUDA_ERROR_FILE_NOT_FOUND` (301): the file was not found.
        FileNotFound = CUDA_ERROR_FILE_NOT_FOUND;
        /// `CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND` (302): a link to a shared object failed to
        /// resolve.
        SharedObjectSymbolNotFound = CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
        /// `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED` (303): initialization of a shared object failed.
        SharedObjectInitFailed = CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
        /// `CUDA_ERROR_OPERATING_SYSTEM` (304): an operating-system call failed.
        OperatingSystem = CUDA_ERROR_OPERATING_SYSTEM;
        /// `CUDA_ERROR_INVALID_HANDLE` (400): a resource handle (stream, event, ...) is not valid.
        InvalidHandle = CUDA_ERROR_INVALID_HANDLE;
        /// `CUDA_ERROR_ILLEGAL_STATE` (401): a resource is not in a valid state for the operation.
        IllegalState = CUDA_ERROR_ILLEGAL_STATE;
        /// `CUDA_ERROR_LOSSY_QUERY` (402): introspection would discard semantically important
        /// information.
        LossyQuery = CUDA_ERROR_LOSSY_QUERY;
        /// `CUDA_ERROR_NOT_FOUND` (500): a named symbol (function, global, texture, surface) was
        /// not found.
        NotFound = CUDA_ERROR_NOT_FOUND;
        /// `CUDA_ERROR_NOT_READY` (600): asynchronous work issued earlier has not completed yet
        /// (not really an error).
        NotReady = CUDA_ERROR_NOT_READY;
        /// `CUDA_ERROR_ILLEGAL_ADDRESS` (700): a kernel accessed an invalid memory address
        /// (sticky).
        IllegalAddress = CUDA_ERROR_ILLEGAL_ADDRESS;
        /// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES` (701): the launch lacked resources (too many
        /// threads for the register count, or bad arguments).
        LaunchOutOfResources = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
        /// `CUDA_ERROR_LAUNCH_TIMEOUT` (702): the kernel ran past the watchdog timeout (sticky).
        LaunchTimeout = CUDA_ERROR_LAUNCH_TIMEOUT;
        /// `CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING` (703): the launch uses an incompatible
        /// texturing mode.
        LaunchIncompatibleTexturing = CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING;
        /// `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED` (704): peer access to the context is already
        /// enabled.
        PeerAccessAlreadyEnabled = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
        /// `CUDA_ERROR_PEER_ACCESS_NOT_ENABLED` (705): peer access was never enabled.
        PeerAccessNotEnabled = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
        /// `CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE` (708): the primary context of the device is already
        /// initialized.
        PrimaryContextActive = CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
        /// `CUDA_ERROR_CONTEXT_IS_DESTROYED` (709): the current context was destroyed, or is a
        /// primary context not yet initialized.
        ContextIsDestroyed = CUDA_ERROR_CONTEXT_IS_DESTROYED;
        /// `CUDA_ERROR_ASSERT` (710): a device-side assert triggered (sticky: the context must be
        /// destroyed).
        Assert = CUDA_ERROR_ASSERT;
        /// `CUDA_ERROR_TOO_MANY_PEERS` (711): the hardware resources for peer access are exhausted.
        TooManyPeers = CUDA_ERROR_TOO_MANY_PEERS;
        /// `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED` (712): the host memory range is already
        /// registered.
        HostMemoryAlreadyRegistered = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
        /// `CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED` (713): the host pointer is not in a registered
        /// memory range.
        HostMemoryNotRegistered = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
        /// `CUDA_ERROR_HARDWARE_STACK_ERROR` (714): a kernel hit a hardware stack error: stack
        /// corruption or overflow (sticky).
        HardwareStackError = CUDA_ERROR_HARDWARE_STACK_ERROR;
        /// `CUDA_ERROR_ILLEGAL_INSTRUCTION` (715): a kernel executed an illegal instruction
        /// (sticky).
        IllegalInstruction = CUDA_ERROR_ILLEGAL_INSTRUCTION;
        /// `CUDA_ERROR_MISALIGNED_ADDRESS` (716): a kernel loaded or stored at a misaligned address
        /// (sticky).
        MisalignedAddress = CUDA_ERROR_MISALIGNED_ADDRESS;
        /// `CUDA_ERROR_INVALID_ADDRESS_SPACE` (717): a kernel used an address outside the allowed
        /// address space (sticky).
        InvalidAddressSpace = CUDA_ERROR_INVALID_ADDRESS_SPACE;
        /// `CUDA_ERROR_INVALID_PC` (718): a kernel's program counter wrapped its address space
        /// (sticky).
        InvalidPc = CUDA_ERROR_INVALID_PC;
        /// `CUDA_ERROR_LAUNCH_FAILED` (719): an exception occurred on the device while executing a
        /// kernel (sticky).
        LaunchFailed = CUDA_ERROR_LAUNCH_FAILED;
        /// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE` (720): a cooperative launch asks for more
        /// blocks than can be resident.
        CooperativeLaunchTooLarge = CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
        /// `CUDA_ERROR_TENSOR_MEMORY_LEAK` (721): a kernel exited without freeing all its tensor
        /// memory (sticky).
        TensorMemoryLeak = CUDA_ERROR_TENSOR_MEMORY_LEAK;
        /// `CUDA_ERROR_NOT_PERMITTED` (800): the operation is not permitted.
        NotPermitted = CUDA_ERROR_NOT_PERMITTED;
        /// `CUDA_ERROR_NOT_SUPPORTED` (801): the operation is not supported on this system or
        /// device.
        NotSupported = CUDA_ERROR_NOT_SUPPORTED;
        /// `CUDA_ERROR_SYSTEM_NOT_READY` (802): the system is not ready for CUDA work (check the
        /// driver daemons).
        SystemNotReady = CUDA_ERROR_SYSTEM_NOT_READY;
        /// `CUDA_ERROR_SYSTEM_DRIVER_MISMATCH` (803): the display driver and the CUDA driver
        /// versions do not match.
        SystemDriverMismatch = CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
        /// `CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE` (804): forward compatibility is not
        /// supported on the visible hardware.
        CompatNotSupportedOnDevice = CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE;
        /// `CUDA_ERROR_MPS_CONNECTION_FAILED` (805): the MPS client failed to connect to the MPS
        /// control daemon or server.
        MpsConnectionFailed = CUDA_ERROR_MPS_CONNECTION_FAILED;
        /// `CUDA_ERROR_MPS_RPC_FAILURE` (806): a remote procedure call between the MPS server and
        /// client failed.
        MpsRpcFailure = CUDA_ERROR_MPS_RPC_FAILURE;
        /// `CUDA_ERROR_MPS_SERVER_NOT_READY` (807): the MPS server is not ready for new clients.
        MpsServerNotReady = CUDA_ERROR_MPS_SERVER_NOT_READY;
        /// `CUDA_ERROR_MPS_MAX_CLIENTS_REACHED` (808): the hardware resources for a new MPS client
        /// are exhausted.
        MpsMaxClientsReached = CUDA_ERROR_MPS_MAX_CLIENTS_REACHED;
        /// `CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED` (809): the hardware resources for device
        /// connections are exhausted.
        MpsMaxConnectionsReached = CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED;
        /// `CUDA_ERROR_MPS_CLIENT_TERMINATED` (810): the MPS server terminated this client (sticky:
        /// the process must be relaunched).
        MpsClientTerminated = CUDA_ERROR_MPS_CLIENT_TERMINATED;
        /// `CUDA_ERROR_CDP_NOT_SUPPORTED` (811): the module uses CUDA Dynamic Parallelism, which
        /// this configuration does not support.
        CdpNotSupported = CUDA_ERROR_CDP_NOT_SUPPORTED;
        /// `CUDA_ERROR_CDP_VERSION_MISMATCH` (812): the module mixes incompatible CUDA Dynamic
        /// Parallelism versions.
        CdpVersionMismatch = CUDA_ERROR_CDP_VERSION_MISMATCH;
        /// `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` (900): the operation is not permitted while the
        /// stream is capturing.
        StreamCaptureUnsupported = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        /// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` (901): the capture sequence was invalidated by
        /// an earlier error.
        StreamCaptureInvalidated = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        /// `CUDA_ERROR_STREAM_CAPTURE_MERGE` (902): the operation would merge two independent
        /// capture sequences.
        StreamCaptureMerge = CUDA_ERROR_STREAM_CAPTURE_MERGE;
        /// `CUDA_ERROR_STREAM_CAPTURE_UNMATCHED` (903): the capture was not initiated in this
        /// stream.
        StreamCaptureUnmatched = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
        /// `CUDA_ERROR_STREAM_CAPTURE_UNJOINED` (904): the capture sequence has a fork not joined
        /// to the origin stream.
        StreamCaptureUnjoined = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
        /// `CUDA_ERROR_STREAM_CAPTURE_ISOLATION` (905): a dependency would cross the capture
        /// sequence boundary.
        StreamCaptureIsolation = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
        /// `CUDA_ERROR_STREAM_CAPTURE_IMPLICIT` (906): a disallowed implicit dependency on a
        /// capture from the legacy stream.
        StreamCaptureImplicit = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
        /// `CUDA_ERROR_CAPTURED_EVENT` (907): the event was last recorded in a capturing stream.
        CapturedEvent = CUDA_ERROR_CAPTURED_EVENT;
        /// `CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD` (908): the capture was ended on another thread
        /// without relaxed capture mode.
        StreamCaptureWrongThread = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
        /// `CUDA_ERROR_TIMEOUT` (909): the wait's timeout lapsed.
        Timeout = CUDA_ERROR_TIMEOUT;
        /// `CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE` (910): the graph update violated the constraints
        /// of instantiated-graph update.
        GraphExecUpdateFailure = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
        /// `CUDA_ERROR_EXTERNAL_DEVICE` (911): a device outside CUDA signalled an error (sticky).
        ExternalDevice = CUDA_ERROR_EXTERNAL_DEVICE;
        /// `CUDA_ERROR_INVALID_CLUSTER_SIZE` (912): the kernel launch has a misconfigured cluster.
        InvalidClusterSize = CUDA_ERROR_INVALID_CLUSTER_SIZE;
        /// `CUDA_ERROR_FUNCTION_NOT_LOADED` (913): the function handle is not loaded.
        FunctionNotLoaded = CUDA_ERROR_FUNCTION_NOT_LOADED;
        /// `CUDA_ERROR_INVALID_RESOURCE_TYPE` (914): a resource passed in has an invalid type for
        /// the operation.
        InvalidResourceType = CUDA_ERROR_INVALID_RESOURCE_TYPE;
        /// `CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION` (915): the resources passed in are
        /// insufficient or do not apply.
        InvalidResourceConfiguration = CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
        /// `CUDA_ERROR_KEY_ROTATION` (916): an error happened during the key rotation sequence.
        KeyRotation = CUDA_ERROR_KEY_ROTATION;
        /// `CUDA_ERROR_UNKNOWN` (999): an unknown internal driver error.
        Unknown = CUDA_ERROR_UNKNOWN;
    }
    custack {
        /// custack: a second `Stack` was asked for on a thread that has one.
        StackAlreadyTaken = "CUSTACK_STACK_ALREADY_TAKEN",
            "this thread already holds its custack context stack; take it at most once per thread";
        /// custack: the context on top of the thread's stack is not the one the guard pushed.
        ForeignContextOnTop = "CUSTACK_FOREIGN_CONTEXT_ON_TOP",
            "the context on top of this thread's stack is not the one custack pushed \
             (other code pushed, popped or set a context behind custack's back)";
        /// custack: a parked resource was attached to a guard of another context.
        ContextMismatch = "CUSTACK_CONTEXT_MISMATCH",
            "a resource was used with a guard of a different context than the one that owns it";
        /// custack: a name passed to the driver holds a NUL byte.
        NulInName = "CUSTACK_NUL_IN_NAME",
            "a name passed to the driver contains a NUL byte";
        /// custack: two lengths that must agree do not.
        LengthMismatch = "CUSTACK_LENGTH_MISMATCH",
            "two lengths that must be equal differ";
        /// custack: an index or range lies outside the memory it refers to.
        OutOfRange = "CUSTACK_OUT_OF_RANGE",
            "an index or range lies outside the memory it refers to";
        /// custack: a size computation overflowed.
        SizeOverflow = "CUSTACK_SIZE_OVERFLOW",
            "a size computation overflowed";
        /// custack: the primary context of this device is already held by a custack value: a
        /// [`Context`](crate::Context), or a live green context, under which it is not reset.
        PrimaryContextInUse = "CUSTACK_PRIMARY_CONTEXT_IN_USE",
            "the primary context of this device is already held by another custack value";
        /// custack: a host function enqueued on a stream of this context panicked; the panic
        /// was caught before it reached the driver, and is reported by the next wait.
        HostFunctionPanicked = "CUSTACK_HOST_FUNCTION_PANICKED",
            "a host function enqueued on a stream panicked";
        /// custack: a wait's deadline passed before the work it waits for was complete (the
        /// detail names the wait and how long it waited). Nothing the work may still use was
        /// released: owned pending work comes back with the error
        /// ([`TimedOut`](crate::TimedOut)); a scope acted as its caller chose
        /// ([`Overrun`](crate::Overrun)); an NCCL communicator's initialization, call, `wait`
        /// or destruction that passed the timeout it was made with (a rank that died or never
        /// arrived) aborted the communicator (`ncclCommAbort`), which releases its resources
        /// and ends its pending work, and the detail names the call, the rank and the timeout.
        DeadlinePassed = "CUSTACK_DEADLINE_PASSED",
            "a wait's deadline passed before the work was complete";
        /// custack: under the restricted safety profile ([`Profile`](crate::safety::Profile)), a
        /// request outside NVIDIA's safety subset that the types cannot see (an image that is
        /// PTX, a fatbin or needs the device runtime; a creation past what the context's
        /// [`Budget`](crate::safety::Budget) states; a restricted context past the count
        /// `Profile::init` stated; a second
        /// init phase of a [`RestrictedContext`](crate::safety::RestrictedContext), C27); once
        /// `Profile::init` has run, every entry to the full API (`Driver::init`, `Context::new`,
        /// `name_launches(true)`, …), whoever calls it; `Profile::init` in a process that used
        /// the full API before. The detail names what was refused and why; nothing was loaded
        /// or allocated.
        OutsideProfile = "CUSTACK_OUTSIDE_PROFILE",
            "the request is outside the restricted safety profile";
        /// custack: the two runs of a redundantly executed kernel wrote different results
        /// ([`Replicas::compare`](crate::safety::Replicas::compare)); the detail names the
        /// kernel, the frame, the written parameter, the first differing element and how many
        /// elements differ. One run met a fault that corrupted its output, or the kernel is not
        /// deterministic.
        ReplicasDiffer = "CUSTACK_REPLICAS_DIFFER",
            "the two runs of a redundantly executed kernel wrote different results";
        /// custack: a known-answer self-test's kernel wrote a result other than the known one
        /// ([`KnownAnswer::check`](crate::safety::KnownAnswer::check)); the detail names the
        /// kernel, the frame, the first wrong element and how many are wrong.
        SelfTestFailed = "CUSTACK_SELF_TEST_FAILED",
            "a known-answer self-test's kernel wrote a wrong result";
        /// custack: this process is the child of a `fork` made after
        /// [`Profile::init`](crate::safety::Profile::init): every custack call that would reach the
        /// driver refuses, because the parent's CUDA state is not the child's (NVIDIA's safety
        /// guideline: a forked child must `exec` before any CUDA call).
        ForkedProcess = "CUSTACK_FORKED_PROCESS",
            "this process was forked from a CUDA process and must exec before using CUDA";
        /// custack: a file could not be read (the detail names it and says why).
        Io = "CUSTACK_IO",
            "a file could not be read";
        /// custack: a kernel's parameters differ from the Rust signature it was looked up with
        /// (the detail names the first parameter that differs).
        KernelSignatureMismatch = "CUSTACK_KERNEL_SIGNATURE_MISMATCH",
            "a kernel's parameters differ from the Rust signature it was looked up with";
        /// custack: a buffer passed to a declared kernel holds fewer elements (or bytes) than
        /// the kernel's contract requires for this launch (the detail names the parameter, its
        /// length and the extent required); nothing was enqueued.
        BufferTooShort = "CUSTACK_BUFFER_TOO_SHORT",
            "a buffer is shorter than the extent the kernel's contract requires";
        /// custack: a launch of a declared kernel does not meet a precondition its contract
        /// states (`requires(..)`; the detail names the clause and the values it compared);
        /// nothing was enqueued.
        PreconditionFailed = "CUSTACK_PRECONDITION_FAILED",
            "a launch does not meet a precondition of the kernel's contract";
        /// custack: a tensor map's description breaks a rule of `cuTensorMapEncodeTiled` or
        /// `cuTensorMapEncodeIm2col`, or does not fit the buffer it is built over; checked
        /// before the driver is asked. The error's source is a
        /// [`TensorMapError`](crate::TensorMapError) whose [`rule`](crate::TensorMapError::rule)
        /// says which rule; the detail names it and the values.
        TensorMapRefused = "CUSTACK_TENSOR_MAP_REFUSED",
            "a tensor map breaks a rule of the driver or does not fit its buffer";
        /// custack: a launch of a declared kernel passes a tensor map that is not over the
        /// buffer its contract says (`map: tensor_map<T> over buf`): the map's memory is not
        /// within the memory bound to that parameter; nothing was enqueued.
        TensorMapMismatch = "CUSTACK_TENSOR_MAP_MISMATCH",
            "a tensor map is not over the buffer the kernel's contract binds it to";
        /// custack: the entry point is newer than the installed driver (custack looks it up
        /// with `cuGetProcAddress_v2`; the detail names it and both versions).
        DriverTooOld = "CUSTACK_DRIVER_TOO_OLD",
            "the installed driver is older than the CUDA version this operation needs";
        /// custack: the JIT linker reported success but wrote an error log (driver 580 does so
        /// for an undefined symbol after an earlier failed load); the image is not used.
        LinkerErrorLogged = "CUSTACK_LINKER_ERROR_LOGGED",
            "the JIT linker reported success but its error log holds an error";
        /// custack: the cargo feature of a CUDA library is on, but its library was not found
        /// when custack was built (the detail names it and what to install or set).
        LibraryNotLinked = "CUSTACK_LIBRARY_NOT_LINKED",
            "this build of custack has no such CUDA library linked";
        /// custack: NVRTC is newer than the driver, which cannot load what it compiled (PTX of
        /// a newer ISA, or a cubin of a newer major version); the detail names both versions
        /// and the fix. Checked before the driver is asked, which would answer
        /// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`.
        NvrtcNewerThanDriver = "CUSTACK_NVRTC_NEWER_THAN_DRIVER",
            "NVRTC is newer than the driver, which cannot load its output";
        /// custack: the GPU reported a hardware fault or a degraded state through NVML
        /// (`custack::health`, feature `nvml`): a double-bit ECC error or a
        /// critical Xid event found by a health poll (the detail names the event and the Xid
        /// number), or, at [`InitPhase::seal`](crate::safety::InitPhase::seal) of a context that
        /// watches its health, ECC off, a row remap pending or failed, or pages waiting to be
        /// retired (the detail names each finding). Sticky: it poisons the process (R20), as a
        /// sticky driver error does; the data on the GPU cannot be trusted.
        HardwareFault = "CUSTACK_HARDWARE_FAULT",
            "the GPU reported a hardware fault or a degraded state";
        /// custack: an NVML call failed (feature `nvml`; the detail names the call and NVML's
        /// status, its name, number and `nvmlErrorString`). A device that lacks a feature is not
        /// this error: `custack::health` reports `NVML_ERROR_NOT_SUPPORTED` as an answer.
        NvmlFailed = "CUSTACK_NVML_FAILED",
            "an NVML call failed";
        /// custack: a factorization found an exactly zero pivot (cuSOLVER's `getrf` info `i >
        /// 0`: `U(i,i)` is zero, so the matrix is singular); the detail names the call and the
        /// pivot's 1-based index (`custack::solver`, feature `cusolver`).
        SingularMatrix = "CUSTACK_SINGULAR_MATRIX",
            "the matrix is singular: the factorization found an exactly zero pivot";
        /// custack: a Cholesky factorization found a leading minor that is not positive
        /// definite (cuSOLVER's `potrf` info `i > 0`); the detail names the call and the
        /// minor's order.
        NotPositiveDefinite = "CUSTACK_NOT_POSITIVE_DEFINITE",
            "the matrix is not positive definite";
        /// custack: an iterative decomposition did not converge (cuSOLVER's `syevd` or `gesvd`
        /// info `i > 0`); the detail names the call and how many elements did not converge.
        NotConverged = "CUSTACK_NOT_CONVERGED",
            "the decomposition did not converge";
    }
    library {
        [feature = "nvrtc"] ffi::nvrtc::nvrtcResult {
            /// `NVRTC_ERROR_OUT_OF_MEMORY` (1): NVRTC ran out of host memory.
            NvrtcOutOfMemory = NVRTC_ERROR_OUT_OF_MEMORY, "NVRTC ran out of memory";
            /// `NVRTC_ERROR_PROGRAM_CREATION_FAILURE` (2): the program could not be created.
            NvrtcProgramCreationFailure = NVRTC_ERROR_PROGRAM_CREATION_FAILURE,
                "NVRTC could not create the program";
            /// `NVRTC_ERROR_INVALID_INPUT` (3): an argument NVRTC was given is invalid.
            NvrtcInvalidInput = NVRTC_ERROR_INVALID_INPUT, "an input to NVRTC is invalid";
            /// `NVRTC_ERROR_INVALID_PROGRAM` (4): the program handle is invalid.
            NvrtcInvalidProgram = NVRTC_ERROR_INVALID_PROGRAM, "the NVRTC program is invalid";
            /// `NVRTC_ERROR_INVALID_OPTION` (5): a compile option is not one NVRTC knows (the
            /// detail holds the compile log, which names it).
            NvrtcInvalidOption = NVRTC_ERROR_INVALID_OPTION, "NVRTC does not accept an option";
            /// `NVRTC_ERROR_COMPILATION` (6): the source did not compile; the detail holds NVRTC's
            /// compile log (file, line and message of each error).
            NvrtcCompilation = NVRTC_ERROR_COMPILATION, "the CUDA C++ source did not compile";
            /// `NVRTC_ERROR_BUILTIN_OPERATION_FAILURE` (7): an NVRTC builtin operation failed.
            NvrtcBuiltinOperationFailure = NVRTC_ERROR_BUILTIN_OPERATION_FAILURE,
                "an NVRTC builtin operation failed";
            /// `NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION` (8): a name expression was added
            /// after compiling.
            NvrtcNoNameExpressionsAfterCompilation = NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,
                "name expressions must be added before compiling";
            /// `NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION` (9): a lowered name was asked for
            /// before compiling.
            NvrtcNoLoweredNamesBeforeCompilation = NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION,
                "lowered names exist only after compiling";
            /// `NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID` (10): the name expression is not one the
            /// program was compiled with, or names nothing.
            NvrtcNameExpressionNotValid = NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID,
                "the name expression is not valid";
            /// `NVRTC_ERROR_INTERNAL_ERROR` (11): an internal NVRTC error.
            NvrtcInternalError = NVRTC_ERROR_INTERNAL_ERROR, "NVRTC failed internally";
            /// `NVRTC_ERROR_TIME_FILE_WRITE_FAILED` (12): the `--time` file could not be written.
            NvrtcTimeFileWriteFailed = NVRTC_ERROR_TIME_FILE_WRITE_FAILED,
                "NVRTC could not write its timing file";
            /// `NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED` (13): no precompiled header was created.
            NvrtcNoPchCreateAttempted = NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED,
                "NVRTC did not try to create a precompiled header";
            /// `NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED` (14): the precompiled-header heap is full.
            NvrtcPchCreateHeapExhausted = NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED,
                "NVRTC's precompiled-header heap is exhausted";
            /// `NVRTC_ERROR_PCH_CREATE` (15): the precompiled header could not be created.
            NvrtcPchCreate = NVRTC_ERROR_PCH_CREATE, "NVRTC could not create a precompiled header";
            /// `NVRTC_ERROR_CANCELLED` (16): the compilation was cancelled.
            NvrtcCancelled = NVRTC_ERROR_CANCELLED, "the NVRTC compilation was cancelled";
            /// `NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED` (17): the time-trace file could not be
            /// written.
            NvrtcTimeTraceFileWriteFailed = NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED,
                "NVRTC could not write its time-trace file";
        }
        /// An `nvrtcResult` this version of custack does not list (a newer NVRTC's); the
        /// detail holds the value and NVRTC's own string for it.
        NvrtcUnlisted = "NVRTC_ERROR_UNLISTED", "NVRTC returned a status custack does not list";
        // cuBLAS's statuses (`custack::blas`, cargo feature `cublas`), named after
        // `cublasStatus_t`; the detail names the cuBLAS call. None is sticky: a refused or
        // failed cuBLAS call leaves the context usable (a fault of a cuBLAS kernel surfaces as
        // the driver's own sticky error at the next wait).
        [feature = "cublas"] ffi::cublas::cublasStatus_t {
            /// cuBLAS `CUBLAS_STATUS_NOT_INITIALIZED` (1): cuBLAS was not initialized, or refused
            /// a handle (a build of custack that found no cuBLAS is [`ErrorKind::LibraryNotLinked`]).
            CublasNotInitialized = CUBLAS_STATUS_NOT_INITIALIZED,
                "the cuBLAS library was not initialized";
            /// cuBLAS `CUBLAS_STATUS_ALLOC_FAILED` (3): cuBLAS could not allocate what it needs.
            CublasAllocFailed = CUBLAS_STATUS_ALLOC_FAILED,
                "cuBLAS could not allocate the resources it needs";
            /// cuBLAS `CUBLAS_STATUS_INVALID_VALUE` (7): cuBLAS refused an argument.
            CublasInvalidValue = CUBLAS_STATUS_INVALID_VALUE,
                "cuBLAS refused an argument as invalid";
            /// cuBLAS `CUBLAS_STATUS_ARCH_MISMATCH` (8): the device lacks a feature the call needs
            /// (for example a data type of `cublasGemmEx`).
            CublasArchMismatch = CUBLAS_STATUS_ARCH_MISMATCH,
                "the device lacks a feature this cuBLAS call needs";
            /// cuBLAS `CUBLAS_STATUS_MAPPING_ERROR` (11): cuBLAS could not access GPU memory.
            CublasMappingError = CUBLAS_STATUS_MAPPING_ERROR,
                "cuBLAS could not access GPU memory";
            /// cuBLAS `CUBLAS_STATUS_EXECUTION_FAILED` (13): a cuBLAS kernel failed to launch.
            CublasExecutionFailed = CUBLAS_STATUS_EXECUTION_FAILED,
                "a cuBLAS kernel failed to launch or run";
            /// cuBLAS `CUBLAS_STATUS_INTERNAL_ERROR` (14): an internal cuBLAS operation failed.
            CublasInternalError = CUBLAS_STATUS_INTERNAL_ERROR,
                "an internal cuBLAS operation failed";
            /// cuBLAS `CUBLAS_STATUS_NOT_SUPPORTED` (15): the combination of arguments is not
            /// supported (on this device, or by this cuBLAS).
            CublasNotSupported = CUBLAS_STATUS_NOT_SUPPORTED,
                "cuBLAS does not support this combination of arguments";
            /// cuBLAS `CUBLAS_STATUS_LICENSE_ERROR` (16): a license check failed.
            CublasLicenseError = CUBLAS_STATUS_LICENSE_ERROR,
                "cuBLAS reported a license error";
        }
        /// cuBLAS returned a status this version of custack does not list (the value is in
        /// the detail).
        CublasUnlisted = "CUBLAS_STATUS_UNLISTED",
            "cuBLAS returned a status custack does not list";
        // NCCL's statuses (`custack::nccl`, feature `nccl`), named after `ncclResult_t`'s
        // values; the detail names the call and NCCL's last error message.
        [feature = "nccl"] ffi::nccl::ncclResult_t {
            /// `ncclUnhandledCudaError`: a CUDA call inside NCCL failed.
            NcclUnhandledCudaError = ncclUnhandledCudaError, "a CUDA call inside NCCL failed";
            /// `ncclSystemError`: a system call inside NCCL failed (a socket, memory, a thread);
            /// also what a build of custack without NCCL returns before saying
            /// [`ErrorKind::LibraryNotLinked`].
            NcclSystemError = ncclSystemError, "a system call inside NCCL failed";
            /// `ncclInternalError`: NCCL failed internally.
            NcclInternalError = ncclInternalError, "NCCL failed internally";
            /// `ncclInvalidArgument`: an argument NCCL refused.
            NcclInvalidArgument = ncclInvalidArgument, "NCCL refused an argument";
            /// `ncclInvalidUsage`: a call NCCL refused in this state (two ranks on one GPU, say).
            NcclInvalidUsage = ncclInvalidUsage, "NCCL refused the call in this state";
            /// `ncclRemoteError`: another rank failed, or the network to it did.
            NcclRemoteError = ncclRemoteError, "another rank, or the network to it, failed";
            /// `ncclInProgress`: an operation of a non-blocking communicator has not finished.
            NcclInProgress = ncclInProgress, "an NCCL operation has not finished";
            /// `ncclTimeout`: NCCL's own timeout expired.
            NcclTimeout = ncclTimeout, "NCCL's own timeout expired";
        }
        /// NCCL returned a status this version of custack does not list (the value is in the
        /// detail).
        NcclUnlisted = "ncclUnlisted", "NCCL returned a status custack does not list";
        // cuFFT's results (`custack::fft`, cargo feature `cufft`), named after `cufftResult`;
        // the detail names the cuFFT call. None is sticky.
        [feature = "cufft"] ffi::cufft::cufftResult {
            /// cuFFT `CUFFT_INVALID_PLAN` (1): cuFFT was given an invalid plan handle.
            CufftInvalidPlan = CUFFT_INVALID_PLAN, "cuFFT was given an invalid plan";
            /// cuFFT `CUFFT_ALLOC_FAILED` (2): cuFFT could not allocate GPU or CPU memory.
            CufftAllocFailed = CUFFT_ALLOC_FAILED, "cuFFT could not allocate memory";
            /// cuFFT `CUFFT_INVALID_TYPE` (3): no longer returned by cuFFT 12.
            CufftInvalidType = CUFFT_INVALID_TYPE, "cuFFT was given an invalid transform type";
            /// cuFFT `CUFFT_INVALID_VALUE` (4): cuFFT refused a pointer or a parameter.
            CufftInvalidValue = CUFFT_INVALID_VALUE, "cuFFT refused a pointer or a parameter";
            /// cuFFT `CUFFT_INTERNAL_ERROR` (5): a driver or internal cuFFT error.
            CufftInternalError = CUFFT_INTERNAL_ERROR, "cuFFT failed internally";
            /// cuFFT `CUFFT_EXEC_FAILED` (6): cuFFT could not execute the transform on the GPU.
            CufftExecFailed = CUFFT_EXEC_FAILED, "cuFFT could not execute the transform";
            /// cuFFT `CUFFT_SETUP_FAILED` (7): the cuFFT library could not initialize.
            CufftSetupFailed = CUFFT_SETUP_FAILED, "the cuFFT library could not initialize";
            /// cuFFT `CUFFT_INVALID_SIZE` (8): cuFFT refused a transform size.
            CufftInvalidSize = CUFFT_INVALID_SIZE, "cuFFT refused a transform size";
            /// cuFFT `CUFFT_UNALIGNED_DATA` (9): no longer returned by cuFFT 12.
            CufftUnalignedData = CUFFT_UNALIGNED_DATA, "cuFFT was given unaligned data";
            /// cuFFT `CUFFT_INCOMPLETE_PARAMETER_LIST` (10): parameters missing (cuFFT 11).
            CufftIncompleteParameterList = CUFFT_INCOMPLETE_PARAMETER_LIST,
                "cuFFT was called with parameters missing";
            /// cuFFT `CUFFT_INVALID_DEVICE` (11): the plan runs on another GPU than it was made on.
            CufftInvalidDevice = CUFFT_INVALID_DEVICE,
                "the cuFFT plan was made on another GPU";
            /// cuFFT `CUFFT_PARSE_ERROR` (12): an internal plan database error (cuFFT 11).
            CufftParseError = CUFFT_PARSE_ERROR, "cuFFT's plan database failed";
            /// cuFFT `CUFFT_NO_WORKSPACE` (13): the plan has no work area.
            CufftNoWorkspace = CUFFT_NO_WORKSPACE, "the cuFFT plan has no work area";
            /// cuFFT `CUFFT_NOT_IMPLEMENTED` (14): not implemented for these parameters.
            CufftNotImplemented = CUFFT_NOT_IMPLEMENTED,
                "cuFFT does not implement this for these parameters";
            /// cuFFT `CUFFT_LICENSE_ERROR` (15): a license check failed (cuFFT 11).
            CufftLicenseError = CUFFT_LICENSE_ERROR, "cuFFT reported a license error";
            /// cuFFT `CUFFT_NOT_SUPPORTED` (16): not supported for these parameters.
            CufftNotSupported = CUFFT_NOT_SUPPORTED,
                "cuFFT does not support this combination of parameters";
            /// cuFFT `CUFFT_MISSING_DEPENDENCY` (17): a library cuFFT needs is missing (cuFFT 12).
            CufftMissingDependency = CUFFT_MISSING_DEPENDENCY,
                "a library cuFFT needs could not be loaded";
            /// cuFFT `CUFFT_NVRTC_FAILURE` (18): NVRTC failed inside cuFFT (cuFFT 12).
            CufftNvrtcFailure = CUFFT_NVRTC_FAILURE, "NVRTC failed inside cuFFT";
            /// cuFFT `CUFFT_NVJITLINK_FAILURE` (19): nvJitLink failed inside cuFFT (cuFFT 12).
            CufftNvjitlinkFailure = CUFFT_NVJITLINK_FAILURE, "nvJitLink failed inside cuFFT";
            /// cuFFT `CUFFT_NVSHMEM_FAILURE` (20): NVSHMEM failed inside cuFFT (cuFFT 12).
            CufftNvshmemFailure = CUFFT_NVSHMEM_FAILURE, "NVSHMEM failed inside cuFFT";
        }
        /// cuFFT returned a result this version of custack does not list (the value is in the
        /// detail).
        CufftUnlisted = "CUFFT_UNLISTED", "cuFFT returned a result custack does not list";
        // cuRAND's statuses (`custack::rand`, cargo feature `curand`), named after
        // `curandStatus_t`; the detail names the cuRAND call. None is sticky.
        [feature = "curand"] ffi::curand::curandStatus_t {
            /// cuRAND `CURAND_STATUS_VERSION_MISMATCH` (100): the header and the library differ.
            CurandVersionMismatch = CURAND_STATUS_VERSION_MISMATCH,
                "cuRAND's header and library versions differ";
            /// cuRAND `CURAND_STATUS_NOT_INITIALIZED` (101): the generator was not initialized.
            CurandNotInitialized = CURAND_STATUS_NOT_INITIALIZED,
                "the cuRAND generator was not initialized";
            /// cuRAND `CURAND_STATUS_ALLOCATION_FAILED` (102): cuRAND could not allocate memory.
            CurandAllocationFailed = CURAND_STATUS_ALLOCATION_FAILED,
                "cuRAND could not allocate memory";
            /// cuRAND `CURAND_STATUS_TYPE_ERROR` (103): the generator is of the wrong type.
            CurandTypeError = CURAND_STATUS_TYPE_ERROR, "the cuRAND generator is of the wrong type";
            /// cuRAND `CURAND_STATUS_OUT_OF_RANGE` (104): an argument is out of range.
            CurandOutOfRange = CURAND_STATUS_OUT_OF_RANGE, "a cuRAND argument is out of range";
            /// cuRAND `CURAND_STATUS_LENGTH_NOT_MULTIPLE` (105): the length is not a multiple of
            /// the dimension (or not even, for some generators' normal distributions).
            CurandLengthNotMultiple = CURAND_STATUS_LENGTH_NOT_MULTIPLE,
                "the cuRAND length is not a multiple it must be";
            /// cuRAND `CURAND_STATUS_DOUBLE_PRECISION_REQUIRED` (106): the GPU lacks double
            /// precision.
            CurandDoublePrecisionRequired = CURAND_STATUS_DOUBLE_PRECISION_REQUIRED,
                "the GPU does not support double precision";
            /// cuRAND `CURAND_STATUS_LAUNCH_FAILURE` (201): a cuRAND kernel failed to launch.
            CurandLaunchFailure = CURAND_STATUS_LAUNCH_FAILURE, "a cuRAND kernel failed to launch";
            /// cuRAND `CURAND_STATUS_PREEXISTING_FAILURE` (202): an earlier failure was found.
            CurandPreexistingFailure = CURAND_STATUS_PREEXISTING_FAILURE,
                "cuRAND found an earlier failure";
            /// cuRAND `CURAND_STATUS_INITIALIZATION_FAILED` (203): CUDA could not initialize.
            CurandInitializationFailed = CURAND_STATUS_INITIALIZATION_FAILED,
                "cuRAND could not initialize CUDA";
            /// cuRAND `CURAND_STATUS_ARCH_MISMATCH` (204): the GPU cannot do what was asked.
            CurandArchMismatch = CURAND_STATUS_ARCH_MISMATCH,
                "the GPU lacks a feature cuRAND needs";
            /// cuRAND `CURAND_STATUS_INTERNAL_ERROR` (999): an internal cuRAND error.
            CurandInternalError = CURAND_STATUS_INTERNAL_ERROR, "cuRAND failed internally";
        }
        /// cuRAND returned a status this version of custack does not list (the value is in
        /// the detail).
        CurandUnlisted = "CURAND_STATUS_UNLISTED", "cuRAND returned a status custack does not list";
        // cuSPARSE's statuses (`custack::sparse`, cargo feature `cusparse`), named after
        // `cusparseStatus_t`; the detail names the cuSPARSE call. None is sticky.
        [feature = "cusparse"] ffi::cusparse::cusparseStatus_t {
            /// cuSPARSE `CUSPARSE_STATUS_NOT_INITIALIZED` (1): cuSPARSE was not initialized.
            CusparseNotInitialized = CUSPARSE_STATUS_NOT_INITIALIZED,
                "cuSPARSE was not initialized";
            /// cuSPARSE `CUSPARSE_STATUS_ALLOC_FAILED` (2): cuSPARSE could not allocate memory.
            CusparseAllocFailed = CUSPARSE_STATUS_ALLOC_FAILED, "cuSPARSE could not allocate memory";
            /// cuSPARSE `CUSPARSE_STATUS_INVALID_VALUE` (3): cuSPARSE refused an argument.
            CusparseInvalidValue = CUSPARSE_STATUS_INVALID_VALUE, "cuSPARSE refused an argument";
            /// cuSPARSE `CUSPARSE_STATUS_ARCH_MISMATCH` (4): the GPU lacks a feature needed.
            CusparseArchMismatch = CUSPARSE_STATUS_ARCH_MISMATCH,
                "the GPU lacks a feature cuSPARSE needs";
            /// cuSPARSE `CUSPARSE_STATUS_MAPPING_ERROR` (5): no longer returned.
            CusparseMappingError = CUSPARSE_STATUS_MAPPING_ERROR, "cuSPARSE could not map memory";
            /// cuSPARSE `CUSPARSE_STATUS_EXECUTION_FAILED` (6): a cuSPARSE kernel failed.
            CusparseExecutionFailed = CUSPARSE_STATUS_EXECUTION_FAILED,
                "a cuSPARSE kernel failed to run";
            /// cuSPARSE `CUSPARSE_STATUS_INTERNAL_ERROR` (7): an internal cuSPARSE error.
            CusparseInternalError = CUSPARSE_STATUS_INTERNAL_ERROR, "cuSPARSE failed internally";
            /// cuSPARSE `CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED` (8): the matrix type is
            /// not supported.
            CusparseMatrixTypeNotSupported = CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED,
                "cuSPARSE does not support this matrix type";
            /// cuSPARSE `CUSPARSE_STATUS_ZERO_PIVOT` (9): a zero pivot (factorizations).
            CusparseZeroPivot = CUSPARSE_STATUS_ZERO_PIVOT, "cuSPARSE met a zero pivot";
            /// cuSPARSE `CUSPARSE_STATUS_NOT_SUPPORTED` (10): not supported for these
            /// parameters.
            CusparseNotSupported = CUSPARSE_STATUS_NOT_SUPPORTED,
                "cuSPARSE does not support this combination of parameters";
            /// cuSPARSE `CUSPARSE_STATUS_INSUFFICIENT_RESOURCES` (11): not enough resources.
            CusparseInsufficientResources = CUSPARSE_STATUS_INSUFFICIENT_RESOURCES,
                "cuSPARSE lacks the resources for the call";
        }
        /// cuSPARSE returned a status this version of custack does not list (the value is in
        /// the detail).
        CusparseUnlisted = "CUSPARSE_STATUS_UNLISTED",
            "cuSPARSE returned a status custack does not list";
        // cuDNN's statuses (`custack::dnn`, cargo feature `cudnn`), named after
        // `cudnnStatus_t`: each category (1000, 2000, …, 5000) and the details a caller can act
        // on; other details are `CudnnUnlisted` with the value kept. None is sticky.
        [feature = "cudnn"] ffi::cudnn::cudnnStatus_t {
            /// cuDNN `CUDNN_STATUS_NOT_INITIALIZED` (1001): cuDNN could not initialize (the
            /// CUDA runtime inside it failed, or no GPU); also what a build of custack without
            /// cuDNN returns before saying [`ErrorKind::LibraryNotLinked`].
            CudnnNotInitialized = CUDNN_STATUS_NOT_INITIALIZED, "cuDNN could not initialize";
            /// cuDNN `CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH` (1002): its sub-libraries are of
            /// another version than `libcudnn.so.9`.
            CudnnSublibraryVersionMismatch = CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH,
                "cuDNN's sub-libraries are of another version";
            /// cuDNN `CUDNN_STATUS_LICENSE_ERROR` (1005): a license check failed.
            CudnnLicenseError = CUDNN_STATUS_LICENSE_ERROR, "cuDNN reported a license error";
            /// cuDNN `CUDNN_STATUS_BAD_PARAM` (2000): cuDNN refused a parameter.
            CudnnBadParam = CUDNN_STATUS_BAD_PARAM, "cuDNN refused a parameter";
            /// cuDNN `CUDNN_STATUS_INVALID_VALUE` (2001): cuDNN refused a value.
            CudnnInvalidValue = CUDNN_STATUS_INVALID_VALUE, "cuDNN refused a value";
            /// cuDNN `CUDNN_STATUS_BAD_PARAM_NULL_POINTER` (2002): a null pointer.
            CudnnBadParamNullPointer = CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
                "cuDNN was given a null pointer";
            /// cuDNN `CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER` (2003): a misaligned pointer.
            CudnnBadParamMisalignedPointer = CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER,
                "cuDNN was given a misaligned pointer";
            /// cuDNN `CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED` (2004): a graph-API descriptor used
            /// before it was finalized.
            CudnnBadParamNotFinalized = CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED,
                "cuDNN was given a descriptor not finalized";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED` (3000): not supported for these parameters.
            CudnnNotSupported = CUDNN_STATUS_NOT_SUPPORTED,
                "cuDNN does not support these parameters";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN` (3001): no engine supports the
            /// graph's pattern of operations.
            CudnnNotSupportedGraphPattern = CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN,
                "cuDNN does not support this graph's pattern";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED_SHAPE` (3002): the engine does not support the
            /// tensors' shapes.
            CudnnNotSupportedShape = CUDNN_STATUS_NOT_SUPPORTED_SHAPE,
                "cuDNN does not support these shapes";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE` (3003): the engine does not support
            /// the data type.
            CudnnNotSupportedDataType = CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE,
                "cuDNN does not support this data type";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED_LAYOUT` (3004): the engine does not support the
            /// tensors' layout.
            CudnnNotSupportedLayout = CUDNN_STATUS_NOT_SUPPORTED_LAYOUT,
                "cuDNN does not support this layout";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER` (3005): the driver is
            /// older than the cuDNN build needs.
            CudnnNotSupportedIncompatibleCudaDriver = CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER,
                "the driver is too old for this cuDNN";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH` (3007): not for this GPU.
            CudnnNotSupportedArchMismatch = CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
                "cuDNN does not support this GPU";
            /// cuDNN `CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE` (3009): a sub-library
            /// (`libcudnn_cnn.so.9`, …) could not be loaded from `libcudnn.so.9`'s directory.
            CudnnNotSupportedSublibraryUnavailable = CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE,
                "a cuDNN sub-library could not be loaded";
            /// cuDNN `CUDNN_STATUS_INTERNAL_ERROR` (4000): cuDNN failed internally.
            CudnnInternalError = CUDNN_STATUS_INTERNAL_ERROR, "cuDNN failed internally";
            /// cuDNN `CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED` (4004): cuDNN could
            /// not allocate device memory.
            CudnnInternalErrorDeviceAllocationFailed = CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED,
                "cuDNN could not allocate device memory";
            /// cuDNN `CUDNN_STATUS_EXECUTION_FAILED` (5000): a cuDNN kernel failed on the GPU.
            CudnnExecutionFailed = CUDNN_STATUS_EXECUTION_FAILED, "a cuDNN kernel failed on the GPU";
        }
        /// cuDNN returned a status this version of custack does not list (the value is in the
        /// detail).
        CudnnUnlisted = "CUDNN_STATUS_UNLISTED", "cuDNN returned a status custack does not list";
        // cuSOLVER's statuses (`custack::solver`, cargo feature `cusolver`), named after
        // `cusolverStatus_t`; the detail names the cuSOLVER call. None is sticky. What a call's
        // info word reports is not a status: `SingularMatrix`, `NotPositiveDefinite`,
        // `NotConverged` above, read after the scope (`custack::solver::SolverInfo`).
        [feature = "cusolver"] ffi::cusolver::cusolverStatus_t {
            /// cuSOLVER `CUSOLVER_STATUS_NOT_INITIALIZED` (1): cuSOLVER could not initialize (a
            /// build of custack that found no cuSOLVER is [`ErrorKind::LibraryNotLinked`]).
            CusolverNotInitialized = CUSOLVER_STATUS_NOT_INITIALIZED,
                "the cuSOLVER library was not initialized";
            /// cuSOLVER `CUSOLVER_STATUS_ALLOC_FAILED` (2): cuSOLVER could not allocate memory.
            CusolverAllocFailed = CUSOLVER_STATUS_ALLOC_FAILED, "cuSOLVER could not allocate memory";
            /// cuSOLVER `CUSOLVER_STATUS_INVALID_VALUE` (3): cuSOLVER refused an argument.
            CusolverInvalidValue = CUSOLVER_STATUS_INVALID_VALUE, "cuSOLVER refused an argument";
            /// cuSOLVER `CUSOLVER_STATUS_ARCH_MISMATCH` (4): the device lacks a feature the call
            /// needs.
            CusolverArchMismatch = CUSOLVER_STATUS_ARCH_MISMATCH,
                "the device lacks a feature this cuSOLVER call needs";
            /// cuSOLVER `CUSOLVER_STATUS_MAPPING_ERROR` (5): cuSOLVER could not access GPU memory.
            CusolverMappingError = CUSOLVER_STATUS_MAPPING_ERROR,
                "cuSOLVER could not access GPU memory";
            /// cuSOLVER `CUSOLVER_STATUS_EXECUTION_FAILED` (6): a cuSOLVER kernel failed to
            /// launch.
            CusolverExecutionFailed = CUSOLVER_STATUS_EXECUTION_FAILED,
                "a cuSOLVER kernel failed to launch";
            /// cuSOLVER `CUSOLVER_STATUS_INTERNAL_ERROR` (7): an internal cuSOLVER operation
            /// failed.
            CusolverInternalError = CUSOLVER_STATUS_INTERNAL_ERROR, "cuSOLVER failed internally";
            /// cuSOLVER `CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED` (8): the matrix type is not
            /// supported.
            CusolverMatrixTypeNotSupported = CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED,
                "cuSOLVER does not support this matrix type";
            /// cuSOLVER `CUSOLVER_STATUS_NOT_SUPPORTED` (9): the call or its arguments are not
            /// supported.
            CusolverNotSupported = CUSOLVER_STATUS_NOT_SUPPORTED,
                "cuSOLVER does not support this call or its arguments";
            /// cuSOLVER `CUSOLVER_STATUS_ZERO_PIVOT` (10): a zero pivot (sparse and refactoring
            /// calls; the dense calls report it in their info word).
            CusolverZeroPivot = CUSOLVER_STATUS_ZERO_PIVOT, "cuSOLVER found a zero pivot";
            /// cuSOLVER `CUSOLVER_STATUS_INVALID_LICENSE` (11): a license check failed.
            CusolverInvalidLicense = CUSOLVER_STATUS_INVALID_LICENSE,
                "cuSOLVER reported a license error";
            /// cuSOLVER `CUSOLVER_STATUS_INVALID_WORKSPACE` (31): the workspace is too small or
            /// misaligned.
            CusolverInvalidWorkspace = CUSOLVER_STATUS_INVALID_WORKSPACE,
                "cuSOLVER refused the workspace";
        }
        /// cuSOLVER returned a status this version of custack does not list (the value is in
        /// the detail; the iterative-refinement statuses, 12 to 30, belong to calls custack
        /// does not wrap).
        CusolverUnlisted = "CUSOLVER_STATUS_UNLISTED",
            "cuSOLVER returned a status custack does not list";
    }
}

impl ErrorKind {
    /// Whether the error is sticky: the context it happened in is unusable afterwards, and
    /// every later call on it returns the same error. The CUDA documentation says to relaunch
    /// the process; on driver 580 a new context or a primary-context reset in the same process
    /// returns the same error.
    ///
    /// Always `false` for [`Unlisted`](Self::Unlisted) and for custack's own kinds but one:
    /// [`HardwareFault`](Self::HardwareFault), the GPU's own report of a fault (through NVML).
    pub fn is_sticky(self) -> bool {
        // The driver API's `CUresult` reference (enum CUresult in
        // https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html, CUDA 13.x) says
        // of ILLEGAL_ADDRESS, LAUNCH_TIMEOUT, HARDWARE_STACK_ERROR, ILLEGAL_INSTRUCTION,
        // MISALIGNED_ADDRESS, INVALID_ADDRESS_SPACE, INVALID_PC, LAUNCH_FAILED,
        // TENSOR_MEMORY_LEAK, CONTAINED and EXTERNAL_DEVICE: "This leaves the process in an
        // inconsistent state and any further CUDA work will return the same error. To continue
        // using CUDA, the process must be terminated and relaunched."
        // Of ASSERT: "The context cannot be used anymore, and must be destroyed. All existing
        // device memory allocations from this context are invalid and must be reconstructed if
        // the program is to continue using CUDA."
        // Of MPS_CLIENT_TERMINATED: "To continue using CUDA, the process must be terminated and
        // relaunched."
        // ECC_UNCORRECTABLE is documented only as "an uncorrectable ECC error was detected
        // during execution", without the sentence above; custack still treats it as sticky
        // (conservatively): device memory the work used is corrupt, so nothing in the context
        // can be trusted.
        // Not sticky: CONTEXT_IS_DESTROYED (the context handle is stale; other contexts are
        // fine), NVLINK_UNCORRECTABLE (documented without the sentence above) and
        // DEVICE_UNAVAILABLE (documented as "busy or unavailable at the current time": an
        // exclusive or prohibited compute mode, a device full of work; a later call may
        // succeed). A lost GPU is NVML's to report (`HardwareFault`); the checking driver's
        // lost schedule answers this code to every call and checks that no run hangs or
        // releases what the lost device's work used.
        matches!(
            self,
            Self::EccUncorrectable
                | Self::Contained
                | Self::IllegalAddress
                | Self::LaunchTimeout
                | Self::Assert
                | Self::HardwareStackError
                | Self::IllegalInstruction
                | Self::MisalignedAddress
                | Self::InvalidAddressSpace
                | Self::InvalidPc
                | Self::LaunchFailed
                | Self::TensorMemoryLeak
                | Self::MpsClientTerminated
                | Self::ExternalDevice
                | Self::HardwareFault
        )
    }

    /// A line of advice for errors whose usual cause is the machine's setup, not the program.
    pub(super) fn hint(self) -> Option<&'static str> {
        Some(match self {
            Self::NotInitialized => {
                "the driver is not initialized: call `Driver::init()` (cuInit) before any other \
                 custack call"
            }
            Self::StubLibrary => {
                "this process loaded the CUDA toolkit's stub libcuda.so (…/lib64/stubs), which \
                 is for linking only: put the directory that holds the real driver's \
                 libcuda.so.1 first on LD_LIBRARY_PATH, or remove the stubs directory from it"
            }
            Self::CallRequiresNewerDriver => {
                "the installed NVIDIA driver is older than this call needs: update the driver \
                 (on data-center GPUs the cuda-compat package can also provide a newer libcuda)"
            }
            Self::NoDevice if cfg!(custack_no_libcuda) => NOT_LINKED_HINT,
            Self::NoDevice => {
                "no CUDA-capable device is visible: check `nvidia-smi`, CUDA_VISIBLE_DEVICES (an \
                 empty or wrong list hides every GPU), and that the nvidia kernel module is loaded"
            }
            Self::SystemDriverMismatch => {
                "the loaded libcuda.so.1 and the nvidia kernel module come from different driver \
                 versions (compare /proc/driver/nvidia/version): reinstall the driver so both \
                 match, or reboot after a driver update"
            }
            Self::CompatNotSupportedOnDevice => {
                "a CUDA forward-compatibility libcuda (cuda-compat) is on the library path, but \
                 this GPU does not support forward compatibility: remove the compat directory \
                 from LD_LIBRARY_PATH, or restrict CUDA_VISIBLE_DEVICES to supported GPUs"
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// `CUDA_ERROR_INVALID_VALUE` → `InvalidValue`.
    fn camel(c_name: &str) -> String {
        c_name
            .split('_')
            .map(|word| {
                let mut chars = word.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_string() + &chars.as_str().to_ascii_lowercase()
                })
            })
            .collect()
    }

    #[test]
    fn table_lists_every_cuda_13_0_error_code() {
        // cuda-13.0-result-codes.tsv: 101 codes, and CUDA_SUCCESS is not an error kind.
        assert_eq!(DRIVER_KINDS.len(), 100);
    }

    #[test]
    fn variant_names_follow_the_c_names() {
        for &kind in DRIVER_KINDS {
            let name = kind.name();
            let rest = name.strip_prefix("CUDA_ERROR_").unwrap();
            assert_eq!(format!("{kind:?}"), camel(rest), "{name}");
        }
        for &kind in CUSTACK_KINDS.iter().chain(&library_kinds()) {
            // custack's own kinds, then the CUDA libraries' statuses, prefixed with the
            // library: `NVRTC_ERROR_COMPILATION` is `NvrtcCompilation`.
            let name = kind.name();
            let expected = if let Some(rest) = name.strip_prefix("CUSTACK_") {
                camel(rest)
            } else if let Some(rest) = name.strip_prefix("NVRTC_ERROR_") {
                format!("Nvrtc{}", camel(rest))
            } else if let Some(rest) = name.strip_prefix("CUBLAS_STATUS_") {
                format!("Cublas{}", camel(rest))
            } else if let Some(rest) = name.strip_prefix("CUFFT_") {
                format!("Cufft{}", camel(rest))
            } else if let Some(rest) = name.strip_prefix("CURAND_STATUS_") {
                format!("Curand{}", camel(rest))
            } else if let Some(rest) = name.strip_prefix("CUSPARSE_STATUS_") {
                format!("Cusparse{}", camel(rest))
            } else if let Some(rest) = name.strip_prefix("CUDNN_STATUS_") {
                format!("Cudnn{}", camel(rest))
            } else if let Some(rest) = name.strip_prefix("CUSOLVER_STATUS_") {
                format!("Cusolver{}", camel(rest))
            } else if let Some(rest) = name.strip_prefix("nccl") {
                // NCCL's own names are camel case already: `ncclRemoteError`.
                format!("Nccl{rest}")
            } else {
                panic!("{name}: neither CUSTACK_ nor a library's prefix")
            };
            assert_eq!(format!("{kind:?}"), expected);
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names = HashSet::new();
        let library = library_kinds();
        for &kind in DRIVER_KINDS.iter().chain(CUSTACK_KINDS).chain(&library) {
            assert!(names.insert(kind.name()), "{} twice", kind.name());
        }
        assert!(names.insert(ErrorKind::Unlisted(7).name()));
        assert_eq!(names.len(), 100 + 29 + 1 + library.len());
    }

    #[test]
    fn codes_are_unique() {
        let codes: HashSet<i32> = DRIVER_KINDS.iter().map(|k| k.code().unwrap().0).collect();
        assert_eq!(codes.len(), DRIVER_KINDS.len());
    }

    #[test]
    fn unlisted_keeps_the_value() {
        for v in [12345, 35, 1000, -1, i32::MIN, i32::MAX] {
            let kind = ErrorKind::from_code(ffi::CUresult(v));
            assert_eq!(kind, ErrorKind::Unlisted(v));
            assert_eq!(kind.code(), Some(ffi::CUresult(v)));
            assert_eq!(kind.name(), "CUDA_ERROR_UNLISTED");
            assert!(!kind.is_sticky());
        }
        assert_eq!(
            ErrorKind::from_code(ffi::CUresult::CUDA_SUCCESS),
            ErrorKind::Unlisted(0)
        );
    }
}
