//! Driver and device queries on a real device.
use custack::{DeviceAttribute, Driver, ErrorKind, driver_version};

#[test]
#[ignore = "needs a CUDA device"]
fn device_queries_and_every_attribute() {
    let driver = Driver::init().unwrap();
    let version = driver.version().unwrap();
    assert_eq!(version, driver_version().unwrap());
    assert!(version.major >= 12, "{version}");
    let count = driver.device_count().unwrap();
    assert!(count >= 1);
    assert_eq!(driver.devices().unwrap().len(), count);
    assert_eq!(
        driver.device(count).unwrap_err().kind(),
        ErrorKind::InvalidDevice
    );
    let dev = driver.device(0).unwrap();
    assert_eq!(dev.ordinal(), 0);
    let name = dev.name().unwrap();
    assert!(!name.is_empty() && !name.contains('\0'), "{name:?}");
    assert_ne!(dev.uuid().unwrap(), [0; 16]);
    let bus = dev.pci_bus_id().unwrap();
    assert_eq!(bus.matches(':').count(), 2, "{bus}");
    assert!(dev.total_memory().unwrap() > 1 << 30);
    let cc = dev.compute_capability().unwrap();
    assert!(cc.major >= 5, "{cc}");
    assert!(dev.attribute(DeviceAttribute::MaxThreadsPerBlock).unwrap() >= 512);
    assert!(dev.attribute(DeviceAttribute::MultiprocessorCount).unwrap() > 0);
    // Every attribute either answers or is refused as unknown to this driver, never a panic.
    let (mut answered, mut refused) = (0, 0);
    for &attribute in DeviceAttribute::ALL {
        match dev.attribute(attribute) {
            Ok(_) => answered += 1,
            Err(e) => {
                assert_eq!(
                    e.kind(),
                    ErrorKind::InvalidValue,
                    "{}: {e}",
                    attribute.name()
                );
                refused += 1;
            }
        }
    }
    println!(
        "{name} ({bus}, compute {cc}): {answered} attributes answered, {refused} unknown to driver {version}"
    );
    assert!(answered >= 100, "{answered} answered");
}
