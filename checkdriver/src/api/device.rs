//! Models `cuda.h` "Device Management" (`group__CUDA__DEVICE`): one device, an H100 as the double
//! describes it (compute capability 9.0, 132 SMs, memory pools), and its graph memory attributes
//! (as `ffi/device.rs` declares them).

use super::common::{out, out_str};
use super::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUdevice, Handle};
use crate::handles::handle;
use core::ffi::{c_char, c_int};

entry_points! {
    fn cuDeviceGet(dev: *mut CUdevice, ordinal: c_int) {
        if ordinal != 0 { return CUDA_ERROR_INVALID_VALUE; }
        out(dev, 0);
        CUDA_SUCCESS
    }
    fn cuDeviceGetCount(n: *mut c_int) { out(n, 1); CUDA_SUCCESS }
    fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) {
        out_str(name, len, c"custack null driver");
        CUDA_SUCCESS
    }
    fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: CUdevice) { out(uuid, [0x5a; 16]); CUDA_SUCCESS }
    fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: CUdevice) { out(uuid, [0x5a; 16]); CUDA_SUCCESS }
    fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) { out(bytes, 80 << 30); CUDA_SUCCESS }
    fn cuDeviceGetAttribute(value: *mut c_int, attribute: c_int, dev: CUdevice) {
        #[allow(
            clippy::match_same_arms,
            reason = "each attribute custack reads is named with its answer, the default's too"
        )]
        let answer = match attribute {
            1 => 1024,  // MAX_THREADS_PER_BLOCK
            16 => 132,  // MULTIPROCESSOR_COUNT
            75 => 9,    // COMPUTE_CAPABILITY_MAJOR
            76 => 0,    // COMPUTE_CAPABILITY_MINOR
            115 => 1,   // MEMORY_POOLS_SUPPORTED
            _ => 1,
        };
        out(value, answer);
        CUDA_SUCCESS
    }
    fn cuDeviceGetPCIBusId(bus: *mut c_char, len: c_int, dev: CUdevice) {
        out_str(bus, len, c"0000:00:00.0");
        CUDA_SUCCESS
    }
    fn cuDeviceGetDefaultMemPool(pool: *mut Handle, dev: CUdevice) { out(pool, handle()); CUDA_SUCCESS }
    // The graph-memory pool: empty (no graph allocation node is modelled), its two high
    // watermarks reset by setting 0 and nothing else set, as the driver documents.
    fn cuDeviceGetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut u64) {
        if !(0..=3).contains(&attr) { return CUDA_ERROR_INVALID_VALUE; }
        out(value, 0u64);
        CUDA_SUCCESS
    }
    fn cuDeviceSetGraphMemAttribute(dev: CUdevice, attr: c_int, value: *mut u64) {
        // SAFETY: the caller passes a `cuuint64_t` to read.
        let zero = !value.is_null() && unsafe { value.read() } == 0;
        if (attr == 1 || attr == 3) && zero { CUDA_SUCCESS } else { CUDA_ERROR_INVALID_VALUE }
    }
    fn cuDeviceGraphMemTrim(dev: CUdevice) { CUDA_SUCCESS }
    fn cuDeviceGetMemPool(pool: *mut Handle, dev: CUdevice) { out(pool, handle()); CUDA_SUCCESS }
    fn cuDeviceGetExecAffinitySupport(v: *mut c_int, kind: c_int, dev: CUdevice) { out(v, 0); CUDA_SUCCESS }
}
