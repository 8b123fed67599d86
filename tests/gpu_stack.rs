//! The context stack on a real device: floating contexts, guards, R3 and R9.
#![allow(
    clippy::many_single_char_names,
    clippy::items_after_statements,
    clippy::cast_precision_loss
)]
mod common;
use common::{context, current_raw, device};
use custack::prelude::*;
use custack::{Context, ContextFlags, ErrorKind, Stack, ffi, take_drop_errors};

#[test]
#[ignore = "needs a CUDA device"]
fn created_context_floats_and_guard_pushes_and_pops() {
    let ctx = context();
    assert!(
        current_raw().is_null(),
        "Context::new must pop the new context"
    );
    let mut stack = Stack::new().unwrap();
    {
        let guard = stack.push(&ctx).unwrap();
        assert_eq!(current_raw(), ctx.as_raw());
        assert_eq!(guard.as_raw(), ctx.as_raw());
        assert_eq!(guard.device().unwrap(), device());
        assert!(guard.api_version().unwrap().major >= 3);
        assert_ne!(guard.unique_id().unwrap(), 0);
        let (least, greatest) = guard.stream_priority_range().unwrap();
        assert!(greatest <= least);
        let _ = guard.flags().unwrap();
        let _ = guard.cache_config().unwrap();
        let stack_size = guard.limit(custack::Limit::StackSize).unwrap();
        guard
            .set_limit(custack::Limit::StackSize, stack_size + 1024)
            .unwrap();
        assert!(guard.limit(custack::Limit::StackSize).unwrap() >= stack_size + 1024);
        guard.synchronize().unwrap();
    }
    assert!(current_raw().is_null(), "dropping the guard must pop");
    let guard = stack.push(&ctx).unwrap();
    guard.pop().unwrap();
    assert!(current_raw().is_null());
    ctx.destroy().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn nested_push_restores_outer() {
    let (a, b) = (context(), context());
    let mut stack = Stack::new().unwrap();
    let mut ga = stack.push(&a).unwrap();
    let inner = ga
        .with_pushed(&b, |gb| {
            assert_eq!(current_raw(), b.as_raw());
            gb.alloc_from(&[1u32, 2, 3]).unwrap().to_vec().unwrap()
        })
        .unwrap();
    assert_eq!(inner, [1, 2, 3]);
    assert_eq!(current_raw(), a.as_raw());
    drop(ga);
    assert!(current_raw().is_null());
}

#[test]
#[ignore = "needs a CUDA device"]
fn nested_push_pops_when_closure_panics() {
    let (a, b) = (context(), context());
    let mut stack = Stack::new().unwrap();
    let mut ga = stack.push(&a).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = ga.with_pushed(&b, |_| panic!("boom"));
    }));
    assert!(caught.is_err());
    assert_eq!(
        current_raw(),
        a.as_raw(),
        "the inner context must be popped during unwinding"
    );
    assert!(take_drop_errors().is_empty());
}

/// R3: a guard pops only the context it pushed.
#[test]
#[ignore = "needs a CUDA device"]
fn r3_guard_does_not_pop_a_foreign_context() {
    let (a, foreign) = (context(), context());
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&a).unwrap();
    // Foreign code pushes its own context and does not pop it.
    // SAFETY: `foreign` is live for the whole test.
    let pushed = unsafe { ffi::cuCtxPushCurrent_v2(foreign.as_raw()) };
    assert_eq!(pushed, ffi::CUresult::CUDA_SUCCESS);
    let err = guard.pop().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ForeignContextOnTop);
    assert!(err.code().is_none());
    assert_eq!(
        current_raw(),
        foreign.as_raw(),
        "the foreign context must stay on top"
    );

    // The same through Drop: the error is recorded, not lost, and nothing is popped.
    let guard = stack.push(&a).unwrap();
    // SAFETY: as above.
    let pushed = unsafe { ffi::cuCtxPushCurrent_v2(foreign.as_raw()) };
    assert_eq!(pushed, ffi::CUresult::CUDA_SUCCESS);
    drop(guard);
    let recorded = take_drop_errors();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0].kind(), ErrorKind::ForeignContextOnTop);
    assert_eq!(current_raw(), foreign.as_raw());

    // Clean up what the "foreign code" left: foreign, a (left by the first pop), foreign, a.
    for expected in [foreign.as_raw(), a.as_raw(), foreign.as_raw(), a.as_raw()] {
        let mut popped = core::ptr::null_mut();
        // SAFETY: valid out-pointer.
        let r = unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) };
        assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
        assert_eq!(popped, expected);
    }
    assert!(current_raw().is_null());
}

/// R9: leaking a top-level guard leaves its context on the stack and nothing else.
#[test]
#[ignore = "needs a CUDA device"]
fn r9_leaked_guard_is_sound() {
    let (a, b) = (context(), context());
    let a_raw = a.as_raw();
    let mut stack = Stack::new().unwrap();
    let ga = stack.push(&a).unwrap();
    {
        let pinned = ga.alloc_pinned::<u8>(4096).unwrap();
        assert!(pinned.iter().all(|&x| x == 0));
    } // handles must be gone before the guard can be leaked: they borrow it
    std::mem::forget(ga);
    assert_eq!(
        current_raw(),
        a_raw,
        "a leaked guard leaves its context current"
    );
    {
        let gb = stack.push(&b).unwrap(); // the stack is free again; b goes on top of the leak
        assert_eq!(current_raw(), b.as_raw());
        let buf = gb.alloc_from(&[5u64, 6, 7]).unwrap();
        assert_eq!(buf.to_vec().unwrap(), [5, 6, 7]);
    }
    assert_eq!(
        current_raw(),
        a_raw,
        "b popped; the leaked a is still underneath"
    );
    // Destroying a context current on this thread pops it (Context Management, cuCtxDestroy).
    drop(a);
    assert!(take_drop_errors().is_empty());
    assert!(current_raw().is_null());
}

/// R9: an inner guard cannot be leaked: the closure only sees `&mut PushedGuard`, and
/// forgetting that reference leaves the pop to `with_pushed`.
#[test]
#[ignore = "needs a CUDA device"]
// Forgetting the reference is the point: it is all a closure can do to its guard.
#[allow(forgetting_references)]
fn r9_inner_guard_cannot_be_leaked() {
    let (a, b) = (context(), context());
    let mut stack = Stack::new().unwrap();
    let mut ga = stack.push(&a).unwrap();
    ga.with_pushed(&b, |gb| std::mem::forget(gb)).unwrap();
    assert_eq!(
        current_raw(),
        a.as_raw(),
        "b was popped although the closure 'forgot' its guard"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn primary_context_is_unique_resettable_and_flags_are_visible() {
    let dev = device();
    let mut primary = Context::primary(dev).unwrap();
    assert!(primary.is_primary());
    assert_eq!(
        Context::primary(dev).unwrap_err().kind(),
        ErrorKind::PrimaryContextInUse
    );
    let mut stack = Stack::new().unwrap();
    {
        let g = stack.push(&primary).unwrap();
        let buf = g.alloc_from(&[9u32; 8]).unwrap();
        assert_eq!(buf.to_vec().unwrap(), [9; 8]);
        let (_, active) = dev.primary_context_state().unwrap();
        assert!(active);
    }
    primary.reset().unwrap();
    {
        let g = stack.push(&primary).unwrap();
        let buf = g.alloc_from(&[3u32; 8]).unwrap();
        assert_eq!(
            buf.to_vec().unwrap(),
            [3; 8],
            "a reset primary context is usable again"
        );
    }
    drop(primary);
    let again = Context::primary(dev).unwrap(); // released on drop: can be retained again
    let created = Context::new(dev, ContextFlags::empty()).unwrap();
    let mut created = created;
    assert_eq!(created.reset().unwrap_err().kind(), ErrorKind::InvalidValue);
    drop(again);
}
