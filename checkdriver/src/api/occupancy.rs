//! Models `cuda.h` "Occupancy" (`group__CUDA__OCCUPANCY`): fixed, plausible answers.

use super::common::out;
use super::types::{CUDA_SUCCESS, Handle};
use core::ffi::c_int;

entry_points! {
    fn cuOccupancyMaxActiveBlocksPerMultiprocessor(n: *mut c_int, f: Handle, block: c_int, smem: usize) {
        out(n, 8);
        CUDA_SUCCESS
    }
    fn cuOccupancyMaxPotentialBlockSize(
        grid: *mut c_int,
        block: *mut c_int,
        f: Handle,
        b2d: Option<unsafe extern "C" fn(c_int) -> usize>,
        smem: usize,
        limit: c_int,
    ) {
        out(grid, 264);
        out(block, 1024);
        CUDA_SUCCESS
    }
    fn cuOccupancyAvailableDynamicSMemPerBlock(bytes: *mut usize, f: Handle, n: c_int, block: c_int) {
        out(bytes, 48 << 10);
        CUDA_SUCCESS
    }
}
