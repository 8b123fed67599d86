//! Texture objects (`cuTexObjectCreate`): a [`TextureResource`] read as [`TextureOptions`] say,
//! borrowing what it reads shared, and bound to a scope for its kernels
//! ([`StreamScope::bind_texture`]).

use crate::asynchronous::scope::StreamScope;
use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::Result;
use crate::error::left_behind::Object;
use crate::ffi;
use crate::texture::array::{ArrayElement, CudaArray};
use crate::texture::options::TextureOptions;
use crate::texture::resource::TextureResource;
use crate::texture::scoped::ScopedTexture;
use core::marker::PhantomData;

/// A texture object over a [`TextureResource`], borrowing what it reads shared; destroyed on
/// drop.
#[derive(Debug)]
#[doc(alias = "CUtexObject")]
pub struct TextureObject<'a> {
    raw: ffi::CUtexObject,
    _marker: PhantomData<(&'a (), *const ())>,
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuTexObjectCreate`—A texture object reading `array` (borrowed shared while it lives):
    /// [`texture_from`](Self::texture_from) with [`TextureResource::array`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TEXOBJECT.html>
    #[doc(alias = "cuTexObjectCreate")]
    pub fn texture<'a, T: ArrayElement>(
        &self,
        array: &'a CudaArray<'_, T>,
        options: &TextureOptions,
    ) -> Result<TextureObject<'a>> {
        self.texture_from(TextureResource::array(array), options)
    }

    /// `cuTexObjectCreate`—A texture object reading `resource` (an array, a mipmapped array,
    /// linear or pitched device memory, borrowed shared while the texture lives) as `options`
    /// say.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for a
    /// [`ResourceView`](crate::ResourceView) whose extent is not its array's, or whose levels
    /// the array does not have (checked before the driver is called: a texture reads as far as
    /// its view says). Driver errors, e.g. `InvalidValue` for options the resource does not support (linear
    /// filtering of integer reads, wrap or mirror addressing without normalized coordinates
    /// on some devices, a linear resource beyond the device's maximum width or misaligned).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{AddressMode, Context, ContextFlags, Driver, FilterMode, Stack};
    /// use custack::{TextureOptions, TextureResource};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut image = guard.alloc_pitched::<f32>(640, 480)?;
    /// image.copy_from_host(&vec![0.5; 640 * 480])?;
    /// let options = TextureOptions {
    ///     filter: FilterMode::Linear,
    ///     normalized: true,
    ///     border_color: [1.0, 0.0, 0.0, 0.0],
    ///     ..TextureOptions::default().with_address(AddressMode::Border)
    /// };
    /// let texture = guard.texture_from(TextureResource::pitched(&image), &options)?;
    /// // `image` is borrowed by `texture`: `image.copy_from_host(..)` would not compile here
    /// # drop(texture);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TEXOBJECT.html>
    #[doc(alias = "cuTexObjectCreate")]
    pub fn texture_from<'a>(
        &self,
        resource: TextureResource<'a>,
        options: &TextureOptions,
    ) -> Result<TextureObject<'a>> {
        crate::error::poison::check()?;
        resource.check_view()?;
        let desc = options.to_raw();
        let view = resource
            .view_as_raw()
            .map_or(core::ptr::null(), core::ptr::from_ref);
        let mut raw = 0;
        // SAFETY: valid out-pointer; fully initialized descriptors; the resource names a live
        // array, mipmapped array or allocation of this context (it borrows it for `'a`, and it
        // is `!Send`, so this thread's current context is the one it was made under); the view
        // is null or a live descriptor.
        unsafe { ffi::cuTexObjectCreate(&raw mut raw, resource.as_raw(), &raw const desc, view) }
            .result()?;
        Ok(TextureObject {
            raw,
            _marker: PhantomData,
        })
    }
}

impl TextureObject<'_> {
    /// The raw `CUtexObject` (a `cudaTextureObject_t`), e.g. for a kernel launched by other
    /// code; custack destroys it when this value drops.
    pub fn as_raw(&self) -> ffi::CUtexObject {
        self.raw
    }
}

impl Drop for TextureObject<'_> {
    fn drop(&mut self) {
        crate::error::left_behind::destroy_in_drop(Object::Texture, self.raw, || {
            // SAFETY: created by this value, destroyed once; no scope uses it (scopes borrow it).
            unsafe { ffi::cuTexObjectDestroy(self.raw) }.result()
        });
    }
}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds a texture object to this scope for its kernels, until the scope ends.
    pub fn bind_texture(&self, texture: &'scope TextureObject<'_>) -> ScopedTexture<'scope> {
        ScopedTexture {
            raw: texture.raw,
            _marker: PhantomData,
        }
    }
}
