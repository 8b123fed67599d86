//! Virtual-memory allocations shared between processes (`cuMemExportToShareableHandle`,
//! `cuMemImportFromShareableHandle`): physical memory created exportable
//! ([`PushedGuard::create_physical_exportable`]) is exported as a POSIX file descriptor
//! ([`PhysicalMemory::export_fd`]) or a fabric handle ([`PhysicalMemory::export_fabric`]); the
//! descriptor travels to another process over a Unix socket ([`send_fd`], [`recv_fd`]), which
//! imports it ([`PushedGuard::import_physical`]) as ordinary guard-lent [`PhysicalMemory`]. It
//! maps with the same rules as local physical memory ([`Reservation::map`](crate::Reservation::map),
//! [`map_read_only`](crate::Reservation::map_read_only), [`map_owned`](crate::Reservation::map_owned)):
//! a writable mapping borrows the imported allocation exclusively, read-only ones share it (C14).
//! This is NVIDIA's `memMapIPCDrv`, without the `unsafe` of the legacy
//! [`open_ipc`](PushedGuard::open_ipc).
//!
//! Linux only (`cfg(target_os = "linux")`): CUDA exports POSIX file descriptors on Linux, and the
//! socket helpers use Linux's `SCM_RIGHTS` flags.
//!
//! Why importing is safe, and the whole round trip as an example: [`PushedGuard::import_physical`].

use crate::context::stack::{ContextKind, PushedGuard};
use crate::driver::Device;
use crate::driver::attribute::DeviceAttribute;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi;
use crate::memory::vmm::{Lent, PhysicalMemory};
use core::ffi::{c_int, c_void};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

/// The OS handle physical memory is made exportable to (`CUmemAllocationHandleType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[doc(alias = "CUmemAllocationHandleType")]
pub enum HandleType {
    /// A POSIX file descriptor (`CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR`), for processes of
    /// one machine: [`PhysicalMemory::export_fd`], [`PushedGuard::import_physical`].
    PosixFileDescriptor,
    /// A fabric handle (`CU_MEM_HANDLE_TYPE_FABRIC`, CUDA 12.3), for processes of the nodes of
    /// one `NVLink` fabric, where the device supports it
    /// ([`DeviceAttribute::HandleTypeFabricSupported`]) and the process has access to an IMEX
    /// channel: [`PhysicalMemory::export_fabric`], [`PushedGuard::import_fabric`].
    Fabric,
}

impl HandleType {
    fn raw(self) -> ffi::CUmemAllocationHandleType {
        match self {
            HandleType::PosixFileDescriptor => ffi::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            HandleType::Fabric => ffi::CU_MEM_HANDLE_TYPE_FABRIC,
        }
    }
}

/// A fabric handle to an allocation (`CUmemFabricHandle`): 64 plain bytes, `Send + Sync`, to
/// send to another process any way you like ([`PushedGuard::import_fabric`] imports it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "CUmemFabricHandle")]
pub struct FabricHandle {
    raw: ffi::CUmemFabricHandle,
}

impl FabricHandle {
    /// The handle's 64 bytes, to send to another process.
    pub fn to_bytes(&self) -> [u8; 64] {
        self.raw.data
    }
    /// A handle from its bytes.
    pub fn from_bytes(bytes: [u8; 64]) -> Self {
        Self {
            raw: ffi::CUmemFabricHandle { data: bytes },
        }
    }
}

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemCreate`—Creates `size` bytes of physical memory on this context's device (a
    /// multiple of the granularity), as [`create_physical`](Self::create_physical) does, that
    /// can be exported to a handle of type `kind` for another process
    /// (`requestedHandleTypes`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotSupported`] (with no allocation made) for [`HandleType::Fabric`] on a
    /// device without fabric handles; the driver's error otherwise, with the handle type in its
    /// detail (e.g. `CUDA_ERROR_NOT_PERMITTED` for fabric memory without an IMEX channel).
    ///
    /// # Examples
    ///
    /// See [`PushedGuard::import_physical`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemCreate")]
    pub fn create_physical_exportable(
        &self,
        size: usize,
        kind: HandleType,
    ) -> Result<PhysicalMemory<'_>> {
        if kind == HandleType::Fabric {
            let device = self.device()?;
            if device.attribute(DeviceAttribute::HandleTypeFabricSupported)? == 0 {
                return Err(Error::custack(
                    ErrorKind::NotSupported,
                    format!(
                        "device {} cannot export memory to fabric handles \
                         (CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED is 0)",
                        device.as_raw()
                    ),
                ));
            }
        }
        self.create_physical_as(size, kind.raw()).map_err(|e| {
            let why = if kind == HandleType::Fabric && e.kind() == ErrorKind::NotPermitted {
                ": fabric handles need an IMEX channel this process may use \
                 (/dev/nvidia-caps-imex-channels; the device supports them, the system has none \
                 set up for it)"
            } else {
                ""
            };
            e.with_detail(format!(
                "creating {size} bytes of physical memory exportable as {kind:?}{why}"
            ))
        })
    }

    /// `cuMemImportFromShareableHandle`—Imports `size` bytes of physical memory another process
    /// exported as the file descriptor `fd` ([`PhysicalMemory::export_fd`]): physical memory
    /// lent by this guard like any, mapped with the same rules. `size` is the exporter's
    /// ([`PhysicalMemory::size`]), sent beside the descriptor ([`send_fd`]).
    ///
    /// The import takes its own reference to the allocation: it stays alive while the returned
    /// value (or a mapping that took it) does, whatever the exporter does meanwhile. `fd` is
    /// closed when this returns (the import does not keep it), on success or error.
    ///
    /// # Why this is safe
    ///
    /// Where [`open_ipc`](Self::open_ipc) is `unsafe`:
    ///
    /// - *Lifetime.* An imported handle is a reference the driver counts: the allocation stays alive
    ///   while this process holds it (until the [`PhysicalMemory`] drops and every mapping of it is
    ///   unmapped), even if the exporter releases its own handle or exits. Nothing here depends on
    ///   the other process keeping anything alive, unlike a legacy IPC opening.
    /// - *Contents.* Another process may write the bytes at any time. They are device memory, never
    ///   a Rust place of this process: the host sees them only through copies the driver makes into
    ///   host memory, and every [`DeviceCopy`](crate::DeviceCopy) type is valid for every bit
    ///   pattern, so what the other process writes is data, never undefined behaviour here. *When*
    ///   it writes is for the processes to agree on (the example orders the steps with socket
    ///   messages); within this process, the borrows of the mappings keep their rules.
    /// - *Size.* `cuMemMap` documents that a mapping must lie inside the allocation (offset plus
    ///   size at most the allocation's size), listing `CUDA_ERROR_INVALID_VALUE` among its
    ///   errors; the documentation does not say in so many words that the driver checks this,
    ///   and the allocation's size cannot be asked of it, so the import takes the size as an
    ///   argument (the exporter's, sent beside the descriptor) and checks what custack can: not
    ///   zero, a multiple of the granularity. A larger size is the importer's wrong argument to
    ///   `cuMemMap`, which the driver has every reason to refuse (the number comes from an
    ///   untrusted user process, and a mapping past the allocation would reach memory the
    ///   process holds no handle to); and even if it did not, the mapping holds device addresses
    ///   only, reached through driver copies (which report unbacked addresses as errors) and
    ///   kernels, never host memory of this process. So the import is not `unsafe`.
    ///   `tests/gpu_vmm_ipc.rs` checks on a GPU that the driver refuses such a mapping.
    /// - *Aliasing in one process.* The types see one [`PhysicalMemory`] per import: importing the
    ///   same allocation twice in one process (or importing one's own export) gives two values the
    ///   borrow rules cannot relate, so two writable mappings of the same bytes can then coexist, as
    ///   they can across processes. As above, this is a race on device memory between writers the
    ///   program set up, not host undefined behaviour; import each allocation once per process.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] (no import made) if `size` is zero or not a multiple of the
    /// granularity; the driver's error, with the descriptor in its detail, if it refuses `fd`
    /// (closed, not an exported allocation, from a device of another kind).
    ///
    /// # Examples
    ///
    /// Both ends in one process, for brevity; the example `19_vmm_ipc` runs them in two.
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Stack};
    /// use std::os::fd::AsFd;
    /// use std::os::unix::net::UnixStream;
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let g = guard.allocation_granularity()?;
    /// let (exporter, importer) = UnixStream::pair().map_err(|e| {
    ///     custack::Error::new(custack::ErrorKind::Io, "socket pair").with_source(e)
    /// })?; // in real use, the two ends live in two processes
    ///
    /// // The exporting process: memory that can be exported, its descriptor sent with its size.
    /// let memory = guard.create_physical_exportable(g, custack::HandleType::PosixFileDescriptor)?;
    /// let fd = memory.export_fd()?;
    /// custack::send_fd(&exporter, fd.as_fd(), &(g as u64).to_le_bytes())?;
    ///
    /// // The importing process: physical memory like any, mapped with the usual borrow rules.
    /// let (fd, bytes) = custack::recv_fd(&importer)?;
    /// let size = u64::from_le_bytes(bytes.try_into().unwrap_or_default()) as usize;
    /// let mut imported = guard.import_physical(fd, size)?;
    /// let space = guard.reserve(size)?;
    /// let mut shared = space.map::<u32, _>(&guard, [&mut imported])?;
    /// shared.fill_u32(7)?; // the exporter's mappings of `memory` see it
    /// # drop(memory);
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemImportFromShareableHandle")]
    pub fn import_physical(&self, fd: OwnedFd, size: usize) -> Result<PhysicalMemory<'_>> {
        crate::error::poison::check()?;
        let raw_fd = fd.as_raw_fd();
        // Everything that can fail before the import: after it, the handle is owned at once.
        let device = self.device()?;
        self.check_import_size(size, device)?;
        let mut handle = 0;
        // SAFETY: `cuMemImportFromShareableHandle` with a POSIX descriptor takes the descriptor
        // as the pointer's value and does not take ownership of it:
        // - valid out-pointer; this guard's context is current;
        // - `raw_fd` is open (owned by `fd`, closed only when `fd` drops, after the call);
        // - the pointer is never dereferenced (no provenance needed).
        let r = unsafe {
            ffi::cuMemImportFromShareableHandle(
                &raw mut handle,
                core::ptr::without_provenance_mut::<c_void>(raw_fd as usize),
                ffi::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            )
        }
        .result();
        drop(fd);
        r.map_err(|e| {
            e.with_detail(format!(
                "importing file descriptor {raw_fd} as {size} bytes of physical memory"
            ))
        })?;
        // SAFETY: `lent` requires a live handle released by nothing else, of `size` bytes
        // lent for the guard's borrow:
        // - just imported: this import's own reference, released once, by the value;
        // - `size` is the importer's word, checked by the driver at `cuMemMap` (module docs);
        // - the value borrows this guard, whose context is current.
        let memory = unsafe { PhysicalMemory::lent(handle, size, device) };
        Self::located(memory)
    }

    /// `cuMemImportFromShareableHandle`—Imports `size` bytes of physical memory another process
    /// exported as the fabric handle `handle` ([`PhysicalMemory::export_fabric`]), as
    /// [`import_physical`](Self::import_physical) does.
    ///
    /// # Errors
    ///
    /// As [`import_physical`](Self::import_physical); `CUDA_ERROR_NOT_PERMITTED` if this process
    /// has no access to the exporter's IMEX channel.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemImportFromShareableHandle")]
    pub fn import_fabric(&self, handle: &FabricHandle, size: usize) -> Result<PhysicalMemory<'_>> {
        crate::error::poison::check()?;
        let device = self.device()?;
        self.check_import_size(size, device)?;
        let mut raw = handle.raw;
        let mut imported = 0;
        // SAFETY: valid out-pointer; this guard's context is current; with a fabric handle the
        // driver reads the 64-byte `CUmemFabricHandle` at the pointer (a live local copy).
        unsafe {
            ffi::cuMemImportFromShareableHandle(
                &raw mut imported,
                (&raw mut raw).cast::<c_void>(),
                ffi::CU_MEM_HANDLE_TYPE_FABRIC,
            )
        }
        .result()
        .map_err(|e| {
            e.with_detail(format!(
                "importing a fabric handle as {size} bytes of physical memory"
            ))
        })?;
        // SAFETY: as in `import_physical`.
        let memory = unsafe { PhysicalMemory::lent(imported, size, device) };
        Self::located(memory)
    }

    /// Refuses an import size custack can tell is wrong: zero, or not a multiple of the
    /// granularity (every `cuMemCreate` size is one).
    fn check_import_size(&self, size: usize, device: Device) -> Result<()> {
        let g = self.granularity_on(device)?;
        if size == 0 || size % g != 0 {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "an imported allocation of {size} bytes: the exporter's size is a non-zero \
                     multiple of the granularity ({g} bytes)"
                ),
            ));
        }
        Ok(())
    }

    /// `cuMemGetAllocationPropertiesFromHandle`: `memory` with the device the driver says it
    /// lives on (released, as it drops, if the driver cannot say).
    fn located(mut memory: PhysicalMemory<'_>) -> Result<PhysicalMemory<'_>> {
        crate::error::poison::check()?;
        let mut prop = super::vmm::exportable_prop(memory.device(), ffi::CU_MEM_HANDLE_TYPE_NONE);
        // SAFETY: valid out-pointer to a whole `CUmemAllocationProp`; a live handle.
        unsafe { ffi::cuMemGetAllocationPropertiesFromHandle(&raw mut prop, memory.as_raw()) }
            .result()?;
        if prop.location.type_ == ffi::CU_MEM_LOCATION_TYPE_DEVICE {
            memory.set_device(Device::from_raw(prop.location.id));
        }
        Ok(memory)
    }
}

impl PhysicalMemory<'_, Lent> {
    /// `cuMemExportToShareableHandle`—Exports this allocation as a POSIX file descriptor, for
    /// another process to import ([`PushedGuard::import_physical`]) after receiving it over a
    /// Unix socket ([`send_fd`]). The descriptor is this process's to close (it closes when the
    /// [`OwnedFd`] drops); the allocation lives on in every process that imported it, whatever
    /// this value does.
    ///
    /// # Errors
    ///
    /// The driver's error, with a hint in its detail: `CUDA_ERROR_INVALID_VALUE` or
    /// `CUDA_ERROR_NOT_SUPPORTED` unless the memory was created by
    /// [`create_physical_exportable`](PushedGuard::create_physical_exportable) with
    /// [`HandleType::PosixFileDescriptor`].
    ///
    /// # Examples
    ///
    /// See [`PushedGuard::import_physical`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemExportToShareableHandle")]
    pub fn export_fd(&self) -> Result<OwnedFd> {
        crate::error::poison::check()?;
        let mut fd: c_int = -1;
        // SAFETY: with a POSIX descriptor the driver writes one `int` at `shareableHandle`:
        // - `&raw mut fd` is valid for that write;
        // - a live allocation (owned by this value), the guard's context current.
        unsafe {
            ffi::cuMemExportToShareableHandle(
                (&raw mut fd).cast::<c_void>(),
                self.as_raw(),
                ffi::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                0,
            )
        }
        .result()
        .map_err(|e| {
            e.with_detail(
                "exporting physical memory as a file descriptor (it must be created by \
                 create_physical_exportable with HandleType::PosixFileDescriptor)",
            )
        })?;
        if fd < 0 {
            return Err(Error::from_kind(ErrorKind::Unknown)
                .with_detail(format!("the driver exported file descriptor {fd}")));
        }
        // SAFETY: `from_raw_fd` requires an open descriptor that nothing else owns: the
        // driver just opened it for the caller, who must close it (CUDA Virtual Memory
        // Management); the `OwnedFd` closes it once.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// `cuMemExportToShareableHandle`—Exports this allocation as a fabric handle, 64 bytes for
    /// a process of another node of the `NVLink` fabric to import
    /// ([`PushedGuard::import_fabric`]).
    ///
    /// # Errors
    ///
    /// The driver's error, with a hint in its detail, unless the memory was created by
    /// [`create_physical_exportable`](PushedGuard::create_physical_exportable) with
    /// [`HandleType::Fabric`] (which refuses devices without fabric handles).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VA.html>
    #[doc(alias = "cuMemExportToShareableHandle")]
    pub fn export_fabric(&self) -> Result<FabricHandle> {
        crate::error::poison::check()?;
        let mut raw = ffi::CUmemFabricHandle { data: [0; 64] };
        // SAFETY: with a fabric handle the driver writes one 64-byte `CUmemFabricHandle` at
        // `shareableHandle` (`&raw mut raw`, valid for it); a live allocation, the guard's
        // context current.
        unsafe {
            ffi::cuMemExportToShareableHandle(
                (&raw mut raw).cast::<c_void>(),
                self.as_raw(),
                ffi::CU_MEM_HANDLE_TYPE_FABRIC,
                0,
            )
        }
        .result()
        .map_err(|e| {
            e.with_detail(
                "exporting physical memory as a fabric handle (it must be created by \
                 create_physical_exportable with HandleType::Fabric, on a device that supports \
                 fabric handles)",
            )
        })?;
        Ok(FabricHandle { raw })
    }
}

// ---------------------------------------------------------------------------------------------
// Passing a descriptor to another process: `SCM_RIGHTS` over a Unix stream socket.

/// The most bytes [`recv_fd`] accepts beside a descriptor (a length beyond it is a garbled or
/// foreign message, refused before allocating).
pub const MAX_FD_MESSAGE: usize = 1 << 20;

fn io_error(what: &str, e: std::io::Error) -> Error {
    Error::custack(ErrorKind::Io, format!("{what}: {e}")).with_source(e)
}

/// Sends the descriptor `fd` and the bytes `message` (at most [`MAX_FD_MESSAGE`]; e.g. the
/// size of an exported allocation) over the Unix stream socket `stream`, as one message that
/// [`recv_fd`] receives whole: an 8-byte length, then `message`, the descriptor riding on the
/// first byte (`sendmsg` with `SCM_RIGHTS`). The receiving process gets its own descriptor of
/// the same open file; `fd` stays open here (close it when you like: the receiver's copy is
/// independent).
///
/// # Errors
///
/// [`ErrorKind::Io`] with the system's error as its source (the peer closed the socket, …);
/// [`ErrorKind::InvalidValue`] for a message longer than [`MAX_FD_MESSAGE`].
///
/// # Examples
///
/// See [`PushedGuard::import_physical`].
pub fn send_fd(stream: &UnixStream, fd: BorrowedFd<'_>, message: &[u8]) -> Result<()> {
    if message.len() > MAX_FD_MESSAGE {
        return Err(Error::custack(
            ErrorKind::InvalidValue,
            format!(
                "a message of {} bytes beside a descriptor (at most {MAX_FD_MESSAGE})",
                message.len()
            ),
        ));
    }
    let header = (message.len() as u64).to_le_bytes();
    let mut iov = libc::iovec {
        iov_base: header.as_ptr().cast_mut().cast::<c_void>(),
        iov_len: header.len(),
    };
    let mut control = FdControl::new();
    // SAFETY: an all-zero `msghdr` is valid (null pointers, zero lengths), filled in below.
    let mut msg: libc::msghdr = unsafe { core::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr();
    msg.msg_controllen = control.len() as _; // `socklen_t` on musl
    // SAFETY: `CMSG_FIRSTHDR` reads `msg`'s control fields, which describe `control`, a buffer
    // of `CMSG_SPACE(size_of::<c_int>())` bytes aligned for `cmsghdr`: it returns its start.
    let cmsg = unsafe { libc::CMSG_FIRSTHDR(&raw const msg) };
    if cmsg.is_null() {
        return Err(Error::custack(
            ErrorKind::Io,
            "no room for the descriptor's control message",
        ));
    }
    // SAFETY: an all-zero `cmsghdr` is valid (plain integers), filled in below.
    let mut header_msg: libc::cmsghdr = unsafe { core::mem::zeroed() };
    header_msg.cmsg_level = libc::SOL_SOCKET;
    header_msg.cmsg_type = libc::SCM_RIGHTS;
    // SAFETY: `CMSG_LEN` is a pure computation.
    header_msg.cmsg_len = unsafe { libc::CMSG_LEN(size_of::<c_int>() as u32) } as _;
    // SAFETY: `cmsg` points to the start of `control`, valid for writes of a `cmsghdr` and
    // aligned for it (`FdControl` is `cmsghdr`-aligned).
    unsafe { cmsg.write(header_msg) };
    // SAFETY: `cmsg` is the first header of `msg`'s control buffer: `CMSG_DATA` points after
    // it, still inside the buffer (`CMSG_SPACE` of one `c_int`).
    let data = unsafe { libc::CMSG_DATA(cmsg) };
    let raw = fd.as_raw_fd().to_ne_bytes();
    // SAFETY: `data` is valid for writes of one `c_int` (see above), possibly unaligned for
    // it, so written as bytes; `raw` is a distinct local.
    unsafe { core::ptr::copy_nonoverlapping(raw.as_ptr(), data, raw.len()) };
    let sent = loop {
        // SAFETY: `msg` describes live buffers (`iov` → `header`, `control`) that outlive the
        // call; `stream`'s descriptor is open (borrowed); the descriptor in the control message
        // is open (`fd` is borrowed for the call). `MSG_NOSIGNAL`: a closed peer is an error,
        // not a `SIGPIPE`.
        let n = unsafe { libc::sendmsg(stream.as_raw_fd(), &raw const msg, libc::MSG_NOSIGNAL) };
        if n >= 0 {
            break n.unsigned_abs();
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(io_error("sending a file descriptor", e));
        }
    };
    // The descriptor went with the first byte; the rest of the header, then the message.
    let mut writer = stream;
    writer
        .write_all(
            header
                .split_at_checked(sent)
                .map_or(&[][..], |(_, rest)| rest),
        )
        .and_then(|()| writer.write_all(message))
        .map_err(|e| io_error("sending the bytes beside a file descriptor", e))
}

/// Receives a descriptor and the bytes sent with it by [`send_fd`] from the Unix stream socket
/// `stream`: a descriptor of this process (close-on-exec) to the open file the sender sent,
/// owned by the caller, and the sender's `message`.
///
/// # Errors
///
/// [`ErrorKind::Io`] with the system's error as its source (the peer closed the socket, …), or
/// with a detail if the message carries no descriptor (or more than one: all are closed) or
/// announces more than [`MAX_FD_MESSAGE`] bytes. A descriptor received before the error is
/// closed.
///
/// # Examples
///
/// See [`PushedGuard::import_physical`].
pub fn recv_fd(stream: &UnixStream) -> Result<(OwnedFd, Vec<u8>)> {
    let mut header = [0u8; 8];
    let mut iov = libc::iovec {
        iov_base: header.as_mut_ptr().cast::<c_void>(),
        iov_len: header.len(),
    };
    let mut control = FdControl::new();
    // SAFETY: an all-zero `msghdr` is valid (null pointers, zero lengths), filled in below.
    let mut msg: libc::msghdr = unsafe { core::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr();
    msg.msg_controllen = control.len() as _; // `socklen_t` on musl
    let got = loop {
        // SAFETY: `msg` describes live, writable buffers (`iov` → `header`, `control`) that
        // outlive the call; `stream`'s descriptor is open (borrowed). `MSG_CMSG_CLOEXEC`: the
        // received descriptor is close-on-exec, as std opens every descriptor.
        let n = unsafe { libc::recvmsg(stream.as_raw_fd(), &raw mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 {
            break n.unsigned_abs();
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(io_error("receiving a file descriptor", e));
        }
    };
    // Every descriptor the kernel installed is owned (and closed, unless returned) from here.
    let mut fds = received_fds(&msg);
    if got == 0 {
        return Err(io_error(
            "receiving a file descriptor",
            std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
        ));
    }
    if fds.len() != 1 || msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err(Error::custack(
            ErrorKind::Io,
            format!(
                "expected one file descriptor beside the message, received {}{}",
                fds.len(),
                if msg.msg_flags & libc::MSG_CTRUNC == 0 {
                    ""
                } else {
                    " (and more, truncated)"
                }
            ),
        ));
    }
    let mut reader = stream;
    reader
        .read_exact(header.get_mut(got..).unwrap_or(&mut []))
        .map_err(|e| io_error("receiving the length beside a file descriptor", e))?;
    let len = u64::from_le_bytes(header);
    let len = usize::try_from(len)
        .ok()
        .filter(|&l| l <= MAX_FD_MESSAGE)
        .ok_or_else(|| {
            Error::custack(
                ErrorKind::Io,
                format!("a message of {len} bytes beside a descriptor (at most {MAX_FD_MESSAGE})"),
            )
        })?;
    let mut message = vec![0u8; len];
    reader
        .read_exact(&mut message)
        .map_err(|e| io_error("receiving the bytes beside a file descriptor", e))?;
    match fds.pop() {
        Some(fd) => Ok((fd, message)),
        None => Err(Error::custack(ErrorKind::Io, "no file descriptor received")),
    }
}

/// The descriptors of the `SCM_RIGHTS` control messages `recvmsg` filled into `msg`, owned.
fn received_fds(msg: &libc::msghdr) -> Vec<OwnedFd> {
    let mut fds = Vec::new();
    // SAFETY: `msg`'s control fields describe the buffer `recvmsg` filled (its
    // `msg_controllen` updated to the bytes written): `CMSG_FIRSTHDR` returns its first header
    // or null.
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(msg) };
    while !cmsg.is_null() {
        // SAFETY: a header inside the filled control buffer (from `CMSG_FIRSTHDR` or
        // `CMSG_NXTHDR`, which stay inside it), aligned for `cmsghdr`.
        let header = unsafe { cmsg.read() };
        if header.cmsg_level == libc::SOL_SOCKET && header.cmsg_type == libc::SCM_RIGHTS {
            // SAFETY: `CMSG_LEN` is a pure computation.
            let empty = unsafe { libc::CMSG_LEN(0) } as usize;
            let count = (header.cmsg_len as usize).saturating_sub(empty) / size_of::<c_int>();
            // SAFETY: `cmsg` is a header of the buffer: its data follows it, inside the buffer.
            let data = unsafe { libc::CMSG_DATA(cmsg) };
            for i in 0..count {
                let mut raw = [0u8; size_of::<c_int>()];
                // SAFETY: an `SCM_RIGHTS` message holds `count` descriptors after its header,
                // inside the filled buffer (`cmsg_len` counts them); copied as bytes, as they
                // may be unaligned.
                unsafe {
                    core::ptr::copy_nonoverlapping(
                        data.wrapping_add(i * raw.len()),
                        raw.as_mut_ptr(),
                        raw.len(),
                    );
                }
                // SAFETY: a descriptor the kernel just installed in this process for this
                // call, owned by nothing else, so the `OwnedFd` may own (and close) it.
                fds.push(unsafe { OwnedFd::from_raw_fd(c_int::from_ne_bytes(raw)) });
            }
        }
        // SAFETY: `cmsg` is a header of `msg`'s control buffer: `CMSG_NXTHDR` returns the next
        // one inside it, or null.
        cmsg = unsafe { libc::CMSG_NXTHDR(msg, cmsg) };
    }
    fds
}

/// A control buffer for one descriptor (`CMSG_SPACE(sizeof(int))` bytes), aligned for
/// `cmsghdr` (whose fields `CMSG_FIRSTHDR` lets us write in place).
#[repr(C)]
struct FdControl {
    _align: [libc::cmsghdr; 0],
    bytes: [u8; 64],
}

impl FdControl {
    fn new() -> Self {
        Self {
            _align: [],
            bytes: [0; 64],
        }
    }
    fn as_mut_ptr(&mut self) -> *mut c_void {
        self.bytes.as_mut_ptr().cast()
    }
    /// `CMSG_SPACE(sizeof(int))`: the bytes the kernel may use (never more than the buffer).
    fn len(&self) -> usize {
        // SAFETY: `CMSG_SPACE` is a pure computation.
        let space = unsafe { libc::CMSG_SPACE(size_of::<c_int>() as u32) } as usize;
        space.min(self.bytes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Seek;
    use std::os::fd::AsFd;

    fn pair() -> (UnixStream, UnixStream) {
        match UnixStream::pair() {
            Ok(p) => p,
            Err(e) => panic!("socketpair: {e}"),
        }
    }

    // sendmsg/recvmsg are system calls Miri does not model.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_descriptor_and_its_message_round_trip() -> Result<()> {
        let (a, b) = pair();
        let mut file = tempfile_like()?;
        file.write_all(b"shared bytes")
            .map_err(|e| io_error("write", e))?;
        send_fd(&a, file.as_fd(), &4096u64.to_le_bytes())?;
        send_fd(&a, file.as_fd(), b"")?;
        let (fd, message) = recv_fd(&b)?;
        assert_eq!(message, 4096u64.to_le_bytes());
        assert_ne!(
            fd.as_raw_fd(),
            file.as_raw_fd(),
            "a new descriptor of the same file"
        );
        let mut received = std::fs::File::from(fd);
        received.rewind().map_err(|e| io_error("seek", e))?;
        let mut text = String::new();
        received
            .read_to_string(&mut text)
            .map_err(|e| io_error("read", e))?;
        assert_eq!(text, "shared bytes");
        let (_, empty) = recv_fd(&b)?;
        assert!(empty.is_empty());
        Ok(())
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_message_without_a_descriptor_is_an_error() {
        let (mut a, b) = pair();
        assert!(a.write_all(&[1, 0, 0, 0, 0, 0, 0, 0, 9]).is_ok());
        let e = recv_fd(&b).err().map(|e| (e.kind(), e.to_string()));
        assert!(
            matches!(&e, Some((ErrorKind::Io, text)) if text.contains("received 0")),
            "{e:?}"
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_closed_peer_is_an_error() {
        let (a, b) = pair();
        drop(a);
        assert_eq!(recv_fd(&b).err().map(|e| e.kind()), Some(ErrorKind::Io));
        let (a, b) = pair();
        drop(b);
        let file = tempfile_like();
        let sent = file.and_then(|f| send_fd(&a, f.as_fd(), b"x"));
        assert_eq!(sent.err().map(|e| e.kind()), Some(ErrorKind::Io));
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_too_long_message_is_refused_before_sending() {
        let (a, _b) = pair();
        let long = vec![0u8; MAX_FD_MESSAGE + 1];
        let e = send_fd(&a, a.as_fd(), &long).err().map(|e| e.kind());
        assert_eq!(e, Some(ErrorKind::InvalidValue));
    }

    /// An anonymous file to send (a memfd: no file system needed).
    fn tempfile_like() -> Result<std::fs::File> {
        // SAFETY: a NUL-terminated name; no flags.
        let fd = unsafe { libc::memfd_create(c"custack-share-test".as_ptr(), 0) };
        if fd < 0 {
            return Err(io_error("memfd_create", std::io::Error::last_os_error()));
        }
        // SAFETY: just opened, owned by nothing else.
        Ok(std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
    }
}
