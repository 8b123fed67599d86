//! The program `context_count` (R22): the restricted contexts a process makes are the count its
//! `Profile::init` stated: one past it refused with no driver call, and destroying one gives
//! nothing back.

use crate::double::driver_calls;
use custack::safety::{Budget, Profile, RestrictedContext};
use custack::{ErrorKind, Result};

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
