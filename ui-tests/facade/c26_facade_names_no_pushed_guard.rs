//! C26 through the facade: the full guard (`PushedGuard`, whose API is everything outside the
//! subset) and `StackTop`'s `with_pushed` cannot be named by a program that depends on
//! custack-safety alone; its only push is `RestrictedContext::push`.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
use custack_safety::{PushedGuard, StackTop}; //~ ERROR E0432

fn stream_of(guard: &PushedGuard<'_, '_>) {
    let _ = guard;
}

fn main() {
    let _ = stream_of;
}
