//! `fault_to_frame`'s supervisor and worker protocol (`benches/timing/restart.rs`) and its
//! interference processes (`benches/timing/interference.rs`), checked without a GPU: workers
//! that compute on the CPU (this test binary started again, as `tests/gpu_supervisor.rs`
//! starts its workers) fault in each scenario, and the supervisor measures every run, each
//! phase in its place; a worker that ends another way is not counted as a run; the CPU
//! interferers run until stopped and say what they did. No assertion on how long anything
//! takes, beyond what the protocol itself guarantees (a hung worker waits its bound, a stopped
//! one is killed no earlier than the watchdog's deadline). Unix only, as the protocol is
//! (`fork`/`exec` of workers, pidfd, `ppoll`, signals).
#![cfg(unix)]

#[path = "../timing/mod.rs"]
mod timing;

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};
use std::time::Duration;
use timing::interference::{self, Setting};
use timing::restart::{Cell, Ended, Life, Limits, Order, Scenario, ended_as_expected, measure};

/// In a worker or an interferer (this binary started again): its life, then the end of the
/// process; in the test itself, returns.
fn child_if_asked() {
    let start = timing::now_ns();
    if let Some(order) = Order::from_env() {
        timing::die_with_parent(Order::parent());
        let (kind, order) = order.unwrap();
        if kind == "cpu" {
            timing::restart::cpu_worker(&order, start);
        }
        // A worker that fails at once, before its init phase (no GPU, say).
        eprintln!("worker {kind}: failing on purpose");
        std::process::exit(1)
    }
    interference::interferer_if_asked();
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("custack-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Workers of `kind`: this test binary running `test` again.
fn workers(test: &'static str, kind: &'static str) -> impl FnMut(&Order) -> Command {
    let me = std::env::current_exe().unwrap();
    move |_| {
        let mut c = Command::new(&me);
        c.args([
            "--exact",
            test,
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(timing::restart::WORKER_ENV, kind);
        c
    }
}

const BOUND: Duration = Duration::from_millis(20);
const WATCHDOG: Duration = Duration::from_millis(100);

fn cell(scenario: Scenario, runs: usize) -> Cell {
    Cell {
        scenario,
        runs,
        fault_frame: 2,
        bound: BOUND,
        spin: Duration::from_secs(1),
        limits: Limits {
            init: Duration::from_secs(60),
            watchdog: WATCHDOG,
            stuck: Duration::from_secs(60),
        },
        max_wall: None,
    }
}

#[test]
fn every_scenario_is_measured_phase_by_phase_with_cpu_workers() {
    let test = "every_scenario_is_measured_phase_by_phase_with_cpu_workers";
    child_if_asked();
    let dir = scratch("ftf-cpu");
    let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap();
    for scenario in Scenario::ALL {
        let m = measure(&cell(scenario, 2), &mut workers(test, "cpu"), &dir).unwrap();
        let s = scenario.name();
        assert!(
            m.unexpected.is_empty() && m.failed_before_fault.is_empty(),
            "{s}: {m:?}"
        );
        assert_eq!(m.runs.len(), 2, "{s}: {m:?}");
        assert_eq!(
            m.workers, 3,
            "{s}: two faults, then the worker that closes the last run"
        );
        for r in &m.runs {
            // The phases follow each other: they add up to the whole.
            assert_eq!(
                r.total,
                r.fault_to_exit + r.exit_to_start + r.start_to_init + r.init_to_frame,
                "{s}: {r:?}"
            );
            match scenario {
                // The stand-in for the hung kernel sleeps the bound before the safe state.
                Scenario::Hung => assert!(r.fault_to_exit >= ns(BOUND), "{s}: {r:?}"),
                Scenario::Sticky => assert!(r.fault_to_kill.is_none(), "{s}: {r:?}"),
                // Killed by the watchdog, no earlier than its deadline after the last line.
                Scenario::Watchdog => {
                    let kill = r.fault_to_kill.unwrap();
                    assert!(
                        kill >= ns(WATCHDOG) && r.fault_to_exit >= kill,
                        "{s}: {r:?}"
                    );
                }
            }
        }
        // The safe state's one line, with what the stand-in said.
        let report = m.report.unwrap_or_default();
        match scenario {
            Scenario::Hung => assert!(report.contains("deadline passed"), "{report}"),
            Scenario::Sticky => assert!(report.contains("sticky"), "{report}"),
            Scenario::Watchdog => assert!(report.is_empty(), "{report}"),
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A worker that fails before its fault is no run; three in a row end the measurement, with
/// the last one's stderr.
#[test]
fn workers_that_fail_before_their_fault_are_no_runs() {
    let test = "workers_that_fail_before_their_fault_are_no_runs";
    child_if_asked();
    let dir = scratch("ftf-fail");
    let e = measure(&cell(Scenario::Sticky, 2), &mut workers(test, "fail"), &dir).unwrap_err();
    assert!(
        e.contains("three workers in a row") && e.contains("failing on purpose"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// An interferer that ends before it is stopped is reported (what was measured since was not
/// under the stated interference): the spinners end by themselves after their one-second limit.
#[test]
fn an_interferer_that_ends_early_is_reported() {
    let test = "an_interferer_that_ends_early_is_reported";
    child_if_asked();
    let dir = scratch("ftf-early");
    let me = std::env::current_exe().unwrap();
    let options = interference::Options {
        gpu_kernel_us: 1000,
        pcie_mib: 1,
        max: Duration::from_secs(1),
    };
    let args = [
        "--exact",
        test,
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
    ];
    let mut running =
        interference::start(&Setting::parse("cpu").unwrap(), &options, &me, &args, &dir).unwrap();
    // A minute is the liveness bound; they end after about a second.
    let mut ended = None;
    for _ in 0..600 {
        if let Err(e) = running.check() {
            ended = Some(e);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let e = ended.expect("the spinners never ended");
    assert!(e.contains("cpu interferer ended early"), "{e}");
    drop(running);
    let _ = std::fs::remove_dir_all(dir);
}

/// A cell with a time limit stops starting faults when it is spent, and closes the run it has
/// open: a million runs asked for, 300 ms allowed.
#[test]
fn a_cell_ends_at_its_time_limit_with_the_runs_it_has() {
    let test = "a_cell_ends_at_its_time_limit_with_the_runs_it_has";
    child_if_asked();
    let dir = scratch("ftf-limit");
    let limited = Cell {
        max_wall: Some(Duration::from_millis(300)),
        ..cell(Scenario::Sticky, 1_000_000)
    };
    let m = measure(&limited, &mut workers(test, "cpu"), &dir).unwrap();
    assert!(m.unexpected.is_empty(), "{m:?}");
    assert!(
        !m.runs.is_empty() && m.runs.len() < 1_000_000,
        "{}",
        m.runs.len()
    );
    assert_eq!(
        m.workers,
        m.runs.len() + 1,
        "every run closed by its successor"
    );
    let _ = std::fs::remove_dir_all(dir);
}

fn life(status: ExitStatus, killed: bool) -> Life {
    Life {
        fault: Some(1),
        killed: killed.then_some(2),
        exited: 3,
        status: Some(status),
        ..Life::default()
    }
}

const HUNG_LINE: &str = "custack: fail-stop (exit status 75): a wait's deadline passed before the work was complete: the stream scope at x passed its deadline";
const STICKY_LINE: &str = "custack: fail-stop (exit status 75): CUDA_ERROR_LAUNCH_FAILED (719) (sticky: CUDA is unusable in this process)";

/// A run counts only when its worker ended as its scenario says.
#[test]
fn a_run_counts_only_when_the_worker_ended_as_its_scenario_says() {
    let exit = |code: i32| ExitStatus::from_raw(code << 8);
    let killed = ExitStatus::from_raw(libc::SIGKILL);
    // As expected.
    assert_eq!(
        ended_as_expected(Scenario::Hung, &life(exit(75), false), HUNG_LINE),
        Ok(Ended::AsNamed)
    );
    assert_eq!(
        ended_as_expected(Scenario::Sticky, &life(exit(75), false), STICKY_LINE),
        Ok(Ended::AsNamed)
    );
    assert_eq!(
        ended_as_expected(Scenario::Watchdog, &life(killed, true), ""),
        Ok(Ended::AsNamed)
    );
    // The trap's worker in the safe state by its bound, the trap not yet reported: a run, told
    // apart.
    assert_eq!(
        ended_as_expected(Scenario::Sticky, &life(exit(75), false), HUNG_LINE),
        Ok(Ended::ByBound)
    );
    // The safe state's status without its line, or with a reason its scenario cannot have.
    assert!(ended_as_expected(Scenario::Hung, &life(exit(75), false), "").is_err());
    assert!(ended_as_expected(Scenario::Sticky, &life(exit(75), false), "").is_err());
    assert!(ended_as_expected(Scenario::Hung, &life(exit(75), false), STICKY_LINE).is_err());
    let other = "custack: fail-stop (exit status 75): CUDA_ERROR_OUT_OF_MEMORY (2)";
    assert!(ended_as_expected(Scenario::Sticky, &life(exit(75), false), other).is_err());
    // Two lines: two threads' reports (the safe state prints one).
    let two = format!("{HUNG_LINE}\n{HUNG_LINE}");
    assert!(ended_as_expected(Scenario::Hung, &life(exit(75), false), &two).is_err());
    // Another status, with the line.
    assert!(ended_as_expected(Scenario::Hung, &life(exit(1), false), HUNG_LINE).is_err());
    // Killed by the watchdog where the worker had to fail-stop by itself; also when it ended
    // with the safe state's status as the kill came (silent past the limit all the same).
    assert!(ended_as_expected(Scenario::Sticky, &life(killed, true), STICKY_LINE).is_err());
    assert!(ended_as_expected(Scenario::Hung, &life(exit(75), true), HUNG_LINE).is_err());
    // The watchdog scenario: a worker that ended by itself, or killed by someone else.
    assert!(ended_as_expected(Scenario::Watchdog, &life(exit(75), false), HUNG_LINE).is_err());
    assert!(ended_as_expected(Scenario::Watchdog, &life(killed, false), "").is_err());
}

#[test]
fn the_settings_parse_and_name_themselves() {
    let all = Setting::parse_list("all").unwrap();
    let names: Vec<String> = all.iter().map(Setting::name).collect();
    assert_eq!(names, ["none", "cpu", "gpu", "pcie"]);
    assert_eq!(Setting::parse("gpu+cpu+gpu").unwrap().name(), "gpu+cpu");
    assert!(Setting::parse("disk").is_err());
    assert_eq!(Scenario::parse_list("all").unwrap(), Scenario::ALL);
    assert!(Scenario::parse_list("hung,slow").is_err());
    let a = timing::Args::parse(
        ["--runs", "5", "--bench", "--interference=cpu"].map(String::from),
        &["runs", "interference"],
        &["bench"],
    )
    .unwrap();
    assert_eq!(a.get("runs", 0usize), Ok(5));
    assert_eq!(a.raw("interference"), Some("cpu"));
    assert!(a.switch("bench"));
    assert!(timing::Args::parse(["--rnus".to_string()], &["runs"], &[]).is_err());
    assert!(timing::Args::parse(["--runs".to_string()], &["runs"], &[]).is_err());
}

/// The CPU interference: one spinning process per CPU, running until stopped, each saying
/// what it did; stopped, none is left.
#[test]
fn cpu_interference_runs_until_stopped() {
    let test = "cpu_interference_runs_until_stopped";
    child_if_asked();
    let dir = scratch("ftf-interference");
    let me = std::env::current_exe().unwrap();
    let options = interference::Options {
        gpu_kernel_us: 1000,
        pcie_mib: 1,
        max: Duration::from_secs(60),
    };
    let args = [
        "--exact",
        test,
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
    ];
    let mut running =
        interference::start(&Setting::parse("cpu").unwrap(), &options, &me, &args, &dir).unwrap();
    // Until each has written its status (a quarter second after it began, or later on a
    // loaded machine; a minute is the liveness bound).
    let cpus = timing::cpus();
    for i in 0..cpus {
        let status = dir.join(format!("cpu-{i}.status"));
        for _ in 0..600 {
            if status.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(status.exists(), "{} never written", status.display());
    }
    running.check().unwrap();
    let summary = running.stop().unwrap();
    assert!(
        summary.contains(&format!("\"processes\":{cpus}")),
        "{summary}"
    );
    assert!(
        !summary.contains("\"spins_per_s_per_process\":0,"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn run_lines_read_back_as_written_and_malformed_ones_are_refused() {
    use timing::restart::{parse_run_line, run_line};
    let phases = [
        Some(1),
        Some(22),
        Some(333),
        Some(4_444),
        Some(55_555),
        None,
    ];
    let line = run_line("watchdog", "cpu+gpu", "gpu", &phases, false);
    assert_eq!(line, "run watchdog cpu+gpu gpu ns=1,22,333,4444,55555,");
    assert_eq!(
        parse_run_line(&line),
        Ok(Some(("watchdog", "cpu+gpu", "gpu", phases, false)))
    );
    // A trap's run ended by the bounded wait keeps that on its line.
    let line = run_line("sticky", "gpu", "gpu", &phases, true);
    assert_eq!(line, "run sticky gpu gpu ns=1,22,333,4444,55555, by=bound");
    assert_eq!(
        parse_run_line(&line),
        Ok(Some(("sticky", "gpu", "gpu", phases, true)))
    );
    assert_eq!(parse_run_line("| hung | none | total |"), Ok(None));
    assert_eq!(parse_run_line("{\"bench\":\"fault_to_frame\"}"), Ok(None));
    for bad in [
        "run hung none gpu",
        "run hung none gpu ns=1,2,3,4,5",
        "run hung none gpu ns=1,2,3,4,5,6,7",
        "run hung none gpu ns=1,2,x,4,5,",
        "run hung none gpu 1,2,3,4,5,",
        "run hung none gpu ns=1,2,3,4,5, extra",
        "run hung none gpu ns=1,2,3,4,5, by=error",
        "run hung none gpu ns=1,2,3,4,5, by=bound extra",
    ] {
        assert!(parse_run_line(bad).is_err(), "{bad} was read");
    }
}
