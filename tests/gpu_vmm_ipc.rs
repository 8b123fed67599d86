//! Virtual-memory allocations shared between processes on a device: physical memory exported as
//! a POSIX file descriptor and sent over a Unix socket to a child process (this test binary
//! again), which imports, maps, checks this process's writes and writes its own, which this
//! process checks; and in one process: an export imported back (the round trip), a descriptor
//! that names no allocation refused, the imported allocation mapped writable and shared as the
//! borrow rules allow, and an import that outlives its exporter's handle.
//!
//! Every test needs a device: without one `Driver::init` fails and so does the test.
#![cfg(target_os = "linux")]

mod common;
use common::context;
use custack::prelude::*;
use custack::{HandleType, Stack};
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::process::Command;

/// The child's environment variable: the abstract socket name to connect to.
const CHILD_ENV: &str = "CUSTACK_VMM_IPC_SOCKET";

fn parent_value(i: usize) -> u32 {
    (i as u32) ^ 0x5a5a_5a5a
}
fn child_value(i: usize) -> u32 {
    (i as u32).wrapping_mul(7)
}

#[test]
#[ignore = "needs a CUDA device"]
fn physical_memory_shared_with_another_process() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    if let Ok(name) = std::env::var(CHILD_ENV) {
        // The child: import the parent's memory, check it, write to it, say so.
        let addr = SocketAddr::from_abstract_name(&name).unwrap();
        let mut stream = UnixStream::connect_addr(&addr).unwrap();
        let (fd, bytes) = custack::recv_fd(&stream).unwrap();
        let size = u64::from_le_bytes(bytes.try_into().unwrap()) as usize;
        let mut imported = guard.import_physical(fd, size).unwrap();
        let space = guard.reserve(size).unwrap();
        let mut mapped = space.map::<u32, _>(&guard, [&mut imported]).unwrap();
        let seen = mapped.to_vec().unwrap();
        assert!(seen.iter().enumerate().all(|(i, &v)| v == parent_value(i)));
        let mine: Vec<u32> = (0..seen.len()).map(child_value).collect();
        mapped.copy_from_host(&mine).unwrap();
        stream.write_all(b"+").unwrap();
        let mut done = [0u8];
        stream.read_exact(&mut done).unwrap();
        println!("CHILD-OK");
        return;
    }
    let size = 2 * guard.allocation_granularity().unwrap();
    let mut memory = guard
        .create_physical_exportable(size, HandleType::PosixFileDescriptor)
        .unwrap();
    let fd = memory.export_fd().unwrap();
    let space = guard.reserve(size).unwrap();
    let mut mapped = space.map::<u32, _>(&guard, [&mut memory]).unwrap();
    let pattern: Vec<u32> = (0..mapped.len()).map(parent_value).collect();
    mapped.copy_from_host(&pattern).unwrap();

    let name = format!("custack-gpu_vmm_ipc-{}", std::process::id());
    let listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(&name).unwrap()).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "physical_memory_shared_with_another_process",
            "--include-ignored",
            "--nocapture",
        ])
        .env(CHILD_ENV, &name)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stream = accept(&listener, &mut child);
    custack::send_fd(&stream, fd.as_fd(), &(size as u64).to_le_bytes()).unwrap();
    drop(fd); // the child's descriptor is its own
    let mut answer = [0u8];
    stream.read_exact(&mut answer).unwrap();
    let seen = mapped.to_vec().unwrap();
    stream.write_all(b".").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("--- child\n{stdout}");
    assert!(out.status.success() && stdout.contains("CHILD-OK"));
    assert_eq!(&answer, b"+");
    assert!(
        seen.iter().enumerate().all(|(i, &v)| v == child_value(i)),
        "the child's writes"
    );
}

/// The child's connection; panics (instead of waiting forever) if the child exits first.
fn accept(listener: &UnixListener, child: &mut std::process::Child) -> UnixStream {
    listener.set_nonblocking(true).unwrap();
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                return stream;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("the child exited before connecting: {status}");
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("accept: {e}"),
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn an_export_imported_back_shows_the_same_bytes() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let g = guard.allocation_granularity().unwrap();
    let mut exported = guard
        .create_physical_exportable(g, HandleType::PosixFileDescriptor)
        .unwrap();
    // Over a socket pair, as another process would receive it.
    let (a, b) = UnixStream::pair().unwrap();
    let fd = exported.export_fd().unwrap();
    custack::send_fd(&a, fd.as_fd(), b"size").unwrap();
    let (received, message) = custack::recv_fd(&b).unwrap();
    assert_eq!(message, b"size");
    let imported = guard.import_physical(received, g).unwrap();
    assert_eq!(imported.size(), g);
    assert_eq!(imported.device(), exported.device());
    let (one, two) = (guard.reserve(g).unwrap(), guard.reserve(g).unwrap());
    {
        let mut local = one.map::<u32, _>(&guard, [&mut exported]).unwrap();
        local.fill_u32(0xabcd).unwrap();
    }
    let through_import = two.map_read_only::<u32, _>(&guard, &[&imported]).unwrap();
    assert!(
        through_import
            .to_vec()
            .unwrap()
            .iter()
            .all(|&x| x == 0xabcd)
    );
    drop(through_import);
    // The import keeps the memory alive after the exporter's handle is released.
    drop(exported);
    let mut imported = imported;
    let mut alone = two.map::<u32, _>(&guard, [&mut imported]).unwrap();
    alone.fill_u32(3).unwrap();
    assert!(alone.to_vec().unwrap().iter().all(|&x| x == 3));
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_descriptor_that_names_no_allocation_is_refused() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let g = guard.allocation_granularity().unwrap();
    // A socket, not an exported allocation: the driver's error, with the descriptor in its detail.
    let (a, _b) = UnixStream::pair().unwrap();
    let e = guard.import_physical(OwnedFd::from(a), g).err().unwrap();
    assert!(e.code().is_some(), "a driver error: {e}");
    assert!(e.to_string().contains("importing file descriptor"), "{e}");
    // A file that is no allocation either.
    let null = std::fs::File::open("/dev/null").unwrap();
    assert!(guard.import_physical(OwnedFd::from(null), g).is_err());
    // Sizes custack refuses before asking the driver.
    let exported = guard
        .create_physical_exportable(g, HandleType::PosixFileDescriptor)
        .unwrap();
    for size in [0, g + 1] {
        let e = guard
            .import_physical(exported.export_fd().unwrap(), size)
            .err()
            .unwrap();
        assert_eq!(e.kind(), custack::ErrorKind::InvalidValue, "{e}");
    }
    // Memory not created exportable is not exported.
    let plain = guard.create_physical(g).unwrap();
    let e = plain.export_fd().err().unwrap();
    assert!(
        e.code().is_some() && e.to_string().contains("create_physical_exportable"),
        "{e}"
    );
}

/// What `import_physical`'s safety argument leans on: a size larger than the allocation passes
/// custack's own check (a multiple of the granularity) but the driver refuses to map it.
#[test]
#[ignore = "needs a CUDA device"]
fn a_mapping_past_the_imported_allocation_is_refused() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let g = guard.allocation_granularity().unwrap();
    let exported = guard
        .create_physical_exportable(g, HandleType::PosixFileDescriptor)
        .unwrap();
    let mut imported = guard
        .import_physical(exported.export_fd().unwrap(), 4 * g)
        .unwrap();
    let space = guard.reserve(4 * g).unwrap();
    let e = space.map::<u32, _>(&guard, [&mut imported]).err();
    assert!(
        e.as_ref().is_some_and(|e| e.code().is_some()),
        "the driver mapped 4 granules of a 1-granule allocation: {e:?}"
    );
    // The reservation is usable afterwards: the failed map left nothing mapped.
    drop(imported);
    let mut right = guard
        .import_physical(exported.export_fd().unwrap(), g)
        .unwrap();
    let mut mapped = space.map::<u32, _>(&guard, [&mut right]).unwrap();
    mapped.fill_u32(1).unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn fabric_handles_are_exported_where_supported_and_refused_clearly_elsewhere() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let g = guard.allocation_granularity().unwrap();
    let supported = guard
        .device()
        .unwrap()
        .attribute(custack::DeviceAttribute::HandleTypeFabricSupported)
        .unwrap();
    match guard.create_physical_exportable(g, HandleType::Fabric) {
        Ok(memory) => {
            assert_ne!(supported, 0);
            // Without an IMEX channel the export itself may be refused; either way, not silently.
            match memory.export_fabric() {
                Ok(handle) => {
                    let again = custack::FabricHandle::from_bytes(handle.to_bytes());
                    assert_eq!(again, handle);
                }
                Err(e) => assert!(e.to_string().contains("fabric"), "{e}"),
            }
        }
        Err(e) => {
            assert!(e.to_string().contains("Fabric"), "{e}");
            if supported == 0 {
                assert_eq!(e.kind(), custack::ErrorKind::NotSupported);
            } else {
                // Supported by the device, refused by the system: no IMEX channel (the H100
                // machine answers CUDA_ERROR_NOT_PERMITTED), said in the detail.
                assert_eq!(e.kind(), custack::ErrorKind::NotPermitted, "{e}");
                assert!(e.to_string().contains("IMEX channel"), "{e}");
            }
        }
    }
}

/// A virtual-memory allocation's POSIX descriptor imported as external memory: driver 580
/// takes it as an opaque fd (measured on an H200), so external memory is tested here without
/// Vulkan. A buffer mapped onto the import reads what the allocation holds; a mipmapped array
/// at offset 0 copies a level both ways; one whose levels, packed, run past the import is
/// refused by custack (`InvalidValue`, before the driver), and one that fits packed but not as
/// the driver lays it out (a column of 64 `f32`s in the last 256 bytes: tiled, each row
/// padded) by the driver itself (`InvalidValue`), as R29 records.
#[test]
#[ignore = "needs a CUDA device"]
fn an_export_imported_as_external_memory_maps_only_inside_it() {
    use custack::{DeviceMemory, ErrorKind, MemoryHandle};
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let g = guard.allocation_granularity().unwrap();
    let mut exported = guard
        .create_physical_exportable(g, HandleType::PosixFileDescriptor)
        .unwrap();
    let space = guard.reserve(g).unwrap();
    {
        let mut local = space.map::<u32, _>(&guard, [&mut exported]).unwrap();
        local.fill_u32(0x5eed).unwrap();
    }
    let fd = exported.export_fd().unwrap();
    let size = g as u64;
    // SAFETY: `fd` is the export of `exported`, `g` bytes of this device; nothing else writes
    // it while the import lives (the local mapping is gone).
    let mut memory = unsafe { guard.import_memory(fd, size, MemoryHandle::OpaqueFd) }.unwrap();
    {
        let buffer = memory.map_buffer::<u32>(0, 1024).unwrap();
        assert!(buffer.to_vec().unwrap().iter().all(|&x| x == 0x5eed));
    }
    let kind = |r: custack::Result<_>| r.err().map(|e: custack::Error| e.kind());
    // Packed past the end (256 MiB over the import, or one element at its last byte): custack.
    assert_eq!(
        kind(
            memory
                .map_mipmapped_array::<[f32; 4]>(0, [4096, 4096, 1], 1)
                .map(drop)
        ),
        Some(ErrorKind::InvalidValue)
    );
    assert_eq!(
        kind(
            memory
                .map_mipmapped_array::<f32>(size - 1, [1, 1, 1], 1)
                .map(drop)
        ),
        Some(ErrorKind::InvalidValue)
    );
    // Packed it fits (256 bytes); tiled it does not: the driver refuses it.
    assert_eq!(
        kind(
            memory
                .map_mipmapped_array::<f32>(size - 256, [1, 64, 1], 1)
                .map(drop)
        ),
        Some(ErrorKind::InvalidValue)
    );
    let mut array = memory
        .map_mipmapped_array::<f32>(0, [64, 64, 1], 2)
        .unwrap();
    let level1: Vec<f32> = (0..32 * 32u16).map(f32::from).collect();
    array.copy_level_from_host(1, &level1).unwrap();
    assert_eq!(array.level_to_vec(1).unwrap(), level1);
}
