//! One process per GPU, as a job launcher starts them: every rank finds the others through
//! `custack::rendezvous` (rank 0 makes the NCCL id and sends it over TCP), makes its
//! communicator with `custack::nccl` and all-reduces 64 MiB of custack memory; each checks the
//! sum on the host and prints its time to the first collective. No `unsafe`.
//!
//! On one host, the example is its own launcher: run without `RANK`, it starts one process per
//! visible GPU with the variables `torchrun` sets (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`,
//! `MASTER_ADDR=127.0.0.1`, `MASTER_PORT`), waits for all of them and fails if any did. The
//! launcher's wait is bounded too: each phase of a rank (rendezvous, communicator, each
//! collective's wait) is bounded by `TIMEOUT`, so a rank still running once all of them could
//! have timed out, plus a margin, is stuck; the launcher then kills and reaps every rank still
//! running and fails with an error naming them.
//!
//! ```text
//! cargo run --release --features nccl --example 20_nccl_ranks
//! ```
//!
//! Across hosts, start one process per GPU on each with the same `WORLD_SIZE`, `MASTER_ADDR`
//! (rank 0's host) and `MASTER_PORT`, as `torchrun --no-python` or `mpirun` do; by hand, for one
//! GPU on each of two hosts:
//!
//! ```text
//! hostA$ RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=hostA MASTER_PORT=29500 target/release/examples/20_nccl_ranks
//! hostB$ RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=hostA MASTER_PORT=29500 target/release/examples/20_nccl_ranks
//! ```
//!
//! `--sweep` (passed on to every rank) also times all-reduces from 1 MiB to 1 GiB and prints
//! their bus bandwidth, as NVIDIA's `all_reduce_perf` does: `busbw = size / time × 2(n−1)/n`;
//! each size twice, call by call and as one batch (`Comm::batch`: one NCCL group of 20 calls,
//! as nccl-tests' `-m 20`, or as many as fit in half the smallest GPU's memory; `--batch K`
//! makes it K, compared with nccl-tests' `-m K`, at most the communicator's cap of 64 un-waited
//! calls, which a send/receive pair counts twice). Call by call it prints the GPU time per call (events around 20 calls) and the wall
//! time per call (the host's clock from the first timed call until the stream is idle, as
//! `all_reduce_perf` times).
//!
//! `--timings R` (with `--sweep`, passed on to every rank) times each size's 20 calls R times
//! instead of once (each after its own 5 warm-ups) and prints the median of the R GPU times and
//! of the R wall times, and the lowest and highest GPU time: a steadier figure than one timing,
//! where one stall of a rank moves a 20-call mean of a small size by tens of percent. Compare
//! with nccl-tests' `-N R` (its sweep R times) through the median of its R rows of a size.
//!
//! `--op NAME` (with `--sweep`) sweeps another collective instead, sized and counted as the
//! nccl-tests binary of the same name does, so that the two print comparable rows: `all_reduce`
//! (the default; in place), `all_gather` (size = the gathered bytes, each rank sending
//! size ÷ n; busbw factor (n−1)/n), `reduce_scatter` (size = each rank's send bytes, each
//! receiving size ÷ n; (n−1)/n), `broadcast` (root 0, in place; 1), `reduce` (root 0; 1) and
//! `sendrecv` (each rank sends size to the next rank and receives size from the previous in one
//! group, `Comm::send_recv`; 1). custack's safe calls cannot alias a send and a receive buffer,
//! so every collective but the two in-place ones compares with nccl-tests' out-of-place column.
//!
//! ```text
//! cargo run --release --features nccl --example 20_nccl_ranks -- --sweep --blocking --op all_gather
//! ```
//!
//! `--blocking` (passed on to every rank) makes the communicators in the opt-in blocking mode
//! (`NcclCalls::Blocking`: a blocking child split from the non-blocking communicator, at most
//! 64 calls un-waited); the launcher starts its ranks with `NCCL_RUNTIME_CONNECT=0`, which that
//! mode needs (set it yourself when you launch the ranks):
//!
//! ```text
//! cargo run --release --features nccl --example 20_nccl_ranks -- --sweep --blocking
//! ```
//!
//! Every wait is bounded (`TIMEOUT`): a rank that never arrives or dies makes the others fail
//! with an error naming it, never hang. Without a driver, a GPU or NCCL it says so in one line
//! (`20_nccl_ranks: no GPU work done: …`) and exits with status 1.

#![allow(
    clippy::cast_precision_loss,
    reason = "rank counts and byte sizes far below 2^24, shown as floats"
)]
#![allow(clippy::float_cmp, reason = "sums of small integers are exact in f32")]

use custack::nccl::{self, CommOptions, NcclCalls, ReduceOp, UniqueId};
use custack::rendezvous::Job;
use custack::{Context, DeviceMemory as _, Driver, EventFlags, Stack};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// Bounds the rendezvous and every wait of the communicator.
const TIMEOUT: Duration = Duration::from_secs(60);
/// What the launcher adds to its ranks' own bounds before it gives up on them: process start,
/// driver and NCCL initialisation, printing.
const LAUNCH_MARGIN: Duration = Duration::from_secs(30);
/// How often the launcher looks at its ranks.
const POLL: Duration = Duration::from_millis(50);
/// The all-reduce sizes `--sweep` times: 1 MiB to 1 GiB.
const SWEEP_SIZES: u32 = 11;
/// How many batches `--sweep` times per size (per timing).
const BATCHES: usize = 5;
/// The calls of one batch without `--batch`, as nccl-tests' `-m 20` aggregates them (fewer
/// where memory is short).
const BATCH: u32 = 20;
/// 64 MiB of f32.
const ELEMS: usize = 16 << 20;

/// The most `--timings` a size takes.
const MAX_TIMINGS: u32 = 100;

/// What the command line asks: `--sweep`, `--blocking`, `--op NAME`, `--timings R`.
#[derive(Clone, Copy)]
struct Flags {
    sweep: bool,
    blocking: bool,
    op: Collective,
    timings: u32,
    batch: u32,
}

/// The collective `--sweep` times, as nccl-tests names its binaries (`all_gather_perf`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    SendRecv,
}

impl Collective {
    const ALL: [Self; 6] = [
        Self::AllReduce,
        Self::AllGather,
        Self::ReduceScatter,
        Self::Broadcast,
        Self::Reduce,
        Self::SendRecv,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::AllReduce => "all_reduce",
            Self::AllGather => "all_gather",
            Self::ReduceScatter => "reduce_scatter",
            Self::Broadcast => "broadcast",
            Self::Reduce => "reduce",
            Self::SendRecv => "sendrecv",
        }
    }

    /// For nccl-tests' `bytes` over `n` ranks: the count passed to the call and the elements
    /// (f32) of the send and receive buffers one call uses (an in-place call's send is unused).
    fn counts(self, bytes: usize, n: usize) -> (usize, usize, usize) {
        let all = bytes / 4;
        let part = all / n;
        match self {
            Self::AllGather => (part, part, part * n),
            Self::ReduceScatter => (part, part * n, part),
            Self::AllReduce | Self::Broadcast | Self::Reduce | Self::SendRecv => (all, all, all),
        }
    }

    /// The bytes nccl-tests prints as the size of a call of `bytes` (a count that divides by
    /// `n` where the collective splits it).
    fn size(self, bytes: usize, n: usize) -> usize {
        match self {
            Self::AllGather | Self::ReduceScatter => bytes / 4 / n * n * 4,
            _ => bytes,
        }
    }

    /// The calls one record of a batch makes (a send and a receive are two).
    fn calls(self) -> usize {
        if self == Self::SendRecv { 2 } else { 1 }
    }

    /// Whether the call writes its one buffer in place (its send buffer unused).
    fn in_place(self) -> bool {
        matches!(self, Self::AllReduce | Self::Broadcast)
    }

    /// nccl-tests' bus bandwidth factor over `n` ranks.
    fn bus_factor(self, n: f64) -> f64 {
        match self {
            Self::AllReduce => 2.0 * (n - 1.0) / n,
            Self::AllGather | Self::ReduceScatter => (n - 1.0) / n,
            Self::Broadcast | Self::Reduce | Self::SendRecv => 1.0,
        }
    }
}

/// `--op NAME`, `all_reduce` without it; an unknown name is an error naming the known ones.
fn parse_op() -> Result<Collective, String> {
    let args: Vec<String> = std::env::args().collect();
    let Some(at) = args.iter().position(|a| a == "--op") else {
        return Ok(Collective::AllReduce);
    };
    let name = args.get(at + 1).map_or("", String::as_str);
    Collective::ALL
        .into_iter()
        .find(|op| op.name() == name)
        .ok_or_else(|| {
            let known: Vec<&str> = Collective::ALL.iter().map(|op| op.name()).collect();
            format!("--op {name:?}: not one of {}", known.join(", "))
        })
}

/// `FLAG N`, `default` without it; N outside 1..=`most` is an error.
fn parse_count(flag: &str, default: u32, most: u32) -> Result<u32, String> {
    let args: Vec<String> = std::env::args().collect();
    let Some(at) = args.iter().position(|a| a == flag) else {
        return Ok(default);
    };
    let value = args.get(at + 1).map_or("", String::as_str);
    value
        .parse()
        .ok()
        .filter(|r| (1..=most).contains(r))
        .ok_or_else(|| format!("{flag} {value:?}: not a whole number from 1 to {most}"))
}

fn main() -> ExitCode {
    let parsed = parse_op().and_then(|op| {
        let timings = parse_count("--timings", 1, MAX_TIMINGS)?;
        // A batch is at most a communicator's cap of un-waited calls (64).
        Ok((op, timings, parse_count("--batch", BATCH, 64)?))
    });
    let (op, timings, batch) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("20_nccl_ranks: {e}");
            return ExitCode::from(2);
        }
    };
    let flags = Flags {
        sweep: std::env::args().any(|a| a == "--sweep"),
        blocking: std::env::args().any(|a| a == "--blocking"),
        op,
        timings,
        batch,
    };
    let result = if std::env::var_os("RANK").is_some()
        || std::env::var_os("OMPI_COMM_WORLD_RANK").is_some()
    {
        rank(flags)
    } else {
        launch(flags)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("20_nccl_ranks: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Starts one rank per visible GPU on this host and waits for them.
fn launch(flags: Flags) -> Result<(), Box<dyn std::error::Error>> {
    let gpus = Driver::init()?.device_count()?;
    nccl::version()?; // a build without NCCL says so here, once
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    println!("20_nccl_ranks: starting {gpus} ranks on 127.0.0.1:{port}, one per GPU");
    let exe = std::env::current_exe()?;
    let mut ranks = Vec::with_capacity(gpus);
    for rank in 0..gpus {
        let mut cmd = Command::new(&exe);
        if flags.sweep {
            cmd.args(["--sweep", "--op", flags.op.name()]);
            cmd.args(["--timings", &flags.timings.to_string()]);
            cmd.args(["--batch", &flags.batch.to_string()]);
        }
        if flags.blocking {
            // Read once by NCCL before its first init: set in the rank's environment from its
            // start, never by the rank itself.
            cmd.arg("--blocking").env("NCCL_RUNTIME_CONNECT", "0");
        }
        ranks.push(
            cmd.env("RANK", rank.to_string())
                .env("WORLD_SIZE", gpus.to_string())
                .env("LOCAL_RANK", rank.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", port.to_string())
                .spawn()?,
        );
    }
    // A rank waits at most `TIMEOUT` in each phase (rendezvous, communicator, the collective's
    // wait, and with `--sweep` the batches' budget and per size three waits a timing: the
    // warm-ups', the timed calls', the batches'): past all of them and a margin it is stuck.
    let phases = 3 + if flags.sweep {
        1 + 3 * flags.timings * SWEEP_SIZES
    } else {
        0
    };
    wait_for_ranks(ranks, TIMEOUT * phases + LAUNCH_MARGIN)
}

/// Waits for every rank until `deadline` (from now); past it, kills and reaps every rank still
/// running. Fails naming the ranks that failed or did not finish.
fn wait_for_ranks(
    ranks: Vec<std::process::Child>,
    deadline: Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let mut running: Vec<(usize, std::process::Child)> = ranks.into_iter().enumerate().collect();
    let mut failed = Vec::new();
    while !running.is_empty() && started.elapsed() < deadline {
        let mut still = Vec::with_capacity(running.len());
        for (rank, mut child) in running {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => {}
                Ok(Some(_)) => failed.push(rank),
                Ok(None) => still.push((rank, child)),
                // Looked at again next time; past the deadline it is killed as stuck.
                Err(e) => {
                    eprintln!("20_nccl_ranks: cannot wait for rank {rank}: {e}");
                    still.push((rank, child));
                }
            }
        }
        running = still;
        if !running.is_empty() {
            std::thread::sleep(POLL);
        }
    }
    let stuck: Vec<usize> = running.iter().map(|(rank, _)| *rank).collect();
    kill_and_reap(&mut running);
    match (stuck.is_empty(), failed.is_empty()) {
        (true, true) => Ok(()),
        (true, false) => {
            Err(format!("ranks {failed:?} failed (their own lines above say why)").into())
        }
        (false, _) => Err(format!(
            "ranks {stuck:?} did not finish within {} s (killed){}",
            deadline.as_secs(),
            if failed.is_empty() {
                String::new()
            } else {
                format!("; ranks {failed:?} failed (their own lines above say why)")
            }
        )
        .into()),
    }
}

/// Kills and reaps every rank of `running` (a rank that ended meanwhile is only reaped).
fn kill_and_reap(running: &mut Vec<(usize, std::process::Child)>) {
    for (rank, child) in running.iter_mut() {
        if let Err(e) = child.kill() {
            eprintln!("20_nccl_ranks: cannot kill rank {rank}: {e}");
        }
        let _ = child.wait();
    }
    running.clear();
}

/// One rank: the rendezvous, the communicator, an all-reduce checked on the host.
fn rank(flags: Flags) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let job = Job::from_env()?;
    let (r, n) = (job.rank(), job.world_size());
    // Every rank must run the same NCCL: its version is the rendezvous' tag.
    let tag = nccl::version()?.to_string();
    let id = job.share(tag.as_bytes(), TIMEOUT, || {
        Ok(nccl::unique_id()?.to_bytes().to_vec())
    })?;
    let rendezvous = started.elapsed();
    let ctx = Context::primary(Driver::init()?.device(job.local_rank())?)?;
    let mut stack = Stack::new()?;
    let guard = stack.push(&ctx)?;
    let calls = if flags.blocking {
        NcclCalls::Blocking
    } else {
        NcclCalls::Settled
    };
    let options = CommOptions::new().calls(calls);
    let comm = guard.nccl_comm_with(&UniqueId::from_slice(&id)?, r, n, TIMEOUT, options)?;
    let init = started.elapsed();
    let stream = guard.stream()?;
    let value = (r + 1) as f32; // ranks 1..=n contribute 1..=n
    let mut x = guard.alloc_from(&vec![value; ELEMS])?;
    let mut host = guard.alloc_pinned::<f32>(ELEMS)?;
    stream.scope(|s| -> custack::Result<()> {
        let mut x = s.bind_mut(&mut x);
        comm.all_reduce_in_place(s, &mut x, ELEMS, ReduceOp::Sum)?;
        s.copy_to_host(&mut host, &x)?;
        comm.wait(s) // bounded: a dead rank is an error here, not a hang
    })??;
    let first = started.elapsed();
    // Exact: the sum of small integers is exact in f32.
    let expected = (n * (n + 1) / 2) as f32;
    let wrong = host.iter().filter(|&&v| v != expected).count();
    if wrong > 0 {
        return Err(format!("rank {r}: {wrong} elements differ from {expected}").into());
    }
    println!(
        "rank {r}/{n} (GPU {}): all-reduce (sum) of {} MiB, every element {expected}; rendezvous \
         {:.1} ms, communicator {:.1} ms ({calls:?}), first collective done {:.1} ms after start \
         (NCCL {tag})",
        job.local_rank(),
        (ELEMS * 4) >> 20,
        ms(rendezvous),
        ms(init.saturating_sub(rendezvous)),
        ms(first),
    );
    if flags.sweep {
        bus_bandwidth(&guard, &comm, &stream, flags)?;
    }
    Ok(())
}

/// Times `op` from 1 MiB to 1 GiB (nccl-tests' sizes) and prints the bus bandwidth on rank 0:
/// each call on its own (5 warm-ups waited for, 20 timed by GPU events and by the host's clock
/// until the stream is idle; `timings` times, the medians printed), then in batches
/// (`Comm::batch`, one NCCL group each) of up to 20 calls on separate buffers (as many as fit
/// in half the smallest GPU's memory): one warm-up batch, then `BATCHES` timed the same way,
/// `timings` times, the median printed.
fn bus_bandwidth(
    guard: &custack::PushedGuard<'_, '_>,
    comm: &nccl::Comm<'_>,
    stream: &custack::Stream<'_>,
    flags: Flags,
) -> custack::Result<()> {
    let (rank, n, op, timings) = (comm.rank(), comm.nranks(), flags.op, flags.timings);
    let busbw = |bytes: usize, us: f64| bytes as f64 / us / 1e3 * op.bus_factor(n as f64);
    // Every call's buffers fit in 1 GiB a side.
    let (mut send, mut recv) = (
        guard.alloc_zeroed::<f32>((1 << 30) / 4)?,
        guard.alloc_zeroed::<f32>((1 << 30) / 4)?,
    );
    let (start, stop) = (
        guard.event(EventFlags::empty())?,
        guard.event(EventFlags::empty())?,
    );
    let budget = batch_budget(guard, comm, stream)?;
    if rank == 0 {
        println!(
            "{:>12} {:>12} {:>10} {:>10} {:>8} {:>14} {:>16} {:>10} {:>10}   ({}, {:?}, {timings} \
             timing{} a size{})",
            "bytes",
            "time (us)",
            "wall (us)",
            "busbw GB/s",
            "batch",
            "batched (us)",
            "batched busbw",
            "min (us)",
            "max (us)",
            op.name(),
            comm.calls(),
            if timings == 1 { "" } else { "s" },
            if timings == 1 { "" } else { ", medians" },
        );
    }
    let mut bytes = 1usize << 20;
    while bytes <= 1 << 30 {
        let (count, send_len, recv_len) = op.counts(bytes, n);
        let size = op.size(bytes, n);
        let events = (&start, &stop);
        let (mut gpu, mut host) = time_calls(
            comm,
            stream,
            events,
            op,
            (&mut send, &mut recv),
            count,
            timings,
        )?;
        let (us, wall_us) = (median(&mut gpu), median(&mut host));
        // Sorted by `median`.
        let (low, high) = (gpu[0], gpu[gpu.len() - 1]);
        // One batch writes each buffer once: NCCL runs a group's calls in no set order. 20
        // calls a batch, as nccl-tests' `-m 20`, where the ranks' budget holds them; fewer on a
        // smaller GPU. An in-place call's send buffer is unused: one element.
        let send_len = if op.in_place() { 1 } else { send_len };
        let per_call = (send_len + recv_len) * std::mem::size_of::<f32>();
        // A send/receive pair is two calls against the communicator's cap.
        let most = (comm.unwaited_cap() / op.calls()).max(1);
        let k = (budget / per_call).clamp(1, flags.batch as usize).min(most);
        let mut parts = (0..k)
            .map(|_| {
                Ok((
                    guard.alloc_zeroed::<f32>(send_len)?,
                    guard.alloc_zeroed::<f32>(recv_len)?,
                ))
            })
            .collect::<custack::Result<Vec<_>>>()?;
        let mut batches = time_batches(comm, stream, events, op, &mut parts, count, timings)?;
        let batched = median(&mut batches);
        drop(parts);
        if rank == 0 {
            println!(
                "{size:>12} {us:>12.1} {wall_us:>10.1} {:>10.2} {k:>8} {batched:>14.1} {:>16.2} \
                 {low:>10.1} {high:>10.1}",
                busbw(size, us),
                busbw(size, batched)
            );
        }
        bytes *= 2;
    }
    Ok(())
}

/// The events around a timed stretch of a stream: start, stop.
type Events<'a, 'g> = (&'a custack::Event<'g>, &'a custack::Event<'g>);

/// Times 20 calls of `op` on `tx` and `rx`, `timings` times, each after 5 warm-ups waited for:
/// the GPU time per call (between the events) and the host's (from the first timed call until
/// the stream is idle), in µs.
fn time_calls(
    comm: &nccl::Comm<'_>,
    stream: &custack::Stream<'_>,
    (start, stop): Events<'_, '_>,
    op: Collective,
    (send, recv): (
        &mut custack::DeviceBuffer<'_, f32>,
        &mut custack::DeviceBuffer<'_, f32>,
    ),
    count: usize,
    timings: u32,
) -> custack::Result<(Vec<f64>, Vec<f64>)> {
    let (mut gpu, mut host) = (Vec::new(), Vec::new());
    for _ in 0..timings {
        let mut wall = Duration::ZERO;
        stream.scope(|s| -> custack::Result<()> {
            let tx = s.bind_mut(&mut *send);
            let mut rx = s.bind_mut(&mut *recv);
            for _ in 0..5 {
                call(op, comm, s, &tx, &mut rx, count)?;
            }
            // The warm-ups done, so that the clock below times only the 20 calls.
            comm.wait(s)?;
            let timed = Instant::now();
            s.record(start)?;
            for _ in 0..20 {
                call(op, comm, s, &tx, &mut rx, count)?;
            }
            s.record(stop)?;
            comm.wait(s)?;
            wall = timed.elapsed();
            Ok(())
        })??;
        gpu.push(f64::from(start.elapsed_ms(stop)?) * 1e3 / 20.0);
        host.push(wall.as_secs_f64() * 1e6 / 20.0);
    }
    Ok((gpu, host))
}

/// Times batches of `op` (one call on each of `parts`, one NCCL group), `timings` times: one
/// warm-up batch, then `BATCHES` between the events; the GPU time per call, in µs.
fn time_batches(
    comm: &nccl::Comm<'_>,
    stream: &custack::Stream<'_>,
    (start, stop): Events<'_, '_>,
    op: Collective,
    parts: &mut [(
        custack::DeviceBuffer<'_, f32>,
        custack::DeviceBuffer<'_, f32>,
    )],
    count: usize,
    timings: u32,
) -> custack::Result<Vec<f64>> {
    let (rank, n, k) = (comm.rank(), comm.nranks(), parts.len());
    let mut batches = Vec::new();
    for _ in 0..timings {
        stream.scope(|s| -> custack::Result<()> {
            let mut bound: Vec<_> = parts
                .iter_mut()
                .map(|(tx, rx)| (s.bind_mut(tx), s.bind_mut(rx)))
                .collect();
            for round in 0..=BATCHES {
                let mut batch = comm.batch(s);
                for (tx, rx) in &mut bound {
                    record(op, &mut batch, tx, rx, count, (rank, n))?;
                }
                // The first batch warms up; the next `BATCHES` are timed.
                if round == 1 {
                    s.record(start)?;
                }
                batch.issue()?;
            }
            s.record(stop)?;
            comm.wait(s)
        })??;
        batches.push(f64::from(start.elapsed_ms(stop)?) * 1e3 / (k * BATCHES) as f64);
    }
    Ok(batches)
}

/// The bytes every rank may give one size's batch: half the smallest GPU's memory among the
/// ranks (an all-reduce of the minimum, so that every rank makes batches of the same size).
fn batch_budget(
    guard: &custack::PushedGuard<'_, '_>,
    comm: &nccl::Comm<'_>,
    stream: &custack::Stream<'_>,
) -> custack::Result<usize> {
    let (_, total) = guard.memory_info()?;
    // In MiB, exact in f32 up to 16 TiB.
    let mut mine = guard.alloc_from(&[(total >> 21) as f32])?;
    stream.scope(|s| {
        comm.all_reduce_in_place(s, s.bind_mut(&mut mine), 1, ReduceOp::Min)?;
        comm.wait(s)
    })??;
    let least = mine.to_vec()?.first().copied().unwrap_or(0.0);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a whole number of MiB below 2^24"
    )]
    Ok((least as usize) << 20)
}

/// Enqueues one call of `op` on `tx` (read) and `rx` (written; the buffer of an in-place call),
/// root 0, the ring's neighbours as peers.
fn call<'scope>(
    op: Collective,
    comm: &nccl::Comm<'_>,
    s: &custack::StreamScope<'scope, '_>,
    tx: &custack::ScopedSliceMut<'scope, f32>,
    rx: &mut custack::ScopedSliceMut<'scope, f32>,
    count: usize,
) -> custack::Result<()> {
    let (r, n) = (comm.rank(), comm.nranks());
    match op {
        Collective::AllReduce => comm.all_reduce_in_place(s, rx, count, ReduceOp::Sum),
        Collective::AllGather => comm.all_gather(s, tx, rx, count),
        Collective::ReduceScatter => comm.reduce_scatter(s, tx, rx, count, ReduceOp::Sum),
        Collective::Broadcast => comm.broadcast(s, rx, count, 0),
        Collective::Reduce => comm.reduce(s, tx, rx, count, ReduceOp::Sum, 0),
        Collective::SendRecv => comm.send_recv(s, tx, (r + 1) % n, rx, (r + n - 1) % n, count),
    }
}

/// [`call`], recorded in `batch` of rank `r` of `n`: a send and a receive of one batch are one
/// group.
fn record<'a, 'scope>(
    op: Collective,
    batch: &mut nccl::Batch<'a, 'scope>,
    tx: &'a custack::ScopedSliceMut<'scope, f32>,
    rx: &'a mut custack::ScopedSliceMut<'scope, f32>,
    count: usize,
    (r, n): (usize, usize),
) -> custack::Result<()> {
    match op {
        Collective::AllReduce => batch.all_reduce_in_place(rx, count, ReduceOp::Sum),
        Collective::AllGather => batch.all_gather(tx, rx, count),
        Collective::ReduceScatter => batch.reduce_scatter(tx, rx, count, ReduceOp::Sum),
        Collective::Broadcast => batch.broadcast(rx, count, 0),
        Collective::Reduce => batch.reduce(tx, rx, count, ReduceOp::Sum, 0),
        Collective::SendRecv => {
            batch.send(tx, count, (r + 1) % n)?;
            batch.recv(rx, count, (r + n - 1) % n)
        }
    }
}

/// The median of `values` (sorted in place; of an even count, the mean of the middle two).
/// `values` is never empty: `timings` is at least 1.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        f64::midpoint(values[mid - 1], values[mid])
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
