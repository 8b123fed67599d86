//! Raw handles in and out: every `from_raw` constructor on handles made by raw driver calls (as
//! another library would make them), each `into_raw` round trip, and borrowed streams, including
//! the special default-stream handles. `examples/11_cublas.rs` and `examples/12_nccl.rs` hand
//! custack's handles to real libraries.
mod common;
use common::{KERNELS, context, current_raw, device};
use custack::{Context, DeviceMemory, DeviceMemoryMut, EventFlags, LaunchConfig, Stack, ffi};
use std::ffi::CString;

#[test]
#[ignore = "needs a CUDA device"]
fn handles_made_by_raw_calls_are_adopted_and_used() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();

    // A stream, an event, an allocation and a module made by raw calls, as a library would.
    let mut raw_stream = core::ptr::null_mut();
    // SAFETY: valid out-pointer; `ctx` is current.
    let r = unsafe { ffi::cuStreamCreate(&raw mut raw_stream, 0) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    let mut raw_event = core::ptr::null_mut();
    // SAFETY: valid out-pointer; `ctx` is current.
    let r = unsafe { ffi::cuEventCreate(&raw mut raw_event, 0) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    let mut ptr: ffi::CUdeviceptr = 0;
    // SAFETY: valid out-pointer; `ctx` is current.
    let r = unsafe { ffi::cuMemAlloc_v2(&raw mut ptr, 1000 * 4) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    let module = guard.load_ptx(KERNELS).unwrap();
    let raw_module = module.into_raw();

    // SAFETY: each handle was just made in `ctx`, the guard's context, and is handed over.
    let stream = unsafe { guard.stream_from_raw(raw_stream) };
    // SAFETY: as above.
    let event = unsafe { guard.event_from_raw(raw_event) };
    // SAFETY: a `cuMemAlloc` allocation of 1000 `u32`s in `ctx`, handed over.
    let mut buffer = unsafe { guard.buffer_from_raw::<u32>(ptr, 1000) };
    // SAFETY: a module loaded in `ctx`, handed back by `into_raw`.
    let module = unsafe { guard.module_from_raw(raw_module) };
    let name = CString::new("add_u32").unwrap();
    let mut raw_function = core::ptr::null_mut();
    // SAFETY: valid out-pointer, a live module, a NUL-terminated name.
    let r =
        unsafe { ffi::cuModuleGetFunction(&raw mut raw_function, module.as_raw(), name.as_ptr()) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    // SAFETY: a function of `module`, which stays loaded until after the guard's last use.
    let add = unsafe { guard.function_from_raw(raw_function) };

    buffer.fill_u32(5).unwrap();
    stream
        .scope(|s| {
            // SAFETY: `add_u32(unsigned* x, unsigned k, unsigned n)` adds `k` to `x[0..n)`; the
            // buffer holds 1000.
            unsafe {
                s.launch(
                    &add,
                    LaunchConfig::for_elements(1000),
                    (s.bind_mut(&mut buffer), 2u32, 1000u32),
                )
            }?;
            s.record(&event)
        })
        .unwrap()
        .unwrap();
    event.synchronize().unwrap();
    assert_eq!(buffer.to_vec().unwrap(), vec![7; 1000]);

    // Out again, and freed by raw calls.
    let (ptr, len) = buffer.into_raw();
    assert_eq!(len, 1000);
    // SAFETY: the allocation `into_raw` gave up, freed once.
    let r = unsafe { ffi::cuMemFree_v2(ptr) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    let raw_event = event.into_raw();
    // SAFETY: the event `into_raw` gave up, destroyed once.
    let r = unsafe { ffi::cuEventDestroy_v2(raw_event) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    let raw_stream = stream.into_raw();
    // SAFETY: the stream `into_raw` gave up, destroyed once.
    let r = unsafe { ffi::cuStreamDestroy_v2(raw_stream) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    drop(module);
    guard.pop().unwrap();
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn borrowed_streams_and_views_of_foreign_memory() {
    let ctx = context();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let owner = guard.stream().unwrap();
    let mut ptr: ffi::CUdeviceptr = 0;
    // SAFETY: valid out-pointer; `ctx` is current.
    let r = unsafe { ffi::cuMemAlloc_v2(&raw mut ptr, 256 * 4) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    {
        // SAFETY: 256 `u32`s of `ctx`, used by nothing else while the view lives.
        let mut foreign = unsafe { guard.view_mut_from_raw::<u32>(ptr, 256) };
        for (i, raw) in [
            core::ptr::null_mut(),
            ffi::CU_STREAM_LEGACY,
            ffi::CU_STREAM_PER_THREAD,
            owner.as_raw(),
        ]
        .into_iter()
        .enumerate()
        {
            // SAFETY: the default streams of the current context, and `owner`, which outlives
            // the borrow.
            let stream = unsafe { guard.borrow_stream_raw(raw) };
            let value = i as u32 + 1;
            stream
                .scope(|s| s.fill_u32(s.bind_mut(&mut foreign), value))
                .unwrap()
                .unwrap();
            assert_eq!(
                foreign.to_vec().unwrap(),
                vec![value; 256],
                "stream {raw:p}"
            );
        }
        // SAFETY: the same memory, read only, while nothing writes it.
        let shared = unsafe { guard.view_from_raw::<u32>(ptr, 256) };
        assert_eq!(shared.to_vec().unwrap(), vec![4; 256]);
    }
    // Borrowed streams were not destroyed: `owner` still works and destroys cleanly.
    owner.synchronize().unwrap();
    owner.destroy().unwrap();
    // SAFETY: the raw allocation above, freed once; the views are gone.
    let r = unsafe { ffi::cuMemFree_v2(ptr) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    drop(guard);
    assert!(custack::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_context_created_by_raw_calls_is_adopted_or_borrowed() {
    let device = device();
    let make = || {
        let mut raw = core::ptr::null_mut();
        // SAFETY: valid out-pointer; a device of an initialized driver.
        let r = unsafe { ffi::cuCtxCreate_v2(&raw mut raw, 0, device.as_raw()) };
        assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
        let mut popped = core::ptr::null_mut();
        // SAFETY: `cuCtxCreate` pushed it; the pop is balanced.
        let r = unsafe { ffi::cuCtxPopCurrent_v2(&raw mut popped) };
        assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
        assert_eq!(popped, raw);
        raw
    };
    let mut stack = Stack::new().unwrap();

    // Adopted: custack destroys it.
    let raw = make();
    // SAFETY: a live `cuCtxCreate`d context on no thread's stack, handed over.
    let ctx = unsafe { Context::from_raw(raw) }.unwrap();
    assert_eq!(ctx.device(), device);
    assert!(!ctx.is_primary());
    {
        let guard = stack.push(&ctx).unwrap();
        assert_eq!(current_raw(), raw);
        let buf = guard.alloc_from(&[3u32; 64]).unwrap();
        assert_eq!(buf.to_vec().unwrap(), vec![3; 64]);
    }
    assert!(current_raw().is_null());
    ctx.destroy().unwrap();

    // Borrowed: `ManuallyDrop` keeps custack from destroying it; the owner does.
    let raw = make();
    // SAFETY: a live `cuCtxCreate`d context; it outlives `borrowed`, which never drops it.
    let borrowed = core::mem::ManuallyDrop::new(unsafe { Context::from_raw(raw) }.unwrap());
    {
        let guard = stack.push(&borrowed).unwrap();
        let event = guard.event(EventFlags::empty()).unwrap();
        event.synchronize().unwrap();
    }
    // SAFETY: the owner destroys its context once; no guard of it is alive.
    let r = unsafe { ffi::cuCtxDestroy_v2(raw) };
    assert_eq!(r, ffi::CUresult::CUDA_SUCCESS);
    assert!(custack::take_drop_errors().is_empty());
}
