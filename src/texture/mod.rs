//! CUDA arrays, texture objects and surface objects.
//!
//! A [`CudaArray`] is opaque, texture-friendly device memory (`cuArray3DCreate`), one, two or
//! three dimensional, copied to and from packed host elements synchronously and in scopes
//! (`cuMemcpy3D`, `cuMemcpy3DAsync`). A [`TextureObject`] (`cuTexObjectCreate`)
//! borrows what it reads *shared* and a [`SurfaceObject`] (`cuSurfObjectCreate`) borrows its
//! array *exclusively*, so the memory can be neither freed nor written otherwise while an
//! object over it exists.
//!
//! A texture reads any of the resources of `CUDA_RESOURCE_DESC` ([`TextureResource`]): a CUDA
//! array, a [`MipmappedArray`](crate::MipmappedArray), linear device memory (any
//! [`DeviceMemory`](crate::DeviceMemory)), or a [`PitchedBuffer`](crate::PitchedBuffer) as a 2D
//! image; arrays and mipmapped arrays also through a [`ResourceView`]. It samples as
//! [`TextureOptions`] says, which covers `CUDA_TEXTURE_DESC`: an [`AddressMode`] per dimension and
//! a border colour, [`FilterMode`]s for texels and mipmap levels, level-of-detail bias and clamps,
//! maximum anisotropy, normalized coordinates, integer reads and sRGB. A kernel receives an object
//! only bound to its scope ([`StreamScope::bind_texture`](crate::StreamScope::bind_texture),
//! [`StreamScope::bind_surface`](crate::StreamScope::bind_surface)), which keeps the object, and so
//! the array, alive and unchanged until the scope has waited.
//!
//! **Files.** Each concept has its file, with the guard's and the scope's methods that make or
//! bind its values: `array.rs` (arrays, their element types and copies), `mipmap.rs`,
//! `options.rs`, `resource.rs`, `texture_object.rs`, `surface.rs`; `scoped.rs` holds what a
//! scope's kernels and copies receive. No file of the folder imports this one, `scoped.rs` imports
//! none of the others, and the others form no circle.

pub(crate) mod array;
pub(crate) mod batch;
pub(crate) mod mipmap;
pub(crate) mod options;
pub(crate) mod resource;
pub(crate) mod scoped;
pub(crate) mod surface;
pub(crate) mod texture_object;

pub use array::{ArrayElement, CudaArray};
pub use batch::Copy3dBatch;
pub use options::{AddressMode, FilterMode, TextureOptions};
pub use resource::{ResourceView, TextureResource};
pub use scoped::{ScopedArray, ScopedSurface, ScopedTexture, SurfaceHandle, TextureHandle};
pub use surface::SurfaceObject;
pub use texture_object::TextureObject;
