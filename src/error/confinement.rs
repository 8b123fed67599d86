//! The process confined to the restricted profile: once
//! [`Profile::init`](crate::safety::Profile::init) has run, every entry to the full API
//! (`Driver::init`, `Context::new` and its kin, a full `Stack::push`, green contexts, libraries
//! loaded with `Library::load_ptx`, `name_launches(true)`, NVRTC's programs, NCCL's ids, cuRAND's
//! host generators) refuses with [`ErrorKind::OutsideProfile`] before it reaches the driver or a
//! library, whoever calls it: the application, a dependency, another thread. The restricted
//! types reach the same driver calls through their own crate-private paths, which do not ask.
//!
//! One flag, set once and never cleared, like the process poison beside it: a program that
//! starts in the subset cannot leave it. A leaf of `error/`.

use crate::error::{Error, ErrorKind, Result};
use core::sync::atomic::{AtomicBool, Ordering};

/// Set by `Profile::init`, before it calls the driver.
static CONFINED: AtomicBool = AtomicBool::new(false);

/// Confines the process to the profile, for good. Sequentially consistent, so that with
/// [`confined`] it orders against a racing switch of the full API that stores before it asks
/// (`name_launches(true)`): one of the two sees the other.
pub(crate) fn confine() {
    CONFINED.store(true, Ordering::SeqCst);
}

/// Whether `Profile::init` has run in this process.
#[inline]
pub(crate) fn confined() -> bool {
    CONFINED.load(Ordering::SeqCst)
}

/// `Err(OutsideProfile)` naming `entry` once the process is confined; `Ok` before, and in every
/// process that never entered the profile (one atomic load).
#[inline]
pub(crate) fn full_api(entry: &'static str) -> Result<()> {
    if confined() {
        return Err(refused(entry));
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn refused(entry: &'static str) -> Error {
    Error::custack(
        ErrorKind::OutsideProfile,
        format!(
            "{entry} is outside the restricted profile, and this process entered it \
             (custack::safety::Profile::init): from then on every entry to the full API is \
             refused, whoever calls it; make what the program needs with the profile's types"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // The flag is process-wide and never cleared, so the unit tests (one process) only check
    // the refusal's words; tests/confinement.rs confines a process of its own.
    #[test]
    fn a_refusal_names_the_entry_and_the_profile() {
        let e = refused("Context::new");
        assert_eq!(e.kind(), ErrorKind::OutsideProfile);
        let detail = e.detail().unwrap_or_default();
        assert!(
            detail.starts_with("Context::new is outside the restricted profile"),
            "{detail}"
        );
        assert!(detail.contains("Profile::init"), "{detail}");
    }
}
