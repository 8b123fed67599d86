//! R7 on the machine at hand: without a GPU (CI has the real driver library but no device),
//! initialization fails with a named error and a hint, never a panic; with one, it succeeds.
//! Either way the test checks what that machine must do, and says which case it checked.
use custack::{Driver, ErrorKind, driver_version};

#[test]
fn r7_initialization_is_a_clear_result_with_or_without_a_device() {
    if cfg!(custack_no_libcuda) {
        // Built where build.rs found no driver library (scripts/platforms.sh's Windows leg:
        // no nvcuda.dll under Wine): every call says so, with what to do, and nothing panics.
        let e = driver_version().expect_err("a build without libcuda has no driver version");
        assert_eq!(e.kind(), ErrorKind::NoDevice, "{e}");
        let e = Driver::init().expect_err("a build without libcuda has no driver");
        println!("built without the driver library: {e}");
        assert_eq!(e.kind(), ErrorKind::NoDevice, "{e}");
        let text = e.to_string();
        assert!(text.contains("CUDA_ERROR_NO_DEVICE (100)"), "{text}");
        assert!(text.contains("no CUDA driver"), "{text}");
        assert!(
            text.contains("hint: ") && text.contains("CUSTACK_REQUIRE_LIBCUDA"),
            "{text}"
        );
        assert!(!e.is_sticky());
        return;
    }
    let version = driver_version().expect("cuDriverGetVersion works without a device");
    assert!(version.major >= 12, "{version}");
    match Driver::init() {
        Err(e) => {
            println!("no device here: {e}");
            assert_eq!(e.kind(), ErrorKind::NoDevice, "{e}");
            let text = e.to_string();
            assert!(text.contains("CUDA_ERROR_NO_DEVICE (100)"), "{text}");
            assert!(
                text.contains("hint: ") && text.contains("nvidia-smi"),
                "{text}"
            );
            assert!(!e.is_sticky());
        }
        Ok(driver) => {
            let n = driver.device_count().unwrap();
            println!("a device is here: {n} device(s), driver API {version}");
            assert!(n >= 1);
        }
    }
}
