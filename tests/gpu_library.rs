//! Context-independent libraries on a device: one library, its kernel made a function in each
//! of two contexts on two threads, launched in each, checked.
mod common;
use common::{KERNELS, device};
use custack::prelude::*;
use custack::{Context, ContextFlags, Driver, LaunchConfig, Library, Stack};

#[test]
#[ignore = "needs a CUDA device"]
fn one_library_many_contexts() {
    let device = device();
    let library = Library::load_ptx(Driver::init().unwrap(), KERNELS).unwrap();
    let add = library.kernel("add_u32").unwrap();
    assert!(library.kernel("no_such_kernel").is_err());
    let contexts: Vec<Context> = (0..2)
        .map(|_| Context::new(device, ContextFlags::empty()).unwrap())
        .collect();
    std::thread::scope(|t| {
        for (i, ctx) in contexts.iter().enumerate() {
            let add = &add; // LibraryKernel: Send + Sync
            t.spawn(move || {
                let mut stack = Stack::new().unwrap();
                let guard = stack.push(ctx).unwrap();
                let f = guard.library_function(add).unwrap();
                assert!(f.attributes().unwrap().registers_per_thread > 0);
                let mut x = guard.alloc_zeroed::<u32>(1000).unwrap();
                let k = i as u32 + 1;
                guard
                    .stream()
                    .unwrap()
                    .scope(|s| {
                        let dx = s.bind_mut(&mut x);
                        // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
                        unsafe {
                            s.launch_library(&f, LaunchConfig::for_elements(1000), (dx, k, 1000u32))
                        }
                    })
                    .unwrap()
                    .unwrap();
                assert_eq!(x.to_vec().unwrap(), vec![k; 1000], "context {i}");
            });
        }
    });
    drop(contexts);
    library.unload().unwrap();
}
