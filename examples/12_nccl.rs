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
//! communicator with `custack::nccl` (`guard.nccl_rank`, bounded by a timeout) and all-reduces
//! buffers bound to a stream scope, which `comm.wait(s)` ends within the timeout: no `unsafe`.
//!
//! Then the same all-reduce from **one thread** over every GPU: the communicators from
//! `ncclCommInitAll`, every GPU's `ncclAllReduce` between `ncclGroupStart` and `ncclGroupEnd`,
//! and only then, per GPU, a submission on its stream that takes its buffers over and is parked
//! (`park_submission`): NCCL enqueues a group's work at `ncclGroupEnd`, so a submission's event
//! recorded inside the group would come before that work. Between the group call and the
//! submissions the buffers stay parked in a function that holds them. `custack::nccl` has no
//! communicator that parks yet, so this part still calls NCCL through `custack::ffi::nccl`, with
//! its `unsafe` blocks.

use std::process::ExitCode;

mod allreduce {
    use core::ffi::{c_int, c_void};
    use custack::nccl::{NcclVersion, ReduceOp, UniqueId};
    use custack::{
        Context, Device, Driver, EventFlags, ParkedBuffer, ParkedPinned, ParkedStream,
        ParkedSubmission, Stack, StackTop, ffi,
    };
    use std::ffi::CStr;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use ffi::nccl::{
        ncclAllReduce, ncclComm_t, ncclCommDestroy, ncclCommFinalize, ncclCommInitAll,
        ncclDataType_t, ncclGetErrorString, ncclGroupEnd, ncclGroupStart, ncclRedOp_t,
        ncclResult_t,
    };

    /// A communicator's waits are bounded by this: a rank that dies makes the others fail
    /// within it instead of hanging.
    const TIMEOUT: Duration = Duration::from_secs(60);

    /// A custack error, an NCCL error, or another rank's failure.
    #[derive(Debug)]
    pub(crate) enum Error {
        Cuda(custack::Error),
        Nccl(&'static str, ncclResult_t),
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
                Self::Nccl(call, result) => {
                    // SAFETY: takes any value, reads nothing.
                    let ptr = unsafe { ncclGetErrorString(*result) };
                    let text = if ptr.is_null() {
                        String::new()
                    } else {
                        // SAFETY: `ncclGetErrorString` returns a static NUL-terminated string
                        // for every value (a generic one for unlisted values).
                        unsafe { CStr::from_ptr(ptr) }
                            .to_string_lossy()
                            .into_owned()
                    };
                    write!(f, "{call} failed: {text} ({})", result.0)
                }
                Self::OtherRank => f.write_str("another rank failed before the all-reduce"),
                Self::Thread => f.write_str("a rank's thread panicked"),
            }
        }
    }

    fn check(call: &'static str, result: ncclResult_t) -> Result<(), Error> {
        if result == ncclResult_t::ncclSuccess {
            Ok(())
        } else {
            Err(Error::Nccl(call, result))
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
        let comm = guard.nccl_rank(&id, rank, nranks, TIMEOUT)?;

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

    /// One GPU's part of the one-thread all-reduce: its primary context and what stays parked
    /// between its pushes.
    struct Part<'c> {
        ctx: &'c Context,
        comm: ncclComm_t,
        stream: ParkedStream<'c>,
        send: ParkedBuffer<'c, f32>,
        recv: ParkedBuffer<'c, f32>,
        host: ParkedPinned<'c, f32>,
    }

    /// What one GPU's part leaves pending after a group call: a submission, enqueued after the
    /// group's work on the part's stream, that owns the buffers.
    type Pending<'c> = ParkedSubmission<
        'c,
        (
            ParkedBuffer<'c, f32>,
            ParkedBuffer<'c, f32>,
            ParkedPinned<'c, f32>,
        ),
    >;

    /// What a part keeps beside its pending submission: its context, communicator and stream.
    type Kept<'c> = (&'c Context, ncclComm_t, ParkedStream<'c>);

    /// The communicators `ncclCommInitAll` made, one per part; finalized and destroyed on
    /// drop (NCCL selects each communicator's device itself).
    struct Comms(Vec<ncclComm_t>);

    impl Drop for Comms {
        fn drop(&mut self) {
            for &comm in &self.0 {
                // SAFETY: a live communicator, finalized, then destroyed, once; no work of it
                // is pending (every part's pending submission was waited for or dropped, which
                // waits, before `Comms` drops: it is declared first in `run_one_thread`).
                let finalized = unsafe { ncclCommFinalize(comm) };
                // SAFETY: as above.
                let destroyed = unsafe { ncclCommDestroy(comm) };
                for (call, r) in [
                    ("ncclCommFinalize", finalized),
                    ("ncclCommDestroy", destroyed),
                ] {
                    if r != ncclResult_t::ncclSuccess {
                        eprintln!("12_nccl: {}", Error::Nccl(call, r));
                    }
                }
            }
        }
    }

    /// One all-reduce (sum) of every part's `send` into its `recv`, issued from this thread as
    /// one NCCL group call, then per part a submission on its stream, enqueued *after*
    /// `ncclGroupEnd` (which is when NCCL enqueues the group's work), that takes the buffers
    /// over, copies `recv` to the page-locked `host` when `download` is set, and is parked.
    ///
    /// Why the submissions come after the group: a submission records its event when it is
    /// made, so one made around `ncclAllReduce` inside the group would complete before NCCL's
    /// work was even enqueued, and hand its buffers back while NCCL still used them. Between
    /// the group's start and the submissions the buffers stay in `parts`, which this function
    /// holds mutably; on any error after the group started, every context is synchronized
    /// before the buffers can drop.
    fn group_all_reduce<'c>(
        top: &mut impl StackTop,
        parts: Vec<Part<'c>>,
        download: bool,
    ) -> Result<(Vec<Pending<'c>>, Vec<Kept<'c>>), Error> {
        // SAFETY: opens a group; closed below on every path.
        check("ncclGroupStart", unsafe { ncclGroupStart() })?;
        let mut issued = Ok(());
        for p in &parts {
            // SAFETY: `send` and `recv` hold ELEMS floats of device memory of `p.ctx`, owned by
            // `parts` until they move into the submissions below (or every context is
            // synchronized first, on an error); they do not overlap; `p.stream` is a live
            // stream of the communicator's context. Inside a group NCCL only records the call;
            // it enqueues the work at `ncclGroupEnd`, selecting each communicator's device.
            let r = unsafe {
                ncclAllReduce(
                    p.send.device_ptr() as *const c_void,
                    p.recv.device_ptr() as *mut c_void,
                    ELEMS,
                    ncclDataType_t::ncclFloat32,
                    ncclRedOp_t::ncclSum,
                    p.comm,
                    p.stream.as_raw(),
                )
            };
            issued = check("ncclAllReduce", r);
            if issued.is_err() {
                break;
            }
        }
        // SAFETY: closes the group opened above: NCCL enqueues the recorded all-reduces.
        let ended = check("ncclGroupEnd", unsafe { ncclGroupEnd() });
        let mut pending = Vec::with_capacity(parts.len());
        let mut kept = Vec::with_capacity(parts.len());
        let mut result = issued.and(ended);
        let mut rest = parts.into_iter();
        if result.is_ok() {
            for p in rest.by_ref() {
                let (ctx, comm) = (p.ctx, p.comm);
                // Moved out only once the push succeeded, so that a failed push leaves the
                // part here, to be dropped after its context is synchronized.
                let mut part = Some(p);
                let made = top.with_pushed(ctx, |g| -> Result<_, Error> {
                    // Every part was parked from `ctx`, so the attaches below cannot fail; checked
                    // first anyway, while the part is still held, so that nothing of it drops
                    // (freeing memory NCCL may still use) before its context is synchronized.
                    let own = part.as_ref().is_some_and(|p| {
                        [
                            p.stream.context_raw(),
                            p.send.context_raw(),
                            p.recv.context_raw(),
                            p.host.context_raw(),
                        ]
                        .iter()
                        .all(|&c| c == g.as_raw())
                    });
                    let Some(Part {
                        stream,
                        send,
                        recv,
                        host,
                        ..
                    }) = (if own { part.take() } else { None })
                    else {
                        return Err(Error::Cuda(custack::Error::from_raw(
                            ffi::CUresult::CUDA_ERROR_INVALID_CONTEXT,
                        )));
                    };
                    let stream = g.attach_stream(stream)?;
                    let payload = (g.attach(send)?, g.attach(recv)?, g.attach_pinned(host)?);
                    // After the group's all-reduce on this stream: the event it records, and
                    // so the buffers' release, follow NCCL's work. On an error `submit`
                    // synchronizes the stream before it drops the payload.
                    let work = stream.submit(payload, |s, (_send, recv, host)| {
                        if download {
                            s.copy_to_host(host, &recv)?;
                        }
                        Ok(())
                    })?;
                    Ok((g.park_submission(work), g.park_stream(stream)))
                });
                match made.map_err(Error::from).and_then(|r| r) {
                    Ok((work, stream)) => {
                        pending.push(work);
                        kept.push((ctx, comm, stream));
                    }
                    Err(e) => {
                        if let Some(p) = part {
                            let _ = top.with_pushed(p.ctx, |g| g.synchronize());
                            drop(p);
                        }
                        result = Err(e);
                        break;
                    }
                }
            }
        }
        if let Err(e) = result {
            // Some all-reduces may be enqueued: let them finish before any buffer drops.
            for p in rest {
                let _ = top.with_pushed(p.ctx, |g| g.synchronize());
                drop(p);
            }
            drop(pending); // each waits for its own work
            return Err(e);
        }
        Ok((pending, kept))
    }

    /// The one-thread variant: every GPU's all-reduce issued from this thread in one NCCL group
    /// call (`ncclCommInitAll`, `ncclGroupStart`, `ncclAllReduce` per GPU, `ncclGroupEnd`),
    /// each GPU's buffers then owned by a parked submission made after the group; the second
    /// (timed) group call is timed on the host from `ncclGroupStart` until every GPU's
    /// submission is waited for. Returns that time and how many received elements differ.
    pub(crate) fn run_one_thread(expected: f32) -> Result<(f32, usize), Error> {
        let driver = Driver::init()?;
        let devices = driver.devices()?;
        let contexts = devices
            .iter()
            .map(|&d| Context::primary(d))
            .collect::<custack::Result<Vec<_>>>()?;
        let Some(first) = contexts.first() else {
            return Err(Error::Cuda(custack::Error::from_raw(
                ffi::CUresult::CUDA_ERROR_NO_DEVICE,
            )));
        };
        let mut stack = Stack::new()?;
        // NCCL selects each communicator's device (making its primary context current) and
        // restores the device it found: the first device's primary context stays on top.
        let mut top = stack.push(first)?;
        let mut raw = vec![core::ptr::null_mut(); contexts.len()];
        let ordinals: Vec<c_int> = devices.iter().map(|d| d.ordinal() as c_int).collect();
        // SAFETY: `raw` holds one writable slot per device of `ordinals`.
        check("ncclCommInitAll", unsafe {
            ncclCommInitAll(raw.as_mut_ptr(), raw.len() as c_int, ordinals.as_ptr())
        })?;
        let comms = Comms(raw);
        let mut parts = Vec::with_capacity(contexts.len());
        for ((rank, ctx), &comm) in contexts.iter().enumerate().zip(&comms.0) {
            let value = f32::from((rank + 1) as u16); // at most a host's GPUs
            parts.push(top.with_pushed(ctx, |g| -> custack::Result<Part<'_>> {
                let mut send = g.alloc::<f32>(ELEMS)?;
                g.stream()?
                    .scope(|s| s.fill_u32(s.bind_mut(&mut send), value.to_bits()))??;
                Ok(Part {
                    ctx,
                    comm,
                    stream: g.park_stream(g.stream()?),
                    send: g.park(send),
                    recv: g.park(g.alloc::<f32>(ELEMS)?),
                    host: g.park_pinned(g.alloc_pinned::<f32>(ELEMS)?),
                })
            })??);
        }
        let mut ms = 0f32;
        let mut wrong = 0;
        // A first group call connects the ranks; the second is timed; the third downloads.
        for round in 0..3 {
            let started = std::time::Instant::now();
            let (pending, kept) = group_all_reduce(&mut top, parts, round == 2)?;
            let mut back = Vec::with_capacity(pending.len());
            for work in pending {
                back.push(work.wait()?); // under the first GPU's context, for every GPU
            }
            if round == 1 {
                ms = started.elapsed().as_secs_f32() * 1e3;
            }
            parts = Vec::with_capacity(back.len());
            for ((send, recv, host), (ctx, comm, stream)) in back.into_iter().zip(kept) {
                if round == 2 {
                    wrong += top.with_pushed(ctx, |g| -> custack::Result<usize> {
                        let host = g.attach_pinned(host)?;
                        // Exact: small integers and their sums are exact in f32.
                        Ok(host
                            .iter()
                            .filter(|x| x.to_bits() != expected.to_bits())
                            .count())
                    })??;
                    continue;
                }
                parts.push(Part {
                    ctx,
                    comm,
                    stream,
                    send,
                    recv,
                    host,
                });
            }
        }
        drop(parts);
        drop(comms);
        Ok((ms, wrong))
    }

    /// What the run did.
    pub(crate) struct Outcome {
        pub(crate) gpus: usize,
        pub(crate) version: NcclVersion,
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
                "nccl: the same all-reduce from one thread (ncclGroupStart, one ncclAllReduce per \
                 GPU, ncclGroupEnd, then a parked submission per GPU owning its buffers) in \
                 {one_thread:.3} ms (host clock, group start to every GPU waited for), every \
                 element equal to {}",
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
