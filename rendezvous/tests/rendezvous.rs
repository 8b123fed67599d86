//! `custack_rendezvous` on loopback: the processes of one job finding each other (R16's
//! rendezvous part, custack's `docs/invariants.md`). No GPU and no CUDA needed.
//!
//! Rank 0 listens on port 0 ([`Job::listen`]) and the others are given the port it got, so no
//! test races another program for a port, except the two that need a port nothing listens on
//! (a rank 0 that starts late, a wrong address): they take a free port and let it go, and try
//! again (at most 3 times) should something else take it meanwhile. Every wait is bounded: a
//! rank that has not returned within its timeout plus 30 s fails the test instead of hanging it
//! (a guard against a hang, not a measure of speed: a loaded machine stays far inside it).
//!
//! The tests after "hostile peers" hold R21: an absurd world size, silent connections, hellos
//! without the job's secret and impostors of a real rank.

use custack_rendezvous::{Error, ErrorKind, Job, MAX_WORLD_SIZE, RankZero, Result};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const LOOPBACK: &str = "127.0.0.1";
/// How much longer than its timeout a rank may take before the test calls it hung: far more
/// than a loaded machine adds, so that only a wait the timeout does not bound fails.
const HANG: Duration = Duration::from_secs(30);

fn id() -> Vec<u8> {
    (0..128u8)
        .map(|i| i.wrapping_mul(7).wrapping_add(3))
        .collect()
}

/// Rank 0 of `world`, listening on a free loopback port.
fn rank_zero(world: usize) -> RankZero {
    Job::new(0, world, 0, LOOPBACK, 0)
        .unwrap()
        .listen()
        .unwrap()
}

fn job(rank: usize, world: usize, port: u16) -> Job {
    Job::new(rank, world, rank, LOOPBACK, port).unwrap()
}

/// Runs each closure on a thread of its own and collects the results in order, failing the
/// test when one has not returned by `timeout + HANG`.
fn run_all(
    ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>>,
    timeout: Duration,
) -> Vec<Result<Vec<u8>>> {
    let (tx, rx) = mpsc::channel();
    let n = ranks.len();
    for (i, rank) in ranks.into_iter().enumerate() {
        let tx = tx.clone();
        thread::spawn(move || {
            let _ = tx.send((i, rank()));
        });
    }
    let until = Instant::now() + timeout + HANG;
    let mut results: Vec<Option<Result<Vec<u8>>>> = (0..n).map(|_| None).collect();
    for _ in 0..n {
        let left = until.saturating_duration_since(Instant::now());
        let (i, r) = rx.recv_timeout(left).expect("a rank hung past its timeout");
        results[i] = Some(r);
    }
    results.into_iter().map(Option::unwrap).collect()
}

/// Rank 0 (listening already) and ranks `others`, each with its tag and world size.
fn rendezvous(
    zero: RankZero,
    zero_tag: &'static [u8],
    others: Vec<(usize, usize, &'static [u8])>,
    timeout: Duration,
) -> Vec<Result<Vec<u8>>> {
    let port = zero.local_addr().port();
    let mut ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> =
        vec![Box::new(move || zero.share(zero_tag, timeout, || Ok(id())))];
    for (rank, world, tag) in others {
        ranks.push(Box::new(move || {
            job(rank, world, port).share(tag, timeout, || panic!("only rank 0 makes the bytes"))
        }));
    }
    run_all(ranks, timeout)
}

fn expect_err(r: &Result<Vec<u8>>, kind: ErrorKind, needles: &[&str]) -> Error {
    let e = r.as_ref().expect_err("the rendezvous must fail").clone();
    assert_eq!(e.kind(), kind, "{e}");
    for needle in needles {
        assert!(e.to_string().contains(needle), "`{needle}` not in: {e}");
    }
    e
}

#[test]
fn all_ranks_arrive_and_get_the_same_bytes() {
    let t = Duration::from_secs(3);
    let results = rendezvous(
        rank_zero(4),
        b"nccl 2.27.3",
        (1..4).map(|r| (r, 4, &b"nccl 2.27.3"[..])).collect(),
        t,
    );
    for r in results {
        assert_eq!(r.unwrap(), id());
    }
}

#[test]
fn rank_zero_calls_make_once_and_only_after_everyone_arrived() {
    let zero = rank_zero(3);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    let (arrived_tx, arrived_rx) = mpsc::channel::<()>();
    let rank2 = thread::spawn(move || {
        // Rank 2 comes last: `make` must not have run before it connects.
        thread::sleep(Duration::from_millis(300));
        arrived_tx.send(()).unwrap();
        job(2, 3, port).share(b"", t, || unreachable!())
    });
    let rank1 = thread::spawn(move || job(1, 3, port).share(b"", t, || unreachable!()));
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let got = zero.share(b"", t, || {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert!(
            arrived_rx.try_recv().is_ok(),
            "make ran before rank 2 arrived"
        );
        Ok(b"x".to_vec())
    });
    assert_eq!(got.unwrap(), b"x");
    assert_eq!(calls.into_inner(), 1);
    assert_eq!(rank1.join().unwrap().unwrap(), b"x");
    assert_eq!(rank2.join().unwrap().unwrap(), b"x");
}

/// A free loopback port, nothing listening on it (for a moment: see the file's docs).
fn free_port() -> u16 {
    TcpListener::bind((LOOPBACK, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn rank_zero_may_start_after_the_others() {
    let t = Duration::from_secs(3);
    for attempt in 1..=3 {
        let port = free_port();
        let mut ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> =
            vec![Box::new(move || {
                // The others find nothing listening (connection refused) and try again.
                thread::sleep(Duration::from_millis(400));
                job(0, 3, port).share(b"v1", t, || Ok(id()))
            })];
        for r in 1..3 {
            ranks.push(Box::new(move || {
                job(r, 3, port).share(b"v1", t, || unreachable!())
            }));
        }
        let results = run_all(ranks, t);
        if let Err(e) = &results[0] {
            if e.kind() == ErrorKind::LaunchEnvironment && attempt < 3 {
                eprintln!("port {port} taken meanwhile ({e}); again");
                continue;
            }
        }
        for r in results {
            assert_eq!(r.unwrap(), id());
        }
        return;
    }
}

#[test]
fn a_rank_late_within_the_timeout_still_succeeds() {
    let zero = rank_zero(3);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    let ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> = vec![
        Box::new(move || zero.share(b"", t, || Ok(id()))),
        Box::new(move || job(1, 3, port).share(b"", t, || unreachable!())),
        Box::new(move || {
            thread::sleep(Duration::from_millis(800));
            job(2, 3, port).share(b"", t, || unreachable!())
        }),
    ];
    for r in run_all(ranks, t) {
        assert_eq!(r.unwrap(), id());
    }
}

#[test]
fn a_missing_rank_makes_every_present_rank_time_out_naming_it() {
    let t = Duration::from_secs(2);
    let started = Instant::now();
    // World of 4, rank 2 never comes. Ranks 1 and 3 are given a longer timeout, so that they
    // hear rank 0's answer before their own clocks run out however late rank 0's thread starts
    // on a loaded machine (with equal timeouts, only rank 0's margin of a quarter of it does).
    let zero = rank_zero(4);
    let port = zero.local_addr().port();
    let mut ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> =
        vec![Box::new(move || zero.share(b"", t, || Ok(id())))];
    for rank in [1, 3] {
        ranks.push(Box::new(move || {
            job(rank, 4, port).share(b"", t + HANG, || unreachable!())
        }));
    }
    let results = run_all(ranks, t + HANG);
    for r in &results {
        expect_err(
            r,
            ErrorKind::Timeout,
            &["rank 2 of 4 did not arrive", "within 2 s"],
        );
    }
    // The others heard it from rank 0, not from their own clock.
    for r in &results[1..] {
        expect_err(
            r,
            ErrorKind::Timeout,
            &["rank 0 at 127.0.0.1:", "answered rank"],
        );
    }
    assert!(started.elapsed() < t + HANG);
}

#[test]
fn a_different_tag_fails_every_rank_naming_both() {
    let t = Duration::from_secs(3);
    let results = rendezvous(
        rank_zero(3),
        b"nccl 2.28.1",
        vec![(1, 3, &b"nccl 2.27.3"[..]), (2, 3, &b"nccl 2.28.1"[..])],
        t,
    );
    for r in &results {
        expect_err(
            r,
            ErrorKind::Mismatch,
            &["rank 1 brings tag `nccl 2.27.3`, rank 0 `nccl 2.28.1`"],
        );
    }
}

#[test]
fn a_different_world_size_fails_every_rank_naming_both() {
    let t = Duration::from_secs(3);
    let results = rendezvous(
        rank_zero(3),
        b"",
        vec![(1, 3, &b""[..]), (2, 4, &b""[..])],
        t,
    );
    for r in &results {
        expect_err(
            r,
            ErrorKind::Mismatch,
            &["rank 2 brings world size 4, rank 0 3"],
        );
    }
}

#[test]
fn a_rank_arriving_twice_fails_every_rank() {
    let zero = rank_zero(3);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    // Rank 2 comes last, so that both rank 1s are there before the world is complete (a
    // duplicate arriving after that finds nobody listening: it times out alone).
    let ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> = vec![
        Box::new(move || zero.share(b"", t, || Ok(id()))),
        Box::new(move || job(1, 3, port).share(b"", t, || unreachable!())),
        Box::new(move || job(1, 3, port).share(b"", t, || unreachable!())),
        Box::new(move || {
            thread::sleep(Duration::from_millis(500));
            job(2, 3, port).share(b"", t, || unreachable!())
        }),
    ];
    for r in &run_all(ranks, t) {
        expect_err(r, ErrorKind::Mismatch, &["rank 1 arrived twice"]);
    }
}

#[test]
fn a_second_rank_zero_cannot_listen_on_the_same_port() {
    let zero = rank_zero(2);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    // Two processes both told they are rank 0: the second cannot listen, and says where.
    let second = job(0, 2, port).listen().unwrap_err();
    assert_eq!(second.kind(), ErrorKind::LaunchEnvironment, "{second}");
    assert!(
        second.to_string().contains(&format!("127.0.0.1:{port}")),
        "{second}"
    );
    assert!(std::error::Error::source(&second).is_some());
    let results = rendezvous(zero, b"", vec![(1, 2, &b""[..])], t);
    for r in results {
        assert_eq!(r.unwrap(), id());
    }
}

#[test]
fn nothing_listening_is_an_error_naming_the_address_and_the_timeout() {
    let t = Duration::from_secs(1);
    let port = free_port();
    let started = Instant::now();
    let e = job(1, 2, port)
        .share(b"", t, || unreachable!())
        .unwrap_err();
    assert!(started.elapsed() < t + HANG);
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(
        e.to_string().contains(&format!(
            "rank 0 at 127.0.0.1:{port} did not answer within 1 s"
        )),
        "{e}"
    );
    // The last connection error is the source.
    assert!(std::error::Error::source(&e).is_some(), "{e:?}");
}

#[test]
fn an_unresolvable_host_is_an_error_naming_it() {
    let t = Duration::from_secs(2);
    let e = Job::new(1, 2, 1, "no-such-host.invalid", 29500)
        .unwrap()
        .share(b"", t, || unreachable!())
        .unwrap_err();
    // Resolved (and refused) in time, or the resolver did not answer in time: either way the
    // error names the address.
    assert!(
        matches!(e.kind(), ErrorKind::LaunchEnvironment | ErrorKind::Timeout),
        "{e}"
    );
    assert!(e.to_string().contains("`no-such-host.invalid`"), "{e}");
}

#[test]
fn a_connection_that_is_not_a_rank_is_refused_and_does_not_count() {
    let zero = rank_zero(2);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    // Something else connects first and speaks HTTP.
    let mut stranger = TcpStream::connect((LOOPBACK, port)).unwrap();
    stranger.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let results = rendezvous(zero, b"", vec![(1, 2, &b""[..])], t);
    for r in results {
        assert_eq!(r.unwrap(), id());
    }
    // It was closed without an answer.
    stranger
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut buf = [0u8; 16];
    assert!(matches!(stranger.read(&mut buf), Ok(0) | Err(_)));
}

#[test]
fn a_server_that_is_not_rank_zero_is_named() {
    let t = Duration::from_secs(2);
    let listener = TcpListener::bind((LOOPBACK, 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n").unwrap();
    });
    let e = job(1, 2, port)
        .share(b"", t, || unreachable!())
        .unwrap_err();
    server.join().unwrap();
    assert_eq!(e.kind(), ErrorKind::Failed, "{e}");
    assert!(e.to_string().contains("not a custack rank 0"), "{e}");
}

/// `make`'s own error type: rank 0 must hand it back as the source.
#[derive(Debug)]
struct NoId(&'static str);
impl std::fmt::Display for NoId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed", self.0)
    }
}
impl std::error::Error for NoId {}

#[test]
fn a_failing_make_fails_every_rank_with_its_message() {
    let zero = rank_zero(2);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    let ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> = vec![
        Box::new(move || zero.share(b"", t, || Err(NoId("ncclGetUniqueId").into()))),
        Box::new(move || job(1, 2, port).share(b"", t, || unreachable!())),
    ];
    let results = run_all(ranks, t);
    // Every rank has the same message; rank 0 also make's own error, as the source.
    let needles = ["could not make the bytes to share: ncclGetUniqueId failed"];
    let zero = expect_err(&results[0], ErrorKind::Failed, &needles);
    let source = std::error::Error::source(&zero).expect("make's error as the source");
    assert_eq!(
        source.downcast_ref::<NoId>().map(|e| e.0),
        Some("ncclGetUniqueId")
    );
    let one = expect_err(&results[1], ErrorKind::Failed, &needles);
    assert!(one.detail().starts_with("rank 0 at 127.0.0.1:"), "{one}");
}

#[test]
fn a_world_of_one_reports_a_failing_make_as_rank_zero_does() {
    let e = Job::new(0, 1, 0, "no-such-host.invalid", 0)
        .unwrap()
        .share(b"", Duration::from_millis(1), || Err("no NCCL".into()))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Failed, "{e}");
    assert_eq!(
        e.detail(),
        "rank 0 could not make the bytes to share: no NCCL"
    );
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn a_timeout_beyond_the_clock_is_an_error_not_a_panic() {
    let e = job(1, 2, 9)
        .share(b"", Duration::MAX, || unreachable!())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Failed, "{e}");
    assert!(
        e.detail()
            .contains("beyond what this system's clock can count"),
        "{e}"
    );
}

#[test]
fn a_world_of_one_touches_no_network() {
    // Port 0 and an address nobody listens on: never used.
    let job = Job::new(0, 1, 0, "no-such-host.invalid", 0).unwrap();
    assert_eq!(
        job.share(b"", Duration::from_millis(1), || Ok(id()))
            .unwrap(),
        id()
    );
}

#[test]
fn an_oversized_tag_is_refused_before_any_connection() {
    let e = job(1, 2, 9)
        .share(&[0; 5000], Duration::from_secs(1), || unreachable!())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Failed, "{e}");
    assert!(e.to_string().contains("5000 bytes"), "{e}");
}

// --- real processes, as torchrun starts them ---

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Marks a run of this binary as a child rank (the environment carries RANK & co.).
const CHILD: &str = "CUSTACK_RENDEZVOUS_TEST_CHILD";

/// A child process's rank: does nothing unless started by `ranks_in_separate_processes`.
#[test]
fn child_rank() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let job = Job::from_env().unwrap();
    assert!(job.has_secret());
    let bytes = job
        .share(b"processes", Duration::from_secs(3), || unreachable!())
        .unwrap();
    let hex = hex(&bytes);
    println!(
        "CHILD_RESULT rank={} local={} bytes={hex}",
        job.rank(),
        job.local_rank()
    );
}

#[test]
fn ranks_in_separate_processes_get_the_same_bytes() {
    let world = 3;
    // The job's secret travels as launchers pass values: in the environment.
    let zero = Job::new(0, world, 0, LOOPBACK, 0)
        .unwrap()
        .with_secret(SECRET)
        .unwrap()
        .listen()
        .unwrap();
    let port = zero.local_addr().port();
    let exe = std::env::current_exe().unwrap();
    let mut children = Vec::new();
    for rank in 1..world {
        let child = Command::new(&exe)
            .args(["--exact", "child_rank", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .env("RANK", rank.to_string())
            .env("WORLD_SIZE", world.to_string())
            .env("LOCAL_RANK", rank.to_string())
            .env("MASTER_ADDR", LOOPBACK)
            .env("MASTER_PORT", port.to_string())
            .env("CUSTACK_RENDEZVOUS_SECRET", SECRET)
            .env_remove("CUSTACK_RENDEZVOUS_PORT")
            .env_remove("TORCHELASTIC_USE_AGENT_STORE")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        children.push(child);
    }
    let got = zero.share(b"processes", Duration::from_secs(3), || Ok(id()));
    // Bounded wait for the children; kill any that hang.
    let until = Instant::now() + Duration::from_secs(3) + HANG;
    let mut outputs = Vec::new();
    for mut child in children {
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut out = String::new();
                child
                    .stdout
                    .take()
                    .unwrap()
                    .read_to_string(&mut out)
                    .unwrap();
                assert!(status.success(), "child failed: {out}");
                outputs.push(out);
                break;
            }
            if Instant::now() > until {
                let _ = child.kill();
                let _ = child.wait();
                panic!("a child rank hung");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
    assert_eq!(got.unwrap(), id());
    let hex = hex(&id());
    for (i, out) in outputs.iter().enumerate() {
        let rank = i + 1;
        let line = format!("CHILD_RESULT rank={rank} local={rank} bytes={hex}");
        assert!(out.contains(&line), "rank {rank} printed: {out}");
    }
}

// --- the launcher's environment ---

fn env(vars: &[(&str, &str)]) -> impl FnMut(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

fn env_err(vars: &[(&str, &str)], needles: &[&str]) {
    let e = Job::from_env_with(env(vars)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LaunchEnvironment, "{e}");
    for needle in needles {
        assert!(e.to_string().contains(needle), "`{needle}` not in: {e}");
    }
}

const TORCHRUN: &[(&str, &str)] = &[
    ("RANK", "5"),
    ("WORLD_SIZE", "8"),
    ("LOCAL_RANK", "1"),
    ("MASTER_ADDR", "node-0"),
    ("MASTER_PORT", "29500"),
];

#[test]
fn from_env_reads_torchruns_names() {
    let job = Job::from_env_with(env(TORCHRUN)).unwrap();
    assert_eq!(job, Job::new(5, 8, 1, "node-0", 29500).unwrap());
    assert_eq!(job.master_addr(), "node-0");
    assert_eq!(job.master_port(), 29500);
}

#[test]
fn from_env_reads_open_mpis_names_where_torchruns_are_unset() {
    let job = Job::from_env_with(env(&[
        ("OMPI_COMM_WORLD_RANK", "3"),
        ("OMPI_COMM_WORLD_SIZE", "4"),
        ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
        ("MASTER_ADDR", " 10.0.0.1 "),
        ("MASTER_PORT", "29400"),
    ]))
    .unwrap();
    assert_eq!(job, Job::new(3, 4, 1, "10.0.0.1", 29400).unwrap());
    // torchrun's names win where both are set.
    let mut both = TORCHRUN.to_vec();
    both.push(("OMPI_COMM_WORLD_RANK", "0"));
    both.push(("OMPI_COMM_WORLD_SIZE", "2"));
    assert_eq!(Job::from_env_with(env(&both)).unwrap().rank(), 5);
}

#[test]
fn the_local_rank_defaults_to_the_rank() {
    let job = Job::from_env_with(env(&[
        ("RANK", "2"),
        ("WORLD_SIZE", "4"),
        ("MASTER_ADDR", "h"),
        ("MASTER_PORT", "1"),
    ]))
    .unwrap();
    assert_eq!(job.local_rank(), 2);
}

#[test]
fn under_torchruns_agent_store_the_port_is_the_next_one_unless_set() {
    let mut vars = TORCHRUN.to_vec();
    vars.push(("TORCHELASTIC_USE_AGENT_STORE", "True"));
    assert_eq!(Job::from_env_with(env(&vars)).unwrap().master_port(), 29501);
    vars.push(("CUSTACK_RENDEZVOUS_PORT", "31000"));
    assert_eq!(Job::from_env_with(env(&vars)).unwrap().master_port(), 31000);
    let mut last = TORCHRUN.to_vec();
    last.retain(|(k, _)| *k != "MASTER_PORT");
    last.push(("MASTER_PORT", "65535"));
    last.push(("TORCHELASTIC_USE_AGENT_STORE", "True"));
    env_err(&last, &["MASTER_PORT=65535", "CUSTACK_RENDEZVOUS_PORT"]);
}

#[test]
fn a_missing_or_invalid_variable_is_named_with_its_value() {
    let without = |name: &str| -> Vec<(&str, &str)> {
        TORCHRUN
            .iter()
            .copied()
            .filter(|(k, _)| *k != name)
            .collect()
    };
    let with = |name: &'static str, value: &'static str| -> Vec<(&'static str, &'static str)> {
        let mut v: Vec<_> = TORCHRUN
            .iter()
            .copied()
            .filter(|(k, _)| *k != name)
            .collect();
        v.push((name, value));
        v
    };
    env_err(
        &without("RANK"),
        &["neither RANK (torchrun) nor OMPI_COMM_WORLD_RANK (Open MPI) is set"],
    );
    env_err(&without("WORLD_SIZE"), &["neither WORLD_SIZE"]);
    env_err(&without("MASTER_ADDR"), &["MASTER_ADDR is not set"]);
    env_err(&without("MASTER_PORT"), &["MASTER_PORT is not set"]);
    env_err(&with("RANK", "five"), &["RANK=`five`"]);
    env_err(&with("WORLD_SIZE", "-1"), &["WORLD_SIZE=`-1`"]);
    env_err(&with("WORLD_SIZE", "0"), &["WORLD_SIZE=`0`"]);
    env_err(&with("RANK", "8"), &["RANK=8 is not below WORLD_SIZE=8"]);
    env_err(&with("LOCAL_RANK", "9"), &["LOCAL_RANK=9"]);
    env_err(
        &with("MASTER_PORT", "0"),
        &["MASTER_PORT=`0`", "1 to 65535"],
    );
    env_err(&with("MASTER_PORT", "70000"), &["MASTER_PORT=`70000`"]);
    env_err(&with("MASTER_ADDR", " "), &["MASTER_ADDR is empty"]);
    let mut mpi = without("RANK");
    mpi.push(("OMPI_COMM_WORLD_RANK", "x"));
    env_err(&mpi, &["OMPI_COMM_WORLD_RANK=`x`"]);
}

#[test]
fn new_refuses_a_rank_outside_the_world() {
    for (rank, world, local) in [(2, 2, 0), (0, 0, 0), (0, 2, 2)] {
        let e = Job::new(rank, world, local, LOOPBACK, 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LaunchEnvironment, "{e}");
    }
    let e = job(1, 2, 0)
        .share(b"", Duration::from_secs(1), || unreachable!())
        .unwrap_err();
    assert!(e.to_string().contains("port 0"), "{e}");
    let e = job(1, 2, 1).listen().unwrap_err();
    assert!(e.to_string().contains("rank 1 asked to listen"), "{e}");
}

// --- hostile peers (R21) ---

const SECRET: &str = "a per-job random string";

/// Rank 0 of `world` with the job's secret, listening on a free loopback port.
fn rank_zero_with_secret(world: usize) -> RankZero {
    Job::new(0, world, 0, LOOPBACK, 0)
        .unwrap()
        .with_secret(SECRET)
        .unwrap()
        .listen()
        .unwrap()
}

fn job_with_secret(rank: usize, world: usize, port: u16, secret: &str) -> Job {
    job(rank, world, port).with_secret(secret).unwrap()
}

#[test]
fn an_absurd_world_size_is_refused_without_a_panic() {
    let over = i32::MAX as usize + 1;
    for world in [usize::MAX, over, 0] {
        let e = Job::new(0, world, 0, LOOPBACK, 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LaunchEnvironment, "{e}");
        assert!(
            e.detail().contains(&format!("a world size of {world}")),
            "{e}"
        );
        let value = world.to_string();
        let mut vars = TORCHRUN.to_vec();
        vars.retain(|(k, _)| !matches!(*k, "WORLD_SIZE" | "RANK" | "LOCAL_RANK"));
        vars.extend([("RANK", "0"), ("WORLD_SIZE", value.as_str())]);
        env_err(&vars, &[&format!("WORLD_SIZE=`{world}`")]);
    }
    // NCCL's largest, i32::MAX, is a world size; a rank must be below it.
    assert_eq!(MAX_WORLD_SIZE, i32::MAX as usize);
    assert!(Job::new(MAX_WORLD_SIZE - 1, MAX_WORLD_SIZE, 0, LOOPBACK, 1).is_ok());
    let e = Job::new(MAX_WORLD_SIZE, MAX_WORLD_SIZE, 0, LOOPBACK, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LaunchEnvironment, "{e}");
}

#[test]
fn a_world_of_i32_max_ranks_is_counted_not_allocated_per_rank() {
    // Rank 0 keeps nothing per rank of the world, only per connection: a world of i32::MAX
    // with one rank present times out at once, naming a few missing ranks and counting the
    // rest (a slot per rank would be 2^31 of them).
    let world = MAX_WORLD_SIZE;
    let zero = Job::new(0, world, 0, LOOPBACK, 0)
        .unwrap()
        .listen()
        .unwrap();
    let port = zero.local_addr().port();
    let t = Duration::from_millis(500);
    let ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> = vec![
        Box::new(move || zero.share(b"", t, || Ok(id()))),
        Box::new(move || job(1, world, port).share(b"", t, || unreachable!())),
    ];
    let needle = format!(
        "ranks 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 and {} more of {world} did not arrive",
        world - 18
    );
    for r in &run_all(ranks, t) {
        expect_err(r, ErrorKind::Timeout, &[&needle]);
    }
}

/// Opens `n` connections to rank 0 that never say anything, kept open by the caller.
fn silent_connections(port: u16, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| TcpStream::connect((LOOPBACK, port)).unwrap())
        .collect()
}

#[test]
fn silent_and_garbage_connections_do_not_hold_up_a_short_rendezvous() {
    // A port scanner opens connections first and sends nothing (or not a hello); rank 0 must
    // not wait for them one after another: with a 1 s timeout, the real ranks still finish.
    let zero = rank_zero(3);
    let port = zero.local_addr().port();
    let mut strangers = silent_connections(port, 8);
    let mut garbage = TcpStream::connect((LOOPBACK, port)).unwrap();
    garbage.write_all(b"\x16\x03\x01\x02\x00\x01").unwrap(); // a TLS client hello's start
    let mut half = TcpStream::connect((LOOPBACK, port)).unwrap();
    half.write_all(b"CUSTK").unwrap(); // the magic's beginning, then nothing
    strangers.extend([garbage, half]);
    let t = Duration::from_secs(1);
    let results = rendezvous(zero, b"", vec![(1, 3, &b""[..]), (2, 3, &b""[..])], t);
    for r in results {
        assert_eq!(r.unwrap(), id());
    }
    drop(strangers);
}

#[test]
fn hellos_without_the_secret_or_with_a_wrong_one_are_refused_and_do_not_count() {
    let zero = rank_zero_with_secret(3);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    // The strangers come first and claim the real ranks' numbers; the real ranks come later.
    let late = Duration::from_millis(300);
    let ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> = vec![
        Box::new(move || zero.share(b"v1", t, || Ok(id()))),
        Box::new(move || job(1, 3, port).share(b"v1", t, || unreachable!())),
        Box::new(move || {
            // The right length, the last byte wrong.
            job_with_secret(2, 3, port, "a per-job random strinG").share(
                b"v1",
                t,
                || unreachable!(),
            )
        }),
        Box::new(move || {
            thread::sleep(late);
            job_with_secret(1, 3, port, SECRET).share(b"v1", t, || unreachable!())
        }),
        Box::new(move || {
            thread::sleep(late);
            job_with_secret(2, 3, port, SECRET).share(b"v1", t, || unreachable!())
        }),
    ];
    let results = run_all(ranks, t);
    assert_eq!(results[0].as_ref().unwrap(), &id());
    for r in &results[1..3] {
        let e = expect_err(r, ErrorKind::Failed, &["does not present the job's secret"]);
        assert!(!e.to_string().contains(SECRET), "{e}");
    }
    for r in &results[3..] {
        assert_eq!(r.as_ref().unwrap(), &id());
    }
}

#[test]
fn an_impostor_of_a_real_rank_gets_no_bytes_and_the_real_rank_succeeds() {
    let zero = rank_zero_with_secret(2);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    // Without the secret the impostor would complete the world as rank 1 and take the bytes.
    let ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> = vec![
        Box::new(move || zero.share(b"", t, || Ok(id()))),
        Box::new(move || job(1, 2, port).share(b"", t, || unreachable!())),
        Box::new(move || {
            thread::sleep(Duration::from_millis(300));
            job_with_secret(1, 2, port, SECRET).share(b"", t, || unreachable!())
        }),
    ];
    let results = run_all(ranks, t);
    expect_err(
        &results[1],
        ErrorKind::Failed,
        &["refused the hello of rank 1"],
    );
    assert_eq!(results[0].as_ref().unwrap(), &id());
    assert_eq!(results[2].as_ref().unwrap(), &id());
}

#[test]
fn a_secret_that_rank_zero_lacks_is_a_mismatch() {
    let zero = rank_zero(2);
    let port = zero.local_addr().port();
    let t = Duration::from_secs(3);
    let ranks: Vec<Box<dyn FnOnce() -> Result<Vec<u8>> + Send>> = vec![
        Box::new(move || zero.share(b"", t, || Ok(id()))),
        Box::new(move || job_with_secret(1, 2, port, SECRET).share(b"", t, || unreachable!())),
    ];
    for r in &run_all(ranks, t) {
        let e = expect_err(
            r,
            ErrorKind::Mismatch,
            &["rank 1 presents a secret, rank 0 has none"],
        );
        assert!(!e.to_string().contains(SECRET), "{e}");
    }
}

#[test]
fn the_secret_comes_from_the_environment_and_is_never_shown() {
    let mut vars = TORCHRUN.to_vec();
    assert!(!Job::from_env_with(env(&vars)).unwrap().has_secret());
    vars.push(("CUSTACK_RENDEZVOUS_SECRET", SECRET));
    let job = Job::from_env_with(env(&vars)).unwrap();
    assert!(job.has_secret());
    assert_eq!(
        job,
        Job::new(5, 8, 1, "node-0", 29500)
            .unwrap()
            .with_secret(SECRET)
            .unwrap()
    );
    assert_ne!(job, Job::new(5, 8, 1, "node-0", 29500).unwrap());
    let shown = format!("{job:?}");
    assert!(
        shown.contains("<hidden>") && !shown.contains(SECRET),
        "{shown}"
    );
    vars.pop();
    vars.push(("CUSTACK_RENDEZVOUS_SECRET", ""));
    env_err(&vars, &["CUSTACK_RENDEZVOUS_SECRET", "an empty secret"]);
    let long = "x".repeat(1025);
    vars.pop();
    vars.push(("CUSTACK_RENDEZVOUS_SECRET", &long));
    env_err(&vars, &["CUSTACK_RENDEZVOUS_SECRET", "1025 bytes"]);
}
