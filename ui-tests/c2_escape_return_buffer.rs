//! C2 escape: a buffer cannot be returned out of the function that owns its guard.
//! Positive twin: `c2_results_and_parked_forms_escape` in `tests/patterns.rs`.
use custack::{Context, DeviceBuffer, Stack};

fn make_buffer<'a>(
    stack: &'a mut Stack,
    ctx: &'a Context,
) -> custack::Result<DeviceBuffer<'a, u32>> {
    let guard = stack.push(ctx)?;
    guard.alloc::<u32>(16) //~ ERROR E0515
}

fn main() {
    let _ = make_buffer;
}
