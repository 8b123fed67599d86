//! The poisoned process (R20): the first sticky error observed anywhere, recorded once for every
//! thread and context, with what observed it ([`Origin`]); from then on the calls that would go to
//! the driver (pushes, scopes, submissions, launches, the CUDA libraries' calls, waits,
//! synchronizes) return that first error instead, without going to the driver; nothing is
//! released any more ([`may_release`]); and the fail-stop ([`fail_stop`](crate::fail_stop)) a
//! supervisor acts on.
//!
//! Why the process and not the context: NVIDIA's `CUresult` documentation says of every sticky
//! error that the process "must be terminated and relaunched", and on driver 580 a new context
//! and a primary-context reset both return the same error (`tests/gpu_faults.rs`).
//!
//! The check on the fast path is one atomic load ([`check`]); everything that happens once the
//! process is poisoned is out of line and `#[cold]`. The record is published with one
//! compare-exchange of a pointer, so no thread ever waits for another to record (a
//! `OnceLock` would block the others while the first built its record): the first sticky
//! error wins, every thread returns it, and the checks after refuse, under every interleaving
//! (`loom`, the `model` tests below; `error/atomics.rs`).

use crate::error::atomics::Atomic;
use crate::error::driver_log;
use crate::error::failure::Error;
use crate::error::kind::ErrorKind;
use crate::error::origin::{LaunchSite, Observer, Origin};
use crate::ffi;
use core::cell::Cell;
use core::panic::Location;
use core::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// `Result` with custack's [`Error`].
type Result<T, E = Error> = core::result::Result<T, E>;

impl ffi::CUresult {
    /// `Ok(())` for `CUDA_SUCCESS`, the error otherwise: the central conversion, so also the
    /// fallback that records a sticky error observed by any driver call
    /// ([`Observer::DriverCall`], at the call of `result`, or through `#[track_caller]` above it).
    #[inline]
    #[track_caller]
    pub(crate) fn result(self) -> Result<()> {
        self.result_by(Observer::DriverCall)
    }

    /// As [`result`](Self::result), a sticky error recorded as observed by `observer`: the
    /// waits, synchronizes and launches, which name themselves.
    #[inline]
    #[track_caller]
    pub(crate) fn result_by(self, observer: Observer) -> Result<()> {
        self.result_at(observer, Location::caller())
    }

    /// As [`result_by`](Self::result_by), called at `call_site` (for a call made in a closure,
    /// which `#[track_caller]` does not reach).
    #[inline]
    pub(crate) fn result_at(
        self,
        observer: Observer,
        call_site: &'static Location<'static>,
    ) -> Result<()> {
        if self == ffi::CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            Err(failed_call(self, observer, call_site))
        }
    }

    /// The error of a driver call that returned this code, not `CUDA_SUCCESS`: for a caller
    /// that matches the code first (one it accepts, one it waits on) and returns the rest. The
    /// same conversion as [`result`](Self::result), the sticky codes recorded (R20), as
    /// observed by a driver call at the call of `failure` (or, through `#[track_caller]`,
    /// above it).
    #[inline]
    #[track_caller]
    pub(crate) fn failure(self) -> Error {
        failed_call(self, Observer::DriverCall, Location::caller())
    }
}

/// The error of a driver call that returned `code`, with the driver's log messages for it
/// where the driver has them (see `driver_log`), recorded if sticky. Out of line: only failures
/// pay for it.
#[cold]
#[inline(never)]
fn failed_call(
    code: ffi::CUresult,
    observer: Observer,
    call_site: &'static Location<'static>,
) -> Error {
    let error = Error::from_code(code);
    let error = match driver_log::take() {
        Some(log) => error.with_detail(format!("driver: {log}")),
        None => error,
    };
    if unknown_under_profile(error.kind(), crate::error::confinement::confined()) {
        // Under the restricted profile a code this crate cannot classify may be a fault:
        // nothing says the work behind the call is over, or that the call did nothing.
        let e = observe(error, observer, call_site);
        crate::error::safe_state::fail_stop(&e.with_detail(
            "a code custack does not know, under the restricted profile: the safe state",
        ));
    }
    observe(error, observer, call_site)
}

/// Whether an error of `kind` takes the safe state: a driver code CUDA 13.0 does not define
/// (`Unlisted`), in a process confined to the restricted profile (`confined`: the latch of
/// `confinement.rs`, not whether the driver's log callback was registered, which a full-API
/// process on a driver without `cuLogsRegisterCallback` leaves unregistered too). The profile
/// cannot know that such a code is harmless.
fn unknown_under_profile(kind: ErrorKind, confined: bool) -> bool {
    matches!(kind, ErrorKind::Unlisted(_)) && confined
}

/// The first sticky error and its origin, once recorded (never freed: the process's record
/// lives as long as the process).
pub(crate) struct First {
    error: Error,
    origin: Origin,
}

/// A record of the first sticky error: the process has one ([`PROCESS`]); unit tests make their
/// own. Null until the first sticky error, then a pointer to its [`First`], leaked (so that
/// errors can refer to its origin as `'static`), never changed again. Generic over its atomic
/// for the model tests (`error/atomics.rs`); the crate's is `core`'s.
pub(crate) struct Poison<P = AtomicPtr<First>> {
    first: P,
}

/// The process's record.
static PROCESS: Poison = Poison::new();

/// The process's record, for a caller that holds a record to poison (`health/`, whose unit
/// tests give it one of their own instead).
#[cfg_attr(not(feature = "nvml"), allow(dead_code))]
pub(crate) fn process() -> &'static Poison {
    &PROCESS
}

impl Poison {
    pub(crate) const fn new() -> Self {
        Self {
            first: AtomicPtr::new(core::ptr::null_mut()),
        }
    }
}

impl<P: Atomic<Value = *mut First>> Poison<P> {
    /// An empty record over the atomic `P` (the model tests').
    #[cfg(all(test, loom))]
    fn empty() -> Self {
        Self {
            first: P::make(core::ptr::null_mut()),
        }
    }

    /// The record, if one was published: an acquire load, which sees the whole `First` its
    /// publisher wrote before its release.
    #[inline]
    fn first(&self) -> Option<&'static First> {
        let first = self.first.load(Ordering::Acquire);
        // SAFETY: the cell holds null or a pointer from `Box::into_raw` of a `First` that
        // `observe` published and never frees (nor does anything else): valid for `'static`,
        // and never written after its publication (acquire pairs with the publishing release).
        unsafe { first.as_ref() }
    }

    /// `Ok` if nothing is recorded: one atomic load.
    #[inline]
    pub(crate) fn check(&self) -> Result<()> {
        match self.first() {
            None => Ok(()),
            Some(first) => Err(refused(first)),
        }
    }

    /// The first error, with its origin, if one is recorded.
    pub(crate) fn recorded(&self) -> Option<Error> {
        self.first().map(First::error)
    }

    /// Records `error` if it is sticky and nothing is recorded yet; returns what the caller
    /// should return: the first sticky error (with its origin) if `error` is sticky, `error`
    /// unchanged otherwise.
    pub(crate) fn observe(
        &self,
        error: Error,
        observer: Observer,
        call_site: &'static Location<'static>,
    ) -> Error {
        if !error.is_sticky() {
            return error;
        }
        if let Some(first) = self.first() {
            return first.error();
        }
        let mine = Box::into_raw(Box::new(First {
            origin: Origin {
                observer,
                call_site,
                kernel: LAST_KERNEL.with(Cell::get),
                thread: std::thread::current().name().map(Into::into),
                unfinished: UNFINISHED.get().and_then(|find| find()),
            },
            error,
        }));
        let first = match self.first.compare_exchange(
            core::ptr::null_mut(),
            mine,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: `mine` is from `Box::into_raw` just above and is now the published
            // record, which nothing frees: valid for `'static`.
            Ok(_) => unsafe { &*mine },
            Err(winner) => {
                // SAFETY: `mine` is from `Box::into_raw` just above and was not published (the
                // exchange failed), so no other thread saw it: freed once, here.
                drop(unsafe { Box::from_raw(mine) });
                // SAFETY: `winner` is non-null (the exchange failed on it) and is the published
                // record (see `first`), whose writes the acquire ordering made visible.
                unsafe { &*winner }
            }
        };
        first.error()
    }
}

impl First {
    fn error(&'static self) -> Error {
        self.error.clone().with_origin(&self.origin)
    }
}

/// The first error, a clone with its origin, and a detail saying the call was not made.
#[cold]
#[inline(never)]
fn refused(first: &'static First) -> Error {
    let not_made = "this call was not made: an earlier sticky error poisoned the process";
    let error = first.error();
    let detail = match error.detail() {
        Some(detail) => format!("{detail}; {not_made}"),
        None => not_made.to_owned(),
    };
    error.with_detail(detail)
}

/// Finds the first named launch that never completed, once launches are named
/// (`kernel/naming.rs` registers it: the record of named launches lives above this layer).
static UNFINISHED: OnceLock<fn() -> Option<LaunchSite>> = OnceLock::new();

/// Registers how the origin of a sticky error finds the first named launch that never
/// completed (`kernel/naming.rs`, when launches are first named).
pub(crate) fn find_unfinished_with(find: fn() -> Option<LaunchSite>) {
    let _ = UNFINISHED.set(find);
}

std::thread_local! {
    /// The declared kernel this thread launched last (`None` after a raw launch).
    static LAST_KERNEL: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Refuses the call if the process is poisoned, forked, or this thread is inside a driver
/// callback ([`callback`](crate::error::callback)): an atomic load and a thread-local load on
/// the fast path.
///
/// # Errors
///
/// The first sticky error, with its origin, and a detail saying the call was not made.
#[inline]
pub(crate) fn check() -> Result<()> {
    if forked() {
        return Err(forked_error());
    }
    // Inside code the driver called, where it forbids CUDA calls: refused as under the poison.
    if crate::error::callback::inside() {
        return Err(crate::error::callback::refused());
    }
    PROCESS.check()
}

/// Whether custack may release a driver object now: free or unload memory, a module or a
/// library, destroy a stream, event, graph, context, pool, array, texture or library handle,
/// unmap, unregister, close an IPC mapping, disable peer access. The one place every release
/// site asks (R20, R22); a refusal is [`check`]'s error.
///
/// Refused once the process is poisoned: a sticky fault in context A does not stop context B's
/// kernels and copies (measured on the H100: B's waits return the sticky error while B's work
/// still runs), so after it no wait proves that any work is over, and whatever GPU work of any
/// context may still touch must stay allocated until the process ends, which is what frees it.
/// Refused too in a child forked after [`watch_forks`]: the handles are the parent's, and the
/// child must make no CUDA call at all before it `exec`s. A refused release makes no driver
/// call: the object is leaked, named to the checking driver
/// ([`left_behind`](crate::error::left_behind::left_behind)), and a drop records the refusal
/// ([`record_drop_error`](crate::error::drop_log::record_drop_error)); see
/// [`release`](crate::error::left_behind::release) and
/// [`release_in_drop`](crate::error::left_behind::release_in_drop).
///
/// # Errors
///
/// As [`check`]: the first sticky error, or `ErrorKind::ForkedProcess`.
#[inline]
pub(crate) fn may_release() -> Result<()> {
    check()
}

pub(crate) use crate::error::fork::forked;

/// `Ok` unless this is a forked child ([`forked`]): the check before the calls that, unlike a
/// release, still happen in a poisoned process: a pop (`cuCtxPopCurrent`), and the lookup of the
/// checking driver's extensions (`cuGetProcAddress`), through which custack names what it leaves
/// behind.
///
/// # Errors
///
/// `ErrorKind::ForkedProcess` in a forked child.
#[inline]
pub(crate) fn not_forked() -> Result<()> {
    if forked() {
        Err(forked_error())
    } else {
        Ok(())
    }
}

/// Makes the child of every later `fork` refuse all of custack's calls that would reach the
/// driver (`ErrorKind::ForkedProcess`), until it `exec`s: NVIDIA's safety guideline asks that a
/// forked child make no CUDA call before it does. Registered once per process
/// (`pthread_atfork`); under Miri, and on Windows, which have no `fork`, nothing is registered.
pub(crate) fn watch_forks() -> Result<()> {
    let status = crate::error::fork::watch();
    if status == 0 {
        Ok(())
    } else {
        Err(Error::custack(
            crate::error::kind::ErrorKind::OutsideProfile,
            format!("pthread_atfork failed ({status}): a forked child could not be refused"),
        ))
    }
}

#[cold]
#[inline(never)]
fn forked_error() -> Error {
    Error::custack(
        crate::error::kind::ErrorKind::ForkedProcess,
        "this process was forked after custack::safety::Profile::init: it must exec before any CUDA \
         call, and custack refuses them until then",
    )
}

/// Notes a launch this thread made, after it: its declared kernel (`None` for a raw launch), for
/// the origin of a sticky error this thread observes next (the kernel launched last before it).
#[inline]
pub(crate) fn launched(kernel: Option<&'static str>) {
    LAST_KERNEL.with(|k| k.set(kernel));
}

/// Records `error` if it is sticky and nothing is recorded yet, as observed by `observer` at
/// `call_site`; returns the process's first sticky error if `error` is sticky, `error` otherwise.
/// Out of line: only failures pay for it.
#[cold]
#[inline(never)]
pub(crate) fn observe(
    error: Error,
    observer: Observer,
    call_site: &'static Location<'static>,
) -> Error {
    PROCESS.observe(error, observer, call_site)
}

/// The sticky error that poisoned this process, with its [`Origin`], or `None` while no sticky
/// error has been observed.
///
/// Once it is `Some`, custack makes no more calls that could hang or mislead (pushes, scopes,
/// submissions, launches, waits, synchronizes): they return this error, and the process should
/// end ([`fail_stop`](crate::fail_stop)); CUDA is usable again only in a new process.
///
/// # Examples
///
/// ```
/// // A process that has seen no sticky error.
/// assert!(custack::poisoned().is_none());
/// ```
pub fn poisoned() -> Option<Error> {
    PROCESS.recorded()
}

#[cfg(test)]
mod tests {
    /// Inside a callback every checked call is refused, and only there: the mark is put back
    /// after the callback, after a nested one and after one that panicked.
    #[test]
    fn a_call_inside_a_driver_callback_is_refused_and_only_there() {
        use crate::error::ErrorKind;
        use crate::error::callback::inside;
        assert!(!inside());
        assert!(crate::error::poison::check().is_ok());
        crate::error::callback::run(|| {
            assert!(inside());
            let refused = crate::error::poison::check().map_err(|e| e.kind());
            assert_eq!(refused, Err(ErrorKind::NotPermitted));
            crate::error::callback::run(|| assert!(inside()));
            assert!(inside(), "a nested callback's end put the mark back");
        });
        assert!(!inside());
        let unwound =
            std::panic::catch_unwind(|| crate::error::callback::run(|| panic!("in the callback")));
        assert!(unwound.is_err());
        assert!(!inside(), "a panicking callback put the mark back");
        assert!(crate::error::poison::check().is_ok());
    }

    use super::*;
    use crate::error::kind::ErrorKind;
    use crate::ffi;

    fn sticky() -> Error {
        Error::from_code(ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS)
    }

    #[test]
    fn a_non_sticky_error_poisons_nothing() {
        // A record of this test's own, made at run time (a static's is made at compile time).
        // Freed at the end (Miri's leak check): a non-sticky error records nothing in it.
        let raw = Box::into_raw(Box::new(Poison::new()));
        // SAFETY: `raw` is a live allocation of this test's own until it is freed below, and
        // nothing reads through `poison` after that.
        let poison: &'static Poison = unsafe { &*raw };
        let e = Error::from_kind(ErrorKind::InvalidValue);
        let seen = poison.observe(e.clone(), Observer::ScopeEnd, Location::caller());
        assert_eq!(seen, e);
        assert!(seen.origin().is_none());
        assert!(poison.check().is_ok());
        assert!(poison.recorded().is_none());
        // SAFETY: made by `Box::into_raw` above; nothing kept a reference to it (checked just
        // above: nothing was recorded).
        drop(unsafe { Box::from_raw(raw) });
    }

    #[test]
    fn the_first_sticky_error_wins_and_the_check_refuses_after_it() {
        static POISON_2: Poison = Poison::new(); // a record of this test's own
        let poison = &POISON_2;
        assert!(poison.check().is_ok());
        let here = Location::caller();
        let first = poison.observe(sticky().with_detail("the first"), Observer::ScopeEnd, here);
        assert_eq!(first.kind(), ErrorKind::IllegalAddress);
        assert_eq!(first.detail(), Some("the first"));
        let origin = first.origin().expect("an origin");
        assert_eq!(origin.observer(), Observer::ScopeEnd);
        assert_eq!(origin.call_site(), here);
        // A later sticky error, of another kind, observed elsewhere: the first is returned.
        let later = poison.observe(
            Error::from_code(ffi::CUresult::CUDA_ERROR_LAUNCH_FAILED),
            Observer::Launch,
            Location::caller(),
        );
        assert_eq!(later, first);
        assert_eq!(
            later.origin().map(Origin::observer),
            Some(Observer::ScopeEnd)
        );
        // A non-sticky error stays itself.
        let plain = Error::from_kind(ErrorKind::InvalidValue);
        assert_eq!(poison.observe(plain.clone(), Observer::Launch, here), plain);
        // The check refuses, with the first error, its origin and a detail saying so.
        let refused = poison.check().unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::IllegalAddress);
        assert_eq!(refused.origin(), first.origin());
        let detail = refused.detail().unwrap_or_default();
        assert!(
            detail.starts_with("the first; this call was not made"),
            "{detail}"
        );
        assert_eq!(poison.recorded(), Some(first));
    }

    #[test]
    fn the_origin_is_displayed_with_the_error() {
        static POISON_3: Poison = Poison::new(); // a record of this test's own
        let poison = &POISON_3;
        let e = poison.observe(sticky(), Observer::SubmissionWait, Location::caller());
        let text = e.to_string();
        let origin = e.origin().unwrap();
        assert!(
            text.contains(&format!(
                "\n  first observed by a submission's wait at {}",
                origin.call_site()
            )),
            "{text}"
        );
        assert!(text.contains("src/error/poison.rs:"), "{text}");
        assert!(format!("{e:#?}").contains("origin: Origin"), "{e:#?}");
    }

    #[test]
    fn a_launch_names_its_declared_kernel_until_a_raw_launch() {
        static POISON_4: Poison = Poison::new(); // a record of this test's own
        static POISON_5: Poison = Poison::new();
        launched(Some("saxpy"));
        let poison = &POISON_4;
        let e = poison.observe(sticky(), Observer::ScopeEnd, Location::caller());
        assert_eq!(e.origin().and_then(Origin::kernel), Some("saxpy"));
        assert!(e.to_string().contains(", kernel `saxpy`"), "{e}");
        launched(None);
        let poison = &POISON_5;
        let e = poison.observe(sticky(), Observer::ScopeEnd, Location::caller());
        assert_eq!(e.origin().and_then(Origin::kernel), None);
        assert!(!e.to_string().contains("kernel `"), "{e}");
    }

    #[test]
    fn the_first_error_wins_across_threads() {
        static POISON_6: Poison = Poison::new(); // a record of this test's own
        let poison = &POISON_6;
        let codes = [
            ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            ffi::CUresult::CUDA_ERROR_LAUNCH_FAILED,
            ffi::CUresult::CUDA_ERROR_ASSERT,
            ffi::CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR,
        ];
        let seen: Vec<Error> = std::thread::scope(|s| {
            let handles: Vec<_> = codes
                .iter()
                .enumerate()
                .map(|(i, &code)| {
                    std::thread::Builder::new()
                        .name(format!("observer-{i}"))
                        .spawn_scoped(s, move || {
                            poison.observe(
                                Error::from_code(code),
                                Observer::Launch,
                                Location::caller(),
                            )
                        })
                        .unwrap()
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        // Every thread got the same error: the one recorded, with its thread's name.
        let first = poison.recorded().unwrap();
        assert!(seen.iter().all(|e| *e == first), "{seen:?}");
        let thread = first.origin().and_then(Origin::thread).unwrap();
        let i: usize = thread.strip_prefix("observer-").unwrap().parse().unwrap();
        assert_eq!(first.code(), Some(codes[i]));
        // And every thread is refused from then on.
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(poison.check().unwrap_err().code(), Some(codes[i])));
        });
    }

    #[test]
    fn an_unknown_code_takes_the_safe_state_only_under_the_profile() {
        let unknown = Error::from_code(ffi::CUresult(12_345)).kind();
        assert!(
            matches!(unknown, ErrorKind::Unlisted(12_345)),
            "{unknown:?}"
        );
        assert!(unknown_under_profile(unknown, true));
        assert!(
            !unknown_under_profile(unknown, false),
            "a full-API process, or one before any init"
        );
        assert!(!unknown_under_profile(ErrorKind::InvalidValue, true));
        assert!(!unknown_under_profile(ErrorKind::IllegalAddress, true));
    }

    /// End to end, in a forked child confined to the profile: an unknown code from a driver
    /// call ends the child in the safe state (status 75).
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn an_unknown_code_under_the_profile_ends_the_process_in_the_safe_state() {
        crate::alone::rerun_alone!(
            an_unknown_code_under_the_profile_ends_the_process_in_the_safe_state
        );
        // SAFETY: the child sets a flag, converts a code and `_exit`s (the safe state's or its
        // own).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            if crate::error::confinement::confine().is_ok() {
                let _ = ffi::CUresult(12_345).result();
                // SAFETY: ends the child: the conversion returned, which it must not.
                unsafe { libc::_exit(1) };
            }
            // This process used the full API before the fork: no profile possible here.
            // SAFETY: ends the child.
            unsafe { libc::_exit(3) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        let code = libc::WEXITSTATUS(status);
        if code == 3 {
            assert!(
                !crate::error::confinement::confined(),
                "the child's exit 3: this process used the full API"
            );
        } else {
            assert_eq!(code, crate::error::safe_state::FAIL_STOP_STATUS);
        }
    }

    /// A code a driver call returned and its caller matched before converting it (peer access
    /// already enabled, a refused graph update, NCCL's stream waits) goes through `failure`,
    /// which records a sticky one as `result` does: no real result escapes the poison. In a
    /// forked child, since it poisons the process's own record.
    #[test]
    #[cfg(all(unix, not(miri)))]
    fn a_sticky_code_matched_before_its_conversion_still_poisons_the_process() {
        crate::alone::rerun_alone!(
            a_sticky_code_matched_before_its_conversion_still_poisons_the_process
        );
        // SAFETY: the child only converts codes, reads the record and `_exit`s.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let clean = PROCESS.recorded().is_none();
            let plain = ffi::CUresult::CUDA_ERROR_INVALID_VALUE.failure();
            let plain_ok = plain.kind() == ErrorKind::InvalidValue
                && plain.code() == Some(ffi::CUresult::CUDA_ERROR_INVALID_VALUE)
                && plain.origin().is_none()
                && PROCESS.recorded().is_none() == clean;
            let sticky = ffi::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS.failure();
            let recorded = PROCESS.recorded().is_some_and(|first| first == sticky)
                && PROCESS.check().is_err()
                && sticky.origin().is_some();
            // Where nothing was recorded before, this call is the origin.
            let here = !clean
                || (sticky.kind() == ErrorKind::IllegalAddress
                    && sticky.origin().is_some_and(|o| {
                        o.observer() == Observer::DriverCall && o.call_site().file() == file!()
                    }));
            let status = match (plain_ok, recorded, here) {
                (true, true, true) => 0,
                (false, _, _) => 1,
                (_, false, _) => 2,
                (_, _, false) => 3,
            };
            // SAFETY: ends the child at once, running nothing of the parent's.
            unsafe { libc::_exit(status) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
        // 1: a non-sticky code was recorded or changed; 2: the sticky one was not recorded;
        // 3: recorded with another origin.
        assert_eq!(libc::WEXITSTATUS(status), 0, "see the statuses above");
    }
}

/// The record under every interleaving (`loom`; `scripts/loom.sh`): the real `observe` and
/// `check` over `loom`'s atomic pointer. Each model's records are leaked, as the process's is.
#[cfg(all(test, loom))]
mod model {
    use super::{First, Poison};
    use crate::error::failure::Error;
    use crate::error::kind::ErrorKind;
    use crate::error::origin::Observer;
    use crate::ffi::CUresult;
    use core::panic::Location;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicPtr;

    type Record = Arc<Poison<AtomicPtr<First>>>;

    fn observe(poison: &Record, code: CUresult) -> Error {
        poison.observe(Error::from_code(code), Observer::Launch, Location::caller())
    }

    /// Two threads observe different sticky errors: both return the same one, the one
    /// recorded, and every check after refuses with it.
    #[test]
    fn the_first_sticky_error_wins_on_every_thread() {
        loom::model(|| {
            let poison: Record = Arc::new(Poison::empty());
            let other = Arc::clone(&poison);
            let t =
                loom::thread::spawn(move || observe(&other, CUresult::CUDA_ERROR_LAUNCH_FAILED));
            let mine = observe(&poison, CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
            let theirs = t.join().unwrap();
            assert_eq!(mine, theirs);
            assert_eq!(poison.recorded(), Some(mine.clone()));
            assert_eq!(poison.check().unwrap_err().code(), mine.code());
        });
    }

    /// A check racing the first sticky error sees nothing or the whole record (never a record
    /// half written); a non-sticky error on a third thread records nothing.
    #[test]
    fn a_racing_check_sees_nothing_or_the_whole_record() {
        loom::model(|| {
            let poison: Record = Arc::new(Poison::empty());
            let checker = {
                let poison = Arc::clone(&poison);
                loom::thread::spawn(move || poison.check().err())
            };
            let plain = {
                let poison = Arc::clone(&poison);
                loom::thread::spawn(move || observe(&poison, CUresult::CUDA_ERROR_INVALID_VALUE))
            };
            let first = observe(&poison, CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
            assert_eq!(plain.join().unwrap().kind(), ErrorKind::InvalidValue);
            if let Some(seen) = checker.join().unwrap() {
                assert_eq!(seen.code(), first.code());
                assert_eq!(seen.origin(), first.origin());
            }
            assert_eq!(poison.recorded(), Some(first));
        });
    }
}
