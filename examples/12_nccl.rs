//! NCCL on custack's memory and streams: an all-reduce (sum) of 64 MiB of custack device memory
//! across every GPU of the host, one thread per GPU, each with its own custack stack, context
//! and stream; the result is checked on the host.
//!
//! ```text
//! cargo run --release --features interop --example 12_nccl
//! ```
//!
//! Requires the feature `interop`, under which the build script looks for NCCL (a plain
//! build of custack, and every dependent crate's, looks for nothing but libcuda). Built with
//! NCCL only when the build script finds it: `CUSTACK_NCCL_LIB_DIR` (the directory
//! holding `libnccl.so` or `libnccl.so.2`), else the CUDA toolkit and distro directories, else
//! the `nvidia-nccl-cu13` Python wheel (`<site-packages>/nvidia/nccl/lib`) of `python3`.
//! Without it the example prints how to build it and exits with status 1. NCCL is linked, not
//! loaded at run time, and no rpath is set, so the loader must find it:
//!
//! ```text
//! NV=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])')   # the wheels' nvidia/
//! LD_LIBRARY_PATH=$NV/nccl/lib:$LD_LIBRARY_PATH cargo run --release --features interop --example 12_nccl
//! ```
//!
//! With one GPU it runs a one-rank all-reduce (a copy) and says so.
//!
//! What it shows: each rank pushes its device's *primary* context (the one NCCL, like every
//! runtime-API library, works in: its internal threads select the device with
//! `cudaSetDevice`, which makes the primary context current), creates its communicator while
//! that context is current, and the communicator borrows the guard like the handles custack
//! lends. The send and receive buffers are bound to a stream scope and NCCL gets their raw
//! device pointers and the scope's raw stream, so the scope keeps them borrowed until the
//! all-reduce is complete.

use std::process::ExitCode;

#[cfg(custack_nccl)]
mod allreduce {
    use core::ffi::{c_char, c_int, c_void};
    use core::marker::{PhantomData, PhantomPinned};
    use custack::{
        Context, Device, Driver, EventFlags, PushedGuard, ScopedSliceMut, Stack, StreamScope, ffi,
    };
    use std::ffi::CStr;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// `struct ncclComm`, opaque.
    #[repr(C)]
    struct NcclComm {
        _data: [u8; 0],
        _marker: PhantomData<(*mut u8, PhantomPinned)>,
    }
    #[allow(non_camel_case_types)]
    type ncclComm_t = *mut NcclComm;
    /// `ncclResult_t`, a C enum: kept as its integer, so an unlisted value is no UB.
    #[allow(non_camel_case_types)]
    type ncclResult_t = c_int;
    const NCCL_SUCCESS: ncclResult_t = 0;
    /// `ncclDataType_t::ncclFloat32`.
    const NCCL_FLOAT32: c_int = 7;
    /// `ncclRedOp_t::ncclSum`.
    const NCCL_SUM: c_int = 0;

    /// `ncclUniqueId`: `NCCL_UNIQUE_ID_BYTES` (128) opaque bytes, passed by value.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub(crate) struct NcclUniqueId {
        internal: [c_char; 128],
    }

    // The build script sets `custack_nccl_lib` to the file it found: `libnccl.so` is linked as
    // `-l nccl`, the versioned runtime file (all the wheel has) by its exact name.
    #[cfg_attr(custack_nccl_lib = "libnccl.so", link(name = "nccl"))]
    #[cfg_attr(
        custack_nccl_lib = "libnccl.so.2",
        link(name = "libnccl.so.2", modifiers = "+verbatim")
    )]
    unsafe extern "C" {
        fn ncclGetVersion(version: *mut c_int) -> ncclResult_t;
        fn ncclGetUniqueId(unique_id: *mut NcclUniqueId) -> ncclResult_t;
        fn ncclCommInitRank(
            comm: *mut ncclComm_t,
            nranks: c_int,
            comm_id: NcclUniqueId,
            rank: c_int,
        ) -> ncclResult_t;
        // `cudaStream_t` is `CUstream`: the runtime and driver APIs share stream handles.
        fn ncclAllReduce(
            sendbuff: *const c_void,
            recvbuff: *mut c_void,
            count: usize,
            datatype: c_int,
            op: c_int,
            comm: ncclComm_t,
            stream: ffi::CUstream,
        ) -> ncclResult_t;
        fn ncclCommFinalize(comm: ncclComm_t) -> ncclResult_t;
        fn ncclCommDestroy(comm: ncclComm_t) -> ncclResult_t;
        fn ncclGetErrorString(result: ncclResult_t) -> *const c_char;
    }

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
                    // SAFETY: `ncclGetErrorString` returns a static NUL-terminated string for
                    // every value (a generic one for unlisted values).
                    let text = unsafe { CStr::from_ptr(ptr) };
                    write!(f, "{call} failed: {} ({result})", text.to_string_lossy())
                }
                Self::OtherRank => f.write_str("another rank failed before the all-reduce"),
                Self::Thread => f.write_str("a rank's thread panicked"),
            }
        }
    }

    fn check(call: &'static str, result: ncclResult_t) -> Result<(), Error> {
        if result == NCCL_SUCCESS {
            Ok(())
        } else {
            Err(Error::Nccl(call, result))
        }
    }

    /// An NCCL communicator of the guard's context. NCCL requires "the context current when
    /// creating a communicator" to be current for every operation on it, so it borrows the
    /// guard, like the handles custack lends.
    struct Comm<'g> {
        raw: ncclComm_t,
        _guard: PhantomData<&'g ()>,
    }

    impl<'g> Comm<'g> {
        /// `ncclCommInitRank`: blocks until every rank has called it.
        fn init_rank(
            _current: &'g PushedGuard<'_, '_>,
            nranks: usize,
            id: NcclUniqueId,
            rank: usize,
        ) -> Result<Self, Error> {
            let (nranks, rank) = (nranks as c_int, rank as c_int); // at most a host's GPUs
            let mut raw = core::ptr::null_mut();
            // SAFETY: a valid out-pointer; `id` comes from `ncclGetUniqueId`; the guard proves
            // a context is current.
            let r = unsafe { ncclCommInitRank(&raw mut raw, nranks, id, rank) };
            check("ncclCommInitRank", r)?;
            Ok(Self {
                raw,
                _guard: PhantomData,
            })
        }

        /// `ncclAllReduce` (sum) of `send` into `recv`, enqueued on the scope's stream. Both are
        /// bound to the scope, so they stay borrowed until it has waited for the stream.
        fn all_reduce_sum<'scope>(
            &self,
            scope: &StreamScope<'scope, '_>,
            send: &ScopedSliceMut<'scope, f32>,
            recv: &mut ScopedSliceMut<'scope, f32>,
        ) -> Result<(), Error> {
            let count = send.len().min(recv.len());
            // SAFETY: `send` and `recv` hold at least `count` floats of device memory of the
            // current context, bound to this scope until its stream is synchronized, `recv`
            // exclusively (they do not overlap); the stream is a live stream of the
            // communicator's context (the guard it borrows is current and lent the stream).
            let r = unsafe {
                ncclAllReduce(
                    send.device_ptr() as *const c_void,
                    recv.device_ptr() as *mut c_void,
                    count,
                    NCCL_FLOAT32,
                    NCCL_SUM,
                    self.raw,
                    scope.as_raw(),
                )
            };
            check("ncclAllReduce", r)
        }
    }

    impl Drop for Comm<'_> {
        fn drop(&mut self) {
            // SAFETY: a live communicator whose context is current (it borrows the guard);
            // finalized, then destroyed, once.
            let finalized = unsafe { ncclCommFinalize(self.raw) };
            // SAFETY: as above.
            let destroyed = unsafe { ncclCommDestroy(self.raw) };
            for (call, r) in [
                ("ncclCommFinalize", finalized),
                ("ncclCommDestroy", destroyed),
            ] {
                if r != NCCL_SUCCESS {
                    eprintln!("12_nccl: {}", Error::Nccl(call, r));
                }
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
        id: NcclUniqueId,
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
        let comm = Comm::init_rank(&guard, nranks, id, rank)?; // ctx is current: NCCL binds it

        let value = f32::from((rank + 1) as u16); // at most a host's GPUs
        stream.scope(|s| -> Result<(), Error> {
            let (mut send, mut recv) = (s.bind_mut(&mut send), s.bind_mut(&mut recv));
            s.fill_u32(&mut send, value.to_bits())?;
            // A first all-reduce connects the ranks (NCCL sets its channels up lazily); the
            // timed one after it is the steady state.
            comm.all_reduce_sum(s, &send, &mut recv)?;
            s.record(&start)?;
            comm.all_reduce_sum(s, &send, &mut recv)?;
            s.record(&stop)?;
            s.copy_to_host(&mut host, &recv)?;
            Ok(())
        })??; // the scope waited for the stream: `host` holds the sum
        let ms = start.elapsed_ms(&stop)?;
        // Exact: small integers and their sums are exact in f32.
        let wrong = host
            .iter()
            .filter(|x| x.to_bits() != expected.to_bits())
            .count();
        Ok((ms, wrong))
    }

    /// What the run did.
    pub(crate) struct Outcome {
        pub(crate) gpus: usize,
        pub(crate) version: c_int,
        pub(crate) expected: f32,
        pub(crate) slowest_ms: f32,
        pub(crate) wrong: usize,
    }

    /// Runs one rank per GPU, each on its own thread.
    pub(crate) fn run() -> Result<Outcome, Error> {
        let driver = Driver::init()?;
        let devices = driver.devices()?;
        let gpus = devices.len();
        let mut version: c_int = 0;
        // SAFETY: a valid out-pointer.
        check("ncclGetVersion", unsafe {
            ncclGetVersion(&raw mut version)
        })?;
        let mut id = NcclUniqueId { internal: [0; 128] };
        // SAFETY: a valid out-pointer.
        check("ncclGetUniqueId", unsafe { ncclGetUniqueId(&raw mut id) })?;
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

#[cfg(custack_nccl)]
fn main() -> ExitCode {
    match allreduce::run() {
        Ok(o) if o.wrong == 0 => {
            let mib = (allreduce::ELEMS * size_of::<f32>()) >> 20;
            let (gpus, alone) = match o.gpus {
                1 => ("1 GPU".to_owned(), " (one rank: the all-reduce is a copy)"),
                n => (format!("{n} GPUs"), ""),
            };
            println!(
                "nccl: all-reduce (sum) of {mib} MiB across {gpus} on custack streams{alone} in \
                 {:.3} ms (after a warm-up), every element equal to {} (NCCL {}.{}.{})",
                o.slowest_ms,
                o.expected,
                o.version / 10000,
                o.version / 100 % 100,
                o.version % 100
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

#[cfg(not(custack_nccl))]
fn main() -> ExitCode {
    eprintln!(
        "12_nccl: not built with NCCL: set CUSTACK_NCCL_LIB_DIR to the directory holding \
         libnccl.so(.2), e.g. <site-packages>/nvidia/nccl/lib of the nvidia-nccl-cu13 wheel, and \
         build again"
    );
    ExitCode::FAILURE
}
