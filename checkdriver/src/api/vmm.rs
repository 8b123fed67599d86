//! Models `cuda.h` "Virtual Memory Management" (`group__CUDA__VA`): address ranges reserved,
//! physical allocations made, exported to and imported from shareable handles (`share.rs`), mapped,
//! given access and unmapped, each step checked in order.

use super::common::out;
use super::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, CUdeviceptr};
use crate::check::{self, Kind};
use crate::handles::{device_address, handle};
use crate::{data, share};
use core::ffi::{c_int, c_ulonglong, c_void};

entry_points! {
    fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, align: usize, addr: CUdeviceptr, flags: c_ulonglong) {
        let base = device_address(size);
        check::reserved(base, size);
        out(ptr, base);
        CUDA_SUCCESS
    }
    fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) {
        check::reservation_freed(ptr, size);
        CUDA_SUCCESS
    }
    fn cuMemCreate(h: *mut c_ulonglong, size: usize, prop: *const c_void, flags: c_ulonglong) {
        let new = handle().addr() as c_ulonglong;
        check::physical_created(new, size);
        // `CUmemAllocationProp::requestedHandleTypes`, the second `int`.
        let requested = if prop.is_null() { 0 } else { prop.cast::<c_int>().add(1).read() };
        share::created(new, size, requested);
        data::physical_created(new, size, None);
        out(h, new);
        CUDA_SUCCESS
    }
    // An exported allocation is a real descriptor (a memfd holding a marker, a token, its size
    // and handle types) or a fabric handle (the same 32 bytes), which an import in this process maps back to it: a
    // new handle of the same size, which must be released like any (a leak otherwise).
    fn cuMemExportToShareableHandle(os: *mut c_void, h: c_ulonglong, kind: c_int, flags: c_ulonglong) {
        check::used(Kind::Physical, h as usize, "cuMemExportToShareableHandle");
        share::export(os, h, kind)
    }
    fn cuMemImportFromShareableHandle(h: *mut c_ulonglong, os: *mut c_void, kind: c_int) {
        match share::import(os, kind) {
            Some((size, requested, shared)) => {
                let new = handle().addr() as c_ulonglong;
                check::physical_created(new, size);
                share::created(new, size, requested);
                // This process's own export: the same memory (the H200 run read back, through
                // the import, what was written through the export's mapping).
                data::physical_created(new, size, shared);
                out(h, new);
                CUDA_SUCCESS
            }
            None => CUDA_ERROR_INVALID_VALUE,
        }
    }
    fn cuMemGetAllocationPropertiesFromHandle(prop: *mut c_void, h: c_ulonglong) {
        check::used(Kind::Physical, h as usize, "cuMemGetAllocationPropertiesFromHandle");
        let requested = share::requested(h);
        // `CUmemAllocationProp`: pinned, the handle types, on device 0, no Windows metadata.
        let mut bytes = [0u8; 32];
        bytes[..4].copy_from_slice(&1i32.to_ne_bytes());
        bytes[4..8].copy_from_slice(&requested.to_ne_bytes());
        bytes[8..12].copy_from_slice(&1i32.to_ne_bytes());
        out(prop.cast::<[u8; 32]>(), bytes);
        CUDA_SUCCESS
    }
    // Released while mapped is allowed: the driver frees the memory once it is unmapped.
    fn cuMemRelease(h: c_ulonglong) {
        if check::destroyed(Kind::Physical, h as usize, "cuMemRelease") {
            data::physical_released(h);
        }
        CUDA_SUCCESS
    }
    // A mapped range's bytes are its physical memory's (`data.rs`): the H200 run read back
    // through mappings what the double had left as zeroes.
    fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, h: c_ulonglong, flags: c_ulonglong) {
        if !check::mapping(ptr, size, offset, h) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        data::mapped(ptr, size, offset, h);
        CUDA_SUCCESS
    }
    fn cuMemUnmap(ptr: CUdeviceptr, size: usize) {
        check::unmapping(ptr, size);
        data::unmapped(ptr, size);
        CUDA_SUCCESS
    }
    fn cuMemSetAccess(ptr: CUdeviceptr, size: usize, desc: *const c_void, n: usize) {
        check::access_set(ptr, size);
        CUDA_SUCCESS
    }
    fn cuMemGetAllocationGranularity(g: *mut usize, prop: *const c_void, option: c_int) {
        out(g, 2 << 20);
        CUDA_SUCCESS
    }
}
