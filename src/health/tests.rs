//! `Health` on a simulated NVML: the same C signatures as `libnvidia-ml`'s entry points
//! (`calls::Calls`), answering from this thread's [`Sim`], so that each event and each
//! pre-flight finding is made without a GPU. Each test records faults in a poison record of
//! its own, never the process's.

use super::*;
use core::cell::RefCell;
use core::ffi::c_char;
use std::collections::VecDeque;

/// What the simulated NVML answers (this thread's).
#[derive(Clone)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "each bool is one of NVML's answers"
)]
struct Sim {
    ecc: nvmlReturn_t,
    ecc_on: bool,
    rows: nvmlReturn_t,
    rows_pending: bool,
    rows_failed: bool,
    pages: nvmlReturn_t,
    pages_pending: bool,
    /// Event types `nvmlDeviceRegisterEvents` accepts.
    registrable: c_ulonglong,
    registered: c_ulonglong,
    /// Events waiting in the set: (type, data).
    events: VecDeque<(c_ulonglong, c_ulonglong)>,
    /// What the wait answers when no event is waiting: `NVML_ERROR_TIMEOUT`, as NVML does, or
    /// the error a test makes it answer.
    idle_wait: nvmlReturn_t,
    /// References `nvmlInit_v2` took and `nvmlShutdown` did not drop; sets not freed.
    inits: i32,
    sets: i32,
    waits: u32,
}

const OK: nvmlReturn_t = nvmlReturn_t::NVML_SUCCESS;
const NOT_SUPPORTED: nvmlReturn_t = nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED;

impl Sim {
    /// An H100 in good health: ECC on, rows remapped without anything pending, no page
    /// retirement (Hopper remaps rows instead), both event kinds registrable.
    fn healthy() -> Self {
        Self {
            ecc: OK,
            ecc_on: true,
            rows: OK,
            rows_pending: false,
            rows_failed: false,
            pages: NOT_SUPPORTED,
            pages_pending: false,
            registrable: nvmlEventTypeDoubleBitEccError | nvmlEventTypeXidCriticalError,
            registered: 0,
            events: VecDeque::new(),
            idle_wait: nvmlReturn_t::NVML_ERROR_TIMEOUT,
            inits: 0,
            sets: 0,
            waits: 0,
        }
    }
}

std::thread_local! {
    static SIM: RefCell<Sim> = RefCell::new(Sim::healthy());
}

fn sim<T>(f: impl FnOnce(&mut Sim) -> T) -> T {
    SIM.with(|s| f(&mut s.borrow_mut()))
}

/// A non-null handle the simulated NVML hands out (never dereferenced).
fn dangling<T>() -> *mut T {
    core::ptr::NonNull::dangling().as_ptr()
}

unsafe extern "C" fn init() -> nvmlReturn_t {
    sim(|s| s.inits += 1);
    OK
}
unsafe extern "C" fn shutdown() -> nvmlReturn_t {
    sim(|s| s.inits -= 1);
    OK
}
unsafe extern "C" fn error_string(_: nvmlReturn_t) -> *const c_char {
    c"simulated".as_ptr()
}
unsafe extern "C" fn by_pci_bus_id(id: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    // SAFETY: `Health` passes its NUL-terminated bus id.
    assert_eq!(unsafe { CStr::from_ptr(id) }, c"00000000:41:00.0");
    // SAFETY: `Health` passes a live out-pointer.
    unsafe { device.write(dangling()) };
    OK
}
unsafe extern "C" fn ecc_mode(
    _: nvmlDevice_t,
    current: *mut nvmlEnableState_t,
    pending: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    let (status, on) = sim(|s| (s.ecc, s.ecc_on));
    let state = nvmlEnableState_t(c_uint::from(on));
    // SAFETY: `Health` passes live out-pointers.
    unsafe { current.write(state) };
    // SAFETY: as above.
    unsafe { pending.write(state) };
    status
}
unsafe extern "C" fn total_ecc_errors(
    _: nvmlDevice_t,
    kind: nvmlMemoryErrorType_t,
    _: nvmlEccCounterType_t,
    count: *mut c_ulonglong,
) -> nvmlReturn_t {
    // SAFETY: a live out-pointer.
    unsafe { count.write(if kind.0 == 0 { 7 } else { 0 }) };
    sim(|s| s.ecc)
}
unsafe extern "C" fn retired_pages_pending(
    _: nvmlDevice_t,
    pending: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    let (status, on) = sim(|s| (s.pages, s.pages_pending));
    // SAFETY: a live out-pointer.
    unsafe { pending.write(nvmlEnableState_t(c_uint::from(on))) };
    status
}
unsafe extern "C" fn remapped_rows(
    _: nvmlDevice_t,
    corr: *mut c_uint,
    unc: *mut c_uint,
    pending: *mut c_uint,
    failed: *mut c_uint,
) -> nvmlReturn_t {
    let s = sim(|s| s.clone());
    // SAFETY: `Health` passes live out-pointers (each of the four below).
    unsafe { corr.write(2) };
    // SAFETY: as above.
    unsafe { unc.write(1) };
    // SAFETY: as above.
    unsafe { pending.write(c_uint::from(s.rows_pending)) };
    // SAFETY: as above.
    unsafe { failed.write(c_uint::from(s.rows_failed)) };
    s.rows
}
unsafe extern "C" fn event_set_create(set: *mut nvmlEventSet_t) -> nvmlReturn_t {
    sim(|s| s.sets += 1);
    // SAFETY: a live out-pointer.
    unsafe { set.write(dangling()) };
    OK
}
unsafe extern "C" fn register_events(
    _: nvmlDevice_t,
    types: c_ulonglong,
    _: nvmlEventSet_t,
) -> nvmlReturn_t {
    sim(|s| {
        // As NVML: one unsupported type in the mask fails the whole registration.
        if types & !s.registrable != 0 {
            return NOT_SUPPORTED;
        }
        s.registered |= types;
        OK
    })
}
unsafe extern "C" fn event_set_wait(
    _: nvmlEventSet_t,
    data: *mut nvmlEventData_t,
    timeout_ms: c_uint,
) -> nvmlReturn_t {
    assert_eq!(timeout_ms, 0, "the poll never waits");
    let (next, idle) = sim(|s| {
        s.waits += 1;
        (s.events.pop_front(), s.idle_wait)
    });
    let Some((event_type, event_data)) = next else {
        return idle;
    };
    // SAFETY: a live out-pointer.
    unsafe {
        data.write(nvmlEventData_t {
            device: dangling(),
            eventType: event_type,
            eventData: event_data,
            gpuInstanceId: u32::MAX,
            computeInstanceId: u32::MAX,
        });
    }
    OK
}
unsafe extern "C" fn event_set_free(_: nvmlEventSet_t) -> nvmlReturn_t {
    sim(|s| s.sets -= 1);
    OK
}

static SIMULATED: Calls = Calls {
    init,
    shutdown,
    error_string,
    by_pci_bus_id,
    ecc_mode,
    total_ecc_errors,
    retired_pages_pending,
    remapped_rows,
    event_set_create,
    register_events,
    event_set_wait,
    event_set_free,
};

fn open(poison: &'static Poison, state: Sim) -> Health {
    sim(|s| *s = state);
    Health::open_with(&SIMULATED, poison, c"00000000:41:00.0".into()).unwrap()
}

/// The error the pre-flight at seal recorded, with a healthy device but for `change`.
fn refused_at_seal(poison: &'static Poison, change: impl FnOnce(&mut Sim)) -> Error {
    let mut state = Sim::healthy();
    change(&mut state);
    let health = open(poison, state);
    assert!(poison.check().is_ok());
    health.preflight_or_poison(Location::caller());
    // The run phase's next call (here its poll) refuses with the pre-flight's fault.
    let e = health.poll_or_poison(Location::caller()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HardwareFault);
    assert!(e.is_sticky());
    assert_eq!(e.origin().unwrap().observer(), Observer::HealthPreflight);
    assert_eq!(sim(|s| s.waits), 0, "a poisoned poll asks NVML nothing");
    assert_eq!(
        poison.recorded().map(|r| r.kind()),
        Some(ErrorKind::HardwareFault)
    );
    e
}

/// An init phase that watches the GPU's health runs the pre-flight when it ends: at its seal
/// (the tests above), and where it is dropped without sealing (its values still run work), at
/// that drop; a watch a second `watch_health` replaces runs none.
#[test]
fn an_init_phase_dropped_without_its_seal_runs_the_preflight() {
    static POISON: Poison = Poison::new();
    let mut ecc_off = Sim::healthy();
    ecc_off.ecc_on = false;
    drop(Watched::new(open(&POISON, ecc_off.clone())).replaced());
    assert!(
        POISON.check().is_ok(),
        "a replaced watch runs no pre-flight"
    );
    drop(Watched::new(open(&POISON, ecc_off)));
    assert_eq!(
        POISON.recorded().map(|r| r.kind()),
        Some(ErrorKind::HardwareFault)
    );
    assert!(POISON.check().is_err());
}

#[test]
fn a_double_bit_ecc_event_poisons_at_the_next_poll() {
    static POISON: Poison = Poison::new();
    let health = open(&POISON, Sim::healthy());
    assert!(health.watches(EventKind::DoubleBitEcc) && health.watches(EventKind::CriticalXid));
    // Nothing there: the poll finds nothing, and asks NVML once, not waiting.
    health.poll_or_poison(Location::caller()).unwrap();
    assert_eq!(sim(|s| s.waits), 1);
    // The GPU reports a double-bit error: the next poll (the next frame's) is the fault.
    sim(|s| s.events.push_back((nvmlEventTypeDoubleBitEccError, 0)));
    let e = health.poll_or_poison(Location::caller()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HardwareFault);
    assert!(e.to_string().contains("double-bit"), "{e}");
    assert!(e.to_string().contains("00000000:41:00.0"), "{e}");
    let origin = e.origin().unwrap();
    assert_eq!(origin.observer(), Observer::HealthPoll);
    // The process is poisoned: every later poll refuses with that first fault.
    assert_eq!(POISON.recorded().unwrap().kind(), ErrorKind::HardwareFault);
    let again = health.poll_or_poison(Location::caller()).unwrap_err();
    assert!(again.to_string().contains("double-bit"), "{again}");
}

#[test]
fn a_critical_xid_poisons_with_its_number() {
    static POISON: Poison = Poison::new();
    let health = open(&POISON, Sim::healthy());
    sim(|s| s.events.push_back((nvmlEventTypeXidCriticalError, 79)));
    let e = health.poll_or_poison(Location::caller()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HardwareFault);
    assert!(e.to_string().contains("critical Xid 79"), "{e}");
    assert_eq!(e.origin().unwrap().observer(), Observer::HealthPoll);
}

#[test]
fn the_full_profile_poll_reports_without_poisoning() {
    static POISON: Poison = Poison::new();
    let health = open(&POISON, Sim::healthy());
    assert_eq!(health.poll().unwrap(), None);
    sim(|s| s.events.push_back((nvmlEventTypeXidCriticalError, 48)));
    assert_eq!(
        health.poll().unwrap(),
        Some(HealthEvent::CriticalXid { xid: 48 })
    );
    assert_eq!(health.poll().unwrap(), None);
    assert!(POISON.check().is_ok());
}

#[test]
fn a_healthy_device_passes_the_preflight() {
    static POISON: Poison = Poison::new();
    let health = open(&POISON, Sim::healthy());
    let preflight = health.preflight().unwrap();
    assert_eq!(preflight.ecc_enabled, Answer::Known(true));
    assert_eq!(
        preflight.remapped_rows,
        Answer::Known(RemappedRows {
            correctable: 2,
            uncorrectable: 1,
            pending: false,
            failed: false
        })
    );
    // Hopper retires no pages: a typed NotSupported, no finding, no error.
    assert_eq!(preflight.retired_pages_pending, Answer::NotSupported);
    assert_eq!(preflight.findings(), []);
    health.preflight_or_poison(Location::caller());
    assert!(POISON.check().is_ok());
    assert_eq!(
        health.ecc_errors().unwrap(),
        Answer::Known(EccErrors {
            corrected: 7,
            uncorrected: 0
        })
    );
}

#[test]
fn ecc_off_refuses_seal() {
    static POISON: Poison = Poison::new();
    let e = refused_at_seal(&POISON, |s| s.ecc_on = false);
    assert!(e.to_string().contains("ECC is off"), "{e}");
}

#[test]
fn no_ecc_at_all_refuses_seal() {
    static POISON: Poison = Poison::new();
    let e = refused_at_seal(&POISON, |s| s.ecc = NOT_SUPPORTED);
    assert!(e.to_string().contains("the device has no ECC"), "{e}");
}

#[test]
fn a_pending_row_remap_refuses_seal() {
    static POISON: Poison = Poison::new();
    let e = refused_at_seal(&POISON, |s| s.rows_pending = true);
    assert!(e.to_string().contains("a row remap is pending"), "{e}");
}

#[test]
fn a_failed_row_remap_refuses_seal() {
    static POISON: Poison = Poison::new();
    let e = refused_at_seal(&POISON, |s| s.rows_failed = true);
    assert!(e.to_string().contains("a row remap failed"), "{e}");
}

#[test]
fn neither_row_remapping_nor_page_retirement_answering_refuses_seal() {
    static POISON: Poison = Poison::new();
    // ECC on, and NOT_SUPPORTED to both memory-repair queries (found by review: no finding).
    let e = refused_at_seal(&POISON, |s| {
        s.rows = NOT_SUPPORTED;
        s.pages = NOT_SUPPORTED;
    });
    let text = e.to_string();
    assert!(
        text.contains("neither row remapping nor page retirement can be asked"),
        "{text}"
    );
}

#[test]
fn pages_pending_retirement_refuse_seal() {
    static POISON: Poison = Poison::new();
    // A GPU before Ampere: no row remapping (a typed NotSupported, no finding), pages pending.
    let e = refused_at_seal(&POISON, |s| {
        s.rows = NOT_SUPPORTED;
        s.pages = OK;
        s.pages_pending = true;
    });
    let text = e.to_string();
    assert!(text.contains("pages are waiting to be retired"), "{text}");
    assert!(!text.contains("row remap"), "{text}");
}

#[test]
fn an_event_kind_nvml_cannot_watch_refuses_seal() {
    static POISON: Poison = Poison::new();
    let e = refused_at_seal(&POISON, |s| s.registrable = nvmlEventTypeDoubleBitEccError);
    assert!(e.to_string().contains("critical Xid events"), "{e}");
    // The kind it could watch was registered alone.
    assert_eq!(sim(|s| s.registered), nvmlEventTypeDoubleBitEccError);
}

#[test]
fn every_finding_is_named_at_once() {
    static POISON: Poison = Poison::new();
    let e = refused_at_seal(&POISON, |s| {
        s.ecc_on = false;
        s.rows_pending = true;
        s.rows_failed = true;
    });
    let text = e.to_string();
    for what in ["ECC is off", "a row remap is pending", "a row remap failed"] {
        assert!(text.contains(what), "{what}: {text}");
    }
}

#[test]
fn dropping_frees_the_event_set_and_the_reference() {
    static POISON: Poison = Poison::new();
    let health = open(&POISON, Sim::healthy());
    assert_eq!(sim(|s| (s.inits, s.sets)), (1, 1));
    drop(health);
    assert_eq!(sim(|s| (s.inits, s.sets)), (0, 0));
}

/// R22: a child forked after the watch began makes no NVML call. Each query refuses with
/// `ForkedProcess` and asks the simulated NVML nothing; the drop leaves the parent's event set
/// and reference alone and records its refusal. The parent's `Health` still works and frees
/// both.
#[test]
#[cfg(all(unix, not(miri)))]
fn a_forked_child_makes_no_nvml_call_and_its_drop_leaves_the_parents_alone() {
    static POISON: Poison = Poison::new();
    crate::alone::rerun_alone!(
        a_forked_child_makes_no_nvml_call_and_its_drop_leaves_the_parents_alone
    );
    crate::error::poison::watch_forks().unwrap();
    let health = open(&POISON, Sim::healthy());
    sim(|s| s.events.push_back((nvmlEventTypeXidCriticalError, 79)));
    let asked = || sim(|s| (s.waits, s.inits, s.sets));
    // SAFETY: the child only calls the simulated NVML's record (this thread's copy), makes
    // errors and `_exit`s.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let before = asked();
        let forked = |e: Error| e.kind() == ErrorKind::ForkedProcess;
        let refused = health.ecc_enabled().is_err_and(forked)
            && health.remapped_rows().is_err_and(forked)
            && health.retired_pages_pending().is_err_and(forked)
            && health.ecc_errors().is_err_and(forked)
            && health.preflight().is_err_and(forked)
            && health.poll().is_err_and(forked);
        drop(health);
        let recorded = crate::error::take_drop_errors();
        let left_alone = asked() == before
            && before == (0, 1, 1)
            && sim(|s| s.events.len()) == 1
            && recorded.len() == 1
            && recorded[0].kind() == ErrorKind::ForkedProcess;
        // SAFETY: ends the child at once, running nothing of the parent's.
        unsafe { libc::_exit(i32::from(!refused) | (i32::from(!left_alone) << 1)) };
    }
    let mut status = 0;
    // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
    assert_eq!(unsafe { libc::waitpid(pid, &raw mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status), "the child did not exit: {status}");
    assert_eq!(
        libc::WEXITSTATUS(status),
        0,
        "1: a query reached NVML in the forked child; 2: its drop did"
    );
    // The parent is not refused: the event the child never read is the parent's to poll.
    assert_eq!(
        health.poll().unwrap(),
        Some(HealthEvent::CriticalXid { xid: 79 })
    );
    drop(health);
    assert_eq!(sim(|s| (s.inits, s.sets)), (0, 0));
}

#[test]
fn a_failed_nvml_call_names_the_call_and_the_status() {
    static POISON: Poison = Poison::new();
    let health = open(&POISON, Sim::healthy());
    sim(|s| s.rows = nvmlReturn_t::NVML_ERROR_NO_PERMISSION);
    let e = health.remapped_rows().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NvmlFailed);
    assert_eq!(
        e.detail(),
        Some("nvmlDeviceGetRemappedRows returned 4 (simulated)")
    );
    // Under the profile, a pre-flight NVML cannot answer refuses the run phase too.
    health.preflight_or_poison(Location::caller());
    let refused = POISON.check().unwrap_err();
    assert!(refused.to_string().contains("could not read"), "{refused}");
}

#[test]
fn without_nvml_linked_open_says_what_was_searched() {
    let result = not_linked();
    assert_eq!(result.is_err(), cfg!(custack_no_nvml));
    if let Err(e) = result {
        assert_eq!(e.kind(), ErrorKind::LibraryNotLinked);
        let text = e.to_string();
        assert!(text.contains("CUSTACK_NVML_LIB_DIR"), "{text}");
        assert!(text.contains("libnvidia-ml1"), "{text}");
        assert!(text.contains("build.rs searched"), "{text}");
    }
}

/// Every answer of the wait but `NVML_ERROR_TIMEOUT` is unhealthy under the profile: a lost GPU,
/// each documented error, an undocumented status. Each poisons the process at the poll
/// (`HardwareFault`, observed by the poll, naming what NVML answered), so the next poll refuses
/// without asking NVML again; `NVML_ERROR_TIMEOUT` alone is "no event".
#[test]
fn every_answer_of_the_wait_but_timeout_poisons_at_the_poll() {
    let answers = [
        (nvmlReturn_t::NVML_ERROR_GPU_IS_LOST, "the GPU is lost"),
        (nvmlReturn_t::NVML_ERROR_UNINITIALIZED, "returned 1"),
        (nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT, "returned 2"),
        (NOT_SUPPORTED, "returned 3"),
        (nvmlReturn_t::NVML_ERROR_NO_PERMISSION, "returned 4"),
        (nvmlReturn_t::NVML_ERROR_NOT_FOUND, "returned 6"),
        (nvmlReturn_t::NVML_ERROR_DRIVER_NOT_LOADED, "returned 9"),
        (nvmlReturn_t::NVML_ERROR_LIBRARY_NOT_FOUND, "returned 12"),
        (nvmlReturn_t::NVML_ERROR_RESET_REQUIRED, "returned 16"),
        (nvmlReturn_t::NVML_ERROR_UNKNOWN, "returned 999"),
        (nvmlReturn_t(12_345), "returned 12345"),
    ];
    for (answer, says) in answers {
        // A poison record of its own for each answer (a test's, never the process's).
        let poison: &'static Poison = Box::leak(Box::new(Poison::new()));
        let health = open(poison, Sim::healthy());
        // Healthy first: the wait's timeout is no event.
        health.poll_or_poison(Location::caller()).unwrap();
        assert!(poison.check().is_ok());
        sim(|s| s.idle_wait = answer);
        let e = health.poll_or_poison(Location::caller()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::HardwareFault, "{answer:?}: {e}");
        assert!(e.is_sticky(), "{answer:?}");
        assert_eq!(e.origin().unwrap().observer(), Observer::HealthPoll);
        let text = e.to_string();
        assert!(text.contains(says), "{answer:?}: {text}");
        assert!(text.contains("00000000:41:00.0"), "{text}");
        assert_eq!(
            poison.recorded().map(|r| r.kind()),
            Some(ErrorKind::HardwareFault),
            "{answer:?}"
        );
        // The next poll refuses with that first fault and asks NVML nothing, whatever it
        // would answer now.
        sim(|s| s.idle_wait = nvmlReturn_t::NVML_ERROR_TIMEOUT);
        let waits = sim(|s| s.waits);
        let again = health.poll_or_poison(Location::caller()).unwrap_err();
        assert!(again.to_string().contains(says), "{again}");
        assert_eq!(sim(|s| s.waits), waits, "a poisoned poll asks NVML nothing");
    }
}

/// The full API's poll only reports: a lost GPU is its event, another error its `NvmlFailed`
/// naming the status, and the timeout no event; none poisons anything.
#[test]
fn the_full_profile_poll_reports_each_answer_without_poisoning() {
    static POISON: Poison = Poison::new();
    let health = open(&POISON, Sim::healthy());
    assert_eq!(health.poll().unwrap(), None);
    sim(|s| s.idle_wait = nvmlReturn_t::NVML_ERROR_GPU_IS_LOST);
    assert_eq!(health.poll().unwrap(), Some(HealthEvent::GpuLost));
    for code in [1, 2, 999, 12_345] {
        sim(|s| s.idle_wait = nvmlReturn_t(code));
        let e = health.poll().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NvmlFailed);
        assert_eq!(
            e.detail(),
            Some(format!("nvmlEventSetWait_v2 returned {code} (simulated)").as_str())
        );
    }
    assert!(POISON.check().is_ok());
}
