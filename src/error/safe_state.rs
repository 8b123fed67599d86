//! The one safe state (R20): how a process ends when custack cannot show that the GPU is done
//! with memory it is about to hand back, and how a program ends itself after a GPU fault.
//!
//! Why a process must end rather than return, measured on an H100 (driver 580,
//! `scripts/fault-facts/`, docs/reliability.md "What a sticky fault does"): a sticky fault in
//! one context makes *every* context of the process answer the sticky error at the same
//! instant, while another context's kernels and copies keep running: a download into
//! page-locked memory landed 360 ms after its stream first answered the error. After the fault
//! no enqueue succeeds and host functions never run, so no marker enqueued then can say when
//! the work ends; the driver's own answers say nothing about it. A scope whose wait sees a
//! sticky error therefore cannot end its borrows: it ends the process here instead, and ending
//! the process is what ends the device's work on that memory. Owned pending work (submissions)
//! has a way out that a borrow lacks: it is leaked (R11), never handed back.
//!
//! Every path that ends a process for the GPU comes here: [`fail_stop`] (a program's own call
//! after a fault), a scope whose wait saw a sticky error or cannot be confirmed, and a bounded
//! scope past its deadline with [`Overrun::Exit`](crate::Overrun::Exit). Each prints one line
//! on stderr, starting `custack: fail-stop (exit status 75): `, with the error and its
//! [`Origin`](crate::Origin) on that line, and exits with [`FAIL_STOP_STATUS`], within a bound
//! from any thread in any state: no lock, no allocation, only async-signal-safe calls, and an
//! alarm as the backstop (R25; [`fail_stop`] says how).

use crate::error::atomics::Atomic;
use crate::error::failure::Error;
use crate::error::kind::ErrorKind;
use crate::ffi;
use core::fmt;
use core::panic::Location;
use core::sync::atomic::{AtomicBool, Ordering};

/// `Result` with custack's [`Error`].
type Result<T, E = Error> = core::result::Result<T, E>;

/// The exit status of the safe state: 75, `EX_TEMPFAIL` of `sysexits.h` ("a temporary failure,
/// the user is invited to retry"). A supervisor that sees it starts a new process for the work:
/// the GPU is usable again there. custack never ends a process for the GPU with another status.
pub const FAIL_STOP_STATUS: i32 = 75;

/// The start of the one line the safe state prints on stderr.
pub(crate) const REPORT_PREFIX: &str = "custack: fail-stop (exit status 75): ";

/// The end of that line, before its newline.
const REPORT_SUFFIX: &str = "; the GPU is unusable in this process, a new process can use it again";

const _: () = assert!(FAIL_STOP_STATUS == 75, "REPORT_PREFIX names the status");

/// The longest line the safe state writes, in bytes, its newline included: a longer one is cut
/// and ends in `…` (on the stack: the safe state allocates nothing). Below Linux's `PIPE_BUF`
/// (4,096), so that one `write` to a pipe with room for it there is whole and never interleaved
/// with another writer's.
pub(crate) const LINE_BYTES: usize = 2048;

/// How long the safe state waits for stderr to take its line (`poll`), at most: past it the
/// line is dropped and the process ends without it.
#[cfg(all(unix, not(miri)))]
const WRITE_WAIT: core::time::Duration = core::time::Duration::from_millis(100);

/// The backstop (`alarm`), in seconds: whatever the safe state is blocked in (a `write` that
/// `poll` said would not block, and then did), `SIGALRM` ends the process with
/// [`FAIL_STOP_STATUS`] this long after entry, at most (the alarm's own granularity: it may
/// fire up to a second early, never late, but for what the scheduler adds).
#[cfg(all(unix, not(miri)))]
const BACKSTOP_SECONDS: libc::c_uint = 1;

/// Ends the process after a GPU fault: the one safe state. Prints one line on stderr, starting
/// `custack: fail-stop (exit status 75): `, with `error` and its [`Origin`](crate::Origin), and
/// exits with [`FAIL_STOP_STATUS`], which a supervisor acts on by starting a new process.
///
/// Ending the process is what ends the device's work and frees its memory: after a sticky error
/// no call in this process can, and the driver releases the process's contexts when it exits.
/// The process ends at once (`_exit`): no destructor and no exit handler runs, nothing unwinds
/// through CUDA state, and no memory the GPU may still write is freed or reused before the
/// process is gone.
///
/// # A bound, from any thread in any state (contract row R25)
///
/// The safe state takes no lock, allocates nothing and calls only async-signal-safe functions,
/// so it ends the process whatever another thread holds (stdout's or stderr's lock, the
/// allocator's) and whatever stdout and stderr are (a pipe whose reader stalled, a full one, a
/// terminal on hold):
///
/// - the line is formatted on the stack, at most 2,048 bytes (a longer one is cut, ending in
///   `…`), from the error's parts: the kind's name from custack's own table (the driver's
///   `cuGetErrorName` by contract row R2; no driver call, so not the driver's description),
///   the code, the detail, whether it is sticky, the [`Origin`](crate::Origin) and the hint,
///   on one line;
/// - on Unix, a `SIGALRM` handler that calls `_exit(75)` is installed, `SIGALRM` unblocked in
///   the calling thread and `alarm(1)` set: a backstop that ends the process about a second
///   after entry whatever it is blocked in;
/// - stderr (descriptor 2) is polled for room for up to 100 ms and the line written only if it
///   has room (a stalled pipe, a full one: no line, the same status);
/// - then `_exit(75)`.
///
/// A second thread that enters while the first is in it writes nothing and waits for the
/// first's `_exit` (which the alarm bounds), so the process prints exactly one line.
/// docs/reliability.md ("The safe state's bound") states what that is on a measured machine.
///
/// **Standard output is not flushed**: flushing takes stdout's lock, which another thread may
/// hold for ever (blocked writing to a stalled pipe). Rust's `stdout` is line-buffered, so what
/// `println!` wrote is out; at most the last line, if `print!` left it without its newline, is
/// lost, and what a program buffers itself (a `BufWriter`) is lost. Write and flush what your
/// program must keep (its results so far) before calling it.
///
/// custack takes the same state itself where it cannot return soundly: a stream scope whose
/// wait answers a sticky error (another context's fault does not stop this context's work, so
/// the scope's borrows cannot end), and a bounded scope past its deadline with
/// [`Overrun::Exit`](crate::Overrun::Exit).
///
/// Any error may be passed, sticky or not: the status says only "retry in a new process".
///
/// # Examples
///
/// ```no_run
/// # fn run_job() -> custack::Result<u32> { Ok(1) }
/// match run_job() {
///     Ok(result) => println!("{result}"),
///     Err(e) if e.is_sticky() => custack::fail_stop(&e), // exit status 75: relaunch me
///     Err(e) => {
///         eprintln!("{e}");
///         std::process::exit(1)
///     }
/// }
/// ```
#[cold]
#[inline(never)]
pub fn fail_stop(error: &Error) -> ! {
    safe_state(error, None)
}

/// [`fail_stop`], the line's detail followed by `more` (written as the line is, on the stack:
/// for a caller that would otherwise allocate a detail on its way to the safe state).
#[cold]
#[inline(never)]
pub(crate) fn fail_stop_with(error: &Error, more: fmt::Arguments<'_>) -> ! {
    safe_state(error, Some(more))
}

/// Who enters the safe state first: one flag for the process. The first caller writes the line;
/// a later one (another thread, at the same time) writes nothing and waits for the first's
/// `_exit`. A type of its own over one atomic, so that a model checker can drive it.
///
/// Generic over its atomic for the model tests (`error/atomics.rs`); the crate's is `core`'s.
pub(crate) struct Entry<A = AtomicBool> {
    entered: A,
}

impl Entry {
    pub(crate) const fn new() -> Self {
        Self {
            entered: AtomicBool::new(false),
        }
    }
}

impl<A: Atomic<Value = bool>> Entry<A> {
    /// A fresh entry over the atomic `A` (the model tests').
    #[cfg(all(test, loom))]
    fn fresh() -> Self {
        Self {
            entered: A::make(false),
        }
    }

    /// `true` for the first caller, `false` for every later one (one compare-exchange: no lock,
    /// async-signal-safe).
    pub(crate) fn first(&self) -> bool {
        self.entered
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

impl Entry {
    /// Whether a caller entered already (read by the `atexit` handler, which only Unix has).
    #[cfg(all(unix, not(miri)))]
    fn entered(&self) -> bool {
        self.entered.load(Ordering::Acquire)
    }
}

/// The safe state's entry, for the whole process.
static ENTRY: Entry = Entry::new();

/// Keeps another thread's `exit` from ending the process with its own status while the safe
/// state is under way (found by review: `std::process::exit(0)` from another thread, or `main`
/// returning its error, ended the process with 0 or 1, its line lost, during the safe state's
/// wait for stderr): an `atexit` handler, registered once per process, that waits there for the
/// safe state's `_exit(75)` once it was entered (as a second caller waits, bounded). An `exit`
/// that began before the safe state was entered ends the process with its own status, and
/// `_exit` or `abort` from another thread bypass every handler: both are the program's own end,
/// not the GPU's. Registered by `Driver::init` and the restricted profile's `cuInit`, before any
/// work can reach the safe state. Its status: 0, or `atexit`'s failure (no memory).
pub(crate) fn guard_exits() -> i32 {
    static GUARDED: std::sync::OnceLock<i32> = std::sync::OnceLock::new();
    #[cfg(all(unix, not(miri)))]
    let status = *GUARDED.get_or_init(|| {
        extern "C" fn at_exit() {
            if ENTRY.entered() {
                wait_for_the_first()
            }
        }
        // SAFETY: `at_exit` is an `extern "C"` function taking nothing; it reads an atomic
        // and, once the safe state was entered, sleeps and `_exit`s (async-signal-safe calls).
        unsafe { libc::atexit(at_exit) }
    });
    #[cfg(not(all(unix, not(miri))))]
    let status = *GUARDED.get_or_init(|| 0);
    status
}

/// The safe state: see [`fail_stop`].
fn safe_state(error: &Error, more: Option<fmt::Arguments<'_>>) -> ! {
    if !ENTRY.first() {
        wait_for_the_first()
    }
    #[cfg(all(unix, not(miri)))]
    backstop();
    let mut line = Line::<LINE_BYTES>::new();
    // `Line` never fails (it cuts what does not fit).
    let _ = write_report(&mut line, error, more);
    write_stderr(line.terminated());
    exit_now()
}

/// The one line: [`REPORT_PREFIX`], the error as `Display` shows it but from its own parts (no
/// driver call), its origin and hint on the same line after `; `, then `more`, then
/// [`REPORT_SUFFIX`]. Allocates nothing itself; what it formats (`Origin`, `Location`, integers,
/// `&str`s) allocates nothing either (`a_report_line_allocates_nothing`).
pub(crate) fn write_report(
    w: &mut impl fmt::Write,
    error: &Error,
    more: Option<fmt::Arguments<'_>>,
) -> fmt::Result {
    let kind = error.kind();
    w.write_str(REPORT_PREFIX)?;
    match error.code().or_else(|| kind.code()) {
        Some(ffi::CUresult::CUDA_SUCCESS) => w.write_str("CUDA_SUCCESS (0)")?,
        // The table's name is the driver's (contract row R2); an unlisted code keeps its value.
        Some(code) => write!(w, "{} ({})", ErrorKind::from_code(code).name(), code.0)?,
        None => w.write_str(kind.custack_sentence().unwrap_or(kind.name()))?,
    }
    if let Some(detail) = error.detail() {
        write!(w, ": {detail}")?;
    }
    if let Some(more) = more {
        write!(w, ": {more}")?;
    }
    if kind.is_sticky() {
        w.write_str(" (sticky: CUDA is unusable in this process; a new process can use it again)")?;
    }
    if let Some(origin) = error.origin() {
        write!(w, "; {origin}")?;
    }
    if let Some(hint) = kind.hint() {
        write!(w, "; hint: {hint}")?;
    }
    w.write_str(REPORT_SUFFIX)
}

/// A line being written into `N` bytes on the stack (`core::fmt::Write`): what does not fit is
/// cut at a character boundary and the line ends in `…`; line breaks and other control
/// characters become spaces, so that it stays one line. Never fails, never allocates.
pub(crate) struct Line<const N: usize> {
    bytes: [u8; N],
    len: usize,
    cut: bool,
}

/// The end of a line that was cut.
const CUT: &str = "…\n";

impl<const N: usize> Line<N> {
    const ROOM: () = assert!(N > CUT.len(), "room for the end of a cut line");

    pub(crate) const fn new() -> Self {
        let () = Self::ROOM;
        Self {
            bytes: [0; N],
            len: 0,
            cut: false,
        }
    }

    /// The line, ending in `\n` (or `…\n` where it was cut).
    pub(crate) fn terminated(&mut self) -> &[u8] {
        let end = if self.cut { CUT } else { "\n" };
        // `write_str` keeps `CUT.len()` bytes free, so the end fits.
        if let Some(room) = self
            .bytes
            .get_mut(self.len..self.len.saturating_add(end.len()))
        {
            room.copy_from_slice(end.as_bytes());
            self.len = self.len.saturating_add(end.len());
        }
        self.bytes.split_at(self.len.min(N)).0
    }
}

impl<const N: usize> fmt::Write for Line<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.cut {
            return Ok(());
        }
        let room = N.saturating_sub(CUT.len()).saturating_sub(self.len);
        let mut take = s.len().min(room);
        if take < s.len() {
            self.cut = true;
            while !s.is_char_boundary(take) {
                take = take.saturating_sub(1);
            }
        }
        let Some(to) = self.bytes.get_mut(self.len..self.len.saturating_add(take)) else {
            return Ok(());
        };
        for (to, &b) in to.iter_mut().zip(s.as_bytes()) {
            *to = if b.is_ascii_control() && b != b'\t' {
                b' '
            } else {
                b
            };
        }
        self.len = self.len.saturating_add(take);
        Ok(())
    }
}

/// Installs the backstop: `SIGALRM` ends the process with [`FAIL_STOP_STATUS`], unblocked in
/// this thread, in [`BACKSTOP_SECONDS`]; and `SIGPIPE` blocked in this thread, so that a write to
/// a stderr whose reader is gone fails (`EPIPE`) instead of killing the process with another
/// status (found by review: a program that restored `SIGPIPE`'s default ended with 141).
/// Async-signal-safe calls only (`sigaction`, `sigemptyset`, `sigaddset`, `pthread_sigmask`,
/// `alarm`).
#[cfg(all(unix, not(miri)))]
fn backstop() {
    extern "C" fn on_alarm(_: libc::c_int) {
        // SAFETY: `_exit` is async-signal-safe and ends the process at once.
        unsafe { libc::_exit(FAIL_STOP_STATUS) }
    }
    // SAFETY: `sigaction` and `sigset_t` are plain C data, valid all zeroes.
    let mut action: libc::sigaction = unsafe { core::mem::zeroed() };
    action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: as above.
    let mut alarm_only: libc::sigset_t = unsafe { core::mem::zeroed() };
    // SAFETY: each call gets a pointer to a live local of the type it takes; a failure (none is
    // possible with these arguments) leaves the backstop out, never anything unsound.
    unsafe {
        libc::sigemptyset(&raw mut action.sa_mask);
    }
    // SAFETY: as above.
    unsafe {
        libc::sigaction(libc::SIGALRM, &raw const action, core::ptr::null_mut());
    }
    // SAFETY: as above.
    unsafe {
        libc::sigemptyset(&raw mut alarm_only);
    }
    // SAFETY: as above.
    unsafe {
        libc::sigaddset(&raw mut alarm_only, libc::SIGALRM);
    }
    // SAFETY: as above; the old mask is not asked for.
    unsafe {
        libc::pthread_sigmask(
            libc::SIG_UNBLOCK,
            &raw const alarm_only,
            core::ptr::null_mut(),
        );
    }
    // SAFETY: as above.
    let mut pipe_only: libc::sigset_t = unsafe { core::mem::zeroed() };
    // SAFETY: as above.
    unsafe {
        libc::sigemptyset(&raw mut pipe_only);
    }
    // SAFETY: as above.
    unsafe {
        libc::sigaddset(&raw mut pipe_only, libc::SIGPIPE);
    }
    // SAFETY: as above; a `SIGPIPE` raised by this thread's write stays pending until `_exit`.
    unsafe {
        libc::pthread_sigmask(libc::SIG_BLOCK, &raw const pipe_only, core::ptr::null_mut());
    }
    // SAFETY: `alarm` takes any count of seconds.
    unsafe {
        libc::alarm(BACKSTOP_SECONDS);
    }
}

/// Writes `line` to descriptor 2 if it takes it within [`WRITE_WAIT`]: `poll` for room, then
/// `write`, again after a signal or a partial write while time is left. A `write` that blocks
/// all the same (another writer filled the pipe in between) is ended by the backstop.
#[cfg(all(unix, not(miri)))]
fn write_stderr(line: &[u8]) {
    let start = std::time::Instant::now(); // clock_gettime(CLOCK_MONOTONIC): no lock, no allocation
    let mut rest = line;
    while !rest.is_empty() {
        let left = WRITE_WAIT.saturating_sub(start.elapsed());
        if left.is_zero() {
            return;
        }
        let mut stderr = libc::pollfd {
            fd: 2,
            events: libc::POLLOUT,
            revents: 0,
        };
        // The time left, rounded up to whole milliseconds: at most 100, it fits.
        let wait_ms = libc::c_int::try_from(left.as_micros().div_ceil(1000)).unwrap_or(1);
        // SAFETY: one live `pollfd`, and its count.
        let ready = unsafe { libc::poll(&raw mut stderr, 1, wait_ms) };
        if ready < 0 && interrupted() {
            continue;
        }
        let broken = libc::POLLERR | libc::POLLHUP | libc::POLLNVAL;
        if ready <= 0 || stderr.revents & broken != 0 || stderr.revents & libc::POLLOUT == 0 {
            // No room in time, or an error (a pipe whose reader is gone answers POLLOUT and
            // POLLERR), a hang-up, a closed descriptor: no line.
            return;
        }
        // SAFETY: `rest` is valid for reads of its length.
        let wrote = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        match usize::try_from(wrote) {
            Ok(n) => rest = rest.split_at(n.min(rest.len())).1,
            Err(_) if interrupted() => {}
            Err(_) => return,
        }
    }
}

/// Whether the last call failed with `EINTR` (errno: no allocation).
#[cfg(all(unix, not(miri)))]
fn interrupted() -> bool {
    std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
}

/// Writes `line` to descriptor 2 (outside Unix: no `poll` on a console or pipe handle there,
/// and no alarm; the write may block where stderr does).
#[cfg(all(not(unix), not(miri)))]
fn write_stderr(line: &[u8]) {
    let mut rest = line;
    while !rest.is_empty() {
        let len = libc::c_uint::try_from(rest.len()).unwrap_or(libc::c_uint::MAX);
        // SAFETY: `rest` is valid for reads of `len` bytes.
        let wrote = unsafe { libc::write(2, rest.as_ptr().cast(), len) };
        match usize::try_from(wrote) {
            Ok(n @ 1..) => rest = rest.split_at(n.min(rest.len())).1,
            _ => return,
        }
    }
}

/// Under Miri (no `poll`, no signals): through std's stderr.
#[cfg(miri)]
fn write_stderr(line: &[u8]) {
    use std::io::Write as _;
    let _ = std::io::stderr().write_all(line);
}

/// Ends the process with [`FAIL_STOP_STATUS`], at once.
fn exit_now() -> ! {
    // Miri has no `_exit`; under it there is no device either, and `exit` ends the interpreted
    // program the same way for what is checked there (nothing freed after it).
    #[cfg(miri)]
    std::process::exit(FAIL_STOP_STATUS);
    // SAFETY: `_exit` ends the process at once; nothing runs after it, so no memory the GPU
    // may still write is ever freed or reused.
    #[cfg(not(miri))]
    unsafe {
        libc::_exit(FAIL_STOP_STATUS)
    }
}

/// A later caller of the safe state: waits for the first one's `_exit`, which its alarm
/// bounds. Should the first never get there (stopped for good in a state nothing here can
/// foresee), this one ends the process itself after about two seconds, without a line.
fn wait_for_the_first() -> ! {
    for _ in 0..200 {
        pause_10ms();
    }
    exit_now()
}

/// Sleeps for 10 ms (`nanosleep` on Unix: async-signal-safe; an interrupted one ends early).
fn pause_10ms() {
    #[cfg(all(unix, not(miri)))]
    {
        // SAFETY: `timespec` is plain C data, valid all zeroes (some targets pad it).
        let mut ten_ms: libc::timespec = unsafe { core::mem::zeroed() };
        ten_ms.tv_nsec = 10_000_000;
        // SAFETY: a live `timespec`; the time left is not asked for.
        unsafe {
            libc::nanosleep(&raw const ten_ms, core::ptr::null_mut());
        }
    }
    #[cfg(any(not(unix), miri))]
    std::thread::sleep(core::time::Duration::from_millis(10));
}

impl ffi::CUresult {
    /// As [`result_by`](Self::result_by), for a call whose return hands memory back to safe
    /// code that the work it waited for may touch (a scope's end, a synchronous copy with host
    /// memory): a sticky answer is no evidence that the work is over (another context's fault
    /// does not stop it), so it takes the [safe state](fail_stop) instead of returning. Other
    /// errors are returned, recorded as `result_by` records them.
    #[inline]
    #[track_caller]
    pub(crate) fn result_releasing(self, observer: crate::error::Observer) -> Result<()> {
        let call_site = Location::caller();
        self.result_at(observer, call_site).map_err(unless_sticky)
    }
}

/// `error`, unless it is sticky: then the safe state (see [`ffi::CUresult::result_releasing`]).
#[inline]
pub(crate) fn unless_sticky(error: Error) -> Error {
    if error.is_sticky() {
        fail_stop(&error)
    }
    error
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use core::fmt::Write as _;

    #[test]
    fn the_report_prefix_names_the_status() {
        assert!(REPORT_PREFIX.contains(&format!("exit status {FAIL_STOP_STATUS})")));
    }

    #[test]
    fn a_non_sticky_error_at_a_releasing_call_is_returned() {
        let e = ffi::CUresult::CUDA_ERROR_INVALID_VALUE
            .result_releasing(crate::error::Observer::ScopeEnd)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(
            ffi::CUresult::CUDA_SUCCESS
                .result_releasing(crate::error::Observer::ScopeEnd)
                .is_ok()
        );
        let plain = Error::from_kind(ErrorKind::NotReady);
        assert_eq!(unless_sticky(plain.clone()), plain);
    }

    /// Runs `f` with an error with every part the line shows: a driver kind with a hint, a
    /// detail, and an origin with a thread, a kernel and an unfinished launch (freed after, for
    /// Miri's leak check).
    fn with_every_part<R>(f: impl FnOnce(&Error) -> R) -> R {
        use crate::error::origin::{LaunchSite, Observer, Origin};
        let raw = Box::into_raw(Box::new(Origin {
            observer: Observer::ScopeEnd,
            call_site: Location::caller(),
            kernel: Some("saxpy"),
            thread: Some("worker 3".into()),
            unfinished: Some(LaunchSite {
                kernel: Some("saxpy"),
                call_site: Location::caller(),
            }),
        }));
        // SAFETY: `raw` is a live allocation of this function's own until it is freed below,
        // and the error that names it is dropped before that.
        let origin: &'static Origin = unsafe { &*raw };
        let e = Error::from_kind(ErrorKind::NotInitialized)
            .with_detail("the detail")
            .with_origin(origin);
        let r = f(&e);
        drop(e);
        // SAFETY: made by `Box::into_raw` above; nothing names it any more.
        drop(unsafe { Box::from_raw(raw) });
        r
    }

    fn report(error: &Error, more: Option<fmt::Arguments<'_>>) -> String {
        let mut line = Line::<LINE_BYTES>::new();
        write_report(&mut line, error, more).unwrap();
        String::from_utf8(line.terminated().to_vec()).unwrap()
    }

    /// For custack's own kinds the line is `Display`'s text, its lines joined with `; `, between
    /// the prefix and the suffix; for a driver kind it is that too but for the driver's
    /// description (no driver call), the name coming from custack's table.
    #[test]
    fn the_report_line_is_the_error_on_one_line() {
        let joined = |e: &Error| e.to_string().replace("\n  ", "; ");
        let e = Error::custack(ErrorKind::DeadlinePassed, "the scope at x.rs:1:1");
        assert_eq!(
            report(&e, None),
            format!("{REPORT_PREFIX}{}{REPORT_SUFFIX}\n", joined(&e))
        );
        let more = report(
            &Error::from_kind(ErrorKind::DeadlinePassed),
            Some(format_args!("{}", 7)),
        );
        assert!(more.ends_with(&format!(": 7{REPORT_SUFFIX}\n")), "{more}");
        let (line, origin) =
            with_every_part(|e| (report(e, None), e.origin().unwrap().to_string()));
        assert_eq!(line.matches('\n').count(), 1, "{line}");
        let hint = format!("; hint: {}", ErrorKind::NotInitialized.hint().unwrap());
        let mut at = 0;
        for part in [
            REPORT_PREFIX,
            "CUDA_ERROR_NOT_INITIALIZED (3): the detail; ",
            origin.as_str(),
            "worker 3",
            "`saxpy` launched at ",
            hint.as_str(),
            REPORT_SUFFIX,
        ] {
            let found = line[at..].find(part).map(|i| i + at);
            assert!(found.is_some(), "{part:?} not in order in {line}");
            at = found.unwrap();
        }
        // Every word of `Display` but the driver's own description is on the line.
        let sticky = report(&Error::from_kind(ErrorKind::IllegalAddress), None);
        assert!(
            sticky.starts_with(&format!(
                "{REPORT_PREFIX}CUDA_ERROR_ILLEGAL_ADDRESS (700) (sticky: CUDA is unusable"
            )),
            "{sticky}"
        );
        let unlisted = report(&Error::from_kind(ErrorKind::Unlisted(4242)), None);
        assert!(
            unlisted.contains("CUDA_ERROR_UNLISTED (4242)"),
            "{unlisted}"
        );
    }

    /// A line too long for its bytes is cut at a character boundary and ends in `…`; line
    /// breaks and control characters in a detail (a JIT log) become spaces: one line.
    #[test]
    fn a_long_or_broken_detail_stays_one_cut_line() {
        let e = Error::custack(ErrorKind::Io, "é".repeat(3 * LINE_BYTES));
        let line = report(&e, None);
        assert!(line.len() <= LINE_BYTES, "{}", line.len());
        assert!(line.len() >= LINE_BYTES - 5, "{}", line.len());
        assert!(line.ends_with("é…\n"), "{line}");
        assert_eq!(line.matches('\n').count(), 1);
        let e = Error::custack(ErrorKind::Io, "a\nb\r\nc\0d\te");
        assert!(
            report(&e, None).contains(": a b  c d\te;"),
            "{}",
            report(&e, None)
        );
        // The edge: text that fills the room exactly is whole; one more byte cuts it.
        let mut exact = Line::<8>::new();
        exact.write_str("abcd").unwrap();
        assert_eq!(exact.terminated(), b"abcd\n");
        let mut over = Line::<8>::new();
        exact = Line::<8>::new();
        exact.write_str("ab").unwrap();
        exact.write_str("cd").unwrap();
        assert_eq!(exact.terminated(), b"abcd\n");
        over.write_str("abcde").unwrap();
        over.write_str("more").unwrap();
        assert_eq!(over.terminated(), "abcd…\n".as_bytes());
    }

    #[test]
    fn only_the_first_caller_enters() {
        let entry = Entry::new();
        assert!(entry.first());
        assert!(!entry.first());
        assert!(!entry.first());
        // Threads racing: exactly one is first.
        let entry = Entry::new();
        let firsts = std::thread::scope(|s| {
            let racers: Vec<_> = (0..4).map(|_| s.spawn(|| entry.first())).collect();
            racers
                .into_iter()
                .filter_map(|r| r.join().ok())
                .filter(|&first| first)
                .count()
        });
        assert_eq!(firsts, 1);
    }

    /// The formatting allocates nothing, origin (a thread name, a kernel, an unfinished launch),
    /// detail and hint included: counted by this test binary's allocator.
    #[test]
    #[cfg(not(miri))]
    fn a_report_line_allocates_nothing() {
        let mut line = Line::<LINE_BYTES>::new();
        let (before, after) = with_every_part(|e| {
            let before = alloc::count(alloc::Watch::Count);
            write_report(&mut line, e, Some(format_args!("{} and {:?}", 12, "x"))).unwrap();
            let _ = line.terminated();
            (before, alloc::count(alloc::Watch::Off))
        });
        assert_eq!(after - before, 0, "the report line allocated");
    }

    /// This test binary's allocator: counts the allocations of a thread that asks it to, or
    /// ends the process with status 98 at its first allocation (in a forked child in the safe
    /// state: an allocation there is seen as another status than 75).
    #[cfg(not(miri))]
    pub(crate) mod alloc {
        use core::cell::Cell;
        use std::alloc::{GlobalAlloc, Layout, System};

        #[derive(Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Watch {
            Off,
            Count,
            #[cfg_attr(not(unix), allow(dead_code))] // the forked tests are Unix's
            Exit,
        }

        std::thread_local! {
            static WATCH: Cell<Watch> = const { Cell::new(Watch::Off) };
            static COUNT: Cell<u64> = const { Cell::new(0) };
        }

        /// Sets this thread's watch; the allocations counted so far.
        pub(crate) fn count(watch: Watch) -> u64 {
            WATCH.with(|w| w.set(watch));
            COUNT.with(Cell::get)
        }

        fn seen() {
            let _ = WATCH.try_with(|w| match w.get() {
                Watch::Off => {}
                Watch::Count => {
                    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
                }
                // SAFETY: ends the process at once (a forked test child).
                Watch::Exit => unsafe { libc::_exit(98) },
            });
        }

        struct Watched;

        // SAFETY: forwards to the system allocator; only counts.
        unsafe impl GlobalAlloc for Watched {
            unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
                seen();
                // SAFETY: the caller's contract, forwarded.
                unsafe { System.alloc(layout) }
            }
            unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
                // SAFETY: the caller's contract, forwarded.
                unsafe { System.dealloc(ptr, layout) }
            }
            unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
                seen();
                // SAFETY: the caller's contract, forwarded.
                unsafe { System.realloc(ptr, layout, new_size) }
            }
        }

        #[global_allocator]
        static WATCHED: Watched = Watched;
    }

    /// A test's forked child that ends in the safe state, and what its parent sees of it: pipes,
    /// a pipe made full, the child's wait status within a liveness bound.
    #[cfg(all(unix, not(miri)))]
    pub(crate) mod child {
        use std::time::{Duration, Instant};

        /// How long a child may live before the test fails: a liveness bound, far above
        /// anything a loaded machine adds (the safe state's own bound is about a second).
        pub(crate) const ALIVE: Duration = Duration::from_secs(60);

        /// A pipe: (read end, write end).
        pub(crate) fn pipe() -> (i32, i32) {
            let mut fds = [0; 2];
            // SAFETY: `fds` is a valid array of two descriptors.
            assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
            (fds[0], fds[1])
        }

        /// Fills the pipe whose write end is `fd` until it takes no more (its reader stalled).
        pub(crate) fn fill(fd: i32) {
            // SAFETY: `fcntl` on a descriptor of this process.
            let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
            // SAFETY: as above.
            let nonblocking = unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) };
            assert_eq!(nonblocking, 0);
            let chunk = [b'.'; 4096];
            // SAFETY: writes from `chunk`, of that length.
            while unsafe { libc::write(fd, chunk.as_ptr().cast(), chunk.len()) } > 0 {}
            // SAFETY: as above.
            assert_eq!(unsafe { libc::fcntl(fd, libc::F_SETFL, flags) }, 0);
        }

        /// Forks a child that runs `child`, which must end in the safe state (97 if it returns); its stderr goes to
        /// `stderr` and its stdout to `stdout` where given. Returns the child's pid.
        pub(crate) fn fork_into(stdout: Option<i32>, stderr: i32, child: impl FnOnce()) -> i32 {
            // SAFETY: the child only redirects descriptors, starts threads and calls the safe
            // state (it never returns into the test harness).
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork failed");
            if pid == 0 {
                // SAFETY: descriptors of this process.
                unsafe {
                    libc::dup2(stderr, 2);
                }
                if let Some(fd) = stdout {
                    // SAFETY: as above.
                    unsafe {
                        libc::dup2(fd, 1);
                    }
                }
                child();
                // The safe state returned: a status the parent reports.
                // SAFETY: ends the child at once.
                unsafe { libc::_exit(97) }
            }
            pid
        }

        /// The child's wait status, once it ended: fails (after killing it) if it is still
        /// alive after [`ALIVE`].
        pub(crate) fn ended(pid: i32) -> i32 {
            let start = Instant::now();
            loop {
                let mut status = 0;
                // SAFETY: waits for this test's own child; `status` is a valid out-pointer.
                let got = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
                if got == pid {
                    return status;
                }
                assert_eq!(got, 0, "waitpid failed");
                if start.elapsed() > ALIVE {
                    // SAFETY: this test's own child, not reaped yet.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                    // SAFETY: as above; `status` is a valid out-pointer.
                    unsafe { libc::waitpid(pid, &raw mut status, 0) };
                    panic!("the child was still alive after {ALIVE:?} (killed): it never ended");
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }

        /// Reads `fd` to its end and closes it.
        pub(crate) fn drain(fd: i32) -> String {
            let mut out = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                // SAFETY: reads into `buf`, of that length.
                let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
                let Ok(n @ 1..) = usize::try_from(n) else {
                    break;
                };
                out.extend_from_slice(&buf[..n]);
            }
            // SAFETY: closed once.
            unsafe { libc::close(fd) };
            String::from_utf8_lossy(&out).into_owned()
        }

        pub(crate) fn close(fd: i32) {
            // SAFETY: a descriptor of this process, closed once.
            unsafe { libc::close(fd) };
        }

        /// Runs `child` in a forked child whose stderr is a pipe read here (and whose stdout is
        /// `stdout`, where given); its wait status, once it ended, and what it wrote on stderr.
        pub(crate) fn run(stdout: Option<i32>, child: impl FnOnce()) -> (i32, String) {
            let (err_r, err_w) = pipe();
            let pid = fork_into(stdout, err_w, child);
            close(err_w);
            let status = ended(pid);
            (status, drain(err_r))
        }
    }

    /// Forked children in the safe state, and what their parent sees (Unix, not Miri).
    #[cfg(all(unix, not(miri)))]
    mod forked {
        use super::super::{FAIL_STOP_STATUS, REPORT_PREFIX, fail_stop};
        use super::alloc::{Watch, count};
        use super::child::{close, ended, fill, fork_into, pipe, run};
        use super::with_every_part;
        use crate::error::failure::Error;
        use crate::error::kind::ErrorKind;
        use core::sync::atomic::{AtomicBool, Ordering};
        use std::io::Write as _;
        use std::time::Duration;

        /// Runs `child` in a forked child; checks it exited 75 with exactly one line on
        /// stderr (the safe state's, which contains `expect`).
        fn exits_75_with_one_line(stdout: Option<i32>, expect: &str, child: impl FnOnce()) {
            let (status, text) = run(stdout, child);
            assert!(
                libc::WIFEXITED(status),
                "the child did not exit: {status:#x}; {text}"
            );
            assert_eq!(libc::WEXITSTATUS(status), FAIL_STOP_STATUS, "{text}");
            assert_eq!(text.lines().count(), 1, "{text}");
            assert!(text.starts_with(REPORT_PREFIX), "{text}");
            assert!(text.contains(expect), "{text}");
        }

        /// The child's wait status says it exited, with [`FAIL_STOP_STATUS`].
        fn exited_75(status: i32) {
            assert!(
                libc::WIFEXITED(status),
                "the child did not exit (signal {}): {status:#x}",
                libc::WTERMSIG(status)
            );
            assert_eq!(libc::WEXITSTATUS(status), FAIL_STOP_STATUS);
        }

        /// Waits (in the child) until `flag` is set.
        fn until(flag: &AtomicBool) {
            while !flag.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
        }

        /// The safe state ends a forked child with status 75 and one line on stderr, and
        /// allocates nothing on its way (an allocation would end the child with 98).
        #[test]
        fn the_safe_state_exits_75_with_one_line() {
            crate::alone::rerun_alone!(the_safe_state_exits_75_with_one_line);
            exits_75_with_one_line(None, "in a test", || {
                let e = Error::from_kind(ErrorKind::LaunchFailed).with_detail("in a test");
                count(Watch::Exit);
                fail_stop(&e)
            });
            exits_75_with_one_line(None, "`saxpy` launched at ", || {
                with_every_part(|e| {
                    count(Watch::Exit);
                    fail_stop(e)
                });
            });
        }

        /// Another thread holds stdout's lock for ever: the safe state does not take it.
        #[test]
        fn the_safe_state_exits_while_another_thread_holds_stdout() {
            crate::alone::rerun_alone!(the_safe_state_exits_while_another_thread_holds_stdout);
            exits_75_with_one_line(None, "stdout held", || {
                static HELD: AtomicBool = AtomicBool::new(false);
                std::thread::spawn(|| {
                    let held = std::io::stdout().lock();
                    HELD.store(true, Ordering::Release);
                    loop {
                        std::thread::park();
                        let _ = &held;
                    }
                });
                until(&HELD);
                fail_stop(&Error::custack(ErrorKind::Io, "stdout held"))
            });
        }

        /// Stdout is a full pipe whose reader stalled, and another thread is blocked writing
        /// to it (holding stdout's lock): the safe state neither flushes nor waits for it.
        #[test]
        fn the_safe_state_exits_while_stdout_is_a_stalled_pipe() {
            crate::alone::rerun_alone!(the_safe_state_exits_while_stdout_is_a_stalled_pipe);
            let (out_r, out_w) = pipe();
            fill(out_w);
            exits_75_with_one_line(Some(out_w), "stdout stalled", || {
                static WRITING: AtomicBool = AtomicBool::new(false);
                std::thread::spawn(|| {
                    let mut out = std::io::stdout().lock();
                    WRITING.store(true, Ordering::Release);
                    // Blocks: the pipe is full and nobody reads it.
                    let _ = out.write_all(&vec![b'x'; 100_000]);
                    let _ = out.flush();
                });
                until(&WRITING);
                std::thread::sleep(Duration::from_millis(20));
                // And this thread's own line, unflushed in stdout's buffer.
                print!("a partial line");
                fail_stop(&Error::custack(ErrorKind::Io, "stdout stalled"))
            });
            close(out_w);
            close(out_r);
        }

        /// Stderr is a full pipe whose reader stalled: the line cannot be written, and the
        /// process ends all the same, with 75.
        #[test]
        fn the_safe_state_exits_while_stderr_is_a_stalled_full_pipe() {
            crate::alone::rerun_alone!(the_safe_state_exits_while_stderr_is_a_stalled_full_pipe);
            let (err_r, err_w) = pipe();
            fill(err_w);
            let pid = fork_into(None, err_w, || {
                fail_stop(&Error::custack(ErrorKind::Io, "stderr stalled"))
            });
            close(err_w);
            let status = ended(pid);
            close(err_r);
            exited_75(status);
        }

        /// The backstop alone: a thread that installed it and then blocks for ever (here in a
        /// `read` of a pipe nobody writes, with `SIGALRM` blocked before, as a program may have
        /// it) is ended by the alarm with status 75. What ends a safe state whose `write`
        /// blocks after `poll` said it would not.
        #[test]
        fn the_backstop_ends_a_thread_blocked_for_ever() {
            crate::alone::rerun_alone!(the_backstop_ends_a_thread_blocked_for_ever);
            let (never_r, never_w) = pipe();
            let (status, text) = run(None, || {
                // SAFETY: `sigset_t` is plain C data, valid all zeroes.
                let mut alarm_only: libc::sigset_t = unsafe { core::mem::zeroed() };
                // SAFETY: a live `sigset_t`.
                unsafe { libc::sigemptyset(&raw mut alarm_only) };
                // SAFETY: as above.
                unsafe { libc::sigaddset(&raw mut alarm_only, libc::SIGALRM) };
                // SAFETY: as above; the old mask is not asked for.
                unsafe {
                    libc::pthread_sigmask(
                        libc::SIG_BLOCK,
                        &raw const alarm_only,
                        core::ptr::null_mut(),
                    )
                };
                super::super::backstop();
                let mut byte = [0u8; 1];
                // SAFETY: reads into `byte`; blocks: the write end stays open in the parent.
                unsafe { libc::read(never_r, byte.as_mut_ptr().cast(), 1) };
            });
            close(never_w);
            close(never_r);
            assert!(
                libc::WIFEXITED(status),
                "the child did not exit: {status:#x}; {text}"
            );
            assert_eq!(libc::WEXITSTATUS(status), FAIL_STOP_STATUS, "{text}");
            assert!(text.is_empty(), "{text}");
        }

        /// Another thread calls `exit(0)` once the safe state was entered (stderr a stalled
        /// full pipe, so the safe state is in its 100 ms wait for room): the process still ends
        /// with 75, the `atexit` handler holding that thread until the safe state's `_exit`
        /// (found by review: it ended with 0). Should that thread be scheduled only after the
        /// wait, the safe state ends the process first: 75 either way, never a status that
        /// depends on timing.
        #[test]
        fn another_threads_exit_waits_for_the_safe_state() {
            crate::alone::rerun_alone!(another_threads_exit_waits_for_the_safe_state);
            let (err_r, err_w) = pipe();
            fill(err_w);
            let pid = fork_into(None, err_w, || {
                assert_eq!(super::super::guard_exits(), 0, "atexit");
                std::thread::spawn(|| {
                    while !super::super::ENTRY.entered() {
                        core::hint::spin_loop();
                    }
                    std::process::exit(0)
                });
                fail_stop(&Error::custack(ErrorKind::Io, "exit raced"))
            });
            close(err_w);
            let status = ended(pid);
            close(err_r);
            exited_75(status);
        }

        /// Stderr is a pipe whose reader is gone, and `SIGPIPE` has its default action (which
        /// kills): the safe state writes no line and exits 75, not killed by `SIGPIPE` (found
        /// by review: status 141).
        #[test]
        fn a_stderr_whose_reader_is_gone_still_exits_75() {
            crate::alone::rerun_alone!(a_stderr_whose_reader_is_gone_still_exits_75);
            let (err_r, err_w) = pipe();
            close(err_r);
            let pid = fork_into(None, err_w, || {
                // SAFETY: restores the default action of `SIGPIPE` (Rust's runtime ignores it).
                unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
                fail_stop(&Error::custack(ErrorKind::Io, "no reader"))
            });
            close(err_w);
            let status = ended(pid);
            exited_75(status);
        }

        /// Two threads enter the safe state at once: exactly one line, status 75.
        #[test]
        fn two_threads_in_the_safe_state_at_once_print_one_line() {
            crate::alone::rerun_alone!(two_threads_in_the_safe_state_at_once_print_one_line);
            // A race: 200 tries, each ready to show a second line (both threads spin until
            // released together; without the entry's flag, most runs of 200 print two lines
            // at least once).
            for _ in 0..200 {
                exits_75_with_one_line(None, "thread ", || {
                    static READY: AtomicBool = AtomicBool::new(false);
                    static GO: AtomicBool = AtomicBool::new(false);
                    let a = Error::custack(ErrorKind::Io, "thread a");
                    let b = Error::custack(ErrorKind::Io, "thread b");
                    std::thread::spawn(move || {
                        READY.store(true, Ordering::Release);
                        while !GO.load(Ordering::Acquire) {
                            core::hint::spin_loop();
                        }
                        fail_stop(&b)
                    });
                    until(&READY);
                    GO.store(true, Ordering::Release);
                    fail_stop(&a)
                });
            }
        }
    }
}

/// The safe state's entry under every interleaving (`loom`; `scripts/loom.sh`): the real
/// `first` over `loom`'s atomic.
#[cfg(all(test, loom))]
mod model {
    use super::Entry;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicBool;

    /// Three threads enter the safe state at once: exactly one is first (writes the line),
    /// whatever the interleaving.
    #[test]
    fn three_threads_entering_at_once_make_one_first() {
        loom::model(|| {
            let entry = Arc::new(Entry::<AtomicBool>::fresh());
            let others: Vec<_> = (0..2)
                .map(|_| {
                    let entry = Arc::clone(&entry);
                    loom::thread::spawn(move || usize::from(entry.first()))
                })
                .collect();
            let mine = usize::from(entry.first());
            let firsts = mine + others.into_iter().map(|t| t.join().unwrap()).sum::<usize>();
            assert_eq!(firsts, 1);
            assert!(!entry.first());
        });
    }
}
