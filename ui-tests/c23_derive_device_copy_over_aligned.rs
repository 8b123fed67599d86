//! C23 kernel contracts (their parameter structs): `#[derive(DeviceCopy)]` refuses a struct
//! aligned to more than 256 bytes, what the driver's allocations promise: a page-locked or
//! managed buffer of it would be a misaligned `&[T]` on the host (found by review: a
//! `#[repr(C, align(1048576))]` struct, its size a multiple of its alignment, had no padding).
//! Positive twin: `derived_plain_data` in `tests/patterns.rs`.
use custack::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)] //~ ERROR E0080
#[repr(C, align(1024))]
struct Big {
    bytes: [u8; 1024],
}

fn main() {
    let _ = Big { bytes: [0; 1024] };
}
