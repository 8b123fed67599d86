//! The thread column of `docs/safety-calls.md` (the restricted profile, call by call), held at
//! compile time: every type of the profile's listing (`docs/safety-api.txt`) is asserted here
//! to be `Send + Sync` or neither, exactly as its row says, and the test fails when the listing
//! has a type this file does not assert or the row says otherwise. (`tests/evidence.rs` checks
//! that the table has one row per item of the listing; this file, what the thread column says.)
//!
//! Needs no GPU: the assertions are compile-time, the test reads the two files.

use custack::safety::{
    BatchCopies, Budget, CompareOn, InitPhase, KnownAnswer, OnMismatch, OnOverrun, PinnedHost,
    PinnedHostMut, Profile, RedundantKernel, Replicas, ReplicasCompare, Resource, RestrictedBatch,
    RestrictedBuffer, RestrictedContext, RestrictedEvent, RestrictedGraph, RestrictedGraphBuilder,
    RestrictedGuard, RestrictedKernel, RestrictedKernelUpdater, RestrictedModule, RestrictedScope,
    RestrictedStream, RunPhase, WaitBound,
};
use std::path::PathBuf;

custack::kernel_contract! {
    /// A contract only for naming `RestrictedKernel<'_, Probe>` (no kernel is loaded).
    unsafe kernel Probe = "probe"(out: &mut [u32; n], n: u32);
}

/// `(name, Send + Sync)`: `true` for both, `false` for neither, each asserted at compile time.
macro_rules! threads {
    ($($name:ident: $ty:ty => $both:tt),* $(,)?) => {
        $(threads!(@assert $ty, $both);)*
        const THREADS: &[(&str, bool)] = &[$((stringify!($name), $both)),*];
    };
    (@assert $ty:ty, true) => {
        static_assertions::assert_impl_all!($ty: Send, Sync);
    };
    (@assert $ty:ty, false) => {
        static_assertions::assert_not_impl_any!($ty: Send);
        static_assertions::assert_not_impl_any!($ty: Sync);
    };
}

threads! {
    Profile: Profile => true,
    Budget: Budget => true,
    Resource: Resource => true,
    WaitBound: WaitBound => true,
    OnOverrun: OnOverrun => true,
    RestrictedContext: RestrictedContext => true,
    RestrictedGuard: RestrictedGuard<'static, 'static> => false,
    InitPhase: InitPhase<'static> => false,
    RunPhase: RunPhase<'static> => false,
    RestrictedStream: RestrictedStream<'static> => false,
    RestrictedEvent: RestrictedEvent<'static> => false,
    RestrictedBuffer: RestrictedBuffer<'static, u32> => false,
    RestrictedModule: RestrictedModule<'static> => false,
    RestrictedKernel: RestrictedKernel<'static, Probe> => false,
    RestrictedGraph: RestrictedGraph<'static, RestrictedBuffer<'static, u32>> => false,
    RestrictedScope: RestrictedScope<'static, 'static> => false,
    RestrictedGraphBuilder: RestrictedGraphBuilder<'static, 'static> => false,
    RestrictedKernelUpdater: RestrictedKernelUpdater<'static> => false,
    PinnedHost: PinnedHost<'static, u32> => false,
    PinnedHostMut: PinnedHostMut<'static, u32> => false,
    BatchCopies: BatchCopies<'static> => false,
    RestrictedBatch: RestrictedBatch<'static, 'static, 4> => false,
    Replicas: Replicas => true,
    KnownAnswer: KnownAnswer => true,
    OnMismatch: OnMismatch => true,
    CompareOn: CompareOn => true,
    ReplicasCompare: ReplicasCompare => true,
    RedundantKernel: RedundantKernel<'static, 'static, Probe, u32> => false,
}

fn root() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if root.join("docs/safety-calls.md").is_file() {
        Some(root)
    } else {
        eprintln!("safety_manual: no docs/ (a carried test binary): nothing checked");
        None
    }
}

#[test]
fn the_thread_column_says_what_the_compiler_asserts() {
    let Some(root) = root() else { return };
    let read = |f: &str| std::fs::read_to_string(root.join(f)).expect(f);
    let listing = read("docs/safety-api.txt");
    let calls = read("docs/safety-calls.md");
    let types: std::collections::BTreeSet<&str> = listing
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(": ").map(|(name, _)| name))
        .filter(|name| !name.contains("::"))
        .collect();
    let asserted: std::collections::BTreeSet<&str> = THREADS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        types, asserted,
        "the types of docs/safety-api.txt and those this file asserts differ: assert each one"
    );
    let mut problems = Vec::new();
    for (name, both) in THREADS {
        let start = format!("| `{name}` |");
        let Some(row) = calls.lines().find(|l| l.starts_with(&start)) else {
            problems.push(format!("`{name}` has no row in docs/safety-calls.md"));
            continue;
        };
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let threads = cells.get(5).copied().unwrap_or_default();
        let says_both = threads.starts_with("`Send` + `Sync`");
        let says_neither = threads.starts_with("neither `Send` nor `Sync`");
        if (*both && !says_both) || (!*both && !says_neither) {
            problems.push(format!(
                "`{name}`: the row says \"{threads}\", the compiler: {}",
                if *both {
                    "`Send` + `Sync`"
                } else {
                    "neither `Send` nor `Sync`"
                }
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
