//! A stream made in an init phase ([`RestrictedStream`]), whose scopes are restricted.

use crate::asynchronous::stream::Stream;
use crate::deadline::{Deadline, Overrun};
use crate::error::Result;
use crate::safety::scope::RestrictedScope;

/// A stream made in an init phase. Its scopes are [`RestrictedScope`]s; it has no submission
/// (whose future is woken by a stream callback), no host function, no capture outside init.
#[derive(Debug)]
pub struct RestrictedStream<'g> {
    stream: Stream<'g>,
}

impl<'g> RestrictedStream<'g> {
    pub(crate) fn of(stream: Stream<'g>) -> Self {
        Self { stream }
    }

    pub(crate) fn stream(&self) -> &Stream<'g> {
        &self.stream
    }

    /// Opens a scope on this stream, as [`Stream::scope`]: `f` enqueues through a
    /// [`RestrictedScope`], and the scope waits for its work before it returns.
    ///
    /// # Errors
    ///
    /// As [`Stream::scope`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamSynchronize")]
    #[track_caller]
    pub fn scope<'env, R>(
        &'env self,
        f: impl for<'scope> FnOnce(&'scope RestrictedScope<'scope, 'env>) -> R,
    ) -> Result<R> {
        self.stream.scope(|s| f(RestrictedScope::of(s)))
    }

    /// Opens a scope whose wait is bounded by `deadline`, as [`Stream::scope_by`] (R19).
    ///
    /// # Errors
    ///
    /// As [`Stream::scope_by`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamQuery")]
    #[track_caller]
    pub fn scope_by<'env, R>(
        &'env self,
        deadline: Deadline,
        overrun: Overrun,
        f: impl for<'scope> FnOnce(&'scope RestrictedScope<'scope, 'env>) -> R,
    ) -> Result<R> {
        self.stream
            .scope_by(deadline, overrun, |s| f(RestrictedScope::of(s)))
    }

    /// `cuStreamSynchronize`, as [`Stream::synchronize`].
    ///
    /// # Errors
    ///
    /// As [`Stream::synchronize`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamSynchronize")]
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize()
    }

    /// As [`Stream::synchronize_by`] (R19).
    ///
    /// # Errors
    ///
    /// As [`Stream::synchronize_by`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamQuery")]
    pub fn synchronize_by(&self, deadline: Deadline) -> Result<()> {
        self.stream.synchronize_by(deadline)
    }

    /// `cuStreamQuery`, as [`Stream::is_complete`].
    ///
    /// # Errors
    ///
    /// As [`Stream::is_complete`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamQuery")]
    pub fn is_complete(&self) -> Result<bool> {
        self.stream.is_complete()
    }
}
