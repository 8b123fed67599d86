//! Pitched 2D device memory (`cuMemAllocPitch`): rows padded to the device's preferred
//! alignment, the pitch carried by the type, copies between it and packed host rows
//! (`cuMemcpy2D`, synchronous and in scopes) checked without a driver call.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::{byte_size, free_device, free_device_in_drop};
use crate::vocabulary::binding::{Invariant, device_arg};
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;

/// A `width` × `height` array of `T` in pitched device memory, lent by a guard: each row starts
/// [`pitch_bytes`](Self::pitch_bytes) after the previous one. Freed on drop.
#[derive(Debug)]
#[doc(alias = "cuMemAllocPitch")]
pub struct PitchedBuffer<'g, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    pitch: usize,
    width: usize,
    height: usize,
    _marker: PhantomData<(&'g (), *const T)>,
}

/// A [`PitchedBuffer`] bound exclusively to a scope ([`StreamScope::bind_pitched`](crate::StreamScope::bind_pitched)): its
/// copies and kernels take `&`/`&mut` of it; a kernel receives the device pointer (pass
/// [`pitch_bytes`](Self::pitch_bytes) as an argument of its own).
#[derive(Debug)]
pub struct ScopedPitched<'scope, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    pitch: usize,
    width: usize,
    height: usize,
    _marker: PhantomData<(Invariant<'scope>, *const T)>,
}

fn element_size_bytes<T>() -> core::ffi::c_uint {
    match size_of::<T>() {
        0..=4 => 4,
        5..=8 => 8,
        _ => 16,
    }
}

impl<T: DeviceCopy> ScopedPitched<'_, T> {
    /// # Safety
    ///
    /// `memory` must stay borrowed exclusively until the scope's work is complete.
    #[inline]
    pub(crate) unsafe fn bind(memory: &mut PitchedBuffer<'_, T>) -> Self {
        Self {
            ptr: memory.ptr,
            pitch: memory.pitch,
            width: memory.width,
            height: memory.height,
            _marker: PhantomData,
        }
    }
}

/// One side of a 2D copy: `cuMemcpy2D` names host and device memory by different fields.
#[derive(Clone, Copy)]
pub(crate) enum Side2d {
    /// Host rows `pitch` bytes apart (only read when it is the source).
    Host(*mut core::ffi::c_void, usize),
    /// Device rows `pitch` bytes apart.
    Device(ffi::CUdeviceptr, usize),
}

impl Side2d {
    fn parts(
        self,
    ) -> (
        core::ffi::c_uint,
        *mut core::ffi::c_void,
        ffi::CUdeviceptr,
        usize,
    ) {
        match self {
            Self::Host(p, pitch) => (ffi::CU_MEMORYTYPE_HOST, p, 0, pitch),
            Self::Device(p, pitch) => (ffi::CU_MEMORYTYPE_DEVICE, core::ptr::null_mut(), p, pitch),
        }
    }
}

/// A 2D copy of `height` rows of `width_bytes` from `src` to `dst`.
pub(crate) fn copy2d(
    dst: Side2d,
    src: Side2d,
    width_bytes: usize,
    height: usize,
) -> ffi::CUDA_MEMCPY2D {
    let (dst_type, dst_host, dst_device, dst_pitch) = dst.parts();
    let (src_type, src_host, src_device, src_pitch) = src.parts();
    ffi::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: src_type,
        srcHost: src_host.cast_const(),
        srcDevice: src_device,
        srcArray: core::ptr::null_mut(),
        srcPitch: src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: dst_device,
        dstArray: core::ptr::null_mut(),
        dstPitch: dst_pitch,
        WidthInBytes: width_bytes,
        Height: height,
    }
}

/// `LengthMismatch` unless `host` elements are `width`×`height`(×`depth`) packed rows of `array`.
pub(crate) fn check_packed(
    what: &str,
    array: &str,
    host: usize,
    [width, height, depth]: [usize; 3],
) -> Result<()> {
    if width.checked_mul(height).and_then(|n| n.checked_mul(depth)) == Some(host) {
        return Ok(());
    }
    let shape = if depth == 1 {
        format!("{width}x{height}")
    } else {
        format!("{width}x{height}x{depth}")
    };
    Err(Error::custack(
        ErrorKind::LengthMismatch,
        format!("{what}: a {shape} {array} and {host} packed host elements"),
    ))
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAllocPitch`—Allocates `width` × `height` elements in pitched memory
    /// (uninitialized device bytes: any bit pattern is a valid `T`).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for an empty array; [`ErrorKind::SizeOverflow`]; out of
    /// memory.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let mut image = guard.alloc_pitched::<f32>(1000, 700)?; // rows padded to `pitch_bytes()`
    /// image.copy_from_host(&vec![0.5; 1000 * 700])?;
    /// assert_eq!(image.to_vec()?.len(), 700_000);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAllocPitch")]
    pub fn alloc_pitched<T: DeviceCopy>(
        &self,
        width: usize,
        height: usize,
    ) -> Result<PitchedBuffer<'_, T>> {
        crate::error::poison::check()?;
        let row_bytes = byte_size::<T>(width)?;
        if row_bytes == 0 || height == 0 {
            return Err(Error::from_kind(ErrorKind::InvalidValue)
                .with_detail("an empty pitched allocation: allocate at least one element"));
        }
        let (mut ptr, mut pitch) = (0, 0usize);
        // SAFETY: valid out-pointers; this guard's context is current.
        unsafe {
            ffi::cuMemAllocPitch_v2(
                &raw mut ptr,
                &raw mut pitch,
                row_bytes,
                height,
                element_size_bytes::<T>(),
            )
        }
        .result()?;
        Ok(PitchedBuffer {
            ptr,
            pitch,
            width,
            height,
            _marker: PhantomData,
        })
    }
}

impl<T: DeviceCopy> PitchedBuffer<'_, T> {
    /// Elements per row.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }
    /// Bytes from one row's start to the next's.
    pub fn pitch_bytes(&self) -> usize {
        self.pitch
    }
    /// The device address of the first row.
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }

    /// `cuMemcpy2D`—Copies `src`, `height` packed rows of `width` elements, into the array.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] (no driver call) unless `src` holds width × height
    /// elements; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy2D")]
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        crate::error::poison::check()?;
        check_packed(
            "copy_from_host",
            "pitched array",
            src.len(),
            [self.width, self.height, 1],
        )?;
        let row = self.width * size_of::<T>();
        let copy = copy2d(
            Side2d::Device(self.ptr, self.pitch),
            Side2d::Host(src.as_ptr().cast_mut().cast(), row),
            row,
            self.height,
        );
        crate::error::poison::check()?;
        // SAFETY: `src` holds height rows of `row` bytes; the array holds height rows of `pitch`
        // ≥ `row` bytes, live memory of the current context, exclusively borrowed.
        unsafe { ffi::cuMemcpy2D_v2(&raw const copy) }
            .result_releasing(crate::error::Observer::DriverCall)
    }

    /// `cuMemcpy2D`—The array's elements as packed rows in a new `Vec`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpy2D")]
    pub fn to_vec(&self) -> Result<Vec<T>> {
        crate::error::poison::check()?;
        let n = self.width * self.height;
        let mut v: Vec<T> = Vec::with_capacity(n);
        let row = self.width * size_of::<T>();
        let copy = copy2d(
            Side2d::Host(v.as_mut_ptr().cast(), row),
            Side2d::Device(self.ptr, self.pitch),
            row,
            self.height,
        );
        crate::error::poison::check()?;
        // SAFETY: `v` has capacity for height rows of `row` bytes; the array is live memory of
        // the current context.
        unsafe { ffi::cuMemcpy2D_v2(&raw const copy) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        // SAFETY: the copy initialized all `n` elements; any bit pattern is a valid `T`.
        unsafe { v.set_len(n) };
        Ok(v)
    }

    /// `cuMemFree`—Frees the array, returning the driver's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemFree")]
    pub fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: allocated by `cuMemAllocPitch`, freed once (`this` never drops).
        unsafe { free_device(this.ptr) }
    }
}

impl<T: DeviceCopy> Drop for PitchedBuffer<'_, T> {
    fn drop(&mut self) {
        // SAFETY: allocated in the current context (its guard is on top), freed once; no
        // asynchronous work uses it (scopes bind it by borrow).
        unsafe { free_device_in_drop(self.ptr) }
    }
}

impl<T: DeviceCopy> ScopedPitched<'_, T> {
    /// Elements per row.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }
    /// Bytes from one row's start to the next's: pass it to kernels that index rows.
    pub fn pitch_bytes(&self) -> usize {
        self.pitch
    }
    /// The device address of the first row.
    pub fn device_ptr(&self) -> ffi::CUdeviceptr {
        self.ptr
    }
}

// A pitched array is passed by reference, like a mutable binding; the kernel gets its base
// address (and the pitch as an argument of its own).
device_arg!(by_ref ScopedPitched);
