// The entry points custack reaches, with their number of arguments (each argument erased to
// `usize`: the ABI argument is `lib.rs`'s). Taken from `ffi/`: every `fn` of its
// `link_or_stub! { libcuda; .. }` blocks (linked), and every `PFN_*` type of
// `ffi/entry_point.rs` with the name custack asks `cuGetProcAddress_v2` for (looked up). The test
// `entries_match_ffi` reads `ffi/` again and fails on any difference, printing the line to add.
// Declared by hand in `lib.rs` instead: `cuGetProcAddress_v2` and `cuDriverGetVersion` (which the
// interposer answers in part) and the two that take a 64-byte handle by value
// (`cuIpcOpenMemHandle_v2`, `cuIpcOpenEventHandle`).
entries! {
    linked {
        // ffi/ctx.rs
        cuCtxCreate_v2(a0, a1, a2);
        cuCtxDestroy_v2(a0);
        cuCtxPushCurrent_v2(a0);
        cuCtxPopCurrent_v2(a0);
        cuCtxGetCurrent(a0);
        cuCtxGetDevice(a0);
        cuCtxSynchronize();
        cuCtxGetApiVersion(a0, a1);
        cuCtxGetFlags(a0);
        cuCtxGetId(a0, a1);
        cuCtxGetLimit(a0, a1);
        cuCtxSetLimit(a0, a1);
        cuCtxGetCacheConfig(a0);
        cuCtxSetCacheConfig(a0);
        cuCtxGetStreamPriorityRange(a0, a1);
        cuCtxGetSharedMemConfig(a0);
        cuCtxSetSharedMemConfig(a0);
        cuCtxGetExecAffinity(a0, a1);
        cuCtxResetPersistingL2Cache();
        cuCtxEnablePeerAccess(a0, a1);
        cuCtxDisablePeerAccess(a0);
        // ffi/device.rs
        cuDeviceGet(a0, a1);
        cuDeviceGetCount(a0);
        cuDeviceGetName(a0, a1, a2);
        cuDeviceGetUuid_v2(a0, a1);
        cuDeviceTotalMem_v2(a0, a1);
        cuDeviceGetAttribute(a0, a1, a2);
        cuDeviceGetPCIBusId(a0, a1, a2);
        cuDeviceGetExecAffinitySupport(a0, a1, a2);
        cuDeviceGetDefaultMemPool(a0, a1);
        cuDeviceGetGraphMemAttribute(a0, a1, a2);
        cuDeviceSetGraphMemAttribute(a0, a1, a2);
        cuDeviceGraphMemTrim(a0);
        cuDeviceCanAccessPeer(a0, a1, a2);
        // ffi/error.rs
        cuGetErrorName(a0, a1);
        cuGetErrorString(a0, a1);
        // ffi/event.rs
        cuEventCreate(a0, a1);
        cuEventRecord(a0, a1);
        cuEventQuery(a0);
        cuEventSynchronize(a0);
        cuEventDestroy_v2(a0);
        cuEventElapsedTime(a0, a1, a2);
        // ffi/graph.rs
        cuGraphCreate(a0, a1);
        cuGraphAddKernelNode_v2(a0, a1, a2, a3, a4);
        cuGraphAddMemcpyNode(a0, a1, a2, a3, a4, a5);
        cuGraphAddMemsetNode(a0, a1, a2, a3, a4, a5);
        cuGraphAddEventRecordNode(a0, a1, a2, a3, a4);
        cuGraphAddEventWaitNode(a0, a1, a2, a3, a4);
        cuGraphAddEmptyNode(a0, a1, a2, a3);
        cuGraphAddChildGraphNode(a0, a1, a2, a3, a4);
        cuGraphAddMemAllocNode(a0, a1, a2, a3, a4);
        cuGraphAddMemFreeNode(a0, a1, a2, a3, a4);
        cuGraphAddDependencies(a0, a1, a2, a3);
        cuGraphExecKernelNodeSetParams_v2(a0, a1, a2);
        cuGraphExecMemcpyNodeSetParams(a0, a1, a2, a3);
        cuGraphNodeSetEnabled(a0, a1, a2);
        cuGraphNodeGetEnabled(a0, a1, a2);
        cuGraphExecMemsetNodeSetParams(a0, a1, a2, a3);
        cuGraphExecHostNodeSetParams(a0, a1, a2);
        cuGraphExecChildGraphNodeSetParams(a0, a1, a2);
        cuGraphExecEventRecordNodeSetEvent(a0, a1, a2);
        cuGraphExecEventWaitNodeSetEvent(a0, a1, a2);
        cuGraphDebugDotPrint(a0, a1, a2);
        cuGraphClone(a0, a1);
        cuGraphNodeGetType(a0, a1);
        cuGraphDestroy(a0);
        cuGraphGetNodes(a0, a1, a2);
        cuGraphInstantiateWithFlags(a0, a1, a2);
        cuGraphLaunch(a0, a1);
        cuGraphUpload(a0, a1);
        cuGraphExecDestroy(a0);
        cuGraphExecUpdate_v2(a0, a1, a2);
        cuGraphAddHostNode(a0, a1, a2, a3, a4);
        cuUserObjectCreate(a0, a1, a2, a3, a4);
        cuUserObjectRelease(a0, a1);
        cuGraphRetainUserObject(a0, a1, a2, a3);
        // ffi/init.rs
        cuInit(a0);
        // ffi/launch.rs
        cuFuncGetAttribute(a0, a1, a2);
        cuFuncSetAttribute(a0, a1, a2);
        cuFuncSetCacheConfig(a0, a1);
        cuLaunchKernel(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10);
        cuLaunchKernelEx(a0, a1, a2, a3);
        cuLaunchCooperativeKernel(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9);
        cuLaunchHostFunc(a0, a1, a2);
        // ffi/library.rs
        cuLibraryLoadData(a0, a1, a2, a3, a4, a5, a6, a7);
        cuLibraryUnload(a0);
        cuLibraryGetKernel(a0, a1, a2);
        cuKernelGetFunction(a0, a1);
        // ffi/memory.rs
        cuMemGetInfo_v2(a0, a1);
        cuMemAlloc_v2(a0, a1);
        cuMemFree_v2(a0);
        cuMemGetAddressRange_v2(a0, a1, a2);
        cuMemHostAlloc(a0, a1, a2);
        cuMemFreeHost(a0);
        cuMemcpyHtoD_v2(a0, a1, a2);
        cuMemcpyDtoH_v2(a0, a1, a2);
        cuMemcpyDtoD_v2(a0, a1, a2);
        cuMemcpyHtoDAsync_v2(a0, a1, a2, a3);
        cuMemcpyDtoHAsync_v2(a0, a1, a2, a3);
        cuMemcpyDtoDAsync_v2(a0, a1, a2, a3);
        cuMemsetD8_v2(a0, a1, a2);
        cuMemsetD16_v2(a0, a1, a2);
        cuMemsetD32_v2(a0, a1, a2);
        cuMemsetD8Async(a0, a1, a2, a3);
        cuMemsetD16Async(a0, a1, a2, a3);
        cuMemsetD32Async(a0, a1, a2, a3);
        cuMemAllocAsync(a0, a1, a2);
        cuMemFreeAsync(a0, a1);
        cuMemHostRegister_v2(a0, a1, a2);
        cuMemHostUnregister(a0);
        cuMemHostGetDevicePointer_v2(a0, a1, a2);
        cuPointerGetAttributes(a0, a1, a2, a3);
        cuMemAllocManaged(a0, a1, a2);
        cuMemPrefetchAsync(a0, a1, a2, a3);
        cuMemAdvise(a0, a1, a2, a3);
        cuMemRangeGetAttribute(a0, a1, a2, a3, a4);
        cuMemPoolCreate(a0, a1);
        cuMemPoolDestroy(a0);
        cuMemPoolTrimTo(a0, a1);
        cuMemPoolSetAttribute(a0, a1, a2);
        cuMemPoolGetAttribute(a0, a1, a2);
        cuMemAllocFromPoolAsync(a0, a1, a2, a3);
        cuMemAllocPitch_v2(a0, a1, a2, a3, a4);
        cuMemcpy2D_v2(a0);
        cuMemcpy2DAsync_v2(a0, a1);
        cuMemcpy3D_v2(a0);
        cuMemcpy3DAsync_v2(a0, a1);
        cuMemAddressReserve(a0, a1, a2, a3, a4);
        cuMemAddressFree(a0, a1);
        cuMemCreate(a0, a1, a2, a3);
        cuMemRelease(a0);
        cuMemMap(a0, a1, a2, a3, a4);
        cuMemUnmap(a0, a1);
        cuMemSetAccess(a0, a1, a2, a3);
        cuMemGetAllocationGranularity(a0, a1, a2);
        cuMemExportToShareableHandle(a0, a1, a2, a3);
        cuMemImportFromShareableHandle(a0, a1, a2);
        cuMemGetAllocationPropertiesFromHandle(a0, a1);
        cuIpcGetEventHandle(a0, a1);
        cuIpcGetMemHandle(a0, a1);
        cuIpcCloseMemHandle(a0);
        cuMemcpyPeer(a0, a1, a2, a3, a4);
        cuMemcpyPeerAsync(a0, a1, a2, a3, a4, a5);
        // ffi/module.rs
        cuModuleLoadData(a0, a1);
        cuModuleLoadDataEx(a0, a1, a2, a3, a4);
        cuModuleLoadFatBinary(a0, a1);
        cuModuleUnload(a0);
        cuModuleGetFunction(a0, a1, a2);
        cuModuleGetGlobal_v2(a0, a1, a2, a3);
        cuLinkCreate_v2(a0, a1, a2, a3);
        cuLinkAddData_v2(a0, a1, a2, a3, a4, a5, a6, a7);
        cuLinkAddFile_v2(a0, a1, a2, a3, a4, a5);
        cuLinkComplete(a0, a1, a2);
        cuLinkDestroy(a0);
        // ffi/occupancy.rs
        cuOccupancyMaxActiveBlocksPerMultiprocessor(a0, a1, a2, a3);
        cuOccupancyMaxPotentialBlockSize(a0, a1, a2, a3, a4, a5);
        cuOccupancyAvailableDynamicSMemPerBlock(a0, a1, a2, a3);
        // ffi/primary_ctx.rs
        cuDevicePrimaryCtxRetain(a0, a1);
        cuDevicePrimaryCtxRelease_v2(a0);
        cuDevicePrimaryCtxSetFlags_v2(a0, a1);
        cuDevicePrimaryCtxGetState(a0, a1, a2);
        cuDevicePrimaryCtxReset_v2(a0);
        // ffi/stream.rs
        cuStreamCreate(a0, a1);
        cuStreamCreateWithPriority(a0, a1, a2);
        cuStreamGetPriority(a0, a1);
        cuStreamGetFlags(a0, a1);
        cuStreamWaitEvent(a0, a1, a2);
        cuStreamQuery(a0);
        cuStreamAddCallback(a0, a1, a2, a3);
        cuStreamSynchronize(a0);
        cuStreamDestroy_v2(a0);
        cuStreamBeginCapture_v2(a0, a1);
        cuStreamEndCapture(a0, a1);
        cuStreamIsCapturing(a0, a1);
        cuStreamGetCaptureInfo_v2(a0, a1, a2, a3, a4, a5);
        cuStreamUpdateCaptureDependencies(a0, a1, a2, a3);
        // ffi/texture.rs
        cuArray3DCreate_v2(a0, a1);
        cuArrayDestroy(a0);
        cuMipmappedArrayCreate(a0, a1, a2);
        cuMipmappedArrayGetLevel(a0, a1, a2);
        cuMipmappedArrayDestroy(a0);
        cuTexObjectCreate(a0, a1, a2, a3);
        cuTexObjectDestroy(a0);
        cuSurfObjectCreate(a0, a1);
        cuSurfObjectDestroy(a0);
        // ffi/external.rs
        cuImportExternalMemory(a0, a1);
        cuExternalMemoryGetMappedBuffer(a0, a1, a2);
        cuExternalMemoryGetMappedMipmappedArray(a0, a1, a2);
        cuDestroyExternalMemory(a0);
        cuImportExternalSemaphore(a0, a1);
        cuSignalExternalSemaphoresAsync(a0, a1, a2, a3);
        cuWaitExternalSemaphoresAsync(a0, a1, a2, a3);
        cuDestroyExternalSemaphore(a0);
        // ffi/tensor_map.rs
        cuTensorMapEncodeTiled(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
        cuTensorMapEncodeIm2col(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14);
    }
    looked_up {
        cuFuncGetParamInfo(a0, a1, a2, a3) as "cuFuncGetParamInfo";
        cuFuncLoad(a0) as "cuFuncLoad";
        cuFuncGetParamCount(a0, a1) as "cuFuncGetParamCount";
        cuCtxCreate_v4(a0, a1, a2, a3) as "cuCtxCreate";
        cuCtxRecordEvent(a0, a1) as "cuCtxRecordEvent";
        cuCtxWaitEvent(a0, a1) as "cuCtxWaitEvent";
        cuDeviceGetDevResource(a0, a1, a2) as "cuDeviceGetDevResource";
        cuCtxGetDevResource(a0, a1, a2) as "cuCtxGetDevResource";
        cuDevSmResourceSplitByCount(a0, a1, a2, a3, a4, a5) as "cuDevSmResourceSplitByCount";
        cuDevResourceGenerateDesc(a0, a1, a2) as "cuDevResourceGenerateDesc";
        cuGreenCtxCreate(a0, a1, a2, a3) as "cuGreenCtxCreate";
        cuGreenCtxDestroy(a0) as "cuGreenCtxDestroy";
        cuCtxFromGreenCtx(a0, a1) as "cuCtxFromGreenCtx";
        cuGreenCtxStreamCreate(a0, a1, a2, a3) as "cuGreenCtxStreamCreate";
        cuLogsRegisterCallback(a0, a1, a2) as "cuLogsRegisterCallback";
        cuModuleGetFunctionCount(a0, a1) as "cuModuleGetFunctionCount";
        cuModuleEnumerateFunctions(a0, a1, a2) as "cuModuleEnumerateFunctions";
        cuFuncGetName(a0, a1) as "cuFuncGetName";
        cuGraphAddNode(a0, a1, a2, a3, a4) as "cuGraphAddNode";
        cuGraphConditionalHandleCreate(a0, a1, a2, a3, a4) as "cuGraphConditionalHandleCreate";
        cuStreamBeginCaptureToGraph(a0, a1, a2, a3, a4, a5) as "cuStreamBeginCaptureToGraph";
        cuMemcpyBatchAsync(a0, a1, a2, a3, a4, a5, a6, a7, a8) as "cuMemcpyBatchAsync";
        cuMemcpy3DBatchAsync(a0, a1, a2, a3, a4) as "cuMemcpy3DBatchAsync";
        cuMemPrefetchBatchAsync(a0, a1, a2, a3, a4, a5, a6, a7) as "cuMemPrefetchBatchAsync";
        cuMemDiscardBatchAsync(a0, a1, a2, a3, a4) as "cuMemDiscardBatchAsync";
        cuMemDiscardAndPrefetchBatchAsync(a0, a1, a2, a3, a4, a5, a6, a7) as "cuMemDiscardAndPrefetchBatchAsync";
    }
}
