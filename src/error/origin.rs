//! [`Origin`]: what first observed the sticky error that poisoned the process (R20), where it
//! was called and the declared kernel launched before it. Plain data; recorded by `poison.rs`.

use core::fmt;
use core::panic::Location;

/// What first observed the sticky error that poisoned the process: see [`Origin`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Observer {
    /// The end of a stream scope ([`Stream::scope`](crate::Stream::scope), or `scope_by`): its
    /// `cuStreamSynchronize` (`cuStreamQuery` for a bounded one).
    ScopeEnd,
    /// A submission's wait, poll or drop ([`Submission`](crate::Submission), bounded or not):
    /// its event's synchronize or query.
    SubmissionWait,
    /// A parked submission's wait, poll or drop ([`ParkedSubmission`](crate::ParkedSubmission)).
    ParkedSubmissionWait,
    /// A kernel launch (the launch itself returned the error of earlier work).
    Launch,
    /// [`Stream::synchronize`](crate::Stream::synchronize).
    StreamSynchronize,
    /// [`Event::synchronize`](crate::Event::synchronize).
    EventSynchronize,
    /// A context's synchronize ([`PushedGuard::synchronize`](crate::PushedGuard::synchronize)).
    ContextSynchronize,
    /// A health poll of NVML's events (`RunPhase::poll_health`, feature `nvml`): a double-bit
    /// ECC error, a critical Xid, a lost GPU, or a wait NVML failed.
    HealthPoll,
    /// The health pre-flight at `InitPhase::seal` (feature `nvml`): ECC off, a row remap
    /// pending or failed, or pages waiting to be retired.
    HealthPreflight,
    /// Any other driver call (an allocation, a copy, a destroy): where it was called is
    /// custack's own code or, through `#[track_caller]`, yours.
    DriverCall,
}

impl Observer {
    /// The words `Display` uses: "the end of a stream scope", "a launch", ...
    pub fn describe(self) -> &'static str {
        match self {
            Self::ScopeEnd => "the end of a stream scope",
            Self::SubmissionWait => "a submission's wait",
            Self::ParkedSubmissionWait => "a parked submission's wait",
            Self::Launch => "a launch",
            Self::StreamSynchronize => "a stream's synchronize",
            Self::EventSynchronize => "an event's synchronize",
            Self::ContextSynchronize => "a context's synchronize",
            Self::HealthPoll => "a health poll",
            Self::HealthPreflight => "the health pre-flight at seal",
            Self::DriverCall => "a driver call",
        }
    }
}

/// Where the sticky error that poisoned the process was first observed: by what
/// ([`observer`](Self::observer)), called where ([`call_site`](Self::call_site), through
/// `#[track_caller]`: the public call of your program, e.g. the `stream.scope(...)` whose end saw
/// the fault), and the declared kernel this thread launched last before it
/// ([`kernel`](Self::kernel)), where there is one.
///
/// Every error returned once the process is poisoned carries it ([`Error::origin`](crate::Error::origin)), and
/// `Display` says it:
///
/// ```text
/// CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered (sticky: ...)
///   first observed by the end of a stream scope at src/main.rs:12:5 (thread main), kernel `saxpy`
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub(crate) observer: Observer,
    pub(crate) call_site: &'static Location<'static>,
    pub(crate) kernel: Option<&'static str>,
    pub(crate) thread: Option<Box<str>>,
    pub(crate) unfinished: Option<LaunchSite>,
}

/// A launch named by [`name_launches`](crate::name_launches): the declared kernel, if it was
/// one, and the call site of the launch in your program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchSite {
    pub(crate) kernel: Option<&'static str>,
    pub(crate) call_site: &'static Location<'static>,
}

impl LaunchSite {
    /// The declared kernel ([`kernel_contract!`](crate::kernel_contract)), or `None` for a raw
    /// launch.
    pub fn kernel(&self) -> Option<&'static str> {
        self.kernel
    }
    /// Where the launch was made: the `run`, `launch`, … call in your program.
    pub fn call_site(&self) -> &'static Location<'static> {
        self.call_site
    }
}

impl fmt::Display for LaunchSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kernel {
            Some(kernel) => write!(f, "`{kernel}` launched at {}", self.call_site),
            None => write!(f, "a raw launch at {}", self.call_site),
        }
    }
}

impl Origin {
    /// What observed the error first.
    pub fn observer(&self) -> Observer {
        self.observer
    }
    /// The call that observed it: the public custack call in your program where the chain of
    /// `#[track_caller]` reaches it (scopes, submissions' waits, launches, synchronizes, pushes),
    /// or the line of custack that made the driver call.
    pub fn call_site(&self) -> &'static Location<'static> {
        self.call_site
    }
    /// The declared kernel ([`kernel_contract!`](crate::kernel_contract), launched with
    /// [`StreamScope::run`](crate::StreamScope::run) or its forms) that the observing thread
    /// launched last before the error was observed, if its last launch was one. With one kernel
    /// in flight it is the kernel that faulted; with several, the fault may be another's. A raw
    /// launch clears it (its kernel has no declared name).
    pub fn kernel(&self) -> Option<&'static str> {
        self.kernel
    }
    /// The name of the thread that observed it, if it has one.
    pub fn thread(&self) -> Option<&str> {
        self.thread.as_deref()
    }
    /// With launches named ([`name_launches`](crate::name_launches)): the first named launch
    /// that never completed when the error was observed, on any thread: the launch that
    /// faulted, or one queued behind it. `None` when launches are not named, or every named
    /// launch had completed.
    pub fn unfinished_launch(&self) -> Option<&LaunchSite> {
        self.unfinished.as_ref()
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "first observed by {} at {}",
            self.observer.describe(),
            self.call_site
        )?;
        if let Some(thread) = &self.thread {
            write!(f, " (thread {thread})")?;
        }
        if let Some(kernel) = self.kernel {
            write!(f, ", kernel `{kernel}`")?;
        }
        if let Some(launch) = &self.unfinished {
            write!(f, "; the first launch that never completed: {launch}")?;
        }
        Ok(())
    }
}
