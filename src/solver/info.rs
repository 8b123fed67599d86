//! The info word of a cuSOLVER call ([`SolverInfo`]): written by the GPU into device memory,
//! copied back in the call's own stream order, and read on the host only once the scope that
//! enqueued it has waited for its stream; then turned into a typed [`Info`] or error.

use crate::context::stack::{ContextKind, PushedGuard};
use crate::error::{Error, ErrorKind, Result};
use crate::memory::{DeviceBuffer, PinnedBuffer};

/// What the host word holds until a call's copy of the device word has run: no cuSOLVER
/// info is ever `i32::MIN` (a negative info names a parameter, a positive one counts).
pub(crate) const NOT_WRITTEN: i32 = i32::MIN;

/// What a positive info means, by call (`pub` only to appear in the sealed `InfoOut`; not
/// reachable from outside the crate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meaning {
    /// `getrf`: `U(i,i)` is exactly zero.
    Pivot,
    /// `potrf`: the leading minor of order `i` is not positive definite.
    Minor,
    /// `syevd`, `gesvd`: `i` elements did not converge.
    Unconverged,
    /// `getrs`, `potrs`, `geqrf`, `ormqr`: only a negative info (a parameter) is documented.
    ParametersOnly,
}

/// What a cuSOLVER call's info word said, read after its scope ([`SolverInfo::outcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Info {
    /// 0: the call succeeded.
    Success,
    /// `getrf`: `U(pivot, pivot)` (1-based) is exactly zero, so the matrix is singular; the
    /// factorization completed, and a solve with it would divide by zero.
    Singular {
        /// The 1-based index of the first zero pivot.
        pivot: usize,
    },
    /// `potrf`: the leading minor of this order (1-based) is not positive definite, so the
    /// factorization did not complete.
    NotPositiveDefinite {
        /// The order of the first leading minor that is not positive definite.
        order: usize,
    },
    /// `syevd`, `gesvd`: this many intermediate elements did not converge to zero.
    NotConverged {
        /// How many elements did not converge.
        count: usize,
    },
    /// A negative info: cuSOLVER refused its parameter at this 1-based position (the handle
    /// is the first). custack checks every parameter it passes first, so this names a gap in
    /// those checks.
    IllegalParameter {
        /// The 1-based position of the parameter in the C call.
        position: usize,
    },
    /// A positive info the call's documentation does not define.
    Undocumented {
        /// The raw info.
        value: i32,
    },
}

impl Info {
    pub(crate) fn interpret(meaning: Meaning, value: i32) -> Self {
        let count = value.unsigned_abs() as usize;
        match (value, meaning) {
            (0, _) => Self::Success,
            (..0, _) => Self::IllegalParameter { position: count },
            (_, Meaning::Pivot) => Self::Singular { pivot: count },
            (_, Meaning::Minor) => Self::NotPositiveDefinite { order: count },
            (_, Meaning::Unconverged) => Self::NotConverged { count },
            (_, Meaning::ParametersOnly) => Self::Undocumented { value },
        }
    }

    /// `Ok` for [`Success`](Self::Success), else the error of the call named `call`:
    /// [`ErrorKind::SingularMatrix`], [`ErrorKind::NotPositiveDefinite`],
    /// [`ErrorKind::NotConverged`], or [`ErrorKind::InvalidValue`] for an illegal parameter or
    /// an undocumented info; the detail names the call and the index.
    pub(crate) fn into_result(self, call: &str, value: i32) -> Result<()> {
        let (kind, what) = match self {
            Self::Success => return Ok(()),
            Self::Singular { pivot } => (
                ErrorKind::SingularMatrix,
                format!("U({pivot},{pivot}) is exactly zero: the matrix is singular"),
            ),
            Self::NotPositiveDefinite { order } => (
                ErrorKind::NotPositiveDefinite,
                format!("the leading minor of order {order} is not positive definite"),
            ),
            Self::NotConverged { count } => (
                ErrorKind::NotConverged,
                format!("{count} elements did not converge"),
            ),
            Self::IllegalParameter { position } => (
                ErrorKind::InvalidValue,
                format!("cuSOLVER refused parameter {position}"),
            ),
            Self::Undocumented { .. } => (
                ErrorKind::InvalidValue,
                "an info its documentation does not define".to_owned(),
            ),
        };
        Err(Error::custack(
            kind,
            format!("{call}: {what} (info = {value})"),
        ))
    }
}

/// The info word of one cuSOLVER call of a scope: lent by a guard ([`PushedGuard::solver_info`]),
/// passed to a call as `&mut`, read with [`outcome`](Self::outcome) or [`ensure_success`](Self::ensure_success) once the
/// scope has ended.
///
/// A call borrows it for the whole scope (`&'scope mut`), so reading it inside the scope, or
/// giving it to a second call of the same scope, fails to compile: the info is known only
/// after the scope's work is complete, and one word holds one call's answer (a `getrs` after a
/// `getrf` would overwrite the singular pivot with its own 0). The call enqueues, right after
/// itself on the same stream, a copy of the device word into pinned host memory of the info's
/// own, so the scope's one wait (`cuStreamSynchronize`, bounded as every scope's is) brings it
/// back: reading it makes no driver call and never waits.
///
/// Borrows the guard (`'g`); `!Send` and `!Sync`.
#[derive(Debug)]
#[doc(alias = "devInfo")]
pub struct SolverInfo<'g> {
    device: DeviceBuffer<'g, i32>,
    host: PinnedBuffer<'g, i32>,
    /// The call that last took the info, and what its positive value means.
    last: Option<(&'static str, Meaning)>,
}

static_assertions::assert_not_impl_any!(SolverInfo<'static>: Send, Sync);

impl<K: ContextKind> PushedGuard<'_, '_, K> {
    /// `cuMemAlloc` and `cuMemHostAlloc`—An info word for a cuSOLVER call of this guard's
    /// context: 4 bytes of device memory cuSOLVER writes, 4 bytes of pinned host memory the
    /// answer is copied into.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_OUT_OF_MEMORY`; driver errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use custack::{Context, ContextFlags, Driver, Stack};
    /// # let ctx = Context::new(Driver::init()?.device(0)?, ContextFlags::empty())?;
    /// # let mut stack = Stack::new()?;
    /// let guard = stack.push(&ctx)?;
    /// let info = guard.solver_info()?;
    /// assert!(info.outcome().is_err()); // no call has written it yet
    /// # Ok::<(), custack::Error>(())
    /// ```
    ///
    /// # References
    ///
    /// <https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html>,
    /// <https://docs.nvidia.com/cuda/cusolver/#cusolverdn-t-getrf>
    #[doc(alias = "cuMemAlloc")]
    #[doc(alias = "cuMemHostAlloc")]
    pub fn solver_info(&self) -> Result<SolverInfo<'_>> {
        let device = self.alloc_zeroed::<i32>(1)?;
        let mut host = self.alloc_pinned::<i32>(1)?;
        host.fill(NOT_WRITTEN);
        Ok(SolverInfo {
            device,
            host,
            last: None,
        })
    }
}

impl<'g> SolverInfo<'g> {
    /// Marks the info as taken by `call` (its host word not written yet) and lends its two
    /// halves for the scope: the device word cuSOLVER writes, the host word it is copied into.
    pub(crate) fn take_for<'s>(
        &'s mut self,
        call: &'static str,
        meaning: Meaning,
    ) -> (&'s DeviceBuffer<'g, i32>, &'s mut PinnedBuffer<'g, i32>) {
        self.host.fill(NOT_WRITTEN);
        self.last = Some((call, meaning));
        (&self.device, &mut self.host)
    }

    /// The C name of the call that last took this info (`"cusolverDnSgetrf"`), if any.
    pub fn last_call(&self) -> Option<&'static str> {
        self.last.map(|(call, _)| call)
    }

    /// The raw info of the last call: 0 for success, `-i` for an illegal `i`-th parameter,
    /// a positive value whose meaning depends on the call.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidValue`] when no call took this info, or when the last one did not
    /// write it: it returned an error before enqueuing, or its scope failed (then the scope's
    /// own error says why).
    pub fn raw(&self) -> Result<i32> {
        let Some((call, _)) = self.last else {
            return Err(Error::custack(
                ErrorKind::InvalidValue,
                "no cuSOLVER call has taken this info".to_owned(),
            ));
        };
        match self.host.first().copied().unwrap_or(NOT_WRITTEN) {
            NOT_WRITTEN => Err(Error::custack(
                ErrorKind::InvalidValue,
                format!(
                    "{call}: its info was not written (the call returned an error, or its \
                     scope's work did not complete)"
                ),
            )),
            value => Ok(value),
        }
    }

    /// What the last call's info word said, typed by the call: read after the scope that
    /// enqueued it (a borrow error before), with no driver call and no wait.
    ///
    /// # Errors
    ///
    /// As [`raw`](Self::raw).
    pub fn outcome(&self) -> Result<Info> {
        let value = self.raw()?;
        let meaning = self.last.map_or(Meaning::ParametersOnly, |(_, m)| m);
        Ok(Info::interpret(meaning, value))
    }

    /// `Ok` when the last call's info says success, else its typed error.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::SingularMatrix`] (`getrf`, the detail names the zero pivot),
    /// [`ErrorKind::NotPositiveDefinite`] (`potrf`, the minor's order),
    /// [`ErrorKind::NotConverged`] (`syevd`, `gesvd`), [`ErrorKind::InvalidValue`] for an
    /// illegal parameter or an undocumented info; as [`raw`](Self::raw).
    pub fn ensure_success(&self) -> Result<()> {
        let value = self.raw()?;
        let (call, meaning) = self.last.unwrap_or(("cuSOLVER", Meaning::ParametersOnly));
        Info::interpret(meaning, value).into_result(call, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_info_means_what_its_call_documents() {
        assert_eq!(Info::interpret(Meaning::Pivot, 0), Info::Success);
        assert_eq!(
            Info::interpret(Meaning::Pivot, 3),
            Info::Singular { pivot: 3 }
        );
        assert_eq!(
            Info::interpret(Meaning::Minor, 2),
            Info::NotPositiveDefinite { order: 2 }
        );
        assert_eq!(
            Info::interpret(Meaning::Unconverged, 5),
            Info::NotConverged { count: 5 }
        );
        assert_eq!(
            Info::interpret(Meaning::ParametersOnly, 4),
            Info::Undocumented { value: 4 }
        );
        for meaning in [
            Meaning::Pivot,
            Meaning::Minor,
            Meaning::Unconverged,
            Meaning::ParametersOnly,
        ] {
            assert_eq!(
                Info::interpret(meaning, -4),
                Info::IllegalParameter { position: 4 }
            );
        }
    }

    #[test]
    fn a_failed_info_is_a_typed_error_naming_the_call_and_the_index() {
        let e = Info::Singular { pivot: 3 }
            .into_result("cusolverDnDgetrf", 3)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SingularMatrix);
        assert_eq!(
            e.detail(),
            Some("cusolverDnDgetrf: U(3,3) is exactly zero: the matrix is singular (info = 3)")
        );
        let e = Info::NotPositiveDefinite { order: 2 }
            .into_result("cusolverDnSpotrf", 2)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotPositiveDefinite);
        assert!(e.detail().unwrap().contains("order 2"));
        let e = Info::NotConverged { count: 1 }
            .into_result("cusolverDnSsyevd", 1)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotConverged);
        let e = Info::IllegalParameter { position: 5 }
            .into_result("cusolverDnSgetrs", -5)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.detail().unwrap().contains("parameter 5"));
        assert!(Info::Success.into_result("x", 0).is_ok());
        for kind in [
            ErrorKind::SingularMatrix,
            ErrorKind::NotPositiveDefinite,
            ErrorKind::NotConverged,
        ] {
            assert!(!kind.is_sticky());
            assert_eq!(kind.code(), None);
        }
    }
}
