//! The program `p3` (P3, C3, C4): a nested push: A's buffer and module parked while B is pushed
//! over it, B's work, then A's parked values attached again and used; after each nested push
//! (B's work, a parked value of B released under B, A pushed over A's own guard), A's context
//! on top again whatever the push answered (a failed pop included).

use crate::common::{KERNELS, N, add_on_device};
use custack::{Context, DeviceMemory, Result, Stack, StackTop};

pub(crate) fn p3_nested_push(a: &Context, b: &Context) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut stack = Stack::new()?;
    let mut guard_a = stack.push(a)?;
    let buffer_a = guard_a.alloc_from(&vec![1u32; N])?;
    let module_a = guard_a.load_ptx(KERNELS)?;
    let parked_buffer = guard_a.park(buffer_a);
    let parked_module = guard_a.park_module(module_a);

    let from_b = guard_a.with_pushed(b, |guard_b| -> Result<Vec<u32>> {
        let module_b = guard_b.load_ptx(KERNELS)?;
        let mut buffer_b = guard_b.alloc_from(&vec![10u32; N])?;
        add_on_device(guard_b, &module_b, &mut buffer_b, 5)?;
        buffer_b.to_vec()
    });
    // C4 at run time: whatever `with_pushed` answered (its pop failed included), A is on top
    // again before `guard_a` is usable, or the process has ended in the safe state.
    a_on_top(&guard_a, "B's work", from_b.as_ref().err())?;
    let from_b = from_b??;
    // A parked value of B released under B's own nested guard (its context current already),
    // and a nested push of A over A's own guard: each with its pops failed in turn, A on top
    // again after it.
    let released = guard_a.with_pushed(b, |guard_b| -> Result<()> {
        drop(guard_b.park(guard_b.alloc_from(&[7u32; 4])?)); // its failure: a drop error
        Ok(())
    });
    a_on_top(&guard_a, "a release of B's under B", released.as_ref().err())?;
    released??;
    let same = guard_a.with_pushed(a, |again| again.memory_info());
    a_on_top(&guard_a, "a nested push of A over A", same.as_ref().err())?;
    same??;

    guard_a.synchronize()?; // A is on top again
    let mut buffer_a = guard_a.attach(parked_buffer)?;
    let module_a = guard_a.attach_module(parked_module)?;
    add_on_device(&guard_a, &module_a, &mut buffer_a, 2)?;
    Ok((buffer_a.to_vec()?, from_b))
}

/// Panics (a failed run) unless `guard`'s context is on top of this thread's stack.
fn a_on_top(
    guard: &custack::PushedGuard<'_, '_>,
    after: &str,
    answered: Option<&custack::Error>,
) -> Result<()> {
    let mut current = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let code = unsafe { custack::ffi::cuCtxGetCurrent(&raw mut current) };
    if code != custack::ffi::CUresult::CUDA_SUCCESS {
        return Err(custack::Error::from_raw(code));
    }
    assert_eq!(
        current,
        guard.as_raw(),
        "after {after} ({answered:?}), another context is on top of guard A"
    );
    Ok(())
}
