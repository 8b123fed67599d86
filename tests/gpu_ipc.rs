//! Interprocess sharing on a device: this process exports a buffer, a child process (this test
//! binary again) opens it, checks what is there, writes its own values, and this process reads
//! them back.
mod common;
use common::context;
use custack::prelude::*;
use custack::{IpcMemHandle, Stack};
use std::process::Command;

const CHILD_ENV: &str = "CUSTACK_IPC_HANDLE";
const N: usize = 4096;

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(s: &str) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_buffer_shared_with_another_process() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    if let Ok(encoded) = std::env::var(CHILD_ENV) {
        // The child: open the parent's buffer, check it, write to it.
        let handle = IpcMemHandle::from_bytes(unhex(&encoded));
        // SAFETY: the parent keeps the buffer alive until this process has exited, it holds N
        // u32, and the parent does not touch it meanwhile.
        let mut shared = unsafe { guard.open_ipc::<u32>(&handle, N) }.unwrap();
        assert!(shared.to_vec().unwrap().iter().all(|&x| x == 17));
        shared.fill_u32(42).unwrap();
        drop(shared);
        println!("CHILD-OK");
        return;
    }
    let mut buffer = guard.alloc::<u32>(N).unwrap();
    buffer.fill_u32(17).unwrap();
    let handle = buffer.ipc_handle().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_buffer_shared_with_another_process",
            "--include-ignored",
            "--nocapture",
        ])
        .env(CHILD_ENV, hex(&handle.to_bytes()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!(
        "--- child\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && stdout.contains("CHILD-OK"));
    assert!(
        buffer.to_vec().unwrap().iter().all(|&x| x == 42),
        "the child's writes"
    );
    // Opening one's own handle is refused by the driver.
    // SAFETY: never succeeds; if it did, `buffer` outlives it and holds N elements.
    assert!(unsafe { guard.open_ipc::<u32>(&handle, N) }.is_err());
}
