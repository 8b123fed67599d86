//! Lookups in a module loaded from a cubin, in the checking mode: the double reads the image's
//! symbol table (`cuda::cubin` builds one), so `cuModuleGetFunction` finds the kernels it
//! defines and refuses any other name with `CUDA_ERROR_NOT_FOUND`, as the driver does (and as
//! the double does for PTX). An ELF image with no symbol table still answers every name.
//! The checking driver is linked in as an rlib (its entry points are plain Rust functions).

use core::ffi::{CStr, c_void};
use core::ptr::null_mut;

const CUDA_ERROR_NOT_FOUND: i32 = 500;

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
    // A bare ELF64 header with no sections: nothing is known of its functions.
    let mut image = [0u8; 64];
    image[..7].copy_from_slice(b"\x7fELF\x02\x01\x01");
    with_module(&image, |module| {
        assert_eq!(get_function(module, c"anything"), 0);
    });
}
