//! The CPU stand-in of custack's compare kernel, `custack_replicas_compare`
//! (`src/safety/replicas_compare.cu`), for the programs that compare a redundant kernel's
//! replicas on the device under the checking driver. It follows the kernel step by step rather
//! than computing the answer another way: the launch's grid and block as the host chose them,
//! each thread's grid-stride loop over the elements, each element compared in the kernel's word
//! (the widest of 8, 4, 2 and 1 bytes that divides the element), each warp's findings summed
//! and their minimum taken by the kernel's `__shfl_down_sync` tree (a lane whose partner is past
//! the warp reads its own value), and lane 0's atomics into the verdict the host zeroed. So what
//! the checking driver's device comparison reports is what the kernel would for the same
//! launch, and the host's side (the arguments, the launch's shape, the verdict's zeroing and
//! reading) is checked against it.

use custack::{Driver, Result, StandIn};

/// Lanes of a warp.
const WARP: usize = 32;

/// Whether element `i` (of `size` bytes) of `first` and `second` differs, compared in the
/// kernel's word.
fn element_differs(first: &[u8], second: &[u8], i: usize, size: usize) -> bool {
    let word = [8, 4, 2, 1]
        .into_iter()
        .find(|w| size.is_multiple_of(*w))
        .unwrap_or(1);
    let at = i * size;
    (0..size / word).any(|w| {
        let bytes = at + w * word..at + (w + 1) * word;
        first[bytes.clone()] != second[bytes]
    })
}

/// The verdict `custack_replicas_compare` leaves in `verdict` when launched with `grid` blocks
/// of `block` threads over the `len` elements of `size` bytes at `first` and `second`: `None`
/// for a launch the kernel's contract refuses (a block of other than whole warps).
pub(crate) fn verdict(
    grid: u32,
    block: u32,
    first: &[u8],
    second: &[u8],
    (len, size): (usize, usize),
    mut verdict: [u64; 2],
) -> Option<[u64; 2]> {
    let block = block as usize;
    if block == 0 || !block.is_multiple_of(WARP) {
        return None;
    }
    let stride = grid as usize * block;
    for b in 0..grid as usize {
        for warp in 0..block / WARP {
            // Each lane's (elements found equal, first differing element), as its loop leaves
            // them.
            let mut lanes = [(0u64, u64::MAX); WARP];
            for (lane, found) in lanes.iter_mut().enumerate() {
                let mut i = b * block + warp * WARP + lane;
                while i < len {
                    if element_differs(first, second, i, size) {
                        if found.1 == u64::MAX {
                            found.1 = i as u64;
                        }
                    } else {
                        found.0 += 1;
                    }
                    i += stride;
                }
            }
            for offset in [16, 8, 4, 2, 1] {
                let before = lanes;
                for (lane, found) in lanes.iter_mut().enumerate() {
                    let other = before.get(lane + offset).copied().unwrap_or(before[lane]);
                    found.0 += other.0;
                    found.1 = found.1.min(other.1);
                }
            }
            let (same, first_at) = lanes[0];
            if same != 0 {
                verdict[0] += same;
            }
            if first_at != u64::MAX {
                verdict[1] = verdict[1].max(!first_at);
            }
        }
    }
    Some(verdict)
}

/// Registers the stand-in of `custack_replicas_compare` with the checking driver.
///
/// # Safety
///
/// As `StandIn::register`: the stand-in reads `len * size` bytes of each output and the
/// verdict's two `u64`s, and writes the verdict, as the kernel does.
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "the driver as `StandIn::register` takes it, by reference"
)]
pub(crate) unsafe fn register(driver: &Driver) -> Result<StandIn> {
    // SAFETY: the caller's promise, as above.
    unsafe {
        StandIn::register(driver, "custack_replicas_compare", |call| {
            let (first, second) = (call.arg::<u64>(0)?, call.arg::<u64>(1)?);
            let (len, size, at) = (
                call.arg::<u64>(2)? as usize,
                call.arg::<u64>(3)? as usize,
                call.arg::<u64>(4)?,
            );
            let a = call.read::<u8>(first, len * size)?;
            let b = call.read::<u8>(second, len * size)?;
            let v = call.read::<u64>(at, 2)?;
            let [grid, _, _] = call.grid();
            let [block, _, _] = call.block();
            let found = verdict(grid, block, &a, &b, (len, size), [v[0], v[1]])
                .ok_or("custack_replicas_compare: a block of other than whole warps")?;
            call.write(at, &found)?;
            Ok(())
        })
    }
}

/// The stand-in's own check, which `redundant_flips` runs first (this crate's tests are not
/// run): over elements of 1 to 24 bytes and lengths around a warp and a block, equal outputs
/// leave every element counted equal and none different, and one bit flipped in the first, a middle or the last element, in
/// its first or its last byte, is found alone and named, by a grid-stride launch of one warp
/// and by one of two blocks of two warps; a block of other than whole warps is refused.
pub(crate) fn self_check() -> Result<()> {
    for size in [1, 2, 3, 4, 6, 8, 12, 24] {
        for len in [1, 31, 32, 33, 129, 300] {
            let a: Vec<u8> = (0..len * size).map(|j| (j * 131 + 7) as u8).collect();
            let mut cases = vec![(a.clone(), [len as u64, 0])];
            for at in [0, len / 2, len - 1] {
                for byte in [0, size - 1] {
                    let mut b = a.clone();
                    b[at * size + byte] ^= 0x10;
                    cases.push((b, [len as u64 - 1, !(at as u64)]));
                }
            }
            for (b, want) in cases {
                for (grid, block) in [(1, 32), (2, 64)] {
                    if verdict(grid, block, &a, &b, (len, size), [0; 2]) != Some(want) {
                        return Err(crate::common::unexpected(&format!(
                            "replicas_compare's stand-in: elements of {size} bytes, {len} of \
                             them, {grid} blocks of {block}: not {want:?}"
                        )));
                    }
                }
            }
        }
    }
    match verdict(1, 48, &[0], &[1], (1, 1), [0; 2]) {
        None => Ok(()),
        Some(_) => Err(crate::common::unexpected(
            "replicas_compare's stand-in: ran a block of 48 threads",
        )),
    }
}
