//! Whether this thread runs a program's code that the double called as the driver would call
//! it: a host function, a stream callback, a user object's destructor. The driver forbids CUDA
//! calls there, so `check.rs` counts every entry point called meanwhile as a violation. A leaf,
//! so that the places that run such code (`work.rs`, `user_object.rs`, the stream calls) and the
//! check reach the mark without a circle.

use core::cell::Cell;

thread_local! {
    /// Set while this thread runs code the double called as the driver would ([`in_callback`]).
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside such code (`false` while its locals are torn down).
pub(crate) fn inside() -> bool {
    IN_CALLBACK.try_with(Cell::get).unwrap_or(false)
}

/// Runs `f`, a program's code the double calls as the driver would call it (a host function, a
/// stream callback, a user object's destructor): every entry point it calls is a violation.
pub(crate) fn in_callback<R>(f: impl FnOnce() -> R) -> R {
    /// Puts the mark back, also on unwind.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = IN_CALLBACK.try_with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(IN_CALLBACK.try_with(|c| c.replace(true)).unwrap_or(false));
    f()
}
