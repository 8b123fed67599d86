//! The processes of one job finding each other: one process per GPU, started by the launcher
//! the user already has (`torchrun`, `mpirun`), on one host or several.
//!
//! A library such as NCCL needs a few opaque bytes made by one process (NCCL's unique id, made
//! by rank 0) in every process of the job before any of them can start. [`Job::share`] carries
//! them: rank 0 makes them once and sends them to every other rank, over TCP, after checking
//! that every rank is there and that all of them agree.
//!
//! This crate is plain `std` networking: no CUDA, no `unsafe` (none is needed), no dependency,
//! and its tests run on loopback on machines without a GPU. [custack] re-exports it as
//! `custack::rendezvous` with its feature `nccl`, whose communicators it carries the unique id
//! of; it is usable on its own, with any library that needs bytes made once and known to every
//! rank.
//!
//! [custack]: https://docs.rs/custack
//!
//! # The convention
//!
//! A job of `world_size` processes numbers them `0..world_size` (the *rank*); `local_rank`
//! numbers the processes of one host, and usually picks the GPU. The launcher tells each
//! process who it is through its environment, read by [`Job::from_env`]:
//!
//! | | torchrun | Open MPI (`mpirun`) |
//! | --- | --- | --- |
//! | rank | `RANK` | `OMPI_COMM_WORLD_RANK` |
//! | world size | `WORLD_SIZE` | `OMPI_COMM_WORLD_SIZE` |
//! | local rank | `LOCAL_RANK` | `OMPI_COMM_WORLD_LOCAL_RANK` |
//! | rank 0's host and port | `MASTER_ADDR`, `MASTER_PORT` | the same names, passed with `mpirun -x MASTER_ADDR=… -x MASTER_PORT=…` |
//!
//! torchrun's names win where both are set. Rank 0 listens on `MASTER_ADDR:MASTER_PORT` and the
//! others connect to it; see [`Job::from_env`] for the port under torchrun, whose agent holds
//! `MASTER_PORT` itself, and for the local rank's default.
//!
//! # What `share` guarantees
//!
//! Every wait is bounded by one deadline, the call's start plus its timeout, and every rank
//! returns by it: the same bytes on every rank, or an error on every rank that reached rank 0,
//! saying what happened ([`ErrorKind::Timeout`] naming the missing ranks,
//! [`ErrorKind::Mismatch`] naming both sides of a disagreement:
//! ``rank 1 brings tag `nccl 2.27.3`, rank 0 `nccl 2.28.1` ``). Rank 0 calls `make` only once
//! every rank has arrived and agreed. A connection that is not a custack rank is closed and
//! does not count. See [`Job::share`] for the protocol.
//!
//! # Strangers, the job's secret and the trusted network
//!
//! Rank 0 listens on a TCP port that anything on the network can reach, so it takes what
//! arrives there as possibly hostile (R21 in custack's `docs/invariants.md`):
//!
//! - **No absurd world size**: at most [`MAX_WORLD_SIZE`] (`i32::MAX`: NCCL's `nranks` is a C
//!   `int`), refused by [`Job::new`] and [`Job::from_env`] with an error; rank 0 keeps nothing
//!   per rank of the world, only per connection that arrived, and caps every length a peer
//!   sends before allocating it.
//! - **No connection waits for another**: rank 0 reads every connection's hello at once, so
//!   connections that send nothing or garbage (a port scanner) are closed after 2 s and do not
//!   count, while the real ranks' hellos are read as they come, within the one deadline.
//! - **The job's secret**: a job may carry one ([`Job::with_secret`], or
//!   `CUSTACK_RENDEZVOUS_SECRET` ([`SECRET_VAR`]) for [`Job::from_env`], passed by the
//!   launcher like the other variables). Then a hello that does not present it is refused
//!   and does not count: it can neither take a real rank's place nor receive rank 0's bytes.
//!   Rank 0 compares it in time that depends only on its length.
//!
//! The secret is an authenticator against strangers on a trusted network, **not
//! encryption**: it travels in the clear in every hello, and so do the bytes [`Job::share`]
//! carries (NCCL's unique id, with which a process can join the communicator). It proves the
//! ranks to rank 0, not rank 0 to the ranks. **Without a secret, the rendezvous is for a
//! trusted network only**: any process that reaches rank 0's port can claim a rank. Where the
//! network itself is not trusted, carry the rendezvous over a tunnel or a private network.
//!
//! # Examples
//!
//! One process per GPU under `torchrun --nproc-per-node=8 prog`: every process reads who it is,
//! rank 0 makes the id and every rank receives it (here a stand-in for `ncclGetUniqueId`).
//!
//! ```no_run
//! use custack_rendezvous::Job;
//! use std::time::Duration;
//!
//! fn main() -> Result<(), custack_rendezvous::Error> {
//!     let job = Job::from_env()?;
//!     let tag = b"nccl 2.27.3"; // every rank must bring the same
//!     let id = job.share(tag, Duration::from_secs(30), || Ok(vec![42; 128]))?;
//!     assert_eq!(id.len(), 128);
//!     println!("rank {} of {} on GPU {}", job.rank(), job.world_size(), job.local_rank());
//!     Ok(())
//! }
//! ```

// No panics in library code: errors are returned, never unwrapped. The tests and the bench are
// separate crates and may unwrap.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![deny(clippy::unimplemented, clippy::todo, clippy::unreachable)]

// The modules, bottom up: each uses only those listed before it, and no file imports a file
// that imports it back (the `mod` lines below are in rustfmt's order, not this one). `Job`'s
// methods live with their job: made and read in `job.rs`, `listen` in `rank_zero.rs`, `share`
// in `share.rs`; a file that adds methods to `Job` uses `job`, never the other way.
//
// - `error.rs`: the one `Error` and its kinds, and the crate's constructors of it. Uses
//   nothing.
// - `deadline.rs`: the one deadline of a call, the time left until it, durations as messages
//   write them. Uses `error`.
// - `wire.rs`: the hello and the answer as bytes, their caps, reads and writes bounded by the
//   deadline. Uses `error` and `deadline`.
// - `secret.rs`: the job's shared secret: its variable, its cap, the comparison in time that
//   depends only on its length. Uses `wire`.
// - `address.rs`: rank 0's `host:port` and its addresses, resolved within the deadline. Uses
//   `error` and `deadline`.
// - `job.rs`: who this process is, from the launcher's variables or given. Uses `error`,
//   `secret` and `address`.
// - `rank_zero.rs`: rank 0's side: listening, accepting, reading hellos side by side,
//   answering. Uses `error`, `deadline`, `wire`, `secret`, `address` and `job`.
// - `other_ranks.rs`: every other rank's side: connecting, sending the hello, reading the
//   answer. Uses `error`, `deadline`, `wire`, `address` and `job`.
// - `share.rs`: `Job::share`, the whole call, which runs rank 0's side or another rank's (the
//   `Job` methods of `rank_zero.rs` and `other_ranks.rs`). Uses `error`, `deadline`, `wire`
//   and `job`, and calls into `rank_zero` and `other_ranks`.
mod address;
mod deadline;
mod error;
mod job;
mod other_ranks;
mod rank_zero;
mod secret;
mod share;
mod wire;

// The README's example is compiled (and, being `no_run`, not run) as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use error::{Error, ErrorKind, MakeError, Result};
pub use job::{Job, MAX_WORLD_SIZE};
pub use rank_zero::RankZero;
pub use secret::{MAX_SECRET_LEN, SECRET_VAR};
