//! Context creation parameters and context-wide settings on a device: SM-count execution
//! affinity (where the device supports it), shared memory configuration, the persisting L2
//! cache reset.
mod common;
use common::{context, device};
use custack::{Context, ContextFlags, DeviceAttribute, ErrorKind, Stack, ffi};

#[test]
#[ignore = "needs a CUDA device"]
fn affinity_shared_memory_and_l2_settings() {
    let device = device();
    let sms = device
        .attribute(DeviceAttribute::MultiprocessorCount)
        .unwrap() as u32;
    {
        let ctx = context();
        let mut stack = Stack::new().unwrap();
        let guard = stack.push(&ctx).unwrap();
        // A context made without an affinity may use every SM.
        assert_eq!(guard.sm_count_affinity().unwrap(), sms);
        let config = guard.shared_mem_config().unwrap();
        println!("shared memory config: {config:?}");
        guard
            .set_shared_mem_config(ffi::CUsharedconfig::CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE)
            .unwrap();
        guard.reset_persisting_l2_cache().unwrap();
    }
    let supported = device.supports_sm_count_affinity().unwrap();
    println!("SM-count execution affinity supported: {supported}");
    match Context::with_sm_count(device, ContextFlags::empty(), 8) {
        Ok(ctx) => {
            assert!(
                supported,
                "an affinity context was made where none is supported"
            );
            let mut stack = Stack::new().unwrap();
            let guard = stack.push(&ctx).unwrap();
            let got = guard.sm_count_affinity().unwrap();
            println!("asked for 8 SMs, got {got}");
            assert!((8..=sms).contains(&got), "{got}");
        }
        Err(e) => {
            println!("with_sm_count(8): {e}");
            assert!(!supported, "supported, yet: {e}");
            assert_ne!(e.kind(), ErrorKind::DriverTooOld, "{e}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_failed_call_carries_the_drivers_own_words() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let module = guard.load_ptx(common::KERNELS).unwrap();
    let empty = module.function("empty").unwrap();
    let stream = guard.stream().unwrap();
    let too_big = custack::LaunchConfig {
        grid: (1, 1, 1),
        block: (2048, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: `empty()` takes no parameters and touches nothing; the launch is refused anyway.
    let err = stream
        .scope(|s| unsafe { s.launch(&empty, too_big, ()) })
        .unwrap()
        .unwrap_err();
    println!("{err}");
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    if custack::driver_version().unwrap()
        >= (custack::Version {
            major: 12,
            minor: 9,
        })
    {
        let detail = err
            .detail()
            .expect("driver 12.9+ logs why the launch was refused");
        assert!(detail.starts_with("driver: "), "{detail}");
    }
    // A later, unrelated failure does not carry the earlier message.
    let err = guard.alloc::<u8>(0).map(drop).unwrap_err();
    assert!(!err.to_string().contains("2048"), "{err}");
}
