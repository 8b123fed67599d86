//! The double's own tests. IPC: memory and event handles opened in this process are checked.

use super::*;

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
        assert_eq!(
            violations_of(|| {
                let _ = cuIpcGetMemHandle(&raw mut h, d);
                let _ =
                    cuIpcOpenMemHandle_v2(&raw mut opened, ipc_handle(h.map(|b| b as c_char)), 1);
                let _ = cuMemsetD8_v2(opened + 4000, 0, 8);
                let _ = cuIpcCloseMemHandle(opened);
            }),
            0,
            "export, open, use, close"
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
        let _ = cuIpcOpenMemHandle_v2(&raw mut opened, ipc_handle(h.map(|b| b as c_char)), 1);
        assert_eq!(
            violations_of(|| {
                let _ =
                    cuIpcOpenMemHandle_v2(&raw mut again, ipc_handle(h.map(|b| b as c_char)), 1);
            }),
            1,
            "opened twice"
        );
        assert_eq!(
            orphans_of(|| {
                let _ = cuMemFree_v2(d);
            }),
            1,
            "freed while open"
        );
        let _ = cuIpcCloseMemHandle(opened);
        let _ = cuIpcCloseMemHandle(again);
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}
