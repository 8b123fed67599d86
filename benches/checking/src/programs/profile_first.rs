//! The program `profile_first` (R22): a process that used the full API cannot enter the
//! restricted profile, whatever the driver exports (the safety manual's AOU-8, "call
//! `Profile::init` first", checked). Its twin on the profile's side is `context_count`.

use crate::double::{driver_calls, report_driver_version};
use custack::safety::Profile;
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
