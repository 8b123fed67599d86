//! C23 a kernel declared with a `cluster(x, y, z)` shape (distributed shared memory of its
//! cluster) launches only in that shape: `run` refuses its contract at compile time, since a
//! plain launch runs it in clusters of one block.
//! Positive twin: `contracts` in `benches/checking/src/programs/contracts.rs` (`run_clustered`).
use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};

custack::kernel_contract! {
    /// `cluster_ids(uint2* out)`: block `b` writes its rank in its cluster of 2 and its
    /// cluster's index to `out[b]`.
    unsafe kernel ClusterIds = "cluster_ids"(out: &mut [[u32; 2]; blocks]) cluster(2, 1, 1);
}

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let ids = module.declared::<ClusterIds>()?;
    let mut out = guard.alloc_zeroed::<[u32; 2]>(8)?;
    let cfg = LaunchConfig { grid: (8, 1, 1), block: (32, 1, 1), shared_mem_bytes: 0 };
    guard.stream()?.scope(|s| {
        let mut d = s.bind_mut(&mut out);
        s.run(&ids, cfg, (&mut d,)) //~ ERROR E0277
    })??;
    Ok(())
}
