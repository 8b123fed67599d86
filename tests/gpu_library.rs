//! Context-independent libraries on a device: one library, its kernel made a function in each
//! of two contexts on two threads, launched in each, checked.
mod common;
use common::{KERNELS, device};
use custack::prelude::*;
use custack::{
    Context, ContextFlags, DeviceBuffer, Driver, LaunchConfig, Library, PushedGuard, SharedKernel,
    SharedLibrary, Stack,
};

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

/// A long-lived type that owns its code and kernels: no borrow, no `unsafe`,
/// no leak; `Send + Sync + 'static`, so it moves into a spawned thread. Each call gets the
/// kernel's function from the caller's guard, so it is checked against the context current
/// there. Compiling this is the must-compile half of the test (the positive twin of
/// `ui-tests/c20_shared_kernel_*`); running it needs a GPU.
struct Engine {
    library: SharedLibrary,
    add: SharedKernel,
    vector_add: SharedKernel,
}

static_assertions::assert_impl_all!(Engine: Send, Sync);

impl Engine {
    fn new(driver: Driver) -> custack::Result<Self> {
        let library = SharedLibrary::load_ptx(driver, KERNELS)?;
        let add = library.kernel("add_u32")?;
        let vector_add = library.kernel("vector_add")?;
        Ok(Self {
            library,
            add,
            vector_add,
        })
    }

    /// Adds `k` to each element of `x`, on a stream of the guard's context.
    fn add(
        &self,
        guard: &PushedGuard<'_, '_>,
        x: &mut DeviceBuffer<'_, u32>,
        k: u32,
    ) -> custack::Result<()> {
        let f = guard.library_function(&self.add.kernel())?;
        let n = x.len() as u32;
        guard.stream()?.scope(|s| {
            let dx = s.bind_mut(x);
            // SAFETY: add_u32(unsigned* x, unsigned k, unsigned n) adds k to x[0..n).
            unsafe { s.launch_library(&f, LaunchConfig::for_elements(n), (dx, k, n)) }
        })?
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn engine_owns_its_library_and_kernels() {
    let device = device();
    let engine = Engine::new(Driver::init().unwrap()).unwrap();
    assert!(engine.library.kernel("no_such_kernel").is_err());
    assert!(!engine.vector_add.as_raw().is_null());
    // Moved into a thread that may outlive this frame ('static), used under two contexts there.
    let engine = std::thread::spawn(move || {
        let mut stack = Stack::new().unwrap();
        for k in 1..=2u32 {
            let ctx = Context::new(device, ContextFlags::empty()).unwrap();
            let guard = stack.push(&ctx).unwrap();
            let mut x = guard.alloc_zeroed::<u32>(1000).unwrap();
            engine.add(&guard, &mut x, k).unwrap();
            engine.add(&guard, &mut x, k).unwrap();
            assert_eq!(x.to_vec().unwrap(), vec![2 * k; 1000], "context {k}");
        }
        engine
    })
    .join()
    .unwrap();
    // The library stays loaded while any kernel holds a share; the last share gives it back.
    let Engine {
        library,
        add,
        vector_add,
    } = engine;
    let library = library.into_library().unwrap_err();
    drop((add, vector_add));
    let library: Library = library.into_library().unwrap();
    library.unload().unwrap();
}
