//! The program `driver_init` (the double reporting 13.0): `Driver::init` registers the driver's log
//! callback once, a second registers nothing, and `Profile::init` after them is refused
//! (`OutsideProfile`) before any driver call. No row of its own: R10.

use crate::double::{calls_of, counting, driver_calls};
use custack::{Driver, Result};

/// The driver's init path (no GPU; the double reports driver 13.0): `Driver::init` registers
/// the driver's log callback (`cuLogsRegisterCallback`, 12.9+) once, a second `Driver::init`
/// registers nothing, and `Profile::init` after them is refused (`OutsideProfile`: the process
/// used the full API, and its driver keeps the callback, while the safety subset has no
/// callbacks) before any driver call (at 12.2, without the log API: `profile_first`). Under a
/// failed call on the way, `Driver::init` returns that error.
pub(crate) fn driver_init() -> Result<()> {
    calls_of("cu"); // counting starts
    let ((), registered) = counting("cuLogsRegisterCallback", || Driver::init().map(drop))?;
    assert!(
        registered == 1,
        "driver_init: the first Driver::init made {registered} cuLogsRegisterCallback, not 1"
    );
    let ((), again) = counting("cuLogsRegisterCallback", || Driver::init().map(drop))?;
    assert!(
        again == 0,
        "driver_init: a second Driver::init registered the callback {again} more times"
    );
    let before = driver_calls()?;
    let profile = custack::safety::Profile::init(1);
    let calls = driver_calls()? - before;
    match profile {
        Err(e) if e.kind() == custack::ErrorKind::OutsideProfile && calls == 0 => Ok(()),
        other => panic!(
            "driver_init: Profile::init after Driver::init made {calls} driver calls and \
             returned {other:?}, not OutsideProfile before any call"
        ),
    }
}
