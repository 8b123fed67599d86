//! A stream made in an init phase ([`RestrictedStream`]), whose scopes are restricted.

use crate::asynchronous::stream::Stream;
use crate::deadline::{Deadline, Overrun};
use crate::error::Result;
use crate::safety::bound::WaitBound;
use crate::safety::scope::RestrictedScope;

/// A stream made in an init phase. Its scopes are [`RestrictedScope`]s; it has no submission
/// (whose future is woken by a stream callback), no host function, no capture outside init.
/// Every wait of it is bounded by its context's [`WaitBound`] (or a nearer deadline given).
#[derive(Debug)]
pub struct RestrictedStream<'g> {
    stream: Stream<'g>,
    bound: WaitBound,
}

impl<'g> RestrictedStream<'g> {
    pub(crate) fn of(stream: Stream<'g>, bound: WaitBound) -> Self {
        Self { stream, bound }
    }

    pub(crate) fn stream(&self) -> &Stream<'g> {
        &self.stream
    }

    /// Opens a scope on this stream, as [`Stream::scope_by`]: `f` enqueues through a
    /// [`RestrictedScope`], and the scope waits for its work before it returns, at most the
    /// context's [`WaitBound`]. Past it the process ends in the safe state
    /// ([`Overrun::Exit`]), whatever the bound's [`OnOverrun`](crate::safety::OnOverrun): the
    /// scope borrows its memory, so it cannot return while the GPU may still use it.
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
    pub fn scope<'env, R>(
        &'env self,
        f: impl for<'scope> FnOnce(&'scope RestrictedScope<'scope, 'env>) -> R,
    ) -> Result<R> {
        self.scope_by(self.bound.deadline(), f)
    }

    /// Opens a scope whose wait is bounded by `deadline` (R19), or by the context's
    /// [`WaitBound`] where that comes first; past it, the safe state ([`Overrun::Exit`]). A
    /// deadline can only shorten the bound: a later one, or [`Deadline::NEVER`], leaves the
    /// wait at most the bound.
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
        f: impl for<'scope> FnOnce(&'scope RestrictedScope<'scope, 'env>) -> R,
    ) -> Result<R> {
        let deadline = self.bound.nearer(deadline);
        self.stream
            .scope_by(deadline, Overrun::Exit, |s| f(RestrictedScope::of(s)))
    }

    /// Waits for the stream's work, at most the context's [`WaitBound`]
    /// ([`Stream::synchronize_by`]); past it, the bound's
    /// [`OnOverrun`](crate::safety::OnOverrun) decides: the safe state, or
    /// [`ErrorKind::DeadlinePassed`](crate::ErrorKind::DeadlinePassed) (the wait borrows
    /// nothing).
    ///
    /// # Errors
    ///
    /// As [`Stream::synchronize_by`].
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__STREAM.html>
    #[doc(alias = "cuStreamQuery")]
    pub fn synchronize(&self) -> Result<()> {
        self.synchronize_by(self.bound.deadline())
    }

    /// As [`synchronize`](Self::synchronize), bounded by `deadline` or by the context's
    /// [`WaitBound`], whichever comes first (R19).
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
        self.bound
            .settle(self.stream.synchronize_by(self.bound.nearer(deadline)))
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
