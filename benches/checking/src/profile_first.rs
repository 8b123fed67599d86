//! The programs `profile_first` and `context_count` (R22): a process that used the full API
//! cannot enter the restricted profile, whatever the driver exports (the safety manual's AOU-8,
//! "call `Profile::init` first", checked), and the restricted contexts a process makes are the
//! count its `Profile::init` stated.

use crate::{driver_calls, report_driver_version};
use custack::safety::{Budget, Profile, RestrictedContext};
use custack::{Driver, ErrorKind, Result};

/// Whether `e` is `Profile::init`'s refusal after the full API's `first` entry.
fn refused_after(e: &custack::Error, first: &str) -> bool {
    e.kind() == ErrorKind::OutsideProfile
        && e.detail()
            .is_some_and(|d| d.starts_with(&format!("{first} was used before Profile::init")))
}

/// AOU-8 under the double reporting driver 12.2, which has no `cuLogsRegisterCallback`, so
/// `Driver::init` registers no log callback: `Driver::init`, then `Profile::init` is refused,
/// naming `Driver::init`, with no driver call (before the confinement's latch it succeeded
/// here, and a restricted context could run beside what the full API made). Under a schedule
/// that fails one of `Driver::init`'s calls it fails, and it was still the process's use of the
/// full API: refused all the same. The process is not confined then: a second `Driver::init`
/// is no refusal (the driver answers it). Returns the first `Driver::init` error met.
pub(crate) fn profile_first() -> Result<()> {
    report_driver_version(12020)?;
    let full = Driver::init();
    for _ in 0..2 {
        let before = driver_calls()?;
        let profile = Profile::init(1);
        let calls = driver_calls()? - before;
        match &profile {
            Err(e) if refused_after(e, "Driver::init") && calls == 0 => {}
            other => panic!(
                "profile_first: Profile::init after Driver::init ({full:?}) made {calls} driver \
                 calls and returned {other:?}, not the refusal naming Driver::init before any \
                 call"
            ),
        }
    }
    let again = Driver::init();
    if let Err(e) = &again {
        assert!(
            e.kind() != ErrorKind::OutsideProfile,
            "profile_first: the refused Profile::init confined the process: {e}"
        );
    }
    full.and(again).map(drop)
}

/// How many contexts `context_count` states and makes.
const CONTEXTS: usize = 3;

/// Whether `e` is the refusal of a restricted context past the count of [`CONTEXTS`].
fn past_the_count(e: &custack::Error) -> bool {
    e.kind() == ErrorKind::OutsideProfile
        && e.detail().is_some_and(|d| {
            d.starts_with(&format!(
                "a restricted context past the process's count: Profile::init({CONTEXTS})"
            ))
        })
}

/// The process's count of restricted contexts: `Profile::init(3)`, three contexts made (a
/// creation the driver fails gives its one back, so under a schedule that fails one call the
/// next try is made, not refused by the count: a refusal there is a panic), then a fourth,
/// `RestrictedContext::new` or `primary`, is refused with no driver call, and once the three
/// are destroyed one more is still refused (destroying gives nothing back). Returns the first
/// driver error met.
pub(crate) fn context_count() -> Result<()> {
    let profile = Profile::init(CONTEXTS)?;
    let device = profile.device(0)?;
    let mut made = Vec::new();
    let mut failed = None;
    let mut outcome = Ok(());
    while made.len() < CONTEXTS {
        match RestrictedContext::new(&profile, device, Budget::new()) {
            Ok(ctx) => made.push(ctx),
            Err(e) if e.kind() == ErrorKind::OutsideProfile => panic!(
                "context_count: context {} of {CONTEXTS} refused (a failed creation's one not \
                 given back?): {e}",
                made.len() + 1
            ),
            // The driver failed the creation: once, the next try must be made.
            Err(e) if failed.is_none() && custack::poisoned().is_none() => failed = Some(e),
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    if outcome.is_ok() {
        let before = driver_calls()?;
        let past = [
            RestrictedContext::new(&profile, device, Budget::new()),
            RestrictedContext::primary(&profile, device, Budget::new()),
        ];
        let calls = driver_calls()? - before;
        for one in past {
            match one {
                Err(e) if past_the_count(&e) && calls == 0 => {}
                other => panic!(
                    "context_count: a context past Profile::init({CONTEXTS}) made {calls} \
                     driver calls and returned {other:?}"
                ),
            }
        }
    }
    for ctx in made {
        outcome = outcome.and(ctx.destroy());
    }
    if outcome.is_ok() && custack::poisoned().is_none() {
        let before = driver_calls()?;
        let again = RestrictedContext::new(&profile, device, Budget::new());
        let calls = driver_calls()? - before;
        match again {
            Err(e) if past_the_count(&e) && calls == 0 => {}
            other => panic!(
                "context_count: after the contexts were destroyed, one more made {calls} driver \
                 calls and returned {other:?}: destroying gave the count back"
            ),
        }
    }
    outcome?;
    failed.map_or(Ok(()), Err)
}
