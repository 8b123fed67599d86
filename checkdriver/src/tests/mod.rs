//! The checking mode's own tests: one deliberately wrong raw call sequence per violation kind,
//! each of which must be reported, and the models of each group's calls (one file per topic).
//! The tests share the double's global record, so each runs alone (`serial`).
#![allow(
    clippy::multiple_unsafe_ops_per_block,
    clippy::many_single_char_names,
    clippy::too_many_lines,
    reason = "each test is one raw call sequence, a C program in Rust syntax: one unsafe block \
              under one contract (its SAFETY comment), C-style handle names, read top to bottom"
)]

mod batch;
mod batch_3d;
mod capture;
mod cubin;
mod entry_point;
mod event;
mod exec_nodes;
mod external;
mod graph;
mod green;
mod hang;
mod ipc;
mod library_handles;
mod lost;
mod measured;
mod memory;
mod module;
mod table;
mod tensor_map;
mod texture;
mod violations;
mod vmm;

use crate::api::types::*;
use crate::api::{
    CU_DEV_RESOURCE_TYPE_SM, CU_GREEN_CTX_DEFAULT_STREAM, CU_STREAM_NON_BLOCKING, SM_COUNT,
};
use crate::check::{self, Kind};
use crate::stack::with_stack;
use crate::*;
use core::ffi::{CStr, c_char, c_int, c_uint, c_ulonglong, c_void};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Runs `f` and returns how many orphans it recorded.
fn orphans_of(f: impl FnOnce()) -> usize {
    let before = check::orphan_count();
    f();
    check::orphan_count() - before
}

/// Runs `f` and returns how many violations it recorded.
fn violations_of(f: impl FnOnce()) -> usize {
    let before = mode::violation_count();
    f();
    mode::violation_count() - before
}

/// Runs `f`, which calls the double on this thread only, and returns how many violations this
/// thread recorded meanwhile: a violation another thread records at the same time (a worker of
/// the double's left by an earlier test, running a host function or a completion) is not `f`'s.
fn own_violations_of(f: impl FnOnce()) -> usize {
    let before = mode::violation_count();
    f();
    let prefix = format!("thread {}: ", mode::thread_id());
    mode::violations()
        .iter()
        .skip(before)
        .filter(|line| line.starts_with(&prefix))
        .count()
}

/// A new context, pushed on the calling thread.
fn ctx() -> Handle {
    let mut c = null_mut();
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { cuCtxCreate_v2(&raw mut c, 0, 0) }, CUDA_SUCCESS);
    c
}

/// The tests share the double's global record: one at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
