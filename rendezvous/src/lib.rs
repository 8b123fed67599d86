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

mod error;
mod wire;

// The README's example is compiled (and, being `no_run`, not run) as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use error::{Error, ErrorKind, MakeError, Result};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::io;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wire::{Hello, ReadError, Status, remaining};

/// Who this process is in its job: its rank, the world size, its local rank, and where rank 0
/// listens.
///
/// Made from the launcher's environment ([`Job::from_env`]) or given ([`Job::new`], and
/// [`Job::with_secret`] for the job's secret). `Debug` shows whether the job has a secret,
/// never the secret.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Job {
    rank: usize,
    world_size: usize,
    local_rank: usize,
    master_addr: String,
    master_port: u16,
    /// The job's shared secret: every hello must present it (see the crate's docs).
    secret: Option<Box<[u8]>>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("rank", &self.rank)
            .field("world_size", &self.world_size)
            .field("local_rank", &self.local_rank)
            .field("master_addr", &self.master_addr)
            .field("master_port", &self.master_port)
            .field("secret", &self.secret.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// The largest world size: NCCL's `nranks` is a C `int`.
pub const MAX_WORLD_SIZE: usize = i32::MAX as usize;
/// The longest secret a job may carry, in bytes.
pub const MAX_SECRET_LEN: usize = wire::MAX_SECRET;
/// The variable [`Job::from_env`] reads the job's secret from.
pub const SECRET_VAR: &str = "CUSTACK_RENDEZVOUS_SECRET";

/// How long rank 0 waits for one connection's whole hello: a custack rank sends it at once.
const HELLO_WAIT: Duration = Duration::from_secs(2);
/// How many connections rank 0 reads hellos from at once; a newer connection beyond them
/// closes the oldest (the one silent the longest: a custack rank sends its hello as soon as it
/// has connected), so a flood of silent connections cannot keep a real rank out.
const MAX_PENDING: usize = 64;
/// How many connections rank 0 accepts in one pass before it reads what the pending ones sent.
const ACCEPTS_PER_PASS: usize = MAX_PENDING;
/// How many refused ranks rank 0 keeps connected to tell them why (more are closed at once).
const MAX_REFUSED: usize = 64;
/// How many problems, and how many missing ranks, an error names (then a count of the rest).
const MAX_NAMED: usize = 16;
/// The longest rank 0 sleeps between looks for a new connection; it starts at
/// [`ACCEPT_POLL_FIRST`] after each arrival and doubles, so ranks that arrive together are
/// accepted within microseconds and a long wait costs few wake-ups.
const ACCEPT_POLL: Duration = Duration::from_millis(5);
/// The first sleep between looks for a new connection.
const ACCEPT_POLL_FIRST: Duration = Duration::from_micros(20);
/// The longest a rank waits between two tries to connect.
const CONNECT_BACKOFF_MAX: Duration = Duration::from_millis(200);
/// How long `listen` may take to resolve the master address.
const LISTEN_RESOLVE_LIMIT: Duration = Duration::from_secs(10);

impl Job {
    /// Reads the job from the launcher's environment: torchrun's `RANK`, `WORLD_SIZE`,
    /// `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`; where `RANK`, `WORLD_SIZE` or `LOCAL_RANK`
    /// is unset, Open MPI's `OMPI_COMM_WORLD_RANK`, `OMPI_COMM_WORLD_SIZE`,
    /// `OMPI_COMM_WORLD_LOCAL_RANK`; the job's secret from `CUSTACK_RENDEZVOUS_SECRET`
    /// ([`SECRET_VAR`]) where set. See [`Job::from_env_with`] for every rule.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when a variable is missing or invalid; the detail names
    /// it and its value (never the secret's).
    pub fn from_env() -> Result<Job> {
        Self::from_env_with(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
    }

    /// [`Job::from_env`] with the variables read through `var` (`None`: unset), for tests
    /// and for programs that keep their settings elsewhere.
    ///
    /// - The rank is `RANK`, else `OMPI_COMM_WORLD_RANK`; the world size `WORLD_SIZE`, else
    ///   `OMPI_COMM_WORLD_SIZE`. Both are required.
    /// - The local rank is `LOCAL_RANK`, else `OMPI_COMM_WORLD_LOCAL_RANK`, else **the rank**:
    ///   right on one host, where a launcher that sets no local rank usually runs; on several
    ///   hosts it gives a device ordinal past the host's GPUs, so the mistake shows as an
    ///   invalid device rather than every process sharing GPU 0.
    /// - The world size is at most [`MAX_WORLD_SIZE`] (`i32::MAX`: NCCL's `nranks` is a C
    ///   `int`).
    /// - `MASTER_ADDR` (a host name or an IP address) is required.
    /// - The port is `CUSTACK_RENDEZVOUS_PORT` where set. Otherwise `MASTER_PORT`, except under
    ///   torchrun's agent store (`TORCHELASTIC_USE_AGENT_STORE=True`, which torchrun sets when
    ///   its agent itself listens on `MASTER_PORT`): then `MASTER_PORT + 1`, the same on every
    ///   rank. Ports are 1 to 65535.
    /// - The job's secret is `CUSTACK_RENDEZVOUS_SECRET` ([`SECRET_VAR`]) where set, taken
    ///   byte for byte (white space included), 1 to [`MAX_SECRET_LEN`] bytes; set, every
    ///   hello must present it (see [`Job::with_secret`]). Unset: no secret, for a trusted
    ///   network only.
    ///
    /// Other values may carry surrounding white space.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when a required variable is unset, a value is not a
    /// number of the right range (a world size over [`MAX_WORLD_SIZE`] included), the rank (or
    /// local rank) is not below the world size, or the secret is empty or over
    /// [`MAX_SECRET_LEN`] bytes; the detail names the variable and its value (the secret's
    /// length only).
    ///
    /// # Examples
    ///
    /// ```
    /// use custack_rendezvous::Job;
    ///
    /// let env = [("RANK", "1"), ("WORLD_SIZE", "4"), ("MASTER_ADDR", "10.0.0.1"), ("MASTER_PORT", "29500")];
    /// let job = Job::from_env_with(|name| {
    ///     env.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    /// })?;
    /// assert_eq!((job.rank(), job.world_size(), job.local_rank()), (1, 4, 1));
    /// assert_eq!((job.master_addr(), job.master_port()), ("10.0.0.1", 29500));
    /// # Ok::<(), custack_rendezvous::Error>(())
    /// ```
    pub fn from_env_with(mut var: impl FnMut(&str) -> Option<String>) -> Result<Job> {
        let mut first_of = |names: &[&'static str]| {
            names
                .iter()
                .find_map(|&name| var(name).map(|value| (name, value)))
        };
        let rank = first_of(&["RANK", "OMPI_COMM_WORLD_RANK"]);
        let world = first_of(&["WORLD_SIZE", "OMPI_COMM_WORLD_SIZE"]);
        let local = first_of(&["LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"]);
        let addr = first_of(&["MASTER_ADDR"]);
        let port = first_of(&["CUSTACK_RENDEZVOUS_PORT"]);
        let master_port = first_of(&["MASTER_PORT"]);
        let agent_store = first_of(&["TORCHELASTIC_USE_AGENT_STORE"]);
        let secret = first_of(&[SECRET_VAR]);

        let (rank_name, rank) = required(
            rank,
            "neither RANK (torchrun) nor OMPI_COMM_WORLD_RANK (Open MPI) is set",
        )?;
        let rank: usize = number(rank_name, &rank, "a rank (0, 1, 2, ...)")?;
        let (world_name, world) = required(
            world,
            "neither WORLD_SIZE (torchrun) nor OMPI_COMM_WORLD_SIZE (Open MPI) is set",
        )?;
        let world_size: usize = number(world_name, &world, "a world size (1, 2, ...)")?;
        if world_size == 0 {
            return Err(env_error(format!(
                "{world_name}=`{world}` is not a world size (1, 2, ...)"
            )));
        }
        if world_size > MAX_WORLD_SIZE {
            return Err(env_error(format!(
                "{world_name}=`{world}` is over the largest world size, {MAX_WORLD_SIZE} \
                 (NCCL's nranks is a C int)"
            )));
        }
        if rank >= world_size {
            return Err(env_error(format!(
                "{rank_name}={rank} is not below {world_name}={world_size}"
            )));
        }
        let local_rank = match local {
            Some((name, value)) => {
                let local: usize = number(name, &value, "a local rank (0, 1, 2, ...)")?;
                if local >= world_size {
                    return Err(env_error(format!(
                        "{name}={local} is not below {world_name}={world_size}"
                    )));
                }
                local
            }
            None => rank,
        };
        let (_, master_addr) = required(
            addr,
            "MASTER_ADDR is not set (torchrun sets it; with mpirun, pass -x MASTER_ADDR=<rank 0's host>)",
        )?;
        let master_addr = master_addr.trim().to_owned();
        if master_addr.is_empty() {
            return Err(env_error("MASTER_ADDR is empty"));
        }
        let master_port = if let Some((name, value)) = port {
            port_number(name, &value)?
        } else {
            let (name, value) = required(
                master_port,
                "MASTER_PORT is not set (torchrun sets it; with mpirun, pass -x MASTER_PORT=<a free port>)",
            )?;
            let port = port_number(name, &value)?;
            if agent_store.is_some_and(|(_, v)| v.trim().eq_ignore_ascii_case("true")) {
                port.checked_add(1).ok_or_else(|| {
                    env_error(format!(
                        "MASTER_PORT={port} is held by torchrun's agent store \
                         (TORCHELASTIC_USE_AGENT_STORE=True) and custack would take the next \
                         port, but there is none: set CUSTACK_RENDEZVOUS_PORT"
                    ))
                })?
            } else {
                port
            }
        };
        let job = Job::new(rank, world_size, local_rank, master_addr, master_port)?;
        match secret {
            None => Ok(job),
            Some((name, value)) => job
                .with_secret(value)
                .map_err(|e| env_error(format!("{name}: {}", e.detail()))),
        }
    }

    /// A job given explicitly: this process is `rank` of `world_size`, `local_rank` on its
    /// host, and rank 0 listens on `master_addr:master_port` (a host name or an IP address).
    ///
    /// Port 0 is accepted only for [`Job::listen`] on rank 0 (the system picks a free port,
    /// which [`RankZero::local_addr`] reports); [`Job::share`] refuses it.
    ///
    /// The job has no secret: see [`Job::with_secret`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when `world_size` is 0 or over [`MAX_WORLD_SIZE`]
    /// (`i32::MAX`: NCCL's `nranks` is a C `int`), `rank` or `local_rank` is not below it, or
    /// `master_addr` is empty. Nothing is allocated per rank, here or later.
    ///
    /// ```
    /// use custack_rendezvous::{ErrorKind, Job};
    ///
    /// let e = Job::new(0, usize::MAX, 0, "10.0.0.1", 29500).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::LaunchEnvironment);
    /// assert!(e.detail().contains("over the largest world size, 2147483647"));
    /// ```
    pub fn new(
        rank: usize,
        world_size: usize,
        local_rank: usize,
        master_addr: impl Into<String>,
        master_port: u16,
    ) -> Result<Job> {
        let master_addr = master_addr.into();
        if world_size == 0 {
            return Err(env_error("a world size of 0"));
        }
        if world_size > MAX_WORLD_SIZE {
            return Err(env_error(format!(
                "a world size of {world_size}, over the largest world size, {MAX_WORLD_SIZE} \
                 (NCCL's nranks is a C int)"
            )));
        }
        if rank >= world_size {
            return Err(env_error(format!(
                "rank {rank} is not below the world size {world_size}"
            )));
        }
        if local_rank >= world_size {
            return Err(env_error(format!(
                "local rank {local_rank} is not below the world size {world_size}"
            )));
        }
        if master_addr.trim().is_empty() {
            return Err(env_error("the master address is empty"));
        }
        Ok(Job {
            rank,
            world_size,
            local_rank,
            master_addr,
            master_port,
            secret: None,
        })
    }

    /// This job with a shared secret, which every rank of the job must carry alike: rank 0
    /// then refuses a hello that does not present it (no secret, or another one) as a
    /// stranger's, which neither counts as a rank, nor takes a rank's place, nor receives the
    /// bytes; the stranger is told it was refused. [`Job::from_env`] takes the secret from
    /// `CUSTACK_RENDEZVOUS_SECRET` ([`SECRET_VAR`]).
    ///
    /// The secret travels in the clear, in each rank's hello, and so do the bytes
    /// [`Job::share`] carries (NCCL's unique id): it keeps strangers on a trusted network (a
    /// port scanner, another job's rank, a misdirected process) from joining the job, not an
    /// eavesdropper from reading it, and it proves the ranks to rank 0, not rank 0 to the ranks.
    /// Rank 0 compares it in time that depends only on its length. Without a secret, any
    /// process that reaches rank 0's port can join: the rendezvous is then for a trusted
    /// network only.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when `secret` is empty or over [`MAX_SECRET_LEN`]
    /// bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use custack_rendezvous::Job;
    ///
    /// let job = Job::new(1, 4, 1, "10.0.0.1", 29500)?.with_secret("a per-job random string")?;
    /// assert!(job.has_secret());
    /// assert!(!format!("{job:?}").contains("random"));
    /// # Ok::<(), custack_rendezvous::Error>(())
    /// ```
    pub fn with_secret(mut self, secret: impl AsRef<[u8]>) -> Result<Job> {
        let secret = secret.as_ref();
        if secret.is_empty() {
            return Err(env_error(
                "an empty secret (leave it unset for no secret, on a trusted network only)",
            ));
        }
        if secret.len() > MAX_SECRET_LEN {
            return Err(env_error(format!(
                "a secret of {} bytes, over the rendezvous's {MAX_SECRET_LEN} bytes",
                secret.len()
            )));
        }
        self.secret = Some(secret.into());
        Ok(self)
    }

    /// Whether the job carries a shared secret ([`Job::with_secret`]).
    pub fn has_secret(&self) -> bool {
        self.secret.is_some()
    }

    fn secret_bytes(&self) -> &[u8] {
        self.secret.as_deref().unwrap_or_default()
    }

    /// This process's rank, `0..world_size`.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// How many processes the job has.
    pub fn world_size(&self) -> usize {
        self.world_size
    }
    /// This process's rank among those of its host: the GPU it usually takes.
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }
    /// Rank 0's host: a name or an IP address.
    pub fn master_addr(&self) -> &str {
        &self.master_addr
    }
    /// The port rank 0 listens on.
    pub fn master_port(&self) -> u16 {
        self.master_port
    }

    /// Rank 0 calls `make` once and sends its bytes to every other rank; every rank returns
    /// them.
    ///
    /// `tag`: bytes every rank must bring alike (a library's version, say `b"nccl 2.27.3"`; at
    /// most 4096 bytes); a rank whose tag differs makes every rank fail. All waits end by one
    /// deadline, now plus `timeout`, and so does the call on every rank (on the ranks other
    /// than 0 a host name is resolved on a helper thread, which may outlive the call when the
    /// resolver hangs).
    ///
    /// - **Rank 0** listens on the master address (as [`Job::listen`]) and accepts the other
    ///   `world_size − 1` ranks, reading every connection's hello at once (a connection that
    ///   sends nothing, or not a hello, within 2 s is closed and does not count, and holds up
    ///   no other). With the job's secret ([`Job::with_secret`]) it first refuses a hello that
    ///   does not present it: that connection does not count. Then it checks the hello: the
    ///   rendezvous protocol, the world size, the rank (in range, not twice) and the tag.
    ///   Once every rank has arrived and
    ///   agreed, it calls `make` and sends the bytes (at most 1 MiB) to each. Otherwise it
    ///   sends every connected rank the same error message and returns that error. It stops
    ///   waiting for missing ranks a quarter of the timeout (at most 1 s) before its deadline,
    ///   so that its answer reaches the others before theirs.
    /// - **Every other rank** connects to rank 0, trying again until the deadline while
    ///   nothing listens (rank 0 may start later), sends its hello (a magic, the protocol,
    ///   this crate's version, its rank, the world size, the job's secret if any, its tag) and
    ///   waits for the answer.
    /// - A world size of 1 calls `make` and touches no network.
    ///
    /// `make` may fail with any error ([`MakeError`]: `?` boxes one, `"why".into()` makes one):
    /// rank 0 then returns [`ErrorKind::Failed`] with that error as the
    /// [`source`](std::error::Error::source), and every other rank the same message.
    ///
    /// Ranks may run different versions of this crate as long as they speak the same rendezvous
    /// protocol (the tag is where a program pins what must be equal). A second process with a
    /// rank that arrives after rank 0 has heard from every rank finds nobody listening any
    /// more and times out alone; one that arrives before makes every rank fail.
    ///
    /// # Errors
    ///
    /// On every rank that reached rank 0, the same message:
    ///
    /// - [`ErrorKind::Timeout`]: ranks did not arrive by the deadline (the detail
    ///   names them); on the other ranks also when rank 0 did not answer in time
    ///   (``rank 0 at 10.0.0.1:29500 did not answer within 30 s``), which is what a wrong
    ///   address that nothing listens on gives.
    /// - [`ErrorKind::Mismatch`]: the ranks disagree on the world size, the tag or
    ///   the protocol, a rank is out of range or arrived twice, or a rank presents a secret
    ///   and rank 0 has none; the detail names both sides.
    /// - [`ErrorKind::Failed`]: `make` failed (on rank 0 its error is the source), its
    ///   bytes are over 1 MiB, the tag is over 4096 bytes, a connection
    ///   broke, or the peer at the master address is not a custack rank 0. On a rank alone:
    ///   rank 0 refused its hello, which does not present the job's secret (or speaks another
    ///   protocol while the job has a secret); the others go on without it.
    /// - [`ErrorKind::LaunchEnvironment`]: the master address does not resolve, rank 0 cannot
    ///   listen on it (the detail says why: a port in use, an address of another host), or the
    ///   port is 0.
    ///
    /// An I/O error is the error's [`source`](std::error::Error::source).
    pub fn share(
        &self,
        tag: &[u8],
        timeout: Duration,
        make: impl FnOnce() -> Result<Vec<u8>, MakeError>,
    ) -> Result<Vec<u8>> {
        let deadline = checked_deadline(timeout)?;
        check_tag(tag)?;
        if self.world_size == 1 {
            return make().map_err(make_failed);
        }
        if self.master_port == 0 {
            return Err(env_error(format!(
                "port 0 for rank 0 at {}: every rank must know the port (Job::listen on rank 0 \
                 binds port 0 and reports the port it got)",
                self.master_addr
            )));
        }
        if self.rank == 0 {
            self.listen_by(deadline)?
                .share_by(tag, timeout, deadline, make)
        } else {
            self.ask_rank_zero(tag, timeout, deadline)
        }
    }

    /// Rank 0's first half of [`Job::share`]: listens on the master address now and returns
    /// the listener, whose [`RankZero::share`] is the second half. With port 0 the system picks
    /// a free port, which [`RankZero::local_addr`] reports: tests, and programs that hand the
    /// port to the other ranks themselves, use it. Listening uses `std`'s `TcpListener::bind`
    /// (`SO_REUSEADDR` on Unix, so a port just left by an earlier run can be taken again).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LaunchEnvironment`] when this is not rank 0, the master address does not
    /// resolve within 10 s, or none of its addresses can be listened on (the detail says why;
    /// the I/O error is the source).
    pub fn listen(&self) -> Result<RankZero> {
        if self.rank != 0 {
            return Err(env_error(format!(
                "rank {} asked to listen as rank 0 at {}",
                self.rank,
                self.endpoint()
            )));
        }
        self.listen_by(checked_deadline(LISTEN_RESOLVE_LIMIT)?)
    }

    fn listen_by(&self, deadline: Instant) -> Result<RankZero> {
        let addrs = addresses_of(&self.master_addr, self.master_port, deadline)?;
        let mut last = None;
        for addr in addrs {
            match TcpListener::bind(addr) {
                Ok(listener) => {
                    let local = listener.local_addr().unwrap_or(addr);
                    return Ok(RankZero {
                        job: self.clone(),
                        listener,
                        local,
                    });
                }
                Err(e) => last = Some((addr, e)),
            }
        }
        let Some((addr, e)) = last else {
            return Err(env_error(format!(
                "the master address {} resolves to no address",
                self.endpoint()
            )));
        };
        let why = match e.kind() {
            io::ErrorKind::AddrInUse => {
                " (another process holds the port; under torchrun, whose agent listens on \
                 MASTER_PORT, set CUSTACK_RENDEZVOUS_PORT to a free port)"
            }
            io::ErrorKind::AddrNotAvailable => {
                " (not an address of this host: rank 0 must run on the master host)"
            }
            _ => "",
        };
        Err(env_error(format!(
            "rank 0 cannot listen on {} ({addr}): {e}{why}",
            self.endpoint()
        ))
        .with_source(e))
    }

    /// A rank other than 0: connect, say hello, wait for the answer.
    fn ask_rank_zero(&self, tag: &[u8], timeout: Duration, deadline: Instant) -> Result<Vec<u8>> {
        let endpoint = self.endpoint();
        let addrs = addresses_of(&self.master_addr, self.master_port, deadline)?;
        let no_answer = |source: Option<io::Error>| {
            let e = Error::new(
                ErrorKind::Timeout,
                format!(
                    "rank 0 at {endpoint} did not answer within {} (rank {} of {} waited)",
                    seconds(timeout),
                    self.rank,
                    self.world_size
                ),
            );
            match source {
                Some(s) => e.with_source(s),
                None => e,
            }
        };
        let mut stream = connect(&addrs, deadline).map_err(no_answer)?;
        let _ = stream.set_nodelay(true);
        let hello = Hello::ours(self.rank, self.world_size, self.secret_bytes(), tag).encode();
        if let Err(e) = wire::write_all_by(&mut stream, &hello, deadline) {
            return Err(if wire::is_timeout(&e) {
                no_answer(Some(e))
            } else {
                failed(format!(
                    "sending rank {}'s hello to rank 0 at {endpoint}",
                    self.rank
                ))
                .with_source(e)
            });
        }
        match wire::read_answer(&mut stream, deadline) {
            Ok((Status::Payload, bytes)) => Ok(bytes),
            Ok((status, message)) => {
                let kind = match status {
                    Status::Mismatch => ErrorKind::Mismatch,
                    Status::Timeout => ErrorKind::Timeout,
                    Status::Payload | Status::Failed => ErrorKind::Failed,
                };
                Err(Error::new(
                    kind,
                    format!(
                        "rank 0 at {endpoint} answered rank {}: {}",
                        self.rank,
                        String::from_utf8_lossy(&message)
                    ),
                ))
            }
            Err(ReadError::Io(e)) if wire::is_timeout(&e) => Err(no_answer(Some(e))),
            Err(ReadError::Io(e)) => Err(failed(format!(
                "rank 0 at {endpoint} closed the connection without an answer to rank {}",
                self.rank
            ))
            .with_source(e)),
            Err(ReadError::NotCustack(what)) => Err(failed(format!(
                "{endpoint} answered rank {} with {what}: not a custack rank 0 (another \
                 service on that port? under torchrun, whose agent listens on MASTER_PORT, \
                 set CUSTACK_RENDEZVOUS_PORT)",
                self.rank
            ))),
        }
    }

    /// `host:port`, brackets around an IPv6 address.
    fn endpoint(&self) -> String {
        endpoint(&self.master_addr, self.master_port)
    }
}

/// Rank 0, listening: [`Job::listen`]'s result, whose [`share`](RankZero::share) finishes
/// the rendezvous.
///
/// Connections that arrive between `listen` and `share` wait in the system's queue.
#[derive(Debug)]
pub struct RankZero {
    job: Job,
    listener: TcpListener,
    local: SocketAddr,
}

impl RankZero {
    /// The address and port rank 0 listens on: with port 0 given, the port the system picked.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The job this rank 0 belongs to.
    pub fn job(&self) -> &Job {
        &self.job
    }

    /// Rank 0's part of [`Job::share`], on this listener, with a deadline of now plus
    /// `timeout`: accepts and checks the other ranks, calls `make` once all arrived and agreed,
    /// and sends its bytes to each, or the error to each.
    ///
    /// # Errors
    ///
    /// As [`Job::share`]'s rank 0.
    pub fn share(
        self,
        tag: &[u8],
        timeout: Duration,
        make: impl FnOnce() -> Result<Vec<u8>, MakeError>,
    ) -> Result<Vec<u8>> {
        let deadline = checked_deadline(timeout)?;
        check_tag(tag)?;
        if self.job.world_size == 1 {
            return make().map_err(make_failed);
        }
        self.share_by(tag, timeout, deadline, make)
    }

    fn share_by(
        self,
        tag: &[u8],
        timeout: Duration,
        deadline: Instant,
        make: impl FnOnce() -> Result<Vec<u8>, MakeError>,
    ) -> Result<Vec<u8>> {
        let world = self.job.world_size;
        let endpoint = self.local.to_string();
        // Stop waiting a little before the deadline, so the others hear why before theirs.
        let margin = (timeout / 4).min(Duration::from_secs(1));
        let cutoff = deadline.checked_sub(margin).unwrap_or(deadline);
        let mut round = Round {
            world,
            tag,
            secret: self.job.secret.as_deref(),
            arrived: BTreeMap::new(),
            seen: BTreeSet::new(),
            refused: Vec::new(),
            problems: Vec::new(),
            unnamed_problems: 0,
            mismatch: false,
            strangers: 0,
            stranger_protocol: None,
        };
        round.gather(&self.listener, &endpoint, cutoff)?;
        drop(self.listener);
        // Counted, never listed in full: a world may be up to i32::MAX ranks.
        let missing = world - 1 - round.seen.len();
        if missing > 0 {
            let named: Vec<String> = (1..world)
                .filter(|r| !round.seen.contains(r))
                .take(MAX_NAMED)
                .map(|r| r.to_string())
                .collect();
            let s = if missing == 1 { "" } else { "s" };
            let rest = missing - named.len();
            let more = if rest > 0 {
                format!(" and {rest} more")
            } else {
                String::new()
            };
            let mut problem = format!(
                "rank{s} {}{more} of {world} did not arrive at rank 0 ({endpoint}) within {}",
                named.join(", "),
                seconds(timeout)
            );
            if round.strangers > 0 {
                let _ = write!(
                    problem,
                    " (rank 0 refused {} connection{} that did not present the job's secret{})",
                    round.strangers,
                    if round.strangers == 1 { "" } else { "s" },
                    round.stranger_protocol.as_deref().unwrap_or_default()
                );
            }
            round.note(problem);
        }
        if !round.problems.is_empty() {
            let kind = if round.mismatch {
                ErrorKind::Mismatch
            } else if missing == 0 {
                ErrorKind::Failed
            } else {
                ErrorKind::Timeout
            };
            let status = match kind {
                ErrorKind::Mismatch => Status::Mismatch,
                ErrorKind::Timeout => Status::Timeout,
                _ => Status::Failed,
            };
            let mut message = round.problems.join("; ");
            if round.unnamed_problems > 0 {
                let _ = write!(message, "; and {} more problems", round.unnamed_problems);
            }
            round.tell_everyone(status, message.as_bytes(), deadline);
            return Err(Error::new(kind, message));
        }
        let payload = match make() {
            Ok(p) if p.len() <= wire::MAX_BODY => p,
            Ok(p) => {
                let message = format!(
                    "rank 0's bytes to share are {} bytes, over the rendezvous's {} bytes",
                    p.len(),
                    wire::MAX_BODY
                );
                round.tell_everyone(Status::Failed, message.as_bytes(), deadline);
                return Err(failed(message));
            }
            Err(e) => {
                let e = make_failed(e);
                round.tell_everyone(Status::Failed, e.detail().as_bytes(), deadline);
                return Err(e);
            }
        };
        let answer = wire::encode_answer(Status::Payload, &payload);
        let mut first_failure = None;
        for (&rank, stream) in &mut round.arrived {
            if let Err(e) = wire::write_all_by(stream, &answer, deadline) {
                first_failure.get_or_insert((rank, e));
            }
        }
        match first_failure {
            None => Ok(payload),
            Some((rank, e)) => Err(failed(format!(
                "rank 0 could not send the bytes to rank {rank} (the other ranks have them)"
            ))
            .with_source(e)),
        }
    }
}

/// Rank 0's record of one rendezvous. Everything in it grows with the connections that
/// arrived, each bounded, never with the world size.
struct Round<'t> {
    world: usize,
    tag: &'t [u8],
    /// The job's secret, which every hello must present.
    secret: Option<&'t [u8]>,
    /// Rank r's connection, once it arrived and agreed (never rank 0).
    arrived: BTreeMap<usize, TcpStream>,
    /// Ranks 1.. that arrived, agreeing or not: the wait ends when all did.
    seen: BTreeSet<usize>,
    /// Connections of ranks that disagreed: they hear the error too (at most
    /// [`MAX_REFUSED`]).
    refused: Vec<TcpStream>,
    /// What went wrong, the first [`MAX_NAMED`]; the rest counted in `unnamed_problems`.
    problems: Vec<String>,
    unnamed_problems: usize,
    mismatch: bool,
    /// Connections refused for not presenting the secret: they do not count.
    strangers: usize,
    /// The first stranger that spoke another protocol, for the timeout's detail.
    stranger_protocol: Option<String>,
}

/// A connection whose hello rank 0 is still reading.
struct Pending {
    stream: TcpStream,
    /// What it has sent so far (at most [`wire::MAX_HELLO`] bytes).
    bytes: Vec<u8>,
    /// When it is dropped if its hello is not whole by then.
    by: Instant,
}

/// What one look at a pending connection found.
enum Look {
    /// Its hello is whole.
    Hello(TcpStream, Hello),
    /// Nothing more yet, or not all; `true` when bytes came.
    Waiting(Pending, bool),
    /// Not a custack rank, closed early, or too slow: dropped, not counted.
    Dropped,
}

impl Pending {
    /// Reads what the peer has sent (the socket is non-blocking: never waits).
    fn look(mut self, now: Instant) -> Look {
        let mut chunk = [0u8; 1024];
        let mut came = false;
        loop {
            let room = wire::MAX_HELLO.saturating_sub(self.bytes.len());
            let Some(buf) = chunk.get_mut(..room.min(1024)) else {
                return Look::Dropped;
            };
            if buf.is_empty() {
                return Look::Dropped;
            }
            match io::Read::read(&mut self.stream, buf) {
                Ok(0) => return Look::Dropped,
                Ok(n) => {
                    came = true;
                    self.bytes
                        .extend_from_slice(buf.get(..n).unwrap_or_default());
                    match Hello::parse(&self.bytes) {
                        Ok(Some(hello)) => return Look::Hello(self.stream, hello),
                        Ok(None) => {}
                        Err(_not_custack) => return Look::Dropped,
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(_) => return Look::Dropped,
            }
        }
        if now >= self.by {
            Look::Dropped
        } else {
            Look::Waiting(self, came)
        }
    }
}

/// Whether `given` is `secret`, in time that depends on `secret`'s length only: every byte is
/// compared, whatever differs first (a wrong guess cannot be timed closer byte by byte).
fn secret_matches(secret: &[u8], given: &[u8]) -> bool {
    let mut diff = usize::from(secret.len() != given.len());
    for (i, &s) in secret.iter().enumerate() {
        let g = given.get(i).copied().unwrap_or(!s);
        diff |= usize::from(std::hint::black_box(s ^ g));
    }
    std::hint::black_box(diff) == 0
}

impl Round<'_> {
    /// Accepts connections and reads their hellos until every rank 1.. arrived (agreeing or
    /// not), the cutoff passes, or accepting fails.
    ///
    /// Every connection is read at once, not one after another: one thread, non-blocking
    /// sockets polled. Each pass accepts what is waiting (up to [`ACCEPTS_PER_PASS`]), then
    /// reads what every pending connection has sent, without waiting for any, and checks each
    /// hello that is whole; with nothing new it sleeps (20 µs at first, doubling to 5 ms). So
    /// a connection that sends nothing or half a hello (a port scanner) costs a socket and a
    /// look per pass until [`HELLO_WAIT`] or the cutoff, and a real rank's hello is read in
    /// the pass after it arrives. At most [`MAX_PENDING`] connections are pending: a newer
    /// one closes the oldest. Polling instead of a thread per connection: no thread to start,
    /// cap or join, and nothing outlives the call.
    fn gather(&mut self, listener: &TcpListener, endpoint: &str, cutoff: Instant) -> Result<()> {
        if let Err(e) = listener.set_nonblocking(true) {
            return Err(
                failed(format!("rank 0 could not poll its listener at {endpoint}")).with_source(e),
            );
        }
        let mut pending: VecDeque<Pending> = VecDeque::new();
        let mut nap = ACCEPT_POLL_FIRST;
        // Bounded by `cutoff`: each pass does a bounded amount of work and sleeps at most
        // ACCEPT_POLL.
        'passes: while self.seen.len() < self.world - 1 {
            let Some(left) = remaining(cutoff) else { break };
            let now = Instant::now();
            let mut progress = false;
            for _ in 0..ACCEPTS_PER_PASS {
                match listener.accept() {
                    Ok((stream, _peer)) => {
                        progress = true;
                        // A connection that cannot be polled is not read.
                        if stream.set_nonblocking(true).is_err() {
                            continue;
                        }
                        let _ = stream.set_nodelay(true);
                        if pending.len() >= MAX_PENDING {
                            pending.pop_front();
                        }
                        pending.push_back(Pending {
                            stream,
                            bytes: Vec::new(),
                            by: cutoff.min(now + HELLO_WAIT),
                        });
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::Interrupted
                                | io::ErrorKind::ConnectionAborted
                                | io::ErrorKind::ConnectionReset
                        ) => {}
                    Err(e) => {
                        self.note(format!("rank 0 could not accept at {endpoint}: {e}"));
                        break 'passes;
                    }
                }
            }
            for p in std::mem::take(&mut pending) {
                match p.look(now) {
                    Look::Hello(stream, hello) => {
                        progress = true;
                        self.welcome(stream, &hello);
                    }
                    Look::Waiting(p, came) => {
                        progress |= came;
                        pending.push_back(p);
                    }
                    Look::Dropped => {}
                }
            }
            if progress {
                nap = ACCEPT_POLL_FIRST;
            } else {
                std::thread::sleep(nap.min(left));
                nap = (nap * 2).min(ACCEPT_POLL);
            }
        }
        Ok(())
    }

    /// Checks one connection's whole hello: first the secret, then what the ranks must agree
    /// on.
    fn welcome(&mut self, mut stream: TcpStream, hello: &Hello) {
        let ours = Hello::ours(0, self.world, self.secret.unwrap_or_default(), self.tag);
        if let Some(secret) = self.secret {
            // A stranger: it neither counts nor takes a rank's place, and hears only that it
            // was refused (one write that does not wait, then closed).
            if hello.protocol != ours.protocol || !secret_matches(secret, &hello.secret) {
                self.strangers += 1;
                if hello.protocol != ours.protocol && self.stranger_protocol.is_none() {
                    self.stranger_protocol = Some(format!(
                        "; one spoke rendezvous protocol {} (custack-rendezvous {}), rank 0 \
                         protocol {} (custack-rendezvous {})",
                        hello.protocol, hello.version, ours.protocol, ours.version
                    ));
                }
                let answer = wire::encode_answer(
                    Status::Failed,
                    format!(
                        "rank 0 refused the hello of rank {}: it does not present the job's \
                         secret ({SECRET_VAR}), or speaks another rendezvous protocol than {} \
                         (custack-rendezvous {})",
                        hello.rank, ours.protocol, ours.version
                    )
                    .as_bytes(),
                );
                let _ = io::Write::write(&mut stream, &answer);
                return;
            }
        }
        // The listener polls; a rank's connection blocks (with timeouts) from here on.
        if stream.set_nonblocking(false).is_err() {
            return;
        }
        let rank = usize::try_from(hello.rank).ok().filter(|&r| r < self.world);
        if let Some(r) = rank.filter(|&r| r > 0) {
            self.seen.insert(r);
        }
        let problem = if hello.protocol != ours.protocol {
            Some(format!(
                "rank {} speaks rendezvous protocol {} (custack-rendezvous {}), rank 0 \
                 protocol {} (custack-rendezvous {})",
                hello.rank, hello.protocol, hello.version, ours.protocol, ours.version
            ))
        } else if self.secret.is_none() && !hello.secret.is_empty() {
            Some(format!(
                "rank {} presents a secret, rank 0 has none (set {SECRET_VAR} on every rank \
                 or on none)",
                hello.rank
            ))
        } else if hello.world_size != ours.world_size {
            Some(format!(
                "rank {} brings world size {}, rank 0 {}",
                hello.rank, hello.world_size, ours.world_size
            ))
        } else if rank.is_none() {
            Some(format!(
                "rank {} is out of range for world size {}",
                hello.rank, self.world
            ))
        } else if hello.tag != self.tag {
            Some(format!(
                "rank {} brings tag `{}`, rank 0 `{}`",
                hello.rank,
                hello.tag.escape_ascii(),
                self.tag.escape_ascii()
            ))
        } else if hello.rank == 0 || rank.is_some_and(|r| self.arrived.contains_key(&r)) {
            Some(format!("rank {} arrived twice", hello.rank))
        } else {
            None
        };
        match (problem, rank) {
            (None, Some(r)) => {
                self.arrived.insert(r, stream);
            }
            (problem, _) => {
                self.mismatch = true;
                self.note(problem.unwrap_or_else(|| format!("rank {} refused", hello.rank)));
                if self.refused.len() < MAX_REFUSED {
                    self.refused.push(stream);
                }
            }
        }
    }

    /// Records a problem: the first [`MAX_NAMED`] by what they say, the rest counted.
    fn note(&mut self, problem: String) {
        if self.problems.len() < MAX_NAMED {
            self.problems.push(problem);
        } else {
            self.unnamed_problems += 1;
        }
    }

    /// Sends every connected rank the same error answer, best effort, then closes gently.
    fn tell_everyone(&mut self, status: Status, message: &[u8], deadline: Instant) {
        let answer = wire::encode_answer(status, message);
        let streams = std::mem::take(&mut self.arrived)
            .into_values()
            .chain(self.refused.drain(..));
        let mut told = Vec::new();
        for mut stream in streams {
            if wire::write_all_by(&mut stream, &answer, deadline).is_ok() {
                told.push(stream);
            }
        }
        for stream in told {
            wire::close_gently(stream, deadline);
        }
    }
}

/// Connects to the first of `addrs` that accepts, trying again (backing off up to 200 ms)
/// until `deadline`; the last error when none did.
fn connect(addrs: &[SocketAddr], deadline: Instant) -> Result<TcpStream, Option<io::Error>> {
    let mut last = None;
    let mut backoff = Duration::from_millis(10);
    loop {
        for addr in addrs {
            let Some(left) = remaining(deadline) else {
                return Err(last);
            };
            match TcpStream::connect_timeout(addr, left.min(Duration::from_secs(1))) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        let Some(left) = remaining(deadline) else {
            return Err(last);
        };
        std::thread::sleep(backoff.min(left));
        backoff = (backoff * 2).min(CONNECT_BACKOFF_MAX);
    }
}

/// The addresses of `host:port`. An IP address is taken as it is; a host name is resolved on
/// a helper thread, waited for until `deadline` (the system resolver has no timeout of its
/// own; a hung resolver leaves the thread behind, not the caller).
fn addresses_of(host: &str, port: u16, deadline: Instant) -> Result<Vec<SocketAddr>> {
    let bare = host.trim().trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let (tx, rx) = mpsc::channel();
    let name = bare.to_owned();
    let spawned = std::thread::Builder::new()
        .name("custack-resolve".into())
        .spawn(move || {
            let _ = tx.send(
                (name.as_str(), port)
                    .to_socket_addrs()
                    .map(Iterator::collect::<Vec<_>>),
            );
        });
    if let Err(e) = spawned {
        return Err(failed(format!("could not start a thread to resolve `{host}`")).with_source(e));
    }
    let left = remaining(deadline).unwrap_or(Duration::from_millis(1));
    match rx.recv_timeout(left) {
        Ok(Ok(addrs)) if !addrs.is_empty() => Ok(addrs),
        Ok(Ok(_)) => Err(env_error(format!(
            "the master address `{host}` resolves to no address"
        ))),
        Ok(Err(e)) => Err(env_error(format!(
            "the master address `{host}` does not resolve ({})",
            endpoint(host, port)
        ))
        .with_source(e)),
        Err(_) => Err(Error::new(
            ErrorKind::Timeout,
            format!(
                "resolving the master address `{host}` ({}) did not finish in time",
                endpoint(host, port)
            ),
        )),
    }
}

/// Now plus `timeout`: the deadline of every wait of one call; an error when it lies beyond what
/// this system's clock can count (`Duration::MAX`, say).
fn checked_deadline(timeout: Duration) -> Result<Instant> {
    Instant::now().checked_add(timeout).ok_or_else(|| {
        failed(format!(
            "a timeout of {} lies beyond what this system's clock can count",
            seconds(timeout)
        ))
    })
}

fn check_tag(tag: &[u8]) -> Result<()> {
    if tag.len() > wire::MAX_TAG {
        return Err(failed(format!(
            "a tag of {} bytes, over the rendezvous's {} bytes",
            tag.len(),
            wire::MAX_TAG
        )));
    }
    Ok(())
}

/// `make`'s failure, as every rank reports it: its message in the detail, and on rank 0 the
/// error itself as the source.
fn make_failed(e: MakeError) -> Error {
    failed(format!("rank 0 could not make the bytes to share: {e}")).with_boxed_source(e)
}

fn env_error(detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::LaunchEnvironment, detail)
}

fn failed(detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::Failed, detail)
}

fn required(
    found: Option<(&'static str, String)>,
    missing: &str,
) -> Result<(&'static str, String)> {
    found.ok_or_else(|| env_error(missing))
}

fn number<T: std::str::FromStr>(name: &str, value: &str, what: &str) -> Result<T> {
    value
        .trim()
        .parse()
        .map_err(|_| env_error(format!("{name}=`{value}` is not {what}")))
}

fn port_number(name: &str, value: &str) -> Result<u16> {
    match value.trim().parse::<u16>() {
        Ok(port) if port != 0 => Ok(port),
        _ => Err(env_error(format!(
            "{name}=`{value}` is not a port (1 to 65535)"
        ))),
    }
}

/// `host:port`, brackets around an IPv6 address.
fn endpoint(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// `30 s`, `1.5 s`, `250 ms`.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    let mut s = String::new();
    let _ = if ms < 1000 {
        write!(s, "{ms} ms")
    } else if ms % 1000 == 0 {
        write!(s, "{} s", ms / 1000)
    } else {
        write!(s, "{} s", d.as_secs_f64())
    };
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_matches_only_itself() {
        assert!(secret_matches(b"sesame", b"sesame"));
        for other in [
            &b"sesamE"[..],
            b"Sesame",
            b"sesam",
            b"sesame!",
            b"",
            b"\0\0\0\0\0\0",
        ] {
            assert!(
                !secret_matches(b"sesame", other),
                "{}",
                other.escape_ascii()
            );
        }
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }

    #[test]
    fn endpoints_bracket_ipv6() {
        assert_eq!(endpoint("::1", 80), "[::1]:80");
        assert_eq!(endpoint("[::1]", 80), "[::1]:80");
        assert_eq!(endpoint("node-0", 29500), "node-0:29500");
    }

    #[test]
    fn ip_addresses_need_no_resolver() {
        let far = Instant::now() + Duration::from_secs(5);
        assert_eq!(
            addresses_of("[::1]", 7, far).unwrap(),
            vec![SocketAddr::from(([0, 0, 0, 0, 0, 0, 0, 1], 7))]
        );
        assert_eq!(
            addresses_of("127.0.0.1", 7, far).unwrap(),
            vec![SocketAddr::from(([127, 0, 0, 1], 7))]
        );
    }
}
