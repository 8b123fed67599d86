//! `custack::nccl` without a GPU: the library the build linked answers (its version, a unique
//! id), and the unique id travels between ranks through `custack::rendezvous` as bytes and back.
//! The test command links the real NCCL (the `nvidia-nccl-cu12` wheel it fetches); a build that
//! found none must say so instead ([`custack::ErrorKind::LibraryNotLinked`]).
#![cfg(feature = "nccl")]

use custack::ErrorKind;
use custack::nccl::{self, UniqueId};
use custack::rendezvous::Job;
use std::time::Duration;

/// Whether this build linked no NCCL (then every call must say so).
fn without_nccl() -> bool {
    match nccl::version() {
        Err(e) if e.kind() == ErrorKind::LibraryNotLinked => {
            assert!(e.detail().unwrap().contains("CUSTACK_NCCL_LIB_DIR"), "{e}");
            eprintln!(
                "SKIPPED the calls into NCCL: this build linked none (bash scripts/test.sh fetches one)"
            );
            true
        }
        _ => false,
    }
}

#[test]
fn the_linked_nccl_reports_its_version() {
    if without_nccl() {
        assert_eq!(
            nccl::unique_id().unwrap_err().kind(),
            ErrorKind::LibraryNotLinked
        );
        return;
    }
    let v = nccl::version().unwrap();
    assert_eq!(v.major, 2, "{v}");
    assert!(
        v.minor >= 18,
        "custack mirrors NCCL 2.18's configuration; linked {v}"
    );
    assert_eq!(
        v.to_string(),
        format!("{}.{}.{}", v.major, v.minor, v.patch)
    );
}

#[test]
fn a_unique_id_travels_between_ranks_as_bytes() {
    if without_nccl() {
        return;
    }
    // NCCL makes the id on the CPU (its bootstrap socket); no device is needed.
    let made = match nccl::unique_id() {
        Ok(id) => id,
        // No network interface NCCL accepts (a sandbox with loopback only): say so, do not pass
        // silently.
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::NcclSystemError | ErrorKind::NcclInternalError
            ) =>
        {
            panic!("ncclGetUniqueId failed on this machine: {e}");
        }
        Err(e) => panic!("{e}"),
    };
    let bytes = made.to_bytes();
    assert_ne!(bytes, [0; 128], "an id of zeros");
    // Two ranks on loopback: rank 0 shares the id, rank 1 receives the same bytes.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let tag = nccl::version().unwrap().to_string();
    let timeout = Duration::from_secs(20);
    let received = std::thread::scope(|t| {
        let tag = tag.as_bytes();
        let zero = t.spawn(move || {
            Job::new(0, 2, 0, "127.0.0.1", port)
                .unwrap()
                .share(tag, timeout, || Ok(bytes.to_vec()))
        });
        let one = t.spawn(move || {
            Job::new(1, 2, 1, "127.0.0.1", port)
                .unwrap()
                .share(tag, timeout, || unreachable!("only rank 0 makes the id"))
        });
        (zero.join().unwrap().unwrap(), one.join().unwrap().unwrap())
    });
    assert_eq!(received.0, bytes);
    assert_eq!(UniqueId::from_slice(&received.1).unwrap().to_bytes(), bytes);
}
