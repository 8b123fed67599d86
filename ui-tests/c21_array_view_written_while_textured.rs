//! C21 host memory the GPU can see (resource views): an array cannot be written while a
//! texture reads a view of it: the texture borrows the array.
//! Positive twin: `array_view_reads_like_the_array` in `tests/gpu_sampling.rs`.
use custack::{
    Context, ContextFlags, Driver, ResourceView, Stack, TextureOptions, TextureResource,
};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mut array = guard.alloc_array::<f32>(64, 32)?;
    let view = ResourceView::of_array(&array);
    let resource = TextureResource::array_view(&array, &view);
    let texture = guard.texture_from(resource, &TextureOptions::default())?;
    array.copy_from_host(&vec![0.0; 64 * 32])?; //~ ERROR E0502
    drop(texture);
    Ok(())
}
