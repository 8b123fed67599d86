//! C23 kernel contracts: custack's comparison kernel (`custack::safety::ReplicasCompare`) is no
//! contract a program can declare. A contract promises what every kernel of its name does, on
//! whatever module it is declared on; a program's own PTX loaded through the safe full API could
//! name a kernel `custack_replicas_compare` that writes anywhere, and launch it under custack's
//! promise. custack declares it only on a restricted init phase's cubin, whose `unsafe`
//! `load_cubin` carries the promise. Positive twin: `the_compare_kernel_finds_one_element_of_any_size_anywhere`
//! in `tests/gpu_redundancy.rs`, which declares a contract of its own.
use custack::safety::ReplicasCompare;
use custack::{Context, ContextFlags, Driver, Stack};

fn main() -> Result<(), custack::Error> {
    let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let module = guard.load_ptx("")?;
    let compare = module.declared::<ReplicasCompare>()?;
    //~^ ERROR E0277
    drop(compare);
    Ok(())
}
