//! Models `cuda.h` "Texture Object Management" (`group__CUDA__TEXOBJECT`), "Surface Object
//! Management" (`group__CUDA__SURFOBJECT`), and the array calls of "Memory Management": arrays and
//! mipmapped arrays, and the objects that read them (each checked against what it reads).

use super::common::{checking, out, read_field};
use super::types::{CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS, Handle};
use crate::check::{self, Kind};
use crate::data;
use crate::handles::handle;
use crate::mode::violation;
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

entry_points! {
    // An array keeps its bytes (`data.rs`), which 2D and 3D copies move.
    fn cuArray3DCreate_v2(array: *mut Handle, desc: *const c_void) {
        let h = handle();
        check::created(Kind::Array, h as usize, 0);
        if let Some((dims, element)) = array_shape(desc) {
            data::array_created(h as usize, dims, element);
        }
        made_with_flags(h as usize, array_flags(desc));
        out(array, h);
        CUDA_SUCCESS
    }
    fn cuArrayDestroy(array: Handle) releases(Kind::Array, array as usize) {
        check::freeing(Kind::Array, array as usize, None, "cuArrayDestroy");
        if check::destroyed(Kind::Array, array as usize, "cuArrayDestroy") {
            data::array_destroyed(array as usize);
            made_with_flags(array as usize, SURFACE_LDST);
        }
        CUDA_SUCCESS
    }
    fn cuMipmappedArrayCreate(array: *mut Handle, desc: *const c_void, levels: c_uint) {
        let h = handle();
        check::created(Kind::MipmappedArray, h as usize, 0);
        let flags = array_flags(desc);
        if let Some((dims, element)) = array_shape(desc) {
            data::mipmapped_created(h as usize, dims, element, levels, flags & LAYERED != 0);
        }
        made_with_flags(h as usize, flags);
        out(array, h);
        CUDA_SUCCESS
    }
    fn cuMipmappedArrayGetLevel(level_array: *mut Handle, array: Handle, level: c_uint) {
        check::used(Kind::MipmappedArray, array as usize, "cuMipmappedArrayGetLevel");
        let h = handle();
        check::created(Kind::ArrayLevel, h as usize, array as usize);
        data::level_taken(h as usize, array as usize, level);
        out(level_array, h);
        CUDA_SUCCESS
    }
    fn cuMipmappedArrayDestroy(array: Handle) releases(Kind::MipmappedArray, array as usize) {
        check::freeing(Kind::MipmappedArray, array as usize, None, "cuMipmappedArrayDestroy");
        if check::destroyed(Kind::MipmappedArray, array as usize, "cuMipmappedArrayDestroy") {
            data::array_destroyed(array as usize);
            made_with_flags(array as usize, SURFACE_LDST);
        }
        CUDA_SUCCESS
    }
    fn cuTexObjectCreate(tex: *mut c_ulonglong, res: *const c_void, desc: *const c_void, view: *const c_void) {
        let parent = resource_used(res, "cuTexObjectCreate");
        let h = handle().addr();
        check::created(Kind::TexObject, h, parent);
        out(tex, h as c_ulonglong);
        CUDA_SUCCESS
    }
    fn cuTexObjectDestroy(tex: c_ulonglong) {
        let _ = check::destroyed(Kind::TexObject, tex as usize, "cuTexObjectDestroy");
        CUDA_SUCCESS
    }
    fn cuSurfObjectCreate(surf: *mut c_ulonglong, res: *const c_void) {
        if let Some(array) = array_without_surface(res) {
            violation(&format!(
                "cuSurfObjectCreate: {array:#x} was made without CUDA_ARRAY3D_SURFACE_LDST, \
                 which a surface needs"
            ));
            return CUDA_ERROR_INVALID_VALUE;
        }
        let parent = resource_used(res, "cuSurfObjectCreate");
        let h = handle().addr();
        check::created(Kind::SurfObject, h, parent);
        out(surf, h as c_ulonglong);
        CUDA_SUCCESS
    }
    fn cuSurfObjectDestroy(surf: c_ulonglong) {
        let _ = check::destroyed(Kind::SurfObject, surf as usize, "cuSurfObjectDestroy");
        CUDA_SUCCESS
    }
}

/// `CUDA_ARRAY3D_LAYERED` and `CUDA_ARRAY3D_SURFACE_LDST` (cuda.h).
pub(crate) const LAYERED: c_uint = 0x01;
const SURFACE_LDST: c_uint = 0x02;

/// The arrays and mipmapped arrays made without `CUDA_ARRAY3D_SURFACE_LDST` (checking mode):
/// the driver binds no surface to them, nor to a level of one.
static NO_SURFACE: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

/// Array or mipmapped array `h` was made with `flags` (or is gone: `SURFACE_LDST`).
pub(crate) fn made_with_flags(h: usize, flags: c_uint) {
    if !checking() {
        return;
    }
    let mut set = NO_SURFACE.lock().unwrap_or_else(PoisonError::into_inner);
    if flags & SURFACE_LDST == 0 {
        set.insert(h);
    } else {
        set.remove(&h);
    }
}

/// The array (or the mipmapped array of the level) a `CUDA_RESOURCE_DESC` at `res` names, if
/// it was made without `CUDA_ARRAY3D_SURFACE_LDST`.
///
/// # Safety
///
/// `res` is null or points to a `CUDA_RESOURCE_DESC`.
unsafe fn array_without_surface(res: *const c_void) -> Option<usize> {
    if res.is_null() || !checking() {
        return None;
    }
    // SAFETY: as in `resource_used`: `resType` at 0.
    let res_type = unsafe { read_field::<c_int>(res, 0) };
    // SAFETY: as above: the union's first member at 8.
    let first = unsafe { read_field::<u64>(res, 8) };
    if res_type != 0 {
        return None;
    }
    let first = usize::try_from(first).ok()?;
    // A level's owner is its mipmapped array; an array's is itself.
    let (_, owner) = check::owner_of((Kind::ArrayLevel, first));
    let set = NO_SURFACE.lock().unwrap_or_else(PoisonError::into_inner);
    set.contains(&owner).then_some(owner)
}

/// The `Flags` of the `CUDA_ARRAY3D_DESCRIPTOR` at `desc` (at offset 32); for a null one (the
/// double's own tests make arrays so) or outside checking mode, `SURFACE_LDST` alone, which
/// refuses nothing.
///
/// # Safety
///
/// `desc` is null or points to a `CUDA_ARRAY3D_DESCRIPTOR`.
pub(crate) unsafe fn array_flags(desc: *const c_void) -> c_uint {
    if desc.is_null() || !checking() {
        return SURFACE_LDST;
    }
    // SAFETY: a non-null `desc` is a `CUDA_ARRAY3D_DESCRIPTOR`, whose `Flags` is at 32.
    unsafe { read_field::<c_uint>(desc, 32) }
}

/// An array's dimensions (width, height, depth: 0 for a dimension it lacks) and element bytes,
/// from the `CUDA_ARRAY3D_DESCRIPTOR` at `desc` (`Width`, `Height`, `Depth` at 0, 8, 16, its
/// `Format` at 24 and `NumChannels` at 28); `None` for a null descriptor or a format whose
/// elements the double does not size (block-compressed ones).
///
/// # Safety
///
/// `desc` is null or points to a `CUDA_ARRAY3D_DESCRIPTOR`.
pub(crate) unsafe fn array_shape(desc: *const c_void) -> Option<([usize; 3], usize)> {
    if desc.is_null() || !checking() {
        return None;
    }
    // SAFETY: a non-null `desc` is a `CUDA_ARRAY3D_DESCRIPTOR` (this function's contract),
    // which holds `Width`, `Height` and `Depth` at these offsets.
    let field = |offset: usize| unsafe { read_field::<usize>(desc, offset) };
    let dims = [field(0), field(8), field(16)];
    // SAFETY: as above.
    let format = unsafe { read_field::<c_uint>(desc, 24) };
    // SAFETY: as above.
    let channels = unsafe { read_field::<c_uint>(desc, 28) };
    Some((dims, data::element_bytes(format, channels)?))
}

/// The resource a `CUDA_RESOURCE_DESC` at `res` names (`resType` at offset 0, then the union
/// at offset 8, whose first member is the array, the mipmapped array or the device pointer),
/// checked live and of the current context; returns it, for the object's parent.
///
/// # Safety
///
/// `res` is null or points to a `CUDA_RESOURCE_DESC`.
unsafe fn resource_used(res: *const c_void, what: &str) -> usize {
    if res.is_null() {
        return 0;
    }
    // SAFETY: a non-null `res` is a `CUDA_RESOURCE_DESC` (this function's contract), whose
    // `resType` is at 0 and the first member of its union at 8.
    let res_type = unsafe { read_field::<c_int>(res, 0) };
    // SAFETY: as above.
    let first = unsafe { read_field::<u64>(res, 8) };
    match res_type {
        0 => check::used_array(first as usize, what).1,
        1 => {
            check::used(Kind::MipmappedArray, first as usize, what);
            first as usize
        }
        _ => {
            check::used_address(first, what);
            check::allocation_of(first)
        }
    }
}
