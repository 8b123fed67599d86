//! A tensor map over borrowed device memory ([`TensorMap`]), encoded by the driver only after
//! every rule of `rules.rs` holds, and what a scope's kernels receive of it
//! ([`ScopedTensorMap`], passed by value as the 128-byte `CUtensorMap`; [`TensorMapHandle`] in a
//! checked signature). The `bind_tensor_map` method that makes a scoped map is here too.

use crate::asynchronous::scope::StreamScope;
use crate::error::Result;
use crate::ffi;
use crate::memory::DeviceMemory;
use crate::tensor_map::rules::{Im2col, MAX_RANK, TensorElement, Tiled, reach};
use crate::vocabulary::argument::{KernelArg, KernelParam, sealed as launch_sealed};
use crate::vocabulary::binding::Invariant;
use core::ffi::c_void;
use core::marker::PhantomData;

/// A tensor map (`CUtensorMap`) of elements of `T` over device memory it borrows for `'b`: a
/// tiled or im2col description that the Tensor Memory Accelerator (compute capability 9.0)
/// copies boxes of between global and shared memory. The map holds the memory's address, so
/// it borrows the memory: the memory cannot be freed, moved into a submission, or bound
/// writably while the map lives, and a map cannot outlive it (C32).
///
/// Every rule of the driver's documentation and the map's fit in its memory are checked before
/// the driver is asked ([`TensorMapRule`](crate::TensorMapRule)). A kernel receives it bound to a
/// scope ([`StreamScope::bind_tensor_map`]) as a `tensor_map<T>` parameter of its contract
/// ([`kernel_contract!`](crate::kernel_contract)), by value as a
/// `const __grid_constant__ CUtensorMap`, and only reads through it.
///
/// ```no_run
/// use custack::{Context, ContextFlags, Driver, Stack, TensorMap, Tiled};
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let matrix = guard.alloc_zeroed::<f32>(64 * 32)?;
/// // 32 rows of 64 floats, 256 bytes apart, in boxes of 16 × 8.
/// let map = TensorMap::tiled(&matrix, &Tiled::new(&[64, 32], &[256], &[16, 8]))?;
/// assert_eq!(map.reach_bytes(), 64 * 32 * 4);
/// # Ok::<(), custack::Error>(())
/// ```
///
/// # References
///
/// CUDA driver API, "Tensor Map Object Management"
/// (<https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>); CUDA C++
/// Programming Guide, "Using the Tensor Memory Accelerator (TMA)".
#[derive(Debug)]
#[doc(alias = "CUtensorMap")]
pub struct TensorMap<'b, T: TensorElement> {
    raw: ffi::CUtensorMap,
    base: ffi::CUdeviceptr,
    reach: usize,
    boxed: BoxDims,
    _marker: PhantomData<(&'b [T], *const ())>,
}

static_assertions::assert_not_impl_any!(TensorMap<'static, f32>: Send, Sync);

impl<'b, T: TensorElement> TensorMap<'b, T> {
    /// `cuTensorMapEncodeTiled`: a tiled map of `memory` as `tiled` describes it, from the
    /// memory's first element.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TensorMapRefused`](crate::ErrorKind::TensorMapRefused) before the driver is
    /// asked, its [`TensorMapError`](crate::TensorMapError) naming the rule broken (the map
    /// reaching past `memory` among them); the driver's error otherwise.
    ///
    /// # References
    ///
    /// CUDA driver API, `cuTensorMapEncodeTiled`:
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>
    #[doc(alias = "cuTensorMapEncodeTiled")]
    pub fn tiled<M: DeviceMemory<T> + ?Sized>(memory: &'b M, tiled: &Tiled) -> Result<Self> {
        let (base, bytes) = (memory.device_ptr(), memory.byte_len());
        tiled.check::<T>(base, bytes)?;
        let l = &tiled.layout;
        let mut raw = ffi::CUtensorMap {
            opaque: [0; ffi::CU_TENSOR_MAP_NUM_QWORDS],
        };
        // SAFETY: `cuTensorMapEncodeTiled` writes the 64-byte-aligned `raw` and reads the
        // arrays, each of the length its rank needs (checked above: `dims` has `rank` entries,
        // `strides` `rank - 1`, the box and element strides `rank`); the address is only
        // encoded, never dereferenced on the host.
        unsafe {
            ffi::cuTensorMapEncodeTiled(
                &raw mut raw,
                T::DATA_TYPE,
                l.dims.len() as u32,
                base as *mut c_void,
                l.dims.as_ptr(),
                l.strides.as_ptr(),
                tiled.box_dims.as_ptr(),
                l.element_strides.as_ptr(),
                l.interleave.raw(),
                l.swizzle.raw(),
                l.l2.raw(),
                l.oob.raw(),
            )
        }
        .result()?;
        Ok(Self::new(
            raw,
            base,
            reach::<T>(l),
            BoxDims::of(&tiled.box_dims),
        ))
    }

    /// `cuTensorMapEncodeIm2col`: an im2col map of `memory` as `im2col` describes it.
    ///
    /// # Errors
    ///
    /// As [`tiled`](Self::tiled), with the im2col rules (rank 3 to 5, the corners' ranges and
    /// box, the channels and pixels).
    ///
    /// # References
    ///
    /// CUDA driver API, `cuTensorMapEncodeIm2col`:
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html>
    #[doc(alias = "cuTensorMapEncodeIm2col")]
    pub fn im2col<M: DeviceMemory<T> + ?Sized>(memory: &'b M, im2col: &Im2col) -> Result<Self> {
        let (base, bytes) = (memory.device_ptr(), memory.byte_len());
        im2col.check::<T>(base, bytes)?;
        let l = &im2col.layout;
        let mut raw = ffi::CUtensorMap {
            opaque: [0; ffi::CU_TENSOR_MAP_NUM_QWORDS],
        };
        // SAFETY: as in `tiled`; the corners have `rank - 2` entries each (checked above).
        unsafe {
            ffi::cuTensorMapEncodeIm2col(
                &raw mut raw,
                T::DATA_TYPE,
                l.dims.len() as u32,
                base as *mut c_void,
                l.dims.as_ptr(),
                l.strides.as_ptr(),
                im2col.lower.as_ptr(),
                im2col.upper.as_ptr(),
                im2col.channels_per_pixel,
                im2col.pixels_per_column,
                l.element_strides.as_ptr(),
                l.interleave.raw(),
                l.swizzle.raw(),
                l.l2.raw(),
                l.oob.raw(),
            )
        }
        .result()?;
        let boxed = BoxDims::of(&[im2col.channels_per_pixel, im2col.pixels_per_column]);
        Ok(Self::new(raw, base, reach::<T>(l), boxed))
    }

    fn new(
        raw: ffi::CUtensorMap,
        base: ffi::CUdeviceptr,
        reach: Option<u64>,
        boxed: BoxDims,
    ) -> Self {
        Self {
            raw,
            base,
            boxed,
            // Checked to be at most the buffer's length, a `usize`.
            reach: reach.and_then(|r| usize::try_from(r).ok()).unwrap_or(0),
            _marker: PhantomData,
        }
    }

    /// The descriptor the driver wrote.
    #[must_use]
    pub fn as_raw(&self) -> &ffi::CUtensorMap {
        &self.raw
    }

    /// The device address of the map's first element (its buffer's).
    #[must_use]
    pub fn base(&self) -> ffi::CUdeviceptr {
        self.base
    }

    /// The bytes from [`base`](Self::base) the map may reach, at most its buffer's length.
    #[must_use]
    pub fn reach_bytes(&self) -> usize {
        self.reach
    }

    /// The box one copy moves, in elements per dimension, innermost first (for an im2col map:
    /// channels per pixel and pixels per column).
    #[must_use]
    pub fn box_dims(&self) -> &[u32] {
        self.boxed.dims_held()
    }
}

/// A box's sizes, up to five, kept by value so that a scoped map stays `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BoxDims {
    dims: [u32; MAX_RANK],
    rank: usize,
}

impl BoxDims {
    /// The first five of `dims` (a checked map has at most five).
    fn of(dims: &[u32]) -> Self {
        let mut out = [0; MAX_RANK];
        let rank = dims.len().min(MAX_RANK);
        for (o, &d) in out.iter_mut().zip(dims) {
            *o = d;
        }
        Self { dims: out, rank }
    }
    fn dims_held(&self) -> &[u32] {
        self.dims.split_at(self.rank.min(MAX_RANK)).0
    }
}

/// A tensor map bound to a scope: a kernel argument of that scope for a `tensor_map<T>`
/// parameter ([`kernel_contract!`](crate::kernel_contract)), passed by value as the 128-byte
/// `CUtensorMap`. `Copy`.
#[derive(Debug, Clone, Copy)]
pub struct ScopedTensorMap<'scope, T: TensorElement> {
    raw: ffi::CUtensorMap,
    base: ffi::CUdeviceptr,
    reach: usize,
    boxed: BoxDims,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

// A bound map names memory of the scope's context: it stays on the scope's thread.
static_assertions::assert_not_impl_any!(ScopedTensorMap<'static, f32>: Send, Sync);

impl<T: TensorElement> ScopedTensorMap<'_, T> {
    /// A map bound to a scope from its parts, for the launch checks' tests.
    ///
    /// # Safety
    ///
    /// Launched, `raw` would be read by a kernel: it must be a map the driver encoded over the
    /// `reach` bytes at `base`, memory bound to the scope for its lifetime. Tests that only
    /// check a launch's arguments never launch it.
    #[cfg(test)]
    pub(crate) unsafe fn from_raw_parts(
        base: ffi::CUdeviceptr,
        reach: usize,
        box_dims: &[u32],
    ) -> Self {
        Self {
            raw: ffi::CUtensorMap {
                opaque: [0; ffi::CU_TENSOR_MAP_NUM_QWORDS],
            },
            base,
            reach,
            boxed: BoxDims::of(box_dims),
            _marker: PhantomData,
        }
    }

    /// The memory the map reaches: its first address and how many bytes.
    #[doc(hidden)]
    #[must_use]
    pub fn range(&self) -> (ffi::CUdeviceptr, usize) {
        (self.base, self.reach)
    }

    /// The map's box ([`TensorMap::box_dims`]).
    #[must_use]
    pub fn box_dims(&self) -> &[u32] {
        self.boxed.dims_held()
    }
}

/// A tensor map parameter of elements of `T` in a [`Kernel`](crate::Kernel) signature
/// (`const __grid_constant__ CUtensorMap`, 128 bytes, 64-byte aligned). Never constructed.
#[derive(Debug)]
pub struct TensorMapHandle<T: TensorElement>(
    #[allow(dead_code)] ffi::CUtensorMap,
    PhantomData<fn() -> T>,
);

static_assertions::assert_eq_size!(TensorMapHandle<f32>, ffi::CUtensorMap);
static_assertions::assert_eq_align!(TensorMapHandle<f32>, ffi::CUtensorMap);

impl<T: TensorElement> launch_sealed::Sealed for ScopedTensorMap<'_, T> {}
impl<'scope, T: TensorElement> KernelArg<'scope> for ScopedTensorMap<'scope, T> {
    type Raw = ffi::CUtensorMap;
    type Param = TensorMapHandle<T>;
    #[inline]
    fn to_raw(&self) -> ffi::CUtensorMap {
        self.raw
    }
}
impl<T: TensorElement> launch_sealed::SealedParam for TensorMapHandle<T> {}
impl<T: TensorElement> KernelParam for TensorMapHandle<T> {}

impl<'scope> StreamScope<'scope, '_> {
    /// Binds a tensor map to this scope for its kernels, until the scope ends: the scope
    /// borrows the map, and so the memory it is over, which nothing can then write or free
    /// until the scope's work is complete.
    #[must_use]
    pub fn bind_tensor_map<T: TensorElement>(
        &self,
        map: &'scope TensorMap<'_, T>,
    ) -> ScopedTensorMap<'scope, T> {
        ScopedTensorMap {
            raw: map.raw,
            base: map.base,
            reach: map.reach,
            boxed: map.boxed,
            _marker: PhantomData,
        }
    }
}
