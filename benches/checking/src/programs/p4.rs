//! The program `p4` (P4, C6, C8): one context shared by three threads, each pushing it on a stack
//! of its own and working on it at once.

use crate::common::{KERNELS, N, add_on_device};
use custack::{Context, DeviceMemory, Result, Stack};

pub(crate) fn p4_shared_context(ctx: &Context, threads: u32) -> Result<Vec<Vec<u32>>> {
    let work = |i: u32| -> Result<Vec<u32>> {
        let mut stack = Stack::new()?;
        let guard = stack.push(ctx)?;
        let module = guard.load_ptx(KERNELS)?;
        let mut x = guard.alloc_from(&vec![i; N])?;
        add_on_device(&guard, &module, &mut x, 100)?;
        x.to_vec()
    };
    // Drop errors are logged per thread: a worker hands its own on as its error.
    let worker = |i: u32| -> Result<Vec<u32>> {
        let r = work(i);
        match custack::take_drop_errors().into_iter().next() {
            Some(e) => Err(e),
            None => r,
        }
    };
    std::thread::scope(|t| {
        let handles: Vec<_> = (0..threads).map(|i| t.spawn(move || worker(i))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
