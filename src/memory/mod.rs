//! Device memory and page-locked host memory, lent by a [`PushedGuard`].
//!
//! [`DeviceBuffer`] owns an allocation; [`DeviceView`] and [`DeviceViewMut`] borrow part of
//! one, with the aliasing rules of `&[T]` and `&mut [T]` (C14). The synchronous operations live
//! on the [`DeviceMemory`] and [`DeviceMemoryMut`] traits, which all three implement;
//! asynchronous ones on [`StreamScope`](crate::StreamScope).

pub(crate) mod ipc;
pub(crate) mod managed;
pub(crate) mod managed_live;
pub(crate) mod pitched;
pub(crate) mod pool;
pub(crate) mod registered;
#[cfg(target_os = "linux")]
pub(crate) mod share;
pub(crate) mod vmm;

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::left_behind::Object;
use crate::error::poison;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::vocabulary::plain::DeviceCopy;
use core::marker::PhantomData;
use core::ops::{Bound, RangeBounds};
use core::ptr::NonNull;

pub(crate) fn byte_size<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>()).ok_or_else(|| {
        Error::custack(
            ErrorKind::SizeOverflow,
            format!("{len} elements of {} bytes overflow usize", size_of::<T>()),
        )
    })
}

pub(crate) fn check_alloc_len<T>(len: usize) -> Result<usize> {
    // Checked when the allocation is compiled for `T`: the driver's allocations are aligned to
    // 256 bytes at least, and the host reads page-locked and managed memory as `&[T]`.
    const {
        assert!(
            core::mem::align_of::<T>() <= crate::vocabulary::plain::MAX_ALIGN,
            "DeviceCopy: a type aligned to more than 256 bytes cannot be allocated by the driver \
             (its allocations promise 256): lower its #[repr(align(N))]"
        );
    }
    let bytes = byte_size::<T>(len)?;
    if bytes == 0 {
        return Err(Error::from_kind(ErrorKind::InvalidValue).with_detail(
            "zero-byte allocation: CUDA has no empty allocations; allocate at least one element",
        ));
    }
    Ok(bytes)
}

#[inline]
pub(crate) fn check_same_len(what: &str, dst: usize, src: usize) -> Result<()> {
    if dst == src {
        Ok(())
    } else {
        Err(length_mismatch(what, dst, src))
    }
}

#[cold]
#[inline(never)]
fn length_mismatch(what: &str, dst: usize, src: usize) -> Error {
    Error::custack(
        ErrorKind::LengthMismatch,
        format!("{what}: destination holds {dst} elements, source {src}"),
    )
}

fn resolve_range(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(s), Some(e)) if s <= e && e <= len => Ok((s, e)),
        _ => Err(Error::custack(
            ErrorKind::OutOfRange,
            format!(
                "range {:?}..{:?} is outside 0..{len}",
                range.start_bound(),
                range.end_bound()
            ),
        )),
    }
}

fn offset_ptr<T>(ptr: ffi::CUdeviceptr, elems: usize) -> ffi::CUdeviceptr {
    // In range by construction: `elems <= len` of an allocation whose byte size fits `usize`.
    ptr + (elems * size_of::<T>()) as ffi::CUdeviceptr
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Device memory that can be read: a [`DeviceBuffer`], [`DeviceView`] or [`DeviceViewMut`].
///
/// Only memory lent by the guard that is current on this thread implements it, so every
/// operation here runs in the right context without checking.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory of `{T}` lent by the current guard",
    note = "device memory is a `DeviceBuffer`, `DeviceView` or `DeviceViewMut` (or a `ManagedBuffer`, a VMM `Mapping`/`ReadOnlyMapping`, an `IpcBuffer`); host memory is bound with `s.bind_host(&v)` / `s.bind_host_mut(&mut v)`, and an existing binding is used as it is, not bound again",
    note = "a `ParkedBuffer` is attached to a guard of its own context first (`guard.attach(parked)`); a `MultiDeviceMapping` is lent by a guard of a device it lets in (`guard.lend(&m)`, `guard.lend_mut(&mut m)`)"
)]
pub trait DeviceMemory<T: DeviceCopy>: sealed::Sealed {
    /// The device address of the first element.
    fn device_ptr(&self) -> ffi::CUdeviceptr;

    /// The number of elements.
    fn len(&self) -> usize;

    /// Whether there are no elements (only views can be empty).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The size in bytes.
    fn byte_len(&self) -> usize {
        self.len() * size_of::<T>()
    }

    /// A shared view of the whole memory.
    fn as_view(&self) -> DeviceView<'_, T> {
        DeviceView {
            ptr: self.device_ptr(),
            len: self.len(),
            _marker: PhantomData,
        }
    }

    /// A shared view of `range`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] when the range does not lie within `0..len`.
    fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, T>> {
        let (s, e) = resolve_range(range, self.len())?;
        Ok(DeviceView {
            ptr: offset_ptr::<T>(self.device_ptr(), s),
            len: e - s,
            _marker: PhantomData,
        })
    }

    /// Two shared views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] when `mid > len`.
    fn split_at(&self, mid: usize) -> Result<(DeviceView<'_, T>, DeviceView<'_, T>)> {
        let (_, _) = resolve_range(..mid, self.len())?;
        let p = self.device_ptr();
        Ok((
            DeviceView {
                ptr: p,
                len: mid,
                _marker: PhantomData,
            },
            DeviceView {
                ptr: offset_ptr::<T>(p, mid),
                len: self.len() - mid,
                _marker: PhantomData,
            },
        ))
    }

    /// `cuMemcpyDtoH`—Copies to host memory; returns when the copy is complete.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] if `dst.len() != self.len()`; driver errors, including
    /// those of earlier asynchronous work.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoH")]
    fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        crate::error::poison::check()?;
        check_same_len("copy_to_host", dst.len(), self.len())?;
        if dst.is_empty() {
            return Ok(());
        }
        crate::error::poison::check()?;
        // SAFETY: `dst` is writable for `byte_len` bytes (same length, same `T`); the device
        // range is live memory of the current context (lent by the current guard); any bit
        // pattern is a valid `T` (`DeviceCopy`).
        unsafe { ffi::cuMemcpyDtoH_v2(dst.as_mut_ptr().cast(), self.device_ptr(), self.byte_len()) }
            .result_releasing(crate::error::Observer::DriverCall)
    }

    /// `cuPointerGetAttributes`—What the driver knows of this memory: its context, device,
    /// allocation range and id, memory type.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html>
    #[doc(alias = "cuPointerGetAttributes")]
    #[doc(alias = "cuPointerGetAttribute")]
    fn pointer_attributes(&self) -> Result<PointerAttributes> {
        crate::error::poison::check()?;
        pointer_attributes(self.device_ptr())
    }

    /// `cuMemcpyDtoH`—Copies into a new `Vec`.
    ///
    /// # Errors
    ///
    /// The copy's error, which may also be an error of earlier asynchronous work of the
    /// context (see [`guide::faults`](crate::guide::faults)).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoH")]
    fn to_vec(&self) -> Result<Vec<T>> {
        crate::error::poison::check()?;
        let mut v = Vec::with_capacity(self.len());
        if self.is_empty() {
            return Ok(v);
        }
        crate::error::poison::check()?;
        // SAFETY: `v` has capacity for `len` elements, i.e. `byte_len` writable bytes; the
        // device range is live memory of the current context.
        unsafe { ffi::cuMemcpyDtoH_v2(v.as_mut_ptr().cast(), self.device_ptr(), self.byte_len()) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        // SAFETY: the copy succeeded and initialized all `len` elements; any bit pattern is a
        // valid `T`.
        unsafe { v.set_len(self.len()) };
        Ok(v)
    }
}

/// Device memory that can be written: a [`DeviceBuffer`] or [`DeviceViewMut`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not writable device memory of `{T}`",
    note = "writable device memory is a `DeviceBuffer`, a `DeviceViewMut` (`buf.as_view_mut()`, `buf.slice_mut(..)`), a `ManagedBuffer`, a writable VMM `Mapping` or an `IpcBuffer`; a `DeviceView` or `ReadOnlyMapping` only reads: bind it with `s.bind(&view)`"
)]
pub trait DeviceMemoryMut<T: DeviceCopy>: DeviceMemory<T> {
    /// An exclusive view of the whole memory.
    fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        DeviceViewMut {
            ptr: self.device_ptr(),
            len: self.len(),
            _marker: PhantomData,
        }
    }

    /// An exclusive view of `range`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] when the range does not lie within `0..len`.
    fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceViewMut<'_, T>> {
        let (s, e) = resolve_range(range, self.len())?;
        Ok(DeviceViewMut {
            ptr: offset_ptr::<T>(self.device_ptr(), s),
            len: e - s,
            _marker: PhantomData,
        })
    }

    /// Two exclusive, disjoint views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] when `mid > len`.
    fn split_at_mut(&mut self, mid: usize) -> Result<(DeviceViewMut<'_, T>, DeviceViewMut<'_, T>)> {
        let (_, _) = resolve_range(..mid, self.len())?;
        let p = self.device_ptr();
        Ok((
            DeviceViewMut {
                ptr: p,
                len: mid,
                _marker: PhantomData,
            },
            DeviceViewMut {
                ptr: offset_ptr::<T>(p, mid),
                len: self.len() - mid,
                _marker: PhantomData,
            },
        ))
    }

    /// `cuMemcpyHtoD`—Copies from host memory. The host slice may be reused when this returns.
    ///
    /// From pageable memory the driver returns once the bytes are staged: later synchronous
    /// calls and work on blocking streams see them, work on a non-blocking stream is not ordered
    /// after the copy (the "Stream kinds" section of the repository's `docs/features.md`).
    /// While a [`ManagedBuffer`](crate::ManagedBuffer) is alive in the process, the copy is
    /// also waited for (`cuStreamSynchronize` of the NULL stream) before this returns: the host
    /// reads and writes managed memory directly, and must not race the copy's landing (C21).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] if `src.len() != self.len()`; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::{DeviceMemory, DeviceMemoryMut};
    /// let mut buf = guard.alloc::<u32>(4)?;
    /// buf.copy_from_host(&[1, 2, 3, 4])?;          // cuMemcpyHtoD, before later synchronous calls
    /// let (_, mut upper) = buf.split_at_mut(2)?;   // views: no driver call
    /// upper.copy_from_host(&[30, 40])?;
    /// assert_eq!(buf.to_vec()?, [1, 2, 30, 40]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyHtoD")]
    fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        crate::error::poison::check()?;
        check_same_len("copy_from_host", self.len(), src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        crate::error::poison::check()?;
        // SAFETY: `src` is readable for `byte_len` bytes; the device range is live memory of
        // the current context, exclusively borrowed.
        unsafe { ffi::cuMemcpyHtoD_v2(self.device_ptr(), src.as_ptr().cast(), self.byte_len()) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        // From pageable memory the copy may return once its bytes are staged, before they land.
        // Device memory is reached only by later work on the legacy stream's order, but managed
        // memory the host reads and writes directly once this borrow ends (C21): while any
        // managed buffer is alive, wait for the copy.
        if managed_live::any_alive() {
            sync_null_stream()?;
        }
        Ok(())
    }

    /// `cuMemcpyDtoD`—Copies from other device memory of the same context, then waits for the
    /// copy (device-to-device copies are otherwise asynchronous to the host).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LengthMismatch`] if the lengths differ; driver errors.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemcpyDtoD")]
    fn copy_from_device(&mut self, src: &impl DeviceMemory<T>) -> Result<()> {
        crate::error::poison::check()?;
        check_same_len("copy_from_device", self.len(), src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: both ranges are live memory of the current context with `byte_len` bytes;
        // they do not overlap (`&mut self` and `&src` cannot alias).
        unsafe { ffi::cuMemcpyDtoD_v2(self.device_ptr(), src.device_ptr(), self.byte_len()) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        sync_null_stream()
    }

    /// `cuMemsetD8`—Sets every byte to `value`, then waits for the memset.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemsetD8")]
    fn fill_bytes(&mut self, value: u8) -> Result<()> {
        crate::error::poison::check()?;
        if self.is_empty() {
            return Ok(());
        }
        // SAFETY: the device range is live memory of the current context, `byte_len` bytes.
        unsafe { ffi::cuMemsetD8_v2(self.device_ptr(), value, self.byte_len()) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        sync_null_stream()
    }

    /// `cuMemsetD32`—Sets every 32-bit word to `value`, then waits for the memset.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` if the size is not a multiple of 4 bytes or the address is
    /// not 4-byte aligned.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemsetD32")]
    fn fill_u32(&mut self, value: u32) -> Result<()> {
        crate::error::poison::check()?;
        if self.is_empty() {
            return Ok(());
        }
        check_memset_unit(self.device_ptr(), self.byte_len(), 4)?;
        // SAFETY: the device range is live memory of the current context, `byte_len / 4` words.
        unsafe { ffi::cuMemsetD32_v2(self.device_ptr(), value, self.byte_len() / 4) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        sync_null_stream()
    }

    /// `cuMemsetD16`—Sets every 16-bit word to `value`, then waits for the memset.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` if the size is not a multiple of 2 bytes or the address is
    /// not 2-byte aligned.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemsetD16")]
    fn fill_u16(&mut self, value: u16) -> Result<()> {
        crate::error::poison::check()?;
        if self.is_empty() {
            return Ok(());
        }
        check_memset_unit(self.device_ptr(), self.byte_len(), 2)?;
        // SAFETY: the device range is live memory of the current context, `byte_len / 2` words.
        unsafe { ffi::cuMemsetD16_v2(self.device_ptr(), value, self.byte_len() / 2) }
            .result_releasing(crate::error::Observer::DriverCall)?;
        sync_null_stream()
    }
}

/// Checks a memset of `unit`-byte words covers whole, aligned words.
pub(crate) fn check_memset_unit(ptr: ffi::CUdeviceptr, bytes: usize, unit: usize) -> Result<()> {
    if bytes % unit == 0 && ptr % unit as u64 == 0 {
        return Ok(());
    }
    Err(Error::from_kind(ErrorKind::InvalidValue).with_detail(format!(
        "a {}-bit memset needs a {unit}-byte aligned range whose size is a multiple of {unit} bytes",
        unit * 8
    )))
}

/// What [`DeviceMemory::pointer_attributes`] reports (`cuPointerGetAttributes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUpointer_attribute")]
pub struct PointerAttributes {
    /// The context the memory belongs to.
    pub context: ffi::CUcontext,
    /// The device's ordinal.
    pub device_ordinal: i32,
    /// The allocation containing the address: its start and size in bytes.
    pub range: (ffi::CUdeviceptr, usize),
    /// A process-unique id of the allocation.
    pub buffer_id: u64,
    /// `CUmemorytype` (`ffi::CU_MEMORYTYPE_DEVICE`, `..._HOST`, `..._UNIFIED`).
    pub memory_type: u32,
    /// Whether it is managed (unified) memory.
    pub is_managed: bool,
}

/// `cuPointerGetAttributes` for an address of memory custack handed out.
pub(crate) fn pointer_attributes(ptr: ffi::CUdeviceptr) -> Result<PointerAttributes> {
    use ffi::CUpointer_attribute as A;
    crate::error::poison::check()?;
    let mut context: ffi::CUcontext = core::ptr::null_mut();
    let mut device_ordinal: core::ffi::c_int = 0;
    let mut start: ffi::CUdeviceptr = 0;
    let mut size: usize = 0;
    let mut buffer_id: u64 = 0;
    let mut memory_type: core::ffi::c_uint = 0;
    let mut is_managed: core::ffi::c_int = 0;
    let mut attributes = [
        A::CU_POINTER_ATTRIBUTE_CONTEXT,
        A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        A::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
        A::CU_POINTER_ATTRIBUTE_BUFFER_ID,
        A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        A::CU_POINTER_ATTRIBUTE_IS_MANAGED,
    ];
    let mut data: [*mut core::ffi::c_void; 7] = [
        (&raw mut context).cast(),
        (&raw mut device_ordinal).cast(),
        (&raw mut start).cast(),
        (&raw mut size).cast(),
        (&raw mut buffer_id).cast(),
        (&raw mut memory_type).cast(),
        (&raw mut is_managed).cast(),
    ];
    // SAFETY: seven attributes, each with a pointer to a writable value of the type the driver
    // documents for it; `ptr` is an address of memory custack handed out.
    unsafe {
        ffi::cuPointerGetAttributes(
            attributes.len() as core::ffi::c_uint,
            attributes.as_mut_ptr(),
            data.as_mut_ptr(),
            ptr,
        )
    }
    .result()?;
    Ok(PointerAttributes {
        context,
        device_ordinal,
        range: (start, size),
        buffer_id,
        memory_type,
        is_managed: is_managed != 0,
    })
}

/// Waits for the NULL stream of the current context, where a synchronous device-to-device copy
/// or memset runs: its borrows end when this returns, so an error returns only once the work is
/// known to be over, or the process takes the safe state ([`crate::deadline::wait_stream`]; a
/// failed `cuStreamSynchronize` alone says nothing about the copy). Unbounded, as a plain
/// scope's end is: the restricted profile zeroes its allocations by a wait of its own, within
/// the context's `WaitBound`.
#[track_caller]
fn sync_null_stream() -> Result<()> {
    crate::deadline::wait_stream(core::ptr::null_mut(), crate::error::Observer::DriverCall)
}

/// An owned allocation of `len` elements of `T` in device memory, lent by a guard.
///
/// Freed on drop (`cuMemFree`); [`free`](Self::free) returns the error instead. The buffer is
/// the size of a device pointer and a length, `!Send` and `!Sync` (it belongs to the guard).
///
/// # Examples
///
/// ```no_run
/// use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};
/// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
/// let mut stack = Stack::new()?;
/// let guard = stack.push(&ctx)?;
/// let mut buf = guard.alloc::<f32>(4)?;
/// buf.copy_from_host(&[1.0, 2.0, 3.0, 4.0])?;
/// assert_eq!(buf.to_vec()?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Debug)]
#[doc(alias = "CUdeviceptr")]
#[doc(alias = "cuMemAlloc")]
pub struct DeviceBuffer<'g, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(&'g (), *const T)>,
}

static_assertions::assert_eq_size!(DeviceBuffer<'static, u8>, (ffi::CUdeviceptr, usize));
static_assertions::assert_eq_size!(PinnedBuffer<'static, u8>, (*mut u8, usize));
static_assertions::assert_not_impl_any!(PinnedBuffer<'static, u8>: Send, Sync);
static_assertions::assert_not_impl_any!(DeviceBuffer<'static, u8>: Send, Sync);

/// A shared view of device memory, like `&[T]`. `Copy`.
#[derive(Debug, Clone, Copy)]
pub struct DeviceView<'a, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(&'a [T], *const ())>,
}

impl<T: DeviceCopy> DeviceView<'_, T> {
    /// # Safety
    ///
    /// `ptr..ptr + len * size_of::<T>()` must be live device memory of the current context for
    /// the returned lifetime, not written through any other handle meanwhile.
    pub(crate) unsafe fn from_raw_parts(ptr: ffi::CUdeviceptr, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}

impl<T: DeviceCopy> DeviceViewMut<'_, T> {
    /// # Safety
    ///
    /// As [`DeviceView::from_raw_parts`], and no other handle may access the memory meanwhile.
    pub(crate) unsafe fn from_raw_parts(ptr: ffi::CUdeviceptr, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}

/// An exclusive view of device memory, like `&mut [T]`.
#[derive(Debug)]
pub struct DeviceViewMut<'a, T: DeviceCopy> {
    ptr: ffi::CUdeviceptr,
    len: usize,
    _marker: PhantomData<(&'a mut [T], *const ())>,
}

/// Implements the memory traits for a type with `ptr` and `len` fields: `device_memory!(Type,
/// mut_)` for `Type<'_, T>` (`mut_`: writable too), `device_memory!([generics] Type<…>)` for a
/// type with more parameters (`DeviceMemory` only).
macro_rules! device_memory {
    ([$($g:tt)*] $ty:ty) => {
        impl<T: DeviceCopy, $($g)*> sealed::Sealed for $ty {}
        impl<T: DeviceCopy, $($g)*> DeviceMemory<T> for $ty {
            #[inline]
            fn device_ptr(&self) -> ffi::CUdeviceptr {
                self.ptr
            }
            #[inline]
            fn len(&self) -> usize {
                self.len
            }
        }
    };
    ($ty:ident, $($mut_:ident)?) => {
        $crate::memory::device_memory!([] $ty<'_, T>);
        $(impl<T: DeviceCopy> DeviceMemoryMut<T> for $ty<'_, T> {} const _: &str = stringify!($mut_);)?
    };
}
pub(crate) use device_memory;
device_memory!(DeviceBuffer, mut_);
device_memory!(DeviceView,);
device_memory!(DeviceViewMut, mut_);

impl<T: DeviceCopy> DeviceBuffer<'_, T> {
    /// # Safety
    ///
    /// `ptr` is a `cuMemAlloc` allocation of the current context's, holding `len` elements, owned
    /// by nothing else, and live for the returned lifetime.
    pub(crate) unsafe fn from_raw_parts<'g>(
        ptr: ffi::CUdeviceptr,
        len: usize,
    ) -> DeviceBuffer<'g, T> {
        DeviceBuffer {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// Gives up ownership: returns the device address and the number of elements without
    /// freeing the memory, e.g. to hand it to a library that will free it (with `cuMemFree` or
    /// `cudaFree`, in this buffer's context). Adopt it again with
    /// [`PushedGuard::buffer_from_raw`]. To lend the memory instead, pass
    /// [`device_ptr`](DeviceMemory::device_ptr) while the buffer lives.
    #[must_use = "the memory is no longer freed by custack"]
    pub fn into_raw(self) -> (ffi::CUdeviceptr, usize) {
        let this = core::mem::ManuallyDrop::new(self);
        (this.ptr, this.len)
    }

    /// `cuMemFree`—Frees the allocation, returning the driver's error.
    ///
    /// # Errors
    ///
    /// The driver's error. After a sticky error (or in a forked child) that error, without
    /// calling the driver: the memory is leaked, as GPU work of another context may still touch
    /// it (R20). The buffer is consumed either way.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemFree")]
    pub fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: `ptr` was allocated by `cuMemAlloc` and is freed once (`this` never drops).
        unsafe { free_device(this.ptr) }
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated by `cuMemAlloc` in the current context (the guard that
        // lent the buffer is alive and on top) and is freed once. No asynchronous work can use
        // it: stream scopes borrow it until their work is complete.
        unsafe { free_device_in_drop(self.ptr) }
    }
}

/// `cuMemFree` of device memory that its owner frees by hand: the driver's error; after a
/// sticky error (or in a forked child) that error, without calling the driver, the memory
/// leaked (R20).
///
/// # Safety
///
/// `ptr` was allocated by `cuMemAlloc`, `cuMemAllocManaged` or `cuMemAllocPitch`, and is freed
/// only here: its owner never drops.
pub(crate) unsafe fn free_device(ptr: ffi::CUdeviceptr) -> Result<()> {
    crate::error::left_behind::release(Object::DeviceMemory, ptr)?;
    // SAFETY: the caller's promise: memory the driver allocated, freed once.
    unsafe { ffi::cuMemFree_v2(ptr) }.result()
}

/// `cuMemFree` of device memory in its owner's `Drop`: the driver's error recorded
/// ([`take_drop_errors`](crate::take_drop_errors)); the memory leaked where the process leaves
/// it behind (R20).
///
/// # Safety
///
/// `ptr` was allocated as for [`free_device`] in the current context, is freed only here (its
/// owner is dropping), and no asynchronous work uses the memory.
pub(crate) unsafe fn free_device_in_drop(ptr: ffi::CUdeviceptr) {
    crate::error::left_behind::destroy_in_drop(Object::DeviceMemory, ptr, || {
        // SAFETY: the caller's promise: memory of the current context that no work uses, freed
        // once.
        unsafe { ffi::cuMemFree_v2(ptr) }.result()
    });
}

/// Page-locked (pinned) host memory, lent by a guard, so asynchronous copies from and to it
/// are truly asynchronous. Dereferences to `[T]`; zero-initialized.
///
/// Tied to the guard because the driver frees page-locked memory with its context: a pinned
/// buffer can never outlive the context that owns it (R9). To cross a nested push (staging
/// data for another context), park it: [`PushedGuard::park_pinned`] gives a
/// [`ParkedPinned`](crate::ParkedPinned), still a slice to the host under any context.
#[derive(Debug)]
#[doc(alias = "cuMemHostAlloc")]
pub struct PinnedBuffer<'g, T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    _marker: PhantomData<(&'g (), *const T)>,
}

// Bound to a scope's copies as host memory (`s.copy_to_device(&mut dst, &pinned)`).
crate::vocabulary::binding::host_from!([] PinnedBuffer<'_, T>);

impl<T: DeviceCopy> core::ops::Deref for PinnedBuffer<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialized (zeroed, then only written as `T`)
        // elements that live until drop; aliasing follows `&self`.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> core::ops::DerefMut for PinnedBuffer<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` gives exclusive access.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> PinnedBuffer<'_, T> {
    /// The memory as the driver's raw pointer, without a reference to the elements: a pointer
    /// handed to enqueued work stays valid when the host later reborrows the buffer (a `&mut`
    /// made by `deref_mut` would invalidate pointers derived from an earlier one).
    pub(crate) fn raw_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The pointer and length, without freeing (for parking).
    pub(crate) fn into_parts(self) -> (NonNull<T>, usize) {
        let this = core::mem::ManuallyDrop::new(self);
        (this.ptr, this.len)
    }

    /// # Safety
    ///
    /// `ptr` holds `len` initialized elements allocated by `cuMemHostAlloc` in the context of
    /// the guard the returned lifetime borrows, owned by nothing else.
    pub(crate) unsafe fn from_parts<'g>(ptr: NonNull<T>, len: usize) -> PinnedBuffer<'g, T> {
        PinnedBuffer {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// `cuMemFreeHost`—Frees the memory, returning the driver's error.
    ///
    /// # Errors
    ///
    /// The driver's error. After a sticky error (or in a forked child) that error, without
    /// calling the driver: the memory is leaked, as a copy may still touch it (R20).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemFreeHost")]
    pub fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        crate::error::left_behind::release(Object::HostMemory, this.ptr.as_ptr() as u64)?;
        // SAFETY: allocated by `cuMemHostAlloc`, freed once.
        unsafe { ffi::cuMemFreeHost(this.ptr.as_ptr().cast()) }.result()
    }
}

impl<T: DeviceCopy> Drop for PinnedBuffer<'_, T> {
    fn drop(&mut self) {
        let ptr = self.ptr.as_ptr();
        crate::error::left_behind::destroy_in_drop(Object::HostMemory, ptr as u64, || {
            // SAFETY: allocated by `cuMemHostAlloc` in the current context, freed once; no
            // asynchronous copy can use it (stream scopes borrow it until complete).
            unsafe { ffi::cuMemFreeHost(ptr.cast()) }.result()
        });
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAlloc`—Allocates `len` elements of `T` in device memory (uninitialized device
    /// bytes: any bit pattern is a valid `T`).
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for zero bytes, [`ErrorKind::SizeOverflow`] when the size
    /// overflows, `CUDA_ERROR_OUT_OF_MEMORY` (after which the context keeps working, R4).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::DeviceMemoryMut;
    /// let mut buf = guard.alloc::<f32>(1 << 20)?; // 4 MiB, uninitialized
    /// buf.copy_from_host(&vec![1.0; 1 << 20])?;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAlloc")]
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<'_, T>> {
        crate::error::poison::check()?;
        let bytes = check_alloc_len::<T>(len)?;
        let mut ptr: ffi::CUdeviceptr = 0;
        // SAFETY: `ptr` is a valid out-pointer; this guard's context is current.
        unsafe { ffi::cuMemAlloc_v2(&raw mut ptr, bytes) }.result()?;
        Ok(DeviceBuffer {
            ptr,
            len,
            _marker: PhantomData,
        })
    }

    /// `cuMemAlloc` + `cuMemsetD8`—Allocates `len` elements set to zero bytes.
    ///
    /// # Errors
    ///
    /// As [`alloc`](Self::alloc), and the memset's error.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAlloc")]
    #[doc(alias = "cuMemsetD8")]
    pub fn alloc_zeroed<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<'_, T>> {
        let mut buf = self.alloc::<T>(len)?;
        buf.fill_bytes(0)?;
        Ok(buf)
    }

    /// `cuMemAlloc` + `cuMemcpyHtoD`—Allocates a buffer holding a copy of `src`.
    ///
    /// # Errors
    ///
    /// As [`alloc`](Self::alloc), and the copy's error.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// use custack::DeviceMemory;
    /// let buf = guard.alloc_from(&[1u32, 2, 3])?;
    /// assert_eq!(buf.to_vec()?, [1, 2, 3]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemAlloc")]
    #[doc(alias = "cuMemcpyHtoD")]
    pub fn alloc_from<T: DeviceCopy>(&self, src: &[T]) -> Result<DeviceBuffer<'_, T>> {
        let mut buf = self.alloc::<T>(src.len())?;
        buf.copy_from_host(src)?;
        Ok(buf)
    }

    /// `cuMemHostAlloc`—Allocates `len` zeroed elements of page-locked host memory, portable
    /// (`CU_MEMHOSTALLOC_PORTABLE`: page-locked for every context, so that a parked buffer,
    /// [`park_pinned`](Self::park_pinned), stages data for another context's copies).
    ///
    /// # Errors
    ///
    /// As [`alloc`](Self::alloc).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// # let guard = stack.push(&ctx)?;
    /// let mut host = guard.alloc_pinned::<u32>(1024)?; // zeroed, page-locked
    /// host.fill(7); // a `&mut [u32]` to the host
    /// let dev = guard.alloc_from(&host)?;
    /// # drop(dev);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemHostAlloc")]
    pub fn alloc_pinned<T: DeviceCopy>(&self, len: usize) -> Result<PinnedBuffer<'_, T>> {
        crate::error::poison::check()?;
        let bytes = check_alloc_len::<T>(len)?;
        let mut p: *mut core::ffi::c_void = core::ptr::null_mut();
        // Portable: every context treats it as page-locked, so it stays useful once parked
        // (`park_pinned`) and copied from or to under another context.
        let flags = ffi::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: `p` is a valid out-pointer; this guard's context is current.
        unsafe { ffi::cuMemHostAlloc(&raw mut p, bytes, flags) }.result()?;
        let Some(ptr) = NonNull::new(p.cast::<T>()) else {
            return Err(Error::from_kind(ErrorKind::OutOfMemory)
                .with_detail("cuMemHostAlloc returned a null pointer"));
        };
        // SAFETY: `ptr` is valid for `bytes` writable bytes, page-aligned, so aligned for `T`
        // (at most 256 bytes, `check_alloc_len`'s compile-time check).
        unsafe { core::ptr::write_bytes(ptr.as_ptr().cast::<u8>(), 0, bytes) };
        Ok(PinnedBuffer {
            ptr,
            len,
            _marker: PhantomData,
        })
    }

    /// `cuMemGetInfo`—Free and total device memory in bytes.
    ///
    /// # Errors
    ///
    /// The driver's error; the poison (R20) or `ForkedProcess` (R22) without calling it.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemGetInfo")]
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        poison::check()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: valid out-pointers; this guard's context is current.
        unsafe { ffi::cuMemGetInfo_v2(&raw mut free, &raw mut total) }.result()?;
        Ok((free, total))
    }

    /// Adopts an allocation made elsewhere (`cuMemAlloc` or `cudaMalloc` by another library or
    /// raw code) as `len` elements of `T`: the returned [`DeviceBuffer`] is lent by this guard
    /// like one it allocated and frees the memory when dropped (`cuMemFree`).
    /// [`DeviceBuffer::into_raw`] is the way back.
    ///
    /// # Safety
    ///
    /// - `ptr` is the start of a live allocation of this guard's context that `cuMemFree` may
    ///   free (made by `cuMemAlloc`, `cuMemAllocPitch`, `cudaMalloc`; not by a memory pool,
    ///   `cuMemAllocAsync`, the virtual memory API or `cuMemHostAlloc`), aligned for `T`;
    /// - it holds at least `len * size_of::<T>()` bytes, and `len > 0`;
    /// - ownership passes to custack: nothing else frees, reads or writes the memory while the
    ///   returned buffer lives, and no work already enqueued elsewhere still uses it (or it is
    ///   ordered before custack's work, e.g. the owner synchronized).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, Driver, Stack};
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let (ptr, len) = guard.alloc_zeroed::<f32>(1024)?.into_raw(); // e.g. another library's
    /// // SAFETY: a `cuMemAlloc` allocation of 1024 floats in `ctx`, handed over to custack.
    /// let buf = unsafe { guard.buffer_from_raw::<f32>(ptr, len) };
    /// assert_eq!(buf.to_vec()?, vec![0.0; 1024]);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuMemFree")]
    #[inline]
    pub unsafe fn buffer_from_raw<T: DeviceCopy>(
        &self,
        ptr: ffi::CUdeviceptr,
        len: usize,
    ) -> DeviceBuffer<'_, T> {
        DeviceBuffer {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// Borrows `len` elements of `T` of device memory owned elsewhere (another library's
    /// tensor, a workspace), for reading: a [`DeviceView`] lent by this guard, usable in every
    /// synchronous operation and, bound with [`StreamScope::bind`](crate::StreamScope::bind),
    /// in scopes. Never freed by custack.
    ///
    /// # Safety
    ///
    /// - `ptr..ptr + len * size_of::<T>()` is live device memory (or managed memory)
    ///   accessible from this guard's context, aligned for `T`, and stays so while the
    ///   returned view, its copies (it is `Copy`) or anything borrowed from them live
    ///   (scopes that bound it wait for their stream before they end);
    /// - nothing writes it meanwhile, on the host or the device;
    /// - its bytes are valid values of `T` ([`DeviceCopy`] types accept any bytes).
    #[inline]
    pub unsafe fn view_from_raw<T: DeviceCopy>(
        &self,
        ptr: ffi::CUdeviceptr,
        len: usize,
    ) -> DeviceView<'_, T> {
        DeviceView {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// Borrows `len` elements of `T` of device memory owned elsewhere exclusively, for reading
    /// and writing: a [`DeviceViewMut`] lent by this guard (bind it to scopes with
    /// [`StreamScope::bind_mut`](crate::StreamScope::bind_mut)). Never freed by custack.
    ///
    /// # Safety
    ///
    /// As [`view_from_raw`](Self::view_from_raw), and nothing else reads or writes the memory
    /// while the returned view or anything borrowed from it lives (including another view made
    /// from the same pointer: this takes `&self`, so the compiler cannot prevent two).
    #[inline]
    pub unsafe fn view_mut_from_raw<T: DeviceCopy>(
        &self,
        ptr: ffi::CUdeviceptr,
        len: usize,
    ) -> DeviceViewMut<'_, T> {
        DeviceViewMut {
            ptr,
            len,
            _marker: PhantomData,
        }
    }
}
