//! C20 context-independent code (library half): a library cannot be unloaded while one of its
//! kernels (or their functions) is in use.
//! Positive twin: `one_library_many_contexts` in `tests/gpu_library.rs`.
use custack::{Driver, Library};

fn main() -> Result<(), custack::Error> {
    let library = Library::load_ptx(Driver::init()?, "")?;
    let empty = library.kernel("empty")?;
    library.unload()?; //~ ERROR E0505
    drop(empty);
    Ok(())
}
