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
//! lookup, the second output and both page-locked copies of it. A frame allocates nothing.
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
//! let profile = Profile::init()?;
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

use crate::context::green::destroy_green;
use crate::error::{Result, record_drop_error};
use crate::ffi;
use crate::kernel::contract::{Contract, PlainLaunch};
use crate::memory::PinnedBuffer;
use crate::safety::redundant::Replicas;
use crate::safety::scope::RestrictedScope;
use crate::safety::stream::RestrictedStream;
use crate::safety::values::{RestrictedBuffer, RestrictedKernel};
use crate::vocabulary::binding::ScopedSliceMut;
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

/// A declared kernel run once in each of two SM partitions of the device per frame, each run
/// into its own copy of the output parameter, the two copies compared bit for bit on the host
/// after both completed. Made by [`InitPhase::redundant`](crate::safety::InitPhase::redundant);
/// [`run`](Self::run) is the run phase's one call per frame.
///
/// The kernel's other arguments (its inputs, its scalars) are the caller's, given per run by
/// the closure [`run`](Self::run) takes; the output is the kernel's: a device buffer per
/// partition and a page-locked copy of each, made in the init phase.
///
/// Borrows the guard (`'g`) and the module (`'m`): it never leaves the thread, and no
/// second init phase opens while it lives.
#[derive(Debug)]
pub struct RedundantKernel<'g, 'm, C: Contract, T: DeviceCopy> {
    pub(crate) kernel: RestrictedKernel<'m, C>,
    pub(crate) partitions: [Partition<'g>; 2],
    pub(crate) outputs: [RestrictedBuffer<'g, T>; 2],
    pub(crate) staging: [PinnedBuffer<'g, T>; 2],
    pub(crate) output: &'static str,
    pub(crate) replicas: Replicas,
    pub(crate) frames: u64,
}

impl<'g, 'm, C: PlainLaunch, T: DeviceCopy> RedundantKernel<'g, 'm, C, T> {
    /// Runs one frame: `f` enqueues the kernel's launch in the first partition, then in the
    /// second, each time given the replica's index (0, then 1), the partition's
    /// [`RestrictedScope`], the kernel, that replica's output bound writably, and `inputs`;
    /// each replica's output is then copied into its page-locked copy.
    ///
    /// `inputs` is what the kernel reads (typically a tuple of `&RestrictedBuffer`s), handed to
    /// `f` rather than captured by it: a scope binds only what outlives it, and the argument
    /// says so for every scope `f` is given (a closure that captures a buffer by reference
    /// does not compile; scalars captured by value do). Both runs are enqueued before either is
    /// waited for, so they run at the same time, each on its own SMs. Each wait is bounded by
    /// the context's [`WaitBound`](crate::safety::WaitBound) (past it, the safe state, as for
    /// every scope). Then the two copies are compared ([`Replicas::compare`], naming the
    /// frame and the output parameter). The frame counts up from 0 with every call.
    ///
    /// Allocates nothing on the host, unless the copies differ (the error's text).
    ///
    /// # Errors
    ///
    /// An error `f` returns, or a launch's or copy's error (the other replica's work is still
    /// waited for); [`ErrorKind::ReplicasDiffer`](crate::ErrorKind::ReplicasDiffer) naming the
    /// kernel, the frame, the output parameter, the first differing element and how many
    /// differ, under [`OnMismatch::ReturnError`](crate::safety::OnMismatch::ReturnError) (under
    /// `FailStop` the process ends instead). Either way both replicas' results stay readable
    /// ([`replica`](Self::replica)).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GREEN__CONTEXTS.html>
    #[doc(alias = "cuLaunchKernel")]
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
            staging: [host0, host1],
            replicas,
            output,
            ..
        } = self;
        let kernel = &*kernel;
        let f = &mut f;
        first.stream.scope(|s0| -> Result<()> {
            let mut d0 = s0.bind_mut(&mut *out0);
            f(0, s0, kernel, &mut d0, inputs)?;
            s0.copy_to_host(&mut *host0, &d0)?;
            second.stream.scope(|s1| -> Result<()> {
                let mut d1 = s1.bind_mut(&mut *out1);
                f(1, s1, kernel, &mut d1, inputs)?;
                s1.copy_to_host(&mut *host1, &d1)
            })?
        })??;
        replicas.compare(frame, output, host0, host1)
    }

    /// What replica `replica` (0 or 1) wrote in the last frame, copied to page-locked memory;
    /// after a frame whose replicas compared equal, both are the frame's result. An index past
    /// 1 reads replica 1.
    pub fn replica(&self, replica: usize) -> &[T] {
        let [first, second] = &self.staging;
        if replica == 0 { first } else { second }
    }

    /// Replica 0's output on the device: the frame's result once it compared equal, for the
    /// kernels that follow.
    pub fn output(&self) -> &RestrictedBuffer<'g, T> {
        let [first, _] = &self.outputs;
        first
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
