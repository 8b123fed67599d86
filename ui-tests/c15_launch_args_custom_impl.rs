//! C15 wrong-type arguments: `KernelArgs` is sealed, so no user type can build the driver's
//! parameter array itself and pass pointers that nothing keeps alive or bound to the scope.
//! (Found in review.) Positive twin: `p1_one_guard_many_handles` in `tests/patterns.rs`.
use core::ffi::c_void;
use custack::KernelArgs;

struct Raw(u64);

impl KernelArgs<'_> for Raw { //~ ERROR E0277
    fn with_params<R>(&self, f: impl FnOnce(*mut *mut c_void) -> R) -> R {
        let mut params = [core::ptr::from_ref(&self.0).cast_mut().cast::<c_void>()];
        f(params.as_mut_ptr())
    }
}

fn main() {}
