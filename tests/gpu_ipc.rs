//! Interprocess sharing on a device: this process exports a buffer, a child process (this test
//! binary again) opens it, checks what is there, writes its own values, and this process reads
//! them back; and an event: the child's stream waits on the GPU for work this process recorded
//! it after, work held back until the child has already asked for the data.
mod common;
use common::context;
use custack::prelude::*;
use custack::{EventFlags, IpcEventHandle, IpcMemHandle, Stack};
use std::io::BufRead as _;
use std::process::Command;

const CHILD_ENV: &str = "CUSTACK_IPC_HANDLE";
const EVENT_CHILD_ENV: &str = "CUSTACK_IPC_EVENT_HANDLES";
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

#[test]
#[ignore = "needs a CUDA device"]
fn an_event_orders_another_process_work() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    if let Ok(encoded) = std::env::var(EVENT_CHILD_ENV) {
        // The child: open the parent's buffer and event, say so, then read the buffer after
        // waiting on the GPU for the event. Without the wait the copy would run at once, while
        // the parent still holds its fill back, and read zeros.
        let (memory, event) = encoded.split_once(':').unwrap();
        // SAFETY: the parent keeps the buffer (N u32) and the event alive until this process
        // has exited; it writes the buffer only before the event.
        let shared =
            unsafe { guard.open_ipc::<u32>(&IpcMemHandle::from_bytes(unhex(memory)), N) }.unwrap();
        // SAFETY: as above, for the event.
        let done =
            unsafe { guard.open_ipc_event(&IpcEventHandle::from_bytes(unhex(event))) }.unwrap();
        println!("READY");
        let mut seen = vec![0u32; N];
        guard
            .stream()
            .unwrap()
            .scope(|s| {
                s.wait(&done).unwrap();
                s.copy_to_host(&mut seen, s.bind(&shared)).unwrap();
            })
            .unwrap();
        let wrong = seen.iter().filter(|&&x| x != 7).count();
        assert_eq!(
            wrong, 0,
            "{wrong} of {N} elements read before the parent's fill"
        );
        drop((shared, done));
        println!("CHILD-OK");
        return;
    }
    let mut buffer = guard.alloc::<u32>(N).unwrap();
    buffer.fill_u32(0).unwrap();
    let memory = buffer.ipc_handle().unwrap();
    let done = guard
        .event(EventFlags::INTERPROCESS | EventFlags::DISABLE_TIMING)
        .unwrap();
    let event = done.ipc_handle().unwrap();
    // Timing events cannot be shared: the driver refuses them.
    let timed = guard.event(EventFlags::empty()).unwrap();
    assert!(timed.ipc_handle().is_err());
    let (release, held) = std::sync::mpsc::channel::<()>();
    let stream = guard.stream().unwrap();
    let child = stream
        .scope(|s| {
            let mut b = s.bind_mut(&mut buffer);
            // The fill waits on the host for the release, which comes only once the child has
            // opened everything and is about to read; the event is recorded after the fill.
            s.host_fn(move || {
                let _ = held.recv();
            })
            .unwrap();
            s.fill_u32(&mut b, 7).unwrap();
            s.record(&done).unwrap();
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "an_event_orders_another_process_work",
                    "--include-ignored",
                    "--nocapture",
                ])
                .env(
                    EVENT_CHILD_ENV,
                    format!("{}:{}", hex(&memory.to_bytes()), hex(&event.to_bytes())),
                )
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
            let mut seen = Vec::new();
            for line in lines.by_ref() {
                let line = line.unwrap();
                let ready = line == "READY";
                seen.push(line);
                if ready {
                    break;
                }
            }
            // The child's copy is enqueued behind its wait by now, or about to be.
            std::thread::sleep(std::time::Duration::from_millis(300));
            release.send(()).unwrap();
            seen.extend(lines.map_while(Result::ok));
            let out = child.wait_with_output().unwrap();
            (
                out.status,
                seen,
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .unwrap();
    let (status, stdout, stderr) = child;
    println!("--- child\n{}\n{stderr}", stdout.join("\n"));
    assert!(status.success() && stdout.iter().any(|l| l == "CHILD-OK"));
    assert!(buffer.to_vec().unwrap().iter().all(|&x| x == 7));
}
