//! R7 on the machine at hand: without a GPU (CI has the real driver library but no device),
//! initialization fails with a named error and a hint, never a panic; with one, it succeeds.
//! Either way the test checks what that machine must do, and says which case it checked.
use custack::{Driver, ErrorKind, driver_version};

#[test]
fn r7_initialization_is_a_clear_result_with_or_without_a_device() {
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
