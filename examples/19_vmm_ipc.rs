//! NVIDIA's memMapIPCDrv: two processes on one GPU share one buffer of virtual-memory-managed
//! physical memory, handed over as a POSIX file descriptor on a Unix socket.
//!
//! `cargo run --release --example 19_vmm_ipc`
//!
//! The parent creates physical memory that can be exported (`create_physical_exportable`),
//! exports it (`export_fd`), maps it and writes a pattern, and starts itself again as the child
//! (`current_exe`), to which it sends the descriptor and the size over a Unix socket
//! (`send_fd`). The child imports it (`import_physical`): ordinary physical memory of its own
//! context, mapped with the usual borrow rules; it checks the parent's pattern and writes its
//! own, then says so on the socket; the parent checks the child's writes through its own
//! mapping. Socket messages order the steps, so no process reads while the other writes. No
//! `unsafe`: the driver counts the child's reference, so the memory stays alive in the child
//! whatever the parent does. Linux only (POSIX descriptors).
use std::process::ExitCode;

#[cfg(target_os = "linux")]
mod linux {
    use custack::{
        Context, ContextFlags, DeviceMemory, DeviceMemoryMut, Driver, Error, ErrorKind, HandleType,
        Stack,
    };
    use std::io::{Read, Write};
    use std::os::fd::AsFd;
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
    use std::process::{Child, Command, Stdio};

    /// The argument that makes this program the child; the socket's name follows it.
    pub(crate) const CHILD: &str = "--child";
    /// The child's one-byte answers: it checked the parent's pattern and wrote its own, or not.
    const CHECKED: u8 = b'+';
    const WRONG: u8 = b'-';
    /// The parent's go-ahead for the child to unmap and exit.
    const DONE: u8 = b'.';

    /// What the parent writes at element `i`, and what the child writes.
    fn parent_value(i: usize) -> u32 {
        (i as u32).wrapping_mul(3).wrapping_add(1)
    }
    fn child_value(i: usize) -> u32 {
        !(i as u32)
    }

    fn io(what: &'static str) -> impl FnOnce(std::io::Error) -> Error {
        move |e| Error::new(ErrorKind::Io, what).with_source(e)
    }

    /// How many elements differ from `expected`.
    fn wrong(values: &[u32], expected: impl Fn(usize) -> u32) -> usize {
        values
            .iter()
            .enumerate()
            .filter(|&(i, &v)| v != expected(i))
            .count()
    }

    fn send_byte(mut stream: &UnixStream, byte: u8) -> custack::Result<()> {
        stream
            .write_all(&[byte])
            .map_err(io("writing to the socket"))
    }
    fn recv_byte(mut stream: &UnixStream) -> custack::Result<u8> {
        let mut byte = [0u8];
        stream
            .read_exact(&mut byte)
            .map_err(io("reading from the socket"))?;
        Ok(byte[0])
    }

    /// The parent: the line to print (`Ok`) or what the check found wrong (`Err`), or the error
    /// that stopped it before.
    pub(crate) fn parent() -> custack::Result<Result<String, String>> {
        let device = Driver::init()?.device(0)?;
        let ctx = Context::new(device, ContextFlags::empty())?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let size = 4 * guard.allocation_granularity()?;
        let n = size / size_of::<u32>();

        let mut memory = guard.create_physical_exportable(size, HandleType::PosixFileDescriptor)?;
        let fd = memory.export_fd()?;
        let space = guard.reserve(size)?;
        let mut mapped = space.map::<u32, _>(&guard, [&mut memory])?;
        let pattern: Vec<u32> = (0..n).map(parent_value).collect();
        mapped.copy_from_host(&pattern)?;

        // A socket in Linux's abstract namespace: nothing in the file system to clean up.
        let name = format!("custack-19_vmm_ipc-{}", std::process::id());
        let addr = SocketAddr::from_abstract_name(&name).map_err(io("naming the socket"))?;
        let listener = UnixListener::bind_addr(&addr).map_err(io("binding the socket"))?;
        let exe = std::env::current_exe().map_err(io("finding this program"))?;
        let mut child = Command::new(exe)
            .args([CHILD, &name])
            .stdin(Stdio::null())
            .spawn()
            .map_err(io("starting the child"))?;
        let answer = (|| -> custack::Result<(u8, usize)> {
            let stream = accept(&listener, &mut child)?;
            custack::send_fd(&stream, fd.as_fd(), &(size as u64).to_le_bytes())?;
            let answer = recv_byte(&stream)?;
            // The child has written its pattern (or given up): check it here, then let it go
            // (a child that gave up has exited already).
            let seen = wrong(&mapped.to_vec()?, child_value);
            let _ = send_byte(&stream, DONE);
            Ok((answer, seen))
        })();
        let status = child.wait().map_err(io("waiting for the child"))?;
        // From here on this process has written the GPU: an error is a failed step, reported
        // as such.
        let (answer, seen) = match answer {
            Ok(answered) => answered,
            Err(e) => return Ok(Err(format!("{e} (the child: {status})"))),
        };
        Ok(if answer != CHECKED {
            Err(format!(
                "the child did not find this process's pattern ({status})"
            ))
        } else if seen != 0 {
            Err(format!(
                "{seen} of {n} elements do not hold the child's values"
            ))
        } else if !status.success() {
            Err(format!("the child failed ({status})"))
        } else {
            Ok(format!(
                "19_vmm_ipc: {n} u32 ({} KiB) of physical memory on {} shared with process {} \
                 through a file descriptor; the child read this process's pattern and this \
                 process read the child's, every element checked",
                size >> 10,
                device.name()?,
                child.id()
            ))
        })
    }

    /// Accepts the child's connection, or fails if the child exits first.
    fn accept(listener: &UnixListener, child: &mut Child) -> custack::Result<UnixStream> {
        listener
            .set_nonblocking(true)
            .map_err(io("setting up the socket"))?;
        loop {
            match listener.accept() {
                Ok((stream, _)) => {
                    stream
                        .set_nonblocking(false)
                        .map_err(io("setting up the socket"))?;
                    return Ok(stream);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if let Some(status) = child.try_wait().map_err(io("waiting for the child"))? {
                        return Err(Error::new(
                            ErrorKind::Io,
                            format!("the child exited before connecting ({status})"),
                        ));
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => return Err(io("accepting the child")(e)),
            }
        }
    }

    /// The child: imports the parent's memory and answers on the socket `name`.
    pub(crate) fn child(name: &str) -> custack::Result<Result<(), String>> {
        let addr = SocketAddr::from_abstract_name(name).map_err(io("naming the socket"))?;
        let stream = UnixStream::connect_addr(&addr).map_err(io("connecting to the parent"))?;
        let (fd, bytes) = custack::recv_fd(&stream)?;
        let size = <[u8; 8]>::try_from(bytes.as_slice()).map_or(0, u64::from_le_bytes) as usize;

        let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
        let mut stack = Stack::new()?;
        let guard = stack.push(&ctx)?;
        let mut imported = guard.import_physical(fd, size)?;
        let space = guard.reserve(size)?;
        let mut mapped = space.map::<u32, _>(&guard, [&mut imported])?;
        let n = mapped.len();
        let seen = wrong(&mapped.to_vec()?, parent_value);
        if seen != 0 {
            send_byte(&stream, WRONG)?;
            return Ok(Err(format!(
                "{seen} of {n} elements do not hold the parent's pattern"
            )));
        }
        let mine: Vec<u32> = (0..n).map(child_value).collect();
        mapped.copy_from_host(&mine)?;
        send_byte(&stream, CHECKED)?;
        // Unmapped and released once the parent has read.
        let _ = recv_byte(&stream)?;
        Ok(Ok(()))
    }
}

#[cfg(target_os = "linux")]
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, name] = args.as_slice()
        && flag == linux::CHILD
    {
        return match linux::child(name) {
            Ok(Ok(())) => ExitCode::SUCCESS,
            Ok(Err(wrong)) => {
                eprintln!("19_vmm_ipc (child): {wrong}");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("19_vmm_ipc (child): {e}");
                ExitCode::FAILURE
            }
        };
    }
    match linux::parent() {
        Ok(Ok(line)) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Ok(Err(wrong)) => {
            eprintln!("19_vmm_ipc: {wrong}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("19_vmm_ipc: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn main() -> ExitCode {
    eprintln!(
        "19_vmm_ipc: no GPU work done: sharing memory through POSIX file descriptors is Linux-only"
    );
    ExitCode::FAILURE
}
