//! C23 kernel contracts, the message a user meets: a texture object is declared `tex: texture`,
//! not as a scalar of type `TextureHandle` (which is not plain data); the declaration names the
//! form to write and what the parameter then takes.
//! Positive twin: `Rotate` in `examples/14_texture_rotation.rs`.
use custack::TextureHandle;

custack::kernel_contract! {
    /// `tex_read(cudaTextureObject_t tex, float* out, unsigned w, unsigned h)`.
    unsafe kernel TexRead = "tex_read"(tex: TextureHandle, out: &mut [f32; w * h], w: u32, h: u32); //~ ERROR declare the texture parameter
}

fn main() {}
