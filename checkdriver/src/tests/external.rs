//! The double's own tests. External resources: an import takes its file descriptor only on
//! success and closes it at its destruction (a descriptor the program closed meanwhile is
//! reported); a dma-buf is refused; a buffer mapped onto an import must be freed before it; a
//! semaphore with a wait or signal pending on a stream must not be destroyed; each handle is
//! of its context; a mipmapped array mapped without `CUDA_ARRAY3D_SURFACE_LDST` takes no
//! surface, and a layered one's levels keep its layers.

use super::*;
use std::os::fd::{FromRawFd, IntoRawFd, RawFd};

/// A file of `size` bytes, its descriptor handed out (owned by the caller from now on).
fn file_fd(size: u64) -> RawFd {
    let path = std::env::temp_dir().join(format!(
        "custack-checkdriver-external-{}-{size}",
        std::process::id()
    ));
    let file = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.set_len(size)
        .unwrap_or_else(|e| panic!("set_len: {e}"));
    let _ = std::fs::remove_file(&path);
    file.into_raw_fd()
}

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC`'s bytes as cuda.h lays them out (104 bytes).
fn memory_desc(type_: c_int, fd: RawFd, size: u64) -> [u64; 13] {
    let mut d = [0u64; 13];
    d[0] = u64::from(type_.cast_unsigned());
    d[1] = u64::from(fd.cast_unsigned());
    d[3] = size;
    d
}

/// `CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC`'s bytes (96 bytes).
fn semaphore_desc(type_: c_int, fd: RawFd) -> [u64; 12] {
    let mut d = [0u64; 12];
    d[0] = u64::from(type_.cast_unsigned());
    d[1] = u64::from(fd.cast_unsigned());
    d
}

/// Whether `fd` is open.
fn is_open(fd: RawFd) -> bool {
    // SAFETY: only a duplicate is made (and dropped), or `EBADF` returned.
    unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) }
        .try_clone_to_owned()
        .is_ok()
}

#[test]
#[cfg_attr(
    miri,
    ignore = "makes files and duplicates descriptors, which Miri's isolation refuses"
)]
fn imports_take_their_descriptor_and_order_their_mappings() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers and descriptors (this
    // test's locals) and handles the double made; the wrong sequences misuse the driver's
    // contract, which the double records, not Rust's.
    unsafe {
        let _ = ctx();
        let fd = file_fd(4096);
        let mut ext: Handle = null_mut();
        // A dma-buf: refused, nothing taken.
        let d = memory_desc(9, fd, 4096);
        assert_eq!(
            cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
            CUDA_ERROR_NOT_SUPPORTED
        );
        assert!(is_open(fd), "a refused import takes nothing");
        // Larger than the file: refused.
        let d = memory_desc(1, fd, 8192);
        assert_eq!(
            cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
            CUDA_ERROR_INVALID_VALUE
        );
        // Imported, mapped, freed, destroyed in order: clean, the descriptor closed at the end.
        let d = memory_desc(1, fd, 4096);
        let mut p: CUdeviceptr = 0;
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
                    CUDA_SUCCESS
                );
                let b = [0u64, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0];
                assert_eq!(
                    cuExternalMemoryGetMappedBuffer(&raw mut p, ext, b.as_ptr().cast()),
                    CUDA_SUCCESS
                );
                let _ = cuMemsetD8_v2(p, 3, 4096);
                let _ = cuMemFree_v2(p);
                let _ = cuDestroyExternalMemory(ext);
            }),
            0,
            "import, map, use, free, destroy"
        );
        assert!(
            !is_open(fd),
            "the driver closes what it took when the import dies"
        );
        // Past the import's size: refused.
        let fd = file_fd(4096);
        let d = memory_desc(1, fd, 4096);
        assert_eq!(
            cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
            CUDA_SUCCESS
        );
        let b = [8u64, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            cuExternalMemoryGetMappedBuffer(&raw mut p, ext, b.as_ptr().cast()),
            CUDA_ERROR_INVALID_VALUE
        );
        // The import destroyed while a buffer is mapped onto it.
        let b = [0u64, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            cuExternalMemoryGetMappedBuffer(&raw mut p, ext, b.as_ptr().cast()),
            CUDA_SUCCESS
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuDestroyExternalMemory(ext);
            }),
            1,
            "destroyed under its mapping"
        );
        // The program closes the descriptor the driver took.
        let fd = file_fd(4096);
        let d = memory_desc(1, fd, 4096);
        assert_eq!(
            cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
            CUDA_SUCCESS
        );
        drop(std::os::fd::OwnedFd::from_raw_fd(fd));
        assert_eq!(
            violations_of(|| {
                let _ = cuDestroyExternalMemory(ext);
            }),
            1,
            "the driver's descriptor closed by the program"
        );
        // A descriptor that is not open.
        let d = memory_desc(1, fd, 4096);
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
                    CUDA_ERROR_INVALID_VALUE
                );
            }),
            1,
            "a closed descriptor imported"
        );
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "makes files and duplicates descriptors, which Miri's isolation refuses"
)]
fn semaphores_pend_on_their_stream_and_belong_to_their_context() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as in the test above.
    unsafe {
        let a = ctx();
        let fd = file_fd(0);
        let mut sem: Handle = null_mut();
        let d = semaphore_desc(9, fd);
        assert_eq!(
            cuImportExternalSemaphore(&raw mut sem, d.as_ptr().cast()),
            CUDA_SUCCESS
        );
        let mut stream: Handle = null_mut();
        let _ = cuStreamCreate(&raw mut stream, 0);
        let params = [0u64; 18];
        assert_eq!(
            violations_of(|| {
                let _ = cuWaitExternalSemaphoresAsync(
                    &raw const sem,
                    params.as_ptr().cast(),
                    1,
                    stream,
                );
                let _ = cuSignalExternalSemaphoresAsync(
                    &raw const sem,
                    params.as_ptr().cast(),
                    1,
                    stream,
                );
            }),
            0,
            "a wait and a signal enqueued"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuDestroyExternalSemaphore(sem);
            }),
            1,
            "destroyed with its wait pending"
        );
        // Another: waited for, then destroyed: clean; used from another context: reported.
        let fd = file_fd(0);
        let d = semaphore_desc(1, fd);
        assert_eq!(
            cuImportExternalSemaphore(&raw mut sem, d.as_ptr().cast()),
            CUDA_SUCCESS
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuWaitExternalSemaphoresAsync(
                    &raw const sem,
                    params.as_ptr().cast(),
                    1,
                    stream,
                );
                let _ = cuStreamSynchronize(stream);
            }),
            0,
            "a wait, then the stream synchronized"
        );
        let b = ctx();
        let mut other: Handle = null_mut();
        let _ = cuStreamCreate(&raw mut other, 0);
        assert_eq!(
            violations_of(|| {
                let _ = cuSignalExternalSemaphoresAsync(
                    &raw const sem,
                    params.as_ptr().cast(),
                    1,
                    other,
                );
            }),
            1,
            "a semaphore of another context"
        );
        let _ = cuStreamSynchronize(other);
        let mut popped = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut popped);
        assert_eq!(popped, b);
        assert_eq!(
            violations_of(|| {
                let _ = cuDestroyExternalSemaphore(sem);
            }),
            0,
            "destroyed once its work is over, in its context"
        );
        assert!(!is_open(fd), "closed with the import");
        let _ = a;
    }
}

/// `CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC`'s bytes (120): `offset`, then the array
/// descriptor (`Width`, `Height`, `Depth`, `Format` and `NumChannels`, `Flags`), then
/// `numLevels`; one `float` channel.
fn mipmapped_desc([w, h, d]: [u64; 3], flags: u32, levels: u32) -> [u64; 15] {
    let mut desc = [0u64; 15];
    (desc[1], desc[2], desc[3]) = (w, h, d);
    desc[4] = 0x20 | (1 << 32); // CU_AD_FORMAT_FLOAT, 1 channel
    desc[5] = u64::from(flags);
    desc[6] = u64::from(levels);
    desc
}

#[test]
#[cfg_attr(
    miri,
    ignore = "makes files and duplicates descriptors, which Miri's isolation refuses"
)]
fn mapped_arrays_keep_their_flags_surfaces_and_layers() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as in the tests above; the resource descriptors are this test's locals.
    unsafe {
        let _ = ctx();
        let fd = file_fd(1 << 20);
        let mut ext: Handle = null_mut();
        let d = memory_desc(1, fd, 1 << 20);
        assert_eq!(
            cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
            CUDA_SUCCESS
        );
        let surface_over = |level: Handle| {
            let mut r = [0u64; 18];
            r[1] = level as u64; // `resType` 0: an array
            let mut s: c_ulonglong = 0;
            let result = cuSurfObjectCreate(&raw mut s, r.as_ptr().cast());
            if result == CUDA_SUCCESS {
                let _ = cuSurfObjectDestroy(s);
            }
            result
        };
        // SURFACE_LDST (0x02) alone or with COLOR_ATTACHMENT (0x20): a surface over a level is
        // clean; COLOR_ATTACHMENT or LAYERED (0x01) without it: refused, and reported.
        for (flags, surface) in [
            (0x02, true),
            (0x22, true),
            (0x20, false),
            (0x01, false),
            (0x21, false),
            (0x00, false),
        ] {
            let mut mip: Handle = null_mut();
            let desc = mipmapped_desc([16, 16, 4], flags, 2);
            assert_eq!(
                cuExternalMemoryGetMappedMipmappedArray(&raw mut mip, ext, desc.as_ptr().cast()),
                CUDA_SUCCESS
            );
            let mut level: Handle = null_mut();
            let _ = cuMipmappedArrayGetLevel(&raw mut level, mip, 1);
            let (result, violations) = {
                let mut result = CUDA_SUCCESS;
                let n = violations_of(|| result = surface_over(level));
                (result, n)
            };
            if surface {
                assert_eq!((result, violations), (CUDA_SUCCESS, 0), "flags {flags:#x}");
            } else {
                assert_eq!(
                    (result, violations),
                    (CUDA_ERROR_INVALID_VALUE, 1),
                    "flags {flags:#x}: a surface without CUDA_ARRAY3D_SURFACE_LDST"
                );
            }
            // Level 1 of 16 × 16 × 4: 8 × 8 of 4 layers if layered, of 2 slices if not.
            let bytes = data::array_bytes(level as usize).expect("the level's bytes");
            assert_eq!((bytes.row, bytes.rows), (8 * 4, 8), "flags {flags:#x}");
            let slice = bytes.row * bytes.rows;
            let layered = flags & 0x01 != 0;
            assert!(
                data::snapshot(bytes.at, slice * 2).is_ok(),
                "flags {flags:#x}: 2 slices"
            );
            assert_eq!(
                data::snapshot(bytes.at, slice * 4).is_ok(),
                layered,
                "flags {flags:#x}: every layer kept at level 1 only if layered"
            );
            assert_eq!(
                violations_of(|| {
                    let _ = cuMipmappedArrayDestroy(mip);
                }),
                0,
                "flags {flags:#x}: destroyed before its import"
            );
        }
        assert_eq!(
            violations_of(|| {
                let _ = cuDestroyExternalMemory(ext);
            }),
            0,
            "every mapping destroyed first"
        );
    }
}

/// An array mapped past the import's end: one whose levels, packed, do not fit is a violation
/// (custack refuses it before asking), refused; one that fits packed but not as the double lays
/// it out (rows padded to 64 bytes, heights to 8 rows) is refused as driver 580 was measured to
/// refuse it (`CUDA_ERROR_INVALID_VALUE`), without a violation: custack cannot know the layout.
#[test]
#[cfg_attr(
    miri,
    ignore = "makes files and duplicates descriptors, which Miri's isolation refuses"
)]
fn an_array_past_the_import_is_refused_and_reported_where_custack_could_tell() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as in the tests above; the descriptors are this test's locals.
    unsafe {
        let _ = ctx();
        let size = 16 * 1024;
        let fd = file_fd(size);
        let mut ext: Handle = null_mut();
        let d = memory_desc(1, fd, size);
        assert_eq!(
            cuImportExternalMemory(&raw mut ext, d.as_ptr().cast()),
            CUDA_SUCCESS
        );
        let map = |offset: u64, extent: [u64; 3]| {
            let mut desc = mipmapped_desc(extent, 0x02, 1);
            desc[0] = offset;
            let mut mip: Handle = null_mut();
            let mut result = CUDA_SUCCESS;
            let n = violations_of(|| {
                result = cuExternalMemoryGetMappedMipmappedArray(
                    &raw mut mip,
                    ext,
                    desc.as_ptr().cast(),
                );
            });
            if result == CUDA_SUCCESS {
                let _ = cuMipmappedArrayDestroy(mip);
            }
            (result, n)
        };
        // 64 × 64 `float`s: the whole import, packed and tiled (rows of 256 bytes).
        assert_eq!(map(0, [64, 64, 0]), (CUDA_SUCCESS, 0));
        // Packed past the end: reported.
        assert_eq!(map(4, [64, 64, 0]), (CUDA_ERROR_INVALID_VALUE, 1));
        // A column of 64: 256 bytes packed, 64 × 64 tiled, in the last 256 bytes: refused.
        assert_eq!(map(size - 256, [1, 64, 0]), (CUDA_ERROR_INVALID_VALUE, 0));
        // The same at offset 0: it fits either way.
        assert_eq!(map(0, [1, 64, 0]), (CUDA_SUCCESS, 0));
        assert_eq!(
            violations_of(|| {
                let _ = cuDestroyExternalMemory(ext);
            }),
            0
        );
    }
}
