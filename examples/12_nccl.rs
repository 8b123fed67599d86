//! NCCL on custack's memory and streams: an all-reduce (sum) of 64 MiB of custack device memory
//! across every GPU of the host, one thread per GPU, each with its own custack stack, context
//! and stream; the result is checked on the host.
//!
//! ```text
//! cargo run --release --features nccl --example 12_nccl
//! ```
//!
//! Requires the feature `nccl`, under which the build script finds and links NCCL
//! (`CUSTACK_NCCL_LIB_DIR`, the directory holding `libnccl.so` or `libnccl.so.2`, else the CUDA
//! toolkit and distro directories, else the `nvidia-nccl-cu13` Python wheel,
//! `<site-packages>/nvidia/nccl/lib`). Without it the example says so in one line and exits
//! with status 1. NCCL is linked, not loaded at run time, and no rpath is set, so the loader
//! must find it:
//!
//! ```text
//! NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')   # the wheels' nvidia/
//! LD_LIBRARY_PATH=$NV/nccl/lib:$LD_LIBRARY_PATH cargo run --release --features nccl --example 12_nccl
//! ```
//!
//! With one GPU it runs a one-rank all-reduce (a copy) and says so.
//!
//! Each rank pushes its device's *primary* context (the one NCCL works in), makes its
//! communicator with `custack::nccl` (`guard.nccl_comm`, bounded by a timeout) and all-reduces
//! buffers bound to a stream scope, which `comm.wait(s)` ends within the timeout.
//!
//! Then the same all-reduce from **one thread** over every GPU: the communicators of every
//! primary context made from this thread (`nccl::comms`: one NCCL group of initializations,
//! each context pushed in turn), parked like streams and buffers, and each all-reduce one NCCL
//! group over every GPU's parked communicator, stream and buffers (`nccl::all_reduce_parked`),
//! which returns once every GPU's stream has finished, so the buffers are only borrowed for the
//! call. No `unsafe` anywhere.
//!
//! `--sweep` times only that one-thread all-reduce, from 1 MiB to 1 GiB (out of place; each
//! call waited for, so its time on the host clock is the whole round trip), and prints µs per
//! call and the bus bandwidth.

use std::process::ExitCode;

mod allreduce {
    use custack::nccl::{self, ParkedPart, ReduceOp, UniqueId};
    use custack::prelude::*;
    use custack::{Context, Device, Driver, EventFlags, ParkedBuffer, ParkedStream, Stack};
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// A communicator's waits are bounded by this: a rank that dies makes the others fail
    /// within it instead of hanging.
    const TIMEOUT: Duration = Duration::from_secs(60);

    /// A custack error, or another rank's failure.
    #[derive(Debug)]
    pub(crate) enum Error {
        Cuda(custack::Error),
        OtherRank,
        Thread,
    }

    impl From<custack::Error> for Error {
        fn from(e: custack::Error) -> Self {
            Self::Cuda(e)
        }
    }

    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Self::Cuda(e) => write!(f, "{e}"),
                Self::OtherRank => f.write_str("another rank failed before the all-reduce"),
                Self::Thread => f.write_str("a rank's thread panicked"),
            }
        }
    }

    /// 64 MiB of f32 on every GPU.
    pub(crate) const ELEMS: usize = 16 << 20;

    /// Every rank reaches it before `ncclCommInitRank`, which blocks until all ranks call it:
    /// a rank that fails earlier arrives on drop and marks the run failed, so the others skip
    /// NCCL instead of waiting for it forever.
    struct Rendezvous<'a> {
        barrier: &'a Barrier,
        failed: &'a AtomicBool,
        arrived: bool,
    }

    impl Rendezvous<'_> {
        /// Waits for every rank; whether all of them are ready.
        fn all_ready(mut self) -> bool {
            self.arrived = true;
            self.barrier.wait();
            !self.failed.load(Ordering::SeqCst)
        }
    }

    impl Drop for Rendezvous<'_> {
        fn drop(&mut self) {
            if !self.arrived {
                self.failed.store(true, Ordering::SeqCst);
                self.barrier.wait();
            }
        }
    }

    /// One rank on `device`: fills its send buffer with `rank + 1`, all-reduces twice, and
    /// returns the second all-reduce's time in ms and how many received elements differ from `expected`.
    fn rank(
        device: Device,
        (rank, nranks): (usize, usize),
        id: UniqueId,
        rendezvous: Rendezvous<'_>,
        expected: f32,
    ) -> Result<(f32, usize), Error> {
        let ctx = Context::primary(device)?; // the context NCCL works in
        let mut stack = Stack::new()?; // this thread's stack
        let guard = stack.push(&ctx)?;
        let stream = guard.stream()?;
        let mut send = guard.alloc::<f32>(ELEMS)?;
        let mut recv = guard.alloc::<f32>(ELEMS)?;
        let mut host = guard.alloc_pinned::<f32>(ELEMS)?;
        let (start, stop) = (
            guard.event(EventFlags::empty())?,
            guard.event(EventFlags::empty())?,
        );
        if !rendezvous.all_ready() {
            return Err(Error::OtherRank);
        }
        // The primary context is current: NCCL binds the communicator to it.
        let comm = guard.nccl_comm(&id, rank, nranks, TIMEOUT)?;

        let value = f32::from((rank + 1) as u16); // at most a host's GPUs
        stream.scope(|s| -> Result<(), Error> {
            let (mut send, mut recv) = (s.bind_mut(&mut send), s.bind_mut(&mut recv));
            s.fill_u32(&mut send, value.to_bits())?;
            // A first all-reduce connects the ranks (NCCL sets its channels up lazily); the
            // timed one after it is the steady state.
            comm.all_reduce(s, &send, &mut recv, ELEMS, ReduceOp::Sum)?;
            s.record(&start)?;
            comm.all_reduce(s, &send, &mut recv, ELEMS, ReduceOp::Sum)?;
            s.record(&stop)?;
            s.copy_to_host(&mut host, &recv)?;
            // Bounded: a rank that died makes this an error within TIMEOUT, not a hang.
            Ok(comm.wait(s)?)
        })??; // the scope waited for the stream: `host` holds the sum
        let ms = start.elapsed_ms(&stop)?;
        // Exact: small integers and their sums are exact in f32.
        let wrong = host
            .iter()
            .filter(|x| x.to_bits() != expected.to_bits())
            .count();
        Ok((ms, wrong))
    }

    /// One GPU's buffers and stream for the one-thread all-reduce, parked between its pushes.
    type Part<'c> = (
        ParkedStream<'c>,
        ParkedBuffer<'c, f32>,
        ParkedBuffer<'c, f32>,
    );

    /// The one-thread variant: the communicators of every GPU made from this thread
    /// (`nccl::comms`, one NCCL group of `ncclCommInitRankConfig` with each primary context
    /// pushed in turn), then each all-reduce issued as one NCCL group over every GPU's parked
    /// communicator, stream and buffers (`nccl::all_reduce_parked`), which returns once every
    /// GPU's stream has finished. The second (timed) call is timed on the host. Returns that
    /// time and how many received elements differ.
    pub(crate) fn run_one_thread(expected: f32) -> Result<(f32, usize), Error> {
        let driver = Driver::init()?;
        let contexts = driver
            .devices()?
            .into_iter()
            .map(Context::primary)
            .collect::<custack::Result<Vec<_>>>()?;
        let refs: Vec<&Context> = contexts.iter().collect();
        let mut stack = Stack::new()?;
        let comms = nccl::comms(&mut stack, &refs, TIMEOUT)?;
        let mut parts: Vec<Part<'_>> = Vec::with_capacity(refs.len());
        for (rank, &ctx) in refs.iter().enumerate() {
            let value = f32::from((rank + 1) as u16); // at most a host's GPUs
            parts.push(stack.with_pushed(ctx, |g| -> custack::Result<Part<'_>> {
                let mut send = g.alloc::<f32>(ELEMS)?;
                g.stream()?
                    .scope(|s| s.fill_u32(s.bind_mut(&mut send), value.to_bits()))??;
                Ok((
                    g.park_stream(g.stream()?),
                    g.park(send),
                    g.park(g.alloc::<f32>(ELEMS)?),
                ))
            })??);
        }
        let mut ms = 0f32;
        // A first call connects the ranks; the second is timed.
        for round in 0..2 {
            let mut group: Vec<ParkedPart<'_, '_, f32>> = comms
                .iter()
                .zip(parts.iter_mut())
                .map(|(comm, (stream, send, recv))| ParkedPart {
                    comm,
                    stream,
                    send,
                    recv,
                })
                .collect();
            let started = std::time::Instant::now();
            nccl::all_reduce_parked(&mut group, ELEMS, ReduceOp::Sum)?;
            if round == 1 {
                ms = started.elapsed().as_secs_f32() * 1e3;
            }
        }
        let mut wrong = 0;
        for (&ctx, (_, _, recv)) in refs.iter().zip(parts) {
            wrong += stack.with_pushed(ctx, |g| -> custack::Result<usize> {
                let recv = g.attach(recv)?.to_vec()?;
                // Exact: small integers and their sums are exact in f32.
                Ok(recv
                    .iter()
                    .filter(|x| x.to_bits() != expected.to_bits())
                    .count())
            })??;
        }
        drop(comms);
        Ok((ms, wrong))
    }

    /// `--sweep`: the one-thread all-reduce (`nccl::all_reduce_parked`, out of place, every
    /// GPU's stream waited for) from 1 MiB to 1 GiB, 5 warm-ups then 20 timed calls on the host
    /// clock; prints µs per call and the bus bandwidth (`size / time × 2(n−1)/n`).
    #[allow(
        clippy::cast_precision_loss,
        reason = "GPU counts and byte sizes far below 2^52, shown as floats"
    )]
    pub(crate) fn sweep_one_thread() -> Result<(), Error> {
        const MAX: usize = (1 << 30) / 4;
        let driver = Driver::init()?;
        let contexts = driver
            .devices()?
            .into_iter()
            .map(Context::primary)
            .collect::<custack::Result<Vec<_>>>()?;
        let refs: Vec<&Context> = contexts.iter().collect();
        let n = refs.len() as f64;
        let mut stack = Stack::new()?;
        let comms = nccl::comms(&mut stack, &refs, TIMEOUT)?;
        let mut parts: Vec<Part<'_>> = Vec::with_capacity(refs.len());
        for &ctx in &refs {
            parts.push(stack.with_pushed(ctx, |g| -> custack::Result<Part<'_>> {
                Ok((
                    g.park_stream(g.stream()?),
                    g.park(g.alloc_zeroed::<f32>(MAX)?),
                    g.park(g.alloc_zeroed::<f32>(MAX)?),
                ))
            })??);
        }
        println!(
            "{:>12} {:>12} {:>10}  ({} GPUs, one thread, all_reduce_parked)",
            "bytes",
            "time (us)",
            "busbw GB/s",
            refs.len()
        );
        let mut bytes = 1usize << 20;
        while bytes <= 1 << 30 {
            let count = bytes / 4;
            let mut timed = std::time::Duration::ZERO;
            for i in 0..25 {
                let mut group: Vec<ParkedPart<'_, '_, f32>> = comms
                    .iter()
                    .zip(parts.iter_mut())
                    .map(|(comm, (stream, send, recv))| ParkedPart {
                        comm,
                        stream,
                        send,
                        recv,
                    })
                    .collect();
                let started = std::time::Instant::now();
                nccl::all_reduce_parked(&mut group, count, ReduceOp::Sum)?;
                if i >= 5 {
                    timed += started.elapsed();
                }
            }
            let us = timed.as_secs_f64() * 1e6 / 20.0;
            let busbw = bytes as f64 / us / 1e3 * 2.0 * (n - 1.0) / n;
            println!("{bytes:>12} {us:>12.1} {busbw:>10.2}");
            bytes *= 2;
        }
        drop(comms);
        Ok(())
    }

    /// What the run did.
    pub(crate) struct Outcome {
        pub(crate) gpus: usize,
        pub(crate) version: custack::LibraryVersion,
        pub(crate) expected: f32,
        pub(crate) slowest_ms: f32,
        pub(crate) wrong: usize,
    }

    /// Runs one rank per GPU, each on its own thread.
    pub(crate) fn run() -> Result<Outcome, Error> {
        let driver = Driver::init()?;
        let devices = driver.devices()?;
        let gpus = devices.len();
        let version = custack::nccl::version()?;
        let id = custack::nccl::unique_id()?;
        for device in &devices {
            println!("device {}: {}", device.ordinal(), device.name()?);
        }

        // Ranks 1..=n contribute 1..=n: the sum n(n+1)/2 is exact in f32.
        let expected = f32::from((gpus * (gpus + 1) / 2) as u16);
        let barrier = Barrier::new(gpus);
        let failed = AtomicBool::new(false);
        let results: Vec<Result<(f32, usize), Error>> = std::thread::scope(|threads| {
            let handles: Vec<_> = devices
                .iter()
                .enumerate()
                .map(|(r, &device)| {
                    let rendezvous = Rendezvous {
                        barrier: &barrier,
                        failed: &failed,
                        arrived: false,
                    };
                    threads.spawn(move || rank(device, (r, gpus), id, rendezvous, expected))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Err(Error::Thread)))
                .collect()
        });

        let (mut slowest_ms, mut wrong) = (0f32, 0);
        let mut first_error = None;
        for result in results {
            match result {
                Ok((ms, w)) => {
                    slowest_ms = slowest_ms.max(ms);
                    wrong += w;
                }
                // A rank's own error explains more than "another rank failed".
                Err(Error::OtherRank) => {}
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        Ok(Outcome {
            gpus,
            version,
            expected,
            slowest_ms,
            wrong,
        })
    }
}

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--sweep") {
        return match allreduce::sweep_one_thread() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("12_nccl: no GPU work done: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match allreduce::run() {
        Ok(o) if o.wrong == 0 => {
            // The same all-reduce again, every GPU's call from this one thread (group call).
            let one_thread = match allreduce::run_one_thread(o.expected) {
                Ok((ms, 0)) => ms,
                Ok((_, wrong)) => {
                    eprintln!(
                        "12_nccl: one thread, group call: {wrong} received elements differ from {}",
                        o.expected
                    );
                    return ExitCode::FAILURE;
                }
                Err(e) => {
                    eprintln!("12_nccl: one thread, group call: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let mib = (allreduce::ELEMS * size_of::<f32>()) >> 20;
            let (gpus, alone) = match o.gpus {
                1 => ("1 GPU".to_owned(), " (one rank: the all-reduce is a copy)"),
                n => (format!("{n} GPUs"), ""),
            };
            println!(
                "nccl: all-reduce (sum) of {mib} MiB across {gpus} on custack streams{alone} in \
                 {:.3} ms (after a warm-up), every element equal to {} (NCCL {})",
                o.slowest_ms, o.expected, o.version
            );
            println!(
                "nccl: the same all-reduce from one thread (nccl::all_reduce_parked: one NCCL \
                 group over every GPU's parked communicator, stream and buffers) in \
                 {one_thread:.3} ms (host clock, group start to every GPU's stream finished), \
                 every element equal to {}",
                o.expected
            );
            ExitCode::SUCCESS
        }
        Ok(o) => {
            eprintln!(
                "12_nccl: {} received elements differ from {} across {} GPUs",
                o.wrong, o.expected, o.gpus
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("12_nccl: no GPU work done: {e}");
            ExitCode::FAILURE
        }
    }
}
