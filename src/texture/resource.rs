//! What a texture reads (`CUDA_RESOURCE_DESC`): a [`TextureResource`] over an array, a mipmapped
//! array, linear or pitched device memory, and the part of an array it reads, a [`ResourceView`]
//! (`CUDA_RESOURCE_VIEW_DESC`).

use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::DeviceMemory;
use crate::memory::pitched::PitchedBuffer;
use crate::texture::array::{ArrayElement, CudaArray, array_resource};
use crate::texture::mipmap::MipmappedArray;
use core::marker::PhantomData;

/// Which part of an array or mipmapped array a texture reads (`CUDA_RESOURCE_VIEW_DESC`):
/// a range of mipmap levels and the extent of the view. The texels are read in the array's
/// own format.
///
/// Start from [`ResourceView::of_array`] or [`ResourceView::of_mipmapped`] (the whole
/// resource) and narrow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUDA_RESOURCE_VIEW_DESC")]
pub struct ResourceView {
    /// Width of the view, in elements.
    pub width: usize,
    /// Height of the view (1 for a 1D resource).
    pub height: usize,
    /// Depth of the view (1 for a 1D or 2D resource).
    pub depth: usize,
    /// The most detailed mipmap level the view holds (its level 0).
    pub first_level: u32,
    /// The least detailed mipmap level the view holds.
    pub last_level: u32,
}

impl ResourceView {
    /// The whole of `array`.
    pub fn of_array<T: ArrayElement>(array: &CudaArray<'_, T>) -> Self {
        Self {
            width: array.width(),
            height: array.height(),
            depth: array.depth(),
            first_level: 0,
            last_level: 0,
        }
    }

    /// The whole of `array`, all of its levels.
    pub fn of_mipmapped<T: ArrayElement>(array: &MipmappedArray<'_, T>) -> Self {
        let [width, height, depth] = array.extent();
        Self {
            width,
            height,
            depth,
            first_level: 0,
            last_level: array.levels().saturating_sub(1),
        }
    }

    /// The same view of levels `first..=last` only.
    #[must_use]
    pub const fn levels(self, first: u32, last: u32) -> Self {
        Self {
            first_level: first,
            last_level: last,
            ..self
        }
    }

    /// Whether this view fits a resource of `extent` (width, height, depth) and `levels` mipmap
    /// levels (1 for a plain array): the driver requires a view's extent to equal its
    /// resource's (custack's formats are none of the block-compressed ones, whose rule differs),
    /// and its levels to be levels the resource has, first before last. Checked before
    /// `cuTexObjectCreate`, so that a view larger than its array never reaches the driver,
    /// whatever the driver would check of it: a texture reads as far as its view says.
    fn fits(self, extent: [usize; 3], levels: u32) -> Result<()> {
        let [width, height, depth] = extent;
        if [self.width, self.height, self.depth] != extent {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "cuTexObjectCreate: the view's extent {}×{}×{} is not its resource's \
                     {width}×{height}×{depth} (a view's width, height and depth equal its \
                     array's; narrow a mipmapped array's view by its levels)",
                    self.width, self.height, self.depth
                ),
            ));
        }
        if self.first_level > self.last_level || self.last_level >= levels {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "cuTexObjectCreate: the view's levels {}..={} are not levels of its \
                     resource, which has {levels} (0..={})",
                    self.first_level,
                    self.last_level,
                    levels.saturating_sub(1)
                ),
            ));
        }
        Ok(())
    }

    fn to_raw(self, format: ffi::CUresourceViewFormat) -> ffi::CUDA_RESOURCE_VIEW_DESC {
        // As for arrays, the descriptor's height is 0 for 1D and its depth 0 for 1D and 2D.
        ffi::CUDA_RESOURCE_VIEW_DESC {
            format,
            width: self.width,
            height: if self.height == 1 && self.depth == 1 {
                0
            } else {
                self.height
            },
            depth: if self.depth == 1 { 0 } else { self.depth },
            firstMipmapLevel: self.first_level,
            lastMipmapLevel: self.last_level,
            firstLayer: 0,
            lastLayer: 0,
            reserved: [0; 16],
        }
    }
}

/// What a texture reads (`CUDA_RESOURCE_DESC`, and a `CUDA_RESOURCE_VIEW_DESC` where one is given),
/// borrowing it shared for `'a`: a [`CudaArray`], a [`MipmappedArray`], linear device memory, or a
/// [`PitchedBuffer`]. The [`TextureObject`](crate::TextureObject) made from it
/// ([`PushedGuard::texture_from`](crate::PushedGuard::texture_from)) keeps the borrow, so the
/// memory can be neither written nor freed while the texture lives (C21).
#[derive(Debug, Clone, Copy)]
#[doc(alias = "CUDA_RESOURCE_DESC")]
pub struct TextureResource<'a> {
    desc: ffi::CUDA_RESOURCE_DESC,
    view: Option<ffi::CUDA_RESOURCE_VIEW_DESC>,
    /// The view as given, with the extent and mipmap levels of the resource it views, checked
    /// by [`check_view`](Self::check_view) before the texture is made.
    viewed: Option<(ResourceView, [usize; 3], u32)>,
    // The handles and addresses are the current context's: not to be used on another thread.
    _marker: PhantomData<(&'a (), *const ())>,
}

fn resource(
    res_type: ffi::CUresourcetype,
    res: ffi::CUDA_RESOURCE_DESC_res,
) -> ffi::CUDA_RESOURCE_DESC {
    ffi::CUDA_RESOURCE_DESC {
        resType: res_type,
        res,
        flags: 0,
    }
}

impl<'a> TextureResource<'a> {
    /// A CUDA array (`CU_RESOURCE_TYPE_ARRAY`).
    pub fn array<T: ArrayElement>(array: &'a CudaArray<'_, T>) -> Self {
        Self {
            desc: array_resource(array.as_raw()),
            view: None,
            viewed: None,
            _marker: PhantomData,
        }
    }

    /// A view of a CUDA array.
    pub fn array_view<T: ArrayElement>(array: &'a CudaArray<'_, T>, view: &ResourceView) -> Self {
        Self {
            view: Some(view.to_raw(T::VIEW_FORMAT)),
            viewed: Some((*view, array.extent(), 1)),
            ..Self::array(array)
        }
    }

    /// A mipmapped CUDA array (`CU_RESOURCE_TYPE_MIPMAPPED_ARRAY`): a kernel reads it with an
    /// explicit level of detail (`tex2DLod`) or a gradient (`tex2DGrad`).
    pub fn mipmapped<T: ArrayElement>(array: &'a MipmappedArray<'_, T>) -> Self {
        let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
        res.mipmap = ffi::CUDA_RESOURCE_DESC_mipmap {
            hMipmappedArray: array.as_raw(),
        };
        Self {
            desc: resource(ffi::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY, res),
            view: None,
            viewed: None,
            _marker: PhantomData,
        }
    }

    /// A view of a mipmapped CUDA array, e.g. a range of its levels.
    pub fn mipmapped_view<T: ArrayElement>(
        array: &'a MipmappedArray<'_, T>,
        view: &ResourceView,
    ) -> Self {
        Self {
            view: Some(view.to_raw(T::VIEW_FORMAT)),
            viewed: Some((*view, array.extent(), array.levels())),
            ..Self::mipmapped(array)
        }
    }

    /// Linear device memory (`CU_RESOURCE_TYPE_LINEAR`): a buffer or a view of one, read by
    /// element index (`tex1Dfetch`). Its address must be aligned to the device's
    /// [`TextureAlignment`](crate::DeviceAttribute::TextureAlignment) (allocations are; a view
    /// at an offset may not be), or the driver refuses the texture.
    pub fn linear<T: ArrayElement, M: DeviceMemory<T> + ?Sized>(memory: &'a M) -> Self {
        let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
        res.linear = ffi::CUDA_RESOURCE_DESC_linear {
            devPtr: memory.device_ptr(),
            format: T::FORMAT,
            numChannels: T::CHANNELS,
            sizeInBytes: memory.byte_len(),
        };
        Self {
            desc: resource(ffi::CU_RESOURCE_TYPE_LINEAR, res),
            view: None,
            viewed: None,
            _marker: PhantomData,
        }
    }

    /// Pitched device memory as a 2D image (`CU_RESOURCE_TYPE_PITCH2D`), read like a 2D
    /// array (`tex2D`).
    pub fn pitched<T: ArrayElement>(memory: &'a PitchedBuffer<'_, T>) -> Self {
        let mut res = ffi::CUDA_RESOURCE_DESC_res { reserved: [0; 32] };
        res.pitch2D = ffi::CUDA_RESOURCE_DESC_pitch2D {
            devPtr: memory.device_ptr(),
            format: T::FORMAT,
            numChannels: T::CHANNELS,
            width: memory.width(),
            height: memory.height(),
            pitchInBytes: memory.pitch_bytes(),
        };
        Self {
            desc: resource(ffi::CU_RESOURCE_TYPE_PITCH2D, res),
            view: None,
            viewed: None,
            _marker: PhantomData,
        }
    }

    /// The resource descriptor.
    pub fn as_raw(&self) -> &ffi::CUDA_RESOURCE_DESC {
        &self.desc
    }

    /// The view descriptor, if any.
    pub fn view_as_raw(&self) -> Option<&ffi::CUDA_RESOURCE_VIEW_DESC> {
        self.view.as_ref()
    }

    /// Whether the view, if any, fits the resource it views ([`ResourceView`]'s rules): an
    /// [`ErrorKind::InvalidValue`] naming what does not, before any driver call.
    pub(crate) fn check_view(&self) -> Result<()> {
        match self.viewed {
            Some((view, extent, levels)) => view.fits(extent, levels),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ResourceView, TextureResource};
    use crate::ffi;
    use crate::memory::DeviceView;

    #[test]
    fn views_use_the_descriptor_conventions_of_arrays() {
        let view = |w, h, d| ResourceView {
            width: w,
            height: h,
            depth: d,
            first_level: 1,
            last_level: 3,
        };
        let one_d = view(64, 1, 1).to_raw(ffi::CU_RES_VIEW_FORMAT_FLOAT_1X32);
        assert_eq!((one_d.width, one_d.height, one_d.depth), (64, 0, 0));
        let two_d = view(64, 48, 1).to_raw(ffi::CU_RES_VIEW_FORMAT_UINT_4X8);
        assert_eq!((two_d.width, two_d.height, two_d.depth), (64, 48, 0));
        assert_eq!(two_d.format, ffi::CU_RES_VIEW_FORMAT_UINT_4X8);
        assert_eq!((two_d.firstMipmapLevel, two_d.lastMipmapLevel), (1, 3));
        let three_d = view(8, 4, 2).levels(0, 0).to_raw(0);
        assert_eq!(
            (three_d.height, three_d.depth, three_d.lastMipmapLevel),
            (4, 2, 0)
        );
    }

    #[test]
    fn a_view_must_have_its_resources_extent_and_levels() {
        let whole = ResourceView {
            width: 64,
            height: 48,
            depth: 1,
            first_level: 0,
            last_level: 0,
        };
        assert!(whole.fits([64, 48, 1], 1).is_ok());
        assert!(whole.levels(1, 3).fits([64, 48, 1], 4).is_ok());
        for (view, levels, says) in [
            (
                ResourceView {
                    width: 128,
                    ..whole
                },
                1,
                "128×48×1",
            ),
            (
                ResourceView {
                    height: 96,
                    ..whole
                },
                1,
                "64×96×1",
            ),
            (ResourceView { depth: 2, ..whole }, 1, "64×48×2"),
            (whole.levels(0, 1), 1, "levels 0..=1"),
            (whole.levels(2, 1), 4, "levels 2..=1"),
            (whole.levels(0, 4), 4, "levels 0..=4"),
        ] {
            let e = view.fits([64, 48, 1], levels).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::InvalidValue);
            assert!(e.to_string().contains(says), "{says}: {e}");
        }
    }

    #[test]
    fn linear_resources_describe_the_memory_they_borrow() {
        // SAFETY: a view only described here, never used with the driver.
        let floats = unsafe { DeviceView::<f32>::from_raw_parts(0x7000, 256) };
        let r = TextureResource::linear(&floats);
        assert_eq!(r.as_raw().resType, ffi::CU_RESOURCE_TYPE_LINEAR);
        // SAFETY: `linear` wrote the `linear` member.
        let linear = unsafe { r.as_raw().res.linear };
        assert_eq!(
            (
                linear.devPtr,
                linear.format,
                linear.numChannels,
                linear.sizeInBytes
            ),
            (0x7000, ffi::CU_AD_FORMAT_FLOAT, 1, 1024)
        );
        assert!(r.view_as_raw().is_none());
        // SAFETY: as above.
        let rgba = unsafe { DeviceView::<[u8; 4]>::from_raw_parts(0x8000, 10) };
        // SAFETY: as above.
        let linear = unsafe { TextureResource::linear(&rgba).as_raw().res.linear };
        assert_eq!(
            (linear.format, linear.numChannels, linear.sizeInBytes),
            (ffi::CU_AD_FORMAT_UNSIGNED_INT8, 4, 40)
        );
    }
}
