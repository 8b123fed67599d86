//! C26 CUDA SAFETY 1.1 (no callbacks) through the facade: a `Submission` (whose future a
//! stream callback wakes) cannot be named by a program that depends on custack-safety alone,
//! and a `RestrictedStream` has no `submit`.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
use custack_safety::{Submission, SubmissionFuture}; //~ ERROR E0432

fn wait(_submission: Submission<'_, ()>, _future: SubmissionFuture<'_, ()>) {}

fn main() {
    let _ = wait;
}
