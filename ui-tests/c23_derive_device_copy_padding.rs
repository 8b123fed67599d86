//! C23 kernel contracts (their parameter structs): `#[derive(DeviceCopy)]` refuses a struct with
//! padding bytes (here 3 after `flag`), which are uninitialized on the host.
//! Positive twin: `derived_plain_data` in `tests/patterns.rs`.
use custack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)] //~ ERROR E0080
#[repr(C)]
struct Params {
    flag: u8,
    count: u32,
}

fn main() {
    let _ = Params { flag: 1, count: 2 };
}
