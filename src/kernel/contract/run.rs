//! The safe launches of a [`Declared`] kernel: [`StreamScope::run`], `run_with`,
//! `run_cooperative` and `run_clustered`, each checking the arguments against the contract
//! before anything is enqueued.

use crate::asynchronous::scope::StreamScope;
use crate::error::poison;
use crate::error::{Error, ErrorKind, Result};
use crate::kernel::contract::declared::{Declared, KernelSource};
use crate::kernel::contract::extent::check_cluster;
use crate::kernel::contract::kinds::{ClusterLaunch, ContractArgs, CooperativeLaunch, PlainLaunch};
use crate::kernel::launch::{LaunchAttributes, LaunchConfig};

impl<'scope> StreamScope<'scope, '_> {
    /// `cuLaunchKernel`—Enqueues a launch of a declared kernel: a safe call.
    ///
    /// The compiler checks `args` against the contract (one argument per parameter, in order,
    /// of its type; buffers the kernel writes bound writably); before anything is enqueued,
    /// every buffer's length is checked against its extent for `config`, with integer
    /// arithmetic only.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::BufferTooShort`] naming the parameter, its length and the extent required;
    /// [`ErrorKind::SizeOverflow`] if an extent's arithmetic overflows (R12): then nothing is
    /// enqueued. Launch errors as [`launch`](Self::launch).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use custack::{Context, ContextFlags, Driver, LaunchConfig, Stack};
    ///
    /// custack::kernel_contract! {
    ///     /// `add_u32(unsigned* x, unsigned k, unsigned n)`: `x[i] += k` for `i < n`.
    ///     pub unsafe kernel AddU32 = "add_u32"(x: &mut [u32; n], k: u32, n: u32);
    /// }
    ///
    /// let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let module = guard.load_ptx(include_str!("../../../tests/fixtures/kernels.ptx"))?;
    /// let add = module.declared::<AddU32>()?;
    /// let mut x = guard.alloc_zeroed::<u32>(1024)?;
    /// guard.stream()?.scope(|s| {
    ///     let mut dx = s.bind_mut(&mut x);
    ///     s.run(&add, LaunchConfig::for_elements(1024), (&mut dx, 1, 1024))
    /// })??;
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernel")]
    #[doc(alias = "run_library")]
    #[inline]
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub fn run<C: PlainLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        args.check(&config)?;
        crate::kernel::naming::name_next(C::KERNEL);
        // SAFETY: `kernel` is a function of a module (or library) of the current context that
        // outlives the scope (borrowed for 'scope); its contract (`unsafe` to declare) promises
        // it takes exactly `C::Signature`, which `A`'s arguments pass (sealed `ContractArg`s of
        // each parameter's kind), and touches only the buffers passed, within their declared
        // extents, writing only those declared `&mut` (bound writably: the compiler checked);
        // `check` just confirmed each buffer holds its extent for `config`.
        let launched = unsafe { self.launch(&kernel.function, config, args) };
        poison::launched(Some(C::KERNEL));
        launched
    }

    /// `cuLaunchKernelEx`—[`run`](Self::run) with launch attributes (clusters, priority,
    /// programmatic serialization, cooperative).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) and [`launch_with`](Self::launch_with).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernelEx")]
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub fn run_with<C: PlainLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        attributes: &LaunchAttributes,
        args: A,
    ) -> Result<()> {
        if attributes.programmatic_serialization {
            // It lets this launch start before the previous kernel on the stream ends, which a
            // contract does not describe (it would need the kernel to wait on the GPU before
            // touching what that kernel writes): the borrows of the scope assume stream order.
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "kernel `{}`: programmatic stream serialization is not part of a kernel contract; launch it with the unsafe `launch_with`",
                    C::KERNEL
                ),
            ));
        }
        args.check(&config)?;
        crate::kernel::naming::name_next(C::KERNEL);
        // SAFETY: as in `run`; the remaining attributes (clusters, priority, cooperative) change
        // how the blocks are scheduled, not which threads run or in which order the stream's
        // work runs (clusters must divide the grid), so the extents checked for `config` hold.
        let launched = unsafe { self.launch_with(&kernel.function, config, attributes, args) };
        poison::launched(Some(C::KERNEL));
        launched
    }

    /// `cuLaunchCooperativeKernel`—[`run`](Self::run) as a cooperative launch (a grid-wide
    /// barrier), the grid checked first as in
    /// [`launch_cooperative`](Self::launch_cooperative). The only safe launch of a contract
    /// declared `cooperative` ([`PlainLaunch`]); any other contract without a cluster shape
    /// may launch so too ([`CooperativeLaunch`]).
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) and [`launch_cooperative`](Self::launch_cooperative).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchCooperativeKernel")]
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub fn run_cooperative<C: CooperativeLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        args.check(&config)?;
        crate::kernel::naming::name_next(C::KERNEL);
        // SAFETY: as in `run`.
        let launched = unsafe { self.launch_cooperative(&kernel.function, config, args) };
        poison::launched(Some(C::KERNEL));
        launched
    }

    /// `cuLaunchKernelEx`—[`run`](Self::run) for a kernel written for thread-block clusters
    /// (compute capability 9.0): launched in clusters of exactly the shape its contract declares
    /// (`cluster(x, y, z)`, [`ClusterLaunch`]), the only safe launch of such a contract.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::OutOfRange`] naming the clause if the grid is not a whole number of
    /// clusters in every dimension (nothing is enqueued); as [`run`](Self::run) and
    /// [`launch_with`](Self::launch_with) (a device without clusters refuses the launch).
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html>
    #[doc(alias = "cuLaunchKernelEx")]
    #[allow(clippy::needless_pass_by_value)]
    #[track_caller]
    pub fn run_clustered<C: ClusterLaunch, S: KernelSource, A: ContractArgs<'scope, C>>(
        &self,
        kernel: &Declared<'scope, C, S>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        check_cluster(C::KERNEL, &config, C::CLUSTER)?;
        args.check(&config)?;
        let attributes = LaunchAttributes {
            cluster: Some(C::CLUSTER),
            ..LaunchAttributes::default()
        };
        crate::kernel::naming::name_next(C::KERNEL);
        // SAFETY: as in `run`; the launch has the cluster shape the contract declares, and the
        // grid is a whole number of clusters (checked above).
        let launched = unsafe { self.launch_with(&kernel.function, config, &attributes, args) };
        poison::launched(Some(C::KERNEL));
        launched
    }
}
