//! The program `external_leaked`: the routes by which safe code leaks a mapping of imported
//! memory instead of releasing it, each followed by the import's drop, which must then leave the
//! import behind (no `cuDestroyExternalMemory` under a mapping the driver still holds, which the
//! double reports as a violation): a mapped buffer forgotten (`mem::forget`) and a mapped
//! mipmapped array forgotten (swapping the mapped array out of its `MappedArray` does not
//! compile: `c30_mapped_array_swapped_out_of_its_mapping`). Each leaked mapping the program names to the double
//! as left behind on purpose (it leaked it); the import custack names itself. Last, a buffer and
//! an array mapped and released in turn: the import is destroyed, once. Contract row C30; under the failing runs, R10.

use super::external::memfd;
use crate::common::{N, unexpected};
use crate::double::{checkdriver_extension, counting};
use custack::{Context, DeviceMemory, ExternalMemory, MemoryHandle, Result, Stack};

/// The double's `custackCheckdriverLeftBehind`.
type LeftBehindFn =
    unsafe extern "C" fn(*const core::ffi::c_char, u64, u64) -> custack::ffi::CUresult;

/// Names `handle` of `kind` to the double as left behind on purpose.
pub(crate) fn left_behind(kind: &core::ffi::CStr, handle: u64) -> Result<()> {
    let pfn = checkdriver_extension(c"custackCheckdriverLeftBehind")?;
    // SAFETY: the double's extension has exactly this signature (`checkdriver/src/extensions.rs`).
    let f = unsafe { core::mem::transmute::<*mut core::ffi::c_void, LeftBehindFn>(pfn) };
    // SAFETY: a NUL-terminated kind name; the handle is only compared with the double's records.
    match unsafe { f(kind.as_ptr(), handle, 0) } {
        custack::ffi::CUresult::CUDA_SUCCESS => Ok(()),
        _ => Err(unexpected("the double does not know the leaked mapping")),
    }
}

/// Drops `memory`, which must make no `cuDestroyExternalMemory` call (a mapping of it leaked).
fn dropped_without_destroy(memory: ExternalMemory<'_>, route: &str) -> Result<()> {
    let ((), destroys) = counting("cuDestroyExternalMemory", || {
        drop(memory);
        Ok(())
    })?;
    if destroys != 0 {
        return Err(unexpected(&format!(
            "an import destroyed under a mapping leaked by {route}"
        )));
    }
    Ok(())
}

/// Leaks a mapping by each route, drops its import each time; then maps and releases both
/// kinds and drops the import.
pub(crate) fn external_leaked(ctx: &Context) -> Result<()> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let size = 16 * 1024;
    // SAFETY: a memfd of `size` bytes that nothing else touches; the double backs the import
    // with it (so each import below).
    let mut memory = unsafe { guard.import_memory(memfd(size)?, size, MemoryHandle::OpaqueFd)? };
    let buffer = memory.map_buffer::<u32>(0, N)?;
    let ptr = buffer.device_ptr();
    core::mem::forget(buffer);
    left_behind(c"DeviceMemory", ptr)?;
    dropped_without_destroy(memory, "mem::forget of a MappedBuffer")?;

    // SAFETY: as above.
    let mut memory = unsafe { guard.import_memory(memfd(size)?, size, MemoryHandle::OpaqueFd)? };
    let array = memory.map_mipmapped_array::<f32>(0, [16, 16, 1], 2)?;
    let raw = array.as_raw();
    core::mem::forget(array);
    left_behind(c"MipmappedArray", raw as u64)?;
    dropped_without_destroy(memory, "mem::forget of a MappedArray")?;

    // Released in turn: the import is destroyed, once (where a release fails, in the failing
    // runs, it is left behind instead, and the program ends with that error).
    // SAFETY: as above.
    let mut memory = unsafe { guard.import_memory(memfd(size)?, size, MemoryHandle::OpaqueFd)? };
    drop(memory.map_buffer::<u32>(0, N)?);
    drop(memory.map_mipmapped_array::<f32>(0, [16, 16, 1], 2)?);
    let ((), destroys) = counting("cuDestroyExternalMemory", || {
        drop(memory);
        Ok(())
    })?;
    if destroys != 1 {
        let errors = custack::take_drop_errors();
        return Err(errors.into_iter().next().unwrap_or_else(|| {
            unexpected("an import whose mappings were all released was not destroyed")
        }));
    }
    Ok(())
}
