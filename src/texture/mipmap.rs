//! Mipmapped CUDA arrays: an image and its levels of detail, each half the size of the one
//! before (`cuMipmappedArrayCreate`).
//!
//! A [`MipmappedArray`] owns its levels: each level is a CUDA array the driver hands out
//! (`cuMipmappedArrayGetLevel`) and destroys with the mipmapped array, so custack never gives one
//! out as an owned [`CudaArray`](crate::CudaArray). Levels are copied to and from packed host
//! elements ([`MipmappedArray::copy_level_from_host`], [`MipmappedArray::level_to_vec`]), written
//! by kernels through a surface over one level ([`PushedGuard::surface_level`], which borrows the
//! whole mipmapped array exclusively), and read by kernels through a texture over all of them
//! ([`TextureResource::mipmapped`](crate::TextureResource::mipmapped), which borrows it shared),
//! with an explicit level of detail (`tex2DLod`) or gradients (`tex2DGrad`).

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::pitched::check_packed;
use crate::texture::array::{ArrayElement, ToArray, array_copy, array_descriptor};
use crate::texture::scoped::ScopedArray;
use crate::texture::surface::{SurfaceObject, create_surface};
use core::marker::PhantomData;

/// A `width` × `height` × `depth` CUDA array of `T` with `levels` levels of detail, lent by a
/// guard; destroyed on drop (`cuMipmappedArrayDestroy`), with its levels. Created
/// surface-capable, so each level can be written by a kernel; one mapped onto external memory
/// has the flags it was mapped with (a layered one keeps its `depth` layers at every level, and
/// one mapped without surface load/store has no surface).
#[derive(Debug)]
#[doc(alias = "CUmipmappedArray")]
pub struct MipmappedArray<'g, T: ArrayElement> {
    raw: ffi::CUmipmappedArray,
    extent: [usize; 3],
    levels: u32,
    // The `CUDA_ARRAY3D_*` flags the driver made it with: what `surface_level` and the level
    // extents read.
    flags: core::ffi::c_uint,
    _marker: PhantomData<(&'g (), *const T)>,
}

/// Whether `flags` name a layered array (`CUDA_ARRAY3D_LAYERED`).
fn is_layered(flags: core::ffi::c_uint) -> bool {
    flags & ffi::CUDA_ARRAY3D_LAYERED != 0
}

/// The most levels an extent can have: down to 1 × 1 × 1 (a layered array's depth is its
/// number of layers, which no level halves).
fn max_levels([width, height, depth]: [usize; 3], layered: bool) -> u32 {
    let depth = if layered { 1 } else { depth };
    let largest = width.max(height).max(depth).max(1);
    usize::BITS - largest.leading_zeros()
}

/// Level `level`'s extent: each dimension halved `level` times, at least 1; a layered array's
/// depth (its layers) kept.
fn level_extent([width, height, depth]: [usize; 3], level: u32, layered: bool) -> [usize; 3] {
    let half = |n: usize| n.checked_shr(level).unwrap_or(0).max(1);
    [
        half(width),
        half(height),
        if layered { depth } else { half(depth) },
    ]
}

/// The bytes of every level of an `extent` array of `levels` levels of `elem`-byte elements,
/// packed (no row or tile padding): the least memory such an array can lie in, whatever layout
/// the driver or another API gives it. `None` on overflow.
pub(crate) fn packed_bytes(
    extent: [usize; 3],
    levels: u32,
    flags: core::ffi::c_uint,
    elem: usize,
) -> Option<usize> {
    let layered = is_layered(flags);
    (0..levels).try_fold(0usize, |sum, level| {
        let [w, h, d] = level_extent(extent, level, layered);
        w.checked_mul(h)?
            .checked_mul(d)?
            .checked_mul(elem)?
            .checked_add(sum)
    })
}

/// Refuses an empty extent, no level, or more levels than halving the largest dimension down
/// to 1 gives (no driver call).
pub(crate) fn check_shape(extent: [usize; 3], levels: u32) -> Result<()> {
    check_shape_with(extent, levels, ffi::CUDA_ARRAY3D_SURFACE_LDST)
}

/// As [`check_shape`], for an array of the `CUDA_ARRAY3D_*` `flags`: a layered one's levels
/// halve its width and height only (its depth is its number of layers).
pub(crate) fn check_shape_with(
    extent: [usize; 3],
    levels: u32,
    flags: core::ffi::c_uint,
) -> Result<()> {
    let [width, height, depth] = extent;
    if width == 0 || height == 0 || depth == 0 {
        return Err(Error::from_kind(ErrorKind::InvalidValue)
            .with_detail("an empty mipmapped array: allocate at least one element"));
    }
    let layered = is_layered(flags);
    let most = max_levels(extent, layered);
    if levels == 0 || levels > most {
        let what = if layered {
            format!("a {width}x{height} mipmapped array of {depth} layers")
        } else {
            format!("a {width}x{height}x{depth} mipmapped array")
        };
        return Err(Error::from_kind(ErrorKind::InvalidValue)
            .with_detail(format!("{levels} levels for {what}: 1 to {most}")));
    }
    Ok(())
}

impl<T: ArrayElement> MipmappedArray<'_, T> {
    /// A mipmapped array the driver made some other way (`cuExternalMemoryGetMappedMipmappedArray`).
    ///
    /// # Safety
    ///
    /// `raw` is a live mipmapped array of the current context of `levels` levels over `extent`
    /// elements of `T`'s format, made with the `CUDA_ARRAY3D_*` `flags` (so surface-capable
    /// only if they hold `CUDA_ARRAY3D_SURFACE_LDST`, layered, of `extent[2]` layers, only if
    /// they hold `CUDA_ARRAY3D_LAYERED`), destroyed by `cuMipmappedArrayDestroy` only through
    /// the returned value, and whatever backs it lives for the returned lifetime.
    pub(crate) unsafe fn from_raw_parts<'a>(
        raw: ffi::CUmipmappedArray,
        extent: [usize; 3],
        levels: u32,
        flags: core::ffi::c_uint,
    ) -> MipmappedArray<'a, T> {
        MipmappedArray {
            raw,
            extent,
            levels,
            flags,
            _marker: PhantomData,
        }
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMipmappedArrayCreate`—A `width` × `height` array of `T` (height 1 for 1D) with
    /// `levels` levels of detail, uninitialized.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] for an empty extent, no level, or more levels than halving
    /// the largest dimension down to 1 gives (no driver call); driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack, TextureOptions, TextureResource};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut image = guard.alloc_mipmapped_array::<f32>(256, 256, 3)?; // 256², 128², 64²
    /// image.copy_level_from_host(0, &vec![1.0; 256 * 256])?;
    /// image.copy_level_from_host(1, &vec![0.5; 128 * 128])?;
    /// image.copy_level_from_host(2, &vec![0.25; 64 * 64])?;
    /// let options = TextureOptions {
    ///     normalized: true,
    ///     max_mipmap_level_clamp: 2.0,
    ///     ..Default::default()
    /// };
    /// let texture = guard.texture_from(TextureResource::mipmapped(&image), &options)?;
    /// # drop(texture);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMipmappedArrayCreate")]
    pub fn alloc_mipmapped_array<T: ArrayElement>(
        &self,
        width: usize,
        height: usize,
        levels: u32,
    ) -> Result<MipmappedArray<'_, T>> {
        self.alloc_mipmapped_array_3d(width, height, 1, levels)
    }

    /// `cuMipmappedArrayCreate`—A `width` × `height` × `depth` array of `T` with `levels`
    /// levels of detail, uninitialized (height and depth 1 for 1D, depth 1 for 2D).
    ///
    /// # Errors
    ///
    /// As [`alloc_mipmapped_array`](Self::alloc_mipmapped_array).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMipmappedArrayCreate")]
    pub fn alloc_mipmapped_array_3d<T: ArrayElement>(
        &self,
        width: usize,
        height: usize,
        depth: usize,
        levels: u32,
    ) -> Result<MipmappedArray<'_, T>> {
        crate::error::poison::check()?;
        let extent = [width, height, depth];
        check_shape(extent, levels)?;
        let desc = array_descriptor::<T>(width, height, depth);
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a fully initialized descriptor; this guard's context is
        // current.
        unsafe { ffi::cuMipmappedArrayCreate(&raw mut raw, &raw const desc, levels) }.result()?;
        Ok(MipmappedArray {
            raw,
            extent,
            levels,
            flags: desc.Flags,
            _marker: PhantomData,
        })
    }

    /// `cuSurfObjectCreate`—A surface object reading and writing level `level` of `array`,
    /// which it borrows exclusively while it lives (e.g. for a kernel that computes a level
    /// from the one before; bind each in turn).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] for a level the array does not have, and
    /// [`ErrorKind::InvalidValue`] for an array mapped onto external memory without surface
    /// load/store (`CUDA_ARRAY3D_SURFACE_LDST`) (no driver call); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__SURFOBJECT.html>
    #[doc(alias = "cuSurfObjectCreate")]
    #[doc(alias = "cuMipmappedArrayGetLevel")]
    pub fn surface_level<'a, T: ArrayElement, A: MipmappedLevels<T> + ?Sized>(
        &self,
        array: &'a mut A,
        level: u32,
    ) -> Result<SurfaceObject<'a>> {
        let array = array.mipmapped();
        check_surface_capable(array.flags)?;
        let (raw, _) = array.level(level)?;
        // SAFETY: a level of a live, surface-capable mipmapped array of this context; the
        // mipmapped array, and so the level, is borrowed exclusively for 'a.
        unsafe { create_surface(raw) }
    }
}

/// What owns a mipmapped array whose levels a surface ([`PushedGuard::surface_level`]) or a scope
/// ([`StreamScope::bind_level`]) borrows: a [`MipmappedArray`], or one mapped onto external
/// memory ([`MappedArray`](crate::MappedArray)). Those calls take `&mut` of the owner itself, so
/// the exclusive borrow never reaches a `&mut MipmappedArray` inside a `MappedArray`, which safe
/// code could swap out of it (C30). Sealed: implemented by custack's two owners only.
pub trait MipmappedLevels<T: ArrayElement>: sealed::Sealed {
    /// The mipmapped array, shared.
    fn mipmapped(&self) -> &MipmappedArray<'_, T>;
}

pub(crate) mod sealed {
    /// Seals [`MipmappedLevels`](super::MipmappedLevels): its implementations are custack's
    /// (here and in `external::memory`).
    pub trait Sealed {}
}

impl<T: ArrayElement> sealed::Sealed for MipmappedArray<'_, T> {}

impl<T: ArrayElement> MipmappedLevels<T> for MipmappedArray<'_, T> {
    fn mipmapped(&self) -> &MipmappedArray<'_, T> {
        self
    }
}

/// Refuses a surface over an array made without `CUDA_ARRAY3D_SURFACE_LDST` (no driver call):
/// the driver documents the flag as what a surface needs.
fn check_surface_capable(flags: core::ffi::c_uint) -> Result<()> {
    if flags & ffi::CUDA_ARRAY3D_SURFACE_LDST != 0 {
        return Ok(());
    }
    Err(Error::custack(
        ErrorKind::InvalidValue,
        "a surface over a mipmapped array mapped without surface load/store \
         (MappedArrayFlags::SURFACE_LDST)",
    ))
}

impl<T: ArrayElement> MipmappedArray<'_, T> {
    /// Level 0's elements per row.
    pub fn width(&self) -> usize {
        self.extent[0]
    }
    /// Level 0's rows per slice (1 for a 1D array).
    pub fn height(&self) -> usize {
        self.extent[1]
    }
    /// Level 0's slices (1 for a 1D or 2D array); a layered array's layers, at every level.
    pub fn depth(&self) -> usize {
        self.extent[2]
    }
    /// The number of levels.
    pub fn levels(&self) -> u32 {
        self.levels
    }
    /// The raw `CUmipmappedArray`.
    pub fn as_raw(&self) -> ffi::CUmipmappedArray {
        self.raw
    }

    pub(crate) fn extent(&self) -> [usize; 3] {
        self.extent
    }

    /// Level `level`'s `[width, height, depth]`: level 0's, halved `level` times (at least 1),
    /// a layered array's depth (its layers) kept.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] for a level the array does not have.
    pub fn level_extent(&self, level: u32) -> Result<[usize; 3]> {
        self.check_level(level)?;
        Ok(level_extent(self.extent, level, is_layered(self.flags)))
    }

    fn check_level(&self, level: u32) -> Result<()> {
        if level < self.levels {
            return Ok(());
        }
        Err(Error::custack(
            ErrorKind::OutOfRange,
            format!(
                "level {level} of a mipmapped array of {} levels",
                self.levels
            ),
        ))
    }

    /// `cuMipmappedArrayGetLevel`: the level's array (owned by this mipmapped array) and
    /// extent.
    fn level(&self, level: u32) -> Result<(ffi::CUarray, [usize; 3])> {
        crate::error::poison::check()?;
        self.check_level(level)?;
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a live mipmapped array of the current context (lent by
        // the current guard), a level it has.
        unsafe { ffi::cuMipmappedArrayGetLevel(&raw mut raw, self.raw, level) }.result()?;
        Ok((
            raw,
            level_extent(self.extent, level, is_layered(self.flags)),
        ))
    }

    /// `cuMemcpy3D`—Copies packed host elements into level `level` (x fastest, then y, then
    /// z; [`level_extent`](Self::level_extent) elements).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] for a level the array does not have,
    /// [`ErrorKind::LengthMismatch`] (no driver call); driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3D")]
    #[doc(alias = "cuMipmappedArrayGetLevel")]
    pub fn copy_level_from_host(&mut self, level: u32, src: &[T]) -> Result<()> {
        crate::error::poison::check()?;
        self.check_level(level)?;
        let extent = level_extent(self.extent, level, is_layered(self.flags));
        check_packed("copy_level_from_host", "mipmap level", src.len(), extent)?;
        let (array, _) = self.level(level)?;
        let copy = array_copy::<T>(array, extent, src.as_ptr().cast_mut().cast(), ToArray(true));
        crate::error::poison::check()?;
        // SAFETY: `src` holds the level's elements, packed (only read); a live level array of
        // the current context, whose owner is exclusively borrowed.
        unsafe { ffi::cuMemcpy3D_v2(&raw const copy) }
            .result_releasing(crate::error::Observer::DriverCall)
    }

    /// `cuMemcpy3D`—Level `level`'s elements, packed (x fastest, then y, then z).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] for a level the array does not have; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy3D")]
    pub fn level_to_vec(&self, level: u32) -> Result<Vec<T>> {
        crate::error::poison::check()?;
        let (array, extent) = self.level(level)?;
        let n = extent[0]
            .checked_mul(extent[1])
            .and_then(|n| n.checked_mul(extent[2]))
            .ok_or_else(|| {
                Error::custack(
                    ErrorKind::SizeOverflow,
                    format!("level {level}: {extent:?}"),
                )
            })?;
        let mut v: Vec<T> = Vec::with_capacity(n);
        let copy = array_copy::<T>(array, extent, v.as_mut_ptr().cast(), ToArray(false));
        crate::error::poison::check()?;
        // SAFETY: `v` has room for the level's elements; a live level array of the current
        // context.
        unsafe { ffi::cuMemcpy3D_v2(&raw const copy) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        // SAFETY: the copy initialized all `n` elements; any bit pattern is a valid `T`.
        unsafe { v.set_len(n) };
        Ok(v)
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// `cuMipmappedArrayGetLevel`—Binds level `level` of a mipmapped array to this scope, for
    /// its copies ([`copy_to_array`](Self::copy_to_array),
    /// [`copy_from_array`](Self::copy_from_array)). The whole mipmapped array is borrowed
    /// exclusively until the scope ends, so one level of it is bound per scope.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] for a level the array does not have (no driver call); driver
    /// errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMipmappedArrayGetLevel")]
    pub fn bind_level<T: ArrayElement, A: MipmappedLevels<T> + ?Sized>(
        &self,
        array: &'scope mut A,
        level: u32,
    ) -> Result<ScopedArray<'scope>> {
        let (raw, extent) = array.mipmapped().level(level)?;
        // SAFETY: a level of a live mipmapped array of the current context (the scope's stream
        // is this guard's), of `T` with this extent; the mipmapped array is borrowed exclusively
        // for 'scope.
        Ok(unsafe { ScopedArray::from_raw::<T>(raw, extent) })
    }
}

impl<T: ArrayElement> Drop for MipmappedArray<'_, T> {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::MipmappedArray, self.raw as u64, || {
            // SAFETY: created by this value, destroyed once, with its levels; no texture, surface
            // or copy uses it (they borrow it).
            unsafe { ffi::cuMipmappedArrayDestroy(self.raw) }.result()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{check_shape_with, check_surface_capable, level_extent, max_levels, packed_bytes};
    use crate::error::ErrorKind;
    use crate::ffi;

    #[test]
    fn levels_halve_down_to_one() {
        assert_eq!(max_levels([1, 1, 1], false), 1);
        assert_eq!(max_levels([256, 256, 1], false), 9);
        assert_eq!(max_levels([640, 480, 1], false), 10);
        assert_eq!(level_extent([640, 480, 1], 0, false), [640, 480, 1]);
        assert_eq!(level_extent([640, 480, 1], 1, false), [320, 240, 1]);
        assert_eq!(level_extent([640, 480, 1], 9, false), [1, 1, 1]);
        assert_eq!(level_extent([16, 4, 1], 3, false), [2, 1, 1]);
        assert_eq!(level_extent([16, 1, 1], 200, false), [1, 1, 1]);
        assert_eq!(level_extent([16, 16, 16], 2, false), [4, 4, 4]);
    }

    #[test]
    fn a_layered_array_keeps_its_layers_at_every_level() {
        // 4 × 4 with 64 layers: 3 levels (4², 2², 1²), each of 64 layers.
        assert_eq!(max_levels([4, 4, 64], true), 3);
        assert_eq!(max_levels([4, 4, 64], false), 7);
        assert_eq!(level_extent([4, 4, 64], 2, true), [1, 1, 64]);
        assert_eq!(level_extent([16, 1, 6], 3, true), [2, 1, 6]);
        let layered = ffi::CUDA_ARRAY3D_LAYERED;
        assert!(check_shape_with([4, 4, 64], 3, layered).is_ok());
        let e = check_shape_with([4, 4, 64], 4, layered).err();
        assert_eq!(
            e.as_ref().map(crate::error::Error::kind),
            Some(ErrorKind::InvalidValue)
        );
        assert!(
            e.is_some_and(|e| e.to_string().contains("64 layers")),
            "the detail names the layers"
        );
        // Unlayered, the same extent is a volume: its depth halves, so 7 levels fit.
        assert!(check_shape_with([4, 4, 64], 7, ffi::CUDA_ARRAY3D_SURFACE_LDST).is_ok());
        assert!(check_shape_with([4, 4, 0], 1, layered).is_err(), "no layer");
    }

    #[test]
    fn packed_levels_sum_every_level_and_refuse_an_overflow() {
        let surface = ffi::CUDA_ARRAY3D_SURFACE_LDST;
        // 16², 8², 4² of 4-byte elements.
        assert_eq!(
            packed_bytes([16, 16, 1], 3, surface, 4),
            Some((256 + 64 + 16) * 4)
        );
        // A volume's depth halves; a layered array's layers stay.
        assert_eq!(packed_bytes([4, 4, 4], 2, surface, 1), Some(64 + 8));
        let layered = ffi::CUDA_ARRAY3D_LAYERED;
        assert_eq!(packed_bytes([4, 4, 4], 2, layered, 1), Some(64 + 16));
        assert_eq!(packed_bytes([usize::MAX, 2, 1], 1, surface, 1), None);
        assert_eq!(packed_bytes([1 << 40, 1 << 30, 1], 1, surface, 16), None);
    }

    #[test]
    fn a_surface_needs_surface_load_store() {
        assert!(check_surface_capable(ffi::CUDA_ARRAY3D_SURFACE_LDST).is_ok());
        let both = ffi::CUDA_ARRAY3D_SURFACE_LDST | ffi::CUDA_ARRAY3D_COLOR_ATTACHMENT;
        assert!(check_surface_capable(both).is_ok());
        for flags in [
            0,
            ffi::CUDA_ARRAY3D_COLOR_ATTACHMENT,
            ffi::CUDA_ARRAY3D_LAYERED,
        ] {
            let e = check_surface_capable(flags).err();
            assert_eq!(
                e.as_ref().map(crate::error::Error::kind),
                Some(ErrorKind::InvalidValue),
                "{flags:#x}"
            );
        }
    }
}
