//! The program `ipc`: a buffer and an event exported as IPC handles; opened in this process, which
//! the driver refuses for the buffer (`InvalidContext`: the H200 run; the double refuses both),
//! then in another process, this program run again as `ipc_child` with the handles, which uses
//! them and closes them before the exporter frees its buffer and destroys its event. No row of its
//! own: R10.

use crate::common::{N, unexpected};
use custack::{Context, DeviceMemory, DeviceMemoryMut, ErrorKind, Result, Stack};

/// IPC: a buffer exported as a handle (its bytes as another process would receive them) and an
/// event exported the same way, the buffer refused when opened in this process (the event too on
/// the double; an event the driver opens is dropped at once); then both opened by a
/// child process ([`ipc_child`]), which writes the buffer in a stream scope and synchronously,
/// reads it back, waits for the event (recorded here before the child starts), and closes both
/// before this process frees its buffer and destroys its event. Returns what the child read.
/// (Under Miri, which runs no other process, the child's part is left out.)
pub(crate) fn ipc(ctx: &Context) -> Result<Vec<u32>> {
    let mut stack = Stack::new()?;
    let guard = stack.push(ctx)?;
    let exported = guard.alloc_from(&vec![4u32; N])?;
    let handle = custack::IpcMemHandle::from_bytes(exported.ipc_handle()?.to_bytes());
    // SAFETY: `exported` outlives the opening attempt, holds N elements; the driver refuses it.
    refused(unsafe { guard.open_ipc::<u32>(&handle, N) }.map(drop))?;
    let event =
        guard.event(custack::EventFlags::INTERPROCESS | custack::EventFlags::DISABLE_TIMING)?;
    let event_handle = custack::IpcEventHandle::from_bytes(event.ipc_handle()?.to_bytes());
    // The H200 run ended at the buffer's refusal: what the driver answers for the event opened
    // here is not known yet. The double refuses it as the buffer; an opening is dropped at
    // once, so that the next run's trace shows the driver's answer rather than an outcome.
    // SAFETY: `event` outlives the opening (dropped at once, or refused).
    match unsafe { guard.open_ipc_event(&event_handle) } {
        Ok(opened) => drop(opened),
        Err(e) => refused(Err(e))?,
    }
    guard.stream()?.scope(|s| s.record(&event))??;
    let read = child(&handle.to_bytes(), &event_handle.to_bytes())?;
    drop(event);
    exported.free()?;
    Ok(read)
}

/// `Ok` if `opened` is the driver's refusal of an opening in the exporting process.
fn refused(opened: Result<()>) -> Result<()> {
    match opened {
        Err(e) if e.kind() == ErrorKind::InvalidContext => Ok(()),
        Err(e) => Err(e),
        Ok(()) => Err(unexpected(
            "an IPC handle opened in the process that exported it",
        )),
    }
}

/// The hex digits of `bytes` (for the child's command line; no child runs under Miri).
#[cfg(not(miri))]
fn hex(bytes: &[u8; 64]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        use core::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// `hex`'s bytes back, if it holds 64.
fn unhex(hex: &str) -> Option<[u8; 64]> {
    let mut bytes = [0u8; 64];
    if hex.len() != 128 {
        return None;
    }
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(bytes)
}

/// Runs this program as `ipc_child MEM EVENT` and returns what the child read back. The child
/// runs no fault schedule and writes no trace (both are this process's): on the checking driver
/// its own report (`NULLDRIVER_REPORT` with `.ipc-child` added) must hold no violation and no
/// leak, which this function checks.
#[cfg(not(miri))]
fn child(mem: &[u8; 64], event: &[u8; 64]) -> Result<Vec<u32>> {
    let io = |what: &str, e: std::io::Error| {
        custack::Error::new(ErrorKind::Io, format!("ipc_child: {what}")).with_source(e)
    };
    let exe = std::env::current_exe().map_err(|e| io("this program's path", e))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["ipc_child", &hex(mem), &hex(event)]);
    for var in [
        "NULLDRIVER_FAIL_AT",
        "NULLDRIVER_STICKY_AT",
        "NULLDRIVER_REPEAT_AT",
        "NULLDRIVER_LOST_AT",
        "NULLDRIVER_HANG_AT",
        "NULLDRIVER_FAIL_CODE",
        "NULLDRIVER_TRACE",
        "CUSTACK_TRACE",
    ] {
        cmd.env_remove(var);
    }
    let report = std::env::var_os("NULLDRIVER_REPORT")
        .filter(|r| !r.is_empty())
        .map(|r| {
            let mut child = r;
            child.push(".ipc-child");
            child
        });
    if let Some(r) = &report {
        cmd.env("NULLDRIVER_REPORT", r);
    }
    let out = cmd.output().map_err(|e| io("spawn", e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if let Some(r) = &report {
        let checked = std::fs::read_to_string(r).map_err(|e| io("its report", e))?;
        let _ = std::fs::remove_file(r);
        let clean = |key: &str| {
            checked
                .lines()
                .any(|l| l.strip_prefix(key).is_some_and(|n| n.trim() == "0"))
        };
        if !clean("violations") || !clean("leaks") {
            return Err(unexpected(&format!(
                "ipc_child: the checking driver reports:\n{checked}"
            )));
        }
    }
    if !out.status.success() {
        return Err(unexpected(&format!(
            "ipc_child exited with {}: {text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    text.lines()
        .find_map(|l| l.strip_prefix("ipc_child read "))
        .map(|values| values.split(',').filter_map(|v| v.parse().ok()).collect())
        .ok_or_else(|| unexpected(&format!("ipc_child printed no values: {text}")))
}

/// Under Miri (no other process): nothing is opened elsewhere, nothing read.
#[cfg(miri)]
fn child(_mem: &[u8; 64], _event: &[u8; 64]) -> Result<Vec<u32>> {
    Ok(Vec::new())
}

/// `ipc`'s child process (`custack-checking ipc_child MEM EVENT`): [`ipc_child`] with its two
/// arguments; `None` for any other program. Not a program of its own (not in `run`'s list).
pub(crate) fn as_child(program: &str) -> Option<Result<()>> {
    let arg = |i| std::env::args().nth(i).unwrap_or_default();
    (program == "ipc_child").then(|| ipc_child(&arg(2), &arg(3)))
}

/// The child's part (`custack-checking ipc_child MEM EVENT`): the exported buffer opened, filled
/// with 5 in a stream scope and read back there, filled with 6 synchronously and read back, closed
/// on drop; the event opened, waited for on a stream, destroyed. Prints `ipc_child read V,V,..`.
fn ipc_child(mem: &str, event: &str) -> Result<()> {
    let (Some(mem), Some(event)) = (unhex(mem), unhex(event)) else {
        return Err(unexpected("ipc_child: two 64-byte handles in hex"));
    };
    let ctx = crate::common::context0()?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    // SAFETY: the exporting process keeps its buffer of N elements alive until this process
    // exits, and opens it nowhere else; nothing else here reaches it while the opening lives.
    let mut opened = unsafe { guard.open_ipc::<u32>(&custack::IpcMemHandle::from_bytes(mem), N) }?;
    let mut out = vec![0u32; N];
    guard.stream()?.scope(|s| -> Result<()> {
        let mut d = s.bind_mut(&mut opened);
        s.fill_u32(&mut d, 5)?;
        s.copy_to_host(&mut out, &d)
    })??;
    opened.fill_u32(6)?;
    out.extend(opened.to_vec()?);
    drop(opened);
    // SAFETY: the exporting process keeps its event alive until this process exits.
    let opened = unsafe { guard.open_ipc_event(&custack::IpcEventHandle::from_bytes(event)) }?;
    guard.stream()?.scope(|s| s.wait(&opened))??;
    drop(opened);
    let shown: Vec<String> = out.iter().map(ToString::to_string).collect();
    println!("ipc_child read {}", shown.join(","));
    Ok(())
}
