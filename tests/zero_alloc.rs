//! Zero cost: no push, pop, launch or copy allocates on the heap. A counting global allocator
//! counts this thread's allocations while the hot loops run (GPU machine).
#![allow(
    clippy::many_single_char_names,
    clippy::items_after_statements,
    clippy::cast_precision_loss
)]
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[test]
#[ignore = "needs a CUDA device"]
fn hot_paths_do_not_allocate() {
    let device = Driver::init().unwrap().device(0).unwrap();
    let a = Context::new(device, ContextFlags::empty()).unwrap();
    let b = Context::new(device, ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();

    // Push and pop, top-level and nested.
    let before = allocations();
    for _ in 0..1000 {
        let mut g = stack.push(&a).unwrap();
        g.with_pushed(&b, |gb| gb.as_raw()).unwrap();
        drop(g);
    }
    assert_eq!(allocations() - before, 0, "push/pop allocated");

    let guard = stack.push(&a).unwrap();
    let module = guard
        .load_ptx(include_str!("fixtures/kernels.ptx"))
        .unwrap();
    let add = module.function("add_u32").unwrap();
    let stream = guard.stream().unwrap();
    let event = guard.event(custack::EventFlags::empty()).unwrap();
    let mut host = guard.alloc_pinned::<u32>(1024).unwrap();
    let mut dev = guard.alloc::<u32>(1024).unwrap();
    let mut plain_host = vec![0u32; 1024];

    let before = allocations();
    for _ in 0..100 {
        stream
            .scope(|s| {
                let (mut d, h) = (s.bind_mut(&mut dev), s.bind_host_mut(&mut host));
                s.copy_to_device(&mut d, h).unwrap();
                // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) touches x[0..n).
                unsafe {
                    s.launch(
                        &add,
                        LaunchConfig::for_elements(1024),
                        (&mut d, 1u32, 1024u32),
                    )
                    .unwrap();
                };
                s.record(&event).unwrap();
                s.copy_to_host(h, &d).unwrap();
            })
            .unwrap();
        dev.copy_from_host(&plain_host).unwrap();
        dev.copy_to_host(&mut plain_host).unwrap();
        event.synchronize().unwrap();
    }
    assert_eq!(allocations() - before, 0, "launch/copy/scope allocated");
    assert!(
        host.iter().all(|&x| x == 100),
        "the kernel ran 100 times on the pinned round trip"
    );
}
