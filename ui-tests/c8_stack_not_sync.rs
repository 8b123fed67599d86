//! C8 one stack per thread: the per-thread `Stack` token cannot be shared with another thread.
//! Positive twin: `p4_shared_context` in `tests/patterns.rs`, and `a_stack_per_thread` there.
use custack::Stack;

fn main() -> Result<(), custack::Error> {
    let stack = Stack::new()?;
    let shared = &stack;
    std::thread::scope(|s| {
        s.spawn(move || println!("{shared:?}")); //~ ERROR E0277
    });
    Ok(())
}
