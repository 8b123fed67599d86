//! C26 only declared kernels launch under the profile, also through the facade: a raw launch
//! needs a `Function` and a `StreamScope` (whose `launch` takes untyped arguments), neither of
//! which a program that depends on custack-safety alone can name; it launches the
//! `RestrictedKernel`s of `kernel_contract!` declarations with `RestrictedScope::run`.
//! Positive twin: `custack-safety/tests/frame_compiles.rs` (example 22 through the facade).
use custack_safety::{Function, LaunchConfig, StreamScope}; //~ ERROR E0432

fn raw<'s>(s: &StreamScope<'s, '_>, f: &Function<'s>) {
    // SAFETY: never called; the names above do not resolve.
    let _ = unsafe { s.launch(f, LaunchConfig::for_elements(1), (1u32,)) };
}

fn main() {
    let _ = raw;
}
