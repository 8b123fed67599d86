//! `custack::nccl` on a device: every collective and point-to-point call of a one-rank clique on
//! custack memory, checked on the host; refused counts enqueue nothing and leave the
//! communicator usable; a context that is not the primary one is refused; a rank that never arrives, or dies after the rendezvous, makes rank
//! 0's initialization fail within its timeout (R16); and, with two GPUs, one process per GPU
//! all-reducing, then one of them killed and the other's wait returning an error. The positive
//! twins of `ui-tests/nccl/`.
#![cfg(feature = "nccl")]
#![allow(
    clippy::cast_precision_loss,
    clippy::float_cmp,
    reason = "small integers, exact in f32: the sums are compared exactly"
)]

mod common;
use common::{device, skipped};
use custack::nccl::{self, ParkedPart, ReduceOp, UniqueId};
use custack::prelude::*;
use custack::rendezvous::Job;
use custack::{Context, ContextFlags, Driver, ErrorKind, Stack, StackTop, take_drop_errors};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);

/// custack holds a device's primary context in one `Context` at a time, and the tests run in
/// parallel: each test that makes one holds this lock.
static PRIMARY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// This test's turn at the primary context (a test that panicked while holding it does not
/// stop the others).
fn primary_turn() -> std::sync::MutexGuard<'static, ()> {
    PRIMARY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `f` on a thread of its own and fails the test if it has not returned within `limit`
/// (a hang would otherwise hang the whole test binary).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("did not return within {limit:?}: hung"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("its thread panicked (above)"),
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn one_rank_collectives_on_custack_memory() {
    let _turn = primary_turn();
    let ctx = Context::primary(device()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let comm = guard
        .nccl_comm(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT)
        .unwrap();
    assert_eq!((comm.rank(), comm.nranks()), (0, 1));
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let dx = guard.alloc_from(&x).unwrap();
    let mut out = guard.alloc_zeroed::<f32>(n).unwrap();
    let mut inplace = guard.alloc_from(&x).unwrap();
    let mut gathered = guard.alloc_zeroed::<f32>(n).unwrap();
    let mut scattered = guard.alloc_zeroed::<f32>(n).unwrap();
    let mut reduced = guard.alloc_zeroed::<f32>(n).unwrap();
    let ints = guard.alloc_from(&[7u64; 64]).unwrap();
    let mut received = guard.alloc_zeroed::<u64>(64).unwrap();
    stream
        .scope(|s| -> custack::Result<()> {
            let (dx, mut out, mut inplace) =
                (s.bind(&dx), s.bind_mut(&mut out), s.bind_mut(&mut inplace));
            comm.all_reduce(s, dx, &mut out, n, ReduceOp::Sum)?;
            comm.all_reduce_in_place(s, &mut inplace, n, ReduceOp::Max)?;
            comm.broadcast(s, &mut inplace, n, 0)?;
            comm.reduce(s, dx, s.bind_mut(&mut reduced), n, ReduceOp::Min, 0)?;
            comm.all_gather(s, dx, s.bind_mut(&mut gathered), n)?;
            comm.reduce_scatter(s, dx, s.bind_mut(&mut scattered), n, ReduceOp::Prod)?;
            // A send to oneself and its receive: one group, `send_recv`.
            comm.send_recv(s, s.bind(&ints), 0, s.bind_mut(&mut received), 0, 64)?;
            comm.wait(s)
        })
        .unwrap()
        .unwrap();
    for buf in [&out, &inplace, &gathered, &scattered, &reduced] {
        assert_eq!(buf.to_vec().unwrap(), x);
    }
    assert_eq!(received.to_vec().unwrap(), [7u64; 64]);
    drop(comm);
    assert!(take_drop_errors().is_empty());
}

/// A batch issues its recorded calls as one group: every call lands; a call it refuses leaves
/// the others recorded; a batch dropped without `issue` enqueues nothing; an empty one issues
/// nothing. (One rank: every collective is a copy, so each result names the call that made it.)
#[test]
#[ignore = "needs a CUDA device"]
fn a_batch_is_one_group_and_every_call_lands() {
    let _turn = primary_turn();
    let ctx = Context::primary(device()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let comm = guard
        .nccl_comm(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT)
        .unwrap();
    let n = 4096;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let dx = guard.alloc_from(&x).unwrap();
    let mut outs: Vec<_> = (0..20)
        .map(|_| guard.alloc_zeroed::<f32>(n).unwrap())
        .collect();
    let mut gathered = guard.alloc_zeroed::<f32>(n).unwrap();
    let mut untouched = guard.alloc_zeroed::<f32>(n).unwrap();
    let mut from_tmp = guard.alloc_zeroed::<f32>(n).unwrap();
    stream
        .scope(|s| -> custack::Result<()> {
            let dx = s.bind(&dx);
            // Dropped without `issue`: nothing reaches NCCL.
            let mut dropped = comm.batch(s);
            dropped.all_reduce(dx, s.bind_mut(&mut untouched), n, ReduceOp::Sum)?;
            assert_eq!(dropped.len(), 1);
            drop(dropped);
            assert!(comm.batch(s).is_empty());
            comm.batch(s).issue()?; // empty: nothing issued
            let mut tmp = s.alloc::<f32>(n)?;
            let mut bound: Vec<_> = outs.iter_mut().map(|o| s.bind_mut(o)).collect();
            let mut batch = comm.batch(s);
            for o in &mut bound {
                batch.all_reduce(dx, o, n, ReduceOp::Sum)?;
            }
            // Refused before anything is recorded: the batch keeps its 20 calls.
            let e = batch
                .all_gather(dx, s.bind_mut(&mut gathered), n + 1)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort, "{e}");
            assert_eq!(batch.len(), 20);
            batch.all_reduce(dx, &mut tmp, n, ReduceOp::Max)?;
            batch.issue()?;
            // After the batch: `tmp` holds what its call wrote, in stream order.
            s.copy_device(s.bind_mut(&mut from_tmp), &tmp)?;
            comm.wait(s)
        })
        .unwrap()
        .unwrap();
    for o in &outs {
        assert_eq!(o.to_vec().unwrap(), x);
    }
    assert_eq!(from_tmp.to_vec().unwrap(), x);
    assert_eq!(untouched.to_vec().unwrap(), vec![0.0; n]);
    assert_eq!(gathered.to_vec().unwrap(), vec![0.0; n]);
    drop(comm);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn refused_counts_enqueue_nothing_and_the_communicator_stays_usable() {
    let _turn = primary_turn();
    let ctx = Context::primary(device()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let stream = guard.stream().unwrap();
    let comm = guard
        .nccl_comm(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT)
        .unwrap();
    let x = guard.alloc_from(&[1i32; 16]).unwrap();
    let mut y = guard.alloc_from(&[-1i32; 15]).unwrap();
    stream
        .scope(|s| -> custack::Result<()> {
            let (xs, mut ys) = (s.bind(&x), s.bind_mut(&mut y));
            let e = comm
                .all_reduce(s, xs, &mut ys, 16, ReduceOp::Sum)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert_eq!(
                e.detail(),
                Some(
                    "ncclAllReduce: recvbuff holds 15 elements, fewer than count 16; nothing \
                     was enqueued"
                )
            );
            let e = comm.broadcast(s, &mut ys, 15, 1).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue);
            let e = comm.send(s, xs, 1, 1).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidValue);
            // send_recv checks both halves before its group opens.
            let e = comm.send_recv(s, xs, 0, &mut ys, 0, 16).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::BufferTooShort);
            assert!(
                e.detail()
                    .unwrap()
                    .starts_with("ncclRecv: recvbuff holds 15"),
                "{e}"
            );
            assert_eq!(
                comm.send_recv(s, xs, 0, &mut ys, 1, 1).unwrap_err().kind(),
                ErrorKind::InvalidValue
            );
            comm.all_reduce(s, xs, &mut ys, 15, ReduceOp::Sum)?;
            comm.wait(s)
        })
        .unwrap()
        .unwrap();
    assert_eq!(y.to_vec().unwrap(), [1; 15]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_communicator_is_made_again_after_the_inner_guard_pops() {
    let _turn = primary_turn();
    let a = Context::primary(device()).unwrap();
    let b = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = stack.push(&a).unwrap();
    {
        let comm = guard
            .nccl_comm(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT)
            .unwrap();
        assert_eq!(comm.nranks(), 1);
    } // dropped before pushing: the push needs the guard exclusively
    guard
        .with_pushed(&b, |inner| inner.alloc_zeroed::<u8>(1).map(drop))
        .unwrap()
        .unwrap();
    // The guard is the top again: a communicator of its context works.
    let comm = guard
        .nccl_comm(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT)
        .unwrap();
    let mut x = guard.alloc_from(&[2.0f64; 32]).unwrap();
    guard
        .stream()
        .unwrap()
        .scope(|s| {
            comm.all_reduce_in_place(s, s.bind_mut(&mut x), 32, ReduceOp::Sum)?;
            comm.wait(s)
        })
        .unwrap()
        .unwrap();
    assert_eq!(x.to_vec().unwrap(), [2.0; 32]);
    comm.destroy().unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_parked_communicator_is_used_again_under_a_nested_push() {
    let _turn = primary_turn();
    let a = Context::primary(device()).unwrap();
    let b = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let mut guard = stack.push(&b).unwrap();
    // Made under `a`, parked: it outlives the push of `a` and comes back under another push.
    let parked = guard
        .with_pushed(&a, |ga| -> custack::Result<_> {
            let comm = ga.nccl_comm(&nccl::unique_id()?, 0, 1, TIMEOUT)?;
            Ok(ga.park_comm(comm))
        })
        .unwrap()
        .unwrap();
    assert_eq!((parked.rank(), parked.nranks()), (0, 1));
    // Attached to a guard of another context: refused, and dropped (finalized) with its own
    // context pushed.
    let e = guard.attach_comm(parked).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ContextMismatch);
    let parked = guard
        .with_pushed(&a, |ga| -> custack::Result<_> {
            let comm = ga.nccl_comm(&nccl::unique_id()?, 0, 1, TIMEOUT)?;
            Ok(ga.park_comm(comm))
        })
        .unwrap()
        .unwrap();
    let sum = guard
        .with_pushed(&a, |ga| -> custack::Result<Vec<f32>> {
            let comm = ga.attach_comm(parked)?;
            let mut x = ga.alloc_from(&[1.5f32; 64])?;
            ga.stream()?.scope(|s| {
                comm.all_reduce_in_place(s, s.bind_mut(&mut x), 64, ReduceOp::Sum)?;
                comm.wait(s)
            })??;
            x.to_vec()
        })
        .unwrap()
        .unwrap();
    assert_eq!(sum, [1.5; 64]);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn one_thread_makes_the_communicators_and_all_reduces_over_parked_parts() {
    let _turn = primary_turn();
    let ctx = Context::primary(device()).unwrap();
    let other = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let comms = nccl::comms(&mut stack, &[&ctx], TIMEOUT).unwrap();
    assert_eq!(comms.len(), 1);
    let (stream, send, mut recv, mut short) = stack
        .with_pushed(&ctx, |g| -> custack::Result<_> {
            Ok((
                g.park_stream(g.stream()?),
                g.park(g.alloc_from(&[4u64; 100])?),
                g.park(g.alloc_zeroed::<u64>(100)?),
                g.park(g.alloc_zeroed::<u64>(99)?),
            ))
        })
        .unwrap()
        .unwrap();
    let mut foreign = stack
        .with_pushed(&other, |g| g.alloc_zeroed::<u64>(100).map(|b| g.park(b)))
        .unwrap()
        .unwrap();
    // Refused before anything is enqueued: a short buffer, a buffer of another context.
    let e = nccl::all_reduce_parked(
        &mut [ParkedPart {
            comm: &comms[0],
            stream: &stream,
            send: &send,
            recv: &mut short,
        }],
        100,
        ReduceOp::Sum,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferTooShort);
    let e = nccl::all_reduce_parked(
        &mut [ParkedPart {
            comm: &comms[0],
            stream: &stream,
            send: &send,
            recv: &mut foreign,
        }],
        100,
        ReduceOp::Sum,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ContextMismatch);
    nccl::all_reduce_parked(
        &mut [ParkedPart {
            comm: &comms[0],
            stream: &stream,
            send: &send,
            recv: &mut recv,
        }],
        100,
        ReduceOp::Max,
    )
    .unwrap();
    let got = stack
        .with_pushed(&ctx, |g| g.attach(recv).and_then(|r| r.to_vec()))
        .unwrap()
        .unwrap();
    assert_eq!(got, [4u64; 100]);
    // A context that is not primary is refused before NCCL.
    let e = nccl::comms(&mut stack, &[&other], TIMEOUT).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidContext);
    drop((stream, send, short, foreign, comms));
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_created_context_is_refused_before_nccl() {
    let _turn = primary_turn();
    let ctx = Context::new(device(), ContextFlags::empty()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let e = guard
        .nccl_comm(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidContext, "{e}");
    assert!(e.to_string().contains("primary context"), "{e}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_rank_that_never_arrives_makes_init_time_out() {
    let _turn = primary_turn();
    let timeout = Duration::from_secs(3);
    let (e, took) = within(Duration::from_secs(60), move || {
        let ctx = Context::primary(device()).unwrap();
        let mut stack = Stack::new().unwrap();
        let guard = stack.push(&ctx).unwrap();
        let started = Instant::now();
        // Rank 0 of two; rank 1 never calls.
        let e = guard
            .nccl_comm(&nccl::unique_id().unwrap(), 0, 2, timeout)
            .unwrap_err();
        (e, started.elapsed())
    });
    assert_eq!(e.kind(), ErrorKind::DeadlinePassed, "{e}");
    assert!(e.detail().unwrap().contains("rank 0 of 2"), "{e}");
    assert!(took >= timeout, "returned before its timeout: {took:?}");
    assert!(take_drop_errors().is_empty());
}

const DIE_ENV: &str = "CUSTACK_NCCL_TEST_DIE";

/// Rank 1 of a job whose rank 0 is the parent test: it takes part in the rendezvous, then dies
/// before it makes its communicator.
#[test]
#[ignore = "needs a CUDA device"]
fn a_rank_that_dies_after_the_rendezvous_makes_init_time_out() {
    if let Ok(port) = std::env::var(DIE_ENV) {
        let job = Job::new(1, 2, 0, "127.0.0.1", port.parse().unwrap()).unwrap();
        let tag = nccl::version().unwrap().to_string();
        let id = job
            .share(tag.as_bytes(), TIMEOUT, || unreachable!())
            .unwrap();
        UniqueId::from_slice(&id).unwrap();
        std::process::exit(0); // dies without a communicator
    }
    let _turn = primary_turn();
    let port = free_port();
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "a_rank_that_dies_after_the_rendezvous_makes_init_time_out",
            "--include-ignored",
            "--nocapture",
        ])
        .env(DIE_ENV, port.to_string())
        .spawn()
        .unwrap();
    let timeout = Duration::from_secs(3);
    let e = within(Duration::from_secs(60), move || {
        let job = Job::new(0, 2, 0, "127.0.0.1", port).unwrap();
        let tag = nccl::version().unwrap().to_string();
        let id = job
            .share(tag.as_bytes(), TIMEOUT, || {
                Ok(nccl::unique_id()?.to_bytes().to_vec())
            })
            .unwrap();
        let ctx = Context::primary(device()).unwrap();
        let mut stack = Stack::new().unwrap();
        let guard = stack.push(&ctx).unwrap();
        guard
            .nccl_comm(&UniqueId::from_slice(&id).unwrap(), 0, 2, timeout)
            .unwrap_err()
    });
    assert!(child.wait().unwrap().success());
    assert_eq!(e.kind(), ErrorKind::DeadlinePassed, "{e}");
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

const RANK_ENV: &str = "CUSTACK_NCCL_TEST_RANK";

/// One process per GPU, as a launcher starts them: each all-reduces its rank's values and
/// checks the sum; then rank 1 is killed before the second all-reduce, and rank 0's bounded
/// wait returns an error instead of hanging. Needs two GPUs; says SKIPPED on one.
/// The ranks' communicator timeout in `two_gpus_one_process_each_then_one_killed`: 5 s, or
/// `CUSTACK_NCCL_KILL_TIMEOUT_S` seconds (under compute-sanitizer NCCL's init alone takes
/// longer than 5 s).
fn kill_test_timeout() -> Duration {
    let secs = std::env::var("CUSTACK_NCCL_KILL_TIMEOUT_S")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    Duration::from_secs(secs)
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_gpus_one_process_each_then_one_killed() {
    let n = 1 << 20;
    if let Ok(spec) = std::env::var(RANK_ENV) {
        // A rank: "RANK PORT".
        let mut it = spec.split(' ');
        let rank: usize = it.next().unwrap().parse().unwrap();
        let port: u16 = it.next().unwrap().parse().unwrap();
        let job = Job::new(rank, 2, rank, "127.0.0.1", port).unwrap();
        let tag = nccl::version().unwrap().to_string();
        let id = job
            .share(tag.as_bytes(), TIMEOUT, || {
                Ok(nccl::unique_id()?.to_bytes().to_vec())
            })
            .unwrap();
        let ctx = Context::primary(Driver::init().unwrap().device(rank).unwrap()).unwrap();
        let mut stack = Stack::new().unwrap();
        let guard = stack.push(&ctx).unwrap();
        let comm = guard
            .nccl_comm(
                &UniqueId::from_slice(&id).unwrap(),
                rank,
                2,
                kill_test_timeout(),
            )
            .unwrap();
        let mut x = guard.alloc_from(&vec![(rank + 1) as f32; n]).unwrap();
        let stream = guard.stream().unwrap();
        stream
            .scope(|s| {
                comm.all_reduce_in_place(s, s.bind_mut(&mut x), n, ReduceOp::Sum)?;
                comm.wait(s)
            })
            .unwrap()
            .unwrap();
        assert!(x.to_vec().unwrap().iter().all(|&v| v == 3.0));
        if rank == 1 {
            std::process::exit(0); // killed: never joins the second all-reduce
        }
        let e = stream
            .scope(|s| {
                comm.all_reduce_in_place(s, s.bind_mut(&mut x), n, ReduceOp::Sum)?;
                comm.wait(s)
            })
            .unwrap()
            .unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::DeadlinePassed | ErrorKind::NcclRemoteError | ErrorKind::NcclSystemError
            ),
            "{e}"
        );
        println!("rank 0: the second all-reduce returned: {e}");
        return;
    }
    let gpus = Driver::init().unwrap().device_count().unwrap();
    if gpus < 2 {
        skipped(&format!(
            "two_gpus_one_process_each_then_one_killed: SKIPPED: needs two CUDA devices, this \
             machine has {gpus}"
        ));
        return;
    }
    let port = free_port();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|rank| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "two_gpus_one_process_each_then_one_killed",
                    "--include-ignored",
                    "--nocapture",
                ])
                .env(RANK_ENV, format!("{rank} {port}"))
                .spawn()
                .unwrap()
        })
        .collect();
    let limit = Instant::now() + Duration::from_secs(180) + 4 * kill_test_timeout();
    for mut child in children {
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "a rank failed: {status}");
                break;
            }
            assert!(Instant::now() < limit, "a rank hung");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

// ---- The cap on un-waited calls, and the opt-in blocking mode (R16) ----------------------------

/// 200 all-reduces, each on buffers of its own, in one scope without a wait: every call lands
/// (checked on the host), and the communicator never has more than its cap un-waited: it
/// waits for the stream itself before the call that would pass it. A batch of more calls than
/// the cap is refused, nothing enqueued.
fn two_hundred_calls_in_one_scope(guard: &custack::PushedGuard<'_, '_>, comm: &nccl::Comm<'_>) {
    let (r, n) = (comm.rank(), comm.nranks());
    let count = 256;
    let calls = 200;
    let sends: Vec<_> = (0..calls)
        .map(|i| guard.alloc_from(&vec![(i * (r + 1)) as f32; count]))
        .collect::<custack::Result<_>>()
        .unwrap();
    let mut recvs: Vec<_> = (0..calls)
        .map(|_| guard.alloc_zeroed::<f32>(count))
        .collect::<custack::Result<_>>()
        .unwrap();
    let mut extra: Vec<_> = (0..=comm.unwaited_cap())
        .map(|_| guard.alloc_zeroed::<f32>(count))
        .collect::<custack::Result<_>>()
        .unwrap();
    let stream = guard.stream().unwrap();
    let mut most = 0;
    stream
        .scope(|s| -> custack::Result<()> {
            for (x, y) in sends.iter().zip(recvs.iter_mut()) {
                comm.all_reduce(s, s.bind(x), s.bind_mut(y), count, ReduceOp::Sum)?;
                most = most.max(comm.unwaited());
            }
            // A batch larger than the cap: refused before anything is enqueued.
            let before = comm.unwaited();
            let mut batch = comm.batch(s);
            for e in &mut extra {
                batch.all_reduce_in_place(s.bind_mut(e), count, ReduceOp::Sum)?;
            }
            let refused = batch.issue().unwrap_err();
            assert_eq!(refused.kind(), ErrorKind::InvalidValue, "{refused}");
            assert_eq!(comm.unwaited(), before);
            comm.wait(s)?;
            assert_eq!(comm.unwaited(), 0);
            Ok(())
        })
        .unwrap()
        .unwrap();
    assert_eq!(
        most,
        comm.unwaited_cap(),
        "the un-waited calls went past the cap or never reached it"
    );
    // Rank i contributes value × (i + 1): the sum over n ranks is value × n(n+1)/2.
    let ranks = (n * (n + 1) / 2) as f32;
    for (i, y) in recvs.iter().enumerate() {
        assert!(
            y.to_vec().unwrap().iter().all(|&v| v == i as f32 * ranks),
            "call {i} did not land"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_hundred_calls_in_one_scope_land_and_never_pass_the_cap() {
    let _turn = primary_turn();
    let ctx = Context::primary(device()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    for cap in [64, 7] {
        let options = nccl::CommOptions::new().unwaited_cap(cap).unwrap();
        let comm = guard
            .nccl_comm_with(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT, options)
            .unwrap();
        assert_eq!(
            (comm.calls(), comm.unwaited_cap()),
            (nccl::NcclCalls::Settled, cap)
        );
        two_hundred_calls_in_one_scope(&guard, &comm);
        comm.destroy().unwrap();
    }
    assert!(take_drop_errors().is_empty());
}

/// Without `NCCL_RUNTIME_CONNECT=0` in the environment the blocking mode is refused before
/// NCCL is called, naming the variable; the default mode is not.
#[test]
#[ignore = "needs a CUDA device"]
fn the_blocking_mode_is_refused_without_runtime_connect() {
    if std::env::var_os("NCCL_RUNTIME_CONNECT").as_deref() == Some(std::ffi::OsStr::new("0")) {
        skipped(
            "the_blocking_mode_is_refused_without_runtime_connect: SKIPPED: NCCL_RUNTIME_CONNECT=0 is set",
        );
        return;
    }
    let _turn = primary_turn();
    let ctx = Context::primary(device()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let blocking = nccl::CommOptions::new().calls(nccl::NcclCalls::Blocking);
    let e = guard
        .nccl_comm_with(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT, blocking)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
    assert!(
        e.detail().unwrap().contains("NCCL_RUNTIME_CONNECT=0"),
        "{e}"
    );
}

const BLOCKING_ENV: &str = "CUSTACK_NCCL_TEST_BLOCKING";

/// The blocking mode on one GPU, in a child process started with `NCCL_RUNTIME_CONNECT=0`: a
/// one-rank clique split into its blocking child, 200 calls that land and never pass the cap,
/// then destroyed (child and parent) with nothing recorded.
#[test]
#[ignore = "needs a CUDA device"]
fn a_blocking_communicator_splits_calls_and_is_destroyed() {
    if std::env::var_os(BLOCKING_ENV).is_some() {
        let ctx = Context::primary(device()).unwrap();
        let mut stack = Stack::new().unwrap();
        let guard = stack.push(&ctx).unwrap();
        let blocking = nccl::CommOptions::new().calls(nccl::NcclCalls::Blocking);
        let comm = guard
            .nccl_comm_with(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT, blocking)
            .unwrap();
        assert_eq!(comm.calls(), nccl::NcclCalls::Blocking);
        assert!(!comm.as_raw().is_null());
        two_hundred_calls_in_one_scope(&guard, &comm);
        comm.destroy().unwrap();
        // One call left un-waited (the scope's own end waits for it): destroyed by an abort,
        // since the blocking child's finalize would wait without a bound.
        let comm = guard
            .nccl_comm_with(&nccl::unique_id().unwrap(), 0, 1, TIMEOUT, blocking)
            .unwrap();
        let mut x = guard.alloc_from(&[1.0f32; 256]).unwrap();
        guard
            .stream()
            .unwrap()
            .scope(|s| comm.all_reduce_in_place(s, s.bind_mut(&mut x), 256, ReduceOp::Sum))
            .unwrap()
            .unwrap();
        assert_eq!(comm.unwaited(), 1);
        comm.destroy().unwrap();
        assert_eq!(x.to_vec().unwrap(), [1.0f32; 256]);
        assert!(take_drop_errors().is_empty());
        return;
    }
    device(); // fails here without a device
    let status = within(Duration::from_secs(180), || {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_blocking_communicator_splits_calls_and_is_destroyed",
                "--include-ignored",
                "--nocapture",
            ])
            .env(BLOCKING_ENV, "1")
            .env("NCCL_RUNTIME_CONNECT", "0")
            .status()
            .unwrap()
    });
    assert!(status.success(), "the blocking rank failed: {status}");
}

const KILL_ENV: &str = "CUSTACK_NCCL_TEST_KILL";

/// The rank that `killed_rank_after_unwaited_calls` kills, of `ranks`: rank 1 of two, rank 2
/// of four (a rank in the middle of the ring, with live neighbours on both sides).
fn victim(ranks: usize) -> usize {
    if ranks > 2 { 2 } else { 1 }
}

/// A rank of `killed_rank_after_unwaited_calls`: `spec` is "RANK RANKS PORT".
fn kill_test_rank(spec: &str, calls: nccl::NcclCalls) {
    let n = 1 << 20;
    let mut it = spec.split(' ');
    let rank: usize = it.next().unwrap().parse().unwrap();
    let ranks: usize = it.next().unwrap().parse().unwrap();
    let port: u16 = it.next().unwrap().parse().unwrap();
    let job = Job::new(rank, ranks, rank, "127.0.0.1", port).unwrap();
    let tag = nccl::version().unwrap().to_string();
    let id = job
        .share(tag.as_bytes(), TIMEOUT, || {
            Ok(nccl::unique_id()?.to_bytes().to_vec())
        })
        .unwrap();
    let ctx = Context::primary(Driver::init().unwrap().device(rank).unwrap()).unwrap();
    let mut stack = Stack::new().unwrap();
    let guard = stack.push(&ctx).unwrap();
    let timeout = kill_test_timeout();
    let options = nccl::CommOptions::new().calls(calls);
    let comm = guard
        .nccl_comm_with(
            &UniqueId::from_slice(&id).unwrap(),
            rank,
            ranks,
            timeout,
            options,
        )
        .unwrap();
    assert_eq!(comm.calls(), calls);
    let mut x = guard.alloc_from(&vec![(rank + 1) as f32; n]).unwrap();
    let stream = guard.stream().unwrap();
    stream
        .scope(|s| {
            comm.all_reduce_in_place(s, s.bind_mut(&mut x), n, ReduceOp::Sum)?;
            comm.wait(s)
        })
        .unwrap()
        .unwrap();
    // Ranks 0..n contribute 1..=n.
    let sum = (ranks * (ranks + 1) / 2) as f32;
    assert!(
        x.to_vec().unwrap().iter().all(|&v| v == sum),
        "rank {rank}: wrong sum"
    );
    two_hundred_calls_in_one_scope(&guard, &comm);
    // Every rank is past the last wait: the victim dies now, as a launcher's rank dies.
    if rank == victim(ranks) {
        // SAFETY: sends SIGKILL to this process; nothing runs after it.
        unsafe { libc::raise(libc::SIGKILL) };
        unreachable!("SIGKILL returned");
    }
    let started = Instant::now();
    let mut issued = 0;
    let e = stream
        .scope(|s| {
            let mut b = s.bind_mut(&mut x);
            for _ in 0..4000 {
                comm.all_reduce_in_place(s, &mut b, n, ReduceOp::Sum)?;
                issued += 1;
                assert!(comm.unwaited() <= comm.unwaited_cap());
            }
            comm.wait(s)
        })
        .unwrap()
        .unwrap_err();
    let took = started.elapsed();
    println!("rank {rank} of {ranks} ({calls:?}): {issued} calls issued, then after {took:?}: {e}");
    assert!(
        matches!(
            e.kind(),
            ErrorKind::DeadlinePassed | ErrorKind::NcclRemoteError | ErrorKind::NcclSystemError
        ),
        "{e}"
    );
    if e.kind() == ErrorKind::DeadlinePassed {
        let whose = format!("on rank {rank} of {ranks}");
        assert!(e.detail().unwrap().contains(&whose), "{e}");
    }
    // Liveness, not speed: a cap's wait is bounded by the timeout, the abort is quick.
    assert!(took < timeout + Duration::from_secs(60), "{took:?}");
    // Aborted: every later call says so, with the same kind, enqueueing nothing.
    assert!(comm.as_raw().is_null());
    let later = stream
        .scope(|s| comm.all_reduce_in_place(s, s.bind_mut(&mut x), n, ReduceOp::Sum))
        .unwrap()
        .unwrap_err();
    assert_eq!(later.kind(), e.kind(), "{later}");
}

/// `ranks` processes, one per GPU: each checks an all-reduce's sum and 200 calls in one scope
/// (the cap), then one rank (`victim`) SIGKILLs itself and every other rank issues 4,000
/// all-reduces of 4 MiB without a wait, then waits: each must end in an error (a passed
/// deadline naming its own rank, or NCCL's error for the dead peer) within its deadline and a
/// generous margin for the abort. Without the cap, today's mode hung in `ncclCommAbort` and a
/// blocking communicator inside call 1,022 (docs/nccl-designs.md). Says SKIPPED on a machine
/// of fewer GPUs.
fn killed_rank_after_unwaited_calls(name: &str, calls: nccl::NcclCalls, ranks: usize) {
    if let Ok(spec) = std::env::var(KILL_ENV) {
        kill_test_rank(&spec, calls);
        return;
    }
    let gpus = Driver::init().unwrap().device_count().unwrap();
    if gpus < ranks {
        skipped(&format!(
            "{name}: SKIPPED: needs {ranks} CUDA devices, this machine has {gpus}"
        ));
        return;
    }
    let port = free_port();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..ranks)
        .map(|rank| {
            let mut cmd = Command::new(&exe);
            cmd.args(["--exact", name, "--include-ignored", "--nocapture"])
                .env(KILL_ENV, format!("{rank} {ranks} {port}"));
            if calls == nccl::NcclCalls::Blocking {
                cmd.env("NCCL_RUNTIME_CONNECT", "0");
            }
            cmd.spawn().unwrap()
        })
        .collect();
    let limit = Instant::now() + Duration::from_secs(180) + 4 * kill_test_timeout();
    for (rank, mut child) in children.into_iter().enumerate() {
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("rank {rank} hung");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if rank == victim(ranks) {
            use std::os::unix::process::ExitStatusExt as _;
            assert_eq!(
                status.signal(),
                Some(libc::SIGKILL),
                "rank {rank}: {status}"
            );
        } else {
            assert!(status.success(), "rank {rank} failed: {status}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_gpus_settled_mode_4000_unwaited_calls_then_a_rank_killed() {
    killed_rank_after_unwaited_calls(
        "two_gpus_settled_mode_4000_unwaited_calls_then_a_rank_killed",
        nccl::NcclCalls::Settled,
        2,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_gpus_blocking_mode_4000_unwaited_calls_then_a_rank_killed() {
    killed_rank_after_unwaited_calls(
        "two_gpus_blocking_mode_4000_unwaited_calls_then_a_rank_killed",
        nccl::NcclCalls::Blocking,
        2,
    );
}

/// Four ranks, rank 2 killed: ranks 0, 1 and 3 each end in an error within their deadline.
/// Says SKIPPED on fewer than four GPUs.
#[test]
#[ignore = "needs a CUDA device"]
fn four_gpus_settled_mode_4000_unwaited_calls_then_a_rank_killed() {
    killed_rank_after_unwaited_calls(
        "four_gpus_settled_mode_4000_unwaited_calls_then_a_rank_killed",
        nccl::NcclCalls::Settled,
        4,
    );
}

/// As the settled one, in the blocking mode.
#[test]
#[ignore = "needs a CUDA device"]
fn four_gpus_blocking_mode_4000_unwaited_calls_then_a_rank_killed() {
    killed_rank_after_unwaited_calls(
        "four_gpus_blocking_mode_4000_unwaited_calls_then_a_rank_killed",
        nccl::NcclCalls::Blocking,
        4,
    );
}
