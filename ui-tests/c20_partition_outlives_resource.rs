//! C20 context-independent code (green half): an SM partition cannot outlive the resource it was
//! split from.
//! Positive twin: `two_green_contexts_run_at_once_on_disjoint_sms` in `tests/gpu_green.rs`.
use custack::Driver;

fn main() -> Result<(), custack::Error> {
    let sms = Driver::init()?.device(0)?.sm_resource()?;
    let split = sms.split(2, 16)?;
    drop(sms); //~ ERROR E0505
    println!("{}", split.groups.len());
    Ok(())
}
