//! A declared kernel run twice per frame on two partitions of the device's SMs that share no
//! SM, the two results compared ([`RedundantKernel`], made by
//! [`InitPhase::redundant`](crate::safety::InitPhase::redundant)): the placement half of
//! software-only diverse redundancy (Alcaide et al., "Achieving Diverse Redundancy for GPU
//! Kernels", IEEE TETC), whose comparison half is [`Replicas`].
//!
//! Each partition is a green context over one group of a split of the device's SMs
//! (`cuDevSmResourceSplitByCount`, `cuGreenCtxCreate`), with one stream of its own
//! (`cuGreenCtxStreamCreate`): work on that stream runs on the partition's SMs only, while the
//! primary context stays current, so both runs launch the function the primary context's
//! module holds and read the primary context's memory (green contexts share both with it;
//! `tests/gpu_redundancy.rs`). Everything is made in the init phase and counted in the
//! context's [`Budget`](crate::safety::Budget): the two partitions
//! ([`Budget::partitions`](crate::safety::Budget::partitions)), their two streams, the kernel's
//! lookup, both outputs and the page-locked copies; for a comparison on the device
//! ([`CompareOn::Device`]) the lookup of [`ReplicasCompare`](crate::safety::ReplicasCompare), its event and its 16-byte verdict.
//! A frame allocates nothing.
//!
//! Outputs of [`CompareOn::DEVICE_FROM_BYTES`] (256 KiB) or more are compared on the device by
//! default: partition 0's stream waits for an event recorded after replica 1 on partition 1's,
//! then [`ReplicasCompare`](crate::safety::ReplicasCompare) reads both outputs and only its verdict (and replica 0's output)
//! comes back. On an H100 that took a device-filling kernel's redundant frame (64 MiB output)
//! from 7.9 to 8.4 times a single run's cost, compared on the host, to 1.06 to 1.15 times
//! (`tests/gpu_redundancy.rs`, two runs).
//!
//! # Examples
//!
//! ```no_run
//! use custack::safety::{Budget, OnMismatch, Profile, RestrictedContext};
//! use custack::{ErrorKind, LaunchConfig, Stack};
//!
//! custack::kernel_contract! {
//!     /// `mix(unsigned* out, const unsigned* in, unsigned n, unsigned frame, unsigned flip_at)`.
//!     unsafe kernel Mix = "mix"(out: &mut [u32; n], input: &[u32; n], n: u32, frame: u32, flip_at: u32);
//! }
//!
//! const N: usize = 4096;
//! let image = std::fs::read("redundancy.cubin")?; // nvcc -cubin -arch=sm_90 redundancy.cu
//! let profile = Profile::init(1)?;
//! // Two partitions, a stream each, the input, both outputs and their page-locked copies.
//! let budget = Budget::page_locked(2 * N * 4)
//!     .device_bytes(3 * N * 4)
//!     .partitions(2)
//!     .streams(2)
//!     .modules(1)
//!     .kernels(1);
//! let mut ctx = RestrictedContext::primary(&profile, profile.device(0)?, budget)?;
//! let mut stack = Stack::new()?;
//! let mut guard = ctx.push(&mut stack)?;
//! let init = guard.init()?;
//! // SAFETY: a complete cubin built for this device ahead of time.
//! let module = unsafe { init.load_cubin(&image) }?;
//! let input = init.alloc::<u32>(N)?;
//! // `mix` twice a frame, on two partitions of 16 SMs or more; its `out` compared.
//! let mut twice = init.redundant::<Mix, u32>(&module, "out", N, 16, OnMismatch::ReturnError)?;
//! let run = init.seal();
//! let cfg = LaunchConfig::for_elements(N as u32);
//! for frame in 0..1000u32 {
//!     // The inputs are handed to the closure, which binds them in each partition's scope.
//!     let outcome = twice.run(&(&input,), |_replica, s, kernel, out, &(input,)| {
//!         s.run(kernel, cfg, (out, s.bind(input), N as u32, frame, u32::MAX))
//!     });
//!     match outcome {
//!         Ok(()) => { /* twice.replica(0) is the frame's result, checked */ }
//!         Err(e) if e.kind() == ErrorKind::ReplicasDiffer => { /* a wrong result: drop it */ }
//!         Err(e) => return Err(e.into()),
//!     }
//! }
//! drop((twice, input));
//! drop(run);
//! drop(module);
//! guard.shutdown()?;
//! ctx.destroy()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::asynchronous::stream::{record_event, wait_event};
use crate::context::green::destroy_green;
use crate::error::{ErrorKind, Result, record_drop_error};
use crate::ffi;
use crate::kernel::contract::{Contract, PlainLaunch};
use crate::kernel::launch::LaunchConfig;
use crate::memory::{DeviceMemory, PinnedBuffer};
use crate::safety::redundant::{CompareContract, CompareOn, Replicas, VERDICT_NOT_BACK};
use crate::safety::scope::RestrictedScope;
use crate::safety::stream::RestrictedStream;
use crate::safety::values::{RestrictedBuffer, RestrictedEvent, RestrictedKernel};
use crate::vocabulary::binding::{ScopedSlice, ScopedSliceMut};
use crate::vocabulary::plain::DeviceCopy;

/// A green context the init phase made for a partition; destroyed on drop, after its stream.
#[derive(Debug)]
pub(crate) struct OwnedGreen(pub(crate) ffi::CUgreenCtx);

impl Drop for OwnedGreen {
    fn drop(&mut self) {
        if let Err(e) = destroy_green(self.0) {
            record_drop_error(e);
        }
    }
}

/// One partition: its stream (declared first, so dropped before the green context it belongs
/// to), the green context, and the number of SMs it has.
#[derive(Debug)]
pub(crate) struct Partition<'g> {
    pub(crate) stream: RestrictedStream<'g>,
    /// Held only to be destroyed, after the stream.
    pub(crate) _green: OwnedGreen,
    pub(crate) sm_count: u32,
}

/// How the two replicas are compared ([`CompareOn`]), with what that needs, made in the init
/// phase.
#[derive(Debug)]
pub(crate) enum Check<'g, 'm, T: DeviceCopy> {
    /// On the host: replica 1's page-locked copy (replica 0's is the kernel's `staging`).
    Host(PinnedBuffer<'g, T>),
    /// On the device.
    Device(OnDevice<'g, 'm>),
}

/// The comparison on the device: the compare kernel, its verdict on the device and its
/// page-locked copy, and the event that orders the compare after replica 1.
#[derive(Debug)]
pub(crate) struct OnDevice<'g, 'm> {
    pub(crate) kernel: RestrictedKernel<'m, CompareContract>,
    pub(crate) config: LaunchConfig,
    pub(crate) verdict: RestrictedBuffer<'g, u64>,
    pub(crate) verdict_host: PinnedBuffer<'g, u64>,
    /// Recorded on partition 1's stream after replica 1, waited for on partition 0's before the
    /// compare.
    pub(crate) done: RestrictedEvent<'g>,
    /// Whether the driver records `done` on a partition's stream (it did in the init phase's
    /// probe): where it does not, the host's wait for replica 1 orders the compare instead.
    pub(crate) by_event: bool,
}

impl<'g, 'm> OnDevice<'g, 'm> {
    /// The comparison on the device of `len`-element outputs, on `partitions`, with what the
    /// init phase made for it. The probe: the event recorded on partition 1's stream and waited
    /// for on partition 0's, as each frame will; a driver that refuses an event of the primary
    /// context there (`CUDA_ERROR_INVALID_HANDLE` or `INVALID_CONTEXT`) leaves the ordering to
    /// the host's wait.
    pub(crate) fn new(
        kernel: RestrictedKernel<'m, CompareContract>,
        verdict: RestrictedBuffer<'g, u64>,
        verdict_host: PinnedBuffer<'g, u64>,
        done: RestrictedEvent<'g>,
        partitions: &[Partition<'g>; 2],
        len: usize,
    ) -> Result<Self> {
        let [first, second] = partitions;
        let probe = record_event(second.stream.stream().as_raw(), done.event())
            .and_then(|()| wait_event(first.stream.stream().as_raw(), done.event()));
        let by_event = match probe {
            Ok(()) => true,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::InvalidHandle | ErrorKind::InvalidContext
                ) =>
            {
                false
            }
            Err(e) => return Err(e),
        };
        // Blocks of 256 threads, 8 per SM of partition 0 (2,048 threads, an H100's SM full),
        // never more than the output's elements need: the kernel's grid-stride loop covers the
        // rest.
        let blocks = len.div_ceil(256).clamp(
            1,
            usize::try_from(first.sm_count)
                .unwrap_or(1)
                .saturating_mul(8)
                .max(1),
        );
        let config = LaunchConfig {
            grid: (u32::try_from(blocks).unwrap_or(u32::MAX), 1, 1),
            block: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        Ok(Self {
            kernel,
            config,
            verdict,
            verdict_host,
            done,
            by_event,
        })
    }
}

/// A declared kernel run once in each of two SM partitions of the device per frame, each run
/// into its own copy of the output parameter, the two copies compared bit for bit after both
/// completed: on the host or on the device ([`CompareOn`], chosen in the init phase). Made by
/// [`InitPhase::redundant`](crate::safety::InitPhase::redundant);
/// [`run`](Self::run) is the run phase's one call per frame.
///
/// The kernel's other arguments (its inputs, its scalars) are the caller's, given per run by
/// the closure [`run`](Self::run) takes; the output is the kernel's: a device buffer per
/// partition and a page-locked copy of replica 0's (and of replica 1's where the comparison is
/// on the host), made in the init phase.
///
/// Borrows the guard (`'g`) and the module (`'m`): it never leaves the thread, and no
/// second init phase opens while it lives.
#[derive(Debug)]
pub struct RedundantKernel<'g, 'm, C: Contract, T: DeviceCopy> {
    pub(crate) kernel: RestrictedKernel<'m, C>,
    pub(crate) partitions: [Partition<'g>; 2],
    pub(crate) outputs: [RestrictedBuffer<'g, T>; 2],
    /// Replica 0's page-locked copy.
    pub(crate) staging: PinnedBuffer<'g, T>,
    pub(crate) check: Check<'g, 'm, T>,
    pub(crate) output: &'static str,
    pub(crate) replicas: Replicas,
    pub(crate) frames: u64,
}

impl<'g, 'm, C: PlainLaunch, T: DeviceCopy> RedundantKernel<'g, 'm, C, T> {
    /// Runs one frame: `f` enqueues the kernel's launch in the first partition, then in the
    /// second, each time given the replica's index (0, then 1), the partition's
    /// [`RestrictedScope`], the kernel, that replica's output bound writably, and `inputs`;
    /// replica 0's output is then copied into its page-locked copy, and the two outputs are
    /// compared.
    ///
    /// `inputs` is what the kernel reads (typically a tuple of `&RestrictedBuffer`s), handed to
    /// `f` rather than captured by it: a scope binds only what outlives it, and the argument
    /// says so for every scope `f` is given (a closure that captures a buffer by reference
    /// does not compile; scalars captured by value do). Both runs are enqueued before either is
    /// waited for, so they run at the same time, each on its own SMs. Each wait is bounded by
    /// the context's [`WaitBound`](crate::safety::WaitBound) (past it, the safe state, as for
    /// every scope).
    ///
    /// The comparison ([`compare_on`](Self::compare_on)), naming the frame and the output
    /// parameter: on the host, replica 1's output is copied back too and the two copies are
    /// compared ([`Replicas::compare`]); on the device, partition 0's stream waits for an event
    /// recorded after replica 1 on partition 1's, zeroes the verdict, launches
    /// [`ReplicasCompare`](crate::safety::ReplicasCompare) over both outputs and copies the 16-byte verdict back, and the host
    /// reads it once the stream is done. Either way a frame makes the same driver calls every
    /// time (apart from the waits' polls) and allocates nothing. The frame counts up from 0 with
    /// every call.
    ///
    /// Allocates nothing on the host, unless the outputs differ (the error's text).
    ///
    /// # Errors
    ///
    /// An error `f` returns, or a launch's or copy's error (the other replica's work is still
    /// waited for); [`ErrorKind::ReplicasDiffer`](crate::ErrorKind::ReplicasDiffer) naming the
    /// kernel, the frame, the output parameter, the first differing element and how many
    /// differ, under [`OnMismatch::ReturnError`](crate::safety::OnMismatch::ReturnError) (under
    /// `FailStop` the process ends instead). Either way replica 0's result stays readable
    /// ([`replica`](Self::replica)), and replica 1's too where the comparison is on the host.
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuLaunchKernel")]
    #[doc(alias = "cuStreamWaitEvent")]
    pub fn run<I: ?Sized, F>(&mut self, inputs: &I, mut f: F) -> Result<()>
    where
        F: for<'s, 'e, 'b> FnMut(
            usize,
            &'s RestrictedScope<'s, 'e>,
            &'s RestrictedKernel<'m, C>,
            &'b mut ScopedSliceMut<'s, T>,
            &'s I,
        ) -> Result<()>,
    {
        let frame = self.frames;
        self.frames = self.frames.wrapping_add(1);
        let Self {
            kernel,
            partitions: [first, second],
            outputs: [out0, out1],
            staging,
            check,
            replicas,
            output,
            ..
        } = self;
        let kernel = &*kernel;
        let f = &mut f;
        match check {
            Check::Host(host1) => {
                first.stream.scope(|s0| -> Result<()> {
                    let mut d0 = s0.bind_mut(&mut *out0);
                    f(0, s0, kernel, &mut d0, inputs)?;
                    s0.copy_to_host(&mut *staging, &d0)?;
                    second.stream.scope(|s1| -> Result<()> {
                        let mut d1 = s1.bind_mut(&mut *out1);
                        f(1, s1, kernel, &mut d1, inputs)?;
                        s1.copy_to_host(&mut *host1, &d1)
                    })?
                })??;
                replicas.compare(frame, output, staging, host1)
            }
            Check::Device(device) => {
                let len = out0.len();
                let bytes = len.saturating_mul(size_of::<T>());
                let elements = u64::try_from(len).unwrap_or(u64::MAX);
                let element_bytes = u64::try_from(size_of::<T>()).unwrap_or(u64::MAX);
                let (ptr0, ptr1) = (out0.buffer().device_ptr(), out1.buffer().device_ptr());
                let OnDevice {
                    kernel: compare,
                    config,
                    verdict,
                    verdict_host,
                    done,
                    by_event,
                } = device;
                let (compare, config, done, by_event) = (&*compare, *config, &*done, *by_event);
                // What no compare can write: a verdict whose copy back never ran (a fault that
                // drops it) reads as this, not as the frame before's, and fails closed.
                verdict_host.copy_from_slice(&VERDICT_NOT_BACK);
                first.stream.scope(|s0| -> Result<()> {
                    let mut d0 = s0.bind_mut(&mut *out0);
                    f(0, s0, kernel, &mut d0, inputs)?;
                    s0.copy_to_host(&mut *staging, &d0)?;
                    second.stream.scope(|s1| -> Result<()> {
                        let mut d1 = s1.bind_mut(&mut *out1);
                        f(1, s1, kernel, &mut d1, inputs)?;
                        if by_event {
                            s1.record(done)?;
                        }
                        Ok(())
                    })??;
                    // Replica 1 is ordered before what follows on partition 0's stream: by the
                    // event, or (where the driver does not record it there) by the host's wait
                    // for partition 1's stream, which the scope above ended with.
                    if by_event {
                        s0.wait(done)?;
                    }
                    // SAFETY: both outputs are this kernel's, borrowed exclusively by `run`
                    // until it returns, so nothing outside reaches them; `bytes` is their size
                    // (`len` elements of `T` each). Only the compare kernel reads them, on this
                    // scope's stream, which ends after it: replica 0's writes are earlier on this
                    // stream and replica 1's are ordered before it (above), and nothing writes
                    // either output until this scope's work is complete.
                    let a = unsafe { ScopedSlice::<u8>::from_raw_parts(ptr0, bytes) };
                    // SAFETY: as for `a`, replica 1's output.
                    let b = unsafe { ScopedSlice::<u8>::from_raw_parts(ptr1, bytes) };
                    let mut v = s0.bind_mut(&mut *verdict);
                    s0.fill_bytes(&mut v, 0)?;
                    s0.run(compare, config, (a, b, elements, element_bytes, &mut v))?;
                    s0.copy_to_host(&mut *verdict_host, &v)
                })??;
                replicas.settle_verdict(frame, output, verdict_host, len)
            }
        }
    }

    /// What replica `replica` (0 or 1) wrote in the last frame, copied to page-locked memory;
    /// after a frame whose replicas compared equal, both are the frame's result. An index past
    /// 1 reads replica 1. Where the comparison is on the device ([`CompareOn::Device`]) only
    /// replica 0's output is copied back: replica 1's is empty.
    pub fn replica(&self, replica: usize) -> &[T] {
        match (&self.check, replica) {
            (_, 0) => &self.staging,
            (Check::Host(second), _) => second,
            (Check::Device(_), _) => &[],
        }
    }

    /// Replica 0's output on the device: the frame's result once it compared equal, for the
    /// kernels that follow.
    pub fn output(&self) -> &RestrictedBuffer<'g, T> {
        let [first, _] = &self.outputs;
        first
    }

    /// Where the replicas are compared, as the init phase chose.
    pub fn compare_on(&self) -> CompareOn {
        match self.check {
            Check::Host(_) => CompareOn::Host,
            Check::Device(_) => CompareOn::Device,
        }
    }

    /// Where the comparison is on the device, whether an event orders it after replica 1
    /// (`true`: the driver records an event of the primary context on a partition's stream,
    /// which the init phase tried) or the host's wait for replica 1 does (`false`); `false`
    /// where the comparison is on the host.
    pub fn ordered_by_event(&self) -> bool {
        matches!(&self.check, Check::Device(d) if d.by_event)
    }

    /// The number of SMs of each partition, as the split made them.
    pub fn sm_counts(&self) -> [u32; 2] {
        let [first, second] = &self.partitions;
        [first.sm_count, second.sm_count]
    }

    /// The frames run so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The comparison and its policy.
    pub fn replicas(&self) -> Replicas {
        self.replicas
    }
}
