//! The looked-up entry points on a device (driver 580 on the GPU machine): kernel parameter
//! layouts, and context-wide event record and wait.
mod common;
use common::{KERNELS, context};
use custack::prelude::*;
use custack::{EventFlags, LaunchConfig, Stack, newer_entry_points};

const N: u32 = 1 << 20;

/// Fifty `add_u32(buf, 1)` launches on `stream`, owning `buf`.
fn launches<'s, 'g>(
    stream: &'s custack::Stream<'_>,
    buf: custack::DeviceBuffer<'g, u32>,
    add: custack::Function<'g>,
) -> custack::Submission<'s, (custack::DeviceBuffer<'g, u32>, custack::Function<'g>)> {
    stream
        .submit((buf, add), |s, (mut buf, add)| {
            for _ in 0..50 {
                // SAFETY: add_u32 over `buf`'s n elements.
                unsafe { s.launch(&add, LaunchConfig::for_elements(N), (&mut buf, 1u32, N)) }?;
            }
            Ok(())
        })
        .unwrap()
}

#[test]
#[ignore = "needs a CUDA device"]
fn looked_up_entry_points_work_on_a_new_driver() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let driver = custack::driver_version().unwrap();
    for e in newer_entry_points() {
        if e.needs <= driver {
            assert!(
                e.available.is_ok(),
                "{} (CUDA {}): {:?}",
                e.name,
                e.needs,
                e.available
            );
        } else {
            // cuFuncGetParamCount is CUDA 13.2: newer than driver 580 (13.0).
            let err = e.available.unwrap_err();
            assert_eq!(
                err.kind(),
                custack::ErrorKind::DriverTooOld,
                "{}: {err}",
                e.name
            );
        }
    }
    let module = guard.load_ptx(KERNELS).unwrap();
    // add_u32(unsigned* x, unsigned k, unsigned n); vector_add(const float*, const float*,
    // float*, unsigned); empty().
    let add = module.function("add_u32").unwrap();
    assert_eq!(add.param_layout().unwrap(), [(0, 8), (8, 4), (12, 4)]);
    let vadd = module.function("vector_add").unwrap();
    assert_eq!(
        vadd.param_layout().unwrap(),
        [(0, 8), (8, 8), (16, 8), (24, 4)]
    );
    assert_eq!(
        module.function("empty").unwrap().param_layout().unwrap(),
        []
    );

    // Work on two streams, then one event recorded after all of the context's work.
    let (a, b) = (guard.stream().unwrap(), guard.stream().unwrap());
    let x = guard.alloc_zeroed::<u32>(N as usize).unwrap();
    let y = guard.alloc_zeroed::<u32>(N as usize).unwrap();
    let (pa, pb) = (launches(&a, x, add), launches(&b, y, add));
    let all = guard.event(EventFlags::DISABLE_TIMING).unwrap();
    guard.record_event(&all).unwrap();
    all.synchronize().unwrap();
    assert!(pa.is_complete().unwrap() && pb.is_complete().unwrap());
    let ((x, _), (y, _)) = (pa.wait().unwrap(), pb.wait().unwrap());
    assert_eq!((x.to_vec().unwrap()[0], y.to_vec().unwrap()[0]), (50, 50));
    // Everything enqueued after a context-wide wait waits for the event.
    let marker = guard.event(EventFlags::DISABLE_TIMING).unwrap();
    a.record(&marker).unwrap();
    guard.wait_event(&marker).unwrap();
    guard.synchronize().unwrap();
}
