//! Kernel functions, launch configurations and kernel arguments.

use crate::asynchronous::scope::{ScopedAlloc, ScopedSlice, ScopedSliceMut};
use crate::error::Result;
use crate::ffi;
use crate::plain::DeviceCopy;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;

/// A kernel in a loaded [`Module`](crate::Module); borrows it, so it cannot outlive it (C9).
#[derive(Debug, Clone, Copy)]
pub struct Function<'m> {
    raw: ffi::CUfunction,
    _marker: PhantomData<(&'m (), *const ())>,
}

static_assertions::assert_eq_size!(Function<'static>, ffi::CUfunction);
static_assertions::assert_not_impl_any!(Function<'static>: Send, Sync);

impl Function<'_> {
    /// # Safety
    ///
    /// `raw` must be a function of a module that lives for the returned lifetime.
    pub(crate) unsafe fn from_raw(raw: ffi::CUfunction) -> Self {
        Self {
            raw,
            _marker: PhantomData,
        }
    }

    /// The raw `CUfunction`.
    pub fn as_raw(&self) -> ffi::CUfunction {
        self.raw
    }

    /// `cuFuncGetAttribute`—An attribute of the function, e.g.
    /// `ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`.
    #[doc(alias = "cuFuncGetAttribute")]
    pub fn attribute(&self, attribute: ffi::CUfunction_attribute) -> Result<i32> {
        let mut v: c_int = 0;
        // SAFETY: valid out-pointer; live function.
        unsafe { ffi::cuFuncGetAttribute(&raw mut v, attribute, self.raw) }.result()?;
        Ok(v)
    }

    /// `cuFuncGetParamInfo`—The kernel's parameters as `(offset, size)` in bytes, in order
    /// (CUDA 12.4; looked up, not linked): what its argument tuple must match.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::DriverTooOld`](crate::ErrorKind::DriverTooOld) on a driver older than 12.4;
    /// driver errors.
    #[doc(alias = "cuFuncGetParamInfo")]
    pub fn param_layout(&self) -> Result<Vec<(usize, usize)>> {
        let info = crate::lookup::FUNC_GET_PARAM_INFO.get()?;
        let mut layout = Vec::new();
        loop {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: a live function; valid out-pointers.
            let r = unsafe { info(self.raw, layout.len(), &raw mut offset, &raw mut size) };
            match r {
                ffi::CUresult::CUDA_SUCCESS => layout.push((offset, size)),
                // One past the last parameter.
                ffi::CUresult::CUDA_ERROR_INVALID_VALUE => return Ok(layout),
                r => return r.result().map(|()| layout),
            }
        }
    }

    /// The most threads a block of this function may have on this device.
    pub fn max_threads_per_block(&self) -> Result<u32> {
        self.attribute(ffi::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .map(|v| v as u32)
    }
}

/// Grid and block dimensions and dynamic shared memory of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid (x, y, z).
    pub grid: (u32, u32, u32),
    /// Threads in a block (x, y, z).
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// One thread per element for `n` elements, in blocks of 256 threads along x (the kernel
    /// must check its index against `n`: the last block may run past it).
    ///
    /// ```
    /// let cfg = custack::LaunchConfig::for_elements(1000);
    /// assert_eq!((cfg.grid.0, cfg.block.0), (4, 256));
    /// ```
    pub const fn for_elements(n: u32) -> Self {
        Self::for_elements_with_block(n, 256)
    }

    /// One thread per element for `n` elements, in blocks of `block` threads along x.
    pub const fn for_elements_with_block(n: u32, block: u32) -> Self {
        let block = if block == 0 { 1 } else { block };
        Self {
            grid: (n.div_ceil(block), 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The same configuration with `bytes` of dynamic shared memory per block.
    #[must_use]
    pub const fn with_shared_mem(self, bytes: u32) -> Self {
        Self {
            shared_mem_bytes: bytes,
            ..self
        }
    }
}

mod sealed {
    pub trait Sealed {}
    /// Seals [`KernelParam`](super::KernelParam) and [`KernelSignature`](super::KernelSignature).
    pub trait SealedParam {}
    pub trait SealedSignature {}
    /// Seals [`KernelArgs`](super::KernelArgs): only `()` and tuples of [`KernelArg`]s build
    /// parameter arrays, so no user type can hand the driver pointers of its choosing.
    pub trait SealedArgs {}
}

/// One kernel argument: plain data by value, or device memory of the launching scope
/// ([`ScopedSlice`], [`ScopedSliceMut`], `&`/`&mut` [`ScopedAlloc`]), passed as its device
/// pointer (C15). Sealed.
///
/// `'scope` is the launching scope's own lifetime, exactly: memory bound to another scope (an
/// outer scope's stream, running concurrently) is not an argument of this one.
pub trait KernelArg<'scope>: sealed::Sealed {
    /// What the kernel receives.
    #[doc(hidden)]
    type Raw: Copy;
    /// The parameter type this argument passes, for [`Kernel`] signatures: `T` for plain data,
    /// [`DevicePtr<T>`] for device memory.
    type Param: KernelParam;
    /// The value passed.
    #[doc(hidden)]
    fn to_raw(&self) -> Self::Raw;
}

impl<T: DeviceCopy> sealed::Sealed for T {}
impl<T: DeviceCopy> KernelArg<'_> for T {
    type Raw = T;
    type Param = T;
    #[inline]
    fn to_raw(&self) -> T {
        *self
    }
}

macro_rules! device_arg {
    ($($ty:ident),*) => {$(
        impl<T: DeviceCopy> sealed::Sealed for $ty<'_, T> {}
        impl<'scope, T: DeviceCopy> KernelArg<'scope> for $ty<'scope, T> {
            type Raw = ffi::CUdeviceptr;
            type Param = DevicePtr<T>;
            #[inline]
            fn to_raw(&self) -> ffi::CUdeviceptr {
                self.device_ptr()
            }
        }
    )*};
}
device_arg!(ScopedSlice, ScopedSliceMut);

// A mutable binding is passed by reference (`&x` to read, `&mut x` to write), so one launch
// cannot alias it; the memory stays bound for the whole scope, so any borrow is enough.
impl<T: DeviceCopy> sealed::Sealed for &ScopedSliceMut<'_, T> {}
impl<T: DeviceCopy> sealed::Sealed for &mut ScopedSliceMut<'_, T> {}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &ScopedSliceMut<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &mut ScopedSliceMut<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}

// A stream-ordered allocation is passed by reference: its free is enqueued on the same stream
// when it drops, after this launch, so a borrow shorter than the scope is enough.
impl<T: DeviceCopy> sealed::Sealed for &ScopedAlloc<'_, T> {}
impl<T: DeviceCopy> sealed::Sealed for &mut ScopedAlloc<'_, T> {}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &ScopedAlloc<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}
impl<'scope, T: DeviceCopy> KernelArg<'scope> for &mut ScopedAlloc<'scope, T> {
    type Raw = ffi::CUdeviceptr;
    type Param = DevicePtr<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUdeviceptr {
        self.device_ptr()
    }
}

/// The arguments of a launch in the scope `'scope`: a tuple of [`KernelArg`]s (`()` for none,
/// `(x,)` for one). Sealed.
pub trait KernelArgs<'scope>: sealed::SealedArgs {
    /// The kernel signature these arguments pass: the tuple of their
    /// [`Param`](KernelArg::Param)s.
    type Params: KernelSignature;
    /// Calls `f` with the `void**` array `cuLaunchKernel` takes, built on the stack.
    #[doc(hidden)]
    fn with_params<R>(&self, f: impl FnOnce(*mut *mut c_void) -> R) -> R;
}

impl sealed::SealedArgs for () {}
impl KernelArgs<'_> for () {
    type Params = ();
    #[inline]
    fn with_params<R>(&self, f: impl FnOnce(*mut *mut c_void) -> R) -> R {
        f(core::ptr::null_mut())
    }
}

macro_rules! kernel_args {
    ($($name:ident $idx:tt),+) => {
        impl<$($name),+> sealed::SealedArgs for ($($name,)+) {}
        impl<$($name: KernelParam),+> sealed::SealedSignature for ($($name,)+) {}
        impl<$($name: KernelParam),+> KernelSignature for ($($name,)+) {
            // Evaluated at compile time: an index out of range would fail the build, never
            // panic at run time (and `i` stays below the arrays' common length).
            #[allow(clippy::indexing_slicing)]
            const LAYOUT: &'static [(usize, usize)] = &{
                let sizes = [$(size_of::<$name>()),+];
                let aligns = [$(align_of::<$name>()),+];
                let mut layout = [(0usize, 0usize); [$(stringify!($name)),+].len()];
                let mut end: usize = 0;
                let mut i = 0;
                while i < layout.len() {
                    let offset = end.next_multiple_of(aligns[i]);
                    layout[i] = (offset, sizes[i]);
                    end = offset + sizes[i];
                    i += 1;
                }
                layout
            };
            fn names() -> Vec<&'static str> {
                vec![$(core::any::type_name::<$name>()),+]
            }
        }
        impl<'scope, $($name: KernelArg<'scope>),+> KernelArgs<'scope> for ($($name,)+) {
            type Params = ($($name::Param,)+);
            #[inline]
            fn with_params<R>(&self, f: impl FnOnce(*mut *mut c_void) -> R) -> R {
                let raw = ($(self.$idx.to_raw(),)+);
                let mut params = [$(core::ptr::from_ref(&raw.$idx).cast_mut().cast::<c_void>()),+];
                f(params.as_mut_ptr())
            }
        }
    };
}
kernel_args!(A 0);
kernel_args!(A 0, B 1);
kernel_args!(A 0, B 1, C 2);
kernel_args!(A 0, B 1, C 2, D 3);
kernel_args!(A 0, B 1, C 2, D 3, E 4);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
kernel_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// A kernel parameter that is a device pointer to `T`: the [`Kernel`] signature type of device
/// memory arguments ([`ScopedSlice`], [`ScopedSliceMut`], `&`/`&mut` [`ScopedAlloc`] of `T`).
/// Never constructed.
#[derive(Debug)]
pub struct DevicePtr<T: DeviceCopy>(
    // Never read: gives the type a device pointer's size and alignment, which its place in a
    // signature's layout needs.
    #[allow(dead_code)] ffi::CUdeviceptr,
    PhantomData<fn() -> T>,
);

static_assertions::assert_eq_size!(DevicePtr<u8>, ffi::CUdeviceptr);
static_assertions::assert_eq_align!(DevicePtr<u8>, ffi::CUdeviceptr);

/// One parameter type of a [`Kernel`] signature: plain data `T`, or [`DevicePtr<T>`]. Sealed.
pub trait KernelParam: sealed::SealedParam + 'static {}
impl<T: DeviceCopy> sealed::SealedParam for T {}
impl<T: DeviceCopy> KernelParam for T {}
impl<T: DeviceCopy> sealed::SealedParam for DevicePtr<T> {}
impl<T: DeviceCopy> KernelParam for DevicePtr<T> {}

/// A kernel's parameter list as a Rust type: `()` or a tuple of [`KernelParam`]s, with the
/// `(offset, size)` in bytes of each parameter as C lays them out. Sealed.
pub trait KernelSignature: sealed::SealedSignature + 'static {
    /// Each parameter's `(offset, size)` in bytes.
    const LAYOUT: &'static [(usize, usize)];
    /// Each parameter's Rust type, for error messages.
    #[doc(hidden)]
    fn names() -> Vec<&'static str>;
}
impl sealed::SealedSignature for () {}
impl KernelSignature for () {
    const LAYOUT: &'static [(usize, usize)] = &[];
    fn names() -> Vec<&'static str> {
        Vec::new()
    }
}

/// A kernel function with a Rust signature `S`, checked against the kernel once, when it is
/// looked up ([`Module::kernel`](crate::Module::kernel)): its launches
/// ([`StreamScope::launch_kernel`](crate::StreamScope::launch_kernel)) accept only arguments
/// of that signature, and cost nothing more than an unchecked launch.
///
/// `Copy`, the size of a `CUfunction`; borrows its module like [`Function`].
#[derive(Debug)]
pub struct Kernel<'m, S: KernelSignature> {
    function: Function<'m>,
    _signature: PhantomData<fn() -> S>,
}

impl<S: KernelSignature> Clone for Kernel<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: KernelSignature> Copy for Kernel<'_, S> {}

static_assertions::assert_eq_size!(Kernel<'static, (u32,)>, ffi::CUfunction);

impl<'m, S: KernelSignature> Kernel<'m, S> {
    /// Checks `function` against `S` with `cuFuncGetParamInfo` (CUDA 12.4; looked up): the same
    /// number of parameters, each at the same offset with the same size. On a driver without
    /// `cuFuncGetParamInfo` the check is skipped (the driver cannot tell).
    pub(crate) fn check(function: Function<'m>, name: &str) -> Result<Self> {
        match function.param_layout() {
            Ok(layout) => check_layout::<S>(name, &layout)?,
            Err(e) if e.kind() == crate::ErrorKind::DriverTooOld => {}
            Err(e) => return Err(e),
        }
        Ok(Self {
            function,
            _signature: PhantomData,
        })
    }

    /// The unchecked function.
    pub fn function(&self) -> Function<'m> {
        self.function
    }

    /// The same kernel with another module lifetime.
    ///
    /// # Safety
    ///
    /// The module must outlive `'n`.
    pub(crate) unsafe fn rebrand<'n>(self) -> Kernel<'n, S> {
        Kernel {
            // SAFETY: the caller's promise.
            function: unsafe { Function::from_raw(self.function.as_raw()) },
            _signature: PhantomData,
        }
    }
}

/// Compares the kernel's `layout` with `S`'s, naming the first parameter that differs.
fn check_layout<S: KernelSignature>(name: &str, layout: &[(usize, usize)]) -> Result<()> {
    let rust = S::LAYOUT;
    let mismatch = |detail: String| {
        Err(crate::Error::custack(
            crate::ErrorKind::KernelSignatureMismatch,
            format!("kernel {name:?}: {detail}"),
        ))
    };
    if layout.len() != rust.len() {
        return mismatch(format!(
            "the kernel takes {} parameters, the Rust signature {}",
            layout.len(),
            rust.len()
        ));
    }
    for (i, ((kernel, ours), ty)) in layout.iter().zip(rust).zip(S::names()).enumerate() {
        if kernel != ours {
            return mismatch(format!(
                "parameter {i} is {} bytes at offset {} in the kernel, but `{ty}` is {} bytes at offset {}",
                kernel.1, kernel.0, ours.1, ours.0
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{DevicePtr, KernelSignature, check_layout};
    use crate::ErrorKind;

    #[test]
    fn signatures_lay_out_as_c_does() {
        assert_eq!(
            <(DevicePtr<u32>, u32, u32)>::LAYOUT,
            [(0, 8), (8, 4), (12, 4)]
        );
        assert_eq!(
            <(u8, u64, u16, f32)>::LAYOUT,
            [(0, 1), (8, 8), (16, 2), (20, 4)]
        );
        assert_eq!(
            <(u32, [f32; 3], DevicePtr<f64>)>::LAYOUT,
            [(0, 4), (4, 12), (16, 8)]
        );
        assert_eq!(<()>::LAYOUT, []);
    }

    #[test]
    fn a_mismatch_names_the_parameter() {
        let add_u32 = [(0, 8), (8, 4), (12, 4)];
        assert!(check_layout::<(DevicePtr<u32>, u32, u32)>("add_u32", &add_u32).is_ok());
        let e = check_layout::<(DevicePtr<u32>, u32)>("add_u32", &add_u32).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KernelSignatureMismatch);
        assert!(
            e.to_string()
                .contains("takes 3 parameters, the Rust signature 2"),
            "{e}"
        );
        let e = check_layout::<(DevicePtr<u32>, u64, u32)>("add_u32", &add_u32).unwrap_err();
        assert!(
            e.to_string().contains(
                "parameter 1 is 4 bytes at offset 8 in the kernel, but `u64` is 8 bytes at offset 8"
            ),
            "{e}"
        );
    }
}
