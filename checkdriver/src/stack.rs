//! The calling thread's context stack, kept as the driver keeps it (wrappers check what they
//! pop).

use crate::api::types::{CUDA_ERROR_OUT_OF_MEMORY, CUDA_SUCCESS, CUresult, Handle};
use crate::{check, mode};
use core::cell::RefCell;
use core::ptr::null_mut;
use core::sync::atomic::Ordering::Relaxed;

const STACK_DEPTH: usize = 64;

pub(crate) struct CtxStack {
    // Handles, not addresses: a popped context comes back with the provenance it was pushed
    // with (the primary context is a real pointer to a static).
    pub(crate) items: [Handle; STACK_DEPTH],
    pub(crate) len: usize,
}

thread_local! {
    static STACK: RefCell<CtxStack> = const {
        RefCell::new(CtxStack { items: [null_mut(); STACK_DEPTH], len: 0 })
    };
}

pub(crate) fn with_stack<R>(f: impl FnOnce(&mut CtxStack) -> R) -> R {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        let r = f(&mut s);
        if mode::CHECK.load(Relaxed) {
            let addrs: Vec<usize> = s.items[..s.len].iter().map(|h| h.addr()).collect();
            check::stack_changed(&addrs);
        }
        r
    })
}

impl CtxStack {
    pub(crate) fn push(&mut self, ctx: Handle) -> CUresult {
        if self.len == STACK_DEPTH {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        self.items[self.len] = ctx;
        self.len += 1;
        CUDA_SUCCESS
    }
    pub(crate) fn pop(&mut self) -> Option<Handle> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.items[self.len])
    }
    pub(crate) fn top(&self) -> Handle {
        if self.len == 0 {
            null_mut()
        } else {
            self.items[self.len - 1]
        }
    }
}
