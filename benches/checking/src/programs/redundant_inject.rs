//! The program `redundant_inject` (R24; `docs/reliability.md`): redundant execution under the
//! checking driver's injection (`NULLDRIVER_INJECT=SEED`, `checkdriver/src/inject.rs`), compared on
//! the host and on the device, `CHECK_INJECT_FRAMES` frames: every injected corruption found, every
//! clean frame equal. Run by the injection pass of `scripts/check-driver.sh`.

use crate::common::unexpected;
use crate::double::report_driver_version;
use crate::{cubin, replicas_compare};
use custack::{LaunchConfig, Result, Stack, StandIn};

custack::kernel_contract! {
    /// `mix(unsigned* out, const unsigned* in, unsigned n, unsigned frame, unsigned flip_at)`
    /// (`tests/fixtures/redundancy.cu`): `out[i]` a hash of `in[i]`, `i` and `frame`.
    unsafe kernel Mix = "mix"(out: &mut [u32; n], input: &[u32; n], n: u32, frame: u32, flip_at: u32);
}

/// `mix` and custack's compare kernel, as the stand-in cubin declares them.
const REDUNDANT_DECLARATIONS: &str = ".version 6.0\n.target sm_50\n.address_size 64\n\
    .visible .entry mix(.param .u64 out, .param .u64 input, .param .u32 n, .param .u32 frame, \
    .param .u32 flip_at) { ret; }\n\
    .visible .entry custack_replicas_compare(.param .u64 first, .param .u64 second, \
    .param .u64 len, .param .u64 size, .param .u64 verdict) { ret; }\n";

/// `mix`'s value for element `i` (as `tests/fixtures/redundancy.cu` computes it).
fn mix_value(input: u32, i: u32, frame: u32) -> u32 {
    let mut x = input ^ frame.wrapping_mul(2_654_435_761) ^ i.wrapping_mul(40_503);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// Elements of the redundant kernels' outputs in `redundant_inject`.
const INJECT_N: usize = 64;

/// The count of differing elements a `ReplicasDiffer` error names ("… differs first, C of N").
fn differing(e: &custack::Error) -> Option<usize> {
    let text = e.to_string();
    text.split("differs first, ")
        .nth(1)?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

/// Redundant execution under the checking driver's injection (`NULLDRIVER_INJECT=SEED`,
/// `checkdriver/src/inject.rs`): a kernel of 64 `u32`s whose result changes every frame run
/// redundantly on two green-context partitions, once compared on the host and once on the
/// device (the compare kernel's CPU stand-in), `CHECK_INJECT_FRAMES` frames (default 2,000). The
/// double corrupts replica 1 of every odd frame of each kernel (1, 8 or 64 random bits of its
/// output flipped, its launch dropped, or 64 bits flipped with the copy of the device's verdict
/// back to the host dropped, in turn): every one must be found
/// (`ReplicasDiffer`, its count within the bits flipped), and every even frame compare equal.
/// Without `NULLDRIVER_INJECT` every frame must compare equal. First, a module without the
/// compare kernel must be refused a comparison on the device (`NotFound`, naming
/// `ReplicasCompare::SOURCE`). Prints the tally.
#[allow(clippy::too_many_lines)] // the stand-ins, the init phase and the tally
pub(crate) fn redundant_inject() -> Result<()> {
    use custack::safety::{Budget, CompareOn, OnMismatch, Profile, RestrictedContext};
    report_driver_version(13020)?;
    let frames: u32 = std::env::var("CHECK_INJECT_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let injecting = std::env::var("NULLDRIVER_INJECT").is_ok_and(|v| !v.is_empty() && v != "0");
    let profile = Profile::init(1)?;
    // SAFETY: as the kernel, the stand-in reads n u32s of `input` and writes n of `out`.
    let _mix = unsafe {
        StandIn::register(&profile.driver(), "mix", |call| {
            let (out, input) = (call.arg::<u64>(0)?, call.arg::<u64>(1)?);
            let (n, frame, flip_at) = (
                call.arg::<u32>(2)?,
                call.arg::<u32>(3)?,
                call.arg::<u32>(4)?,
            );
            let values = call.read::<u32>(input, n as usize)?;
            let result: Vec<u32> = (0..n)
                .zip(values)
                .map(|(i, v)| {
                    let x = mix_value(v, i, frame);
                    if i == flip_at {
                        x ^ (1 << (frame & 31))
                    } else {
                        x
                    }
                })
                .collect();
            call.write(out, &result)?;
            Ok(())
        })
    }?;
    // SAFETY: as `src/safety/replicas_compare.cu`: reads len * size bytes of each output and
    // the verdict's two u64s, writes the verdict.
    let _compare = unsafe { replicas_compare::register(&profile.driver()) }?;
    let image = cubin::stand_in_cubin(
        &["mix", "custack_replicas_compare"],
        &[],
        REDUNDANT_DECLARATIONS,
    );
    let n = INJECT_N;
    // Two redundant kernels: per kernel two outputs and the input's share on the device, the
    // page-locked copies (two on the host, one on the device), the comparison's verdicts,
    // kernel lookups (mix twice, the compare kernel once) and event.
    // And a module without the compare kernel, whose comparison on the device is refused
    // (after its mix lookup, two outputs and a page-locked copy, which stay counted).
    let budget = Budget::page_locked(4 * n * 4 + 16)
        .device_bytes(7 * n * 4 + 16)
        .streams(4)
        .partitions(4)
        .modules(2)
        .kernels(4)
        .events(1);
    let mut ctx = RestrictedContext::primary(&profile, profile.device(0)?, budget)?;
    let mut stack = Stack::new()?;
    let mut guard = ctx.push(&mut stack)?;
    let outcome = (|| -> Result<[[u64; 4]; 2]> {
        let init = guard.init()?;
        // SAFETY: the checking driver's stand-in cubin; its kernels are the stand-ins above.
        let module = unsafe { init.load_cubin(&image) }?;
        let input = init.alloc::<u32>(n)?;
        let mix_only = REDUNDANT_DECLARATIONS
            .lines()
            .filter(|l| !l.contains("custack_replicas_compare"))
            .collect::<Vec<_>>()
            .join("\n");
        let only_mix = cubin::stand_in_cubin(&["mix"], &[], &mix_only);
        // SAFETY: as above.
        let without = unsafe { init.load_cubin(&only_mix) }?;
        match init.redundant_compared::<Mix, u32>(
            &without,
            "out",
            n,
            16,
            OnMismatch::ReturnError,
            CompareOn::Device,
        ) {
            Err(e)
                if e.kind() == custack::ErrorKind::NotFound
                    && e.to_string().contains("ReplicasCompare::SOURCE") => {}
            Err(e) => return Err(e),
            Ok(_) => {
                return Err(unexpected(
                    "compared on the device with a module lacking custack_replicas_compare",
                ));
            }
        }
        let mut kernels = [
            init.redundant_compared::<Mix, u32>(
                &module,
                "out",
                n,
                16,
                OnMismatch::ReturnError,
                CompareOn::Host,
            )?,
            init.redundant_compared::<Mix, u32>(
                &module,
                "out",
                n,
                16,
                OnMismatch::ReturnError,
                CompareOn::Device,
            )?,
        ];
        let run = init.seal();
        // Where each compares, as asked; on the device, ordered by the event the init phase
        // tried (the double records an event of the primary context on a partition's stream).
        let placed = kernels
            .iter()
            .map(|k| (k.compare_on(), k.ordered_by_event()));
        if !placed.eq([(CompareOn::Host, false), (CompareOn::Device, true)]) {
            return Err(unexpected(
                "redundant_inject: the kernels compare elsewhere than asked",
            ));
        }
        let cfg = LaunchConfig::for_elements(n as u32);
        // Per kernel: injected and found, injected and missed, clean and equal, clean and
        // reported different.
        let mut tally = [[0u64; 4]; 2];
        for frame in 0..frames {
            for (twice, tally) in kernels.iter_mut().zip(&mut tally) {
                let outcome = twice.run(&(&input,), |_, s, k, out, &(input,)| {
                    s.run(k, cfg, (out, s.bind(input), n as u32, frame, u32::MAX))
                });
                let injected = injecting && frame % 2 == 1;
                // The injection's kind, as the double chooses it: launch `frame` of the stream.
                let bits = match (frame / 2) % 5 {
                    0 => 1,
                    1 => 8,
                    2 | 4 => 64,
                    _ => n,
                };
                // The fifth kind also drops the verdict's copy back, where the device compares:
                // the verdict the host holds says so, not the frame before's.
                let verdict_lost = (frame / 2) % 5 == 4 && twice.compare_on() == CompareOn::Device;
                match (outcome, injected) {
                    (Err(e), true)
                        if e.kind() == custack::ErrorKind::ReplicasDiffer && verdict_lost =>
                    {
                        if !e.to_string().contains("did not reach the host") {
                            return Err(unexpected(&format!(
                                "frame {frame}: the verdict's copy was dropped: {e}"
                            )));
                        }
                        tally[0] += 1;
                    }
                    (Err(e), true) if e.kind() == custack::ErrorKind::ReplicasDiffer => {
                        let count = differing(&e).unwrap_or(0);
                        if count == 0 || count > bits {
                            return Err(unexpected(&format!(
                                "frame {frame}: {count} elements differ, {bits} bits injected: {e}"
                            )));
                        }
                        tally[0] += 1;
                    }
                    (Ok(()), true) => tally[1] += 1,
                    (Ok(()), false) => {
                        // Replica 1's output comes back only where the host compares, equal.
                        let second = twice.replica(1);
                        let kept = if twice.compare_on() == CompareOn::Device {
                            second.is_empty()
                        } else {
                            second == twice.replica(0)
                        };
                        if twice.replica(0).len() != n || !kept {
                            return Err(unexpected(&format!(
                                "frame {frame}: the replicas' outputs as copied back are wrong"
                            )));
                        }
                        tally[2] += 1;
                    }
                    (Err(e), false) if e.kind() == custack::ErrorKind::ReplicasDiffer => {
                        tally[3] += 1;
                    }
                    (Err(e), _) => return Err(e),
                }
            }
        }
        run.synchronize()?;
        drop(kernels);
        drop(input);
        drop((module, without));
        Ok(tally)
    })();
    // Also after a failed phase or shutdown: the context destroyed (its primary context's
    // handles released with it).
    let shutdown = guard.shutdown();
    let destroyed = ctx.destroy();
    let tally = outcome?;
    shutdown?;
    destroyed?;
    for (on, [found, missed, equal, false_positives]) in ["host", "device"].iter().zip(tally) {
        println!(
            "redundant_inject: compared on the {on}: {found} of {} injections found, {missed} \
             missed; {equal} clean frames equal, {false_positives} reported different",
            found + missed
        );
        if missed != 0 || false_positives != 0 {
            return Err(unexpected(
                "an injection missed or a clean frame reported different",
            ));
        }
    }
    Ok(())
}
