//! The program `dnn_matmul` (C36, R34): cuDNN's batched matmul (`MatmulPlan`, the graph API)
//! attacked route by route on cuDNN's stand-in (`checkdriver/standins/cudnn`), which lists one
//! engine and answers a workspace of 64 bytes, so a plan is made, and whose execution checks the
//! handle, the execution plan and the variant pack, each live, then refuses to compute
//! (`CUDNN_STATUS_NOT_SUPPORTED`, which the program expects of every run). The double checks
//! every handle and descriptor: made once, used only while live, destroyed once and not while
//! the plan's runs may still run, and nothing leaked at exit.
//!
//! - parked: a plan outlives the buffers bound to its run, the scope they were bound in, the
//!   stream, and a convolution plan of the same guard, then runs again on new buffers;
//! - moved: the plan runs from a `Box`, a `Vec`, an `Rc` and a struct, and is dropped there;
//! - relaunched: one plan runs eight times, alternating two streams, interleaved with a
//!   convolution plan's runs, twice in one scope and in nested scopes of two streams;
//! - a second thread: while this thread's plan is alive, another thread makes a plan of its own
//!   guard (another stack, another context) and runs it;
//! - destroyed: `MatmulPlan::destroy` makes exactly the calls a drop makes (the drop that ends
//!   `destroy` makes none: before, it waited again after the handle was destroyed, and recorded
//!   a failed wait a second time after `destroy` had returned it).
//!
//! The schedules of `scripts/check-driver.sh` then fail each call in turn, once (fail-at), for
//! ever (repeat-at, the same error every time), or as a sticky fault (sticky-at, the poison of
//! R20): each must end in a typed error or the safe state, nothing freed twice, used after
//! destruction, or leaked beyond what a failed wait leaves behind on purpose.

use crate::double::counting;
use custack::dnn::{Conv2d, Matmul, MatmulPlan};
use custack::{
    Context, ContextFlags, DeviceBuffer, Driver, ErrorKind, PushedGuard, Result, Stack, Stream,
};
use std::rc::Rc;

/// A run's answer: the stand-in's refusal is expected; any other error (a failed call of a
/// schedule) is the program's, returned.
fn refused(r: Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == ErrorKind::CudnnNotSupported => Ok(()),
        Err(e) => Err(e),
        Ok(()) => panic!("dnn_matmul: the stand-in computed a matmul"),
    }
}

/// The first error recorded at a drop so far (on this thread), as the program's: a scheduled
/// failure of a destroy or free must reach it.
fn no_drop_errors() -> Result<()> {
    custack::take_drop_errors()
        .into_iter()
        .next()
        .map_or(Ok(()), Err)
}

/// Runs `$plan` in a scope of `$stream` on `$a`, `$b` and `$c` (the stand-in's refusal expected).
macro_rules! run {
    ($plan:expr, $stream:expr, $a:expr, $b:expr, $c:expr) => {
        refused($stream.scope(|s| $plan.run(s, s.bind(&$a), s.bind(&$b), s.bind_mut(&mut $c)))?)?
    };
}

/// A plan's owner of the caller's own (the "moved into a struct" route).
struct Owner<'g> {
    plan: MatmulPlan<'g>,
}

/// The routes of the file's opening, in its order.
#[allow(
    clippy::many_single_char_names,
    reason = "the matmul's own names: a, b, c"
)]
pub(crate) fn dnn_matmul() -> Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let mm = Matmul::new(2, 3, 5, 4);
    let buffers = |plan: &MatmulPlan<'_>| -> Result<_> {
        Ok((
            guard.alloc_zeroed::<f32>(plan.a_len())?,
            guard.alloc_zeroed::<f32>(plan.b_len())?,
            guard.alloc_zeroed::<f32>(plan.c_len())?,
        ))
    };

    // Parked: the buffers, their scope, the stream and a convolution plan of the guard go first.
    let plan = guard.matmul_plan(&mm)?;
    assert_eq!(plan.workspace_bytes(), 64, "dnn_matmul: the stand-in's workspace");
    {
        let stream = guard.stream()?;
        let conv = guard.conv_plan(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]))?;
        let (a, b, mut c) = buffers(&plan)?;
        run!(plan, stream, a, b, c);
        drop((a, b, c));
        drop(conv);
        drop(stream);
    }
    let stream = guard.stream()?;
    let (a, b, mut c) = buffers(&plan)?;
    run!(plan, stream, a, b, c);

    // Moved: into a Box, a Vec, an Rc, a struct, running from each.
    let boxed = Box::new(plan);
    run!(boxed, stream, a, b, c);
    let mut owners = vec![*boxed];
    run!(owners[0], stream, a, b, c);
    let shared = Rc::new(owners.remove(0));
    let again = Rc::clone(&shared);
    run!(again, stream, a, b, c);
    drop(shared);
    let owner = Owner {
        plan: Rc::into_inner(again).expect("dnn_matmul: the last Rc"),
    };
    run!(owner.plan, stream, a, b, c);
    drop(owner);

    let plan = guard.matmul_plan(&mm)?;
    let other = guard.stream()?;
    relaunched(&guard, &plan, [&stream, &other], (&a, &b, &mut c))?;

    // A second thread: a plan of its own guard, while this thread's is alive.
    std::thread::scope(|t| {
        t.spawn(|| another_threads_plan(&mm))
            .join()
            .expect("dnn_matmul: the second thread panicked")
    })?;
    run!(plan, other, a, b, c);

    // Destroyed: exactly the calls of a drop (after the same runs), none more.
    no_drop_errors()?;
    let ((), by_drop) = counting("cu", || {
        drop(plan);
        no_drop_errors()
    })?;
    let plan = guard.matmul_plan(&mm)?;
    run!(plan, stream, a, b, c);
    run!(plan, other, a, b, c);
    no_drop_errors()?;
    let (destroyed, by_destroy) = counting("cu", || Ok(plan.destroy()))?;
    destroyed?;
    no_drop_errors()?;
    assert_eq!(
        by_destroy, by_drop,
        "dnn_matmul: MatmulPlan::destroy made {by_destroy} calls, a drop {by_drop}"
    );
    Ok(())
}

/// Relaunched: eight runs of `plan` alternating two streams, a convolution plan's run after each,
/// two runs in one scope, and nested scopes of two streams.
#[allow(
    clippy::many_single_char_names,
    reason = "the matmul's own names: a, b, c, d"
)]
fn relaunched(
    guard: &PushedGuard<'_, '_>,
    plan: &MatmulPlan<'_>,
    [stream, other]: [&Stream<'_>; 2],
    (a, b, c): (&DeviceBuffer<'_, f32>, &DeviceBuffer<'_, f32>, &mut DeviceBuffer<'_, f32>),
) -> Result<()> {
    let conv = guard.conv_plan(&Conv2d::new([1, 1, 3, 3], [1, 3, 3]))?;
    let x = guard.alloc_zeroed::<f32>(conv.input_len())?;
    let w = guard.alloc_zeroed::<f32>(conv.filter_len())?;
    let bias = guard.alloc_zeroed::<f32>(conv.bias_len())?;
    let mut y = guard.alloc_zeroed::<f32>(conv.output_len())?;
    for i in 0..8 {
        let on = if i % 2 == 0 { stream } else { other };
        refused(on.scope(|s| plan.run(s, s.bind(a), s.bind(b), s.bind_mut(c)))?)?;
        refused(on.scope(|s| {
            conv.run(s, s.bind(&x), s.bind(&w), s.bind(&bias), s.bind_mut(&mut y))
        })?)?;
    }
    let mut d = guard.alloc_zeroed::<f32>(plan.c_len())?;
    refused(stream.scope(|s| {
        refused(plan.run(s, s.bind(a), s.bind(b), s.bind_mut(c)))?;
        plan.run(s, s.bind(a), s.bind(b), s.bind_mut(&mut d))
    })?)?;
    refused(stream.scope(|o| {
        refused(plan.run(o, o.bind(a), o.bind(b), o.bind_mut(c)))?;
        other.scope(|i| plan.run(i, i.bind(a), i.bind(b), i.bind_mut(&mut d)))?
    })?)?;
    drop(conv);

    Ok(())
}

/// A plan of another thread's own context, stack and guard, run once and dropped; that thread's
/// drop errors (recorded per thread) are its result.
#[allow(
    clippy::many_single_char_names,
    reason = "the matmul's own names: a, b, c"
)]
fn another_threads_plan(mm: &Matmul) -> Result<()> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let plan = guard.matmul_plan(mm)?;
    let (a, b) = (
        guard.alloc_zeroed::<f32>(plan.a_len())?,
        guard.alloc_zeroed::<f32>(plan.b_len())?,
    );
    let mut c = guard.alloc_zeroed::<f32>(plan.c_len())?;
    run!(plan, guard.stream()?, a, b, c);
    drop(plan);
    drop((a, b, c));
    drop(guard);
    drop(stack);
    drop(ctx);
    no_drop_errors()
}
