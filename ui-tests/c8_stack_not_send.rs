//! C8 one stack per thread: the per-thread `Stack` token cannot be sent to another thread.
//! Positive twin: `p4_shared_context` in `tests/patterns.rs` (each thread takes its own
//! `Stack`), and `a_stack_per_thread` there.
use custack::Stack;

fn main() -> Result<(), custack::Error> {
    let stack = Stack::new()?;
    std::thread::scope(|s| {
        s.spawn(move || drop(stack)); //~ ERROR E0277
    });
    Ok(())
}
