//! The program `ipc`: a buffer and an event exported as IPC handles and opened in this process (the
//! double accepts what a real driver refuses, so that both sides run here), used, and closed before
//! the exporter frees them. No row of its own: R10.

use crate::common::N;
use custack::{Context, DeviceMemory, DeviceMemoryMut, Result, Stack};

/// IPC: a buffer exported as a handle (its bytes round-tripped as another process would receive
/// them) and opened, written in a stream scope and synchronously, read back, closed on drop
/// before the exporter frees its buffer; then an event exported and opened the same way,
/// recorded on one stream and waited for on another, destroyed before the exporter's. (A real
/// driver refuses to open a handle in the process that exported it; the double accepts it, so
/// that both sides run here.)
pub(crate) fn ipc(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let exported = guard.alloc_from(&vec![4u32; N])?;
    let handle = custack::IpcMemHandle::from_bytes(exported.ipc_handle()?.to_bytes());
    // SAFETY: `exported` outlives the opening, holds N elements, and is opened once; nothing
    // else reaches it while the opening lives.
    let mut opened = unsafe { guard.open_ipc::<u32>(&handle, N) }?;
    let mut out = vec![0u32; N];
    guard.stream()?.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut opened);
        s.fill_u32(&mut d, 5)?;
        s.copy_to_host(&mut out, &d)
    })??;
    opened.fill_u32(6)?;
    out.extend(opened.to_vec()?);
    drop(opened);
    exported.free()?;
    // An event shared the same way: exported, opened (as another process would), recorded on
    // one stream and waited for on another; the opened event is destroyed like any.
    let exported =
        guard.event(custack::EventFlags::INTERPROCESS | custack::EventFlags::DISABLE_TIMING)?;
    let handle = custack::IpcEventHandle::from_bytes(exported.ipc_handle()?.to_bytes());
    // SAFETY: `exported` outlives the opening (dropped after it below).
    let opened = unsafe { guard.open_ipc_event(&handle) }?;
    guard.stream()?.scope(|s| s.record(&exported))??;
    guard.stream()?.scope(|s| s.wait(&opened))??;
    drop(opened);
    drop(exported);
    Ok(out)
}
