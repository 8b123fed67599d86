//! The double's own tests. IPC: a handle opened in the process that exported it is refused, as
//! the driver refuses it; one of another process (its id in the handle changed here) is opened as
//! memory or an event of this process, and checked.

use super::*;

/// `bytes` as another process would have exported them: the same handle with another process's
/// id (bytes 24 to 28).
fn from_another_process(mut bytes: [u8; 64]) -> [c_char; 64] {
    let other = std::process::id().wrapping_add(1);
    bytes[24..28].copy_from_slice(&other.to_le_bytes());
    bytes.map(|b| b as c_char)
}

#[test]
fn ipc_openings_are_checked() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        let a = ctx();
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 4096);
        let mut h = [0u8; 64];
        let (mut opened, mut again) = (0, 0);
        // In the exporting process the driver refuses the opening (the H200 run).
        let _ = cuIpcGetMemHandle(&raw mut h, d);
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuIpcOpenMemHandle_v2(&raw mut opened, ipc_handle(h.map(|b| b as c_char)), 1),
                    CUDA_ERROR_INVALID_CONTEXT
                );
            }),
            0,
            "opened in the exporting process: refused, nothing recorded"
        );
        assert_eq!(opened, 0, "nothing written");
        let foreign = from_another_process(h);
        assert_eq!(
            violations_of(|| {
                assert_eq!(
                    cuIpcOpenMemHandle_v2(&raw mut opened, ipc_handle(foreign), 1),
                    CUDA_SUCCESS
                );
                let _ = cuMemsetD8_v2(opened + 4000, 0, 8);
                let _ = cuIpcCloseMemHandle(opened);
            }),
            0,
            "another process's: open, use, close"
        );
        assert_eq!(
            violations_of(|| {
                let _ = cuIpcGetMemHandle(&raw mut h, d + 64); // not an allocation's start
                let _ = cuIpcCloseMemHandle(opened); // closed twice
                let _ = cuMemsetD8_v2(opened, 0, 8); // used after closing
            }),
            3,
            "a handle of an inner address, a double close, a use after close"
        );
        let _ = cuIpcGetMemHandle(&raw mut h, d);
        let foreign = from_another_process(h);
        let _ = cuIpcOpenMemHandle_v2(&raw mut opened, ipc_handle(foreign), 1);
        assert_eq!(
            violations_of(|| {
                let _ = cuIpcOpenMemHandle_v2(&raw mut again, ipc_handle(foreign), 1);
            }),
            1,
            "opened twice"
        );
        // The opened memory is this process's: what is written there reads back.
        let _ = cuMemsetD8_v2(opened, 9, 16);
        let mut back = [0u8; 16];
        let _ = cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), opened, 16);
        assert_eq!(
            back, [9; 16],
            "the opened memory holds what was written to it"
        );
        let _ = cuIpcCloseMemHandle(opened);
        let _ = cuIpcCloseMemHandle(again);
        // Once the first opening is closed, the allocation may be opened again.
        assert_eq!(
            violations_of(|| {
                let _ = cuIpcOpenMemHandle_v2(&raw mut opened, ipc_handle(foreign), 1);
                let _ = cuIpcCloseMemHandle(opened);
            }),
            0,
            "opened again after the close"
        );
        let _ = cuMemFree_v2(d);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}

#[test]
fn ipc_event_openings_are_refused_in_the_exporting_process() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: as above: valid out-pointers, handles the double made.
    unsafe {
        let a = ctx();
        let mut e = null_mut();
        let _ = cuEventCreate(&raw mut e, 0x1 | 0x4); // disable timing, interprocess
        let mut h = [0u8; 64];
        assert_eq!(cuIpcGetEventHandle(&raw mut h, e), CUDA_SUCCESS);
        let mut opened = null_mut();
        assert_eq!(
            cuIpcOpenEventHandle(&raw mut opened, ipc_event_handle(h.map(|b| b as c_char))),
            CUDA_ERROR_INVALID_CONTEXT,
            "opened in the exporting process"
        );
        assert!(opened.is_null());
        assert_eq!(
            cuIpcOpenEventHandle(&raw mut opened, ipc_event_handle(from_another_process(h))),
            CUDA_SUCCESS,
            "another process's"
        );
        assert!(!opened.is_null());
        let _ = cuEventDestroy_v2(opened);
        let _ = cuEventDestroy_v2(e);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}
