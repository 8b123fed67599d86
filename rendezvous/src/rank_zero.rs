//! Rank 0's side of the rendezvous: listening ([`Job::listen`], [`RankZero`]), accepting,
//! reading every connection's hello side by side and checking each (the job's secret first),
//! then answering every rank with the bytes or with one error. Everything it keeps grows with
//! the connections that arrived, each bounded, never with the world size.

use crate::address::addresses_of;
use crate::deadline::{checked_deadline, remaining, seconds};
use crate::error::{Error, ErrorKind, MakeError, Result, env_error, failed, make_failed};
use crate::job::Job;
use crate::secret::{SECRET_VAR, secret_matches};
use crate::wire::{self, Hello, Status, check_tag};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

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
/// How long `listen` may take to resolve the master address.
const LISTEN_RESOLVE_LIMIT: Duration = Duration::from_secs(10);

impl Job {
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
        if self.rank() != 0 {
            return Err(env_error(format!(
                "rank {} asked to listen as rank 0 at {}",
                self.rank(),
                self.endpoint()
            )));
        }
        self.listen_by(checked_deadline(LISTEN_RESOLVE_LIMIT)?)
    }

    pub(crate) fn listen_by(&self, deadline: Instant) -> Result<RankZero> {
        let addrs = addresses_of(self.master_addr(), self.master_port(), deadline)?;
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
        if self.job.world_size() == 1 {
            return make().map_err(make_failed);
        }
        self.share_by(tag, timeout, deadline, make)
    }

    pub(crate) fn share_by(
        self,
        tag: &[u8],
        timeout: Duration,
        deadline: Instant,
        make: impl FnOnce() -> Result<Vec<u8>, MakeError>,
    ) -> Result<Vec<u8>> {
        let world = self.job.world_size();
        let endpoint = self.local.to_string();
        // Stop waiting a little before the deadline, so the others hear why before theirs.
        let margin = (timeout / 4).min(Duration::from_secs(1));
        let cutoff = deadline.checked_sub(margin).unwrap_or(deadline);
        let mut round = Round {
            world,
            tag,
            secret: self.job.secret(),
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
