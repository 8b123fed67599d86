//! Lookups in a module loaded from a cubin, in the checking mode: the double reads the image's
//! symbol table (`cuda::cubin` builds one), so `cuModuleGetFunction` finds the kernels it
//! defines and refuses any other name with `CUDA_ERROR_NOT_FOUND`, as the driver does (and as
//! the double does for PTX). A CUDA ELF image with no symbol table still answers every name.
//! The checking driver is linked in as an rlib (its entry points are plain Rust functions).

#![allow(
    clippy::multiple_unsafe_ops_per_block,
    reason = "raw call sequences, C programs in Rust syntax: each block is one sequence of the \
              double's entry points under the contract its SAFETY comment states"
)]

use core::ffi::{CStr, c_void};
use core::ptr::null_mut;

const CUDA_ERROR_INVALID_VALUE: i32 = 1;
const CUDA_ERROR_NO_BINARY_FOR_GPU: i32 = 209;
const CUDA_ERROR_NOT_FOUND: i32 = 500;
const CUDA_ERROR_NOT_SUPPORTED: i32 = 801;

/// The result of `cuModuleGetFunction(module, name)`.
fn get_function(module: *mut c_void, name: &CStr) -> i32 {
    let mut f = null_mut();
    // SAFETY: a valid out-pointer, a module of the current context, a NUL-terminated name.
    unsafe { cuda::cuModuleGetFunction(&raw mut f, module, name.as_ptr()) }
}

/// Loads `image` in a new context, runs `f` on the module, then unloads it and destroys the
/// context, checking every call and that the double saw no violation.
fn with_module(image: &[u8], f: impl FnOnce(*mut c_void)) {
    cuda::start_checking(0, 0);
    let (mut ctx, mut module) = (null_mut(), null_mut());
    // SAFETY: valid out-pointers; `image` is a complete ELF image (the double reads its header,
    // its section table and its sections, all within the slice).
    unsafe {
        assert_eq!(cuda::cuInit(0), 0);
        assert_eq!(cuda::cuCtxCreate_v2(&raw mut ctx, 0, 0), 0);
        assert_eq!(
            cuda::cuModuleLoadData(&raw mut module, image.as_ptr().cast()),
            0
        );
    }
    f(module);
    // SAFETY: the module and context made above.
    unsafe {
        assert_eq!(cuda::cuModuleUnload(module), 0);
        assert_eq!(cuda::cuCtxDestroy_v2(ctx), 0);
    }
    let report = cuda::report();
    assert!(report.contains("violations 0\n"), "{report}");
}

#[test]
fn a_cubin_answers_only_the_functions_it_defines() {
    let image = cuda::cubin(&["frame_blur", "frame_gain"], &["cudaLaunchDeviceV2"]);
    with_module(&image, |module| {
        assert_eq!(get_function(module, c"frame_blur"), 0);
        assert_eq!(get_function(module, c"frame_gain"), 0);
        assert_eq!(get_function(module, c"frame_sharpen"), CUDA_ERROR_NOT_FOUND);
        // An undefined symbol (a reference to the device runtime) is no function of it.
        assert_eq!(
            get_function(module, c"cudaLaunchDeviceV2"),
            CUDA_ERROR_NOT_FOUND
        );
    });
}

#[test]
fn an_elf_image_without_a_symbol_table_answers_every_name() {
    // A CUDA ELF64 image whose one section (but the null one) holds the section names: nothing
    // is known of its functions. (A bare header, without sections, is no image: the driver
    // refuses it, and so does the double.)
    let mut image = [0u8; 193];
    image[..9].copy_from_slice(b"\x7fELF\x02\x01\x01\x33\x07");
    image[0x12] = 190; // EM_CUDA
    image[0x28] = 64; // e_shoff
    image[0x30..0x34].copy_from_slice(&0x5a_u32.to_le_bytes()); // sm_90
    image[0x3a] = 64; // e_shentsize
    image[0x3c] = 2; // e_shnum
    image[0x3e] = 1; // e_shstrndx
    image[128 + 4] = 3; // SHT_STRTAB
    image[128 + 0x18] = 192; // its offset
    image[128 + 0x20] = 1; // its size
    with_module(&image, |module| {
        assert_eq!(get_function(module, c"anything"), 0);
    });
}

/// The header of a cubin of CUDA 13's ELF ABI (`EI_ABIVERSION` 8, `EI_OSABI` 0x41), whose
/// `e_flags` hold the SM in their second byte: NVRTC 13.0 writes `0x6005a04` for `sm_90`.
fn cuda13(mut image: Vec<u8>, sm: u8) -> Vec<u8> {
    image[7] = 0x41;
    image[8] = 8;
    image[0x30..0x34].copy_from_slice(&(0x0600_0004_u32 | u32::from(sm) << 8).to_le_bytes());
    image
}

/// A cubin built for another architecture than the device's (`sm_80` on the double's H100) is
/// refused with `CUDA_ERROR_NO_BINARY_FOR_GPU`, as the driver refuses it; the same cubin built
/// for `sm_90` loads, in CUDA 12's ELF ABI and in CUDA 13's.
#[test]
fn a_cubin_for_another_architecture_has_no_code_for_the_device() {
    let image = cuda::cubin(&["frame_blur"], &[]);
    let mut sm80 = image.clone();
    sm80[0x30] = 80;
    let sm80_13 = cuda13(image.clone(), 80);
    cuda::start_checking(0, 0);
    let (mut ctx, mut module) = (null_mut(), null_mut());
    // SAFETY: valid out-pointers; both images are complete ELF images.
    unsafe {
        assert_eq!(cuda::cuInit(0), 0);
        assert_eq!(cuda::cuCtxCreate_v2(&raw mut ctx, 0, 0), 0);
        assert_eq!(
            cuda::cuModuleLoadData(&raw mut module, sm80.as_ptr().cast()),
            CUDA_ERROR_NO_BINARY_FOR_GPU
        );
        assert_eq!(
            cuda::cuModuleLoadData(&raw mut module, sm80_13.as_ptr().cast()),
            CUDA_ERROR_NO_BINARY_FOR_GPU
        );
        assert_eq!(cuda::cuCtxDestroy_v2(ctx), 0);
    }
    with_module(&image, |module| {
        assert_eq!(get_function(module, c"frame_blur"), 0);
    });
    // Its low byte is 4 for sm_90: read as CUDA 12's, it would be refused.
    with_module(&cuda13(image, 90), |module| {
        assert_eq!(get_function(module, c"frame_blur"), 0);
    });
}

/// `cuFuncGetParamInfo(f, index)`: the result, the offset and the size.
fn param_info(f: *mut c_void, index: usize) -> (i32, usize, usize) {
    let (mut offset, mut size) = (usize::MAX, usize::MAX);
    // SAFETY: valid out-pointers, a function of a loaded module.
    let r = unsafe { cuda::cuFuncGetParamInfo(f, index, &raw mut offset, &raw mut size) };
    (r, offset, size)
}

/// The function `name` of `module`, which must have it.
fn function(module: *mut c_void, name: &CStr) -> *mut c_void {
    let mut f = null_mut();
    // SAFETY: a valid out-pointer, a module of the current context, a NUL-terminated name.
    let r = unsafe { cuda::cuModuleGetFunction(&raw mut f, module, name.as_ptr()) };
    assert_eq!(r, 0);
    f
}

const FRAME_DECLARATIONS: &str = ".version 7.0\n.target sm_90\n.address_size 64\n\
    .visible .entry frame_blur(.param .u64 input, .param .u64 output, .param .u32 width, \
    .param .u32 height) { ret; }\n\
    .visible .entry frame_gain(.param .u64 data, .param .f32 gain, .param .u32 n) { ret; }\n";

#[test]
fn a_stand_in_cubin_gives_the_driver_its_kernels_parameters() {
    let image = cuda::stand_in_cubin(&["frame_blur", "frame_gain"], &[], FRAME_DECLARATIONS);
    with_module(&image, |module| {
        assert_eq!(get_function(module, c"frame_sharpen"), CUDA_ERROR_NOT_FOUND);
        let gain = function(module, c"frame_gain");
        // data at 0 (8 bytes), gain at 8 (4), n at 12 (4); no fourth parameter.
        assert_eq!(param_info(gain, 0), (0, 0, 8));
        assert_eq!(param_info(gain, 1), (0, 8, 4));
        assert_eq!(param_info(gain, 2), (0, 12, 4));
        assert_eq!(param_info(gain, 3).0, CUDA_ERROR_INVALID_VALUE);
        let blur = function(module, c"frame_blur");
        assert_eq!(param_info(blur, 3), (0, 20, 4));
    });
}

#[test]
fn a_cubin_without_the_declarations_section_gives_no_parameters() {
    // The plain cubin, and a stand-in cubin whose section was renamed: the driver knows the
    // kernels from the symbol table, but not their parameters.
    let plain = cuda::cubin(&["frame_gain"], &[]);
    let mut renamed = cuda::stand_in_cubin(&["frame_gain"], &[], FRAME_DECLARATIONS);
    let at = renamed
        .windows(cuda::DECLARATIONS_SECTION.len())
        .position(|w| w == cuda::DECLARATIONS_SECTION.as_bytes())
        .unwrap();
    renamed[at + 1] = b'k';
    assert_eq!(cuda::declarations(&renamed), None);
    for image in [plain, renamed] {
        with_module(&image, |module| {
            let gain = function(module, c"frame_gain");
            assert_eq!(param_info(gain, 0).0, CUDA_ERROR_NOT_SUPPORTED);
        });
    }
}
