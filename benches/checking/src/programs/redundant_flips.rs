//! The program `redundant_flips` (R24): one bit of one element of replica 1's output changed,
//! at the first, a middle and the last element, in its first or its last byte, must be a
//! mismatch naming that element and a count of 1, compared on the device (the compare kernel's
//! stand-in, `replicas_compare.rs`, which follows the kernel), for elements of 1, 2 and 8 bytes
//! and outputs of 13 elements (not a whole number of any wider word, warp or block) and of 1;
//! a clean frame after each kernel's flips must compare equal (a verdict left from the frame
//! before would not); last, a frame whose compare kernel compares nothing (its stand-in
//! dropped) must be a mismatch saying so, not a pass. The comparison on the host is the unit tests' (`src/safety/redundant.rs`)
//! and `restricted_redundant`'s; this program is strict in the hang pass, which hangs each of
//! its enqueues in turn, so it stays small.

use crate::common::unexpected;
use crate::{cubin, replicas_compare};
use custack::safety::{
    Budget, CompareOn, InitPhase, OnMismatch, Profile, RedundantKernel, RestrictedContext,
    RestrictedModule, WaitBound,
};
use custack::{ErrorKind, LaunchConfig, Result, Stack, StandIn};

custack::kernel_contract! {
    /// `pattern(unsigned char* out, unsigned n, unsigned size, unsigned seed, unsigned flip_at,
    /// unsigned flip_byte)`: the `n * size` bytes of `out` a pattern of `seed`; where
    /// `flip_at < n`, one bit of byte `flip_byte` of element `flip_at` flipped.
    unsafe kernel Pattern8 = "pattern"(out: &mut [u8; n], n: u32, size: u32, seed: u32, flip_at: u32, flip_byte: u32);
    /// As `Pattern8`, over elements of 2 bytes.
    unsafe kernel Pattern16 = "pattern"(out: &mut [u16; n], n: u32, size: u32, seed: u32, flip_at: u32, flip_byte: u32);
    /// As `Pattern8`, over elements of 8 bytes.
    unsafe kernel Pattern64 = "pattern"(out: &mut [u64; n], n: u32, size: u32, seed: u32, flip_at: u32, flip_byte: u32);
}

/// The stand-in cubin's kernels.
const DECLARATIONS: &str = ".version 6.0\n.target sm_50\n.address_size 64\n\
    .visible .entry pattern(.param .u64 out, .param .u32 n, .param .u32 size, .param .u32 seed, \
    .param .u32 flip_at, .param .u32 flip_byte) { ret; }\n\
    .visible .entry custack_replicas_compare(.param .u64 first, .param .u64 second, \
    .param .u64 len, .param .u64 size, .param .u64 verdict) { ret; }\n";

/// The output's length of the kernels over 1-byte and 8-byte elements; over 2-byte ones it is 1.
const LEN: usize = 13;

/// SMs of each partition.
const SMS_EACH: u32 = 8;

/// The pattern's byte `j` for `seed`.
fn pattern(j: usize, seed: u32) -> u8 {
    ((j as u32).wrapping_mul(131) ^ seed.wrapping_mul(0x9E37)) as u8
}

/// The bit of a flipped byte, by the seed.
fn bit(seed: u32) -> u8 {
    1 << (seed % 8)
}

/// A kernel of `C` (output `T`) over `len` elements, compared on the device, made in `init`.
fn on_device<'g, 'm, C: custack::PlainLaunch, T: custack::DeviceCopy>(
    init: &InitPhase<'g>,
    module: &'m RestrictedModule<'g>,
    len: usize,
) -> Result<RedundantKernel<'g, 'm, C, T>> {
    init.redundant_compared::<C, T>(
        module,
        "out",
        len,
        SMS_EACH,
        OnMismatch::ReturnError,
        CompareOn::Device,
    )
}

/// Runs the frames of one kernel: one per flip (byte 0 of the first element, the last byte of
/// the middle one and of the last one), then a clean one; each checked.
macro_rules! flips {
    ($twice:expr, $ty:ty, $seed:expr) => {{
        let twice = $twice;
        if twice.compare_on() != CompareOn::Device {
            return Err(unexpected(
                "redundant_flips: compared elsewhere than on the device",
            ));
        }
        let len = twice.output().len();
        let size = size_of::<$ty>();
        let mut flips = Vec::new();
        for flip in [(0, 0), (len / 2, size - 1), (len - 1, size - 1)] {
            if !flips.contains(&flip) {
                flips.push(flip);
            }
        }
        let frames = flips.into_iter().map(Some).chain(std::iter::once(None));
        for flip in frames {
            *$seed += 1;
            let seed = *$seed;
            let (flip_at, flip_byte) = flip.map_or((u32::MAX, 0), |(a, b)| (a as u32, b as u32));
            let frame = twice.frames();
            let cfg = LaunchConfig::for_elements(len as u32);
            let outcome = twice.run(&(), |replica, s, kernel, out, ()| {
                let at = if replica == 1 { flip_at } else { u32::MAX };
                s.run(
                    kernel,
                    cfg,
                    (out, len as u32, size as u32, seed, at, flip_byte),
                )
            });
            // A launch's or a copy's error (the schedule's failure) ends the program.
            if let Err(e) = &outcome
                && e.kind() != ErrorKind::ReplicasDiffer
            {
                return outcome;
            }
            let what = format!("redundant_flips: {len} x {size} bytes, frame {frame}");
            let bytes = |r: &[$ty]| -> Vec<u8> { r.iter().flat_map(|x| x.to_le_bytes()).collect() };
            let want: Vec<u8> = (0..len * size).map(|j| pattern(j, seed)).collect();
            // Replica 0's output comes back, never flipped; replica 1's does not.
            if bytes(twice.replica(0)) != want || !twice.replica(1).is_empty() {
                return Err(unexpected(&format!(
                    "{what}: replica 0 is not the pattern, or replica 1 came back"
                )));
            }
            match (outcome, flip) {
                (Ok(()), None) => {}
                (Err(e), Some((at, byte))) => {
                    let text = e.to_string();
                    let named = format!(
                        "frame {frame}: the two runs wrote different `out`: element {at} differs \
                         first, 1 of {len} elements differ (compared on the device)"
                    );
                    if !text.contains(&named) {
                        return Err(unexpected(&format!(
                            "{what}: byte {byte} of element {at} flipped: {text}"
                        )));
                    }
                }
                (Err(e), None) => {
                    return Err(unexpected(&format!(
                        "{what}: equal replicas reported different: {e}"
                    )));
                }
                (Ok(()), Some((at, byte))) => {
                    return Err(unexpected(&format!(
                        "{what}: byte {byte} of element {at} flipped in replica 1, and the \
                         replicas compared equal"
                    )));
                }
            }
        }
    }};
}

/// See the module's documentation. The double reports driver 13.2 (green contexts).
pub(crate) fn redundant_flips() -> Result<()> {
    replicas_compare::self_check()?;
    let profile = Profile::init(1)?;
    // SAFETY: as the kernel, the stand-in writes the `n * size` bytes of `out` only.
    let _pattern = unsafe {
        StandIn::register(&profile.driver(), "pattern", |call| {
            let out = call.arg::<u64>(0)?;
            let (n, size, seed) = (
                call.arg::<u32>(1)? as usize,
                call.arg::<u32>(2)? as usize,
                call.arg::<u32>(3)?,
            );
            let (flip_at, flip_byte) = (call.arg::<u32>(4)? as usize, call.arg::<u32>(5)? as usize);
            let mut bytes: Vec<u8> = (0..n * size).map(|j| pattern(j, seed)).collect();
            if flip_at < n {
                bytes[flip_at * size + flip_byte % size] ^= bit(seed);
            }
            call.write(out, &bytes)?;
            Ok(())
        })
    }?;
    // SAFETY: as `src/safety/replicas_compare.cu`.
    let compare = unsafe { replicas_compare::register(&profile.driver()) }?;
    let image = cubin::stand_in_cubin(&["pattern", "custack_replicas_compare"], &[], DECLARATIONS);
    // What the three kernels take: per kernel two partitions and their streams, two lookups
    // (the kernel's and the compare kernel's), an event, two outputs and replica 0's
    // page-locked copy, and the verdict's 16 bytes on each side.
    let outputs = LEN + 2 + 8 * LEN;
    let budget = Budget::page_locked(outputs + 3 * 16)
        .device_bytes(2 * outputs + 3 * 16)
        .waits(WaitBound::fail_stop(std::time::Duration::from_secs(1)))
        .streams(6)
        .partitions(6)
        .modules(1)
        .kernels(6)
        .events(3);
    let mut ctx = RestrictedContext::primary(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<()> {
        let init = guard.init()?;
        // SAFETY: the checking driver's stand-in cubin; its kernels are the stand-ins above.
        let module = unsafe { init.load_cubin(&image) }?;
        let mut bytes1 = on_device::<Pattern8, u8>(&init, &module, LEN)?;
        let mut bytes2 = on_device::<Pattern16, u16>(&init, &module, 1)?;
        let mut bytes8 = on_device::<Pattern64, u64>(&init, &module, LEN)?;
        let run = init.seal();
        let mut seed = 0u32;
        flips!(&mut bytes1, u8, &mut seed);
        flips!(&mut bytes2, u16, &mut seed);
        flips!(&mut bytes8, u64, &mut seed);
        // A compare kernel that compares nothing (its stand-in gone: the launch is made, the
        // verdict stays as custack zeroed it): a mismatch saying so, never a pass (found by
        // review: a zero count of differences passed).
        drop(compare);
        let cfg = LaunchConfig::for_elements(LEN as u32);
        let outcome = bytes8.run(&(), |_, s, kernel, out, ()| {
            s.run(kernel, cfg, (out, LEN as u32, 8, seed + 1, u32::MAX, 0))
        });
        match outcome {
            Err(e) if e.kind() == ErrorKind::ReplicasDiffer => {
                let said = format!("found 0 of {LEN} elements equal and none different");
                if !e.to_string().contains(&said) {
                    return Err(unexpected(&format!(
                        "redundant_flips: a compare kernel that compared nothing: {e}"
                    )));
                }
            }
            Err(e) => return Err(e),
            Ok(()) => {
                return Err(unexpected(
                    "redundant_flips: a compare kernel that compared nothing passed the frame",
                ));
            }
        }
        run.synchronize()?;
        drop((bytes1, bytes2, bytes8));
        drop(module);
        Ok(())
    })();
    let shutdown = guard.shutdown();
    drop(stack);
    let destroyed = ctx.destroy();
    outcome.and(shutdown).and(destroyed)
}
