//! The program `vmm_share`: VMM memory shared between processes, both ends in this one, exported as
//! a file descriptor, sent over a socket pair and imported, mapped writable, then read-only, then
//! owned; every handle released once. No row of its own: R10.

use crate::common::N;
use custack::{Context, DeviceMemory, DeviceMemoryMut, Result, Stack};

/// VMM memory shared between processes, both ends in this one: physical memory created
/// exportable, exported as a file descriptor, sent with its size over a `UnixStream::pair()`
/// (`send_fd`, `recv_fd`) and imported, after the exporter released its own handle (the import
/// keeps the memory alive); the imported allocation mapped writable (written synchronously and
/// in a stream scope), then read-only twice in one mapping, then taken by `map_owned`; every
/// handle released once. (Under Miri, which has no `sendmsg`, the descriptor is moved instead
/// of sent; the socket helpers are tested natively, in custack's unit tests.)
pub(crate) fn vmm_share(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let g = guard.allocation_granularity()?;
    let exported = guard.create_physical_exportable(g, custack::HandleType::PosixFileDescriptor)?;
    let fd = exported.export_fd()?;
    let (fd, size) = pass_fd(fd, g)?;
    drop(exported);
    let mut imported = guard.import_physical(fd, size)?;
    let space = guard.reserve(2 * g)?;
    let host = vec![3u32; N];
    let mut out = vec![0u32; N];
    {
        let mut mapped = space.map::<u32, _>(&guard, [&mut imported])?;
        mapped.fill_u32(9)?;
        let mut head = mapped.slice_mut(..N)?;
        guard.stream()?.scope(|s| -> Result<()> {
            let mut d = s.bind_mut(&mut head);
            s.copy_to_device(&mut d, &host)?;
            s.copy_to_host(&mut out, &d)
        })??;
    }
    {
        let shared = space.map_read_only::<u32, _>(&guard, &[&imported, &imported])?;
        out.extend(shared.slice(..N)?.to_vec()?);
    }
    let owned = space.map_owned::<u32, _>(&guard, vec![imported])?;
    out.extend(owned.slice(..N)?.to_vec()?);
    Ok(out)
}

/// Sends `fd` and `size` over a socket pair and receives them, as two processes would.
#[cfg(not(miri))]
fn pass_fd(fd: std::os::fd::OwnedFd, size: usize) -> Result<(std::os::fd::OwnedFd, usize)> {
    use std::os::fd::AsFd;
    let (a, b) = std::os::unix::net::UnixStream::pair()
        .map_err(|e| custack::Error::new(custack::ErrorKind::Io, "a socket pair").with_source(e))?;
    custack::send_fd(&a, fd.as_fd(), &(size as u64).to_le_bytes())?;
    drop(fd); // the receiver's descriptor is its own
    let (fd, bytes) = custack::recv_fd(&b)?;
    let size = <[u8; 8]>::try_from(bytes.as_slice()).map_or(0, u64::from_le_bytes);
    Ok((fd, size as usize))
}

/// Under Miri (no `sendmsg`): the descriptor is moved, not sent.
#[cfg(miri)]
fn pass_fd(fd: std::os::fd::OwnedFd, size: usize) -> Result<(std::os::fd::OwnedFd, usize)> {
    Ok((fd, size))
}
