//! What the programs observe, for the differential run (`docs/validation.md`, contract row R26):
//! with `CUSTACK_OBSERVE=1`, the programs that compute results run through this dispatch, which
//! prints each result on a line of its own, `observe KEY len=N fnv=HASH first=[..]`, the same on
//! both drivers (no address, no timing), for the comparer to compare. Without it nothing here
//! runs (`run` answers `None`, and `main` dispatches as before), so `scripts/check-driver.sh`'s
//! runs are unchanged.
//!
//! The double runs a kernel only through a stand-in. So that the results of the fixtures'
//! kernels (`add_u32`, `vector_add`, `scale_u32` of `tests/fixtures/`) mean the same on both
//! drivers, this dispatch registers CPU stand-ins for them first (on a real driver registering
//! does nothing and the kernels run), for the programs that register none of their own. A
//! result that a kernel without a stand-in writes (`count_threads`, `tex_read`, `smid_spin`) is
//! not observed; nor is a time (`events`' milliseconds).
//!
//! `queries` is a program of this dispatch only: the answers of the device and context queries
//! custack's behaviour depends on, and an event ordering.

use crate::common::context0;
use core::fmt::Debug;
use custack::{Context, DeviceMemory, Driver, EventFlags, Result, StandIn};

/// Whether the programs observe (`CUSTACK_OBSERVE=1`).
pub(crate) fn on() -> bool {
    std::env::var_os("CUSTACK_OBSERVE").is_some_and(|v| v == "1")
}

/// Prints `observe KEY ...` for `value`: its element count, the FNV-1a hash of its `Debug` text,
/// and its first elements.
pub(crate) fn observe<T: Debug>(key: &str, value: &[T]) {
    let text = format!("{value:?}");
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let first: Vec<String> = value.iter().take(4).map(|v| format!("{v:?}")).collect();
    println!(
        "observe {key} len={} fnv={hash:016x} first=[{}]",
        value.len(),
        first.join(",")
    );
}

/// Prints `observe KEY VALUE` for one answer.
pub(crate) fn answer<T: Debug>(key: &str, value: T) {
    println!("observe {key} {value:?}");
}

/// Registers the stand-ins of the fixtures' kernels; they stay registered while the guards live.
fn fixture_stand_ins() -> Result<Vec<StandIn>> {
    let driver = Driver::init()?;
    // Threads the launch ran: a kernel touches an element only where a thread exists.
    let threads = |call: &custack::KernelCall<'_>| {
        let (g, b) = (call.grid(), call.block());
        (0..3)
            .map(|i| u64::from(g[i]) * u64::from(b[i]))
            .product::<u64>()
    };
    // SAFETY: as the kernel (tests/fixtures/kernels.ptx), the stand-in reads and writes
    // x[i] for i < n of the launched threads.
    let add = unsafe {
        StandIn::register(&driver, "add_u32", move |call| {
            let (x, k, n) = (
                call.arg::<u64>(0)?,
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
            );
            let n = u64::from(n).min(threads(call)) as usize;
            let mut v = call.read::<u32>(x, n)?;
            for e in &mut v {
                *e = e.wrapping_add(k);
            }
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    // SAFETY: as the kernel, the stand-in reads a[i] and b[i] and writes c[i] for i < n of the
    // launched threads.
    let vector_add = unsafe {
        StandIn::register(&driver, "vector_add", move |call| {
            let n = u64::from(call.arg::<u32>(3)?).min(threads(call)) as usize;
            let a = call.read::<f32>(call.arg(0)?, n)?;
            let b = call.read::<f32>(call.arg(1)?, n)?;
            let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            call.write(call.arg(2)?, &c)?;
            Ok(())
        })
    }?;
    // SAFETY: as the kernel (tests/fixtures/contracts.ptx), the stand-in reads and writes x[i]
    // for i < rows * cols of the launched threads.
    let scale = unsafe {
        StandIn::register(&driver, "scale_u32", move |call| {
            let x = call.arg::<u64>(0)?;
            let (rows, cols, k) = (
                call.arg::<u32>(1)?,
                call.arg::<u32>(2)?,
                call.arg::<u32>(3)?,
            );
            let n = u64::from(rows.wrapping_mul(cols)).min(threads(call)) as usize;
            let mut v = call.read::<u32>(x, n)?;
            for e in &mut v {
                *e = e.wrapping_mul(k);
            }
            call.write(x, &v)?;
            Ok(())
        })
    }?;
    Ok(vec![add, vector_add, scale])
}

/// Runs `program` observing its results, if it is one that computes any; `None` otherwise (and
/// always when not observing).
#[allow(
    clippy::too_many_lines,
    reason = "one arm per program, each a few lines: the dispatch reads as the list of them"
)]
pub(crate) fn run(program: &str) -> Option<Result<()>> {
    if !on() {
        return None;
    }
    let two = || -> Result<(Context, Context)> { Ok((context0()?, context0()?)) };
    // The programs that register a stand-in of their own for a fixture kernel keep theirs
    // (`contracts` registers one for `index_2d` only, not a fixture kernel of this list: it
    // takes these, so that its `add_u32` and `scale_u32` results mean the same on both drivers).
    let own_stand_ins = matches!(program, "graph_built" | "graph_shared");
    let known = matches!(
        program,
        "p1" | "p2"
            | "p3"
            | "p4"
            | "p8"
            | "p9"
            | "p11"
            | "parked_graph"
            | "scoped_alloc"
            | "reuse_after_scope"
            | "scoped_host"
            | "submission"
            | "graph"
            | "graph_built"
            | "graph_shared"
            | "memory_kinds"
            | "peer"
            | "ipc"
            | "vmm"
            | "vmm_share"
            | "managed"
            | "textures"
            | "peer_vmm"
            | "contracts"
            | "queries"
    );
    if !known {
        return None;
    }
    let stand_ins = if own_stand_ins || program == "queries" {
        Ok(Vec::new())
    } else {
        fixture_stand_ins()
    };
    let _stand_ins = match stand_ins {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    Some(match program {
        "p1" => context0().and_then(|c| {
            let (floats, ints) = crate::programs::p1::p1_one_guard_many_handles(&c)?;
            observe("p1.c", &floats);
            observe("p1.x", &ints);
            Ok(())
        }),
        "p2" => two().and_then(|(a, b)| {
            // The contexts' handles are addresses: only what each read.
            for (n, (_, read)) in crate::programs::p2::p2_push_pop_push(&a, &b)?
                .iter()
                .enumerate()
            {
                observe(&format!("p2.read{n}"), read);
            }
            Ok(())
        }),
        "p3" => two().and_then(|(a, b)| {
            let (x, y) = crate::programs::p3::p3_nested_push(&a, &b)?;
            observe("p3.a", &x);
            observe("p3.b", &y);
            Ok(())
        }),
        "p4" => context0().and_then(|c| {
            for (n, v) in crate::programs::p4::p4_shared_context(&c, 3)?
                .iter()
                .enumerate()
            {
                observe(&format!("p4.thread{n}"), v);
            }
            Ok(())
        }),
        "p8" => two().and_then(|(a, b)| {
            let (x, y) = crate::programs::p8::p8_alternating_contexts(&a, &b, 2)?;
            observe("p8.a", &x);
            observe("p8.b", &y);
            Ok(())
        }),
        "p9" => two().and_then(|(a, b)| {
            let all = crate::programs::p9::p9_two_contexts_in_flight(&a, &b)?;
            for (n, v) in all.iter().enumerate() {
                observe(&format!("p9.{n}"), v);
            }
            Ok(())
        }),
        "p11" => two().and_then(|(a, b)| {
            let (total, round_trip, registered) =
                crate::programs::p11::p11_staging_through_pinned(&a, &b)?;
            answer("p11.total", total);
            observe("p11.round_trip", &round_trip);
            observe("p11.registered", &registered);
            Ok(())
        }),
        "parked_graph" => two().and_then(|(a, b)| {
            observe(
                "parked_graph",
                &crate::programs::parked_graph::parked_graph(&a, &b)?,
            );
            Ok(())
        }),
        "scoped_alloc" => context0().and_then(|c| {
            observe(
                "scoped_alloc",
                &crate::programs::scoped_alloc::c10_stream_ordered_alloc_in_scope(&c)?,
            );
            Ok(())
        }),
        "reuse_after_scope" => context0().and_then(|c| {
            let (a, b, d) =
                crate::programs::reuse_after_scope::c10_c11_memory_reused_after_scope(&c)?;
            observe("reuse.first", &a);
            observe("reuse.first_async", &b);
            observe("reuse.second", &d);
            Ok(())
        }),
        "scoped_host" => context0().and_then(|c| {
            observe(
                "scoped_host",
                &crate::programs::scoped_host::scoped_host(&c)?,
            );
            Ok(())
        }),
        "submission" => context0().and_then(|c| {
            observe("submission", &crate::programs::submission::submission(&c)?);
            Ok(())
        }),
        "graph" => context0().and_then(|c| {
            observe("graph", &crate::programs::graph::graph(&c)?);
            Ok(())
        }),
        "graph_built" => context0().and_then(|c| {
            observe(
                "graph_built",
                &crate::programs::graph_built::graph_built(&c)?,
            );
            Ok(())
        }),
        "graph_shared" => context0().and_then(|c| {
            observe(
                "graph_shared",
                &crate::programs::graph_shared::graph_shared(&c)?,
            );
            Ok(())
        }),
        "memory_kinds" => context0().and_then(|c| {
            observe(
                "memory_kinds",
                &crate::programs::memory_kinds::memory_kinds(&c)?,
            );
            Ok(())
        }),
        "peer" => two().and_then(|(a, b)| {
            observe("peer", &crate::programs::peer::peer(&a, &b)?);
            Ok(())
        }),
        "ipc" => context0().and_then(|c| {
            observe("ipc", &crate::programs::ipc::ipc(&c)?);
            Ok(())
        }),
        "vmm" => context0().and_then(|c| {
            observe("vmm", &crate::programs::vmm::vmm(&c)?);
            Ok(())
        }),
        "vmm_share" => context0().and_then(|c| {
            observe("vmm_share", &crate::programs::vmm_share::vmm_share(&c)?);
            Ok(())
        }),
        "managed" => context0().and_then(|c| {
            answer("managed.sum", crate::programs::managed::managed(&c)?);
            Ok(())
        }),
        "textures" => context0().and_then(|c| {
            // The first w * h values are what `tex_read` wrote (no stand-in): not observed; the
            // rest are copies (the mipmap's level 1, the array).
            let all = crate::programs::textures::textures(&c)?;
            observe("textures.copies", all.get(64 * 32..).unwrap_or(&[]));
            Ok(())
        }),
        "peer_vmm" => context0().and_then(|c| {
            observe("peer_vmm", &crate::programs::peer_vmm::peer_vmm(&c)?);
            Ok(())
        }),
        "contracts" => context0().and_then(|c| {
            observe("contracts", &crate::programs::contracts::contracts(&c)?);
            Ok(())
        }),
        "queries" => queries(),
        _ => return None,
    })
}

/// The answers of the queries custack's behaviour depends on (not the device's name, UUID, PCI
/// address or memory sizes, which the double cannot know), and an event ordering: two events
/// around a fill, the later waited for.
fn queries() -> Result<()> {
    use custack::{DeviceAttribute as A, Limit, Stack};
    let driver = Driver::init()?;
    answer("driver.version", driver.version()?);
    answer("driver.device_count", driver.device_count()?);
    let device = driver.device(0)?;
    answer("device.compute_capability", device.compute_capability()?);
    for (key, attribute) in [
        ("device.max_threads_per_block", A::MaxThreadsPerBlock),
        ("device.multiprocessor_count", A::MultiprocessorCount),
        ("device.warp_size", A::WarpSize),
        ("device.unified_addressing", A::UnifiedAddressing),
        ("device.managed_memory", A::ManagedMemory),
        ("device.concurrent_kernels", A::ConcurrentKernels),
        (
            "device.stream_priorities_supported",
            A::StreamPrioritiesSupported,
        ),
    ] {
        answer(key, device.attribute(attribute)?);
    }
    answer(
        "device.can_access_peer_self",
        device.can_access_peer(device)?,
    );
    answer(
        "device.primary_context_state",
        device.primary_context_state()?,
    );
    let ctx = Context::new(device, custack::ContextFlags::empty())?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    answer("context.api_version", guard.api_version()?);
    answer("context.flags", guard.flags()?);
    answer("context.stack_size", guard.limit(Limit::StackSize)?);
    answer("context.cache_config", guard.cache_config()?);
    answer("context.shared_mem_config", guard.shared_mem_config()?);
    answer(
        "context.stream_priority_range",
        guard.stream_priority_range()?,
    );
    answer("context.sm_count_affinity", guard.sm_count_affinity()?);
    // An event ordering: `end` recorded after `start` and a fill, then waited for.
    let stream = guard.stream()?;
    let (start, end) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );
    let mut dev = guard.alloc::<u32>(1 << 16)?;
    stream.record(&start)?;
    stream.scope(|s| s.fill_u32(s.bind_mut(&mut dev), 9))??;
    stream.record(&end)?;
    end.synchronize()?;
    answer("events.end_complete", end.is_complete()?);
    answer("events.start_complete", start.is_complete()?);
    answer("events.ordered", start.elapsed_ms(&end)? >= 0.0);
    answer("stream.idle", stream.is_complete()?);
    observe("fill", &dev.to_vec()?[..4]);
    Ok(())
}
