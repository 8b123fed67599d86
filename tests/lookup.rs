//! Entry points newer than the linked baseline are looked up, not linked: on an older driver
//! (CI links Debian's 535, CUDA 12.2) each reports "needs driver ≥ X.Y (this driver: A.B)"
//! instead of failing to link or crashing; on a newer one, each is available. Runs anywhere;
//! `tests/gpu_lookup.rs` uses them on a device.
mod common;
use common::built_without_libcuda;
use custack::{Driver, ErrorKind, driver_version, newer_entry_points};

#[test]
fn each_looked_up_entry_point_reports_the_driver_it_needs() {
    if built_without_libcuda("each_looked_up_entry_point_reports_the_driver_it_needs") {
        // No driver to ask: no version, and every entry point unavailable for that reason.
        assert_eq!(driver_version().unwrap_err().kind(), ErrorKind::NoDevice);
        let entries = newer_entry_points();
        assert_eq!(entries.len(), 26);
        for e in entries {
            let err = e.available.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NoDevice, "{}: {err}", e.name);
        }
        return;
    }
    let driver = driver_version().unwrap();
    let initialized = Driver::init().is_ok();
    let entries = newer_entry_points();
    let names: Vec<_> = entries.iter().map(|e| e.name).collect();
    assert_eq!(
        names,
        [
            "cuFuncGetParamInfo",
            "cuFuncGetParamCount",
            "cuCtxCreate_v4",
            "cuCtxRecordEvent",
            "cuCtxWaitEvent",
            "cuDeviceGetDevResource",
            "cuCtxGetDevResource",
            "cuDevSmResourceSplitByCount",
            "cuDevResourceGenerateDesc",
            "cuGreenCtxCreate",
            "cuGreenCtxDestroy",
            "cuCtxFromGreenCtx",
            "cuGreenCtxStreamCreate",
            "cuLogsRegisterCallback",
            "cuModuleGetFunctionCount",
            "cuModuleEnumerateFunctions",
            "cuFuncGetName",
            "cuFuncLoad",
            "cuGraphAddNode",
            "cuGraphConditionalHandleCreate",
            "cuStreamBeginCaptureToGraph",
            "cuMemcpyBatchAsync",
            "cuMemcpy3DBatchAsync",
            "cuMemPrefetchBatchAsync",
            "cuMemDiscardBatchAsync",
            "cuMemDiscardAndPrefetchBatchAsync",
        ]
    );
    for e in entries {
        if driver < e.needs {
            let err = e.available.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::DriverTooOld, "{}: {err}", e.name);
            let expected = format!(
                "{} needs driver ≥ {} (this driver: {driver})",
                e.name, e.needs
            );
            assert!(err.to_string().contains(&expected), "{err}");
            println!("{}: {err}", e.name);
        } else if initialized {
            assert!(e.available.is_ok(), "{}: {:?}", e.name, e.available);
            println!("{}: available (driver {driver})", e.name);
        } else {
            // A driver new enough but not initialized (no device): the lookup may fail for that
            // reason, which is not cached and not "too old".
            if let Err(err) = e.available {
                assert_ne!(err.kind(), ErrorKind::DriverTooOld, "{}: {err}", e.name);
            }
        }
    }
}
