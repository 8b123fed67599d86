//! C13 kernels are unchecked code, and so are their CPU stand-ins: under the checking driver a
//! stand-in is the kernel, so registering one is `unsafe` (it promises to touch only the memory
//! each launch passes it, as the kernel does).
//! Positive twin: `stand_ins` in `benches/checking/src/programs/stand_ins.rs`.
use custack::{Driver, KernelCall, StandIn};

fn main() -> Result<(), custack::Error> {
    let driver = Driver::init()?;
    let _on_cpu = StandIn::register(&driver, "add_u32", |_: &KernelCall<'_>| Ok(()))?; //~ ERROR E0133
    Ok(())
}
