//! The rendezvous' cost: `Job::share` of a 128-byte payload (an NCCL unique id) among 2, 4, 8
//! and 16 ranks on loopback, one thread per rank, against the least a rendezvous can do in the
//! same run (rank 0 accepts every other rank's connection and writes the 128 bytes to each, no
//! hello and no checks, plain `std::net`). No GPU.
//!
//! ```text
//! cargo bench -p custack-rendezvous --bench rendezvous
//! ```
//!
//! Each repetition starts every rank's thread and times from before the first starts until the
//! last has its bytes; the two kinds alternate; 30 repetitions each, medians, spread =
//! (p90 − p10) ÷ 2 of the median.

use custack_rendezvous::Job;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

const PAYLOAD: [u8; 128] = [7; 128];
const TIMEOUT: Duration = Duration::from_secs(20);

/// One custack rendezvous among `world` threads; its wall time.
fn custack(world: usize) -> Duration {
    let zero = Job::new(0, world, 0, "127.0.0.1", 0)
        .unwrap()
        .listen()
        .unwrap();
    let port = zero.local_addr().port();
    let start = Instant::now();
    std::thread::scope(|s| {
        for rank in 1..world {
            s.spawn(move || {
                let job = Job::new(rank, world, rank, "127.0.0.1", port).unwrap();
                let got = job.share(b"bench", TIMEOUT, || unreachable!()).unwrap();
                assert_eq!(got, PAYLOAD);
            });
        }
        let got = zero
            .share(b"bench", TIMEOUT, || Ok(PAYLOAD.to_vec()))
            .unwrap();
        assert_eq!(got, PAYLOAD);
    });
    start.elapsed()
}

/// The bare exchange: accept `world − 1` connections, write the payload to each.
fn bare(world: usize) -> Duration {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 1..world {
            s.spawn(move || {
                let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
                let mut got = [0u8; 128];
                stream.read_exact(&mut got).unwrap();
                assert_eq!(got, PAYLOAD);
            });
        }
        let mut peers = Vec::with_capacity(world - 1);
        for _ in 1..world {
            peers.push(listener.accept().unwrap().0);
        }
        for mut p in peers {
            p.write_all(&PAYLOAD).unwrap();
        }
    });
    start.elapsed()
}

/// The median and the spread, (p90 − p10) ÷ 2 of the median, in percent.
fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |percent: usize| v[(v.len() - 1) * percent / 100];
    let median = at(50);
    (median, (at(90) - at(10)) / 2.0 / median * 100.0)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "rendezvous/benches/rendezvous: run with `cargo bench -p custack-rendezvous --bench rendezvous`"
        );
        return;
    }
    let reps = 30;
    println!(
        "| ranks | bare TCP | custack `Job::share` | custack/bare | spread (bare · custack) |"
    );
    println!("| ---: | ---: | ---: | ---: | --- |");
    for world in [2, 4, 8, 16] {
        let (mut t_bare, mut t_custack) = (Vec::new(), Vec::new());
        custack(world); // warm-up
        bare(world);
        for _ in 0..reps {
            t_custack.push(custack(world).as_secs_f64() * 1e3);
            t_bare.push(bare(world).as_secs_f64() * 1e3);
        }
        let ((b, sb), (c, sc)) = (stats(t_bare), stats(t_custack));
        println!(
            "| {world} | {b:.3} ms | {c:.3} ms | {:.2} | ±{sb:.1}% · ±{sc:.1}% |",
            c / b
        );
    }
}
