//! The atomics of the process-wide states, behind one trait: the confinement's latch
//! (`confinement.rs`), the process's count of restricted contexts and a budget's counters
//! (`safety/profile.rs`), the poison's record (`poison.rs`) and the safe state's entry
//! (`safe_state.rs`). Each state is a small type generic over its atomic, `core`'s by default,
//! so that the model checker `loom` drives the very code the crate runs, with its own atomics,
//! under every interleaving of two or three threads (the `model` tests of each module, built
//! with `RUSTFLAGS="--cfg loom"`: `scripts/loom.sh`). In every other build the default type
//! parameter is the only one: the trait is zero-cost, and nothing of `loom` is compiled.
//!
//! The fork flag (`fork.rs`) is not among them: it is stored in a forked child by the
//! `pthread_atfork` handler before any code of the child runs, when the child has one thread,
//! so no interleaving exists to check.
//!
//! A leaf of `error/`.

use core::sync::atomic::Ordering;

/// An atomic cell of a process-wide state: the operations the states use, forwarded to
/// `core::sync::atomic`'s types (or, in the model tests, `loom`'s).
pub(crate) trait Atomic {
    /// What the cell holds.
    type Value: Copy + PartialEq;
    /// A new cell holding `value` (the model tests' constructor; the crate's statics use the
    /// `const` constructors of `core`'s types).
    #[cfg_attr(not(all(test, loom)), allow(dead_code))]
    fn make(value: Self::Value) -> Self;
    /// `load`.
    fn load(&self, order: Ordering) -> Self::Value;
    /// `compare_exchange`.
    fn compare_exchange(
        &self,
        current: Self::Value,
        new: Self::Value,
        success: Ordering,
        failure: Ordering,
    ) -> Result<Self::Value, Self::Value>;
    /// `compare_exchange_weak`.
    fn compare_exchange_weak(
        &self,
        current: Self::Value,
        new: Self::Value,
        success: Ordering,
        failure: Ordering,
    ) -> Result<Self::Value, Self::Value>;
}

/// `Atomic` for atomic types of plain values, by forwarding.
macro_rules! forward {
    ($($atomic:ty => $value:ty),* $(,)?) => {$(
        impl Atomic for $atomic {
            type Value = $value;
            #[inline]
            fn make(value: $value) -> Self {
                <$atomic>::new(value)
            }
            #[inline]
            fn load(&self, order: Ordering) -> $value {
                <$atomic>::load(self, order)
            }
            #[inline]
            fn compare_exchange(
                &self,
                current: $value,
                new: $value,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$value, $value> {
                <$atomic>::compare_exchange(self, current, new, success, failure)
            }
            #[inline]
            fn compare_exchange_weak(
                &self,
                current: $value,
                new: $value,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$value, $value> {
                <$atomic>::compare_exchange_weak(self, current, new, success, failure)
            }
        }
    )*};
}

forward!(
    core::sync::atomic::AtomicBool => bool,
    core::sync::atomic::AtomicU8 => u8,
    core::sync::atomic::AtomicUsize => usize,
);

// `loom`'s atomics, for the model tests only (`--cfg loom`, a dev-dependency: tests only).
#[cfg(all(test, loom))]
forward!(
    loom::sync::atomic::AtomicBool => bool,
    loom::sync::atomic::AtomicU8 => u8,
    loom::sync::atomic::AtomicUsize => usize,
);

/// `Atomic` for atomic pointer types, by forwarding.
macro_rules! forward_ptr {
    ($($atomic:ident),* $(,)?) => {$(
        impl<T> Atomic for $atomic<T> {
            type Value = *mut T;
            #[inline]
            fn make(value: *mut T) -> Self {
                $atomic::new(value)
            }
            #[inline]
            fn load(&self, order: Ordering) -> *mut T {
                $atomic::load(self, order)
            }
            #[inline]
            fn compare_exchange(
                &self,
                current: *mut T,
                new: *mut T,
                success: Ordering,
                failure: Ordering,
            ) -> Result<*mut T, *mut T> {
                $atomic::compare_exchange(self, current, new, success, failure)
            }
            #[inline]
            fn compare_exchange_weak(
                &self,
                current: *mut T,
                new: *mut T,
                success: Ordering,
                failure: Ordering,
            ) -> Result<*mut T, *mut T> {
                $atomic::compare_exchange_weak(self, current, new, success, failure)
            }
        }
    )*};
}

use core::sync::atomic::AtomicPtr;
forward_ptr!(AtomicPtr);

#[cfg(all(test, loom))]
mod loom_ptr {
    use super::Atomic;
    use core::sync::atomic::Ordering;
    use loom::sync::atomic::AtomicPtr;
    forward_ptr!(AtomicPtr);
}

/// Subtracts `n` from `cell`, atomically (a compare-exchange loop: the trait has no
/// `fetch_sub`, which `loom` and `core` spell alike but this crate needs in one place only).
/// Never below zero: a cell holding less than `n` is left at zero.
pub(crate) fn subtract<A: Atomic<Value = usize>>(cell: &A, n: usize, order: Ordering) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let less = current.saturating_sub(n);
        match cell.compare_exchange_weak(current, less, order, Ordering::Relaxed) {
            Ok(_) => return,
            Err(now) => current = now,
        }
    }
}
