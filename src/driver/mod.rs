//! The driver and its devices: [`Driver::init`] is the proof of `cuInit` that every
//! [`Device`] carries.

pub(crate) mod attribute;
// `graph_memory`: the device's graph-memory pool, its figures, watermarks and trim.
pub(crate) mod graph_memory;
pub use graph_memory::GraphMem;
pub(crate) mod lookup;
pub(crate) mod version;

use crate::error::driver_log;

pub use version::{Version, driver_version};

use crate::driver::attribute::DeviceAttribute;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use core::ffi::{CStr, c_char, c_int};
use core::mem::MaybeUninit;

/// Proof that `cuInit` succeeded in this process.
///
/// Devices can only be named through a `Driver`, so no device call can run before
/// initialization. `Driver` is a zero-sized `Copy` value: keep it or call [`Driver::init`] again
/// (the driver makes repeated initialization cheap).
///
/// # Examples
///
/// ```no_run
/// let driver = custack::Driver::init()?;
/// println!("{} device(s), driver API {}", driver.device_count()?, driver.version()?);
/// # Ok::<(), custack::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[doc(alias = "cuInit")]
pub struct Driver {
    _private: (),
}

static_assertions::assert_impl_all!(Driver: Send, Sync, Copy);
static_assertions::assert_impl_all!(Device: Send, Sync, Copy);

impl Driver {
    /// `cuInit`—Initializes the driver API.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_NO_DEVICE` on a machine without a usable GPU, `CUDA_ERROR_STUB_LIBRARY` when a
    /// toolkit stub was loaded instead of the driver, `CUDA_ERROR_INSUFFICIENT_DRIVER` and the
    /// like; each error's message says what to do. Where the driver has the log API (12.9+), the
    /// error of registering custack's log callback (`cuDriverGetVersion`, `cuGetProcAddress_v2`,
    /// `cuLogsRegisterCallback`); a driver without it is not an error.
    /// `ErrorKind::OutsideProfile` once the process has entered the restricted profile
    /// ([`Profile::init`](crate::safety::Profile::init)). Called, even where it fails, it is
    /// the process's use of the full API: a later `Profile::init` is refused.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::Driver;
    /// let driver = Driver::init()?; // without a GPU: CUDA_ERROR_NO_DEVICE, with a hint
    /// for device in driver.devices()? {
    ///     println!("{}: {}", device.ordinal(), device.name()?);
    /// }
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__INITIALIZE.html>
    #[doc(alias = "cuInit")]
    pub fn init() -> Result<Self> {
        crate::error::confinement::full_api("Driver::init")?;
        crate::error::poison::check()?;
        guard_exits()?;
        // SAFETY: `cuInit` takes no pointers; flags must be 0.
        unsafe { ffi::cuInit(0) }.result()?;
        register_logs()?;
        Ok(Self { _private: () })
    }

    /// `cuDriverGetVersion`—See [`driver_version`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VERSION.html>
    #[doc(alias = "cuDriverGetVersion")]
    pub fn version(self) -> Result<Version> {
        driver_version()
    }

    /// `cuDeviceGetCount`—The number of CUDA-capable devices.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetCount")]
    pub fn device_count(self) -> Result<usize> {
        crate::error::poison::check()?;
        let mut n: c_int = 0;
        // SAFETY: `n` is a valid, writable `int`; the driver is initialized (`self`).
        unsafe { ffi::cuDeviceGetCount(&raw mut n) }.result()?;
        Ok(n.max(0) as usize)
    }

    /// `cuDeviceGet`—The device with the given ordinal.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_DEVICE` when `ordinal` is not below [`device_count`](Self::device_count).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGet")]
    pub fn device(self, ordinal: usize) -> Result<Device> {
        crate::error::poison::check()?;
        let ordinal = c_int::try_from(ordinal).map_err(|_| {
            Error::custack(
                ErrorKind::OutOfRange,
                format!("device ordinal {ordinal} does not fit a C int"),
            )
        })?;
        let mut raw: ffi::CUdevice = 0;
        // SAFETY: `raw` is a valid, writable `CUdevice`; the driver is initialized (`self`).
        unsafe { ffi::cuDeviceGet(&raw mut raw, ordinal) }.result()?;
        Ok(Device { raw })
    }

    /// `cuDeviceGetCount`, `cuDeviceGet`—Every device, in ordinal order.
    ///
    /// # Errors
    ///
    /// As [`device_count`](Self::device_count) and [`device`](Self::device).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetCount")]
    pub fn devices(self) -> Result<Vec<Device>> {
        (0..self.device_count()?).map(|i| self.device(i)).collect()
    }
}

/// A CUDA device. Obtained from a [`Driver`], so it always names an initialized driver's device.
///
/// `Copy`, `Send` and `Sync`: a device ordinal is a plain number valid in every thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "CUdevice")]
pub struct Device {
    raw: ffi::CUdevice,
}

/// A device's compute capability, e.g. 9.0 for an H100.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[doc(alias = "cuDeviceComputeCapability")]
pub struct ComputeCapability {
    /// Major revision.
    pub major: u32,
    /// Minor revision.
    pub minor: u32,
}

impl core::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

fn c_buf_to_string(buf: &[c_char]) -> String {
    // SAFETY: `c_char` and `u8` have the same size and alignment; the slice is initialized.
    let bytes = unsafe { core::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), buf.len()) };
    CStr::from_bytes_until_nul(bytes).map_or_else(
        |_| String::from_utf8_lossy(bytes).into_owned(),
        |s| s.to_string_lossy().into_owned(),
    )
}

impl Device {
    /// A device from a raw handle the driver returned (the driver is initialized then).
    pub(crate) fn from_raw(raw: ffi::CUdevice) -> Self {
        Self { raw }
    }

    /// `cuDeviceGetExecAffinitySupport`—Whether contexts on this device can be limited to a
    /// number of SMs ([`Context::with_sm_count`](crate::Context::with_sm_count)).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetExecAffinitySupport")]
    pub fn supports_sm_count_affinity(self) -> Result<bool> {
        crate::error::poison::check()?;
        let mut v: c_int = 0;
        let kind = ffi::CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_SM_COUNT;
        // SAFETY: valid out-pointer; the device is valid (a `Device` exists only after `cuInit`).
        unsafe { ffi::cuDeviceGetExecAffinitySupport(&raw mut v, kind, self.raw) }.result()?;
        Ok(v != 0)
    }

    /// The raw `CUdevice`.
    pub fn as_raw(self) -> ffi::CUdevice {
        self.raw
    }

    /// The ordinal of this device.
    pub fn ordinal(self) -> usize {
        self.raw.max(0) as usize
    }

    /// `cuDeviceGetName`—The device's name, e.g. "NVIDIA H100 80GB HBM3".
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetName")]
    pub fn name(self) -> Result<String> {
        crate::error::poison::check()?;
        let mut buf = [0 as c_char; 256];
        // SAFETY: `buf` is writable for `buf.len()` bytes, which is the length passed.
        unsafe { ffi::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, self.raw) }.result()?;
        Ok(c_buf_to_string(&buf))
    }

    /// `cuDeviceGetUuid`—The device's 16-byte UUID.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetUuid")]
    pub fn uuid(self) -> Result<[u8; 16]> {
        crate::error::poison::check()?;
        let mut uuid = ffi::CUuuid::default();
        // SAFETY: `uuid` is a valid, writable `CUuuid`.
        unsafe { ffi::cuDeviceGetUuid_v2(&raw mut uuid, self.raw) }.result()?;
        Ok(uuid.bytes.map(|b| b as u8))
    }

    /// `cuDeviceGetPCIBusId`—The PCI bus id, `domain:bus:device.function`.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>
    #[doc(alias = "cuDeviceGetPCIBusId")]
    pub fn pci_bus_id(self) -> Result<String> {
        crate::error::poison::check()?;
        let mut buf = [0 as c_char; 64];
        // SAFETY: `buf` is writable for `buf.len()` bytes, which is the length passed.
        unsafe { ffi::cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as c_int, self.raw) }
            .result()?;
        Ok(c_buf_to_string(&buf))
    }

    /// `cuDeviceTotalMem`—Total device memory in bytes.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceTotalMem")]
    pub fn total_memory(self) -> Result<usize> {
        crate::error::poison::check()?;
        let mut bytes = 0usize;
        // SAFETY: `bytes` is a valid, writable `size_t`.
        unsafe { ffi::cuDeviceTotalMem_v2(&raw mut bytes, self.raw) }.result()?;
        Ok(bytes)
    }

    /// `cuDeviceGetAttribute`—One device attribute.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` when the driver is older than the attribute.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetAttribute")]
    pub fn attribute(self, attribute: DeviceAttribute) -> Result<i32> {
        crate::error::poison::check()?;
        let mut value = MaybeUninit::<c_int>::uninit();
        // SAFETY: `value` is valid for a write of one `int`.
        unsafe { ffi::cuDeviceGetAttribute(value.as_mut_ptr(), attribute.raw(), self.raw) }
            .result()?;
        // SAFETY: the call succeeded, so the driver wrote the value.
        Ok(unsafe { value.assume_init() })
    }

    /// The compute capability (two [`attribute`](Self::attribute) calls).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__DEVICE.html>
    #[doc(alias = "cuDeviceGetAttribute")]
    #[doc(alias = "cuDeviceComputeCapability")]
    pub fn compute_capability(self) -> Result<ComputeCapability> {
        let major = self.attribute(DeviceAttribute::ComputeCapabilityMajor)?;
        let minor = self.attribute(DeviceAttribute::ComputeCapabilityMinor)?;
        Ok(ComputeCapability {
            major: major as u32,
            minor: minor as u32,
        })
    }
}

/// `cuInit` without the driver-log callback, for the restricted safety profile (NVIDIA's safety
/// subset has no callbacks): marks the callback as never to be registered in this process, so a
/// later [`Driver::init`] registers none either (it is refused anyway: the process is confined).
///
/// # Errors
///
/// `ErrorKind::OutsideProfile` if a [`Driver::init`] already registered it (the driver keeps a
/// callback for the process's lifetime; `Profile::init` refuses such a process before, at its
/// confinement, on every driver version: this is the second line); `cuInit`'s errors.
pub(crate) fn init_without_callbacks() -> Result<Driver> {
    crate::error::poison::check()?;
    {
        let _once = driver_log::REGISTERING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if driver_log::REGISTERED.get() == Some(&true) {
            return Err(crate::error::Error::custack(
                ErrorKind::OutsideProfile,
                "Driver::init registered the driver's log callback before Profile::init: the \
                 driver keeps it for the process, and the safety subset has no callbacks (call \
                 Profile::init first, and never Driver::init before it)",
            ));
        }
        // From now on no `Driver::init` registers it: `register_logs` sees it settled.
        let _ = driver_log::REGISTERED.set(false);
    }
    guard_exits()?;
    // SAFETY: `cuInit` takes no pointers; flags must be 0.
    unsafe { ffi::cuInit(0) }.result()?;
    Ok(Driver { _private: () })
}

/// Keeps another thread's `exit` from ending the process with another status while the safe
/// state is under way (`safe_state::guard_exits`), before any work can reach it.
fn guard_exits() -> Result<()> {
    match crate::error::safe_state::guard_exits() {
        0 => Ok(()),
        status => Err(Error::custack(
            ErrorKind::Io,
            format!(
                "atexit failed ({status}): the safe state could not keep another thread's exit \
                 from ending the process with another status"
            ),
        )),
    }
}

/// Registers the driver-log callback ([`driver_log`]) once per process, where the driver has
/// the API (12.9+).
///
/// A driver without the API is not an error (there are just no log lines); a failed driver call
/// on the way is returned, and the next [`Driver::init`](crate::Driver::init) tries again.
fn register_logs() -> Result<()> {
    if driver_log::REGISTERED.get().is_some() {
        return Ok(());
    }
    // One registration at a time, so two threads never register the callback twice. A poisoned
    // lock only means another registration panicked; the state it guards is `REGISTERED`.
    let _once = driver_log::REGISTERING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if driver_log::REGISTERED.get().is_some() {
        return Ok(());
    }
    let register = match lookup::LOGS_REGISTER_CALLBACK.get() {
        Ok(register) => register,
        Err(e) if e.kind() == ErrorKind::DriverTooOld => {
            let _ = driver_log::REGISTERED.set(false);
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let mut handle = core::ptr::null_mut();
    // SAFETY: `on_log` has the callback's C signature and never unwinds; no user data; the
    // handle is kept by the driver (the callback stays registered for the process).
    unsafe {
        register(
            Some(driver_log::on_log),
            core::ptr::null_mut(),
            &raw mut handle,
        )
    }
    .result()?;
    let _ = driver_log::REGISTERED.set(true);
    Ok(())
}
