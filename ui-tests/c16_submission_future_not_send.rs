//! C16 pending owned work: a submission awaited as a future stays on its guard's thread: the
//! future is `!Send`, so no multi-threaded executor can move it elsewhere.
//! Positive twin: `a_submission_is_a_future_woken_by_the_driver` in `tests/gpu_submission.rs`.
use custack::{Context, ContextFlags, Driver, Stack};

fn assert_send<T: Send>(_: T) {}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let stream = guard.stream()?;
    let pending = stream.submit(vec![0u32; 4], |_s, _host| Ok(()))?;
    assert_send(std::future::IntoFuture::into_future(pending)); //~ ERROR E0277
    Ok(())
}
