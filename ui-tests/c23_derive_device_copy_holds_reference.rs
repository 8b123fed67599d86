//! C23 kernel contracts (their parameter structs): `#[derive(DeviceCopy)]` refuses a struct
//! holding a reference: a host address is not plain data for the device.
//! Positive twin: `derived_plain_data` in `tests/patterns.rs`.
use custack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Params {
    scale: &'static f32, //~ ERROR E0277
    count: u64,
}

fn main() {
    let _ = Params { scale: &1.0, count: 2 };
}
